package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// readStats reads a run's statistics file.
func readStats(t *testing.T, dir string) []stats.Record {
	f, err := os.Open(filepath.Join(dir, "stats.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []stats.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r stats.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func corpusConfig(name string) string { return filepath.Join(corpusDir(), name) }

// The tile equalizer's queue is drained by both sources: every tile of
// every frame is drawn once, by whichever source pulled it.
func TestTileQueueIsDrawnBySources(t *testing.T) {
	r := run(t, corpusConfig("2-node.tile.eqc"), 4)
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	perFrame := map[int]int{}
	perChannel := map[string]int{}
	for _, rec := range readStats(t, r.out) {
		perFrame[rec.Frame] += rec.Tiles
		perChannel[rec.Channel] += rec.Tiles
	}
	for f := 0; f < 4; f++ {
		// 960x540 in tiles of 64x64
		if perFrame[f] != 15*9 {
			t.Errorf("frame %d: %d tiles drawn, want 135", f, perFrame[f])
		}
	}
	if len(perChannel) != 2 {
		t.Errorf("tiles drawn per channel %v: both sources should pull", perChannel)
	}
}

// A tile equalizer's child that draws nothing for the eyes shown (an eye
// decomposition in a mono view) pulls no tiles, and its frame is not
// waited for: the other child draws them all. Every frame waited for it
// until the frame timed out.
func TestAnEyeDecompositionInAMonoViewPullsNoTiles(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "eyes-beside-a-source.eqc")
	window := func(name string) string {
		return fmt.Sprintf(`window { viewport [ 0 0 300 200 ] attributes { hint_drawable FBO } channel { name %q } }`, name)
	}
	text := fmt.Sprintf(`config {
    appNode { pipe { %s } }
    node { pipe { %s } pipe { %s } pipe { %s } }
    observer { }
    layout { name "L" view { mode MONO observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ]
        compound { tile_equalizer { size [ 32 32 ] }
            compound { channel "left"
                compound { eye [ LEFT ] }
                compound { channel "right" eye [ RIGHT ] outputframe { name "r" } }
                inputframe { name "r" } outputframe { name "eyes" } }
            compound { channel "whole" outputframe { name "w" } } }
        inputframe { name "eyes" } inputframe { name "w" } }
}
`, window("dest"), window("left"), window("right"), window("whole"))
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	matchesReference(t, cfg)
}

// The DFR equalizer lowers the resolution of a source that misses its
// frame rate: it renders fewer pixels, and the destination still shows
// the whole frame, scaled up. Its frames shrink from frame to frame, so
// they land in pooled textures larger than themselves: the stretch must
// not reach past a frame's own texels (it did, along the top and right
// edges: 632 pixels off by up to 80).
func TestDFRRendersSmaller(t *testing.T) {
	b, err := os.ReadFile(corpusConfig("1-window.DFR.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	// a frame rate no renderer reaches: the zoom goes down
	cfg := filepath.Join(t.TempDir(), "dfr.eqc")
	os.WriteFile(cfg, regexp.MustCompile(`framerate\s+[0-9.]+`).ReplaceAll(b, []byte("framerate 10000")), 0o644)
	r := run(t, cfg, 12)
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	first, last := [2]int{}, [2]int{}
	for _, rec := range readStats(t, r.out) {
		if rec.Size == ([2]int{}) {
			continue
		}
		if rec.Frame == 0 {
			first = rec.Size
		}
		if rec.Frame == 11 {
			last = rec.Size
		}
	}
	if first[0] == 0 || last[0] == 0 || last[0]*last[1]*2 > first[0]*first[1] {
		t.Errorf("rendered %v in frame 0 and %v in frame 11: the DFR zoom did not shrink the render", first, last)
	}
	// the picture is the view rendered whole at frame 11's size and
	// stretched on the CPU
	const window = "viewport [ 20 100 480 300 ]"
	if !bytes.Contains(b, []byte(window)) {
		t.Fatalf("1-window.DFR.eqc has no %q", window)
	}
	small := filepath.Join(t.TempDir(), "small.eqc")
	if err := os.WriteFile(small, bytes.Replace(b, []byte(window), []byte(fmt.Sprintf("viewport [ 20 100 %d %d ]", last[0], last[1])), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := run(t, small, 12, "--reference")
	if ref.err != nil {
		t.Fatalf("reference run failed: %v\n%s", ref.err, ref.stderr)
	}
	t.Logf("render %v -> %v", first, last)
	matchesOracle(t, "frame 11", loadPNG(t, filepath.Join(r.out, "channel-000011.png")),
		stretch(loadPNG(t, filepath.Join(ref.out, "channel-000011.png")), 480, 300), fmt.Sprintf("the view rendered at %v and stretched", last))
}

// A part that an assembly under a DFR equalizer draws itself (a viewport
// of its own channel's picture) is drawn aside at the zoom the DFR
// chooses, and scaled with the sources' parts: drawn in place, at its
// share's unzoomed offset, it landed off its place, over the picture's
// middle (random assembling trees under a DFR equalizer, 19 of 200 at
// 7 to 21 dB). Only a zoom in the config made such a part draw aside.
func TestAPartDrawnInPlaceUnderADFRAssemblyIsScaledWithTheOthers(t *testing.T) {
	t.Setenv("GOEQ_PROBE_RENDERER", "synthetic")
	cfg := filepath.Join(t.TempDir(), "dfr.eqc")
	// a frame rate no renderer reaches: the zoom goes down, to the
	// DFR's least at once (damping 0); 640x480 keeps the synthetic
	// pattern within the resampling allowance even there
	err := os.WriteFile(cfg, []byte(generated{w: 640, h: 480, sources: 2}.config(`task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src1" buffer [ COLOR DEPTH ] DFR_equalizer { framerate 10000 damping 0 }
            `+source(0, "viewport [ 0 0 1 0.2 ]")+`
            compound { viewport [ 0 0.2 1 0.8 ] }
            inputframe { name "f0" } outputframe { name "dfr" } }
        inputframe { name "dfr" }`)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, cfg, 8, "--renderer", "synthetic")
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	least := 0
	for _, rec := range readStats(t, r.out) {
		if rec.Frame == 7 && rec.Size[0] > 0 && (least == 0 || rec.Size[0] < least) {
			least = rec.Size[0]
		}
	}
	if least == 0 || least > 640/2 {
		t.Fatalf("frame 7 rendered at most %d pixels wide: the DFR zoom did not shrink the render", least)
	}
	matchesReference(t, cfg)
}

// The monitor equalizer shows each wall segment's frame on the monitor at
// its place, scaled down: the monitor's halves are the segments' images
// at half size.
func TestMonitorShowsTheWallScaledDown(t *testing.T) {
	r := run(t, corpusConfig("3-window.monitor.eqc"), 3)
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	viewer := loadPNG(t, filepath.Join(r.out, "viewer-000002.png"))
	for i, seg := range []string{"channel1", "channel2"} {
		src := loadPNG(t, filepath.Join(r.out, seg+"-000002.png"))
		half := imagecmp.Halve(src)
		part := viewer.SubImage(image.Rect(i*half.Rect.Dx(), 0, (i+1)*half.Rect.Dx(), half.Rect.Dy())).(*image.NRGBA)
		got := image.NewNRGBA(image.Rect(0, 0, part.Rect.Dx(), part.Rect.Dy()))
		for y := 0; y < got.Rect.Dy(); y++ {
			copy(got.Pix[y*got.Stride:(y+1)*got.Stride], part.Pix[part.PixOffset(part.Rect.Min.X, part.Rect.Min.Y+y):])
		}
		matchesOracle(t, fmt.Sprintf("monitor half %d", i), got, half, seg+" scaled down")
	}
}

// A source zoomed by 2 (2-window.ZOOM: Equalizer's supersampling)
// renders the destination's view at twice its size, and the destination
// shows it scaled down: the picture is the view rendered whole at twice
// the size (--reference) and averaged down on the CPU.
func TestZoomedSourceIsTheViewAtTwiceTheSize(t *testing.T) {
	text, err := os.ReadFile(corpusConfig("2-window.ZOOM.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	const dest, twice = "viewport [ 600 50 250 250 ]", "viewport [ 600 50 500 500 ]"
	if !strings.Contains(string(text), dest) {
		t.Fatalf("2-window.ZOOM.eqc has no %q", dest)
	}
	big := filepath.Join(t.TempDir(), "zoom-twice.eqc")
	if err := os.WriteFile(big, []byte(strings.Replace(string(text), dest, twice, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, corpusConfig("2-window.ZOOM.eqc"), 4)
	ref := run(t, big, 4, "--reference")
	for _, x := range []runResult{r, ref} {
		if x.err != nil {
			t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
		}
	}
	for f := 0; f < 4; f++ {
		name := filepathFrame("channel", f)
		matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), imagecmp.Halve(loadPNG(t, filepath.Join(ref.out, name))),
			"the view at twice the size, scaled down")
	}
}

// A monitor shows a segment whose model leaves much of it empty in place:
// the segment's frame is read whole for it, where a frame cut to what was
// drawn landed up to half a monitor pixel off (by up to 146).
func TestMonitorShowsAPartlyDrawnSegmentInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "monitor.eqc")
	if err := os.WriteFile(path, []byte(`config {
    appNode { pipe {
        window { viewport [ 0 0 480 300 ] attributes { hint_drawable FBO } channel { name "channel1" } }
        window { viewport [ 0 0 240 150 ] attributes { hint_drawable FBO } channel { name "viewer" } }
    } }
    observer {}
    layout { name "Simple" view { observer 0 } }
    canvas { layout "Simple" wall { bottom_left [ -1.6 -1 -1 ] bottom_right [ 1.6 -1 -1 ] top_left [ -1.6 1 -1 ] } segment { channel "channel1" } }
    canvas { layout "Simple" wall {} segment { channel "viewer" } }
    compound {
        compound { channel ( segment 0 layout "Simple" view 0 ) outputframe {} }
        compound { channel ( canvas 1 segment 0 layout "Simple" view 0 ) monitor_equalizer {} task [ CLEAR ASSEMBLE ]
            inputframe { name "frame.channel1" } }
    }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, path, 3)
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	drawn := false
	for _, rec := range readStats(t, r.out) {
		drawn = drawn || rec.Drawn.W > 0 && rec.Drawn.W < 0.7 // the segment's: the monitor draws nothing
	}
	if !drawn {
		t.Fatal("the model fills the segment: this config no longer tests a partly drawn one")
	}
	for f := 0; f < 3; f++ {
		half := imagecmp.Halve(loadPNG(t, filepath.Join(r.out, filepathFrame("channel1", f))))
		matchesOracle(t, fmt.Sprintf("the monitor's frame %d", f), loadPNG(t, filepath.Join(r.out, filepathFrame("viewer", f))), half,
			"the segment scaled down")
	}
}

// A monitor of a layout of several views shows in each view's channel
// that view of the wall, and a monitor segment over part of its canvas
// that part: each wall frame lands at its place on the canvas within
// the part of the monitor's canvas its channel shows. Frames landed at
// their segment's place on the whole canvas, squeezed into the view's
// channel (Equalizer's placement, which takes the monitor channel for the
// whole canvas). Each monitor view is the wall's view at half size. The
// wall's node sends each frame at the size the monitors show it (scaled
// down on its GPU), not at the size it rendered it: a quarter of the
// bytes here.
func TestMonitorShowsEachViewOfTheWall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "monitor-views.eqc")
	if err := os.WriteFile(path, []byte(`config {
    appNode { pipe {
        window { viewport [ 0 0 480 150 ] attributes { hint_drawable FBO } channel { name "whole" } }
        window { viewport [ 0 0 288 150 ] attributes { hint_drawable FBO } channel { name "part" } }
    } }
    node { host "localhost" pipe {
        window { viewport [ 0 0 480 300 ] attributes { hint_drawable FBO } channel { name "seg0" } }
        window { viewport [ 0 0 480 300 ] attributes { hint_drawable FBO } channel { name "seg1" } }
    } }
    observer {}
    layout { name "L" view { observer 0 viewport [ 0 0 0.4 1 ] } view { observer 0 viewport [ 0.4 0 0.6 1 ] } }
    canvas { layout "L" wall { bottom_left [ -0.8 -0.25 -1 ] bottom_right [ 0.8 -0.25 -1 ] top_left [ -0.8 0.25 -1 ] }
        segment { channel "seg0" viewport [ 0 0 0.5 1 ] } segment { channel "seg1" viewport [ 0.5 0 0.5 1 ] } }
    canvas { layout "L" wall {} segment { channel "whole" } }
    canvas { layout "L" wall {} segment { channel "part" viewport [ 0.4 0 0.6 1 ] } }
    compound {
        compound { channel ( segment 0 layout "L" view 0 ) outputframe { name "s0v0" } }
        compound { channel ( segment 0 layout "L" view 1 ) outputframe { name "s0v1" } }
        compound { channel ( segment 1 layout "L" view 1 ) outputframe { name "s1v1" } }
        compound { channel ( canvas 1 segment 0 layout "L" view 0 ) monitor_equalizer {} task [ CLEAR ASSEMBLE ]
            inputframe { name "s0v0" } }
        compound { channel ( canvas 1 segment 0 layout "L" view 1 ) monitor_equalizer {} task [ CLEAR ASSEMBLE ]
            inputframe { name "s0v1" } inputframe { name "s1v1" } }
        compound { channel ( canvas 2 segment 0 layout "L" view 1 ) monitor_equalizer {} task [ CLEAR ASSEMBLE ]
            inputframe { name "s0v1" } inputframe { name "s1v1" } }
    }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	const frames = 2
	r := run(t, path, frames, "--codec", "none")
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	f := frames - 1
	// each wall destination's frame (by its compound: the config's
	// first three) at the size of its place on the monitors (2 of view
	// 1's), colour alone, with a header each
	sent := map[string]int{"0.0": 192 * 150, "0.1": 2 * 48 * 150, "0.2": 2 * 240 * 150}
	for _, rec := range readStats(t, r.out) {
		if want, ok := sent[rec.Compound]; ok && rec.Frame == f {
			if rec.Bytes < 4*want || rec.Bytes > 4*want+256 {
				t.Errorf("compound %s sent %d bytes; want the %d pixels the monitors show (%d bytes and headers)", rec.Compound, rec.Bytes, want, 4*want)
			}
			delete(sent, rec.Compound)
		}
	}
	if len(sent) > 0 {
		t.Errorf("no statistics of frame %d for %v", f, sent)
	}
	half := func(label string) *image.NRGBA {
		return imagecmp.Halve(loadPNG(t, filepath.Join(r.out, filepathFrame(label, f))))
	}
	// the wall's second view is two segments' channels: side by side
	left, right := half("seg0.L.view1"), half("seg1")
	view1 := image.NewNRGBA(image.Rect(0, 0, left.Rect.Dx()+right.Rect.Dx(), left.Rect.Dy()))
	draw.Draw(view1, left.Rect, left, image.Point{}, draw.Src)
	draw.Draw(view1, right.Rect.Add(image.Pt(left.Rect.Dx(), 0)), right, image.Point{}, draw.Src)
	for label, want := range map[string]*image.NRGBA{
		"whole.L.view0": half("seg0.L.view0"),
		"whole.L.view1": view1,
		"part":          view1,
	} {
		matchesOracle(t, label, loadPNG(t, filepath.Join(r.out, filepathFrame(label, f))), want, "the wall's view at half size")
	}
}

// DB sources zoomed by 2 render their ranges at twice the destination's
// size, and the destination merges each pixel's nearest sample by depth:
// the picture is the view rendered whole at twice the size, every second
// sample of every second row taken (the one at the pixel's centre, up and
// right of it in GL's rows).
func TestZoomedDepthFramesMergeTheirNearestSamples(t *testing.T) {
	const w, h = 400, 200
	text := func(w, h int) string {
		return fmt.Sprintf(`config {
    appNode { pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "channel" } } } }
    node { host "localhost"
        pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "b1" } } }
        pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "b2" } } }
    }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "channel" } }
    compound { channel ( segment 0 view 0 ) buffer [ COLOR DEPTH ] task [ CLEAR ASSEMBLE ]
        compound { channel "b1" zoom [ 2 2 ] range [ 0 0.5 ] outputframe { name "f1" } }
        compound { channel "b2" zoom [ 2 2 ] range [ 0.5 1 ] outputframe { name "f2" } }
        inputframe { name "f1" } inputframe { name "f2" }
    }
}
`, w, h, 2*w, 2*h, 2*w, 2*h)
	}
	dir := t.TempDir()
	cfg, big := filepath.Join(dir, "db-zoom.eqc"), filepath.Join(dir, "db-twice.eqc")
	for path, text := range map[string]string{cfg: text(w, h), big: text(2*w, 2*h)} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, cfg, 3)
	ref := run(t, big, 3, "--reference")
	for _, x := range []runResult{r, ref} {
		if x.err != nil {
			t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
		}
	}
	for f := range 3 {
		name := filepathFrame("channel", f)
		whole := loadPNG(t, filepath.Join(ref.out, name))
		want := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			// image rows run down, GL's up: GL row h-1-y samples row
			// 2(h-1-y)+1 of 2h, the image's row 2y
			for x := range w {
				copy(want.Pix[want.PixOffset(x, y):want.PixOffset(x, y)+4], whole.Pix[whole.PixOffset(2*x+1, 2*y):])
			}
		}
		matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), want, "the nearest samples of the view at twice the size")
	}
}

// matchesOracle requires got to be want, the picture an oracle made by
// another path, within the corpus test's exact tolerance; what names got
// and oracle the way want was made.
func matchesOracle(t *testing.T, what string, got, want *image.NRGBA, oracle string) {
	t.Helper()
	d, err := imagecmp.Compare(got, want, exactTolerance)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > exactBadMax {
		t.Errorf("%s is not %s: %s", what, oracle, d)
		return
	}
	t.Logf("%s against %s: %s", what, oracle, d)
}

// Only the region a source drew crosses the transport: with region of
// interest readback a DB source sends fewer bytes than its whole region
// (colour and depth, uncompressed), and the picture is the same.
func TestOnlyTheRegionOfInterestIsSent(t *testing.T) {
	// gathered: each source sends its whole region once (an exchange
	// sends it in bands)
	roi := run(t, config("db-lb-4.eqc"), 4, "--codec", "none", "--compositing", "gather")
	full := run(t, config("db-lb-4.eqc"), 4, "--codec", "none", "--compositing", "gather", "--roi=false")
	for _, r := range []runResult{roi, full} {
		if r.err != nil {
			t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
		}
	}
	sent := func(r runResult) (bytes, sources int) {
		for _, rec := range readStats(t, r.out) {
			if rec.Bytes > 0 {
				bytes += rec.Bytes
				sources++
			}
		}
		return
	}
	rb, rn := sent(roi)
	fb, fn := sent(full)
	// a whole 640x360 region of colour and depth
	whole := 8 * 640 * 360
	if fn == 0 || fb < fn*whole {
		t.Fatalf("without region of interest %d frames sent %d bytes; want at least %d each", fn, fb, whole)
	}
	if rn == 0 || rb >= fb*3/4 {
		t.Errorf("with region of interest %d bytes were sent, without %d: the drawn region is much smaller than the region", rb, fb)
	}
	sameWithAndWithoutROI(t, roi, full, "dest", 4)
	t.Logf("sent %d bytes with region of interest, %d without (%.0f%%)", rb, fb, 100*float64(rb)/float64(fb))
}

// zoomConfig writes a config whose w x h destination shows one source,
// a node of its own, that renders the view zoomed.
func zoomConfig(t *testing.T, zoom string, w, h int) string {
	text := fmt.Sprintf(`config {
    appNode { pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "channel" } } } }
    node { host "localhost" pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "buffer" } } } }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "channel" } }
    compound { channel ( segment 0 view 0 )
        compound { channel "buffer" zoom [ %s ] outputframe {} }
        inputframe { name "frame.buffer" }
    }
}
`, w, h, 2*w, 2*h, zoom)
	return configFile(t, "zoom.eqc", text)
}

// configFile writes a config's text into a file of that name in a
// temporary folder, and returns its path.
func configFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// eachFrameSent checks that a run's statistics record n frames sent, each
// of want bytes and a header: what they hold.
func eachFrameSent(t *testing.T, r runResult, n, want int, what string) {
	t.Helper()
	seen := 0
	for _, rec := range readStats(t, r.out) {
		if rec.Bytes == 0 {
			continue
		}
		seen++
		if rec.Bytes < want || rec.Bytes > want+256 {
			t.Errorf("frame %d: %s sent %d bytes; want %s (%d bytes and a header)", rec.Frame, rec.Channel, rec.Bytes, what, want)
		}
	}
	if seen != n {
		t.Errorf("%d records of frames sent; want %d", seen, n)
	}
}

// A source zoomed by 2 on a node of its own (supersampling) sends its
// frame at its share's resolution, scaled down on its GPU: a quarter of
// the pixels it rendered, which the destination would only average down.
// The picture is the view rendered at twice the size (--reference) and
// averaged down on the CPU.
func TestSupersampledFramesTravelAtTheirSharesSize(t *testing.T) {
	const w, h, frames = 400, 200, 3
	r := run(t, zoomConfig(t, "2 2", w, h), frames, "--codec", "none", "--roi=false")
	big := filepath.Join(t.TempDir(), "twice.eqc")
	text, err := os.ReadFile(zoomConfig(t, "1 1", 2*w, 2*h))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, text, 0o644); err != nil {
		t.Fatal(err)
	}
	ref := run(t, big, frames, "--reference")
	for _, x := range []runResult{r, ref} {
		if x.err != nil {
			t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
		}
	}
	eachFrameSent(t, r, frames, 4*w*h, fmt.Sprintf("its share's %dx%d pixels, not the %dx%d it rendered", w, h, 2*w, 2*h))
	for f := range frames {
		name := filepathFrame("channel", f)
		matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), imagecmp.Halve(loadPNG(t, filepath.Join(ref.out, name))),
			"the view at twice the size, scaled down")
	}
}

// A source zoomed to less than 1 (as DFR zooms a slow one) renders the
// view smaller, and the destination stretches it with a linear filter:
// the picture is the view rendered whole at that size (--reference) and
// stretched on the CPU, texel centres on pixel centres and edges clamped,
// within 2. Zooms of 0.5 and of 0.7 x 0.6 (280x120 onto 400x200).
func TestUpscaledSourceIsTheSmallerViewStretched(t *testing.T) {
	const w, h = 400, 200
	for _, zoom := range [][2]float64{{0.5, 0.5}, {0.7, 0.6}} {
		sw, sh := int(math.Round(zoom[0]*w)), int(math.Round(zoom[1]*h))
		t.Run(fmt.Sprintf("%gx%g", zoom[0], zoom[1]), func(t *testing.T) {
			r := run(t, zoomConfig(t, fmt.Sprintf("%g %g", zoom[0], zoom[1]), w, h), 3)
			ref := run(t, zoomConfig(t, "1 1", sw, sh), 3, "--reference")
			for _, x := range []runResult{r, ref} {
				if x.err != nil {
					t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
				}
			}
			for f := 0; f < 3; f++ {
				name := filepathFrame("channel", f)
				small := loadPNG(t, filepath.Join(ref.out, name))
				if small.Rect.Dx() != sw || small.Rect.Dy() != sh {
					t.Fatalf("the reference is %v, want %dx%d", small.Rect.Size(), sw, sh)
				}
				matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), stretch(small, w, h), "the smaller view stretched")
			}
		})
	}
}

// A source zoomed past what GL's framebuffers hold (goeq renders a zoomed
// share offscreen at full size) fails its first frame saying which
// channel needs how many pixels, where it failed as an incomplete
// framebuffer of its window.
func TestAZoomPastTheFramebufferLimitSaysWhichChannel(t *testing.T) {
	r := run(t, zoomConfig(t, "100 1", 400, 200), 2)
	if r.err == nil || !strings.Contains(r.stderr, `channel "buffer" needs 40000x400 pixels this frame`) || !strings.Contains(r.stderr, "larger than this GL's framebuffer limit of") {
		t.Errorf("err %v, want the run failed naming the channel, its size and the limit:\n%s", r.err, tailOf(r.stderr, 2000))
	}
}

// stretch scales src to w x h with a bilinear filter, as a GL's linear
// sampling of a texture drawn over the rectangle does.
func stretch(src *image.NRGBA, w, h int) *image.NRGBA {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	// a pixel centre's coordinate in texels: its two texels and the
	// second's weight
	taps := func(i, n, m int) (int, int, float64) {
		u := min(max((float64(i)+0.5)*float64(m)/float64(n)-0.5, 0), float64(m-1))
		i0 := int(u)
		return i0, min(i0+1, m-1), u - float64(i0)
	}
	for y := 0; y < h; y++ {
		y0, y1, fy := taps(y, h, sh)
		for x := 0; x < w; x++ {
			x0, x1, fx := taps(x, w, sw)
			for c := 0; c < 4; c++ {
				at := func(x, y int) float64 { return float64(src.Pix[src.PixOffset(x, y)+c]) }
				top := at(x0, y0)*(1-fx) + at(x1, y0)*fx
				bottom := at(x0, y1)*(1-fx) + at(x1, y1)*fx
				out.Pix[out.PixOffset(x, y)+c] = uint8(math.Round(top*(1-fy) + bottom*fy))
			}
		}
	}
	return out
}

// A zoomed source's frame, cut to the region it drew, lands where the
// whole frame would: the cut is widened to whole destination pixels (and
// a sample beyond what was drawn, which the filter reaches), so the
// picture is the same with and without region of interest. Cut anywhere,
// it landed up to half a destination pixel off (2-window.ZOOM: a fifth
// of the window's pixels differed, by up to 141). Zooms of 2 (Equalizer's
// supersampling), 0.5 (DFR's half size) and 0.7 x 0.6, whose frames
// meet whole destination pixels only every 10 and 5 of them.
func TestRegionOfInterestKeepsZoomedFramesInPlace(t *testing.T) {
	for _, c := range []struct {
		name, cfg string
		sent      bool // the frames cross the transport (a node of their own)
		cut       bool // and are cut to fewer bytes
	}{
		{"2-window.ZOOM", corpusConfig("2-window.ZOOM.eqc"), false, true},
		{"zoom 2", zoomConfig(t, "2 2", 400, 200), true, true},
		{"zoom 0.5", zoomConfig(t, "0.5 0.5", 400, 200), true, true},
		{"zoom 0.7 0.6", zoomConfig(t, "0.7 0.6", 400, 200), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			roi := run(t, c.cfg, 4, "--codec", "none")
			full := run(t, c.cfg, 4, "--codec", "none", "--roi=false")
			for _, r := range []runResult{roi, full} {
				if r.err != nil {
					t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
				}
			}
			sent := func(r runResult) (bytes int) {
				for _, rec := range readStats(t, r.out) {
					bytes += rec.Bytes
				}
				return bytes
			}
			rb, fb := sent(roi), sent(full)
			if c.sent && fb == 0 {
				t.Fatalf("no bytes were sent without region of interest")
			}
			if c.sent && c.cut && rb >= fb {
				t.Errorf("with region of interest %d bytes were sent, without %d: the model leaves part of the window empty", rb, fb)
			}
			if rb > fb {
				t.Errorf("with region of interest %d bytes were sent, more than the %d without", rb, fb)
			}
			sameWithAndWithoutROI(t, roi, full, "channel", 4)
			t.Logf("sent %d bytes with region of interest, %d without", rb, fb)
		})
	}
}

