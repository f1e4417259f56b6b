// Package simulate drives goeq's planner and equalizers with a synthetic
// cost model instead of GPUs: a cost field over the destination (or along
// the database range), per-source speeds with competing load, per-task
// overhead and the cost of moving data. A source's draw time is the
// integral of the cost over its viewport and range divided by its speed.
// The same planner the live server uses plans every frame; statistics are
// delivered latency+1 frames late, as in a live run.
package simulate

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/equalizer"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/scheduler"
	"github.com/goeq/goeq/internal/stats"
)

// MaxFrames bounds a simulated run: its summary keeps every frame's time
// and splits (about half a kilobyte a frame on a four-source config).
const MaxFrames = 1_000_000

// Options choose the run.
type Options struct {
	Scenario string
	Frames   int
	Policy   string // "equalizer" or "adaptive"
	Seed     int64
	// Layout, when set, is the layout to show (its name, or its index in
	// the config): the load-balanced compound it shows is simulated.
	Layout string
}

// Summary is the outcome of a run (the --json output).
type Summary struct {
	Config         string  `json:"config"`
	Scenario       string  `json:"scenario"`
	Policy         string  `json:"policy"`
	Frames         int     `json:"frames"`
	FrameTimeMean  float64 `json:"frame_time_mean"` // seconds
	FrameTimeP95   float64 `json:"frame_time_p95"`
	FrameTimeP99   float64 `json:"frame_time_p99"`
	ImbalanceMean  float64 `json:"imbalance_mean"`  // mean over frames of max/mean source time (a shared renderer counts once)
	ConvergeFrames int     `json:"converge_frames"` // after the step; -1 if never; 0 if no step
	JitterPct      float64 `json:"jitter_pct"`      // std of split positions in steady state, % of the viewport/range
	Efficiency     float64 `json:"efficiency"`      // busy time / (sources x frame time), a shared renderer once
	DataMoved      float64 `json:"data_moved"`      // range units per frame (DB)
	// Compound is the load-balanced compound a replay balanced, and
	// AlsoRecorded the others whose sources its statistics have.
	Compound     string   `json:"compound,omitempty"`
	AlsoRecorded []string `json:"also_recorded,omitempty"`
	// Per-frame series for plots.
	Series []FrameSample `json:"-"`
}

// FrameSample is one simulated frame.
type FrameSample struct {
	FrameTime float64
	Imbalance float64
	Splits    []float64
	Moved     float64
}

