package channel

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/glutil"
)

// Why a pool: the destination client used to create a texture per
// received frame on the upload goroutine and delete it on the render
// goroutine right after issuing the draw that composited it. Mesa's
// llvmpipe defers draws (it bins them and rasterizes at the next flush),
// so the texture's storage was freed while a queued draw still referenced
// it; the driver released it a second time when the scene ran, which
// corrupted the malloc arena, and a later glTexSubImage2D on the upload
// goroutine wrote into memory that was no longer mapped (SIGSEGV in
// swrast_dri.so). A harness doing just that crashed in every run within
// 10,000 frames; with glFinish before the delete it never did.
//
// So textures now have one owner at a time, handed over explicitly:
// the upload goroutine creates, reuses and deletes them (leaseUploading),
// hands them to the render goroutine through the upload's fence
// (leaseFilled, then leaseSampling once Use made the GPU wait), and the
// render goroutine gives them back with a fence of its own that its
// sampling draws signal (leaseFree). The upload goroutine waits on that
// fence before it writes into or deletes the texture. Every hand-over
// checks the state it expects; a wrong one is counted and reported.
// Under a software GL there is no upload goroutine: Use uploads on the
// render goroutine, and the lease passes through the same states there.

type texFormat uint8

const (
	formatColor texFormat = iota
	formatDepth
)

type leaseState int32

const (
	leaseFree leaseState = iota
	leaseUploading
	leaseFilled
	leaseSampling
	leaseDeleted
)

var leaseNames = [...]string{"free", "uploading", "filled", "sampling", "deleted"}

// lease is one pooled texture.
type lease struct {
	id     uint32
	w, h   int
	format texFormat
	state  atomic.Int32
	fence  *sharedFence // the render goroutine's fence when given back
	pool   *texturePool
}

// hand moves the lease from one owner to the next, checking who had it.
func (l *lease) hand(from, to leaseState) {
	if !l.state.CompareAndSwap(int32(from), int32(to)) {
		l.pool.misuse(fmt.Sprintf("texture %d handed from %s to %s while %s", l.id, leaseNames[from], leaseNames[to],
			leaseNames[l.state.Load()]))
	}
}

// sharedFence is one fence that several leases wait on: the last waiter
// deletes it.
type sharedFence struct {
	mu   sync.Mutex
	sync uintptr
	refs int
}

// wait blocks (bounded) until the fence signalled; call with a context of
// the pipe's share group current.
func (f *sharedFence) wait() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sync == 0 {
		return nil
	}
	deadline := time.Now().Add(fenceTimeout)
	for {
		s := gl.ClientWaitSync(f.sync, gl.SYNC_FLUSH_COMMANDS_BIT, uint64(100*time.Millisecond))
		if s == gl.ALREADY_SIGNALED || s == gl.CONDITION_SATISFIED {
			break
		}
		if s == gl.WAIT_FAILED || time.Now().After(deadline) {
			return fmt.Errorf("channel: texture fence not signalled after %v", fenceTimeout)
		}
	}
	f.refs--
	if f.refs <= 0 {
		gl.DeleteSync(f.sync)
		f.sync = 0
	}
	return nil
}

// fenceTimeout bounds a wait for the GPU.
const fenceTimeout = 10 * time.Second

// texturePool recycles the textures input frames are uploaded into.
type texturePool struct {
	mu     sync.Mutex
	free   []*lease
	bytes  int
	misuse func(string)
	errs   atomic.Int64
	last   atomic.Value // string
}

// Pool bounds: textures kept for reuse beyond these are deleted.
const (
	poolMaxTextures = 64
	poolMaxBytes    = 256 << 20
)

func newTexturePool() *texturePool {
	tp := &texturePool{}
	tp.misuse = func(msg string) {
		tp.errs.Add(1)
		tp.last.Store(msg)
	}
	return tp
}

// OwnershipErrors counts wrong hand-overs of pooled textures (none in a
// correct program) and returns the last one's description.
func (p *Pipe) OwnershipErrors() (int64, string) {
	last, _ := p.textures.last.Load().(string)
	return p.textures.errs.Load(), last
}

func texBytes(w, h int) int { return 4 * w * h }

// take returns a texture of at least w x h for the upload goroutine to
// fill: a free one whose sampling has finished, or a new one.
func (tp *texturePool) take(w, h int, f texFormat) (*lease, error) {
	tp.mu.Lock()
	best := -1
	for i, l := range tp.free {
		if l.format != f || l.w < w || l.h < h || l.w*l.h > 4*w*h+64*64 {
			continue
		}
		if best < 0 || l.w*l.h < tp.free[best].w*tp.free[best].h {
			best = i
		}
	}
	var l *lease
	if best >= 0 {
		l = tp.free[best]
		tp.free = append(tp.free[:best], tp.free[best+1:]...)
	}
	tp.mu.Unlock()
	if l != nil {
		if err := l.fence.wait(); err != nil {
			return nil, err
		}
		l.fence = nil
		l.hand(leaseFree, leaseUploading)
		return l, nil
	}
	l = &lease{w: w, h: h, format: f, pool: tp}
	if f == formatDepth {
		l.id = glutil.Texture(w, h, gl.DEPTH_COMPONENT32F, gl.DEPTH_COMPONENT, gl.FLOAT)
	} else {
		l.id = glutil.Texture(w, h, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
	}
	l.state.Store(int32(leaseUploading))
	tp.mu.Lock()
	tp.bytes += texBytes(w, h)
	tp.mu.Unlock()
	tp.trim()
	return l, glutil.Error()
}

// give takes leases back from the render goroutine with the fence its
// sampling commands signal.
func (tp *texturePool) give(fence uintptr, leases ...*lease) {
	sf := &sharedFence{sync: fence}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, l := range leases {
		if l == nil {
			continue
		}
		sf.refs++
		l.fence = sf
		l.hand(leaseSampling, leaseFree)
		tp.free = append(tp.free, l)
	}
	if sf.refs == 0 {
		gl.DeleteSync(fence)
	}
}

// trim deletes the oldest free textures beyond the pool's bounds (upload
// goroutine), each after its fence.
func (tp *texturePool) trim() {
	for {
		tp.mu.Lock()
		if len(tp.free) <= poolMaxTextures && tp.bytes <= poolMaxBytes || len(tp.free) == 0 {
			tp.mu.Unlock()
			return
		}
		l := tp.free[0]
		tp.free = tp.free[1:]
		tp.bytes -= texBytes(l.w, l.h)
		tp.mu.Unlock()
		l.fence.wait()
		l.hand(leaseFree, leaseDeleted)
		gl.DeleteTextures(1, &l.id)
	}
}

// release deletes every free texture; the pipe calls it when it stops,
// after the GPU finished.
func (tp *texturePool) release() {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, l := range tp.free {
		if l.fence != nil && l.fence.sync != 0 {
			gl.DeleteSync(l.fence.sync)
			l.fence.sync = 0
		}
		gl.DeleteTextures(1, &l.id)
	}
	tp.free, tp.bytes = nil, 0
}
