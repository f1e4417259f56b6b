package channel

import (
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
)

// churnFrames is how many frames the churn runs: the destination client's
// crash (textures deleted under llvmpipe's queued draws) came within
// 10,000 frames in every run of this harness.
const churnFrames = 12000

// The destination's upload pattern, as fast as it goes: two receivers
// upload frames of changing sizes (a load-balanced 2D split) up to three
// frames ahead while the render goroutine clears, composites four inputs
// per frame and gives their textures back. It runs in a child process,
// so that a crash inside the GL driver is a failure here, not the end of
// the test binary.
func TestUploadsSurviveTextureTurnover(t *testing.T) {
	if os.Getenv("GOEQ_CHURN") != "" {
		churn(t, churnFrames)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestUploadsSurviveTextureTurnover$", "-test.v")
	cmd.Env = append(os.Environ(), "GOEQ_CHURN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the upload churn failed: %v\n%s", err, tail(string(out), 3000))
	}
	if !strings.Contains(string(out), "ownership errors: 0") {
		t.Errorf("no clean ownership report:\n%s", tail(string(out), 2000))
	}
}

// tail is s cut to its first and last n bytes: a crash in the child
// says what it was at its start (after the test's few lines), and its
// stack dump runs to the end.
func tail(s string, n int) string {
	if len(s) <= 2*n {
		return s
	}
	return s[:n] + "\n...\n" + s[len(s)-n:]
}

func churn(t *testing.T, frames int) {
	p := eglPipe(t, "churn")
	var comp *gpu.Compositor
	var tg *glutil.Target
	if err := p.Do(func() error {
		var err error
		if comp, err = gpu.New(); err != nil {
			return err
		}
		tg, err = glutil.NewTarget(320, 240)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ups := make([][4]*Upload, frames)
	ready := make([]chan struct{}, frames)
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	var mu sync.Mutex
	count := make([]int, frames)
	ahead := make(chan struct{}, 3)
	for s := 0; s < 2; s++ {
		go func(s int) {
			rng := rand.New(rand.NewSource(int64(s)))
			for f := 0; f < frames; f++ {
				if s == 0 {
					ahead <- struct{}{}
				}
				for k := 0; k < 2; k++ {
					w, h := 50+rng.Intn(200), 50+rng.Intn(150)
					px := &Pixels{PixelViewport: compound.PixelViewport{W: w, H: h}, Color: make([]byte, 4*w*h)}
					u := p.StartUpload(px)
					mu.Lock()
					ups[f][2*s+k] = u
					count[f]++
					if count[f] == 4 {
						close(ready[f])
					}
					mu.Unlock()
				}
			}
		}(s)
	}
	for f := 0; f < frames; f++ {
		<-ready[f]
		err := p.Do(func() error {
			tg.Bind()
			gl.ClearColor(0.1, 0.1, 0.1, 1)
			gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
			for _, u := range ups[f] {
				if err := u.Use(); err != nil {
					return err
				}
				if err := comp.Assemble(u.Color, 0, 0, u.W, u.H); err != nil {
					return err
				}
			}
			for _, u := range ups[f] {
				u.Release()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ups[f] = [4]*Upload{}
		<-ahead
	}
	n, last := p.OwnershipErrors()
	t.Logf("%d frames; ownership errors: %d %s", frames, n, last)
	if n != 0 {
		t.Errorf("texture ownership violated %d times, last: %s", n, last)
	}
}

// The pool hands textures over in order and complains about anything
// else.
func TestTextureLeaseHandOver(t *testing.T) {
	tp := newTexturePool()
	l := &lease{id: 7, pool: tp}
	l.state.Store(int32(leaseUploading))
	l.hand(leaseUploading, leaseFilled)
	l.hand(leaseFilled, leaseSampling)
	if n, _ := p0(tp); n != 0 {
		t.Fatalf("%d errors on a correct hand-over", n)
	}
	l.hand(leaseFilled, leaseSampling) // sampled twice: a bug
	n, last := p0(tp)
	if n != 1 || !strings.Contains(last, "texture 7 handed from filled to sampling while sampling") {
		t.Errorf("errors %d, last %q", n, last)
	}
}

func p0(tp *texturePool) (int64, string) {
	last, _ := tp.last.Load().(string)
	return tp.errs.Load(), last
}
