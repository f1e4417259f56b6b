// Package render is the application side of goeq's render clients: the
// Renderer interface an application implements, the projection math every
// renderer shares, and the built-in renderers (a mesh, a volume and a
// synthetic-cost pattern) that the demo, the tests and the benchmarks use.
package render

import (
	"math"

	"github.com/goeq/goeq/internal/compound"
)

// Params is everything a renderer needs for one draw task. The target
// framebuffer is bound with a viewport of Width x Height pixels.
type Params struct {
	Frame int
	// Channel is the channel's ID (compound.Channel.ID).
	Channel       string
	Eye           int
	Width, Height int // pixels of this render
	// X, Y is where the render's viewport starts in the bound framebuffer
	// (gl_FragCoord counts from the framebuffer's corner).
	X, Y int
	// DestW x DestH is the destination channel's size and Share the part
	// of it this render covers, in destination pixels (Width x Height
	// pixels cover Share; fewer or more under pixel decomposition or zoom).
	DestW, DestH int
	Share        compound.PixelViewport
	// Viewport is the part of the destination this render covers; Range
	// the part of the database; Pixel and Subpixel the decomposition.
	Viewport compound.Viewport
	Range    compound.Range
	Pixel    compound.Pixel
	Subpixel compound.Subpixel
	// Projection already includes the tile, pixel and subpixel adjustment;
	// View is the eye's view matrix (column-major).
	Projection [16]float32
	View       [16]float32
	// Adjust is the tile/pixel/subpixel adjustment alone (already part of
	// Projection), for renderers that cast rays in NDC.
	Adjust [16]float32
	// Data is the application's frame data of this frame (as it encoded
	// it), nil when it sent none.
	Data []byte
}

// Renderer is implemented by applications. Init runs once per pipe with the
// pipe's context current; Draw once per draw task; Exit when the pipe
// stops. Draw returns the region of the target it actually drew (its region
// of interest, in pixels of the target); only that region is read back.
// An empty region means the whole target.
type Renderer interface {
	Init() error
	Draw(p Params) (roi compound.PixelViewport, err error)
	Exit()
}

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
}

// Matrix is the clip-space transform from the destination's projection to
// the render's: a scale and offset of x and y that map the render's pixel
// centres onto the destination's sample positions.
func (s Sub) Matrix() [16]float32 {
	if s.ShareW > 0 && s.ShareH > 0 && (s.ShareW != s.W || s.ShareH != s.H) && s.Pixel.W <= 1 && s.Pixel.H <= 1 {
		// zoomed: the render's edges are the share's edges
		sx := float64(s.DestW) / float64(s.ShareW)
		sy := float64(s.DestH) / float64(s.ShareH)
		ox := (float64(s.DestW)-2*float64(s.X))/float64(s.ShareW) - 1
		oy := (float64(s.DestH)-2*float64(s.Y))/float64(s.ShareH) - 1
		return [16]float32{float32(sx), 0, 0, 0, 0, float32(sy), 0, 0, 0, 0, 1, 0, float32(ox), float32(oy), 0, 1}
	}
	pw, ph := max(s.Pixel.W, 1), max(s.Pixel.H, 1)
	sx := float64(s.DestW) / float64(pw*s.W)
	sy := float64(s.DestH) / float64(ph*s.H)
	ox := 2/float64(s.W)*((float64(s.DestW)/2-s.Jitter[0]-float64(s.X+s.Pixel.X)-0.5)/float64(pw)+0.5) - 1
	oy := 2/float64(s.H)*((float64(s.DestH)/2-s.Jitter[1]-float64(s.Y+s.Pixel.Y)-0.5)/float64(ph)+0.5) - 1
	return [16]float32{float32(sx), 0, 0, 0, 0, float32(sy), 0, 0, 0, 0, 1, 0, float32(ox), float32(oy), 0, 1}
}

// Size is the render's size in pixels for a region of the destination of
// w x h pixels under a pixel decomposition.
func Size(w, h int, p compound.Pixel) (int, int) {
	pw, ph := max(p.W, 1), max(p.H, 1)
	return (w - p.X + pw - 1) / pw, (h - p.Y + ph - 1) / ph
}

// Frustum is glFrustum's matrix (column-major).
func Frustum(f compound.Frustum) [16]float32 {
	l, r, b, t, n, fa := f.Left, f.Right, f.Bottom, f.Top, f.Near, f.Far
	return [16]float32{
		float32(2 * n / (r - l)), 0, 0, 0,
		0, float32(2 * n / (t - b)), 0, 0,
		float32((r + l) / (r - l)), float32((t + b) / (t - b)), float32(-(fa + n) / (fa - n)), -1,
		0, 0, float32(-2 * fa * n / (fa - n)), 0,
	}
}

// Mul returns a*b for column-major 4x4 matrices.
func Mul(a, b [16]float32) [16]float32 {
	var out [16]float32
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			var s float32
			for k := 0; k < 4; k++ {
				s += a[k*4+r] * b[c*4+k]
			}
			out[c*4+r] = s
		}
	}
	return out
}

