package equalizer

import (
	"math"
	"time"
)

// Frames overlap live: at latency L a frame's tasks are sent when frame
// f-L-1 completes, and a render node works through its frames one after
// the other, so a node that finished a frame early starts its next one
// early. Balancing each frame's durations leaves what one frame's error
// did: a node that fell behind stays behind, and the others wait for it
// once they are a whole frame ahead. On live runs the adaptive policy's
// nodes waited 2.6-10 ms a frame, Equalizer's 0.2-2 ms: Equalizer answers
// each frame's times, so a node behind gets less work two frames later,
// and the adaptive model filters that out as noise. Timed so, the
// adaptive policy was slower than Equalizer's on the mean in all 90
// simulated runs of noisy and of hiccups.
//
// So where moving is free it balances when the renderers finish: it
// follows each one's frames from their measured times as the server runs
// them, predicts the frames in flight from their regions, and gives a
// renderer that will start the planned frame late less of it. Only part
// of the lateness is taken back (catchUpGain), and none of the first
// catchUpSlack of a frame: a renderer a little ahead absorbs its own next
// slow frame, which aligned renderers do not (taken back in full from the
// first millisecond, the p99 of noisy and hiccups rose 5-10% over
// Equalizer's; with neither, the mean rose 1-2%; taken back by half
// beyond a fifth of a frame, the p99 of a hotspot moving across three
// sources rose 11-13%).

// finishes follows the renderers' frames as they overlap.
type finishes struct {
	frame int // the newest sampled frame (-1: none)
	// measured is when the sampled frames completed, by frame, on the
	// server's clock; sent is how long after the completion that let a
	// frame start its tasks were sent (0 back to back, more where the
	// frame rate is capped)
	measured map[int]time.Time
	sent     float64
	// done is when each renderer (see followFinishes' unit) finished the
	// newest sampled frame
	done map[string]time.Time
	// start is when each renderer will start the frame being planned,
	// relative to the earliest (nil: no catching up this plan); mean is
	// its mean by weight, and duration the balanced frame's duration
	start          map[*source]float64
	mean, duration float64
	// overlapping: the renderers start the planned frame at different
	// times, each when it finishes the frames before (where the tasks
	// come after every renderer is done, they start together)
	overlapping bool
}

// catchUpGain is the part of a renderer's lateness beyond catchUpSlack
// (in frames) that a plan takes back; maxCatchUp bounds the change of its
// share. Chosen on the simulator's checks (docs/equalizers.md, "Balancing
// when the renderers finish").
const (
	catchUpGain  = 0.4
	catchUpSlack = 0.25
	maxCatchUp   = 0.5
)

