package server

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/imagecmp"
)

// Subpixel sources (subpixel [ i n ]) each render the view with their own
// sample's jitter, and the destination shows their mean: the picture is
// the mean, taken on the CPU, of n runs that each render one of the
// samples alone. A source that drew another's sample, or a mean over the
// wrong samples, would leave edges that differ.
func TestSubpixelSamplesAverageToTheirSeparateRenders(t *testing.T) {
	const w, h, n, frames = 240, 160, 4, 2
	write := func(name, body string, sources int) string {
		path := filepath.Join(t.TempDir(), name+".eqc")
		text := generated{w: w, h: h, sources: sources}.config("task [ CLEAR ASSEMBLE ]\n        " + body + "\n        " + inputFrames(sources))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var all string
	for i := range n {
		all += source(i, fmt.Sprintf("subpixel [ %d %d ]", i, n)) + "\n        "
	}
	r := run(t, write("subpixel", all, n), frames)
	if r.err != nil {
		t.Fatalf("run failed: %v\n%s", r.err, r.stderr)
	}
	var samples [n]runResult
	for i := range n {
		samples[i] = run(t, write(fmt.Sprintf("sample%d", i), source(0, fmt.Sprintf("subpixel [ %d %d ]", i, n)), 1), frames)
		if samples[i].err != nil {
			t.Fatalf("sample %d alone failed: %v\n%s", i, samples[i].err, samples[i].stderr)
		}
	}
	for f := range frames {
		name := filepathFrame("dest", f)
		var imgs [n]*image.NRGBA
		for i := range n {
			imgs[i] = loadPNG(t, filepath.Join(samples[i].out, name))
		}
		if d, _ := imagecmp.Compare(imgs[0], imgs[1], 0); d.Bad == 0 {
			t.Fatalf("frame %d: samples 0 and 1 rendered alone are the same picture: no jitter", f)
		}
		mean := image.NewNRGBA(imgs[0].Rect)
		for p := range mean.Pix {
			s := 0
			for i := range n {
				s += int(imgs[i].Pix[p])
			}
			mean.Pix[p] = uint8((s + n/2) / n)
		}
		matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), mean, "the mean of its samples rendered alone")
	}
}
