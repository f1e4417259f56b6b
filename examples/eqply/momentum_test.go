package main

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/examples/flick"
	"github.com/goeq/goeq/internal/xtest"
)

// A drag let go while still moving goes on, as eqPly's model spins on: a
// left drag turns on at the speed it ended with, a shifted left or a
// middle drag zooms on; a drag held still before it is let go, a right
// drag (a pan) and a click do not; a press or space stops it.
func TestADragLetGoWhileMovingGoesOn(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// drag presses button at (0.5, 0.5), moves a tenth of the view right
	// over 50 ms in five steps, and lets go gap ms after the last
	drag := func(c *controls, button int, mods goeq.Modifiers, gap int) {
		c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: button, Modifiers: mods, X: 0.5, Y: 0.5, Channel: "dest", ViewIndex: 0, Time: at(0)})
		for i := 1; i <= 5; i++ {
			c.handle(goeq.Event{Kind: goeq.PointerMotion, Modifiers: mods, X: 0.5 + 0.02*float64(i), Y: 0.5 - 0.02*float64(i), Channel: "dest", ViewIndex: 0, Time: at(10 * i)})
		}
		c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: button, Modifiers: mods, X: 0.6, Y: 0.4, Channel: "dest", ViewIndex: 0, Time: at(50 + gap)})
	}
	now := time.Now()
	c := &controls{cam: homeCamera, view: -1}
	drag(c, goeq.ButtonLeft, 0, 5)
	if !c.coasting() {
		t.Fatal("a left drag let go 5 ms after its last move does not go on")
	}
	before := *c.camera()
	c.coast.clock.Start(now) // as the release was handled
	c.coastTo(now.Add(100 * time.Millisecond))
	after := *c.camera()
	// the drag moved 0.1 views right and up in 50 ms: 2 views a second,
	// 2π radians a second of yaw (under the bound), for 0.1 s
	if got, want := after.Yaw-before.Yaw, 0.2*math.Pi; math.Abs(got-want) > 1e-6 {
		t.Errorf("0.1 s on, the yaw moved %.4f; want %.4f", got, want)
	}
	if got, want := after.Pitch-before.Pitch, 0.2*math.Pi; math.Abs(got-want) > 1e-6 {
		t.Errorf("0.1 s on, the pitch moved %.4f; want %.4f", got, want)
	}
	if after.Distance != before.Distance {
		t.Errorf("a turn going on zoomed: %v to %v", before.Distance, after.Distance)
	}
	// a stall does not make it jump
	c.coastTo(now.Add(time.Hour))
	if moved := math.Abs(math.Remainder(c.camera().Yaw-after.Yaw, 2*math.Pi)); moved > 0.25*flick.MaxSpeed*math.Pi+1e-9 {
		t.Errorf("after an hour's stall the yaw moved %.3f in one frame", moved)
	}
	// a press stops it
	c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: goeq.ButtonLeft, X: 0.6, Y: 0.4, Channel: "dest", ViewIndex: 0, Time: at(2000)})
	c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: goeq.ButtonLeft, X: 0.6, Y: 0.4, Channel: "dest", ViewIndex: 0, Time: at(2100)})
	if c.coasting() {
		t.Error("a click did not stop the turn going on")
	}
	// space stops it
	drag(c, goeq.ButtonLeft, 0, 0)
	c.handle(goeq.Event{Kind: goeq.KeyPress, Key: ' '})
	if c.coasting() {
		t.Error("space did not stop the turn going on")
	}
	// so does another layout, which shows other views
	c.canvasLayouts, c.shown = [][]int{{0, 1}}, []int{0}
	drag(c, goeq.ButtonLeft, 0, 0)
	if c.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'l'}); c.coasting() {
		t.Error("l did not stop the turn going on in a view it no longer shows")
	}

	for _, k := range []struct {
		button int
		mods   goeq.Modifiers
		gap    int
		zooms  bool
		goesOn bool
		what   string
	}{
		{goeq.ButtonLeft, 0, 200, false, false, "a left drag held still 200 ms, then let go"},
		{goeq.ButtonRight, 0, 5, false, false, "a right drag (a pan)"},
		{goeq.ButtonMiddle, 0, 5, true, true, "a middle drag"},
		{goeq.ButtonLeft, goeq.ModShift, 5, true, true, "a shifted left drag"},
	} {
		c := &controls{cam: homeCamera, view: -1}
		drag(c, k.button, k.mods, k.gap)
		if c.coasting() != k.goesOn {
			t.Errorf("%s: goes on %v, want %v", k.what, c.coasting(), k.goesOn)
			continue
		}
		if !k.goesOn {
			continue
		}
		before := *c.camera()
		c.coast.clock.Start(now)
		c.coastTo(now.Add(100 * time.Millisecond))
		after := *c.camera()
		if zoomed := after.Distance != before.Distance; zoomed != k.zooms || after.Yaw != before.Yaw {
			t.Errorf("%s: going on, the camera moved from %+v to %+v; want it zoomed", k.what, before, after)
		}
		// zooming on stops far in
		for i := range 1000 {
			c.coastTo(now.Add(time.Duration(i) * time.Second))
		}
		if c.coasting() || c.camera().Distance < homeCamera.Distance/coastZoomBound/2 {
			t.Errorf("%s: zooming on for minutes leaves the camera at %v, still going on: %v", k.what, c.camera().Distance, c.coasting())
		}
	}
	// a turn let go as near as zooms go goes on (only a zoom stops there)
	c = &controls{cam: camera{Distance: nearDistance}, view: -1}
	drag(c, goeq.ButtonLeft, 0, 5)
	c.coast.clock.Start(now)
	if c.coastTo(now.Add(100 * time.Millisecond)); !c.coasting() || c.camera().Yaw == 0 {
		t.Errorf("a turn let go as near as zooms go: camera %+v, going on %v", *c.camera(), c.coasting())
	}
	// a flight in pilot mode goes on through the model's centre, and
	// stops far from it
	c = &controls{cam: homeCamera, view: -1, pilot: true}
	c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: goeq.ButtonMiddle, X: 0.5, Y: 0.4, Channel: "dest", Time: at(0)})
	for i := 1; i <= 5; i++ { // down the view: forward
		c.handle(goeq.Event{Kind: goeq.PointerMotion, X: 0.5, Y: 0.4 + 0.02*float64(i), Channel: "dest", Time: at(10 * i)})
	}
	c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: goeq.ButtonMiddle, X: 0.5, Y: 0.5, Channel: "dest", Time: at(55)})
	c.coast.clock.Start(now)
	passed := false
	for i := range 1000 {
		c.coastTo(now.Add(time.Duration(i) * 100 * time.Millisecond))
		passed = passed || c.camera().Distance < 0
	}
	if far := homeCamera.Distance * coastZoomBound; !passed || c.coasting() || math.Abs(c.camera().Distance) < far {
		t.Errorf("a flight let go in pilot mode: passed the model's centre %v, at %+v, going on %v; want it through, stopped %v away", passed, *c.camera(), c.coasting(), far)
	}

	// events without times (an application's own) never go on
	c = &controls{cam: homeCamera, view: -1}
	c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: goeq.ButtonLeft, X: 0.5, Y: 0.5, Channel: "dest"})
	c.handle(goeq.Event{Kind: goeq.PointerMotion, X: 0.6, Y: 0.5, Channel: "dest"})
	c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: goeq.ButtonLeft, X: 0.6, Y: 0.5, Channel: "dest"})
	if c.coasting() {
		t.Error("a drag of events without times goes on")
	}
}

