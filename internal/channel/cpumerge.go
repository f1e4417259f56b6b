package channel

import (
	"slices"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/planner"
)

// softwareGL reports whether the current context renders on the CPU
// (Mesa's llvmpipe, softpipe or swr).
func softwareGL() bool {
	r := strings.ToLower(gl.GoStr(gl.GetString(gl.RENDERER)))
	return strings.Contains(r, "llvmpipe") || strings.Contains(r, "softpipe") || strings.Contains(r, "swr")
}

// holds reports whether an arriving frame stays in memory to be merged on
// the CPU: a sort-last input (depth, no pixel or subpixel decomposition) at
// its drawn size, for a destination that composites itself and took more
// than one input in the last frame, or any input under a software GL,
// where the merged pixels go into the framebuffer without a shader pass
// (cpuMerged.whole).
func (e *Executor) holds(f *FrameData) bool {
	if !e.cpuMerge || f.Depth == nil || f.Subpixel.Size > 1 || f.Pixel.W > 1 || f.Pixel.H > 1 {
		return false
	}
	least := 2
	if e.Pipe.softwareGL {
		least = 1
	}
	if fan := e.fanIn.Load(); fan == nil || (*fan)[f.Consumer] < least {
		return false
	}
	if _, ok := e.Renderer.(draw.Assembler); ok {
		return false
	}
	return f.W == f.Share.W && f.H == f.Share.H && f.W > 0 && f.H > 0
}

// noteFanIn records how many input frames each channel of the plans
// composites.
func (e *Executor) noteFanIn(plans []*planner.ChannelPlan) {
	fan := map[string]int{}
	for _, p := range plans {
		exchanges := false
		for _, t := range p.Tasks {
			for _, in := range t.Inputs {
				fan[p.Channel.ID] += len(in.Producers)
			}
			exchanges = exchanges || t.Exchange == planner.ExchangeMerge || t.Exchange == planner.ExchangeShow
		}
		if exchanges {
			// an exchange's parts are held for its band (band.go)
			fan[p.Channel.ID] = max(fan[p.Channel.ID], 2)
		}
	}
	e.fanIn.Store(&fan)
}

// cpuMerged is an assembly's depth merge in memory: inputs merged as they
// arrive into an image the size of the channel's framebuffer. Its dirty
// part goes into the framebuffer in one go: written into the
// framebuffer's textures when the image is whole (it started from the
// framebuffer's pixels there, so merging the inputs into it gave what the
// framebuffer would hold), otherwise uploaded to textures of its own and
// merged by one shader pass. With LESS on both sides, merging inputs
// among themselves first and the result into the framebuffer gives the
// framebuffer the same pixels as merging each input into it in turn (ties
// keep the earlier).
type cpuMerged struct {
	img   *compositor.Image
	dirty compound.PixelViewport
	whole bool
	// depthKept: the dirty part's depth is still the framebuffer's (only
	// colour was written into it), so only colour goes back
	depthKept bool
	// stencil is a whole image's stencil (nil for a framebuffer without):
	// the merge leaves it as the framebuffer held it
	stencil      []byte
	color, depth uint32
	texW, texH   int
}

// read reads part p of the bound framebuffer into the image.
func (m *cpuMerged) read(p compound.PixelViewport) {
	glutil.ReadInto(p.X, p.Y, p.W, p.H, m.img.W, m.img.Color, m.img.Depth)
	if m.stencil != nil {
		glutil.ReadStencilInto(p.X, p.Y, p.W, p.H, m.img.W, m.stencil)
	}
}

// image views the pixels as a compositor image, without a copy.
func (px *Pixels) image() *compositor.Image {
	return &compositor.Image{W: px.PixelViewport.W, H: px.PixelViewport.H, Color: px.Color, Depth: px.Depth}
}

// mergeOnCPU merges held pixels into the assembly's in-memory image at at.
func (a *assembly) mergeOnCPU(px *Pixels, at compound.PixelViewport) error {
	m := a.inMemory(at)
	m.depthKept = false
	return compositor.DepthMergeAt(m.img, px.image(), at.X, at.Y)
}

// interleaveOnCPU writes a pixel-decomposed input's samples into the
// assembly's in-memory image as the interleave shaders would: placed as
// s says inside at, with depth only where nearer.
// The image must be whole (writesFramebuffer): it holds the
// framebuffer's pixels between the samples.
func (a *assembly) interleaveOnCPU(px *Pixels, s gpu.Samples, at compound.PixelViewport) error {
	m := a.inMemory(at)
	m.depthKept = m.depthKept && px.Depth == nil
	src := px.image()
	if s.Drawn != s.Grid {
		// zoomed: its samples spread over the share's as on the GPU
		src = compositor.NewImage(s.Grid[0], s.Grid[1], px.Depth != nil)
		if err := compositor.Resample(src, px.image()); err != nil {
			return err
		}
	}
	return compositor.InterleaveAt(m.img, src, s.First, s.Step, at.X, at.Y, at.W, at.H)
}

