package channel

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/draw"
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

// The synthetic renderer draws its pattern at the render's place in the
// destination: red is x, green is y of the destination.
func TestSyntheticPattern(t *testing.T) {
	p := eglPipe(t, "synthetic")
	r := render.NewSynthetic(200, 100, 4)
	var px *Pixels
	err := p.Do(func() error {
		if err := r.Init(); err != nil {
			return err
		}
		// the right half of the destination
		tg := renderSub(t, r, render.Sub{DestW: 200, DestH: 100, X: 100, W: 100, H: 100}, compound.FullRange, background)
		defer tg.Delete()
		r.Draw(&draw.Context{Width: 100, Height: 100, Viewport: draw.Viewport{X: 0.5, W: 0.5, H: 1}})
		px = readTarget(tg, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// pixel (10, 20) of the render is destination (110, 20): x = 110.5/200
	i := 4 * (20*100 + 10)
	if got, want := int(px.Color[i]), int(math.Round(110.5/200*255)); got < want-1 || got > want+1 {
		t.Errorf("red %d, want %d", got, want)
	}
	if got, want := int(px.Color[i+1]), int(math.Round(20.5/100*255)); got < want-1 || got > want+1 {
		t.Errorf("green %d, want %d", got, want)
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
