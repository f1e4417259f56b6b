package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/scheduler"
	"github.com/goeq/goeq/internal/stats"
)

// report gathers what completed frames tell: the statistics file, the
// progress line and the summary.
type report struct {
	s        *server
	statsOut *json.Encoder
	// statsErr is the first failed write of the statistics file: the run
	// fails with it rather than go on with a file that silently stops
	statsErr error
	// start is when the first frame started (set up time is not counted)
	start    time.Time
	startCPU time.Duration // the process's CPU time then
	busy     time.Duration // the server loop's time since then
	frames   int
	// degradedFrames are the frames completed without a lost node's part
	// (Summary.DegradedFrames)
	degradedFrames []int
	repairedFrames []int // Summary.RepairedFrames
	lost           []string
	rejoined       []string
	lostPipes      []string // "node: pipe"
	written        []string
	totals         map[string]*channelTotals // by channel ID
	lastFrame      int
	// codecBytes is what crossed frame links, by codec (Summary.CodecBytes)
	codecBytes map[string]int64
	labels     map[string]string // channel ID -> label
}

func newReport(s *server, statsOut *json.Encoder) *report {
	labels := make(map[string]string, len(s.cfg.Channels))
	for _, ch := range s.cfg.Channels {
		labels[ch.ID] = ch.Label
	}
	return &report{s: s, statsOut: statsOut, totals: map[string]*channelTotals{}, codecBytes: map[string]int64{},
		labels: labels}
}

// sent counts what a node sent over frame links for a frame.
func (r *report) sent(links []control.LinkBytes) {
	for _, l := range links {
		r.codecBytes[l.Codec] += int64(l.Bytes)
	}
}

// statsLine is a record as written to the statistics file: the channel's
// label beside its ID, for people.
type statsLine struct {
	stats.Record
	Label string `json:"label"`
	// Completed is when the frame completed, in seconds since the first
	// frame started; Started when it started (its tasks were sent), and
	// Done when the channel's node reported it done: frames overlap
	// (latency), and a node that finished one late may start the next
	// late. The first line of a frame also carries the adaptive policies'
	// state as the frame was planned, and the channels it was planned
	// without (stats.Record.Down).
	Completed float64                `json:"completed_s"`
	Started   float64                `json:"started_s"`
	Done      float64                `json:"done_s,omitempty"`
	Balance   []planner.BalanceState `json:"balance,omitempty"`
}

// label is a channel's label (a large wall has a record per channel per
// frame: looked up, not searched for).
func (r *report) label(id string) string {
	if l, ok := r.labels[id]; ok {
		return l
	}
	return id
}

// repaired notes lost channels' parts of a frame handed to their consumer.
func (r *report) repaired(rp scheduler.Repair) {
	var lost []string
	for _, cp := range rp.Plans {
		lost = append(lost, r.label(cp.Channel.ID))
	}
	var to []string
	for _, id := range rp.For {
		to = append(to, r.label(id))
	}
	r.s.opt.Log.Info(fmt.Sprintf("frame %d: the part of %s, lost with its node, is drawn again for %s", rp.Frame, strings.Join(lost, ", "), strings.Join(to, ", ")))
	if i, found := slices.BinarySearch(r.repairedFrames, rp.Frame); !found {
		r.repairedFrames = slices.Insert(r.repairedFrames, i, rp.Frame)
	}
}