// Identity is the identity matrix.
var Identity = [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}

// Translate returns a translation matrix.
func Translate(x, y, z float32) [16]float32 {
	m := Identity
	m[12], m[13], m[14] = x, y, z
	return m
}

// RotateY returns a rotation about the y axis by a radians.
func RotateY(a float64) [16]float32 {
	c, s := float32(math.Cos(a)), float32(math.Sin(a))
	return [16]float32{c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1}
}

// RotateX returns a rotation about the x axis by a radians.
func RotateX(a float64) [16]float32 {
	c, s := float32(math.Cos(a)), float32(math.Sin(a))
	return [16]float32{1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1}
}

// Inverse returns the inverse of a 4x4 matrix (zero if singular).
func Inverse(m [16]float32) [16]float32 {
	var a [16]float64
	for i, v := range m {
		a[i] = float64(v)
	}
	var inv [16]float64
	inv[0] = a[5]*a[10]*a[15] - a[5]*a[11]*a[14] - a[9]*a[6]*a[15] + a[9]*a[7]*a[14] + a[13]*a[6]*a[11] - a[13]*a[7]*a[10]
	inv[4] = -a[4]*a[10]*a[15] + a[4]*a[11]*a[14] + a[8]*a[6]*a[15] - a[8]*a[7]*a[14] - a[12]*a[6]*a[11] + a[12]*a[7]*a[10]
	inv[8] = a[4]*a[9]*a[15] - a[4]*a[11]*a[13] - a[8]*a[5]*a[15] + a[8]*a[7]*a[13] + a[12]*a[5]*a[11] - a[12]*a[7]*a[9]
	inv[12] = -a[4]*a[9]*a[14] + a[4]*a[10]*a[13] + a[8]*a[5]*a[14] - a[8]*a[6]*a[13] - a[12]*a[5]*a[10] + a[12]*a[6]*a[9]
	inv[1] = -a[1]*a[10]*a[15] + a[1]*a[11]*a[14] + a[9]*a[2]*a[15] - a[9]*a[3]*a[14] - a[13]*a[2]*a[11] + a[13]*a[3]*a[10]
	inv[5] = a[0]*a[10]*a[15] - a[0]*a[11]*a[14] - a[8]*a[2]*a[15] + a[8]*a[3]*a[14] + a[12]*a[2]*a[11] - a[12]*a[3]*a[10]
	inv[9] = -a[0]*a[9]*a[15] + a[0]*a[11]*a[13] + a[8]*a[1]*a[15] - a[8]*a[3]*a[13] - a[12]*a[1]*a[11] + a[12]*a[3]*a[9]
	inv[13] = a[0]*a[9]*a[14] - a[0]*a[10]*a[13] - a[8]*a[1]*a[14] + a[8]*a[2]*a[13] + a[12]*a[1]*a[10] - a[12]*a[2]*a[9]
	inv[2] = a[1]*a[6]*a[15] - a[1]*a[7]*a[14] - a[5]*a[2]*a[15] + a[5]*a[3]*a[14] + a[13]*a[2]*a[7] - a[13]*a[3]*a[6]
	inv[6] = -a[0]*a[6]*a[15] + a[0]*a[7]*a[14] + a[4]*a[2]*a[15] - a[4]*a[3]*a[14] - a[12]*a[2]*a[7] + a[12]*a[3]*a[6]
	inv[10] = a[0]*a[5]*a[15] - a[0]*a[7]*a[13] - a[4]*a[1]*a[15] + a[4]*a[3]*a[13] + a[12]*a[1]*a[7] - a[12]*a[3]*a[5]
	inv[14] = -a[0]*a[5]*a[14] + a[0]*a[6]*a[13] + a[4]*a[1]*a[14] - a[4]*a[2]*a[13] - a[12]*a[1]*a[6] + a[12]*a[2]*a[5]
	inv[3] = -a[1]*a[6]*a[11] + a[1]*a[7]*a[10] + a[5]*a[2]*a[11] - a[5]*a[3]*a[10] - a[9]*a[2]*a[7] + a[9]*a[3]*a[6]
	inv[7] = a[0]*a[6]*a[11] - a[0]*a[7]*a[10] - a[4]*a[2]*a[11] + a[4]*a[3]*a[10] + a[8]*a[2]*a[7] - a[8]*a[3]*a[6]
	inv[11] = -a[0]*a[5]*a[11] + a[0]*a[7]*a[9] + a[4]*a[1]*a[11] - a[4]*a[3]*a[9] - a[8]*a[1]*a[7] + a[8]*a[3]*a[5]
	inv[15] = a[0]*a[5]*a[10] - a[0]*a[6]*a[9] - a[4]*a[1]*a[10] + a[4]*a[2]*a[9] + a[8]*a[1]*a[6] - a[8]*a[2]*a[5]
	det := a[0]*inv[0] + a[1]*inv[4] + a[2]*inv[8] + a[3]*inv[12]
	var out [16]float32
	if det == 0 {
		return out
	}
	for i := range inv {
		out[i] = float32(inv[i] / det)
	}
	return out
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
