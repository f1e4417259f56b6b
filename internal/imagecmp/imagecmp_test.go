package imagecmp

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// Load gives the pixels draw.Draw's conversion gives, for opaque images
// (RGB files, which take the fast path) and translucent ones alike.
func TestLoadConvertsAsDrawDoes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, alpha := range []func() uint8{func() uint8 { return 255 }, func() uint8 { return uint8(rng.Intn(256)) }} {
		src := image.NewRGBA(image.Rect(0, 0, 37, 23))
		for y := 0; y < 23; y++ {
			for x := 0; x < 37; x++ {
				a := alpha()
				src.SetRGBA(x, y, color.RGBA{uint8(rng.Intn(int(a) + 1)), uint8(rng.Intn(int(a) + 1)), uint8(rng.Intn(int(a) + 1)), a})
			}
		}
		path := filepath.Join(t.TempDir(), "f.png")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, src); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		f, _ = os.Open(path)
		decoded, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := image.NewNRGBA(decoded.Bounds())
		draw.Draw(want, want.Bounds(), decoded, decoded.Bounds().Min, draw.Src)
		if got.Rect != want.Rect || string(got.Pix) != string(want.Pix) {
			t.Errorf("%T: Load's pixels differ from draw.Draw's", decoded)
		}
	}
}

// Halve averages 2x2 blocks, rounding halves up, of an image that does
// not start at the origin too.
func TestHalve(t *testing.T) {
	src := image.NewNRGBA(image.Rect(3, 5, 7, 7)) // 4x2: two blocks
	for i := range src.Pix {
		src.Pix[i] = uint8(i)
	}
	got := Halve(src)
	if got.Rect != image.Rect(0, 0, 2, 1) {
		t.Fatalf("bounds %v", got.Rect)
	}
	for x := 0; x < 2; x++ {
		for c := 0; c < 4; c++ {
			s := 0
			for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				s += int(src.Pix[src.PixOffset(3+2*x+d[0], 5+d[1])+c])
			}
			if want := uint8(math.Round(float64(s) / 4)); got.Pix[got.PixOffset(x, 0)+c] != want {
				t.Errorf("pixel %d channel %d: %d, want %d", x, c, got.Pix[got.PixOffset(x, 0)+c], want)
			}
		}
	}
}

// Matches allows EdgeFraction of the pixels beyond the tolerance, and one
// pixel however small the image: a 64x48 picture, whose fraction is 0.6 of
// a pixel, may have one edge meet a sample but not two.
func TestMatchesAllowsEdgePixels(t *testing.T) {
	for _, c := range []struct {
		pixels, bad int
		want        bool
	}{
		{64 * 48, 0, true},
		{64 * 48, 1, true},
		{64 * 48, 2, false},
		{1920 * 1080, 414, true},
		{1920 * 1080, 415, false},
	} {
		if got := (Diff{Pixels: c.pixels, Bad: c.bad}).Matches(""); got != c.want {
			t.Errorf("%d bad of %d pixels: Matches %v, want %v", c.bad, c.pixels, got, c.want)
		}
	}
	if (Diff{Pixels: 100, Bad: 50, PSNR: 31}).Matches("zoom") != true || (Diff{Pixels: 100, PSNR: 29}).Matches("zoom") != false {
		t.Error("a resampling config is held to its PSNR alone")
	}
}
