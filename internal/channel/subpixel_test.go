package channel

import (
	"slices"
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

// Subpixel inputs group by decomposition (those that share pixels: places
// that overlap, on common columns and rows of a pixel compound) and within
// one by sample; a sample of several frames, or of one that does
// not cover the decomposition, is composited before it is averaged.
func TestSubpixelInputsGroupBySample(t *testing.T) {
	full := compound.PixelViewport{W: 300, H: 200}
	left, right := compound.PixelViewport{W: 150, H: 200}, compound.PixelViewport{X: 150, W: 150, H: 200}
	frame := func(at compound.PixelViewport, index, size int) *arrival {
		return &arrival{data: &FrameData{Share: at, W: at.W, H: at.H, Subpixel: compound.Subpixel{Index: index, Size: size}}}
	}
	// a subpixel sample of row y (from at's corner) of a pixel compound
	// of two rows
	pixelFrame := func(at compound.PixelViewport, index, size, y int) *arrival {
		ar := frame(compound.PixelViewport{X: at.X, Y: at.Y, W: at.W, H: at.H / 2}, index, size)
		ar.data.Share, ar.data.Pixel = at, compound.Pixel{X: 0, Y: y, W: 1, H: 2}
		return ar
	}
	place := func(ar *arrival) compound.PixelViewport { return ar.data.Share }
	type want struct {
		at      compound.PixelViewport
		samples []int // frames per sample
		weights []int // each sample's samples of the sizes' least common multiple
		whole   bool  // one frame per sample, covering at
	}
	for _, c := range []struct {
		name   string
		frames []*arrival
		want   []want
	}{
		{"one frame per sample", []*arrival{frame(full, 0, 2), frame(full, 1, 2)}, []want{{full, []int{1, 1}, []int{1, 1}, true}}},
		{"2D parts each averaged in their part", []*arrival{frame(left, 0, 2), frame(right, 0, 2), frame(left, 1, 2), frame(right, 1, 2)},
			[]want{{left, []int{1, 1}, []int{1, 1}, true}, {right, []int{1, 1}, []int{1, 1}, true}}},
		{"DB ranges under each sample", []*arrival{frame(full, 0, 2), frame(full, 1, 2), frame(full, 0, 2), frame(full, 1, 2)},
			[]want{{full, []int{2, 2}, []int{1, 1}, false}}},
		{"a 2D split under one sample", []*arrival{frame(left, 0, 2), frame(full, 1, 2), frame(right, 0, 2)},
			[]want{{full, []int{2, 1}, []int{1, 1}, false}}},
		{"the rows of a pixel compound each", []*arrival{pixelFrame(full, 0, 2, 0), pixelFrame(full, 1, 2, 0), pixelFrame(full, 0, 3, 1), pixelFrame(full, 1, 3, 1), pixelFrame(full, 2, 3, 1)},
			[]want{{full, []int{1, 1}, []int{1, 1}, false}, {full, []int{1, 1, 1}, []int{1, 1, 1}, false}}},
		// a part of the split of a row from row 51: its row 0 is the
		// compound's row 1
		{"a part of a row", []*arrival{pixelFrame(full, 0, 2, 1), pixelFrame(full, 1, 2, 1), pixelFrame(compound.PixelViewport{Y: 51, W: 300, H: 149}, 0, 2, 0), pixelFrame(compound.PixelViewport{Y: 51, W: 300, H: 149}, 1, 2, 0)},
			[]want{{full, []int{2, 2}, []int{1, 1}, false}}},
		// samples of the least common multiple of the sizes, each frame
		// in those of its own sample: the left half of sample 0 of 2 with
		// each of the right half's samples 0 to 2 of 6, and sample 1 of
		// 2 weighing three, so that it weighs half
		{"samples nested in one sample", []*arrival{frame(left, 0, 2), frame(right, 0, 6), frame(right, 1, 6), frame(right, 2, 6), frame(full, 1, 2)},
			[]want{{full, []int{2, 2, 2, 1}, []int{1, 1, 1, 3}, false}}},
		// two DB ranges, one of 2 samples and one of 3: each of the 6
		// samples has one frame of each, and the samples with the same
		// two weigh together
		{"decompositions of two sizes in DB ranges", []*arrival{frame(full, 0, 2), frame(full, 1, 2), frame(full, 0, 3), frame(full, 1, 3), frame(full, 2, 3)},
			[]want{{full, []int{2, 2, 2, 2}, []int{2, 1, 1, 2}, false}}},
		// samples 0 and 1 of 2 with sample 0 of 255 make 510 samples of
		// which 2 have two frames: three weighed samples, not 510
		{"decompositions of 2 and 255 samples", []*arrival{frame(full, 0, 2), frame(full, 1, 2), frame(full, 0, 255)},
			[]want{{full, []int{2, 1, 1}, []int{2, 253, 255}, false}}},
		{"a sample no frame drew is left out", []*arrival{frame(full, 0, 3), frame(full, 2, 3)}, []want{{full, []int{1, 1}, []int{1, 1}, true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := subpixelDecompositions(c.frames, place)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d decompositions, want %d", len(got), len(c.want))
			}
			for i, w := range c.want {
				d := got[i]
				var samples []int
				for _, s := range d.samples {
					samples = append(samples, len(s))
				}
				if d.at != w.at || !slices.Equal(samples, w.samples) || !slices.Equal(d.weights, w.weights) || d.oneFramePerSample != w.whole {
					t.Errorf("decomposition %d: at %v, frames per sample %v weighing %v, one frame per sample %v; want %v, %v, %v, %v",
						i, d.at, samples, d.weights, d.oneFramePerSample, w.at, w.samples, w.weights, w.whole)
				}
			}
		})
	}
}

// A frame's subpixel sample comes from the network: one outside its size,
// or sizes whose least common multiple is too many samples to weigh, fail
// the frame rather than the render client.
func TestSubpixelInputsOfNoSampleAreRefused(t *testing.T) {
	full := compound.PixelViewport{W: 30, H: 20}
	frame := func(index, size int) *arrival {
		return &arrival{data: &FrameData{Name: "f", Producer: "src", Share: full, W: full.W, H: full.H, Subpixel: compound.Subpixel{Index: index, Size: size}}}
	}
	place := func(ar *arrival) compound.PixelViewport { return ar.data.Share }
	for _, frames := range [][]*arrival{
		{frame(-1, 2), frame(1, 2)},
		{frame(0, 2), frame(2, 2)},
		{frame(0, 1<<40), frame(1, 2)},
		{frame(0, 4093), frame(0, 4091), frame(0, 4087)},
	} {
		if _, err := subpixelDecompositions(frames, place); err == nil {
			t.Errorf("samples %v and %v: no error", frames[0].data.Subpixel, frames[1].data.Subpixel)
		}
	}
}
