package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log"
	"maps"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/examples/flick"
	"github.com/goeq/goeq/internal/gotool"
	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/nettest"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/xtest"
)

// build is eqply, built once for the package's tests (each link took
// 3.5 s, sixteen times).
func build(t *testing.T) string { return gotool.Binary(t, "eqply", ".") }

func TestMain(m *testing.M) {
	code := m.Run()
	gotool.RemoveBinaries()
	os.Exit(code)
}

type traceLine struct {
	Frame  *int           `json:"frame"`
	Event  string         `json:"event"`
	Key    goeq.Key       `json:"key"`
	Mods   goeq.Modifiers `json:"mods"`
	Camera camera         `json:"camera"`
	Ortho  bool           `json:"ortho"`
	Data   *frameData     `json:"data"`
	// Refined: a refined frame (idle antialiasing)
	Refined bool `json:"refined"`
}

func readTrace(t *testing.T, path string) []traceLine {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []traceLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l traceLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			lines = append(lines, l)
		}
	}
	return lines
}

// waitFor polls until ok or the bound passes.
func waitFor(t *testing.T, what string, bound time.Duration, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(bound); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("no %s within %v", what, bound)
}

// running is eqply started under X for a test.
type running struct {
	bin, disp, dir, trace string
	process               *os.Process
	log                   *os.File
	win                   string // its window
	exited                chan error
	ended                 bool
}

// startEqply starts eqply on the four-source config (built in: it runs in
// a folder of its own, where no config file is), or with the extra
// arguments, under X and waits for its window and first frame; the test's
// cleanup kills it if it still runs.
func startEqply(t *testing.T, extra ...string) *running {
	t.Helper()
	return startEqplyOn(t, xtest.Display(t, 1280, 720), extra...)
}

// startEqplyOn starts eqply as startEqply does, on display disp.
func startEqplyOn(t *testing.T, disp string, extra ...string) *running {
	t.Helper()
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatal("xdotool is needed (make test installs it)")
	}
	r := &running{bin: build(t), disp: disp, dir: t.TempDir(), exited: make(chan error, 1)}
	r.trace = filepath.Join(r.dir, "trace.jsonl")
	app := exec.Command(r.bin, append([]string{"--triangles", "20000", "--out", filepath.Join(r.dir, "out"), "--trace", r.trace}, extra...)...)
	app.Dir = r.dir
	// auto: the destination's node opens its window through GLFW; the
	// render nodes, all offscreen, take EGL (fewer X clients to start)
	app.Env = append(os.Environ(), "DISPLAY="+r.disp, "GOEQ_WINSYS=auto")
	var err error
	if r.log, err = os.Create(filepath.Join(r.dir, "log")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("eqply's log:\n%s", readTraceText(r.log.Name()))
		}
		r.log.Close()
	})
	app.Stdout, app.Stderr = r.log, r.log
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	r.process = app.Process
	go func() { r.exited <- app.Wait() }()
	t.Cleanup(func() {
		if !r.ended {
			app.Process.Kill()
			<-r.exited
		}
	})
	r.win = xtest.FindWindow(t, r.disp, "goeq dest", 30*time.Second)
	waitFor(t, "first frame", 30*time.Second, func() bool { return len(readTrace(t, r.trace)) > 0 })
	return r
}

// endsCleanly checks that eqply exits 0 soon, leaving no render client.
func (r *running) endsCleanly(t *testing.T, after string) {
	t.Helper()
	r.endsWith(t, after, 0)
}

// endsWith checks that eqply exits with code soon, leaving no render
// client.
func (r *running) endsWith(t *testing.T, after string, code int) {
	t.Helper()
	select {
	case err := <-r.exited:
		r.ended = true
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			got = -1
		}
		if got != code {
			t.Fatalf("eqply ended with %v after %s, want exit status %d:\n%s", err, after, code, readTraceText(r.log.Name()))
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("%s did not end eqply:\n%s", after, readTraceText(r.log.Name()))
	}
	if out, _ := exec.Command("pgrep", "-f", r.bin).Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("render clients still run after eqply ended: pids %s", out)
	}
}

// A pointer drag on eqply's window, made by the X server's test extension
// as a user's would be, reaches the application; the next frame shows the
// model turned as computed from the drag (compared with a headless render
// of that camera on one window), and q ends the application and every
// render client.
func TestPointerDragTurnsTheModelAndQQuits(t *testing.T) {
	r := startEqply(t)
	bin, dir, trace := r.bin, r.dir, r.trace
	if _, _, w, h := r.geometry(t); w != 640 || h != 360 {
		t.Fatalf("window %dx%d, want its viewport's 640x360", w, h)
	}
	// drag from the middle 64 pixels right and 36 up: a tenth of the view
	// each way
	r.drag(t, 320, 180, 64, -36)
	want := camera{Yaw: homeCamera.Yaw + math.Pi*0.1, Pitch: homeCamera.Pitch - math.Pi*0.1, Distance: homeCamera.Distance}
	turned := r.waitForCamera(t, want)
	time.Sleep(500 * time.Millisecond) // the frame is written
	// h prints the keys, as eqPly's h shows them
	xtest.Xdotool(t, r.disp, "key", "h")
	waitFor(t, "the keys h prints", 10*time.Second, func() bool { return strings.Contains(readTraceText(r.log.Name()), "eqply's keys") })
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
	if !strings.Contains(readTraceText(trace), "button press") {
		t.Errorf("the handler saw no button press")
	}

	// the reference: the drag's camera rendered headless on one window
	ref := exec.Command(bin, "--config", "../configs/one-window.eqc", "--triangles", "20000", "--frames", "1", "--camera-path", "orbit",
		"--camera", fmt.Sprintf("%.17g,%.17g,%.17g", want.Yaw, want.Pitch, want.Distance), "--out", filepath.Join(dir, "ref"))
	ref.Env = append(os.Environ(), "GOEQ_WINSYS=egl")
	if out, err := ref.CombinedOutput(); err != nil {
		t.Fatalf("reference: %v\n%s", err, out)
	}
	got := filepath.Join(dir, "out", fmt.Sprintf("dest-%06d.png", turned))
	d, err := imagecmp.CompareFiles(got, filepath.Join(dir, "ref", "dest-000000.png"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > 0.0002 {
		t.Errorf("frame %d after the drag against the reference of its camera: %s", turned, d)
	}
	// and the frame before the drag is not that picture
	d0, err := imagecmp.CompareFiles(filepath.Join(dir, "out", "dest-000000.png"), filepath.Join(dir, "ref", "dest-000000.png"), 2)
	if err == nil && d0.BadFraction() <= 0.0002 {
		t.Error("the frame before the drag already matches the turned reference: the test cannot tell")
	}
}

// A left drag with shift held zooms, as eqPly's does: the pointer's
// motion carries the modifiers held, as Equalizer's pointer events do. It
// carried none, so an application could not see shift on a drag.
func TestAShiftedDragZooms(t *testing.T) {
	r := startEqply(t)
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "keydown", "shift")
	r.drag(t, 320, 180, 0, -36) // a tenth of the view up
	xtest.Xdotool(t, r.disp, "keyup", "shift")
	want := homeCamera.Distance * math.Exp(-2*0.1)
	waitFor(t, "a frame with the zoomed camera", 30*time.Second, func() bool {
		for _, l := range readTrace(t, r.trace) {
			if l.Frame != nil && math.Abs(l.Camera.Distance-want) < 1e-9 {
				if l.Camera.Yaw != homeCamera.Yaw || l.Camera.Pitch != homeCamera.Pitch {
					t.Fatalf("the shifted drag turned the camera: %+v", l.Camera)
				}
				return true
			}
		}
		return false
	})
	shifted := 0
	for _, l := range readTrace(t, r.trace) {
		if l.Event == goeq.PointerMotion.String() && l.Mods == goeq.ModShift {
			shifted++
		}
	}
	if shifted == 0 {
		t.Error("no pointer motion in the trace carries shift")
	}
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

// A window the user resizes renders at its new size from a frame after
// the resize on (as Equalizer's does), and takes a drag of a tenth of its
// new size as a tenth of a turn.
func TestResizedWindowRendersAtItsNewSize(t *testing.T) {
	r := startEqply(t)
	xtest.Xdotool(t, r.disp, "windowsize", "--sync", r.win, "1280", "720")
	if _, _, w, h := r.geometry(t); w != 1280 || h != 720 {
		t.Fatalf("window %dx%d after the resize, want 1280x720", w, h)
	}
	waitFor(t, "an image of the resized window", 30*time.Second, func() bool {
		files, _ := filepath.Glob(filepath.Join(r.dir, "out", "dest-*.png"))
		for _, f := range files {
			if w, h := pngSize(f); w == 1280 && h == 720 {
				return true
			}
		}
		return false
	})
	// from a quarter of the way in (mousemove --sync waits out its bound
	// for a move to where the pointer is: the screen's middle, at first)
	r.drag(t, 320, 180, 128, -72)
	r.waitForCamera(t, camera{Yaw: homeCamera.Yaw + math.Pi*0.1, Pitch: homeCamera.Pitch - math.Pi*0.1, Distance: homeCamera.Distance})
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

// firstOf is the first of paths, "" when none.
func firstOf(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	return paths[0]
}

// pngSize is an image file's size (0x0 when it is not a whole PNG yet).
func pngSize(path string) (w, h int) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	c, err := png.DecodeConfig(f)
	if err != nil {
		return 0, 0
	}
	return c.Width, c.Height
}

// l shows the config's next layout: on two-layouts.eqc, the two views
// replace the one.
func TestLShowsTheNextLayout(t *testing.T) {
	config, err := filepath.Abs(filepath.Join("..", "configs", "two-layouts.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	r := startEqply(t, "--config", config)
	images := func(pattern string) int {
		files, _ := filepath.Glob(filepath.Join(r.dir, "out", pattern))
		return len(files)
	}
	waitFor(t, "an image of the whole view", 30*time.Second, func() bool { return images("dest.whole.*.png") > 0 })
	if n := images("dest.halves.*.png"); n > 0 {
		t.Fatalf("before l: %d images of the halves", n)
	}
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "key", "l")
	waitFor(t, "images of both halves", 30*time.Second, func() bool {
		return images("dest.halves.left-*.png") > 0 && images("dest.halves.right-*.png") > 0
	})
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

// l steps through the current canvas's layouts as eqPly's does, its
// `layout OFF` too, and shift-l back; c makes the next canvas current,
// whose layouts l then steps through (an operator's screen of one layout:
// none). The trace carries what each canvas shows.
func TestLAndCSwitchTheCurrentCanvassLayouts(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1, canvasLayouts: [][]int{{0, 1, goeq.LayoutOff}, {0}}, shown: []int{0, 0}}
	for _, step := range []struct {
		key  goeq.Key
		mods goeq.Modifiers
		want []int
	}{
		{'l', 0, []int{1, 0}},
		{'l', 0, []int{goeq.LayoutOff, 0}},
		{'l', 0, []int{0, 0}},
		{'l', goeq.ModShift, []int{goeq.LayoutOff, 0}},
		{'c', 0, []int{goeq.LayoutOff, 0}},
		{'l', 0, []int{goeq.LayoutOff, 0}},
		{'c', 0, []int{goeq.LayoutOff, 0}},
		{'l', 0, []int{0, 0}},
	} {
		changed := c.handle(goeq.Event{Kind: goeq.KeyPress, Key: step.key, Modifiers: step.mods})
		if got := c.frame().Layouts; !slices.Equal(got, step.want) || changed != (step.key == 'l' && c.canvas == 0) {
			t.Fatalf("%c (mods %d) on canvas %d: layouts %v, changed %v; want %v", rune(step.key), step.mods, c.canvas, got, changed, step.want)
		}
	}
}

// l steps past a layout the run refuses (its frames would wait in a
// circle), and eqply says why it is left out.
func TestLStepsPastARefusedLayout(t *testing.T) {
	var said []string
	logf := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	canvases := []goeq.Canvas{{Layouts: []int{0, 1, 2}, Refused: map[int]string{1: "a.eqc:3:4: input frame \"r\" is never assembled: ..."}}, {Layouts: []int{0}}}
	stepped := steppedLayouts(canvases, []string{"plain", "split", "third"}, logf)
	if want := [][]int{{0, 2}, {0}}; !slices.EqualFunc(stepped, want, slices.Equal) {
		t.Errorf("stepped %v, want %v", stepped, want)
	}
	if want := `layout "split" is left out of canvas 0's l: it would never complete a frame: a.eqc:3:4: input frame "r" is never assembled: ...`; len(said) != 1 || said[0] != want {
		t.Errorf("said %q, want %q", said, want)
	}
	c := &controls{cam: homeCamera, view: -1, canvasLayouts: stepped, shown: []int{0, 0}}
	for _, want := range []int{2, 0} {
		c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'l'})
		if got := c.frame().Layouts[0]; got != want {
			t.Fatalf("l: layout %d, want %d", got, want)
		}
	}
}

// A node lost draws the picture again on demand: a frame in flight may
// have been shown without its part. A node that joins changes nothing
// shown.
func TestALostNodeDrawsAgain(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1}
	if !c.handle(goeq.Event{Kind: goeq.NodeLost, Node: "render1", Reason: "its process ended"}) {
		t.Error("a node lost: the picture is not drawn again")
	}
	if c.handle(goeq.Event{Kind: goeq.NodeJoined, Node: "render1"}) {
		t.Error("a node joined: the picture is drawn again, unchanged")
	}
}