// Run simulates cfg under the scenario.
func Run(cfg *compound.Config, configName string, opt Options) (*Summary, error) {
	sc, ok := Scenarios[opt.Scenario]
	if !ok {
		sc, ok = switched[opt.Scenario]
	}
	if !ok {
		sc, ok = hogged[opt.Scenario]
	}
	if !ok {
		return nil, fmt.Errorf("unknown scenario %q (have %v)", opt.Scenario, ScenarioNames())
	}
	if opt.Frames <= 0 {
		opt.Frames = 300
	}
	if opt.Frames > MaxFrames {
		return nil, fmt.Errorf("%d frames: at most %d are simulated", opt.Frames, MaxFrames)
	}
	if opt.Policy == "" {
		opt.Policy = "equalizer"
	}
	if opt.Policy != "equalizer" && opt.Policy != "adaptive" {
		return nil, fmt.Errorf("unknown policy %q (equalizer or adaptive)", opt.Policy)
	}
	if sc.Sessions {
		return runSessions(configName, sc, opt), nil
	}
	if opt.Layout != "" {
		if err := cfg.ActivateLayout(opt.Layout); err != nil {
			return nil, fmt.Errorf("layout %s: %w", opt.Layout, err)
		}
	}
	balanced, sources := Balanced(cfg)
	if balanced == nil {
		return nil, nothingToBalance(cfg, configName)
	}
	if dest := balanced.Destination(); opt.Layout != "" && dest != nil && !dest.Channel.Showing() {
		return nil, fmt.Errorf("layout %s of %s balances nothing: it balances %s", opt.Layout, configName, byLayout(cfg, balancedCompounds(cfg), "eqserver simulate"))
	}
	show(cfg, balanced)
	setPolicy(balanced, opt.Policy)
	p := planner.New(cfg)
	db := p.Load(balanced).Params.Mode == compound.SplitDB
	rng := rand.New(rand.NewSource(opt.Seed + 1))
	field := newField(sc, db)
	prevRange := map[string]compound.Range{}
	// a source's time: the cost field over what it was planned, at its
	// speed, plus overhead and moving data
	own, ownFrame := make([]float64, len(sources)), -1
	firstServed := make([]int, (len(sources)+1)/2) // shared-rasterizer: per pair, 0 or 1
	work := func(f, i int, src *compound.Compound, state planner.CompoundState) stats.Record {
		if i == 0 {
			field.advance(f)
		}
		if ownFrame != f {
			// every source's own work this frame, in source order
			states := p.Planned(f)
			for j, s := range sources {
				if st := states[s.Path()]; st.Active && !st.Skip {
					own[j] = field.cost(st.Viewport, st.Range) / sc.speed(j, f, rng) * sc.burst(j, f, opt.Seed)
				} else {
					own[j] = 0
				}
			}
			if sc.SharedRasterizer {
				// a coin per pair and frame says which one is served first
				for pair := range firstServed {
					firstServed[pair] = rand.New(rand.NewSource(int64(f)*7919 + int64(pair))).Intn(2)
				}
			}
			ownFrame = f
		}
		draw := own[i]
		if sibling := i ^ 1; sibling < len(sources) {
			switch {
			case sc.SharedCores:
				draw += math.Min(own[i], own[sibling])
			case sc.SharedRasterizer && i%2 != firstServed[i/2]:
				draw += own[sibling]
			}
		}
		var dataLoad, gained float64
		if db && sc.MoveCost > 0 {
			if prev, ok := prevRange[src.Path()]; ok {
				gained = (state.Range.End - state.Range.Start) - overlap(prev, state.Range)
				dataLoad = gained * sc.MoveCost
			}
			prevRange[src.Path()] = state.Range
		}
		rec := stats.Record{Frame: f, Compound: src.Path(), Channel: src.Channel.ID, Viewport: state.Viewport, Range: state.Range,
			Times:     stats.Times{Clear: dur(sc.Overhead / 2), ReadbackSync: dur(sc.Overhead / 2), Draw: dur(draw), DataLoad: dur(dataLoad)},
			DataMoved: gained}
		if sc.SharedCores || sc.SharedRasterizer {
			// the pair's renderer, as a live client names its node's
			// software rasterizer
			rec.Renderer = fmt.Sprintf("pair %d software", i/2)
		}
		return rec
	}
	sum := &Summary{Config: configName, Scenario: opt.Scenario, Policy: opt.Policy, Frames: opt.Frames}
	if _, err := drive(cfg, p, balanced, sources, db, opt.Frames, sum, work, nil, false); err != nil {
		return nil, err
	}
	sum.convergence(sc.StepFrame)
	return sum, nil
}

// setPolicy makes the balanced compound's equalizers use a policy.
func setPolicy(balanced *compound.Compound, policy string) {
	for _, eq := range balanced.Equalizers {
		if eq.Kind.Splits() {
			eq.Adaptive = policy == "adaptive"
		}
	}
}

