package goeq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/internal/gotool"
	"github.com/goeq/goeq/internal/imagecmp"
)

// The test binary is the application: the render clients Start launches
// are this binary again, and Init makes them serve.
func TestMain(m *testing.M) {
	goeq.Init(turningSquare{})
	// clients render headless through EGL: the window path is tested in
	// internal/channel; here the application API is under test
	os.Setenv("GOEQ_WINSYS", "egl")
	os.Exit(m.Run())
}

// camera is the test's frame data: the frame it is meant for, and the
// angle the square turns to.
type camera struct {
	Frame int
	Angle float64
}

type turningSquare struct{}

func (turningSquare) NewRenderer(p *goeq.Pipe) (goeq.Renderer, error) {
	var init struct{ Scale float64 }
	if err := p.InitData(&init); err != nil {
		return nil, err
	}
	if init.Scale == 0 {
		return nil, errors.New("no init data")
	}
	prog, err := goeq.Program(`#version 330 core
uniform mat4 mvp; out vec2 uv;
void main() {
	vec2 c = vec2(gl_VertexID & 1, (gl_VertexID >> 1) & 1); // a strip of 4
	uv = c;
	gl_Position = mvp * vec4(c - 0.5, 0, 1);
}`, `#version 330 core
in vec2 uv; out vec4 frag;
void main() { frag = vec4(uv, 1.0 - uv.x * uv.y, 1); }`)
	var vao uint32
	gl.GenVertexArrays(1, &vao)
	return &square{prog: prog, vao: vao, scale: float32(init.Scale)}, err
}

type square struct {
	prog, vao uint32
	scale     float32
}

func (s *square) Draw(dc *goeq.DrawContext) (goeq.Region, error) {
	var cam camera
	if err := dc.FrameData(&cam); err != nil {
		return goeq.Region{}, err
	}
	if cam.Frame != dc.Frame {
		return goeq.Region{}, fmt.Errorf("frame %d drew with the data of frame %d", dc.Frame, cam.Frame)
	}
	model := goeq.Translate(0, 0, -2).Mul(goeq.RotateY(cam.Angle)).Mul(goeq.RotateX(0.3 * cam.Angle))
	model[0], model[5] = model[0]*s.scale, model[5]*s.scale
	mvp := dc.Projection.Mul(dc.View).Mul(model)
	gl.UseProgram(s.prog)
	gl.UniformMatrix4fv(gl.GetUniformLocation(s.prog, gl.Str("mvp\x00")), 1, false, &mvp[0])
	gl.BindVertexArray(s.vao)
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	return goeq.Region{}, nil
}

func examples(name string) string { return filepath.Join("examples", "configs", name) }

// withLatency writes a copy of an example config with another latency.
func withLatency(t *testing.T, name string, latency int) string {
	b, err := os.ReadFile(examples(name))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "latency 1", fmt.Sprintf("latency %d", latency), 1)
	if text == string(b) {
		t.Fatalf("%s has no latency 1", name)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runSquare runs frames of the turning square, the camera changing every
// frame, and returns the images written.
func runSquare(t *testing.T, cfgPath string, frames int, reference bool) []string {
	t.Helper()
	out := t.TempDir()
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: cfgPath, OutDir: out, Reference: reference,
		InitData: struct{ Scale float64 }{1.4}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < frames && err == nil; i++ {
		var n int
		if n, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)}); err == nil && n != i {
			err = fmt.Errorf("StartFrame numbered frame %d as %d", i, n)
		}
		if err == nil && i%4 == 3 {
			// the application runs ahead in bursts of four: frames wait
			// for the latency, and their data must wait with them
			err = cfg.FinishFrame()
		}
	}
	if err == nil {
		// past the bound: a clear error, and the run goes on
		if _, berr := cfg.StartFrame(make([]byte, goeq.MaxFrameData)); berr == nil || !strings.Contains(berr.Error(), "more than the") {
			t.Errorf("frame data past the bound: got %v", berr)
		}
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v", err, exitErr)
	}
	if sum.Frames != frames || len(sum.Written) != frames {
		t.Fatalf("%d frames, %d images; want %d", sum.Frames, len(sum.Written), frames)
	}
	return sum.Written
}

// compareRuns checks every image against the reference of the same frame,
// and that the comparison tells consecutive frames apart.
func compareRuns(t *testing.T, got, want []string) {
	t.Helper()
	for i := range got {
		if filepath.Base(got[i]) != filepath.Base(want[i]) {
			t.Fatalf("image %d: %s against %s", i, got[i], want[i])
		}
		d, err := imagecmp.CompareFiles(got[i], want[i], 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("%s: %s", filepath.Base(got[i]), d)
		}
		if i+1 < len(want) {
			if d, err := imagecmp.CompareFiles(got[i], want[i+1], 2); err == nil && d.BadFraction() <= 0.0002 {
				t.Errorf("%s also matches the next frame's reference: the comparison cannot tell frames apart", filepath.Base(got[i]))
			}
		}
	}
}

func TestFrameDataReachesItsOwnFrameAtLatency2(t *testing.T) {
	cfg := withLatency(t, "2d-lb-4.eqc", 2)
	got := runSquare(t, cfg, 12, false)
	want := runSquare(t, cfg, 12, true)
	compareRuns(t, got, want)
}

// TestHelloAsAnotherModule builds examples/hello as an application outside
// this module would (its own go.mod, goeq replaced by this checkout), runs
// it on the four-source config (three render-client processes) and on one
// window, and compares every frame.
func TestHelloAsAnotherModule(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("examples", "hello", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	// this module's requirements, so that the build needs nothing new
	reqs := string(goMod[strings.Index(string(goMod), "require"):])
	mod := "module example.com/hello\n\ngo 1.26.0\n\nrequire github.com/goeq/goeq v0.0.0\n\nreplace github.com/goeq/goeq => " + root + "\n\n" + reqs
	for name, data := range map[string][]byte{"main.go": src, "go.mod": []byte(mod), "go.sum": goSum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "hello")
	build := exec.Command(gotool.Path(), "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building hello as another module: %v\n%s", err, out)
	}
	run := func(cfg string) []string {
		out := t.TempDir()
		cmd := exec.Command(bin, "--config", examples(cfg), "--frames", "20", "--out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hello on %s: %v\n%s", cfg, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != 20 {
			t.Fatalf("hello on %s wrote %d images, want 20", cfg, len(files))
		}
		return files
	}
	compareRuns(t, run("2d-lb-4.eqc"), run("one-window.eqc"))
}
