package server

import (
	"fmt"
	"image"
	"image/draw"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/imagecmp"
)

// frameZoomConfig writes a config whose w x h destination draws the right
// half of its view and shows the left half from a source on a node of its
// own, through an output frame zoomed by out and an input frame zoomed by
// in.
func frameZoomConfig(t *testing.T, out, in string, buffers string, w, h int) string {
	text := fmt.Sprintf(`config {
    appNode { pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "channel" } } } }
    node { host "localhost" pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "buffer" } } } }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "channel" } }
    compound { channel ( segment 0 view 0 ) buffer [ %s ]
        compound { viewport [ 0.5 0 0.5 1 ] }
        compound { channel "buffer" viewport [ 0 0 0.5 1 ] outputframe { zoom [ %s ] } }
        inputframe { name "frame.buffer" zoom [ %s ] }
    }
}
`, w, h, w/2, h, buffers, out, in)
	return configFile(t, "framezoom.eqc", text)
}

// Frame zooms that cancel out, [ 0.5 0.5 ] on the output frame and
// [ 2 2 ] on the input frame, send the frame at half its resolution,
// scaled down on the producer's GPU, and show it at its place (as
// Equalizer reads and assembles such frames): a quarter of the bytes, and
// the picture is the view (--reference) whose left half is averaged down
// and stretched back on the CPU. With region of interest the cut falls on
// whole pixels of the read, its share and its half, so the picture is the
// same. With depth, which is not averaged, the half keeps the sample
// nearest each of its pixels (nearestSamples), and the destination's
// scaled depth merge stretches it unfiltered: the view with each 2x2 block
// of its left half one sample of it. Before, goeq ignored frame zooms with
// a warning.
func TestFrameZoomsThatCancelOutSendTheFrameSmaller(t *testing.T) {
	const w, h, frames = 400, 200, 3
	ref := run(t, frameZoomConfig(t, "1 1", "1 1", "COLOR", w, h), frames, "--reference")
	full := run(t, frameZoomConfig(t, "0.5 0.5", "2 2", "COLOR", w, h), frames, "--codec", "none", "--roi=false")
	roi := run(t, frameZoomConfig(t, "0.5 0.5", "2 2", "COLOR", w, h), frames)
	depth := run(t, frameZoomConfig(t, "0.5 0.5", "2 2", "COLOR DEPTH", w, h), frames, "--codec", "none", "--roi=false")
	for _, x := range []runResult{ref, full, roi, depth} {
		if x.err != nil {
			t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
		}
	}
	eachFrameSent(t, full, frames, 4*(w/4)*(h/2), fmt.Sprintf("its %dx%d half", w/4, h/2))
	eachFrameSent(t, depth, frames, 8*(w/4)*(h/2), fmt.Sprintf("its %dx%d half, colour and depth", w/4, h/2))
	for f := range frames {
		name := filepathFrame("channel", f)
		view := loadPNG(t, filepath.Join(ref.out, name))
		want := image.NewNRGBA(view.Rect)
		draw.Draw(want, want.Rect, view, image.Point{}, draw.Src)
		left := stretch(imagecmp.Halve(imagecmp.Crop(view, image.Rect(0, 0, w/2, h))), w/2, h)
		draw.Draw(want, image.Rect(0, 0, w/2, h), left, image.Point{}, draw.Src)
		matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(full.out, name)), want, "the view with its left half halved and stretched")
		matchesOracle(t, fmt.Sprintf("frame %d with region of interest", f), loadPNG(t, filepath.Join(roi.out, name)), want, "the view with its left half halved and stretched")
		blocks := image.NewNRGBA(view.Rect)
		draw.Draw(blocks, blocks.Rect, view, image.Point{}, draw.Src)
		draw.Draw(blocks, image.Rect(0, 0, w/2, h), nearestOf(nearestOf(imagecmp.Crop(view, image.Rect(0, 0, w/2, h)), w/4, h/2), w/2, h), image.Point{}, draw.Src)
		matchesOracle(t, fmt.Sprintf("frame %d with depth", f), loadPNG(t, filepath.Join(depth.out, name)), blocks, "the view with its left half in blocks of one sample")
	}
}

// An output frame's zoom that its input frame does not cancel lands the
// frame scaled from the corner of its consumer's channel, as Equalizer
// lands it, and check says so: [ 0.5 0.5 ] alone puts the left half,
// averaged down, into the lower left quarter of it.
func TestAFrameZoomThatIsNotCancelledLandsScaled(t *testing.T) {
	const w, h, frames = 400, 200, 2
	cfg := frameZoomConfig(t, "0.5 0.5", "1 1", "COLOR", w, h)
	ref := run(t, frameZoomConfig(t, "1 1", "1 1", "COLOR", w, h), frames, "--reference")
	r := run(t, cfg, frames)
	for _, x := range []runResult{ref, r} {
		if x.err != nil {
			t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
		}
	}
	if !strings.Contains(r.stderr, "lands scaled by [ 0.5 0.5 ] from the corner of its consumer's channel") {
		t.Errorf("no warning that the frame lands scaled:\n%s", tailOf(r.stderr, 2000))
	}
	for f := range frames {
		name := filepathFrame("channel", f)
		view, got := loadPNG(t, filepath.Join(ref.out, name)), loadPNG(t, filepath.Join(r.out, name))
		quarter := image.Rect(0, h/2, w/4, h) // the lower left, in rows from the top
		matchesOracle(t, fmt.Sprintf("frame %d's lower left", f), imagecmp.Crop(got, quarter), imagecmp.Halve(imagecmp.Crop(view, image.Rect(0, 0, w/2, h))), "the left half averaged down")
		matchesOracle(t, fmt.Sprintf("frame %d's right half", f), imagecmp.Crop(got, image.Rect(w/2, 0, w, h)), imagecmp.Crop(view, image.Rect(w/2, 0, w, h)), "the view's right half")
	}
}