// sameWithAndWithoutROI requires a channel's first frames to be the same
// pixels in a run with region of interest and one without.
func sameWithAndWithoutROI(t *testing.T, roi, full runResult, label string, frames int) {
	t.Helper()
	for f := range frames {
		name := filepathFrame(label, f)
		d, err := imagecmp.CompareFiles(filepath.Join(roi.out, name), filepath.Join(full.out, name), 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.Bad != 0 {
			t.Errorf("frame %d differs with and without region of interest: %s", f, d)
		}
	}
}

func filepathFrame(label string, f int) string { return fmt.Sprintf("%s-%06d.png", label, f) }

// --layout takes a layout's name, or its index where it has none (the
// corpus' hactar.eqc has two unnamed layouts on its canvas).
func TestLayoutOptionTakesAnIndexForUnnamedLayouts(t *testing.T) {
	m, _, err := compound.Load(filepath.Join(corpusDir(), "hactar.eqc"), compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Configs[0]
	if err := cfg.ActivateLayout("1"); err != nil {
		t.Fatal(err)
	}
	for _, cv := range cfg.Canvases {
		if cv.Layouts[cv.ActiveLayout] != cfg.Layouts[1] {
			t.Errorf("canvas %q shows layout %d, want the config's second", cv.Name, cv.ActiveLayout)
		}
	}
	if err := cfg.ActivateLayout("2"); err == nil || !strings.Contains(err.Error(), "0 (unnamed), 1 (unnamed)") {
		t.Errorf("a third layout: %v", err)
	}
}

// An application's frame is checked before it reaches the planner: a
// model unit for a view there is not, or one out of range, fails it with
// what was wrong; a good one reaches the view.
func TestAnApplicationsModelUnitsAreChecked(t *testing.T) {
	m, _, err := compound.Load(filepath.Join(corpusDir(), "hactar.eqc"), compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cfg: m.Configs[0], data: map[int][]byte{}}
	views := s.cfg.Views()
	for _, c := range []struct {
		units map[int]float64
		want  string
	}{
		{map[int]float64{len(views): 1}, fmt.Sprintf("frame 0: no view %d (the config has %d)", len(views), len(views))},
		{map[int]float64{0: 0}, "frame 1: view 0: model unit 0: want 1e-12 to 1e+12"},
		{map[int]float64{1: math.Inf(1)}, "frame 2: view 1: model unit +Inf: want 1e-12 to 1e+12"},
	} {
		if _, err := s.request(AppFrame{ModelUnits: c.units}); err == nil || err.Error() != c.want {
			t.Errorf("units %v: %v; want %q", c.units, err, c.want)
		}
	}
	req, err := s.request(AppFrame{ModelUnits: map[int]float64{1: 1000}})
	if err != nil || len(req.ModelUnits) != 1 || req.ModelUnits[views[1]] != 1000 {
		t.Errorf("unit 1000 for view 1: %v, %v", req.ModelUnits, err)
	}
}

// An application's layout and view mode switches after which the frames
// would wait in a circle (planner.CheckOrder) are refused by the server
// too, for an application that does not ask through goeq.Config; the
// others reach the scheduler.
func TestAnApplicationsStuckSwitchesAreRefused(t *testing.T) {
	m, _, err := compound.Load(filepath.Join("..", "planner", "testdata", "stuck-switches.eqc"), compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cfg: m.Configs[0], data: map[int][]byte{}}
	stuck, err := planner.CheckOrder(s.cfg)
	if err != nil || len(stuck) != 2 {
		t.Fatalf("check: %v, %v", stuck, err)
	}
	s.refuse(stuck)
	for _, c := range []struct {
		af   AppFrame
		want string
	}{
		{AppFrame{CanvasLayouts: map[int]int{0: 1}}, `frame 0: layout "split" on canvas 0 would never complete a frame: ../planner/testdata/stuck-switches.eqc:28:42: input frame "right" is never assembled: `},
		{AppFrame{ViewModes: map[int]bool{0: true}}, `frame 1: view 0 in stereo would never complete a frame: ../planner/testdata/stuck-switches.eqc:20:46: input frame "r" is never assembled: `},
	} {
		if _, err := s.request(c.af); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.af, err, c.want)
		}
	}
	req, err := s.request(AppFrame{CanvasLayouts: map[int]int{0: 0}, ViewModes: map[int]bool{0: false, 1: true}})
	if err != nil || len(req.Layouts) != 1 || len(req.ViewModes) != 2 {
		t.Errorf("the layout and modes that work: %+v, %v", req, err)
	}
}

