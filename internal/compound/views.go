package compound

// Views lists the config's views, layout by layout, in the config's order.
func (c *Config) Views() []*View {
	var out []*View
	for _, l := range c.Layouts {
		out = append(out, l.Views...)
	}
	return out
}

// ViewIndex is where the view channel ch shows stands in Views, -1 when
// it shows none.
func (c *Config) ViewIndex(ch *Channel) int {
	if ch == nil || ch.View == nil {
		return -1
	}
	i := 0
	for _, l := range c.Layouts {
		for _, v := range l.Views {
			if v == ch.View {
				return i
			}
			i++
		}
	}
	return -1
}
