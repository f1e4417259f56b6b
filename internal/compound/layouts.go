package compound

// LayoutSwitches are the canvases' layouts frame by frame, as an
// application switches them (Equalizer's Canvas::useLayout): a layout
// chosen for frame N shows from frame N on. Planning applies them to the
// canvases; it has no clock of its own.
type LayoutSwitches struct {
	pending FromFrame[layoutSwitch]
}

type layoutSwitch struct {
	canvas *Canvas
	layout int
}

// Set shows layout (an index into the canvas' Layouts) on canvas from
// frame on.
func (s *LayoutSwitches) Set(frame int, canvas *Canvas, layout int) {
	s.pending.Set(frame, layoutSwitch{canvas, layout})
}

// Advance makes the layouts chosen for frames up to frame the canvases'
// active ones: call it before planning frame.
func (s *LayoutSwitches) Advance(frame int) {
	s.pending.Advance(frame, func(sw layoutSwitch) { sw.canvas.ActiveLayout = sw.layout })
}

// LayoutIndexes are where the layout named name stands in each canvas
// that has it.
func (c *Config) LayoutIndexes(name string) map[*Canvas]int {
	out := map[*Canvas]int{}
	for _, cv := range c.Canvases {
		for i, l := range cv.Layouts {
			if l != nil && l.Name == name {
				out[cv] = i
			}
		}
	}
	return out
}
