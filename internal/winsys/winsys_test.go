package winsys

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/goeq/goeq/internal/nettest"
	"github.com/goeq/goeq/internal/xtest"
)

func TestMain(m *testing.M) {
	done := make(chan struct{})
	code := 0
	go func() {
		code = m.Run()
		close(done)
	}()
	RunMain(done)
	os.Exit(code)
}

// withContext runs do with a new context on sys current on a locked
// thread.
func withContext(t *testing.T, sys System, do func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := sys.NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Destroy()
	if err := ctx.MakeCurrent(); err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	if err := gl.Init(); err != nil {
		t.Fatal(err)
	}
	do()
}

// clearAndRead clears an FBO to a colour in a new context and reads one
// pixel back.
func clearAndRead(t *testing.T, sys System) (px [4]byte) {
	withContext(t, sys, func() { px = clearAndReadCurrent(t, sys) })
	return px
}

func clearAndReadCurrent(t *testing.T, sys System) [4]byte {
	var fbo, rb uint32
	gl.GenFramebuffers(1, &fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	gl.GenRenderbuffers(1, &rb)
	gl.BindRenderbuffer(gl.RENDERBUFFER, rb)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, 4, 4)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("framebuffer status 0x%x", s)
	}
	gl.Viewport(0, 0, 4, 4)
	gl.ClearColor(1, 0.5, 0, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	var px [4]byte
	gl.ReadPixels(1, 1, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&px[0]))
	t.Logf("%s: %s, GL %s", sys.Name(), gl.GoStr(gl.GetString(gl.RENDERER)), gl.GoStr(gl.GetString(gl.VERSION)))
	return px
}

func TestEGLHeadless(t *testing.T) {
	sys, err := OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	if px := clearAndRead(t, sys); px != [4]byte{255, 128, 0, 255} {
		t.Errorf("read %v", px)
	}
}

// openGLFW opens GLFW on the X display, or skips where there is none.
func openGLFW(t *testing.T) *GLFW {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no X display (make test runs this under Xvfb)")
	}
	sys, err := OpenGLFW()
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func TestGLFWOnX(t *testing.T) {
	sys := openGLFW(t)
	if px := clearAndRead(t, sys); px != [4]byte{255, 128, 0, 255} {
		t.Errorf("read %v", px)
	}
}

