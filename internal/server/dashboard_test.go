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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/goeq/goeq/internal/simulate"
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
	url, logged := startDashboardRun(t, "--triangles", "20000", "--stats", statsPath, config("2d-lb-4.eqc"))
	ctx := browse(t, browser)
	failOnPageErrors(t, ctx)

	// live updates: the frame number the page shows moves on, and the
	// destination's image has loaded
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Number(document.body.dataset.frame) >= 5 && !!document.querySelector(".dest img") && document.querySelector(".dest img").naturalWidth > 0`)); err != nil {
		t.Fatalf("the page did not come alive: %v\n%s", err, logged())
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

// Before the first frame the page shows the nodes as they join, and what
// each one's set-up is doing. The state had no parts and no history then
// (null), which the page threw on: its nodes table stayed empty while the
// nodes set up, when it is there to be read.
func TestTheDashboardShowsTheNodesJoiningBeforeTheFirstFrame(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is needed (make test installs it)")
	}
	// no client is started: the nodes stay joining
	t.Setenv("GOEQ_TOKEN", "a token no client presents")
	url, logged, _ := startDashboardServer(t, "run", "--no-launch", "--http", "127.0.0.1:0", config("2d-lb-4.eqc"))
	ctx := browse(t, browser)
	failOnPageErrors(t, ctx)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
		const rows = [...document.querySelectorAll("#nodes tbody tr")].map(tr => tr.innerText.replace(/\s+/g, " ").trim());
		return rows.length ? rows : null;
	})()`))
	if err != nil {
		t.Fatalf("the page shows no nodes: %v\n%s", err, logged())
	}
	if len(rows) != 3 {
		t.Errorf("the page shows %d nodes, the config has 3: %q", len(rows), rows)
	}
	for _, r := range rows {
		if !strings.Contains(r, "joining") {
			t.Errorf("node row %q does not say joining", r)
		}
	}
	frame, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.frame`))
	if err != nil || frame != "-1" {
		t.Errorf("the page's frame is %q (%v), want -1 before the first frame", frame, err)
	}
}

// A node that goes on without a pipe it could not set up says so on the
// page, with why, and /metrics counts the pipe: the page said "alive",
// and the run's lost pipes showed only in its summary at the end. Here
// render1's second window is past the GL's framebuffer limit.
func TestTheDashboardSaysWhichPipesANodeLacks(t *testing.T) {
	text, err := os.ReadFile(config("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	huge := regexp.MustCompile(`(name "w2"\s*viewport \[ 0 0 )640( 360 \])`).ReplaceAll(text, []byte("${1}16385${2}"))
	if bytes.Equal(huge, text) {
		t.Fatal("2d-lb-4.eqc has no window w2 of 640x360 to widen")
	}
	path := filepath.Join(t.TempDir(), "huge-w2.eqc")
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	url, logged := startDashboardRun(t, path)
	ctx := openDashboard(t, url, logged)
	row, err := chromedp.Run(ctx, chromedp.Poll[string](`[...document.querySelectorAll("#nodes tbody tr")].map(tr => tr.innerText.replace(/\s+/g, " ").trim()).find(r => r.startsWith("render1")) || null`))
	if err != nil {
		t.Fatalf("the page shows no render1: %v\n%s", err, logged())
	}
	if want := `alive, without pipe "gpu2" (window "w2": 16385x360 pixels: larger than this GL's framebuffer limit of 16384)`; !strings.Contains(row, want) {
		t.Errorf("render1's row %q does not say %q", row, want)
	}
	if fam := scrapeMetrics(t, strings.TrimSuffix(url, "/"))["goeq_pipes_lost"]; fam == nil || len(fam.Metric) != 1 || fam.Metric[0].GetGauge().GetValue() != 1 {
		t.Errorf("goeq_pipes_lost is %v, want 1", fam)
	}
}