// drive runs frames through the live scheduler and planner, the workload
// giving each active source's statistics for what it was planned (an
// idle time makes a source's whole frame time the sum of its busy times).
// down, when not nil, gives the channels each frame is planned without,
// as a recorded run planned it; they are no capacity left idle either.
// With keep, it returns every statistic the workload gave, in frame order.
func drive(cfg *compound.Config, p *planner.Planner, balanced *compound.Compound, sources []*compound.Compound, db bool, frames int,
	sum *Summary, work func(f, i int, src *compound.Compound, state planner.CompoundState) stats.Record,
	down func(frame int) map[*compound.Channel]bool, keep bool) ([]stats.Record, error) {
	load := p.Load(balanced)
	var planned scheduler.Planner = p
	if down != nil {
		planned = &plannedWithout{Planner: p, downAt: down, down: map[*compound.Channel]bool{}}
	}
	var frameTimes []float64
	var given []stats.Record
	busyTotal, capacity, moved := 0.0, 0.0, 0.0

	// The same scheduler as a live run decides when frames start; the
	// simulator is its cluster. It reports a frame done only when the
	// scheduler has nothing more to start, so statistics reach the
	// planner latency+1 frames late, as they do live. Frames overlap by
	// the latency, as live: each renderer works through its frames in
	// order, starting one when its tasks come or when it finishes the one
	// before, whichever is later, and a frame completes when its last
	// renderer finishes. A renderer that gets ahead of the others waits
	// only once the frame it would start next has not started yet: an
	// imbalance that changes sign from frame to frame is taken up by the
	// frames in flight, and one that lasts is not. (Timed as if each frame
	// started when the one before completed, the adaptive policy looked
	// faster than Equalizer's where live it was not: docs/equalizers.md,
	// "Frames in flight".)
	sched := scheduler.New(cfg, planned, scheduler.Options{Frames: frames, FrameTimeout: 1e6 * time.Second, Liveness: 1e6 * time.Second})
	now := time.Unix(0, 0)
	sched.Step(scheduler.Tick{Now: now})
	for _, id := range sched.Nodes() {
		sched.Step(scheduler.Join{Node: id})
	}
	type inFlight struct {
		frame   int
		nodes   []string
		records []stats.Record
		units   int       // renderers it could have kept busy
		done    float64   // when its last renderer finishes (s)
		finish  []float64 // when each record's renderer finishes it (s)
	}
	var held []inFlight
	// when each renderer finishes the frames it has, and when the last
	// frame completed (s)
	free := map[string]float64{}
	completed := 0.0
	unseen := 0 // the first frame not started yet
	channelNode := map[string]string{}
	for !sched.Finished() {
		for sched.HasReady() {
			rd := sched.Ready()
			sched.Advance()
			if rd.Failure != "" {
				return nil, fmt.Errorf("simulation: %s", rd.Failure)
			}
			for _, w := range rd.Work {
				if w.Frame >= unseen { // frames start in order
					unseen = w.Frame + 1
					// the frame's costs, from what was planned for it
					f := w.Frame
					states := p.Planned(f)
					var recs []stats.Record
					var times []float64
					var renderers []string
					for i, src := range sources {
						state := states[src.Path()]
						if !state.Active || state.Skip {
							continue
						}
						r := work(f, i, src, state)
						recs = append(recs, r)
						times = append(times, (r.Times.Busy() + r.Times.ReadbackAsync).Seconds())
						renderers = append(renderers, r.Renderer)
					}
					if keep {
						given = append(given, recs...)
					}
					// balance is measured over what runs in parallel: sources
					// sharing a renderer are one (see stats.ByRenderer), and
					// idle sources leave capacity unused
					units := stats.ByRenderer(renderers, times)
					idle := len(sources) - len(recs)
					if down != nil {
						gone := down(f)
						for _, src := range sources {
							if gone[src.Channel] {
								idle--
							}
						}
						idle = max(idle, 0)
					}
					ft, mean := 0.0, 0.0
					for _, t := range units {
						ft = math.Max(ft, t)
						mean += t
					}
					imb := 1.0
					if len(units) > 0 && mean > 0 {
						mean /= float64(len(units))
						imb = ft / mean
						busyTotal += mean * float64(len(units))
					}
					moved += load.DataMoved
					sum.Series = append(sum.Series, FrameSample{Imbalance: imb, Splits: splitsOf(states, sources, db), Moved: load.DataMoved})
					done, finish := renderersDone(free, recs, times, completed)
					held = append(held, inFlight{frame: f, records: recs, units: len(units) + idle, done: done, finish: finish})
				}
				for _, cp := range w.Channels {
					channelNode[cp.Channel.ID] = w.Node
				}
				for k := range held {
					if held[k].frame == w.Frame {
						held[k].nodes = append(held[k].nodes, w.Node)
					}
				}
			}
		}
		if len(held) == 0 {
			if sched.Finished() {
				break
			}
			return nil, fmt.Errorf("simulation: the scheduler started nothing (frame %d of %d)", sched.Completed(), frames)
		}
		// the oldest frame in flight completes: its statistics go back
		h := held[0]
		held = held[1:]
		at := math.Max(h.done, completed)
		ft := at - completed
		completed = at
		now = time.Unix(0, 0).Add(dur(at))
		frameTimes = append(frameTimes, ft)
		sum.Series[len(frameTimes)-1].FrameTime = ft
		capacity += ft * float64(h.units)
		sched.Step(scheduler.Tick{Now: now})
		// each node reports its records, done when its last renderer
		// finishes the frame
		byNode := map[string][]stats.Record{}
		nodeDone := map[string]float64{}
		for i, r := range h.records {
			n := channelNode[r.Channel]
			byNode[n] = append(byNode[n], r)
			nodeDone[n] = math.Max(nodeDone[n], h.finish[i])
		}
		for _, node := range h.nodes {
			d := scheduler.Done{Node: node, Frame: h.frame, At: now, Records: byNode[node]}
			if t, ok := nodeDone[node]; ok {
				d.At = time.Unix(0, 0).Add(dur(t))
			}
			delete(byNode, node)
			sched.Step(d)
		}
		if len(byNode) > 0 {
			return nil, fmt.Errorf("simulation: frame %d has records of channels no node had work for", h.frame)
		}
		// as the live server's loop does after the messages it took: the
		// frame that completion lets start starts now
		sched.Step(scheduler.Tick{Now: now})
	}
	if busyTotal == 0 {
		// a summary of zeros would read as a perfect balance
		return nil, fmt.Errorf("simulation: the sources of compound %s drew nothing in %d frames", balanced.Path(), frames)
	}
	sum.finish(frameTimes, busyTotal, capacity, moved, db)
	return given, nil
}

