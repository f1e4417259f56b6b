//go:build goexperiment.simd && amd64

package compressor

import (
	"encoding/binary"
	"math/bits"
	"simd/archsimd"
)

// The byte-plane and run-length codecs' inner loops with AVX2. The scalar
// loops move or compare one byte or pixel at a time; these do 32 bytes or
// 8 pixels a step. Each kernel does what a scalar helper in chunks.go
// does and leaves the rest (tails, machines without AVX2) to it, so the
// encodings are the same bytes either way (vector_test.go).

var haveAVX2 = archsimd.X86.AVX2()

// VectorKernels names the instruction set of the codecs' vector kernels
// ("AVX2"), or "" where the portable loops run (a build without
// GOEXPERIMENT=simd, or a CPU without AVX2).
func VectorKernels() string {
	if haveAVX2 {
		return "AVX2"
	}
	return ""
}

// byPlane gathers, in each 128-bit half, the first bytes of its four
// pixels, then the second bytes, and so on; it is its own inverse.
var byPlane = [32]int8{
	0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
	0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
}

// planesVector splits the first n&^31 of the n pixels in src into the
// byte planes of planes (plane k at planes[k*n:]), 32 pixels a step, and
// returns how many pixels it did.
func planesVector(planes, src []byte) int {
	if !haveAVX2 {
		return 0
	}
	n := len(src) / 4
	done := n &^ 31
	shuffle := archsimd.LoadInt8x32(&byPlane)
	// after the in-lane shuffle a vector's 32-bit words are the planes of
	// pixels 0-3 then 4-7; this puts each plane's 8 bytes together
	pair := archsimd.LoadUint32x8(&[8]uint32{0, 4, 1, 5, 2, 6, 3, 7})
	// after the shuffle and pairing, u_k holds 8 bytes of each plane for
	// pixels 8k..8k+7, as the four 64-bit words (plane 0, 1, 2, 3); each
	// vector is a variable of its own: an array of them goes through the
	// stack (in interleaveVector, half-width copies made it 4x slower)
	group := func(v archsimd.Uint8x32) archsimd.Uint64x4 {
		return v.PermuteOrZeroGrouped(shuffle).AsUint32x8().Permute(pair).AsUint64x4()
	}
	for i := 0; i < done; i += 32 {
		s := src[4*i : 4*i+128 : 4*i+128]
		u0 := group(archsimd.LoadUint8x32((*[32]byte)(s[0:])))
		u1 := group(archsimd.LoadUint8x32((*[32]byte)(s[32:])))
		u2 := group(archsimd.LoadUint8x32((*[32]byte)(s[64:])))
		u3 := group(archsimd.LoadUint8x32((*[32]byte)(s[96:])))
		// a 4x4 transpose of 64-bit words: plane k's 32 bytes together
		lo01, hi01 := u0.InterleaveLoGrouped(u1), u0.InterleaveHiGrouped(u1)
		lo23, hi23 := u2.InterleaveLoGrouped(u3), u2.InterleaveHiGrouped(u3)
		lo01.Select128FromPair(0, 2, lo23).AsUint8x32().Store((*[32]byte)(planes[i:]))
		hi01.Select128FromPair(0, 2, hi23).AsUint8x32().Store((*[32]byte)(planes[n+i:]))
		lo01.Select128FromPair(1, 3, lo23).AsUint8x32().Store((*[32]byte)(planes[2*n+i:]))
		hi01.Select128FromPair(1, 3, hi23).AsUint8x32().Store((*[32]byte)(planes[3*n+i:]))
	}
	return done
}

