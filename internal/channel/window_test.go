package channel

import (
	"os"
	"testing"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/winsys"
	"github.com/goeq/goeq/internal/xtest"
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
	p, sys := glfwPipe(t)
	if p == nil {
		return
	}
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
		parts, targets, err := blueAndRed()
		if err != nil {
			return err
		}
		defer deleteTargets(targets)
		if err := w.Present(compound.Size{W: 64, H: 32}, parts); err != nil {
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

// A fullscreen window (hint_fullscreen ON) has the screen's size, not its
// viewport's: the frame, rendered at the viewport's size, shows scaled to
// fit with its aspect kept, and black bars beside it.
func TestFullscreenWindowShowsTheFrameScaled(t *testing.T) {
	p, _ := glfwPipe(t)
	if p == nil {
		return
	}
	m := &compound.Window{Name: "wall", PixelViewport: compound.PixelViewport{W: 64, H: 32}, Attributes: map[string]string{"hint_fullscreen": "ON"}}
	w, err := p.OpenWindow(m, "window")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sw, sh, ok := w.ScreenSize()
	if !ok || sw == 64 || sh == 32 {
		t.Fatalf("fullscreen window is %dx%d (on screen: %v), want the screen's size", sw, sh, ok)
	}
	fit := Fit(64, 32, sw, sh)
	var px []byte
	err = p.Do(func() error {
		parts, targets, err := blueAndRed()
		if err != nil {
			return err
		}
		defer deleteTargets(targets)
		if err := w.screen.MakeCurrent(); err != nil {
			return err
		}
		if err := w.draw(compound.Size{W: 64, H: 32}, parts); err != nil {
			return err
		}
		px = glutil.ReadColor(0, 0, sw, sh, nil)
		return p.ctx.MakeCurrent()
	})
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y int) [3]byte {
		i := 4 * (y*sw + x)
		return [3]byte{px[i], px[i+1], px[i+2]}
	}
	black, blue, red := [3]byte{0, 0, 0}, [3]byte{0, 0, 255}, [3]byte{255, 0, 0}
	mid := fit.Y + fit.H/2
	for _, c := range []struct {
		name string
		x, y int
		want [3]byte
	}{
		{"the left channel, scaled", fit.X + fit.W/4, mid, blue},
		{"the right channel, scaled", fit.X + 3*fit.W/4, mid, red},
		{"just inside the frame's left edge", fit.X + 1, mid, blue},
		{"just inside its right edge", fit.X + fit.W - 2, mid, red},
		{"the bar below the frame", sw / 2, fit.Y / 2, black},
		{"the bar above it", sw / 2, fit.Y + fit.H + (sh-fit.Y-fit.H)/2, black},
	} {
		if got := at(c.x, c.y); got != c.want {
			t.Errorf("%s (%d, %d) of %dx%d (frame at %v): %v, want %v", c.name, c.x, c.y, sw, sh, fit, got, c.want)
		}
	}
	if fit.Y == 0 && fit.X == 0 {
		t.Errorf("the screen %dx%d has the frame's aspect: no bars tested", sw, sh)
	}
}

func TestFit(t *testing.T) {
	for _, c := range []struct {
		w, h, sw, sh int
		want         compound.PixelViewport
	}{
		{640, 360, 640, 360, compound.PixelViewport{W: 640, H: 360}},
		{640, 360, 1920, 1080, compound.PixelViewport{W: 1920, H: 1080}},
		{64, 32, 1920, 1080, compound.PixelViewport{Y: 60, W: 1920, H: 960}},
		{640, 360, 1280, 360, compound.PixelViewport{X: 320, W: 640, H: 360}},
		{640, 360, 0, 0, compound.PixelViewport{}},
	} {
		if got := Fit(c.w, c.h, c.sw, c.sh); got != c.want {
			t.Errorf("Fit(%d, %d, %d, %d) = %v, want %v", c.w, c.h, c.sw, c.sh, got, c.want)
		}
	}
}

// blueAndRed are two channels' images side by side in a 64x32 window:
// blue on the left, red on the right (on the pipe goroutine).
func blueAndRed() ([]PresentPart, []*glutil.Target, error) {
	var parts []PresentPart
	var targets []*glutil.Target
	for i, at := range []compound.PixelViewport{{W: 32, H: 32}, {X: 32, W: 32, H: 32}} {
		tg, err := glutil.NewTarget(32, 32)
		if err != nil {
			deleteTargets(targets)
			return nil, nil, err
		}
		targets = append(targets, tg)
		tg.Bind()
		gl.ClearColor(float32(i), 0, float32(1-i), 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		parts = append(parts, PresentPart{Texture: tg.Color, TexW: 32, TexH: 32, At: at})
	}
	return parts, targets, nil
}

func deleteTargets(targets []*glutil.Target) {
	for _, tg := range targets {
		tg.Delete()
	}
}

// glfwPipe starts a pipe on GLFW, stopped when the test ends; nil where
// there is no X display.
func glfwPipe(t *testing.T) (*Pipe, winsys.System) {
	sys, ok := systems(t)["glfw"]
	if !ok {
		t.Log("no X display: the window path runs under make test's Xvfb")
		return nil, nil
	}
	p, err := StartPipe("glfw", sys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p, sys
}

// Windows the config leaves unnamed are titled by where they are, so that
// the user can tell a wall's windows apart (and a test can find one).
func TestUnnamedWindowsAreTitledByWhereTheyAre(t *testing.T) {
	p, sys := glfwPipe(t)
	if p == nil {
		return
	}
	node := &compound.Node{ID: "render1"}
	pipe := &compound.Pipe{Node: node}
	node.Pipes = []*compound.Pipe{pipe}
	for i := 0; i < 2; i++ {
		pipe.Windows = append(pipe.Windows, &compound.Window{Pipe: pipe, PixelViewport: compound.PixelViewport{W: 40, H: 30}, Attributes: map[string]string{}})
	}
	named := &compound.Window{Name: "left wall", Pipe: pipe, PixelViewport: compound.PixelViewport{W: 40, H: 30}, Attributes: map[string]string{}}
	pipe.Windows = append(pipe.Windows, named)
	want := []string{"goeq window 1 of pipe 1 of node render1", "goeq window 2 of pipe 1 of node render1", "goeq left wall"}
	for i, m := range pipe.Windows {
		d, _ := ChooseDrawable(m, sys, "")
		w, err := p.OpenWindow(m, d)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		xtest.FindWindow(t, os.Getenv("DISPLAY"), want[i], 10*time.Second)
	}
}
