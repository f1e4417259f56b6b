package compound

import (
	"math"
	"testing"
)

// A head with a value that is not a finite number, or a negative eye
// base, is refused: its frusta could not be drawn or sent.
func TestHeadCheck(t *testing.T) {
	if err := IdentityHead.Check(); err != nil {
		t.Errorf("the identity: %v", err)
	}
	nan, inf := IdentityHead, IdentityHead
	nan.Matrix[13] = math.NaN()
	inf.Matrix[2] = math.Inf(-1)
	for _, h := range []Head{nan, inf, {Matrix: IdentityHead.Matrix, EyeBase: -0.1}, {Matrix: IdentityHead.Matrix, EyeBase: math.NaN()}} {
		if err := h.Check(); err == nil {
			t.Errorf("%+v passed", h)
		}
	}
}
