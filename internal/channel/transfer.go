package channel

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
)

// Pixels is a read-back region: RGBA8 colour and, when asked for, float
// depth, rows bottom-up.
type Pixels struct {
	Frame         int
	PixelViewport compound.PixelViewport // where in the target it was read
	Color         []byte
	Depth         []float32
}

// ReadSync reads a region of the bound framebuffer on the render goroutine
// (call it inside Pipe.Do).
func ReadSync(frame int, r compound.PixelViewport, depth bool) *Pixels {
	px := &Pixels{Frame: frame, PixelViewport: r}
	px.Color = glutil.ReadColor(r.X, r.Y, r.W, r.H, nil)
	if depth {
		px.Depth = glutil.ReadDepth(r.X, r.Y, r.W, r.H, nil)
	}
	return px
}

// Readback is an asynchronous readback in flight.
type Readback struct {
	done chan struct{}
	px   *Pixels
	err  error
	// Finished is when the download goroutine had the pixels.
	Finished time.Time
}

// Wait blocks until the pixels are in memory.
func (r *Readback) Wait() (*Pixels, error) {
	<-r.done
	return r.px, r.err
}

// Done reports whether the readback finished.
func (r *Readback) Done() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// pboPool recycles pixel buffer objects (buffers are shared between the
// pipe's contexts). Sizes are rounded up to a grain, a buffer is reused
// only for requests it fits without waste beyond 4x, and at most
// pboMaxIdle stay idle: as a load-balanced split moves, read-back regions
// change size, and first-fit with no bound kept every size ever read (a
// soak saw a source client grow by 12% in ten minutes).
type pboPool struct {
	mu   sync.Mutex
	idle []pbo // oldest first
}

type pbo struct {
	id   uint32
	size int
}

const (
	pboGrain   = 64 << 10
	pboMaxIdle = 8
)

// get returns a buffer of at least size bytes (render goroutine).
func (pp *pboPool) get(size int) pbo {
	size = (size + pboGrain - 1) / pboGrain * pboGrain
	pp.mu.Lock()
	best := -1
	for i, b := range pp.idle {
		if b.size >= size && b.size <= 4*size && (best < 0 || b.size < pp.idle[best].size) {
			best = i
		}
	}
	if best >= 0 {
		b := pp.idle[best]
		pp.idle = append(pp.idle[:best], pp.idle[best+1:]...)
		pp.mu.Unlock()
		return b
	}
	pp.mu.Unlock()
	var id uint32
	gl.GenBuffers(1, &id)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, id)
	gl.BufferData(gl.PIXEL_PACK_BUFFER, size, nil, gl.STREAM_READ)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	return pbo{id, size}
}

// put takes a buffer back (download goroutine, whose shared context is
// current) and deletes the oldest idle ones beyond the bound.
func (pp *pboPool) put(b pbo) {
	pp.mu.Lock()
	pp.idle = append(pp.idle, b)
	var drop []pbo
	if over := len(pp.idle) - pboMaxIdle; over > 0 {
		drop = append(drop, pp.idle[:over]...)
		pp.idle = append(pp.idle[:0:0], pp.idle[over:]...)
	}
	pp.mu.Unlock()
	for _, d := range drop {
		gl.DeleteBuffers(1, &d.id)
	}
}

func (pp *pboPool) free() {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	for _, b := range pp.idle {
		gl.DeleteBuffers(1, &b.id)
	}
	pp.idle = nil
}

