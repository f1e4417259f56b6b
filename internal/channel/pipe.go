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
	"sync"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/winsys"
)

// Pipe is one GPU: a goroutine on its own OS thread with the pipe's
// current context. All GL work for the pipe's windows and channels runs
// through Do.
type Pipe struct {
	Label string // names it in messages (compound.Pipe.Label)
	sys   winsys.System
	ctx   winsys.Context

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

// Do runs f on the pipe goroutine (its context current) and returns its
// error.
func (p *Pipe) Do(f func() error) error {
	errc := make(chan error, 1)
	p.queue <- func() {
		defer func() {
			if r := recover(); r != nil {
				errc <- fmt.Errorf("%s: panic: %v", p.Label, r)
			}
		}()
		errc <- f()
	}
	return <-errc
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

// ownDisplay names the X screen the pipe opened for itself (" host:d.s"),
// and is empty for a pipe on its node's display.
func (p *Pipe) ownDisplay() string {
	if x, ok := p.sys.(*winsys.X11); ok {
		return " " + x.Display
	}
	return ""
}