// v makes the views of the layout the current canvas shows current in
// turn, then none, as eqPly's v; the current view is the one keys act in
// (m shows the next model there alone).
func TestVStepsThroughTheShownLayoutsViews(t *testing.T) {
	// two-layouts.eqc's: "whole" (view 0) and "halves" (views 1 and 2)
	c := &controls{cam: homeCamera, view: -1, models: 2, canvasLayouts: [][]int{{0, 1}}, shown: []int{1}, viewLayouts: []int{0, 1, 1}}
	press := func(k goeq.Key) bool { return c.handle(goeq.Event{Kind: goeq.KeyPress, Key: k}) }
	for _, want := range []int{1, 2, -1, 1} {
		if press('v') || c.view != want {
			t.Fatalf("v: view %d; want %d, and the picture the same", c.view, want)
		}
	}
	// the models go to the views in turn: view 1 shows model 1, view 2 model 0
	if !press('m') || c.frame().modelOf(1, 2) != 0 || c.frame().modelOf(2, 2) != 0 {
		t.Errorf("m in view 1: models %d and %d; want view 1's next (0), view 2's as it was (0)", c.frame().modelOf(1, 2), c.frame().modelOf(2, 2))
	}
	press('l') // the whole: its one view, then none
	for _, want := range []int{0, -1} {
		if press('v'); c.view != want {
			t.Fatalf("v in the whole: view %d; want %d", c.view, want)
		}
	}
}

// runHeadless runs eqply without an X display, for at most two minutes,
// and returns what it wrote.
func runHeadless(bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "DISPLAY=")
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// --layout starts with that layout, as eqPly's --eq-layout: headless,
// where no l can be pressed, two-layouts.eqc's halves show from the first
// frame; a layout the config lacks ends the run with exit 1, naming those
// it has.
func TestLayoutFlagStartsInThatLayout(t *testing.T) {
	bin := build(t)
	config := filepath.Join("..", "configs", "two-layouts.eqc")
	out := t.TempDir()
	run := func(args ...string) (string, error) {
		return runHeadless(bin, append([]string{"--config", config, "--frames", "2", "--triangles", "2000"}, args...)...)
	}
	if text, err := run("--layout", "halves", "--out", out); err != nil {
		t.Fatalf("--layout halves: %v\n%s", err, text)
	}
	whole, _ := filepath.Glob(filepath.Join(out, "dest.whole*.png"))
	halves, _ := filepath.Glob(filepath.Join(out, "dest.halves.*.png"))
	if len(whole) != 0 || len(halves) != 4 {
		t.Errorf("--layout halves wrote %q and %q; want the halves of 2 frames alone", whole, halves)
	}
	text, err := run("--layout", "quarters")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(text, `no layout "quarters": the config has "whole", "halves"`) {
		t.Errorf("--layout quarters: %v, output %q; want exit 1 naming the layouts", err, text)
	}
}