// An application's balancing is checked before it reaches the planner: a
// view there is not, or a setting out of range, fails the frame with what
// was wrong; a good one reaches the view.
func TestAnApplicationsBalancingIsChecked(t *testing.T) {
	m, _, err := compound.Load(filepath.Join(corpusDir(), "hactar.eqc"), compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cfg: m.Configs[0], data: map[int][]byte{}}
	views := s.cfg.Views()
	good := s.cfg.ViewBalancing(views[1])
	bad := good
	bad.TileSize = [2]int{0, 64}
	for _, c := range []struct {
		change map[int]compound.BalancingChange
		want   string
	}{
		{map[int]compound.BalancingChange{len(views): {Balancing: good}}, fmt.Sprintf("frame 0: no view %d (the config has %d)", len(views), len(views))},
		{map[int]compound.BalancingChange{1: {Balancing: bad, Fields: compound.BalanceTileSize}}, "frame 1: view 1: balancing: tile size [ 0 64 ] must be 1 to 16384 pixels in each direction"},
	} {
		if _, err := s.request(AppFrame{Balancing: c.change}); err == nil || err.Error() != c.want {
			t.Errorf("balancing %v: %v; want %q", c.change, err, c.want)
		}
	}
	frozen := good
	frozen.Frozen = true
	req, err := s.request(AppFrame{Balancing: map[int]compound.BalancingChange{1: frozen.Diff(good)}})
	if ch, ok := req.Balancing[views[1]]; err != nil || len(req.Balancing) != 1 || !ok || ch.Fields != compound.BalanceFrozen {
		t.Errorf("view 1 frozen: %v, %v", req.Balancing, err)
	}
}
