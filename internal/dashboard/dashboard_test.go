package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/stats"
)

// openStream opens /events and reads its first event, which says what
// the viewer sees.
func openStream(t *testing.T, ctx context.Context, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp, ""
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return resp, line
}

// Viewers share one encoding of each version of the state, and a
// dashboard streams to maxStreams of them at once: one more is refused
// with 503 until a stream ends. Each viewer encoding the state for itself
// ten times a second, under the lock the run's calls take, starved the
// run: 2000 streams let eqserver make 5 frames in 15 s where it made 120.
func TestStreamsAreBoundedAndShareOneEncoding(t *testing.T) {
	d := New(Info{Config: "wall.eqc"})
	first, v := d.snapshot()
	again, w := d.snapshot()
	if v != w || &first[0] != &again[0] {
		t.Errorf("the same version was encoded twice")
	}
	d.Nodes([]NodeStatus{{Node: "render1", Status: "alive"}})
	if changed, _ := d.snapshot(); !strings.Contains(string(changed), `"render1"`) {
		t.Errorf("a new version was not encoded: %s", changed)
	}
	d.Links([]Link{{From: "render1", To: "app", Codec: "s2", Bytes: 4096}})
	if changed, _ := d.snapshot(); !strings.Contains(string(changed), `"codec":"s2"`) {
		t.Errorf("the links' bytes are not in the state: %s", changed)
	}

	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var open []context.CancelFunc
	for i := 0; i < maxStreams; i++ {
		sctx, scancel := context.WithCancel(ctx)
		open = append(open, scancel)
		resp, line := openStream(t, sctx, srv.URL)
		if resp.StatusCode != http.StatusOK || !strings.Contains(line, `"render1"`) {
			t.Fatalf("stream %d: %s %q", i, resp.Status, line)
		}
	}
	resp, _ := openStream(t, ctx, srv.URL)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("stream %d of at most %d: %s", maxStreams+1, maxStreams, resp.Status)
	}
	open[0]() // a viewer leaves: its place is free again
	for deadline := time.Now().Add(5 * time.Second); ; {
		resp, _ := openStream(t, ctx, srv.URL)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream ended, and another is still refused: %s", resp.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The page shows the destinations the recent frames drew: a config's
// destinations of layouts not shown drew nothing, and showed as broken
// images, with their channels' empty rows in the Gantt chart, beside the
// layout shown. After a layout switch, the destination switched off goes
// within shownFor frames.
func TestShownDestinationsAreTheOnesDrawn(t *testing.T) {
	m, _, err := compound.Load(filepath.Join("..", "..", "examples", "configs", "two-layouts.eqc"), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	info := InfoOf(m.Configs[0], "two-layouts.eqc", func(*compound.Compound) string { return "equalizer" })
	if len(info.Destinations) != 3 {
		t.Fatalf("%d destinations, want 3 (one in \"whole\", two in \"halves\")", len(info.Destinations))
	}
	destOf := map[string]string{}
	drawnFor := map[string][]stats.Record{}
	for _, c := range info.Compounds {
		destOf[c.Path] = c.Destination
		if c.Channel != "" {
			drawnFor[c.Destination] = append(drawnFor[c.Destination], stats.Record{Compound: c.Path, Channel: c.Channel})
		}
	}
	d := New(info)
	shown := func() []string {
		b, _ := d.snapshot()
		var st struct{ Shown []string }
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st.Shown
	}
	if got := shown(); got != nil {
		t.Errorf("before the first frame: shown %v, want null (all)", got)
	}
	whole, halves := info.Destinations[0].ID, []string{info.Destinations[1].ID, info.Destinations[2].ID}
	frame := 0
	draw := func(dests ...string) {
		var recs []stats.Record
		for _, dst := range dests {
			recs = append(recs, drawnFor[dst]...)
		}
		d.Frame(frame, 0.02, false, recs, func(path string) string { return destOf[path] })
		frame++
	}
	draw(whole)
	if got := shown(); !slices.Equal(got, []string{whole}) {
		t.Errorf("frame of \"whole\": shown %v, want [%s]", got, whole)
	}
	for range shownFor - 1 {
		draw(halves...)
	}
	if got := shown(); !slices.Equal(got, append([]string{whole}, halves...)) {
		t.Errorf("%d frames after a switch: shown %v, want all three", shownFor-1, got)
	}
	draw(halves...)
	if got := shown(); !slices.Equal(got, halves) {
		t.Errorf("%d frames after a switch: shown %v, want %v", shownFor, got, halves)
	}
}

// A destination says where its canvas shows it, so that the page puts a
// wall together: its segment's area within its view's, the canvas, and
// the eyes of a segment that shows some only. A destination of no canvas
// has none.
func TestDestinationsSayWhereTheirCanvasShowsThem(t *testing.T) {
	const cfg = `#Equalizer 1.2 ascii
config {
    appNode { pipe {
        window { viewport [ 0 0 400 300 ] channel { name "left" } }
        window { viewport [ 0 0 400 300 ] channel { name "right" } }
        window { viewport [ 0 0 400 300 ] channel { name "right-eye" } }
        window { viewport [ 0 0 200 100 ] channel { name "alone" } }
    } }
    observer {}
    layout { name "L" view { observer 0 mode STEREO viewport [ 0 0 1 .5 ] } }
    canvas {
        name "wall"
        layout "L"
        wall {}
        segment { channel "left" viewport [ 0 0 .5 1 ] }
        segment { channel "right" viewport [ .5 0 .5 1 ] eye [ LEFT CYCLOP ] }
        segment { channel "right-eye" viewport [ .5 0 .5 1 ] eye [ RIGHT ] }
    }
    compound { channel ( segment 0 view 0 ) }
    compound { channel ( segment 1 view 0 ) eye [ LEFT ] }
    compound { channel ( segment 2 view 0 ) eye [ RIGHT ] }
    compound { channel "alone" wall {} }
}`
	m, _, err := compound.LoadText("wall.eqc", []byte(cfg), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	info := InfoOf(m.Configs[0], "wall.eqc", func(*compound.Compound) string { return "equalizer" })
	got := map[string]Destination{}
	for _, d := range info.Destinations {
		got[d.Label] = d
	}
	want := map[string]Destination{
		// the view covers the canvas's lower half: each segment shows
		// the part of it within the segment
		"left":      {Canvas: 0, CanvasName: "wall", Area: [4]float64{0, 0, .5, .5}},
		"right":     {Canvas: 0, CanvasName: "wall", Area: [4]float64{.5, 0, .5, .5}, Eyes: []string{"cyclop", "left"}},
		"right-eye": {Canvas: 0, CanvasName: "wall", Area: [4]float64{.5, 0, .5, .5}, Eyes: []string{"right"}},
		"alone":     {Canvas: -1, Area: [4]float64{0, 0, 1, 1}},
	}
	if len(got) != len(want) {
		t.Fatalf("destinations %v, want %d", info.Destinations, len(want))
	}
	for label, w := range want {
		g := got[label]
		if g.Canvas != w.Canvas || g.CanvasName != w.CanvasName || g.Area != w.Area || !slices.Equal(g.Eyes, w.Eyes) {
			t.Errorf("%s: canvas %d %q, area %v, eyes %v; want canvas %d %q, area %v, eyes %v", label, g.Canvas, g.CanvasName, g.Area, g.Eyes,
				w.Canvas, w.CanvasName, w.Area, w.Eyes)
		}
	}
}

// The page iterates the parts and the history of every state it gets:
// before the first frame and after a frame that drew nothing they are
// empty lists, not null (the page threw on null, and showed nothing more
// of that state, its nodes joining included).
func TestTheStatesListsAreNeverNull(t *testing.T) {
	d := New(Info{Config: "c"})
	lists := func(when string) {
		t.Helper()
		b, _ := d.snapshot()
		for _, key := range []string{`"parts":[`, `"history":[`} {
			if !strings.Contains(string(b), key) {
				t.Errorf("%s: the state has no list %s]: %s", when, key, b)
			}
		}
	}
	lists("before the first frame")
	d.Frame(0, 0.01, false, nil, func(string) string { return "" })
	lists("after a frame that drew nothing")
}

// Once the run has ended, an event stream sends the state that says how
// and ends: the page stops listening and says so.
func TestAStreamEndsWithTheRun(t *testing.T) {
	d := New(Info{Config: "c"})
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, first := openStream(t, ctx, srv.URL)
	defer resp.Body.Close()
	if strings.Contains(first, `"ended"`) {
		t.Fatalf("while the run goes on the state says it ended: %s", first)
	}
	d.End("ended after 3 frames")
	var last string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			last = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("the stream did not end: %v", err)
	}
	if !strings.Contains(last, `"ended":"ended after 3 frames"`) {
		t.Errorf("the stream's last state does not say how the run ended: %s", last)
	}
}
