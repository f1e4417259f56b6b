package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/goeq/goeq/internal/stats"
)

// TestDashboardInABrowser runs the load-balanced 2D config with --http and
// looks at the page in headless Chromium: the destination's frame is
// drawn and not blank, the split drawn over it is the plan's (as the
// statistics file records it for the frame the page shows), and the Gantt
// chart has a row per channel. /metrics parses, and goeq_frames_total
// grows. The page's screenshot is saved (GOEQ_SCREENSHOT=docs/dashboard.jpg
// renews the README's).
func TestDashboardInABrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is needed (make test installs it)")
	}
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "stats.jsonl")
	cmd := exec.Command(filepath.Join(binaries(t), "eqserver"), "run", "--local", "--frames", "100000", "--triangles", "20000",
		"--http", "127.0.0.1:0", "--stats", statsPath, config("2d-lb-4.eqc"))
	cmd.Env = testEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	var logged strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logged.WriteString(sc.Text() + "\n")
			if m := regexp.MustCompile(`dashboard on (http://[0-9.:]+/)`).FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-exited:
		t.Fatalf("eqserver ended: %v\n%s", err, logged.String())
	case <-time.After(30 * time.Second):
		t.Fatal("no dashboard address logged")
	}

	// Chromium's profile and its singleton socket directory go into the
	// test's own directory: left to themselves, the socket's stayed in
	// the system's temporary directory after every run
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 900), chromedp.Flag("disable-gpu", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.Env("TMPDIR="+t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTime()

	// live updates: the frame number the page shows moves on, and the
	// destination's image has loaded
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Number(document.body.dataset.frame) >= 5 && !!document.querySelector(".dest img") && document.querySelector(".dest img").naturalWidth > 0`)); err != nil {
		t.Fatalf("the page did not come alive: %v\n%s", err, logged.String())
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.body.dataset.frame)`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.frame) > %d + 5`, first))); err != nil {
		t.Fatalf("no live updates after frame %d: %v", first, err)
	}
	// one look at the page: its frame, the split drawn, the Gantt rows
	type lookType struct {
		Frame  string
		Splits []struct{ Channel, Viewport string }
		Rows   []string
		Width  int
		Height int
	}
	// taken when the preview shown is decoded (a new one arriving has no
	// size until then)
	look, err := chromedp.Run(ctx, chromedp.Poll[lookType](`(() => {
		const img = document.querySelector(".dest img");
		if (!img || !img.complete || !img.naturalWidth) return null;
		return {
			Frame: document.body.dataset.frame,
			Splits: [...document.querySelectorAll(".dest rect.split")].map(r => ({Channel: r.dataset.channel, Viewport: r.dataset.viewport})),
			Rows: [...document.querySelectorAll("#gantt g.row")].map(g => g.dataset.channel),
			Width: img.naturalWidth,
			Height: img.naturalHeight,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	frame, _ := strconv.Atoi(look.Frame)
	// the plan of that frame, as the statistics file has it
	want := map[string][4]float64{}
	var channels = map[string]bool{}
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(f)
	for {
		var r stats.Record // a line per record
		if dec.Decode(&r) != nil {
			break
		}
		channels[r.Channel] = true
		if r.Frame == frame {
			want[r.Channel] = [4]float64{r.Viewport.X, r.Viewport.Y, r.Viewport.W, r.Viewport.H}
		}
	}
	f.Close()
	if len(want) == 0 {
		t.Fatalf("the statistics have no frame %d", frame)
	}
	if len(look.Splits) != len(want) {
		t.Errorf("frame %d: %d split rectangles drawn, the plan has %d parts", frame, len(look.Splits), len(want))
	}
	for _, s := range look.Splits {
		var got [4]float64
		if _, err := fmt.Sscanf(strings.ReplaceAll(s.Viewport, ",", " "), "%g %g %g %g", &got[0], &got[1], &got[2], &got[3]); err != nil {
			t.Fatalf("split %q: %v", s.Viewport, err)
		}
		w, ok := want[s.Channel]
		for i := range got {
			ok = ok && math.Abs(got[i]-w[i]) < 1e-9
		}
		if !ok {
			t.Errorf("frame %d: %s drawn at %v, planned at %v", frame, s.Channel, got, w)
		}
	}
	if len(look.Rows) != len(channels) {
		t.Errorf("the Gantt chart has %d rows (%v), the run has %d channels", len(look.Rows), look.Rows, len(channels))
	}
	if look.Width != 640 || look.Height != 360 {
		t.Errorf("the frame shown is %dx%d, want 640x360", look.Width, look.Height)
	}
	// the frame as the browser drew it: not blank
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(".dest img", chromedp.NodeVisible))
	if err != nil {
		t.Fatal(err)
	}
	if spread := colourSpread(t, shot); spread < 20 {
		t.Errorf("the frame drawn is blank (colour spread %d)", spread)
	}
	// the page's screenshot: an artifact (go test -artifacts keeps it),
	// and docs/dashboard.jpg when GOEQ_SCREENSHOT names it
	page, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(t.ArtifactDir(), "dashboard.jpg")}
	if p := os.Getenv("GOEQ_SCREENSHOT"); p != "" {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if err := os.WriteFile(p, page, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// /metrics: Prometheus text that parses, and frames that count up
	base := strings.TrimSuffix(url, "/")
	before := framesTotal(t, base)
	time.Sleep(500 * time.Millisecond)
	if after := framesTotal(t, base); after <= before {
		t.Errorf("goeq_frames_total went from %g to %g", before, after)
	}
	t.Logf("the page showed frame %d with %d parts; %d channels", frame, len(look.Splits), len(channels))
}

// colourSpread is the largest difference of a colour channel between the
// pixels of a PNG.
func colourSpread(t *testing.T, pngBytes []byte) int {
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := [3]uint32{255, 255, 255}, [3]uint32{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			for i, v := range [3]uint32{r >> 8, g >> 8, bl >> 8} {
				lo[i], hi[i] = min(lo[i], v), max(hi[i], v)
			}
		}
	}
	spread := 0
	for i := range lo {
		spread = max(spread, int(hi[i])-int(lo[i]))
	}
	return spread
}

// framesTotal scrapes goeq_frames_total.
func framesTotal(t *testing.T, base string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	for _, name := range []string{"goeq_frame_seconds", "goeq_task_seconds", "goeq_link_bytes_total", "goeq_nodes_alive", "goeq_degraded_frames_total",
		"goeq_process_goroutines", "goeq_process_resident_bytes"} {
		if families[name] == nil {
			t.Errorf("/metrics has no %s", name)
		}
	}
	// a channel's task times carry the name the config gives it
	labels := map[string]bool{}
	if fam := families["goeq_task_seconds"]; fam != nil {
		for _, m := range fam.Metric {
			for _, l := range m.Label {
				if l.GetName() == "label" {
					labels[l.GetValue()] = true
				}
			}
		}
	}
	if !labels["src1"] {
		t.Errorf("goeq_task_seconds labels %v, want the config's channel names (src1)", slices.Sorted(maps.Keys(labels)))
	}
	fam := families["goeq_frames_total"]
	if fam == nil || len(fam.Metric) != 1 {
		t.Fatalf("/metrics has no goeq_frames_total")
	}
	return fam.Metric[0].GetCounter().GetValue()
}
