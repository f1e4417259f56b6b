package transport

import (
	"encoding/binary"
	"unsafe"
)

// Depth travels as little-endian float32s. On a little-endian machine
// that is how a []float32 lies in memory, so the sender encodes from the
// slice's own bytes, and the receiver reads raw depth where it arrived or
// decodes coded depth into a plane's bytes (planes.go). At 1080p this
// saved a loop over 2M values and an 8 MB allocation (zeroed, then
// faulted in) on each side, per frame and source.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// wireDepth returns depth as the bytes the wire carries: a view of its
// memory where the machine is little-endian, otherwise a converted copy.
func wireDepth(depth []float32) []byte {
	if len(depth) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&depth[0])), 4*len(depth))
	}
	b := make([]byte, 4*len(depth))
	for i, d := range depth {
		binary.LittleEndian.PutUint32(b[4*i:], float32bits(d))
	}
	return b
}

// depthView returns raw depth bytes from the wire as float32s without a
// copy, where the machine is little-endian and the bytes are aligned.
func depthView(b []byte) ([]float32, bool) {
	if !littleEndian || len(b) == 0 || len(b)%4 != 0 || uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4), true
}

// fromWire turns depth, just decoded into wireDepth(depth)'s bytes, into
// float32s: nothing to do where the machine is little-endian.
func fromWire(depth []float32, b []byte) {
	if littleEndian {
		return
	}
	for i := range depth {
		depth[i] = float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
