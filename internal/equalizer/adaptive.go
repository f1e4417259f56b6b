package equalizer

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/goeq/goeq/internal/compound"
)

// Adaptive is goeq's adaptive balancing policy (`adaptive ON`), after
// Siegell and Steenkiste's study of load-balancing parameters:
//
//   - the load model separates what a source is (its speed) from what it
//     renders (a raster of work density); a change in a source's time is
//     split between the two: what is balanced by opposite changes of other
//     sources is work that moved in the scene, the rest a change of speed
//     (noise does not balance a change beyond it: see changeSum);
//   - changes within the measured noise band are followed slowly, so timer
//     noise and jitter do not move work, unless a tracking signal shows
//     the errors keep their sign (work drifting in the scene); beyond it,
//     so is work that moved (pipes sharing cores swing against each
//     other for a frame), while slow-downs are trusted at once and
//     speed-ups only once they persist, for longer on a source seen to
//     oscillate (an overloaded source stalls everyone; an underloaded one
//     costs little); where hiccups are the rule, a source whose last
//     speed-up lasted is followed half way every frame while its next one
//     is held (see longUp);
//   - a split moves all the way to where the model puts it, but only part
//     of the way while its sources' large errors alternate in sign: the
//     policy's own moves overshooting (see overshoot);
//   - work moves only when the predicted frame time improves by at least
//     Threshold (10%) where moving costs (DB with data to load), elsewhere
//     by three times the noise left in the model; a split stuck just under
//     it gets a small correction every CorrectEvery frames;
//   - a move whose cost (DB: range to load, per measured unit cost) exceeds
//     its benefit over the frames it is expected to pay off is cancelled;
//   - the balancing period follows the measured planning overhead; the
//     grain (boundary) follows the measured cost per pixel and the noise
//     when the config leaves the boundary at its default;
//   - DB ranges move only between neighbours (the MPI "string of cells"
//     pattern), so data moves as little as the balance allows;
//   - where frames overlap (latency) and moving is free, the plan
//     balances when the renderers finish: one that will start the planned
//     frame late, still on the frames before, gets less of it (see
//     finishes);
//   - until the model has seen the load through a few distributions, the
//     plans are Equalizer's (see coldPlans).
type Adaptive struct {
	Threshold    float64 // fraction of frame time a move must save
	CorrectEvery int     // frames under the threshold before a small correction
	// MinCorrection is the smallest saving a correction makes (and half
	// the least threshold where moving is free); the noise band raises
	// both where timers are noisy
	MinCorrection float64
	Neighbour     bool // DB: move ranges between neighbours only
	// MoveCost is the measured seconds to load one range unit of data
	// (DB); StableFrames the number of frames a new distribution is
	// expected to pay off over.
	MoveCost     float64
	StableFrames float64
	// Grain is the chosen 2D boundary in pixels (0: not chosen yet) and
	// Period the balancing period in frames.
	Grain  int
	Period int

	model     *raster // work density with history
	sources   map[string]*source
	below     int
	sincePlan int
	settling  int     // frames after a move with a relaxed threshold
	noise     float64 // relative timer noise and jitter (see measureNoise)
	changes   []float64
	lastDens  map[string][2]float64 // the last two densities on lastReg (newest first)
	lastReg   map[string]region
	// keptSplits are the split positions before this frame's computation,
	// restored when the gate keeps the current regions.
	keptSplits map[string]float64
	// equalizer is Equalizer's policy, which plans the first coldPlans
	// frames after the first samples (nil once the model plans); handover
	// marks the model's first plan, which moves 2D splits half way
	// whatever it saves. See coldPlans.
	equalizer *Load
	coldLeft  int
	handover  bool
	// shared names, by child path, the renderer a child shares with
	// others of the compound and takes turns on (Sample.Renderer); turns
	// is what tells, by renderer (see learnShared)
	shared map[string]string
	turns  map[string]*turnEvidence
	// lag is how many frames old the statistics are when the plan they
	// feed is drawn (see ObserveLag)
	lag int
	// hiccups is an exponential mean, over isolated slow-downs, of 1 for
	// a hiccup and 0 for one that lasted (see hiccupGap), from an even
	// start: the first slow-down is taken, and whether it was a hiccup
	// decides how the next is. (From 0, four hiccups were taken, each
	// moving the split for a frame, before the next was awaited.)
	hiccups float64
	// undone: a slow-down that moved the regions turned out a hiccup and
	// was undone, and the regions go back whatever that saves (see gate)
	undone bool
	// finish follows the renderers' frames as they overlap (see finishes)
	finish finishes
	// Decisions of the last Plan, for reports and tests.
	LastDecision string
}

// source is what the policy knows of one child.
type source struct {
	speed float64 // filtered speed (1: as fast as the model's unit)
	seen  bool    // a sample of it reached the model
	// hold is how many consecutive frames a speed-up must last before it
	// is trusted; pending counts them. A source whose trusted speed-ups
	// are soon followed by slow-downs oscillates: hold doubles, and it
	// halves again after calm frames (see oscillationFrames).
	hold, pending int
	sinceUp       int // frames since the last trusted speed-up (-1: none)
	// upFor counts the frames since a speed-up beyond the noise band
	// began, until the next slow-down (-1: none under way); lastUp is
	// how long the last one lasted (-1: none seen). See longUp.
	upFor, lastUp int
	calm          int // frames without sign of oscillation
	// sinceSlow counts frames since the last slow-down beyond the noise
	// band (-1: none); probe is the last one while the next frame has yet
	// to tell whether it was a hiccup (see hiccupGap)
	sinceSlow int
	probe     *slowDown
	// closeSlows counts slow-downs in a row that each came within
	// hiccupGap frames of the one before
	closeSlows int
	sharers    int // children that share it (see learnShared)
	// errMean and errSize are exponential means of the source's
	// prediction errors (measured over predicted time, less 1) and of
	// their sizes, for the tracking signal (see drift)
	errMean, errSize float64
	// workMean and workSize are the same for the part of the error
	// taken for a change of work (see trend)
	workMean, workSize float64
}

// changeSum sums the renderers' changes of time (measured less
// predicted) that may balance one another: work that moved in the scene
// makes one renderer slower by what it makes others faster, a change of
// speed changes one alone. A change beyond the noise band is summed with
// the others beyond it, and with those within it at least minBalancing
// times its size: the small ones are noise, and counted against it they put
// part of every change of speed down to work. With +-10% timer noise a
// source whose competing load went off had part of its speed-up taken
// for work lost under its region in each frame its hold ran (the others'
// faster frames counted against it, their slower ones only as far as
// they cancelled those), so it was trusted at too low a speed (in one
// trace 1.52 times the speed before, where it was twice as fast) and the
// rest waited out a second hold: on simulated runs with a
// load switched every 30 frames, mean frame times above Equalizer's in
// 41 of 90 runs, and in 5 with this.
type changeSum struct{ excess, up, down float64 }

