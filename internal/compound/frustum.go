package compound

import "math"

// Vec3 is a point or direction in metres.
type Vec3 [3]float64

func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec3) Dot(b Vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a Vec3) Len() float64         { return math.Sqrt(a.Dot(a)) }
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a Vec3) Normalized() Vec3 {
	if l := a.Len(); l > 0 {
		return a.Scale(1 / l)
	}
	return a
}

// Wall is a projection surface given by three corners, as in Equalizer.
type Wall struct {
	BottomLeft, BottomRight, TopLeft Vec3
	HMD                              bool // moves with the tracked head (type HMD), not fixed
}

// TypeName is its type as a config names it.
func (w Wall) TypeName() string {
	if w.HMD {
		return "HMD"
	}
	return "fixed"
}

// DefaultWall is Equalizer's frustum when a config gives none: 1.6 m by
// 1 m, one metre in front of the origin.
var DefaultWall = Wall{
	BottomLeft:  Vec3{-0.8, -0.5, -1},
	BottomRight: Vec3{0.8, -0.5, -1},
	TopLeft:     Vec3{-0.8, 0.5, -1},
}

// Projection is a frustum given by its origin, distance, field of view and
// head-pitch-roll orientation (degrees).
type Projection struct {
	Origin   Vec3
	Distance float64
	FOV      [2]float64
	HPR      Vec3
}

// Wall converts a projection into the equivalent wall.
func (p Projection) Wall() Wall {
	w := math.Abs(p.Distance * 2 * math.Tan(p.FOV[0]*math.Pi/360))
	h := math.Abs(p.Distance * 2 * math.Tan(p.FOV[1]*math.Pi/360))
	rot := func(v Vec3) Vec3 {
		// roll about z, then pitch about x, then head about y
		r, pch, hd := p.HPR[2]*math.Pi/180, p.HPR[1]*math.Pi/180, p.HPR[0]*math.Pi/180
		v = Vec3{v[0]*math.Cos(r) - v[1]*math.Sin(r), v[0]*math.Sin(r) + v[1]*math.Cos(r), v[2]}
		v = Vec3{v[0], v[1]*math.Cos(pch) - v[2]*math.Sin(pch), v[1]*math.Sin(pch) + v[2]*math.Cos(pch)}
		return Vec3{v[0]*math.Cos(hd) + v[2]*math.Sin(hd), v[1], -v[0]*math.Sin(hd) + v[2]*math.Cos(hd)}
	}
	center := p.Origin.Add(rot(Vec3{0, 0, -p.Distance}))
	return Wall{
		BottomLeft:  center.Add(rot(Vec3{-w / 2, -h / 2, 0})),
		BottomRight: center.Add(rot(Vec3{w / 2, -h / 2, 0})),
		TopLeft:     center.Add(rot(Vec3{-w / 2, h / 2, 0})),
	}
}

// Sub returns the part of the wall covered by the fractional viewport vp.
func (w Wall) Sub(vp Viewport) Wall {
	u := w.BottomRight.Sub(w.BottomLeft)
	v := w.TopLeft.Sub(w.BottomLeft)
	bl := w.BottomLeft.Add(u.Scale(vp.X)).Add(v.Scale(vp.Y))
	return Wall{
		BottomLeft:  bl,
		BottomRight: bl.Add(u.Scale(vp.W)),
		TopLeft:     bl.Add(v.Scale(vp.H)),
		HMD:         w.HMD,
	}
}

// Scaled is the wall with its corners s times as far from the origin.
func (w Wall) Scaled(s float64) Wall {
	w.BottomLeft, w.BottomRight, w.TopLeft = w.BottomLeft.Scale(s), w.BottomRight.Scale(s), w.TopLeft.Scale(s)
	return w
}

// Frustum is an off-axis perspective frustum at the near plane.
type Frustum struct {
	Left, Right, Bottom, Top, Near, Far float64
}

// Near and far planes used for explain and as the planner's default.
const (
	DefaultNear = 0.1
	DefaultFar  = 100
)