// interleaveVector is planesVector backwards: it puts the first n&^31 of
// the n pixels of dst together from the planes and returns how many.
func interleaveVector(dst, planes []byte) int {
	if !haveAVX2 {
		return 0
	}
	n := len(dst) / 4
	done := n &^ 31
	shuffle := archsimd.LoadInt8x32(&byPlane)
	unpair := archsimd.LoadUint32x8(&[8]uint32{0, 2, 4, 6, 1, 3, 5, 7})
	ungroup := func(w archsimd.Uint64x4) archsimd.Uint8x32 {
		return w.AsUint32x8().Permute(unpair).AsUint8x32().PermuteOrZeroGrouped(shuffle)
	}
	for i := 0; i < done; i += 32 {
		p0 := archsimd.LoadUint8x32((*[32]byte)(planes[i:])).AsUint64x4()
		p1 := archsimd.LoadUint8x32((*[32]byte)(planes[n+i:])).AsUint64x4()
		p2 := archsimd.LoadUint8x32((*[32]byte)(planes[2*n+i:])).AsUint64x4()
		p3 := archsimd.LoadUint8x32((*[32]byte)(planes[3*n+i:])).AsUint64x4()
		lo01, hi01 := p0.Select128FromPair(0, 2, p2), p1.Select128FromPair(0, 2, p3)
		lo23, hi23 := p0.Select128FromPair(1, 3, p2), p1.Select128FromPair(1, 3, p3)
		d := dst[4*i : 4*i+128 : 4*i+128]
		ungroup(lo01.InterleaveLoGrouped(hi01)).Store((*[32]byte)(d[0:]))
		ungroup(lo01.InterleaveHiGrouped(hi01)).Store((*[32]byte)(d[32:]))
		ungroup(lo23.InterleaveLoGrouped(hi23)).Store((*[32]byte)(d[64:]))
		ungroup(lo23.InterleaveHiGrouped(hi23)).Store((*[32]byte)(d[96:]))
	}
	return done
}

// pixelRunVector is pixelRunEnd's vector part: from j, 8 pixels a step
// while all equal px(i) and j+8 <= limit; it returns where it stopped and
// whether it found the run's end there.
func pixelRunVector(src []byte, i, j, limit int) (int, bool) {
	if !haveAVX2 {
		return j, false
	}
	v := archsimd.BroadcastUint32x8(binary.LittleEndian.Uint32(src[4*i:]))
	for ; j+8 <= limit; j += 8 {
		same := archsimd.LoadUint8x32((*[32]byte)(src[4*j:])).AsUint32x8().Equal(v).ToBits()
		if same != 0xff {
			return j + bits.TrailingZeros8(^same), true
		}
	}
	return j, false
}

// pixelPairVector is nextPixelPair's vector part: from k, 8 pixels a
// step while k+9 <= n, the first pixel equal to the next; it returns
// where it stopped and whether it found one there.
func pixelPairVector(src []byte, k, n int) (int, bool) {
	if !haveAVX2 {
		return k, false
	}
	for ; k+9 <= n; k += 8 {
		a := archsimd.LoadUint8x32((*[32]byte)(src[4*k:])).AsUint32x8()
		b := archsimd.LoadUint8x32((*[32]byte)(src[4*k+4:])).AsUint32x8()
		if eq := a.Equal(b).ToBits(); eq != 0 {
			return k + bits.TrailingZeros8(eq), true
		}
	}
	return k, false
}

// byteRunVector is byteRunEnd's vector part, 32 bytes a step.
func byteRunVector(p []byte, i, j, limit int) (int, bool) {
	if !haveAVX2 {
		return j, false
	}
	v := archsimd.BroadcastUint8x32(p[i])
	for ; j+32 <= limit; j += 32 {
		same := archsimd.LoadUint8x32((*[32]byte)(p[j:])).Equal(v).ToBits()
		if same != 0xffffffff {
			return j + bits.TrailingZeros32(^same), true
		}
	}
	return j, false
}

// byteTripleVector is nextByteTriple's vector part, 32 bytes a step while
// k+34 <= n.
func byteTripleVector(p []byte, k, n int) (int, bool) {
	if !haveAVX2 {
		return k, false
	}
	for ; k+34 <= n; k += 32 {
		a := archsimd.LoadUint8x32((*[32]byte)(p[k:]))
		b := archsimd.LoadUint8x32((*[32]byte)(p[k+1:]))
		c := archsimd.LoadUint8x32((*[32]byte)(p[k+2:]))
		if three := a.Equal(b).ToBits() & b.Equal(c).ToBits(); three != 0 {
			return k + bits.TrailingZeros32(three), true
		}
	}
	return k, false
}

// deltasVector is deltas' vector part: from word 1 on, 8 words a step, it
// subtracts from each the word before (an overlapping load) and returns
// where it stopped (0 without AVX2).
func deltasVector(d, src []byte) int {
	if !haveAVX2 {
		return 0
	}
	n := len(src) / 4
	i := 1
	for ; i+8 <= n; i += 8 {
		v := archsimd.LoadUint8x32((*[32]byte)(src[4*i:])).AsUint32x8()
		before := archsimd.LoadUint8x32((*[32]byte)(src[4*i-4:])).AsUint32x8()
		v.Sub(before).AsUint8x32().Store((*[32]byte)(d[4*i:]))
	}
	return i
}
