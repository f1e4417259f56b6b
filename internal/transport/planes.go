package transport

import (
	"sync"
	"unsafe"
)

// planes recycles the buffers received frames are read and decoded into:
// a fresh 1080p plane per frame and input costs an 8 MB allocation that
// is zeroed and faulted in before the data is written over it, and brings
// the next garbage collection closer. A sync.Pool was emptied by every
// other collection, about one a frame on a destination (a 1080p pixel
// decomposition faulted in 2.8 MB a frame), so the buffers given back are
// kept here, up to keepBytes.
type planes[T any] struct {
	mu    sync.Mutex
	free  []*[]T
	bytes int // held in free
}

// keepBytes bounds what each kind of buffer keeps: sixteen 1080p frames
// of colour and depth in flight, or four at 4K.
const keepBytes = 256 << 20

var (
	payloads    planes[byte]
	colorPlanes planes[byte]
	depthPlanes planes[float32]
)

// reuse returns a kept buffer of n values and its entry for give, or nil
// when none is large enough; of those that are, the smallest.
func (p *planes[T]) reuse(n int) *[]T {
	p.mu.Lock()
	defer p.mu.Unlock()
	best := -1
	for i, e := range p.free {
		if cap(*e) >= n && (best < 0 || cap(*e) < cap(*p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	e := p.free[best]
	p.free[best] = p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.bytes -= sizeOf(e)
	*e = (*e)[:n]
	return e
}

// take returns a plane of n values (kept, or new) and the entry that give
// hands back.
func (p *planes[T]) take(n int) (*[]T, []T) {
	if e := p.reuse(n); e != nil {
		return e, *e
	}
	plane := make([]T, n)
	return &plane, plane
}

// give hands a buffer back once nothing reads it; beyond keepBytes it is
// left to the garbage collector.
func (p *planes[T]) give(e *[]T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := sizeOf(e); p.bytes+n <= keepBytes {
		p.free = append(p.free, e)
		p.bytes += n
	}
}

func sizeOf[T any](e *[]T) int {
	var v T
	return cap(*e) * int(unsafe.Sizeof(v))
}
