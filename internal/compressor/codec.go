// Package compressor packs pixel frames for the wire: RGBA8 colour and
// depth (32-bit float or integer). A frame is cut into row chunks encoded in
// parallel; each codec is lossless. Decoding is hardened: a malformed or
// truncated input returns an error and never allocates beyond the frame size
// its header declares (itself bounded).
//
// Codecs: None; S2 and Zstd (klauspost/compress); Planes (RGBA split into
// byte planes, then S2); RLE (runs of identical 32-bit pixels); PlaneRLE
// (byte runs per plane); Delta (row delta of 32-bit values, byte planes,
// S2: for depth). Chooser picks the
// codec that minimises encode + transfer + decode time for a link.
package compressor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goeq/goeq/internal/procstat"
)

// Format is what a frame holds; every format has 4 bytes per pixel.
type Format uint8

const (
	RGBA8         Format = 1
	DepthF32      Format = 2
	DepthU32      Format = 3 // 24-bit depth in the low bits, or full 32-bit
	bytesPerPixel        = 4
)

func (f Format) String() string {
	switch f {
	case RGBA8:
		return "rgba8"
	case DepthF32:
		return "depth-f32"
	case DepthU32:
		return "depth-u32"
	}
	return fmt.Sprintf("format(%d)", uint8(f))
}

// Codec identifies a compression method.
type Codec uint8

const (
	None Codec = iota
	S2
	Zstd
	Planes
	RLE
	Delta
	PlaneRLE
	numCodecs
)

var codecNames = [...]string{"none", "s2", "zstd", "planes-s2", "rle", "delta-s2", "plane-rle"}

func (c Codec) String() string {
	if int(c) < len(codecNames) {
		return codecNames[c]
	}
	return fmt.Sprintf("codec(%d)", uint8(c))
}

// Codecs lists every codec.
func Codecs() []Codec { return []Codec{None, S2, Zstd, Planes, RLE, Delta, PlaneRLE} }

// ParseChoice reads a choice of codec (eqserver run --codec): "auto", or
// "", lets each link's Chooser pick; a codec's name (Codec.String) fixes
// that codec on every link.
func ParseChoice(name string) (fixed Codec, auto bool, err error) {
	if name == "" || name == "auto" {
		return None, true, nil
	}
	for _, c := range Codecs() {
		if c.String() == name {
			return c, false, nil
		}
	}
	return None, false, fmt.Errorf("unknown codec %q: want auto or one of %s", name, strings.Join(codecNames[:], ", "))
}

// Limits on what a header may declare, so a decoder never allocates more.
const (
	MaxDimension = 16384
	MaxChunks    = 1024
	headerSize   = 20
	chunkEntry   = 8
	magic        = "GQF1"
)

var (
	// ErrCorrupt is returned for any input that is not a valid encoding.
	ErrCorrupt = errors.New("compressor: corrupt or truncated frame")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// chunkCodec encodes and decodes one chunk of whole rows.
type chunkCodec interface {
	encode(dst, src []byte) []byte
	// decode writes exactly len(dst) bytes or fails.
	decode(dst, src []byte) error
	// decodedLen is the length the encoding declares, read without
	// decoding, so that nothing is allocated for a chunk that lies
	// (unknownLen when it declares none).
	decodedLen(src []byte) (int, error)
}

// A chunk that declares no length is accepted only for tiny chunks.
const (
	unknownLen    = -1
	maxUndeclared = 64 << 10
)

func codecFor(c Codec) chunkCodec {
	switch c {
	case None:
		return noneCodec{}
	case S2:
		return s2Codec{}
	case Zstd:
		return zstdCodec{}
	case Planes:
		return planesCodec{}
	case RLE:
		return rleCodec{}
	case Delta:
		return deltaCodec{}
	case PlaneRLE:
		return planeRLECodec{}
	}
	return nil
}

// Chunks picks how many row chunks a frame is cut into: one per core, but
// not smaller than 64 KiB, so small frames stay in one chunk.
func Chunks(width, height int) int {
	n := runtime.GOMAXPROCS(0)
	if max := width * height * bytesPerPixel / (64 << 10); n > max {
		n = max
	}
	if n > height {
		n = height
	}
	if n < 1 {
		n = 1
	}
	return n
}

// Encode appends the encoding of a width x height frame to dst using codec
// c split into the given number of row chunks (0: Chunks(width, height)).
func Encode(dst []byte, c Codec, f Format, width, height, chunks int, pixels []byte) ([]byte, error) {
	return EncodeCPU(nil, dst, c, f, width, height, chunks, pixels)
}

// CPU adds up the CPU time of the goroutines that code a frame's chunks
// in parallel, on threads other than the caller's. A thread's clock is
// all a caller can read, and it holds none of that work: a sender timing
// its own thread saw a two-chunk frame's encode as its header alone.
// MeasureCPU adds the caller's own part. The zero value is ready; a nil
// *CPU measures nothing.
type CPU struct{ ns atomic.Int64 }

// Total is the CPU time added so far.
func (c *CPU) Total() time.Duration { return time.Duration(c.ns.Load()) }

// MeasureCPU runs fn, which codes with the meter it is given, and returns
// the CPU time it took on its own thread and on those of its chunks.
func MeasureCPU(fn func(cpu *CPU)) time.Duration {
	var chunks CPU
	own := procstat.CPUTime(func() { fn(&chunks) })
	return own + chunks.Total()
}

// inChunks runs run for each of n chunks: on the caller's goroutine when
// there is one, else in parallel goroutines whose CPU time goes to cpu.
func inChunks(n int, cpu *CPU, run func(i int)) {
	if n == 1 {
		run(0)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if cpu == nil {
				run(i)
				return
			}
			cpu.ns.Add(int64(procstat.CPUTime(func() { run(i) })))
		}()
	}
	wg.Wait()
}

