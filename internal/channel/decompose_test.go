package channel

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/winsys"
)

func TestMain(m *testing.M) {
	done := make(chan struct{})
	code := 0
	go func() {
		code = m.Run()
		close(done)
	}()
	winsys.RunMain(done)
	os.Exit(code)
}

// systems are the window systems to test: EGL always; GLFW when an X
// display is set (make test runs under Xvfb, so both run there).
func systems(t *testing.T) map[string]winsys.System {
	out := map[string]winsys.System{}
	e, err := winsys.OpenEGL()
	if err != nil {
		t.Fatalf("EGL: %v", err)
	}
	out["egl"] = e
	if os.Getenv("DISPLAY") != "" {
		g, err := winsys.OpenGLFW()
		if err != nil {
			t.Fatalf("GLFW on %s: %v", os.Getenv("DISPLAY"), err)
		}
		out["glfw"] = g
	}
	return out
}

const destW, destH = 160, 100

var background = [4]float32{0.1, 0.1, 0.15, 1}

// destProjection is the default wall seen from the origin.
func destProjection() draw.Mat4 {
	return render.Frustum(compound.DefaultWall.EyeFrustum(compound.Vec3{}, compound.DefaultNear, compound.DefaultFar))
}

// renderSub renders r into a new w x h target with the sub-frame adjustment and
// returns the target (left bound).
func renderSub(t *testing.T, r draw.Renderer, sub render.Sub, rng compound.Range, clear [4]float32) *glutil.Target {
	tg, err := glutil.NewTarget(sub.W, sub.H)
	if err != nil {
		t.Fatal(err)
	}
	tg.Bind()
	gl.ClearColor(clear[0], clear[1], clear[2], clear[3])
	gl.ClearDepth(1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	adj := sub.Matrix()
	p := &draw.Context{Width: sub.W, Height: sub.H, Range: draw.Range(rng), Pixel: draw.Pixel(sub.Pixel), Adjust: adj,
		Projection: adj.Mul(destProjection()), View: draw.Identity}
	if _, err := r.Draw(p); err != nil {
		t.Fatal(err)
	}
	return tg
}

func full() render.Sub { return render.Sub{DestW: destW, DestH: destH, W: destW, H: destH} }

// fixture runs fn for each window system with a started pipe and a mesh
// and volume renderer initialised on it.
type fixture struct {
	pipe   *Pipe
	mesh   *render.Mesh
	volume *render.Volume
	comp   *gpu.Compositor
}

func withPipes(t *testing.T, fn func(t *testing.T, f *fixture)) {
	model := render.Bumpy(60, 120)
	for name, sys := range systems(t) {
		t.Run(name, func(t *testing.T) {
			p, err := StartPipe(name, sys)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			f := &fixture{pipe: p, mesh: render.NewMesh(model), volume: render.NewVolume()}
			if err := p.Do(func() error {
				if err := f.mesh.Init(); err != nil {
					return err
				}
				if err := f.volume.Init(); err != nil {
					return err
				}
				f.comp, err = gpu.New()
				return err
			}); err != nil {
				t.Fatal(err)
			}
			fn(t, f)
		})
	}
}

// composite uploads each part on the pipe (as a received frame is),
// composites it into a new destination target with op, after prep has
// readied the target, and returns the destination's pixels.
func composite(t *testing.T, f *fixture, prep func(), parts []*Pixels, op func(i int, up *Upload) error) *Pixels {
	t.Helper()
	var got *Pixels
	err := f.pipe.Do(func() error {
		dst, err := glutil.NewTarget(destW, destH)
		if err != nil {
			return err
		}
		defer dst.Delete()
		dst.Bind()
		if prep != nil {
			prep()
		}
		for i, p := range parts {
			up := f.pipe.StartUpload(p)
			if err := up.Use(); err != nil {
				return err
			}
			dst.Bind()
			if err := op(i, up); err != nil {
				return err
			}
			up.Release()
		}
		got = readTarget(dst, false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func clearTo(c [4]float32) func() {
	return func() {
		gl.ClearColor(c[0], c[1], c[2], c[3])
		gl.ClearDepth(1)
		gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	}
}

// compare counts pixels whose channels differ by more than tol.
func compare(t *testing.T, what string, got, want []byte, tol int, maxBad int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	bad, worst := 0, 0
	for i := 0; i < len(got); i += 4 {
		over := false
		for c := 0; c < 4; c++ {
			d := int(got[i+c]) - int(want[i+c])
			if d < 0 {
				d = -d
			}
			worst = max(worst, d)
			over = over || d > tol
		}
		if over {
			bad++
		}
	}
	if bad > maxBad {
		t.Errorf("%s: %d of %d pixels differ by more than %d (largest difference %d)", what, bad, len(got)/4, tol, worst)
	} else {
		t.Logf("%s: %d pixels beyond tolerance %d, largest difference %d", what, bad, tol, worst)
	}
}

func readTarget(tg *glutil.Target, depth bool) *Pixels {
	tg.Bind()
	return ReadSync(0, compound.PixelViewport{W: tg.W, H: tg.H}, depth)
}

// 2D: four uneven tiles rendered separately, read back asynchronously,
// uploaded and assembled on the GPU (and on the CPU) equal the single
// render within 1: a tile's projection is the destination's scaled by a
// ratio like 160/70, so a vertex can round differently and a shaded pixel
// differ by one; coverage and the assembly itself are exact.
func TestCompose2D(t *testing.T) {
	withPipes(t, func(t *testing.T, f *fixture) {
		tiles := []compound.PixelViewport{{X: 0, Y: 0, W: 70, H: 40}, {X: 70, Y: 0, W: 90, H: 40}, {X: 0, Y: 40, W: 100, H: 60}, {X: 100, Y: 40, W: 60, H: 60}}
		var ref *Pixels
		var reads []*Readback
		f.pipe.Do(func() error {
			tg := renderSub(t, f.mesh, full(), compound.FullRange, background)
			ref = readTarget(tg, false)
			tg.Delete()
			for _, tile := range tiles {
				tg := renderSub(t, f.mesh, render.Sub{DestW: destW, DestH: destH, X: tile.X, Y: tile.Y, W: tile.W, H: tile.H}, compound.FullRange, background)
				reads = append(reads, f.pipe.StartReadback(0, compound.PixelViewport{W: tile.W, H: tile.H}, false))
				tg.Delete()
			}
			return nil
		})
		cpu := compositor.NewImage(destW, destH, false)
		var parts []*Pixels
		for i, rb := range reads {
			px, err := rb.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if err := compositor.Assemble(cpu, &compositor.Image{W: tiles[i].W, H: tiles[i].H, Color: px.Color}, tiles[i].X, tiles[i].Y); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, px)
		}
		got := composite(t, f, nil, parts, func(i int, up *Upload) error {
			return f.comp.Assemble(up.Color, tiles[i].X, tiles[i].Y, tiles[i].W, tiles[i].H)
		})
		compare(t, "2D GPU assembly vs single render", got.Color, ref.Color, 1, 0)
		compare(t, "2D CPU assembly vs GPU assembly", cpu.Color, got.Color, 0, 0)
		if t.Failed() {
			dumpPNG(t, "2d", got.Color, ref.Color)
		}
	})
}

// DB: four triangle ranges with depth, merged on the GPU and the CPU,
// equal the single render (pixels where two triangles meet at equal depth
// may resolve differently: at most 0.5%).
func TestComposeDB(t *testing.T) {
	withPipes(t, func(t *testing.T, f *fixture) {
		var ref *Pixels
		var parts []*Pixels
		f.pipe.Do(func() error {
			tg := renderSub(t, f.mesh, full(), compound.FullRange, background)
			ref = readTarget(tg, false)
			tg.Delete()
			var reads []*Readback
			for i := 0; i < 4; i++ {
				tg := renderSub(t, f.mesh, full(), compound.Range{Start: float64(i) / 4, End: float64(i+1) / 4}, background)
				reads = append(reads, f.pipe.StartReadback(0, compound.PixelViewport{W: destW, H: destH}, true))
				tg.Delete()
			}
			for _, rb := range reads {
				px, err := rb.Wait()
				if err != nil {
					return err
				}
				parts = append(parts, px)
			}
			return nil
		})
		// CPU merge
		cpu := &compositor.Image{W: destW, H: destH, Color: append([]byte{}, parts[0].Color...), Depth: append([]float32{}, parts[0].Depth...)}
		for _, p := range parts[1:] {
			if err := compositor.DepthMerge(cpu, &compositor.Image{W: destW, H: destH, Color: p.Color, Depth: p.Depth}); err != nil {
				t.Fatal(err)
			}
		}
		got := composite(t, f, clearTo(background), parts, func(_ int, up *Upload) error {
			return f.comp.DepthMerge(up.Color, up.Depth, 0, 0, destW, destH)
		})
		compare(t, "DB GPU merge vs single render", got.Color, ref.Color, 0, destW*destH/200)
		compare(t, "DB CPU merge vs GPU merge", cpu.Color, got.Color, 0, 0)
		if t.Failed() {
			dumpPNG(t, "db", got.Color, ref.Color)
		}
	})
}

// DB volume: four slabs ray-cast separately and blended back to front
// equal the whole volume within 3 per channel (each slab is rounded to 8
// bits before blending).
func TestComposeDBVolume(t *testing.T) {
	withPipes(t, func(t *testing.T, f *fixture) {
		clear := [4]float32{0, 0, 0, 0}
		ranges := []compound.Range{{Start: 0, End: 0.25}, {Start: 0.25, End: 0.5}, {Start: 0.5, End: 0.75}, {Start: 0.75, End: 1}}
		var ref *Pixels
		parts := make([]*Pixels, len(ranges))
		f.pipe.Do(func() error {
			tg := renderSub(t, f.volume, full(), compound.FullRange, clear)
			ref = readTarget(tg, false)
			tg.Delete()
			for i, r := range ranges {
				tg := renderSub(t, f.volume, full(), r, clear)
				parts[i] = readTarget(tg, false)
				tg.Delete()
			}
			return nil
		})
		dranges := make([]draw.Range, len(ranges))
		for i, r := range ranges {
			dranges[i] = draw.Range(r)
		}
		order := f.volume.BackToFront(&draw.Context{View: draw.Identity}, dranges)
		var layers []*compositor.Image
		for _, i := range order {
			layers = append(layers, &compositor.Image{W: destW, H: destH, Color: parts[i].Color})
		}
		cpu := compositor.NewImage(destW, destH, false)
		if err := compositor.BlendInOrder(cpu, layers); err != nil {
			t.Fatal(err)
		}
		var ordered []*Pixels
		for _, i := range order {
			ordered = append(ordered, parts[i])
		}
		got := composite(t, f, clearTo(clear), ordered, func(_ int, up *Upload) error {
			return f.comp.BlendOver(up.Color, 0, 0, destW, destH)
		})
		nonEmpty := 0
		for i := 3; i < len(ref.Color); i += 4 {
			if ref.Color[i] > 8 {
				nonEmpty++
			}
		}
		if nonEmpty < destW*destH/10 {
			t.Fatalf("the volume covers only %d pixels: the test would prove little", nonEmpty)
		}
		compare(t, "volume slabs blended on the GPU vs whole volume", got.Color, ref.Color, 3, 0)
		compare(t, "volume CPU blend vs GPU blend", cpu.Color, got.Color, 1, 0)
		if t.Failed() {
			dumpPNG(t, "volume", got.Color, ref.Color)
		}

		// each slab drawn as two pixel columns (7-window.DB.PIXEL.eqc):
		// their samples blend over the pixels they land on in the slabs'
		// order
		var columns []*Pixels
		var samples []gpu.Samples
		f.pipe.Do(func() error {
			for _, i := range order {
				for x := range 2 {
					pix := compound.Pixel{X: x, W: 2, H: 1}
					w, h := pixelShare(destW, destH, pix)
					tg := renderSub(t, f.volume, render.Sub{DestW: destW, DestH: destH, W: w, H: h, Pixel: pix, ShareW: destW, ShareH: destH}, ranges[i], clear)
					columns = append(columns, readTarget(tg, false))
					samples = append(samples, gpu.Samples{First: [2]int{x, 0}, Step: [2]int{2, 1}, Drawn: [2]int{w, h}, Grid: [2]int{w, h}})
					tg.Delete()
				}
			}
			return nil
		})
		interleaved := composite(t, f, clearTo(clear), columns, func(i int, up *Upload) error {
			return f.comp.InterleaveOver(up.Color, samples[i], gpu.Rect{W: destW, H: destH})
		})
		compare(t, "volume slabs in pixel columns blended on the GPU vs whole volume", interleaved.Color, ref.Color, 3, 0)
	})
}

// Pixel 2x2: four sources each rendering every second pixel, interleaved,
// equal the single render. Under a zoom of one half each draws a quarter
// of its samples, which the interleave spreads over its share's (the
// sources drew a quarter of the view, placed unscaled in a corner): the
// picture is the single render's at the zoomed resolution, and the CPU's
// resampling gives the GPU's.
func TestComposePixel(t *testing.T) {
	for _, c := range []struct {
		name     string
		zoom     compound.Zoom
		tol, bad int // against the single render
		cpuTol   int // CPU against GPU
	}{
		{"pixel", compound.Zoom{X: 1, Y: 1}, 0, destW * destH / 200, 0},
		// a quarter of the resolution blurs edges, not the picture
		{"zoomed-pixel", compound.Zoom{X: 0.5, Y: 0.5}, 48, destW * destH / 20, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			withPipes(t, func(t *testing.T, f *fixture) {
				type part struct {
					px                           *Pixels
					pix                          compound.Pixel
					gridW, gridH, drawnW, drawnH int
				}
				var ref *Pixels
				var parts []part
				f.pipe.Do(func() error {
					tg := renderSub(t, f.mesh, full(), compound.FullRange, background)
					ref = readTarget(tg, false)
					tg.Delete()
					for j := 0; j < 2; j++ {
						for i := 0; i < 2; i++ {
							pix := compound.Pixel{X: i, Y: j, W: 2, H: 2}
							p := part{pix: pix}
							p.gridW, p.gridH = pixelShare(destW, destH, pix)
							p.drawnW, p.drawnH = planner.RenderSize(destW, destH, pix, c.zoom)
							tg := renderSub(t, f.mesh, render.Sub{DestW: destW, DestH: destH, W: p.drawnW, H: p.drawnH, Pixel: pix, ShareW: destW, ShareH: destH}, compound.FullRange, background)
							p.px = readTarget(tg, false)
							parts = append(parts, p)
							tg.Delete()
						}
					}
					return nil
				})
				cpu := compositor.NewImage(destW, destH, false)
				for _, p := range parts {
					grid := compositor.NewImage(p.gridW, p.gridH, false)
					if err := compositor.Resample(grid, &compositor.Image{W: p.drawnW, H: p.drawnH, Color: p.px.Color}); err != nil {
						t.Fatal(err)
					}
					if err := compositor.Interleave(cpu, grid, p.pix.X, p.pix.Y, 2, 2); err != nil {
						t.Fatal(err)
					}
				}
				var pixels []*Pixels
				for _, p := range parts {
					pixels = append(pixels, p.px)
				}
				got := composite(t, f, nil, pixels, func(i int, up *Upload) error {
					p := parts[i]
					return f.comp.Interleave(up.Color, gpu.Samples{First: [2]int{p.pix.X, p.pix.Y}, Step: [2]int{2, 2}, Drawn: [2]int{p.drawnW, p.drawnH}, Grid: [2]int{p.gridW, p.gridH}}, gpu.Rect{W: destW, H: destH})
				})
				compare(t, c.name+" 2x2 GPU interleave vs single render", got.Color, ref.Color, c.tol, c.bad)
				compare(t, c.name+" 2x2 CPU interleave vs GPU", cpu.Color, got.Color, c.cpuTol, 0)
				if t.Failed() {
					dumpPNG(t, c.name, got.Color, ref.Color)
				}
			})
		})
	}
}

// Subpixel: four sources rendering jittered samples, averaged on the GPU,
// equal the single channel accumulating the same four samples (CPU
// average of its four renders) within 1.
func TestComposeSubpixel(t *testing.T) {
	withPipes(t, func(t *testing.T, f *fixture) {
		const n = 4
		var samples []*Pixels
		var got *Pixels
		err := f.pipe.Do(func() error {
			var texs []uint32
			var ups []*Upload
			for i := 0; i < n; i++ {
				sub := full()
				sub.Jitter = render.SubpixelJitter(i, n)
				tg := renderSub(t, f.mesh, sub, compound.FullRange, background)
				px := readTarget(tg, false)
				tg.Delete()
				samples = append(samples, px)
				up := f.pipe.StartUpload(px)
				if err := up.Use(); err != nil {
					return err
				}
				ups = append(ups, up)
				texs = append(texs, up.Color)
			}
			dst, err := glutil.NewTarget(destW, destH)
			if err != nil {
				return err
			}
			defer dst.Delete()
			dst.Bind()
			if err := f.comp.Average(texs, gpu.Rect{W: destW, H: destH}, 1); err != nil {
				return err
			}
			for _, u := range ups {
				u.Release()
			}
			got = readTarget(dst, false)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var imgs []*compositor.Image
		for _, s := range samples {
			imgs = append(imgs, &compositor.Image{W: destW, H: destH, Color: s.Color})
		}
		ref := compositor.NewImage(destW, destH, false)
		if err := compositor.Average(ref, imgs); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(samples[0].Color, samples[1].Color) {
			t.Fatal("jittered samples are identical: the jitter had no effect")
		}
		compare(t, "subpixel GPU average vs single-channel accumulation", got.Color, ref.Color, 1, 0)
	})
}

// Asynchronous readback returns the same pixels as synchronous.
func TestAsyncReadbackEqualsSync(t *testing.T) {
	withPipes(t, func(t *testing.T, f *fixture) {
		var sync *Pixels
		var rb *Readback
		f.pipe.Do(func() error {
			tg := renderSub(t, f.mesh, full(), compound.FullRange, background)
			defer tg.Delete()
			r := compound.PixelViewport{X: 10, Y: 5, W: 120, H: 80}
			sync = ReadSync(0, r, true)
			rb = f.pipe.StartReadback(0, r, true)
			return nil
		})
		async, err := rb.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(async.Color, sync.Color) {
			t.Error("asynchronous colour differs from synchronous")
		}
		for i := range sync.Depth {
			if sync.Depth[i] != async.Depth[i] {
				t.Fatalf("depth %d differs", i)
			}
		}
	})
}

// The render goroutine starts frame N+1 while frame N's download is still
// unfinished: the download goroutine is held until frame N+1 was drawn.
func TestRenderDoesNotWaitForDownload(t *testing.T) {
	withPipes(t, func(t *testing.T, f *fixture) {
		gate := make(chan struct{})
		f.pipe.downloadGate = gate
		defer func() { f.pipe.downloadGate = nil }()
		var rb *Readback
		f.pipe.Do(func() error {
			tg := renderSub(t, f.mesh, full(), compound.FullRange, background)
			rb = f.pipe.StartReadback(0, compound.PixelViewport{W: destW, H: destH}, false)
			tg.Delete()
			return nil
		})
		drewNext := false
		f.pipe.Do(func() error { // frame N+1
			tg := renderSub(t, f.mesh, full(), compound.FullRange, background)
			gl.Finish()
			tg.Delete()
			drewNext = !rb.Done()
			return nil
		})
		if !drewNext {
			t.Fatal("frame N's download finished before frame N+1 was drawn, though it was held")
		}
		close(gate)
		if _, err := rb.Wait(); err != nil {
			t.Fatal(err)
		}
	})
}

// An image being written has no name in its folder until it is whole, so
// a process that dies meanwhile leaves nothing there: closing the pending
// file unnamed is what the kernel does for a killed one. A filesystem
// without unnamed files gets a hidden one, which nothing takes for a frame.
func TestAnImageBeingWrittenHasNoName(t *testing.T) {
	dir := t.TempDir()
	f, named, err := createPending(filepath.Join(dir, "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	f.Close()
	if named {
		t.Logf("%s has no unnamed files (O_TMPFILE): a killed writer leaves a hidden file", dir)
		if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), ".f.png.") {
			t.Errorf("the pending file is not one hidden file: %v", entries)
		}
		return
	}
	if len(entries) != 0 {
		t.Errorf("while written the folder holds %s", entries[0].Name())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after its writer died the folder holds %s", entries[0].Name())
	}
}

func TestWritePNG(t *testing.T) {
	color := []byte{255, 0, 0, 255, 0, 255, 0, 255} // bottom row red, top row green (1x2)
	path := filepath.Join(t.TempDir(), "f.png")
	if err := WritePNG(path, color, 1, 2); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, _, _ := img.At(0, 0).RGBA(); r != 0 || g == 0 {
		t.Errorf("top-left pixel should be green (rows are flipped to PNG's top-down order)")
	}
	// written beside its name and renamed: nothing else is left, and the
	// file has os.WriteFile's permissions (0644 less the umask)
	if err := WritePNG(path, color, 1, 2); err != nil {
		t.Fatalf("writing over an existing frame: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want the PNG alone", len(entries))
	}
	var umask int // read, not set: setting it races with other files made meanwhile
	status, _ := os.ReadFile("/proc/self/status")
	if _, err := fmt.Sscanf(string(status[bytes.Index(status, []byte("Umask:")):]), "Umask: %o", &umask); err != nil {
		t.Fatalf("no umask in /proc/self/status: %v", err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644&^os.FileMode(umask) {
		t.Errorf("mode %v (%v), want %v", info.Mode().Perm(), err, 0o644&^os.FileMode(umask))
	}
}

// A PNG whose folder is not there yet (a dump_image prefix that names a
// job's frame folder) is written into that folder, made first; the run
// failed on its first frame.
func TestWritePNGMakesItsFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames", "run1", "f000000.png")
	if err := WritePNG(path, []byte{255, 0, 0, 255}, 1, 1); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() == 0 {
		t.Errorf("%s: %v", path, err)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o644)
	if err := WritePNG(filepath.Join(blocked, "f.png"), []byte{255, 0, 0, 255}, 1, 1); err == nil {
		t.Error("a folder where a file is: no error")
	}
}

// dumpPNG writes got and want images for a person to look at when a
// comparison fails (GOEQ_DUMP=dir).
func dumpPNG(t *testing.T, name string, got, want []byte) {
	dir := os.Getenv("GOEQ_DUMP")
	if dir == "" {
		return
	}
	WritePNG(filepath.Join(dir, fmt.Sprintf("%s-got.png", name)), got, destW, destH)
	WritePNG(filepath.Join(dir, fmt.Sprintf("%s-want.png", name)), want, destW, destH)
}

// pixelShare is how many pixels of a w x h destination a pixel
// decomposition's source renders: every p.W-th column from p.X, every
// p.H-th row from p.Y.
func pixelShare(w, h int, p compound.Pixel) (int, int) {
	return (w - p.X + p.W - 1) / p.W, (h - p.Y + p.H - 1) / p.H
}

// Two pixel decompositions' columns (or rows) meet where a column of the
// overlap is sampled by both: rows 3k and 6k+1 never do, rows 3k and
// 6k+3 do, and rows 2k and 2k+1 do not, whatever their places.
func TestSamplesMeet(t *testing.T) {
	for _, c := range []struct {
		lo, n, ra, m, rb, k int
		want                bool
	}{
		{0, 100, 0, 3, 1, 6, false},
		{0, 100, 0, 3, 3, 6, true},
		{0, 100, 0, 2, 1, 2, false},
		{0, 100, 0, 2, 2, 2, true},
		{0, 100, 7, 1, 0, 3, true}, // a step of 1 samples every column
		{0, 100, 0, 0, 5, 4, true}, // as does a step of 0
		{1, 2, 0, 3, 0, 6, false},  // 0 and 6 lie outside [1, 3)
		{5, 2, 0, 3, 0, 6, true},   // 6 lies inside [5, 7)
		{-7, 3, 1, 4, -3, 2, true}, // -7 = 1 (mod 4) and -3 (mod 2)
	} {
		if got := samplesMeet(c.lo, c.n, c.ra, c.m, c.rb, c.k); got != c.want {
			t.Errorf("[%d, %d) sampled by %d mod %d and %d mod %d: %v, want %v", c.lo, c.lo+c.n, c.ra, c.m, c.rb, c.k, got, c.want)
		}
	}
}