// minBalancing is the least size, relative to a change beyond the noise
// band, of a change within it that may balance it: with two renderers a
// load moving from one to the other can leave one within the band and
// the other beyond it. (Counting none, two sources with +-20% noise moved
// their split more, and 4 of 44 held-out runs of a moving hotspot were
// slower than Equalizer's; counting only opposite changes half its size,
// noise acquired a trend.)
const minBalancing = 0.25

func (c *changeSum) add(e float64) {
	c.excess += e
	if e > 0 {
		c.up += e
	} else {
		c.down -= e
	}
}

// speedShare is how much of a renderer's change e a change of its speed
// explains: the part of the changes of e's sign that no opposite change
// balances, shared among them in proportion.
func (c changeSum) speedShare(e float64) float64 {
	switch {
	case e > 0 && c.excess > 0:
		return math.Min(1, c.excess/c.up)
	case e < 0 && c.excess < 0:
		return math.Min(1, -c.excess/c.down)
	}
	return 0
}

// hiccupGap: a slow-down beyond the noise band may be a hiccup, a frame
// that took long for a reason gone by the next: on live runs here one
// frame in twenty of a node's takes 1.8 to 2 times as long as the one
// before, or longer (the operating system's scheduling on two shared
// cores). Taken as slow-downs, hiccups moved the split for a frame each,
// set the source's speed back until a speed-up had lasted the hold, and
// fed the hold and the overshoot damping as if the source oscillated.
// The next frame tells: back within the band of the speed before, it was
// a hiccup, and a hiccup taken is undone. Where most slow-downs probed so
// turn out hiccups (Adaptive.hiccups over a half), the next one waits for
// that frame before it is taken: a frame late where it was real, where
// taking it would have cost a frame more often. There, two hiccups in a
// row are not rare either: a waited slow-down that its second frame
// confirmed is taken and probed once more, and undone if the third frame
// is back. (Only there: a source switched on and off every two frames
// looks the same in its first cycle, and undoing that cycle cost it the
// next one's slow frames.) The third slow-down in a row within hiccupGap
// frames of the one before is a source that oscillates, and is taken at
// once (two hiccups that close are common enough at one frame in twenty).
const hiccupGap = 2

// longUp is how many frames a source's last speed-up must have lasted for
// the next one to be followed half way every frame while it is held,
// where hiccups are the rule. There a speed-up was rarely trusted: a
// hiccup of either of two pipes sharing a core broke its run of fast
// frames, and a load switched every 40 frames kept the hold at its
// longest (a speed-up trusted late leaves the load's return within twice
// the hold, which doubles it again). The source then stayed underloaded
// for most of each phase without the load, and the other node took its
// surplus: on simulated runs like the live ones (docs/balance.md, "A hog
// on a shared core") frames were 1.0% longer than Equalizer's with the
// load switched every 40 frames and 2.2% every 20, and 0.0% and 0.9% with
// this. Loads switched every 10 frames or faster are better left at their
// slow share, as the hold leaves them; so are sources where hiccups are
// rare, whose speed-ups the hold does not break.
const longUp = 16

// minHiccup is the least slow-down taken for a possible hiccup: smaller
// ones, a few times the timer noise where it is low, are taken at once,
// as hiccups on live runs make a frame 1.3 times as long and more. It is
// the frame's time over its prediction, not the part of it put down to
// speed: with eight sources or more, a hiccup while the others were
// fast was put down mostly to work, its speed part fell under 1.1, and it
// was taken at once and kept (on simulated runs with hiccups of the live
// runs' sizes, 73 of about 1900 slow-downs in 20 runs of 8 sources; the
// adaptive policy's mean frame time was then above Equalizer's in 17 of
// 363 runs, and in none with this).
const minHiccup = 1.1

// slowDown is an isolated slow-down whose next frame is awaited: the
// source before it, whether it was left untaken until then (and then the
// speed it showed), and whether it has lasted a frame already.
type slowDown struct {
	before *source
	waited bool
	speed  float64
	lasted bool
}

// rewind sets the source back to what it was before a frame, all but its
// history of slow-downs, which tells hiccups from oscillation.
func (st *source) rewind(to *source) {
	sinceSlow, closeSlows := st.sinceSlow, st.closeSlows
	*st = *to
	st.sinceSlow, st.closeSlows = sinceSlow, closeSlows
}

// trackingWeight is the weight of a new error in the tracking signal's
// means: about the last five frames count.
const trackingWeight = 0.2

// observeError notes a prediction error for the tracking signal.
func (st *source) observeError(e float64) {
	st.errMean += trackingWeight * (e - st.errMean)
	st.errSize += trackingWeight * (math.Abs(e) - st.errSize)
}

// drift is how surely the source's recent errors are a drift and not
// noise: the tracking signal (Trigg's: the mean error over the mean size
// of the errors) cubed. Errors that keep their sign, frame after frame, as
// while a load moves across the screen, make it near 1; noise, whose
// errors cancel, about 0.3, which cubed adds next to nothing.
func (st *source) drift() float64 {
	return trackingSignal(st.errMean, st.errSize)
}

// trackingSignal is Trigg's signal of an exponential mean of changes over
// the mean of their sizes, cubed (see drift).
func trackingSignal(mean, size float64) float64 {
	if size <= 0 {
		return 0
	}
	return math.Pow(math.Abs(mean)/size, 3)
}

// observeWork notes the relative change of the source's work this frame.
func (st *source) observeWork(change float64) {
	st.workMean += trackingWeight * (change - st.workMean)
	st.workSize += trackingWeight * (math.Abs(change) - st.workSize)
}

// trend is the relative change of work per frame that the source's
// region is taken to go on with: the mean change, where it exceeds the
// noise, as far as the tracking signal is sure it is a drift. A scene
// whose load moves changes its regions' work the same way frame after
// frame; noise and a speed that oscillates do not.
func (st *source) trend(noise float64) float64 {
	if math.Abs(st.workMean) <= noise {
		return 0
	}
	return trackingSignal(st.workMean, st.workSize) * st.workMean
}

