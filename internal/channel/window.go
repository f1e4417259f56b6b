package channel

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/shaders"
	"github.com/goeq/goeq/internal/winsys"
)

// Drawable is where a window's channels draw: "FBO" (an offscreen
// framebuffer, always used for headless EGL) or "window" (an on-screen
// window of GLFW or of an X screen, presented by drawing the framebuffer
// into it).
type Drawable string

// The drawables.
const (
	FBO      Drawable = "FBO"
	OnScreen Drawable = "window"
)

// ChooseDrawable picks a window's drawable: the override (a flag or the
// GOEQ_DRAWABLE environment variable) first, then the window's
// hint_drawable; an on-screen window needs an on-screen window system.
func ChooseDrawable(m *compound.Window, sys winsys.System, override string) (Drawable, string) {
	if env := os.Getenv("GOEQ_DRAWABLE"); override == "" && env != "" {
		override = env
	}
	want := strings.ToLower(override)
	why := "override"
	if want == "" {
		want, why = strings.ToLower(m.Attributes["hint_drawable"]), "hint_drawable"
	}
	_, onScreen := sys.(winsys.Windows)
	switch {
	case want == "fbo" || want == "pbuffer":
		return FBO, why + " asks for an offscreen drawable"
	case !onScreen:
		return FBO, "no on-screen window system (" + sys.Name() + "): offscreen FBO"
	}
	return OnScreen, "on-screen window on " + sys.Name()
}

// Window is a model window on a pipe. Channels draw into framebuffer
// objects of their own (readback from an FBO is three times faster than
// from a window's default framebuffer, and a source's share may be larger
// than its channel); an on-screen window shows its channels' images with
// Present.
type Window struct {
	Pipe     *Pipe
	Model    *compound.Window
	Drawable Drawable
	screen   winsys.Context
	prog     uint32 // unscaled: texel for pixel
	scaled   uint32 // into a window of another size
	linear   uint32 // the scaled program's sampler
	vao      uint32
}