// inMemory is the assembly's in-memory image, readied to be written at
// at: its dirty part grows by at.
func (a *assembly) inMemory(at compound.PixelViewport) *cpuMerged {
	if a.merged == nil {
		a.merged = a.fr.e.takeMerged(a.r.target.FB)
		a.merged.whole = a.writesFramebuffer()
	}
	m := a.merged
	grown := at
	if m.dirty.W > 0 {
		grown = union(m.dirty, at)
	} else {
		m.depthKept = true // readied from the framebuffer below
	}
	a.startOutside(m, grown)
	m.dirty = grown
	return m
}

// averageOnCPU writes the mean of subpixel samples' colours into the
// framebuffer at at (their size) without a shader pass, where the GL is
// software and every sample waits in memory; done is false where it
// cannot, and the GPU averages them.
func (a *assembly) averageOnCPU(samples []*arrival, at compound.PixelViewport) (done bool, err error) {
	fb := a.r.target.FB
	if !a.writesFramebuffer() || !contains(compound.PixelViewport{W: fb.W, H: fb.H}, at) || len(samples) > compositor.MaxAverage {
		return false, nil
	}
	imgs := make([]*compositor.Image, len(samples))
	for i, ar := range samples {
		px := ar.upload.pending
		if px == nil || px.PixelViewport.W != at.W || px.PixelViewport.H != at.H || len(px.Color) < 4*at.W*at.H {
			return false, nil
		}
		imgs[i] = &compositor.Image{W: at.W, H: at.H, Color: px.Color[:4*at.W*at.H]}
	}
	mean := &compositor.Image{W: at.W, H: at.H, Color: a.fr.e.scratch(4 * at.W * at.H)}
	if err := compositor.Average(mean, imgs); err != nil {
		return true, err
	}
	a.wrote(at)
	return true, fb.Write(at.X, at.Y, at.W, at.H, at.W, mean.Color, nil, nil)
}

// assembleMasked writes the channels of a tile that the task's colour
// mask selects (an anaglyph eye) into the framebuffer without a shader
// pass: the framebuffer's pixels under the tile, read back, or the clear
// where they still hold it, take those channels and go back whole.
func (a *assembly) assembleMasked(px *Pixels, at compound.PixelViewport) error {
	t := a.r.target
	under := &compositor.Image{W: at.W, H: at.H, Color: a.fr.e.scratch(4 * at.W * at.H)}
	if t.holdsClear(at) {
		fillPixels(under.Color, a.fr.clearPixel(t, at.X, at.Y))
	} else {
		t.FB.Bind()
		glutil.ReadColor(at.X, at.Y, at.W, at.H, under.Color)
	}
	var mask [4]byte // RGBA, as the mask's bits
	for c := range mask {
		if a.t.ColorMask&(planner.MaskRed<<c) != 0 {
			mask[c] = 0xff
		}
	}
	tile := &compositor.Image{W: at.W, H: at.H, Color: px.Color[:4*at.W*at.H]}
	if err := compositor.CopyChannels(under, tile, mask); err != nil {
		return err
	}
	a.wrote(at)
	return t.FB.Write(at.X, at.Y, at.W, at.H, at.W, under.Color, nil, nil)
}

// fillPixels sets every pixel of color to pixel.
func fillPixels(color []byte, pixel [4]byte) {
	if len(color) < 4 {
		return
	}
	copy(color, pixel[:])
	for n := 4; n < len(color); n *= 2 {
		copy(color[n:], color[:n])
	}
}

// scratch is n bytes of the executor's buffer for colour on its way into
// the framebuffer (a subpixel mean, a masked tile), used by one write at a
// time.
func (e *Executor) scratch(n int) []byte {
	if cap(e.colorScratch) < n {
		e.colorScratch = make([]byte, n)
	}
	return e.colorScratch[:n]
}

// startOutside readies the pixels of grown that the dirty part does not
// cover. A whole image takes the framebuffer's pixels there: the frame's
// first clear where nothing was written since (no readback), otherwise
// read. Any other takes the farthest depth, so that they never win
// against the framebuffer.
func (a *assembly) startOutside(m *cpuMerged, grown compound.PixelViewport) {
	parts := []compound.PixelViewport{grown}
	if m.dirty.W > 0 && m.dirty.H > 0 {
		parts = outside(grown, m.dirty)
	}
	for _, p := range parts {
		switch {
		case !m.whole:
			for y := p.Y; y < p.Y+p.H; y++ {
				fill(m.img.Depth[y*m.img.W+p.X:y*m.img.W+p.X+p.W], 1)
			}
		case a.r.target.holdsClear(p):
			m.fill(p, a.fr.clearPixel(a.r.target, p.X, p.Y))
		default:
			a.r.target.FB.Bind()
			m.read(p)
		}
	}
}

