package compound

import "strconv"

// Samples is how many samples per pixel the window's draws ask for
// (planes_samples), 0 when it asks for no multisampling.
func (w *Window) Samples() int {
	n, err := strconv.Atoi(w.Attributes["planes_samples"])
	if err != nil || n < 2 {
		return 0
	}
	return n
}

// Stencil reports whether the window's framebuffer has a stencil buffer:
// when it asks for one (planes_stencil ON, or bits). Equalizer gives one
// by default (AUTO); goeq only when asked, since a packed depth-stencil
// buffer reads its depth back 2.5 times as slowly as a depth buffer alone
// under llvmpipe (BenchmarkReadbackSyncDepthStencil1080p), and GL 3.3 has
// no stencil buffer apart from the depth buffer.
func (w *Window) Stencil() bool {
	v := w.Attributes["planes_stencil"]
	n, err := strconv.Atoi(v)
	return v == "ON" || err == nil && n > 0
}

// DrawSamples is the multisampling c's draw gets: its window's samples,
// except where c draws a part of the data (a DB range, fixed or given by a
// DB load, tree or tile equalizer above it) or every nth pixel. Those
// images are composited pixel by pixel, by depth or interleaved, where
// antialiased edges, blended with the background of a part, would leave
// seams that the whole image does not have; they render single-sampled.
func (c *Compound) DrawSamples() int {
	if c.Channel == nil || c.Range != FullRange || c.Pixel.W > 1 || c.Pixel.H > 1 {
		return 0
	}
	for x := c; x != nil; x = x.Parent {
		for _, eq := range x.Equalizers {
			if eq.Kind.Splits() && eq.Mode == SplitDB || eq.Kind == TileEqualizer && eq.ChunkDB > 0 {
				return 0
			}
		}
	}
	return c.Channel.Window.Samples()
}

// TreeSamples is the most samples any draw of c's image gets, in c's
// tree and in the trees whose frames it takes in: what a render of c's
// whole image in one draw uses to antialias as those draws do.
func (c *Compound) TreeSamples() int {
	n := 0
	seen := map[*Compound]bool{}
	var visit func(*Compound)
	visit = func(t *Compound) {
		t.Walk(func(x *Compound) {
			if seen[x] {
				return
			}
			seen[x] = true
			if x.Tasks&TaskDraw != 0 {
				n = max(n, x.DrawSamples())
			}
			for _, f := range x.InputFrames {
				for _, p := range f.Producers {
					visit(p)
				}
			}
		})
	}
	visit(c)
	return n
}
