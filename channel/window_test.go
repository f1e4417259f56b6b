package channel

import (
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"goeq/compound"
	"goeq/winsys"
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

// A window with channels: each channel clears its own pixel viewport of
// the window's framebuffer; an on-screen window presents it.
func TestWindowChannels(t *testing.T) {
	for name, sys := range systems(t) {
		t.Run(name, func(t *testing.T) {
			p, err := StartPipe(name, sys)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			m := &compound.Window{Name: "w", PixelViewport: compound.PixelViewport{W: 64, H: 32}, Attributes: map[string]string{}}
			d, _ := ChooseDrawable(m, sys, "")
			w, err := p.OpenWindow(m, d)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			left := &Channel{Window: w, Model: &compound.Channel{PixelViewport: compound.PixelViewport{W: 32, H: 32}}}
			right := &Channel{Window: w, Model: &compound.Channel{PixelViewport: compound.PixelViewport{X: 32, W: 32, H: 32}}}
			var px *Pixels
			err = p.Do(func() error {
				w.Target.Bind()
				gl.Enable(gl.SCISSOR_TEST)
				for i, c := range []*Channel{left, right} {
					pvp := c.PixelViewport()
					gl.Scissor(int32(pvp.X), int32(pvp.Y), int32(pvp.W), int32(pvp.H))
					gl.ClearColor(float32(i), 0, float32(1-i), 1)
					gl.Clear(gl.COLOR_BUFFER_BIT)
				}
				gl.Disable(gl.SCISSOR_TEST)
				px = ReadSync(0, compound.PixelViewport{W: 64, H: 32}, false)
				return w.Present()
			})
			if err != nil {
				t.Fatal(err)
			}
			if px.Color[2] != 255 || px.Color[4*40] != 255 || px.Color[4*40+2] != 0 {
				t.Errorf("channels did not draw into their viewports: %v %v", px.Color[:4], px.Color[4*40:4*40+4])
			}
			t.Logf("%s: drawable %s", name, d)
		})
	}
}
