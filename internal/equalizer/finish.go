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
// Equalizer's; with neither, the mean rose 1-2%).

// finishes follows the renderers' frames as they overlap.
type finishes struct {
	frame int // the newest sampled frame followed (-1: none)
	// done is when each renderer finished that frame, and completed when
	// it and the frames before it completed (newest last), relative to its
	// completion, in the model's time (the renderers' measured busy times)
	done      map[*source]float64
	completed []float64
	// measured is when the sampled frames completed, by frame, on the
	// server's clock; sent is how long after the completion that let a
	// frame start its tasks were sent (0 back to back, more where the
	// frame rate is capped)
	measured map[int]time.Time
	sent     float64
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
// share.
const (
	catchUpGain  = 0.5
	catchUpSlack = 0.2
	maxCatchUp   = 0.5
)

// followFinishes updates the renderers' timelines with the newest samples
// and predicts when each will start the frame being planned: at latency L
// a frame's tasks are sent when frame f-L-1 completes (the newest whose
// statistics its plan saw, lag frames before it), and each renderer
// starts them when they come or when it finishes the frame before,
// whichever is later. Only where the samples say when frames started and
// completed; where moving costs, the threshold and the cost-benefit check
// decide, as with frames in turn.
func (a *Adaptive) followFinishes(l *Load, active []*Child, g *grid, samples []Sample, db bool) {
	fin := &a.finish
	fin.start, fin.overlapping = nil, false
	if a.lag < 1 || (db && a.MoveCost > 0) || len(samples) == 0 || samples[0].Started.IsZero() || samples[0].Completed.IsZero() {
		fin.frame = -1
		return
	}
	took := map[*source]float64{}
	for _, s := range samples {
		st := a.source(s.Path)
		took[st] = math.Max(took[st], s.Busy+s.Assemble)
	}
	frame := samples[0].Frame
	if frame == fin.frame {
		return // no new statistics: the plan before stands
	}
	if frame != fin.frame+1 || fin.done == nil {
		fin.done, fin.completed, fin.measured = map[*source]float64{}, nil, map[int]time.Time{}
	}
	fin.frame = frame
	fin.measured[frame] = samples[0].Completed
	before, known := fin.measured[frame-a.lag]
	if known {
		fin.sent = math.Max(0, samples[0].Started.Sub(before).Seconds())
	}
	delete(fin.measured, frame-a.lag-1)
	release := func() float64 { // when the next frame's tasks come
		if len(fin.completed) < a.lag {
			return math.Inf(-1)
		}
		return fin.completed[len(fin.completed)-a.lag] + fin.sent
	}
	step := func(took map[*source]float64) {
		rel := release()
		end := math.Inf(-1)
		next := map[*source]float64{}
		for st, t := range took {
			from := rel
			if d, ok := fin.done[st]; ok {
				from = math.Max(from, d)
			}
			if math.IsInf(from, -1) {
				from = 0
			}
			next[st] = from + t
			end = math.Max(end, next[st])
		}
		// relative to this completion
		for st := range next {
			next[st] -= end
		}
		for i := range fin.completed {
			fin.completed[i] -= end
		}
		fin.completed = append(fin.completed, 0)
		if len(fin.completed) > a.lag+1 {
			fin.completed = fin.completed[len(fin.completed)-a.lag-1:]
		}
		fin.done = next
	}
	step(took)
	if !known {
		return // how the frames are sent is not known yet
	}
	// the frames in flight, planned with the last regions: what the model
	// predicts they take
	done, completed := fin.done, append([]float64(nil), fin.completed...)
	inFlight := map[*source]float64{}
	for _, c := range active {
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip {
			continue
		}
		st := a.source(c.Path)
		inFlight[st] = math.Max(inFlight[st], g.load(region{vp: prev.Viewport, r: prev.Range})/l.weight(c))
	}
	for k := 1; k < a.lag; k++ {
		step(inFlight)
	}
	rel := release()
	fin.start = map[*source]float64{}
	first := math.Inf(1)
	for _, c := range active {
		st := a.source(c.Path)
		s := rel
		if d, ok := fin.done[st]; ok {
			s = math.Max(s, d)
		}
		if math.IsInf(s, -1) {
			s = 0
		}
		fin.start[st] = s
		first = math.Min(first, s)
	}
	for st := range fin.start {
		fin.start[st] -= first
	}
	fin.done, fin.completed = done, completed
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