// followFinishes predicts when each renderer will start the frame being
// planned: at latency L a frame's tasks are sent when the frame whose
// statistics its plan saw (lag frames before it) completes, and each
// renderer starts them when they come or when it finishes the frame
// before, whichever is later. It starts from when each renderer's node
// reported the sampled frame done, as measured, and predicts the frames
// in flight from their regions with the model, so that neither the
// model's errors add up from frame to frame nor a correction already
// planned is made twice. (Following the renderers from their busy times
// alone, live, put one node 110-130 ms behind the other where it was 20
// ms ahead: the pipes' busy times are not all of a node's time.) Only
// where the samples say when frames started, completed and were done;
// where moving costs, the threshold and the cost-benefit check decide, as
// with frames in turn.
func (a *Adaptive) followFinishes(l *Load, active []*Child, g *grid, samples []Sample, db bool) {
	fin := &a.finish
	fin.start, fin.overlapping = nil, false
	if a.lag < 1 || (db && a.MoveCost > 0) || len(samples) == 0 || samples[0].Started.IsZero() || samples[0].Completed.IsZero() {
		fin.frame = -1
		return
	}
	frame, completed := samples[0].Frame, samples[0].Completed
	if frame == fin.frame {
		return // no new statistics: the plan before stands
	}
	if fin.measured == nil || frame != fin.frame+1 {
		fin.measured, fin.done = map[int]time.Time{}, nil
	}
	fin.frame = frame
	fin.measured[frame] = completed
	delete(fin.measured, frame-a.lag-1)
	// when each renderer finished the sampled frame, relative to its
	// completion: it started when the frame's tasks came or when it
	// finished the frame before, whichever was later, and took its busy
	// time; a node reports once for all its renderers (its records carry
	// one time), so its renderers are moved together to have the last one
	// finish when it reported. Anchored so every frame, the busy times'
	// errors do not add up.
	since := func(t time.Time) float64 { return t.Sub(completed).Seconds() }
	// unit is what each child's frames run on, by child path: children
	// that name one renderer take turns on it, and it works through their
	// frames as one and is done with a frame when it is done with all of
	// them (as the simulator times them), so they are followed as one;
	// other children are each their own. (Followed each on its own, live,
	// two pipes of a node were put up to 60 ms apart, and one's share cut
	// by a third while the other's stood, which moved work between them
	// on the same core.)
	unit := map[string]string{}
	for _, s := range samples {
		unit[s.Path] = s.Renderer
		if s.Renderer == "" {
			unit[s.Path] = s.Path
		}
	}
	took := map[string]float64{}
	reported := map[string]float64{}
	for _, s := range samples {
		if s.Finished.IsZero() {
			fin.done = nil
			return
		}
		st := unit[s.Path]
		took[st] = math.Max(took[st], s.Busy+s.Assemble)
		if r, ok := reported[st]; !ok || since(s.Finished) > r {
			reported[st] = since(s.Finished)
		}
	}
	done := map[string]float64{}
	for st, t := range took {
		from := since(samples[0].Started)
		if d, ok := fin.done[st]; ok {
			from = math.Max(from, since(d))
		}
		done[st] = from + t
	}
	byNode := map[float64][]string{}
	for st, r := range reported {
		byNode[r] = append(byNode[r], st)
	}
	last := math.Inf(-1)
	for r, sts := range byNode {
		latest := math.Inf(-1)
		for _, st := range sts {
			latest = math.Max(latest, done[st])
		}
		for _, st := range sts {
			done[st] += r - latest
		}
		last = math.Max(last, r)
	}
	fin.done = map[string]time.Time{}
	for st, d := range done {
		fin.done[st] = completed.Add(time.Duration(d * 1e9))
	}
	// what the frame took after its last node reported (the destination
	// assembling) comes after each predicted frame too
	delivery := math.Max(0, -last)
	var completions []float64 // frame-lag+1 .. frame, oldest first
	for f := frame - a.lag + 1; f <= frame; f++ {
		at, ok := fin.measured[f]
		if !ok {
			return // not enough frames measured yet
		}
		completions = append(completions, since(at))
	}
	before, ok := fin.measured[frame-a.lag]
	if !ok {
		return
	}
	fin.sent = math.Max(0, samples[0].Started.Sub(before).Seconds())
	release := func() float64 { // when the next frame's tasks come
		return completions[len(completions)-a.lag] + fin.sent
	}
	// the frames in flight, planned with the last regions: what the model
	// predicts they take
	inFlight := map[string]float64{}
	for _, c := range active {
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip {
			continue
		}
		st, ok := unit[c.Path]
		if !ok {
			continue
		}
		inFlight[st] = math.Max(inFlight[st], g.load(region{vp: prev.Viewport, r: prev.Range})/l.weight(c))
	}
	for k := 1; k < a.lag; k++ {
		rel := release()
		end := math.Inf(-1)
		for st, t := range inFlight {
			from := rel
			if d, ok := done[st]; ok {
				from = math.Max(from, d)
			}
			done[st] = from + t
			end = math.Max(end, done[st])
		}
		completions = append(completions, end+delivery)
	}
	rel := release()
	fin.start = map[*source]float64{}
	first := math.Inf(1)
	for _, c := range active {
		s := rel
		if d, ok := done[unit[c.Path]]; ok {
			s = math.Max(s, d)
		}
		fin.start[a.source(c.Path)] = s
		first = math.Min(first, s)
	}
	for st := range fin.start {
		fin.start[st] -= first
	}
	usage := 0.0
	fin.mean = 0
	for _, c := range active {
		w := l.weight(c)
		usage += w
		fin.mean += w * fin.start[a.source(c.Path)]
	}
	fin.mean /= usage
	fin.duration = g.total() / usage
	for _, s := range fin.start {
		// the model's times are not exact: a renderer a fiftieth of a
		// frame past the others' may be at the tasks' coming too
		if s > fin.duration/50 {
			fin.overlapping = true
		}
	}
	if !fin.overlapping {
		fin.start = nil
	}
}

// startOf is when a child's renderer starts the planned frame, relative
// to the earliest (0 without catching up).
func (a *Adaptive) startOf(path string) float64 {
	if a.finish.start == nil {
		return 0
	}
	return a.finish.start[a.source(path)]
}

// catchingUp tells whether a plan takes back part of a renderer's
// lateness: one starts the planned frame late beyond catchUpSlack.
func (a *Adaptive) catchingUp(active []*Child) bool {
	for _, c := range active {
		if a.catchUp(c.Path) < 1 {
			return true
		}
	}
	return false
}

// catchUp is the factor on a child's share that brings the renderers'
// finishes together.
func (a *Adaptive) catchUp(path string) float64 {
	fin := &a.finish
	if fin.start == nil || fin.duration <= 0 {
		return 1
	}
	late := (a.startOf(path) - fin.mean) / fin.duration
	late = math.Copysign(math.Max(0, math.Abs(late)-catchUpSlack), late)
	f := 1 - catchUpGain*late
	return math.Max(1-maxCatchUp, math.Min(1+maxCatchUp, f))
}