// A window asked to close (as a window manager does) before its events
// are handled still delivers the close once they are.
func TestCloseBeforeEventsAreHandledIsDelivered(t *testing.T) {
	ctx, err := openGLFW(t).NewWindow(nil, WindowSpec{Title: "goeq close test", W: 64, H: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Destroy()
	c := ctx.(*glfwContext)
	// what GLFW does with WM_DELETE_WINDOW while no close callback is set
	onMain(func() { c.win.SetShouldClose(true) })
	var got []Event
	c.OnEvent(func(e Event) { got = append(got, e) })
	onMain(glfw.PollEvents)
	closes := 0
	for _, e := range got {
		if e.Kind == Close {
			closes++
		}
	}
	if closes != 1 {
		t.Errorf("%d close events, want 1 (events %v)", closes, got)
	}
}

// A node with a window to show, under a DISPLAY that names no X server:
// auto falls back to EGL and says the display is unusable, so the client
// warns that the wall shows nothing. GLFW's failed start is kept for the
// process, so the choice is made in a child process of this test.
func TestUnusableDisplayFallsBackToEGL(t *testing.T) {
	if os.Getenv("WINSYS_TEST_CHILD") == "1" {
		sys, why, err := Open("auto", true)
		if err != nil {
			t.Fatal(err)
		}
		if _, isEGL := sys.(*EGL); !isEGL || !why.DisplayUnusable || !strings.Contains(why.Text, ":4242") {
			t.Fatalf("%s (%s), display unusable %v", sys.Name(), why, why.DisplayUnusable)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnusableDisplayFallsBackToEGL$", "-test.v")
	cmd.Env = append(os.Environ(), "WINSYS_TEST_CHILD=1", "DISPLAY=:4242", "GOEQ_WINSYS=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// A Wayland session without XWayland (WAYLAND_DISPLAY, no DISPLAY) gets
// its windows offscreen with a warning, not the quiet headless run of a
// machine without a display; a node with nothing to show stays quiet.
func TestAWaylandSessionWithoutXIsWarned(t *testing.T) {
	if os.Getenv("WINSYS_TEST_CHILD") == "1" {
		for _, onScreen := range []bool{true, false} {
			sys, why, err := Open("auto", onScreen)
			if err != nil {
				t.Fatal(err)
			}
			_, isEGL := sys.(*EGL)
			if !isEGL || why.DisplayUnusable != onScreen || onScreen != strings.Contains(why.Text, "WAYLAND_DISPLAY") {
				t.Fatalf("on screen %v: %s (%s), display unusable %v", onScreen, sys.Name(), why, why.DisplayUnusable)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAWaylandSessionWithoutXIsWarned$", "-test.v")
	cmd.Env = append(os.Environ(), "WINSYS_TEST_CHILD=1", "DISPLAY=", "WAYLAND_DISPLAY=wayland-0", "GOEQ_WINSYS=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// A window is placed where its viewport says, undecorated when asked, and
// a resize (here by the program, as a user's drag would) reaches both its
// size and its events.
func TestWindowPlaceLookAndResize(t *testing.T) {
	ctx, err := openGLFW(t).NewWindow(nil, WindowSpec{Title: "goeq place test", X: 120, Y: 70, W: 64, H: 48, Undecorated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Destroy()
	c := ctx.(*glfwContext)
	var x, y, decorated int
	onMain(func() {
		x, y = c.win.GetPos()
		decorated = c.win.GetAttrib(glfw.Decorated)
	})
	if x != 120 || y != 70 || decorated != glfw.False {
		t.Errorf("window at (%d, %d), decorated %d; want (120, 70), undecorated", x, y, decorated)
	}
	if w, h := c.FramebufferSize(); w != 64 || h != 48 {
		t.Errorf("framebuffer %dx%d, want 64x48", w, h)
	}
	var resized []Event
	c.OnEvent(func(e Event) {
		if e.Kind == Resize {
			resized = append(resized, e)
		}
	})
	onMain(func() { c.win.SetSize(100, 40) })
	n := 0 // resized is written on the main thread
	for try := 0; try < 200 && n == 0; try++ {
		time.Sleep(10 * time.Millisecond)
		onMain(func() { glfw.PollEvents(); n = len(resized) })
	}
	if w, h := c.FramebufferSize(); w != 100 || h != 40 || n == 0 {
		t.Errorf("after a resize to 100x40: framebuffer %dx%d, %d resize events", w, h, n)
	}
}

// A pipe's device is a GPU of the EGL device platform; Mesa lists its
// software renderer as one, so device 0 renders here, and a device past
// the list is refused, saying how many there are.
func TestEGLDevice(t *testing.T) {
	sys, count, err := OpenEGLDevice(0)
	if err != nil {
		t.Fatalf("device 0: %v", err)
	}
	if count < 1 || !strings.Contains(sys.Name(), "device 0") {
		t.Errorf("%s, %d devices", sys.Name(), count)
	}
	if px := clearAndRead(t, sys); px != [4]byte{255, 128, 0, 255} {
		t.Errorf("device 0 read %v", px)
	}
	again, _, err := OpenEGLDevice(0)
	if err != nil || again != sys {
		t.Errorf("device 0 opened twice: %v", err)
	}
	_, n, err := OpenEGLDevice(count)
	if err == nil || n != count || !strings.Contains(err.Error(), fmt.Sprintf("EGL lists %d", count)) {
		t.Errorf("device %d of %d: %v (count %d)", count, count, err, n)
	}
}

// GLFW's keys and modifiers map to ours: characters to their rune as
// typed without shift, on the keyboard's layout where GLFW names it (a
// German one's y, z, + and - keys, which GLFW numbers z, y, ] and /, and a
// French one's a, which it numbers q), else on a US one; the digit row and
// the keypad to the digits and characters they stand for (a French
// keyboard's 1 is & unshifted), named keys to the constants.
func TestKeysAndModifiers(t *testing.T) {
	keys := map[glfw.Key]int{
		glfw.KeyA: 'a', glfw.KeyZ: 'z', glfw.Key7: '7', glfw.KeySpace: ' ', glfw.KeyComma: ',', glfw.KeyLeftBracket: '[',
		glfw.KeyGraveAccent: '`', glfw.KeyKP3: '3', glfw.KeyKPAdd: '+', glfw.KeyKPEnter: KeyEnter, glfw.KeyEscape: KeyEscape,
		glfw.KeyPageDown: KeyPageDown, glfw.KeyDelete: KeyDelete, glfw.KeyF1: KeyF1, glfw.KeyF12: KeyF1 + 11, glfw.KeyLeftShift: 0,
	}
	for k, want := range keys {
		if got := keyOf(k, ""); got != want {
			t.Errorf("GLFW key %d maps to %#x, want %#x", k, got, want)
		}
	}
	for _, c := range []struct {
		key  glfw.Key
		name string
		want int
	}{{glfw.KeyY, "z", 'z'}, {glfw.KeyZ, "y", 'y'}, {glfw.KeyRightBracket, "+", '+'}, {glfw.KeySlash, "-", '-'},
		{glfw.KeySemicolon, "ö", 'ö'}, {glfw.KeyA, "A", 'a'}, {glfw.KeyComma, ",", ','}, {glfw.KeySpace, "", ' '}, {glfw.KeyKPAdd, "+", '+'},
		{glfw.Key1, "&", '1'}, {glfw.Key2, "é", '2'}, {glfw.KeyQ, "a", 'a'}} {
		if got := keyOf(c.key, c.name); got != c.want {
			t.Errorf("GLFW key %d named %q maps to %q, want %q", c.key, c.name, rune(got), rune(c.want))
		}
	}
	if got := modsOf(glfw.ModShift | glfw.ModAlt); got != ModShift|ModAlt {
		t.Errorf("shift and alt map to %b", got)
	}
	if got := modsOf(glfw.ModControl | glfw.ModSuper); got != ModControl|ModSuper {
		t.Errorf("control and super map to %b", got)
	}
}

// Mesa's software renderer gives this process two displays, each with a
// rasterizer of its own: its threads (llvmpipe-0 is each one's first) are
// counted in a process that opens nothing else, where each display has
// drawn. A GPU gives one display.
func TestRasterizers(t *testing.T) {
	if os.Getenv("GOEQ_RASTERIZERS_CHILD") != "" {
		rs, err := Rasterizers()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			clearAndRead(t, r) // llvmpipe starts its threads with a display's first scene
		}
		threads, _ := os.ReadDir("/proc/self/task")
		first := 0
		for _, th := range threads {
			comm, _ := os.ReadFile("/proc/self/task/" + th.Name() + "/comm")
			if strings.TrimSpace(string(comm)) == "llvmpipe-0" {
				first++
			}
		}
		fmt.Printf("rasterizers %d threads %d\n", len(rs), first)
		return
	}
	sys, err := OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Rasterizers()
	if err != nil {
		t.Fatal(err)
	}
	if rs[0] != sys {
		t.Fatalf("the first rasterizer is %s, not OpenEGL's %s", rs[0].Name(), sys.Name())
	}
	software := strings.Contains(renderer(t, sys), "llvmpipe")
	if want := map[bool]int{true: 2, false: 1}[software && sys.Platform == "surfaceless"]; len(rs) != want {
		t.Fatalf("%d rasterizers on %s (%s), want %d", len(rs), sys.Name(), renderer(t, sys), want)
	}
	for _, r := range rs {
		if px := clearAndRead(t, r); px != [4]byte{255, 128, 0, 255} {
			t.Errorf("%s read %v", r.Name(), px)
		}
	}
	if len(rs) < 2 {
		return
	}
	if rs[1].display == rs[0].display {
		t.Fatalf("%s and %s are one display", rs[0].Name(), rs[1].Name())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRasterizers$")
	cmd.Env = append(os.Environ(), "GOEQ_RASTERIZERS_CHILD=1", "LP_NUM_THREADS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var n, threads int
	line := string(out[max(0, strings.Index(string(out), "rasterizers ")):])
	if _, err := fmt.Sscanf(line, "rasterizers %d threads %d", &n, &threads); err != nil || n != 2 || threads != 2 {
		t.Errorf("a process with %d rasterizers runs %d rasterizer threads, want 2 and 2: %s", n, threads, out)
	}
}

// renderer is the GL_RENDERER of a context on sys.
func renderer(t *testing.T, sys System) (name string) {
	withContext(t, sys, func() { name = gl.GoStr(gl.GetString(gl.RENDERER)) })
	return name
}

// Headless, the GPUs a config is made for are the EGL devices that are
// not a software renderer, told here by the renderer each one's GL names.
func TestGPUsAreTheDevicesThatAreNotSoftware(t *testing.T) {
	t.Setenv("GOEQ_WINSYS", "egl")
	gpus := GPUs(true)
	_, count, err := OpenEGLDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range count {
		dev, _, err := OpenEGLDevice(i)
		if err != nil {
			t.Fatalf("device %d: %v", i, err)
		}
		name := renderer(t, dev)
		software := strings.Contains(name, "llvmpipe") || strings.Contains(name, "softpipe")
		if slices.Contains(gpus, i) == software {
			t.Errorf("device %d (%s): listed among the GPUs %v: %v", i, name, gpus, !software)
		}
	}
}

// An X display whose server takes the connection and never answers (a
// hung server, a forwarded display whose far end is gone) does not hold
// up the count of GPUs: after a bound, the EGL devices count instead.
func TestGPUsDoNotWaitForAServerThatNeverAnswers(t *testing.T) {
	_, portText, _ := net.SplitHostPort(nettest.Peer(t, ""))
	port, _ := strconv.Atoi(portText)
	t.Setenv("GOEQ_WINSYS", "")
	t.Setenv("DISPLAY", fmt.Sprintf("127.0.0.1:%d", port-6000))
	counted := make(chan []int, 1)
	go func() { counted <- GPUs(true) }()
	var got []int
	select {
	case got = <-counted:
	case <-time.After(time.Minute):
		t.Fatal("counting the GPUs waits without end for a server that never answers")
	}
	if want := hardwareDevices(); !slices.Equal(got, want) {
		t.Errorf("GPUs %v; want the EGL devices' %v", got, want)
	}
}

// Nor does opening the window system: a node that shows a window goes
// offscreen on EGL, saying the display does not answer, after a bound
// (GLFW, asked for, fails so, as does a pipe's X screen on it). Xlib under GLFW waited without end, and
// the node waited out its init timeout, "opening the window system".
func TestAServerThatNeverAnswersIsNotWaitedFor(t *testing.T) {
	_, portText, _ := net.SplitHostPort(nettest.Peer(t, ""))
	port, _ := strconv.Atoi(portText)
	display := fmt.Sprintf("127.0.0.1:%d", port-6000)
	t.Setenv("GOEQ_WINSYS", "")
	t.Setenv("DISPLAY", display)
	bound := displayAnswerBound
	displayAnswerBound = time.Second
	t.Cleanup(func() { displayAnswerBound = bound })
	type opened struct {
		sys System
		why Why
		err error
	}
	open := func(choice Choice) opened {
		done := make(chan opened, 1)
		go func() {
			sys, why, err := Open(choice, true)
			done <- opened{sys, why, err}
		}()
		select {
		case o := <-done:
			return o
		case <-time.After(time.Minute):
			t.Fatalf("opening %s waits without end for a server that never answers", choice)
		}
		return opened{}
	}
	want := "X display " + display + " does not answer"
	o := open("auto")
	if o.err != nil {
		t.Fatal(o.err)
	}
	if _, isEGL := o.sys.(*EGL); !isEGL || !o.why.DisplayUnusable || !strings.Contains(o.why.Text, want) {
		t.Errorf("auto: %s (%s), display unusable %v; want EGL, saying %q", o.sys.Name(), o.why, o.why.DisplayUnusable, want)
	}
	if o := open("glfw"); o.err == nil || !strings.Contains(o.err.Error(), want) {
		t.Errorf("glfw: %v; want an error saying %q", o.err, want)
	}
	// a pipe's windows on another X server or screen
	if _, err := OpenX11Screen(display + ".0"); err == nil || !strings.Contains(err.Error(), "X display "+display+".0 does not answer") {
		t.Errorf("an X screen: %v; want an error saying %q", err, want)
	}
}

// A quick drag whose events are polled at once (a hand's flick, or a
// main thread busy for a moment) has each button event where the pointer
// was then: the press where the drag began, the release where it ended.
// The press was where the pointer was once polled, the drag's end, and
// an application saw a drag that moved nothing. It runs in a child
// process on a display of its own: on the display other packages' tests
// share, a window of theirs over this one's corner took the press (and
// so the release), once in a full make test.
func TestAQuickDragsButtonsAreWhereThePointerWas(t *testing.T) {
	if os.Getenv("WINSYS_TEST_CHILD") != "drag" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAQuickDragsButtonsAreWhereThePointerWas$", "-test.v")
		cmd.Env = append(os.Environ(), "WINSYS_TEST_CHILD=drag", "DISPLAY="+xtest.Display(t, 640, 480), "GOEQ_WINSYS=")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	ctx, err := openGLFW(t).NewWindow(nil, WindowSpec{Title: "goeq quick drag test", W: 200, H: 100, Undecorated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Destroy()
	c := ctx.(*glfwContext)
	var got []Event // written on the main thread
	c.OnEvent(func(e Event) { got = append(got, e) })
	events := func() (evs []Event) {
		onMain(func() { glfw.PollEvents(); evs = slices.Clone(got) })
		return evs
	}
	window := fmt.Sprint(c.xid)
	xtest.Xdotool(t, os.Getenv("DISPLAY"), "mousemove", "--window", window, "--sync", "20", "50")
	for end := time.Now().Add(10 * time.Second); !slices.ContainsFunc(events(), func(e Event) bool { return e.Kind == PointerMotion && e.X == 20 }); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no motion to (20, 50) seen: %v", events())
		}
	}
	var out []byte
	onMain(func() { // nothing polls meanwhile
		got = nil
		out, err = exec.Command("xdotool", "mousedown", "1", "mousemove", "--window", window, "--sync", "120", "50", "mouseup", "1").CombinedOutput()
	})
	if err != nil {
		t.Fatalf("xdotool: %v\n%s", err, out)
	}
	var press, release *Event
	for end := time.Now().Add(10 * time.Second); (press == nil || release == nil) && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, e := range events() {
			switch e.Kind {
			case ButtonPress:
				press = &e
			case ButtonRelease:
				release = &e
			}
		}
	}
	if press == nil || release == nil {
		t.Fatalf("the drag's press and release not both seen: %v", events())
	}
	if press.X != 20 || release.X != 120 {
		t.Errorf("pressed at x %v and let go at x %v; want 20 and 120 (events %v)", press.X, release.X, events())
	}
}

// Each window GLFW opens is watched for its destruction by another client
// on a connection of goeq's own, which the X server serves in its own
// order: the watch reached the server before the window's creation now
// and then (the package's tests on a loaded machine: a run in four), a
// BadWindow that Xlib's default handler ended the process with. Windows
// opened one after the other, each destroyed at once, give that race its
// chances: 150 of them ended 5 runs in 6 so.
func TestWindowsAreWatchedWithoutAnXError(t *testing.T) {
	sys := openGLFW(t)
	for i := range 100 {
		ctx, err := sys.NewWindow(nil, WindowSpec{Title: fmt.Sprintf("goeq watch test %d", i), W: 16, H: 16})
		if err != nil {
			t.Fatal(err)
		}
		ctx.Destroy()
	}
}
