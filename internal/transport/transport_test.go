package transport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/compressor"
)

func testFrame(w, h int, depth bool) *Frame {
	f := &Frame{Frame: 7, Name: "f1", Producer: "src1", W: w, H: h, Share: compound.PixelViewport{X: 3, Y: 4, W: w, H: h},
		Range: compound.Range{Start: 0.25, End: 0.5}, Color: make([]byte, 4*w*h)}
	for i := range f.Color {
		f.Color[i] = byte(i / 97)
	}
	if depth {
		f.Depth = make([]float32, w*h)
		for i := range f.Depth {
			f.Depth[i] = float32(i) / float32(w*h)
		}
	}
	return f
}

type collector struct {
	mu     sync.Mutex
	frames []*Frame
	got    chan struct{}
}

func (c *collector) handle(f *Frame) {
	c.mu.Lock()
	c.frames = append(c.frames, f)
	c.mu.Unlock()
	c.got <- struct{}{}
}

// last is the latest frame received. (The lock, not the order of the
// test's sends, orders it after the handler's append for the race
// detector, which does not see a frame's way through the socket.)
func (c *collector) last() *Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frames[len(c.frames)-1]
}

func TestSendReceive(t *testing.T) {
	c := &collector{got: make(chan struct{}, 8)}
	_, s := listening(t, c.handle, Limits{})
	for _, codec := range []compressor.Codec{compressor.None, compressor.S2} {
		f := testFrame(64, 32, true)
		if err := f.Encode(codec); err != nil {
			t.Fatal(err)
		}
		if err := s.Send(f); err != nil {
			t.Fatal(err)
		}
		select {
		case <-c.got:
		case <-time.After(5 * time.Second):
			t.Fatal("no frame arrived")
		}
		got := c.last()
		want := testFrame(64, 32, true)
		if got.Frame != 7 || got.Name != "f1" || got.Share != want.Share || got.Range != want.Range ||
			!bytes.Equal(got.Color, want.Color) || len(got.Depth) != len(want.Depth) || got.Depth[100] != want.Depth[100] {
			t.Errorf("%v: received frame differs", codec)
		}
	}
}

// A peer that closes its link after a frame is drained only once that
// frame has been handed on: a node told that a lost peer's part will not
// come waits for what the peer sent before it died.
func TestAPeerIsDrainedOnceItsFramesAreHandedOn(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	l, s := listening(t, func(f *Frame) {
		close(entered)
		<-release // a frame still being decoded
	}, Limits{})
	select {
	case <-l.Drained("another"):
	default:
		t.Error("a node that never connected is not drained")
	}
	f := testFrame(16, 8, false)
	if err := f.Encode(compressor.None); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(f); err != nil {
		t.Fatal(err)
	}
	s.Close()
	<-entered
	drained := l.Drained("peer")
	select {
	case <-drained:
		t.Fatal("drained while its frame is being handed on")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		t.Fatal("not drained after its link closed and its frame was handed on")
	}
}