// overshoot is how surely the policy overshoots under a split-tree node:
// of the node's sources whose errors leave the noise band, the largest
// share of errors that cancel (1 less the tracking signal's size). Large
// errors that alternate in sign are the policy's own moves going too far
// and back, as where a concentrated load sits on a split: the model
// spreads a region's work more evenly where it changed (flatten,
// flattenToward), takes the dense edge for the region's mean and moves
// the split too far. Such a node then moves as little as half way, as
// Equalizer's damping does: a held-out 3-source config's moving hotspot,
// which swung a split back and forth, had p99 14% above Equalizer's, and
// 7% with this (2% since moved work is put next to the edge it crossed).
func (a *Adaptive) overshoot(n *node) float64 {
	if n.child == nil {
		return math.Max(a.overshoot(n.left), a.overshoot(n.right))
	}
	st := a.source(n.child.Path)
	if st.errSize <= 3*math.Max(a.noise, 0.01) {
		return 0
	}
	return 1 - math.Abs(st.errMean)/st.errSize
}

// NewAdaptive returns the policy with the defaults from the study.
func NewAdaptive() *Adaptive {
	return &Adaptive{Threshold: 0.1, CorrectEvery: 8, MinCorrection: 0.005, Neighbour: true, StableFrames: 10, Period: 1,
		sources: map[string]*source{}, lastDens: map[string][2]float64{}, lastReg: map[string]region{}, hiccups: 0.5}
}

// coldPlans is how many plans after the first samples are Equalizer's.
// The model then knows one uniform density per region, no noise (regions
// that move every frame give no second differences) and no shape, and its
// full moves on that overshot a concentrated load: in 330 simulated runs
// the adaptive policy's p99 was above Equalizer's in 39, 37 of them only
// by frames 2-5, up to 9%. Equalizer's damped moves are the better guess
// until the shape has been measured through a few distributions; with 4
// such plans, and the model's first move half way, no p99 is above
// Equalizer's (with 2, 3, 5 or 6: in 18, 9, 2 and 3 runs).
const coldPlans = 4

// minSpeedRatio is the slowest, relative to the fastest source, the model
// takes a source's speed to be: a slower seeming speed may not be one.
// Two pipes of one process share a software rasterizer, which serves one
// of them first by chance, and the other's time is then both ones' work
// however small its region. Slow samples count at once and
// fast ones only once they last, so without a floor such a source's speed
// fell with every slow sample and its region with it, to 0.1% of the
// screen on live runs, its node left with too little of the frame and the
// other node with too much. (Sources really differ up to 4x: the
// heterogeneous scenario.) What the floor keeps a source's speed from
// taking goes to the model's work under its region instead: a source that
// is slower than the floor (a competing load on a source the model had
// come to take for slow, its speeds having drifted apart over hiccups and
// load changes) otherwise kept the region the floor's speed balances,
// every frame's slow-down clamped back to the floor without effect: on
// simulated runs with a load switched every 10 to 30 frames and hiccups,
// frames 45% longer than Equalizer's for the rest of the run.
const minSpeedRatio = 1.0 / 4

// settleFrames is how long after a move follow-up corrections may be small:
// long enough for the statistics of the new distribution to arrive with a
// latency of a frame or two.
const settleFrames = 4

// oscillationFrames is how soon after a speed-up was trusted a slow-down
// shows that the source oscillates (and doubles its hold). A speed-up still
// held that a slow-down ends is no sign: a load switched faster than the
// hold stays at its slow share anyway, as none of its speed-ups lasts the
// hold; and live, under a hog, a node's two pipes have runs of two or three
// quick frames between slow ones (one pipe served alone first, the hog
// descheduled). Counted as signs, those runs doubled the hogged pipes'
// holds to 16 and 32 frames within a phase of the hog every 2 s, longer
// than the phase without it, and the node's speed-ups were then followed
// only by the in-band filter (2D synthetic, six rounds against the build
// that counted them: p99 0.891 +- 0.034 of its, lower in all six, mean
// 0.998 +- 0.019). Nor does "soon" grow with the hold: as twice the hold, a
// hold of 16 doubled again at any slow-down within 32 frames of a speed-up
// and one of 32 stayed so at any within 64, the hogged pipes of the live
// runs kept holds of 16 and 32 frames, and their node got its share back
// 0.6-0.8 s after the hog went off (Equalizer's in 0.2-0.4 s); with this,
// about 0.2 s after Equalizer's, and the 2D synthetic runs' mean frame 1.4%
// shorter (docs/equalizers.md, "The first frames after a switch").
const oscillationFrames = 2 * minHold

const (
	minHold, maxHold = 4, 32
	// noiseGain and minNoiseGain bound the weight of a change within the
	// noise band
	noiseGain, minNoiseGain = 0.3, 0.15
	// noiseWindow is how many recent changes the noise is the median of:
	// a median, because a source that oscillates changes a few samples a
	// lot, and noise changes all a little
	noiseWindow = 64
)

func (a *Adaptive) source(path string) *source {
	key := a.modelKey(path)
	st := a.sources[key]
	if st == nil {
		st = &source{speed: 1, hold: minHold, sinceUp: -1, upFor: -1, lastUp: -1, sinceSlow: -1, sharers: 1}
		a.sources[key] = st
	}
	return st
}

// modelKey is what the model knows a child as: itself, or the renderer it
// shares with others (see learnShared).
func (a *Adaptive) modelKey(path string) string {
	if r, ok := a.shared[path]; ok {
		return sharedKey(r)
	}
	return path
}

// sharedKey is what the model knows the children sharing a renderer as.
func sharedKey(renderer string) string { return "shared renderer " + renderer }

// speed is the speed the split gives a child: a shared renderer's speed
// is that of all its children together.
func (a *Adaptive) speed(path string) float64 {
	st := a.source(path)
	return st.speed / float64(max(st.sharers, 1))
}

