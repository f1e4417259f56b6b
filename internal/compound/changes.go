package compound

import "fmt"

// Changes are what an application and its users change while a config
// runs, each from a frame on: tracked heads, the canvases' layouts, the
// views' modes, model units and balancing, and the windows' sizes. Both planners
// embed it, so they follow the same changes from the same frames (the
// scheduler finds its setters by type assertion), and Advance applies
// them before a frame is planned.
type Changes struct {
	Heads Tracking
	Sizes WindowSizes
	// edits switch the model itself: a canvas' active layout, a view's
	// mode, model unit and its compounds' equalizers (Equalizer's
	// Canvas::useLayout, View::changeMode, View::setModelUnit,
	// View::getEqualizer)
	edits FromFrame[func()]
	// focus holds each view's focus move until the heads change
	focus map[*View]focusMove
}

// SetHead places an observer's tracked head from frame on.
func (c *Changes) SetHead(frame int, o *Observer, h Head) { c.Heads.Set(frame, o, h) }

// SetLayout shows a canvas' layout (an index into its Layouts) from frame
// on.
func (c *Changes) SetLayout(frame int, cv *Canvas, layout int) {
	c.edits.Set(frame, func() { cv.ActiveLayout = layout })
}

// SetViewMode makes a view stereo (or mono) from frame on.
func (c *Changes) SetViewMode(frame int, v *View, stereo bool) {
	c.edits.Set(frame, func() { v.Stereo = stereo })
}

// CheckModelUnit says why unit cannot be a view's model unit: it must be
// above zero, and within a range where the walls and eyes it scales stay
// apart in float32 (the drawn matrices).
func CheckModelUnit(unit float64) error {
	if !(unit >= MinModelUnit && unit <= MaxModelUnit) {
		return fmt.Errorf("model unit %v: want %g to %g", unit, MinModelUnit, MaxModelUnit)
	}
	return nil
}

// The model units CheckModelUnit takes: from a model in astronomical
// units (about 7e-12 per metre) to one in picometres.
const (
	MinModelUnit = 1e-12
	MaxModelUnit = 1e12
)

// SetModelUnit gives a view that model unit (CheckModelUnit) from frame
// on.
func (c *Changes) SetModelUnit(frame int, v *View, unit float64) {
	c.edits.Set(frame, func() { v.ModelUnit = unit })
}

// SetWindowSize gives a window that size from frame on.
func (c *Changes) SetWindowSize(frame int, w *Window, size Size) { c.Sizes.Set(frame, w, size) }

// Advance applies the changes set for frames up to frame: call it before
// planning frame. It reports whether it applied any (a frame planned
// before may no longer hold).
func (c *Changes) Advance(frame int) (changed bool) {
	heads := c.Heads.Advance(frame)
	edits := c.edits.Advance(frame, func(edit func()) { edit() })
	sizes := c.Sizes.Advance(frame)
	clear(c.focus)
	return heads || edits || sizes
}

// Wall is the wall compound x renders, as its destination shows it now
// (widened with a resized window, moved to its observer's focus), seen by
// eye: the wall and the eye's position in world space (Tracking.Eye),
// both scaled by the view's model unit.
func (c *Changes) Wall(cfg *Config, x *Compound, eye int) (Wall, Vec3) {
	wall := *x.Wall
	if dest := x.Destination(); dest != nil && dest.Channel != nil {
		wall = wall.Widened(c.Sizes.Widening(dest.Channel))
	}
	v := ViewOf(x)
	if v != nil && !wall.HMD {
		m, ok := c.focus[v]
		if !ok {
			m.eye, m.ratio = c.focusOf(cfg, v)
			if c.focus == nil {
				c.focus = map[*View]focusMove{}
			}
			c.focus[v] = m
		}
		wall = wall.movedFocus(m.eye, m.ratio)
	}
	wall, pos := c.Heads.Eye(cfg, x, wall, eye)
	if v != nil && v.ModelUnit > 0 && v.ModelUnit != 1 {
		// as Equalizer's, after the focus: the focus distance is in the
		// display's metres. Unlike Equalizer's, an HMD's head position is
		// scaled too: the whole display moves with the unit, head and all.
		wall, pos = wall.Scaled(v.ModelUnit), pos.Scale(v.ModelUnit)
	}
	return wall, pos
}