// Equalizer's options, as a user's eqPly scripts pass them, run eqply
// as they ran eqPly: --eq-config names the config over eqply's own and
// --eq-layout the layout to start with (and eqPly's -n the frames);
// --eq-help lists them, and an unknown one ends the run as a bad flag
// does.
func TestEqualizerOptionsRunItAsEqPly(t *testing.T) {
	bin := build(t)
	out := t.TempDir()
	text, err := runHeadless(bin, "--eq-config", filepath.Join("..", "configs", "two-layouts.eqc"), "-n", "2", "--eq-layout=halves", "--triangles", "2000", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	halves, _ := filepath.Glob(filepath.Join(out, "dest.halves.*.png"))
	if all, _ := filepath.Glob(filepath.Join(out, "*.png")); len(halves) != 4 || len(all) != 4 {
		t.Errorf("wrote %q; want the halves of two-layouts.eqc, 2 frames", all)
	}
	if text, err := runHeadless(bin, "--eq-help"); err != nil || !strings.Contains(text, "--eq-config FILE") {
		t.Errorf("--eq-help: %v\n%s", err, text)
	}
	text, err = runHeadless(bin, "--eq-nope", "1")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(text, "unknown Equalizer option --eq-nope") {
		t.Errorf("--eq-nope: %v\n%s", err, text)
	}
}

// Each view has its own camera, as eqPly's: on two-layouts.eqc's halves,
// a drag in the left view turns the left view's model, and the right
// view's picture stays as it was.
func TestDragTurnsTheViewItIsIn(t *testing.T) {
	config, err := filepath.Abs(filepath.Join("..", "configs", "two-layouts.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	r := startEqply(t, "--config", config)
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "key", "l")
	image := func(half string, frame int) string {
		return filepath.Join(r.dir, "out", fmt.Sprintf("dest.halves.%s-%06d.png", half, frame))
	}
	written := func(half string, frame int) bool { w, _ := pngSize(image(half, frame)); return w > 0 }
	before := -1
	waitFor(t, "images of both halves", 30*time.Second, func() bool {
		for _, l := range readTrace(t, r.trace) {
			if l.Frame != nil && !l.Refined && written("left", *l.Frame) && written("right", *l.Frame) {
				before = *l.Frame // unrefined, as the frame after the drag
			}
		}
		return before >= 0
	})
	// a fifth of the left view (320 pixels wide) to the right: a tenth of
	// a turn
	r.drag(t, 160, 180, 64, 0)
	after := r.waitForCamera(t, camera{Yaw: homeCamera.Yaw + math.Pi*0.2, Pitch: homeCamera.Pitch, Distance: homeCamera.Distance})
	waitFor(t, "the turned frame's images", 30*time.Second, func() bool { return written("left", after) && written("right", after) })
	right, err := imagecmp.CompareFiles(image("right", after), image("right", before), 0)
	if err != nil {
		t.Fatal(err)
	}
	if right.BadFraction() > 0 {
		t.Errorf("the drag in the left view changed the right view: %s", right)
	}
	left, err := imagecmp.CompareFiles(image("left", after), image("left", before), 2)
	if err != nil {
		t.Fatal(err)
	}
	if left.BadFraction() < 0.01 {
		t.Errorf("the drag did not turn the left view: %s", left)
	}
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

// Keys reach the application with the modifiers held: punctuation, the
// keypad's, function keys; F11 (as p) writes the picture shown into
// screenshots/, the same image --out writes of that frame.
func TestKeysReachTheApplicationWithTheirModifiers(t *testing.T) {
	r := startEqply(t)
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "key", "shift+comma", "ctrl+F5", "KP_Add", "F11")
	want := []traceLine{{Key: ',', Mods: goeq.ModShift}, {Key: goeq.KeyF(5), Mods: goeq.ModControl}, {Key: '+'}, {Key: goeq.KeyF(11)}}
	waitFor(t, "the keys in the trace", 30*time.Second, func() bool {
		var got []traceLine
		for _, l := range readTrace(t, r.trace) {
			if l.Event == goeq.KeyPress.String() {
				got = append(got, traceLine{Key: l.Key, Mods: l.Mods})
			}
		}
		return slices.Equal(got, want)
	})
	shot := r.screenshot(t, 30*time.Second)
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
	d, err := imagecmp.CompareFiles(shot, filepath.Join(r.dir, "out", filepath.Base(shot)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > 0 {
		t.Errorf("the screenshot differs from --out's image of its frame: %s", d)
	}
}

// A character key is the one the keyboard's layout puts there, as
// Equalizer reads X's key symbols: on a German keyboard (setxkbmap de)
// the keys marked z, y, + and - reach the application as those, and on a
// French one the key marked a. GLFW numbers keys by their place on a US
// keyboard, and they came as y, z, ], / and q: eqPly's y and z keys
// swapped, and + and - did nothing. The digit row types its digits on any
// layout (a French keyboard's & key is its 1, as eqPly's focus keys want).
// A keyboard of two layouts types in its first, as Equalizer reads X's
// first group: set up as "us,ru" and switched to Russian, the keys marked
// z and y came as я and н, and eqPly's keys did nothing.
func TestKeysAreTheLayoutsCharacters(t *testing.T) {
	for _, c := range []struct {
		layout   string
		switched bool // to the second layout, before the keys
		press    []string
		want     []goeq.Key
	}{
		{"de", false, []string{"z", "y", "plus", "minus"}, []goeq.Key{'z', 'y', '+', '-'}},
		{"fr", false, []string{"a", "ampersand"}, []goeq.Key{'a', '1'}},
		{"us,ru", true, []string{"Cyrillic_ya", "Cyrillic_en"}, []goeq.Key{'z', 'y'}},
	} {
		t.Run(c.layout, func(t *testing.T) {
			disp := xtest.Display(t, 1280, 720)
			if out, err := exec.Command("setxkbmap", "-display", disp, "-layout", c.layout, "-option", "grp:caps_toggle").CombinedOutput(); err != nil {
				t.Fatalf("setxkbmap %s (make test installs it): %v\n%s", c.layout, err, out)
			}
			r := startEqplyOn(t, disp)
			xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
			if c.switched {
				xtest.Xdotool(t, r.disp, "key", "ISO_Next_Group")
			}
			xtest.Xdotool(t, r.disp, append([]string{"key"}, c.press...)...)
			var got []goeq.Key
			waitFor(t, "the keys in the trace", 30*time.Second, func() bool {
				got = nil
				for _, l := range readTrace(t, r.trace) {
					if l.Event == goeq.KeyPress.String() && l.Mods == 0 {
						got = append(got, l.Key)
					}
				}
				return len(got) >= len(c.want)
			})
			if !slices.Equal(got, c.want) {
				runes := func(keys []goeq.Key) (s []rune) {
					for _, k := range keys {
						s = append(s, rune(k))
					}
					return s
				}
				t.Errorf("keys %q, want %q", runes(got), runes(c.want))
			}
			xtest.Xdotool(t, r.disp, "key", "q")
			r.endsCleanly(t, "q")
		})
	}
}

// A key held down repeats, as X repeats it for Equalizer: eqPly's head
// tracking emulation moves the head on while an arrow is held. GLFW
// reports the repeats apart, and goeq dropped them: a held arrow moved the
// head one step.
func TestAHeldKeyRepeats(t *testing.T) {
	r := startEqply(t)
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "keydown", "Up")
	time.Sleep(1500 * time.Millisecond) // X repeats after 660 ms, 25 times a second
	xtest.Xdotool(t, r.disp, "keyup", "Up")
	var presses, releases int
	waitFor(t, "the key's release in the trace", 30*time.Second, func() bool {
		presses, releases = 0, 0
		for _, l := range readTrace(t, r.trace) {
			switch {
			case l.Key != goeq.KeyUp:
			case l.Event == goeq.KeyPress.String():
				presses++
			case l.Event == goeq.KeyRelease.String():
				releases++
			}
		}
		return releases > 0
	})
	if presses < 5 || releases != 1 {
		t.Errorf("Up held for 1.5 s: %d presses and %d releases, want repeats (5 or more) and one release", presses, releases)
	}
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

// A window shown again (unmapped and mapped: its content damaged) gets
// an expose event, and eqply, which renders only when something changed,
// renders a frame for it, as eqPly redraws on Equalizer's window expose.
func TestExposedWindowIsRedrawn(t *testing.T) {
	r := startEqply(t)
	frames := func() (n int, exposes int) {
		for _, l := range readTrace(t, r.trace) {
			switch {
			case l.Frame != nil:
				n++
			case l.Event == goeq.Expose.String():
				exposes++
			}
		}
		return n, exposes
	}
	// settled: no frame for a second
	before, exposed := frames()
	for settled := false; !settled; {
		time.Sleep(time.Second)
		n, e := frames()
		settled = n == before
		before, exposed = n, e
	}
	xtest.Xdotool(t, r.disp, "windowunmap", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "windowmap", "--sync", r.win)
	waitFor(t, "a frame for the expose", 30*time.Second, func() bool {
		n, e := frames()
		return n > before && e > exposed
	})
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win) // mapping again took the focus away
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

// geometry is the window's place and size on the screen.
func (r *running) geometry(t *testing.T) (x, y, w, h int) {
	t.Helper()
	geometry := xtest.Xdotool(t, r.disp, "getwindowgeometry", r.win)
	for _, l := range strings.Split(geometry, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Position:") {
			fmt.Sscanf(l, "Position: %d,%d", &x, &y)
		}
		if strings.HasPrefix(l, "Geometry:") {
			fmt.Sscanf(l, "Geometry: %dx%d", &w, &h)
		}
	}
	return x, y, w, h
}

// drag presses the left button at (x, y) of the window and lets go dx, dy
// pixels away, as a user's hand would, through the X server's test
// extension. (x, y) must not be where the pointer is. It holds still
// before it lets go, once eqply has seen the move, so that the drag does
// not go on (momentum.go): however late the window's events are polled,
// they are then polled apart.
func (r *running) drag(t *testing.T, x, y, dx, dy int) {
	t.Helper()
	x0, y0, _, _ := r.geometry(t)
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "mousemove", "--sync", fmt.Sprint(x0+x), fmt.Sprint(y0+y))
	time.Sleep(200 * time.Millisecond)
	xtest.Xdotool(t, r.disp, "mousedown", "1")
	time.Sleep(200 * time.Millisecond)
	moves := func() (n int) {
		for _, l := range readTrace(t, r.trace) {
			if l.Event == goeq.PointerMotion.String() {
				n++
			}
		}
		return n
	}
	before := moves()
	xtest.Xdotool(t, r.disp, "mousemove", "--sync", fmt.Sprint(x0+x+dx), fmt.Sprint(y0+y+dy))
	waitFor(t, "the drag's move in the trace", 30*time.Second, func() bool { return moves() > before })
	time.Sleep(2 * flick.Gap)
	xtest.Xdotool(t, r.disp, "mouseup", "1")
}

// waitForCamera waits for a frame drawn with the camera and returns it.
func (r *running) waitForCamera(t *testing.T, want camera) (frame int) {
	t.Helper()
	waitFor(t, "a frame with the dragged camera", 30*time.Second, func() bool {
		for _, l := range readTrace(t, r.trace) {
			if l.Frame != nil && math.Abs(l.Camera.Yaw-want.Yaw) < 1e-9 && math.Abs(l.Camera.Pitch-want.Pitch) < 1e-9 {
				frame = *l.Frame
				return true
			}
		}
		return false
	})
	return frame
}

// o switches the projection to a parallel one and back: the frame after
// the first o is the headless --ortho render of its camera on one window,
// and the frame after the second the perspective one again.
func TestOSwitchesToAParallelProjection(t *testing.T) {
	r := startEqply(t)
	// frameWith presses o and waits for a frame past after drawn so
	frameWith := func(ortho bool, after int) (frame int) {
		t.Helper()
		xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
		xtest.Xdotool(t, r.disp, "key", "o")
		waitFor(t, fmt.Sprintf("a frame with ortho %v", ortho), 30*time.Second, func() bool {
			for _, l := range readTrace(t, r.trace) {
				if l.Frame != nil && l.Ortho == ortho && *l.Frame > after {
					frame = *l.Frame
					return true
				}
			}
			return false
		})
		return frame
	}
	ortho := frameWith(true, 0)
	perspective := frameWith(false, ortho)
	time.Sleep(500 * time.Millisecond) // the frame is written
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")

	reference := func(extra ...string) string {
		out := filepath.Join(r.dir, fmt.Sprintf("ref%d", len(extra)))
		ref := exec.Command(r.bin, append([]string{"--config", "../configs/one-window.eqc", "--triangles", "20000", "--frames", "1",
			"--camera-path", "orbit", "--camera", fmt.Sprintf("%.17g,%.17g,%.17g", homeCamera.Yaw, homeCamera.Pitch, homeCamera.Distance),
			"--out", out}, extra...)...)
		ref.Env = append(os.Environ(), "GOEQ_WINSYS=egl")
		if b, err := ref.CombinedOutput(); err != nil {
			t.Fatalf("reference: %v\n%s", err, b)
		}
		return filepath.Join(out, "dest-000000.png")
	}
	matches := func(frame int, want string) bool {
		d, err := imagecmp.CompareFiles(filepath.Join(r.dir, "out", fmt.Sprintf("dest-%06d.png", frame)), want, 2)
		if err != nil {
			t.Fatal(err)
		}
		return d.BadFraction() <= 0.0002
	}
	orthoRef, perspectiveRef := reference("--ortho"), reference()
	if !matches(ortho, orthoRef) {
		t.Errorf("frame %d after o is not the --ortho reference", ortho)
	}
	if matches(ortho, perspectiveRef) {
		t.Errorf("frame %d after o is the perspective picture", ortho)
	}
	if !matches(perspective, perspectiveRef) {
		t.Errorf("frame %d after the second o is not the perspective reference", perspective)
	}
}

// Idle, eqply refines the picture shown: 16 more frames of the same
// camera, the last antialiased (its edges, and only they, differ from the
// unrefined frame), and then none until something changes.
func TestIdleRefinesThePicture(t *testing.T) {
	r := startEqply(t)
	// settled: no frame for a second (the window's first exposes may
	// start the picture over)
	type frame struct {
		n       int
		refined bool
	}
	var frames []frame
	for settled := false; !settled; {
		time.Sleep(time.Second)
		var now []frame
		for _, l := range readTrace(t, r.trace) {
			if l.Frame != nil {
				now = append(now, frame{*l.Frame, l.Refined})
				if l.Camera != homeCamera {
					t.Errorf("frame %d with camera %+v, want the home camera", *l.Frame, l.Camera)
				}
			}
		}
		settled = len(now) > 0 && len(now) == len(frames)
		frames = now
	}
	// the last 17 frames: one drawn, then 16 refined ones in a row
	if len(frames) < 17 {
		t.Fatalf("frames %v; want a frame and 16 refined after it", frames)
	}
	tail := frames[len(frames)-17:]
	for i, f := range tail {
		if f.refined != (i > 0) || f.n != tail[0].n+i {
			t.Fatalf("the last frames %v; want a frame and 16 refined after it, then none", tail)
		}
	}
	first, last := tail[0].n, tail[16].n
	// p renders the picture again and writes its last refined frame
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	xtest.Xdotool(t, r.disp, "key", "p")
	shot := r.screenshot(t, 60*time.Second)
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
	shotFrame := -1
	for _, l := range readTrace(t, r.trace) {
		if l.Frame != nil && fmt.Sprintf("dest-%06d.png", *l.Frame) == filepath.Base(shot) {
			shotFrame = *l.Frame
			if !l.Refined {
				t.Errorf("the screenshot is of frame %d, which is not refined", *l.Frame)
			}
		}
	}
	if shotFrame <= last {
		t.Errorf("the screenshot %s is not of a frame after p", filepath.Base(shot))
	}
	if d, err := imagecmp.CompareFiles(shot, filepath.Join(r.dir, "out", fmt.Sprintf("dest-%06d.png", last)), 2); err != nil || d.BadFraction() > 0.0002 {
		t.Errorf("the screenshot against the refined frame %d before it: %v %v", last, d, err)
	}
	d, err := imagecmp.CompareFiles(filepath.Join(r.dir, "out", fmt.Sprintf("dest-%06d.png", last)), filepath.Join(r.dir, "out", fmt.Sprintf("dest-%06d.png", first)), 2)
	if err != nil {
		t.Fatal(err)
	}
	// the model's outline and the creases of its bumps: a few percent
	if f := d.BadFraction(); f < 0.001 || f > 0.1 {
		t.Errorf("the last refined frame against the one it refines: %s; want its edges alone to differ", d)
	}
}

// A trace renders again: --camera-path with the trace of a session (a
// drag, then o, l and g) renders its frames headless, each the picture
// the session showed of it, as eqPly plays a camera animation: its
// projection, layout and view mode too.
func TestCameraPathReplaysATrace(t *testing.T) {
	config, err := filepath.Abs(filepath.Join("..", "configs", "two-layouts.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	r := startEqply(t, "--config", config)
	r.drag(t, 320, 180, 64, -36)
	r.waitForCamera(t, camera{Yaw: homeCamera.Yaw + math.Pi*0.1, Pitch: homeCamera.Pitch - math.Pi*0.1, Distance: homeCamera.Distance})
	for _, key := range []struct {
		name string
		done func(traceLine) bool
	}{
		{"o", func(l traceLine) bool { return l.Ortho }},
		{"l", func(l traceLine) bool { return l.Data != nil && slices.Equal(l.Data.Layouts, []int{1}) }},
		{"g", func(l traceLine) bool { return l.Data != nil && l.Data.Stereo }},
	} {
		xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
		xtest.Xdotool(t, r.disp, "key", key.name)
		waitFor(t, "a frame after "+key.name, 30*time.Second, func() bool {
			return slices.ContainsFunc(readTrace(t, r.trace), func(l traceLine) bool { return l.Frame != nil && key.done(l) })
		})
	}
	time.Sleep(500 * time.Millisecond) // the frame is written
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")

	var recorded []int
	for _, l := range readTrace(t, r.trace) {
		if l.Frame != nil && !l.Refined {
			recorded = append(recorded, *l.Frame)
		}
	}
	out := filepath.Join(r.dir, "replay")
	replay := exec.Command(r.bin, "--config", config, "--triangles", "20000", "--camera-path", r.trace, "--out", out)
	replay.Env = append(os.Environ(), "GOEQ_WINSYS=egl")
	if b, err := replay.CombinedOutput(); err != nil {
		t.Fatalf("replay: %v\n%s", err, b)
	}
	// a frame's images: one per view of the layout shown, by name
	imagesOf := func(dir string, frame int) map[string]string {
		files, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("dest.*-%06d.png", frame)))
		named := map[string]string{}
		for _, f := range files {
			named[strings.TrimSuffix(filepath.Base(f), fmt.Sprintf("-%06d.png", frame))] = f
		}
		return named
	}
	if len(recorded) < 5 {
		t.Fatalf("%d frames recorded (%v); want the first, the drag's, o's, l's and g's", len(recorded), recorded)
	}
	for i, f := range recorded {
		session, replayed := imagesOf(filepath.Join(r.dir, "out"), f), imagesOf(out, i)
		if len(session) == 0 || !slices.Equal(slices.Sorted(maps.Keys(session)), slices.Sorted(maps.Keys(replayed))) {
			t.Errorf("replayed frame %d shows %v; the session's frame %d showed %v", i, slices.Sorted(maps.Keys(replayed)), f, slices.Sorted(maps.Keys(session)))
			continue
		}
		for name, path := range session {
			if d := compareImages(t, replayed[name], path); d.BadFraction() > 0.0002 {
				t.Errorf("replayed frame %d against the session's frame %d, %s: %s", i, f, name, d)
			}
		}
	}
	// the halves in mono and in stereo differ: g changed the picture
	first := 0
	for first < len(recorded) && imagesOf(out, first)["dest.halves.left"] == "" {
		first++
	}
	if first == len(recorded) {
		t.Fatal("no replayed frame shows the halves")
	}
	if d := compareImages(t, imagesOf(out, first)["dest.halves.left"], imagesOf(out, len(recorded)-1)["dest.halves.left"]); d.BadFraction() <= 0.0002 {
		t.Error("the halves' first and last replayed frames are the same picture: the test cannot tell mono from stereo")
	}
}

// screenshot waits for the first screenshot eqply writes into
// screenshots/ and returns its path.
func (r *running) screenshot(t *testing.T, bound time.Duration) (shot string) {
	t.Helper()
	waitFor(t, "a screenshot", bound, func() bool {
		files, _ := filepath.Glob(filepath.Join(r.dir, "screenshots", "dest-*.png"))
		if w, _ := pngSize(firstOf(files)); w == 0 {
			return false
		}
		shot = files[0]
		return true
	})
	return shot
}

func readTraceText(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestClosingTheWindowQuits asks the window to close as a window manager
// does (a WM_DELETE_WINDOW client message): eqply takes the close event,
// ends, and takes every client with it.
func TestClosingTheWindowQuits(t *testing.T) {
	r := startEqply(t)
	var win uint32
	if _, err := fmt.Sscan(r.win, &win); err != nil {
		t.Fatalf("window id %q: %v", r.win, err)
	}
	if err := askToClose(r.disp, xproto.Window(win)); err != nil {
		t.Fatal(err)
	}
	r.endsCleanly(t, "closing the window")
	if !strings.Contains(readTraceText(r.trace), "window close") {
		t.Errorf("the handler saw no window close event")
	}
}

// A window that another X client destroys (xdotool windowclose, where no
// window manager asks it to close first) ends the run with an error that
// says so: the run went on as if the window showed, and eqply, idle once
// its picture was refined, waited for ever for events of a window gone.
func TestAWindowDestroyedFromOutsideEndsTheRun(t *testing.T) {
	r := startEqply(t)
	xtest.Xdotool(t, r.disp, "windowclose", r.win)
	r.endsWith(t, "destroying the window", 1)
	if log := readTraceText(r.log.Name()); !strings.Contains(log, `window \"dest\": another X client destroyed it`) {
		t.Errorf("the log does not say the window was destroyed:\n%s", log)
	}
}

// Ctrl-C in eqply's terminal (SIGINT) stops it as q does: the frames in
// flight finish, the summary is printed, no render client is left, and it
// exits 130. So does SIGHUP, as the terminal closes (it ended eqply at
// once, with no summary), and it exits 129.
func TestInterruptStopsAsQDoes(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			r := startEqply(t)
			r.process.Signal(c.sig)
			r.endsWith(t, c.sig.String(), c.code)
			if log := readTraceText(r.log.Name()); !strings.Contains(log, "images written") || !strings.Contains(log, "stopped by "+c.sig.String()) {
				t.Errorf("no summary, or no word of the signal:\n%s", log)
			}
		})
	}
}

