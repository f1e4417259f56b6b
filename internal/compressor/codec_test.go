package compressor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/testframes"
	"golang.org/x/sys/unix"
)

type sample struct {
	name   string
	format Format
	w, h   int
	pixels []byte
}

// samples are the stored rendered frames (colour and depth) plus random,
// constant and adversarial data.
func samples(t testing.TB) []sample {
	var out []sample
	for _, s := range testframes.Stored {
		f, err := testframes.Read("testdata", s.Name)
		if err != nil {
			t.Fatalf("%v (regenerate with: go run ./cmd/goeq-testframes)", err)
		}
		out = append(out, sample{s.Name, RGBA8, f.W, f.H, f.Color}, sample{s.Name + "-depth", DepthF32, f.W, f.H, f.DepthBytes()})
	}
	r := rand.New(rand.NewSource(7))
	random := make([]byte, 4*333*77)
	r.Read(random)
	out = append(out, sample{"random", RGBA8, 333, 77, random})
	constant := bytes.Repeat([]byte{1, 2, 3, 4}, 500*31)
	out = append(out, sample{"constant", DepthU32, 500, 31, constant})
	// alternating runs of length 1 and 2, and runs longer than one control
	alt := make([]byte, 0, 4*1000)
	for i := 0; len(alt) < 4*1000; i++ {
		px := []byte{byte(i), 0, 0, 0}
		for k := 0; k < 1+i%2+(i%7)*40 && len(alt) < 4*1000; k++ {
			alt = append(alt, px...)
		}
	}
	out = append(out, sample{"runs", RGBA8, 1000, 1, alt})
	out = append(out, sample{"empty", RGBA8, 0, 0, nil}, sample{"one pixel", DepthF32, 1, 1, []byte{0, 0, 128, 63}})
	return out
}

func TestRoundTripEveryCodec(t *testing.T) {
	for _, s := range samples(t) {
		for _, c := range Codecs() {
			for _, chunks := range []int{0, 1, 3} {
				enc, err := Encode(nil, c, s.format, s.w, s.h, chunks, s.pixels)
				if err != nil {
					t.Fatalf("%s/%s: %v", s.name, c, err)
				}
				h, dec, err := Decode(nil, enc)
				if err != nil {
					t.Fatalf("%s/%s/%d chunks: %v", s.name, c, chunks, err)
				}
				if h.Width != s.w || h.Height != s.h || h.Format != s.format || h.Codec != c {
					t.Errorf("%s/%s: header %+v", s.name, c, h)
				}
				if !bytes.Equal(dec, s.pixels) {
					t.Errorf("%s/%s/%d chunks: round trip differs", s.name, c, chunks)
				}
			}
		}
	}
}

// Rendered frames must actually compress: the default colour codec and the
// depth codec beat raw by the margins the platform notes measured.
func TestRenderedFramesCompress(t *testing.T) {
	for _, s := range samples(t)[:2] {
		for _, c := range []Codec{S2, RLE} {
			enc, _ := Encode(nil, c, s.format, s.w, s.h, 1, s.pixels)
			if ratio := float64(len(s.pixels)) / float64(len(enc)); ratio < 4 {
				t.Errorf("%s/%s: ratio %.1f, want >= 4 for a shaded model on a plain background", s.name, c, ratio)
			}
		}
	}
	depth := samples(t)[1]
	plain, _ := Encode(nil, S2, DepthF32, depth.w, depth.h, 1, depth.pixels)
	delta, _ := Encode(nil, Delta, DepthF32, depth.w, depth.h, 1, depth.pixels)
	if len(delta) >= len(plain) {
		t.Errorf("delta coding (%d bytes) does not beat plain s2 (%d) on depth", len(delta), len(plain))
	}
}