// filter turns this frame's samples into the load model the split uses: a
// raster of work density over the compound (seconds at unit speed per unit
// area or range) that keeps the shape earlier frames taught, and a speed
// per source. A source's first sample (and every sample of the first
// frame) measures new ground: the raster under its region is rescaled to
// match, at the source's speed. Later, a source that took a different time
// than the model predicts changed speed, or its work changed: the part of
// the change that other sources' opposite changes balance is work that
// moved, the rest is speed.
func (a *Adaptive) filter(raw *grid, samples []Sample, db bool) *grid {
	a.learnShared(samples)
	a.measureNoise(a.renderers(samples, db), db)
	if a.model == nil || a.model.db != db {
		a.model = newRaster(db)
	}
	m := a.model
	// one observation per renderer: a child, or the children that share
	// one (their time is the slowest one's, their work all of theirs)
	type member struct {
		reg        region
		work, took float64
	}
	type obs struct {
		st               *source
		members          []member
		work, pred, took float64
		predicted        bool // pred is the model's prediction
		// where predicted: took less pred, and whether that is within
		// the noise band
		change float64
		inBand bool
	}
	var all []*obs
	var drifting []*obs
	byRenderer := map[*source]*obs{}
	known := m.init
	for _, c := range raw.cells {
		st := a.source(c.path)
		o := byRenderer[st]
		if o == nil {
			o = &obs{st: st, predicted: known && st.seen}
			byRenderer[st] = o
			all = append(all, o)
		}
		reg := region{vp: c.vp, r: c.r}
		size := regionSize(reg, db)
		mb := member{reg: reg, work: m.mean(reg), took: c.density * size}
		o.members = append(o.members, mb)
		o.work += mb.work * size
		o.took = math.Max(o.took, mb.took)
		o.predicted = o.predicted && mb.work > 0 && c.density > 0
	}
	// work changes, by renderer, go into the model once all are known
	// (see below)
	type workChange struct {
		members []member
		factor  float64
		inBand  bool
	}
	var changes []workChange
	// the changes a renderer's change may be balanced by: all of them for
	// one within the noise band; for one beyond it, those beyond it and
	// the larger ones within it (see changeSum)
	var everyChange, beyondBand changeSum
	for _, o := range all {
		o.st.sharers = len(o.members)
		if o.predicted {
			o.pred = o.work / o.st.speed
			o.change, o.inBand = o.took-o.pred, a.inBand(o.took, o.pred)
			everyChange.add(o.change)
			if !o.inBand {
				beyondBand.add(o.change)
			}
		}
	}
	for _, o := range all {
		st := o.st
		unseen := *st // kept where this frame may turn out a hiccup
		unseen.probe = nil
		probe := st.probe
		st.probe = nil
		st.seen = true
		if st.sinceUp >= 0 {
			st.sinceUp++
		}
		if st.sinceSlow >= 0 {
			st.sinceSlow++
		}
		if st.upFor >= 0 {
			st.upFor++
		}
		st.calm++
		if st.calm > 8*st.hold && st.hold > minHold {
			st.hold, st.calm = st.hold/2, 0
		}
		if !o.predicted {
			st.pending = 0
			// new ground: the raster under each region takes its time, at
			// the renderer's speed; children sharing a renderer each took
			// part of the others' time, so theirs are scaled to the
			// slowest one's, which is all of their work
			sum := 0.0
			for _, mb := range o.members {
				sum += mb.took
			}
			scale := 1.0
			if sum > 0 {
				scale = o.took / sum
			}
			for _, mb := range o.members {
				if size := regionSize(mb.reg, db); size > 0 {
					m.rescale(mb.reg, mb.work, mb.took/size*st.speed*scale)
				}
			}
			continue
		}
		e, inBand := o.change, o.inBand
		balancing := everyChange
		if !inBand {
			balancing = beyondBand
			for _, q := range all {
				if q != o && q.predicted && q.inBand && math.Abs(q.change) >= minBalancing*math.Abs(e) {
					balancing.add(q.change)
				}
			}
		}
		bySpeed := o.pred + balancing.speedShare(e)*e
		speed := st.speed * o.pred / bySpeed
		workFactor := o.took / bySpeed
		confirmed := false // the slow-down under probe lasted
		if probe != nil {
			predBefore := o.work / probe.before.speed
			hiccup := o.took < predBefore || a.inBand(o.took, predBefore)
			confirmed = !hiccup && !probe.lasted
			a.hiccups += trackingWeight * (b2f(hiccup) - a.hiccups)
			if hiccup && !probe.waited && !inBand {
				st.rewind(probe.before) // undone, as if it had not been seen
				a.undone = true
				continue
			}
			if confirmed && probe.waited {
				// taken now, at the less slow of its two frames, and
				// probed once more: where hiccups are the rule, two in a
				// row are not rare (see hiccupGap), and the larger of two
				// is most often a hiccup's long tail, where a slow-down
				// that lasts is as slow in both
				speed = math.Max(speed, probe.speed)
				st.probe = &slowDown{before: probe.before, lasted: true}
			}
		}
		if !inBand && speed < st.speed*(1-1e-9) {
			if st.sinceSlow >= 0 && st.sinceSlow <= hiccupGap {
				st.closeSlows++
			} else {
				st.closeSlows = 0
			}
			isolated := !confirmed && st.closeSlows < 2 && o.took > o.pred*minHiccup
			st.sinceSlow = 0
			if isolated && a.hiccups > 0.5 {
				st.rewind(&unseen)
				st.probe = &slowDown{before: &unseen, waited: true, speed: speed}
				continue
			}
			if isolated {
				st.probe = &slowDown{before: &unseen}
			}
		}
		st.observeError(o.took/o.pred - 1)
		st.observeWork(workFactor - 1)
		if st.trend(a.noise) != 0 {
			drifting = append(drifting, o)
		}
		switch {
		case inBand:
			// noise: follow slowly. A speed-up that lasted half the hold
			// and then did not is a sign of oscillation at the hold's
			// scale, and keeps the hold from halving; a run of one or two
			// quick frames, as a hogged node's pipes have, is not (see
			// TestShortQuickRunsDoNotKeepALongHold)
			if 2*st.pending >= st.hold {
				st.calm = 0
			}
			st.pending = 0
			st.speed += a.inBandGain() * (speed - st.speed)
		case speed < st.speed*(1-1e-9):
			if st.upFor >= 0 {
				st.lastUp = st.upFor
			}
			st.upFor = -1
			if st.sinceUp >= 0 && st.sinceUp <= oscillationFrames {
				// slower again soon after getting faster: it oscillates
				st.hold, st.calm = min(2*st.hold, maxHold), 0
			}
			st.pending, st.speed = 0, speed
		case speed > st.speed*(1+1e-9):
			if st.upFor < 0 {
				st.upFor = 0
			}
			st.pending++
			if st.pending >= st.hold {
				st.speed, st.pending, st.sinceUp = speed, 0, 0
			} else if a.hiccups > 0.5 && st.lastUp > longUp {
				// followed half way while it is held (see longUp)
				st.speed += 0.5 * (speed - st.speed)
			}
		}
		// Work is followed at the noise's gain, or as fast as the
		// tracking signal is sure of a drift (at the noise's gain alone,
		// a load moving slowly across the screen was followed frames
		// late). So it is beyond the band too, once the band is measured:
		// live, a pipe served first on its node's cores takes half its
		// time while another takes half again, and such one-frame changes
		// balance one another. Taken for moved work at once, they moved
		// the split, which stayed where they put it until the filter
		// brought it back: the render nodes' share wandered further from
		// its mean than under Equalizer's policy, and for longer (see
		// TestOneFrameSwingsDoNotMoveTheSplit).
		if inBand || a.noiseMeasured() {
			workFactor = 1 + math.Max(a.inBandGain(), st.drift())*(workFactor-1)
		}
		if workFactor != 1 {
			changes = append(changes, workChange{o.members, workFactor, inBand})
		}
	}
	var lost []region // the regions whose work fell beyond the noise band
	for _, c := range changes {
		if c.factor < 1 && !c.inBand {
			for _, mb := range c.members {
				lost = append(lost, mb.reg)
			}
		}
	}
	for _, c := range changes {
		for _, mb := range c.members {
			m.rescale(mb.reg, mb.work, mb.work*c.factor)
			if c.inBand {
				continue
			}
			// the shape learnt inside the region is trusted only as far
			// as its work stayed: work that moved in the scene took its
			// shape along; work that came in came across the edges the
			// region shares with regions that lost work, and lies next
			// to them (see flattenToward)
			phi := math.Min(1, 3*math.Abs(c.factor-1))
			var entered []region
			if c.factor > 1 {
				entered = sharedEdges(mb.reg, lost, db)
			}
			if len(entered) > 0 {
				m.flattenToward(mb.reg, phi, entered)
			} else {
				m.flatten(mb.reg, phi)
			}
		}
	}
	if len(all) > 1 {
		// see minSpeedRatio
		fastest := 0.0
		for _, o := range all {
			fastest = math.Max(fastest, o.st.speed/float64(o.st.sharers))
		}
		for _, o := range all {
			floor := minSpeedRatio * fastest * float64(o.st.sharers)
			if o.st.speed >= floor {
				continue
			}
			if o.predicted && m.init {
				// what the floor keeps the speed from taking is work, so
				// that the model still predicts the time it measured
				for _, mb := range o.members {
					avg := m.mean(mb.reg)
					m.rescale(mb.reg, avg, avg*floor/o.st.speed)
				}
			}
			o.st.speed = floor
		}
	}
	if !m.init {
		return raw // nothing measured yet: the even split
	}
	if len(drifting) == 0 || a.lag <= 0 {
		return m.grid()
	}
	// The plan is drawn lag frames after the statistics: work that keeps
	// moving is planned where it will be by then, half way (the trend is
	// an average over frames that lags a turning load, and a full
	// extrapolation overshot where a hotspot sits on a split). The model
	// keeps what was measured; only the plan looks ahead.
	ahead := m.clone()
	for _, o := range drifting {
		factor := 1 + 0.5*float64(a.lag)*o.st.trend(a.noise)
		factor = math.Min(maxTrend, math.Max(1/maxTrend, factor))
		for _, mb := range o.members {
			avg := ahead.mean(mb.reg)
			ahead.rescale(mb.reg, avg, avg*factor)
		}
	}
	return ahead.grid()
}

