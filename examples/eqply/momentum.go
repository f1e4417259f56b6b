package main

import (
	"math"
	"time"

	"github.com/goeq/goeq"
)

// eqPly's momentum: a drag let go while still moving goes on by itself,
// frame after frame, until space, a button pressed or the model zoomed
// far away stops it. eqPly spins its model on after a left drag so, and
// flies on after a middle one. Here a left drag turns on and a shifted
// left or a middle drag zooms on, at the speed the drag ended with (the
// events' times tell it); a drag held still before it is let go stays
// where it is.

const (
	// flickGap is how soon after its last move a drag must be let go to
	// go on: a hand that stops and then lets go means the model to stay.
	flickGap = 60 * time.Millisecond
	// flickSpan is how much of a drag's end its speed is measured over.
	flickSpan = 100 * time.Millisecond
	// minFlickTime is the least time a speed is measured over: a window's
	// events polled together carry times a few microseconds apart.
	minFlickTime = 15 * time.Millisecond
	// maxTurnRate bounds a spin, in radians a second (two turns).
	maxTurnRate = 4 * math.Pi
	// maxCoastStep bounds the time one frame coasts: after a stall (the
	// process stopped, a long frame) the model does not jump.
	maxCoastStep = 250 * time.Millisecond
	// coastZoomBound: zooming on stops this many times nearer or farther
	// than the home camera.
	coastZoomBound = 50
)

// dragStep is where a drag was (in its view's coordinates) and when its
// window saw it.
type dragStep struct {
	at   time.Time
	x, y float64
}

// momentum is a let-go drag going on.
type momentum struct {
	view    int  // whose camera moves (-1: every view's)
	button  int  // the drag's; 0: nothing goes on
	shifted bool // a shifted left drag zooms
	// vx, vy are the drag's speed, in views a second
	vx, vy float64
	at     time.Time // when it last moved the camera (this process' clock)
}

// track notes a drag's step, keeping those of its last flickSpan (and the
// one before them, which the speed is measured from).
func (c *controls) track(ev goeq.Event) {
	if ev.Time.IsZero() {
		c.steps = nil
		return
	}
	c.steps = append(c.steps, dragStep{ev.Time, ev.X, ev.Y})
	for len(c.steps) > 2 && ev.Time.Sub(c.steps[1].at) > flickSpan {
		c.steps = c.steps[1:]
	}
}

// letGo starts the drag's momentum where it was let go while moving.
func (c *controls) letGo(ev goeq.Event, now time.Time) {
	steps := c.steps
	c.steps = nil
	if c.dragging != goeq.ButtonLeft && c.dragging != goeq.ButtonMiddle || len(steps) < 2 || ev.Time.IsZero() {
		return
	}
	first, last := steps[0], steps[len(steps)-1]
	if ev.Time.Sub(last.at) > flickGap {
		return // held still, then let go
	}
	dt := max(last.at.Sub(first.at), minFlickTime).Seconds()
	vx, vy := (last.x-first.x)/dt, (last.y-first.y)/dt
	if vx == 0 && vy == 0 {
		return
	}
	if turn := math.Pi * math.Hypot(vx, vy); turn > maxTurnRate {
		vx, vy = vx*maxTurnRate/turn, vy*maxTurnRate/turn
	}
	c.coast = momentum{view: c.view, button: c.dragging, shifted: c.shifted, vx: vx, vy: vy, at: now}
}

// coasting says whether a let-go drag goes on.
func (c *controls) coasting() bool { return c.coast.button != 0 }

// coastTo moves the camera the let-go drag moves on to now.
func (c *controls) coastTo(now time.Time) {
	m := &c.coast
	if m.button == 0 {
		return
	}
	dt := min(max(now.Sub(m.at), 0), maxCoastStep).Seconds()
	m.at = now
	cam := c.cameraOf(m.view)
	moveCamera(cam, m.button, m.shifted, m.vx*dt, m.vy*dt)
	cam.Yaw = math.Remainder(cam.Yaw, 2*math.Pi)
	cam.Pitch = math.Remainder(cam.Pitch, 2*math.Pi)
	if cam.Distance < homeCamera.Distance/coastZoomBound || cam.Distance > homeCamera.Distance*coastZoomBound {
		c.coast = momentum{}
	}
}

// moveCamera moves cam as a drag of button by dx, dy (of the view's size)
// does, as eqPly's buttons: the left turns (with shift held, it zooms),
// the middle zooms and the right pans.
func moveCamera(cam *camera, button int, shifted bool, dx, dy float64) {
	switch {
	case button == goeq.ButtonLeft && !shifted: // across the whole view: half a turn
		cam.Yaw += math.Pi * dx
		cam.Pitch -= math.Pi * dy
	case button == goeq.ButtonLeft, button == goeq.ButtonMiddle:
		cam.Distance *= math.Exp(-2 * dy)
	case button == goeq.ButtonRight:
		cam.Pan[0] += dx * cam.Distance
		cam.Pan[1] += dy * cam.Distance
	}
}