// EncodeCPU is Encode that adds the CPU time of its chunk goroutines to
// cpu (see CPU).
func EncodeCPU(cpu *CPU, dst []byte, c Codec, f Format, width, height, chunks int, pixels []byte) ([]byte, error) {
	cc := codecFor(c)
	if cc == nil {
		return nil, fmt.Errorf("compressor: unknown codec %d", c)
	}
	if width < 0 || height < 0 || width > MaxDimension || height > MaxDimension {
		return nil, fmt.Errorf("compressor: frame %dx%d exceeds %d pixels a side", width, height, MaxDimension)
	}
	if len(pixels) != width*height*bytesPerPixel {
		return nil, fmt.Errorf("compressor: %dx%d frame needs %d bytes, got %d", width, height, width*height*bytesPerPixel, len(pixels))
	}
	if chunks <= 0 {
		chunks = Chunks(width, height)
	}
	if chunks > height {
		chunks = max(height, 1)
	}
	if chunks > MaxChunks {
		chunks = MaxChunks
	}
	outs := make([][]byte, chunks)
	stride := width * bytesPerPixel
	if c == None {
		// raw chunks are the rows as they are: copied once, into dst
		for i := range outs {
			lo, hi := rowRange(height, chunks, i)
			outs[i] = pixels[lo*stride : hi*stride]
		}
	} else {
		inChunks(chunks, cpu, func(i int) {
			lo, hi := rowRange(height, chunks, i)
			outs[i] = cc.encode(nil, pixels[lo*stride:hi*stride])
		})
	}
	need := headerSize + chunks*chunkEntry
	for _, o := range outs {
		need += len(o)
	}
	dst = slices.Grow(dst, need) // one allocation at most
	var h [headerSize]byte
	copy(h[:4], magic)
	h[4], h[5] = byte(c), byte(f)
	binary.LittleEndian.PutUint32(h[8:], uint32(width))
	binary.LittleEndian.PutUint32(h[12:], uint32(height))
	binary.LittleEndian.PutUint32(h[16:], uint32(chunks))
	dst = append(dst, h[:]...)
	for _, o := range outs {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(o)))
		dst = binary.LittleEndian.AppendUint32(dst, 0)
	}
	for _, o := range outs {
		dst = append(dst, o...)
	}
	return dst, nil
}

func rowRange(height, chunks, i int) (int, int) {
	return height * i / chunks, height * (i + 1) / chunks
}

// Header describes an encoded frame.
type Header struct {
	Codec         Codec
	Format        Format
	Width, Height int
	Chunks        int
}

// ReadHeader validates and returns the header of an encoded frame.
func ReadHeader(src []byte) (Header, error) {
	if len(src) < headerSize || string(src[:4]) != magic {
		return Header{}, corrupt("missing frame header")
	}
	h := Header{Codec: Codec(src[4]), Format: Format(src[5]),
		Width: int(binary.LittleEndian.Uint32(src[8:])), Height: int(binary.LittleEndian.Uint32(src[12:])),
		Chunks: int(binary.LittleEndian.Uint32(src[16:]))}
	switch {
	case h.Codec >= numCodecs:
		return h, corrupt("unknown codec %d", h.Codec)
	case h.Format < RGBA8 || h.Format > DepthU32:
		return h, corrupt("unknown pixel format %d", h.Format)
	case h.Width > MaxDimension || h.Height > MaxDimension:
		return h, corrupt("frame %dx%d exceeds %d pixels a side", h.Width, h.Height, MaxDimension)
	case h.Chunks < 1 || h.Chunks > MaxChunks || (h.Height > 0 && h.Chunks > h.Height):
		return h, corrupt("invalid chunk count %d for %d rows", h.Chunks, h.Height)
	case len(src) < headerSize+h.Chunks*chunkEntry:
		return h, corrupt("chunk table truncated")
	}
	return h, nil
}

