// Package glutil holds the small OpenGL helpers goeq's GL code shares:
// programs, framebuffers with texture attachments, and the full-viewport
// quad. Every function needs a current context on the calling thread.
package glutil

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/go-gl/gl/v3.3-core/gl"
)

var (
	initOnce sync.Once
	initErr  error
)

// Init loads the GL entry points; call it with a context current.
func Init() error {
	initOnce.Do(func() { initErr = gl.Init() })
	return initErr
}

// Program compiles and links a vertex and a fragment shader.
func Program(vertex, fragment string) (uint32, error) {
	vs, err := compile(vertex, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	fs, err := compile(fragment, gl.FRAGMENT_SHADER)
	if err != nil {
		return 0, err
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, vs)
	gl.AttachShader(p, fs)
	gl.LinkProgram(p)
	gl.DeleteShader(vs)
	gl.DeleteShader(fs)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		return 0, fmt.Errorf("glutil: link: %s", programLog(p))
	}
	return p, nil
}

func compile(src string, kind uint32) (uint32, error) {
	s := gl.CreateShader(kind)
	cs, free := gl.Strs(src + "\x00")
	gl.ShaderSource(s, 1, cs, nil)
	free()
	gl.CompileShader(s)
	var ok int32
	gl.GetShaderiv(s, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(s, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(s, n, nil, gl.Str(log))
		return 0, fmt.Errorf("glutil: compile: %s", strings.TrimRight(log, "\x00"))
	}
	return s, nil
}

func programLog(p uint32) string {
	var n int32
	gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
	log := strings.Repeat("\x00", int(n+1))
	gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
	return strings.TrimRight(log, "\x00")
}

// Uniform returns a uniform's location.
func Uniform(p uint32, name string) int32 { return gl.GetUniformLocation(p, gl.Str(name+"\x00")) }

// Target is a framebuffer object with an RGBA8 colour texture and a
// DEPTH32F depth texture (so compositing can sample both).
type Target struct {
	FBO, Color, Depth uint32
	W, H              int
	// Stencil: the depth texture is packed depth and stencil
	Stencil bool
	packed  []uint32 // Write's depth and stencil, packed
}

// NewTarget creates a framebuffer of w x h pixels.
func NewTarget(w, h int) (*Target, error) { return newTarget(w, h, false) }

// NewStencilTarget creates a framebuffer of w x h pixels with a stencil
// buffer: its depth texture is packed depth and stencil (float depth, 8
// bits of stencil), as GL 3.3 has no stencil apart from depth.
func NewStencilTarget(w, h int) (*Target, error) { return newTarget(w, h, true) }

func newTarget(w, h int, stencil bool) (*Target, error) {
	t := &Target{W: w, H: h, Stencil: stencil}
	t.Color = Texture(w, h, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
	attach := uint32(gl.DEPTH_ATTACHMENT)
	if stencil {
		t.Depth = Texture(w, h, gl.DEPTH32F_STENCIL8, gl.DEPTH_STENCIL, gl.FLOAT_32_UNSIGNED_INT_24_8_REV)
		attach = gl.DEPTH_STENCIL_ATTACHMENT
	} else {
		t.Depth = Texture(w, h, gl.DEPTH_COMPONENT32F, gl.DEPTH_COMPONENT, gl.FLOAT)
	}
	gl.GenFramebuffers(1, &t.FBO)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.FBO)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t.Color, 0)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, attach, gl.TEXTURE_2D, t.Depth, 0)
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		return nil, fmt.Errorf("glutil: framebuffer %dx%d incomplete: 0x%x", w, h, s)
	}
	return t, nil
}

// Bind makes the target the draw and read framebuffer with a full viewport.
func (t *Target) Bind() {
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.FBO)
	gl.Viewport(0, 0, int32(t.W), int32(t.H))
}

