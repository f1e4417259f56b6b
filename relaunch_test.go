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

// Corpus configs of several nodes, each render node that shows no
// destination killed in frame 6 (Options.Relaunch 2), while the
// application switches layouts at random where there are several and
// broadcasts tints before and after the loss: the node rejoins, takes
// the tints it missed, and every frame matches the reference with the
// same layouts and tints. make test runs one config; GOEQ_RELAUNCH=all
// every corpus config (24 load with several nodes: 69 nodes in 20 of
// them show no destination, and all pass).
func TestCorpusRenderNodesStartedAgainMatchTheReference(t *testing.T) {
	names := []string{"2-node.2D.eqc"}
	all := os.Getenv("GOEQ_RELAUNCH") == "all"
	if all {
		paths, _ := filepath.Glob(filepath.Join("..", "shared", "eqc-corpus", "*.eqc"))
		names = names[:0]
		for _, p := range paths {
			names = append(names, filepath.Base(p))
		}
	}
	const frames, killAt = 40, 6
	for _, name := range names {
		path := filepath.Join("..", "shared", "eqc-corpus", name)
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			if all {
				continue // the broken configs have tests of their own
			}
			t.Fatal(err)
		}
		cfg := m.Configs[0]
		for _, victim := range cfg.Nodes {
			if victim.App {
				continue
			}
			t.Run(name+"/"+victim.ID, func(t *testing.T) {
				h := fnv.New64a()
				h.Write([]byte(name + victim.ID))
				r := rand.New(rand.NewPCG(h.Sum64(), 3))
				layouts := make([]int, frames)
				for f := range frames {
					layouts[f] = r.IntN(len(cfg.Layouts))
				}
				run := func(opt goeq.Options, init squareInit) (*goeq.Summary, string) {
					out := t.TempDir()
					opt.OutDir, opt.InitData, opt.Config, opt.Local = out, init, path, true
					c, err := goeq.Start(context.Background(), turningSquare{}, opt)
					if err != nil {
						t.Fatal(err)
					}
					for f := 0; f < frames && err == nil; f++ {
						if len(cfg.Layouts) > 1 {
							err = c.UseLayoutIndex(layouts[f])
						}
						if err == nil && f%7 == 2 {
							err = c.Broadcast(tint{Frame: f, Name: "tint", RGB: [3]float32{0.3 + 0.02*float32(f), 1, 0.5}})
						}
						if err == nil {
							_, err = c.StartFrame(camera{Frame: f, Angle: 0.35 * float64(f)})
						}
					}
					sum, exitErr := c.Exit()
					if err != nil || exitErr != nil {
						if why := fmt.Sprint(err, exitErr); strings.Contains(why, "which shows the destination, died") {
							t.Skipf("%s shows a destination: its loss ends the run (%s)", victim.ID, why)
						}
						t.Fatalf("run: %v; exit: %v", err, exitErr)
					}
					return sum, out
				}
				init := squareInit{Scale: 1.4, DepthTest: true}
				killing := init
				killing.KillAt, killing.KillNode = killAt, victim.ID
				got, gotDir := run(goeq.Options{Relaunch: 2}, killing)
				if slices.Contains(got.LostNodes, victim.ID) != slices.Contains(got.RejoinedNodes, victim.ID) || len(got.DegradedFrames) > 0 {
					t.Errorf("lost %v, rejoined %v, degraded %v: want %s, if lost, back, and no frame degraded", got.LostNodes, got.RejoinedNodes, got.DegradedFrames, victim.ID)
				}
				want, wantDir := run(goeq.Options{Reference: true}, init)
				wantBy, gotBy := imagesByFrame(t, want.Written), imagesByFrame(t, got.Written)
				for f := range frames {
					slices.Sort(wantBy[f])
					slices.Sort(gotBy[f])
					if len(gotBy[f]) == 0 || !slices.Equal(gotBy[f], wantBy[f]) {
						t.Errorf("frame %d wrote %q, the reference %q", f, gotBy[f], wantBy[f])
						continue
					}
					for _, img := range gotBy[f] {
						d, err := imagecmp.CompareFiles(filepath.Join(gotDir, img), filepath.Join(wantDir, img), imagecmp.Tolerance)
						if err != nil {
							t.Fatal(err)
						}
						if resampling := resamplingIn(cfg, layouts[f]); !d.Matches(resampling) {
							t.Errorf("%s (%s): %s", img, imagecmp.Allowance(resampling), d)
						}
					}
				}
				t.Logf("lost %v, rejoined %v, repaired %v", got.LostNodes, got.RejoinedNodes, got.RepairedFrames)
			})
		}
	}
}
