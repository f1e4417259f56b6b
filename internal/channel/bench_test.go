package channel

import (
	"sync"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/winsys"
)

// Benchmarks of the demo mesh (one million triangles) at 1920x1080 on this
// machine's GPU through EGL (go test -run '^$' -bench . ./channel):
// drawing, synchronous and asynchronous readback, and the frame time of a
// draw+readback pipeline with asynchronous readback over the one with
// synchronous readback.

const benchW, benchH = 1920, 1080

var (
	benchOnce  sync.Once
	benchModel *render.Model
)

type benchFixture struct {
	pipe   *Pipe
	mesh   *render.Mesh
	target *glutil.Target
}

func newBench(b *testing.B) *benchFixture {
	benchOnce.Do(func() { benchModel = render.Bumpy(500, 1000) })
	sys, err := winsys.OpenEGL()
	if err != nil {
		b.Fatal(err)
	}
	p, err := StartPipe("bench", sys)
	if err != nil {
		b.Fatal(err)
	}
	f := &benchFixture{pipe: p, mesh: render.NewMesh(benchModel)}
	err = p.Do(func() error {
		if err := f.mesh.Init(); err != nil {
			return err
		}
		t, err := glutil.NewTarget(benchW, benchH)
		f.target = t
		b.Logf("GL: %s, %s", gl.GoStr(gl.GetString(gl.RENDERER)), gl.GoStr(gl.GetString(gl.VERSION)))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		p.Do(func() error { f.mesh.Exit(); f.target.Delete(); return nil })
		p.Stop()
	})
	return f
}

func (f *benchFixture) draw(frame int) {
	f.target.Bind()
	gl.ClearColor(0.1, 0.1, 0.15, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	proj := render.Frustum(compound.Frustum{Left: -0.08 * 1.0667, Right: 0.08 * 1.0667, Bottom: -0.06, Top: 0.06, Near: 0.1, Far: 100})
	f.mesh.Draw(&draw.Context{Frame: frame, Width: benchW, Height: benchH, Projection: proj, View: draw.Identity, Adjust: draw.Identity})
}

var full1080 = compound.PixelViewport{W: benchW, H: benchH}

func BenchmarkDrawMesh1080p(b *testing.B) {
	f := newBench(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error { f.draw(i); gl.Finish(); return nil })
	}
}

// BenchmarkAfterApplication is what putting back goeq's GL state costs
// after each of the application's draws (against BenchmarkDrawMesh1080p).
func BenchmarkAfterApplication(b *testing.B) {
	f := newBench(b)
	b.ResetTimer()
	f.pipe.Do(func() error {
		for range b.N {
			glutil.AfterApplication(f.target.FBO)
		}
		gl.Finish()
		return nil
	})
}

func BenchmarkReadbackSync1080p(b *testing.B) {
	f := newBench(b)
	f.pipe.Do(func() error { f.draw(0); gl.Finish(); return nil })
	b.SetBytes(4 * benchW * benchH)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error { f.target.Bind(); ReadSync(i, full1080, false); return nil })
	}
}

func BenchmarkReadbackAsync1080p(b *testing.B) {
	f := newBench(b)
	f.pipe.Do(func() error { f.draw(0); gl.Finish(); return nil })
	b.SetBytes(4 * benchW * benchH)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var rb *Readback
		f.pipe.Do(func() error { f.target.Bind(); rb = f.pipe.StartReadback(i, full1080, false); return nil })
		if _, err := rb.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrameSyncReadback is a frame of draw then synchronous readback
// on the render goroutine.
func BenchmarkFrameSyncReadback(b *testing.B) {
	f := newBench(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error { f.draw(i); ReadSync(i, full1080, false); return nil })
	}
}

// BenchmarkFrameAsyncReadback is the same frame with the readback started
// on the render goroutine and finished on the download goroutine while the
// next frame draws (one frame in flight).
func BenchmarkFrameAsyncReadback(b *testing.B) {
	f := newBench(b)
	var prev *Readback
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var rb *Readback
		f.pipe.Do(func() error { f.draw(i); rb = f.pipe.StartReadback(i, full1080, false); return nil })
		if prev != nil {
			if _, err := prev.Wait(); err != nil {
				b.Fatal(err)
			}
		}
		prev = rb
	}
	if prev != nil {
		prev.Wait()
	}
}

func BenchmarkReadbackSyncDepth1080p(b *testing.B) {
	f := newBench(b)
	f.pipe.Do(func() error { f.draw(0); gl.Finish(); return nil })
	b.SetBytes(8 * benchW * benchH)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error { f.target.Bind(); ReadSync(i, full1080, true); return nil })
	}
}