// StartReadback starts reading a region of the bound framebuffer into a
// pixel buffer object and returns at once; the pipe's download goroutine
// waits for the GPU, maps the buffer and copies the pixels out. Call it on
// the render goroutine (inside Pipe.Do).
func (p *Pipe) StartReadback(frame int, r compound.PixelViewport, depth bool) *Readback {
	rb := &Readback{done: make(chan struct{}), px: &Pixels{Frame: frame, PixelViewport: r}}
	colorBytes := 4 * r.W * r.H
	size := colorBytes
	if depth {
		size += 4 * r.W * r.H
	}
	if size == 0 {
		close(rb.done)
		return rb
	}
	buf := p.pbos.get(size)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, buf.id)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(int32(r.X), int32(r.Y), int32(r.W), int32(r.H), gl.RGBA, gl.UNSIGNED_BYTE, nil)
	if depth {
		gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
		gl.ReadPixels(int32(r.X), int32(r.Y), int32(r.W), int32(r.H), gl.DEPTH_COMPONENT, gl.FLOAT, gl.PtrOffset(colorBytes))
	}
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	fence := gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
	gl.Flush() // the download context waits on the fence: flush it first
	w, err := p.helper(&p.download, "download")
	if err != nil {
		rb.err = err
		close(rb.done)
		return rb
	}
	gate := p.downloadGate
	w.jobs <- func() {
		defer close(rb.done)
		if gate != nil {
			<-gate
		}
		for {
			s := gl.ClientWaitSync(fence, gl.SYNC_FLUSH_COMMANDS_BIT, uint64(time.Second))
			if s == gl.ALREADY_SIGNALED || s == gl.CONDITION_SATISFIED {
				break
			}
			if s == gl.WAIT_FAILED {
				rb.err = fmt.Errorf("channel: readback fence wait failed")
				return
			}
		}
		gl.DeleteSync(fence)
		gl.BindBuffer(gl.PIXEL_PACK_BUFFER, buf.id)
		ptr := gl.MapBufferRange(gl.PIXEL_PACK_BUFFER, 0, size, gl.MAP_READ_BIT)
		if ptr == nil {
			rb.err = fmt.Errorf("channel: map of the readback buffer failed: %v", glutil.Error())
			gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
			return
		}
		src := unsafe.Slice((*byte)(ptr), size)
		rb.px.Color = append([]byte(nil), src[:colorBytes]...)
		if depth {
			rb.px.Depth = make([]float32, r.W*r.H)
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&rb.px.Depth[0])), 4*r.W*r.H), src[colorBytes:])
		}
		gl.UnmapBuffer(gl.PIXEL_PACK_BUFFER)
		gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
		p.pbos.put(buf)
		rb.Finished = time.Now()
	}
	return rb
}

// Upload is an input frame being uploaded into textures. Its textures
// belong to the pipe's texture pool: the upload goroutine fills them, the
// render goroutine samples them after Use and gives them back with
// Release.
type Upload struct {
	done         chan struct{}
	Color, Depth uint32 // textures (0 when absent)
	W, H         int    // pixels uploaded
	// TexW, TexH are the textures' sizes: a pooled texture may be larger
	// than the frame (samplers must scale by W/TexW).
	TexW, TexH int
	color      *lease
	depth      *lease
	fence      uintptr
	pool       *texturePool
	err        error
	released   bool
	// held are pixels kept in memory instead of uploaded (HoldUpload), and
	// releaseHeld gives their memory back
	held        *Pixels
	releaseHeld func()
	// pending are pixels a software GL uploads in Use, and releasePending
	// gives their memory back
	pending        *Pixels
	releasePending func()
}

// HoldUpload keeps a received frame's pixels in memory instead of
// uploading them, for an executor that merges them on the CPU; releasing
// the upload gives them back (release, if set).
func HoldUpload(px *Pixels, release func()) *Upload {
	u := &Upload{done: make(chan struct{}), W: px.PixelViewport.W, H: px.PixelViewport.H, held: px, releaseHeld: release}
	close(u.done)
	return u
}

// StartUpload starts uploading a received frame on the pipe's upload
// goroutine; it may be called from any goroutine (a network receiver).
// release, if set, is called on the upload goroutine once the pixels have
// been copied and px may be reused.
func (p *Pipe) StartUpload(px *Pixels) *Upload { return p.StartUploadRelease(px, nil) }

