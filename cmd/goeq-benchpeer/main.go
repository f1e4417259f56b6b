// Command goeq-benchpeer renders one PLY model with goeq and with ParaView,
// side by side in one run on this machine, and writes the comparison into
// docs/bench.json (vs_paraview_db, vs_paraview_2d and the peer_* keys) and
// its section of docs/benchmarks.md (make bench-peer).
//
// Both draw the same file (a procedural bumpy sphere of a million
// triangles written as binary PLY) at the same size, from the same orbiting
// camera, with Mesa's llvmpipe at the same LP_NUM_THREADS:
//   - goeq: eqply on a generated config of 1, 2 or 4 sources (a DB compound
//     for sort-last, a 2D compound for sort-first, each with its load
//     equalizer), headless through EGL;
//   - ParaView: pvbatch under mpirun with 1, 2 or 4 ranks, the cells spread
//     over the ranks by RedistributeDataSet, IceT compositing sort-last.
//     ParaView has no sort-first mode for one view (its image-space
//     decomposition drives tiled displays), so both goeq modes are compared
//     with its sort-last.
//
// Frame time is the steady state: both skip their first frames (loading,
// first draw, balancing) and time the frames after. Each configuration
// runs -repeat times, interleaved, and the median counts.
package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/benchdoc"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/procstat"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/simulate"
)

//go:embed pvrender.py
var pvScript []byte

// eqply's home camera, which the ParaView script takes too.
const (
	pitch    = 0.35
	distance = 2.2
)

// run is one renderer, mode and source count: the median and range of its
// repeats.
type run struct {
	Renderer   string    `json:"renderer"`        // goeq or paraview
	Mode       string    `json:"mode"`            // DB (sort-last) or 2D (sort-first)
	Sources    int       `json:"sources"`         // goeq's source channels, ParaView's ranks
	Cores      int       `json:"cores,omitempty"` // the cores it was pinned to (taskset); 0: all
	MSPerFrame float64   `json:"ms_per_frame"`
	Min        float64   `json:"min_ms"`
	Max        float64   `json:"max_ms"`
	Speedup    float64   `json:"speedup"`    // over 1 source, same renderer, mode and pinning
	CoresBusy  float64   `json:"cores_busy"` // of the machine's, while timing
	samples    []float64 // ms per frame of each repeat
	busy       []float64
}

type result struct {
	Machine   string     `json:"peer_machine"`
	Date      string     `json:"peer_date"`
	Model     string     `json:"peer_model"`
	Triangles int        `json:"peer_triangles"`
	Size      string     `json:"peer_size"`
	LPThreads string     `json:"peer_lp_num_threads"`
	ParaView  string     `json:"peer_paraview"`
	Frames    int        `json:"peer_frames"`
	Repeats   int        `json:"peer_repeats"`
	Runs      []run      `json:"peer_runs"`
	Coverage  [2]float64 `json:"peer_coverage"` // share of the frame the model covers: goeq, ParaView
	VsDB      float64    `json:"vs_paraview_db"`
	Vs2D      float64    `json:"vs_paraview_2d"`
	// The 1 -> 2 speedups where each source has the cores a ParaView rank
	// has, one: goeq's single source pinned to one core, against its two
	// sources on two. ParaView's are its own (a rank keeps one core busy).
	EqualCores map[string]float64 `json:"peer_speedup_1_to_2_equal_cores,omitempty"`
}

