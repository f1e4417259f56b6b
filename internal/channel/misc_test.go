package channel

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/winsys"
)

func TestClip(t *testing.T) {
	whole := compound.PixelViewport{W: 100, H: 50}
	if r := clip(compound.PixelViewport{X: 10, Y: 10}, whole); r.W != 0 || r.H != 0 {
		t.Errorf("nothing drawn: %+v", r)
	}
	if r := clip(compound.PixelViewport{X: 90, Y: -5, W: 20, H: 20}, whole); r != (compound.PixelViewport{X: 90, Y: 0, W: 10, H: 15}) {
		t.Errorf("clipped: %+v", r)
	}
}

func TestDumpPath(t *testing.T) {
	ch := &compound.Channel{Name: "dest", Label: "dest", Attributes: map[string]string{}}
	if p := DumpPath(ch, "", 3); p != "" {
		t.Errorf("no dump asked: %q", p)
	}
	if p := DumpPath(ch, "out", 3); p != filepath.Join("out", "dest-000003.png") {
		t.Errorf("out dir: %q", p)
	}
	ch.Attributes["dump_image"] = "shots/f"
	if p := DumpPath(ch, "out", 12); p != filepath.Join("out", "shots", "f000012.png") {
		t.Errorf("dump_image under out: %q", p)
	}
	if p := DumpPath(ch, "", 12); p != "shots/f000012.png" {
		t.Errorf("dump_image: %q", p)
	}
	ch.Attributes["dump_image"] = "/abs/f"
	if p := DumpPath(ch, "out", 12); p != "/abs/f000012.png" {
		t.Errorf("absolute dump_image: %q", p)
	}
	ch.SharedDump = true
	if p := DumpPath(ch, "out", 12); p != "/abs/fdest-000012.png" {
		t.Errorf("a dump_image other channels share: %q", p)
	}
}

