package compound

// drawAside gives each part of a pixel, subpixel or zoom decomposition
// that its destination's channel draws itself (a leaf of that channel
// with no output frame) a frame to the nearest ancestor assembling on the
// channel, and marks it DrawsAside: the planner has it drawn past the
// window's pixels, cleared first, and read back, so that its samples are
// interleaved, averaged or scaled like those of the other parts. Drawn in
// place, it stayed a render of fewer pixels at its share's corner (as in
// Equalizer), or, with depth, hid the other parts' samples behind it.
//
// A part that draws one eye of interleaved eyes (Compound.EyePixels)
// draws aside with the frames it has: in place, its render stayed in the
// pixels of the eyes assembled before it.
func drawAside(cfg *Config) {
	for _, root := range cfg.Compounds {
		root.Walk(func(c *Compound) {
			dest := c.Destination()
			if dest == nil || dest == c || c.Channel != dest.Channel || !c.IsLeaf() || c.Tasks&TaskDraw == 0 {
				return
			}
			if len(c.OutputFrames) > 0 {
				if c.Eyes&dest.Eyes != dest.Eyes && dest.EyePixels() != nil {
					c.Tasks |= TaskClear
					c.DrawsAside = true
				}
				return
			}
			if c.Pixel.W <= 1 && c.Pixel.H <= 1 && c.Subpixel.Size <= 1 && c.Zoom == (Zoom{X: 1, Y: 1}) {
				return
			}
			to := c.Parent
			for to != dest && (to.Channel != c.Channel || to.Tasks&TaskAssemble == 0) {
				to = to.Parent
			}
			name := "(drawn aside " + c.Path() + ")"
			out := &Frame{Name: name, Type: "memory", Viewport: FullViewport, Buffers: c.Buffers, Zoom: Zoom{X: 1, Y: 1}, Compound: c, Consumers: []*Compound{to}}
			in := *out
			in.Compound, in.Consumers, in.Producers = to, nil, []*Compound{c}
			c.OutputFrames = append(c.OutputFrames, out)
			to.InputFrames = append(to.InputFrames, &in)
			c.Tasks |= TaskClear | TaskReadback
			to.Tasks |= TaskAssemble
			c.DrawsAside = true
		})
	}
}
