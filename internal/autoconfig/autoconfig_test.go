package autoconfig

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

// The config of every machine loads without a warning, as a user's file
// would: a pipe per GPU naming its device, the window on the first, the
// others' windows offscreen, a layout per way of splitting with a
// compound each, and a latency of a frame per source GPU.
func TestEveryMachinesConfigLoadsAsWritten(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint(n, " GPUs"), func(t *testing.T) {
			var gpus []GPU
			for i := range n {
				gpus = append(gpus, GPU{Device: 2 * i}) // devices need not be 0, 1, ...
			}
			text := Text(Machine{Name: "viewer", GPUs: gpus})
			m, res, err := compound.LoadText("auto.eqc", []byte(text), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			for _, w := range res.Warnings {
				t.Errorf("warning: %v", w)
			}
			cfg := m.Configs[0]
			if cfg.Name != "viewer" {
				t.Errorf("config name %q", cfg.Name)
			}
			pipes := cfg.Nodes[0].Pipes
			if len(cfg.Nodes) != 1 || len(pipes) != max(n, 1) {
				t.Fatalf("%d nodes, %d pipes on the first: want one node, a pipe per GPU", len(cfg.Nodes), len(pipes))
			}
			for i, p := range pipes {
				if n > 0 && p.Device != gpus[i].Device {
					t.Errorf("pipe %d renders on device %d, want %d", i, p.Device, gpus[i].Device)
				}
				offscreen := !p.Windows[0].OnScreen()
				if offscreen != (i > 0) {
					t.Errorf("pipe %d's window offscreen %v: want the first on screen, the others offscreen", i, offscreen)
				}
			}
			want := []string{Simple}
			if n > 1 {
				want = Layouts
			}
			var got []string
			for _, l := range cfg.Layouts {
				got = append(got, l.Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("layouts %v, want %v", got, want)
			}
			if len(cfg.Compounds) != len(want) {
				t.Errorf("%d compounds for %d layouts", len(cfg.Compounds), len(want))
			}
			if cfg.Latency != max(1, n-1) {
				t.Errorf("latency %d, want %d", cfg.Latency, max(1, n-1))
			}
		})
	}
}

// The parts of the picture and of the data cover it once: each starts
// where the one before it ends, and the last ends at 1.
func TestSharesCoverTheWhole(t *testing.T) {
	for n := 1; n <= 16; n++ {
		end := 0.0
		for i := range n {
			var start, size float64
			s, z := share(i, n)
			fmt.Sscan(s, &start)
			fmt.Sscan(z, &size)
			if math.Abs(start-end) > 1e-9 {
				t.Fatalf("%d parts: part %d starts at %v, the one before ends at %v", n, i, start, end)
			}
			end = start + size
		}
		if math.Abs(end-1) > 1e-9 {
			t.Errorf("%d parts end at %v", n, end)
		}
	}
}

// A window size asked for (Equalizer's EQ_WINDOW_IATTR_HINT_WIDTH and
// _HEIGHT) sizes the window, centred on the screen, half the screen where
// one is not given; the offscreen windows take its size.
func TestTheWindowTakesTheSizeAskedFor(t *testing.T) {
	for _, c := range []struct {
		size [2]int
		want compound.PixelViewport
	}{
		{[2]int{}, compound.PixelViewport{X: 432, Y: 216, W: 864, H: 540}},
		{[2]int{1024, 768}, compound.PixelViewport{X: 448, Y: 156, W: 1024, H: 768}},
		{[2]int{1024, 0}, compound.PixelViewport{X: 448, Y: 270, W: 1024, H: 540}},
		{[2]int{0, 300}, compound.PixelViewport{X: 480, Y: 390, W: 960, H: 300}},
		{[2]int{2560, 1600}, compound.PixelViewport{X: 0, Y: 0, W: 2560, H: 1600}},
	} {
		text := Text(Machine{GPUs: []GPU{{Device: 0}, {Device: 1}}, Size: c.size})
		m, _, err := compound.LoadText("auto.eqc", []byte(text), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		pipes := m.Configs[0].Nodes[0].Pipes
		if got := pipes[0].Windows[0].PixelViewport; got != c.want {
			t.Errorf("size %v: window %v, want %v", c.size, got, c.want)
		}
		if got := pipes[1].Windows[0].PixelViewport; got.W != c.want.W || got.H != c.want.H {
			t.Errorf("size %v: offscreen window %v, want %dx%d", c.size, got, c.want.W, c.want.H)
		}
	}
}
