package compositor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The vector depth merge (GOEXPERIMENT=simd on an AVX2 machine) and the
// portable loop give identical images: random depths with ties, NaNs and
// runs where one side wins throughout, at lengths that leave a tail.
func TestVectorMergeEqualsPortable(t *testing.T) {
	if VectorKernels() == "" {
		t.Log("no vector kernels in this build (GOEXPERIMENT=simd, AVX2): both sides are the portable loop")
	} else {
		t.Logf("vector kernels: %s", VectorKernels())
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 1000, 4099} {
		dd, sd := make([]float32, n), make([]float32, n)
		du, su := make([]uint32, n), make([]uint32, n)
		dc, sc := make([]uint32, n), make([]uint32, n)
		for i := range n {
			switch run := i / 16 % 4; {
			case run == 0: // src nearer throughout
				sd[i], dd[i] = 0.25, 0.75
				su[i], du[i] = 1, 0xffffffff
			case run == 1: // dst nearer throughout
				sd[i], dd[i] = 0.75, 0.25
				su[i], du[i] = 0xfffffffe, 3
			default:
				sd[i], dd[i] = float32(r.IntN(8))/8, float32(r.IntN(8))/8 // many ties
				su[i], du[i] = r.Uint32()>>r.IntN(32), r.Uint32()>>r.IntN(32)
			}
			if r.IntN(50) == 0 {
				sd[i] = float32(math.NaN())
			}
			if r.IntN(50) == 0 {
				dd[i] = float32(math.NaN())
			}
			dc[i], sc[i] = r.Uint32(), r.Uint32()
		}
		for _, kind := range []string{"float", "uint"} {
			wantC, gotC := slices.Clone(dc), slices.Clone(dc)
			var same bool
			if kind == "float" {
				want, got := slices.Clone(dd), slices.Clone(dd)
				mergeNearest(want, sd, wantC, sc)
				done := mergeNearestFloatVector(got, sd, gotC, sc)
				mergeNearest(got[done:], sd[done:], gotC[done:], sc[done:])
				same = slices.EqualFunc(want, got, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) })
			} else {
				want, got := slices.Clone(du), slices.Clone(du)
				mergeNearest(want, su, wantC, sc)
				done := mergeNearestUintVector(got, su, gotC, sc)
				mergeNearest(got[done:], su[done:], gotC[done:], sc[done:])
				same = slices.Equal(want, got)
			}
			if !same || !slices.Equal(wantC, gotC) {
				t.Errorf("%s depth, %d pixels: the vector merge differs from the portable one", kind, n)
			}
		}
	}
}

// The vector blend and over() agree on every pixel, in both directions:
// random pixels (also invalid premultiplied ones, which saturate), fully
// transparent and opaque fronts, at lengths that leave a tail.
func TestVectorBlendEqualsPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 5, 8, 13, 4096 + 3} {
		dc, sc := make([]uint32, n), make([]uint32, n)
		for i := range n {
			dc[i], sc[i] = r.Uint32(), r.Uint32()
			switch r.IntN(6) {
			case 0:
				sc[i] = 0
			case 1:
				sc[i] |= 0xff000000
			case 2:
				dc[i] &= 0x00ffffff
			case 3: // valid premultiplied: no channel above alpha
				a := sc[i] >> 24
				sc[i] = a<<24 | min(sc[i]>>16&0xff, a)<<16 | min(sc[i]>>8&0xff, a)<<8 | min(sc[i]&0xff, a)
			}
		}
		for _, srcInFront := range []bool{false, true} {
			want, got := slices.Clone(dc), slices.Clone(dc)
			for i := range want {
				if srcInFront {
					want[i] = over(sc[i], want[i])
				} else {
					want[i] = over(want[i], sc[i])
				}
			}
			done := blendVector(got, sc, srcInFront)
			for i := done; i < n; i++ {
				if srcInFront {
					got[i] = over(sc[i], got[i])
				} else {
					got[i] = over(got[i], sc[i])
				}
			}
			if !slices.Equal(want, got) {
				for i := range want {
					if want[i] != got[i] {
						t.Fatalf("%d pixels, src in front %v: pixel %d: over(%08x, %08x) = %08x, vector %08x", n, srcInFront, i, sc[i], dc[i], want[i], got[i])
					}
				}
			}
		}
	}
}
