// Package compositor combines the frames that source channels render into
// the destination's image, on the CPU: 2D assembly, depth merge (sort-last),
// premultiplied alpha blending in a given order, pixel interleaving and
// subpixel averaging. The GPU paths (package channel, shaders) must give the
// same images; these functions are also their reference.
//
// The loops work on 32-bit words (one RGBA8 pixel, one depth value) and
// split rows across cores for frames large enough to pay for it.
package compositor

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Image is an RGBA8 frame with an optional depth buffer, row-major from the
// bottom row up (GL order) or top down: the compositor does not care as long
// as all images of one frame agree.
type Image struct {
	W, H  int
	Color []byte    // 4*W*H bytes, RGBA8; premultiplied alpha where blending is used
	Depth []float32 // W*H values or nil; smaller is nearer
	// DepthU is integer depth (24-bit in the low bits or full 32-bit), used
	// instead of Depth when non-nil.
	DepthU []uint32
}

// NewImage allocates a colour image, with float depth when depth is true.
func NewImage(w, h int, depth bool) *Image {
	img := &Image{W: w, H: h, Color: make([]byte, 4*w*h)}
	if depth {
		img.Depth = make([]float32, w*h)
	}
	return img
}

// Pixels views the colour buffer as one uint32 per pixel.
func (m *Image) Pixels() []uint32 {
	if len(m.Color) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&m.Color[0])), len(m.Color)/4)
}

func (m *Image) check() error {
	if m.W < 0 || m.H < 0 || len(m.Color) != 4*m.W*m.H {
		return fmt.Errorf("compositor: image %dx%d has %d colour bytes, want %d", m.W, m.H, len(m.Color), 4*m.W*m.H)
	}
	if m.Depth != nil && len(m.Depth) != m.W*m.H {
		return fmt.Errorf("compositor: image %dx%d has %d depth values", m.W, m.H, len(m.Depth))
	}
	if m.DepthU != nil && len(m.DepthU) != m.W*m.H {
		return fmt.Errorf("compositor: image %dx%d has %d integer depth values", m.W, m.H, len(m.DepthU))
	}
	return nil
}

// minParallelPixels is the frame size below which splitting across cores
// costs more than it gains (goroutine start and cache traffic).
const minParallelPixels = 64 * 1024

// parallel runs fn over [0,n) split into one contiguous part per core.
func parallel(n, pixelsPerItem int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || n*pixelsPerItem < minParallelPixels || n < 2 {
		fn(0, n)
		return
	}
	if workers > n {
		workers = n
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		lo, hi := n*i/workers, n*(i+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