func BenchmarkReadbackAsyncDepth1080p(b *testing.B) {
	f := newBench(b)
	f.pipe.Do(func() error { f.draw(0); gl.Finish(); return nil })
	b.SetBytes(8 * benchW * benchH)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var rb *Readback
		f.pipe.Do(func() error { f.target.Bind(); rb = f.pipe.StartReadback(i, full1080, true); return nil })
		if _, err := rb.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInput is a 1080p sort-last input: colour and depth.
func benchInput() ([]byte, []float32) {
	color := make([]byte, 4*benchW*benchH)
	depth := make([]float32, benchW*benchH)
	for i := range depth {
		depth[i] = float32(i%997) / 997
		color[4*i] = byte(i)
	}
	return color, depth
}

// each times fn on the bench's pipe b.N times, failing at its first error.
func (f *benchFixture) each(b *testing.B, fn func() error) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.pipe.Do(fn); err != nil {
			b.Fatal(err)
		}
	}
}

// gpuCompositor makes a GPU compositor and the textures newTextures makes
// on the bench's pipe, deleted when the benchmark ends.
func (f *benchFixture) gpuCompositor(b *testing.B, newTextures func() []uint32) (*gpu.Compositor, []uint32) {
	var comp *gpu.Compositor
	var texs []uint32
	err := f.pipe.Do(func() error {
		var err error
		comp, err = gpu.New()
		texs = newTextures()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		f.pipe.Do(func() error {
			comp.Delete()
			gl.DeleteTextures(int32(len(texs)), &texs[0])
			return nil
		})
	})
	return comp, texs
}

// BenchmarkCompositeDepthMergeGPU1080p is one sort-last input arriving at
// the destination: its colour and depth uploaded to textures and merged
// into the framebuffer by the GPU compositor, to glFinish. Compare with
// compositor's BenchmarkDepthMerge (the same pixels merged on the CPU).
func BenchmarkCompositeDepthMergeGPU1080p(b *testing.B) {
	f := newBench(b)
	color, depth := benchInput()
	comp, texs := f.gpuCompositor(b, func() []uint32 {
		return []uint32{glutil.Texture(benchW, benchH, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE),
			glutil.Texture(benchW, benchH, gl.DEPTH_COMPONENT32F, gl.DEPTH_COMPONENT, gl.FLOAT)}
	})
	colorTex, depthTex := texs[0], texs[1]
	b.SetBytes(8 * benchW * benchH)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error {
			f.target.Bind()
			gl.BindTexture(gl.TEXTURE_2D, colorTex)
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, benchW, benchH, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(color))
			gl.BindTexture(gl.TEXTURE_2D, depthTex)
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, benchW, benchH, gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(depth))
			err := comp.DepthMerge(colorTex, depthTex, 0, 0, benchW, benchH)
			gl.Finish()
			return err
		})
	}
}

// BenchmarkWriteIntoFramebuffer1080p is what a destination under a
// software GL does instead of the upload and shader pass above: the merged
// colour and depth written into the framebuffer's textures
// (glutil.Target.Write), to glFinish.
func BenchmarkWriteIntoFramebuffer1080p(b *testing.B) {
	f := newBench(b)
	color, depth := benchInput()
	b.SetBytes(8 * benchW * benchH)
	f.each(b, func() error {
		err := f.target.Write(0, 0, benchW, benchH, benchW, color, depth, nil)
		gl.Finish()
		return err
	})
}

// BenchmarkCompositeInterleaveGPU1080p is a destination putting two
// pixel-decomposed sources (every other column, colour only) together:
// each uploaded to a texture and interleaved by the shader, to glFinish.
func BenchmarkCompositeInterleaveGPU1080p(b *testing.B) {
	f := newBench(b)
	half, _ := benchInput()
	half = half[:4*benchW/2*benchH]
	comp, texs := f.gpuCompositor(b, func() []uint32 {
		return []uint32{glutil.Texture(benchW/2, benchH, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)}
	})
	tex := texs[0]
	b.SetBytes(4 * benchW * benchH)
	f.each(b, func() error {
		f.target.Bind()
		for x := 0; x < 2; x++ {
			gl.BindTexture(gl.TEXTURE_2D, tex)
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, benchW/2, benchH, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(half))
			if err := comp.Interleave(tex, gpu.Samples{First: [2]int{x, 0}, Step: [2]int{2, 1}, Drawn: [2]int{benchW / 2, benchH}, Grid: [2]int{benchW / 2, benchH}}, gpu.Rect{W: benchW, H: benchH}); err != nil {
				return err
			}
		}
		gl.Finish()
		return nil
	})
}

