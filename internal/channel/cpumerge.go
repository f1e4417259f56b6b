package channel

import (
	"slices"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
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
// than one input in the last frame.
func (e *Executor) holds(f *FrameData) bool {
	if !e.cpuMerge || f.Depth == nil || f.Subpixel.Size > 1 || f.Pixel.W > 1 || f.Pixel.H > 1 {
		return false
	}
	if fan := e.fanIn.Load(); fan == nil || (*fan)[f.Consumer] < 2 {
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
// arrive into an image the size of the channel's framebuffer, and the
// textures that take the part written (dirty) to the framebuffer in one
// shader pass. With LESS on both sides, merging inputs among themselves
// first and the result into the framebuffer gives the framebuffer the same
// pixels as merging each input into it in turn (ties keep the earlier).
type cpuMerged struct {
	img          *compositor.Image
	dirty        compound.PixelViewport
	color, depth uint32
	texW, texH   int
}

// mergeOnCPU merges held pixels into the assembly's in-memory image at at.
func (a *assembly) mergeOnCPU(px *Pixels, at compound.PixelViewport) error {
	e := a.fr.e
	if a.merged == nil {
		a.merged = e.takeMerged(a.r.target.FB.W, a.r.target.FB.H)
	}
	m := a.merged
	grown := at
	if m.dirty.W > 0 {
		grown = union(m.dirty, at)
	}
	m.initOutside(grown)
	m.dirty = grown
	return compositor.DepthMergeAt(m.img, &compositor.Image{W: px.PixelViewport.W, H: px.PixelViewport.H, Color: px.Color, Depth: px.Depth}, at.X, at.Y)
}

// initOutside readies the pixels of grown that the dirty part does not
// cover: farthest depth, so that they never win against the framebuffer.
func (m *cpuMerged) initOutside(grown compound.PixelViewport) {
	d := m.dirty
	for y := grown.Y; y < grown.Y+grown.H; y++ {
		row := m.img.Depth[y*m.img.W : (y+1)*m.img.W]
		if d.W == 0 || y < d.Y || y >= d.Y+d.H {
			fill(row[grown.X:grown.X+grown.W], 1)
			continue
		}
		fill(row[grown.X:d.X], 1)
		fill(row[d.X+d.W:grown.X+grown.W], 1)
	}
}

func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}

// flushCPUMerge merges what the assembly merged in memory into the bound
// framebuffer: one upload of the part written, one shader pass.
func (a *assembly) flushCPUMerge() error {
	m := a.merged
	if m == nil || m.dirty.W == 0 {
		return nil
	}
	d := m.dirty
	m.dirty = compound.PixelViewport{}
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

// takeMerged is a free in-memory merge of w x h pixels. Free ones of
// another size are dropped (a window that was resized), so that they do
// not pile up.
func (e *Executor) takeMerged(w, h int) *cpuMerged {
	for i, m := range e.mergeFree {
		if m.img.W == w && m.img.H == h {
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
