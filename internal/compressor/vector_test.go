package compressor

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// The codecs' loops (with the vector kernels where the build has them)
// against the byte-at-a-time loops they replaced, kept here as the
// reference: byte planes, both ways, depth deltas, and both run-length
// encodings must give the same bytes on runs of every length around the
// vector widths and the run limits (2, 3, 8, 32, 128, 129), on noise, and
// on frames of every length modulo 32 pixels, and decode back. `make
// test` runs this with and without GOEXPERIMENT=simd.
func TestCodecLoopsEqualReference(t *testing.T) {
	if VectorKernels() == "" {
		t.Log("no vector kernels in this build (GOEXPERIMENT=simd, AVX2): the portable loops against the reference")
	} else {
		t.Logf("vector kernels: %s", VectorKernels())
	}
	r := rand.New(rand.NewSource(3))
	for _, src := range codecLoopInputs(r) {
		n := len(src) / 4
		got := make([]byte, len(src))
		if toPlanes(got, src); !bytes.Equal(got, referencePlanes(src)) {
			t.Fatalf("%d pixels: toPlanes differs from the reference", n)
		}
		if deltas(got, src); !bytes.Equal(got, referenceDeltas(src)) {
			t.Fatalf("%d pixels: deltas differ from the reference", n)
		}
		back := make([]byte, len(src))
		fromPlanes(back, referencePlanes(src))
		if !bytes.Equal(back, src) {
			t.Fatalf("%d pixels: fromPlanes does not restore the pixels", n)
		}
		if got, want := (rleCodec{}).encode(nil, src), referenceRLE(src); !bytes.Equal(got, want) {
			t.Fatalf("%d pixels: rle differs from the reference (%d bytes, want %d)", n, len(got), len(want))
		}
		if got, want := (planeRLECodec{}).encode(nil, src), referencePlaneRLE(src); !bytes.Equal(got, want) {
			t.Fatalf("%d pixels: plane rle differs from the reference (%d bytes, want %d)", n, len(got), len(want))
		}
		// and back: the decoders' word stores past a run's end
		for _, c := range []chunkCodec{planesCodec{}, deltaCodec{}, rleCodec{}, planeRLECodec{}} {
			dec, enc := make([]byte, len(src)), c.encode(nil, src)
			poisonScratch(len(src))
			if err := c.decode(dec, enc); err != nil || !bytes.Equal(dec, src) {
				t.Fatalf("%d pixels: %T does not decode its own encoding (%v)", n, c, err)
			}
		}
	}
}

// poisonScratch fills the pooled scratch buffers with a byte no input
// here holds throughout, so that a decoder that skips bytes cannot pass
// on the planes its encoder left there.
func poisonScratch(n int) {
	bufs := []*[]byte{scratch(n), scratch(n), scratch(n)}
	for _, b := range bufs {
		for i := range *b {
			(*b)[i] = 0xa5
		}
		release(b)
	}
}

// codecLoopInputs are pixels in runs of lengths drawn around the vector
// widths and run limits, mixed with noise, at every length modulo 32.
func codecLoopInputs(r *rand.Rand) [][]byte {
	lengths := []int{1, 2, 3, 4, 7, 8, 9, 31, 32, 33, 127, 128, 129, 130, 258, 300}
	var out [][]byte
	for size := 0; size < 200; size++ {
		out = append(out, runs(r, size, lengths, 4))
	}
	for _, size := range []int{1000, 4099, 1 << 14} {
		for _, values := range []int{1, 2, 256, 1 << 30} {
			out = append(out, runs(r, size, lengths, values))
		}
	}
	// noise, and a frame of one colour
	noise := make([]byte, 4*5003)
	r.Read(noise)
	return append(out, noise, bytes.Repeat([]byte{9, 8, 7, 6}, 3001))
}

// runs is size pixels in runs of the given lengths, each a pixel whose
// bytes are drawn from values values (few values: neighbouring runs and
// bytes of a plane often repeat).
func runs(r *rand.Rand, size int, lengths []int, values int) []byte {
	out := make([]byte, 0, 4*size)
	for len(out) < 4*size {
		px := uint32(r.Intn(values)) * 0x01010101
		if values > 256 {
			px = r.Uint32()
		}
		for k := lengths[r.Intn(len(lengths))]; k > 0 && len(out) < 4*size; k-- {
			out = binary.LittleEndian.AppendUint32(out, px)
		}
	}
	return out
}

func referencePlanes(src []byte) []byte {
	n := len(src) / 4
	out := make([]byte, len(src))
	for i := 0; i < n; i++ {
		for b := 0; b < 4; b++ {
			out[b*n+i] = src[4*i+b]
		}
	}
	return out
}

func referenceDeltas(src []byte) []byte {
	d := make([]byte, len(src))
	var prev uint32
	for i := 0; i+4 <= len(src); i += 4 {
		v := binary.LittleEndian.Uint32(src[i:])
		binary.LittleEndian.PutUint32(d[i:], v-prev)
		prev = v
	}
	return d
}

func referenceRLE(src []byte) []byte {
	var dst []byte
	n := len(src) / 4
	px := func(i int) uint32 { return binary.LittleEndian.Uint32(src[4*i:]) }
	lit := -1
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

func referencePlaneRLE(src []byte) []byte {
	var dst []byte
	p := referencePlanes(src)
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

// BenchmarkCodecs codes the stored frames with every candidate codec in
// one chunk (one core): `make bench` runs it with the vector kernels, and
// `GOEXPERIMENT= go test -bench Codecs ./internal/compressor` without
// (docs/benchmarks.md, "Codec kernels").
func BenchmarkCodecs(b *testing.B) {
	for _, s := range samples(b)[:4] {
		for _, c := range Candidates(s.format) {
			enc, err := Encode(nil, c, s.format, s.w, s.h, 1, s.pixels)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(s.name+"/"+c.String()+"/encode", func(b *testing.B) {
				b.SetBytes(int64(len(s.pixels)))
				for b.Loop() {
					Encode(nil, c, s.format, s.w, s.h, 1, s.pixels)
				}
			})
			out := make([]byte, len(s.pixels))
			b.Run(s.name+"/"+c.String()+"/decode", func(b *testing.B) {
				b.SetBytes(int64(len(s.pixels)))
				for b.Loop() {
					if _, _, err := Decode(out, enc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
