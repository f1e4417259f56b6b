package channel

import (
	"fmt"
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
// GLFW window, presented by drawing the framebuffer into it).
type Drawable string

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
	_, onScreen := sys.(*winsys.GLFW)
	switch {
	case want == "fbo" || want == "pbuffer":
		return "FBO", why + " asks for an offscreen drawable"
	case !onScreen:
		return "FBO", "no on-screen window system (" + sys.Name() + "): offscreen FBO"
	}
	return "window", "on-screen window on " + sys.Name()
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
	prog     uint32
	vao      uint32
}

// OpenWindow opens the window's on-screen window when it has one, and
// checks that the window's size is one GL can have.
func (p *Pipe) OpenWindow(m *compound.Window, d Drawable) (*Window, error) {
	w := &Window{Pipe: p, Model: m, Drawable: d}
	size := m.PixelViewport
	if size.W <= 0 || size.H <= 0 {
		return nil, fmt.Errorf("window %q: %dx%d pixels: a window needs a size", m.Name, size.W, size.H)
	}
	err := p.Do(func() error {
		var limit int32
		gl.GetIntegerv(gl.MAX_RENDERBUFFER_SIZE, &limit)
		if size.W > int(limit) || size.H > int(limit) {
			return fmt.Errorf("%dx%d pixels: larger than this GL's framebuffer limit of %d", size.W, size.H, limit)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("window %q: %w", m.Name, err)
	}
	if d == "window" {
		g, ok := p.sys.(*winsys.GLFW)
		if !ok {
			return nil, fmt.Errorf("window %q: an on-screen drawable needs GLFW", m.Name)
		}
		ctx, err := g.NewWindow(p.ctx, size.W, size.H, "goeq "+m.Name)
		if err != nil {
			return nil, err
		}
		w.screen = ctx
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

// PresentPart is one channel's image: the TexW x TexH colour texture's
// corner, drawn at At (the channel's pixel viewport in the window).
type PresentPart struct {
	Texture    uint32
	TexW, TexH int
	At         compound.PixelViewport
}

// Present draws the parts into the on-screen window and swaps (no-op for
// an FBO drawable). Call it on the pipe goroutine.
func (w *Window) Present(parts []PresentPart) error {
	if w.screen == nil || len(parts) == 0 {
		return nil
	}
	if err := w.screen.MakeCurrent(); err != nil {
		return err
	}
	if w.prog == 0 {
		// programs and textures are shared with the pipe's context; the
		// vertex array object is not, so the window gets its own
		prog, err := glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("assemble.frag"))
		if err != nil {
			return err
		}
		w.prog = prog
		gl.GenVertexArrays(1, &w.vao)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.ColorMask(true, true, true, true)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.UseProgram(w.prog)
	for _, p := range parts {
		gl.BindTexture(gl.TEXTURE_2D, p.Texture)
		gl.Viewport(int32(p.At.X), int32(p.At.Y), int32(p.At.W), int32(p.At.H))
		gl.Uniform2i(glutil.Uniform(w.prog, "offset"), int32(p.At.X), int32(p.At.Y))
		glutil.Quad(w.vao)
	}
	w.screen.Swap()
	err := glutil.Error()
	if e := w.Pipe.ctx.MakeCurrent(); e != nil {
		return e
	}
	return err
}

// Close closes the on-screen window.
func (w *Window) Close() {
	if w.screen != nil {
		w.Pipe.Do(func() error {
			if w.prog != 0 {
				gl.DeleteProgram(w.prog)
			}
			return nil
		})
		w.screen.Destroy()
	}
}
