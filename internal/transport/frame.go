// Package transport carries pixel frames from the channels that render
// them to the channels that composite them, peer to peer over TCP. A
// connection starts with an authentication message (the shared token);
// every message is a small JSON header and a binary payload (colour and
// depth, each encoded with a compressor codec), length-prefixed and bounded
// so that malformed or hostile input is an error, never a panic or an
// unbounded allocation.
package transport

import (
	"crypto/subtle"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/compressor"
)

// Limits on what a peer may send.
const (
	MaxHeader  = 4 << 10
	MaxPayload = 2 * compressor.MaxDimension * 4096 * 4 // two 16k x 4k planes
	prefixSize = 12
	magic      = "GQ"
	version    = 1
)

// Message kinds.
const (
	kindAuth  = 1
	kindFrame = 2
)

// ErrMalformed wraps every decoding failure.
var ErrMalformed = errors.New("transport: malformed message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Frame is one output frame on its way to a consumer. Channels are named
// by their IDs (compound.Channel.ID).
type Frame struct {
	Frame    int    `json:"frame"`
	Eye      int    `json:"eye"`
	Name     string `json:"name"`     // the output frame's name
	Producer string `json:"producer"` // producing channel
	Consumer string `json:"consumer"` // compositing channel
	// Share is where the pixels go, in destination pixels; W x H pixels
	// cover it (fewer or more under pixel decomposition or zoom). Range,
	// Pixel and Subpixel are how they were decomposed, which decides how
	// they are composited.
	Share    compound.PixelViewport `json:"share"`
	Extent   compound.PixelViewport `json:"extent"` // the whole output frame (Share is cut to what was drawn)
	Range    compound.Range         `json:"range"`
	Pixel    compound.Pixel         `json:"pixel"`
	Subpixel compound.Subpixel      `json:"subpixel"`
	W        int                    `json:"w"`
	H        int                    `json:"h"`
	// Tile is 1 + the index of a tile in its queue (0: not a tile); Tiles,
	// on a message without pixels, ends a tile stream: the producer sent
	// that many tiles of this frame.
	Tile  int  `json:"tile,omitempty"`
	Tiles int  `json:"tiles,omitempty"`
	End   bool `json:"end,omitempty"`
	// Encoded colour and depth (compressor frames); depth may be empty.
	ColorLen int `json:"color_len"`
	DepthLen int `json:"depth_len"`
	// Decoded pixels (filled by Decode, not sent).
	Color []byte    `json:"-"`
	Depth []float32 `json:"-"`
	// Raw is the encoded payload (colour then depth) as sent.
	Raw []byte `json:"-"`
	// pooled is the receive buffer that raw Color and Depth point into;
	// colorPooled and depthPooled are the planes coded colour and depth
	// were decoded into (Release returns them all).
	pooled      *[]byte
	colorPooled *[]byte
	depthPooled *[]float32
}

// Release hands the frame's receive buffer and planes back for reuse; the
// frame's pixels must not be used afterwards. Optional: unreleased memory
// is garbage collected.
func (f *Frame) Release() {
	if f.pooled != nil {
		payloads.give(f.pooled)
		f.pooled, f.Color, f.Depth, f.Raw = nil, nil, nil, nil
	}
	if f.colorPooled != nil {
		colorPlanes.give(f.colorPooled)
		f.colorPooled, f.Color = nil, nil
	}
	if f.depthPooled != nil {
		depthPlanes.give(f.depthPooled)
		f.depthPooled, f.Depth = nil, nil
	}
}

type auth struct {
	Token string `json:"token"`
	Node  string `json:"node"`
}

// writeMessage writes prefix (magic, version, kind, header length,
// payload length), header and payload.
func writeMessage(w io.Writer, kind byte, header any, payload []byte) error {
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	if len(h) > MaxHeader || len(payload) > MaxPayload {
		return fmt.Errorf("transport: message too large (header %d, payload %d)", len(h), len(payload))
	}
	var p [prefixSize]byte
	copy(p[:2], magic)
	p[2], p[3] = version, kind
	binary.LittleEndian.PutUint32(p[4:], uint32(len(h)))
	binary.LittleEndian.PutUint32(p[8:], uint32(len(payload)))
	// one gathered write (writev on a TCP connection): no copy of the
	// payload into a user-space buffer
	bufs := net.Buffers{p[:], h, payload}
	_, err = bufs.WriteTo(w)
	return err
}

// readPrefix reads and checks a message's prefix: its kind and the
// header and payload lengths it announces.
func readPrefix(r io.Reader) (kind byte, hl, pl int, err error) {
	var p [prefixSize]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, 0, 0, malformed("truncated prefix")
		}
		return 0, 0, 0, err
	}
	if string(p[:2]) != magic || p[2] != version {
		return 0, 0, 0, malformed("bad magic or version")
	}
	h, l := binary.LittleEndian.Uint32(p[4:]), binary.LittleEndian.Uint32(p[8:])
	if h == 0 || h > MaxHeader {
		return 0, 0, 0, malformed("header of %d bytes (at most %d)", h, MaxHeader)
	}
	if l > MaxPayload {
		return 0, 0, 0, malformed("payload of %d bytes (at most %d)", l, MaxPayload)
	}
	return p[3], int(h), int(l), nil
}

