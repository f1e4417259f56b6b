package goeq_test

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/imagecmp"
)

// Corpus configs whose layouts and view modes are switched at random
// from frame to frame (static, load-balanced, DB, eye, pixel and subpixel
// trees; layouts of their own channels and of shared sources): every
// frame shows the layout and the eyes it was switched to, as the
// reference renders them, with the run in this process and on a running
// eqserver. make test runs five; GOEQ_LAYOUT_SWITCHES=all every corpus
// config (all 80 pass both ways).
func TestRandomLayoutAndViewModeSwitchesMatchTheReference(t *testing.T) {
	const frames = 8
	for _, cc := range corpusConfigs(t, "GOEQ_LAYOUT_SWITCHES", "1-pipe.LG_CF3D.eqc", "2-node.DB.eqc", "4-window.all.eqc", "7-window.EYE.PIXEL.eqc", "layout.wall.operator.eqc") {
		name, path, cfg := cc.name, cc.path, cc.cfg
		t.Run(name, func(t *testing.T) {
			h := fnv.New64a()
			h.Write([]byte(name))
			r := rand.New(rand.NewPCG(h.Sum64(), 1))
			layouts := make([]int, frames)
			modes := make([][]goeq.ViewMode, frames)
			for f := range frames {
				layouts[f] = r.IntN(len(cfg.Layouts))
				for range cfg.Views() {
					modes[f] = append(modes[f], goeq.ViewMode(r.IntN(2)))
				}
			}
			t.Logf("layouts by frame %v, view modes %v", layouts, modes)
			run := func(opt goeq.Options) (map[int][]string, string) {
				out := t.TempDir()
				// the square writes depth: DB trees merge it
				opt.OutDir, opt.InitData = out, squareInit{Scale: 1.4, DepthTest: true}
				c, err := goeq.Start(context.Background(), turningSquare{}, opt)
				if err != nil {
					t.Fatal(err)
				}
				if n := len(c.Views()); n != len(cfg.Views()) {
					t.Fatalf("%d views; the config has %d", n, len(cfg.Views()))
				}
				for f := 0; f < frames && err == nil; f++ {
					if len(cfg.Layouts) > 1 {
						err = c.UseLayoutIndex(layouts[f])
					}
					for v := 0; v < len(modes[f]) && err == nil; v++ {
						err = c.SetViewMode(v, modes[f][v])
					}
					if err == nil {
						_, err = c.StartFrame(camera{Frame: f, Angle: 0.35 * float64(f)})
					}
				}
				sum, exitErr := c.Exit()
				if err != nil || exitErr != nil {
					t.Fatalf("run: %v; exit: %v", err, exitErr)
				}
				return imagesByFrame(t, sum.Written), out
			}
			want, wantDir := run(goeq.Options{Config: path, Local: true, Reference: true})
			compare := func(how string, got map[int][]string, gotDir string) {
				framesMatch(t, how, frames, got, gotDir, want, wantDir, func(f int) string { return resamplingIn(cfg, layouts[f]) })
			}
			got, gotDir := run(goeq.Options{Config: path, Local: true})
			compare("in this process", got, gotDir)
			t.Setenv("GOEQ_TOKEN", "the-shared-token")
			srv := startAppServer(t, path)
			got, gotDir = run(goeq.Options{Server: srv.addr})
			compare("on a running eqserver", got, gotDir)
			srv.endsWithTheRun(t)
		})
	}
}

// corpusConfig is a corpus config that loads.
type corpusConfig struct {
	name, path string
	cfg        *compound.Config
}

// corpusConfigs are the corpus configs a test runs: those named, or every
// one that loads when the environment variable env is "all" (the broken
// ones have tests of their own).
func corpusConfigs(t *testing.T, env string, names ...string) []corpusConfig {
	t.Helper()
	all := os.Getenv(env) == "all"
	if all {
		paths, _ := filepath.Glob(filepath.Join("..", "shared", "eqc-corpus", "*.eqc"))
		names = names[:0]
		for _, p := range paths {
			names = append(names, filepath.Base(p))
		}
	}
	var out []corpusConfig
	for _, name := range names {
		path := filepath.Join("..", "shared", "eqc-corpus", name)
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			if all {
				continue
			}
			t.Fatal(err)
		}
		out = append(out, corpusConfig{name, path, m.Configs[0]})
	}
	return out
}

// framesMatch checks a run's images, by frame, against the reference's:
// the same names in every frame, and pixels within the allowance of the
// frame's resampling.
func framesMatch(t *testing.T, how string, frames int, got map[int][]string, gotDir string, want map[int][]string, wantDir string, resampling func(frame int) string) {
	t.Helper()
	for f := range frames {
		slices.Sort(got[f])
		slices.Sort(want[f])
		if len(got[f]) == 0 || !slices.Equal(got[f], want[f]) {
			t.Errorf("%s: frame %d wrote %q, the reference %q", how, f, got[f], want[f])
			continue
		}
		for _, img := range got[f] {
			d, err := imagecmp.CompareFiles(filepath.Join(gotDir, img), filepath.Join(wantDir, img), imagecmp.Tolerance)
			if err != nil {
				t.Fatal(err)
			}
			if r := resampling(f); !d.Matches(r) {
				t.Errorf("%s: %s (%s): %s", how, img, imagecmp.Allowance(r), d)
			}
		}
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
