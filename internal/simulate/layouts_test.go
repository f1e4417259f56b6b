package simulate

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/stats"
)

func loadCorpusConfig(t testing.TB, name string) *compound.Config {
	t.Helper()
	m, _, err := compound.Load(filepath.Join("..", "..", "..", "shared", "eqc-corpus", name), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

// halvesRecorded is a recorded run of the sources of compound path in
// cfg: two sources one above the other, as a 2D split of two starts,
// the second twice as slow.
func halvesRecorded(t *testing.T, cfg *compound.Config, path string, frames int) []stats.Record {
	t.Helper()
	var sources []*compound.Compound
	cfg.Walk(func(c *compound.Compound) {
		if c.Path() == path {
			sources = c.Children
		}
	})
	if len(sources) != 2 {
		t.Fatalf("compound %s has %d sources, want 2", path, len(sources))
	}
	var recs []stats.Record
	for f := range frames {
		for i, s := range sources {
			recs = append(recs, stats.Record{Frame: f, Compound: s.Path(), Channel: s.Channel.ID,
				Viewport: compound.Viewport{Y: float64(i) / 2, W: 1, H: 0.5}, Range: compound.FullRange,
				Times: stats.Times{Draw: time.Duration(10+10*i) * time.Millisecond}})
		}
	}
	return recs
}

// A run records the compounds of the layout it showed (eqserver run
// --layout). Replayed against its config, which starts in another layout,
// the replay planned the start's layout, where the recorded compound
// draws nothing: a summary of zeros (2-node.2D of the corpus, recorded in
// "2D load-balanced").
func TestAReplayShowsTheLayoutItWasRecordedIn(t *testing.T) {
	cfg := loadConfig(t, "two-layouts.eqc")
	balanced, _ := Balanced(cfg)
	recs := halvesRecorded(t, cfg, balanced.Path(), 30)
	sum, given, err := Replay(loadConfig(t, "two-layouts.eqc"), "two-layouts.eqc", recs, "equalizer")
	if err != nil {
		t.Fatal(err)
	}
	if sum.FrameTimeMean < 0.010 || sum.Efficiency <= 0 || len(given) != len(recs) {
		t.Fatalf("frame time %.4f s, efficiency %.3f, %d statistics given for %d recorded", sum.FrameTimeMean, sum.Efficiency, len(given), len(recs))
	}
	if last := given[len(given)-1]; last.Viewport.W*last.Viewport.H >= 0.5 {
		t.Errorf("the slower source still draws %.3f of the viewport at the end", last.Viewport.W*last.Viewport.H)
	}
}

// Where a config balances compounds in several layouts, the replay takes
// the one the statistics recorded most, or the one asked for
// (ReplayCompound; eqserver replay --compound). It took the first in the
// config, which in 1-pipe.LG_CF3D draws no eye of its stereo view, and
// refused every recording. Layout "2D" there balances two compounds, one
// per eye.
func TestAReplayBalancesTheCompoundItRecorded(t *testing.T) {
	cfg := loadCorpusConfig(t, "1-pipe.LG_CF3D.eqc")
	recs := append(halvesRecorded(t, cfg, "5", 20), halvesRecorded(t, cfg, "4", 10)...)
	sum, given, err := Replay(loadCorpusConfig(t, "1-pipe.LG_CF3D.eqc"), "1-pipe.LG_CF3D.eqc", recs, "adaptive")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Compound != "5" || !slices.Equal(sum.AlsoRecorded, []string{"4"}) || sum.Frames != 20 {
		t.Errorf("replayed compound %s over %d frames, also recorded %v; want 5, 20 and [4]", sum.Compound, sum.Frames, sum.AlsoRecorded)
	}
	for _, r := range given {
		if !strings.HasPrefix(r.Compound, "5.") {
			t.Fatalf("the replay balanced compound %s", r.Compound)
		}
	}
	sum, given, err = ReplayCompound(loadCorpusConfig(t, "1-pipe.LG_CF3D.eqc"), "1-pipe.LG_CF3D.eqc", recs, "equalizer", "4")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Compound != "4" || sum.Frames != 10 || len(given) == 0 || !strings.HasPrefix(given[0].Compound, "4.") {
		t.Errorf("--compound 4 replayed compound %s over %d frames", sum.Compound, sum.Frames)
	}
	// compound 3 balances a channel of eye CYCLOP on a stereo view, 7 is
	// in another layout
	for path, want := range map[string]string{"3": "has no load-balanced compound 3 that draws", "7": "the statistics have no source of compound 7"} {
		if _, _, err := ReplayCompound(loadCorpusConfig(t, "1-pipe.LG_CF3D.eqc"), "1-pipe.LG_CF3D.eqc", recs, "equalizer", path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--compound %s: %v", path, err)
		}
	}
	// a recording of no balanced compound names the layouts that have one
	_, _, err = Replay(loadCorpusConfig(t, "2-node.2D.eqc"), "2-node.2D.eqc", recs, "equalizer")
	if err == nil || !strings.Contains(err.Error(), `eqserver run --layout "2D load-balanced"`) {
		t.Errorf("a recording of another config replayed: %v", err)
	}
}

// Every corpus config with a load or tree equalizer simulates a frame
// time, or says that it has nothing to balance. A load-balanced compound
// of eye CYCLOP on a stereo view draws nothing: simulating it printed a
// summary of zeros, which reads as a perfect balance.
func TestEveryBalancedCorpusConfigSimulates(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "*.eqc"))
	if err != nil || len(files) != 80 {
		t.Fatalf("%d corpus configs: %v", len(files), err)
	}
	simulated, undrawn := 0, 0
	for _, file := range files {
		name := filepath.Base(file)
		for _, policy := range []string{"equalizer", "adaptive"} {
			sum, err := Run(loadCorpusConfig(t, name), name, Options{Scenario: "hotspot", Policy: policy, Frames: 40})
			switch {
			case err != nil && strings.Contains(err.Error(), "has no load_equalizer compound"):
			case err != nil && strings.Contains(err.Error(), "has no load-balanced compound that draws"):
				undrawn++
			case err != nil:
				t.Errorf("%s, %s: %v", name, policy, err)
			case sum.FrameTimeMean <= 0 || sum.Efficiency <= 0 || sum.Efficiency > 1.0001:
				t.Errorf("%s, %s: frame time %.4f s, efficiency %.3f", name, policy, sum.FrameTimeMean, sum.Efficiency)
			default:
				simulated++
			}
		}
	}
	// Passive.stereo.powerwall's only one is of eye CYCLOP on a stereo view
	if simulated < 2*15 || undrawn != 2 {
		t.Errorf("%d simulations ran and %d had nothing to balance, want 30 and 2", simulated, undrawn)
	}
}