func dur(s float64) time.Duration { return time.Duration(s * 1e9) }

// plannedWithout plans each frame without the channels a recorded run
// planned it without (a pipe not set up, a node lost), as the live
// scheduler's SetChannelDown did.
type plannedWithout struct {
	*planner.Planner
	downAt func(frame int) map[*compound.Channel]bool
	down   map[*compound.Channel]bool
}

func (p *plannedWithout) Plan(frame int) *planner.FramePlan {
	want := p.downAt(frame)
	for ch := range p.down {
		if !want[ch] {
			p.Planner.SetChannelDown(ch, false)
			delete(p.down, ch)
		}
	}
	for ch := range want {
		if !p.down[ch] {
			p.Planner.SetChannelDown(ch, true)
			p.down[ch] = true
		}
	}
	return p.Planner.Plan(frame)
}

// renderersDone starts a frame's work on each renderer (sources sharing
// one are one; see stats.ByRenderer) when its tasks come at now or when it
// finishes its frame before, and returns when the last one finishes, and
// when each record's renderer does.
func renderersDone(free map[string]float64, recs []stats.Record, times []float64, now float64) (float64, []float64) {
	took := map[string]float64{}
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = r.Renderer
		if keys[i] == "" {
			keys[i] = r.Compound
		}
		took[keys[i]] = math.Max(took[keys[i]], times[i])
	}
	done := now
	for key, t := range took {
		free[key] = math.Max(free[key], now) + t
		done = math.Max(done, free[key])
	}
	finish := make([]float64, len(recs))
	for i, key := range keys {
		finish[i] = free[key]
	}
	return done, finish
}

func overlap(a, b compound.Range) float64 {
	return math.Max(0, math.Min(a.End, b.End)-math.Max(a.Start, b.Start))
}

// Balanced returns the compound a simulation balances, and its children
// (the sources): the first compound with a load or tree equalizer that
// draws in a layout shown as the config starts, else the first that
// draws in any layout (which the simulation shows). It is nil where none
// draws: a compound of eye CYCLOP on a stereo view draws no eye its view
// shows.
func Balanced(cfg *compound.Config) (*compound.Compound, []*compound.Compound) {
	all := balancedCompounds(cfg)
	for _, c := range all {
		if dest := c.Destination(); dest == nil || dest.Channel.Showing() {
			return c, c.Children
		}
	}
	if len(all) > 0 {
		return all[0], all[0].Children
	}
	return nil, nil
}

