package draw

import (
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