// The synthetic renderer draws its pattern where each rendered pixel's
// sample lies, whatever the decomposition: its colours follow the
// direction of the sample in the eye's space, computed here on the CPU
// from the destination's projection. (A pattern placed by the share alone
// differed from the reference on pixel kernels and zoom, and on segments
// assembled from another channel's output frame, in the corpus.) It draws
// with depth: a database decomposition's depth merge dropped a pattern
// left at the far plane, and showed the background.
func TestSyntheticPatternFollowsTheDecomposition(t *testing.T) {
	const destW, destH = 200, 100
	p := eglPipe(t, "synthetic")
	r := render.NewSynthetic(4)
	if err := p.Do(r.Init); err != nil {
		t.Fatal(err)
	}
	fromEye := destProjection().Inverse()
	colour := func(x, y float64) [3]float64 {
		ndc := [4]float64{2*x/destW - 1, 2*y/destH - 1, -1, 1}
		var v [4]float64
		for row := range v {
			for k := range ndc {
				v[row] += float64(fromEye[k*4+row]) * ndc[k]
			}
		}
		tx, ty := v[0]/-v[2], v[1]/-v[2]
		return [3]float64{0.5 + 0.5*math.Sin(2*tx), 0.5 + 0.5*math.Sin(2*ty), 0.5 + 0.3*math.Sin(12*tx)*math.Sin(12*ty)}
	}
	for _, c := range []struct {
		name string
		sub  render.Sub
		// at is render pixel (i, j)'s sample in destination pixels
		at func(i, j int) (float64, float64)
	}{
		{"whole", render.Sub{DestW: destW, DestH: destH, W: destW, H: destH},
			func(i, j int) (float64, float64) { return float64(i) + 0.5, float64(j) + 0.5 }},
		{"right half", render.Sub{DestW: destW, DestH: destH, X: 100, W: 100, H: 100},
			func(i, j int) (float64, float64) { return 100 + float64(i) + 0.5, float64(j) + 0.5 }},
		{"pixel kernel (1,1) of 2x2", render.Sub{DestW: destW, DestH: destH, W: 100, H: 50, Pixel: compound.Pixel{X: 1, Y: 1, W: 2, H: 2}, ShareW: destW, ShareH: destH},
			func(i, j int) (float64, float64) { return float64(1+2*i) + 0.5, float64(1+2*j) + 0.5 }},
		{"top half zoomed to half", render.Sub{DestW: destW, DestH: destH, Y: 50, W: 100, H: 25, ShareW: 200, ShareH: 50},
			func(i, j int) (float64, float64) { return 2*float64(i) + 1, 50 + 2*float64(j) + 1 }},
		{"jittered", render.Sub{DestW: destW, DestH: destH, W: destW, H: destH, Jitter: [2]float64{0.25, -0.25}},
			func(i, j int) (float64, float64) { return float64(i) + 0.75, float64(j) + 0.25 }},
	} {
		var px *Pixels
		if err := p.Do(func() error {
			tg := renderSub(t, r, c.sub, compound.FullRange, background)
			defer tg.Delete()
			px = readTarget(tg, true)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if far := slices.Index(px.Depth, 1); far >= 0 {
			t.Errorf("%s: pixel %d left at the far plane", c.name, far)
		}
		bad := 0
		for j := 0; j < c.sub.H; j += 3 {
			for i := 0; i < c.sub.W; i += 3 {
				x, y := c.at(i, j)
				want := colour(x, y)
				k := 4 * (j*c.sub.W + i)
				for ch := range want {
					if d := math.Abs(float64(px.Color[k+ch]) - want[ch]*255); d > 1.5 {
						if bad++; bad <= 3 {
							t.Errorf("%s: pixel (%d, %d) colour %d is %d, want %.1f (destination %.2f, %.2f)", c.name, i, j, ch, px.Color[k+ch], want[ch]*255, x, y)
						}
					}
				}
			}
		}
	}
}

// What a band fills with the clear colour and what it reads back cover
// the source's region exactly once.
func TestOutsideAndInsideTileTheRegion(t *testing.T) {
	r := compound.PixelViewport{X: 3, Y: 2, W: 12, H: 9}
	for _, in := range []compound.PixelViewport{
		r, {X: 3, Y: 2, W: 0, H: 0}, {X: 5, Y: 4, W: 3, H: 2}, {X: 3, Y: 2, W: 12, H: 1},
		{X: 14, Y: 10, W: 1, H: 1}, {X: 3, Y: 4, W: 5, H: 7}, {X: 9, Y: 2, W: 6, H: 9},
	} {
		count := map[[2]int]int{}
		parts := outside(r, in)
		if in.W > 0 && in.H > 0 {
			parts = append(parts, in)
		}
		for _, p := range parts {
			for y := p.Y; y < p.Y+p.H; y++ {
				for x := p.X; x < p.X+p.W; x++ {
					count[[2]int{x, y}]++
				}
			}
		}
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				if count[[2]int{x, y}] != 1 {
					t.Fatalf("inside %+v: pixel (%d,%d) covered %d times", in, x, y, count[[2]int{x, y}])
				}
			}
		}
		if len(count) != r.W*r.H {
			t.Fatalf("inside %+v: %d pixels covered outside the region", in, len(count)-r.W*r.H)
		}
	}
}

// depthLost tells a frame whose drawing a depth merge would drop (colour
// drawn, every depth at the far plane) from one drawn with depth and from
// an empty one.
func TestDepthLost(t *testing.T) {
	px := func(colors [][4]byte, depths []float32) *Pixels {
		p := &Pixels{Depth: depths}
		for _, c := range colors {
			p.Color = append(p.Color, c[:]...)
		}
		return p
	}
	bg, drawn := [4]byte{25, 25, 38, 255}, [4]byte{200, 10, 90, 255}
	for _, c := range []struct {
		what string
		px   *Pixels
		want bool
	}{
		{"drawn without depth", px([][4]byte{bg, drawn, drawn}, []float32{1, 1, 1}), true},
		{"drawn with depth", px([][4]byte{bg, drawn, drawn}, []float32{1, 0.4, 0.4}), false},
		{"nothing drawn", px([][4]byte{bg, bg, bg}, []float32{1, 1, 1}), false},
		{"no depth read", px([][4]byte{bg, drawn, drawn}, nil), false},
	} {
		if got := depthLost(c.px); got != c.want {
			t.Errorf("%s: depthLost %v, want %v", c.what, got, c.want)
		}
	}
}

// eglPipe starts a pipe on EGL (headless), stopped when the test ends.
func eglPipe(t *testing.T, label string) *Pipe {
	t.Helper()
	sys, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartPipe(label, sys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}
