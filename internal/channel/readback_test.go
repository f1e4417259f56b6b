package channel

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/winsys"
)

// collectSink keeps the frames an executor sends.
type collectSink struct {
	mu     sync.Mutex
	frames []*FrameData
}

func (s *collectSink) Send(f *FrameData) {
	s.mu.Lock()
	s.frames = append(s.frames, f)
	s.mu.Unlock()
}

func (s *collectSink) Pull(int, string, string, int) {}

// Asked for asynchronous readback, an executor on a software GL reads
// back on the render goroutine all the same and never makes a download
// context: llvmpipe's glReadPixels into a buffer costs a direct read
// anyway, and mapping the buffer on the download context while the render
// context drew crashed a render client once. On a GPU it reads
// back on the download goroutine. Either way the source's output frame
// goes out with its pixels.
func TestSoftwareGLReadsBackOnTheRenderGoroutine(t *testing.T) {
	source := sourcePlan(t)
	p, err := StartPipe("readback", openEGL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	sink := &collectSink{}
	e, err := NewExecutor(p, render.NewMesh(render.Bumpy(40, 80)), sink, ExecOptions{AsyncReadback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res := e.Run(context.Background(), 0, nil, []*planner.ChannelPlan{source}, nil)
	res.Wait()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.frames) == 0 {
		t.Fatalf("channel %s sent no frame", source.Channel.Label)
	}
	for _, f := range sink.frames {
		if f.W > 0 && len(f.Color) != 4*f.W*f.H {
			t.Errorf("frame %q to %s: %d colour bytes for %dx%d pixels", f.Name, f.Consumer, len(f.Color), f.W, f.H)
		}
	}
	checkHelper(t, p, &p.download, "download")
	t.Logf("software GL %v, %d frames sent", p.softwareGL, len(sink.frames))
}

// A frame given up (the run stopped, or failed, while the frame was in
// the pipe's queue or between its tasks) draws none of its tasks: the 9
// render processes of a stress config on 2 cores drew the frames queued
// behind a failed run's stop for 4 s, and were killed before their
// renderers' Exit.
func TestAFrameGivenUpDrawsNothing(t *testing.T) {
	source := sourcePlan(t)
	p, err := StartPipe("given-up", openEGL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	sink := &collectSink{}
	counted := &countingRenderer{}
	e, err := NewExecutor(p, counted, sink, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := e.Run(ctx, 0, nil, []*planner.ChannelPlan{source}, nil)
	res.Wait()
	if !errors.Is(res.Err, context.Canceled) {
		t.Errorf("the frame's error: %v, want it to be context.Canceled", res.Err)
	}
	if counted.draws.Load() != 0 || len(sink.frames) != 0 {
		t.Errorf("a frame given up drew %d times and sent %d frames", counted.draws.Load(), len(sink.frames))
	}
	// the same executor draws the next frame, which is not given up
	res = e.Run(context.Background(), 1, nil, []*planner.ChannelPlan{source}, nil)
	res.Wait()
	if res.Err != nil || counted.draws.Load() == 0 {
		t.Errorf("the frame after: %v, %d draws", res.Err, counted.draws.Load())
	}
}

// countingRenderer counts its draws, and draws nothing.
type countingRenderer struct{ draws atomic.Int32 }

func (c *countingRenderer) Draw(*draw.Context) (draw.Region, error) {
	c.draws.Add(1)
	return draw.All, nil
}

// sourcePlan is the plan of a source channel of 2d-lb-4.eqc's first
// frame, which draws and reads back.
func sourcePlan(t *testing.T) *planner.ChannelPlan {
	t.Helper()
	m, _, err := compound.Load("../../examples/configs/2d-lb-4.eqc", compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range planner.New(m.Configs[0]).Plan(0).Channels {
		if !cp.Destination && slices.ContainsFunc(cp.Tasks, func(task planner.Task) bool { return task.Kind == planner.Readback }) {
			return cp
		}
	}
	t.Fatal("2d-lb-4.eqc's first frame has no source channel that reads back")
	return nil
}

func openEGL(t *testing.T) winsys.System {
	t.Helper()
	sys, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// checkHelper checks that the pipe started its download or upload
// goroutine (slot) on a GPU, and not under a software GL, where the
// render goroutine does that work.
func checkHelper(t *testing.T, p *Pipe, slot **worker, name string) {
	t.Helper()
	p.helpers.Lock()
	started := *slot != nil
	p.helpers.Unlock()
	if p.softwareGL && started {
		t.Errorf("a software GL (llvmpipe) started the %s goroutine", name)
	}
	if !p.softwareGL && !started {
		t.Errorf("a GPU did the %s work on the render goroutine", name)
	}
}
