// Package imagecmp compares rendered images with their references: pixels
// beyond a per-channel tolerance, the worst difference, and PSNR.
package imagecmp

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
)

// Load reads a PNG as NRGBA.
func Load(path string) (*image.NRGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n, ok := img.(*image.NRGBA); ok {
		return n, nil
	}
	if n := opaqueNRGBA(img); n != nil {
		return n, nil
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Bounds(), img, img.Bounds().Min, draw.Src)
	return n, nil
}

// What a decomposed picture is held to against its reference, the same
// frame rendered undecomposed (Diff.Matches).
const (
	// Tolerance is the difference allowed per colour channel.
	Tolerance = 2
	// EdgeFraction of the pixels, and at least EdgePixels, may differ
	// more: where a triangle edge passes exactly through a sample, the
	// sub-frustum of a part rasterises it differently from the whole. The
	// floor is for small windows, where the fraction is less than one
	// pixel and would demand that no edge meet any sample.
	EdgeFraction = 0.0002
	EdgePixels   = 1
	// ResampledPSNR is the least PSNR (dB) of a config that changes
	// resolution or sampling on purpose (compound.Config.Resampling).
	ResampledPSNR = 30.0
)

// Diff is how two images of one size differ (colour channels only: the
// alpha of a displayed image carries nothing).
type Diff struct {
	Pixels int     // pixels in all
	Bad    int     // pixels with a channel differing by more than the tolerance
	Worst  int     // largest channel difference
	PSNR   float64 // peak signal-to-noise ratio in dB (+Inf when equal)
	// Box bounds the pixels beyond the tolerance (empty when none), in
	// the images' coordinates: x rightwards, y down from the top left.
	Box image.Rectangle
}

// Matches reports whether d, a decomposed picture measured against its
// reference with Tolerance, is as close as the decomposition allows:
// within the tolerance but for EdgeFraction of the pixels, or where the
// config resamples (resampling names why: compound.Config.Resampling), a
// PSNR of ResampledPSNR.
func (d Diff) Matches(resampling string) bool {
	if resampling != "" {
		return d.PSNR >= ResampledPSNR
	}
	return d.Bad <= max(EdgePixels, int(EdgeFraction*float64(d.Pixels)))
}

// Allowance says what Matches allows, for reports.
func Allowance(resampling string) string {
	if resampling == "" {
		return fmt.Sprintf("within %d per colour channel but for %.2f%% of the pixels, and never fewer than %d", Tolerance, 100*EdgeFraction, EdgePixels)
	}
	return fmt.Sprintf("a PSNR of %.0f dB or more, as the config resamples (%s)", ResampledPSNR, resampling)
}

// BadFraction is Bad / Pixels.
func (d Diff) BadFraction() float64 {
	if d.Pixels == 0 {
		return 0
	}
	return float64(d.Bad) / float64(d.Pixels)
}

func (d Diff) String() string {
	return fmt.Sprintf("%d of %d pixels beyond tolerance (%.3f%%), worst %d, PSNR %.1f dB", d.Bad, d.Pixels, 100*d.BadFraction(), d.Worst, d.PSNR)
}

// Compare measures a against b with a per-channel tolerance.
func Compare(a, b *image.NRGBA, tol int) (Diff, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return Diff{}, fmt.Errorf("sizes differ: %v and %v", a.Bounds().Size(), b.Bounds().Size())
	}
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	d := Diff{Pixels: w * h}
	var sq float64
	for y := 0; y < h; y++ {
		ra := a.Pix[y*a.Stride : y*a.Stride+4*w]
		rb := b.Pix[y*b.Stride : y*b.Stride+4*w]
		for i := 0; i < len(ra); i += 4 {
			over := false
			for c := 0; c < 3; c++ {
				v := int(ra[i+c]) - int(rb[i+c])
				if v < 0 {
					v = -v
				}
				sq += float64(v * v)
				d.Worst = max(d.Worst, v)
				over = over || v > tol
			}
			if over {
				d.Bad++
				d.Box = d.Box.Union(image.Rect(i/4, y, i/4+1, y+1))
			}
		}
	}
	mse := sq / float64(3*d.Pixels)
	d.PSNR = math.Inf(1)
	if mse > 0 {
		d.PSNR = 10 * math.Log10(255*255/mse)
	}
	return d, nil
}

// CompareFiles loads and compares two PNG files.
func CompareFiles(a, b string, tol int) (Diff, error) {
	ia, err := Load(a)
	if err != nil {
		return Diff{}, err
	}
	ib, err := Load(b)
	if err != nil {
		return Diff{}, err
	}
	return Compare(ia, ib, tol)
}

// opaqueNRGBA is an opaque RGBA image's pixels as NRGBA, which are the
// same bytes (goeq writes RGB PNGs, which decode so); nil for any other
// image. draw.Draw converts pixel by pixel, 20 ms for a 1280x800 frame.
func opaqueNRGBA(img image.Image) *image.NRGBA {
	rgba, ok := img.(*image.RGBA)
	if !ok {
		return nil
	}
	b := rgba.Rect
	n := image.NewNRGBA(b)
	for y := 0; y < b.Dy(); y++ {
		row := rgba.Pix[y*rgba.Stride : y*rgba.Stride+4*b.Dx()]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return nil
			}
		}
		copy(n.Pix[y*n.Stride:], row)
	}
	return n
}

// Halve averages each 2x2 block of pixels into one (halves rounded up): a
// reference rendered at twice the size, halved, is a supersampled one.
func Halve(src *image.NRGBA) *image.NRGBA {
	w, h := src.Rect.Dx()/2, src.Rect.Dy()/2
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			at := src.PixOffset(src.Rect.Min.X+2*x, src.Rect.Min.Y+2*y)
			for c := 0; c < 4; c++ {
				s := int(src.Pix[at+c]) + int(src.Pix[at+4+c]) + int(src.Pix[at+src.Stride+c]) + int(src.Pix[at+src.Stride+4+c])
				out.Pix[out.PixOffset(x, y)+c] = uint8((s + 2) / 4)
			}
		}
	}
	return out
}

// Crop copies the r part of img into an image of its own, from (0, 0).
func Crop(img *image.NRGBA, r image.Rectangle) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		copy(out.Pix[y*out.Stride:(y+1)*out.Stride], img.Pix[img.PixOffset(r.Min.X, r.Min.Y+y):])
	}
	return out
}
