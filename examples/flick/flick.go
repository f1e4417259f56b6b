// Package flick tells a drag let go while still moving from one held
// still before it was let go, from its events' times, and times the
// frames a flicked model goes on moving in: eqPly's and eVolve's models
// spin on after a flick, until a click stops them.
package flick

import (
	"math"
	"time"

	"github.com/goeq/goeq"
)

const (
	// Gap is how soon after its last move a drag must be let go to go on:
	// a hand that stops and then lets go means the model to stay.
	Gap = 60 * time.Millisecond
	// span is how much of a drag's end its speed is measured over.
	span = 100 * time.Millisecond
	// minTime is the least time a speed is measured over: a window's
	// events polled together carry times a few microseconds apart.
	minTime = 15 * time.Millisecond
	// MaxSpeed bounds a flick's speed, in views a second (a drag across
	// the view turns a model half a turn: two turns a second).
	MaxSpeed = 4.0
	// maxStep bounds the time one frame goes on for: after a stall (the
	// process stopped, a long frame) the model does not jump.
	maxStep = 250 * time.Millisecond
)

type step struct {
	at   time.Time
	x, y float64
}

// Tracker follows a drag's last moves.
type Tracker struct{ steps []step }

// Track notes where a drag is (its press, then each move).
func (t *Tracker) Track(ev goeq.Event) {
	if ev.Time.IsZero() { // an application's own event: no speed
		t.steps = nil
		return
	}
	t.steps = append(t.steps, step{ev.Time, ev.X, ev.Y})
	for len(t.steps) > 2 && ev.Time.Sub(t.steps[1].at) > span {
		t.steps = t.steps[1:]
	}
}

// LetGo ends the drag at its release and says the speed it ended with, in
// views a second (X, Y as the events'), when it was still moving.
func (t *Tracker) LetGo(release goeq.Event) (vx, vy float64, moving bool) {
	steps := t.steps
	t.steps = nil
	if len(steps) < 2 || release.Time.IsZero() {
		return 0, 0, false
	}
	first, last := steps[0], steps[len(steps)-1]
	if release.Time.Sub(last.at) > Gap {
		return 0, 0, false // held still, then let go
	}
	dt := max(last.at.Sub(first.at), minTime).Seconds()
	vx, vy = (last.x-first.x)/dt, (last.y-first.y)/dt
	if s := math.Hypot(vx, vy); s > MaxSpeed {
		vx, vy = vx*MaxSpeed/s, vy*MaxSpeed/s
	}
	return vx, vy, vx != 0 || vy != 0
}

// Clock times the frames a flick goes on in.
type Clock struct{ at time.Time }

// Start starts the clock at now (this process' clock: the events' times
// are the window's node's).
func (c *Clock) Start(now time.Time) { c.at = now }

// Step is the seconds to go on for in a frame started now: the time since
// the last step, bounded.
func (c *Clock) Step(now time.Time) float64 {
	dt := min(max(now.Sub(c.at), 0), maxStep)
	c.at = now
	return dt.Seconds()
}
