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
// rounds' ratios can. The order of the two policies alternates from round
// to round, so that a drift of the machine's speed during the rounds
// falls on both.

// round is one run of each policy on a schedule, by name
// (simulate.Policies: Equalizer's, then goeq's adaptive one).
type round map[string]*runResult

func runRounds(bin, work string, n int, out io.Writer) error {
	for _, ex := range experiments {
		for _, sc := range schedules {
			var rounds []round
			for i := 0; i < n; i++ {
				order := slices.Clone(simulate.Policies)
				if i%2 == 1 {
					slices.Reverse(order)
				}
				r := round{}
				for _, pol := range order {
					fmt.Fprintf(os.Stderr, "%s, %s, round %d of %d, %s ...\n", ex.Label, sc.Name, i+1, n, pol)
					run, err := runOnce(bin, work, ex, sc, pol)
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
	b.WriteString("| round | equalizer mean | adaptive mean | ratio | equalizer p99 | adaptive p99 | ratio |\n|---|---|---|---|---|---|---|\n")
	var meanRatios, p99Ratios []float64
	for i, r := range rounds {
		eq, ad := measure(r["equalizer"]), measure(r["adaptive"])
		meanRatios, p99Ratios = append(meanRatios, ad.Mean/eq.Mean), append(p99Ratios, ad.P99/eq.P99)
		fmt.Fprintf(&b, "| %d | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f |\n", i+1, eq.Mean, ad.Mean, ad.Mean/eq.Mean, eq.P99, ad.P99, ad.P99/eq.P99)
	}
	fmt.Fprintf(&b, "\nAdaptive over Equalizer's, averaged over the rounds: mean %s, p99 %s.\n\n", spread(meanRatios), spread(p99Ratios))
	b.WriteString(phaseText(sc, rounds))
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

// phaseText is the frame time by the time since the load last switched,
// over all rounds: where in a phase one policy loses to the other.
func phaseText(sc schedule, rounds []round) string {
	interval := sc.Period
	if sc.Step > 0 {
		interval = sc.Duration - sc.Step
	}
	width := interval / phaseBins
	type bin struct{ sum, n [2]float64 }
	var bins [2][phaseBins + 1]bin // [loaded][part]
	for _, r := range rounds {
		for k, pol := range simulate.Policies {
			run := r[pol]
			for i, f := range run.Frames {
				if i == 0 {
					continue
				}
				since := f.Completed - run.Frames[0].Completed // the schedule's clock
				if since >= sc.Duration {
					break // the frames completed while the run stopped
				}
				for _, s := range run.Spans {
					for _, t := range s {
						if f.Completed >= t {
							since = f.Completed - t
						}
					}
				}
				part := min(int(since/width), phaseBins)
				on := 0
				if f.Loaded {
					on = 1
				}
				bins[on][part].sum[k] += 1000 * (f.Completed - run.Frames[i-1].Completed)
				bins[on][part].n[k]++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Frame time (ms) by the time since the load last switched (the run's start for the first phase), all rounds:\n\n")
	b.WriteString("| load | since (s) | equalizer | adaptive | adaptive less equalizer | frames |\n|---|---|---|---|---|---|\n")
	for on, name := range []string{"off", "on"} {
		for part, bn := range bins[on] {
			if bn.n[0] == 0 || bn.n[1] == 0 {
				continue
			}
			eq, ad := bn.sum[0]/bn.n[0], bn.sum[1]/bn.n[1]
			fmt.Fprintf(&b, "| %s | %.1f-%.1f | %.1f | %.1f | %+.1f | %.0f, %.0f |\n", name, float64(part)*width, float64(part+1)*width, eq, ad, ad-eq, bn.n[0], bn.n[1])
		}
	}
	b.WriteString("\n")
	return b.String()
}