// StartUploadRelease is StartUpload with a function that gives px's memory
// back once the upload no longer reads it.
//
// Under a software GL the pixels wait in memory and Use uploads them on
// the render goroutine: llvmpipe crashed now and then (SIGSEGV in
// glTexSubImage2D, glMapBufferRange) while a context shared with the
// render context worked beside it, and there an upload is a copy on the
// CPU that another thread would only take cores from the draw for.
func (p *Pipe) StartUploadRelease(px *Pixels, release func()) *Upload {
	u := &Upload{done: make(chan struct{}), W: px.PixelViewport.W, H: px.PixelViewport.H, pool: p.textures}
	if p.softwareGL {
		u.pending, u.releasePending = px, release
		close(u.done)
		return u
	}
	w, err := p.helper(&p.upload, "upload")
	if err != nil {
		u.err = err
		close(u.done)
		if release != nil {
			release()
		}
		return u
	}
	w.jobs <- func() {
		defer close(u.done)
		if release != nil {
			defer release()
		}
		defer u.finishUpload()
		u.fill(px)
	}
	return u
}

// fill copies px into textures from the pool (with a context of the
// pipe's share group current); its leases stay with the caller.
func (u *Upload) fill(px *Pixels) {
	if u.W <= 0 || u.H <= 0 {
		return
	}
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	if u.color, u.err = u.pool.take(u.W, u.H, formatColor); u.err != nil {
		return
	}
	u.Color, u.TexW, u.TexH = u.color.id, u.color.w, u.color.h
	gl.BindTexture(gl.TEXTURE_2D, u.Color)
	if len(px.Color) >= 4*u.W*u.H {
		gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(u.W), int32(u.H), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(px.Color))
	} else if len(px.Color) > 0 {
		u.err = fmt.Errorf("channel: frame of %dx%d with %d colour bytes", u.W, u.H, len(px.Color))
	}
	if px.Depth != nil {
		if u.depth, u.err = u.pool.take(u.W, u.H, formatDepth); u.err != nil {
			return
		}
		u.Depth = u.depth.id
		gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
		gl.BindTexture(gl.TEXTURE_2D, u.Depth)
		if len(px.Depth) >= u.W*u.H {
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(u.W), int32(u.H), gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(px.Depth))
		}
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if err := glutil.Error(); err != nil && u.err == nil {
		u.err = err
	}
}

// finishUpload hands the upload's textures to the render goroutine behind
// a fence (upload goroutine, whatever happened).
func (u *Upload) finishUpload() {
	if u.color == nil && u.depth == nil {
		return
	}
	u.fence = gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
	gl.Flush() // the render context waits on this fence
	for _, l := range []*lease{u.color, u.depth} {
		if l != nil {
			l.hand(leaseUploading, leaseFilled)
		}
	}
}

// Use finishes the upload on the render goroutine: it waits until the
// upload goroutine issued it, then makes the GPU wait on its fence before
// any later command reads the textures. Call inside Pipe.Do.
func (u *Upload) Use() error {
	<-u.done
	if px := u.pending; px != nil {
		// a software GL's upload, done here in the render context: its
		// commands come before any that sample the textures
		u.pending = nil
		u.fill(px)
		if u.releasePending != nil {
			u.releasePending()
			u.releasePending = nil
		}
		for _, l := range []*lease{u.color, u.depth} {
			if l != nil {
				l.hand(leaseUploading, leaseFilled)
				l.hand(leaseFilled, leaseSampling)
			}
		}
		return u.err
	}
	if u.fence != 0 {
		gl.WaitSync(u.fence, 0, gl.TIMEOUT_IGNORED)
		gl.DeleteSync(u.fence)
		u.fence = 0
		u.color.hand(leaseFilled, leaseSampling)
		if u.depth != nil {
			u.depth.hand(leaseFilled, leaseSampling)
		}
	}
	return u.err
}

