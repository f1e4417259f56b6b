package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/autoconfig"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/imagecmp"
)

// The corpus test runs every real Equalizer configuration the way a user
// would, decomposed and again with --reference (each destination renders
// its whole frame itself, a code path that shares nothing of the
// decomposition), and compares every image frame by frame.
//
// Tolerances, per what the decomposition does to the pixels:
//   - 2D, DB, eye, time-multiplexed, tiles, pixel: equal within 2 per
//     colour channel, except at most 0.02% of the pixels: where a triangle
//     edge passes exactly through a sample, the sub-frustum of a part
//     rasterises it differently from the whole (a few pixels a frame).
//   - subpixel, zoom, DFR and monitor change the resolution or the
//     sampling on purpose (antialiasing, a render scaled on assembly, a
//     downscaled copy): PSNR of at least 30 dB. That much lets a picture
//     half a pixel off pass, so each has an oracle of its own, within 2:
//     the view rendered whole at the render's size and scaled on the CPU
//     (TestZoomedSourceIsTheViewAtTwiceTheSize,
//     TestUpscaledSourceIsTheSmallerViewStretched,
//     TestZoomedDepthFramesMergeTheirNearestSamples, TestDFRRendersSmaller,
//     the monitor tests), and the mean of the samples rendered alone
//     (TestSubpixelSamplesAverageToTheirSeparateRenders). A config that
//     resamples by subpixel decomposition alone runs again under the
//     synthetic renderer, whose smooth pattern its samples average to
//     within 4 of the reference: a sample missing or misplaced fails
//     there.
//
// A mixed-generation frame fails: every image of frame N is compared with
// the reference of frame N, and the test checks that the tolerance does
// tell frame N from frame N+1.
//
// Under an X display (make test's Xvfb) the decomposed run opens the
// config's windows on screen, as a wall would: placed, fullscreen and
// undecorated as the config says, each showing its frames. The reference
// renders headless (EGL).

const (
	corpusFrames   = 8
	exactTolerance = imagecmp.Tolerance
	exactBadMax    = imagecmp.EdgeFraction
	// the synthetic pattern's slope over a sample's jitter, averaged:
	// up to 3 levels in an 80x182 window, where a sample missing or
	// weighted wrongly is tens of levels off
	syntheticSubpixelTolerance = 4
)

func corpusDir() string { return filepath.Join("..", "..", "..", "shared", "eqc-corpus") }

// corpusRun runs one config; it must end by itself. Its pictures are
// what it tests, so a node has 3 s of silence before it is lost rather
// than the default 800 ms: under a whole make test on two cores, the six
// render clients of 6-node.layout once went 880 ms without a heartbeat,
// and the run lost one (the tests of lost nodes keep the default).
func corpusRun(t *testing.T, cfg string, reference bool, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"run", "--local", "--json", "--frames", fmt.Sprint(corpusFrames), "--out", dir, "--dump-every", "1",
		"--triangles", "8000", "--spin", "0.2", "--frame-timeout", "60s", "--liveness", "3s"}
	if reference {
		args = append(args, "--reference")
	}
	// a probe of every config under another renderer (volume,
	// synthetic); the tallies of configs whose frames the tolerance
	// tells apart then fail, as the synthetic pattern does not turn
	if r := os.Getenv("GOEQ_PROBE_RENDERER"); r != "" {
		args = append(args, "--renderer", r)
	}
	args = append(args, extra...)
	args = append(args, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "eqserver"), args...)
	cmd.Env = append(testEnv(), "DISPLAY=")
	if !reference && os.Getenv("DISPLAY") != "" {
		cmd.Env = append(os.Environ(), "GOEQ_WINSYS=auto")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stderr.String() + stdout.String()
	if ctx.Err() != nil {
		t.Fatalf("did not end within 2 minutes (reference %v)\n%s", reference, tailOf(out, 4000))
	}
	if err != nil {
		t.Fatalf("failed (reference %v): %v\n%s", reference, err, tailOf(out, 4000))
	}
	// a node lost on the way shows as a picture mismatch at best; say so
	// instead, since nothing in a corpus run should be lost
	var sum Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("the summary (reference %v) is not JSON: %v\n%s", reference, err, tailOf(out, 4000))
	}
	if sum.Degraded > 0 || len(sum.LostNodes) > 0 || len(sum.LostPipes) > 0 {
		t.Fatalf("run (reference %v) lost nodes %v, pipes %v, degraded frames %v\n%s",
			reference, sum.LostNodes, sum.LostPipes, sum.DegradedFrames, tailOf(stderr.String(), 4000))
	}
	if sum.Frames != corpusFrames {
		t.Fatalf("run (reference %v) summed up %d frames, not %d", reference, sum.Frames, corpusFrames)
	}
	return dir
}

