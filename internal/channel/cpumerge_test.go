package channel

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// A destination under a software GL merges sort-last inputs into an image
// that starts as the framebuffer's pixels, and writes it back with
// glutil.Target.Write, with no shader pass. Where nothing was written
// since the frame's first clear it does not read the framebuffer but
// fills the image with the clear (cpuMerged.fill with clearPixel): that
// must be the bytes the clear stored, for colours that round either way.
func TestFillIsWhatTheClearStores(t *testing.T) {
	p := eglPipe(t, "fill")
	const w, h = 13, 7
	area := compound.PixelViewport{X: 2, Y: 1, W: 9, H: 5}
	for _, c := range [][4]float32{{0, 0, 0, 1}, {0.1, 0.1, 0.15, 1}, {0.5, 0.25, 0.75, 0.5}, {1.5 / 255, 2.5 / 255, 127.5 / 255, 254.5 / 255}, {0.3, 0.6, 0.9, 0}} {
		fr := &frameRun{e: &Executor{Renderer: clearing(c)}}
		m := &cpuMerged{img: compositor.NewImage(w, h, true)}
		var read *compositor.Image
		err := p.Do(func() error {
			fb, err := glutil.NewTarget(w, h)
			if err != nil {
				return err
			}
			defer fb.Delete()
			fb.Bind()
			fr.clearRegion(compound.PixelViewport{W: w, H: h})
			m.fill(area, fr.clearPixel(&Target{FB: fb}, area.X+3, area.Y+2))
			read = compositor.NewImage(w, h, true)
			fb.Bind()
			glutil.ReadInto(0, 0, w, h, w, read.Color, read.Depth)
			return glutil.Error()
		})
		if err != nil {
			t.Fatal(err)
		}
		for y := area.Y; y < area.Y+area.H; y++ {
			for x := area.X; x < area.X+area.W; x++ {
				i := y*w + x
				if got, want := m.img.Color[4*i:4*i+4], read.Color[4*i:4*i+4]; !slices.Equal(got, want) || m.img.Depth[i] != read.Depth[i] {
					t.Fatalf("clear colour %v at %d,%d: fill gives %v depth %g, the clear stored %v depth %g", c, x, y, got, m.img.Depth[i], want, read.Depth[i])
				}
			}
		}
		// outside the rectangle fill leaves the image alone
		if m.img.Color[0] != 0 || m.img.Depth[0] != 0 || m.img.Depth[w*h-1] != 0 {
			t.Fatalf("fill of %v wrote outside it", area)
		}
	}
}

// clearing is a renderer that draws nothing on a background of its own.
type clearing [4]float32

func (c clearing) Draw(*draw.Context) (draw.Region, error) { return draw.Nothing, nil }
func (c clearing) ClearColor() [4]float32                  { return c }

// Target.Write puts a part of an image (rows stride pixels apart) into the
// framebuffer where it says, depth and stencil packed for a target with
// stencil, and refuses a part outside the target or too few pixels.
func TestTargetWrite(t *testing.T) {
	p := eglPipe(t, "write")
	const w, h = 11, 9
	src := compositor.NewImage(w, h, true)
	stencil := make([]byte, w*h)
	for i := range src.Depth {
		src.Depth[i] = float32(i) / float32(w*h)
		src.Color[4*i], src.Color[4*i+1], src.Color[4*i+2], src.Color[4*i+3] = byte(i), byte(3*i), byte(7*i), 255
		stencil[i] = byte(5*i + 1)
	}
	part := compound.PixelViewport{X: 3, Y: 2, W: 5, H: 4}
	at := part.Y*w + part.X
	for _, withStencil := range []bool{false, true} {
		read := compositor.NewImage(w, h, true)
		readStencil := make([]byte, w*h)
		var errs []error
		err := p.Do(func() error {
			fb, err := glutil.NewTarget(w, h)
			if withStencil {
				fb, err = glutil.NewStencilTarget(w, h)
			}
			if err != nil {
				return err
			}
			defer fb.Delete()
			fb.Bind()
			gl.ClearColor(0, 0, 0, 0)
			gl.ClearDepth(1)
			gl.ClearStencil(0)
			gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT)
			if err := fb.Write(part.X, part.Y, part.W, part.H, w, src.Color[4*at:], src.Depth[at:], stencil[at:]); err != nil {
				return err
			}
			glutil.ReadInto(0, 0, w, h, w, read.Color, read.Depth)
			if withStencil {
				glutil.ReadStencilInto(0, 0, w, h, w, readStencil)
			}
			errs = append(errs,
				fb.Write(8, 2, 5, 4, w, src.Color, nil, nil),
				fb.Write(0, 0, 5, 4, w, src.Color[:4*(3*w+4)], nil, nil),
				fb.Write(0, 0, 5, 4, 4, src.Color, nil, nil),
				fb.Write(0, 0, 5, 4, w, src.Color, src.Depth[:3*w+4], stencil))
			if withStencil {
				errs = append(errs, fb.Write(0, 0, 5, 4, w, src.Color, src.Depth, nil))
			}
			return glutil.Error()
		})
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := y*w + x
				in := x >= part.X && x < part.X+part.W && y >= part.Y && y < part.Y+part.H
				wantC, wantD, wantS := []byte{0, 0, 0, 0}, float32(1), byte(0)
				if in {
					wantC, wantD, wantS = src.Color[4*i:4*i+4], src.Depth[i], stencil[i]
				}
				if !withStencil {
					wantS = 0
				}
				if got := read.Color[4*i : 4*i+4]; !slices.Equal(got, wantC) || read.Depth[i] != wantD || readStencil[i] != wantS {
					t.Fatalf("stencil %v, at %d,%d: %v depth %g stencil %d, want %v depth %g stencil %d",
						withStencil, x, y, got, read.Depth[i], readStencil[i], wantC, wantD, wantS)
				}
			}
		}
		for i, err := range errs {
			if err == nil {
				t.Errorf("stencil %v: bad write %d was not refused", withStencil, i)
			}
		}
	}
}