func main() {
	jsonOut := flag.String("json", "docs/bench.json", "results file (keys of other commands are kept)")
	mdOut := flag.String("md", "docs/benchmarks.md", "markdown file whose bench-peer section is replaced")
	eqply := flag.String("eqply", "bin/eqply", "the eqply binary")
	triangles := flag.Int("triangles", 1_000_000, "triangles of the model (at least)")
	width := flag.Int("width", 1920, "frame width")
	height := flag.Int("height", 1080, "frame height")
	frames := flag.Int("frames", 40, "frames timed per run")
	warmup := flag.Int("warmup", 6, "frames run before timing")
	repeat := flag.Int("repeat", 3, "runs of each configuration (the median counts)")
	sourcesFlag := flag.String("sources", "1,2,4", "source counts (goeq) and ranks (ParaView)")
	keep := flag.String("keep", "", "keep the model, configs, logs and first frames here")
	flag.Parse()

	var counts []int
	for _, f := range strings.Split(*sourcesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-sources %q: want counts like 1,2,4", *sourcesFlag))
		}
		counts = append(counts, n)
	}
	for _, tool := range []string{"pvbatch", "mpirun"} {
		if _, err := exec.LookPath(tool); err != nil {
			fail(fmt.Errorf("%s is missing: install ParaView with scripts/install-deps.sh peer", tool))
		}
	}
	if os.Getenv("DISPLAY") == "" {
		fail(errors.New("ParaView's Debian build needs an X display: run under scripts/with-display.sh"))
	}
	if _, err := os.Stat(*eqply); err != nil {
		fail(fmt.Errorf("eqply: %v (make build makes it)", err))
	}
	dir := *keep
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "goeq-benchpeer"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	lp := os.Getenv("LP_NUM_THREADS")
	if lp == "" {
		lp = "1"
	}
	b := &bench{dir: dir, eqply: *eqply, w: *width, h: *height, frames: *frames, warmup: *warmup, lp: lp}
	model, n, err := b.writeModel(*triangles)
	if err != nil {
		fail(err)
	}
	b.model = model
	res := result{Machine: benchdoc.Machine(), Date: time.Now().UTC().Format("2006-01-02"), Triangles: n,
		Model:     fmt.Sprintf("procedural bumpy sphere (render.Bumpy), %d triangles, binary PLY", n),
		Size:      fmt.Sprintf("%dx%d", *width, *height),
		LPThreads: lp, ParaView: paraviewVersion(), Frames: *frames, Repeats: *repeat}

	t := &table{}
	for r := 0; r < *repeat; r++ {
		for _, k := range counts {
			ms, busy, err := b.paraview(k, r == 0 && k == counts[0])
			if err != nil {
				fail(err)
			}
			t.add(runKey{"paraview", "DB", k, 0}, ms, busy)
			fmt.Printf("paraview %d ranks: %.1f ms/frame, %.2f cores busy\n", k, ms, busy)
			for _, mode := range []string{"DB", "2D"} {
				// unpinned, and, where there are fewer sources than
				// cores, pinned to a core per source as a rank has
				pinnings := []int{0}
				if k < runtime.NumCPU() {
					pinnings = append(pinnings, k)
				}
				for _, cores := range pinnings {
					ms, busy, err := b.goeq(mode, k, cores)
					if err != nil {
						fail(err)
					}
					t.add(runKey{"goeq", mode, k, cores}, ms, busy)
					fmt.Printf("goeq %s %d sources%s: %.1f ms/frame, %.2f cores busy\n", mode, k, pinned(cores), ms, busy)
				}
			}
		}
	}
	res.Runs, res.EqualCores = t.summary(runtime.NumCPU())
	runs := t.runs
	last := counts[len(counts)-1]
	if pv := runs[runKey{"paraview", "DB", last, 0}]; pv != nil {
		res.VsDB = runs[runKey{"goeq", "DB", last, 0}].MSPerFrame / pv.MSPerFrame
		res.Vs2D = runs[runKey{"goeq", "2D", last, 0}].MSPerFrame / pv.MSPerFrame
	}
	if res.Coverage, err = b.coverage(); err != nil {
		fail(err)
	}
	if err := benchdoc.MergeJSON(*jsonOut, res); err != nil {
		fail(err)
	}
	if err := writeMarkdown(*mdOut, &res, last); err != nil {
		fail(err)
	}
	fmt.Printf("vs_paraview_db %.2f  vs_paraview_2d %.2f (at %d sources)\n", res.VsDB, res.Vs2D, last)
}

// runKey names a run: renderer, mode, sources, and the cores it was
// pinned to (0: all).
type runKey struct {
	renderer, mode string
	sources, cores int
}

// table collects the repeats of each run, in the order first seen.
type table struct {
	runs  map[runKey]*run
	order []runKey
}

func (t *table) add(k runKey, ms, busy float64) {
	if t.runs == nil {
		t.runs = map[runKey]*run{}
	}
	r := t.runs[k]
	if r == nil {
		r = &run{Renderer: k.renderer, Mode: k.mode, Sources: k.sources, Cores: k.cores}
		t.runs[k] = r
		t.order = append(t.order, k)
	}
	r.samples, r.busy = append(r.samples, ms), append(r.busy, busy)
}

