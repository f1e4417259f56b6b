// Package testframes renders the deterministic frames goeq's codec and
// compositor tests and benchmarks run on: a CPU ray caster draws lit spheres
// over a ground plane on a plain background, with a depth buffer, the kind
// of image a visualisation renders. A "textured" variant adds a procedural
// noise texture, the hard case for codecs.
package testframes

import (
	"encoding/binary"
	"math"
)

// Frame is colour (RGBA8, premultiplied, alpha 255 where geometry is) and
// depth (window depth in [0,1], 1 for background), rows bottom-up.
type Frame struct {
	W, H  int
	Color []byte
	Depth []float32
}

// DepthBytes returns the depth buffer as little-endian float32 bytes.
func (f *Frame) DepthBytes() []byte {
	out := make([]byte, 4*len(f.Depth))
	for i, d := range f.Depth {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(d))
	}
	return out
}

type sphere struct {
	c      [3]float64
	r      float64
	colour [3]float64
}

var spheres = []sphere{
	{[3]float64{-1.2, 0, -5}, 1, [3]float64{0.9, 0.3, 0.2}},
	{[3]float64{1.1, 0.3, -6}, 1.3, [3]float64{0.2, 0.6, 0.9}},
	{[3]float64{0, -0.4, -3.8}, 0.6, [3]float64{0.3, 0.85, 0.35}},
	{[3]float64{2.6, -0.5, -4.5}, 0.5, [3]float64{0.9, 0.8, 0.2}},
}

const near, far = 0.1, 100.0

// Render draws the scene at w x h; textured adds per-pixel noise texture.
func Render(w, h int, textured bool) *Frame {
	f := &Frame{W: w, H: h, Color: make([]byte, 4*w*h), Depth: make([]float32, w*h)}
	light := norm([3]float64{-0.5, 1, 0.6})
	aspect := float64(w) / float64(h)
	tan := math.Tan(30 * math.Pi / 180)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dir := norm([3]float64{(2*(float64(x)+0.5)/float64(w) - 1) * tan * aspect, (2*(float64(y)+0.5)/float64(h) - 1) * tan, -1})
			i := y*w + x
			t, n, col := math.Inf(1), [3]float64{}, [3]float64{}
			for _, s := range spheres {
				if d := hitSphere(dir, s); d < t {
					t = d
					p := scale(dir, d)
					n = norm(sub(p, s.c))
					col = s.colour
				}
			}
			if dir[1] < 0 { // ground plane y = -1
				if d := -1 / dir[1]; d < t && d < 40 {
					t = d
					n = [3]float64{0, 1, 0}
					p := scale(dir, d)
					checker := (int(math.Floor(p[0])) + int(math.Floor(p[2]))) & 1
					col = [3]float64{0.55, 0.55, 0.55}
					if checker == 1 {
						col = [3]float64{0.75, 0.75, 0.75}
					}
				}
			}
			if math.IsInf(t, 1) {
				copy(f.Color[4*i:], []byte{38, 40, 48, 255})
				f.Depth[i] = 1
				continue
			}
			shade := 0.2 + 0.8*math.Max(0, dot(n, light))
			if textured {
				shade *= 0.75 + 0.25*noise(x, y)
			}
			for c := 0; c < 3; c++ {
				f.Color[4*i+c] = byte(math.Min(255, math.Round(255*col[c]*shade)))
			}
			f.Color[4*i+3] = 255
			z := -dir[2] * t // eye-space distance along the view axis
			f.Depth[i] = float32((far / (far - near)) * (1 - near/z))
		}
	}
	return f
}

func hitSphere(dir [3]float64, s sphere) float64 {
	b := dot(dir, s.c)
	c := dot(s.c, s.c) - s.r*s.r
	disc := b*b - c
	if disc < 0 {
		return math.Inf(1)
	}
	t := b - math.Sqrt(disc)
	if t <= 0 {
		return math.Inf(1)
	}
	return t
}

// noise is a deterministic hash in [0,1).
func noise(x, y int) float64 {
	h := uint32(x)*374761393 + uint32(y)*668265263
	h = (h ^ (h >> 13)) * 1274126177
	return float64(h>>8&0xffff) / 65536
}

func dot(a, b [3]float64) float64              { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func sub(a, b [3]float64) [3]float64           { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale(a [3]float64, s float64) [3]float64 { return [3]float64{a[0] * s, a[1] * s, a[2] * s} }
func norm(a [3]float64) [3]float64             { return scale(a, 1/math.Sqrt(dot(a, a))) }
