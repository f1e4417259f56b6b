package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
)

func TestWithPolicyMakesTheLoadEqualizerAdaptive(t *testing.T) {
	for _, name := range []string{"2d-lb-4.eqc", "db-lb-4.eqc"} {
		text, err := os.ReadFile(filepath.Join("..", "..", "examples", "configs", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range []string{"equalizer", "adaptive"} {
			res, err := configparser.Parse(name, []byte(withPolicy(string(text), pol)))
			if err != nil {
				t.Fatalf("%s %s: %v", name, pol, err)
			}
			m, err := compound.Resolve(res, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatalf("%s %s: %v", name, pol, err)
			}
			found := false
			m.Configs[0].Walk(func(c *compound.Compound) {
				for _, eq := range c.Equalizers {
					if eq.Kind == compound.LoadEqualizer {
						found = true
						if eq.Adaptive != (pol == "adaptive") {
							t.Errorf("%s %s: adaptive %v", name, pol, eq.Adaptive)
						}
					}
				}
			})
			if !found {
				t.Errorf("%s: no load equalizer", name)
			}
		}
	}
}

func TestSchedules(t *testing.T) {
	p := schedule{Name: "every 2 s", Period: 2, Duration: 10}
	for tm, want := range map[float64]bool{0.5: false, 2.5: true, 4.5: false, 6.1: true} {
		if p.on(tm) != want {
			t.Errorf("periodic at %v: on %v", tm, p.on(tm))
		}
	}
	if c := p.changes(); len(c) != 4 || c[0] != 2 || c[3] != 8 {
		t.Errorf("periodic changes %v", c)
	}
	s := schedule{Name: "step", Step: 10, Duration: 40}
	if s.on(9.9) || !s.on(10) || !s.on(39) {
		t.Error("step schedule")
	}
	if c := s.changes(); len(c) != 1 || c[0] != 10 {
		t.Errorf("step changes %v", c)
	}
}

// A run whose loaded source slows at 1 s and is balanced again 3 frames
// later: frame times, imbalance and frames to settle.
func TestMeasure(t *testing.T) {
	r := &runResult{Schedule: schedule{Step: 1, Duration: 2}, Policy: "adaptive"}
	for i := 0; i < 20; i++ {
		f := frame{Completed: 0.1 * float64(i), Busy: []float64{0.05, 0.05}}
		if i >= 10 && i < 13 {
			f.Busy = []float64{0.05, 0.15} // imbalance 1.5
			f.Loaded = true
		}
		r.Frames = append(r.Frames, f)
	}
	m := measure(r)
	if m.Frames != 19 || math.Abs(m.Mean-100) > 1e-6 {
		t.Errorf("frames %d, mean %v ms", m.Frames, m.Mean)
	}
	if m.Settle != 3 || m.Unsettled != 0 || m.Changes != 1 {
		t.Errorf("settle %v, unsettled %d of %d", m.Settle, m.Unsettled, m.Changes)
	}
	if want := (16*1.0 + 3*1.5) / 19; math.Abs(m.Imbalance-want) > 1e-9 {
		t.Errorf("imbalance %v, want %v", m.Imbalance, want)
	}
}

// Two nodes of two sources each, the sources of a node taking turns on its
// core: balance is the nodes', each busy until its slower source is done.
// The first node's sources split its work unevenly and the nodes are even:
// the run is balanced, though its sources are not.
func TestMeasureCountsANodesSourcesOnce(t *testing.T) {
	r := &runResult{Schedule: schedule{Duration: 1}, Policy: "adaptive"}
	for i := 0; i < 10; i++ {
		r.Frames = append(r.Frames, frame{Completed: 0.1 * float64(i),
			Busy: []float64{0.04, 0.08, 0.08, 0.08},
			Node: []string{"n1", "n1", "n2", "n2"}})
	}
	m := measure(r)
	if math.Abs(m.Imbalance-1) > 1e-9 || math.Abs(m.Efficiency-1) > 1e-9 {
		t.Errorf("node imbalance %v, efficiency %v; want 1, 1", m.Imbalance, m.Efficiency)
	}
	if want := 0.08 / 0.07; math.Abs(m.SourceImbalance-want) > 1e-9 {
		t.Errorf("source imbalance %v, want %v", m.SourceImbalance, want)
	}
}

// Rounds of both policies on a load switched every second: the ratios'
// average and spread, and the frame times by the time since the load
// last switched.
func TestRoundsText(t *testing.T) {
	sc := schedule{Name: "every 1 s", Period: 1, Duration: 4}
	// frames every dt seconds, just after the switches at whole seconds;
	// two sources, the second on the hogged node, which Equalizer's
	// policy gives half the frame and the adaptive one 0.4
	run := func(policy string, dt float64) *runResult {
		r := &runResult{Schedule: sc, Policy: policy, Spans: [][2]float64{{1, 2}, {3, 4}}, Hogged: []bool{false, true}}
		share := []float64{0.5, 0.5}
		if policy == "adaptive" {
			share = []float64{0.3, 0.2} // of a DB range drawn over half the window
		}
		for tm := 0.001; tm < 4; tm += dt {
			r.Frames = append(r.Frames, frame{Completed: tm, Busy: []float64{0.01, 0.01}, Node: []string{"n1", "n2"}, Share: share, Loaded: sc.on(tm)})
		}
		return r
	}
	rounds := []round{
		{"equalizer": run("equalizer", 0.05), "adaptive": run("adaptive", 0.04)},
		{"equalizer": run("equalizer", 0.05), "adaptive": run("adaptive", 0.0625)},
	}
	text := roundsText(experiment{Label: "test"}, sc, rounds)
	wantLines(t, text, "",
		"## test, every 1 s: 2 rounds",
		"mean 1.025 ± 0.225 (0.800-1.250; over 1 in 1 of 2)",
		// the first tenth of a second with the load on: two frames of
		// each phase at 50 ms; three at 40 and two at 62.5 ms
		"| on | 0.0-0.1 | 50.0 | 49.0 | -1.0 | 0.500 | 0.400 | 8, 10 |",
	)
	if strings.Contains(text, "other build") {
		t.Errorf("columns for another build without -against:\n%s", text)
	}

	// -against: the other build's adaptive policy runs as Equalizer's
	// does, at 50 ms a frame, with half the frame on the hogged node
	rounds[0][otherBuild], rounds[1][otherBuild] = run("other", 0.05), run("other", 0.05)
	text = roundsText(experiment{Label: "test"}, sc, rounds)
	wantLines(t, text, "with -against, ",
		"| 1 | 50.0 | 40.0 | 0.800 |",
		"This build's over the other build's, averaged over the rounds: mean 1.025 ± 0.225 (0.800-1.250; over 1 in 1 of 2)",
		"The other build's over Equalizer's: mean 1.000 ± 0.000",
		"| on | 0.0-0.1 | 50.0 | 49.0 | -1.0 | 50.0 | -1.0 | 0.500 | 0.400 | 0.500 | 8, 10, 8 |",
	)
}

// The nodes' imbalance once the load is steady: under one policy the
// hogged node is 25% slower and faster by turns (each frame undoes the
// last: a correlation of -1), under the other in blocks of four frames
// (an imbalance that lasts: 12 of the 15 pairs in a phase alike, +0.60).
// Frames of the first second after a switch do not count. Frames come
// every 1/16 s, at times a float holds exactly: 16 of each phase count.
func TestImbalanceText(t *testing.T) {
	// the imbalance alternates in blocks of block frames, the hogged
	// node's share in blocks of shareBlock
	run := func(policy string, block, shareBlock int) *runResult {
		return steadyRun(policy, func(k int) frame {
			hogged, share := 0.0125, 0.48
			if (k/block)%2 == 1 {
				hogged = 0.008
			}
			if (k/shareBlock)%2 == 1 {
				share = 0.52
			}
			if k%32 < 16 {
				hogged, share = 0.05, 0.9 // the first second after a switch: not counted
			}
			return frame{Busy: []float64{0.01, hogged}, Node: []string{"n1", "n2"}, Share: []float64{1 - share, share}}
		})
	}
	text := imbalanceText([]round{{"equalizer": run("equalizer", 1, 2), "adaptive": run("adaptive", 4, 8)}})
	wantLines(t, text, "",
		"| off | equalizer | +0.000 | 0.223 | -1.00 | 0.020 | +0.07 | 32 |",
		"| off | adaptive | +0.000 | 0.223 | +0.60 | 0.020 | +0.87 | 32 |",
		"| on | equalizer | +0.000 | 0.223 | -1.00 | 0.020 | +0.07 | 32 |",
		"| on | adaptive | +0.000 | 0.223 | +0.60 | 0.020 | +0.87 | 32 |",
	)
}

// TestWaitingText: frames start when the one two before completes
// (latency 1). The hogged node finishes every other frame 5 ms before
// the next one's tasks come under one policy, and after them under the
// other; the other node is always after them. The first second after a
// switch does not count.
func TestWaitingText(t *testing.T) {
	run := func(policy string, ahead bool) *runResult {
		r := steadyRun(policy, func(int) frame {
			return frame{Busy: []float64{0.01, 0.01}, Node: []string{"n1", "n2"}, Share: []float64{0.5, 0.5}}
		})
		for k := range r.Frames {
			r.Frames[k].Started = r.Frames[k].Completed - 0.125
		}
		for k := 0; k+1 < len(r.Frames); k++ {
			next := r.Frames[k+1].Started
			hogged := next + 0.01
			if ahead && k%2 == 0 {
				hogged = next - 0.005
			}
			r.Frames[k].Done = []float64{next + 0.02, hogged}
		}
		return r
	}
	text := waitingText([]round{{"equalizer": run("equalizer", false), "adaptive": run("adaptive", true)}})
	for _, load := range []string{"off", "on"} { // the same with the hog on and off
		wantLines(t, text, load+": ",
			"| "+load+" | equalizer | 0.00 | 0% | 0.00 | 0% | 32 |",
			"| "+load+" | adaptive | 2.50 | 50% | 0.00 | 0% | 32 |")
	}
	// statistics without the times (recorded before they were): no table
	for _, f := range []func(*frame){func(f *frame) { f.Started = 0 }, func(f *frame) { clear(f.Done) }} {
		rd := round{"equalizer": run("equalizer", false), "adaptive": run("adaptive", true)}
		for _, r := range rd {
			for i := range r.Frames {
				f(&r.Frames[i])
			}
		}
		if text := waitingText([]round{rd}); text != "" {
			t.Errorf("a table without the times:\n%s", text)
		}
	}
}

// steadyRun is a run of 128 frames on a load switched every 2 s, one
// every 1/16 s (at times a float holds exactly), frame k's busy times and
// shares as made returns them; the hog is on the second node.
func steadyRun(policy string, made func(k int) frame) *runResult {
	sc := schedule{Name: "every 2 s", Period: 2, Duration: 8}
	r := &runResult{Schedule: sc, Policy: policy, Spans: [][2]float64{{2, 4}, {6, 8}}, Hogged: []bool{false, true}}
	for k := 0; k < 128; k++ {
		f := made(k)
		f.Completed = 0.03125 + float64(k)*0.0625
		f.Loaded = sc.on(f.Completed)
		r.Frames = append(r.Frames, f)
	}
	return r
}

// wantLines reports each line that text lacks (what says where, if not
// the first check).
func wantLines(t *testing.T, text, what string, lines ...string) {
	t.Helper()
	for _, want := range lines {
		if !strings.Contains(text, want) {
			t.Errorf("%sno %q in\n%s", what, want, text)
		}
	}
}

// The yardstick line takes only the frames with the load off in the
// second half of its phases: there the adaptive runs below draw as fast
// as Equalizer's in one round and 1.25 times as slow in the other, and
// four times as slow everywhere else.
func TestSettledText(t *testing.T) {
	sc := schedule{Name: "every 1 s", Period: 1, Duration: 4}
	run := func(policy string, settledDt float64) *runResult {
		r := &runResult{Schedule: sc, Policy: policy, Spans: [][2]float64{{1, 2}, {3, 4}}, Hogged: []bool{false, true}}
		for tm := 0.001; tm < 4; {
			r.Frames = append(r.Frames, frame{Completed: tm, Busy: []float64{0.01, 0.01}, Node: []string{"n1", "n2"}, Share: []float64{0.5, 0.5}, Loaded: sc.on(tm)})
			dt := 0.2
			// fast from a little before the second half, so that its first
			// frame's interval is a fast one too
			if inPart := math.Mod(tm, 2); inPart >= 0.4 && inPart < 1 {
				dt = settledDt
			}
			tm += dt
		}
		return r
	}
	equalizer := func() *runResult {
		r := &runResult{Schedule: sc, Policy: "equalizer", Spans: [][2]float64{{1, 2}, {3, 4}}, Hogged: []bool{false, true}}
		for tm := 0.001; tm < 4; tm += 0.05 {
			r.Frames = append(r.Frames, frame{Completed: tm, Busy: []float64{0.01, 0.01}, Node: []string{"n1", "n2"}, Share: []float64{0.5, 0.5}, Loaded: sc.on(tm)})
		}
		return r
	}
	rounds := []round{
		{"equalizer": equalizer(), "adaptive": run("adaptive", 0.05)},
		{"equalizer": equalizer(), "adaptive": run("adaptive", 0.0625)},
	}
	wantLines(t, settledText(sc, rounds), "",
		"adaptive over Equalizer's frame time: 1.125 ± 0.125 (1.000-1.250; over 1 in 1 of 2)")
}