// BenchmarkCompositeInterleaveInMemory1080p is what a destination under a
// software GL does instead (interleaveOnCPU): both sources interleaved into
// the image in memory, which is written into the framebuffer, colour and
// depth, to glFinish.
func BenchmarkCompositeInterleaveInMemory1080p(b *testing.B) {
	f := newBench(b)
	color, depth := benchInput()
	img := &compositor.Image{W: benchW, H: benchH, Color: color, Depth: depth}
	half := compositor.NewImage(benchW/2, benchH, false)
	b.SetBytes(4 * benchW * benchH)
	f.each(b, func() error {
		for x := 0; x < 2; x++ {
			if err := compositor.InterleaveAt(img, half, [2]int{x, 0}, [2]int{2, 1}, 0, 0, benchW, benchH); err != nil {
				return err
			}
		}
		err := f.target.Write(0, 0, benchW, benchH, benchW, img.Color, img.Depth, nil)
		gl.Finish()
		return err
	})
}

// 4K: the readback rate against what the bus carries. BenchmarkReadback4K
// reads a 3840x2160 colour framebuffer back (glReadPixels, synchronous);
// BenchmarkBufferDownload4K reads as many bytes from a buffer object the
// GPU wrote (glCopyBufferSubData, then glGetBufferSubData): a plain
// transfer from GPU memory, the reference the readback is held to (its
// px/s over the buffer's). On llvmpipe both are memory copies.
const w4K, h4K = 3840, 2160

func BenchmarkReadback4K(b *testing.B) {
	f := newBench(b)
	var t *glutil.Target
	if err := f.pipe.Do(func() error {
		var err error
		if t, err = glutil.NewTarget(w4K, h4K); err != nil {
			return err
		}
		t.Bind()
		gl.ClearColor(0.2, 0.4, 0.6, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		gl.Finish()
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.pipe.Do(func() error { t.Delete(); return nil }) })
	all := compound.PixelViewport{W: w4K, H: h4K}
	b.SetBytes(4 * w4K * h4K)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error { t.Bind(); ReadSync(i, all, false); return nil })
	}
}

func BenchmarkBufferDownload4K(b *testing.B) {
	f := newBench(b)
	const n = 4 * w4K * h4K
	var src, dst uint32
	host := make([]byte, n)
	if err := f.pipe.Do(func() error {
		gl.GenBuffers(1, &src)
		gl.BindBuffer(gl.COPY_READ_BUFFER, src)
		gl.BufferData(gl.COPY_READ_BUFFER, n, gl.Ptr(host), gl.STATIC_DRAW)
		gl.GenBuffers(1, &dst)
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, dst)
		gl.BufferData(gl.COPY_WRITE_BUFFER, n, nil, gl.STREAM_COPY)
		gl.Finish()
		return glutil.Error()
	}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.pipe.Do(func() error { gl.DeleteBuffers(1, &src); gl.DeleteBuffers(1, &dst); return nil }) })
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error {
			b.StopTimer()
			gl.BindBuffer(gl.COPY_READ_BUFFER, src)
			gl.BindBuffer(gl.COPY_WRITE_BUFFER, dst)
			gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, n)
			gl.Finish()
			b.StartTimer()
			gl.GetBufferSubData(gl.COPY_WRITE_BUFFER, 0, n, gl.Ptr(host))
			return nil
		})
	}
}

// BenchmarkReadbackSyncDepthStencil1080p is BenchmarkReadbackSyncDepth1080p
// from a window with stencil (planes_stencil ON): depth packed with
// stencil, which llvmpipe reads back 2.5 times as slowly.
func BenchmarkReadbackSyncDepthStencil1080p(b *testing.B) {
	f := newBench(b)
	if err := f.pipe.Do(func() error {
		t, err := glutil.NewStencilTarget(benchW, benchH)
		if err != nil {
			return err
		}
		f.target.Delete()
		f.target = t
		f.draw(0)
		gl.Finish()
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(8 * benchW * benchH)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.pipe.Do(func() error { f.target.Bind(); ReadSync(i, full1080, true); return nil })
	}
}

// BenchmarkRefineAccumulate1080p is what a refined frame adds on the node
// that shows it: the destination's image folded into its running average
// and the average put back (Config.Refine), to glFinish.
func BenchmarkRefineAccumulate1080p(b *testing.B) {
	f := newBench(b)
	var fr *frameRun
	var r *channelRun
	if err := f.pipe.Do(func() error {
		comp, err := gpu.New()
		if err != nil {
			return err
		}
		b.Cleanup(func() {
			f.pipe.Do(func() error {
				comp.Delete()
				for _, a := range fr.e.accum {
					a.delete()
				}
				return nil
			})
		})
		fr = &frameRun{e: &Executor{comp: comp, accum: map[string]*accumulation{}}}
		r = &channelRun{plan: &planner.ChannelPlan{Channel: &compound.Channel{ID: "dest"}, Viewport: full1080, Destination: true},
			target: &Target{FB: f.target}}
		f.draw(0)
		gl.Finish()
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.pipe.Do(func() error {
			fr.refine = 1 + i%control.MaxRefineSamples
			err := fr.accumulate(r)
			gl.Finish()
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}
