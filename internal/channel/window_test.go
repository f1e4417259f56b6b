package channel

import (
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/winsys"
)

func TestDrawableChoice(t *testing.T) {
	e, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	win := &compound.Window{Attributes: map[string]string{"hint_drawable": "window"}}
	if d, why := ChooseDrawable(win, e, ""); d != "FBO" || why == "" {
		t.Errorf("EGL: %s (%s)", d, why)
	}
	if d, _ := ChooseDrawable(&compound.Window{Attributes: map[string]string{}}, &winsys.GLFW{}, ""); d != "window" {
		t.Errorf("GLFW default: %s", d)
	}
	if d, _ := ChooseDrawable(win, &winsys.GLFW{}, "FBO"); d != "FBO" {
		t.Errorf("override: %s", d)
	}
}

// A window with two channels: each channel's image (its own framebuffer)
// lands in its pixel viewport of the on-screen window when presented.
func TestWindowPresentsChannels(t *testing.T) {
	sys, ok := systems(t)["glfw"]
	if !ok {
		t.Log("no X display: the window path runs under make test's Xvfb")
		return
	}
	p, err := StartPipe("glfw", sys)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	m := &compound.Window{Name: "w", PixelViewport: compound.PixelViewport{W: 64, H: 32}, Attributes: map[string]string{}}
	d, _ := ChooseDrawable(m, sys, "")
	if d != "window" {
		t.Fatalf("drawable %s under GLFW", d)
	}
	w, err := p.OpenWindow(m, d)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var px []byte
	err = p.Do(func() error {
		var parts []PresentPart
		for i, at := range []compound.PixelViewport{{W: 32, H: 32}, {X: 32, W: 32, H: 32}} {
			tg, err := glutil.NewTarget(32, 32)
			if err != nil {
				return err
			}
			defer tg.Delete()
			tg.Bind()
			gl.ClearColor(float32(i), 0, float32(1-i), 1)
			gl.Clear(gl.COLOR_BUFFER_BIT)
			parts = append(parts, PresentPart{Texture: tg.Color, TexW: 32, TexH: 32, At: at})
		}
		if err := w.Present(parts); err != nil {
			return err
		}
		// what the window shows (Mesa keeps the back buffer across the swap)
		if err := w.screen.MakeCurrent(); err != nil {
			return err
		}
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		px = glutil.ReadColor(0, 0, 64, 32, nil)
		return p.ctx.MakeCurrent()
	})
	if err != nil {
		t.Fatal(err)
	}
	left, right := px[4*(16*64+8):4*(16*64+8)+4], px[4*(16*64+40):4*(16*64+40)+4]
	if left[0] != 0 || left[2] != 255 || right[0] != 255 || right[2] != 0 {
		t.Errorf("window shows %v on the left and %v on the right; want blue and red", left, right)
	}
}