// Decode decodes an encoded frame into dst (grown as needed to exactly the
// frame size) and returns the header and the pixels. Nothing is allocated
// before the chunk table and every chunk's declared length agree with the
// header: a short input claiming a huge frame costs nothing.
func Decode(dst, src []byte) (Header, []byte, error) {
	return decode(dst, src, nil)
}

// Expect is what the receiver knows a frame must be.
type Expect struct {
	Width, Height int
	Format        Format
	// CPU, if not nil, gets the CPU time of the chunk goroutines (see CPU).
	CPU *CPU
}

// DecodeExpect is Decode for a frame whose size and format the receiver
// knows: anything else is refused before any allocation.
func DecodeExpect(dst, src []byte, want Expect) (Header, []byte, error) {
	return decode(dst, src, &want)
}

func decode(dst, src []byte, want *Expect) (Header, []byte, error) {
	h, err := ReadHeader(src)
	if err != nil {
		return h, nil, err
	}
	if want != nil && (h.Width != want.Width || h.Height != want.Height || h.Format != want.Format) {
		return h, nil, corrupt("frame is %dx%d %v, expected %dx%d %v", h.Width, h.Height, h.Format, want.Width, want.Height, want.Format)
	}
	size := h.Width * h.Height * bytesPerPixel
	stride := h.Width * bytesPerPixel
	payload := src[headerSize+h.Chunks*chunkEntry:]
	offsets := make([]int, h.Chunks+1)
	for i := 0; i < h.Chunks; i++ {
		n := int(binary.LittleEndian.Uint32(src[headerSize+i*chunkEntry:]))
		if n > len(payload)-offsets[i] {
			return h, nil, corrupt("chunk %d claims %d bytes, %d left", i, n, len(payload)-offsets[i])
		}
		offsets[i+1] = offsets[i] + n
	}
	if offsets[h.Chunks] != len(payload) {
		return h, nil, corrupt("%d trailing bytes after the last chunk", len(payload)-offsets[h.Chunks])
	}
	cc := codecFor(h.Codec)
	for i := 0; i < h.Chunks; i++ {
		lo, hi := rowRange(h.Height, h.Chunks, i)
		n, err := cc.decodedLen(payload[offsets[i]:offsets[i+1]])
		if err != nil {
			return h, nil, fmt.Errorf("chunk %d: %w", i, err)
		}
		if n == unknownLen && (hi-lo)*stride <= maxUndeclared {
			continue
		}
		if n != (hi-lo)*stride {
			return h, nil, corrupt("chunk %d declares %d bytes, its %d rows hold %d", i, n, hi-lo, (hi-lo)*stride)
		}
	}
	if cap(dst) >= size {
		dst = dst[:size]
	} else {
		dst = make([]byte, size)
	}
	errs := make([]error, h.Chunks)
	var cpu *CPU
	if want != nil {
		cpu = want.CPU
	}
	inChunks(h.Chunks, cpu, func(i int) {
		lo, hi := rowRange(h.Height, h.Chunks, i)
		if err := cc.decode(dst[lo*stride:hi*stride], payload[offsets[i]:offsets[i+1]]); err != nil {
			errs[i] = fmt.Errorf("chunk %d: %w", i, err)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return h, nil, err
	}
	return h, dst, nil
}

// DecodeViewExpect decodes a frame whose size and format the receiver
// knows, without a copy for frames sent raw (codec None): the pixels are
// returned as a slice of src. Other codecs decode into a new buffer.
func DecodeViewExpect(src []byte, want Expect) (Header, []byte, error) { return decodeView(src, &want) }

func decodeView(src []byte, want *Expect) (Header, []byte, error) {
	h, err := ReadHeader(src)
	if err != nil || h.Codec != None {
		return decode(nil, src, want)
	}
	if want != nil && (h.Width != want.Width || h.Height != want.Height || h.Format != want.Format) {
		return h, nil, corrupt("frame is %dx%d %v, expected %dx%d %v", h.Width, h.Height, h.Format, want.Width, want.Height, want.Format)
	}
	size := h.Width * h.Height * bytesPerPixel
	start := headerSize + h.Chunks*chunkEntry
	if len(src)-start != size {
		return h, nil, corrupt("raw frame has %d bytes of pixels, want %d", len(src)-start, size)
	}
	stride := h.Width * bytesPerPixel
	off := start
	for i := 0; i < h.Chunks; i++ {
		lo, hi := rowRange(h.Height, h.Chunks, i)
		n := int(binary.LittleEndian.Uint32(src[headerSize+i*chunkEntry:]))
		if n != (hi-lo)*stride {
			return h, nil, corrupt("raw chunk %d has %d bytes, want %d", i, n, (hi-lo)*stride)
		}
		off += n
	}
	return h, src[start : start+size : start+size], nil
}