func TestCorruptInputIsAnError(t *testing.T) {
	s := samples(t)[0]
	for _, c := range Codecs() {
		enc, _ := Encode(nil, c, s.format, s.w, s.h, 2, s.pixels)
		for _, cut := range []int{0, 3, headerSize, headerSize + 5, len(enc) / 2, len(enc) - 1} {
			if _, _, err := Decode(nil, enc[:cut]); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s truncated to %d: err %v", c, cut, err)
			}
		}
		flipped := append([]byte{}, enc...)
		flipped[len(flipped)-3] ^= 0x5a
		if _, dec, err := Decode(nil, flipped); err == nil && c != None && c != RLE && bytes.Equal(dec, s.pixels) {
			t.Errorf("%s: a flipped byte went unnoticed and decoded to the original", c)
		}
	}
	huge := make([]byte, headerSize+chunkEntry)
	copy(huge, magic)
	huge[4], huge[5] = byte(None), byte(RGBA8)
	huge[8], huge[9], huge[12], huge[13], huge[16] = 0xff, 0xff, 0xff, 0xff, 1
	if _, _, err := Decode(nil, huge); !errors.Is(err, ErrCorrupt) {
		t.Errorf("oversized header: %v", err)
	}
}

func TestChooserPicksByLink(t *testing.T) {
	s := samples(t)[0]
	ch := NewChooser()
	if ch.Choose(RGBA8, len(s.pixels), Link{Bandwidth: 1e9}) != None {
		t.Error("without measurements the choice must be None")
	}
	// Synthetic measurements: s2 encodes+decodes at 2 GB/s total and
	// shrinks 20x; raw costs nothing to code.
	raw := 8 << 20
	ch.Observe(RGBA8, None, raw, raw, 0, 0)
	ch.Observe(RGBA8, S2, raw, raw/20, time.Duration(float64(raw)/4e9*1e9), time.Duration(float64(raw)/4e9*1e9))
	if got := ch.Choose(RGBA8, raw, Link{Bandwidth: 6e9}); got != None {
		t.Errorf("loopback (6 GB/s): chose %s, want none", got)
	}
	if got := ch.Choose(RGBA8, raw, Link{Bandwidth: 0.125e9}); got != S2 {
		t.Errorf("1 GbE: chose %s, want s2", got)
	}
	// The choice follows new measurements: s2 slows down 20x.
	for i := 0; i < 20; i++ {
		ch.Observe(RGBA8, S2, raw, raw/20, time.Duration(float64(raw)/0.2e9*1e9), 0)
	}
	if got := ch.Choose(RGBA8, raw, Link{Bandwidth: 1.25e9}); got != None {
		t.Errorf("10 GbE with a slow encoder: chose %s, want none", got)
	}
	if err := NewChooser().Calibrate(RGBA8, s.w, s.h, s.pixels); err != nil {
		t.Fatal(err)
	}
}

// On a host whose cores are all busy, frames are bound by the CPU: a link
// busy a small part of the time costs a frame only that part of the
// bytes' crossing, so raw frames win where one frame's crossing ranks s2
// first; a link the raw frames would fill still wants them compressed.
// The figures are this machine's (make bench-cluster, 10 Gbit/s: s2
// codes at 0.55 ns a byte both ways and shrinks 34x; the render hosts
// offered each link about 70 MB/s).
func TestChooserWeighsALinkByItsUseWhereCoresAreFull(t *testing.T) {
	ch := NewChooser()
	raw := 2 << 20
	perByte := func(ns float64) time.Duration { return time.Duration(ns * float64(raw)) }
	ch.Observe(RGBA8, None, raw, raw, 0, 0)
	ch.Observe(RGBA8, S2, raw, raw/34, perByte(0.34), perByte(0.21))
	tenGbE := Link{Bandwidth: 1.19e9, RawPerSecond: 70e6}
	if got := ch.Choose(RGBA8, raw, tenGbE); got != S2 {
		t.Errorf("10 GbE, cores not full: chose %s, want s2 (the shorter crossing)", got)
	}
	tenGbE.CoresFull = true
	if got := ch.Choose(RGBA8, raw, tenGbE); got != None {
		t.Errorf("10 GbE used 6%% of the time, cores full: chose %s, want none", got)
	}
	oneGbE := Link{Bandwidth: 0.119e9, RawPerSecond: 70e6, CoresFull: true}
	if got := ch.Choose(RGBA8, raw, oneGbE); got != S2 {
		t.Errorf("1 GbE that raw frames would keep busy 59%% of the time, cores full: chose %s, want s2", got)
	}
	unmeasured := Link{Bandwidth: 1.19e9, CoresFull: true}
	if got, want := ch.Cost(RGBA8, None, raw, unmeasured), ch.Cost(RGBA8, None, raw, Link{Bandwidth: 1.19e9}); got != want {
		t.Errorf("with the link's use not measured yet: cost %v, want the crossing's %v", got, want)
	}
}

