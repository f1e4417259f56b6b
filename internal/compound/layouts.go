package compound

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LayoutIndexes are where layout l stands in each canvas that has it.
func (c *Config) LayoutIndexes(l *Layout) map[*Canvas]int {
	out := map[*Canvas]int{}
	for _, cv := range c.Canvases {
		for i, cl := range cv.Layouts {
			if cl != nil && cl == l {
				out[cv] = i
			}
		}
	}
	return out
}

// FindLayout is the config's layout called name or, when none is, the
// one at that index in the config's order, as the config language
// refers to layouts (`layout 1`): unnamed layouts can be chosen too.
func (c *Config) FindLayout(name string) (*Layout, error) {
	for _, l := range c.Layouts {
		if l.Name == name && name != "" {
			return l, nil
		}
	}
	if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(c.Layouts) {
		return c.Layouts[i], nil
	}
	return nil, fmt.Errorf("no layout %q: the config has %s", name, c.DescribeLayouts())
}

// DescribeLayouts lists the config's layouts for a message
// (DescribeLayoutNames).
func (c *Config) DescribeLayouts() string {
	names := make([]string, len(c.Layouts))
	for i, l := range c.Layouts {
		names[i] = l.Name
	}
	return DescribeLayoutNames(names)
}

// DescribeLayoutNames lists layouts, given their names in the config's
// order, for a message: by name, and by index where a layout has none.
func DescribeLayoutNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = DescribeLayoutName(n, i)
	}
	return strings.Join(out, ", ")
}

// DescribeLayoutName names one layout for a message, as
// DescribeLayoutNames does: by name, or by its index where it has none.
func DescribeLayoutName(name string, index int) string {
	if name == "" {
		return fmt.Sprintf("%d (unnamed)", index)
	}
	return strconv.Quote(name)
}

// LayoutLabel names one of the config's layouts in a message, as
// DescribeLayoutName does: `layout "2D"`, or `layout 0 (unnamed)`.
func (c *Config) LayoutLabel(l *Layout) string {
	return "layout " + DescribeLayoutName(l.Name, slices.Index(c.Layouts, l))
}

// ActivateLayout makes the named layout (or, unnamed, the one at that
// index) the active one on every canvas that has it.
func (c *Config) ActivateLayout(name string) error {
	l, err := c.FindLayout(name)
	if err != nil {
		return err
	}
	indexes := c.LayoutIndexes(l)
	if len(indexes) == 0 {
		return fmt.Errorf("no canvas has layout %q", name)
	}
	for cv, i := range indexes {
		cv.ActiveLayout = i
	}
	return nil
}
