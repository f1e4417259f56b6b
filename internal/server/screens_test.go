package server

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/xtest"
)

// twoProjectorWall is a wall of two projectors driven by two pipes of
// one node, as display walls run: the right pipe's RIGHT names its X
// screen (`device`, `port`). The right half draws its top half itself
// and takes the bottom half from a render node.
const twoProjectorWall = `config
{
    appNode
    {
        pipe
        {
            name "screen0"
            device 0
            window { name "left" viewport [ 0 0 200 150 ] channel { name "left" } }
        }
        pipe
        {
            name "screen1"
            RIGHT
            window { name "right" viewport [ 30 20 200 150 ] channel { name "right" } }
        }
    }
    node
    {
        name "render"
        host "localhost"
        pipe
        {
            window { name "src" viewport [ 0 0 200 150 ] attributes { hint_drawable FBO } channel { name "src" } }
        }
    }
    observer {}
    layout { name "wall" view { observer 0 } }
    canvas
    {
        layout "wall"
        wall {}
        segment { channel "left" viewport [ 0 0 0.5 1 ] }
        segment { channel "right" viewport [ 0.5 0 0.5 1 ] }
    }
    compound { channel ( canvas 0 segment 0 layout 0 view 0 ) }
    compound
    {
        channel ( canvas 0 segment 1 layout 0 view 0 )
        buffer [ COLOR ]
        compound { viewport [ 0 0.5 1 0.5 ] }
        compound { channel "src" viewport [ 0 0 1 0.5 ] outputframe { name "bottom" } }
        inputframe { name "bottom" }
    }
}
`

// shownAt is where a segment must show: on a screen of an Xvfb that
// keeps its framebuffers in fbdir, its window's top-left corner at at.
type shownAt struct {
	fbdir  string
	screen int
	at     image.Point
}

// TestPipesShowOnTheScreenTheirDeviceNames runs the wall on an X server
// of two screens, the right pipe naming device 1, and reads what each
// screen shows from the server's framebuffer (no GL): the left segment on
// screen 0 and the right one on screen 1, where its window was placed,
// each matching the reference. Before pipes opened their own screen, both
// windows opened on screen 0 and screen 1 stayed black.
func TestPipesShowOnTheScreenTheirDeviceNames(t *testing.T) {
	fbdir := t.TempDir()
	display := xtest.Screens(t, fbdir, image.Pt(320, 240), image.Pt(320, 240))
	showsOnScreens(t, strings.Replace(twoProjectorWall, "RIGHT", "device 1", 1), display,
		map[string]shownAt{"left": {fbdir, 0, image.Pt(0, 0)}, "right": {fbdir, 1, image.Pt(30, 20)}}, "X11 screen "+display+".1")
}

// TestPipesShowOnTheXServerTheirPortNames is the same wall on two X
// servers, one X server per projector, the right pipe naming the second
// one's display number as its port.
func TestPipesShowOnTheXServerTheirPortNames(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	display := xtest.Screens(t, first, image.Pt(320, 240))
	other := xtest.Screens(t, second, image.Pt(320, 240))
	showsOnScreens(t, strings.Replace(twoProjectorWall, "RIGHT", "port "+strings.TrimPrefix(other, ":")+" device 0", 1), display,
		map[string]shownAt{"left": {first, 0, image.Pt(0, 0)}, "right": {second, 0, image.Pt(30, 20)}}, "X11 screen "+other+".0")
}

// showsOnScreens runs the config with DISPLAY set to display until every
// destination channel shows its reference image where it must, and checks
// that the log names the X screen logged.
func showsOnScreens(t *testing.T, config, display string, where map[string]shownAt, logged string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "wall.eqc")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	refRun := exec.Command(filepath.Join(binaries(t), "eqserver"), "run", "--local", "--frames", "2", "--out", ref, "--dump-every", "1",
		"--triangles", "8000", "--spin", "0", "--reference", cfg)
	refRun.Env = append(testEnv(), "DISPLAY=")
	if out, err := refRun.CombinedOutput(); err != nil {
		t.Fatalf("reference: %v\n%s", err, tailOf(string(out), 4000))
	}
	want := map[string]*image.NRGBA{}
	for name := range where {
		files, _ := filepath.Glob(filepath.Join(ref, name+"*.png"))
		if len(files) == 0 {
			t.Fatalf("the reference wrote no image of %s", name)
		}
		img, err := imagecmp.Load(files[len(files)-1])
		if err != nil {
			t.Fatal(err)
		}
		want[name] = img
	}
	if d, _ := imagecmp.Compare(want["left"], want["right"], exactTolerance); d.BadFraction() < 0.01 {
		t.Fatalf("the two segments look alike (%s): the test could not tell them apart", d)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logPath := filepath.Join(t.TempDir(), "eqserver.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	logTail := func() string { b, _ := os.ReadFile(logPath); return tailOf(string(b), 4000) }
	live := exec.CommandContext(ctx, filepath.Join(binaries(t), "eqserver"), "run", "--local", "--frames", "0",
		"--triangles", "8000", "--spin", "0", cfg)
	live.Env = append(os.Environ(), "DISPLAY="+display, "GOEQ_WINSYS=auto")
	live.Stdout, live.Stderr = logFile, logFile
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- live.Wait() }()
	defer func() {
		live.Process.Signal(syscall.SIGTERM)
		<-exited
	}()

	deadline := time.Now().Add(60 * time.Second)
	for {
		shown, why := true, ""
		for name, w := range where {
			screen, err := xtest.ScreenImage(w.fbdir, w.screen)
			if err != nil {
				t.Fatal(err)
			}
			got := imagecmp.Crop(screen, image.Rectangle{Min: w.at, Max: w.at.Add(want[name].Bounds().Size())})
			d, err := imagecmp.Compare(got, want[name], exactTolerance)
			if err != nil || d.BadFraction() > exactBadMax {
				shown, why = false, fmt.Sprintf("%s on screen %d of its X server: %s", name, w.screen, d)
			}
		}
		if shown {
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("eqserver ended (%v) before every segment showed: %s\n%s", err, why, logTail())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s, %s\n%s", why, logTail())
		}
	}
	if b, _ := os.ReadFile(logPath); !strings.Contains(string(b), logged) {
		t.Errorf("the log does not name %q:\n%s", logged, logTail())
	}
}
