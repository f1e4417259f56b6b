package compositor

import (
	"encoding/binary"
	"fmt"
)

// Assemble copies src into dst with src's bottom-left pixel at (x, y): the
// 2D (sort-first) case. Depth is copied too when both images have it.
func Assemble(dst, src *Image, x, y int) error {
	if err := dst.check(); err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	if x < 0 || y < 0 || x+src.W > dst.W || y+src.H > dst.H {
		return fmt.Errorf("compositor: %dx%d tile at (%d,%d) does not fit a %dx%d frame", src.W, src.H, x, y, dst.W, dst.H)
	}
	copyDepth := dst.Depth != nil && src.Depth != nil
	parallel(src.H, src.W, func(lo, hi int) {
		if src.W == dst.W {
			// a band as wide as the frame: its rows follow each other in
			// both, and one large copy stores past the cache
			d, s := (y+lo)*dst.W, lo*src.W
			n := (hi - lo) * src.W
			copy(dst.Color[4*d:4*(d+n)], src.Color[4*s:4*(s+n)])
			if copyDepth {
				copy(dst.Depth[d:d+n], src.Depth[s:s+n])
			}
			return
		}
		for r := lo; r < hi; r++ {
			d := ((y+r)*dst.W + x)
			s := r * src.W
			copy(dst.Color[4*d:4*(d+src.W)], src.Color[4*s:4*(s+src.W)])
			if copyDepth {
				copy(dst.Depth[d:d+src.W], src.Depth[s:s+src.W])
			}
		}
	})
	return nil
}

// CopyChannels copies the colour channels that mask selects (0xff in a
// channel's byte, RGBA order, 0 elsewhere) from src into dst, of the same
// size, and keeps dst's others: a colour-masked write, as an anaglyph
// eye's.
func CopyChannels(dst, src *Image, mask [4]byte) error {
	if err := sameSize(dst, src); err != nil {
		return err
	}
	m := binary.NativeEndian.Uint32(mask[:])
	dc, sc := dst.Pixels(), src.Pixels()
	parallel(len(dc), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dc[i] = dc[i]&^m | sc[i]&m
		}
	})
	return nil
}

// DepthMerge keeps, for every pixel, the nearer of dst and src (smaller
// depth wins; ties keep dst, so merging is order-independent for distinct
// depths). Both images need the same size and the same kind of depth.
func DepthMerge(dst, src *Image) error {
	if err := sameSize(dst, src); err != nil {
		return err
	}
	dc, sc := dst.Pixels(), src.Pixels()
	switch {
	case dst.Depth != nil && src.Depth != nil:
		mergeAcrossCores(dst.Depth, src.Depth, dc, sc, mergeNearestFloatVector)
	case dst.DepthU != nil && src.DepthU != nil:
		mergeAcrossCores(dst.DepthU, src.DepthU, dc, sc, mergeNearestUintVector)
	default:
		return fmt.Errorf("compositor: depth merge needs depth of the same kind in both images")
	}
	return nil
}

// DepthMergeAt merges src (float depth) into dst with src's first pixel at
// (x, y) of dst: DepthMerge on the part of dst src covers. A destination
// merging sort-last inputs as they arrive, each the size of what its source
// drew, uses it.
func DepthMergeAt(dst, src *Image, x, y int) error {
	if err := dst.check(); err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	if dst.Depth == nil || src.Depth == nil {
		return fmt.Errorf("compositor: depth merge at an offset needs float depth in both images")
	}
	if x < 0 || y < 0 || x+src.W > dst.W || y+src.H > dst.H {
		return fmt.Errorf("compositor: %dx%d input at (%d,%d) does not fit a %dx%d frame", src.W, src.H, x, y, dst.W, dst.H)
	}
	dc, sc := dst.Pixels(), src.Pixels()
	parallel(src.H, src.W, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			d, s := (y+r)*dst.W+x, r*src.W
			dd, sd, drow, srow := dst.Depth[d:d+src.W], src.Depth[s:s+src.W], dc[d:d+src.W], sc[s:s+src.W]
			done := mergeNearestFloatVector(dd, sd, drow, srow)
			mergeNearest(dd[done:], sd[done:], drow[done:], srow[done:])
		}
	})
	return nil
}

// mergeAcrossCores splits a depth merge across cores; in each part the
// vector kernel (where there is one) merges what it can and the portable
// loop the rest.
func mergeAcrossCores[D float32 | uint32](dd, sd []D, dc, sc []uint32, vector func(dd, sd []D, dc, sc []uint32) int) {
	parallel(len(dc), 1, func(lo, hi int) {
		done := vector(dd[lo:hi], sd[lo:hi], dc[lo:hi], sc[lo:hi])
		mergeNearest(dd[lo+done:hi], sd[lo+done:hi], dc[lo+done:hi], sc[lo+done:hi])
	})
}

