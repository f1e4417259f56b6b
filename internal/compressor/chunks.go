package compressor

import (
	"bytes"
	"encoding/binary"
	"io"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

type noneCodec struct{}

func (noneCodec) encode(dst, src []byte) []byte      { return append(dst, src...) }
func (noneCodec) decodedLen(src []byte) (int, error) { return len(src), nil }
func (noneCodec) decode(dst, src []byte) error {
	if len(src) != len(dst) {
		return corrupt("raw chunk has %d bytes, want %d", len(src), len(dst))
	}
	copy(dst, src)
	return nil
}

type s2Codec struct{}

func (s2Codec) encode(dst, src []byte) []byte      { return s2Append(dst, src) }
func (s2Codec) decode(dst, src []byte) error       { return s2Into(dst, src) }
func (s2Codec) decodedLen(src []byte) (int, error) { return s2Len(src) }

// s2Append appends src's s2 block to dst. s2.Encode wants an output
// buffer of the worst-case size, larger than src, and would allocate and
// zero one for every chunk of every frame; a recycled one is used instead.
func s2Append(dst, src []byte) []byte {
	n := s2.MaxEncodedLen(len(src))
	if n < 0 { // too large for a block: s2 says so
		return append(dst, s2.Encode(nil, src)...)
	}
	out := scratch(n)
	defer release(out)
	return append(dst, s2.Encode(*out, src)...)
}

// s2Len is the length an s2 block declares.
func s2Len(src []byte) (int, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return 0, corrupt("s2: %v", err)
	}
	return n, nil
}

// s2Into decodes an s2 block that must expand to exactly len(dst) bytes.
func s2Into(dst, src []byte) error {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return corrupt("s2: %v", err)
	}
	if n != len(dst) {
		return corrupt("s2 block expands to %d bytes, want %d", n, len(dst))
	}
	out, err := s2.Decode(dst, src)
	if err != nil {
		return corrupt("s2: %v", err)
	}
	if len(dst) > 0 && &out[0] != &dst[0] {
		copy(dst, out)
	}
	return nil
}

var (
	zstdEncoders = sync.Pool{New: func() any {
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(zstdWindow))
		return e
	}}
	zstdDecoders = sync.Pool{New: func() any {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdWindow))
		return d
	}}
)

// zstdWindow bounds the decoder's history buffer: decoding streams into the
// chunk, so memory stays at the chunk plus this window whatever the input.
const zstdWindow = 4 << 20

type zstdCodec struct{}

func (zstdCodec) encode(dst, src []byte) []byte {
	e := zstdEncoders.Get().(*zstd.Encoder)
	defer zstdEncoders.Put(e)
	return e.EncodeAll(src, dst)
}

func (zstdCodec) decodedLen(src []byte) (int, error) {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return 0, corrupt("zstd: %v", err)
	}
	if !h.HasFCS {
		return unknownLen, nil // the encoder leaves it out for tiny inputs
	}
	if h.FrameContentSize > 1<<40 {
		return 0, corrupt("zstd frame declares %d bytes", h.FrameContentSize)
	}
	return int(h.FrameContentSize), nil
}

func (zstdCodec) decode(dst, src []byte) error {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return corrupt("zstd: %v", err)
	}
	if h.HasFCS && h.FrameContentSize != uint64(len(dst)) {
		return corrupt("zstd frame declares %d bytes, want %d", h.FrameContentSize, len(dst))
	}
	d := zstdDecoders.Get().(*zstd.Decoder)
	defer zstdDecoders.Put(d)
	if err := d.Reset(bytes.NewReader(src)); err != nil {
		return corrupt("zstd: %v", err)
	}
	if _, err := io.ReadFull(d, dst); err != nil {
		return corrupt("zstd: %v", err)
	}
	var extra [1]byte
	if n, err := d.Read(extra[:]); n != 0 || err != io.EOF {
		return corrupt("zstd stream holds more than %d bytes", len(dst))
	}
	return nil
}

// planesCodec splits 4-byte pixels into 4 byte planes before s2: each plane
// is smoother than the interleaved bytes.
type planesCodec struct{}

func (planesCodec) encode(dst, src []byte) []byte {
	p := scratch(len(src))
	defer release(p)
	toPlanes(*p, src)
	return s2Append(dst, *p)
}

func (planesCodec) decodedLen(src []byte) (int, error) { return s2Len(src) }

func (planesCodec) decode(dst, src []byte) error {
	p := scratch(len(dst))
	defer release(p)
	if err := s2Into(*p, src); err != nil {
		return err
	}
	fromPlanes(dst, *p)
	return nil
}

// scratchBuffers keeps the buffers that byte planes and deltas are built
// in while a chunk is coded: a chunk is megabytes, and a fresh buffer's
// page faults and clearing cost more than splitting the planes.
var scratchBuffers sync.Pool

func scratch(n int) *[]byte {
	if b, ok := scratchBuffers.Get().(*[]byte); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n)
	return &b
}