// tailOf is the last n bytes of a run's output, after the start of the
// first crash in it (a Go runtime crash's signal line and the goroutine
// that crashed), which a long stack dump would otherwise push out.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	tail := "..." + s[len(s)-n:]
	start := -1
	for _, mark := range []string{"\nSIG", "\nfatal error: ", "\npanic: "} {
		if i := strings.Index(s, mark); i >= 0 && (start < 0 || i < start) {
			start = i + 1
		}
	}
	if start < 0 || start >= len(s)-n {
		return tail
	}
	return s[start:min(len(s)-n, start+n)] + "\n" + tail
}

func pngs(t *testing.T, dir string) []string {
	var names []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".png") {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	sort.Strings(names)
	return names
}

func TestEveryCorpusConfigRunsAndMatchesItsReference(t *testing.T) {
	t.Parallel() // beside TestClientsWaitOnAStoppedServerNotOnAGoneOne, which sleeps
	files, err := filepath.Glob(filepath.Join(corpusDir(), "*.eqc"))
	if err != nil || len(files) != 80 {
		t.Fatalf("the corpus at %s has %d configs (want 80): %v", corpusDir(), len(files), err)
	}
	ran, distinguished := 0, 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".eqc")
		t.Run(name, func(t *testing.T) {
			ran++
			if matchesReference(t, file) {
				distinguished++
			}
		})
	}
	// a tally of the whole corpus: a run of some configs (-run) says
	// nothing of it
	if ran == len(files) && distinguished < len(files)*3/4 {
		t.Errorf("the tolerances told frame N from frame N+1 in only %d of %d configs", distinguished, len(files))
	}
}

// Corpus configs at a latency of their own: with more frames in flight
// (or none), each frame still shows what its reference does, as the
// equalizers plan from older statistics and frames overtake nothing. A
// seed picks a config and a latency of 0, 2 or 3. make test runs 2;
// GOEQ_RANDOM_TREES=N runs N, from seed GOEQ_RANDOM_TREES_FROM. Every
// config of the corpus passes at latency 0 and at 3 (2026-12-05).
func TestCorpusConfigsAtOtherLatenciesMatchTheirReference(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(), "*.eqc"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus at %s: %v", corpusDir(), err)
	}
	latencies := []int{0, 2, 3}
	for _, seed := range randomSeeds(2, 1) {
		file, latency := files[seed*7%len(files)], latencies[seed%len(latencies)]
		name := strings.TrimSuffix(filepath.Base(file), ".eqc")
		t.Run(fmt.Sprintf("%s-latency-%d", name, latency), func(t *testing.T) {
			path := withLatency(t, file, latency)
			m, _, err := compound.Load(path, compound.Options{})
			if err != nil || m.Configs[0].Latency != latency {
				t.Fatalf("the config with latency %d does not load as such: %v", latency, err)
			}
			layoutMatchesReference(t, path, "")
		})
	}
}

// An old display-wall config renders one picture in an offscreen buffer
// and sends each projector's window its half, which lands pixel for pixel
// at the window's corner. With an odd width the halves split inside a
// pixel; the reference must render the pixels the frame carries, not the
// exact half (it showed the right half shifted by half a pixel).
func TestHalvesOfAnOddWidthLandAsTheirPixels(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(corpusDir(), "2-window.FBO.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, vp := range []string{"[ 100 450 960 300 ]", "[ 98 100 480 300 ]", "[ 582 100 480 300 ]"} {
		if !strings.Contains(text, "viewport "+vp) {
			t.Fatalf("2-window.FBO.eqc has no window viewport %s", vp)
		}
		text = strings.Replace(text, "viewport "+vp, "viewport [ 0 0 301 97 ]", 1)
	}
	layoutMatchesReference(t, configFile(t, "2-window.FBO.odd.eqc", text), "")
}