// An interrupt while the nodes set up ends the start: eqply waited for
// the five-minute init timeout. The nodes here wait on a display that
// never answers (a hung X server: a socket that takes their connections
// and says nothing), for 10 s before they render offscreen.
func TestInterruptWhileTheNodesSetUpEndsTheStart(t *testing.T) {
	bin, dir := build(t), t.TempDir()
	// an X display reached over TCP: port 6000 + its number
	connected := make(chan net.Conn, 16)
	_, port, _ := net.SplitHostPort(nettest.Serve(t, func(c net.Conn) { connected <- c }))
	number, _ := strconv.Atoi(port)
	var out bytes.Buffer
	app := exec.Command(bin, "--frames", "1", "--triangles", "2000")
	app.Dir, app.Stdout, app.Stderr = dir, &out, &out
	app.Env = append(os.Environ(), fmt.Sprintf("DISPLAY=127.0.0.1:%d", number-6000))
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	select {
	case <-connected: // a render client waits for the display's answer
	case err := <-exited:
		t.Fatalf("eqply ended before a node set up: %v\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no node connected to the display:\n%s", out.String())
	}
	app.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(out.String(), "stopped by interrupt while the nodes set up") {
			t.Errorf("eqply ended with %v:\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		app.Process.Kill()
		<-exited
		t.Fatalf("an interrupt while the nodes set up did not end eqply:\n%s", out.String())
	}
	if out, _ := exec.Command("pgrep", "-f", bin).Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("render clients still run after eqply ended: pids %s", out)
	}
}

// askToClose sends window the WM_DELETE_WINDOW message of the ICCCM.
func askToClose(display string, window xproto.Window) error {
	xgb.Logger = log.New(io.Discard, "", 0) // it notes the missing ~/.Xauthority
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer x.Close()
	atom := func(name string) (xproto.Atom, error) {
		r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0, err
		}
		return r.Atom, nil
	}
	protocols, err := atom("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	del, err := atom("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	ev := xproto.ClientMessageEvent{Format: 32, Window: window, Type: protocols,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(del), uint32(xproto.TimeCurrentTime), 0, 0, 0})}
	return xproto.SendEventChecked(x, false, window, xproto.EventMaskNoEvent, string(ev.Bytes())).Check()
}

// Flag values eqply would otherwise run with silently (no frames, an
// empty model, an unknown camera path taken for none) are errors.
func TestBadFlagsAreRejected(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(trace, []byte(`{"frame":0,"data":{"Camera":{"Distance":2}}}`+"\n"+`{"frame":1,"data":{"Camera":{"Distance":1e300}}}`+"\n"), 0o644)
	layouts := func(name string, layout int) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(fmt.Sprintf(`{"frame":0,"data":{"Camera":{"Distance":2},"Layouts":[%d]}}`+"\n", layout)), 0o644)
		return path
	}
	ply := filepath.Join(dir, "nan.ply")
	os.WriteFile(ply, []byte("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"+
		"element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--frames", "-5"}, "--frames -5: want 0 (until quit) or more"},
		{[]string{"--triangles", "0"}, "--triangles 0: want 1 to 100000000"},
		{[]string{"--triangles", "300000000"}, "--triangles 300000000: want 1 to 100000000"},
		{[]string{"--frame-timeout", "-1s"}, "--frame-timeout -1s: want 0 (bounds that follow the frames' time) or more"},
		{[]string{"--relaunch", "-1"}, "--relaunch -1: want 0 (a lost node stays out) or more"},
		{[]string{"--camera-path", "spiral"}, `--camera-path "spiral": want orbit, a trace (eqply --trace) or an eqPly camera path: open spiral: no such file`},
		// numbers that would hide the model behind NaNs
		{[]string{"--camera", "nan,0,2"}, `--camera "nan,0,2": want YAW,PITCH,DISTANCE, numbers within float32's range`},
		{[]string{"--camera-path", trace}, "line 2: camera {Yaw:0 Pitch:0 Distance:1e+300 Pan:[0 0] Look:[0 0]}: 1e+300 is NaN or past float32's range"},
		{[]string{"--camera-path", layouts("layout-2.jsonl", -2)}, "line 1: canvas 0's layout -2: want an index, 0 or more, or -1 (OFF)"},
		// the default config has one layout, "2D"
		{[]string{"--camera-path", layouts("layout5.jsonl", 5), "--triangles", "2000"}, `frame 0: goeq: no layout 5: the config has "2D"`},
		{[]string{"--model", ply, "--frames", "1"}, ": " + ply + ": ply: vertex 1's y NaN is not a finite float32"},
		// an argument that is no flag: flag stops there, and --frames 1
		// went unread, the procedural model rendering 100 frames
		{[]string{ply, "--frames", "1"}, `"` + ply + `": eqply takes flags alone (a model is --model FILE`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, bin, c.args...).CombinedOutput()
		cancel()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v, output %q; want exit 1 and %q", c.args, err, out, c.want)
		}
	}
}

// A cluster config (Equalizer's 4-node.DB.bs.eqc: its nodes on hosts
// node1 to node4) runs on this machine with --local, every node a process
// here, and its frames (each node a range of the model's triangles, merged
// by binary swap) are --reference's, the whole model drawn by the
// destination alone; without --local, eqply says that the config's hosts
// are out of reach and names --local.
func TestClusterConfigRunsHereWithLocal(t *testing.T) {
	bin := build(t)
	cfg := filepath.Join("..", "..", "..", "shared", "eqc-corpus", "4-node.DB.bs.eqc")
	out := t.TempDir()
	run := func(args ...string) (string, error) {
		return runHeadless(bin, append([]string{"--config", cfg, "--frames", "3", "--triangles", "20000"}, args...)...)
	}
	if text, err := run("--local", "--out", out); err != nil {
		t.Fatalf("--local: %v\n%s", err, text)
	}
	ref := t.TempDir()
	if text, err := run("--local", "--reference", "--out", ref); err != nil {
		t.Fatalf("--local --reference: %v\n%s", err, text)
	}
	matchesReference(t, out, ref, 3)
	text, err := run()
	if err == nil || !strings.Contains(text, "--local") {
		t.Errorf("without --local: %v, output %q; want an error that names --local", err, text)
	}
}

// A cluster config run with --local --relaunch 1, one render client
// killed mid-run (SIGKILL, as a crash): the node is started again and
// rejoins, the summary names it lost and rejoined, no frame is degraded,
// and every frame is --reference's.
func TestRelaunchStartsAKilledNodeAgain(t *testing.T) {
	bin := build(t)
	cfg := filepath.Join("..", "..", "..", "shared", "eqc-corpus", "4-node.DB.bs.eqc")
	const frames = 100
	args := []string{"--config", cfg, "--local", "--frames", strconv.Itoa(frames), "--triangles", "20000"}
	out, ref := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--relaunch", "1", "--json", "--out", out)...)
	cmd.Env = append(os.Environ(), "DISPLAY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for wait := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if written, _ := filepath.Glob(filepath.Join(out, "*.png")); len(written) >= 10 {
			break
		}
		if time.Now().After(wait) {
			t.Fatalf("no 10 frames written in a minute:\n%s", stderr.String())
		}
	}
	pid := clientOf(t, bin, "node2")
	syscall.Kill(pid, syscall.SIGKILL)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var sum goeq.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("the summary: %v\n%s", err, stdout.String())
	}
	if lost, rejoined := strings.Join(sum.LostNodes, " "), strings.Join(sum.RejoinedNodes, " "); lost != "node2" || rejoined != "node2" || sum.Degraded != 0 || sum.Frames != frames {
		t.Errorf("lost %q, rejoined %q, %d frames, degraded %v; want node2 lost and rejoined, %d frames, none degraded\n%s", lost, rejoined, sum.Frames, sum.DegradedFrames, frames, stderr.String())
	}
	if text, err := runHeadless(bin, append(args, "--reference", "--out", ref)...); err != nil {
		t.Fatalf("--reference: %v\n%s", err, text)
	}
	matchesReference(t, out, ref, frames)
}

