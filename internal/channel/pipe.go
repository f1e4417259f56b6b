// Package channel runs goeq's render clients: one goroutine per pipe
// (GPU), locked to its OS thread and owning the pipe's GL context, and per
// pipe a download and an upload goroutine with contexts shared with it.
// Following Equalizer's asynchronous compositing, the render goroutine
// never waits on pixel transfers: a readback is started on the render
// goroutine (into a pixel buffer object, with a fence) and finished on the
// download goroutine; an upload is started when a frame arrives (on the
// upload goroutine, with a fence) and finished by the render goroutine,
// which waits on the fence on the GPU before drawing with it.
package channel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/winsys"
)

// Pipe is one GPU: a goroutine on its own OS thread with the pipe's
// current context. All GL work for the pipe's windows and channels runs
// through Do.
type Pipe struct {
	Label string // names it in messages (compound.Pipe.Label)
	// Warn, when set, receives what the pipe notices without failing: a
	// GL error one of the application's calls left
	Warn func(msg string)
	// warned are the application's calls whose GL errors were reported,
	// once each (on the pipe goroutine)
	warned map[string]bool
	sys    winsys.System
	ctx    winsys.Context

	queue chan func()
	done  chan struct{}

	helpers  sync.Mutex
	download *worker
	upload   *worker

	pbos     *pboPool
	textures *texturePool
	// softwareGL: the GL renders on the CPU (Mesa's llvmpipe), where no
	// helper goroutine uploads or reads back (StartUploadRelease says why)
	// and the statistics name the renderer "software"
	softwareGL bool
	// downloadGate, when set (tests), holds each download until a value
	// arrives: it shows that the render goroutine goes on meanwhile.
	downloadGate chan struct{}
}

// StartPipe starts a pipe on the window system.
func StartPipe(label string, sys winsys.System) (*Pipe, error) {
	p := &Pipe{Label: label, sys: sys, queue: make(chan func()), done: make(chan struct{}), pbos: &pboPool{}, textures: newTexturePool()}
	ready := make(chan error)
	go p.run(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Pipe) run(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := p.sys.NewContext(nil)
	if err == nil {
		err = ctx.MakeCurrent()
	}
	if err == nil {
		err = glutil.Init()
	}
	if err == nil {
		err = primeStores(p.Label)
	}
	if err != nil {
		ready <- fmt.Errorf("%s: %w", p.Label, err)
		return
	}
	p.ctx = ctx
	p.softwareGL = softwareGL()
	ready <- nil
	for f := range p.queue {
		f()
	}
	gl.Finish() // nothing may still sample a texture the pool deletes
	p.pbos.free()
	p.textures.release()
	ctx.Release()
	ctx.Destroy()
	close(p.done)
}

// primeMu lets one pipe of the process at a time make its first texture
// stores. Mesa fills a static table on a process's first depth store
// (texstore_depth_stencil) without a lock, so a second thread storing
// depth meanwhile can find it half filled: two pipes of one render client
// uploading their first depth at once crashed it, calling through a NULL
// entry in glTexSubImage2D. The table is Mesa's, not llvmpipe's: pipes
// on a Mesa GPU driver need the same.
var primeMu sync.Mutex

// primeHook, when set (tests), is told when a pipe starts and ends its
// priming.
var primeHook func(label string, start bool)

// primeStores stores a texel of each format the pipe uploads (RGBA8
// colour, float depth) and reads both back, one pipe at a time, before
// the pipe takes work: later stores find Mesa's tables filled. A GL that
// gives back other values than it stored is refused here rather than
// composite wrong pixels.
func primeStores(label string) error {
	primeMu.Lock()
	defer primeMu.Unlock()
	if primeHook != nil {
		primeHook(label, true)
		defer primeHook(label, false)
	}
	t, err := glutil.NewTarget(1, 1)
	if err != nil {
		return err
	}
	defer t.Delete()
	color, depth := []byte{16, 96, 160, 240}, []float32{0.375}
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.BindTexture(gl.TEXTURE_2D, t.Color)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(color))
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.BindTexture(gl.TEXTURE_2D, t.Depth)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 1, 1, gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(depth))
	gl.BindTexture(gl.TEXTURE_2D, 0)
	t.Bind()
	gotColor, gotDepth := glutil.ReadColor(0, 0, 1, 1, nil), glutil.ReadDepth(0, 0, 1, 1, nil)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if err := glutil.Error(); err != nil {
		return fmt.Errorf("storing a first texel: %w", err)
	}
	if string(gotColor) != string(color) || gotDepth[0] != depth[0] {
		return fmt.Errorf("the GL gives back colour %v and depth %v for the %v and %v it stored", gotColor, gotDepth[0], color, depth[0])
	}
	return nil
}

// Do runs f on the pipe goroutine (its context current) and returns its
// error.
func (p *Pipe) Do(f func() error) error {
	errc := make(chan error, 1)
	p.queue <- func() {
		defer func() {
			if r := recover(); r != nil {
				errc <- newPanicError(p.Label, r)
			}
		}()
		errc <- f()
	}
	return <-errc
}