// maxTrend bounds the change a trend may predict for a region.
const maxTrend = 1.5

// ObserveLag records how many frames old the statistics are when the plan
// they feed is drawn: with latency, a frame's statistics arrive frames
// after it was planned.
func (a *Adaptive) ObserveLag(frames int) { a.lag = frames }

// learnShared notes the children that share a renderer with others of
// the compound and take turns on it: two pipes of a node on its software
// rasterizer, which llvmpipe shares between contexts, or two on one GPU.
// Served one after the other, together they take the sum of their work,
// and the one served first takes only its own: which one that is changes
// by chance from frame to frame, so the other takes the others' time
// however small its region. The model then gives them one speed, learnt
// from the slowest one's time against all their work, and splits it
// between them. Whether they take turns is read from their times (see
// turnEvidence): where each one's time holds all of their work, each is
// its own source from then on, as Equalizer's policy takes them.
func (a *Adaptive) learnShared(samples []Sample) {
	// a renderer's children in this frame, which one was the quickest,
	// and the quickest and slowest times
	type frame struct {
		paths             []string
		quickest          string
		shortest, longest float64
	}
	byRenderer := map[string]*frame{}
	var names []string
	for _, s := range samples {
		if s.Renderer == "" {
			continue
		}
		f := byRenderer[s.Renderer]
		if f == nil {
			f = &frame{shortest: math.Inf(1)}
			byRenderer[s.Renderer] = f
			names = append(names, s.Renderer)
		}
		f.paths = append(f.paths, s.Path)
		if s.Busy < f.shortest {
			f.quickest, f.shortest = s.Path, s.Busy
		}
		f.longest = math.Max(f.longest, s.Busy)
	}
	for _, name := range names {
		f := byRenderer[name]
		if len(f.paths) < 2 {
			continue
		}
		if a.turns == nil {
			a.turns, a.shared = map[string]*turnEvidence{}, map[string]string{}
		}
		ev := a.turns[name]
		if ev == nil {
			ev = &turnEvidence{}
			a.turns[name] = ev
		}
		if ev.apart {
			continue
		}
		if f.longest > 0 && ev.observe(f.quickest, f.shortest/f.longest, len(f.paths)) {
			a.separate(name, f.paths)
			continue
		}
		for _, p := range f.paths {
			a.shared[p] = name
		}
	}
}

// separate makes each child of a renderer its own source, at its part of
// the renderer's speed, so that the plan goes on from where it was; the
// rest (hold, hiccups, tracking) was learnt from the slowest one's times,
// and is learnt again.
func (a *Adaptive) separate(renderer string, children []string) {
	key := sharedKey(renderer)
	together := a.sources[key]
	delete(a.sources, key)
	for _, p := range children {
		delete(a.shared, p)
		delete(a.sources, p)
		if together != nil {
			own := a.source(p)
			own.speed, own.seen = together.speed/float64(max(together.sharers, 1)), together.seen
		}
	}
}

// turnEvidence tells whether children sharing a renderer take turns on
// it, while they are taken to: from the quickest one's time over the
// slowest one's in each frame, by which child was the quickest. Served in
// turns, the first one's time is its own work and the last one's all of
// theirs, so the ratio is the first one's share of the work; summed over
// the children, each at its median of the recent frames it came first,
// that is 1. Where each one's time holds all of their work, it is about 1
// for each child, and the sum the number of children. Live here, each
// pipe's readback waits for llvmpipe: the sum over 32 frames was
// 1.62-1.96 at the median and 1.18-1.92 at the tenth percentile (the node
// with a competing load the lowest, its pipes' hiccups making the
// rest). Taken as one renderer there, the pair was balanced by its
// slowest time, which holds the hiccups of both: its speed-ups rarely
// lasted the hold, and the node was left underloaded (2D synthetic runs
// with a hog switched every 2 s, six rounds: frames 6.6% longer than
// Equalizer's on the mean, 2.3% with this). Once apart, children stay
// apart: whether they take turns is how their renderer serves them, which
// does not change during a run.
type turnEvidence struct {
	recent []turn // the last turnFrames frames, oldest first
	apart  bool   // the children are each their own source
}

