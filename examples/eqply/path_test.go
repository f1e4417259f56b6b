package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/render"
)

// A path plays as eqPly's CameraAnimation::getNextStep plays it: a first
// step counted from frame 1 shows at the first frame, one counted later
// is left just behind; the frames between two steps move linearly; past
// the last step it starts again; a path of one step stands still.
func TestEqPlyPathPlaysAsEqPlysAnimation(t *testing.T) {
	const degree = math.Pi / 180
	read := func(text string) *cameraPath {
		t.Helper()
		p, err := readCameraPath(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	near := func(a, b [3]float64) bool {
		return math.Abs(a[0]-b[0]) < 1e-9 && math.Abs(a[1]-b[1]) < 1e-9 && math.Abs(a[2]-b[2]) < 1e-9
	}
	// steps at frames 1, 11 and 21: the angles read about y, -x and z
	from := read("10 20 30\n0 0 0 -2 0 0 0\n10 1 0 -2 40 0 0\n10 1 2 -2 40 -90 60\n")
	if from.lap() != 21 {
		t.Errorf("lap %d; want 21 frames, from frame 1 to 21", from.lap())
	}
	if want := [3]float64{10 * degree, 20 * degree, 30 * degree}; !near(from.model, want) {
		t.Errorf("model rotation %v; want %v", from.model, want)
	}
	pl := &pathPlayer{path: from}
	var poses []pose
	for range 23 {
		poses = append(poses, pl.next())
	}
	for _, c := range []struct {
		frame              int
		position, rotation [3]float64
	}{
		{0, [3]float64{0, 0, -2}, [3]float64{}},
		{5, [3]float64{0.5, 0, -2}, [3]float64{0, 20 * degree, 0}},
		{10, [3]float64{1, 0, -2}, [3]float64{0, 40 * degree, 0}},
		{15, [3]float64{1, 1, -2}, [3]float64{45 * degree, 40 * degree, 30 * degree}},
		{20, [3]float64{1, 2, -2}, [3]float64{90 * degree, 40 * degree, 60 * degree}},
		{21, [3]float64{0, 0, -2}, [3]float64{}}, // round again
		{22, [3]float64{0.1, 0, -2}, [3]float64{0, 4 * degree, 0}},
	} {
		if p := poses[c.frame]; !near(p.Position, c.position) || !near(p.Rotation, c.rotation) || !near(p.Model, from.model) {
			t.Errorf("frame %d: %+v; want position %v, rotation %v", c.frame, p, c.position, c.rotation)
		}
	}

	// a first step counted to frame 5: the flight starts one frame past it
	late := read("0 0 0\n5 0 0 -2 0 0 0\n10 0 0 -12 0 0 0\n")
	if late.lap() != 10 {
		t.Errorf("lap %d; want 10 frames, 6 to 15", late.lap())
	}
	pl = &pathPlayer{path: late}
	for i, want := range []float64{-3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -3} {
		if p := pl.next(); math.Abs(p.Position[2]-want) > 1e-9 {
			t.Errorf("frame %d: z %v; want %v", i, p.Position[2], want)
		}
	}

	still := &pathPlayer{path: read("0 0 0 3 1 2 3 0 0 0")}
	if still.path.lap() != 1 || still.next() != still.next() || still.next().Position != [3]float64{1, 2, 3} {
		t.Error("a path of one step does not stand still at it")
	}
}

// What eqPly would read wrongly (a step cut short, which it drops; a word,
// on which it loops for ever) or not at all is a clear error.
func TestABadEqPlyPathIsRefused(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "no step in it: want the model's rotation (3 angles), then 7 numbers a step"},
		{"0 0 0\n", "no step in it"},
		{"0 0 0\n0 0 0 -2 0 0 0\n10 0 0\n", "line 3: its last step has 3 numbers; want 7: frames, x y z, and 3 angles"},
		{"0 0 0\n0 0 0 -2 zero 0 0\n", `line 2: "zero" is not a number within float32's range`},
		{"0 0 nan\n0 0 0 -2 0 0 0\n", `line 1: "nan" is not a number`},
		{"0 0 0\n0 0 0 1e39 0 0 0\n", `line 2: "1e39" is not a number within float32's range`},
		{"0 0 0\n0 0 0 -2 0 0 0\n3e9 0 0 -2 0 0 0\n", "line 3: a step of 3e+09 frames; want at most 1000000000"},
	} {
		if _, err := readCameraPath(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.text, err, c.want)
		}
	}
}