// readBody reads a message's header and payload after its prefix. The
// payload lands in buf when it is large enough; otherwise memory grows
// with what actually arrives, so a peer that announces a large payload
// and sends little costs little.
func readBody(r io.Reader, hl, pl int, buf []byte) (header, payload []byte, err error) {
	header = make([]byte, hl)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, nil, malformed("truncated header")
	}
	if cap(buf) >= pl {
		payload = buf[:pl]
		if _, err := io.ReadFull(r, payload); err != nil {
			return nil, nil, malformed("truncated payload")
		}
		return header, payload, nil
	}
	payload = make([]byte, 0, min(pl, growStep))
	for len(payload) < pl {
		if len(payload) == cap(payload) {
			payload = append(payload, make([]byte, min(cap(payload), pl-len(payload)))...)[:len(payload)]
		}
		n, err := r.Read(payload[len(payload):min(cap(payload), pl)])
		payload = payload[:len(payload)+n]
		if err != nil && len(payload) < pl {
			return nil, nil, malformed("truncated payload")
		}
	}
	return header, payload, nil
}

// growStep is the first allocation for a payload the pool cannot hold.
const growStep = 1 << 20

// Encode compresses pixels into f.Raw with codec c.
func (f *Frame) Encode(c compressor.Codec) error {
	return f.encode(c, nil)
}

// EncodeCPU is Encode that returns the CPU time encoding took, on the
// calling thread and on those its chunks were coded on: what the codec
// costs the sender's machine.
func (f *Frame) EncodeCPU(c compressor.Codec) (time.Duration, error) {
	var err error
	cpu := compressor.MeasureCPU(func(cpu *compressor.CPU) { err = f.encode(c, cpu) })
	return cpu, err
}

func (f *Frame) encode(c compressor.Codec, cpu *compressor.CPU) error {
	var err error
	f.Raw, err = compressor.EncodeCPU(cpu, f.Raw[:0], c, compressor.RGBA8, f.W, f.H, 0, f.Color)
	if err != nil {
		return err
	}
	f.ColorLen = len(f.Raw)
	f.DepthLen = 0
	if f.Depth != nil {
		depth := wireDepth(f.Depth)
		dc := compressor.Delta
		if c == compressor.None {
			dc = compressor.None
		}
		f.Raw, err = compressor.EncodeCPU(cpu, f.Raw, dc, compressor.DepthF32, f.W, f.H, 0, depth)
		if err != nil {
			return err
		}
		f.DepthLen = len(f.Raw) - f.ColorLen
	}
	return nil
}

// Redecode decodes the frame's encoding (Raw) as its receiver will, into a
// frame that is thrown away, and returns the CPU time it took (as
// EncodeCPU's): a sender learns so what a codec costs the receiver.
func (f *Frame) Redecode() (time.Duration, error) {
	scratch := &Frame{W: f.W, H: f.H, ColorLen: f.ColorLen, DepthLen: f.DepthLen}
	var err error
	cpu := compressor.MeasureCPU(func(cpu *compressor.CPU) { err = scratch.decode(f.Raw, cpu) })
	scratch.Release()
	return cpu, err
}