// OpenWindow opens the window's on-screen window when it has one, and
// checks that the window's size is one GL can have.
func (p *Pipe) OpenWindow(m *compound.Window, d Drawable) (*Window, error) {
	w := &Window{Pipe: p, Model: m, Drawable: d}
	size := m.PixelViewport
	if size.W <= 0 || size.H <= 0 {
		return nil, fmt.Errorf("%s: %dx%d pixels: a window needs a size", m.Label(), size.W, size.H)
	}
	err := p.Do(func() error {
		if limit := glutil.MaxFramebuffer(); size.W > limit || size.H > limit {
			return fmt.Errorf("%dx%d pixels: larger than this GL's framebuffer limit of %d", size.W, size.H, limit)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Label(), err)
	}
	if d == OnScreen {
		g, ok := p.sys.(winsys.Windows)
		if !ok {
			return nil, fmt.Errorf("%s: an on-screen drawable needs an X display", m.Label())
		}
		spec := winsys.WindowSpec{Title: windowTitle(m), X: size.X, Y: size.Y, W: size.W, H: size.H,
			Undecorated: strings.EqualFold(m.Attributes["hint_decoration"], "OFF"),
			Fullscreen:  strings.EqualFold(m.Attributes["hint_fullscreen"], "ON")}
		ctx, err := g.NewWindow(p.ctx, spec)
		if err != nil {
			return nil, err
		}
		w.screen = ctx
		// black until its first frame, as Equalizer clears and swaps a
		// window it sets up: it showed what was behind it while the
		// renderers set up
		if err := p.Do(w.Blank); err != nil {
			ctx.Destroy()
			return nil, err
		}
	}
	return w, nil
}

// OnEvent delivers the on-screen window's input events to handler (on
// the window system's thread; it must not block). It reports false for a
// window with nothing on screen.
func (w *Window) OnEvent(handler func(winsys.Event)) bool {
	src, ok := w.screen.(winsys.EventSource)
	if ok {
		src.OnEvent(handler)
	}
	return ok
}

// ScreenSize is the on-screen window's framebuffer size now; ok is false
// for a window with nothing on screen. It differs from the config's size
// once a user resized the window, or when it is fullscreen.
func (w *Window) ScreenSize() (width, height int, ok bool) {
	s, ok := w.screen.(winsys.Sizer)
	if !ok {
		return 0, 0, false
	}
	width, height = s.FramebufferSize()
	return width, height, true
}

// Fit is where a w x h image shows in a screenW x screenH window: as large
// as fits with its aspect kept, centred, from the bottom left.
func Fit(w, h, screenW, screenH int) compound.PixelViewport {
	if w <= 0 || h <= 0 {
		return compound.PixelViewport{}
	}
	fw, fh := screenW, screenH
	if screenW*h > screenH*w {
		fw = int(math.Round(float64(screenH) * float64(w) / float64(h)))
	} else {
		fh = int(math.Round(float64(screenW) * float64(h) / float64(w)))
	}
	return compound.PixelViewport{X: (screenW - fw) / 2, Y: (screenH - fh) / 2, W: fw, H: fh}
}

// PresentPart is one channel's image: the TexW x TexH colour texture's
// corner, drawn at At (the channel's pixel viewport in the window).
type PresentPart struct {
	Texture    uint32
	TexW, TexH int
	At         compound.PixelViewport
}

// Present draws the parts of a frame of that size into the on-screen
// window and swaps (no-op for an FBO drawable). Call it on the pipe
// goroutine. A window of another size (resized after the frame was
// planned, or fullscreen on a screen unlike its pipe's viewport) shows the
// frame scaled to fit, its aspect kept.
func (w *Window) Present(size compound.Size, parts []PresentPart) error {
	if len(parts) == 0 {
		return nil
	}
	return w.onScreen(func() error { return w.draw(size, parts) })
}

// Blank shows black on the on-screen window (no-op for an FBO drawable),
// as its letterbox is. Call it on the pipe goroutine.
func (w *Window) Blank() error {
	return w.onScreen(func() error {
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		sw, sh, _ := w.ScreenSize()
		gl.Viewport(0, 0, int32(sw), int32(sh))
		gl.ColorMask(true, true, true, true)
		gl.ClearColor(0, 0, 0, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		return nil
	})
}

// onScreen draws into the window's back buffer with its context current,
// swaps, and makes the pipe's context current again.
func (w *Window) onScreen(draw func() error) error {
	if w.screen == nil {
		return nil
	}
	if err := w.screen.MakeCurrent(); err != nil {
		return fmt.Errorf("%s: %w", w.Model.Label(), err)
	}
	if err := draw(); err != nil {
		return err
	}
	w.screen.Swap()
	err := glutil.Error()
	if e := w.Pipe.ctx.MakeCurrent(); e != nil {
		return e
	}
	return err
}

// draw draws the parts into the window's back buffer (its context current).
func (w *Window) draw(size compound.Size, parts []PresentPart) error {
	if w.prog == 0 {
		// programs and textures are shared with the pipe's context; the
		// vertex array object is not, so the window gets its own
		prog, err := glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("assemble.frag"))
		if err != nil {
			return err
		}
		scaled, err := glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("scale.frag"))
		if err != nil {
			return err
		}
		w.prog, w.scaled = prog, scaled
		gl.GenVertexArrays(1, &w.vao)
		gl.GenSamplers(1, &w.linear)
		gl.SamplerParameteri(w.linear, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
		gl.SamplerParameteri(w.linear, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
		gl.SamplerParameteri(w.linear, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
		gl.SamplerParameteri(w.linear, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.ColorMask(true, true, true, true)
	gl.ActiveTexture(gl.TEXTURE0)
	sw, sh, _ := w.ScreenSize()
	if sw == size.W && sh == size.H {
		gl.UseProgram(w.prog)
		for _, p := range parts {
			gl.BindTexture(gl.TEXTURE_2D, p.Texture)
			gl.Viewport(int32(p.At.X), int32(p.At.Y), int32(p.At.W), int32(p.At.H))
			gl.Uniform2i(glutil.Uniform(w.prog, "offset"), int32(p.At.X), int32(p.At.Y))
			glutil.Quad(w.vao)
		}
		return nil
	}
	if sw <= 0 || sh <= 0 {
		return nil // minimised
	}
	gl.Viewport(0, 0, int32(sw), int32(sh))
	gl.ClearColor(0, 0, 0, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	fit := Fit(size.W, size.H, sw, sh)
	sx, sy := float64(fit.W)/float64(size.W), float64(fit.H)/float64(size.H)
	gl.UseProgram(w.scaled)
	gl.BindSampler(0, w.linear)
	defer gl.BindSampler(0, 0)
	for _, p := range parts {
		x0, y0 := fit.X+int(math.Round(float64(p.At.X)*sx)), fit.Y+int(math.Round(float64(p.At.Y)*sy))
		x1, y1 := fit.X+int(math.Round(float64(p.At.X+p.At.W)*sx)), fit.Y+int(math.Round(float64(p.At.Y+p.At.H)*sy))
		gl.BindTexture(gl.TEXTURE_2D, p.Texture)
		gl.Viewport(int32(x0), int32(y0), int32(x1-x0), int32(y1-y0))
		gl.Uniform2f(glutil.Uniform(w.scaled, "offset"), float32(x0), float32(y0))
		gl.Uniform2f(glutil.Uniform(w.scaled, "size"), float32(x1-x0), float32(y1-y0))
		gl.Uniform2f(glutil.Uniform(w.scaled, "extent"), float32(p.At.W)/float32(p.TexW), float32(p.At.H)/float32(p.TexH))
		gl.Uniform2f(glutil.Uniform(w.scaled, "last"), (float32(p.At.W)-0.5)/float32(p.TexW), (float32(p.At.H)-0.5)/float32(p.TexH))
		glutil.Quad(w.vao)
	}
	return nil
}

// Close closes the on-screen window.
func (w *Window) Close() {
	if w.screen != nil {
		w.Pipe.Do(func() error {
			if w.prog != 0 {
				gl.DeleteProgram(w.prog)
				gl.DeleteProgram(w.scaled)
				gl.DeleteSamplers(1, &w.linear)
			}
			return nil
		})
		w.screen.Destroy()
	}
}

// windowTitle names an on-screen window for the user: its name in the
// config, or where it is in the config when it has none, so that the
// windows of a wall can be told apart.
func windowTitle(m *compound.Window) string {
	if m.Name != "" {
		return "goeq " + m.Name
	}
	return "goeq " + m.Label()
}