// An in-memory merge holds a copy of the framebuffer's pixels under its
// inputs until it is written back. When another channel of the window
// writes there first (it ran ahead while the assembly waited), the merge
// goes into the framebuffer before that write, in the order things
// happened, as a shader per input would have done; written back after
// it, the stale copy would undo the write.
func TestAnotherChannelsWriteComesAfterAPendingMerge(t *testing.T) {
	p := eglPipe(t, "order")
	if !p.softwareGL {
		t.Skip("a GPU merges through a shader, holding no copy of the framebuffer")
	}
	const w, h = 16, 8
	bg := [4]float32{0, 0, 0, 1}
	fr := &frameRun{e: &Executor{Pipe: p, Renderer: clearing(bg), cpuMerge: true}, records: map[string]*stats.Record{}}
	ch := &compound.Channel{ID: "c"}
	in := &Pixels{PixelViewport: compound.PixelViewport{W: 4, H: 4}, Color: make([]byte, 4*16), Depth: make([]float32, 16)}
	for i := range in.Depth {
		in.Color[4*i], in.Color[4*i+3], in.Depth[i] = 200, 255, 0.5
	}
	var got []byte
	err := p.Do(func() error {
		fb, err := glutil.NewTarget(w, h)
		if err != nil {
			return err
		}
		defer fb.Delete()
		tg := &Target{FB: fb}
		fb.Bind()
		fr.clearRegion(compound.PixelViewport{W: w, H: h})
		assembling := &channelRun{plan: &planner.ChannelPlan{Channel: ch}, target: tg, dirty: map[int]compound.PixelViewport{}}
		clearing := &channelRun{plan: &planner.ChannelPlan{Channel: ch}, target: tg, dirty: map[int]compound.PixelViewport{}}
		fr.runs = []*channelRun{assembling, clearing}
		assembling.asm = newAssembly(fr, assembling, &planner.Task{Kind: planner.Assemble})
		at := compound.PixelViewport{X: 2, Y: 2, W: 4, H: 4}
		if err := assembling.asm.mergeOnCPU(in, at); err != nil {
			return err
		}
		if !assembling.asm.merged.whole {
			return fmt.Errorf("the merge under a software GL is not whole")
		}
		// the other channel clears a region it drew into, which covers the input
		tg.wrote(compound.PixelViewport{W: w, H: h})
		if _, err := fr.run(clearing, &planner.Task{Kind: planner.Clear, Region: compound.PixelViewport{W: w, H: h}}); err != nil {
			return err
		}
		fb.Bind()
		if err := assembling.asm.flushCPUMerge(); err != nil {
			return err
		}
		got = glutil.ReadColor(at.X, at.Y, 1, 1, nil)
		return glutil.Error()
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 {
		t.Errorf("the input merged before the clear came back after it: %v", got)
	}
}
