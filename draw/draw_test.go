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
