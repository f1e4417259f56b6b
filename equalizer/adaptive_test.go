package equalizer

import (
	"testing"

	"goeq/compound"
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
	out := l.Plan(two(), halves(0.030, 0.010)) // a slows down 3x
	if !near(out[0].Viewport.W, 1.0/3, 1e-6) {
		t.Fatalf("slow-down not taken at once: split %v, want 1/3", out[0].Viewport.W)
	}
	// a speeds up again: its region [0,1/3) now costs what it did before
	var w []float64
	for i := 0; i < 6; i++ {
		out = l.Plan(two(), []Sample{
			{Path: "a", Viewport: out[0].Viewport, Busy: 0.020 * out[0].Viewport.W},
			{Path: "b", Viewport: out[1].Viewport, Busy: 0.020 * out[1].Viewport.W},
		})
		w = append(w, out[0].Viewport.W)
	}
	if w[0] > 0.45 {
		t.Errorf("first speed-up trusted at once: split %v", w[0])
	}
	if !near(w[len(w)-1], 0.5, 0.02) {
		t.Errorf("persistent speed-up not followed: splits %v", w)
	}
}

// Four DB children; the third slows down. Range moves along the string
// of children, each boundary between neighbours only, and the result is
// balanced.
func TestNeighbourDBBalances(t *testing.T) {
	children := []Child{{Path: "a", Active: true}, {Path: "b", Active: true}, {Path: "c", Active: true}, {Path: "d", Active: true}}
	l := NewLoad(adaptiveParams("DB"), 960, 540)
	out := l.Plan(children, nil)
	cost := func(path string, r compound.Range) float64 {
		if path == "c" {
			return 2 * (r.End - r.Start)
		}
		return r.End - r.Start
	}
	samples := func() []Sample {
		var s []Sample
		for _, a := range out {
			s = append(s, Sample{Path: a.Path, Range: a.Range, Busy: cost(a.Path, a.Range)})
		}
		return s
	}
	out = l.Plan(children, samples())
	// c was 0.5 on a quarter, the others 0.25: total 1.25, 0.3125 each
	want := []float64{0, 0.3125, 0.625, 0.78125, 1}
	for i, a := range out {
		if !near(a.Range.Start, want[i], 1e-6) || !near(a.Range.End, want[i+1], 1e-6) {
			t.Errorf("child %s: %+v, want [%v %v)", a.Path, a.Range, want[i], want[i+1])
		}
		// d's new range was c's: at d's speed it costs less than the target
		// for one frame; the next frame's statistics correct that
		if c := cost(a.Path, a.Range); a.Path != "d" && !near(c, 0.3125, 1e-6) {
			t.Errorf("child %s: cost %v, want 0.3125", a.Path, c)
		}
	}
	// symmetric differences: a 0.0625, b 0.1875, c 0.15625, d 0.03125
	if !near(l.DataMoved, 0.4375, 1e-6) {
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
	a.ObserveGrain(0.0005, 1e-8) // sqrt(20*5e-4/1e-8) = 1000 px -> capped
	if a.Grain != 256 {
		t.Errorf("grain %d, want 256", a.Grain)
	}
	a.ObserveGrain(0.00001, 1e-8) // sqrt(2e-4/1e-8)=141.4 -> 144
	if a.Grain != 144 {
		t.Errorf("grain %d, want 144", a.Grain)
	}
}