// decode fills Color and Depth from the payload, checking that it holds
// exactly what the header announces; cpu (nil: none) gets the CPU time of
// the chunk goroutines.
func (f *Frame) decode(payload []byte, cpu *compressor.CPU) error {
	if f.W < 0 || f.H < 0 || f.W > compressor.MaxDimension || f.H > compressor.MaxDimension {
		return malformed("frame %dx%d", f.W, f.H)
	}
	if f.ColorLen < 0 || f.DepthLen < 0 || f.ColorLen+f.DepthLen != len(payload) {
		return malformed("payload of %d bytes, header announces %d + %d", len(payload), f.ColorLen, f.DepthLen)
	}
	// colour sent raw is a view of the payload; coded colour is decoded
	// into a pooled buffer, once the header has been checked
	h, err := compressor.ReadHeader(payload[:f.ColorLen])
	if err != nil {
		return fmt.Errorf("%w: colour: %v", ErrMalformed, err)
	}
	if h.Width != f.W || h.Height != f.H || h.Format != compressor.RGBA8 {
		return malformed("colour is %dx%d %v, header says %dx%d", h.Width, h.Height, h.Format, f.W, f.H)
	}
	expect := compressor.Expect{Width: f.W, Height: f.H, Format: compressor.RGBA8, CPU: cpu}
	if h.Codec == compressor.None {
		if _, f.Color, err = compressor.DecodeViewExpect(payload[:f.ColorLen], expect); err != nil {
			return fmt.Errorf("%w: colour: %v", ErrMalformed, err)
		}
	} else {
		pooled, color := colorPlanes.take(4 * f.W * f.H)
		if _, color, err = compressor.DecodeExpect(color, payload[:f.ColorLen], expect); err != nil {
			colorPlanes.give(pooled)
			return fmt.Errorf("%w: colour: %v", ErrMalformed, err)
		}
		f.Color, f.colorPooled = color, pooled
	}
	if f.DepthLen > 0 {
		// refused before the plane is taken, as DecodeExpect would
		h, err := compressor.ReadHeader(payload[f.ColorLen:])
		if err != nil {
			return fmt.Errorf("%w: depth: %v", ErrMalformed, err)
		}
		if h.Width != f.W || h.Height != f.H || h.Format != compressor.DepthF32 {
			return malformed("depth is %dx%d %v, header says %dx%d", h.Width, h.Height, h.Format, f.W, f.H)
		}
		expect := compressor.Expect{Width: f.W, Height: f.H, Format: compressor.DepthF32, CPU: cpu}
		if h.Codec == compressor.None {
			// raw: a view of the payload where the machine reads it as is
			_, raw, err := compressor.DecodeViewExpect(payload[f.ColorLen:], expect)
			if err != nil {
				return fmt.Errorf("%w: depth: %v", ErrMalformed, err)
			}
			if depth, ok := depthView(raw); ok {
				f.Depth = depth
				return nil
			}
		}
		pooled, depth := depthPlanes.take(f.W * f.H)
		wire := wireDepth(depth)
		_, decoded, err := compressor.DecodeExpect(wire, payload[f.ColorLen:], expect)
		if err == nil && len(wire) > 0 && &decoded[0] != &wire[0] {
			copy(wire, decoded) // not decoded in place after all
		}
		if err != nil {
			depthPlanes.give(pooled)
			return fmt.Errorf("%w: depth: %v", ErrMalformed, err)
		}
		fromWire(depth, wire)
		f.Depth, f.depthPooled = depth, pooled
	}
	return nil
}

// DecodeMessage reads one frame message from r (exported for fuzzing and
// tests: receivers use Listen).
func DecodeMessage(r io.Reader) (*Frame, error) {
	kind, hl, pl, err := readPrefix(r)
	if err != nil {
		return nil, err
	}
	return decodeFrame(r, kind, hl, pl, nil)
}

// decodeFrame reads a frame message's header and payload after its
// prefix; admit (nil: any) says whether a frame of that size is taken.
func decodeFrame(r io.Reader, kind byte, hl, pl int, admit func(w, h int) error) (*Frame, error) {
	if kind != kindFrame {
		return nil, malformed("message kind %d where a frame was expected", kind)
	}
	var buf []byte
	// a kept buffer, or none: a new one grows with what arrives
	// (readBody) and is kept once its frame is released
	pooled := payloads.reuse(pl)
	if pooled != nil {
		buf = *pooled
	}
	giveBack := func() {
		if pooled != nil {
			payloads.give(pooled)
		}
	}
	header, payload, err := readBody(r, hl, pl, buf)
	if err != nil {
		giveBack()
		return nil, err
	}
	f := &Frame{}
	if err := json.Unmarshal(header, f); err != nil {
		giveBack()
		return nil, malformed("header: %v", err)
	}
	if admit != nil {
		if err := admit(f.W, f.H); err != nil {
			giveBack()
			return nil, err
		}
	}
	if pooled == nil {
		pooled = &payload // a new buffer joins the pool on release
	}
	f.pooled = pooled
	if err := f.decode(payload, nil); err != nil {
		f.Release()
		return nil, err
	}
	return f, nil
}

// EncodeMessage writes a frame message (f.Raw must hold the encoding).
func EncodeMessage(w io.Writer, f *Frame) error {
	return writeMessage(w, kindFrame, f, f.Raw)
}

// maxAuth bounds an authentication message: a token and a node name.
const maxAuth = 1024

// checkAuth reads the first message of a connection, which must
// authenticate. Nothing larger than an authentication needs is read or
// allocated before the token is checked.
func checkAuth(r io.Reader, token string) (string, error) {
	kind, hl, pl, err := readPrefix(r)
	if err != nil {
		return "", err
	}
	if kind != kindAuth || pl != 0 || hl > maxAuth {
		return "", malformed("the first message must authenticate (kind %d, header %d bytes, payload %d bytes)", kind, hl, pl)
	}
	header, _, err := readBody(r, hl, 0, nil)
	if err != nil {
		return "", err
	}
	var a auth
	if err := json.Unmarshal(header, &a); err != nil {
		return "", malformed("auth header: %v", err)
	}
	if subtle.ConstantTimeCompare([]byte(a.Token), []byte(token)) != 1 {
		return a.Node, ErrWrongToken
	}
	return a.Node, nil
}

// ErrWrongToken is returned when a peer's token does not match.
var ErrWrongToken = errors.New("transport: wrong token")