// Random trees, half of them assembling, whose frames (a random two thirds
// of them) have output and input zooms that cancel out: [ 0.5 0.5 ] and
// [ 2 2 ], [ 0.5 1 ] and [ 2 1 ], or [ 0.25 0.5 ] and [ 4 2 ]. Each such
// frame travels at that fraction of its resolution (with depth, as the
// samples nearest its pixels) and lands at its place, so the picture is
// the reference's within the resampling allowance; frames of a pixel or
// subpixel decomposition or a tile queue travel whole. In trees without
// depth ranges the zoomed frames carry colour alone. A tree where the
// zooms would not cancel (a zoomed source's frame: check warns that it
// lands scaled) is drawn again, as is one with a frame of colour alone
// that an assembly sends on with depth, whose pixels the depth merge
// above it drops (check warns; the first 150 found it). Under the
// synthetic renderer, whose smooth pattern resamples within the
// allowance. make test runs 2; GOEQ_RANDOM_TREES=N runs N/2, from seed
// GOEQ_RANDOM_TREES_FROM. Seeds 0 to 199 pass.
func TestRandomFrameZoomTreesMatchTheReference(t *testing.T) {
	t.Setenv("GOEQ_PROBE_RENDERER", "synthetic")
	pairs := [][2]string{{"0.5 0.5", "2 2"}, {"0.5 1", "2 1"}, {"0.25 0.5", "4 2"}}
	named := regexp.MustCompile(`(outputframe|inputframe) \{ name "([^"]+)"`)
	for _, seed := range randomSeeds(2, 2) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x200f))
			zr := rand.New(rand.NewPCG(uint64(seed), 0x2010))
			runRandomConfig(t, func() (string, string) {
				for {
					g, body := randomTreeOf(r, zr.IntN(2) == 0)
					zoomOf := map[string][2]string{}
					for _, m := range named.FindAllStringSubmatch(body, -1) {
						if _, ok := zoomOf[m[2]]; !ok && m[1] == "outputframe" && zr.IntN(3) > 0 {
							zoomOf[m[2]] = pairs[zr.IntN(len(pairs))]
						}
					}
					colour := !strings.Contains(body, "range [") && !strings.Contains(body, "mode DB")
					body = named.ReplaceAllStringFunc(body, func(s string) string {
						m := named.FindStringSubmatch(s)
						z, ok := zoomOf[m[2]]
						if !ok {
							return s
						}
						if m[1] == "outputframe" && colour {
							return s + " buffers [ COLOR ] zoom [ " + z[0] + " ]"
						}
						if m[1] == "outputframe" {
							return s + " zoom [ " + z[0] + " ]"
						}
						return s + " zoom [ " + z[1] + " ]"
					})
					if text := g.config(body); !checkWarns(t, text, "lands scaled by", "carries colour alone") {
						return text, fmt.Sprintf("%dx%d, frame zooms %v:\n%s", g.w, g.h, zoomOf, body)
					}
				}
			})
		})
	}
}

// nearestOf is the w x h picture over src whose every pixel takes the
// sample of src nearest its centre, counting rows from the bottom as GL
// does: what a scaled depth merge takes, scaling down or up.
func nearestOf(src *image.NRGBA, w, h int) *image.NRGBA {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for j := range h { // from the bottom
		sy := sh - 1 - (2*j+1)*sh/(2*h)
		for i := range w {
			sx := (2*i + 1) * sw / (2 * w)
			copy(out.Pix[out.PixOffset(i, h-1-j):out.PixOffset(i, h-1-j)+4], src.Pix[src.PixOffset(sx, sy):])
		}
	}
	return out
}

// Two DB sources zoomed by 2 (supersampling), each on a node of its own,
// send their frames of colour and depth at their share's resolution: the
// sample nearest each of its pixels (nearestSamples), which is what the
// destination's scaled depth merge took of the whole frame, so a quarter
// of the bytes. The picture is the view rendered at twice the size
// (--reference) with those samples kept on the CPU.
func TestSupersampledDepthFramesTravelAtTheirShare(t *testing.T) {
	const w, h, frames = 320, 200, 3
	config := func(w, h int, zoom string) string {
		text := fmt.Sprintf(`config {
    appNode { pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "channel" } } } }
    node { host "localhost" pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "a" } } } }
    node { host "localhost" pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "b" } } } }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "channel" } }
    compound { channel ( segment 0 view 0 ) buffer [ COLOR DEPTH ]
        compound { channel "a" range [ 0 0.5 ] zoom [ %s ] outputframe {} }
        compound { channel "b" range [ 0.5 1 ] zoom [ %s ] outputframe {} }
        inputframe { name "frame.a" } inputframe { name "frame.b" }
    }
}
`, w, h, 2*w, 2*h, 2*w, 2*h, zoom, zoom)
		return configFile(t, "db.eqc", text)
	}
	r := run(t, config(w, h, "2 2"), frames, "--codec", "none", "--roi=false", "--compositing", "gather")
	ref := run(t, config(2*w, 2*h, "1 1"), frames, "--reference")
	for _, x := range []runResult{r, ref} {
		if x.err != nil {
			t.Fatalf("run failed: %v\n%s", x.err, x.stderr)
		}
	}
	eachFrameSent(t, r, 2*frames, 8*w*h, fmt.Sprintf("its share's %dx%d pixels of colour and depth, not the %dx%d it rendered", w, h, 2*w, 2*h))
	for f := range frames {
		name := filepathFrame("channel", f)
		matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), nearestOf(loadPNG(t, filepath.Join(ref.out, name)), w, h),
			"the view at twice the size, a sample of each 2x2")
	}
}