// summary sets each run's median, range and speedup, and orders them:
// ParaView first, then goeq's sort-last and sort-first, each unpinned and
// then pinned, by sources. A pinned run's speedup is over the single
// source pinned to one core. equalCores has the 1 -> 2 speedups with a
// core per source: goeq's single source on one core against its two on
// two (all of a two-core machine), and ParaView's, whose rank has one.
func (t *table) summary(ncpu int) (runs []run, equalCores map[string]float64) {
	for _, r := range t.runs {
		r.MSPerFrame, r.Min, r.Max = median(r.samples), slices.Min(r.samples), slices.Max(r.samples)
		r.CoresBusy = median(r.busy)
	}
	order := slices.Clone(t.order)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.renderer != b.renderer {
			return a.renderer == "paraview"
		}
		if a.mode != b.mode {
			return a.mode == "DB"
		}
		if (a.cores == 0) != (b.cores == 0) {
			return a.cores == 0
		}
		return a.sources < b.sources
	})
	for _, k := range order {
		r := t.runs[k]
		one := runKey{k.renderer, k.mode, 1, 0}
		if k.cores > 0 {
			one.cores = 1
		}
		if o := t.runs[one]; o != nil {
			r.Speedup = o.MSPerFrame / r.MSPerFrame
		}
		runs = append(runs, *r)
	}
	for _, mode := range []string{"DB", "2D"} {
		one := t.runs[runKey{"goeq", mode, 1, 1}]
		two := t.runs[runKey{"goeq", mode, 2, 2}]
		if two == nil && ncpu == 2 {
			two = t.runs[runKey{"goeq", mode, 2, 0}]
		}
		if one != nil && two != nil {
			if equalCores == nil {
				equalCores = map[string]float64{}
			}
			equalCores["goeq_"+strings.ToLower(mode)] = one.MSPerFrame / two.MSPerFrame
		}
	}
	pv1, pv2 := t.runs[runKey{"paraview", "DB", 1, 0}], t.runs[runKey{"paraview", "DB", 2, 0}]
	if pv1 != nil && pv2 != nil && equalCores != nil {
		equalCores["paraview"] = pv1.MSPerFrame / pv2.MSPerFrame
	}
	return runs, equalCores
}

type bench struct {
	dir, eqply, model string
	w, h              int
	frames, warmup    int
	lp                string
}

// writeModel writes the procedural model with at least n triangles.
func (b *bench) writeModel(n int) (string, int, error) {
	rings := int(math.Ceil(math.Sqrt(float64(n) / 4)))
	m := render.Bumpy(rings, 2*rings)
	m.Normalize(render.ViewRadius) // as eqply shows it, so that ParaView reads what goeq draws
	path := filepath.Join(b.dir, "model.ply")
	f, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	if err := render.WritePLY(f, m); err != nil {
		f.Close()
		return "", 0, err
	}
	return path, m.TriangleCount(), f.Close()
}

// wall is the config's frustum: Equalizer's default height and distance,
// widened to the window's aspect so that nothing is stretched.
func (b *bench) wall() string {
	hw := 0.5 * float64(b.w) / float64(b.h)
	return fmt.Sprintf("wall { bottom_left [ %g -0.5 -1 ] bottom_right [ %g -0.5 -1 ] top_left [ %g 0.5 -1 ] }", -hw, hw, -hw)
}

// fov is the wall's vertical field of view in degrees, for ParaView.
func fov() float64 { return 2 * math.Atan(0.5) * 180 / math.Pi }

// config writes the generated config for goeq.
func (b *bench) config(mode string, k int) (string, error) {
	// one source per node, as one rank per process: llvmpipe runs one
	// rasterizer (LP_NUM_THREADS threads) per EGL display, and a process
	// has two (winsys.Rasterizers), which a node's third pipe would share
	split := compound.Split2D
	if mode == "DB" {
		split = compound.SplitDB
	}
	g := simulate.Generated{Mode: split, Sources: k, W: b.w, H: b.h, PipesPerNode: 1}
	text := strings.Replace(g.EQC(), "wall {}", b.wall(), 1)
	path := filepath.Join(b.dir, g.Name())
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// goeq runs eqply on a k-source config, on the first cores of the machine
// where cores > 0 (taskset; its processes inherit it), and times the
// frames after the warm-up from its trace (a line as each frame starts).
func (b *bench) goeq(mode string, k, cores int) (ms, busy float64, err error) {
	cfg, err := b.config(mode, k)
	if err != nil {
		return 0, 0, err
	}
	name := fmt.Sprintf("goeq-%s-%d", mode, k)
	if cores > 0 {
		name += fmt.Sprintf("-on-%d-cores", cores)
	}
	trace := filepath.Join(b.dir, name+".trace")
	logPath := filepath.Join(b.dir, name+".log")
	total := b.warmup + b.frames + 1
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{b.eqply, "--config", cfg, "--model", b.model, "--frames", strconv.Itoa(total),
		"--camera-path", "orbit", "--trace", trace, "--json"}
	if cores > 0 {
		args = append([]string{"taskset", "-c", fmt.Sprintf("0-%d", cores-1)}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(withoutDisplay(), "LP_NUM_THREADS="+b.lp, "GOEQ_WINSYS=egl")
	logFile, err := os.Create(logPath)
	if err != nil {
		return 0, 0, err
	}
	defer logFile.Close()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, logFile
	os.Remove(trace)
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var t0, t1 time.Time
	var c0, c1 procstat.Machine
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return 0, 0, fmt.Errorf("eqply %s with %d sources%s: %v (log: %s)", mode, k, pinned(cores), err, logPath)
			}
			var sum struct {
				Frames   int `json:"frames"`
				Degraded int `json:"degraded_frames"`
			}
			if err := json.Unmarshal(lastLine(out.Bytes()), &sum); err != nil || sum.Frames != total || sum.Degraded > 0 {
				return 0, 0, fmt.Errorf("eqply %s with %d sources%s: summary %q", mode, k, pinned(cores), lastLine(out.Bytes()))
			}
			if t1.IsZero() {
				return 0, 0, fmt.Errorf("eqply %s with %d sources%s: the trace has fewer than %d frames", mode, k, pinned(cores), total)
			}
			return 1000 * t1.Sub(t0).Seconds() / float64(b.frames), c1.CoresSince(c0), nil
		case <-tick.C:
			if !t1.IsZero() {
				continue
			}
			n := startedFrames(trace)
			if n >= b.warmup+1 && t0.IsZero() {
				t0, c0 = time.Now(), procstat.ReadMachine()
			}
			if n >= b.warmup+1+b.frames {
				t1, c1 = time.Now(), procstat.ReadMachine()
			}
		}
	}
}

