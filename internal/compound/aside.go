package compound

import "slices"

// drawAside gives each part of a pixel, subpixel or zoom decomposition
// (a zoom a DFR equalizer above it chooses included) that its home's
// channel draws itself (a leaf of that channel with no
// output frame: Compound.Home, its destination or an assembling compound
// on a source's channel) a frame to the nearest ancestor assembling on
// the channel, and marks it DrawsAside: the planner has it drawn past the
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
			dest, home := c.Destination(), c.Home()
			if dest == nil || home == c || !c.IsLeaf() || c.Tasks&TaskDraw == 0 {
				return
			}
			if len(c.OutputFrames) > 0 {
				if home != dest {
					return
				}
				if c.Eyes&dest.Eyes != dest.Eyes && dest.EyePixels() != nil {
					c.Tasks |= TaskClear
					c.DrawsAside = true
				}
				return
			}
			if c.Pixel.W <= 1 && c.Pixel.H <= 1 && c.Subpixel.Size <= 1 && c.Zoom == (Zoom{X: 1, Y: 1}) && !zoomedByDFR(c) {
				return
			}
			to := assemblerAbove(c)
			if to == nil {
				to = home
			}
			sendAside(c, to)
		})
	}
}

// assemblerAbove is the nearest compound above c, up to its home, that
// composites on c's channel, or nil.
func assemblerAbove(c *Compound) *Compound {
	home := c.Home()
	for a := c.Parent; a != nil; a = a.Parent {
		if a.Channel == c.Channel && a.Tasks&TaskAssemble != 0 {
			return a
		}
		if a == home {
			break
		}
	}
	return nil
}

// sendAside has c draw aside and send its image to to, the compound that
// composites it on their channel.
func sendAside(c, to *Compound) {
	name := "(drawn aside " + c.Path() + ")"
	out := &Frame{Name: name, Viewport: FullViewport, Buffers: c.Buffers, Zoom: Zoom{X: 1, Y: 1}, Compound: c, Consumers: []*Compound{to}}
	in := *out
	in.Compound, in.Consumers, in.Producers = to, nil, []*Compound{c}
	c.OutputFrames = append(c.OutputFrames, out)
	to.InputFrames = append(to.InputFrames, &in)
	c.Tasks |= TaskClear | TaskReadback
	to.Tasks |= TaskAssemble
	c.DrawsAside = true
}

// blendRanges resolves cfg for renderers whose images are translucent
// colour without depth (a volume renderer that implements
// draw.RangeOrderer), as Equalizer's eVolve runs any config: its frames
// and compounds carry no depth, so the parts of a database decomposition
// blend in the renderer's order instead of merging by a depth none drew
// (the render client orders a part drawn in place with those blended
// over it), and no sort-last compound exchanges bands by depth
// (SortLastSources).
//
// A part its home's channel draws in place from a tile equalizer's
// database chunks draws aside: each chunk is read back and blended in its
// turn. In place, each chunk's slab replaced the one drawn before it (a
// volume on a chunked config lost 9% of its pixels).
func blendRanges(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		c.Buffers &^= BufferDepth
		for _, f := range append(c.OutputFrames, c.InputFrames...) {
			f.Buffers &^= BufferDepth
		}
	})
	cfg.Walk(func(c *Compound) {
		home := c.Home()
		if c.Destination() == nil || home == c || !c.IsLeaf() || c.Tasks&TaskDraw == 0 || len(c.OutputFrames) > 0 || !drawsChunks(c) {
			return
		}
		to := assemblerAbove(c)
		if to == nil {
			to = home
		}
		sendAside(c, to)
	})
}

// drawsTiles reports whether c has a tile equalizer of 2D tiles, which its
// children draw at full size whatever their zoom or c's.
func drawsTiles(c *Compound) bool {
	return slices.ContainsFunc(c.Equalizers, func(eq *Equalizer) bool { return eq.Kind == TileEqualizer && eq.ChunkDB == 0 })
}

// zoomedByDFR reports whether a DFR equalizer on c or above it may zoom
// c: its zoom is then chosen each frame rather than known here, and a part
// drawn in place under a zoomed assembly landed off its place.
func zoomedByDFR(c *Compound) bool {
	for a := c; a != nil; a = a.Parent {
		if slices.ContainsFunc(a.Equalizers, func(eq *Equalizer) bool { return eq.Kind == DFREqualizer }) {
			return true
		}
	}
	return false
}

// PixelGrid is the compound whose pixels the pixel decomposition of a
// part c samples, where an assembly above it interleaves them: the
// parent of the topmost compound below the assembly that sets a pixel
// kernel. A zoomed assembly places the samples on its zoomed pixels where
// that is the assembly's zoom. nil where c has no kernel of its own below
// the assembly, the assembly is not above it, or c is in a 2D part (of
// a viewport, or a load, tree or tile equalizer) below the assembly: its
// share's corner need not fall on a zoomed pixel's, so neither would its
// samples.
func PixelGrid(c, assembly *Compound) *Compound {
	var top *Compound
	for x := c; x != assembly; x = x.Parent {
		if x == nil || x.Local.Viewport != FullViewport || x.Parent != nil && slices.ContainsFunc(x.Parent.Equalizers, splits2D) {
			return nil
		}
		if x.Local.Pixel.W > 1 || x.Local.Pixel.H > 1 {
			top = x
		}
	}
	if top == nil {
		return nil
	}
	return top.Parent
}

// splits2D reports whether an equalizer gives its compound's children 2D
// parts.
func splits2D(eq *Equalizer) bool {
	switch eq.Kind {
	case LoadEqualizer, TreeEqualizer:
		return eq.Mode != SplitDB
	case TileEqualizer:
		return eq.ChunkDB == 0
	}
	return false
}

// zoomIgnored reports whether c's zoom has no effect: it has, or its
// parent has, a tile equalizer of 2D tiles (drawsTiles).
func zoomIgnored(c *Compound) bool {
	return drawsTiles(c) || c.Parent != nil && drawsTiles(c.Parent)
}

// drawsChunks reports whether c draws the database chunks of a tile
// equalizer: the nearest one above it chunks the range.
func drawsChunks(c *Compound) bool {
	for a := c; a != nil; a = a.Parent {
		for _, eq := range a.Equalizers {
			if eq.Kind == TileEqualizer {
				return eq.ChunkDB > 0
			}
		}
	}
	return false
}
