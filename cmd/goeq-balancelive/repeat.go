package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/goeq/goeq/internal/simulate"
)

// Rounds of both policies on one schedule (-repeat): identical live runs
// here differ by up to 10% on the mean, so one run of each, as in the
// report, cannot tell a policy change of a few percent; the mean of the
// rounds' ratios can. The order of the runs alternates from round to
// round, so that a drift of the machine's speed during the rounds falls
// on all. A change to the policy is measured against its baseline build
// in the same rounds (-against): two blocks of rounds of the same build,
// run one after the other here, put the adaptive policy at 1.023 +-
// 0.005 and 1.035 +- 0.004 of Equalizer's mean, and a build against
// itself in the same rounds came out at 0.999 +- 0.010 over four.

// round is one run of each policy on a schedule, by name
// (simulate.Policies: Equalizer's, then goeq's adaptive one), and of the
// other build's adaptive policy (otherBuild) with -against.
type round map[string]*runResult

// otherBuild names the -against build's adaptive runs in a round.
const otherBuild = "adaptive, other build"

func runRounds(bin, against, work string, n int, alternate bool, out io.Writer) error {
	policies := slices.Clone(simulate.Policies)
	if against != "" {
		policies = append(policies, otherBuild)
	}
	for _, ex := range experiments {
		for _, sc := range schedules {
			var rounds []round
			for i := 0; i < n; i++ {
				order := slices.Clone(policies)
				if i%2 == 1 {
					slices.Reverse(order)
				}
				r := round{}
				for _, pol := range order {
					hog := ""
					if alternate && i%2 == 1 {
						hog = ", the hog on the first render node"
					}
					fmt.Fprintf(os.Stderr, "%s, %s, round %d of %d, %s%s ...\n", ex.Label, sc.Name, i+1, n, pol, hog)
					dir, policy := bin, pol
					if pol == otherBuild {
						dir, policy = against, "adaptive"
					}
					run, err := runOnce(dir, work, ex, sc, policy, alternate && i%2 == 1)
					if err != nil {
						return fmt.Errorf("%s, %s, %s: %w", ex.Label, sc.Name, pol, err)
					}
					r[pol] = run
				}
				rounds = append(rounds, r)
			}
			fmt.Fprint(out, roundsText(ex, sc, rounds))
		}
	}
	return nil
}

func roundsText(ex experiment, sc schedule, rounds []round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s, %s: %d rounds\n\n", ex.Label, sc.Name, len(rounds))
	means, p99s := ratioTable(&b, rounds, "equalizer", "adaptive", "equalizer", "adaptive")
	fmt.Fprintf(&b, "\nAdaptive over Equalizer's, averaged over the rounds: mean %s, p99 %s.\n\n", spread(means), spread(p99s))
	b.WriteString(settledText(sc, rounds))
	if len(rounds) > 0 && rounds[0][otherBuild] != nil {
		b.WriteString(againstText(rounds))
	}
	b.WriteString(phaseText(sc, rounds))
	b.WriteString(imbalanceText(rounds))
	b.WriteString(waitingText(rounds))
	return b.String()
}

// settledText is the yardstick for the ratios: the two policies' frame
// times where they should hold the same plan, with the load off in the
// second half of each of its phases (both back at the split the unloaded
// nodes need). What they differ by there is how much two runs of this
// machine differ, not the policies.
func settledText(sc schedule, rounds []round) string {
	half := sc.Period / 2
	if sc.Step > 0 {
		half = sc.Step / 2
	}
	var ratios []float64
	for _, r := range rounds {
		var t [2]float64
		for k, pol := range simulate.Policies {
			run, sum, n := r[pol], 0.0, 0
			for i, f := range run.Frames {
				since, ok := run.sinceSwitch(f)
				if !ok {
					break
				}
				if i > 0 && !f.Loaded && since >= half {
					sum += f.Completed - run.Frames[i-1].Completed
					n++
				}
			}
			t[k] = sum / float64(n)
		}
		if t[0] > 0 && t[1] > 0 {
			ratios = append(ratios, t[1]/t[0])
		}
	}
	if len(ratios) == 0 {
		return ""
	}
	return fmt.Sprintf("Where both policies should hold the same plan (the load off, the second half of each of its phases), adaptive over Equalizer's frame time: %s. Runs differ this much with one plan: a ratio above within it is not the policy's.\n\n", spread(ratios))
}