// turn is one frame's quickest child and its time over the slowest one's.
type turn struct {
	quickest string
	ratio    float64
}

// turnFrames is how many frames are weighed.
const turnFrames = 32

// observe adds a frame of n children, and says whether they are now taken
// apart: the sum is half way from 1 (turns) to n (each one's time holds
// all their work), with every child seen the quickest.
func (ev *turnEvidence) observe(quickest string, ratio float64, n int) bool {
	ev.recent = append(ev.recent, turn{quickest, ratio})
	if len(ev.recent) > turnFrames {
		ev.recent = ev.recent[1:]
	}
	if len(ev.recent) < turnFrames {
		return false
	}
	byChild := map[string][]float64{}
	var children []string // in the order first seen, for a sum that does not depend on the map's
	for _, t := range ev.recent {
		if byChild[t.quickest] == nil {
			children = append(children, t.quickest)
		}
		byChild[t.quickest] = append(byChild[t.quickest], t.ratio)
	}
	if len(children) < n {
		return false
	}
	sum := 0.0
	for _, c := range children {
		sum += median(byChild[c])
	}
	ev.apart = sum > float64(n+1)/2
	return ev.apart
}

// renderers turns the samples of children that share a renderer into one
// sample of them all, for the noise: the slowest one's time over all
// their regions, on the first one's region. Which of them waits for the
// others changes from frame to frame, and that is not timer noise.
func (a *Adaptive) renderers(samples []Sample, db bool) []Sample {
	if len(a.shared) == 0 {
		return samples
	}
	type shared struct {
		at                int
		busy, size, total float64
	}
	var out []Sample
	groups := map[string]*shared{}
	var order []*shared
	for _, s := range samples {
		key := a.modelKey(s.Path)
		if key == s.Path {
			out = append(out, s)
			continue
		}
		size := regionSize(region{vp: s.Viewport, r: s.Range}, db)
		g := groups[key]
		if g == nil {
			g = &shared{at: len(out), size: size}
			groups[key] = g
			order = append(order, g)
			s.Path = key
			out = append(out, s)
		}
		g.busy, g.total = math.Max(g.busy, s.Busy), g.total+size
	}
	for _, g := range order {
		if g.total > 0 {
			out[g.at].Busy = g.busy * g.size / g.total
		}
	}
	return out
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

func (m *raster) clone() *raster {
	c := *m
	c.d = slices.Clone(m.d)
	return &c
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

// flatten moves reg's cells toward their mean by phi, keeping the mean.
func (m *raster) flatten(reg region, phi float64) {
	avg := m.mean(reg)
	m.coverage(reg, func(k int, f float64) { m.d[k] += phi * f * (avg - m.d[k]) })
}

// flattenToward is flatten toward a distribution of the same mean that is
// densest next to edges, its weight falling off as exp(-distance /
// edgeReach). Work that moved into a region came across one of its edges:
// flattened evenly over the region, it was taken to lie too far from the
// split, and the next move went too far the other way (a hotspot
// crossing the split between two of three sources at 1024x768: p99 7%
// above Equalizer's over 20 seeds, with this 1%).
func (m *raster) flattenToward(reg region, phi float64, edges []region) {
	avg := m.mean(reg)
	var weights []float64
	sumW, sumF := 0.0, 0.0
	m.coverage(reg, func(k int, f float64) {
		d := math.Inf(1)
		for _, e := range edges {
			d = math.Min(d, edgeDistance(m.cellRegion(k), e, m.db))
		}
		w := math.Exp(-d / edgeReach)
		weights = append(weights, w)
		sumW += w * f
		sumF += f
	})
	if sumW <= 0 {
		return
	}
	i := 0
	m.coverage(reg, func(k int, f float64) {
		target := avg * weights[i] * sumF / sumW
		m.d[k] += phi * f * (target - m.d[k])
		i++
	})
}

// edgeReach is how far, in units of the compound, the work that moved
// into a region is taken to reach from the edge it crossed. Broad, as
// the moved work's shape is not known: on the generated and held-out
// configs (seed 0), reaches of 0.05 and 0.1 put it too close (moving
// hotspots' p99 on average 1.5-11% above Equalizer's, against 0-0.6%
// with flatten alone); 0.2, 0.3 and 0.5 kept them within 0.1%, and 0.5
// had the fewest held-out runs slower on the mean (26 of 484, against
// 29). docs/equalizers.md has the table.
const edgeReach = 0.5

// edgeDistance is the distance from the centre of cell c to edge e, a
// region of no area (a segment; in DB a point of the range).
func edgeDistance(c, e region, db bool) float64 {
	if db {
		return math.Abs((c.r.Start+c.r.End)/2 - e.r.Start)
	}
	cx, cy := c.vp.X+c.vp.W/2, c.vp.Y+c.vp.H/2
	dx := math.Max(0, math.Max(e.vp.X-cx, cx-(e.vp.X+e.vp.W)))
	dy := math.Max(0, math.Max(e.vp.Y-cy, cy-(e.vp.Y+e.vp.H)))
	return math.Hypot(dx, dy)
}

// sharedEdges are the edges reg shares with any of others: segments (2D)
// or points of the range (DB) where they touch.
func sharedEdges(reg region, others []region, db bool) []region {
	const eps = 1e-9
	var edges []region
	for _, o := range others {
		if db {
			for _, p := range []float64{reg.r.Start, reg.r.End} {
				if math.Abs(p-o.r.End) < eps || math.Abs(p-o.r.Start) < eps {
					edges = append(edges, region{r: compound.Range{Start: p, End: p}})
				}
			}
			continue
		}
		a, b := reg.vp, o.vp
		ylo, yhi := math.Max(a.Y, b.Y), math.Min(a.Y+a.H, b.Y+b.H)
		xlo, xhi := math.Max(a.X, b.X), math.Min(a.X+a.W, b.X+b.W)
		for _, x := range []float64{a.X, a.X + a.W} {
			if yhi > ylo && (math.Abs(x-b.X) < eps || math.Abs(x-(b.X+b.W)) < eps) {
				edges = append(edges, region{vp: compound.Viewport{X: x, Y: ylo, H: yhi - ylo}})
			}
		}
		for _, y := range []float64{a.Y, a.Y + a.H} {
			if xhi > xlo && (math.Abs(y-b.Y) < eps || math.Abs(y-(b.Y+b.H)) < eps) {
				edges = append(edges, region{vp: compound.Viewport{X: xlo, Y: y, W: xhi - xlo}})
			}
		}
	}
	return edges
}

func (m *raster) grid() *grid {
	g := &grid{db: m.db, n: m.n}
	cellSize := 1 / float64(m.n)
	if m.db {
		g.sat = make([]float64, m.n+1)
		for k, d := range m.d {
			g.sat[k+1] = g.sat[k] + d*cellSize
		}
		return g
	}
	w := m.n + 1
	g.sat = make([]float64, w*w)
	for j := 0; j < m.n; j++ {
		row := 0.0
		for i := 0; i < m.n; i++ {
			row += m.d[j*m.n+i] * cellSize * cellSize
			g.sat[(j+1)*w+i+1] = g.sat[j*w+i+1] + row
		}
	}
	return g
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

// measureNoise tracks how much a child's density varies over three samples
// on (nearly) the same region, less what a steady drift explains: timer
// noise and jitter, which set the noise band, the balancing period and the
// grain. The noise is the median of the last noiseWindow such changes.
func (a *Adaptive) measureNoise(samples []Sample, db bool) {
	for _, s := range samples {
		reg := region{vp: s.Viewport, r: s.Range}
		size := regionSize(reg, db)
		if size <= 0 {
			continue
		}
		d := s.Busy / size
		last := a.lastDens[s.Path]
		if prev, ok := a.lastReg[s.Path]; !ok || !sameRegion(prev, reg, db) {
			last = [2]float64{}
		}
		if last[0] > 0 && last[1] > 0 {
			// a second difference: a load that drifts steadily (work that
			// moves with the scene) cancels, noise does not; its spread is
			// sqrt(3) times that of a first difference
			a.changes = append(a.changes, math.Abs(d-2*last[0]+last[1])/last[0]/math.Sqrt(3))
			if len(a.changes) > noiseWindow {
				a.changes = a.changes[1:]
			}
		}
		a.lastReg[s.Path], a.lastDens[s.Path] = reg, [2]float64{d, last[0]}
	}
	if !a.noiseMeasured() {
		// until measured, assume noise at half the threshold: the first
		// samples then move work only on changes clearly beyond it
		a.noise = a.Threshold / 2
		return
	}
	a.noise = median(a.changes)
}

// noiseMeasured reports whether enough changes were seen to measure the
// noise: before that, the band is a guess.
func (a *Adaptive) noiseMeasured() bool { return len(a.changes) >= 8 }

// median is the middle value (the lower of the two middle ones).
func median(v []float64) float64 {
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	return sorted[(len(sorted)-1)/2]
}

// Noise is the measured relative timer noise (see measureNoise).
func (a *Adaptive) Noise() float64 { return a.noise }

// inBand reports whether a time is within three times the noise of the
// prediction, on a log scale: a source twice as fast leaves the band as
// surely as one twice as slow. (As a plain ratio a halving is 0.5 from 1
// and a doubling 1.0; with live noise of 18% the band was +-54%, and the
// end of every competing load was taken for noise.)
func (a *Adaptive) inBand(took, pred float64) bool {
	return math.Abs(math.Log(took/pred)) <= 3*math.Max(a.noise, 0.01)
}

// inBandGain is the weight a change within the noise band gets: average
// over as many frames as it takes the noise to fall under half the
// threshold, but no fewer than 0.15: live noise is not independent from
// frame to frame (processes sharing cores), and a filter slower than that
// lags the load it should follow.
func (a *Adaptive) inBandGain() float64 {
	return math.Max(minNoiseGain, math.Min(noiseGain, math.Pow(a.Threshold/2/math.Max(a.noise, 1e-9), 2)))
}

// modelNoise is the relative noise left in the filtered model.
func (a *Adaptive) modelNoise() float64 {
	g := a.inBandGain()
	return a.noise * math.Sqrt(g/(2-g))
}

// ObserveOverhead sets the balancing period from the measured planning
// and interaction overhead: interactions may cost at most 5% of the frame
// time. (Noise does not lengthen it: the noise band and the filter's
// weight already average it out, and a longer period only reacts later
// to competing load, as the live runs showed.)
func (a *Adaptive) ObserveOverhead(planSeconds, frameSeconds float64) {
	p := 1
	if frameSeconds > 0 {
		p = max(p, int(math.Ceil(planSeconds/(0.05*frameSeconds))))
	}
	a.Period = min(p, 8)
}

// ObserveGrain picks the 2D boundary when the config leaves it out. A
// boundary step moves work at the split's cost per pixel, which near a
// concentrated load is many times the mean: one step there may change a
// source's time by at most a tenth of the measured noise (noise taken as
// 1-2%), so the grain never leaves an imbalance the noise band would not.
// (A grain sized to the noise itself, from the mean cost, left steps of
// several percent next to a hotspot that no correction could remove, and
// made the policy slower than Equalizer's 1-pixel boundary on 67 of 264
// simulated runs.) busySeconds is a source's mean busy time,
// secondsPerPixel the measured mean drawing cost and span the length of a
// split edge in pixels. The largest power of two within that, at most 64.
func (a *Adaptive) ObserveGrain(busySeconds, secondsPerPixel, span float64) {
	if busySeconds <= 0 || secondsPerPixel <= 0 || span <= 0 {
		return
	}
	resolve := 0.1 * math.Min(math.Max(a.noise, 0.01), 0.02)
	b := resolve * busySeconds / (secondsPerPixel * a.peakDensity() * span)
	g := 1
	for float64(2*g) <= b && g < 64 {
		g *= 2
	}
	a.Grain = g
}

// peakDensity is the 2D model's densest cell over its mean density (1
// before anything is measured).
func (a *Adaptive) peakDensity() float64 {
	if a.model == nil || !a.model.init || a.model.db {
		return 1
	}
	sum, peak := 0.0, 0.0
	for _, d := range a.model.d {
		sum += d
		peak = math.Max(peak, d)
	}
	if sum <= 0 {
		return 1
	}
	return peak * float64(len(a.model.d)) / sum
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

// planCold returns Equalizer's plan while the model is cold (see
// coldPlans), and takes l to where that plan left it, so the model's first
// plan starts from the regions and splits in use.
func (a *Adaptive) planCold(l *Load, children []Child, samples []Sample, db bool) ([]Assignment, bool) {
	if a.equalizer == nil || db && a.MoveCost > 0 {
		// where moving costs, the model's gate prices every move
		a.equalizer = nil
		return nil, false
	}
	out := a.equalizer.Plan(children, samples)
	if a.model.init {
		a.coldLeft--
	}
	if a.coldLeft < 0 {
		a.equalizer = nil
		a.handover = !db
		return nil, false
	}
	l.DataMoved = a.equalizer.DataMoved
	clear(l.last)
	clear(l.splits)
	maps.Copy(l.last, a.equalizer.last)
	maps.Copy(l.splits, a.equalizer.splits)
	a.LastDecision = "cold: Equalizer's plan"
	return out, true
}

// gate decides whether the newly computed regions replace the current ones:
// balancing period, imbalance threshold with occasional correction, and
// the cost-benefit check.
func (a *Adaptive) gate(l *Load, active []*Child, g *grid, next map[string]region) map[string]region {
	cur := map[string]region{}
	for _, c := range active {
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip && regionSize(next[c.Path], g.db) > 0 {
			a.LastDecision = "move: new child"
			a.below, a.sincePlan = 0, 0
			return next
		}
		if prev.Skip {
			// drew nothing, and gets nothing now (a destination that only
			// assembles): no new child, or the policy moved every frame
			cur[c.Path] = region{}
			continue
		}
		cur[c.Path] = region{vp: prev.Viewport, r: prev.Range}
	}
	// a child that drew last time and is out now (its node lost, its pipe
	// not set up, an eye it does not draw): kept, the others' regions
	// would leave its region undrawn, which live showed as a black part
	// of two frames that no one called degraded
	for path, prev := range l.last {
		if _, in := cur[path]; !in && !prev.Skip {
			a.LastDecision = "move: a child left"
			a.below, a.sincePlan = 0, 0
			return next
		}
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
	undone := a.undone
	a.undone = false
	threshold, settlingMove := a.Threshold, false
	if !g.db || a.MoveCost == 0 {
		// moving work costs nothing measurable (2D, or no data to load):
		// the threshold only has to keep noise from moving it, and a
		// scene whose load moves is followed every frame
		threshold = math.Max(2*a.MinCorrection, 3*a.modelNoise())
	}
	if a.settling > 0 {
		// right after a move the measurements test its prediction: what is
		// left over is model error, not noise, so follow-ups need less
		a.settling--
		threshold = math.Max(2*a.MinCorrection, 3*a.modelNoise())
		settlingMove = saving < a.Threshold
	}
	switch {
	case a.handover:
		// the model's first plan continues Equalizer's approach (see
		// coldPlans): the noise is not measured yet, regions having moved
		// every frame, and its prior held splits Equalizer was still
		// moving, which lost the first frames of a moving hotspot
	case saving >= threshold:
	case a.finish.overlapping && saving > 0:
		// frames overlap and moving is free: any plan that has the
		// renderers finish sooner pays (see finishes)
	case a.finish.overlapping && a.hiccups <= 0.5 && a.catchingUp(active) && l.aimed(g, active, next) < l.aimed(g, active, cur):
		// a renderer starts late beyond catchUpSlack, and the plan takes
		// back only part of it (catchUp), so the saving above, which
		// counts all of it, prefers the split that takes back none: one
		// that a moving load has left behind. Such keeps put the p99 of a
		// hotspot circling eight sources 4.7% above Equalizer's on average
		// over 20 seeds (frames a third longer than the mean right after
		// each). Judged by the shares the plans aim at, the newer one is
		// taken: 3.1%. Not where hiccups are the rule: there a renderer is
		// late after a hiccup, gone by the next frame, and following those
		// lost on the mean.
	case undone && saving > 0:
		// a hiccup's move taken back: the threshold keeps noise from
		// moving the regions, and what moved them was no more than noise
	case a.below+1 >= a.CorrectEvery && saving >= math.Max(a.MinCorrection, 2*a.modelNoise()):
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
	a.below, a.sincePlan, a.handover = 0, 0, false
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
	clear(l.splits)
	maps.Copy(l.splits, a.keptSplits)
	return cur
}

// predicted is the frame time the model predicts for regions: when the
// slowest child finishes its work, at its speed and usage, from when its
// renderer starts the frame (with frames overlapping, see finishes).
func (l *Load) predicted(g *grid, active []*Child, regs map[string]region) float64 {
	worst := 0.0
	for _, c := range active {
		t := g.load(regs[c.Path])/l.weight(c) + l.Adaptive.startOf(c.Path)
		worst = math.Max(worst, t)
	}
	return worst
}

// aimed is the longest time a child's work takes in regs at the share
// catching up aims to give it: the same for every child where regs are
// what the plan aims at.
func (l *Load) aimed(g *grid, active []*Child, regs map[string]region) float64 {
	worst := 0.0
	for _, c := range active {
		worst = math.Max(worst, g.load(regs[c.Path])/(l.weight(c)*l.Adaptive.catchUp(c.Path)))
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
//
// A destination among the children gets its tree target, which its
// assembly comes off (none under the assemble-only limit: it gets no
// range), and the others' targets are scaled to the whole range; without
// one, each child's target is its share of the whole.
func (l *Load) neighbourDB(tree *node, active []*Child, g *grid, out map[string]region) {
	type dom struct {
		c     *Child
		start float64
	}
	targets := map[string]float64{}
	tree.eachLeaf(func(n *node) { targets[n.child.Path] = n.target })
	destination := slices.ContainsFunc(active, func(c *Child) bool { return c.Destination })
	var doms []dom
	for _, c := range active {
		if destination && targets[c.Path] <= 0 && tree.target > 0 {
			continue // only assembles
		}
		prev, ok := l.last[c.Path]
		if !ok || prev.Skip {
			l.split(tree, region{r: compound.FullRange}, compound.Viewport{}, g, out)
			return
		}
		doms = append(doms, dom{c, prev.Range.Start})
	}
	n := len(doms)
	sort.SliceStable(doms, func(i, j int) bool { return doms[i].start < doms[j].start })
	total, usage, aimed := g.load1D(0, 1), 0.0, 0.0
	for _, d := range doms {
		usage += l.share(d.c)
		aimed += targets[d.c.Path]
	}
	step := math.Max(l.Params.BoundaryDB, 1e-6)
	lo := 0.0
	for i, d := range doms {
		hi := 1.0
		if i < n-1 {
			target := total * l.share(d.c) / usage
			if destination && aimed > 0 {
				target = total * targets[d.c.Path] / aimed
			}
			hi = g.findSplit1D(lo, 1, target/math.Max(g.load1D(lo, 1), 1e-12))
			hi = math.Round(hi/step) * step
			hi = math.Min(math.Max(hi, lo+step), 1-float64(n-1-i)*step)
		}
		out[d.c.Path] = region{r: compound.Range{Start: lo, End: hi}}
		lo = hi
	}
}

// eachLeaf calls f on each leaf of the tree, left to right.
func (n *node) eachLeaf(f func(*node)) {
	if n.child != nil {
		f(n)
		return
	}
	n.left.eachLeaf(f)
	n.right.eachLeaf(f)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
