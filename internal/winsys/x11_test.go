package winsys

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/xtest"
)

// TestX11ScreenWindowsAndEvents opens the second screen of a two-screen
// Xvfb: a window drawn there shows on that screen where it was placed (read
// from the server's framebuffer, not through GL), and input on it arrives
// as the window's events.
func TestX11ScreenWindowsAndEvents(t *testing.T) {
	fbdir := t.TempDir()
	display := xtest.Screens(t, fbdir, image.Pt(320, 240), image.Pt(320, 240))
	name, err := ScreenDisplay(display, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := display + ".1"; name != want {
		t.Fatalf("screen 1 of %s is %s, want %s", display, name, want)
	}
	if _, err := OpenX11Screen(display + ".2"); err == nil || !strings.Contains(err.Error(), "2 screens") {
		t.Errorf("a third screen of two: %v", err)
	}
	sys, err := OpenX11Screen(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close) // before the Xvfb goes (cleanups run last first)
	if again, _ := OpenX11Screen(name); again != sys {
		t.Error("a screen opened twice gives two window systems")
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pipe, err := sys.NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Destroy()
	win, err := sys.NewWindow(pipe, WindowSpec{Title: "goeq x11 test", X: 40, Y: 30, W: 100, H: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer win.Destroy()
	if !win.Window() || pipe.Window() {
		t.Errorf("Window(): window %v, pipe context %v", win.Window(), pipe.Window())
	}
	events := make(chan Event, 256)
	win.(EventSource).OnEvent(func(e Event) { events <- e })
	if err := win.MakeCurrent(); err != nil {
		t.Fatal(err)
	}
	defer win.Release()
	if err := gl.Init(); err != nil {
		t.Fatal(err)
	}
	orange := color.NRGBA{255, 128, 0, 255}
	at := func(screen, x, y int) color.NRGBA {
		img, err := xtest.ScreenImage(fbdir, screen)
		if err != nil {
			t.Fatal(err)
		}
		return img.NRGBAAt(x, y)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		gl.ClearColor(1, 0.5, 0, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		win.Swap()
		if at(1, 40, 30) == orange && at(1, 139, 109) == orange {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen 1 shows %v at the window's corner, want %v", at(1, 40, 30), orange)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c := at(1, 39, 29); c == orange {
		t.Error("the window reaches past its top-left corner")
	}
	if c := at(0, 90, 70); c == orange {
		t.Error("the window shows on screen 0")
	}

	xtest.Xdotool(t, name, "mousemove", "--screen", "1", "60", "50", "click", "1", "click", "4", "key", "a", "key", "shift+Left")
	id := xtest.FindWindow(t, name, "goeq x11 test", 10*time.Second)
	xtest.Xdotool(t, name, "windowsize", "--sync", id, "120", "90")
	want := []Event{
		{Kind: ButtonPress, X: 20, Y: 20, Button: 1}, {Kind: ButtonRelease, X: 20, Y: 20, Button: 1},
		{Kind: Wheel, X: 20, Y: 20, DY: 1},
		{Kind: KeyPress, Key: 'a'}, {Kind: KeyRelease, Key: 'a'},
		{Kind: KeyPress, Key: KeyLeft, Mods: ModShift},
		{Kind: Resize, W: 120, H: 90},
	}
	var got []Event
	timeout := time.After(10 * time.Second)
	for len(want) > 0 {
		select {
		case e := <-events:
			got = append(got, e)
			if e == want[0] {
				want = want[1:]
			}
		case <-timeout:
			t.Fatalf("waiting for %+v; events: %+v", want[0], got)
		}
	}
	if w, h := win.(Sizer).FramebufferSize(); w != 120 || h != 90 {
		t.Errorf("size after the resize %dx%d, want 120x90", w, h)
	}
	// on a French keyboard the digit row types its digits, as on GLFW's
	// windows: its 1 key typed '&', out of reach of eqPly's focus keys
	if out, err := exec.Command("setxkbmap", "-display", name, "fr").CombinedOutput(); err != nil {
		t.Fatalf("setxkbmap fr (make test installs it): %v\n%s", err, out)
	}
	xtest.Xdotool(t, name, "mousemove", "--screen", "1", "60", "50", "key", "ampersand", "key", "a")
	for want := []int{'1', 'a'}; len(want) > 0; {
		select {
		case e := <-events:
			got = append(got, e)
			if e.Kind == KeyPress && e.Key == want[0] {
				want = want[1:]
			}
		case <-timeout:
			t.Fatalf("waiting for key %q on a French keyboard; events: %+v", rune(want[0]), got)
		}
	}

	// fullscreen covers the screen, whatever size the config gave
	full, err := sys.NewWindow(pipe, WindowSpec{Title: "goeq x11 fullscreen", X: 40, Y: 30, W: 100, H: 80, Fullscreen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Destroy()
	if w, h := full.(Sizer).FramebufferSize(); w != 320 || h != 240 {
		t.Errorf("a fullscreen window of a 320x240 screen is %dx%d", w, h)
	}
	if err := full.MakeCurrent(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); at(1, 0, 0) != orange || at(1, 319, 239) != orange; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the fullscreen window shows %v and %v at the screen's corners", at(1, 0, 0), at(1, 319, 239))
		}
		gl.Viewport(0, 0, 320, 240)
		gl.ClearColor(1, 0.5, 0, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		full.Swap()
	}
}

// TestXDisplayNames checks how a pipe's port and device become an X
// display name on the host of DISPLAY.
func TestXDisplayNames(t *testing.T) {
	for _, c := range []struct {
		display        string
		number, screen int
		want           string
	}{
		{":78", -1, 1, ":78.1"},
		{":78.1", -1, 0, ":78.0"},
		{"wall1:10.2", -1, 3, "wall1:10.3"},
		{"wall1:10.2", 0, 0, "wall1:0.0"},
		{"[::1]:4", 7, 1, "[::1]:7.1"},
	} {
		got, err := XDisplay(c.display, c.number, c.screen)
		if err != nil || got != c.want {
			t.Errorf("XDisplay(%q, %d, %d) = %q, %v; want %q", c.display, c.number, c.screen, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "wall1", ":x.1"} {
		if got, err := XDisplay(bad, -1, 1); err == nil {
			t.Errorf("XDisplay(%q) = %q, want an error", bad, got)
		}
	}
	if DisplayScreen(":78.1") != 1 || DisplayScreen(":78") != 0 || DisplayScreen("wall1:10.2") != 2 {
		t.Error("DisplayScreen reads the wrong screen")
	}
}

// A window another X client destroys (xdotool windowclose does so where
// no window manager asks it to close) says so with a Destroyed event, on
// GLFW's display and on another screen, and destroying it afterwards does
// not end the process with an X error; nor does MakeCurrent, which says
// why. A window left alone says nothing.
func TestAWindowDestroyedByAnotherClientSaysSo(t *testing.T) {
	display := xtest.Display(t, 320, 240)
	screen, err := OpenX11Screen(display + ".0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(screen.Close)
	systems := map[Windows]string{screen: display}
	if d := os.Getenv("DISPLAY"); d != "" { // GLFW opens the process's DISPLAY, once
		systems[openGLFW(t)] = d
	}
	for sys, disp := range systems {
		t.Run(sys.Name(), func(t *testing.T) {
			destroyed := make(chan int, 4)
			var wins []Context
			for i := range 2 {
				w, err := sys.NewWindow(nil, WindowSpec{Title: fmt.Sprintf("goeq destroy test %d", i), W: 64, H: 48})
				if err != nil {
					t.Fatal(err)
				}
				wins = append(wins, w)
				w.(EventSource).OnEvent(func(e Event) {
					if e.Kind == Destroyed {
						destroyed <- i
					}
				})
			}
			xtest.Xdotool(t, disp, "windowclose", xtest.FindWindow(t, disp, "goeq destroy test 0", 10*time.Second))
			select {
			case i := <-destroyed:
				if i != 0 {
					t.Errorf("window %d said it was destroyed, not window 0", i)
				}
			case <-time.After(5 * time.Second):
				t.Error("no Destroyed event within 5 s of the window's destruction")
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if err := wins[0].MakeCurrent(); !errors.Is(err, ErrDestroyed) {
				t.Errorf("MakeCurrent on the destroyed window: %v, want ErrDestroyed", err)
			}
			if err := wins[1].MakeCurrent(); err != nil {
				t.Errorf("MakeCurrent on the window left alone: %v", err)
			}
			wins[1].Release()
			for _, w := range wins {
				w.Destroy()
			}
			select {
			case i := <-destroyed:
				t.Errorf("window %d said it was destroyed by another client after its own Destroy", i)
			case <-time.After(100 * time.Millisecond):
			}
		})
	}
}