// ratioTable writes, round by round, the mean and p99 frame times of the
// runs named base and of in each round and their ratios (of over base),
// and returns the ratios.
func ratioTable(b *strings.Builder, rounds []round, base, of, baseLabel, ofLabel string) (means, p99s []float64) {
	fmt.Fprintf(b, "| round | %[1]s mean | %[2]s mean | ratio | %[1]s p99 | %[2]s p99 | ratio |\n|---|---|---|---|---|---|---|\n", baseLabel, ofLabel)
	for i, r := range rounds {
		x, y := measure(r[base]), measure(r[of])
		means, p99s = append(means, y.Mean/x.Mean), append(p99s, y.P99/x.P99)
		fmt.Fprintf(b, "| %d | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f |\n", i+1, x.Mean, y.Mean, y.Mean/x.Mean, x.P99, y.P99, y.P99/x.P99)
	}
	return means, p99s
}

// againstText compares this build's adaptive policy with the other
// build's (-against), round by round.
func againstText(rounds []round) string {
	var b strings.Builder
	b.WriteString("This build's adaptive policy against the other build's (-against):\n\n")
	means, p99s := ratioTable(&b, rounds, otherBuild, "adaptive", "other build's", "this build's")
	var otherMean, otherP99 []float64
	for _, r := range rounds {
		eq, other := measure(r["equalizer"]), measure(r[otherBuild])
		otherMean, otherP99 = append(otherMean, other.Mean/eq.Mean), append(otherP99, other.P99/eq.P99)
	}
	fmt.Fprintf(&b, "\nThis build's over the other build's, averaged over the rounds: mean %s, p99 %s. The other build's over Equalizer's: mean %s, p99 %s.\n\n",
		spread(means), spread(p99s), spread(otherMean), spread(otherP99))
	return b.String()
}

// spread is the mean of ratios with their standard error and range, and
// how many were over 1.
func spread(v []float64) string {
	m, lo, hi, slower := mean(v), math.Inf(1), math.Inf(-1), 0
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		if x > 1 {
			slower++
		}
	}
	se := 0.0
	if len(v) > 1 {
		se = math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
	}
	return fmt.Sprintf("%.3f ± %.3f (%.3f-%.3f; over 1 in %d of %d)", m, se, lo, hi, slower, len(v))
}

// phaseBins is how many parts the time between two switches of the load
// is cut into by phaseText.
const phaseBins = 10

