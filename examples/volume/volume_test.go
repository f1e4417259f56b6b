package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/gotool"
	"github.com/goeq/goeq/internal/imagecmp"
)

// TestSlabsBlendToTheWholeVolume runs the volume headless on four DB
// sources (slabs on two render nodes, blended back to front for an
// orbiting camera) and on one window, with a density the application
// broadcasts: every frame's images agree, and the density shows.
func TestSlabsBlendToTheWholeVolume(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "volume")
	if err := gotool.Build(bin, "."); err != nil {
		t.Fatal(err)
	}
	const frames = 6
	run := func(cfg, density string) []string {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command(bin, "--config", filepath.Join("..", "configs", cfg), "--camera-path", "orbit",
			"--frames", "6", "--density", density, "--out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("volume on %s: %v\n%s", cfg, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != frames {
			t.Fatalf("volume on %s wrote %d images, want %d", cfg, len(files), frames)
		}
		return files
	}
	slabs, whole := run("db-volume-4.eqc", "3"), run("one-window.eqc", "3")
	for i := range slabs {
		// blending in 8 bits rounds at each of the four slabs
		d, err := imagecmp.CompareFiles(slabs[i], whole[i], 3)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0 {
			t.Errorf("frame %d: %s", i, d)
		}
	}
	thin := run("one-window.eqc", "1")
	if d, err := imagecmp.CompareFiles(thin[0], whole[0], 3); err != nil || d.BadFraction() < 0.05 {
		t.Errorf("density 3 looks like density 1 (%v, %v): the broadcast did not reach the renderer", d, err)
	}
	os.RemoveAll(filepath.Dir(bin))
}
