package transport

import "sync"

// planes recycles the planes received frames are decoded into: a fresh
// 1080p plane per frame and input costs an 8 MB allocation that is zeroed
// and faulted in before the decode writes over it.
type planes[T any] struct{ pool sync.Pool }

var (
	colorPlanes planes[byte]
	depthPlanes planes[float32]
)

// take returns a plane of n values (from the pool, or new) and the entry
// that give hands back.
func (p *planes[T]) take(n int) (*[]T, []T) {
	if e, ok := p.pool.Get().(*[]T); ok {
		if cap(*e) >= n {
			*e = (*e)[:n]
			return e, *e
		}
		p.pool.Put(e)
	}
	plane := make([]T, n)
	return &plane, plane
}

// give hands a plane back once nothing reads it.
func (p *planes[T]) give(e *[]T) { p.pool.Put(e) }