// matchesReference checks that out has frames images, each as ref's of
// the same name.
func matchesReference(t *testing.T, out, ref string, frames int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*.png"))
	if len(files) != frames {
		t.Errorf("%d images written, want %d: %v", len(files), frames, files)
	}
	for _, f := range files {
		d, err := imagecmp.CompareFiles(f, filepath.Join(ref, filepath.Base(f)), 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("%s against --reference: %s", filepath.Base(f), d)
		}
	}
}

// clientOf is the pid of bin's render client for node.
func clientOf(t *testing.T, bin, node string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		args := strings.Split(string(b), "\x00")
		if err != nil || args[0] != bin || !slices.Contains(args, "--goeq-client") {
			continue
		}
		if i := slices.Index(args, "--node"); i >= 0 && i+1 < len(args) && args[i+1] == node {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	t.Fatalf("no render client of %s for node %s", bin, node)
	return 0
}

// A trace that cannot be written (here a file size limit, as a full disk)
// ends the run with an error naming it, where it used to stop part way
// without a word and replay later as a shorter one.
func TestATraceThatCannotBeWrittenEndsTheRun(t *testing.T) {
	bin := build(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "prlimit", "--fsize=3000", bin, "--frames", "50", "--triangles", "20000", "--trace", trace)
	cmd.Env = append(os.Environ(), "DISPLAY=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "--trace "+trace+": write "+trace+": file too large") {
		t.Errorf("%v, output:\n%s\nwant exit 1 and an error naming the trace", err, out)
	}
}

// Any model fills the home view, whatever its units, place and shape, as
// eqPly fits every model it loads: the same mesh written in millimetres
// far from the origin renders as it does about the origin in metres
// (before, it lay off screen and the frame was empty), and a box shows
// whole. A model
// with vertex colours shows them: the same mesh with its upper half blue
// and its lower half green renders blue above and green below, where the
// model without colours is goeq's orange throughout.
func TestAnyModelFillsTheViewInItsColours(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	base := render.Bumpy(40, 80)
	write := func(name string, m *render.Model) string { return writePLY(t, filepath.Join(dir, name+".ply"), m) }
	far := &render.Model{Vertices: slices.Clone(base.Vertices), Triangles: base.Triangles}
	for v := 0; v < len(far.Vertices); v += 6 {
		far.Vertices[v] = far.Vertices[v]*400 + 12000
		far.Vertices[v+1] = far.Vertices[v+1]*400 - 3000
		far.Vertices[v+2] = far.Vertices[v+2]*400 + 700
	}
	colored := &render.Model{Vertices: base.Vertices, Triangles: base.Triangles}
	for v := 0; v < len(base.Vertices); v += 6 {
		if base.Vertices[v+1] > 0 {
			colored.Colors = append(colored.Colors, 30, 60, 255)
		} else {
			colored.Colors = append(colored.Colors, 30, 255, 60)
		}
	}
	render1 := func(model string, args ...string) *image.NRGBA {
		t.Helper()
		out := filepath.Join(dir, "out-"+filepath.Base(model)+strings.Join(args, ""))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--model", model, "--frames", "1", "--out", out}, args...)...)
		cmd.Env = append(os.Environ(), "DISPLAY=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", model, err, b)
		}
		img, err := imagecmp.Load(filepath.Join(out, "dest-000000.png"))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	// a cube of side 20 (with one normal per vertex, as WritePLY
	// writes): its corners lie farther out than a sphere's surface
	box := cube(20)
	coloredPath := write("colored", colored)
	plain, inMillimetres, inColour := render1(write("plain", base)), render1(write("far", far)), render1(coloredPath)
	// the whole box is in the frame: none of its pixels on the frame's edge
	// (fitted by its longest side, as at first, its corners reached past it)
	boxed := render1(write("box", box))
	bg := boxed.NRGBAAt(0, 0)
	edge := 0
	for y := 0; y < boxed.Rect.Dy(); y++ {
		for x := 0; x < boxed.Rect.Dx(); x++ {
			if x > 0 && y > 0 && x < boxed.Rect.Dx()-1 && y < boxed.Rect.Dy()-1 {
				continue
			}
			if c := boxed.NRGBAAt(x, y); max(absDiff(c.R, bg.R), absDiff(c.G, bg.G), absDiff(c.B, bg.B)) > 8 {
				edge++
			}
		}
	}
	if edge > 0 {
		t.Errorf("the box reaches the frame's edge in %d pixels; want it whole inside", edge)
	}
	// the model's pixels, by their distance from the corner's background,
	// and which of them are mostly blue, green or red
	type shares struct{ model, blueAbove, greenBelow, redAbove float64 }
	measure := func(img *image.NRGBA) shares {
		b := img.Bounds()
		bg := img.NRGBAAt(b.Min.X, b.Min.Y)
		var s shares
		var above, below float64
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := img.NRGBAAt(x, y)
				if max(absDiff(c.R, bg.R), absDiff(c.G, bg.G), absDiff(c.B, bg.B)) <= 8 {
					continue
				}
				s.model++
				if y < b.Min.Y+b.Dy()/3 { // the top third: the model's upper half
					above++
					if c.B > c.G && c.B > c.R {
						s.blueAbove++
					}
					if c.R > c.B && c.R > c.G {
						s.redAbove++
					}
				} else if y >= b.Max.Y-b.Dy()/5 { // the bottom fifth: its lower half (the camera looks down on it)
					below++
					if c.G > c.B && c.G > c.R {
						s.greenBelow++
					}
				}
			}
		}
		s.model /= float64(b.Dx() * b.Dy())
		s.blueAbove, s.redAbove, s.greenBelow = s.blueAbove/max(above, 1), s.redAbove/max(above, 1), s.greenBelow/max(below, 1)
		return s
	}
	p := measure(plain)
	if p.model < 0.1 || p.redAbove < 0.9 {
		t.Fatalf("the plain model covers %.3f of the frame, %.3f of its upper pixels mostly red; want at least 0.1 and 0.9", p.model, p.redAbove)
	}
	d, err := imagecmp.Compare(inMillimetres, plain, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > 0.001 {
		t.Errorf("the model in millimetres far from the origin differs from it at the origin in %.4f of the pixels (covers %.3f against %.3f); want the same picture", d.BadFraction(), measure(inMillimetres).model, p.model)
	}
	c := measure(inColour)
	if c.blueAbove < 0.9 || c.greenBelow < 0.9 || math.Abs(c.model-p.model) > 0.002 {
		t.Errorf("the coloured model: %.3f of its upper pixels blue, %.3f of its lower green, covering %.3f (plain %.3f); want at least 0.9, 0.9 and the same cover", c.blueAbove, c.greenBelow, c.model, p.model)
	}
	// eqPly's -b draws it in the mesh's colour, as the plain one
	d, err = imagecmp.Compare(render1(coloredPath, "-b"), plain, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > 0.001 {
		t.Errorf("the coloured model with -b differs from the plain one in %.4f of the pixels; want the same picture", d.BadFraction())
	}
}

func absDiff(a, b uint8) uint8 { return max(a, b) - min(a, b) }

// Several models go to the views in turn, as eqPly gives its models out:
// on two-layouts.eqc's "halves" (views 1 and 2 of the config), the left
// view shows the second model and the right one the first, each as a run
// of that model alone shows it. A folder of the models is the same as
// naming them, and eqPly's -m is --model. A model may be gzipped, there
// and named (a.ply.gz), or a Wavefront OBJ file (the folder's box). A
// named pipe, a folder with no model in it,
// or a model that is not there, is refused before the run.
func TestModelsGoToTheViewsInTurn(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	folder := filepath.Join(dir, "models")
	if err := os.MkdirAll(filepath.Join(folder, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	bumpy := writePLY(t, filepath.Join(folder, "a.ply.gz"), render.Bumpy(30, 60))
	boxed := writePLY(t, filepath.Join(t.TempDir(), "b.PLY"), cube(1))
	writeOBJ(t, filepath.Join(folder, "more", "b.OBJ"), cube(1)) // the folder's: the box as an OBJ file
	if err := os.WriteFile(filepath.Join(folder, "README"), []byte("not a model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a named pipe is no model of the folder's: reading it waited for a
	// writer until the init timeout
	if err := syscall.Mkfifo(filepath.Join(folder, "more", "pipe.ply"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join("..", "configs", "two-layouts.eqc")
	run := func(args ...string) (string, error) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--config", config, "--layout", "halves", "--frames", "1", "--out", out}, args...)...)
		cmd.Env = append(os.Environ(), "DISPLAY=")
		b, err := cmd.CombinedOutput()
		if err != nil {
			return string(b), err
		}
		return out, nil
	}
	image := func(out, view string) string { return filepath.Join(out, "dest.halves."+view+"-000000.png") }
	same := func(a, b string) bool { return samePicture(t, a, b) }
	outs := map[string]string{}
	for name, args := range map[string][]string{
		"both": {"--model", bumpy, "-m", boxed}, "folder": {"--model", folder},
		"bumpy": {"--model", bumpy}, "box": {"--model", boxed},
	} {
		out, err := run(args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		outs[name] = out
	}
	if same(image(outs["bumpy"], "left"), image(outs["box"], "left")) {
		t.Fatal("the two models look the same: the test would prove nothing")
	}
	for _, run := range []string{"both", "folder"} {
		if !same(image(outs[run], "left"), image(outs["box"], "left")) {
			t.Errorf("%s: the left view (the config's second) does not show the second model", run)
		}
		if !same(image(outs[run], "right"), image(outs["bumpy"], "right")) {
			t.Errorf("%s: the right view (the config's third) does not show the first model", run)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arg, want string
	}{
		{empty, "--model " + empty + ": no model (*.ply, *.ply.gz, *.stl, *.obj, *.vtp, *.pvtp, *.vtk, *.gltf, *.glb) in it"},
		{filepath.Join(dir, "none.ply"), "--model: stat " + filepath.Join(dir, "none.ply") + ": no such file or directory"},
		// every node waited on it for a writer until the init timeout
		{filepath.Join(folder, "more", "pipe.ply"), "--model " + filepath.Join(folder, "more", "pipe.ply") + ": a named pipe, not a file"},
	} {
		if text, err := run("--model", c.arg); err == nil || !strings.Contains(text, c.want) {
			t.Errorf("--model %s: %v; want an error saying %q:\n%s", c.arg, err, c.want, text)
		}
	}
}

// m shows the next model in the view the pointer is in, and pointed at
// no view, steps every view that shows its own first on; with one model
// it changes nothing.
func TestMShowsTheNextModel(t *testing.T) {
	press := func(c *controls, view int) bool {
		if view >= 0 {
			c.handle(goeq.Event{Kind: goeq.PointerMotion, Channel: "dest", ViewIndex: view})
		}
		return c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'm'})
	}
	c := &controls{view: -1, models: 3}
	shows := func() []int {
		f := c.frame()
		return []int{f.modelOf(-1, 3), f.modelOf(0, 3), f.modelOf(1, 3), f.modelOf(2, 3)}
	}
	if got := shows(); !slices.Equal(got, []int{0, 0, 1, 2}) {
		t.Fatalf("at first (no view, views 0-2) the models shown are %v; want [0 0 1 2]", got)
	}
	if !press(c, 1) || !slices.Equal(shows(), []int{0, 0, 2, 2}) {
		t.Errorf("m in view 1: %v; want [0 0 2 2]", shows())
	}
	press(c, 1)
	if !slices.Equal(shows(), []int{0, 0, 0, 2}) {
		t.Errorf("m in view 1 again: %v; want [0 0 0 2], round the models", shows())
	}
	c.view = -1
	if !press(c, -1) || !slices.Equal(shows(), []int{1, 1, 0, 0}) {
		t.Errorf("m in no view: %v; want [1 1 0 0], view 1 keeping its own", shows())
	}
	one := &controls{view: -1, models: 1}
	if press(one, 0) || one.frame().modelOf(0, 1) != 0 {
		t.Error("m with one model changed the picture")
	}
}

// writePLY writes m to path as a PLY file.
func writePLY(t *testing.T, path string, m *render.Model) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") { // compressed, as scan repositories hand models out
		zw = gzip.NewWriter(f)
		w = zw
	}
	if err := render.WritePLY(w, m); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeOBJ writes m as a Wavefront OBJ file: its vertices, their normals
// and its triangles of v//vn corners.
func writeOBJ(t *testing.T, path string, m *render.Model) {
	t.Helper()
	var b strings.Builder
	for v := 0; v < len(m.Vertices); v += 6 {
		fmt.Fprintf(&b, "v %g %g %g\nvn %g %g %g\n", m.Vertices[v], m.Vertices[v+1], m.Vertices[v+2], m.Vertices[v+3], m.Vertices[v+4], m.Vertices[v+5])
	}
	for i := 0; i < len(m.Triangles); i += 3 {
		a, c, d := m.Triangles[i]+1, m.Triangles[i+1]+1, m.Triangles[i+2]+1
		fmt.Fprintf(&b, "f %d//%d %d//%d %d//%d\n", a, a, c, c, d, d)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cube is a cube of the side given at the origin's corner, one normal
// a vertex.
func cube(side float32) *render.Model {
	box := &render.Model{Triangles: []uint32{0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3}}
	for i := range 8 {
		box.Vertices = append(box.Vertices, side*float32(i>>2&1), side*float32(i>>1&1), side*float32(i&1), 0, 1, 0)
	}
	return box
}

// eqPly's other options do here what they do in eqPly, so that an eqPly
// script runs: -s draws a model in its own units and place (a model
// already fitted looks the same, one half its size looks smaller), -i
// turns faces that wind inwards out again, -p keeps the camera still
// (headless, it orbits), -z puts the eye at the origin, --immersive is
// -z -s -p, -d changes no picture, and those goeq has no use for (-r, -w,
// -c, -g, -o, -i) are taken with a word on why. eqPly's long names work
// too. (-i turns faces that wind inwards out again in eqPly; goeq lights
// both sides of a face, and shows such a model as it shows it turned.)
func TestEqPlysOtherOptionsDoWhatTheyDoThere(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	fitted := render.Bumpy(30, 60)
	fitted.Normalize(render.ViewRadius)
	half := &render.Model{Vertices: slices.Clone(fitted.Vertices), Triangles: fitted.Triangles}
	for v := 0; v < len(half.Vertices); v += 6 {
		half.Vertices[v], half.Vertices[v+1], half.Vertices[v+2] = half.Vertices[v]/2, half.Vertices[v+1]/2, half.Vertices[v+2]/2
	}
	inward := &render.Model{Vertices: slices.Clone(fitted.Vertices), Triangles: slices.Clone(fitted.Triangles)}
	for t := 0; t < len(inward.Triangles); t += 3 {
		inward.Triangles[t+1], inward.Triangles[t+2] = inward.Triangles[t+2], inward.Triangles[t+1]
	}
	for v := 0; v < len(inward.Vertices); v += 6 {
		inward.Vertices[v+3], inward.Vertices[v+4], inward.Vertices[v+5] = -inward.Vertices[v+3], -inward.Vertices[v+4], -inward.Vertices[v+5]
	}
	fittedPath := writePLY(t, filepath.Join(dir, "fitted.ply"), fitted)
	halfPath := writePLY(t, filepath.Join(dir, "half.ply"), half)
	inwardPath := writePLY(t, filepath.Join(dir, "inward.ply"), inward)
	config := filepath.Join("..", "configs", "one-window.eqc")
	run := func(frames int, args ...string) (images []string, log string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		text, err := runHeadless(bin, append([]string{"--config", config, "--frames", fmt.Sprint(frames), "--out", out}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, text)
		}
		images, _ = filepath.Glob(filepath.Join(out, "*.png"))
		if len(images) != frames {
			t.Fatalf("%v wrote %d images, want %d", args, len(images), frames)
		}
		return images, text
	}
	same := func(a, b string) bool { return samePicture(t, a, b) }
	first := func(args ...string) string { images, _ := run(1, args...); return images[0] }
	plain := first("-m", fittedPath)
	if !same(first("-m", fittedPath, "-s"), plain) {
		t.Error("-s: a model already fitted into the home view looks different in its own units")
	}
	if same(first("-m", halfPath, "-s"), first("-m", halfPath)) {
		t.Error("-s: a model of half the fitted size looks the same as fitted")
	}
	if !same(first("-m", inwardPath), plain) {
		t.Error("the model with its faces turned inwards looks different")
	}
	orbit, _ := run(3, "-m", fittedPath)
	still, _ := run(3, "-m", fittedPath, "-p", "-d")
	if same(orbit[1], orbit[0]) || !same(still[0], plain) || !same(still[1], still[0]) || !same(still[2], still[0]) {
		t.Error("-p: want the camera still (each frame the first's, the plain run's), where it orbits without")
	}
	centred := first("-m", fittedPath, "-z")
	if same(centred, plain) || !same(centred, first("-m", fittedPath, "--camera", fmt.Sprintf("%g,%g,0", homeCamera.Yaw, homeCamera.Pitch))) {
		t.Error("-z: want the home camera at distance 0")
	}
	// in parallel, as large as the nearest zoom shows it (it was scaled by
	// 1/0, and not drawn at all)
	if !same(first("-m", fittedPath, "-z", "--ortho"), first("-m", fittedPath, "--ortho", "--camera", fmt.Sprintf("%g,%g,%.17g", homeCamera.Yaw, homeCamera.Pitch, nearDistance))) {
		t.Error("-z --ortho: want the model as the nearest zoom shows it")
	}
	immersive, text := run(2, "-m", halfPath, "--immersive", "-r", "-w", "GLX", "--renderMode", "VBO", "-g", "-o", "--invertFaces", "--numFrames", "2")
	for _, name := range []string{"r", "w", "c", "g", "o", "i"} {
		if !strings.Contains(text, "eqPly's -"+name+" changes nothing here") {
			t.Errorf("-%s: not said to change nothing\n%s", name, text)
		}
	}
	want, _ := run(2, "-m", halfPath, "-z", "-s", "-p")
	if !same(immersive[0], want[0]) || !same(immersive[1], want[1]) {
		t.Error("--immersive (and the options taken) differs from -z -s -p")
	}
}

// The buttons drag as eqPly's do: the left turns the model, the middle
// zooms, the right pans, and the left pressed with shift zooms; the wheel
// zooms, and pans turned sideways. goeq's eqply had the right zoom and the
// middle pan, the other way round, and no sideways wheel.
func TestButtonsDragAsEqPlysDo(t *testing.T) {
	for _, c := range []struct {
		button int
		mods   goeq.Modifiers
		what   string
		moved  func(before, after camera) bool
	}{
		{goeq.ButtonLeft, 0, "turns", func(b, a camera) bool { return a.Yaw != b.Yaw && a.Distance == b.Distance && a.Pan == b.Pan }},
		{goeq.ButtonMiddle, 0, "zooms", func(b, a camera) bool { return a.Distance < b.Distance && a.Yaw == b.Yaw && a.Pan == b.Pan }},
		{goeq.ButtonRight, 0, "pans", func(b, a camera) bool { return a.Pan != b.Pan && a.Distance == b.Distance && a.Yaw == b.Yaw }},
		{goeq.ButtonLeft, goeq.ModShift, "zooms", func(b, a camera) bool { return a.Distance < b.Distance && a.Yaw == b.Yaw && a.Pan == b.Pan }},
	} {
		ctl := &controls{cam: homeCamera, view: -1}
		ctl.handle(goeq.Event{Kind: goeq.ButtonPress, Button: c.button, Modifiers: c.mods, X: 0.5, Y: 0.5, Channel: "dest"})
		ctl.handle(goeq.Event{Kind: goeq.PointerMotion, Modifiers: c.mods, X: 0.6, Y: 0.6, Channel: "dest"})
		if after := *ctl.camera(); !c.moved(homeCamera, after) {
			t.Errorf("button %d with modifiers %b: camera %+v from %+v; want a drag that %s alone", c.button, c.mods, after, homeCamera, c.what)
		}
	}
	ctl := &controls{cam: homeCamera, view: -1}
	if !ctl.handle(goeq.Event{Kind: goeq.Wheel, DY: 1, Channel: "dest"}) || ctl.camera().Distance >= homeCamera.Distance || ctl.camera().Pan != homeCamera.Pan {
		t.Errorf("the wheel turned up: camera %+v; want it closer, not panned", *ctl.camera())
	}
	ctl = &controls{cam: homeCamera, view: -1}
	if !ctl.handle(goeq.Event{Kind: goeq.Wheel, DX: 1, Channel: "dest"}) || ctl.camera().Distance != homeCamera.Distance || ctl.camera().Pan == homeCamera.Pan {
		t.Errorf("the wheel turned sideways: camera %+v; want it panned, as far", *ctl.camera())
	}
}

// eqPly's n switches pilot mode: a left drag turns the camera about the
// eye (the model's centre keeps its distance and moves across the view),
// and zooms, pans and the wheel fly the camera along where it looks, at a
// pace that does not slow near the model, and through it; n again turns
// the model, and space puts the camera back.
func TestNFliesTheCameraAsEqPlysPilotMode(t *testing.T) {
	centre := func(c camera) [3]float64 { // the model's centre, seen from the eye
		m := c.matrix()
		return [3]float64{float64(m[12]), float64(m[13]), float64(m[14])}
	}
	near := func(a, b [3]float64) bool {
		return math.Abs(a[0]-b[0]) < 1e-5 && math.Abs(a[1]-b[1]) < 1e-5 && math.Abs(a[2]-b[2]) < 1e-5
	}
	c := &controls{cam: homeCamera, view: -1}
	drag := func(button int, mods goeq.Modifiers, dx, dy float64) {
		c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: button, Modifiers: mods, X: 0.5, Y: 0.5, Channel: "dest"})
		c.handle(goeq.Event{Kind: goeq.PointerMotion, Modifiers: mods, X: 0.5 + dx, Y: 0.5 + dy, Channel: "dest"})
		c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: button, Modifiers: mods, X: 0.5 + dx, Y: 0.5 + dy, Channel: "dest"})
		c.coast = momentum{}
	}
	c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'n'})
	if !c.pilot {
		t.Fatal("n did not switch pilot mode on")
	}
	before := centre(*c.camera())
	drag(goeq.ButtonLeft, 0, 0.1, 0.05)
	after := centre(*c.camera())
	if cam := *c.camera(); cam.Yaw != homeCamera.Yaw || cam.Pitch != homeCamera.Pitch {
		t.Errorf("a left drag in pilot mode turned the model: %+v", cam)
	}
	if d0, d1 := math.Hypot(math.Hypot(before[0], before[1]), before[2]), math.Hypot(math.Hypot(after[0], after[1]), after[2]); math.Abs(d0-d1) > 1e-5 || near(before, after) {
		t.Errorf("a left drag in pilot mode moved the model's centre from %v to %v; want it turned about the eye", before, after)
	}
	for _, m := range []struct {
		what  string
		move  func()
		delta [3]float64 // of the centre, from the eye: along the camera's own axes
	}{
		{"a middle drag", func() { drag(goeq.ButtonMiddle, 0, 0, 0.1) }, [3]float64{0, 0, 0.2 * homeCamera.Distance}},
		{"a shifted left drag", func() { drag(goeq.ButtonLeft, goeq.ModShift, 0, -0.1) }, [3]float64{0, 0, -0.2 * homeCamera.Distance}},
		{"a right drag", func() { drag(goeq.ButtonRight, 0, 0.1, 0.2) }, [3]float64{0.1 * homeCamera.Distance, 0.2 * homeCamera.Distance, 0}},
		{"the wheel", func() { c.handle(goeq.Event{Kind: goeq.Wheel, DY: 1, DX: 1, Channel: "dest"}) }, [3]float64{-0.05 * homeCamera.Distance, 0, 0.1 * homeCamera.Distance}},
		// at the same pace from the model's centre, and past it
		{"twelve middle drags", func() {
			for range 12 {
				drag(goeq.ButtonMiddle, 0, 0, 0.1)
			}
		}, [3]float64{0, 0, 2.4 * homeCamera.Distance}},
	} {
		was := centre(*c.camera())
		m.move()
		now := centre(*c.camera())
		if want := [3]float64{was[0] + m.delta[0], was[1] + m.delta[1], was[2] + m.delta[2]}; !near(now, want) {
			t.Errorf("%s in pilot mode moved the centre from %v to %v, want %v", m.what, was, now, want)
		}
	}
	if centre(*c.camera())[2] <= 0 {
		t.Errorf("the flight did not take the camera past the model's centre: %v", centre(*c.camera()))
	}
	c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'n'})
	look := c.camera().Look
	drag(goeq.ButtonLeft, 0, 0.1, 0)
	if cam := *c.camera(); c.pilot || cam.Yaw == homeCamera.Yaw || cam.Look != look {
		t.Errorf("a left drag after n again: camera %+v (pilot %v); want the model turned", cam, c.pilot)
	}
	c.handle(goeq.Event{Kind: goeq.KeyPress, Key: ' '})
	if *c.camera() != homeCamera {
		t.Errorf("space: camera %+v, want the home camera", *c.camera())
	}
}

