package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/goeq/goeq/internal/benchdoc"
	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/simulate"
)

// compositingResult is the sort-last compositing section of bench.json.
type compositingResult struct {
	Rows []compositingRow `json:"compositing"`
	// AutoVsBest: the frame time of the strategy the cost model picks for
	// this machine ÷ that of the fastest measured, at 4 and 8 sources.
	AutoVsBest4 float64 `json:"compositing_auto_vs_best_4"`
	AutoVsBest8 float64 `json:"compositing_auto_vs_best_8"`
	// Rates are the cost model's, calibrated in this run.
	Rates   compositing.Rates `json:"compositing_rates"`
	Repeats int               `json:"compositing_repeats"`
}

type compositingRow struct {
	Sources  int    `json:"sources"`
	Strategy string `json:"strategy"`
	// FrameMS: measured, the median of the repeats, with their range.
	FrameMS    float64 `json:"frame_ms"`
	FrameMSMin float64 `json:"frame_ms_min"`
	FrameMSMax float64 `json:"frame_ms_max"`
	// ModelMS: the cost model's frame time for this machine (all sources
	// sharing its cores), given the measured draw time.
	ModelMS float64 `json:"model_ms"`
}

type runTimes struct {
	frameMS    float64
	readbackMS float64 // mean over the sources
	assembleMS float64 // the destination's
	drawMS     float64 // the slowest source's
}

