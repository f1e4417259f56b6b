package channel

import (
	"bytes"
	"slices"
	"testing"

	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
)

// solidPixels is a w x h colour frame of one colour.
func solidPixels(w, h int, rgba [4]byte) *Pixels {
	return &Pixels{PixelViewport: compound.PixelViewport{W: w, H: h}, Color: bytes.Repeat(rgba[:], w*h)}
}

// A frame uploaded into a pooled texture larger than itself (the pool
// hands out textures up to four times a frame's area, as DFR's changing
// sizes make it do) is stretched from its own texels only: filtering at
// its right and top edges must not reach into what the texture held
// before.
func TestScaledFrameSamplesOnlyItsOwnTexels(t *testing.T) {
	green, red := [4]byte{0, 255, 0, 255}, [4]byte{255, 0, 0, 255}
	withPipes(t, func(t *testing.T, f *fixture) {
		var got *Pixels
		var texW, texH int
		err := f.pipe.Do(func() error {
			stale := f.pipe.StartUpload(solidPixels(destW, destH, red))
			if err := stale.Use(); err != nil {
				return err
			}
			stale.Release()
			w, h := destW/2, destH/2
			up := f.pipe.StartUpload(solidPixels(w, h, green))
			if err := up.Use(); err != nil {
				return err
			}
			defer up.Release()
			texW, texH = up.TexW, up.TexH
			dst, err := glutil.NewTarget(destW, destH)
			if err != nil {
				return err
			}
			defer dst.Delete()
			dst.Bind()
			clearTo(background)()
			if err := f.comp.AssembleScaled(up.Color, w, h, up.TexW, up.TexH, gpu.Rect{W: destW, H: destH}, false); err != nil {
				return err
			}
			got = readTarget(dst, false)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if texW <= destW/2 || texH <= destH/2 {
			t.Fatalf("the frame got a %dx%d texture of its own size: the pool did not reuse the larger one", texW, texH)
		}
		compare(t, "stretched frame", got.Color, solidPixels(destW, destH, green).Color, 1, 0)
	})
}

// A cut of a zoomed read holds the span asked for, and its edges fall on
// whole pixels of the read, of its share and of a scaled copy of it (an
// output frame's zoom), for every span of reads, shares and copies of many
// sizes.
func TestCutOnWholePixels(t *testing.T) {
	for n := 1; n <= 24; n++ {
		for m := 1; m <= 24; m++ {
			for k := 1; k <= 24; k++ {
				for lo := 0; lo < n; lo++ {
					for hi := lo + 1; hi <= n; hi++ {
						rlo, rhi, slo, shi, klo, khi := cutOnWholePixels(lo, hi, n, m, k)
						if rlo > lo || rhi < hi || rlo < 0 || rhi > n || slo < 0 || shi > m || slo >= shi || klo < 0 || khi > k || klo >= khi {
							t.Fatalf("read %d onto %d (scaled to %d), span [%d, %d): cut [%d, %d) onto [%d, %d) and [%d, %d)", n, m, k, lo, hi, rlo, rhi, slo, shi, klo, khi)
						}
						if slo*n != rlo*m || shi*n != rhi*m || slo*k != klo*m || shi*k != khi*m {
							t.Fatalf("read %d onto %d (scaled to %d), span [%d, %d): the cut [%d, %d) onto [%d, %d) and [%d, %d) is off whole pixels", n, m, k, lo, hi, rlo, rhi, slo, shi, klo, khi)
						}
					}
				}
			}
		}
	}
	// as narrow as the pixels allow: a read twice its share's size is cut
	// on every other pixel
	if rlo, rhi, slo, shi, _, _ := cutOnWholePixels(115, 384, 500, 250, 500); rlo != 114 || rhi != 384 || slo != 57 || shi != 192 {
		t.Errorf("[115, 384) of 500 onto 250: cut [%d, %d) onto [%d, %d), want [114, 384) onto [57, 192)", rlo, rhi, slo, shi)
	}
}

// The samples a producer keeps of a frame with depth that travels smaller
// (nearestSamples) are, colour and depth, what the consumer's scaled depth
// merge on the GPU takes of the whole frame: ratios of 2, odd ones, and
// ones just above 2 and 1.
func TestNearestSamplesAreWhatAScaledDepthMergeTakes(t *testing.T) {
	sizes := [][4]int{{8, 6, 4, 3}, {7, 5, 3, 2}, {150, 100, 100, 50}, {257, 97, 128, 48}, {161, 100, 160, 99}}
	withPipes(t, func(t *testing.T, f *fixture) {
		for _, s := range sizes {
			rw, rh, w, h := s[0], s[1], s[2], s[3]
			px := &Pixels{PixelViewport: compound.PixelViewport{W: rw, H: rh}, Color: make([]byte, 4*rw*rh), Depth: make([]float32, rw*rh)}
			for i := range rw * rh {
				px.Color[4*i], px.Color[4*i+1], px.Color[4*i+2], px.Color[4*i+3] = byte(i), byte(i>>8), byte(i*7), 255
				px.Depth[i] = 0.25 + 0.5*float32(i)/float32(rw*rh)
			}
			want := nearestSamples(px, w, h)
			var got *Pixels
			err := f.pipe.Do(func() error {
				up := f.pipe.StartUpload(px)
				if err := up.Use(); err != nil {
					return err
				}
				defer up.Release()
				dst, err := glutil.NewTarget(w, h)
				if err != nil {
					return err
				}
				defer dst.Delete()
				dst.Bind()
				clearTo(background)()
				if err := f.comp.DepthMergeScaled(up.Color, up.Depth, rw, rh, gpu.Rect{W: w, H: h}); err != nil {
					return err
				}
				got = readTarget(dst, true)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Color, want.Color) || !slices.Equal(got.Depth, want.Depth) {
				bad := 0
				for i := range w * h {
					if !bytes.Equal(got.Color[4*i:4*i+4], want.Color[4*i:4*i+4]) {
						bad++
					}
				}
				t.Errorf("%dx%d onto %dx%d: %d of %d pixels differ from the scaled depth merge's", rw, rh, w, h, bad, w*h)
			}
		}
	})
}