// The page says when the run has ended, and when it lost its connection
// to the run's server: it went on showing the last state, fps and all, as
// if the run went on.
func TestTheDashboardSaysWhenTheRunIsOver(t *testing.T) {
	for _, c := range []struct {
		name   string
		signal os.Signal
		kind   string // the page's data-connection after it
		says   string
	}{
		{"stopped", syscall.SIGTERM, "ended", "The run was stopped after "},
		{"killed", syscall.SIGKILL, "lost", "No connection to the run since "},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, logged, process := startDashboardServer(t, "run", "--local", "--null-clients", "--frames", "0", "--http", "127.0.0.1:0", config("2d-lb-4.eqc"))
			ctx := openDashboard(t, url, logged)
			if said, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("connection").hidden ? "" : document.getElementById("connection").textContent`)); said != "" {
				t.Errorf("while the run goes on the page says %q", said)
			}
			process.Signal(c.signal)
			said, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`document.body.dataset.connection === %q && document.getElementById("connection").textContent`, c.kind)))
			if err != nil {
				t.Fatalf("the page does not say that the run is %s: %v\n%s", c.name, err, logged())
			}
			if !strings.HasPrefix(said, c.says) {
				t.Errorf("the page says %q, want %q...", said, c.says)
			}
		})
	}
}

// The page shows the layout the run shows: two-layouts.eqc in "halves"
// has three destinations, one of them in "whole", which drew nothing and
// showed as a broken image, its channel's empty row in the Gantt chart
// and its compounds as if they drew. Null clients draw nothing, so the
// page is what the plan and the statistics make of it.
func TestDashboardShowsTheLayoutShown(t *testing.T) {
	ctx := openLiveDashboard(t, "--null-clients", "--layout", "halves", config("two-layouts.eqc"))
	type lookType struct {
		Shown, Hidden, Rows, Idle, Drawing []string
	}
	look, err := chromedp.Run(ctx, chromedp.Evaluate[lookType](`(() => {
		const dests = [...document.querySelectorAll(".dest")];
		const tree = [...document.querySelectorAll("#tree li")];
		return {
			Shown: dests.filter(d => !d.hidden && d.offsetHeight > 0).map(d => d.querySelector(".label").textContent),
			Hidden: dests.filter(d => d.hidden && d.offsetHeight === 0).map(d => d.querySelector(".label").textContent),
			Rows: [...document.querySelectorAll("#gantt g.row text:first-of-type")].map(t => t.textContent),
			Idle: tree.filter(li => li.classList.contains("idle")).map(li => li.dataset.path),
			Drawing: tree.filter(li => !li.classList.contains("idle")).map(li => li.dataset.path),
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(look.Shown, look.Hidden...) {
		if strings.Contains(d, "whole") != slices.Contains(look.Hidden, d) {
			t.Errorf("destinations shown %v, hidden %v: want those of \"halves\" shown", look.Shown, look.Hidden)
			break
		}
	}
	if len(look.Shown) != 2 || len(look.Hidden) != 1 {
		t.Errorf("destinations shown %v, hidden %v: want 2 and 1", look.Shown, look.Hidden)
	}
	for _, r := range look.Rows {
		if strings.Contains(r, "whole") {
			t.Errorf("the Gantt chart has a row of the layout not shown: %v", look.Rows)
		}
	}
	if len(look.Idle) == 0 || len(look.Drawing) == 0 {
		t.Errorf("compounds shown as idle %v and drawing %v: want some of each", look.Idle, look.Drawing)
	}
}

// A tile queue's sources say in their Gantt rows how many tiles each drew
// in the frame shown, which add up to the frame's tiles: tile-4.eqc's
// 640x360 in 64x64 tiles, 60. A source the others outpace draws none
// (the scheduler's share), and without the count its row only looked
// idle.
func TestTheDashboardSaysHowManyTilesEachSourceDrew(t *testing.T) {
	ctx := openLiveDashboard(t, "--triangles", "20000", config("tile-4.eqc"))
	type row struct {
		Tiles int
		Text  string
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]row](`[...document.querySelectorAll("#gantt g.row")].map(g =>
		({Tiles: Number(g.dataset.tiles || 0), Text: g.querySelector("text:last-of-type").textContent}))`))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, r := range rows {
		sum += r.Tiles
		if r.Tiles > 0 && !strings.HasSuffix(r.Text, fmt.Sprintf(", %d tiles", r.Tiles)) {
			t.Errorf("a row of %d tiles says %q", r.Tiles, r.Text)
		}
	}
	if sum != 60 {
		t.Errorf("the Gantt rows %v count %d tiles; the frame has 60", rows, sum)
	}
}

// A wall's segments are put together on the page as the wall shows them.
// A 4x4 wall of null nodes: each segment at its place on the canvas,
// counted from the bottom left as the config's viewports are, and the
// canvas as wide for its height as its segments' pixels make it. Two
// segments side by side, each drawn by the same six sources: the halves
// of the canvas, and a source's Gantt row for each destination names it.
// A passive stereo wall: its two projectors cover the same area with one
// eye each, so each has a box of its own, named by its eye, rather than
// one hiding the other. Before, the page showed every destination in a
// row of its own, in the config's order, whatever the wall.
func TestDashboardPutsAWallTogether(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is needed (make test installs it)")
	}
	type tile struct {
		Box, Label             string
		X, Y, W, H, BoxW, BoxH float64
	}
	// look runs a config on null clients and waits for the page to show
	// frames, then gives the place of every destination shown in its
	// canvas box, and the browser's page
	look := func(t *testing.T, config string) ([]tile, context.Context) {
		url, _ := startDashboardRun(t, "--null-clients", config)
		ctx := browse(t, browser)
		if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Number(document.body.dataset.frame) >= 5`)); err != nil {
			t.Fatalf("the page did not come alive: %v", err)
		}
		tiles, err := chromedp.Run(ctx, chromedp.Evaluate[[]tile](`[...document.querySelectorAll(".dest")].filter(d => !d.hidden && d.offsetHeight > 0).map(d => {
			const wall = d.closest(".wall"), area = d.closest(".wall-area");
			const r = d.getBoundingClientRect(), a = area ? area.getBoundingClientRect() : r;
			return {Box: wall ? wall.querySelector(".wall-label").textContent : "", Label: d.querySelector(".label").textContent,
				X: r.left - a.left, Y: r.top - a.top, W: r.width, H: r.height, BoxW: a.width, BoxH: a.height};
		})`))
		if err != nil {
			t.Fatal(err)
		}
		return tiles, ctx
	}

	// by finds the two tiles whose key is a and b (zero tiles where none is)
	by := func(tiles []tile, key func(tile) string, a, b string) (tile, tile) {
		var ta, tb tile
		for _, tl := range tiles {
			switch key(tl) {
			case a:
				ta = tl
			case b:
				tb = tl
			}
		}
		return ta, tb
	}

	t.Run("4x4", func(t *testing.T) {
		const side = 4
		cfg := filepath.Join(t.TempDir(), "wall.eqc")
		if err := os.WriteFile(cfg, []byte(simulate.Wall(side*side)), 0o644); err != nil {
			t.Fatal(err)
		}
		tiles, _ := look(t, cfg)
		if len(tiles) != side*side {
			t.Fatalf("%d destinations shown, want %d: %+v", len(tiles), side*side, tiles)
		}
		for _, tl := range tiles {
			i, err := strconv.Atoi(strings.TrimPrefix(tl.Label, "c"))
			if err != nil || tl.Box != "wall" {
				t.Fatalf("destination %q in box %q: want c<i> on the canvas \"wall\"", tl.Label, tl.Box)
			}
			// segment i is column i%side, row i/side from the bottom
			want := [4]float64{float64(i%side) / side * tl.BoxW, (1 - float64(i/side+1)/side) * tl.BoxH, tl.BoxW / side, tl.BoxH / side}
			got := [4]float64{tl.X, tl.Y, tl.W, tl.H}
			for k := range got {
				if math.Abs(got[k]-want[k]) > 1.5 {
					t.Errorf("%s lies at %v in its canvas of %gx%g, want %v", tl.Label, got, tl.BoxW, tl.BoxH, want)
					break
				}
			}
			if aspect := tl.BoxW / tl.BoxH; math.Abs(aspect-64.0/36) > 0.03 {
				t.Errorf("the canvas is %gx%g, want the 16:9 of its 64x36 segments", tl.BoxW, tl.BoxH)
			}
		}
	})

	// two segments side by side, each a destination the same six sources
	// draw parts of: a source's Gantt rows name the destination each is
	// for
	t.Run("two segments", func(t *testing.T) {
		tiles, page := look(t, corpusConfig("8-window.wall.lb.eqc"))
		left, right := by(tiles, func(tl tile) string { return tl.Label }, "left-dst", "right-dst")
		if len(tiles) != 2 || left.Box != "canvas 0" || right.Box != "canvas 0" {
			t.Fatalf("destinations shown %+v: want left-dst and right-dst on canvas 0", tiles)
		}
		if math.Abs(left.X) > 1 || math.Abs(right.X-left.W) > 1 || left.Y != right.Y || math.Abs(left.W-right.W) > 1 || math.Abs(left.W-left.BoxW/2) > 1 {
			t.Errorf("left-dst at %+v and right-dst at %+v: want the canvas's left and right halves", left, right)
		}
		rows, err := chromedp.Run(page, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#gantt g.row text:first-of-type")].map(t => t.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"source1 → left-dst", "source1 → right-dst", "left-dst", "right-src"} {
			if !slices.Contains(rows, want) {
				t.Errorf("the Gantt rows %q lack %q", rows, want)
			}
		}
	})

	t.Run("passive stereo", func(t *testing.T) {
		tiles, _ := look(t, corpusConfig("Passive.stereo.powerwall.eqc"))
		left, right := by(tiles, func(tl tile) string { return tl.Box }, "canvas 0, left eye: channel-left", "canvas 0, right eye: channel-right")
		if len(tiles) != 2 || left.Label != "channel-left" || right.Label != "channel-right" {
			t.Fatalf("destinations shown %+v: want channel-left and channel-right, each in a box of its eye", tiles)
		}
		for _, tl := range tiles {
			if tl.X != 0 || tl.Y != 0 || tl.W != tl.BoxW || tl.H != tl.BoxH {
				t.Errorf("%s covers %gx%g at %g,%g of its box of %gx%g: want all of it, as its segment covers the canvas", tl.Label, tl.W, tl.H, tl.X, tl.Y, tl.BoxW, tl.BoxH)
			}
		}
	})
}

// startDashboardRun starts an endless eqserver run --local with --http
// and the given arguments, which it ends when the test does; it returns
// the dashboard's address and what the run logged so far.
// openLiveDashboard starts a run with these arguments and its dashboard,
// opens the page in headless Chromium, and waits until it shows frame 5.
func openLiveDashboard(t *testing.T, args ...string) context.Context {
	t.Helper()
	url, logged := startDashboardRun(t, args...)
	return openDashboard(t, url, logged)
}

// openDashboard opens the dashboard at url in headless Chromium and waits
// until it shows frame 5; logged is the server's log, for a failure.
func openDashboard(t *testing.T, url string, logged func() string) context.Context {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is needed (make test installs it)")
	}
	ctx := browse(t, browser)
	failOnPageErrors(t, ctx)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Number(document.body.dataset.frame) >= 5`)); err != nil {
		t.Fatalf("the page did not come alive: %v\n%s", err, logged())
	}
	return ctx
}

