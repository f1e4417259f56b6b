package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
)

// TestConfigsMatchParaViewsCamera checks the configs goeq runs: they
// parse, have one node per source, and their wall has the window's aspect
// and the vertical field of view the ParaView script is given.
func TestConfigsMatchParaViewsCamera(t *testing.T) {
	b := &bench{dir: t.TempDir(), w: 1920, h: 1080}
	for _, mode := range []string{"DB", "2D"} {
		for _, k := range []int{1, 2, 4} {
			path, err := b.config(mode, k)
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := configparser.Parse(path, src)
			if err != nil {
				t.Fatal(err)
			}
			m, err := compound.Resolve(res, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatal(err)
			}
			cfg := m.Configs[0]
			if got := len(cfg.Nodes); got != k+1 {
				t.Errorf("%s %d: %d nodes, want one per source and the application's", mode, k, got)
			}
			wall := cfg.Compounds[0].Wall
			if wall == nil {
				t.Fatalf("%s %d: no wall", mode, k)
			}
			width := wall.BottomRight.Sub(wall.BottomLeft).Len()
			height := wall.TopLeft.Sub(wall.BottomLeft).Len()
			if math.Abs(width/height-1920.0/1080) > 1e-4 {
				t.Errorf("%s %d: wall aspect %.4f, window %.4f", mode, k, width/height, 1920.0/1080)
			}
			if deg := 2 * math.Atan(height/2/-wall.BottomLeft[2]) * 180 / math.Pi; math.Abs(deg-fov()) > 1e-3 {
				t.Errorf("%s %d: wall's vertical field of view %.3f degrees, ParaView is given %.3f", mode, k, deg, fov())
			}
		}
	}
}

func TestForeground(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	for i := range img.Pix {
		img.Pix[i] = 40
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	for y := 2; y < 7; y++ {
		for x := 3; x < 7; x++ {
			img.Set(x, y, color.RGBA{200, 120, 60, 255})
		}
	}
	img.Set(9, 9, color.RGBA{42, 42, 42, 255}) // within the tolerance of the background
	path := filepath.Join(t.TempDir(), "f.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := foreground(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != 0.2 {
		t.Errorf("foreground %.3f, want 0.2", got)
	}
}

// TestSummaryComparesEqualCores checks the speedups: unpinned runs over
// the unpinned single source, pinned ones over the single source on one
// core, and the equal-cores 1 -> 2 speedup on a two-core machine (two
// sources on all of it) and on a larger one (two sources pinned to two).
func TestSummaryComparesEqualCores(t *testing.T) {
	tab := &table{}
	tab.add(runKey{"goeq", "DB", 2, 0}, 300, 2)
	tab.add(runKey{"goeq", "DB", 1, 0}, 330, 1.6)
	tab.add(runKey{"goeq", "DB", 1, 0}, 310, 1.6)
	tab.add(runKey{"goeq", "DB", 1, 0}, 320, 1.6)
	tab.add(runKey{"goeq", "DB", 1, 1}, 480, 1)
	tab.add(runKey{"paraview", "DB", 1, 0}, 800, 1)
	tab.add(runKey{"paraview", "DB", 2, 0}, 500, 2)
	runs, equal := tab.summary(2)
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%s %s %d/%d %.0f %.3f", r.Renderer, r.Mode, r.Sources, r.Cores, r.MSPerFrame, r.Speedup))
	}
	want := []string{
		"paraview DB 1/0 800 1.000",
		"paraview DB 2/0 500 1.600",
		"goeq DB 1/0 320 1.000",
		"goeq DB 2/0 300 1.067",
		"goeq DB 1/1 480 1.000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if equal["goeq_db"] != 480.0/300 || equal["paraview"] != 800.0/500 {
		t.Errorf("equal cores %v, want goeq_db %.3f and paraview 1.6", equal, 480.0/300)
	}
	if _, ok := equal["goeq_2d"]; ok {
		t.Errorf("equal cores %v: no 2D runs were made", equal)
	}
	// on four cores, two unpinned sources have twice a rank's cores
	if _, equal := tab.summary(4); equal != nil {
		t.Errorf("four cores, no run pinned to two: equal cores %v, want none", equal)
	}
	tab.add(runKey{"goeq", "DB", 2, 2}, 360, 2)
	if _, equal := tab.summary(4); equal["goeq_db"] != 480.0/360 {
		t.Errorf("four cores: equal cores %v, want goeq_db %.3f", equal, 480.0/360)
	}
}
