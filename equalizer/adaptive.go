package equalizer

import (
	"math"
	"sort"

	"goeq/compound"
)

// Adaptive is goeq's adaptive balancing policy (`adaptive ON`), after
// Siegell and Steenkiste's study of load-balancing parameters:
//
//   - measurements are filtered with a history fraction h chosen by a small
//     state machine that trusts slow-downs at once and speed-ups only as
//     they persist (an overloaded source stalls everyone; an underloaded
//     one costs little);
//   - work moves only when the predicted frame time improves by at least
//     Threshold (10%); a split stuck just under it gets a small correction
//     every CorrectEvery frames;
//   - a move whose cost (DB: range to load, per measured unit cost) exceeds
//     its benefit over the frames it is expected to pay off is cancelled;
//   - the balancing period follows the measured planning overhead and the
//     timer noise; the grain (boundary) follows the measured per-task
//     overhead when the config leaves the boundary at its default;
//   - DB ranges move only between neighbours (the MPI "string of cells"
//     pattern), so data moves as little as the balance allows.
type Adaptive struct {
	Threshold     float64 // fraction of frame time a move must save
	CorrectEvery  int     // frames under the threshold before a small correction
	MinCorrection float64 // smallest saving a correction makes
	Neighbour     bool    // DB: move ranges between neighbours only
	// MoveCost is the measured seconds to load one range unit of data
	// (DB); StableFrames the number of frames a new distribution is
	// expected to pay off over.
	MoveCost     float64
	StableFrames float64
	// Grain is the chosen 2D boundary in pixels (0: not chosen yet) and
	// Period the balancing period in frames.
	Grain  int
	Period int

	prev      *grid
	speedUps  map[string]int // consecutive speed-ups per child
	below     int
	sincePlan int
	noise     float64 // relative frame-to-frame variation of unchanged work
	lastDens  map[string]float64
	lastReg   map[string]region
	// keptSplits are the split positions before this frame's computation,
	// restored when the gate keeps the current regions.
	keptSplits map[string]float64
	// Decisions of the last Plan, for reports and tests.
	LastDecision string
}

// NewAdaptive returns the policy with the defaults from the study.
func NewAdaptive() *Adaptive {
	return &Adaptive{Threshold: 0.1, CorrectEvery: 8, MinCorrection: 0.01, Neighbour: true, StableFrames: 10, Period: 1,
		speedUps: map[string]int{}, lastDens: map[string]float64{}, lastReg: map[string]region{}}
}

// speedUpTrust is h for the n-th consecutive frame a child got faster:
// doubt the first speed-up, trust it fully after four.
var speedUpTrust = []float64{0.75, 0.5, 0.25, 0}

// filter replaces the raw grid by the filtered one. Each child's measured
// density is compared with what the previous filtered grid predicts for
// the region it rendered; a slow-down is taken as is (h = 0), a speed-up
// blended with the prediction by h from speedUpTrust.
func (a *Adaptive) filter(raw *grid, samples []Sample, db bool) *grid {
	a.measureNoise(samples, db)
	if a.prev == nil || len(a.prev.cells) == 0 {
		a.prev = raw
		return raw
	}
	out := &grid{db: db}
	covered, load := 0.0, 0.0
	for _, c := range raw.cells {
		reg := region{vp: c.vp, r: c.r}
		size := regionSize(reg, db)
		pred := a.prev.load(reg) / size
		d := c.density
		if pred > 0 && d < pred {
			n := a.speedUps[c.path]
			h := speedUpTrust[min(n, len(speedUpTrust)-1)]
			a.speedUps[c.path] = n + 1
			d = h*pred + (1-h)*d
		} else {
			a.speedUps[c.path] = 0
		}
		c.density = d
		out.cells = append(out.cells, c)
		covered += size
		load += d * size
	}
	if covered > 0 {
		out.mean = load / covered
	}
	a.prev = out
	return out
}

// measureNoise tracks how much a child's density varies between samples
// whose region did not change: timer noise and jitter, which set the
// balancing period.
func (a *Adaptive) measureNoise(samples []Sample, db bool) {
	for _, s := range samples {
		reg := region{vp: s.Viewport, r: s.Range}
		size := regionSize(reg, db)
		if size <= 0 {
			continue
		}
		d := s.Busy / size
		if prev, ok := a.lastReg[s.Path]; ok && prev == reg && a.lastDens[s.Path] > 0 {
			v := math.Abs(d-a.lastDens[s.Path]) / a.lastDens[s.Path]
			a.noise += 0.2 * (v - a.noise)
		}
		a.lastReg[s.Path], a.lastDens[s.Path] = reg, d
	}
}

// ObserveOverhead sets the balancing period from the measured planning
// and interaction overhead and the measured timer noise: interactions may
// cost at most 5% of the frame time, and measurements are averaged over
// enough frames that noise falls under half the threshold.
func (a *Adaptive) ObserveOverhead(planSeconds, frameSeconds float64) {
	p := 1
	if frameSeconds > 0 {
		p = max(p, int(math.Ceil(planSeconds/(0.05*frameSeconds))))
	}
	if a.noise > 0 {
		p = max(p, int(math.Ceil(math.Pow(a.noise/(a.Threshold/2), 2))))
	}
	a.Period = min(p, 8)
}