// PanicError is a panic on a pipe's goroutine (in the application's
// Draw, most likely), recovered: it fails what the pipe ran, and names
// where it happened, which the panic's value alone does not ("assignment
// to entry in nil map").
type PanicError struct {
	Pipe  string // the pipe's label
	Value any    // what was passed to panic
	Site  string // the function and file:line that panicked
	Stack []byte // the pipe goroutine's stack as it panicked
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: panic: %v (in %s)", e.Pipe, e.Value, e.Site)
}

// newPanicError is called from the deferred recover of a panic: the stack
// still holds the frames that panicked, below the runtime's own.
func newPanicError(pipe string, value any) *PanicError {
	e := &PanicError{Pipe: pipe, Value: value, Site: "an unknown place", Stack: debug.Stack()}
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	// the deferred function, the runtime's panic, then (past any runtime
	// frames that raised it: a nil map's assignment) the code that panicked
	panicked := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicked = true
		case panicked && !strings.HasPrefix(f.Function, "runtime."):
			e.Site = fmt.Sprintf("%s at %s:%d", f.Function, f.File, f.Line)
			return e
		}
		if !more {
			return e
		}
	}
}

// DoApplication runs the application's f (what names it in messages) as
// Do does, then takes the GL errors it left and puts back the GL state
// goeq's own passes rely on (afterApplication).
func (p *Pipe) DoApplication(what string, f func() error) error {
	return p.Do(func() error {
		defer p.afterApplication(0, what, what)
		return f()
	})
}

// ExitRenderer calls the renderer's Exit, where it has one (draw.Exiter),
// on the pipe goroutine: a panic there is said (Warn), and what the
// caller frees next goes all the same.
func (p *Pipe) ExitRenderer(r draw.Renderer) {
	x, ok := r.(draw.Exiter)
	if !ok {
		return
	}
	if err := p.DoApplication("the renderer's Exit", func() error { x.Exit(); return nil }); err != nil && p.Warn != nil {
		p.Warn(err.Error())
	}
}

// afterApplication runs on the pipe goroutine after each of the
// application's calls: a GL error the call left (the application's to
// check) is taken and reported, once for each kind of call, where it used
// to stay pending until goeq's next check and fail goeq's own pass (a
// refined frame's accumulation, a texture's allocation) in its name; then
// the GL state goeq relies on is put back (glutil.AfterApplication, into
// framebuffer fbo).
func (p *Pipe) afterApplication(fbo uint32, kind, what string) {
	if errs := glutil.Errors(); len(errs) > 0 && !p.warned[kind] {
		if p.warned == nil {
			p.warned = map[string]bool{}
		}
		p.warned[kind] = true
		if p.Warn != nil {
			p.Warn(fmt.Sprintf("%s: %s left %s pending; goeq cleared it (glGetError after the application's GL calls finds its cause). Said once for each of the application's calls on this pipe.",
				p.Label, what, strings.Join(errs, ", ")))
		}
	}
	glutil.AfterApplication(fbo)
}

// Context is the pipe's context (for windows that swap).
func (p *Pipe) Context() winsys.Context { return p.ctx }

// Stop ends the pipe and its helper goroutines.
func (p *Pipe) Stop() {
	p.helpers.Lock()
	for _, w := range []*worker{p.download, p.upload} {
		if w != nil {
			w.stop()
		}
	}
	p.download, p.upload = nil, nil
	p.helpers.Unlock()
	close(p.queue)
	<-p.done
}

// worker is a helper goroutine with a context shared with the pipe's.
type worker struct {
	jobs chan func()
	done chan struct{}
}

// helper returns the pipe's download or upload goroutine, starting it the
// first time it is needed.
func (p *Pipe) helper(slot **worker, name string) (*worker, error) {
	p.helpers.Lock()
	defer p.helpers.Unlock()
	if *slot != nil {
		return *slot, nil
	}
	// EGL and GLX both let a context share with one that is current on
	// another thread, so the helper's context is made right here: helpers
	// are started from the render goroutine (readback) and from receivers.
	ctx, err := p.sys.NewContext(p.ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %s context: %w", p.Label, name, err)
	}
	w := &worker{jobs: make(chan func(), 64), done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := ctx.MakeCurrent(); err != nil {
			ready <- err
			return
		}
		ready <- nil
		for f := range w.jobs {
			f()
		}
		ctx.Release()
		ctx.Destroy()
		close(w.done)
	}()
	if err := <-ready; err != nil {
		return nil, fmt.Errorf("%s: %s context: %w", p.Label, name, err)
	}
	*slot = w
	return w, nil
}

func (w *worker) stop() {
	close(w.jobs)
	<-w.done
}

// ownDisplay names the X screen (" host:d.s") or the EGL display of the
// software renderer (" device 0") the pipe renders on apart from its
// node's display, and is empty for a pipe on its node's display.
func (p *Pipe) ownDisplay() string {
	switch sys := p.sys.(type) {
	case *winsys.X11:
		return " " + sys.Display
	case *winsys.EGL:
		if main, err := winsys.OpenEGL(); err == nil && sys != main {
			return " " + sys.Platform
		}
	}
	return ""
}
