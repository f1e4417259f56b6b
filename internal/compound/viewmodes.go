package compound

// ViewModes are the views' modes frame by frame, as an application
// switches them (Equalizer's View::changeMode): a view made stereo for
// frame N renders both eyes from frame N on, where its destinations can
// show them. Planning applies them to the views; it has no clock of its
// own.
type ViewModes struct {
	pending FromFrame[viewMode]
}

type viewMode struct {
	view   *View
	stereo bool
}

// Set makes view stereo (or mono) from frame on.
func (m *ViewModes) Set(frame int, view *View, stereo bool) {
	m.pending.Set(frame, viewMode{view, stereo})
}

// Advance applies the modes set for frames up to frame: call it before
// planning frame.
func (m *ViewModes) Advance(frame int) {
	m.pending.Advance(frame, func(c viewMode) {
		c.view.Mode = "MONO"
		if c.stereo {
			c.view.Mode = "STEREO"
		}
	})
}

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
