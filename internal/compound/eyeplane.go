package compound

import (
	"fmt"
	"math"
)

// checkEyesOnWalls warns where an observer's untracked eye lies in the
// plane of a wall a destination shows: seen from there the wall has no
// depth, its frustum is unbounded and nothing shows. Generated configs
// put every wall at z = 0 and move the head by tracking (omegalib's do);
// run without an application that moves it, every picture is the clear
// colour. One warning per config names the first such channel.
func (r *resolver) checkEyesOnWalls(cfg *Config) {
	var first *Compound
	var firstEye Vec3
	n := 0
	cfg.Walk(func(c *Compound) {
		if c.Channel == nil || c.Destination() != c || c.Frustum == nil || c.Frustum.HMD {
			return
		}
		var eye Vec3
		if obs := cfg.ObserverOf(c); obs != nil {
			eye = obs.EyeCyclop
		}
		w := *c.Frustum
		u, v := w.BottomRight.Sub(w.BottomLeft), w.TopLeft.Sub(w.BottomLeft)
		normal := u.Cross(v)
		if normal.Len() == 0 {
			return // a wall of no area has other warnings
		}
		if d := w.BottomLeft.Sub(eye).Dot(normal.Normalized()); math.Abs(d) > 1e-6*math.Max(u.Len(), v.Len()) {
			return
		}
		if first == nil {
			first, firstEye = c, eye
		}
		n++
	})
	if first == nil {
		return
	}
	pos := r.segmentPos[first.Channel.Segment]
	if d := r.raw[first]; d != nil && !first.Generated {
		pos = d.channelPos
		if pos.Line == 0 {
			pos = d.pos
		}
	}
	more := ""
	switch {
	case n == 2:
		more = " (and that of 1 more destination)"
	case n > 2:
		more = fmt.Sprintf(" (and those of %d more destinations)", n-1)
	}
	r.warnf(pos, "the eye at [ %g %g %g ] lies in the plane of the wall channel %q shows%s: seen from there the wall has no depth, so nothing shows until an application moves the observer's head (goeq.Config.SetHead, as head tracking does); move the wall off the eye (e.g. z = -1) to run it as it is", firstEye[0], firstEye[1], firstEye[2], first.Channel.Name, more)
}