// Release gives the textures back to the pool (render goroutine, after
// the commands that sample them were issued): a fence marks when those
// commands are done, and the pool reuses or deletes a texture only after
// it. Releasing twice is a no-op.
func (u *Upload) Release() { ReleaseUploads(u) }

// ReleaseUploads releases several uploads behind one fence (one flush).
func ReleaseUploads(ups ...*Upload) {
	var leases []*lease
	var pool *texturePool
	for _, u := range ups {
		<-u.done
		if u.released {
			continue
		}
		u.released = true
		if u.pending != nil { // never used: never uploaded
			if u.releasePending != nil {
				u.releasePending()
			}
			u.pending, u.releasePending = nil, nil
			continue
		}
		if u.held != nil {
			if u.releaseHeld != nil {
				u.releaseHeld()
			}
			u.held = nil
			continue
		}
		if u.fence != 0 { // never used: the render context issued nothing on it
			gl.DeleteSync(u.fence)
			u.fence = 0
			for _, l := range []*lease{u.color, u.depth} {
				if l != nil {
					l.hand(leaseFilled, leaseSampling)
				}
			}
		}
		for _, l := range []*lease{u.color, u.depth} {
			if l != nil {
				leases = append(leases, l)
				pool = u.pool
			}
		}
	}
	if len(leases) == 0 {
		return
	}
	fence := gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
	gl.Flush() // the upload context waits on this fence
	pool.give(fence, leases...)
}

// clip is the part of drawn inside whole; empty (at its corner) when
// they do not meet.
func clip(drawn, whole compound.PixelViewport) compound.PixelViewport {
	x0, y0 := max(drawn.X, whole.X), max(drawn.Y, whole.Y)
	x1, y1 := min(drawn.X+drawn.W, whole.X+whole.W), min(drawn.Y+drawn.H, whole.Y+whole.H)
	if x1 <= x0 || y1 <= y0 {
		return compound.PixelViewport{X: x0, Y: y0}
	}
	return compound.PixelViewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// depthChecks is how many of a channel's first frames sent for a depth
// merge checkDepth looks at.
const depthChecks = 3

// checkDepth warns, once for a channel, when a frame it sends for a depth
// merge has colour drawn but no depth (depthLost): the merge keeps none of
// it, and the picture would be lost without a word. A renderer drawing
// without GL_DEPTH_TEST does that. Only a channel's first frames are
// looked at, so the scan costs nothing after them. Readbacks finish on
// other goroutines, so the count and the warning are taken under a lock.
func (e *Executor) checkDepth(channel string, px *Pixels) {
	const warned = -1
	e.depthMu.Lock()
	n := e.depthChecked[channel]
	if n != warned && n < depthChecks {
		e.depthChecked[channel] = n + 1
	}
	e.depthMu.Unlock()
	if n == warned || n >= depthChecks || !depthLost(px) {
		return
	}
	e.depthMu.Lock()
	first := e.depthChecked[channel] != warned
	e.depthChecked[channel] = warned
	e.depthMu.Unlock()
	if first && e.opt.Warn != nil {
		e.opt.Warn(fmt.Sprintf("channel %s: frame %d, sent for a depth merge (buffer [ COLOR DEPTH ]), has colour drawn but no depth: every value is at the far plane, and the merge keeps none of it. Does the renderer draw with GL_DEPTH_TEST and depth writes on?", channel, px.Frame))
	}
}

// depthLost reports whether pixels have something drawn (colour not all
// one value) while every depth is at the far plane (the clear value 1):
// a depth merge, which keeps the nearer of two pixels, drops all of it.
func depthLost(px *Pixels) bool {
	if len(px.Depth) == 0 || len(px.Color) < 8 {
		return false
	}
	for _, z := range px.Depth {
		if z < 1 {
			return false
		}
	}
	c := px.Color
	for i := 4; i+3 < len(c); i += 4 {
		if c[i] != c[0] || c[i+1] != c[1] || c[i+2] != c[2] || c[i+3] != c[3] {
			return true
		}
	}
	return false
}