// The config goeq makes for a machine of several GPUs (what an
// application started without one runs on: every layout of it) renders
// what the reference does. Its pipes render where unnamed ones do, so that
// this machine runs it.
func TestAutoConfigLayoutsMatchTheirReference(t *testing.T) {
	gpus := make([]autoconfig.GPU, 3)
	for i := range gpus {
		gpus[i].Unnamed = true
	}
	file := filepath.Join(t.TempDir(), "auto.eqc")
	if err := os.WriteFile(file, []byte(autoconfig.Text(autoconfig.Machine{Name: "auto", GPUs: gpus})), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range autoconfig.Layouts {
		t.Run(l, func(t *testing.T) { layoutMatchesReference(t, file, l) })
	}
}

// nextFrame is the image name of the next frame: <label>-<frame>.png or a
// dump_image prefix with the frame number.
func nextFrame(name string) string {
	base := strings.TrimSuffix(name, ".png")
	if len(base) < 6 {
		return ""
	}
	var n int
	if _, err := fmt.Sscanf(base[len(base)-6:], "%06d", &n); err != nil {
		return ""
	}
	return fmt.Sprintf("%s%06d.png", base[:len(base)-6], n+1)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matchesReference runs a config decomposed and as the reference and
// compares every image; it says whether the tolerance told a frame from
// the reference of the next one (that it can fail).
func matchesReference(t *testing.T, file string) (distinguished bool) {
	return layoutMatchesReference(t, file, "")
}

// layoutMatchesReference is matchesReference on a layout of the config
// ("" for the one it starts in).
func layoutMatchesReference(t *testing.T, file, layout string) (distinguished bool) {
	m, _, err := compound.Load(file, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	if layout != "" {
		if err := m.Configs[0].ActivateLayout(layout); err != nil {
			t.Fatal(err)
		}
		extra = []string{"--layout", layout}
	}
	mode := m.Configs[0].Resampling()
	dec := corpusRun(t, file, false, extra...)
	ref := corpusRun(t, file, true, extra...)
	got, want := pngs(t, dec), pngs(t, ref)
	if len(want) == 0 {
		t.Fatal("the reference wrote no images")
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("images differ in name: decomposed %v, reference %v", got, want)
	}
	compare := func(dec, how string) {
		for _, img := range got {
			d, err := imagecmp.CompareFiles(filepath.Join(dec, img), filepath.Join(ref, img), exactTolerance)
			if err != nil {
				t.Fatalf("%s%s: %v", img, how, err)
			}
			if !d.Matches(mode) {
				t.Errorf("%s%s (%s): %s", img, how, imagecmp.Allowance(mode), d)
			}
		}
	}
	compare(dec, "")
	// where sources could exchange bands, the config runs again with
	// every such compound exchanging (the cost model picks an exchange
	// for larger windows than the corpus', and a cross-balanced wall once
	// deadlocked there)
	exchanging := false
	m.Configs[0].Walk(func(c *compound.Compound) { exchanging = exchanging || c.SortLastSources() != nil })
	if exchanging {
		swapped := corpusRun(t, file, false, append(extra, "--compositing", "binary_swap")...)
		if names := pngs(t, swapped); strings.Join(names, " ") != strings.Join(got, " ") {
			t.Fatalf("images differ in name: exchanging %v, gathering %v", names, got)
		}
		compare(swapped, " (sources exchanging by binary swap)")
	}
	// a config that resamples by subpixel decomposition alone runs again
	// under the synthetic renderer: its pattern is smooth, so jittered
	// samples average to within a few levels of the unjittered
	// reference, and a sample missing or misplaced shows where the
	// mesh's PSNR could hide it (GOEQ_PROBE_RENDERER runs everything
	// under another renderer)
	if mode == "subpixel" && os.Getenv("GOEQ_PROBE_RENDERER") == "" {
		synthetic := append(extra, "--renderer", "synthetic")
		sdec, sref := corpusRun(t, file, false, synthetic...), corpusRun(t, file, true, synthetic...)
		for _, img := range got {
			d, err := imagecmp.CompareFiles(filepath.Join(sdec, img), filepath.Join(sref, img), syntheticSubpixelTolerance)
			if err != nil {
				t.Fatalf("%s (synthetic renderer): %v", img, err)
			}
			if !d.Matches("") {
				t.Errorf("%s (synthetic renderer, within %d but for edge pixels): %s", img, syntheticSubpixelTolerance, d)
			}
		}
	}
	// the tolerance tells frames apart: frame N against the reference of
	// N+1 must fail it somewhere
	for i := 0; i+1 < len(got); i++ {
		next := nextFrame(got[i])
		if next == "" || !contains(want, next) {
			continue
		}
		d, err := imagecmp.CompareFiles(filepath.Join(dec, got[i]), filepath.Join(ref, next), exactTolerance)
		if err == nil && !d.Matches(mode) {
			distinguished = true
			break
		}
	}
	t.Logf("%d images, %s", len(got), imagecmp.Allowance(mode))
	return distinguished
}

// Sources that render in their destination's window leave nothing in the
// picture it shows. Equalizer's stress.lb.2D has twenty sources in the
// lower half of its destination's window, each a band of the view; here
// its wall is lowered, so that the model shows in the upper part and the
// lowest band draws nothing: its frame is empty, and where it lands the
// destination showed what another source drew in those pixels of the
// window.
func TestSourcesInTheDestinationsWindowLeaveNoTrace(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(corpusDir(), "stress.lb.2D.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	lowered := strings.NewReplacer("bottom_left  [ -.32 -.20 -.75 ]", "bottom_left  [ -.32 -.55 -.75 ]",
		"bottom_right [  .32 -.20 -.75 ]", "bottom_right [  .32 -.55 -.75 ]",
		"top_left     [ -.32  .20 -.75 ]", "top_left     [ -.32 -.15 -.75 ]").Replace(string(text))
	if lowered == string(text) {
		t.Fatal("stress.lb.2D.eqc's wall is not where the test lowers it from")
	}
	file := filepath.Join(t.TempDir(), "stress.lb.2D.lowered.eqc")
	if err := os.WriteFile(file, []byte(lowered), 0o644); err != nil {
		t.Fatal(err)
	}
	matchesReference(t, file)
}