func TestWrongTokenIsRefusedWithALogLine(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil))
	c := &collector{got: make(chan struct{}, 8)}
	l, err := Listen("127.0.0.1:0", "secret", c.handle, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := Dial(l.Addr(), "guess", "intruder", nil)
	if err != nil {
		t.Fatal(err)
	}
	f := testFrame(8, 8, false)
	f.Encode(compressor.None)
	s.Send(f)
	time.Sleep(200 * time.Millisecond)
	s.Close()
	select {
	case <-c.got:
		t.Fatal("a frame from a wrong-token peer was delivered")
	case <-time.After(300 * time.Millisecond):
	}
	mu.Lock()
	defer mu.Unlock()
	// a warning, which a filter on the level finds
	var rec struct{ Level, Msg string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String())), &rec); err != nil || rec.Level != "WARN" ||
		!strings.Contains(rec.Msg, "refused") || !strings.Contains(rec.Msg, "wrong token") || !strings.Contains(rec.Msg, "intruder") {
		t.Errorf("log: %q", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

func encoded(t testing.TB) []byte { return encodedWith(t, compressor.S2) }

func encodedWith(t testing.TB, c compressor.Codec) []byte {
	f := testFrame(16, 8, true)
	if err := f.Encode(c); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := EncodeMessage(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMalformedMessages(t *testing.T) {
	msg := encoded(t)
	if _, err := DecodeMessage(bytes.NewReader(msg)); err != nil {
		t.Fatalf("valid message: %v", err)
	}
	for cut := 1; cut < len(msg); cut += 7 {
		if _, err := DecodeMessage(bytes.NewReader(msg[:cut])); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", cut)
		}
	}
	oversized := append([]byte{}, msg...)
	binary.LittleEndian.PutUint32(oversized[8:], MaxPayload+1)
	if _, err := DecodeMessage(bytes.NewReader(oversized)); !errors.Is(err, ErrMalformed) {
		t.Errorf("oversized payload: %v", err)
	}
	bigHeader := append([]byte{}, msg...)
	binary.LittleEndian.PutUint32(bigHeader[4:], MaxHeader+1)
	if _, err := DecodeMessage(bytes.NewReader(bigHeader)); !errors.Is(err, ErrMalformed) {
		t.Errorf("oversized header: %v", err)
	}
	lying := append([]byte{}, msg...)
	hl := binary.LittleEndian.Uint32(lying[4:])
	copy(lying[prefixSize:prefixSize+hl], bytes.Replace(lying[prefixSize:prefixSize+hl], []byte(`"w":16`), []byte(`"w":17`), 1))
	if _, err := DecodeMessage(bytes.NewReader(lying)); !errors.Is(err, ErrMalformed) {
		t.Errorf("header disagreeing with the payload: %v", err)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	f.Add(encoded(f))
	f.Add(encodedWith(f, compressor.None)) // depth read in place
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := DecodeMessage(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(fr.Color) != 4*fr.W*fr.H {
			t.Fatalf("accepted a frame whose colour is %d bytes for %dx%d", len(fr.Color), fr.W, fr.H)
		}
		if fr.DepthLen > 0 && len(fr.Depth) != fr.W*fr.H {
			t.Fatalf("accepted a frame whose depth is %d values for %dx%d", len(fr.Depth), fr.W, fr.H)
		}
		fr.Release()
	})
}

// BenchmarkTransport8MB sends 8 MiB frames through the frame transport
// (codec none); BenchmarkRawTCP8MB writes the same bytes on a plain TCP
// connection: the baseline for transport_vs_tcp.
func BenchmarkTransport8MB(b *testing.B) {
	const w, h = 2048, 1024
	done := make(chan struct{}, 1)
	l, err := Listen("127.0.0.1:0", "t", func(f *Frame) { f.Release(); done <- struct{}{} }, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	s, err := Dial(l.Addr(), "t", "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f := &Frame{W: w, H: h, Color: make([]byte, 4*w*h)}
	f.Encode(compressor.None)
	b.SetBytes(int64(4 * w * h))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Send(f); err != nil {
			b.Fatal(err)
		}
		<-done
	}
}

func BenchmarkRawTCP8MB(b *testing.B) {
	const n = 4 * 2048 * 1024
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{}, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, n)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			done <- struct{}{}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	data := make([]byte, n)
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Write(data); err != nil {
			b.Fatal(err)
		}
		<-done
	}
}

// prefix writes a message prefix announcing header and payload lengths.
func prefix(kind byte, hl, pl uint32) []byte {
	var p [prefixSize]byte
	copy(p[:2], magic)
	p[2], p[3] = version, kind
	binary.LittleEndian.PutUint32(p[4:], hl)
	binary.LittleEndian.PutUint32(p[8:], pl)
	return p[:]
}

// Before it authenticates, a peer can make a listener read and hold no
// more than an authentication message: a claim of the largest payload is
// refused without allocating it.
func TestUnauthenticatedClaimsAllocateNothing(t *testing.T) {
	l, err := Listen("127.0.0.1:0", "tok", func(f *Frame) { f.Release() }, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, kind := range []byte{kindAuth, kindFrame} {
		c, err := net.Dial("tcp", l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.Write(prefix(kind, 16, MaxPayload))
		c.Write(make([]byte, 64<<10))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("kind %d: the listener answered instead of closing", kind)
		}
		c.Close()
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("two unauthenticated claims of %d bytes allocated %d bytes", MaxPayload, grew)
	}
}

// Connections that never authenticate are bounded in number: beyond the
// limit they are closed at once.
func TestUnauthenticatedConnectionsAreLimited(t *testing.T) {
	l, err := ListenLimited("127.0.0.1:0", "tok", func(f *Frame) { f.Release() }, quietLog(), Limits{MaxUnauthenticated: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 4; i++ {
		c, err := net.Dial("tcp", l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond) // the four are waiting to authenticate
	extra, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := extra.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("a fifth unauthenticated connection was kept (%v)", err)
	}
	if l.Refused() != 1 {
		t.Errorf("refused %d connections, want 1", l.Refused())
	}
}

// An authenticated peer that starts a frame and never finishes it is cut
// off after the message timeout.
func TestUnfinishedFrameTimesOut(t *testing.T) {
	_, s := listening(t, func(f *Frame) { f.Release() }, Limits{MessageTimeout: 300 * time.Millisecond})
	s.conn.Write(prefix(kindFrame, 64, 1<<20))
	s.conn.Write([]byte("{"))
	s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := s.conn.Read(make([]byte, 1)); err == nil {
		t.Fatal("the listener answered")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("an unfinished frame held the connection %v (timeout 300ms)", took)
	}
}

// A frame past the listener's bound waits for the bound to grow: a node
// grows it with a frame's plan, which can come after a peer's part of
// that frame (of a window resized on another node). One the bound does
// not grow for within the message timeout is refused, and its connection
// dropped; so is one waiting when the listener closes.
func TestAFramePastTheBoundWaitsForItToGrow(t *testing.T) {
	got := &collector{got: make(chan struct{}, 4)}
	l, s := listening(t, got.handle, Limits{MaxPixels: 100, MessageTimeout: time.Second})
	send := func(s *Sender, w, h int) {
		f := testFrame(w, h, false)
		if err := f.Encode(compressor.None); err != nil {
			t.Fatal(err)
		}
		if err := s.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	send(s, 20, 20)
	select {
	case <-got.got:
		t.Fatal("a frame of 400 pixels was taken under a bound of 100")
	case <-time.After(200 * time.Millisecond):
	}
	l.SetMaxPixels(400)
	select {
	case <-got.got:
	case <-time.After(10 * time.Second):
		t.Fatal("the frame was not taken once the bound grew to it")
	}
	if f := got.last(); f.W != 20 || f.H != 20 {
		t.Errorf("took a %dx%d frame", f.W, f.H)
	}
	// the bound stays: refused, the connection dropped
	send(s, 30, 30)
	s.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := s.conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a frame past the bound kept its connection: %v", err)
	}
	select {
	case <-got.got:
		t.Fatal("a frame past the bound was taken")
	default:
	}

	// one waiting when the listener closes: Close returns without the
	// wait's end
	closing, waiting := listening(t, got.handle, Limits{MaxPixels: 100, MessageTimeout: time.Hour})
	send(waiting, 20, 20)
	time.Sleep(100 * time.Millisecond)
	closed := make(chan error)
	go func() { closed <- closing.Close() }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for a frame waiting for the bound")
	}
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// listening is a listener on loopback with limits, and a sender
// authenticated to it; both close when the test ends.
func listening(t *testing.T, handler func(*Frame), limits Limits) (*Listener, *Sender) {
	t.Helper()
	l, err := ListenLimited("127.0.0.1:0", "tok", handler, quietLog(), limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s, err := Dial(l.Addr(), "tok", "peer", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return l, s
}

// An encrypted listener takes frames from a sender with the run's keys;
// a plaintext sender and a listener with another run's certificate are
// refused.
func TestEncryptedLinks(t *testing.T) {
	certPEM, keyPEM, err := NewRunKeys()
	if err != nil {
		t.Fatal(err)
	}
	listenTLS, dialTLS, err := RunTLS(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{got: make(chan struct{}, 8)}
	l, err := Listen("127.0.0.1:0", "secret", c.handle, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.SetTLS(listenTLS)
	send := func(s *Sender) error {
		f := testFrame(64, 32, true)
		f.Encode(compressor.S2)
		return s.Send(f)
	}
	s, err := Dial(l.Addr(), "secret", "n1", dialTLS)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := send(s); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.got:
		if got, want := c.last(), testFrame(64, 32, true); !bytes.Equal(got.Color, want.Color) {
			t.Error("the encrypted frame arrived changed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no frame arrived over TLS")
	}
	// plaintext to an encrypted listener: nothing arrives
	if plain, err := Dial(l.Addr(), "secret", "n2", nil); err == nil {
		send(plain)
		plain.Close()
	}
	// a listener with another run's certificate: the sender refuses it
	otherCert, otherKey, _ := NewRunKeys()
	otherListen, _, _ := RunTLS(otherCert, otherKey)
	l2, err := Listen("127.0.0.1:0", "secret", c.handle, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	l2.SetTLS(otherListen)
	if _, err := Dial(l2.Addr(), "secret", "n3", dialTLS); err == nil || !strings.Contains(err.Error(), "this run's certificate") {
		t.Errorf("dialing another run's listener: %v", err)
	}
	select {
	case <-c.got:
		t.Fatal("a plaintext frame reached the encrypted listener")
	case <-time.After(300 * time.Millisecond):
	}
}

// TestDepthArrivesExactlyFromReusedPlanes sends colour and depth with
// several codecs through EncodeMessage and DecodeMessage, releasing each
// frame so that the next decodes into recycled planes: every value must
// arrive, and the raw encoding must hold the little-endian float32s of
// the wire.
func TestDepthArrivesExactlyFromReusedPlanes(t *testing.T) {
	const w, h = 48, 20
	for round, codec := range []compressor.Codec{compressor.None, compressor.S2, compressor.Zstd, compressor.S2, compressor.None} {
		f := testFrame(w, h, true)
		for i := range f.Depth {
			f.Depth[i] = float32(round+1) * float32(i*i%977) / 977
		}
		f.Depth[5], f.Depth[6] = 1, 0
		for i := range f.Color {
			f.Color[i] = byte(i*(round+3)) ^ byte(i>>7)
		}
		want, wantColor := append([]float32(nil), f.Depth...), append([]byte(nil), f.Color...)
		if err := f.Encode(codec); err != nil {
			t.Fatal(err)
		}
		if codec == compressor.None {
			raw := f.Raw[len(f.Raw)-4*w*h:]
			for i, d := range want {
				if got := binary.LittleEndian.Uint32(raw[4*i:]); got != math.Float32bits(d) {
					t.Fatalf("raw depth %d on the wire is %#x, want the little-endian bits %#x", i, got, math.Float32bits(d))
				}
			}
		}
		var b bytes.Buffer
		if err := EncodeMessage(&b, f); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeMessage(&b)
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		if !bytes.Equal(got.Color, wantColor) {
			t.Fatalf("%v (round %d): colour differs", codec, round)
		}
		if len(got.Depth) != len(want) {
			t.Fatalf("%v: %d depth values, want %d", codec, len(got.Depth), len(want))
		}
		for i := range want {
			if got.Depth[i] != want[i] {
				t.Fatalf("%v (round %d): depth %d is %v, want %v", codec, round, i, got.Depth[i], want[i])
			}
		}
		got.Release()
		if got.Depth != nil || got.Color != nil {
			t.Fatalf("a released frame still shows its pixels")
		}
	}
}

// BenchmarkDecodeColorDepth1080p decodes a raw 1920x1080 colour and depth
// frame message and releases it, as a compositing node does per input.
func BenchmarkDecodeColorDepth1080p(b *testing.B) {
	f := testFrame(1920, 1080, true)
	if err := f.Encode(compressor.None); err != nil {
		b.Fatal(err)
	}
	var msg bytes.Buffer
	if err := EncodeMessage(&msg, f); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(msg.Len()))
	for b.Loop() {
		got, err := DecodeMessage(bytes.NewReader(msg.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		got.Release()
	}
}

// BenchmarkEncodeColorDepth1080p encodes a raw 1920x1080 colour and depth
// frame, as a rendering node does per output.
func BenchmarkEncodeColorDepth1080p(b *testing.B) {
	f := testFrame(1920, 1080, true)
	b.SetBytes(int64(4 * 2 * len(f.Depth)))
	for b.Loop() {
		if err := f.Encode(compressor.None); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDepthViewOnlyWhereAligned: raw depth is read in place only from
// 4-byte aligned bytes (decode falls back to a plane otherwise).
func TestDepthViewOnlyWhereAligned(t *testing.T) {
	buf := make([]byte, 4*8+1)
	binary.LittleEndian.PutUint32(buf[4:], math.Float32bits(0.75))
	if d, ok := depthView(buf[:32]); !ok || len(d) != 8 || (littleEndian && d[1] != 0.75) {
		t.Errorf("aligned: %v %v", d, ok)
	}
	if _, ok := depthView(buf[1:33]); ok {
		t.Error("unaligned bytes were viewed as float32s")
	}
	if _, ok := depthView(buf[:31]); ok {
		t.Error("a partial value was viewed")
	}
}