// eqPly's keys that change nothing here say so, as its options that
// change nothing do, and leave the picture as it is.
func TestEqPlysKeysThatChangeNothingSaySo(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	c := &controls{cam: homeCamera, view: -1}
	changed := false
	for _, key := range "ruaxk" {
		changed = c.handle(goeq.Event{Kind: goeq.KeyPress, Key: goeq.Key(key)}) || changed
	}
	os.Stderr = stderr
	w.Close()
	said, _ := io.ReadAll(r)
	if changed || *c.camera() != homeCamera {
		t.Errorf("r, u, a, x or k changed the picture: camera %+v", *c.camera())
	}
	for _, key := range "ruaxk" {
		if want := fmt.Sprintf("eqPly's %c changes nothing here: %s\n", key, eqPlyKeysNotHere[key]); !strings.Contains(string(said), want) {
			t.Errorf("%c: said %q, want %q", key, said, want)
		}
	}
}

// A camera at the model's centre (eqPly's -z, or --camera Y,P,0) zooms and
// pans at the home camera's pace: by shares of its distance, nothing
// moved it; a zoom toward the model stops short of its centre.
func TestACameraAtTheModelsCentreZooms(t *testing.T) {
	for _, m := range []struct {
		what string
		ev   []goeq.Event
	}{
		{"a middle drag", []goeq.Event{{Kind: goeq.ButtonPress, Button: goeq.ButtonMiddle, X: 0.5, Y: 0.5, Channel: "dest"}, {Kind: goeq.PointerMotion, X: 0.5, Y: 0.4, Channel: "dest"}}},
		{"the wheel", []goeq.Event{{Kind: goeq.Wheel, DY: -1, Channel: "dest"}}},
		{"a right drag", []goeq.Event{{Kind: goeq.ButtonPress, Button: goeq.ButtonRight, X: 0.5, Y: 0.5, Channel: "dest"}, {Kind: goeq.PointerMotion, X: 0.7, Y: 0.5, Channel: "dest"}}},
	} {
		c := &controls{cam: camera{}, view: -1}
		for _, ev := range m.ev {
			c.handle(ev)
		}
		if cam := *c.camera(); math.Hypot(math.Hypot(cam.Pan[0], cam.Pan[1]), cam.Distance) < 0.1*homeCamera.Distance {
			t.Errorf("%s moved a camera at the model's centre to %+v; want it a tenth of the home distance away at least", m.what, cam)
		}
	}
	c := &controls{cam: homeCamera, view: -1}
	for range 100 {
		c.handle(goeq.Event{Kind: goeq.Wheel, DY: 5, Channel: "dest"})
	}
	if d := c.camera().Distance; d != nearDistance {
		t.Errorf("zoomed in a hundred times: distance %v, want it stopped at %v", d, nearDistance)
	}
}