func release(b *[]byte) { scratchBuffers.Put(b) }

// toPlanes splits src's 4-byte pixels into planes: the pixels' first
// bytes, then their second, and so on.
func toPlanes(planes, src []byte) {
	n := len(src) / 4
	p0, p1, p2, p3 := planes[:n], planes[n:2*n], planes[2*n:3*n], planes[3*n:4*n]
	for i := planesVector(planes, src); i < n; i++ {
		s := src[4*i : 4*i+4 : 4*i+4]
		p0[i], p1[i], p2[i], p3[i] = s[0], s[1], s[2], s[3]
	}
}

func fromPlanes(dst, planes []byte) {
	n := len(dst) / 4
	p0, p1, p2, p3 := planes[:n], planes[n:2*n], planes[2*n:3*n], planes[3*n:4*n]
	for i := interleaveVector(dst, planes); i < n; i++ {
		d := dst[4*i : 4*i+4 : 4*i+4]
		d[0], d[1], d[2], d[3] = p0[i], p1[i], p2[i], p3[i]
	}
}

// deltaCodec is for depth: each 32-bit value minus its left neighbour (row
// by row), then byte planes, then s2. Smooth depth becomes mostly small
// deltas whose high planes are zero.
type deltaCodec struct{}

func (deltaCodec) encode(dst, src []byte) []byte {
	d, p := scratch(len(src)), scratch(len(src))
	defer release(d)
	defer release(p)
	deltas(*d, src)
	toPlanes(*p, *d)
	return s2Append(dst, *p)
}

// deltas sets each 32-bit word of d to src's word less the one before it.
func deltas(d, src []byte) {
	n := len(src) / 4
	if n == 0 {
		return
	}
	copy(d[:4], src[:4])
	i := max(deltasVector(d, src), 1)
	for prev := pixel(src, i-1); i < n; i++ {
		v := pixel(src, i)
		binary.LittleEndian.PutUint32(d[4*i:], v-prev)
		prev = v
	}
}

func (deltaCodec) decodedLen(src []byte) (int, error) { return s2Len(src) }

func (deltaCodec) decode(dst, src []byte) error {
	p := scratch(len(dst))
	defer release(p)
	if err := s2Into(*p, src); err != nil {
		return err
	}
	fromPlanes(dst, *p)
	var prev uint32
	for i := 0; i+4 <= len(dst); i += 4 {
		w := dst[i : i+4 : i+4]
		prev += binary.LittleEndian.Uint32(w)
		binary.LittleEndian.PutUint32(w, prev)
	}
	return nil
}

// rleCodec codes runs of identical 32-bit pixels. A control byte c < 128
// is followed by c+1 literal pixels; c >= 128 by one pixel repeated
// c-126 times (2..129).
type rleCodec struct{}

func (rleCodec) encode(dst, src []byte) []byte {
	n := len(src) / 4
	lit := -1 // start of the pending literal run
	flush := func(end int) {
		for lit >= 0 && lit < end {
			k := min(end-lit, 128)
			dst = append(dst, byte(k-1))
			dst = append(dst, src[4*lit:4*(lit+k)]...)
			lit += k
		}
		lit = -1
	}
	for i := 0; i < n; {
		if j := pixelRunEnd(src, i, min(n, i+129)); j-i >= 2 {
			flush(i)
			dst = append(dst, byte(j-i+126))
			dst = append(dst, src[4*i:4*i+4]...)
			i = j
			continue
		}
		// a literal up to the next pixel that its neighbour repeats
		if lit < 0 {
			lit = i
		}
		i = nextPixelPair(src, i+1, n)
	}
	flush(n)
	return dst
}

func pixel(src []byte, i int) uint32 { return binary.LittleEndian.Uint32(src[4*i:]) }

// pixelRunEnd is the first pixel after i, before limit, that differs from
// pixel i (limit if none).
func pixelRunEnd(src []byte, i, limit int) int {
	j, found := pixelRunVector(src, i, i+1, limit)
	if found {
		return j
	}
	for px := pixel(src, i); j < limit && pixel(src, j) == px; j++ {
	}
	return j
}

// nextPixelPair is the first pixel from k on that the next pixel repeats
// (n if none).
func nextPixelPair(src []byte, k, n int) int {
	k, found := pixelPairVector(src, k, n)
	if found {
		return k
	}
	for ; k+1 < n; k++ {
		if pixel(src, k) == pixel(src, k+1) {
			return k
		}
	}
	return n
}

// decodedLen walks the control bytes: the length the runs add up to.
func (rleCodec) decodedLen(src []byte) (int, error) {
	n := 0
	for i := 0; i < len(src); {
		c := int(src[i])
		i++
		if c < 128 {
			i += 4 * (c + 1)
			n += 4 * (c + 1)
		} else {
			i += 4
			n += 4 * (c - 126)
		}
		if i > len(src) {
			return 0, corrupt("rle chunk truncated")
		}
	}
	return n, nil
}

