package compositor

import (
	"testing"

	"github.com/goeq/goeq/internal/testframes"
)

// Benchmarks on a rendered 1920x1080 frame; the *Memcpy benchmarks are the
// baselines for the same bytes (make bench reports the ratios).

func mirrored(f *testframes.Frame) *Image {
	img := NewImage(f.W, f.H, true)
	for y := 0; y < f.H; y++ {
		for x := 0; x < f.W; x++ {
			img.Depth[y*f.W+x] = f.Depth[y*f.W+f.W-1-x]
		}
	}
	return img
}

func BenchmarkDepthMerge(b *testing.B) {
	f := testframes.Render(1920, 1080, false)
	src := &Image{W: f.W, H: f.H, Color: f.Color, Depth: f.Depth}
	back := mirrored(f)
	dst := NewImage(f.W, f.H, true)
	b.SetBytes(int64(len(f.Color) + 4*len(f.Depth)))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(dst.Depth, back.Depth)
		b.StartTimer()
		if err := DepthMerge(dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDepthMergeMemcpy(b *testing.B) {
	n := 1920 * 1080 * 8
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src { // never-written memory reads as the zero page
		src[i] = byte(i)
	}
	b.SetBytes(int64(n))
	for i := 0; i < b.N; i++ {
		copy(dst, src)
	}
}

// BenchmarkInterleave2Sources1080p puts two pixel-decomposed sources
// (every other column) together into a 1080p frame, colour only.
func BenchmarkInterleave2Sources1080p(b *testing.B) {
	dst := NewImage(1920, 1080, false)
	half := NewImage(960, 1080, false)
	b.SetBytes(int64(len(dst.Color)))
	for i := 0; i < b.N; i++ {
		for x := 0; x < 2; x++ {
			if err := InterleaveAt(dst, half, [2]int{x, 0}, [2]int{2, 1}, 0, 0, dst.W, dst.H); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAverage2Sources1080p averages two subpixel samples of a 1080p
// frame.
func BenchmarkAverage2Sources1080p(b *testing.B) {
	dst := NewImage(1920, 1080, false)
	srcs := []*Image{NewImage(1920, 1080, false), NewImage(1920, 1080, false)}
	b.SetBytes(int64(len(dst.Color)))
	for i := 0; i < b.N; i++ {
		if err := Average(dst, srcs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssemble4Tiles(b *testing.B) {
	dst := NewImage(1920, 1080, false)
	tile := NewImage(960, 540, false)
	b.SetBytes(int64(len(dst.Color)))
	for i := 0; i < b.N; i++ {
		for _, p := range [][2]int{{0, 0}, {960, 0}, {0, 540}, {960, 540}} {
			if err := Assemble(dst, tile, p[0], p[1]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAssemble4Bands is the same frame from four bands as wide as
// it, as a 2D split across one axis gives.
func BenchmarkAssemble4Bands(b *testing.B) {
	dst := NewImage(1920, 1080, false)
	band := NewImage(1920, 270, false)
	b.SetBytes(int64(len(dst.Color)))
	for i := 0; i < b.N; i++ {
		for y := 0; y < 1080; y += 270 {
			if err := Assemble(dst, band, 0, y); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkBlendOver(b *testing.B) {
	f := testframes.Render(1920, 1080, false)
	src := &Image{W: f.W, H: f.H, Color: f.Color}
	dst := NewImage(f.W, f.H, false)
	back := testframes.Render(1920, 1080, true)
	b.SetBytes(int64(len(f.Color)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(dst.Color, back.Color)
		b.StartTimer()
		if err := BlendOver(dst, src); err != nil {
			b.Fatal(err)
		}
	}
}
