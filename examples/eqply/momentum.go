package main

import (
	"math"
	"time"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/examples/flick"
)

// coastZoomBound: zooming on stops this many times nearer or farther than
// the home camera.
const coastZoomBound = 50

// momentum is eqPly's: a drag let go while still moving goes on by itself,
// frame after frame, as eqPly's model spins on after a flick and flies on
// after a middle drag, until a button pressed, space or the model zoomed
// far away stops it. Here a left drag turns on, a shifted left or a
// middle drag zooms on, at the speed the drag ended with.
type momentum struct {
	view    int  // whose camera moves (-1: every view's)
	button  int  // the drag's; 0: nothing goes on
	shifted bool // a shifted left drag zooms
	pilot   bool // the drag's was in pilot mode
	vx, vy  float64
	clock   flick.Clock
}

// letGo starts the drag's momentum where it was let go while moving.
func (c *controls) letGo(ev goeq.Event, now time.Time) {
	vx, vy, moving := c.steps.LetGo(ev)
	if !moving || c.dragging != goeq.ButtonLeft && c.dragging != goeq.ButtonMiddle {
		return
	}
	c.coast = momentum{view: c.view, button: c.dragging, shifted: c.shifted, pilot: c.pilot, vx: vx, vy: vy}
	c.coast.clock.Start(now)
}

// coasting says whether a let-go drag goes on.
func (c *controls) coasting() bool { return c.coast.button != 0 }

// coastTo moves the camera the let-go drag moves on to now.
func (c *controls) coastTo(now time.Time) {
	m := &c.coast
	if m.button == 0 {
		return
	}
	dt := m.clock.Step(now)
	cam := c.cameraOf(m.view)
	moveCamera(cam, m.button, m.shifted, m.pilot, m.vx*dt, m.vy*dt)
	if m.button == goeq.ButtonLeft && !m.shifted { // turning for minutes: the angles stay small
		cam.Yaw = math.Remainder(cam.Yaw, 2*math.Pi)
		cam.Pitch = math.Remainder(cam.Pitch, 2*math.Pi)
		cam.Look[0] = math.Remainder(cam.Look[0], 2*math.Pi)
		cam.Look[1] = math.Remainder(cam.Look[1], 2*math.Pi)
	}
	// a zoom stops as near as zooms go, a flight goes through the model,
	// and both stop far from it
	zoom := m.button == goeq.ButtonMiddle || m.shifted
	away := math.Hypot(math.Hypot(cam.Pan[0], cam.Pan[1]), cam.Distance)
	if zoom && !m.pilot && cam.Distance == nearDistance || away > homeCamera.Distance*coastZoomBound {
		c.coast = momentum{}
	}
}

// moveCamera moves cam as a drag of button by dx, dy (of the view's size)
// does, as eqPly's buttons: the left turns (with shift held, it zooms),
// the middle zooms and the right pans. In pilot mode the left turns the
// camera about the eye, and zooms and pans fly it along its own axes at
// a pace that does not slow near the model, as eqPly's pilot mode.
func moveCamera(cam *camera, button int, shifted, pilot bool, dx, dy float64) {
	switch {
	case button == goeq.ButtonLeft && !shifted && pilot:
		cam.Look[0] += math.Pi * dx
		cam.Look[1] -= math.Pi * dy
	case button == goeq.ButtonLeft && !shifted: // across the whole view: half a turn
		cam.Yaw += math.Pi * dx
		cam.Pitch -= math.Pi * dy
	case (button == goeq.ButtonLeft || button == goeq.ButtonMiddle) && (pilot || cam.Distance < nearDistance):
		cam.fly([3]float64{0, 0, 2 * dy * homeCamera.Distance})
	case button == goeq.ButtonLeft, button == goeq.ButtonMiddle:
		cam.Distance = max(cam.Distance*math.Exp(-2*dy), nearDistance)
	case button == goeq.ButtonRight && (pilot || cam.Distance < nearDistance):
		cam.fly([3]float64{dx * homeCamera.Distance, dy * homeCamera.Distance, 0})
	case button == goeq.ButtonRight:
		cam.Pan[0] += dx * cam.Distance
		cam.Pan[1] += dy * cam.Distance
	}
}

// nearDistance is as near as zooming takes the camera to the model's
// centre, each step a share of the distance. A camera nearer (the eye in
// the model, as eqPly's -z or a flight in pilot mode puts it) zooms and
// pans at the home camera's pace, as pilot mode flies: by shares of its
// distance it moved not at all.
var nearDistance = homeCamera.Distance / coastZoomBound