// balancedCompounds are the config's compounds with a load or tree
// equalizer that draw an eye their destination shows, in config order.
func balancedCompounds(cfg *compound.Config) []*compound.Compound {
	var out []*compound.Compound
	cfg.Walk(func(c *compound.Compound) {
		if balances(c) && drawsAnEye(c) {
			out = append(out, c)
		}
	})
	return out
}

func balances(c *compound.Compound) bool {
	for _, eq := range c.Equalizers {
		if eq.Kind.Splits() {
			return true
		}
	}
	return false
}

func drawsAnEye(c *compound.Compound) bool {
	if dest := c.Destination(); dest != nil {
		return c.Eyes&dest.DestinationEyes() != 0
	}
	return c.Eyes != 0
}

// show makes the canvases show the layout of c's destination, where the
// config starts in another one.
func show(cfg *compound.Config, c *compound.Compound) {
	dest := c.Destination()
	if dest == nil || dest.Channel.Showing() || dest.Channel.View == nil {
		return
	}
	for cv, i := range cfg.LayoutIndexes(dest.Channel.View.Layout) {
		cv.ActiveLayout = i
	}
}

// nothingToBalance says why cfg has no compound to balance.
func nothingToBalance(cfg *compound.Config, configName string) error {
	var undrawn []string
	cfg.Walk(func(c *compound.Compound) {
		if balances(c) {
			undrawn = append(undrawn, c.Path())
		}
	})
	if len(undrawn) == 0 {
		return fmt.Errorf("config %s has no load_equalizer compound to balance", configName)
	}
	which := "compound " + undrawn[0] + " draws"
	if len(undrawn) > 1 {
		which = "compounds " + strings.Join(undrawn, ", ") + " draw"
	}
	return fmt.Errorf("config %s has no load-balanced compound that draws: %s no eye its view shows (a compound of eye CYCLOP on a stereo view), so there is nothing to balance", configName, which)
}

// layoutOf is what `--layout` takes to show c's destination: its
// layout's name, or its index in the config where it has none; "" where
// c is on no layout.
func layoutOf(cfg *compound.Config, c *compound.Compound) string {
	dest := c.Destination()
	if dest == nil || dest.Channel.View == nil || dest.Channel.View.Layout == nil {
		return ""
	}
	l := dest.Channel.View.Layout
	if l.Name != "" {
		return l.Name
	}
	if i := slices.Index(cfg.Layouts, l); i >= 0 {
		return fmt.Sprint(i)
	}
	return ""
}

// splitsOf reports the boundaries between sources: range starts (DB) or
// viewport edges (2D), in [0,1].
func splitsOf(states map[string]planner.CompoundState, sources []*compound.Compound, db bool) []float64 {
	var out []float64
	for i, s := range sources {
		st := states[s.Path()]
		if db {
			if i > 0 {
				out = append(out, st.Range.Start)
			}
			continue
		}
		out = append(out, st.Viewport.X, st.Viewport.Y)
	}
	return out
}

func (s *Summary) finish(ft []float64, busy, capacity, moved float64, db bool) {
	n := len(ft)
	sorted := append([]float64{}, ft...)
	sort.Float64s(sorted)
	total := 0.0
	for _, t := range ft {
		total += t
	}
	s.FrameTimeMean = total / float64(n)
	s.FrameTimeP95 = Percentile(sorted, 0.95)
	s.FrameTimeP99 = Percentile(sorted, 0.99)
	imb := 0.0
	for _, fs := range s.Series {
		imb += fs.Imbalance
	}
	s.ImbalanceMean = imb / float64(n)
	if capacity > 0 {
		s.Efficiency = busy / capacity
	}
	s.DataMoved = moved / float64(n)
	if db {
		s.DataMoved = moved / float64(n)
	} else {
		s.DataMoved = 0
	}
	// jitter: std of each split position over the steady second half,
	// averaged over splits, in percent of the viewport or range
	half := s.Series[n/2:]
	if len(half) > 1 && len(half[0].Splits) > 0 {
		j := 0.0
		for k := range half[0].Splits {
			mean, sq := 0.0, 0.0
			for _, fs := range half {
				mean += fs.Splits[k]
			}
			mean /= float64(len(half))
			for _, fs := range half {
				sq += (fs.Splits[k] - mean) * (fs.Splits[k] - mean)
			}
			j += math.Sqrt(sq / float64(len(half)))
		}
		s.JitterPct = 100 * j / float64(len(half[0].Splits))
	}
}