func startDashboardRun(t *testing.T, args ...string) (url string, logged func() string) {
	t.Helper()
	url, logged, _ = startDashboardServer(t, append([]string{"run", "--local", "--frames", "100000", "--http", "127.0.0.1:0"}, args...)...)
	return url, logged
}

// startDashboardServer starts eqserver with args, which serve a dashboard,
// and returns the dashboard's address and the process.
func startDashboardServer(t *testing.T, args ...string) (url string, logged func() string, process *os.Process) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "eqserver"), args...)
	cmd.Env = testEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// closed once eqserver has exited, with its error in ended: the
	// cleanup waits on it after a start that saw it exit too (a channel
	// that carried the error once left that cleanup waiting for ever)
	exited := make(chan struct{})
	var ended error
	urls := make(chan string, 1)
	var mu sync.Mutex
	var log strings.Builder
	logged = func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := regexp.MustCompile(`dashboard on (http://[0-9.:]+/)`).FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		ended = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case url = <-urls:
	case <-exited:
		t.Fatalf("eqserver ended: %v\n%s", ended, logged())
	case <-time.After(30 * time.Second):
		t.Fatal("no dashboard address logged")
	}
	return url, logged, cmd.Process
}

// failOnPageErrors fails the test, once it ends, when the page threw an
// exception that it did not catch: the rest of that update was not shown.
func failOnPageErrors(t *testing.T, ctx context.Context) {
	t.Helper()
	var mu sync.Mutex
	var thrown []string
	chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			what := e.ExceptionDetails.Text
			if x := e.ExceptionDetails.Exception; x != nil {
				what += " " + x.Description
			}
			mu.Lock()
			thrown = append(thrown, what)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(thrown) > 0 {
			t.Errorf("the page threw %d times; the first:\n%s", len(thrown), thrown[0])
		}
	})
}

// browse starts headless Chromium for the test: its context, which ends
// with the test or after 90 s.
func browse(t *testing.T, browser string) context.Context {
	t.Helper()
	// Chromium's profile and its singleton socket directory are the
	// test's own: left to themselves, the socket's stayed in the system's
	// temporary directory after every run. The socket's is named short:
	// its path must fit a socket address (108 bytes), and under
	// t.TempDir a subtest's name made it too long.
	tmp, err := os.MkdirTemp("", "chromium")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 900), chromedp.Flag("disable-gpu", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.Env("TMPDIR="+tmp))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTime)
	return ctx
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

// scrapeMetrics reads the dashboard's /metrics at base.
func scrapeMetrics(t *testing.T, base string) map[string]*dto.MetricFamily {
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
	return families
}

// framesTotal scrapes goeq_frames_total.
func framesTotal(t *testing.T, base string) float64 {
	t.Helper()
	families := scrapeMetrics(t, base)
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
