package scheduler

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// A node's statistics steer the plans of the frames after, so a draw
// reported as taking hours (a buggy or tampered client) must not make the
// run wait hours: on a time-multiplexed compound the framerate equalizer
// spaced the frames by the claimed time, and the run stood still with no
// error. A claim no run could make (over stats.MaxTime) is left out and
// said; one that is merely longer than its frame took is kept as the node
// reported it, and the framerate equalizer cuts it to the frame.
func TestImplausibleStatisticsDoNotStallTheRun(t *testing.T) {
	const frames, claimedIn = 12, 2
	for _, name := range []string{"2-node.DPlex.eqc", "3-window.DPlex.eqc"} {
		for _, claim := range []time.Duration{1000 * time.Hour, 50 * time.Minute} {
			cfg := load(t, corpus(name))
			c := newCluster(t, cfg, Options{Frames: frames})
			c.statistics = func(node string, frame int, recs []stats.Record) []stats.Record {
				if frame == claimedIn {
					for i := range recs {
						recs[i].Times.Draw = claim
					}
				}
				return recs
			}
			// 20 s of the fake cluster's time, where the frames take 0.1 s
			c.run(4000)
			if !c.finished {
				t.Fatalf("%s, frame %d's draws reported as %v: after %v, %d of %d frames completed (failure %q)",
					name, claimedIn, claim, c.now.Sub(time.Unix(1000, 0)), len(c.completed), frames, c.failure)
			}
			f := c.completed[claimedIn]
			said := strings.Contains(strings.Join(f.Errors, "\n"), "statistics records left out")
			switch {
			case claim > stats.MaxTime && (!said || len(f.Records) != 0):
				t.Errorf("%s, draws reported as %v: frame %d kept %d records, errors %q; want them left out and said", name, claim, claimedIn, len(f.Records), f.Errors)
			case claim <= stats.MaxTime && (said || len(f.Records) == 0 || f.Records[0].Times.Draw != claim):
				t.Errorf("%s, draws reported as %v: frame %d kept %d records, errors %q; want them kept as reported", name, claim, claimedIn, len(f.Records), f.Errors)
			}
		}
	}
}

// FuzzImplausibleStatistics runs configs whose nodes report what the
// fuzzer makes of their statistics: every run still ends, and every task
// given lies within its destination and database.
func FuzzImplausibleStatistics(f *testing.F) {
	var cfgs []string
	for _, pattern := range []string{example("*.eqc"), corpus("*.eqc")} {
		names, _ := filepath.Glob(pattern)
		cfgs = append(cfgs, names...)
	}
	f.Add(uint16(0), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint16(9), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 9, 0, 0, 0, 0, 0, 0, 0x80})
	f.Fuzz(func(t *testing.T, which uint16, b []byte) {
		if len(b) == 0 {
			return
		}
		name := cfgs[int(which)%len(cfgs)]
		cfg := load(t, name)
		pos := 0
		next := func() uint64 {
			var w [8]byte
			for i := range w {
				w[i] = b[pos%len(b)]
				pos++
			}
			return binary.LittleEndian.Uint64(w[:])
		}
		number := func() float64 {
			switch next() % 6 {
			case 0:
				return 1e6
			case 1:
				return -1e6
			case 2:
				return -1
			default:
				return math.Float64frombits(next())
			}
		}
		const frames = 6
		c := newCluster(t, cfg, Options{Frames: frames})
		c.statistics = func(node string, frame int, recs []stats.Record) []stats.Record {
			for i := range recs {
				r := &recs[i]
				switch next() % 8 {
				case 0:
					r.Times.Draw = time.Duration(next())
				case 1:
					r.Times = stats.Times{Clear: time.Duration(next()), ReadbackSync: time.Duration(next() >> 20), Assemble: time.Duration(next() >> 30), DataLoad: time.Duration(next() >> 40)}
				case 2:
					r.Viewport = compound.Viewport{X: number(), Y: number(), W: number(), H: number()}
				case 3:
					r.Range = compound.Range{Start: number(), End: number()}
				case 4:
					r.Drawn = compound.Viewport{X: number(), Y: number(), W: number(), H: number()}
				case 5:
					r.DataMoved, r.Times.DataLoad = number(), time.Duration(next()>>24)
				}
			}
			return recs
		}
		c.tasks = func(frame int, cp *planner.ChannelPlan) {
			for _, task := range cp.Tasks {
				v, r, z := task.Viewport, task.Range, task.Zoom
				if !(v.X >= 0 && v.Y >= 0 && v.W >= 0 && v.H >= 0 && v.X+v.W <= 1+1e-9 && v.Y+v.H <= 1+1e-9) ||
					!(r.Start >= 0 && r.Start <= r.End && r.End <= 1+1e-9) ||
					z != (compound.Zoom{}) && !(z.X > 0 && z.Y > 0 && z.X <= 1e3 && z.Y <= 1e3) {
					t.Fatalf("%s frame %d: %s's %v task has viewport %+v, range %+v, zoom %+v", name, frame, cp.Channel.Name, task.Kind, v, r, z)
				}
			}
		}
		// 100 s of the fake cluster's time
		c.run(20000)
		if !c.finished && c.failure == "" {
			t.Fatalf("%s: %d of %d frames completed after %v", name, len(c.completed), frames, c.now.Sub(time.Unix(1000, 0)))
		}
	})
}