// Write puts w x h pixels into the target's textures at (x, y): RGBA8
// colour from color (4 bytes a pixel) and, when depth is not nil, float
// depth, with 8-bit stencil from stencil for a stencil target, each
// starting at the first pixel written, in rows stride pixels apart. It
// writes what a copy through a shader would, with no draw: under a
// software GL that draw costs 10 to 20 times the upload.
func (t *Target) Write(x, y, w, h, stride int, color []byte, depth []float32, stencil []byte) error {
	if w <= 0 || h <= 0 {
		return nil
	}
	switch n := (h-1)*stride + w; {
	case x < 0 || y < 0 || x+w > t.W || y+h > t.H:
		return fmt.Errorf("glutil: write %dx%d at %d,%d outside a %dx%d target", w, h, x, y, t.W, t.H)
	case stride < w || len(color) < 4*n || depth != nil && len(depth) < n || depth != nil && t.Stencil && len(stencil) < n:
		return fmt.Errorf("glutil: write %dx%d: %d colour bytes, %d depths and %d stencil values in rows of %d pixels",
			w, h, len(color), len(depth), len(stencil), stride)
	}
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, int32(stride))
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.BindTexture(gl.TEXTURE_2D, t.Color)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, int32(x), int32(y), int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(color))
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
	if depth != nil {
		gl.BindTexture(gl.TEXTURE_2D, t.Depth)
		if t.Stencil {
			// packed: each pixel's float depth, then its stencil in the
			// low 8 bits of the next 32
			if cap(t.packed) < 2*w*h {
				t.packed = make([]uint32, 2*w*h)
			}
			p := t.packed[:2*w*h]
			for r := 0; r < h; r++ {
				d, st, out := depth[r*stride:r*stride+w], stencil[r*stride:r*stride+w], p[2*r*w:2*(r+1)*w]
				for i := range d {
					out[2*i], out[2*i+1] = math.Float32bits(d[i]), uint32(st[i])
				}
			}
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, int32(x), int32(y), int32(w), int32(h), gl.DEPTH_STENCIL, gl.FLOAT_32_UNSIGNED_INT_24_8_REV, gl.Ptr(p))
		} else {
			gl.PixelStorei(gl.UNPACK_ROW_LENGTH, int32(stride))
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, int32(x), int32(y), int32(w), int32(h), gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(depth))
			gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
		}
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	return Error()
}

// Delete frees the target.
func (t *Target) Delete() {
	gl.DeleteFramebuffers(1, &t.FBO)
	gl.DeleteTextures(1, &t.Color)
	gl.DeleteTextures(1, &t.Depth)
}

// Multisample is a framebuffer object of an RGBA8 colour renderbuffer
// and a float depth texture with Samples samples a pixel: draws into it
// are antialiased, and ResolveInto turns them into a Target's pixels. Its
// depth is a texture for a shader to resolve (gpu.Compositor.NearestDepth):
// a blit keeps one sample of it.
type Multisample struct {
	FBO, Color, Depth uint32
	W, H, Samples     int
	// DepthSamples is how many samples the GL gave the depth: as many as
	// asked or more (llvmpipe makes 2 into 4)
	DepthSamples int
	Stencil      bool
}

// NewMultisample creates a multisampled framebuffer of w x h pixels,
// with a stencil buffer (packed with depth, as NewStencilTarget's) when
// asked: its depth is resolved into a target of the same depth format.
func NewMultisample(w, h, samples int, stencil bool) (*Multisample, error) {
	m := &Multisample{W: w, H: h, Samples: samples, Stencil: stencil}
	depthFormat, attach := uint32(gl.DEPTH_COMPONENT32F), uint32(gl.DEPTH_ATTACHMENT)
	if stencil {
		depthFormat, attach = gl.DEPTH32F_STENCIL8, gl.DEPTH_STENCIL_ATTACHMENT
	}
	gl.GenRenderbuffers(1, &m.Color)
	gl.BindRenderbuffer(gl.RENDERBUFFER, m.Color)
	gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(samples), gl.RGBA8, int32(w), int32(h))
	gl.BindRenderbuffer(gl.RENDERBUFFER, 0)
	gl.GenTextures(1, &m.Depth)
	gl.BindTexture(gl.TEXTURE_2D_MULTISAMPLE, m.Depth)
	gl.TexImage2DMultisample(gl.TEXTURE_2D_MULTISAMPLE, int32(samples), depthFormat, int32(w), int32(h), true)
	var given int32
	gl.GetTexLevelParameteriv(gl.TEXTURE_2D_MULTISAMPLE, 0, gl.TEXTURE_SAMPLES, &given)
	m.DepthSamples = max(int(given), samples)
	gl.BindTexture(gl.TEXTURE_2D_MULTISAMPLE, 0)
	gl.GenFramebuffers(1, &m.FBO)
	gl.BindFramebuffer(gl.FRAMEBUFFER, m.FBO)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, m.Color)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, attach, gl.TEXTURE_2D_MULTISAMPLE, m.Depth, 0)
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		m.Delete()
		return nil, fmt.Errorf("glutil: multisampled framebuffer %dx%d of %d samples incomplete: 0x%x", w, h, samples, s)
	}
	return m, nil
}

