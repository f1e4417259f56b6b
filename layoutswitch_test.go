package goeq_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/imagecmp"
)

// Corpus configs of several layouts, switched at random from frame to
// frame (static, load-balanced, DB and subpixel trees, layouts of their
// own channels and of shared sources): every frame shows the layout it
// was switched to, as the reference renders it. make test runs four;
// GOEQ_LAYOUT_SWITCHES=all every corpus config of several layouts (13;
// all pass).
func TestRandomLayoutSwitchesMatchTheReference(t *testing.T) {
	names := []string{"1-pipe.LG_CF3D.eqc", "4-window.all.eqc", "8-node.layout.DB.eqc", "layout.wall.operator.eqc"}
	all := os.Getenv("GOEQ_LAYOUT_SWITCHES") == "all"
	if all {
		paths, _ := filepath.Glob(filepath.Join("..", "shared", "eqc-corpus", "*.eqc"))
		names = names[:0]
		for _, p := range paths {
			names = append(names, filepath.Base(p))
		}
	}
	const frames = 8
	for _, name := range names {
		path := filepath.Join("..", "shared", "eqc-corpus", name)
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		switch {
		case all && (err != nil || len(m.Configs[0].Layouts) < 2):
			continue
		case err != nil:
			t.Fatal(err)
		case len(m.Configs[0].Layouts) < 2:
			t.Fatalf("%s has one layout", name)
		}
		cfg := m.Configs[0]
		t.Run(name, func(t *testing.T) {
			h := fnv.New64a()
			h.Write([]byte(name))
			r := rand.New(rand.NewPCG(h.Sum64(), 1))
			layouts := make([]int, frames)
			for i := range layouts {
				layouts[i] = r.IntN(len(cfg.Layouts))
			}
			t.Logf("layouts by frame %v", layouts)
			run := func(reference bool) (map[int][]string, string) {
				out := t.TempDir()
				// the square writes depth: DB trees merge it
				c, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: path, Local: true, Reference: reference, OutDir: out,
					InitData: squareInit{Scale: 1.4, DepthTest: true}})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < frames && err == nil; i++ {
					if err = c.UseLayoutIndex(layouts[i]); err == nil {
						_, err = c.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
					}
				}
				sum, exitErr := c.Exit()
				if err != nil || exitErr != nil {
					t.Fatalf("run: %v; exit: %v", err, exitErr)
				}
				byFrame := map[int][]string{}
				for _, w := range sum.Written {
					var f int
					base := filepath.Base(w)
					if _, err := fmt.Sscanf(base[strings.LastIndex(base, "-")+1:], "%06d.png", &f); err != nil {
						t.Fatalf("image %s: %v", base, err)
					}
					byFrame[f] = append(byFrame[f], base)
				}
				return byFrame, out
			}
			want, wantDir := run(true)
			got, gotDir := run(false)
			for f := range frames {
				resampling := resamplingIn(cfg, layouts[f])
				slices.Sort(got[f])
				slices.Sort(want[f])
				if len(got[f]) == 0 || !slices.Equal(got[f], want[f]) {
					t.Errorf("frame %d (layout %d) wrote %q, the reference %q", f, layouts[f], got[f], want[f])
					continue
				}
				for _, img := range got[f] {
					d, err := imagecmp.CompareFiles(filepath.Join(gotDir, img), filepath.Join(wantDir, img), imagecmp.Tolerance)
					if err != nil {
						t.Fatal(err)
					}
					if !d.Matches(resampling) {
						t.Errorf("%s (%s): %s", img, imagecmp.Allowance(resampling), d)
					}
				}
			}
		})
	}
}

// resamplingIn is cfg's Resampling with layout shown on every canvas that
// lists it, as Config.UseLayoutIndex shows it.
func resamplingIn(cfg *compound.Config, layout int) string {
	for _, c := range cfg.Canvases {
		if i := slices.Index(c.Layouts, cfg.Layouts[layout]); i >= 0 {
			c.ActiveLayout = i
		}
	}
	return cfg.Resampling()
}
