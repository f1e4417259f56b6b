package equalizer

import (
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

func adaptiveParams(mode string) compound.Equalizer {
	p := params(mode)
	p.Adaptive = true
	return p
}

// halves reports the samples of two children on halves with busy times.
func halves(ta, tb float64) []Sample {
	return []Sample{
		{Path: "a", Viewport: vp(0, 0, 0.5, 1), Busy: ta},
		{Path: "b", Viewport: vp(0.5, 0, 0.5, 1), Busy: tb},
	}
}

func TestAdaptiveKeepsSmallImbalanceThenCorrects(t *testing.T) {
	l := NewLoad(adaptiveParams("2D"), 960, 540)
	l.Plan(two(), nil)
	// 5% apart: the best split saves ~2.4% of the frame, under 10%
	for i := 1; i < l.Adaptive.CorrectEvery; i++ {
		out := l.Plan(two(), halves(0.0105, 0.0095))
		if out[0].Viewport.W != 0.5 {
			t.Fatalf("frame %d: moved under the threshold (%s)", i, l.Adaptive.LastDecision)
		}
	}
	out := l.Plan(two(), halves(0.0105, 0.0095))
	if out[0].Viewport.W >= 0.5 || l.Adaptive.LastDecision != "move" {
		t.Errorf("no small correction after %d frames under the threshold: %v (%s)", l.Adaptive.CorrectEvery, out[0].Viewport.W, l.Adaptive.LastDecision)
	}
}

func TestAdaptiveTrustsSlowDownsAtOnceAndSpeedUpsSlowly(t *testing.T) {
	l := NewLoad(adaptiveParams("2D"), 960, 540)
	l.Plan(two(), nil)
	l.Plan(two(), halves(0.010, 0.010))
	// a takes 3x as long on the same region: its speed fell to 1/3, so it
	// gets a quarter of the (uniform) work
	out := l.Plan(two(), halves(0.030, 0.010))
	if !near(out[0].Viewport.W, 0.25, 1e-6) {
		t.Fatalf("slow-down not taken at once: split %v, want 0.25", out[0].Viewport.W)
	}
	// a speeds up again: every region costs 20 ms per unit area
	var w []float64
	for i := 0; i < 14; i++ {
		out = l.Plan(two(), []Sample{
			{Path: "a", Viewport: out[0].Viewport, Busy: 0.020 * out[0].Viewport.W},
			{Path: "b", Viewport: out[1].Viewport, Busy: 0.020 * out[1].Viewport.W},
		})
		w = append(w, out[0].Viewport.W)
	}
	if w[0] > 0.45 {
		t.Errorf("first speed-up trusted at once: split %v", w[0])
	}
	// followed as it persists (under the threshold the last few percent
	// wait for a correction)
	if !near(w[len(w)-1], 0.5, 0.02) {
		t.Errorf("persistent speed-up not followed: splits %v", w)
	}
}

// Four DB children; the range [0.5, 0.75) costs twice as much as the
// rest. Each boundary moves just far enough for the child on its left to
// get a quarter of the load: range passes only between neighbours.
func TestNeighbourDBBalances(t *testing.T) {
	children := []Child{{Path: "a", Active: true}, {Path: "b", Active: true}, {Path: "c", Active: true}, {Path: "d", Active: true}}
	l := NewLoad(adaptiveParams("DB"), 960, 540)
	out := l.Plan(children, nil)
	cost := func(r compound.Range) float64 {
		return (r.End - r.Start) + overlap1D(r, rng(0.5, 0.75))
	}
	var samples []Sample
	for _, a := range out {
		samples = append(samples, Sample{Path: a.Path, Range: a.Range, Busy: cost(a.Range)})
	}
	out = l.Plan(children, samples)
	want := []float64{0, 0.3125, 0.5625, 0.71875, 1}
	for i, a := range out {
		if !near(a.Range.Start, want[i], 1e-6) || !near(a.Range.End, want[i+1], 1e-6) {
			t.Errorf("child %s: %+v, want [%v %v)", a.Path, a.Range, want[i], want[i+1])
		}
		if c := cost(a.Range); !near(c, 0.3125, 1e-6) {
			t.Errorf("child %s: cost %v, want 0.3125", a.Path, c)
		}
	}
	// symmetric differences: a 0.0625, b 0.125, c 0.09375, d 0.03125
	if !near(l.DataMoved, 0.3125, 1e-6) {
		t.Errorf("data moved %v", l.DataMoved)
	}
}

func TestAdaptiveCancelsCostlyMoves(t *testing.T) {
	l := NewLoad(adaptiveParams("DB"), 960, 540)
	l.Adaptive.ObserveMove(100, 0.1) // loading a tenth of the range takes 100 s
	l.Plan(two(), nil)
	out := l.Plan(two(), []Sample{{Path: "a", Range: rng(0, 0.5), Busy: 0.3}, {Path: "b", Range: rng(0.5, 1), Busy: 0.1}})
	if out[0].Range.End != 0.5 || l.Adaptive.LastDecision != "keep: move costs more than it saves" {
		t.Errorf("costly move not cancelled: %+v (%s)", out[0].Range, l.Adaptive.LastDecision)
	}
}

func TestPeriodAndGrain(t *testing.T) {
	a := NewAdaptive()
	a.ObserveOverhead(0.002, 0.010) // planning costs 20% of a frame: every 4 frames
	if a.Period != 4 {
		t.Errorf("period %d, want 4", a.Period)
	}
	a.noise = 0.1 // 10% timer noise: (0.1 / 0.05)^2 = 4
	a.ObserveOverhead(0, 0.010)
	if a.Period != 4 {
		t.Errorf("noise period %d, want 4", a.Period)
	}
	// 10 ms per source, 1.7e-7 s per pixel, 180-pixel edges, 10% noise:
	// one step should move 1 ms: 0.001/(1.7e-7*180) = 32.7 -> 64
	a.ObserveGrain(0.010, 1.7e-7, 180)
	if a.Grain != 64 {
		t.Errorf("grain %d, want 64", a.Grain)
	}
	a.noise = 0.02 // 0.2 ms: 6.5 px -> 8
	a.ObserveGrain(0.010, 1.7e-7, 180)
	if a.Grain != 8 {
		t.Errorf("grain %d, want 8", a.Grain)
	}
	// tiles: 0.5 ms overhead at 1e-8 s/px: sqrt(1e6) = 1000 -> 256; 10 us -> 144
	if TileSize(0.0005, 1e-8) != 256 || TileSize(0.00001, 1e-8) != 144 {
		t.Errorf("tile sizes %d %d", TileSize(0.0005, 1e-8), TileSize(0.00001, 1e-8))
	}
}