// ObserveGrain picks the 2D boundary from the measured fixed cost per task
// (clear, synchronous readback) and the cost per pixel: a boundary cell of
// b x b pixels must cost at least 20 times the fixed overhead, so that
// moving one cell is worth a task. Rounded up to 8 pixels, within [8, 256].
func (a *Adaptive) ObserveGrain(overheadSeconds, secondsPerPixel float64) {
	if overheadSeconds <= 0 || secondsPerPixel <= 0 {
		return
	}
	b := math.Sqrt(20 * overheadSeconds / secondsPerPixel)
	a.Grain = min(256, max(8, int(math.Ceil(b/8))*8))
}

// ObserveMove records the measured time to load moved data (DB).
func (a *Adaptive) ObserveMove(seconds, units float64) {
	if units <= 1e-9 || seconds < 0 {
		return
	}
	c := seconds / units
	if a.MoveCost == 0 {
		a.MoveCost = c
	} else {
		a.MoveCost += 0.3 * (c - a.MoveCost)
	}
}

// gate decides whether the newly computed regions replace the current ones:
// balancing period, imbalance threshold with occasional correction, and
// the cost-benefit check.
func (a *Adaptive) gate(l *Load, active []*Child, g *grid, next map[string]region) map[string]region {
	cur := map[string]region{}
	for _, c := range active {
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip {
			a.LastDecision = "move: new child"
			a.below, a.sincePlan = 0, 0
			return next
		}
		cur[c.Path] = region{vp: prev.Viewport, r: prev.Range}
	}
	a.sincePlan++
	if a.sincePlan < a.Period {
		a.LastDecision = "keep: within balancing period"
		return a.keep(l, cur)
	}
	curT, nextT := predicted(g, active, cur), predicted(g, active, next)
	saving := 0.0
	if curT > 0 {
		saving = 1 - nextT/curT
	}
	switch {
	case saving >= a.Threshold:
	case a.below+1 >= a.CorrectEvery && saving >= a.MinCorrection:
		// a small correction so a split cannot stay stuck under the threshold
	default:
		a.below++
		a.LastDecision = "keep: under threshold"
		return a.keep(l, cur)
	}
	if g.db && a.MoveCost > 0 {
		cost := 0.0
		for _, c := range active {
			gained := math.Max(0, regionSize(next[c.Path], true)-overlap1D(cur[c.Path].r, next[c.Path].r))
			cost = math.Max(cost, gained*a.MoveCost)
		}
		benefit := (curT - nextT) * a.StableFrames
		if cost > benefit {
			a.LastDecision = "keep: move costs more than it saves"
			return a.keep(l, cur)
		}
	}
	a.below, a.sincePlan = 0, 0
	a.LastDecision = "move"
	return next
}

// keep restores the current regions and the split positions that made them.
func (a *Adaptive) keep(l *Load, cur map[string]region) map[string]region {
	for k := range l.splits {
		delete(l.splits, k)
	}
	for k, v := range a.keptSplits {
		l.splits[k] = v
	}
	return cur
}

// predicted is the frame time the grid predicts for regions: the slowest
// child's load over its usage.
func predicted(g *grid, active []*Child, regs map[string]region) float64 {
	worst := 0.0
	for _, c := range active {
		t := g.load(regs[c.Path]) / childUsage(c)
		worst = math.Max(worst, t)
	}
	return worst
}

func regionSize(r region, db bool) float64 {
	if db {
		return r.r.End - r.r.Start
	}
	return r.vp.W * r.vp.H
}

func overlap1D(a, b compound.Range) float64 {
	return math.Max(0, math.Min(a.End, b.End)-math.Max(a.Start, b.Start))
}

// neighbourDB moves range only between neighbours: with T[i] the filtered
// time of child i on its current range of width N[i], C[i] = T[i]/N[i] its
// cost per unit and Tt[i] its target time, the amount passed from child i
// to child i+1 is S[0] = (T[0]-Tt[0])/C[0], S[i] = (T[i]+S[i-1]C[i]-Tt[i])/C[i].
func (l *Load) neighbourDB(tree *node, active []*Child, g *grid, out map[string]region) {
	n := len(active)
	type dom struct {
		c     *Child
		start float64
		width float64
	}
	doms := make([]dom, n)
	fresh := false
	for i, c := range active {
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip {
			fresh = true
			break
		}
		doms[i] = dom{c, prev.Range.Start, prev.Range.End - prev.Range.Start}
	}
	if fresh {
		l.split(tree, region{r: compound.FullRange}, g, out)
		return
	}
	sort.SliceStable(doms, func(i, j int) bool { return doms[i].start < doms[j].start })
	total, usage := 0.0, 0.0
	T := make([]float64, n)
	for i, d := range doms {
		T[i] = g.load1D(d.start, d.start+d.width)
		total += T[i]
		usage += childUsage(d.c)
	}
	bounds := make([]float64, n+1)
	for i, d := range doms {
		bounds[i] = d.start
	}
	bounds[n] = 1
	S := 0.0
	for i := 0; i < n-1; i++ {
		target := total * childUsage(doms[i].c) / usage
		C := T[i] / math.Max(doms[i].width, 1e-9)
		if C <= 0 {
			C = g.mean
		}
		if i == 0 {
			S = (T[i] - target) / C
		} else {
			S = (T[i] + S*C - target) / C
		}
		bounds[i+1] -= S
	}
	step := math.Max(l.Params.BoundaryDB, 1e-6)
	for i := 1; i < n; i++ {
		b := math.Round(bounds[i]/step) * step
		b = math.Max(b, bounds[i-1]+step)
		b = math.Min(b, 1-float64(n-i)*step)
		bounds[i] = b
	}
	for i, d := range doms {
		out[d.c.Path] = region{r: compound.Range{Start: bounds[i], End: bounds[i+1]}}
	}
}