// A flick on eqply's window (the X server's test extension presses, moves
// and lets go at once, as a quick hand does) goes on turning the model:
// frames keep coming without events, each turned further; a click stops
// it.
func TestAFlickSpinsTheModelUntilAClick(t *testing.T) {
	r := startEqply(t)
	x0, y0, _, _ := r.geometry(t)
	xtest.Xdotool(t, r.disp, "windowfocus", "--sync", r.win)
	releases := func(lines []traceLine) (at []int) {
		for i, l := range lines {
			if l.Event == goeq.ButtonRelease.String() {
				at = append(at, i)
			}
		}
		return at
	}
	// turned frames keep coming: ten after the flick. The events are
	// timed as the window's node polls them: a poll that falls between
	// the move and the release, and a next one late by the flick gap
	// (a loaded machine), make it a drag held still, so it may take
	// another flick
	spinning := func() bool {
		lines := readTrace(t, r.trace)
		at := releases(lines)
		yaws := map[float64]bool{}
		for _, l := range lines[at[len(at)-1]:] {
			if l.Frame != nil && !l.Refined {
				yaws[l.Camera.Yaw] = true
			}
		}
		return len(yaws) >= 10
	}
	for try := 1; ; try++ {
		xtest.Xdotool(t, r.disp, "mousemove", "--sync", itoa(x0+320), itoa(y0+180))
		flicked := len(releases(readTrace(t, r.trace)))
		xtest.Xdotool(t, r.disp, "mousedown", "1", "mousemove", "--sync", itoa(x0+360), itoa(y0+180), "mouseup", "1")
		waitFor(t, "the flick in the trace", 30*time.Second, func() bool { return len(releases(readTrace(t, r.trace))) > flicked })
		deadline := time.Now().Add(20 * time.Second)
		for !spinning() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if spinning() {
			break
		}
		if try == 3 {
			t.Fatal("three flicks did not turn the model on")
		}
	}
	// a click stops it: the frames after it (one, and idle
	// antialiasing's) show the model where the click found it
	flicks := len(releases(readTrace(t, r.trace)))
	xtest.Xdotool(t, r.disp, "click", "1")
	waitFor(t, "the click in the trace", 30*time.Second, func() bool { return len(releases(readTrace(t, r.trace))) > flicks })
	time.Sleep(2 * time.Second)
	lines := readTrace(t, r.trace)
	click, stopped := releases(lines)[flicks], math.NaN()
	for i, l := range lines {
		switch {
		case l.Frame == nil:
		case i < click:
			stopped = l.Camera.Yaw
		case l.Camera.Yaw != stopped:
			t.Errorf("frame %d after the click has yaw %v; the last before it %v", *l.Frame, l.Camera.Yaw, stopped)
		}
	}
	xtest.Xdotool(t, r.disp, "key", "q")
	r.endsCleanly(t, "q")
}

func itoa(i int) string { return strconv.Itoa(i) }
