package compound

// Changes are what an application and its users change while a config
// runs, each from a frame on: tracked heads, the canvases' layouts, the
// views' modes and the windows' sizes. Both planners embed it, so they
// follow the same changes from the same frames (the scheduler finds its
// setters by type assertion), and Advance applies them before a frame is
// planned.
type Changes struct {
	Heads Tracking
	Sizes WindowSizes
	// edits switch the model itself: a canvas' active layout, a view's
	// mode (Equalizer's Canvas::useLayout, View::changeMode)
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
	mode := "MONO"
	if stereo {
		mode = "STEREO"
	}
	c.edits.Set(frame, func() { v.Mode = mode })
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
// eye: the wall and the eye's position in world space (Tracking.Eye).
func (c *Changes) Wall(cfg *Config, x *Compound, eye int) (Wall, Vec3) {
	wall := *x.Wall
	if dest := x.Destination(); dest != nil && dest.Channel != nil {
		wall = wall.Widened(c.Sizes.Widening(dest.Channel))
	}
	if v := ViewOf(x); v != nil && wall.Type != "HMD" {
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
	return c.Heads.Eye(cfg, x, wall, eye)
}