// Options.Layout (eqserver simulate --layout) simulates the compound the
// layout shows; the config's first was the only one a user could.
func TestALayoutChoosesTheCompoundSimulated(t *testing.T) {
	for _, tc := range []struct {
		layout string
		db     bool
	}{{"2D", false}, {"DB_Active", true}} {
		sum, err := Run(loadCorpusConfig(t, "4-window.all.eqc"), "4-window.all.eqc", Options{Scenario: "db-step", Frames: 40, Layout: tc.layout})
		if err != nil {
			t.Fatal(err)
		}
		// a DB split's splits are range starts, one fewer than its sources;
		// a 2D split's are each source's viewport corner
		if db := len(sum.Series[0].Splits) == 3; db != tc.db {
			t.Errorf("layout %s: splits %v", tc.layout, sum.Series[0].Splits)
		}
	}
	_, err := Run(loadCorpusConfig(t, "4-window.all.eqc"), "4-window.all.eqc", Options{Scenario: "uniform", Frames: 10, Layout: "Wall"})
	if err == nil || !strings.Contains(err.Error(), `(eqserver simulate --layout "WallLB")`) {
		t.Errorf("a layout that balances nothing: %v", err)
	}
	if _, err := Run(loadCorpusConfig(t, "4-window.all.eqc"), "4-window.all.eqc", Options{Scenario: "uniform", Frames: 10, Layout: "nope"}); err == nil {
		t.Error("an unknown layout simulated")
	}
}