// mergeNearest is the portable depth merge for either kind of depth: the
// whole merge without vector kernels, and the tail of one with them.
func mergeNearest[D float32 | uint32](dd, sd []D, dc, sc []uint32) {
	// equal-length slices let the compiler drop the bounds checks, which
	// makes the loop 1.4x faster
	n := len(dd)
	sd, dc, sc = sd[:n], dc[:n], sc[:n]
	for i := 0; i < n; i++ {
		if z := sd[i]; z < dd[i] {
			dd[i] = z
			dc[i] = sc[i]
		}
	}
}

// BlendUnder composites src behind dst: dst = dst + (1 - dst.alpha) * src,
// with premultiplied RGBA8. Blending DB slabs front to back is a sequence
// of BlendUnder calls; back to front, of BlendOver.
func BlendUnder(dst, src *Image) error {
	if err := sameSize(dst, src); err != nil {
		return err
	}
	dc, sc := dst.Pixels(), src.Pixels()
	parallel(len(dc), 1, func(lo, hi int) {
		done := blendVector(dc[lo:hi], sc[lo:hi], false)
		dc, sc := dc[lo+done:hi], sc[lo+done:hi:hi]
		for i, s := range sc {
			dc[i] = over(dc[i], s)
		}
	})
	return nil
}

// BlendOver composites src in front of dst: dst = src + (1 - src.alpha) * dst.
func BlendOver(dst, src *Image) error {
	if err := sameSize(dst, src); err != nil {
		return err
	}
	dc, sc := dst.Pixels(), src.Pixels()
	parallel(len(dc), 1, func(lo, hi int) {
		done := blendVector(dc[lo:hi], sc[lo:hi], true)
		dc, sc := dc[lo+done:hi], sc[lo+done:hi:hi]
		for i, s := range sc {
			dc[i] = over(s, dc[i])
		}
	})
	return nil
}

// BlendInOrder composites layers, given back to front (the order a DB
// volume's slabs are sorted in for the view), over dst.
func BlendInOrder(dst *Image, layers []*Image) error {
	for _, l := range layers {
		if err := BlendOver(dst, l); err != nil {
			return err
		}
	}
	return nil
}

// over returns front + (1 - front.alpha) * back for premultiplied RGBA8
// pixels packed little-endian (R in the low byte, A in the high byte). Two
// channels are scaled at once in 16-bit lanes; x/255 is computed exactly as
// (t + 1 + (t >> 8)) >> 8 with t = x + 128 (round to nearest).
func over(front, back uint32) uint32 {
	a := front >> 24
	if a == 255 {
		return front
	}
	if a == 0 && front == 0 {
		return back
	}
	k := 255 - a
	rb := (back & 0x00ff00ff) * k
	ag := (back >> 8 & 0x00ff00ff) * k
	rb += 0x00800080
	ag += 0x00800080
	rb = (rb + (rb >> 8 & 0x00ff00ff)) >> 8 & 0x00ff00ff
	ag = (ag + (ag >> 8 & 0x00ff00ff)) & 0xff00ff00
	return satAdd(front, rb|ag)
}

// satAdd adds bytewise with saturation (premultiplied sums never exceed
// 255 for valid input; saturation keeps invalid input from wrapping).
func satAdd(a, b uint32) uint32 {
	var out uint32
	for shift := uint(0); shift < 32; shift += 8 {
		s := (a>>shift)&0xff + (b>>shift)&0xff
		if s > 255 {
			s = 255
		}
		out |= s << shift
	}
	return out
}

// Interleave writes src, rendered by a pixel-decomposed source with
// parameters (px, py, pw, ph), into dst: src pixel (i, j) lands on
// dst pixel (px + i*pw, py + j*ph). src must be the source's full
// resolution: ceil((W-px)/pw) x ceil((H-py)/ph). Depth is left alone.
func Interleave(dst, src *Image, px, py, pw, ph int) error {
	if err := dst.check(); err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	if pw < 1 || ph < 1 || px < 0 || py < 0 || px >= pw || py >= ph {
		return fmt.Errorf("compositor: invalid pixel decomposition [ %d %d %d %d ]", px, py, pw, ph)
	}
	wantW, wantH := (dst.W-px+pw-1)/pw, (dst.H-py+ph-1)/ph
	if src.W != wantW || src.H != wantH {
		return fmt.Errorf("compositor: pixel source is %dx%d, want %dx%d for [ %d %d %d %d ] of %dx%d", src.W, src.H, wantW, wantH, px, py, pw, ph, dst.W, dst.H)
	}
	color := &Image{W: src.W, H: src.H, Color: src.Color}
	return InterleaveAt(dst, color, [2]int{px, py}, [2]int{pw, ph}, 0, 0, dst.W, dst.H)
}

