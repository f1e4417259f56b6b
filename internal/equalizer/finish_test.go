package equalizer

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
)

// overlapRun is two children, a and b, whose frames run as the server runs
// them at latency 1: frame f's tasks are sent when frame f-2 completes,
// or paced seconds after frame f-1's were where the frame rate is capped,
// each renderer starts a frame when its tasks come or when it finishes the
// one before, whichever is later, and the plan of frame f sees the
// statistics of frame f-2.
type overlapRun struct {
	splits []float64 // a's share, by frame
	total  float64   // when the last frame completed (s)
	waited float64   // the renderers' time without work (s)
}

// runOverlapped plans frames from a past-cold start: a's and b's work
// density by frame (seconds for the whole viewport), whether the samples
// say when frames started, completed and were done, and how much of a's
// time its busy time leaves out (as a node's pipes' busy times leave out
// some of its time live).
func runOverlapped(frames int, da, db func(f int) float64, paced float64, timed bool, unreported float64) overlapRun {
	l, out := pastColdPlans()
	const first = 100 // frame numbers past the cold plans' samples
	type frame struct {
		plan               []Assignment
		took, finished     [2]float64
		started, completed float64
	}
	var run overlapRun
	var done [2]float64 // when each renderer finished its last frame
	var fs []frame
	epoch := time.Unix(0, 0)
	at := func(s float64) time.Time { return epoch.Add(time.Duration(s * 1e9)) }
	for f := 0; f < frames; f++ {
		var samples []Sample
		release := 0.0
		if f >= 2 {
			old := fs[f-2]
			release = math.Max(old.completed, fs[f-1].started+paced)
			for i, path := range []string{"a", "b"} {
				busy := old.took[i]
				if i == 0 {
					busy *= 1 - unreported
				}
				samples = append(samples, Sample{Path: path, Frame: first + f - 2, Viewport: old.plan[i].Viewport, Busy: busy})
				if timed {
					samples[i].Started, samples[i].Completed, samples[i].Finished = at(old.started), at(old.completed), at(old.finished[i])
				}
			}
			l.Adaptive.ObserveLag(2)
			out = l.Plan(two(), samples)
		}
		fr := frame{plan: out, started: release}
		for i, d := range []func(int) float64{da, db} {
			fr.took[i] = d(f) * out[i].Viewport.W
			from := math.Max(done[i], release)
			run.waited += from - done[i]
			done[i] = from + fr.took[i]
			fr.finished[i] = done[i]
			fr.completed = math.Max(fr.completed, done[i])
		}
		if f > 0 {
			fr.completed = math.Max(fr.completed, fs[f-1].completed)
		}
		fs = append(fs, fr)
		run.splits = append(run.splits, out[0].Viewport.W)
	}
	run.total = fs[len(fs)-1].completed
	return run
}

// With frames overlapping, a renderer whose frames were slower than
// planned falls behind, and the other waits for it once it is a whole
// frame ahead. The adaptive model filters ±20% of noise out, so without
// the frames' times the split stays put and the leads wander; with them,
// the renderer that will start late gets less, and both wait less and
// finish sooner, on every seed. Also where a's busy times leave out a
// tenth of its time: the renderers are followed from when they were
// done, so that error does not add up.
func TestARendererBehindCatchesUpWhereFramesOverlap(t *testing.T) {
	for _, unreported := range []float64{0, 0.1} {
		for seed := int64(1); seed <= 10; seed++ {
			var runs [2]overlapRun
			for i, timed := range []bool{false, true} {
				r := rand.New(rand.NewSource(seed))
				noisy := func(int) float64 { return 0.020 * (1 + 0.2*(2*r.Float64()-1)) }
				runs[i] = runOverlapped(300, noisy, noisy, 0, timed, unreported)
			}
			without, with := runs[0], runs[1]
			if with.total >= without.total || with.waited >= 0.8*without.waited {
				t.Errorf("%.0f%% unreported, seed %d: %.3f s and %.3f s waited with the frames' times, %.3f s and %.3f s without",
					100*unreported, seed, with.total, with.waited, without.total, without.waited)
			}
		}
	}
}

