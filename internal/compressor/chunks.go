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

func (s2Codec) encode(dst, src []byte) []byte      { return append(dst, s2.Encode(nil, src)...) }
func (s2Codec) decode(dst, src []byte) error       { return s2Into(dst, src) }
func (s2Codec) decodedLen(src []byte) (int, error) { return s2Len(src) }

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
	return append(dst, s2.Encode(nil, toPlanes(src))...)
}

func (planesCodec) decodedLen(src []byte) (int, error) { return s2Len(src) }

func (planesCodec) decode(dst, src []byte) error {
	tmp := make([]byte, len(dst))
	if err := s2Into(tmp, src); err != nil {
		return err
	}
	fromPlanes(dst, tmp)
	return nil
}

func toPlanes(src []byte) []byte {
	n := len(src) / 4
	out := make([]byte, len(src))
	p0, p1, p2, p3 := out[:n], out[n:2*n], out[2*n:3*n], out[3*n:]
	for i := 0; i < n; i++ {
		s := src[4*i : 4*i+4 : 4*i+4]
		p0[i], p1[i], p2[i], p3[i] = s[0], s[1], s[2], s[3]
	}
	return out
}

func fromPlanes(dst, planes []byte) {
	n := len(dst) / 4
	p0, p1, p2, p3 := planes[:n], planes[n:2*n], planes[2*n:3*n], planes[3*n:]
	for i := 0; i < n; i++ {
		d := dst[4*i : 4*i+4 : 4*i+4]
		d[0], d[1], d[2], d[3] = p0[i], p1[i], p2[i], p3[i]
	}
}

// deltaCodec is for depth: each 32-bit value minus its left neighbour (row
// by row), then byte planes, then s2. Smooth depth becomes mostly small
// deltas whose high planes are zero.
type deltaCodec struct{}

func (deltaCodec) encode(dst, src []byte) []byte {
	d := make([]byte, len(src))
	var prev uint32
	for i := 0; i+4 <= len(src); i += 4 {
		v := binary.LittleEndian.Uint32(src[i:])
		binary.LittleEndian.PutUint32(d[i:], v-prev)
		prev = v
	}
	return append(dst, s2.Encode(nil, toPlanes(d))...)
}

func (deltaCodec) decodedLen(src []byte) (int, error) { return s2Len(src) }

func (deltaCodec) decode(dst, src []byte) error {
	tmp := make([]byte, len(dst))
	if err := s2Into(tmp, src); err != nil {
		return err
	}
	fromPlanes(dst, tmp)
	var prev uint32
	for i := 0; i+4 <= len(dst); i += 4 {
		prev += binary.LittleEndian.Uint32(dst[i:])
		binary.LittleEndian.PutUint32(dst[i:], prev)
	}
	return nil
}

// rleCodec codes runs of identical 32-bit pixels. A control byte c < 128
// is followed by c+1 literal pixels; c >= 128 by one pixel repeated
// c-126 times (2..129).
type rleCodec struct{}

func (rleCodec) encode(dst, src []byte) []byte {
	n := len(src) / 4
	px := func(i int) uint32 { return binary.LittleEndian.Uint32(src[4*i:]) }
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
		j := i + 1
		for j < n && j-i < 129 && px(j) == px(i) {
			j++
		}
		if j-i >= 2 {
			flush(i)
			dst = append(dst, byte(j-i+126))
			dst = append(dst, src[4*i:4*i+4]...)
		} else if lit < 0 {
			lit = i
		}
		i = j
	}
	flush(n)
	return dst
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
		for r := 0; r < k; r++ {
			copy(dst[o:o+4], src[i:i+4])
			o += 4
		}
		i += 4
	}
	if o != len(dst) {
		return corrupt("rle chunk decodes to %d bytes, want %d", o, len(dst))
	}
	return nil
}

// planeRLECodec codes each byte plane with byte runs (PackBits style: a
// control byte c < 128 is followed by c+1 literal bytes, c >= 128 by one
// byte repeated c-126 times). Alpha and the high bytes of depth are long
// runs even where neighbouring pixels differ.
type planeRLECodec struct{}

func (planeRLECodec) encode(dst, src []byte) []byte {
	p := toPlanes(src)
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
		j := i + 1
		for j < len(p) && j-i < 129 && p[j] == p[i] {
			j++
		}
		if j-i >= 3 {
			flush(i)
			dst = append(dst, byte(j-i+126), p[i])
		} else if lit < 0 {
			lit = i
		}
		if j-i < 3 {
			j = i + 1
		}
		i = j
	}
	flush(len(p))
	return dst
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
	p := make([]byte, len(dst))
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
		for r := 0; r < k; r++ {
			p[o+r] = src[i]
		}
		i, o = i+1, o+k
	}
	if o != len(p) {
		return corrupt("plane rle chunk decodes to %d bytes, want %d", o, len(p))
	}
	fromPlanes(dst, p)
	return nil
}
