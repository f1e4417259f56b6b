package goeq_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq"
)

// Corpus configs of several nodes, each render node that shows no
// destination killed in frame 6 (Options.Relaunch 2), while the
// application switches layouts at random where there are several and
// broadcasts tints before and after the loss: the node rejoins, takes
// the tints it missed, and every frame matches the reference with the
// same layouts and tints. Each source of a database range draws only its
// range's part of the square, so a part drawn again for the lost node,
// or not, shows. make test runs one config; GOEQ_RELAUNCH=all
// every corpus config (24 load with several nodes: 69 nodes in 20 of
// them show no destination, and all pass).
func TestCorpusRenderNodesStartedAgainMatchTheReference(t *testing.T) {
	const frames, killAt = 40, 6
	for _, cc := range corpusConfigs(t, "GOEQ_RELAUNCH", "2-node.2D.eqc") {
		name, path, cfg := cc.name, cc.path, cc.cfg
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
				init := squareInit{Scale: 1.4, DepthTest: true, Slices: true}
				killing := init
				killing.KillAt, killing.KillNode = killAt, victim.ID
				got, gotDir := run(goeq.Options{Relaunch: 2}, killing)
				if slices.Contains(got.LostNodes, victim.ID) != slices.Contains(got.RejoinedNodes, victim.ID) || len(got.DegradedFrames) > 0 {
					t.Errorf("lost %v, rejoined %v, degraded %v: want %s, if lost, back, and no frame degraded", got.LostNodes, got.RejoinedNodes, got.DegradedFrames, victim.ID)
				}
				want, wantDir := run(goeq.Options{Reference: true}, init)
				framesMatch(t, "started again", frames, imagesByFrame(t, got.Written), gotDir, imagesByFrame(t, want.Written), wantDir,
					func(f int) string { return resamplingIn(cfg, layouts[f]) })
				t.Logf("lost %v, rejoined %v, repaired %v", got.LostNodes, got.RejoinedNodes, got.RepairedFrames)
			})
		}
	}
}