// ResolveInto writes the colour (averaged over the samples) and the
// stencil of the rectangle at (x, y) into the same place of dst, one value
// a pixel, and the depth when asked: one sample of it, where
// gpu.Compositor.NearestDepth resolves the nearest. It leaves dst bound and
// the scissor test off.
func (m *Multisample) ResolveInto(dst *Target, x, y, w, h int, depth bool) {
	gl.Disable(gl.SCISSOR_TEST) // a blit is scissored, and a draw may leave any box
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, m.FBO)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, dst.FBO)
	x0, y0, x1, y1 := int32(x), int32(y), int32(x+w), int32(y+h)
	mask := uint32(gl.COLOR_BUFFER_BIT)
	if depth {
		mask |= gl.DEPTH_BUFFER_BIT
	}
	if m.Stencil {
		mask |= gl.STENCIL_BUFFER_BIT
	}
	gl.BlitFramebuffer(x0, y0, x1, y1, x0, y0, x1, y1, mask, gl.NEAREST)
	gl.BindFramebuffer(gl.FRAMEBUFFER, dst.FBO)
}

// Delete frees the framebuffer.
func (m *Multisample) Delete() {
	gl.DeleteFramebuffers(1, &m.FBO)
	gl.DeleteRenderbuffers(1, &m.Color)
	gl.DeleteTextures(1, &m.Depth)
}

// MaxSamples is the most samples a pixel the current context's
// framebuffers may have.
func MaxSamples() int {
	var n, depth int32
	gl.GetIntegerv(gl.MAX_SAMPLES, &n)
	gl.GetIntegerv(gl.MAX_DEPTH_TEXTURE_SAMPLES, &depth) // Multisample's depth is a texture
	return int(min(n, depth))
}

// MaxFramebuffer is the largest width or height, in pixels, of a
// framebuffer this GL makes: of its renderbuffers and of the textures a
// Target renders into.
func MaxFramebuffer() int {
	var renderbuffer, texture int32
	gl.GetIntegerv(gl.MAX_RENDERBUFFER_SIZE, &renderbuffer)
	gl.GetIntegerv(gl.MAX_TEXTURE_SIZE, &texture)
	return int(min(renderbuffer, texture))
}

// Texture allocates a 2D texture with nearest filtering.
func Texture(w, h int, internal int32, format, kind uint32) uint32 {
	var tex uint32
	gl.GenTextures(1, &tex)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.TexImage2D(gl.TEXTURE_2D, 0, internal, int32(w), int32(h), 0, format, kind, nil)
	return tex
}

// ColorFramebuffer makes a framebuffer of one colour attachment, a new
// w x h texture (as Texture makes it), and leaves it bound; where GL finds
// it incomplete it deletes both and says so.
func ColorFramebuffer(w, h int, internal int32, format, kind uint32) (fbo, tex uint32, err error) {
	tex = Texture(w, h, internal, format, kind)
	gl.GenFramebuffers(1, &fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		gl.DeleteFramebuffers(1, &fbo)
		gl.DeleteTextures(1, &tex)
		return 0, 0, fmt.Errorf("a framebuffer of %dx%d incomplete: 0x%x", w, h, s)
	}
	return fbo, tex, nil
}

// Quad draws the full-viewport quad of shaders/quad.vert; vao is an empty
// vertex array object of the current context (VAOs are not shared).
func Quad(vao uint32) {
	gl.BindVertexArray(vao)
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
}

// ReadColor reads w x h RGBA8 pixels at (x, y) of the bound read buffer.
func ReadColor(x, y, w, h int, dst []byte) []byte {
	return readBytes(x, y, w, h, 4, gl.RGBA, dst)
}