// Where frames do not overlap (a frame rate capped at 20 a second sends
// the tasks of 10 ms frames after every renderer is done), no renderer
// carries anything into the next frame, and the plans are the same as
// without the frames' times.
func TestPacedFramesAreNotCaughtUp(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		var runs [2]overlapRun
		for i, timed := range []bool{false, true} {
			r := rand.New(rand.NewSource(seed))
			noisy := func(int) float64 { return 0.020 * (1 + 0.2*(2*r.Float64()-1)) }
			runs[i] = runOverlapped(200, noisy, noisy, 0.050, timed, 0)
		}
		if !slices.Equal(runs[0].splits, runs[1].splits) {
			t.Errorf("seed %d: the paced frames' times changed the splits", seed)
		}
	}
}

// Children that name one renderer take turns on it: the renderer is done
// with a frame when it is done with all of them, and starts the next one
// for all of them, so they start the planned frame together and have
// their shares changed alike, whatever their busy times say (each one's
// holds the other's work). Followed each on its own, the child whose busy
// time was short was put to start early and given more, at its sibling's
// cost, on the same core.
func TestChildrenOfOneRendererAreFollowedAsOne(t *testing.T) {
	kids := []Child{{Path: "a", Active: true, Usage: 1}, {Path: "b", Active: true, Usage: 1},
		{Path: "c", Active: true, Usage: 1}, {Path: "d", Active: true, Usage: 1}}
	renderers := []string{"n1 software", "n1 software", "n2 software", "n2 software"}
	l := NewLoad(adaptiveParams(compound.Split2D), 1280, 720)
	out := l.Plan(kids, nil)
	epoch := time.Unix(0, 0)
	at := func(s float64) time.Time { return epoch.Add(time.Duration(s * 1e9)) }
	for f := 0; f < 80; f++ {
		// each child's busy time holds the other's work, as live pipes'
		// on llvmpipe: they are each their own source (see turnEvidence),
		// and the quicker one changes from frame to frame
		busy := []float64{0.030, 0.024, 0.030, 0.024}
		if f%2 == 1 {
			busy = []float64{0.024, 0.030, 0.024, 0.030}
		}
		// back to back: a frame's tasks are sent when the frame two
		// before completes; each renderer takes 30 ms a frame, and n1
		// reports 15 ms after n2
		started := 0.030 * float64(f)
		var samples []Sample
		for i, k := range kids {
			done := started + 0.040
			if i < 2 {
				done += 0.015
			}
			samples = append(samples, Sample{Path: k.Path, Frame: f, Viewport: out[i].Viewport, Busy: busy[i], Renderer: renderers[i],
				Started: at(started), Completed: at(started + 0.060), Finished: at(done)})
		}
		l.Adaptive.ObserveLag(2)
		out = l.Plan(kids, samples)
	}
	a := l.Adaptive
	if _, ok := a.shared["a"]; ok {
		t.Fatal("a and b are taken to take turns")
	}
	if a.finish.start == nil {
		t.Fatal("the renderers start the planned frame together: nothing to catch up")
	}
	if a.startOf("a") <= a.startOf("c") {
		t.Errorf("n1, reported last, starts at %.1f ms, n2 at %.1f ms", 1000*a.startOf("a"), 1000*a.startOf("c"))
	}
	for _, pair := range [][2]string{{"a", "b"}, {"c", "d"}} {
		if a.startOf(pair[0]) != a.startOf(pair[1]) || a.catchUp(pair[0]) != a.catchUp(pair[1]) {
			t.Errorf("%s and %s share a renderer, but start at %.1f and %.1f ms, their shares times %.3f and %.3f",
				pair[0], pair[1], 1000*a.startOf(pair[0]), 1000*a.startOf(pair[1]), a.catchUp(pair[0]), a.catchUp(pair[1]))
		}
	}
}