// phaseText is the frame time, and the hogged node's share of the frame,
// by the time since the load last switched, over all rounds: where in a
// phase one policy loses to the other, and whether the hogged node had
// too much or too little of the frame there. With -against, the other
// build's adaptive policy has columns too.
func phaseText(sc schedule, rounds []round) string {
	interval := sc.Period
	if sc.Step > 0 {
		interval = sc.Duration - sc.Step
	}
	width := interval / phaseBins
	policies := roundPolicies(rounds)
	type bin struct{ sum, share, n [3]float64 }
	var bins [2][phaseBins + 1]bin // [loaded][part]
	for _, r := range rounds {
		for k, pol := range policies {
			run := r[pol]
			for i, f := range run.Frames {
				if i == 0 {
					continue
				}
				since, ok := run.sinceSwitch(f)
				if !ok {
					break // the frames completed while the run stopped
				}
				part := min(int(since/width), phaseBins)
				on := 0
				if f.Loaded {
					on = 1
				}
				bins[on][part].sum[k] += 1000 * (f.Completed - run.Frames[i-1].Completed)
				bins[on][part].share[k] += run.hoggedShare(f)
				bins[on][part].n[k]++
			}
		}
	}
	other := len(policies) > 2
	var b strings.Builder
	fmt.Fprintf(&b, "Frame time (ms), and the hogged node's share of the frame, by the time since the load last switched (the run's start for the first phase), all rounds:\n\n")
	header := []string{"load", "since (s)", "equalizer", "adaptive", "adaptive less equalizer"}
	if other {
		header = append(header, "other build", "adaptive less other build")
	}
	header = append(header, "hogged node's share, equalizer", "adaptive")
	if other {
		header = append(header, "other build")
	}
	header = append(header, "frames")
	fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for on, name := range []string{"off", "on"} {
		for part, bn := range bins[on] {
			if slices.Contains(bn.n[:len(policies)], 0) {
				continue
			}
			var t, share [3]float64
			for k := range policies {
				t[k], share[k] = bn.sum[k]/bn.n[k], bn.share[k]/bn.n[k]
			}
			row := []string{name, fmt.Sprintf("%.1f-%.1f", float64(part)*width, float64(part+1)*width),
				fmt.Sprintf("%.1f", t[0]), fmt.Sprintf("%.1f", t[1]), fmt.Sprintf("%+.1f", t[1]-t[0])}
			if other {
				row = append(row, fmt.Sprintf("%.1f", t[2]), fmt.Sprintf("%+.1f", t[1]-t[2]))
			}
			row = append(row, fmt.Sprintf("%.3f", share[0]), fmt.Sprintf("%.3f", share[1]))
			if other {
				row = append(row, fmt.Sprintf("%.3f", share[2]))
			}
			var frames []string
			for k := range policies {
				frames = append(frames, fmt.Sprintf("%.0f", bn.n[k]))
			}
			row = append(row, strings.Join(frames, ", "))
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// hoggedShare is the part of frame f that the hogged node's sources drew.
func (r *runResult) hoggedShare(f frame) float64 {
	hogged, all := 0.0, 0.0
	for i, share := range f.Share {
		all += share
		if i < len(r.Hogged) && r.Hogged[i] {
			hogged += share
		}
	}
	if all <= 0 {
		return 0
	}
	return hogged / all
}

// roundPolicies are the policies each round ran: Equalizer's, then the
// adaptive one, then the other build's adaptive one with -against.
func roundPolicies(rounds []round) []string {
	policies := slices.Clone(simulate.Policies)
	if len(rounds) > 0 && rounds[0][otherBuild] != nil {
		policies = append(policies, otherBuild)
	}
	return policies
}

// sinceSwitch is the time from the last switch of the load (or the run's
// start) to frame f's completion, and false for the frames completed
// while the run stopped.
func (r *runResult) sinceSwitch(f frame) (float64, bool) {
	since := f.Completed - r.Frames[0].Completed // the schedule's clock
	if since >= r.Schedule.Duration {
		return 0, false
	}
	for _, s := range r.Spans {
		for _, t := range s {
			if f.Completed >= t {
				since = f.Completed - t
			}
		}
	}
	return since, true
}

// steadyAfter is how long after a switch imbalanceText takes the load as
// steady: both policies have the hogged node's share settled by then.
const steadyAfter = 1.0

// nodeImbalance is the log of the hogged node's busy time over the
// slowest other render node's in frame f, and false where one drew
// nothing.
func (r *runResult) nodeImbalance(f frame) (float64, bool) {
	hogged, other := 0.0, 0.0
	for i, b := range f.Busy {
		if i < len(r.Hogged) && r.Hogged[i] {
			hogged = math.Max(hogged, b)
		} else {
			other = math.Max(other, b)
		}
	}
	if hogged <= 0 || other <= 0 {
		return 0, false
	}
	return math.Log(hogged / other), true
}

// imbalanceText is how the render nodes' imbalance goes from frame to
// frame while the load is steady, by policy, over all rounds: its mean,
// its spread and its correlation with the frame before; and the same for
// the hogged node's share of the frame, which the plan sets. A plan that
// follows the nodes' speeds as they change leaves an imbalance that does
// not last (a correlation near 0, or below where it overcorrects); one
// that follows them late, or moves the share for what does not last and
// keeps it there, leaves the same imbalance in the next frame too. Live
// here, the adaptive policy's imbalance was the more lasting and wider
// one while the node's mean share of the frame was the same as under
// Equalizer's, and its share wandered further about that mean and for
// longer (see docs/equalizers.md).
func imbalanceText(rounds []round) string {
	if len(rounds) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The render nodes' imbalance (the log of the hogged node's busy time over the other's) from %.0f s after a switch, all rounds: its mean, its spread about each run's own mean, and its correlation with the frame before; and the spread and correlation of the hogged node's share of the frame:\n\n", steadyAfter)
	b.WriteString("| load | policy | mean | spread | lag-1 correlation | share's spread | its lag-1 correlation | frames |\n|---|---|---|---|---|---|---|---|\n")
	for _, on := range []bool{false, true} {
		load := "off"
		if on {
			load = "on"
		}
		for _, pol := range roundPolicies(rounds) {
			imbalance := pooled(rounds, pol, func(r *runResult) ([]float64, []bool) { return r.steadySeries(on, r.nodeImbalance) })
			share := pooled(rounds, pol, func(r *runResult) ([]float64, []bool) {
				return r.steadySeries(on, func(f frame) (float64, bool) { return r.hoggedShare(f), true })
			})
			if !imbalance.ok {
				continue
			}
			shareSpread, shareLag1 := "-", "-"
			if share.ok {
				shareSpread, shareLag1 = fmt.Sprintf("%.3f", share.spread), fmt.Sprintf("%+.2f", share.lag1)
			}
			fmt.Fprintf(&b, "| %s | %s | %+.3f | %.3f | %+.2f | %s | %s | %.0f |\n", load, pol,
				imbalance.mean, imbalance.spread, imbalance.lag1, shareSpread, shareLag1, imbalance.n)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// seriesStats are a series' figures pooled over runs: its mean, its
// spread about each run's own mean, its lag-1 correlation and its length.
type seriesStats struct {
	mean, spread, lag1, n float64
	ok                    bool // enough frames, and not constant
}

// pooled pools over the rounds one policy's runs' series (values, and
// whether each value's frame follows the one before).
func pooled(rounds []round, pol string, series func(*runResult) ([]float64, []bool)) seriesStats {
	var sum, sq, prod, pairs, n float64
	for _, r := range rounds {
		x, follows := series(r[pol])
		if len(x) < 2 {
			continue
		}
		m := mean(x)
		for i, v := range x {
			sum, sq, n = sum+v, sq+(v-m)*(v-m), n+1
			if follows[i] {
				prod, pairs = prod+(v-m)*(x[i-1]-m), pairs+1
			}
		}
	}
	if n < 2 || sq <= 0 || pairs == 0 {
		return seriesStats{}
	}
	return seriesStats{mean: sum / n, spread: math.Sqrt(sq / n), lag1: (prod / pairs) / (sq / n), n: n, ok: true}
}

// steadySeries is a value of the run's frames from steadyAfter after a
// switch, with the hog on or off, each with whether the frame before is
// in the same steady phase. value sees every frame in order, steady or
// not, until the schedule ends.
func (r *runResult) steadySeries(on bool, value func(frame) (float64, bool)) (x []float64, follows []bool) {
	lastSince := math.Inf(1)
	for _, f := range r.Frames {
		since, ok := r.sinceSwitch(f)
		if !ok {
			break
		}
		v, ok := value(f)
		if !ok || f.Loaded != on || since < steadyAfter {
			lastSince = math.Inf(1)
			continue
		}
		x = append(x, v)
		follows = append(follows, since > lastSince)
		lastSince = since
	}
	return x, follows
}

// waiting is how long the hogged render node and the other ones (the
// longest of them) waited for frame f's tasks after they had finished
// the frame before, prev; false where that is not known. A frame starts
// when the one latency frames before it completes, so a node more than
// that ahead of the others waits: an imbalance that lasts costs the
// faster node's time, where one that changes sign from frame to frame
// is taken up by the frames in flight.
func (r *runResult) waiting(prev, f frame) (hogged, other float64, ok bool) {
	if f.Started <= 0 || len(prev.Done) != len(f.Busy) {
		return 0, 0, false
	}
	// a node's sources share its core: it is done with the frame when the
	// last of them is
	done := map[string]float64{}
	onHogged := map[string]bool{}
	for i, d := range prev.Done {
		if d <= 0 || prev.Node[i] == "" {
			return 0, 0, false
		}
		done[prev.Node[i]] = math.Max(done[prev.Node[i]], d)
		onHogged[prev.Node[i]] = onHogged[prev.Node[i]] || (i < len(r.Hogged) && r.Hogged[i])
	}
	for node, d := range done {
		w := math.Max(0, f.Started-d)
		if onHogged[node] {
			hogged = math.Max(hogged, w)
		} else {
			other = math.Max(other, w)
		}
	}
	return hogged, other, true
}

// waitingOf is waiting as a value of each frame for steadySeries (which
// is given the run's frames in order): the hogged node's or the others'.
func (r *runResult) waitingOf(hoggedNode bool) func(frame) (float64, bool) {
	var prev *frame
	return func(f frame) (float64, bool) {
		before := prev
		prev = &f
		if before == nil {
			return 0, false
		}
		hogged, other, ok := r.waiting(*before, f)
		if hoggedNode {
			return hogged, ok
		}
		return other, ok
	}
}

// waitingText is how long the render nodes waited for their tasks while
// the load was steady, by policy, over all rounds: in ms a frame, and in
// how many frames they waited at all.
func waitingText(rounds []round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The render nodes waiting for their next frame's tasks after finishing a frame (frames overlap by the config's latency: a node that gets further ahead of the others than that waits), from %.0f s after a switch, all rounds:\n\n", steadyAfter)
	b.WriteString("| load | policy | hogged node, ms a frame | frames it waited | other node, ms a frame | frames it waited | frames |\n|---|---|---|---|---|---|---|\n")
	rows := 0
	for _, on := range []bool{false, true} {
		load := "off"
		if on {
			load = "on"
		}
		for _, pol := range roundPolicies(rounds) {
			var hogged, other []float64
			for _, rd := range rounds {
				h, _ := rd[pol].steadySeries(on, rd[pol].waitingOf(true))
				o, _ := rd[pol].steadySeries(on, rd[pol].waitingOf(false))
				hogged, other = append(hogged, h...), append(other, o...)
			}
			if len(hogged) == 0 {
				continue
			}
			rows++
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.0f%% | %.2f | %.0f%% | %d |\n", load, pol,
				1000*mean(hogged), 100*positive(hogged), 1000*mean(other), 100*positive(other), len(hogged))
		}
	}
	if rows == 0 {
		return "" // statistics without the frames' start and done times
	}
	b.WriteString("\n")
	return b.String()
}

// positive is the fraction of v above 0.
func positive(v []float64) float64 {
	n := 0
	for _, x := range v {
		if x > 0 {
			n++
		}
	}
	return float64(n) / float64(len(v))
}
