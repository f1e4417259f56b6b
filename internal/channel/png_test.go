package channel

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math/rand"
	"testing"

	"github.com/goeq/goeq/internal/testframes"
)

// EncodePNG writes its own PNG; the standard library's decoder is the
// oracle: every pixel decodes to what was written, flipped to top-down,
// opaque.
func TestEncodePNGDecodesToItsPixels(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := func(w, h int) []byte {
		b := make([]byte, 4*w*h)
		rng.Read(b)
		return b
	}
	rendered := func(w, h int) []byte { return testframes.Render(w, h, true).Color }
	cases := []struct {
		w, h  int
		color func(w, h int) []byte
	}{
		{1, 1, random}, {1, 2, random}, {3, 5, random}, {257, 3, random},
		// random pixels do not deflate: many IDAT chunks
		{640, 480, random},
		{640, 360, rendered}, {333, 211, rendered},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			color := c.color(c.w, c.h)
			b, err := EncodePNG(color, c.w, c.h)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, c.w, c.h) {
				t.Fatalf("bounds %v", img.Bounds())
			}
			for y := 0; y < c.h; y++ {
				for x := 0; x < c.w; x++ {
					p := color[4*((c.h-1-y)*c.w+x):]
					r, g, b, a := img.At(x, y).RGBA()
					if r>>8 != uint32(p[0]) || g>>8 != uint32(p[1]) || b>>8 != uint32(p[2]) || a != 0xffff {
						t.Fatalf("pixel %d,%d decodes to %d %d %d %d, want %d %d %d 255", x, y, r>>8, g>>8, b>>8, a>>8, p[0], p[1], p[2])
					}
				}
			}
		})
	}
	if _, err := EncodePNG(make([]byte, 10), 2, 2); err == nil {
		t.Error("10 bytes encoded as 2x2 pixels")
	}
}

// BenchmarkEncodePNG: EncodePNG against image/png at its default and
// fastest levels, on a rendered 1920x1080 frame.
func BenchmarkEncodePNG(b *testing.B) {
	frame := testframes.Render(1920, 1080, true)
	img := image.NewNRGBA(image.Rect(0, 0, frame.W, frame.H))
	copy(img.Pix, frame.Color)
	run := func(b *testing.B, encode func() ([]byte, error)) {
		size := 0
		for b.Loop() {
			out, err := encode()
			if err != nil {
				b.Fatal(err)
			}
			size = len(out)
		}
		b.ReportMetric(float64(size), "bytes")
	}
	b.Run("goeq", func(b *testing.B) { run(b, func() ([]byte, error) { return EncodePNG(frame.Color, frame.W, frame.H) }) })
	for _, level := range []png.CompressionLevel{png.DefaultCompression, png.BestSpeed} {
		b.Run(fmt.Sprintf("image-png-%s", map[png.CompressionLevel]string{png.DefaultCompression: "default", png.BestSpeed: "best-speed"}[level]), func(b *testing.B) {
			run(b, func() ([]byte, error) {
				var out bytes.Buffer
				err := (&png.Encoder{CompressionLevel: level}).Encode(&out, img)
				return out.Bytes(), err
			})
		})
	}
}
