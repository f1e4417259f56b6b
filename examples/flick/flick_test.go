package flick

import (
	"math"
	"testing"
	"time"

	"github.com/goeq/goeq"
)

// A flick's speed is its last tenth of a second's (from the move before
// it), bounded; a drag let go
// long after its last move, or of events without times, is no flick; a
// frame goes on for the time since the last, bounded after a stall.
func TestAFlicksSpeed(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	move := func(tr *Tracker, ms int, x float64) { tr.Track(goeq.Event{X: x, Time: at(ms)}) }

	// slow for half a second (0.001 views a step), then fast: the speed
	// is measured from 450 ms (0.009) to 600 ms (0.3), not from the start
	var tr Tracker
	for ms := 0; ms <= 500; ms += 50 {
		move(&tr, ms, 0.001*float64(ms)/50)
	}
	move(&tr, 550, 0.1)
	move(&tr, 600, 0.3)
	vx, vy, moving := tr.LetGo(goeq.Event{Time: at(610)})
	if want := (0.3 - 0.009) / 0.15; !moving || math.Abs(vx-want) > 1e-9 || vy != 0 {
		t.Errorf("speed %v, %v (moving %v); want %v, the last 100 ms'", vx, vy, moving, want)
	}
	// a fling faster than the bound is bounded, in its direction
	move(&tr, 0, 0)
	move(&tr, 20, 0.3)
	if vx, _, _ := tr.LetGo(goeq.Event{Time: at(25)}); math.Abs(vx-MaxSpeed) > 1e-9 {
		t.Errorf("a fling of 15 views a second goes on at %v; want the bound, %v", vx, MaxSpeed)
	}
	// let go after a pause
	move(&tr, 0, 0)
	move(&tr, 20, 0.1)
	if _, _, moving := tr.LetGo(goeq.Event{Time: at(20).Add(Gap + time.Millisecond)}); moving {
		t.Error("a drag held still past the gap goes on")
	}
	// events without times
	tr.Track(goeq.Event{X: 0})
	tr.Track(goeq.Event{X: 0.1})
	if _, _, moving := tr.LetGo(goeq.Event{}); moving {
		t.Error("a drag of events without times goes on")
	}

	var c Clock
	c.Start(t0)
	if dt := c.Step(at(40)); math.Abs(dt-0.04) > 1e-9 {
		t.Errorf("a 40 ms frame goes on for %v s", dt)
	}
	if dt := c.Step(at(40).Add(time.Minute)); dt != maxStep.Seconds() {
		t.Errorf("after a minute's stall a frame goes on for %v s; want the bound, %v", dt, maxStep.Seconds())
	}
}