// InterleaveAt writes the samples of a pixel-decomposed source into dst
// as the GPU's interleave pass does: sample (i, j) of src lands on pixel
// first + (i, j)*step where that lies inside dst's rectangle (x, y, w,
// h). With depth in both images a sample lands only where it is nearer
// than dst's (a LESS depth test), and its depth with it.
func InterleaveAt(dst, src *Image, first, step [2]int, x, y, w, h int) error {
	if err := dst.check(); err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	if step[0] < 1 || step[1] < 1 {
		return fmt.Errorf("compositor: interleave step %dx%d", step[0], step[1])
	}
	if x < 0 || y < 0 || w < 0 || h < 0 || x+w > dst.W || y+h > dst.H {
		return fmt.Errorf("compositor: interleave into %dx%d+%d+%d, outside the %dx%d image", w, h, x, y, dst.W, dst.H)
	}
	i0, i1 := samplesIn(first[0], step[0], x, w, src.W)
	j0, j1 := samplesIn(first[1], step[1], y, h, src.H)
	if i0 >= i1 || j0 >= j1 {
		return nil
	}
	dc, sc := dst.Pixels(), src.Pixels()
	depth := dst.Depth != nil && src.Depth != nil
	parallel(j1-j0, i1-i0, func(lo, hi int) {
		for j := j0 + lo; j < j0+hi; j++ {
			d := (first[1]+j*step[1])*dst.W + first[0] + i0*step[0]
			srow := sc[j*src.W+i0 : j*src.W+i1]
			if !depth {
				for _, p := range srow {
					dc[d] = p
					d += step[0]
				}
				continue
			}
			sd := src.Depth[j*src.W+i0 : j*src.W+i1]
			for i, z := range sd {
				if z < dst.Depth[d] {
					dst.Depth[d], dc[d] = z, srow[i]
				}
				d += step[0]
			}
		}
	})
	return nil
}

// Resample fills dst with src scaled to dst's size, pixel (x, y) of dst
// at ((x, y) + 0.5)*src/dst - 0.5 in src: its colour filtered linearly
// between src's pixels there, or, where both have depth, the nearest
// pixel's colour and depth. A zoomed pixel-decomposed source's samples
// spread so over its share's, as the GPU's interleave passes read them.
func Resample(dst, src *Image) error {
	if err := dst.check(); err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	if dst.W > 0 && dst.H > 0 && (src.W == 0 || src.H == 0) {
		return fmt.Errorf("compositor: resample an empty image to %dx%d", dst.W, dst.H)
	}
	dc, sc := dst.Pixels(), src.Pixels()
	if dst.Depth != nil && src.Depth != nil {
		for y := range dst.H {
			sy := (2*y + 1) * src.H / (2 * dst.H)
			for x := range dst.W {
				i := sy*src.W + (2*x+1)*src.W/(2*dst.W)
				dc[y*dst.W+x], dst.Depth[y*dst.W+x] = sc[i], src.Depth[i]
			}
		}
		return nil
	}
	at := func(x, n, m int) (a, b int, t float64) {
		f := min(max((float64(x)+0.5)*float64(m)/float64(n)-0.5, 0), float64(m-1))
		a = int(f)
		return a, min(a+1, m-1), f - float64(a)
	}
	// the columns' taps are the same in every row
	type tap struct {
		a, b int
		t    float64
	}
	cols := make([]tap, dst.W)
	for x := range cols {
		cols[x].a, cols[x].b, cols[x].t = at(x, dst.W, src.W)
	}
	for y := range dst.H {
		y0, y1, ty := at(y, dst.H, src.H)
		for x, col := range cols {
			x0, x1, tx := col.a, col.b, col.t
			p00, p10, p01, p11 := sc[y0*src.W+x0], sc[y0*src.W+x1], sc[y1*src.W+x0], sc[y1*src.W+x1]
			var out uint32
			for shift := 0; shift < 32; shift += 8 {
				c := func(p uint32) float64 { return float64(p >> shift & 0xff) }
				top := c(p00) + (c(p10)-c(p00))*tx
				bottom := c(p01) + (c(p11)-c(p01))*tx
				out |= uint32(top+(bottom-top)*ty+0.5) << shift
			}
			dc[y*dst.W+x] = out
		}
	}
	return nil
}

