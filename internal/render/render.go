// Package render holds the projection math every renderer shares and the
// built-in renderers (a mesh, a volume and a synthetic-cost pattern) that
// eqclient, the demo, the tests and the benchmarks use. They are ordinary
// draw.Renderers, as an application's are.
package render

import (
	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compound"
)

// Sub describes which part of a destination a render covers, for exact
// pixel correspondence: the render's pixel (i, j) samples the destination
// at pixel (X + Pixel.X + i*Pixel.W, Y + Pixel.Y + j*Pixel.H), shifted by
// Jitter (in destination pixels) for subpixel decomposition.
type Sub struct {
	DestW, DestH int
	X, Y         int
	W, H         int
	Pixel        compound.Pixel
	Jitter       [2]float64
	// ShareW x ShareH are the destination pixels the render covers when
	// it has another resolution (zoom); zero means W x H.
	ShareW, ShareH int
	// GridZoom, when set, zooms the pixels a pixel decomposition samples:
	// its assembly is zoomed, and interleaves the samples on its zoomed
	// pixels, so sample (i, j) is at zoomed pixel (Pixel.X + i*Pixel.W,
	// Pixel.Y + j*Pixel.H) of the zoomed share, Jitter in zoomed pixels.
	GridZoom compound.Zoom
}

// Matrix is the clip-space transform from the destination's projection to
// the render's: a scale and offset of x and y that map the render's pixel
// centres onto the destination's sample positions.
func (s Sub) Matrix() draw.Mat4 {
	if s.ShareW > 0 && s.ShareH > 0 && (s.ShareW != s.W || s.ShareH != s.H) && s.Pixel.W <= 1 && s.Pixel.H <= 1 {
		// zoomed: the render's edges are the share's edges
		sx := float64(s.DestW) / float64(s.ShareW)
		sy := float64(s.DestH) / float64(s.ShareH)
		ox := (float64(s.DestW)-2*float64(s.X))/float64(s.ShareW) - 1
		oy := (float64(s.DestH)-2*float64(s.Y))/float64(s.ShareH) - 1
		return draw.Mat4{float32(sx), 0, 0, 0, 0, float32(sy), 0, 0, 0, 0, 1, 0, float32(ox), float32(oy), 0, 1}
	}
	// the share holds gx x gy samples, every pw-th pixel from Pixel.X;
	// render pixel m stands for samples m*g/W to (m+1)*g/W (one, unless
	// zoomed), and its centre lies at their middle
	pw, ph := max(s.Pixel.W, 1), max(s.Pixel.H, 1)
	// the grid's pixels per destination pixel
	zx, zy := 1.0, 1.0
	if s.GridZoom.Scales() {
		zx, zy = s.GridZoom.X, s.GridZoom.Y
	}
	gx, gy := s.W, s.H
	if s.ShareW > 0 && s.ShareH > 0 {
		gw, gh := int(float64(s.ShareW)*zx+0.5), int(float64(s.ShareH)*zy+0.5)
		gx, gy = (gw-s.Pixel.X+pw-1)/pw, (gh-s.Pixel.Y+ph-1)/ph
	}
	// the render's width and height in destination pixels
	fw, fh := float64(pw*gx)/zx, float64(ph*gy)/zy
	sx := float64(s.DestW) / fw
	sy := float64(s.DestH) / fh
	// where render pixel coordinate 0 lies in destination pixels
	// (a subpixel jitter moves the sample within its pixel: a zoomed one)
	bx := float64(s.X) + (float64(s.Pixel.X)+0.5-float64(pw)/2+s.Jitter[0])/zx
	by := float64(s.Y) + (float64(s.Pixel.Y)+0.5-float64(ph)/2+s.Jitter[1])/zy
	ox := (float64(s.DestW)-2*bx)/fw - 1
	oy := (float64(s.DestH)-2*by)/fh - 1
	return draw.Mat4{float32(sx), 0, 0, 0, 0, float32(sy), 0, 0, 0, 0, 1, 0, float32(ox), float32(oy), 0, 1}
}

// Frustum is glFrustum's matrix (column-major).
func Frustum(f compound.Frustum) draw.Mat4 {
	l, r, b, t, n, fa := f.Left, f.Right, f.Bottom, f.Top, f.Near, f.Far
	return draw.Mat4{
		float32(2 * n / (r - l)), 0, 0, 0,
		0, float32(2 * n / (t - b)), 0, 0,
		float32((r + l) / (r - l)), float32((t + b) / (t - b)), float32(-(fa + n) / (fa - n)), -1,
		0, 0, float32(-2 * fa * n / (fa - n)), 0,
	}
}

// Ortho is glOrtho's matrix (column-major) of the frustum's box.
func Ortho(f compound.Frustum) draw.Mat4 {
	l, r, b, t, n, fa := f.Left, f.Right, f.Bottom, f.Top, f.Near, f.Far
	return draw.Mat4{
		float32(2 / (r - l)), 0, 0, 0,
		0, float32(2 / (t - b)), 0, 0,
		0, 0, float32(-2 / (fa - n)), 0,
		float32(-(r + l) / (r - l)), float32(-(t + b) / (t - b)), float32(-(fa + n) / (fa - n)), 1,
	}
}

// SubpixelJitter is the sample offset (destination pixels, in [-0.5, 0.5))
// of sample index of n: a rotated grid that spreads n samples evenly.
func SubpixelJitter(index, n int) [2]float64 {
	if n <= 1 {
		return [2]float64{}
	}
	// van der Corput (base 2) and (base 3) sequences: low discrepancy
	return [2]float64{radicalInverse(index+1, 2) - 0.5, radicalInverse(index+1, 3) - 0.5}
}

func radicalInverse(i, base int) float64 {
	f, r := 1.0, 0.0
	for i > 0 {
		f /= float64(base)
		r += f * float64(i%base)
		i /= base
	}
	return r
}
