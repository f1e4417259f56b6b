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
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/benchdoc"
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
	Renderer   string    `json:"renderer"` // goeq or paraview
	Mode       string    `json:"mode"`     // DB (sort-last) or 2D (sort-first)
	Sources    int       `json:"sources"`  // goeq's source channels, ParaView's ranks
	MSPerFrame float64   `json:"ms_per_frame"`
	Min        float64   `json:"min_ms"`
	Max        float64   `json:"max_ms"`
	Speedup    float64   `json:"speedup"`    // over 1 source, same renderer and mode
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

	runs := map[string]*run{}
	var order []string
	get := func(renderer, mode string, k int) *run {
		key := fmt.Sprintf("%s %s %d", renderer, mode, k)
		if runs[key] == nil {
			runs[key] = &run{Renderer: renderer, Mode: mode, Sources: k}
			order = append(order, key)
		}
		return runs[key]
	}
	for r := 0; r < *repeat; r++ {
		for _, k := range counts {
			ms, busy, err := b.paraview(k, r == 0 && k == counts[0])
			if err != nil {
				fail(err)
			}
			pv := get("paraview", "DB", k)
			pv.samples, pv.busy = append(pv.samples, ms), append(pv.busy, busy)
			fmt.Printf("paraview %d ranks: %.1f ms/frame, %.2f cores busy\n", k, ms, busy)
			for _, mode := range []string{"DB", "2D"} {
				ms, busy, err := b.goeq(mode, k)
				if err != nil {
					fail(err)
				}
				g := get("goeq", mode, k)
				g.samples, g.busy = append(g.samples, ms), append(g.busy, busy)
				fmt.Printf("goeq %s %d sources: %.1f ms/frame, %.2f cores busy\n", mode, k, ms, busy)
			}
		}
	}
	for _, key := range order {
		r := runs[key]
		r.MSPerFrame, r.Min, r.Max = median(r.samples), slices.Min(r.samples), slices.Max(r.samples)
		r.CoresBusy = median(r.busy)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := runs[order[i]], runs[order[j]]
		if a.Renderer != b.Renderer {
			return a.Renderer == "paraview"
		}
		if a.Mode != b.Mode {
			return a.Mode == "DB"
		}
		return a.Sources < b.Sources
	})
	for _, key := range order {
		r := runs[key]
		if one := runs[fmt.Sprintf("%s %s %d", r.Renderer, r.Mode, 1)]; one != nil {
			r.Speedup = one.MSPerFrame / r.MSPerFrame
		}
		res.Runs = append(res.Runs, *r)
	}
	last := counts[len(counts)-1]
	if pv := runs[fmt.Sprintf("paraview DB %d", last)]; pv != nil {
		res.VsDB = runs[fmt.Sprintf("goeq DB %d", last)].MSPerFrame / pv.MSPerFrame
		res.Vs2D = runs[fmt.Sprintf("goeq 2D %d", last)].MSPerFrame / pv.MSPerFrame
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
	// rasterizer (LP_NUM_THREADS threads) per process, which the pipes of a
	// node would share
	g := simulate.Generated{Mode: mode, Sources: k, W: b.w, H: b.h, PipesPerNode: 1}
	text := strings.Replace(g.EQC(), "wall {}", b.wall(), 1)
	path := filepath.Join(b.dir, g.Name())
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// goeq runs eqply on a k-source config and times the frames after the
// warm-up from its trace (a line as each frame starts).
func (b *bench) goeq(mode string, k int) (ms, busy float64, err error) {
	cfg, err := b.config(mode, k)
	if err != nil {
		return 0, 0, err
	}
	trace := filepath.Join(b.dir, fmt.Sprintf("goeq-%s-%d.trace", mode, k))
	logPath := filepath.Join(b.dir, fmt.Sprintf("goeq-%s-%d.log", mode, k))
	total := b.warmup + b.frames + 1
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.eqply, "--config", cfg, "--model", b.model, "--frames", strconv.Itoa(total),
		"--camera-path", "orbit", "--trace", trace, "--json")
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
				return 0, 0, fmt.Errorf("eqply %s with %d sources: %v (log: %s)", mode, k, err, logPath)
			}
			var sum struct {
				Frames   int `json:"frames"`
				Degraded int `json:"degraded_frames"`
			}
			if err := json.Unmarshal(lastLine(out.Bytes()), &sum); err != nil || sum.Frames != total || sum.Degraded > 0 {
				return 0, 0, fmt.Errorf("eqply %s with %d sources: summary %q", mode, k, lastLine(out.Bytes()))
			}
			if t1.IsZero() {
				return 0, 0, fmt.Errorf("eqply %s with %d sources: the trace has fewer than %d frames", mode, k, total)
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
	s.WriteString("| renderer | mode | sources | ms/frame | speedup over 1 | cores busy |\n|---|---|---|---|---|---|\n")
	for _, run := range r.Runs {
		mode := map[string]string{"DB": "sort-last (DB)", "2D": "sort-first (2D)"}[run.Mode]
		fmt.Fprintf(&s, "| %s | %s | %d | %.0f (%.0f–%.0f) | %.2f | %.2f |\n", run.Renderer, mode, run.Sources, run.MSPerFrame, run.Min, run.Max, run.Speedup, run.CoresBusy)
	}
	fmt.Fprintf(&s, "\nAt %d sources: vs_paraview_db **%.2f**, vs_paraview_2d **%.2f** (goeq's frame time ÷ ParaView's sort-last; goal ≤ 0.7).\n", k, r.VsDB, r.Vs2D)
	speedup := func(renderer, mode string) float64 {
		for _, run := range r.Runs {
			if run.Renderer == renderer && run.Mode == mode && run.Sources == 2 {
				return run.Speedup
			}
		}
		return 0
	}
	if pv := speedup("paraview", "DB"); pv > 0 {
		fmt.Fprintf(&s, "Speedup from 1 to 2 sources: goeq %.2f (sort-last) and %.2f (sort-first), ParaView %.2f (goal: goeq's at least ParaView's).\n",
			speedup("goeq", "DB"), speedup("goeq", "2D"), pv)
	}
	return benchdoc.Marks("bench-peer", "make bench-peer").Write(path, s.String())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goeq-benchpeer:", err)
	os.Exit(1)
}