// A run that showed the balanced compound's layout for a while (eqply's
// l switches) recorded its sources in some frames only. The replay took
// the frames after the first recorded one in a row, and replayed the
// frames of the other layout as sources that took no time.
func TestAReplaySkipsTheFramesOfAnotherLayout(t *testing.T) {
	cfg := loadConfig(t, "two-layouts.eqc")
	balanced, _ := Balanced(cfg)
	var recs []stats.Record
	for _, r := range halvesRecorded(t, cfg, balanced.Path(), 40) {
		if r.Frame < 10 || r.Frame >= 30 {
			recs = append(recs, r)
		}
	}
	sum, given, err := Replay(loadConfig(t, "two-layouts.eqc"), "two-layouts.eqc", recs, "adaptive")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Frames != 20 || len(given) != 40 {
		t.Fatalf("%d frames replayed, %d statistics given; want 20 and 40", sum.Frames, len(given))
	}
	for _, r := range given {
		if r.Times.Draw <= 0 {
			t.Fatalf("frame %d: source %s replayed as drawing in no time", r.Frame, r.Compound)
		}
	}
}

// A run that went on without a pipe or a node planned its frames without
// its channels, and its statistics file says so on each frame's first
// record (stats.Record.Down). The replay planned them in anyway, so a
// replay under Equalizer's policy no longer planned the recorded splits,
// and the channel down got work the run never gave it. Here 2d-lb-4's
// second source is down in frames 8 to 13, as a node lost and started
// again would be.
func TestAReplayPlansWithoutTheChannelsTheRunWentWithout(t *testing.T) {
	cfg := loadConfig(t, "2d-lb-4.eqc")
	balanced, sources := Balanced(cfg)
	if len(sources) != 4 {
		t.Fatalf("%d sources, want 4", len(sources))
	}
	gone := sources[1]
	downIn := func(f int) bool { return f >= 8 && f <= 13 }
	var recs []stats.Record
	for f := range 20 {
		first := true
		for i, s := range sources {
			if downIn(f) && s == gone {
				continue
			}
			r := stats.Record{Frame: f, Compound: s.Path(), Channel: s.Channel.ID,
				Viewport: compound.Viewport{X: float64(i) / 4, W: 0.25, H: 1}, Range: compound.FullRange,
				Times: stats.Times{Draw: time.Duration(10+5*i) * time.Millisecond}}
			if first && downIn(f) {
				r.Down = []string{gone.Channel.ID}
			}
			first = false
			recs = append(recs, r)
		}
	}
	for _, policy := range []string{"equalizer", "adaptive"} {
		sum, given, err := Replay(loadConfig(t, "2d-lb-4.eqc"), "2d-lb-4.eqc", recs, policy)
		if err != nil {
			t.Fatal(err)
		}
		area := map[int]float64{}
		drew := map[int]bool{}
		for _, r := range given {
			area[r.Frame] += r.Viewport.W * r.Viewport.H
			if r.Compound == gone.Path() {
				drew[r.Frame] = true
			}
		}
		for f := range 20 {
			if drew[f] == downIn(f) {
				t.Errorf("%s: frame %d: the channel down in frames 8 to 13 drew: %v", policy, f, drew[f])
			}
			if a := area[f]; a < 0.999 || a > 1.001 {
				t.Errorf("%s: frame %d: the sources drew %.4f of the viewport, want all of it", policy, f, a)
			}
		}
		if sum.Compound != balanced.Path() || sum.Efficiency <= 0 || sum.Efficiency > 1 {
			t.Errorf("%s: compound %s, efficiency %.3f", policy, sum.Compound, sum.Efficiency)
		}
	}
}