func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}

// flushOthers puts what the assemblies of r's window's other channels
// merged in memory so far into the framebuffer, before r writes there: a
// whole image holds a copy of the framebuffer's pixels, which r's write
// would leave stale, and its inputs came first. (A channel runs while
// another of its window assembles only when the executor lets it run
// ahead, frameRun.step.)
func (fr *frameRun) flushOthers(r *channelRun) error {
	for _, o := range fr.runs {
		if o != r && o.target == r.target && o.asm != nil && o.asm.merged != nil && o.asm.merged.whole {
			if err := o.asm.flushCPUMerge(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushCPUMerge puts what the assembly merged in memory into the bound
// framebuffer.
func (a *assembly) flushCPUMerge() error {
	m := a.merged
	if m == nil || m.dirty.W == 0 {
		return nil
	}
	d := m.dirty
	m.dirty = compound.PixelViewport{}
	a.r.target.wrote(d)
	if m.whole {
		at := d.Y*m.img.W + d.X
		if m.depthKept {
			return a.r.target.FB.Write(d.X, d.Y, d.W, d.H, m.img.W, m.img.Color[4*at:], nil, nil)
		}
		var stencil []byte
		if m.stencil != nil {
			stencil = m.stencil[at:]
		}
		return a.r.target.FB.Write(d.X, d.Y, d.W, d.H, m.img.W, m.img.Color[4*at:], m.img.Depth[at:], stencil)
	}
	if m.texW < d.W || m.texH < d.H {
		m.deleteTextures()
		m.texW, m.texH = m.img.W, m.img.H
		m.color = glutil.Texture(m.texW, m.texH, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
		m.depth = glutil.Texture(m.texW, m.texH, gl.DEPTH_COMPONENT32F, gl.DEPTH_COMPONENT, gl.FLOAT)
	}
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, int32(m.img.W))
	gl.PixelStorei(gl.UNPACK_SKIP_PIXELS, int32(d.X))
	gl.PixelStorei(gl.UNPACK_SKIP_ROWS, int32(d.Y))
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.BindTexture(gl.TEXTURE_2D, m.color)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(d.W), int32(d.H), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(m.img.Color))
	gl.BindTexture(gl.TEXTURE_2D, m.depth)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(d.W), int32(d.H), gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(m.img.Depth))
	gl.BindTexture(gl.TEXTURE_2D, 0)
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
	gl.PixelStorei(gl.UNPACK_SKIP_PIXELS, 0)
	gl.PixelStorei(gl.UNPACK_SKIP_ROWS, 0)
	return a.fr.e.comp.DepthMerge(m.color, m.depth, d.X, d.Y, d.W, d.H)
}

// releaseCPUMerge hands the assembly's in-memory merge back to the
// executor for the next frame.
func (a *assembly) releaseCPUMerge() {
	if a.merged != nil {
		a.merged.dirty = compound.PixelViewport{}
		a.fr.e.mergeFree = append(a.fr.e.mergeFree, a.merged)
		a.merged = nil
	}
}

// takeMerged is a free in-memory merge the size of fb, with a stencil
// plane when fb has stencil. Free ones of another size are dropped (a
// window that was resized), so that they do not pile up.
func (e *Executor) takeMerged(fb *glutil.Target) *cpuMerged {
	w, h := fb.W, fb.H
	for i, m := range e.mergeFree {
		if m.img.W == w && m.img.H == h && (m.stencil != nil) == fb.Stencil {
			e.mergeFree = append(e.mergeFree[:i], e.mergeFree[i+1:]...)
			return m
		}
	}
	for _, m := range e.mergeFree {
		m.deleteTextures()
		e.mergeAll = slices.DeleteFunc(e.mergeAll, func(x *cpuMerged) bool { return x == m })
	}
	e.mergeFree = nil
	m := &cpuMerged{img: compositor.NewImage(w, h, true)}
	if fb.Stencil {
		m.stencil = make([]byte, w*h)
	}
	e.mergeAll = append(e.mergeAll, m)
	return m
}

func (m *cpuMerged) deleteTextures() {
	if m.color != 0 {
		gl.DeleteTextures(1, &m.color)
		gl.DeleteTextures(1, &m.depth)
		m.color, m.depth, m.texW, m.texH = 0, 0, 0, 0
	}
}
