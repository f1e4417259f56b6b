package draw

import (
	"fmt"
	"math"
	"testing"
)

func TestInverse(t *testing.T) {
	m := Translate(1, 2, 3).Mul(RotateX(0.3)).Mul(RotateY(0.7))
	p := m.Mul(m.Inverse())
	for i, v := range p {
		if math.Abs(float64(v-Identity[i])) > 1e-5 {
			t.Fatalf("m * inverse(m) = %v", p)
		}
	}
	if (Mat4{}).Inverse() != (Mat4{}) {
		t.Error("a singular matrix has no inverse")
	}
}

// Each rotation turns counter-clockwise seen from its axis's tip, as
// OpenGL's glRotate: x onto y about z, y onto z about x, z onto x about y.
func TestRotationsTurnCounterClockwise(t *testing.T) {
	for _, c := range []struct {
		name     string
		m        Mat4
		from, to [3]float32
	}{
		{"RotateZ", RotateZ(math.Pi / 2), [3]float32{1, 0, 0}, [3]float32{0, 1, 0}},
		{"RotateX", RotateX(math.Pi / 2), [3]float32{0, 1, 0}, [3]float32{0, 0, 1}},
		{"RotateY", RotateY(math.Pi / 2), [3]float32{0, 0, 1}, [3]float32{1, 0, 0}},
	} {
		for r := 0; r < 3; r++ {
			got := c.m[r]*c.from[0] + c.m[4+r]*c.from[1] + c.m[8+r]*c.from[2]
			if math.Abs(float64(got-c.to[r])) > 1e-6 {
				t.Errorf("%s(π/2) takes %v to row %d = %v; want %v", c.name, c.from, r, got, c.to)
			}
		}
	}
}

func TestFrameDataDecodesWhatWasSent(t *testing.T) {
	c := &Context{Data: []byte(`{"Angle":0.5}`)}
	var v struct{ Angle float64 }
	if err := c.FrameData(&v); err != nil || v.Angle != 0.5 {
		t.Errorf("got %+v, %v", v, err)
	}
	v.Angle = 2
	if err := (&Context{}).FrameData(&v); err != nil || v.Angle != 2 {
		t.Errorf("no data changed the value to %+v (%v)", v, err)
	}
}

// A channel's unique colour is its own: the same for the same channel,
// apart in hue from the other channels of a wall's worth, and neither too
// dark to see nor white.
func TestUniqueColorsAreTheChannelsOwn(t *testing.T) {
	seen := map[[3]float32]string{}
	for n := range 4 {
		for p := range 4 {
			id := fmt.Sprintf("n%d.p%d.w0.c0", n, p)
			c := (&Context{Channel: id}).UniqueColor()
			if again := (&Context{Channel: id, Frame: 7}).UniqueColor(); again != c {
				t.Errorf("%s: %v, then %v", id, c, again)
			}
			if other, ok := seen[c]; ok {
				t.Errorf("%s and %s share the colour %v", id, other, c)
			}
			seen[c] = id
			if lo, hi := min(c[0], c[1], c[2]), max(c[0], c[1], c[2]); lo < 0.2 || hi > 0.95 || hi-lo < 0.5 {
				t.Errorf("%s: %v is not a clear colour", id, c)
			}
		}
	}
}