// ReadDepth reads w x h float depths at (x, y) of the bound read buffer.
func ReadDepth(x, y, w, h int, dst []float32) []float32 {
	if cap(dst) < w*h {
		dst = make([]float32, w*h)
	}
	dst = dst[:w*h]
	gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
	if len(dst) > 0 {
		gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(&dst[0]))
	}
	return dst
}

// ReadStencil reads the 8-bit stencil of the w x h pixels at (x, y) of the
// bound read buffer, packed row after row, into dst (grown if needed).
func ReadStencil(x, y, w, h int, dst []byte) []byte {
	return readBytes(x, y, w, h, 1, gl.STENCIL_INDEX, dst)
}

// readBytes reads w x h pixels of format, size bytes each (unsigned
// bytes), packed row after row, into dst (grown if needed).
func readBytes(x, y, w, h, size int, format uint32, dst []byte) []byte {
	n := size * w * h
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	if n > 0 {
		gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), format, gl.UNSIGNED_BYTE, gl.Ptr(&dst[0]))
	}
	return dst
}

// ReadInto reads the w x h pixels at (x, y) of the bound read buffer into
// an image of rows stride pixels wide at the same place: RGBA8 colour
// into color (4 bytes a pixel) and, when depth is not nil, float depth.
// Reading in place spares a readback buffer and a copy per read.
func ReadInto(x, y, w, h, stride int, color []byte, depth []float32) {
	if w <= 0 || h <= 0 {
		return
	}
	at := y*stride + x
	end := (y+h-1)*stride + x + w // the GL writes up to here, unchecked
	if stride < w || len(color) < 4*end || depth != nil && len(depth) < end {
		panic(fmt.Sprintf("glutil: read %dx%d at %d,%d in rows of %d pixels into %d colour bytes and %d depths", w, h, x, y, stride, len(color), len(depth)))
	}
	gl.PixelStorei(gl.PACK_ROW_LENGTH, int32(stride))
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&color[4*at]))
	if depth != nil {
		gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
		gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(&depth[at]))
	}
	gl.PixelStorei(gl.PACK_ROW_LENGTH, 0)
}

// ReadStencilInto reads the 8-bit stencil of the w x h pixels at (x, y) of
// the bound read buffer into an image of rows stride pixels wide at the
// same place.
func ReadStencilInto(x, y, w, h, stride int, stencil []byte) {
	if w <= 0 || h <= 0 {
		return
	}
	if end := (y+h-1)*stride + x + w; stride < w || len(stencil) < end {
		panic(fmt.Sprintf("glutil: read the stencil of %dx%d at %d,%d in rows of %d pixels into %d bytes", w, h, x, y, stride, len(stencil)))
	}
	gl.PixelStorei(gl.PACK_ROW_LENGTH, int32(stride))
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), gl.STENCIL_INDEX, gl.UNSIGNED_BYTE, gl.Ptr(&stencil[y*stride+x]))
	gl.PixelStorei(gl.PACK_ROW_LENGTH, 0)
}

// Error returns the pending GL error, if any.
func Error() error {
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("glutil: GL error %s", errorName(e))
	}
	return nil
}

// Errors takes every GL error pending, by name ("GL_INVALID_ENUM"): a
// context records one flag per kind, and glGetError clears one a call.
func Errors() []string {
	var names []string
	for range 16 {
		e := gl.GetError()
		if e == gl.NO_ERROR {
			break
		}
		names = append(names, errorName(e))
	}
	return names
}

func errorName(e uint32) string {
	switch e {
	case gl.INVALID_ENUM:
		return "GL_INVALID_ENUM"
	case gl.INVALID_VALUE:
		return "GL_INVALID_VALUE"
	case gl.INVALID_OPERATION:
		return "GL_INVALID_OPERATION"
	case gl.INVALID_FRAMEBUFFER_OPERATION:
		return "GL_INVALID_FRAMEBUFFER_OPERATION"
	case gl.OUT_OF_MEMORY:
		return "GL_OUT_OF_MEMORY"
	}
	return fmt.Sprintf("0x%x", e)
}
