package simulate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/scheduler"
	"github.com/goeq/goeq/internal/stats"
)

// BenchmarkWallFrame is the control plane's pure core on a wall of N
// displays: one frame planned and started, and every node's done and
// assembled stepped, without I/O. Against the live loop's
// control_ms_per_frame (make bench) it tells the core's share of that
// time from the server's messaging, encoding and scheduling around it.
func BenchmarkWallFrame(b *testing.B) {
	for _, n := range []int{64, 256} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "wall.eqc")
			if err := os.WriteFile(path, []byte(Wall(n)), 0o644); err != nil {
				b.Fatal(err)
			}
			m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
			if err != nil {
				b.Fatal(err)
			}
			cfg := m.Configs[0]
			now := time.Unix(1000, 0)
			s := scheduler.New(cfg, planner.New(cfg), scheduler.Options{Frames: 1 << 30})
			s.Step(scheduler.Tick{Now: now})
			for _, id := range s.Nodes() {
				s.Step(scheduler.Join{Node: id})
			}
			var work []scheduler.Work
			drain := func() {
				for s.HasReady() {
					rd := s.Ready()
					s.Advance()
					work = append(work, rd.Work...)
				}
			}
			drain()
			records := make([]stats.Record, 1)
			// frames overlap as the config's latency lets them: each pass
			// completes the oldest frame in flight and starts the next
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(work) < n {
					b.Fatalf("frame %d: %d nodes have work, want %d", i, len(work), n)
				}
				for _, w := range work[:n] {
					records[0] = stats.Record{Frame: w.Frame, Channel: w.Channels[0].Channel.ID, Compound: w.Channels[0].Tasks[0].Compound}
					s.Step(scheduler.Done{Node: w.Node, Frame: w.Frame, Records: records})
					s.Step(scheduler.Assembled{Node: w.Node, Frame: w.Frame})
				}
				work = append(work[:0], work[n:]...)
				now = now.Add(10 * time.Millisecond)
				s.Step(scheduler.Tick{Now: now})
				drain()
				if s.Completed() != i+1 {
					b.Fatalf("frame %d: %d frames completed", i, s.Completed())
				}
			}
		})
	}
}

// BenchmarkSortLastPlan plans one frame of a DB load-balanced compound of
// n sources on a 1920x1080 destination, statistics fed every frame, with
// the strategy the cost model picks and with direct send, whose n(n-1)
// transfers a frame are the most an exchange plans.
func BenchmarkSortLastPlan(b *testing.B) {
	for _, n := range []int{64, 256} {
		for _, strategy := range []compositing.Strategy{compositing.Auto, compositing.DirectSend} {
			b.Run(fmt.Sprintf("%d/%s", n, strategy), func(b *testing.B) {
				cfg, err := Generated{Mode: compound.SplitDB, Sources: n, W: 1920, H: 1080}.Config()
				if err != nil {
					b.Fatal(err)
				}
				root := cfg.Compounds[0]
				root.Attributes[compound.CompositingAttr] = strategy.String()
				p := planner.New(cfg)
				var recs []stats.Record
				for i, c := range root.Children {
					recs = append(recs, stats.Record{Compound: c.Path(), Channel: c.Channel.Name, Viewport: c.Viewport,
						Range: compound.Range{Start: float64(i) / float64(n), End: float64(i+1) / float64(n)},
						Times: stats.Times{Draw: time.Duration(5+i%7) * time.Millisecond}})
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for j := range recs {
						recs[j].Frame = i
					}
					p.Feed(stats.Frame{Frame: i, Records: recs})
					if plan := p.Plan(i + 1); len(plan.Exchanges) == 0 {
						b.Fatalf("frame %d: no exchange planned", i+1)
					}
				}
			})
		}
	}
}

// BenchmarkSplit2DPlan plans one frame of a 2D load-balanced compound of
// n sources on a 3440x1440 destination, statistics fed every frame: the
// splits' bisections read the load grid some thousand times a frame.
func BenchmarkSplit2DPlan(b *testing.B) {
	for _, n := range []int{7, 64, 256} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfg, err := Generated{Mode: compound.Split2D, Sources: n, W: 3440, H: 1440}.Config()
			if err != nil {
				b.Fatal(err)
			}
			p := planner.New(cfg)
			plan := p.Plan(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var recs []stats.Record
				for _, cp := range plan.Channels {
					for k, t := range cp.Tasks {
						if t.Kind == planner.Draw {
							recs = append(recs, stats.Record{Frame: i, Compound: t.Compound, Channel: cp.Channel.Name, Viewport: t.Viewport,
								Times: stats.Times{Draw: time.Duration(5+(k+len(recs))%7) * time.Millisecond}})
						}
					}
				}
				p.Feed(stats.Frame{Frame: i, Records: recs})
				plan = p.Plan(i + 1)
			}
		})
	}
}
