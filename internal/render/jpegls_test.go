package render

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// A lossless JPEG with restart markers (DCMTK writes none) decodes to its
// samples: encoded here as ITU T.81 says, with the second predictor (the
// sample above) and a restart every two rows, after which a row is
// predicted as the first (from the left).
func TestLosslessJPEGRestarts(t *testing.T) {
	const w, h, precision, restart = 48, 32, 12, 2 * 48
	rng := rand.New(rand.NewPCG(1, 2))
	samples := make([]uint16, w*h)
	for i := range samples {
		samples[i] = uint16(max(0, min(4095, 40*(i%w)+30*(i/w)+rng.IntN(600)-300)))
	}
	stream := encodeLosslessJPEG(samples, w, h, precision, restart)
	got, gp, err := decodeLosslessJPEG(stream, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if gp != precision || !slices.Equal(got, samples) {
		t.Errorf("%d bits, samples %v...; want %d, %v...", gp, got[:6], precision, samples[:6])
	}
	if _, _, err := decodeLosslessJPEG(stream, w, h+1); err == nil {
		t.Error("a JPEG image of other sides than its slice's decoded")
	}
	// a restart marker missing
	broken := bytes.Replace(stream, []byte{0xFF, 0xD3}, []byte{0x00, 0x00}, 1)
	if _, _, err := decodeLosslessJPEG(broken, w, h); err == nil {
		t.Error("a stream without one of its restart markers decoded")
	}
}

// encodeLosslessJPEG encodes w×h samples of precision bits as ITU T.81's
// lossless process does, with the second predictor (the sample above) and
// a restart every restart samples (a whole number of rows).
func encodeLosslessJPEG(samples []uint16, w, h, precision, restart int) []byte {
	var out bytes.Buffer
	var acc uint32
	var n int
	put := func(v uint32, bits int) {
		for k := bits - 1; k >= 0; k-- {
			acc = acc<<1 | v>>k&1
			if n++; n == 8 {
				out.WriteByte(byte(acc))
				if byte(acc) == 0xFF {
					out.WriteByte(0) // stuffed
				}
				acc, n = 0, 0
			}
		}
	}
	flush := func() { // to a byte's end with ones
		for n != 0 {
			put(1, 1)
		}
	}
	segment := func(marker byte, body ...byte) {
		out.Write([]byte{0xFF, marker})
		binary.Write(&out, binary.BigEndian, uint16(len(body)+2))
		out.Write(body)
	}
	out.Write([]byte{0xFF, 0xD8})
	segment(0xC3, byte(precision), byte(h>>8), byte(h), byte(w>>8), byte(w), 1, 1, 0x11, 0)
	// a Huffman table of the 17 differences' sizes, each a 5-bit code
	table := append([]byte{0, 0, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	segment(0xC4, table...)
	if restart > 0 {
		segment(0xDD, byte(restart>>8), byte(restart))
	}
	segment(0xDA, 1, 1, 0, 2, 0, 0) // the second predictor: from above
	first := true
	for i, x := range samples {
		restarted := restart > 0 && i > 0 && i%restart == 0
		if restarted {
			flush()
			out.Write([]byte{0xFF, 0xD0 + byte(i/restart-1)%8})
		}
		if i == 0 || restarted {
			first = true
		} else if i%w == 0 {
			first = false
		}
		var p int
		switch {
		case i == 0 || restarted:
			p = 1 << (precision - 1)
		case first:
			p = int(samples[i-1])
		default: // the first column's, and the second predictor's
			p = int(samples[i-w])
		}
		d := int(x) - p
		size := 0
		for m := max(d, -d); m > 0; m >>= 1 {
			size++
		}
		put(uint32(size), 5)
		if d < 0 {
			d += 1<<size - 1
		}
		put(uint32(d), size)
	}
	flush()
	out.Write([]byte{0xFF, 0xD9})
	return out.Bytes()

}

// FuzzLosslessJPEG: whatever the data, decoding ends in samples or an
// error, never a panic or a wait.
func FuzzLosslessJPEG(f *testing.F) {
	samples := make([]uint16, 16*8)
	for i := range samples {
		samples[i] = uint16(i * 37 % 4096)
	}
	f.Add(encodeLosslessJPEG(samples, 16, 8, 12, 32))
	f.Add(encodeLosslessJPEG(samples, 16, 8, 16, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, _, err := decodeLosslessJPEG(data, 16, 8); err == nil && len(got) != 16*8 {
			t.Fatalf("%d samples of 16×8", len(got))
		}
	})
}