func fuzzDecoder(f *testing.F, c Codec, format Format) {
	s := sample{"seed", format, 64, 8, nil}
	s.pixels = make([]byte, 4*64*8)
	for i := range s.pixels {
		s.pixels[i] = byte(i / 37)
	}
	enc, _ := Encode(nil, c, format, s.w, s.h, 2, s.pixels)
	f.Add(enc)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, out, err := Decode(nil, data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		if len(out) != h.Width*h.Height*4 {
			t.Fatalf("decoded %d bytes for %dx%d", len(out), h.Width, h.Height)
		}
	})
}

func FuzzDecodeNone(f *testing.F)     { fuzzDecoder(f, None, RGBA8) }
func FuzzDecodeS2(f *testing.F)       { fuzzDecoder(f, S2, RGBA8) }
func FuzzDecodeZstd(f *testing.F)     { fuzzDecoder(f, Zstd, RGBA8) }
func FuzzDecodePlanes(f *testing.F)   { fuzzDecoder(f, Planes, RGBA8) }
func FuzzDecodeRLE(f *testing.F)      { fuzzDecoder(f, RLE, RGBA8) }
func FuzzDecodeDelta(f *testing.F)    { fuzzDecoder(f, Delta, DepthF32) }
func FuzzDecodePlaneRLE(f *testing.F) { fuzzDecoder(f, PlaneRLE, DepthU32) }

func BenchmarkEncodeS2(b *testing.B) {
	s := samples(b)[0]
	b.SetBytes(int64(len(s.pixels)))
	for i := 0; i < b.N; i++ {
		Encode(nil, S2, s.format, s.w, s.h, 1, s.pixels)
	}
}

func BenchmarkDecodeS2(b *testing.B) {
	s := samples(b)[0]
	enc, _ := Encode(nil, S2, s.format, s.w, s.h, 1, s.pixels)
	out := make([]byte, len(s.pixels))
	b.SetBytes(int64(len(s.pixels)))
	for i := 0; i < b.N; i++ {
		if _, _, err := Decode(out, enc); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeViewAliasesRawFrames(t *testing.T) {
	s := samples(t)[0]
	want := Expect{Width: s.w, Height: s.h, Format: s.format}
	for _, c := range []Codec{None, S2} {
		enc, _ := Encode(nil, c, s.format, s.w, s.h, 3, s.pixels)
		_, px, err := DecodeViewExpect(enc, want)
		if err != nil || !bytes.Equal(px, s.pixels) {
			t.Fatalf("%s: %v", c, err)
		}
		if c == None && &px[0] != &enc[len(enc)-len(px)] {
			t.Error("raw frame was copied")
		}
	}
	enc, _ := Encode(nil, None, s.format, s.w, s.h, 3, s.pixels)
	if _, _, err := DecodeViewExpect(enc[:len(enc)-1], want); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated raw frame: %v", err)
	}
}

// A 28-byte frame (header and one chunk entry) that claims 16384x16384
// pixels is refused by every codec's decoder before it allocates the
// gigabyte it claims: sizes are checked against what arrived first.
func TestDecodeChecksBeforeAllocating(t *testing.T) {
	for _, c := range Codecs() {
		for _, chunkLen := range []uint32{0, 8} {
			src := make([]byte, headerSize+chunkEntry+int(chunkLen))
			copy(src, magic)
			src[4], src[5] = byte(c), byte(RGBA8)
			binary.LittleEndian.PutUint32(src[8:], MaxDimension)
			binary.LittleEndian.PutUint32(src[12:], MaxDimension)
			binary.LittleEndian.PutUint32(src[16:], 1)
			binary.LittleEndian.PutUint32(src[headerSize:], chunkLen)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := Decode(nil, src)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Errorf("%v: a %d-byte frame claiming %dx%d decoded", c, len(src), MaxDimension, MaxDimension)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("%v: refusing a %d-byte frame allocated %d bytes", c, len(src), grew)
			}
		}
	}
	// and a frame that is not what the receiver expects is refused too
	pixels := make([]byte, 4*16*16)
	enc, err := Encode(nil, S2, RGBA8, 16, 16, 0, pixels)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := DecodeExpect(nil, enc, Expect{Width: 16, Height: 8, Format: RGBA8}); err == nil {
		t.Error("a 16x16 frame decoded where 16x8 was expected")
	}
	if _, _, err := DecodeExpect(nil, enc, Expect{Width: 16, Height: 16, Format: RGBA8}); err != nil {
		t.Errorf("the expected frame: %v", err)
	}
}

