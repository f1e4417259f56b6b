package scheduler

import (
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
)

// BenchmarkTileQueueOfPixelTiles pulls a frame's queue of one-pixel tiles
// (eqPly's t key pressed down: 230400 items of 640x360) among four
// sources of measured, unequal speeds, four items a pull. A pull must
// cost the same however many grants the queue has handed out: this frame
// takes about 0.2 s of the server's time, and took 3.6 s while a pull
// scanned the grants handed to the faster sources.
func BenchmarkTileQueueOfPixelTiles(b *testing.B) {
	cfg := load(b, example("tile-4.eqc"))
	cfg.Walk(func(c *compound.Compound) {
		for _, eq := range c.Equalizers {
			if eq.Kind == compound.TileEqualizer {
				eq.TileSize = [2]int{1, 1}
			}
		}
	})
	for b.Loop() {
		s := New(cfg, planner.New(cfg), Options{Frames: 1})
		s.Step(Tick{Now: time.Unix(1000, 0)})
		for _, id := range s.Nodes() {
			s.Step(Join{Node: id})
		}
		type source struct{ node, channel, queue string }
		var sources []source
		for s.HasReady() {
			rd := s.Ready()
			s.Advance()
			for _, w := range rd.Work {
				for _, cp := range w.Channels {
					for _, tk := range cp.Tasks {
						if tk.Queue != "" {
							sources = append(sources, source{w.Node, cp.Channel.ID, tk.Queue})
						}
					}
				}
			}
		}
		for _, q := range s.inflight[0].queues {
			for i, p := range q.pullers {
				s.tileCost[p] = 0.001 * float64(i+1)
			}
		}
		emptied, pulls, items := map[string]bool{}, 0, 0
		for len(emptied) < len(sources) {
			for _, src := range sources {
				if emptied[src.channel] {
					continue
				}
				s.Step(Pull{Node: src.node, Channel: src.channel, Frame: 0, Queue: src.queue, Max: 4})
				pulls++
				for _, g := range s.Ready().Grants {
					items += len(g.Tiles)
					if g.Done {
						emptied[src.channel] = true
					}
				}
				s.Advance()
			}
		}
		b.ReportMetric(float64(pulls), "pulls")
		b.ReportMetric(float64(items), "items")
	}
}
