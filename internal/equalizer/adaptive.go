package equalizer

import (
	"math"
	"sort"

	"github.com/goeq/goeq/internal/compound"
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
	MinCorrection float64 // smallest saving a correction makes (at least twice the timer noise)
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

	model     *raster                 // work density with history
	speeds    map[string]float64      // filtered speed per child
	filtered  map[string]filteredCell // per child: last region and filtered density
	speedUps  map[string]int          // consecutive speed-ups per child
	below     int
	sincePlan int
	settling  int     // frames after a move with a relaxed threshold
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
		speedUps: map[string]int{}, lastDens: map[string]float64{}, lastReg: map[string]region{}, filtered: map[string]filteredCell{}, speeds: map[string]float64{}}
}

// settleFrames is how long after a move follow-up corrections may be small:
// long enough for the statistics of the new distribution to arrive with a
// latency of a frame or two.
const settleFrames = 4

// speedUpTrust is h for the n-th consecutive frame a child got faster:
// doubt the first speed-up, trust it fully after four.
var speedUpTrust = []float64{0.75, 0.5, 0.25, 0}

// filter turns this frame's samples into the load model the split uses.
// The model separates what a source is from what it renders: a raster of
// work density over the compound (seconds at unit speed per unit area or
// range) that keeps the shape earlier frames taught, and a speed per
// source. A source that rendered (nearly) the same region as before and
// took a different time changed speed (competing load, clocks): its speed
// is updated through the asymmetric filter, slow-downs at once (h = 0),
// speed-ups blended in by h from speedUpTrust. A source on a new region
// measured new ground: the raster under the region is rescaled to match,
// at the source's speed.
func (a *Adaptive) filter(raw *grid, samples []Sample, db bool) *grid {
	a.measureNoise(samples, db)
	if a.model == nil || a.model.db != db {
		a.model = newRaster(db)
	}
	m := a.model
	for _, c := range raw.cells {
		reg := region{vp: c.vp, r: c.r}
		sp, known := a.speeds[c.path]
		if !known || sp <= 0 {
			sp = 1
		}
		work := m.mean(reg) // work density the model expects here
		prev, seen := a.filtered[c.path]
		if m.init && seen && work > 0 && c.density > 0 && sameRegion(prev.reg, reg, db) {
			raw := work / c.density // the speed this measurement implies
			if raw < sp {
				a.speedUps[c.path] = 0
				sp = raw
			} else {
				n := a.speedUps[c.path]
				h := speedUpTrust[min(n, len(speedUpTrust)-1)]
				a.speedUps[c.path] = n + 1
				sp = h*sp + (1-h)*raw
			}
		} else {
			a.speedUps[c.path] = 0
			m.rescale(reg, work, c.density*sp)
		}
		a.speeds[c.path] = sp
		a.filtered[c.path] = filteredCell{reg: reg, density: c.density}
	}
	if !m.init {
		return raw // nothing measured yet: the even split
	}
	return m.grid()
}

// raster is the adaptive load model: densities (seconds per unit area or
// range) on a fixed grid of cells over the balanced compound.
type raster struct {
	db   bool
	n    int // cells per side (2D) or along the range (DB)
	d    []float64
	init bool
}

const rasterCells2D, rasterCellsDB = 32, 256

func newRaster(db bool) *raster {
	n := rasterCells2D
	size := n * n
	if db {
		n, size = rasterCellsDB, rasterCellsDB
	}
	return &raster{db: db, n: n, d: make([]float64, size)}
}

// cellRegion is cell k as a region.
func (m *raster) cellRegion(k int) region {
	s := 1 / float64(m.n)
	if m.db {
		return region{r: compound.Range{Start: float64(k) * s, End: float64(k+1) * s}}
	}
	i, j := k%m.n, k/m.n
	return region{vp: compound.Viewport{X: float64(i) * s, Y: float64(j) * s, W: s, H: s}}
}

// coverage returns, for each cell touching reg, the fraction of the cell
// inside it.
func (m *raster) coverage(reg region, fn func(k int, frac float64)) {
	s := 1 / float64(m.n)
	if m.db {
		lo, hi := int(reg.r.Start*float64(m.n)), int(math.Ceil(reg.r.End*float64(m.n)))
		for k := max(lo, 0); k < min(hi, m.n); k++ {
			c := m.cellRegion(k)
			if f := overlap1D(c.r, reg.r) / s; f > 0 {
				fn(k, f)
			}
		}
		return
	}
	x0, x1 := int(reg.vp.X*float64(m.n)), int(math.Ceil((reg.vp.X+reg.vp.W)*float64(m.n)))
	y0, y1 := int(reg.vp.Y*float64(m.n)), int(math.Ceil((reg.vp.Y+reg.vp.H)*float64(m.n)))
	for j := max(y0, 0); j < min(y1, m.n); j++ {
		for i := max(x0, 0); i < min(x1, m.n); i++ {
			k := j*m.n + i
			in := m.cellRegion(k).vp.Intersect(reg.vp)
			if f := in.W * in.H / (s * s); f > 0 {
				fn(k, f)
			}
		}
	}
}

// mean is the model's density over reg (0 before the first measurement).
func (m *raster) mean(reg region) float64 {
	if !m.init {
		return 0
	}
	sum, w := 0.0, 0.0
	m.coverage(reg, func(k int, f float64) { sum += m.d[k] * f; w += f })
	if w == 0 {
		return 0
	}
	return sum / w
}