// EyeFrustum returns the frustum seen from eye through the wall, and the
// wall's distance from the eye. The eye is in the wall's coordinate system.
func (w Wall) EyeFrustum(eye Vec3, near, far float64) Frustum {
	u := w.BottomRight.Sub(w.BottomLeft).Normalized()
	v := w.TopLeft.Sub(w.BottomLeft).Normalized()
	n := u.Cross(v).Normalized()
	d := w.BottomLeft.Sub(eye).Dot(n)
	if d == 0 {
		d = 1e-9
	}
	s := -near / d // d is negative when the wall is in front of the eye
	return Frustum{
		Left:   w.BottomLeft.Sub(eye).Dot(u) * s,
		Right:  w.BottomRight.Sub(eye).Dot(u) * s,
		Bottom: w.BottomLeft.Sub(eye).Dot(v) * s,
		Top:    w.TopLeft.Sub(eye).Dot(v) * s,
		Near:   near,
		Far:    far,
	}
}

// OrthoFrustum is the wall seen without perspective, as Equalizer's
// ortho frustum: the wall's extent around the cyclop eye, at the wall's
// own size (an orthographic box has no near-plane scaling). Every eye
// shares it; OrthoViewMatrix gives each its stereo.
func (w Wall) OrthoFrustum(cyclop Vec3, near, far float64) Frustum {
	u := w.BottomRight.Sub(w.BottomLeft).Normalized()
	v := w.TopLeft.Sub(w.BottomLeft).Normalized()
	return Frustum{
		Left:   w.BottomLeft.Sub(cyclop).Dot(u),
		Right:  w.BottomRight.Sub(cyclop).Dot(u),
		Bottom: w.BottomLeft.Sub(cyclop).Dot(v),
		Top:    w.TopLeft.Sub(cyclop).Dot(v),
		Near:   near,
		Far:    far,
	}
}

// OrthoViewMatrix is eye's view matrix for OrthoFrustum: ViewMatrix(eye)
// sheared along the view direction so that the wall's plane lands where
// the cyclop eye has it. The stereo eyes then agree at the wall (no
// parallax there) and differ in front of and behind it, as under
// perspective; Equalizer shears its ortho transform the same way.
func (w Wall) OrthoViewMatrix(eye, cyclop Vec3) [16]float64 {
	m := w.ViewMatrix(eye)
	u := w.BottomRight.Sub(w.BottomLeft).Normalized()
	v := w.TopLeft.Sub(w.BottomLeft).Normalized()
	n := u.Cross(v).Normalized()
	d := w.BottomLeft.Sub(eye).Dot(n) // the wall's depth in eye space
	if d == 0 {
		return m // the eye on the wall's plane: nothing to converge at
	}
	// x' = x + sx*z puts a wall point (z = d) at (P-cyclop)·u
	sx, sy := eye.Sub(cyclop).Dot(u)/d, eye.Sub(cyclop).Dot(v)/d
	for col := 0; col < 16; col += 4 {
		m[col] += sx * m[col+2]
		m[col+1] += sy * m[col+2]
	}
	return m
}

// ViewMatrix is the column-major matrix from world to the wall-aligned
// eye space: rows are the wall's right, up and normal axes, translated by
// the eye.
func (w Wall) ViewMatrix(eye Vec3) [16]float64 {
	u := w.BottomRight.Sub(w.BottomLeft).Normalized()
	v := w.TopLeft.Sub(w.BottomLeft).Normalized()
	n := u.Cross(v).Normalized()
	return [16]float64{
		u[0], v[0], n[0], 0,
		u[1], v[1], n[1], 0,
		u[2], v[2], n[2], 0,
		-u.Dot(eye), -v.Dot(eye), -n.Dot(eye), 1,
	}
}

// ObserverOf is the observer watching compound c: the observer of the view
// its destination shows, or nil (an untracked default observer at the
// origin with the config's eye base).
func (cfg *Config) ObserverOf(c *Compound) *Observer {
	if v := ViewOf(c); v != nil {
		return v.Observer
	}
	return nil
}

// ViewOf is the view compound c renders for: its destination's, as
// Equalizer's compounds inherit their destination's channel. A source
// whose own channel shows another layout's view (Equalizer's 2-pipe.all
// draws the 2D layout's part on the Wall layout's channel) still renders
// the destination's view, with its model unit, focus and observer; nil
// when the destination shows none.
func ViewOf(c *Compound) *View {
	if d := c.Destination(); d != nil && d.Channel != nil {
		return d.Channel.View
	}
	return nil
}