// samplesIn is the range [lo, hi) of the sample indexes n < count whose
// pixel first + n*step lies in [from, from+size).
func samplesIn(first, step, from, size, count int) (lo, hi int) {
	return max(0, ceilDiv(from-first, step)), min(count, ceilDiv(from+size-first, step))
}

// ceilDiv is a/b rounded up, for b > 0.
func ceilDiv(a, b int) int {
	if a <= 0 {
		return -(-a / b)
	}
	return (a + b - 1) / b
}

// Average sets dst to the per-channel mean of srcs (subpixel compositing:
// each source rendered the frame with a different sub-pixel offset).
// Rounding is to nearest.
func Average(dst *Image, srcs []*Image) error {
	if len(srcs) == 0 {
		return fmt.Errorf("compositor: nothing to average")
	}
	for _, s := range srcs {
		if err := sameSize(dst, s); err != nil {
			return err
		}
	}
	if len(srcs) > MaxAverage {
		return fmt.Errorf("compositor: %d sources to average, at most %d", len(srcs), MaxAverage)
	}
	n := uint32(len(srcs))
	pix := make([][]uint32, len(srcs))
	for i, s := range srcs {
		pix[i] = s.Pixels()
	}
	dc := dst.Pixels()
	if n == 2 {
		// each byte's (a + b + 1) / 2, four at a time: the sum's bits
		// that both share plus half of those only one has, rounded up
		a, b := pix[0], pix[1]
		parallel(len(dc), 2, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dc[i] = (a[i] | b[i]) - ((a[i]^b[i])>>1)&0x7f7f7f7f
			}
		})
		return nil
	}
	parallel(len(dc), len(srcs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var rb, ag uint32 // 16-bit lanes (MaxAverage)
			for _, p := range pix {
				rb += p[i] & 0x00ff00ff
				ag += p[i] >> 8 & 0x00ff00ff
			}
			r := ((rb&0xffff)*2 + n) / (2 * n)
			b := ((rb>>16)*2 + n) / (2 * n)
			g := ((ag&0xffff)*2 + n) / (2 * n)
			a := ((ag>>16)*2 + n) / (2 * n)
			dc[i] = r | g<<8 | b<<16 | a<<24
		}
	})
	return nil
}

// MaxAverage is how many sources Average takes: their sums of a channel
// must fit 16 bits.
const MaxAverage = 257

// MaxWeight bounds the sum of WeightedAverage's weights: the weighted sums
// of a channel fit 32 bits.
const MaxWeight = 1 << 24

// WeightedAverage writes into dst the mean of srcs in which srcs[i]
// counts weights[i] times (subpixel samples of different sizes, a sample
// of 2 weighing as three of 6), rounded to nearest as Average rounds:
// with every weight 1 it is Average, for any number of sources.
func WeightedAverage(dst *Image, srcs []*Image, weights []int) error {
	if len(srcs) == 0 || len(weights) != len(srcs) {
		return fmt.Errorf("compositor: %d sources and %d weights to average", len(srcs), len(weights))
	}
	total := 0
	for i, s := range srcs {
		if err := sameSize(dst, s); err != nil {
			return err
		}
		if weights[i] < 1 || weights[i] > MaxWeight-total {
			return fmt.Errorf("compositor: weights %v: each must be at least 1, and their sum at most %d", weights, MaxWeight)
		}
		total += weights[i]
	}
	pix := make([][]uint32, len(srcs))
	for i, s := range srcs {
		pix[i] = s.Pixels()
	}
	dc := dst.Pixels()
	n := uint64(total)
	parallel(len(dc), len(srcs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var sum [4]uint64
			for k, p := range pix {
				w, v := uint64(weights[k]), p[i]
				sum[0] += w * uint64(v&0xff)
				sum[1] += w * uint64(v>>8&0xff)
				sum[2] += w * uint64(v>>16&0xff)
				sum[3] += w * uint64(v>>24)
			}
			var px uint32
			for c, s := range sum {
				px |= uint32((s*2+n)/(2*n)) << (8 * c)
			}
			dc[i] = px
		}
	})
	return nil
}

func sameSize(a, b *Image) error {
	if err := a.check(); err != nil {
		return err
	}
	if err := b.check(); err != nil {
		return err
	}
	if a.W != b.W || a.H != b.H {
		return fmt.Errorf("compositor: images are %dx%d and %dx%d", a.W, a.H, b.W, b.H)
	}
	return nil
}