// compositingRun renders the generated sort-last config of n sources, one
// per node, at 1920x1080 with the mesh, composited one way.
func compositingRun(eqserver, cfg string, strategy compositing.Strategy) (runTimes, error) {
	cmd := exec.Command(eqserver, "run", "--local", "--json", "--frames", "40", "--renderer", "mesh", "--triangles", "100000",
		"--compositing", strings.ToLower(strategy.String()), cfg)
	cmd.Env = append(os.Environ(), "GOEQ_WINSYS=egl", "LP_NUM_THREADS=1", "DISPLAY=")
	out, err := cmd.Output()
	if err != nil {
		return runTimes{}, fmt.Errorf("eqserver run --compositing %s: %v", strategy, err)
	}
	var sum struct {
		FPS      float64 `json:"fps"`
		Channels []struct {
			Channel  string  `json:"channel"`
			Draw     float64 `json:"draw_ms"`
			Readback float64 `json:"readback_ms"`
			Assemble float64 `json:"assemble_ms"`
		} `json:"channels"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		return runTimes{}, err
	}
	if sum.FPS <= 0 {
		return runTimes{}, fmt.Errorf("eqserver run --compositing %s: no frames timed", strategy)
	}
	rt := runTimes{frameMS: 1000 / sum.FPS}
	sources := 0
	for _, c := range sum.Channels {
		if c.Channel == "dest" {
			rt.assembleMS = c.Assemble
		} else {
			rt.readbackMS += c.Readback
			rt.drawMS = max(rt.drawMS, c.Draw)
			sources++
		}
	}
	if sources > 0 {
		rt.readbackMS /= float64(sources)
	}
	return rt, nil
}

// compositingBench measures every strategy at 4 and 8 sources, repeats
// interleaved so that the machine's drift touches all alike, calibrates the
// cost model's readback and merge rates from the gathered runs and its link
// from the transport measured in this run, and models what does not fit
// the machine.
func compositingBench(eqserver string, repeats int, linkGBps float64) (*compositingResult, error) {
	dir, err := os.MkdirTemp("", "goeq-compositing")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	const w, h = 1920, 1080
	px := float64(w * h)
	res := &compositingResult{Rates: compositing.DefaultRates, Repeats: repeats}
	measured := map[int]map[compositing.Strategy][]runTimes{}
	for _, n := range []int{4, 8} {
		cfg := filepath.Join(dir, fmt.Sprintf("db-%d.eqc", n))
		if err := os.WriteFile(cfg, []byte(simulate.Generated{Mode: compound.SplitDB, Sources: n, W: w, H: h, PipesPerNode: 1}.EQC()), 0o644); err != nil {
			return nil, err
		}
		measured[n] = map[compositing.Strategy][]runTimes{}
		for r := 0; r < repeats; r++ {
			for _, s := range compositing.Candidates {
				rt, err := compositingRun(eqserver, cfg, s)
				if err != nil {
					return nil, err
				}
				measured[n][s] = append(measured[n][s], rt)
			}
		}
	}
	// calibration: a gathering source reads back its whole frame, the
	// destination merges n of them
	if g := measured[4][compositing.Gather]; len(g) > 0 {
		rb := median(g, func(r runTimes) float64 { return r.readbackMS })
		as := median(g, func(r runTimes) float64 { return r.assembleMS })
		if rb > 0 && as > 0 {
			res.Rates.ReadbackPixels = px / (rb / 1000)
			res.Rates.MergePixels = 4 * px / (as / 1000)
		}
	}
	local := res.Rates
	local.Cores = float64(runtime.NumCPU())
	if linkGBps > 0 {
		local.LinkBytes = linkGBps * 1e9
	}
	for _, n := range []int{4, 8} {
		// the planner gives the model the sources' draw time and whether
		// frames overlap (latency 1 here)
		var all []runTimes
		for _, s := range compositing.Candidates {
			all = append(all, measured[n][s]...)
		}
		shape := compositing.Shape{Sources: n, Pixels: px, Draw: median(all, func(r runTimes) float64 { return r.drawMS }) / 1000, Pipelined: true}
		best := 0.0
		for _, s := range compositing.Candidates {
			runs := measured[n][s]
			row := compositingRow{Sources: n, Strategy: s.String(), FrameMS: median(runs, func(r runTimes) float64 { return r.frameMS }),
				ModelMS: 1000 * local.Time(s, shape)}
			row.FrameMSMin = slices.Min(frameTimes(runs))
			row.FrameMSMax = slices.Max(frameTimes(runs))
			res.Rows = append(res.Rows, row)
			if best == 0 || row.FrameMS < best {
				best = row.FrameMS
			}
		}
		// strategies with the same rounds (radix-k and direct send up to
		// 4 sources) are one computation: their runs count together
		pick := local.Choose(shape)
		var same []runTimes
		for _, s := range compositing.Candidates {
			if slices.Equal(s.Rounds(n), pick.Rounds(n)) {
				same = append(same, measured[n][s]...)
			}
		}
		picked := median(same, func(r runTimes) float64 { return r.frameMS })
		if n == 4 {
			res.AutoVsBest4 = picked / best
		} else {
			res.AutoVsBest8 = picked / best
		}
	}
	return res, nil
}

func frameTimes(runs []runTimes) []float64 {
	var out []float64
	for _, r := range runs {
		out = append(out, r.frameMS)
	}
	return out
}

func median(runs []runTimes, f func(runTimes) float64) float64 {
	var v []float64
	for _, r := range runs {
		v = append(v, f(r))
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

var compositingSection = benchdoc.Marks("bench-compositing", "make bench")

// writeCompositing writes the measured table, the model's picks, and the
// modelled cluster of one node per source at 4, 8, 16 and 64 sources.
func writeCompositing(path string, r *compositingResult, machine string) error {
	var b strings.Builder
	b.WriteString("## Sort-last compositing strategies\n\n")
	fmt.Fprintf(&b, "Command: `make bench` (goeq-bench). Machine: %s. Generated DB configs (`simulate.Generated`), one source per node, "+
		"1920x1080, the mesh renderer (100k triangles), 40 frames a run, `--compositing` set for each; every strategy run in turn, %d times "+
		"(medians, range in brackets). All sources share this machine's cores.\n\n", machine, r.Repeats)
	b.WriteString("| sources | strategy | frame ms (measured) | model ms (this machine, the measured draw time given) |\n|---|---|---|---|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %d | %s | %.1f (%.1f–%.1f) | %.1f |\n", row.Sources, row.Strategy, row.FrameMS, row.FrameMSMin, row.FrameMSMax, row.ModelMS)
	}
	fmt.Fprintf(&b, "\nThe strategy the cost model picks for this machine, against the fastest measured: compositing_auto_vs_best_4 **%.2f**, compositing_auto_vs_best_8 **%.2f** (1.00: it picked the fastest).\n\n",
		r.AutoVsBest4, r.AutoVsBest8)
	rt := r.Rates
	fmt.Fprintf(&b, "Calibrated rates: readback %.0f Mpx/s and merge %.0f Mpx/s (from the gathered 4-source runs: the sources' readback and the destination's assembly), "+
		"upload %.0f Mpx/s (llvmpipe, `BenchmarkCompositeDepthMergeGPU1080p`), %.1f / %.1f bytes a pixel with / without depth, %.1f ms a message, %.1f ms a round.\n\n",
		rt.ReadbackPixels/1e6, rt.MergePixels/1e6, rt.UploadPixels/1e6, rt.DepthBytes, rt.ColorBytes, 1000*rt.PerMessage, 1000*rt.PerRound)
	b.WriteString("Modelled, one node per source and a destination of its own (what does not fit this machine), same rates: milliseconds from the last draw to the finished image (with latency 1, a draw as long as a gather's merge hides that merge behind the next frame), the model's pick in bold. Direct send sends each source's band in n-1 messages, binary swap in log2 n rounds; where the messages add up (64 sources) binary swap and radix-k overtake direct send. The model takes the simplest strategy within 5% of the fastest whose work, all nodes' together, is within 5% of the least of those:\n\n")
	b.WriteString("| link | image | sources | GATHER | DIRECT_SEND | BINARY_SWAP | RADIX_K |\n|---|---|---|---|---|---|---|\n")
	for _, link := range []struct {
		name  string
		bytes float64
	}{{"1 Gbit/s", 125e6}, {"10 Gbit/s", 1.25e9}} {
		for _, img := range []struct {
			name string
			px   float64
		}{{"1920x1080", 1920 * 1080}, {"3840x2160", 3840 * 2160}} {
			for _, n := range []int{4, 8, 16, 64} {
				m := rt
				m.Cores, m.LinkBytes = 0, link.bytes
				sh := compositing.Shape{Sources: n, Pixels: img.px}
				pick := m.Choose(sh)
				fmt.Fprintf(&b, "| %s | %s | %d |", link.name, img.name, n)
				for _, s := range compositing.Candidates {
					if s == pick {
						fmt.Fprintf(&b, " **%.1f** |", 1000*m.Time(s, sh))
					} else {
						fmt.Fprintf(&b, " %.1f |", 1000*m.Time(s, sh))
					}
				}
				b.WriteString("\n")
			}
		}
	}
	return compositingSection.Write(path, b.String())
}
