package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
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