// A chooser calibrated on data unlike the frames a run sends (random bytes,
// which no codec shrinks, or rows of one colour each, which every codec
// shrinks): after 64 rendered frames sent, probed and observed as a
// sender does (encodes, and decodes when asked), its codec costs at most
// twice the cheapest for that frame and link (plus half a millisecond),
// measured directly: encode and decode in CPU time (as senders time them),
// and the bytes over the link. Misled, it costs 10-20 times that on the
// slow link; on the fast ones four codecs cost 1.5-5 ms, within 2x of one
// another, and the CPU clock of a shared virtual machine does not tell
// them apart more finely over 64 frames (1.5x failed one run in 30).
func TestChooserLearnsFromTheFramesSent(t *testing.T) {
	var rendered sample
	misleading := []sample{{name: "rows", format: RGBA8, w: 256, h: 64, pixels: make([]byte, 4*256*64)}}
	for i := range misleading[0].pixels {
		misleading[0].pixels[i] = byte(i / 4 / 256)
	}
	for _, s := range samples(t) {
		if s.format == RGBA8 && rendered.pixels == nil && s.name != "random" {
			rendered = s
		}
		if s.name == "random" {
			misleading = append(misleading, s)
		}
	}
	raw := len(rendered.pixels)
	// into buffers kept from frame to frame, as a sender's are: a fresh
	// one's page faults add more to the CPU time than some codecs cost
	enc, dec := make([]byte, 0, 2*raw), make([]byte, raw)
	encode := func(cpu *CPU, codec Codec) (err error) {
		enc, err = EncodeCPU(cpu, enc[:0], codec, RGBA8, rendered.w, rendered.h, 0, rendered.pixels)
		return err
	}
	decode := func(cpu *CPU) (err error) {
		_, dec, err = DecodeExpect(dec, enc, Expect{Width: rendered.w, Height: rendered.h, Format: RGBA8, CPU: cpu})
		return err
	}
	// encode + decode, the best of seven rounds over the codecs: on a
	// virtual machine a thread's CPU time includes moments the host ran
	// something else, which last up to tens of milliseconds, so a codec's
	// runs are spread over the whole measurement
	measured := map[Codec]time.Duration{}
	size := map[Codec]int{}
	for i := 0; i < 7; i++ {
		for _, codec := range Candidates(RGBA8) {
			var err error
			d := MeasureCPU(func(cpu *CPU) {
				if err = encode(cpu, codec); err == nil {
					err = decode(cpu)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 || d < measured[codec] {
				measured[codec] = d
			}
			size[codec] = len(enc)
		}
	}
	for _, link := range []struct {
		name      string
		bandwidth float64
	}{{"100 Mbit/s", 12.5e6}, {"1 Gbit/s", 125e6}, {"10 Gbit/s", 1.25e9}} {
		cost := func(c Codec) time.Duration {
			return measured[c] + time.Duration(float64(size[c])/link.bandwidth*1e9)
		}
		cheapest := None
		for _, c := range Candidates(RGBA8) {
			if cost(c) < cost(cheapest) {
				cheapest = c
			}
		}
		for _, calibration := range misleading {
			ch := NewChooser()
			if err := ch.Calibrate(RGBA8, calibration.w, calibration.h, calibration.pixels); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 64; i++ {
				time.Sleep(2 * time.Millisecond) // the next frame renders
				codec := ch.Pick(RGBA8, raw, Link{Bandwidth: link.bandwidth})
				var err error
				cpu := MeasureCPU(func(cpu *CPU) { err = encode(cpu, codec) })
				if err != nil {
					t.Fatal(err)
				}
				ch.ObserveEncode(RGBA8, codec, raw, len(enc), cpu)
				if ch.WantsDecode(RGBA8, codec) {
					cpu := MeasureCPU(func(cpu *CPU) { err = decode(cpu) })
					if err != nil {
						t.Fatal(err)
					}
					ch.ObserveDecode(RGBA8, codec, raw, cpu)
				}
			}
			got := ch.Choose(RGBA8, raw, Link{Bandwidth: link.bandwidth})
			if float64(cost(got)) > 2*float64(cost(cheapest))+0.5e6 {
				t.Errorf("%s, calibrated on %s: after 64 rendered frames the chooser took %s (%v), the cheapest is %s (%v)",
					link.name, calibration.name, got, cost(got), cheapest, cost(cheapest))
			}
		}
	}
}

// Pick probes every ProbeEvery-th frame, in turn, the codecs predicted to
// cost at most ProbeWithin times the cheapest, and otherwise returns
// Choose's codec; a codec sent on fewer frames than it is judged on is
// probed first, however much it is predicted to cost, but None.
func TestChooserProbesOnlyCodecsThatCouldWin(t *testing.T) {
	ch := NewChooser()
	ch.ProbeEvery = 8
	raw, bw := 1<<20, 1e8 // 10.5 ms raw
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	// all sent on enough frames; the decode is taken to cost the encode's
	ch.Observe(RGBA8, None, raw, raw, 0, 0)
	for range framesJudged {
		ch.ObserveEncode(RGBA8, S2, raw, raw/10, ms(1))      // 3 ms: the cheapest
		ch.ObserveEncode(RGBA8, Zstd, raw, raw/20, ms(2))    // 4.5 ms: within 2x
		ch.ObserveEncode(RGBA8, Planes, raw, raw/5, ms(1.5)) // 5 ms: within 2x
		ch.ObserveEncode(RGBA8, RLE, raw, raw/2, ms(1))      // 7 ms: beyond
		ch.ObserveEncode(RGBA8, PlaneRLE, raw, raw/4, ms(4)) // 10.5 ms: beyond
	}
	seen := map[Codec]int{}
	for i := 0; i < 8*6; i++ {
		got := ch.Pick(RGBA8, raw, Link{Bandwidth: bw})
		if i%8 != 7 && got != S2 {
			t.Fatalf("pick %d: %s, want the cheapest, s2", i, got)
		}
		seen[got]++
	}
	if seen[Zstd] != 3 || seen[Planes] != 3 || seen[None] != 0 || seen[RLE] != 0 || seen[PlaneRLE] != 0 {
		t.Errorf("probes %v: want zstd and planes 3 times each, nothing else", seen)
	}
	// zstd and rle, known only from calibration and predicted at 100 ms,
	// are probed at once, once each: rle's
	// first frame shows that its bytes alone cost the link more than s2
	// does in all, and zstd's that it costs more than s2, so it waits
	// deferProbe picks before its next; None, as slow,
	// not at all
	fresh := NewChooser()
	fresh.ProbeEvery = 8
	fresh.Observe(RGBA8, None, raw, raw, ms(50), 0)
	for range framesJudged {
		fresh.ObserveEncode(RGBA8, S2, raw, raw/10, ms(1)) // 3 ms
		for _, slow := range []Codec{Planes, PlaneRLE} {
			fresh.ObserveEncode(RGBA8, slow, raw, raw/10, ms(10))
		}
	}
	fresh.Observe(RGBA8, Zstd, raw, raw/20, ms(50), ms(50))
	fresh.Observe(RGBA8, RLE, raw, raw/20, ms(50), ms(50))
	var picked []Codec
	for i := 0; i < 2*deferProbe; i++ {
		got := fresh.Pick(RGBA8, raw, Link{Bandwidth: bw})
		picked = append(picked, got)
		switch got {
		case Zstd:
			fresh.ObserveEncode(RGBA8, Zstd, raw, raw/20, ms(50))
		case RLE:
			fresh.ObserveEncode(RGBA8, RLE, raw, raw/2, ms(1)) // 5.2 ms over the link
		}
	}
	for i, got := range picked {
		want := map[int]Codec{0: Zstd, 1: RLE, 1 + deferProbe: Zstd}[i]
		if want == None {
			want = S2
		}
		if got != want {
			t.Fatalf("picks %v: pick %d is %s, want %s", picked, i, got, want)
		}
	}
	ch.ProbeEvery = 0
	for i := 0; i < 16; i++ {
		if got := ch.Pick(RGBA8, raw, Link{Bandwidth: bw}); got != S2 {
			t.Fatalf("probing off: pick %d is %s", i, got)
		}
	}
}

// On a fast link from a host whose cores are full, raw frames win, and
// each codec's first frame shows it costlier (encode and decode per byte
// as measured on a rendered frame): a 60-frame run sends each once to
// judge it, not framesJudged times, and then tries those within
// ProbeWithin of the cheapest every ProbeEvery-th frame.
func TestChooserJudgesACostlyCodecOnOneFrame(t *testing.T) {
	raw := 4 * 1920 * 1080
	ns := func(perByte float64) time.Duration { return time.Duration(perByte * float64(raw)) }
	coding := map[Codec]time.Duration{None: ns(0.74), S2: ns(1.88), Zstd: ns(4.08), Planes: ns(1.45), RLE: ns(1.41), PlaneRLE: ns(2.05)}
	ratio := map[Codec]float64{None: 1, S2: 0.26, Zstd: 0.19, Planes: 0.26, RLE: 0.55, PlaneRLE: 0.43}
	ch := NewChooser()
	rows := make([]byte, 4*256*64)
	for i := range rows {
		rows[i] = byte(i / 4 / 64)
	}
	if err := ch.Calibrate(RGBA8, 256, 64, rows); err != nil {
		t.Fatal(err)
	}
	link := Link{Bandwidth: 1.25e9, RawPerSecond: 0.6 * 1.25e9, CoresFull: true}
	sent := map[Codec]int{}
	for range 60 {
		codec := ch.Pick(RGBA8, raw, link)
		sent[codec]++
		ch.ObserveEncode(RGBA8, codec, raw, int(ratio[codec]*float64(raw)), coding[codec]/2)
		if ch.WantsDecode(RGBA8, codec) {
			ch.ObserveDecode(RGBA8, codec, raw, coding[codec]/2)
		}
	}
	probes := 0
	for codec, n := range sent {
		if codec != None {
			probes += n
		}
	}
	if sent[Zstd] != 1 || sent[PlaneRLE] != 1 || probes > 5+60/ch.ProbeEvery {
		t.Errorf("sent %v: want each codec but none once, then at most one probe every %d frames", sent, ch.ProbeEvery)
	}
}

// Every codec is tried on the first frames, None too where the link is
// measured and fast; until its bandwidth is measured, None is not tried:
// on a slow link a raw frame takes many frames' time.
func TestChooserTriesNoneOnlyOnAMeasuredLink(t *testing.T) {
	raw := 4 * 1920 * 1080
	perByte := func(ns float64) time.Duration { return time.Duration(ns * float64(raw)) }
	for _, measured := range []bool{false, true} {
		// as calibrated: None 1.8 ns a byte in all on 10 Gbit/s, the
		// others 0.6, and 1.4 once sent
		ch := NewChooser()
		for _, codec := range Candidates(RGBA8) {
			if codec == None {
				ch.Observe(RGBA8, None, raw, raw, perByte(0.5), perByte(0.5))
			} else {
				ch.Observe(RGBA8, codec, raw, raw/4, perByte(0.2), perByte(0.2))
			}
		}
		link := Link{}
		if measured {
			link.Bandwidth = 1.25e9
		}
		sent := map[Codec]bool{}
		for range len(Candidates(RGBA8)) {
			codec := ch.Pick(RGBA8, raw, link)
			sent[codec] = true
			ch.ObserveEncode(RGBA8, codec, raw, raw/4, perByte(1))
		}
		if sent[None] != measured || len(sent) != len(Candidates(RGBA8))-b2i(!measured) {
			t.Errorf("link measured %v: the first frames sent %v", measured, sent)
		}
	}
	// nor is it sent as the cheapest while the link is not measured: on
	// an assumed 10 Gbit/s it is, here, but the link may be far slower
	ch := NewChooser()
	ch.Observe(RGBA8, None, raw, raw, 0, 0)
	ch.ObserveEncode(RGBA8, S2, raw, raw/4, perByte(4))
	if got := ch.Pick(RGBA8, raw, Link{}); got != S2 {
		t.Errorf("link not measured: picked %s, want s2", got)
	}
	if got := ch.Pick(RGBA8, raw, Link{Bandwidth: 1.25e9}); got != None {
		t.Errorf("10 Gbit/s: picked %s, want none", got)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A sample of the first frame gives every codec its ratio on the content
// before it is sent: on a 100 Mbit/s link rle and plane-rle, whose bytes
// alone take 2.3 and 1.8 times zstd's whole cost to cross, are not sent
// to be judged. Calibration's gradient, which every codec shrinks 12 to 125
// times, does not show it. (Every ProbeEvery-th frame may still try them
// among the codecs within ProbeWithin of the cheapest.)
func TestChooserStartsFromASampleOfTheContent(t *testing.T) {
	raw := 4 * 1920 * 540
	perByte := func(ns float64) time.Duration { return time.Duration(ns * float64(raw)) }
	coding := map[Codec]float64{None: 0.74, S2: 1.88, Zstd: 4.08, Planes: 1.45, RLE: 1.41, PlaneRLE: 2.05}
	ratio := map[Codec]float64{None: 1, S2: 0.26, Zstd: 0.19, Planes: 0.26, RLE: 0.55, PlaneRLE: 0.43}
	rows := make([]byte, 4*256*64)
	for i := range rows {
		rows[i] = byte(i / 4 / 64)
	}
	for _, sampled := range []bool{false, true} {
		ch := NewChooser()
		if err := ch.Calibrate(RGBA8, 256, 64, rows); err != nil {
			t.Fatal(err)
		}
		if sampled {
			if !ch.WantsSample(RGBA8) || ch.WantsSample(RGBA8) {
				t.Fatal("WantsSample is not true exactly once")
			}
			for codec, ns := range coding {
				// the sample's ratio a third above the frame's, as an LZ
				// codec's can be
				ch.ObserveSample(RGBA8, codec, raw, int(1.35*ratio[codec]*float64(raw)), perByte(ns/2), perByte(ns/2))
			}
		}
		var judging []Codec // the frames before the first rival's
		for range ch.ProbeEvery - 1 {
			codec := ch.Pick(RGBA8, raw, Link{Bandwidth: 12.5e6})
			judging = append(judging, codec)
			ch.ObserveEncode(RGBA8, codec, raw, int(ratio[codec]*float64(raw)), perByte(coding[codec]/2))
			if ch.WantsDecode(RGBA8, codec) {
				ch.ObserveDecode(RGBA8, codec, raw, perByte(coding[codec]/2))
			}
		}
		slow := slices.ContainsFunc(judging, func(c Codec) bool { return c == RLE || c == PlaneRLE || c == None })
		if sampled && slow {
			t.Errorf("sampled: picked %v; want no rle, plane-rle or none", judging)
		}
		if !sampled && !slow {
			t.Errorf("calibrated only: picked %v; want rle or plane-rle sent to be judged", judging)
		}
		if got := ch.Choose(RGBA8, raw, Link{Bandwidth: 12.5e6}); got != Zstd {
			t.Errorf("sampled %v: chose %s after %d frames, want zstd", sampled, got, len(judging))
		}
	}
}

// The sender is asked to measure a codec's decode on its first
// framesJudged frames and then every decodeEvery frames; what it measures
// replaces calibration's figure at once.
func TestChooserAsksForDecodesNowAndThen(t *testing.T) {
	ch := NewChooser()
	raw := 1 << 20
	ch.Observe(RGBA8, S2, raw, raw/10, time.Millisecond, time.Millisecond)
	if ch.WantsDecode(RGBA8, S2) {
		t.Error("asked to measure a decode before any frame was sent")
	}
	asked := 0
	for i := 1; i <= 2*decodeEvery; i++ {
		ch.ObserveEncode(RGBA8, S2, raw, raw/10, time.Millisecond)
		if ch.WantsDecode(RGBA8, S2) {
			asked++
			ch.ObserveDecode(RGBA8, S2, raw, 5*time.Millisecond)
			if i == 1 && ch.Cost(RGBA8, S2, raw, Link{Bandwidth: 1e12}) < 5*time.Millisecond {
				t.Errorf("the first measured decode did not replace calibration's: cost %v", ch.Cost(RGBA8, S2, raw, Link{Bandwidth: 1e12}))
			}
		}
	}
	if asked != framesJudged+2 { // the first frames, then frames 64 and 128
		t.Errorf("asked for %d decodes over %d frames, want %d", asked, 2*decodeEvery, framesJudged+2)
	}
}

// A measurement inflated by what else the process did (a garbage
// collector's assist, page faults) does not steer the choice, whether it
// is a codec's first decode or a stretch of slow encodes shorter than
// the window; a cost that really rises is followed within it.
func TestChooserIgnoresASingleInflatedMeasurement(t *testing.T) {
	raw, bw := 1<<20, 1.25e9
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	ch := NewChooser()
	ch.ProbeEvery = 0
	ch.Observe(RGBA8, None, raw, raw, 0, 0) // 0.84 ms over the link
	send := func(codec Codec, encode, decode time.Duration) {
		ch.ObserveEncode(RGBA8, codec, raw, raw/10, encode)
		if ch.WantsDecode(RGBA8, codec) {
			ch.ObserveDecode(RGBA8, codec, raw, decode)
		}
	}
	send(S2, ms(0.2), ms(6)) // s2: 0.5 ms, but its first decode took 6
	send(S2, ms(0.2), ms(0.2))
	send(S2, ms(0.2), ms(0.2))
	if got := ch.Choose(RGBA8, raw, Link{Bandwidth: bw}); got != S2 {
		t.Errorf("after a first decode 30 times its cost and two true ones: chose %s (s2 costs %v), want s2", got, ch.Cost(RGBA8, S2, raw, Link{Bandwidth: bw}))
	}
	window := len(recent{}.v)
	for range window - 1 {
		send(S2, ms(5), 0)
	}
	if got := ch.Choose(RGBA8, raw, Link{Bandwidth: bw}); got != S2 {
		t.Errorf("%d slow encodes among fast ones moved the choice to %s", window-1, got)
	}
	send(S2, ms(5), 0)
	if got := ch.Choose(RGBA8, raw, Link{Bandwidth: bw}); got != None {
		t.Errorf("s2's encode slowed 25x for %d frames: chose %s, want none", window, got)
	}
}

// A frame cut into chunks is coded on several threads; MeasureCPU holds
// all of them: what the process spent, less what its runtime did beside
// (a collector's workers, 20-50% here), and never more. (Timing the calling thread
// alone, as senders did, measured a 2-chunk encode as its header: 1% of
// the process's time.)
func TestMeasureCPUCountsEveryChunk(t *testing.T) {
	s := samples(t)[0]
	process := func() time.Duration {
		var ru unix.Rusage
		if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, codec := range []Codec{S2, Zstd, Planes} {
		for _, chunks := range []int{2, 8} {
			var metered, spent time.Duration
			enc, dec := make([]byte, 0, 2*len(s.pixels)), make([]byte, len(s.pixels))
			for i := 0; i < 10; i++ {
				before := process()
				metered += MeasureCPU(func(cpu *CPU) {
					var err error
					enc, err = EncodeCPU(cpu, enc[:0], codec, s.format, s.w, s.h, chunks, s.pixels)
					if err == nil {
						_, dec, err = DecodeExpect(dec, enc, Expect{Width: s.w, Height: s.h, Format: s.format, CPU: cpu})
					}
					if err != nil {
						t.Fatal(err)
					}
				})
				spent += process() - before
			}
			if r := float64(metered) / float64(spent); r < 0.4 || r > 1.05 {
				t.Errorf("%s in %d chunks: measured %v of CPU, the process spent %v (%.2f)", codec, chunks, metered, spent, r)
			}
		}
	}
}

func TestParseChoice(t *testing.T) {
	for _, name := range []string{"", "auto"} {
		if _, auto, err := ParseChoice(name); !auto || err != nil {
			t.Errorf("%q: auto %v, err %v; want the chooser", name, auto, err)
		}
	}
	for _, c := range Codecs() {
		got, auto, err := ParseChoice(c.String())
		if got != c || auto || err != nil {
			t.Errorf("%q: %v auto %v err %v; want %v fixed", c.String(), got, auto, err, c)
		}
	}
	for _, name := range []string{"zstd2", "S2", "codec(9)"} {
		if _, _, err := ParseChoice(name); err == nil || !strings.Contains(err.Error(), "unknown codec") {
			t.Errorf("%q: err %v, want unknown codec", name, err)
		}
	}
}