func (rleCodec) decode(dst, src []byte) error {
	o := 0
	for i := 0; i < len(src); {
		c := int(src[i])
		i++
		if c < 128 {
			k := 4 * (c + 1)
			if i+k > len(src) || o+k > len(dst) {
				return corrupt("rle literal overruns")
			}
			copy(dst[o:], src[i:i+k])
			i, o = i+k, o+k
			continue
		}
		k := c - 126
		if i+4 > len(src) || o+4*k > len(dst) {
			return corrupt("rle run overruns")
		}
		repeat(dst[o:o+4*k], src[i:i+4])
		o += 4 * k
		i += 4
	}
	if o != len(dst) {
		return corrupt("rle chunk decodes to %d bytes, want %d", o, len(dst))
	}
	return nil
}

// repeat fills dst with copies of unit, doubling what is filled with each
// copy.
func repeat(dst, unit []byte) {
	f := copy(dst, unit)
	for f < len(dst) {
		f += copy(dst[f:], dst[:f])
	}
}

// fillRun sets p[o:o+n] to b. Where p has room past the run it writes
// whole 8-byte words, up to 7 bytes past the run's end, which the bytes
// decoded after the run overwrite: byte runs are short (up to 129), and
// there word stores beat doubling copies (plane-rle decodes 1.5-1.9x
// faster; pixel runs, 4 times longer, gain nothing).
func fillRun(p []byte, o, n int, b byte) {
	if o+n+8 > len(p) {
		repeat(p[o:o+n], []byte{b})
		return
	}
	w := uint64(b) * 0x0101010101010101
	for j := o; j < o+n; j += 8 {
		binary.LittleEndian.PutUint64(p[j:j+8:j+8], w)
	}
}

// planeRLECodec codes each byte plane with byte runs (PackBits style: a
// control byte c < 128 is followed by c+1 literal bytes, c >= 128 by one
// byte repeated c-126 times). Alpha and the high bytes of depth are long
// runs even where neighbouring pixels differ.
type planeRLECodec struct{}

func (planeRLECodec) encode(dst, src []byte) []byte {
	planes := scratch(len(src))
	defer release(planes)
	p := *planes
	toPlanes(p, src)
	lit := -1
	flush := func(end int) {
		for lit >= 0 && lit < end {
			k := min(end-lit, 128)
			dst = append(dst, byte(k-1))
			dst = append(dst, p[lit:lit+k]...)
			lit += k
		}
		lit = -1
	}
	for i := 0; i < len(p); {
		if j := byteRunEnd(p, i, min(len(p), i+129)); j-i >= 3 {
			flush(i)
			dst = append(dst, byte(j-i+126), p[i])
			i = j
			continue
		}
		// a literal up to the next byte repeated twice after it
		if lit < 0 {
			lit = i
		}
		i = nextByteTriple(p, i+1, len(p))
	}
	flush(len(p))
	return dst
}

// byteRunEnd is the first byte after i, before limit, that differs from
// p[i] (limit if none).
func byteRunEnd(p []byte, i, limit int) int {
	j, found := byteRunVector(p, i, i+1, limit)
	if found {
		return j
	}
	for j < limit && p[j] == p[i] {
		j++
	}
	return j
}

// nextByteTriple is the first byte from k on that the next two repeat (n
// if none).
func nextByteTriple(p []byte, k, n int) int {
	k, found := byteTripleVector(p, k, n)
	if found {
		return k
	}
	for ; k+2 < n; k++ {
		if p[k] == p[k+1] && p[k] == p[k+2] {
			return k
		}
	}
	return n
}

func (planeRLECodec) decodedLen(src []byte) (int, error) {
	n := 0
	for i := 0; i < len(src); {
		c := int(src[i])
		i++
		if c < 128 {
			i += c + 1
			n += c + 1
		} else {
			i++
			n += c - 126
		}
		if i > len(src) {
			return 0, corrupt("plane rle chunk truncated")
		}
	}
	return n, nil
}

func (planeRLECodec) decode(dst, src []byte) error {
	planes := scratch(len(dst))
	defer release(planes)
	p := *planes
	o := 0
	for i := 0; i < len(src); {
		c := int(src[i])
		i++
		if c < 128 {
			k := c + 1
			if i+k > len(src) || o+k > len(p) {
				return corrupt("plane rle literal overruns")
			}
			copy(p[o:], src[i:i+k])
			i, o = i+k, o+k
			continue
		}
		k := c - 126
		if i >= len(src) || o+k > len(p) {
			return corrupt("plane rle run overruns")
		}
		fillRun(p, o, k, src[i])
		i, o = i+1, o+k
	}
	if o != len(p) {
		return corrupt("plane rle chunk decodes to %d bytes, want %d", o, len(p))
	}
	fromPlanes(dst, p)
	return nil
}