// A pose of an eqPly path shows the model as eqPly would: at eqPly's size
// for it (its longest side 2 units), turned by the model's rotation,
// moved to the position, and seen turned by the camera's rotation. The
// picture is the one eqply's own camera shows from the place that pose
// puts the model (through a trace: another path to the matrix). A path of
// several steps plays its lap, or --frames frames round and round, and
// the trace of its flight plays it again.
func TestAnEqPlyPathShowsTheModelWhereEqPlyWould(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	// a box 2 × 1 × 0.5 about the origin, at eqPly's size as it is, each
	// corner in a colour of its own so that a turn the wrong way shows
	box := cube(1)
	for v := 0; v < len(box.Vertices); v += 6 {
		x, y, z := box.Vertices[v], box.Vertices[v+1], box.Vertices[v+2]
		box.Vertices[v], box.Vertices[v+1], box.Vertices[v+2] = 2*x-1, y-0.5, 0.5*z-0.25
		box.Colors = append(box.Colors, uint8(40+200*x), uint8(40+200*y), uint8(40+200*z))
	}
	model := writePLY(t, filepath.Join(dir, "box.ply"), box)
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	run := func(out string, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--config", "../configs/one-window.eqc", "--model", model, "--out", filepath.Join(dir, out)}, args...)...)
		cmd.Env = append(os.Environ(), "DISPLAY=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
	}

	// the model turned 30° about y, the camera 20° about x (the path's
	// second angle, negated), the box at (0.3, -0.2, -3) before that turn;
	// as eqPly is given a path, with -a
	run("path", "-a", write("path.txt", "0 30 0\n1  0.3 -0.2 -3  0 -20 0\n"))
	// eqply's camera turns the model by pitch after yaw, then moves it: the
	// same place is the position turned by the camera's rotation, in
	// eqply's units (the box fitted with its corners at ViewRadius)
	pitch, yaw := 20*math.Pi/180, 30*math.Pi/180
	y, z := -0.2*math.Cos(pitch)+3*math.Sin(pitch), -0.2*math.Sin(pitch)-3*math.Cos(pitch)
	k := render.ViewRadius / math.Sqrt(1+0.25+0.0625)
	same := frameData{Camera: camera{Yaw: yaw, Pitch: pitch, Distance: -z * k, Pan: [2]float64{0.3 * k, y * k}}}
	line, _ := json.Marshal(map[string]any{"frame": 0, "data": same})
	run("camera", "--camera-path", write("trace.jsonl", string(line)+"\n"))
	got, want := filepath.Join(dir, "path", "dest-000000.png"), filepath.Join(dir, "camera", "dest-000000.png")
	d, err := imagecmp.CompareFiles(got, want, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d.BadFraction() > 0.0005 {
		t.Errorf("the path's pose against the camera at its place: %s", d)
	}
	img, err := imagecmp.Load(got)
	if err != nil {
		t.Fatal(err)
	}
	bg, shown := img.NRGBAAt(0, 0), 0
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			if c := img.NRGBAAt(x, y); max(absDiff(c.R, bg.R), absDiff(c.G, bg.G), absDiff(c.B, bg.B)) > 8 {
				shown++
			}
		}
	}
	if shown < img.Rect.Dx()*img.Rect.Dy()/50 {
		t.Errorf("the box covers %d pixels: too few for the comparison to tell", shown)
	}
	// eqply's home camera shows the box otherwise: the comparison can fail
	run("home", "--frames", "1")
	if d, err := imagecmp.CompareFiles(got, filepath.Join(dir, "home", "dest-000000.png"), 2); err != nil || d.BadFraction() < 0.01 {
		t.Errorf("the path's picture is the home camera's (%v, %v)", d, err)
	}

	flight := write("flight.txt", "0 0 0\n0 0 0 -3 0 0 0\n10 0 0 -4 0 90 0\n")
	trace := filepath.Join(dir, "flight.jsonl")
	for _, c := range []struct {
		out, path string
		args      []string
		frames    int
	}{
		{"once", flight, []string{"--trace", trace}, 11},
		{"round", flight, []string{"--frames", "25"}, 25},
		{"traced", trace, nil, 11}, // the flight's trace plays it again
	} {
		run(c.out, append([]string{"--camera-path", c.path}, c.args...)...)
		images, _ := filepath.Glob(filepath.Join(dir, c.out, "dest-*.png"))
		if len(images) != c.frames {
			t.Errorf("%s %v: %d frames; want %d", c.path, c.args, len(images), c.frames)
		}
	}
	if d, err := imagecmp.CompareFiles(filepath.Join(dir, "once", "dest-000005.png"), filepath.Join(dir, "traced", "dest-000005.png"), 0); err != nil || d.BadFraction() > 0 {
		t.Errorf("the flight's trace played again, frame 5: %v %v", d, err)
	}
	// played round again, frame 11 is frame 0's picture, frame 5 another
	a, b, mid := filepath.Join(dir, "round", "dest-000000.png"), filepath.Join(dir, "round", "dest-000011.png"), filepath.Join(dir, "round", "dest-000005.png")
	if d, err := imagecmp.CompareFiles(a, b, 0); err != nil || d.BadFraction() > 0 {
		t.Errorf("round again, frame 11 against frame 0: %v %v", d, err)
	}
	if d, err := imagecmp.CompareFiles(a, mid, 2); err != nil || d.BadFraction() < 0.01 {
		t.Errorf("frame 5 is frame 0's picture (%v, %v): the flight stood still", d, err)
	}
	var exit *exec.ExitError
	out, err := exec.Command(bin, "--camera-path", write("bad.txt", "0 0 0\n0 0 0 -2 0 0 0\n5 0 0 -2 0 0\n")).CombinedOutput()
	if !errors.As(err, &exit) || !strings.Contains(string(out), "line 3: its last step has 6 numbers; want 7") {
		t.Errorf("a step cut short: %v, %s", err, out)
	}
}
