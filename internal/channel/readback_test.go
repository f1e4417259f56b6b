package channel

import (
	"context"
	"sync"
	"testing"

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
	sys, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := compound.Load("../../examples/configs/2d-lb-4.eqc", compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Configs[0]
	var source *planner.ChannelPlan
	for _, cp := range planner.New(cfg).Plan(0).Channels {
		if cp.Destination {
			continue
		}
		for _, task := range cp.Tasks {
			if task.Kind == planner.Readback {
				source = cp
			}
		}
	}
	if source == nil {
		t.Fatal("2d-lb-4.eqc's first frame has no source channel that reads back")
	}
	p, err := StartPipe("readback", sys)
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