// eqPly's head tracking emulation keys move every observer's head as
// eqPly's do: the arrows across, Page Up and Down along the view, the
// punctuation keys turn it; space puts it back. Replayed from a trace,
// the moved head shows the wall from off axis: a decomposed run is its
// reference's picture, and not the picture from where the config puts
// the head.
func TestHeadKeysMoveTheObserversHead(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1}
	press := func(k goeq.Key) bool { return c.handle(goeq.Event{Kind: goeq.KeyPress, Key: k}) }
	for _, k := range []goeq.Key{goeq.KeyRight, goeq.KeyRight, goeq.KeyUp, goeq.KeyPageUp} {
		if !press(k) {
			t.Fatalf("key %v: not taken", k)
		}
	}
	if h := c.frame().Head; h == nil || math.Abs(float64(h[12])-0.2) > 1e-6 || math.Abs(float64(h[13])-0.1) > 1e-6 || math.Abs(float64(h[14])+0.1) > 1e-6 {
		t.Errorf("after right, right, up and page up the head is %v; want it at (0.2, 0.1, -0.1)", c.frame().Head)
	}
	press('.')
	if h := c.frame().Head; h == nil || h[5] == 1 {
		t.Errorf("'.' did not turn the head: %v", h)
	}
	if press('x') {
		t.Error("x, no head key, was taken")
	}
	press(' ')
	if c.frame().Head != nil {
		t.Errorf("space left the head at %v", c.frame().Head)
	}

	bin := build(t)
	dir := t.TempDir()
	trace := func(name string, head *goeq.Mat4) string {
		f := frameData{Camera: homeCamera, Head: head}
		return writeTrace(t, filepath.Join(dir, name), f, f)
	}
	moved := goeq.Translate(0.3, 0.1, 0)
	run := func(path string, args ...string) string {
		return lastImage(t, bin, append([]string{"--camera-path", path, "--triangles", "8000"}, args...)...)
	}
	compare := func(a, b string) imagecmp.Diff {
		d, err := imagecmp.CompareFiles(a, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	off := trace("moved.trace", &moved)
	got, want := run(off), run(off, "--reference")
	if d := compare(got, want); d.BadFraction() > 0.0002 {
		t.Errorf("the head moved: decomposed against the reference: %s", d)
	}
	if d := compare(got, run(trace("home.trace", nil))); d.BadFraction() < 0.01 {
		t.Errorf("the head moved looks as from where the config puts it: %s", d)
	}
}

// z and shift-z narrow and widen every observer's eye base as eqPly's z
// and Z do (by 0.2, each eye 0.1), from the config's; + and - move the
// focus by 0.1 from the config's, and 1, 2 and 3 set the focus mode.
// y and Y scale the model unit of the view pointed at, or of every view,
// by 0.1 and 10. Replayed from a trace on a stereo view, wider eyes part
// the anaglyph's pictures, a focus relative to the origin moves the wall,
// and a model unit of 10 draws what the config made ten times as large
// draws: each decomposed run is its reference's picture, and not that of
// the config's eyes, focus and unit.
func TestEqPlysEyeAndFocusKeys(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1, configEyeBase: 0.065, configFocus: 1.5, startUnits: []float64{1, 2}}
	press := func(k goeq.Key, mods goeq.Modifiers) {
		if !c.handle(goeq.Event{Kind: goeq.KeyPress, Key: k, Modifiers: mods}) {
			t.Errorf("key %q: not taken", rune(k))
		}
	}
	press('z', goeq.ModShift)
	if b := c.frame().EyeBase; math.Abs(b-0.265) > 1e-9 {
		t.Errorf("shift-z made the eye base %v; want 0.265", b)
	}
	press('z', 0)
	press('z', 0)
	if b := c.frame().EyeBase; b != minEyeBase {
		t.Errorf("Z, z, z made the eye base %v; want %v, the narrowest", b, minEyeBase)
	}
	press('=', goeq.ModShift)
	press('+', 0)
	press('-', 0)
	if d := c.frame().FocusDistance; math.Abs(d-1.6) > 1e-9 {
		t.Errorf("+, + and - made the focus distance %v; want 1.6", d)
	}
	for key, want := range map[goeq.Key]goeq.FocusMode{'1': goeq.FocusFixed, '2': goeq.FocusRelativeToOrigin, '3': goeq.FocusRelativeToObserver} {
		press(key, 0)
		if m := c.frame().FocusMode; m != want {
			t.Errorf("%c made the focus mode %d; want %d", rune(key), m, want)
		}
	}

	press('y', 0) // every view, pointed at none
	if u := c.frame().Units; len(u) != 2 || math.Abs(u[0]-0.1) > 1e-12 || math.Abs(u[1]-0.2) > 1e-12 {
		t.Errorf("y made the model units %v; want 0.1 and 0.2", u)
	}
	c.view = 1 // the view pointed at alone
	press('y', goeq.ModShift)
	press('Y', 0)
	if u := c.frame().Units; math.Abs(u[0]-0.1) > 1e-12 || math.Abs(u[1]-20) > 1e-9 {
		t.Errorf("shift-y and Y in view 1 made the model units %v; want 0.1 and 20", u)
	}
	c.units[1] = goeq.MaxModelUnit
	press('Y', 0)
	if u := c.frame().Units[1]; u != goeq.MaxModelUnit {
		t.Errorf("Y past the largest model unit made it %v", u)
	}

	dir := t.TempDir()
	// the config, and the config ten times as large: its eyes 0.5 apart
	// (Equalizer's eye base is 0.05) and its wall ten times as far
	stereo := func(name, observer string, scale float64) string {
		n := func(v float64) string { return fmt.Sprint(v * scale) }
		cfg := filepath.Join(dir, name)
		if err := os.WriteFile(cfg, []byte(`server { config {
    appNode { pipe { window { viewport [ 0 0 320 200 ] channel { name "dest" } } }
        pipe { window { viewport [ 0 0 320 200 ] attributes { hint_drawable FBO } channel { name "src" } } } }
    observer { `+observer+` } layout { view { mode STEREO observer 0 } }
    canvas { layout 0 wall { bottom_left [ `+n(-.32)+` `+n(-.2)+` `+n(-.75)+` ] bottom_right [ `+n(.32)+` `+n(-.2)+` `+n(-.75)+` ] top_left [ `+n(-.32)+` `+n(.2)+` `+n(-.75)+` ] } segment { channel "dest" } }
    compound { channel ( canvas 0 segment 0 layout 0 view 0 )
        compound { viewport [ 0 0 .5 1 ] }
        compound { channel "src" viewport [ .5 0 .5 1 ] outputframe { name "f" } }
        inputframe { name "f" } } } }`), 0o644); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := stereo("stereo.eqc", "", 1)
	bin := build(t)
	run := func(path string, args ...string) string {
		return lastImage(t, bin, append([]string{"--config", cfg, "--camera-path", path, "--triangles", "8000"}, args...)...)
	}
	trace := func(name string, f frameData) string {
		f.Camera = homeCamera
		return writeTrace(t, filepath.Join(dir, name), f, f)
	}
	config := run(trace("config.trace", frameData{}))
	for _, tc := range []struct {
		name string
		f    frameData
	}{
		{"the eyes apart", frameData{EyeBase: 0.45}},
		{"the focus relative to the origin", frameData{FocusDistance: 3, FocusMode: goeq.FocusRelativeToOrigin}},
		{"a model unit of 10", frameData{Units: map[int]float64{0: 10}}},
	} {
		path := trace(strings.ReplaceAll(tc.name, " ", "-")+".trace", tc.f)
		got := run(path)
		if d := compareImages(t, got, run(path, "--reference")); d.BadFraction() > 0.0002 {
			t.Errorf("%s: decomposed against the reference: %s", tc.name, d)
		}
		if d := compareImages(t, got, config); d.BadFraction() < 0.01 {
			t.Errorf("%s looks as the config's: %s", tc.name, d)
		}
		if tc.f.Units != nil {
			larger := stereo("larger.eqc", "eye_left [ -0.25 0 0 ] eye_right [ 0.25 0 0 ]", 10)
			want := lastImage(t, bin, "--config", larger, "--camera-path", trace("larger.trace", frameData{}), "--triangles", "8000")
			if d := compareImages(t, got, want); d.BadFraction() > 0.0002 {
				t.Errorf("%s against the config ten times as large: %s", tc.name, d)
			}
		}
	}
}

// compareImages compares two images within 2 per colour channel.
func compareImages(t *testing.T, a, b string) imagecmp.Diff {
	t.Helper()
	d, err := imagecmp.CompareFiles(a, b, 2)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// samePicture reports whether two images are alike within 2 in every
// pixel.
func samePicture(t *testing.T, a, b string) bool {
	t.Helper()
	d, err := imagecmp.CompareFiles(a, b, 2)
	if err != nil {
		t.Fatal(err)
	}
	return d.BadFraction() == 0
}

// d switches the models' colours as eqPly's d does: their own, each
// channel's (on a decomposition, each source's part in a colour of its
// own: the four sources of the default config show four hues), the
// mesh's (as -b). A trace replays them; one with a mode no d gives is
// refused.
func TestDSwitchesTheColours(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1}
	var modes []colorMode
	for range 3 {
		c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'd'})
		modes = append(modes, c.frame().Colors)
	}
	if !slices.Equal(modes, []colorMode{demoColors, plainColors, ownColors}) {
		t.Fatalf("d three times: %v; want demo, plain, own", modes)
	}
	bin := build(t)
	dir := t.TempDir()
	model := writePLY(t, filepath.Join(dir, "colored.ply"), func() *render.Model {
		m := render.Bumpy(30, 60)
		for v := 0; v < len(m.Vertices); v += 6 {
			m.Colors = append(m.Colors, 30, 60, 255)
		}
		return m
	}())
	trace := func(mode colorMode) string {
		return writeTrace(t, filepath.Join(dir, fmt.Sprintf("mode%d.trace", mode)), frameData{Camera: homeCamera, Colors: mode})
	}
	run := func(args ...string) string { return lastImage(t, bin, append([]string{"-m", model}, args...)...) }
	// hues counts the model's pixels by hue, in twelve buckets, as shares
	hues := func(path string) []float64 {
		img, err := imagecmp.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		bg := img.NRGBAAt(0, 0)
		buckets, n := make([]float64, 12), 0.0
		for y := 0; y < img.Rect.Dy(); y++ {
			for x := 0; x < img.Rect.Dx(); x++ {
				p := img.NRGBAAt(x, y)
				if max(absDiff(p.R, bg.R), absDiff(p.G, bg.G), absDiff(p.B, bg.B)) <= 8 {
					continue
				}
				r, g, b := float64(p.R), float64(p.G), float64(p.B)
				hue := math.Atan2(math.Sqrt(3)*(g-b), 2*r-g-b) // radians, -pi to pi
				buckets[int((hue+math.Pi)/(2*math.Pi)*12)%12]++
				n++
			}
		}
		for i := range buckets {
			buckets[i] /= max(n, 1)
		}
		return buckets
	}
	many := func(shares []float64) (k int) {
		for _, s := range shares {
			if s >= 0.03 {
				k++
			}
		}
		return k
	}
	own, demo, plain := run("--camera-path", trace(ownColors)), run("--camera-path", trace(demoColors)), run("--camera-path", trace(plainColors))
	if k := many(hues(own)); k != 1 {
		t.Errorf("own colours: %d hues; want the model's blue alone", k)
	}
	if k := many(hues(demo)); k < 3 {
		t.Errorf("demo colours on four sources: %d hues; want a hue a source (at least 3)", k)
	}
	if !samePicture(t, plain, run("-b", "--camera-path", trace(ownColors))) {
		t.Error("the mesh's colour differs from -b's picture")
	}
	if text, err := runHeadless(bin, "--camera-path", trace(colorModes)); err == nil || !strings.Contains(text, "colours 3: want 0 to 2") {
		t.Errorf("a trace with colours 3: %v\n%s", err, text)
	}
}

