package compound

import "math"

// Equalizer's observer focus modes. With a mode other than fixed, the
// walls a view's destinations show move to the observer's focus distance,
// scaled about the observer's cyclop eye: the picture is the same to the
// cyclop eye, and the stereo eyes converge on that distance.
const (
	FocusFixed              = "fixed"
	FocusRelativeToOrigin   = "relative_to_origin"
	FocusRelativeToObserver = "relative_to_observer"
)

// focusMove is a view's walls' move to its observer's focus.
type focusMove struct {
	eye   Vec3
	ratio float64
}

// focusOf is how Equalizer's View::updateFrusta moves the walls of view
// v's destinations now: scaled by ratio about eye (world space). ratio is 1
// for a fixed focus, and when no destination wall lies ahead.
func (c *Changes) focusOf(cfg *Config, v *View) (eye Vec3, ratio float64) {
	obs := v.Observer
	if obs == nil {
		return Vec3{}, 1
	}
	mode, focus := obs.FocusMode, obs.FocusDistance
	h, tracked := c.Heads.heads[obs]
	if tracked && h.FocusMode != "" {
		mode = h.FocusMode
	}
	if tracked && h.FocusDistance > 0 {
		focus = h.FocusDistance
	}
	if mode == "" || mode == FocusFixed {
		return Vec3{}, 1
	}
	cyclop, dir := obs.EyeCyclop, Vec3{0, 0, -1}
	if tracked {
		if h.EyeBase > 0 {
			cyclop = Vec3{}
		}
		cyclop = h.Point(cyclop)
		if mode == FocusRelativeToObserver {
			m := h.Matrix
			dir = Vec3{-m[8], -m[9], -m[10]} // the head's forward, -z
		}
	}
	from := Vec3{} // the origin, unless relative to the observer
	if mode == FocusRelativeToObserver {
		from = cyclop
	}
	dir = dir.Normalized()
	distance := math.Inf(1)
	cfg.Walk(func(x *Compound) {
		if x.Channel == nil || x.Channel.View != v || x.Wall == nil || x.Wall.HMD {
			return
		}
		w := *x.Wall
		n := w.BottomRight.Sub(w.BottomLeft).Cross(w.TopLeft.Sub(w.BottomLeft)).Normalized()
		denom := dir.Dot(n)
		if denom == 0 {
			return // the view is parallel to the wall
		}
		if d := w.BottomLeft.Sub(from).Dot(n) / denom; d > 0 && d < distance {
			distance = d // the closest wall ahead
		}
	})
	if math.IsInf(distance, 1) {
		return cyclop, 1
	}
	if mode == FocusRelativeToOrigin {
		distance += cyclop[2]
		focus += cyclop[2]
		if math.Abs(distance) < 1e-9 {
			distance = 1e-9
		}
	}
	return cyclop, focus / distance
}

// movedFocus is the wall scaled by ratio about eye (Equalizer's
// Wall::moveFocus).
func (w Wall) movedFocus(eye Vec3, ratio float64) Wall {
	if ratio == 1 {
		return w
	}
	move := func(p Vec3) Vec3 { return eye.Add(p.Sub(eye).Scale(ratio)) }
	w.BottomLeft, w.BottomRight, w.TopLeft = move(w.BottomLeft), move(w.BottomRight), move(w.TopLeft)
	return w
}