// pinned says where a run was pinned, for messages.
func pinned(cores int) string {
	if cores == 0 {
		return ""
	}
	return fmt.Sprintf(" on %d core(s)", cores)
}

// startedFrames counts the frame lines of an eqply trace (JSON objects
// with the keys camera and frame; event lines start with other keys).
func startedFrames(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte(`{"camera"`))
}

// paraview runs pvbatch on k ranks.
func (b *bench) paraview(k int, screenshot bool) (ms, busy float64, err error) {
	script := filepath.Join(b.dir, "pvrender.py")
	if err := os.WriteFile(script, pvScript, 0o644); err != nil {
		return 0, 0, err
	}
	args := []string{"--oversubscribe", "-x", "LP_NUM_THREADS", "-x", "DISPLAY", "-np", strconv.Itoa(k), "pvbatch", script,
		"model=" + b.model, fmt.Sprintf("frames=%d", b.frames), fmt.Sprintf("warmup=%d", b.warmup),
		fmt.Sprintf("width=%d", b.w), fmt.Sprintf("height=%d", b.h),
		fmt.Sprintf("pitch=%g", pitch), fmt.Sprintf("distance=%g", distance), fmt.Sprintf("fov=%g", fov())}
	if os.Geteuid() == 0 {
		args = append([]string{"--allow-run-as-root"}, args...)
	}
	if screenshot {
		args = append(args, "image="+filepath.Join(b.dir, "paraview.png"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", args...)
	cmd.Env = append(os.Environ(), "LP_NUM_THREADS="+b.lp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	logPath := filepath.Join(b.dir, fmt.Sprintf("paraview-%d.log", k))
	os.WriteFile(logPath, out.Bytes(), 0o644)
	if err != nil {
		return 0, 0, fmt.Errorf("pvbatch on %d ranks: %v (log: %s)", k, err, logPath)
	}
	var r struct {
		Ranks int     `json:"ranks"`
		MS    float64 `json:"ms_per_frame"`
		Busy  float64 `json:"cores_busy"`
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if line := sc.Bytes(); bytes.HasPrefix(line, []byte(`{"ranks"`)) {
			if err := json.Unmarshal(line, &r); err != nil {
				return 0, 0, err
			}
		}
	}
	if r.Ranks != k {
		return 0, 0, fmt.Errorf("pvbatch on %d ranks reported %d data partitions (log: %s)", k, r.Ranks, logPath)
	}
	return r.MS, r.Busy, nil
}

// coverage is the share of the first frame that is not background, for
// goeq (a one-frame run) and ParaView (its screenshot): the two draw the
// model at the same size when these agree.
func (b *bench) coverage() ([2]float64, error) {
	cfg, err := b.config("DB", 1)
	if err != nil {
		return [2]float64{}, err
	}
	out := filepath.Join(b.dir, "goeq-frame")
	cmd := exec.Command(b.eqply, "--config", cfg, "--model", b.model, "--frames", "1", "--camera-path", "orbit", "--out", out)
	cmd.Env = append(withoutDisplay(), "LP_NUM_THREADS="+b.lp, "GOEQ_WINSYS=egl")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return [2]float64{}, fmt.Errorf("eqply one frame: %v: %s", err, lastLine(msg))
	}
	var c [2]float64
	for i, path := range []string{filepath.Join(out, "dest-000000.png"), filepath.Join(b.dir, "paraview.png")} {
		if c[i], err = foreground(path); err != nil {
			return c, err
		}
	}
	return c, nil
}

// foreground is the share of an image's pixels that differ from its
// top-left corner's colour.
func foreground(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	r0, g0, b0, _ := img.At(img.Bounds().Min.X, img.Bounds().Min.Y).RGBA()
	near := func(a, b uint32) bool { return a-b+0x800 < 0x1000 } // within 8 of 255
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if !near(r, r0) || !near(g, g0) || !near(b, b0) {
				n++
			}
		}
	}
	return float64(n) / float64(area(bounds)), nil
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

func withoutDisplay() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") {
			env = append(env, kv)
		}
	}
	return env
}

func lastLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return lines[len(lines)-1]
}

func paraviewVersion() string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "paraview").Output()
	if err != nil {
		return "unknown"
	}
	return "ParaView " + string(out) + " (Debian)"
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func writeMarkdown(path string, r *result, k int) error {
	var s strings.Builder
	s.WriteString("## Side by side with ParaView/IceT\n\n")
	fmt.Fprintf(&s, "Command: `make bench-peer` (`cmd/goeq-benchpeer`, %s). Machine: %s. Model: %s; %s, LP_NUM_THREADS=%s for both; %s. ",
		r.Date, r.Machine, r.Model, r.Size, r.LPThreads, r.ParaView)
	fmt.Fprintf(&s, "Milliseconds per frame in steady state (%d frames timed after the warm-up, an orbit of the model), median of %d interleaved runs, min–max in brackets. ", r.Frames, r.Repeats)
	fmt.Fprintf(&s, "goeq: eqply on a generated config of N sources (DB or 2D compound with its load equalizer), headless through EGL; ParaView: `mpirun -np N pvbatch` with `RedistributeDataSet`, IceT compositing, under Xvfb. The model covers %.1f%% of goeq's first frame and %.1f%% of ParaView's. Cores busy: the machine's, while timing.\n\n",
		100*r.Coverage[0], 100*r.Coverage[1])
	s.WriteString("| renderer | mode | sources | pinned to | ms/frame | speedup over 1 | cores busy |\n|---|---|---|---|---|---|---|\n")
	for _, run := range r.Runs {
		mode := map[string]string{"DB": "sort-last (DB)", "2D": "sort-first (2D)"}[run.Mode]
		on := "all cores"
		if run.Cores > 0 {
			on = fmt.Sprintf("%d core(s)", run.Cores)
		}
		fmt.Fprintf(&s, "| %s | %s | %d | %s | %.0f (%.0f–%.0f) | %.2f | %.2f |\n", run.Renderer, mode, run.Sources, on, run.MSPerFrame, run.Min, run.Max, run.Speedup, run.CoresBusy)
	}
	fmt.Fprintf(&s, "\nAt %d sources: vs_paraview_db **%.2f**, vs_paraview_2d **%.2f** (goeq's frame time ÷ ParaView's sort-last; goal ≤ 0.7).\n", k, r.VsDB, r.Vs2D)
	speedup := func(renderer, mode string) float64 {
		for _, run := range r.Runs {
			if run.Renderer == renderer && run.Mode == mode && run.Sources == 2 && run.Cores == 0 {
				return run.Speedup
			}
		}
		return 0
	}
	if pv := speedup("paraview", "DB"); pv > 0 {
		fmt.Fprintf(&s, "Speedup from 1 to 2 sources: goeq %.2f (sort-last) and %.2f (sort-first), ParaView %.2f (goal: goeq's at least ParaView's).\n",
			speedup("goeq", "DB"), speedup("goeq", "2D"), pv)
	}
	if e := r.EqualCores; e["paraview"] > 0 && e["goeq_db"] > 0 && e["goeq_2d"] > 0 {
		fmt.Fprintf(&s, "The same with a core per source, as a ParaView rank has (goeq's single source pinned to one core, against its two sources on two): goeq %.2f (sort-last) and %.2f (sort-first), ParaView %.2f.\n",
			e["goeq_db"], e["goeq_2d"], e["paraview"])
	}
	return benchdoc.Marks("bench-peer", "make bench-peer").Write(path, s.String())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goeq-benchpeer:", err)
	os.Exit(1)
}