// w draws the triangles' edges only, as eqPly's w: a decomposed run of
// the wireframe is its reference's picture, and not the filled model's.
func TestWDrawsTheEdges(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1}
	if !c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'w'}) || !c.frame().Wireframe {
		t.Fatal("w did not switch to the wireframe")
	}
	bin := build(t)
	dir := t.TempDir()
	trace := func(name string, wire bool) string {
		return writeTrace(t, filepath.Join(dir, name), frameData{Camera: homeCamera, Wireframe: wire})
	}
	run := func(path string, args ...string) string {
		return lastImage(t, bin, append([]string{"--camera-path", path, "--triangles", "2000"}, args...)...)
	}
	wire := trace("wire.trace", true)
	got := run(wire)
	d, err := imagecmp.CompareFiles(got, run(wire, "--reference"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > 0.002 {
		t.Errorf("the wireframe, decomposed against the reference: %s", d)
	}
	if samePicture(t, got, run(trace("filled.trace", false))) {
		t.Error("the wireframe looks as the filled model")
	}
}

// i switches idle antialiasing off and on, as eqPly's i, without a new
// picture.
func TestISwitchesIdleAntialiasing(t *testing.T) {
	c := &controls{cam: homeCamera, view: -1, refine: true}
	if c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'i'}) || c.refine {
		t.Errorf("i: picture changed or still refining (%v)", c.refine)
	}
	c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'i'})
	if !c.refine {
		t.Error("i again did not switch refining back on")
	}
}

// writeTrace writes a trace of the frames' data to path, to replay with
// --camera-path.
func writeTrace(t *testing.T, path string, frames ...frameData) string {
	t.Helper()
	var b bytes.Buffer
	for f, data := range frames {
		line, _ := json.Marshal(map[string]any{"frame": f, "data": data})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lastImage runs eqply headless with args and returns the image of its
// last frame (of the destination "dest", as the default config's).
func lastImage(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	text, err := runHeadless(bin, append(args, "--out", out)...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, text)
	}
	images, _ := filepath.Glob(filepath.Join(out, "dest-*.png"))
	if len(images) == 0 {
		t.Fatalf("%v wrote no image", args)
	}
	slices.Sort(images)
	return images[len(images)-1]
}

// f, F, t, T, 4 and 5 change the balancing of the view pointed at (every
// view, pointed at none) as eqPly's: f freezes and F (shift-f too) lets
// go, t and T make the tiles a pixel smaller and larger, 4 and 5 the
// resistance larger and smaller, never below 0. The picture stays.
func TestBalancingKeysChangeTheViewPointedAt(t *testing.T) {
	c := &controls{cam: homeCamera, view: 1}
	for _, key := range []struct {
		key  goeq.Key
		mods goeq.Modifiers
	}{{'f', 0}, {'f', goeq.ModShift}, {'F', 0}, {'t', 0}, {'T', 0}, {'4', 0}, {'5', 0}} {
		if c.handle(goeq.Event{Kind: goeq.KeyPress, Key: key.key, Modifiers: key.mods}) {
			t.Errorf("%c changed the picture", rune(key.key))
		}
	}
	var keys []rune
	for _, b := range c.balance {
		keys = append(keys, b.key)
		if b.view != 1 {
			t.Errorf("%c acts in view %d, want the one pointed at", b.key, b.view)
		}
	}
	if string(keys) != "fFFtT45" {
		t.Errorf("keys taken %q, want fFFtT45", string(keys))
	}
	s := goeq.Balancing{TileSize: [2]int{64, 32}}
	for _, step := range []struct {
		key  rune
		want goeq.Balancing
	}{
		{'f', goeq.Balancing{Frozen: true, TileSize: [2]int{64, 32}}},
		{'t', goeq.Balancing{Frozen: true, TileSize: [2]int{63, 31}}},
		{'4', goeq.Balancing{Frozen: true, TileSize: [2]int{63, 31}, Resistance: [2]int{1, 1}}},
		{'5', goeq.Balancing{Frozen: true, TileSize: [2]int{63, 31}}},
		{'5', goeq.Balancing{Frozen: true, TileSize: [2]int{63, 31}}},
		{'T', goeq.Balancing{Frozen: true, TileSize: [2]int{64, 32}}},
		{'F', goeq.Balancing{TileSize: [2]int{64, 32}}},
	} {
		if s, _ = (balanceChange{key: step.key}).change(s); s != step.want {
			t.Fatalf("%c: %+v, want %+v", step.key, s, step.want)
		}
	}
	if got := viewsAt(-1, 3); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("pointed at no view: %v, want every view", got)
	}
}

// eqply under a DISPLAY that does not open renders offscreen (goeq goes
// on with EGL) and, as no window can take a key, as headless: it orbits
// the model for 100 frames and ends, where it waited for a quit key that
// could not come.
func TestADisplayThatDoesNotOpenRunsAsHeadless(t *testing.T) {
	bin := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--frames", "0", "--triangles", "2000")
	cmd.Env = append(os.Environ(), "DISPLAY=:1023", "GOEQ_WINSYS=auto")
	out, err := cmd.CombinedOutput()
	for _, want := range []string{"no window of the run shows on the display (DISPLAY=:1023): rendering 100 frames offscreen", "100 frames in"} {
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%v, want %q:\n%s", err, want, out)
		}
	}
}

// --frames N with a window ends the run after the N-th frame, as it does
// headless: it waited for an event (a key, a drag) after the last frame,
// and idle refined the picture meanwhile, so that a user who asked for
// three frames on a display waited without end.
func TestFramesEndsTheRunWithAWindowToo(t *testing.T) {
	r := startEqply(t, "--frames", "3")
	r.endsCleanly(t, "its three frames")
	if frames := len(readTrace(t, r.trace)); frames != 3 {
		t.Errorf("%d frames traced; want the 3 asked for", frames)
	}
}

// A folder holding a parallel VTK surface (a .pvtp and the .vtp files of
// its pieces, as ParaView saves one from a parallel run) gives the .pvtp
// as one model, not each piece as a model of its own.
func TestAParallelSurfacesPiecesAreNotModels(t *testing.T) {
	folder := t.TempDir()
	src := filepath.Join("..", "..", "internal", "render", "testdata", "vtkmesh")
	for _, name := range []string{"parallel.pvtp", "parallel_0.vtp", "parallel_1.vtp", "parallel_2.vtp", "points.vtp"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := listModels([]string{folder})
	want := []string{filepath.Join(folder, "parallel.pvtp"), filepath.Join(folder, "points.vtp")}
	if err != nil || !slices.Equal(files, want) {
		t.Errorf("the folder's models: %v, %v; want %v", files, err, want)
	}
}