// convergence counts the frames after a step in the workload until the
// imbalance is within 5% (-1: never; 0: no step).
func (s *Summary) convergence(step int) {
	s.ConvergeFrames = 0
	if step > 0 {
		s.ConvergeFrames = -1
		for f := step; f < len(s.Series); f++ {
			if s.Series[f].Imbalance <= 1.05 {
				s.ConvergeFrames = f - step
				break
			}
		}
	}
}

// Percentile is the p-quantile of sorted values (the smallest with at least
// a fraction p at or below it).
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// ---- sessions -----------------------------------------------------------------

// runSessions compares session placement on a pool of 4 pipes: sessions
// (views or applications) arrive, render for a while and leave; a pipe's
// frame time is the sum of its sessions' costs, plus set-up time for a
// session's first frames there. Least-loaded placement with session cost
// (adaptive) against round-robin (equalizer), judged by p95/p99 frame time.
func runSessions(configName string, sc *Scenario, opt Options) *Summary {
	const pipes = 4
	rng := rand.New(rand.NewSource(opt.Seed + 7))
	type session struct {
		id         string
		cost       float64
		start, end int
		pipe       int
	}
	var place func(string, float64) int
	var release func(string)
	if opt.Policy == "adaptive" {
		pl := equalizer.NewPlacer(pipes)
		place, release = pl.Place, pl.Release
	} else {
		rr := equalizer.NewRoundRobin(pipes)
		place, release = rr.Place, rr.Release
	}
	var live []*session
	var all []float64
	sum := &Summary{Config: configName, Scenario: opt.Scenario, Policy: opt.Policy, Frames: opt.Frames}
	busy, capacity := 0.0, 0.0
	next := 0
	for f := 0; f < opt.Frames; f++ {
		// arrivals: about one session every 4 frames, heavy-tailed costs
		for rng.Float64() < 0.25 {
			cost := 0.002 * math.Exp(rng.NormFloat64()*0.9)
			s := &session{id: fmt.Sprintf("s%d", next), cost: cost, start: f, end: f + 40 + rng.Intn(160)}
			next++
			s.pipe = place(s.id, cost)
			live = append(live, s)
		}
		load := make([]float64, pipes)
		for _, s := range live {
			c := s.cost
			if f-s.start < 3 {
				c += 0.004 // session set-up on the pipe
			}
			load[s.pipe] += c
		}
		maxLoad, total := 0.0, 0.0
		for _, l := range load {
			maxLoad = math.Max(maxLoad, l)
			total += l
		}
		for _, s := range live {
			all = append(all, load[s.pipe])
		}
		mean := total / pipes
		imb := 1.0
		if mean > 0 {
			imb = maxLoad / mean
		}
		busy += total
		capacity += maxLoad * pipes
		sum.Series = append(sum.Series, FrameSample{FrameTime: maxLoad, Imbalance: imb})
		kept := live[:0]
		for _, s := range live {
			if f >= s.end {
				release(s.id)
				continue
			}
			kept = append(kept, s)
		}
		live = kept
	}
	sort.Float64s(all)
	t := 0.0
	for _, v := range all {
		t += v
	}
	if len(all) > 0 {
		sum.FrameTimeMean = t / float64(len(all))
	}
	sum.FrameTimeP95 = Percentile(all, 0.95)
	sum.FrameTimeP99 = Percentile(all, 0.99)
	imb := 0.0
	for _, fs := range sum.Series {
		imb += fs.Imbalance
	}
	sum.ImbalanceMean = imb / float64(len(sum.Series))
	if capacity > 0 {
		sum.Efficiency = busy / capacity
	}
	return sum
}
