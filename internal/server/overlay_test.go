package server

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/control"
)

// TestStatisticsOverlay runs a fixed 2x2 split with --overlay: frame 5
// shows each source's share outlined in its colour where the split puts
// it, and a source's draw-time bar at the top left; without --overlay
// those pixels are the picture's.
func TestStatisticsOverlay(t *testing.T) {
	b, err := os.ReadFile(config("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`load_equalizer\s*\{[^}]*\}`).ReplaceAllString(string(b), "")
	for name, vp := range map[string]string{"src1": "0 0 .5 .5", "src2": "0 .5 .5 .5", "src3": ".5 0 .5 .5", "src4": ".5 .5 .5 .5"} {
		text = strings.Replace(text, fmt.Sprintf("channel %q\n", name), fmt.Sprintf("channel %q\n            viewport [ %s ]\n", name, vp), 1)
	}
	cfg := filepath.Join(t.TempDir(), "2d-fixed-4.eqc")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const frames, h = 6, 360
	on, off := run(t, cfg, frames, "--overlay"), run(t, cfg, frames)
	for _, r := range []runResult{on, off} {
		if r.err != nil {
			t.Fatalf("run: %v\n%s", r.err, r.stderr)
		}
	}
	name := fmt.Sprintf("dest-%06d.png", frames-1)
	withOverlay, without := loadPNG(t, filepath.Join(on.out, name)), loadPNG(t, filepath.Join(off.out, name))
	// a pixel in OpenGL's coordinates (from the bottom left)
	pixel := func(img *image.NRGBA, x, y int) [3]int {
		o := img.PixOffset(x, h-1-y)
		return [3]int{int(img.Pix[o]), int(img.Pix[o+1]), int(img.Pix[o+2])}
	}
	near := func(a [3]int, c [3]float32) bool {
		for i := range a {
			if d := a[i] - int(c[i]*255+0.5); d > 1 || d < -1 {
				return false
			}
		}
		return true
	}
	// colours by channel as the dashboard lists them: the destination
	// first, then src1..src4
	var colours [][3]float32
	for _, c := range control.Palette[1:5] {
		colours = append(colours, [3]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255})
	}
	edges := [][2]int{{0, 90}, {0, 270}, {320, 90}, {320, 270}} // each source's left edge, halfway up
	for i, e := range edges {
		got := pixel(withOverlay, e[0], e[1])
		if !near(got, colours[i]) {
			t.Errorf("src%d's outline at (%d, %d) is %v, want %v", i+1, e[0], e[1], got, colours[i])
		}
		if near(pixel(without, e[0], e[1]), colours[i]) {
			t.Errorf("without the overlay, (%d, %d) has src%d's outline colour already", e[0], e[1], i+1)
		}
	}
	// the second row of bars is a source's (one row per record, the
	// destination's among them): its first bar is its draw time
	draw := [3]float32{0.2, 0.8, 0.2}
	if got := pixel(withOverlay, 8, h-12-10+3); !near(got, draw) {
		t.Errorf("the draw bar at (8, %d) is %v, want %v", h-12-10+3, got, draw)
	}
}