// rescale makes the model's mean over reg equal d, keeping the shape.
func (m *raster) rescale(reg region, avg, d float64) {
	if !m.init {
		for k := range m.d {
			m.d[k] = d
		}
		m.init = true
		return
	}
	if avg <= 0 {
		m.coverage(reg, func(k int, f float64) { m.d[k] = m.d[k]*(1-f) + d*f })
		return
	}
	factor := d / avg
	m.coverage(reg, func(k int, f float64) { m.d[k] *= 1 + (factor-1)*f })
}

func (m *raster) grid() *grid {
	g := &grid{db: m.db}
	total := 0.0
	for k, d := range m.d {
		c := m.cellRegion(k)
		g.cells = append(g.cells, cell{vp: c.vp, r: c.r, density: d})
		total += d
	}
	g.mean = total / float64(len(m.d))
	return g
}

type filteredCell struct {
	reg     region
	density float64
}

// sameRegion reports whether two regions overlap by at least 90% of each.
func sameRegion(a, b region, db bool) bool {
	var inter, sa, sb float64
	if db {
		inter, sa, sb = overlap1D(a.r, b.r), a.r.End-a.r.Start, b.r.End-b.r.Start
	} else {
		i := a.vp.Intersect(b.vp)
		inter, sa, sb = i.W*i.H, a.vp.W*a.vp.H, b.vp.W*b.vp.H
	}
	return sa > 0 && sb > 0 && inter >= 0.9*sa && inter >= 0.9*sb
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

// ObserveGrain picks the 2D boundary when the config leaves it out: one
// boundary step should change a source's time by about what the timers can
// resolve (the measured noise, at least 1%): finer steps move work on noise,
// coarser ones leave measurable imbalance. busySeconds is a source's mean
// busy time, secondsPerPixel the measured drawing cost and span the length
// of a split edge in pixels. Rounded up to a power of two, at most 64.
func (a *Adaptive) ObserveGrain(busySeconds, secondsPerPixel, span float64) {
	if busySeconds <= 0 || secondsPerPixel <= 0 || span <= 0 {
		return
	}
	resolve := math.Max(a.noise, 0.01)
	b := resolve * busySeconds / (secondsPerPixel * span)
	g := 1
	for float64(g) < b && g < 64 {
		g *= 2
	}
	a.Grain = g
}

// TileSize picks the tile equalizer's tile side from the measured fixed
// cost per tile (set-up, readback) and the drawing cost per pixel: a tile
// must cost at least 20 times its overhead (overhead <= 5%). Rounded up to
// 8 pixels, within [16, 256].
func TileSize(overheadSeconds, secondsPerPixel float64) int {
	if overheadSeconds <= 0 || secondsPerPixel <= 0 {
		return 64
	}
	b := math.Sqrt(20 * overheadSeconds / secondsPerPixel)
	return min(256, max(16, int(math.Ceil(b/8))*8))
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
	curT, nextT := l.predicted(g, active, cur), l.predicted(g, active, next)
	saving := 0.0
	if curT > 0 {
		saving = 1 - nextT/curT
	}
	threshold, settlingMove := a.Threshold, false
	if a.settling > 0 {
		// right after a move the measurements test its prediction: what is
		// left over is model error, not noise, so follow-ups need less
		a.settling--
		threshold = 2 * a.MinCorrection
		settlingMove = saving < a.Threshold
	}
	switch {
	case saving >= threshold:
	case a.below+1 >= a.CorrectEvery && saving >= math.Max(a.MinCorrection, 2*a.noise):
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
	if !settlingMove {
		// only a full move opens a settling window: follow-ups do not
		// renew it, so small corrections cannot chain forever
		a.settling = settleFrames
	}
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

// predicted is the frame time the model predicts for regions: the slowest
// child's work over its speed and usage.
func (l *Load) predicted(g *grid, active []*Child, regs map[string]region) float64 {
	worst := 0.0
	for _, c := range active {
		t := g.load(regs[c.Path]) / l.weight(c)
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

// neighbourDB moves range only between neighbours, the MPI "string of
// cells" pattern: the children keep their order along the range and each
// boundary moves just far enough that the child on its left gets its
// target time, integrating the per-unit cost of the cells the boundary
// crosses (S[i] = what passes from child i to child i+1). Only neighbours
// exchange range, and no range moves that the balance does not need.
func (l *Load) neighbourDB(tree *node, active []*Child, g *grid, out map[string]region) {
	n := len(active)
	type dom struct {
		c     *Child
		start float64
	}
	doms := make([]dom, n)
	for i, c := range active {
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip {
			l.split(tree, region{r: compound.FullRange}, g, out)
			return
		}
		doms[i] = dom{c, prev.Range.Start}
	}
	sort.SliceStable(doms, func(i, j int) bool { return doms[i].start < doms[j].start })
	total, usage := g.load1D(0, 1), 0.0
	for _, d := range doms {
		usage += l.weight(d.c)
	}
	step := math.Max(l.Params.BoundaryDB, 1e-6)
	lo := 0.0
	for i, d := range doms {
		hi := 1.0
		if i < n-1 {
			target := total * l.weight(d.c) / usage
			hi = g.findSplit1D(lo, 1, target/math.Max(g.load1D(lo, 1), 1e-12))
			hi = math.Round(hi/step) * step
			hi = math.Min(math.Max(hi, lo+step), 1-float64(n-1-i)*step)
		}
		out[d.c.Path] = region{r: compound.Range{Start: lo, End: hi}}
		lo = hi
	}
}
