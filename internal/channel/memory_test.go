package channel

import (
	"syscall"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/race"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/winsys"
)

// A pipe that draws into two windows a frame, reading one back on its
// download goroutine (a source and its destination on one GPU, as
// 2-window.DB.eqc has), keeps the memory llvmpipe's binner frees after
// each frame: the next frame faults no pages in. It faulted about 3300 a
// frame (13 MB) when glibc unmapped a thread arena's emptied heap, which
// made that config run at a third of its pace (see keepMallocMemory).
func TestDrawsIntoTwoWindowsKeepTheirMemory(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's shadow memory faults pages in beside the frames'")
	}
	sys, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartPipe("memory", sys)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	mesh := render.NewMesh(render.Bumpy(250, 400))
	const w, h = 768, 432
	var windows [2]*glutil.Target
	err = p.Do(func() error {
		if err := mesh.Init(); err != nil {
			return err
		}
		for i := range windows {
			if windows[i], err = glutil.NewTarget(w, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Do(func() error {
		mesh.Exit()
		windows[0].Delete()
		windows[1].Delete()
		return nil
	})
	proj := render.Frustum(compound.Frustum{Left: -0.136, Right: 0.136, Bottom: -0.08, Top: 0.08, Near: 0.1, Far: 100})
	frame := func(f int) error {
		var rb *Readback
		err := p.Do(func() error {
			for i, win := range windows {
				win.Bind()
				gl.Viewport(0, 0, w, h)
				gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
				half := draw.Range{Start: float64(i) / 2, End: float64(i+1) / 2}
				if _, err := mesh.Draw(&draw.Context{Frame: f, Width: w, Height: h, Projection: proj, View: draw.Identity, Adjust: draw.Identity, Range: half}); err != nil {
					return err
				}
				if i == 0 {
					rb = p.StartReadback(f, compound.PixelViewport{X: 100, Y: 20, W: w - 200, H: h - 40}, true)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		_, err = rb.Wait()
		return err
	}
	const warmUp, frames = 5, 20
	var before int64
	for f := 0; f < warmUp+frames; f++ {
		if f == warmUp {
			before = minorFaults()
		}
		if err := frame(f); err != nil {
			t.Fatal(err)
		}
	}
	if perFrame := (minorFaults() - before) / frames; perFrame > 500 {
		t.Errorf("%d page faults a frame after %d frames; want the memory of the frame before kept (under 500)", perFrame, warmUp)
	}
}

// minorFaults counts the page faults of this process so far that the
// kernel served without I/O: memory mapped again.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
