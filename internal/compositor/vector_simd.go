//go:build goexperiment.simd && amd64

package compositor

import "simd/archsimd"

// The depth merge with AVX2, eight pixels a step: the scalar loop's
// data-dependent branch mispredicts along every silhouette, and it moves
// one word at a time. The merge is bound by memory traffic, so colour is
// touched only where it changes: where all eight pixels keep dst nothing
// is written, and where src wins all eight dst's colour is not read.

var haveAVX2 = archsimd.X86.AVX2()

// VectorKernels names the instruction set of the vector kernels that the
// depth merge and the blends use ("AVX2"), or "" where the portable loops
// run (a build without GOEXPERIMENT=simd, or a CPU without AVX2).
func VectorKernels() string {
	if haveAVX2 {
		return "AVX2"
	}
	return ""
}

// mergeNearestFloatVector merges the first len(dd)&^7 pixels and returns
// how many it did (0 without AVX2; the caller finishes the rest).
func mergeNearestFloatVector(dd, sd []float32, dc, sc []uint32) int {
	if !haveAVX2 {
		return 0
	}
	n := len(dd) &^ 7
	sd, dc, sc = sd[:n], dc[:n], sc[:n]
	for i := 0; i < n; i += 8 {
		d := archsimd.LoadFloat32x8((*[8]float32)(dd[i : i+8]))
		s := archsimd.LoadFloat32x8((*[8]float32)(sd[i : i+8]))
		nearer := s.Less(d) // false for NaN, as in the scalar loop
		switch nearer.ToBits() {
		case 0:
		case 0xff:
			s.Store((*[8]float32)(dd[i : i+8]))
			archsimd.LoadUint32x8((*[8]uint32)(sc[i : i+8])).Store((*[8]uint32)(dc[i : i+8]))
		default:
			s.Merge(d, nearer).Store((*[8]float32)(dd[i : i+8]))
			c := archsimd.LoadUint32x8((*[8]uint32)(sc[i : i+8]))
			c.Merge(archsimd.LoadUint32x8((*[8]uint32)(dc[i:i+8])), nearer).Store((*[8]uint32)(dc[i : i+8]))
		}
	}
	return n
}

// mergeNearestUintVector is mergeNearestFloatVector for integer depth.
func mergeNearestUintVector(dd, sd []uint32, dc, sc []uint32) int {
	if !haveAVX2 {
		return 0
	}
	n := len(dd) &^ 7
	sd, dc, sc = sd[:n], dc[:n], sc[:n]
	for i := 0; i < n; i += 8 {
		d := archsimd.LoadUint32x8((*[8]uint32)(dd[i : i+8]))
		s := archsimd.LoadUint32x8((*[8]uint32)(sd[i : i+8]))
		nearer := s.Less(d)
		switch nearer.ToBits() {
		case 0:
		case 0xff:
			s.Store((*[8]uint32)(dd[i : i+8]))
			archsimd.LoadUint32x8((*[8]uint32)(sc[i : i+8])).Store((*[8]uint32)(dc[i : i+8]))
		default:
			s.Merge(d, nearer).Store((*[8]uint32)(dd[i : i+8]))
			c := archsimd.LoadUint32x8((*[8]uint32)(sc[i : i+8]))
			c.Merge(archsimd.LoadUint32x8((*[8]uint32)(dc[i:i+8])), nearer).Store((*[8]uint32)(dc[i : i+8]))
		}
	}
	return n
}

// blendVector composites eight pixels a step, front over back, with
// over's arithmetic in 32-bit lanes (its special cases are the same
// formula's results, so no lane needs a branch); front is sc when
// srcInFront, else dc. It returns how many pixels it did.
func blendVector(dc, sc []uint32, srcInFront bool) int {
	if !haveAVX2 {
		return 0
	}
	n := len(dc) &^ 7
	sc = sc[:n]
	low := archsimd.BroadcastUint32x8(0x00ff00ff)
	high := archsimd.BroadcastUint32x8(0xff00ff00)
	half := archsimd.BroadcastUint32x8(0x00800080)
	opaque := archsimd.BroadcastUint32x8(255)
	// shifts by a vector of counts: the shift-by-scalar form moves its
	// count through a legacy SSE register each time, which made this loop
	// ten times slower than the scalar one
	by8, by24 := archsimd.BroadcastUint32x8(8), archsimd.BroadcastUint32x8(24)
	for i := 0; i < n; i += 8 {
		d := archsimd.LoadUint32x8((*[8]uint32)(dc[i : i+8]))
		s := archsimd.LoadUint32x8((*[8]uint32)(sc[i : i+8]))
		front, back := d, s
		if srcInFront {
			front, back = s, d
		}
		k := opaque.Sub(front.ShiftRight(by24))
		rb := back.And(low).Mul(k).Add(half)
		ag := back.ShiftRight(by8).And(low).Mul(k).Add(half)
		rb = rb.Add(rb.ShiftRight(by8).And(low)).ShiftRight(by8).And(low)
		ag = ag.Add(ag.ShiftRight(by8).And(low)).And(high)
		front.AsUint8x32().AddSaturated(rb.Or(ag).AsUint8x32()).AsUint32x8().Store((*[8]uint32)(dc[i : i+8]))
	}
	return n
}
