package planner_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/stats"
)

// A load-balanced 2D split under loads that change every frame draws
// every pixel of its destination once, whatever the window's size and
// aspect (odd sizes, a 7-pixel strip) and the number of sources: no part
// leaves a row or column to none or draws one twice.
func TestA2DSplitDrawsEveryPixelOnceUnderChangingLoads(t *testing.T) {
	for _, size := range [][2]int{{333, 297}, {641, 359}, {1001, 7}, {7, 1001}} {
		for _, n := range []int{3, 6, 7, 13} {
			g := simulate.Generated{Mode: compound.Split2D, Sources: n, W: size[0], H: size[1], PipesPerNode: 4}
			cfg, err := g.Config()
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(n), uint64(size[0])))
			p := planner.New(cfg)
			splits := map[string]bool{} // the shares of a frame, as text
			for f := 0; f < 40; f++ {
				plan := p.Plan(f)
				drawn := make([]int, size[0]*size[1])
				var recs []stats.Record
				split := ""
				for _, cp := range plan.Channels {
					for _, task := range cp.Tasks {
						if task.Kind != planner.Draw {
							continue
						}
						s := task.Share
						split += fmt.Sprint(s)
						for y := max(s.Y, 0); y < min(s.Y+s.H, size[1]); y++ {
							for x := max(s.X, 0); x < min(s.X+s.W, size[0]); x++ {
								drawn[y*size[0]+x]++
							}
						}
						recs = append(recs, stats.Record{Frame: f, Compound: task.Compound, Viewport: task.Viewport,
							Times: stats.Times{Draw: time.Duration(1+r.IntN(30)) * time.Millisecond}})
					}
				}
				p.Feed(stats.Frame{Frame: f, Records: recs})
				splits[split] = true
				for i, times := range drawn {
					if times != 1 {
						t.Fatalf("%s, frame %d: pixel (%d, %d) drawn %d times", g.Name(), f, i%size[0], i/size[0], times)
					}
				}
			}
			if len(splits) < 10 {
				t.Errorf("%s: %d splits in 40 frames: the loads did not move it", g.Name(), len(splits))
			}
		}
	}
}