func (r *report) complete(c scheduler.Completed) {
	r.frames++
	r.lastFrame = c.Frame
	if c.Degraded {
		r.degradedFrames = append(r.degradedFrames, c.Frame)
		if len(c.Undrawn) > 0 {
			r.s.opt.Log.Warn(fmt.Sprintf("frame %d is shown without parts its plan gave no channel, a fault of goeq's planner (please report it, with the config): %s (degraded)",
				c.Frame, strings.Join(c.Undrawn, "; ")))
		} else {
			r.s.opt.Log.Warn(fmt.Sprintf("frame %d is shown without the part of a node lost while it was in flight (degraded)", c.Frame))
		}
	}
	r.written = append(r.written, c.Written...)
	for _, e := range c.Errors {
		r.s.opt.Log.Warn(fmt.Sprintf("frame %d: %s", c.Frame, e))
	}
	worst, total, n, slowest := 0.0, 0.0, 0, ""
	// the scheduler's completion, which the planner saw, rather than when
	// the report got to it: a replay times the plans from these
	completed := math.Max(0, c.Finished.Sub(r.start).Seconds())
	started := math.Max(0, c.Started.Sub(r.start).Seconds())
	for i, rec := range c.Records {
		if r.statsOut != nil {
			// the scheduler stamped the record with its Done's arrival
			line := statsLine{Record: rec, Label: r.label(rec.Channel), Completed: completed, Started: started}
			if !rec.Finished.IsZero() {
				line.Done = math.Max(0, rec.Finished.Sub(r.start).Seconds())
			}
			if i == 0 {
				line.Balance, line.Down = r.s.balanced[c.Frame], r.s.downAt[c.Frame]
			}
			if err := r.statsOut.Encode(line); err != nil && r.statsErr == nil {
				r.statsErr = fmt.Errorf("writing the statistics (--stats %s) of frame %d: %w", r.s.opt.StatsPath, c.Frame, err)
			}
		}
		ct := r.totals[rec.Channel]
		if ct == nil {
			ct = &channelTotals{}
			r.totals[rec.Channel] = ct
		}
		ct.add(rec.Times)
		if d := rec.Times.Draw.Seconds(); d > 0 {
			total += d
			n++
			if d > worst {
				worst, slowest = d, rec.Channel
			}
		}
	}
	delete(r.s.balanced, c.Frame)
	delete(r.s.downAt, c.Frame)
	if w := r.s.opt.Progress; w != nil {
		el := time.Since(r.start).Seconds()
		imb := 1.0
		if n > 0 && total > 0 {
			imb = worst / (total / float64(n))
		}
		of := ""
		if r.s.opt.Frames < math.MaxInt {
			of = fmt.Sprintf("/%d", r.s.opt.Frames)
		}
		fmt.Fprintf(w, "\rframe %d%s  %.1f fps  imbalance %.2f  slowest %-12s", c.Frame+1, of, float64(r.frames)/el, imb, r.label(slowest))
	}
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// channelTotals sums a channel's times (ms) over its records.
type channelTotals struct {
	draw, readback, transmit, assemble, wait float64
	records                                  int
}

func (t *channelTotals) add(times stats.Times) {
	t.draw += ms(times.Draw)
	t.readback += ms(times.ReadbackSync + times.ReadbackAsync)
	t.transmit += ms(times.Transmit)
	t.assemble += ms(times.Assemble)
	t.wait += ms(times.Wait)
	t.records++
}

func (t *channelTotals) merge(o *channelTotals) {
	t.draw, t.readback, t.transmit, t.assemble, t.wait = t.draw+o.draw, t.readback+o.readback, t.transmit+o.transmit, t.assemble+o.assemble, t.wait+o.wait
	t.records += o.records
}

// summary is what was done so far.
func (r *report) summary(interrupted bool) *Summary {
	if r.s.opt.Progress != nil && r.frames > 0 {
		fmt.Fprintln(r.s.opt.Progress)
	}
	seconds := 0.0
	if !r.start.IsZero() {
		seconds = time.Since(r.start).Seconds()
	}
	sum := &Summary{Frames: r.frames, Seconds: seconds, Degraded: len(r.degradedFrames), DegradedFrames: r.degradedFrames, RepairedFrames: r.repairedFrames, LostNodes: r.lost, RejoinedNodes: r.rejoined, LostPipes: r.lostPipes,
		Written: r.written, FinalSplit: map[string]string{}, Interrupted: interrupted}
	if sum.Seconds > 0 {
		sum.FPS = float64(sum.Frames) / sum.Seconds
	}
	if r.frames > 0 {
		sum.ControlMsPerFrame = r.busy.Seconds() * 1000 / float64(r.frames)
		sum.ServerCPUMsPerFrame = (processCPU() - r.startCPU).Seconds() * 1000 / float64(r.frames)
	}
	// by label, as people know the channels
	byLabel := map[string]*channelTotals{}
	for id, ct := range r.totals {
		label := r.label(id)
		if byLabel[label] == nil {
			byLabel[label] = &channelTotals{}
		}
		byLabel[label].merge(ct)
	}
	for label, ct := range byLabel {
		n := float64(ct.records)
		sum.Channels = append(sum.Channels, ChannelSummary{Channel: label, Draw: ct.draw / n, Readback: ct.readback / n,
			Transmit: ct.transmit / n, Assemble: ct.assemble / n, Wait: ct.wait / n})
	}
	sortedChannels(sum.Channels)
	if len(r.codecBytes) > 0 {
		sum.CodecBytes = maps.Clone(r.codecBytes)
	}
	if len(r.s.exchanges) > 0 {
		sum.Exchanges = maps.Clone(r.s.exchanges)
	}
	r.finalSplit(sum)
	return sum
}

// finalSplit describes what each balanced source had in the last frame
// its compound drew, of the load-balanced compounds the last frames drew
// (a DPlex compound draws every other frame). Those of layouts not shown
// share the shown ones' source channels, and would say "nothing" of them.
// A channel that is a source of several compounds is named with the
// destination it drew for.
func (r *report) finalSplit(sum *Summary) {
	p := r.s.plan
	if p == nil || r.frames == 0 {
		return
	}
	planned := map[*compound.Compound]map[string]planner.CompoundState{}
	var balanced []*compound.Compound
	sources := map[string]int{}
	r.s.cfg.Walk(func(c *compound.Compound) {
		if p.Load(c) == nil {
			return
		}
		for f := r.lastFrame; f > r.lastFrame-splitFrames; f-- {
			if states := p.Planned(f); states != nil && states[c.Path()].Active {
				planned[c] = states
				break
			}
		}
		if planned[c] == nil {
			return
		}
		balanced = append(balanced, c)
		for _, ch := range c.Children {
			sources[sourceName(ch)]++
		}
	})
	for _, c := range balanced {
		mode := p.Load(c).Params.Mode
		for _, ch := range c.Children {
			st := planned[c][ch.Path()]
			name := sourceName(ch)
			if sources[name] > 1 {
				if dest := c.Destination(); dest != nil && dest.Channel != nil {
					name += " for " + dest.Channel.Label
				} else {
					name += " in compound " + c.Path()
				}
			}
			switch {
			case !st.Active || st.Skip:
				sum.FinalSplit[name] = "nothing"
			case mode == compound.SplitDB:
				sum.FinalSplit[name] = fmt.Sprintf("range [%.3f %.3f)", st.Local.Range.Start, st.Local.Range.End)
			default:
				v := st.Local.Viewport
				sum.FinalSplit[name] = fmt.Sprintf("viewport [%.3f %.3f %.3f %.3f]", v.X, v.Y, v.W, v.H)
			}
		}
	}
}

// splitFrames is how far back the final split looks for a frame each
// load-balanced compound drew: a period of a time-multiplexed compound.
const splitFrames = 16

// sourceName names a balanced source in the summary: its channel, or
// its path where it has none of its own.
func sourceName(c *compound.Compound) string {
	if c.Channel != nil {
		return c.Channel.Label
	}
	return c.Path()
}
