package channel

import (
	"fmt"
	"os"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"goeq/compound"
	"goeq/internal/glutil"
	"goeq/shaders"
	"goeq/winsys"
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

// Window is a model window on a pipe. Channels always draw into the
// window's framebuffer object (readback from an FBO is three times faster
// than from a window's default framebuffer); an on-screen window shows it
// with Present.
type Window struct {
	Pipe     *Pipe
	Model    *compound.Window
	Drawable Drawable
	Target   *glutil.Target
	screen   winsys.Context
	prog     uint32
	vao      uint32
}

// OpenWindow creates the window's framebuffer (and on-screen window).
func (p *Pipe) OpenWindow(m *compound.Window, d Drawable) (*Window, error) {
	w := &Window{Pipe: p, Model: m, Drawable: d}
	if d == "window" {
		g, ok := p.sys.(*winsys.GLFW)
		if !ok {
			return nil, fmt.Errorf("window %q: an on-screen drawable needs GLFW", m.Name)
		}
		ctx, err := g.NewWindow(p.ctx, m.PixelViewport.W, m.PixelViewport.H, "goeq "+m.Name)
		if err != nil {
			return nil, err
		}
		w.screen = ctx
	}
	err := p.Do(func() error {
		t, err := glutil.NewTarget(m.PixelViewport.W, m.PixelViewport.H)
		w.Target = t
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("window %q: %w", m.Name, err)
	}
	return w, nil
}

// Present shows the framebuffer in the on-screen window and swaps (no-op
// for an FBO drawable). Call it on the pipe goroutine.
func (w *Window) Present() error {
	if w.screen == nil {
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
	gl.Viewport(0, 0, int32(w.Target.W), int32(w.Target.H))
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, w.Target.Color)
	gl.UseProgram(w.prog)
	gl.Uniform2i(glutil.Uniform(w.prog, "offset"), 0, 0)
	glutil.Quad(w.vao)
	w.screen.Swap()
	err := glutil.Error()
	if e := w.Pipe.ctx.MakeCurrent(); e != nil {
		return e
	}
	return err
}

// Close frees the window.
func (w *Window) Close() {
	w.Pipe.Do(func() error {
		w.Target.Delete()
		return nil
	})
	if w.screen != nil {
		w.screen.Destroy()
	}
}

// Channel is a model channel: a pixel viewport of its window.
type Channel struct {
	Window *Window
	Model  *compound.Channel
}

// PixelViewport is where the channel draws in its window's framebuffer.
func (c *Channel) PixelViewport() compound.PixelViewport { return c.Model.PixelViewport }
