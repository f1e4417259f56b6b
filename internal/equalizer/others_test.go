package equalizer

import (
	"math"
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

func TestViewEqualizerSharesByLoad(t *testing.T) {
	v := NewView(0)
	u := v.Plan([]ViewLoad{
		{Path: "left", Load: 0.030, Sources: []string{"gpu1", "gpu2"}},
		{Path: "right", Load: 0.010, Sources: []string{"gpu2", "gpu3"}},
	})
	if u["left"]["gpu1"] != 1 || u["right"]["gpu3"] != 1 {
		t.Errorf("unshared sources: %v", u)
	}
	if !near(u["left"]["gpu2"], 0.75, 1e-9) || !near(u["right"]["gpu2"], 0.25, 1e-9) {
		t.Errorf("shared gpu2 split %v / %v, want 0.75 / 0.25", u["left"]["gpu2"], u["right"]["gpu2"])
	}
	// damping 0.5 moves half way
	v.Damping = 0.5
	u = v.Plan([]ViewLoad{
		{Path: "left", Load: 0.010, Sources: []string{"gpu1", "gpu2"}},
		{Path: "right", Load: 0.010, Sources: []string{"gpu2", "gpu3"}},
	})
	if !near(u["left"]["gpu2"], 0.625, 1e-9) {
		t.Errorf("damped share %v, want 0.625", u["left"]["gpu2"])
	}
}

// Two sources of period 2 that take 40 ms for a frame keep up with a
// frame every 20 ms between them. A frame's statistics hold only the
// source that rendered it: the other's last pace still counts, and the
// slower one sets the interval.
func TestFramerateSmoothsDPlex(t *testing.T) {
	f := Framerate{Damping: 0.5}
	if got := f.Update([]float64{0.040, 0}, []int{2, 2}, 0); !near(got, 0.020, 1e-12) {
		t.Errorf("interval %v, want 0.020", got)
	}
	if got := f.Update([]float64{0, 0.080}, []int{2, 2}, 0); !near(got, 0.030, 1e-12) {
		t.Errorf("damped interval %v, want 0.030 (half way to source 2's 40 ms)", got)
	}
	if got := f.Update([]float64{0.040, 0}, []int{2, 2}, 0); !near(got, 0.035, 1e-12) {
		t.Errorf("interval %v, want 0.035: source 2, at 40 ms, is still the slower", got)
	}
	g := Framerate{Damping: 0}
	if got := g.Update([]float64{0.030, 0.030, 0.030}, []int{3, 3, 3}, 0); !near(got, 0.010, 1e-12) {
		t.Errorf("three sources of period 3 at 30 ms: interval %v, want 0.010", got)
	}
}

// A source cannot have spent longer on a frame than the frame took from
// its start to its completion: a time reported as an hour is cut to the
// frame's 50 ms, rather than spacing the frames by half an hour.
func TestFramerateCutsATimeToItsFrame(t *testing.T) {
	f := Framerate{Damping: 0}
	if got := f.Update([]float64{3600, 0}, []int{2, 2}, 0.050); !near(got, 0.025, 1e-12) {
		t.Errorf("an hour reported in a frame of 50 ms: interval %v, want 0.025", got)
	}
}

func TestDFRZoomsToTheTargetRate(t *testing.T) {
	d := NewDFR(compound.Equalizer{Damping: 0, Framerate: 25})
	// 80 ms at full size, 40 ms wanted: half the pixels: zoom 1/sqrt(2)
	if z := d.Update(0.080); !near(z, 1/math.Sqrt2, 1e-9) {
		t.Errorf("zoom %v", z)
	}
	// fast frames go back to full resolution, never beyond
	if z := d.Update(0.001); z != 1 {
		t.Errorf("zoom %v, want 1", z)
	}
}

func TestMonitorPlacesWallFrames(t *testing.T) {
	out := Monitor(compound.PixelViewport{W: 400, H: 200}, []MonitorInput{
		{Viewport: vp(0, 0, 0.5, 1), PixelW: 1920, PixelH: 1080},
		{Viewport: vp(0.5, 0, 0.5, 1), PixelW: 1920, PixelH: 1080},
	})
	if out[1].PixelViewport != (compound.PixelViewport{X: 200, Y: 0, W: 200, H: 200}) {
		t.Errorf("placement %+v", out[1].PixelViewport)
	}
	if !near(out[0].Zoom.X, 200.0/1920, 1e-12) || !near(out[0].Zoom.Y, 200.0/1080, 1e-12) {
		t.Errorf("zoom %+v", out[0].Zoom)
	}
}

func TestTilesZigzag(t *testing.T) {
	tiles := Tiles(150, 130, 64, 64)
	if len(tiles) != 9 {
		t.Fatalf("%d tiles, want 9", len(tiles))
	}
	if tiles[2].X != 128 || tiles[2].W != 22 || tiles[3].X != 128 || tiles[3].Y != 64 || tiles[5].X != 0 {
		t.Errorf("not zigzag: %+v", tiles)
	}
	area := 0
	for _, p := range tiles {
		area += p.W * p.H
	}
	if area != 150*130 {
		t.Errorf("tiles cover %d pixels, want %d", area, 150*130)
	}
	if c := Chunks(0.3); len(c) != 4 || !near(c[3].Start, 0.9, 1e-9) || c[3].End != 1 {
		t.Errorf("chunks %+v", c)
	}
}

func TestPlacerLeastLoadedStickyRatchet(t *testing.T) {
	p := NewPlacer(3)
	if p.Place("a", 5) != 0 || p.Place("b", 1) != 1 || p.Place("c", 1) != 2 {
		t.Fatal("empty pool: sessions should spread over the pipes")
	}
	if got := p.Place("d", 1); got != 1 {
		t.Errorf("least loaded (tie 1 and 2 from ratchet at 0): got %d, want 1", got)
	}
	if p.Place("a", 100) != 0 {
		t.Error("a placed session must stay on its pipe")
	}
	p.Release("a")
	if p.Load[0] != 0 || p.Place("e", 1) != 0 {
		t.Errorf("release: load %v", p.Load)
	}
	rr := NewRoundRobin(2)
	if rr.Place("x", 9) != 0 || rr.Place("y", 1) != 1 || rr.Place("z", 1) != 0 || rr.Place("x", 1) != 0 {
		t.Error("round robin")
	}
}
