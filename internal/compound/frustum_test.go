package compound

import (
	"path/filepath"
	"testing"
)

// apply is the column-major m applied to the point p.
func apply(m [16]float64, p Vec3) Vec3 {
	var out Vec3
	for r := range 3 {
		out[r] = m[r]*p[0] + m[4+r]*p[1] + m[8+r]*p[2] + m[12+r]
	}
	return out
}

// The ortho frustum is the wall around the cyclop eye at its own size, and
// each stereo eye's ortho view agrees with the cyclop's on the wall and
// differs in front of it the way perspective parallax does (Equalizer's
// Compound::_computeOrtho).
func TestOrthoFrustumAndStereoShear(t *testing.T) {
	w := DefaultWall // 1.6 m by 1 m, 1 m ahead
	f := w.OrthoFrustum(Vec3{}, 0.1, 100)
	if !near(f.Left, -0.8) || !near(f.Right, 0.8) || !near(f.Bottom, -0.5) || !near(f.Top, 0.5) || f.Near != 0.1 || f.Far != 100 {
		t.Errorf("ortho frustum %+v, want the wall's ±0.8 by ±0.5", f)
	}
	if g := w.OrthoFrustum(Vec3{0.2, -0.1, 0.5}, 0.1, 100); !near(g.Left, -1) || !near(g.Right, 0.6) || !near(g.Bottom, -0.4) || !near(g.Top, 0.6) {
		t.Errorf("ortho frustum of a moved head %+v, want -1..0.6 by -0.4..0.6", g)
	}

	cyclop, left, right := Vec3{}, Vec3{-0.03, 0, 0}, Vec3{0.03, 0, 0}
	if m, v := w.OrthoViewMatrix(cyclop, cyclop), w.ViewMatrix(cyclop); m != v {
		t.Errorf("the cyclop's ortho view %v is not its view %v", m, v)
	}
	onWall, inFront := Vec3{0.3, 0.2, -1}, Vec3{0.3, 0.2, -0.5}
	for _, eye := range []Vec3{left, right} {
		if p := apply(w.OrthoViewMatrix(eye, cyclop), onWall); !near(p[0], 0.3) || !near(p[1], 0.2) {
			t.Errorf("eye %v sees the wall point %v at %v, want the cyclop's (0.3, 0.2)", eye, onWall, p)
		}
	}
	// in front of the wall the left eye sees a point further right, as
	// under perspective: 0.33 at half the wall's depth less half the shear
	if p := apply(w.OrthoViewMatrix(left, cyclop), inFront); !near(p[0], 0.315) {
		t.Errorf("left eye sees %v at x %.4f, want 0.315", inFront, p[0])
	}
	if p := apply(w.OrthoViewMatrix(right, cyclop), inFront); !near(p[0], 0.285) {
		t.Errorf("right eye sees %v at x %.4f, want 0.285", inFront, p[0])
	}
	// a turned wall: its own axes, not the world's
	turned := Projection{Distance: 1, FOV: [2]float64{90, 90}, HPR: Vec3{90, 0, 0}}.Wall()
	eye := Vec3{0, 0, 0.03} // along the turned wall's right axis
	onTurned := turned.BottomLeft.Add(turned.BottomRight).Scale(0.5)
	if p, c := apply(turned.OrthoViewMatrix(eye, cyclop), onTurned), apply(turned.ViewMatrix(cyclop), onTurned); !near(p[0], c[0]) || !near(p[1], c[1]) {
		t.Errorf("turned wall: an eye sees its point at %v, the cyclop at %v", p, c)
	}
}

// A source whose own channel shows another layout's view renders its
// destination's view, as Equalizer's compounds inherit their destination's
// channel: Equalizer's 2-pipe.all draws part of the 2D layout on the Wall
// layout's channel, and that part takes the 2D view's model unit (it drew
// the Wall view's, a model of another size in a parallel projection).
func TestASourceRendersItsDestinationsView(t *testing.T) {
	m, _, err := Load(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "2-pipe.all.eqc"), Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Configs[0]
	var source *Compound
	cfg.Walk(func(c *Compound) {
		d := c.Destination()
		if c != d && c.Channel != nil && c.Channel.View != nil && d.Channel.View != nil && d.Channel.View.Layout.Name == "2D" && c.Channel.View.Layout.Name == "Wall" {
			source = c
		}
	})
	if source == nil {
		t.Fatal("2-pipe.all.eqc changed: no source on the Wall layout's channel under the 2D destination")
	}
	dest := source.Destination()
	if got := ViewOf(source); got != dest.Channel.View {
		t.Fatalf("the source renders view %q of layout %q, want its destination's", got.Name, got.Layout.Name)
	}
	dest.Channel.View.ModelUnit = 2.5
	var changes Changes
	got, _ := changes.Wall(cfg, source, EyeCyclop)
	want, _ := changes.Wall(cfg, dest, EyeCyclop)
	if got.BottomLeft != want.BottomLeft || got.TopLeft != want.TopLeft {
		t.Errorf("the source's wall %v, its destination's %v: want both scaled by the destination view's unit", got, want)
	}
}
