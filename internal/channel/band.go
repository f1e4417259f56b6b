package channel

import (
	"slices"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
)

// A source of a sort-last exchange (planner.Task.Exchange) under a software
// GL keeps the band it holds in memory: its first readback reads its whole
// region once, the parts others send are merged into that copy with the
// vector kernels, later readbacks send parts of it, and only a band that
// stays on screen (the compound's own channel) goes back to the GL, once.
// Through the GL every round would upload the merged parts and read them
// back again, which llvmpipe does on the CPU at a fraction of the speed.
// Only the part the source drew is read, and what else was written since
// the frame's first clear; the rest of its region still holds that clear.

// bandsInMemory reports whether t's exchange keeps its band in memory.
func (fr *frameRun) bandsInMemory(t *planner.Task) bool {
	if t.Exchange == 0 || !fr.e.cpuMerge || t.Pixel.W > 1 || t.Pixel.H > 1 || t.Subpixel.Size > 1 {
		return false
	}
	_, reads := fr.e.Renderer.(draw.Reader)
	_, assembles := fr.e.Renderer.(draw.Assembler)
	return !reads && !assembles
}

// band returns the in-memory band an exchange readback sends from (nil:
// read from the GL). The first readback of the exchange reads the region
// into it.
func (fr *frameRun) band(r *channelRun, t *planner.Task, region compound.PixelViewport) *cpuMerged {
	if !fr.bandsInMemory(t) {
		return nil
	}
	if t.Exchange != planner.ExchangeFirst {
		return r.bands[t.Eye]
	}
	if r.bands == nil {
		r.bands = map[int]*cpuMerged{}
	}
	if old := r.bands[t.Eye]; old != nil {
		fr.e.freeMerged(old)
	}
	b := fr.e.takeMerged(r.target.FB)
	// what the source drew is read; the rest of its region is as cleared
	drawn := region
	if d, ok := r.dirty[t.Eye]; ok && !fr.e.opt.FullReadback {
		drawn = intersect(region, d)
	}
	for _, rest := range outside(region, drawn) {
		if r.target.holdsClear(rest) {
			b.fill(rest, fr.clearPixel(r.target, rest.X, rest.Y))
		} else {
			drawn = union(drawn, rest)
		}
	}
	r.target.FB.Bind()
	b.read(drawn)
	r.bands[t.Eye] = b
	return b
}

// clearColor is the colour regions are cleared to.
func (fr *frameRun) clearColor() [4]float32 {
	if c, ok := fr.e.Renderer.(draw.ClearColorer); ok {
		return c.ClearColor()
	}
	return DefaultClearColor
}

// fill sets a rectangle to a cleared framebuffer's pixels: the colour
// pixel (Target.clearPixel) and the farthest depth. The first row is
// filled by doubling, the others copied from it.
func (m *cpuMerged) fill(r compound.PixelViewport, pixel [4]byte) {
	if r.W <= 0 || r.H <= 0 {
		return
	}
	w := m.img.W
	first := m.img.Color[4*(r.Y*w+r.X) : 4*(r.Y*w+r.X+r.W)]
	fillPixels(first, pixel)
	depth := m.img.Depth[r.Y*w+r.X : r.Y*w+r.X+r.W]
	fill(depth, 1)
	for y := r.Y; y < r.Y+r.H; y++ {
		if y > r.Y {
			copy(m.img.Color[4*(y*w+r.X):4*(y*w+r.X+r.W)], first)
			copy(m.img.Depth[y*w+r.X:y*w+r.X+r.W], depth)
		}
		if m.stencil != nil {
			clear(m.stencil[y*w+r.X : y*w+r.X+r.W])
		}
	}
}

// outside returns the parts of r that in does not cover (in lies within
// r or is empty): up to four rectangles, the rows below and above in and
// the columns left and right of it.
func outside(r, in compound.PixelViewport) []compound.PixelViewport {
	if in.W <= 0 || in.H <= 0 {
		return []compound.PixelViewport{r}
	}
	parts := []compound.PixelViewport{
		{X: r.X, Y: r.Y, W: r.W, H: in.Y - r.Y},
		{X: r.X, Y: in.Y + in.H, W: r.W, H: r.Y + r.H - in.Y - in.H},
		{X: r.X, Y: in.Y, W: in.X - r.X, H: in.H},
		{X: in.X + in.W, Y: in.Y, W: r.X + r.W - in.X - in.W, H: in.H},
	}
	return slices.DeleteFunc(parts, func(p compound.PixelViewport) bool { return p.W <= 0 || p.H <= 0 })
}

// slice copies a rectangle of the image out, as a readback would return it.
func (m *cpuMerged) slice(frame int, r compound.PixelViewport, depth bool) *Pixels {
	px := &Pixels{Frame: frame, PixelViewport: r, Color: make([]byte, 4*r.W*r.H)}
	w := m.img.W
	for y := 0; y < r.H; y++ {
		copy(px.Color[4*y*r.W:4*(y+1)*r.W], m.img.Color[4*((r.Y+y)*w+r.X):])
	}
	if depth {
		px.Depth = make([]float32, r.W*r.H)
		for y := 0; y < r.H; y++ {
			copy(px.Depth[y*r.W:(y+1)*r.W], m.img.Depth[(r.Y+y)*w+r.X:])
		}
	}
	return px
}

// band is the in-memory band the assembly merges into (nil: merge
// through the GL).
func (a *assembly) band() *cpuMerged {
	if a.t.Exchange != planner.ExchangeMerge && a.t.Exchange != planner.ExchangeShow {
		return nil
	}
	return a.r.bands[a.t.Eye]
}

// mergeIntoBand merges a held input into the band at its place.
func (a *assembly) mergeIntoBand(b *cpuMerged, px *Pixels, at compound.PixelViewport) error {
	a.touched = union(a.touched, at)
	return compositor.DepthMergeAt(b.img, px.image(), at.X, at.Y)
}

// returnBand puts the band's part within keep (what was drawn or merged
// there) into the framebuffer (flushCPUMerge), and leaves the GL to hold
// it from then on.
func (a *assembly) returnBand(keep compound.PixelViewport) error {
	b := a.band()
	if b == nil {
		return nil
	}
	delete(a.r.bands, a.t.Eye)
	defer a.fr.e.freeMerged(b)
	b.dirty = intersect(keep, union(a.r.dirty[a.t.Eye], a.touched))
	if b.dirty.W <= 0 || b.dirty.H <= 0 {
		return nil
	}
	// the band started as the framebuffer's pixels of its region
	b.whole, b.depthKept = a.writesFramebuffer(), false
	held := a.merged
	a.merged = b
	err := a.flushCPUMerge()
	a.merged = held
	return err
}

// freeMerged hands an in-memory image back for reuse.
func (e *Executor) freeMerged(m *cpuMerged) {
	m.dirty = compound.PixelViewport{}
	e.mergeFree = append(e.mergeFree, m)
}

// releaseBands frees the bands a channel still holds at the end of a frame.
func (r *channelRun) releaseBands(e *Executor) {
	for eye, b := range r.bands {
		e.freeMerged(b)
		delete(r.bands, eye)
	}
}
