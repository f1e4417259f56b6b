package scheduler

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

func load(t testing.TB, path string) *compound.Config {
	t.Helper()
	m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

func example(name string) string { return filepath.Join("..", "..", "examples", "configs", name) }
func corpus(name string) string  { return filepath.Join("..", "..", "..", "shared", "eqc-corpus", name) }

// withLatency loads a config and sets its latency.
func withLatency(t *testing.T, path string, latency int) *compound.Config {
	cfg := load(t, path)
	cfg.Latency = latency
	return cfg
}

// frameKey names one output frame instance: what a consumer waits for.
type frameKey struct {
	frame    int
	eye      int
	name     string
	producer string
}

// fakeCluster runs the scheduler's work in memory: each node executes its
// channels' tasks in plan order, a readback makes its output available to
// consumers, and an assemble blocks until its inputs are available or
// abandoned. Time advances by step on every round.
type fakeCluster struct {
	t     *testing.T
	s     *Scheduler
	cfg   *compound.Config
	now   time.Time
	step  time.Duration
	nodes map[string]*fakeNode
	// produced output frames, and abandoned producers per frame
	produced  map[frameKey]bool
	abandoned map[int]map[string]bool
	repairs   []Repair
	redrawing []*redrawing // repairs not yet drawn to their end
	// laterMirrors are the grants for feeders handed after their repair
	laterMirrors []Grant
	// lostOnce are the nodes lost during the run, rejoined since or not
	lostOnce map[string]bool
	tiles    map[string][]int // queue -> item indexes handed out
	// handed are the items each channel was handed, by pullKey
	handed    map[pullKey][]int
	completed []Completed
	failure   string
	finished  bool
	starts    map[int]time.Time
	sent      []Work // every work the scheduler gave out
	// maxInflight is the most frames started but not completed
	maxInflight int
	log         []string
	slow        []string // Ready.Slow, in order
	// statistics, when set, changes what a node reports of a frame
	statistics func(node string, frame int, recs []stats.Record) []stats.Record
	// tasks, when set, is shown every channel's plan sent to a node
	tasks func(frame int, cp *planner.ChannelPlan)
}

type fakeNode struct {
	id      string
	work    []Work // in arrival order
	pos     map[string]int
	dead    bool
	silent  bool // alive but never answers (a frame that cannot complete)
	stalled bool // alive, heartbeating, but runs no task (a slow node)
	swaps   map[int]bool
	waiting map[int]bool // at the swap barrier
	pulls   map[pullKey]bool
	emptied map[pullKey]bool // the queue said it is done
	grants  map[pullKey]*Grant
	lastHB  time.Time
	// degraded are the inputs of a frame that never came (abandoned)
	degraded map[int][]string
}

func newFakeNode(id string) *fakeNode {
	return &fakeNode{id: id, pos: map[string]int{}, swaps: map[int]bool{}, waiting: map[int]bool{},
		pulls: map[pullKey]bool{}, emptied: map[pullKey]bool{}, grants: map[pullKey]*Grant{}, degraded: map[int][]string{},
	}
}

// pullKey is a channel's pulls from a queue in a frame.
type pullKey struct {
	frame          int
	channel, queue string
}

// newCluster makes a cluster of the config's nodes, each joined but the
// absent ones, which never do.
func newCluster(t *testing.T, cfg *compound.Config, opt Options, absent ...string) *fakeCluster {
	return newClusterPlanned(t, cfg, planner.New(cfg), opt, absent...)
}

// newClusterPlanned is newCluster with the scheduler's planner given.
func newClusterPlanned(t *testing.T, cfg *compound.Config, p Planner, opt Options, absent ...string) *fakeCluster {
	c := &fakeCluster{t: t, cfg: cfg, now: time.Unix(1000, 0), step: 5 * time.Millisecond, nodes: map[string]*fakeNode{},
		produced: map[frameKey]bool{}, abandoned: map[int]map[string]bool{}, tiles: map[string][]int{}, starts: map[int]time.Time{},
		handed: map[pullKey][]int{}, lostOnce: map[string]bool{}}
	c.s = New(cfg, p, opt)
	c.s.Step(Tick{Now: c.now})
	for _, id := range c.s.Nodes() {
		c.nodes[id] = newFakeNode(id)
		if slices.Contains(absent, id) {
			c.nodes[id].dead = true
			continue
		}
		c.s.Step(Join{Node: id})
	}
	return c
}

// silenceUntilReported makes a node fall silent and runs the cluster until
// the scheduler logs something or fails; it returns how long that took.
func (c *fakeCluster) silenceUntilReported(node string) time.Duration {
	c.nodes[node].silent = true
	silent := c.now
	for len(c.log) == 0 && c.failure == "" {
		c.round()
	}
	return c.now.Sub(silent)
}

// runToEnd drives the cluster until the run ends, and fails the test
// where the run failed or the rounds ran out first.
func (c *fakeCluster) runToEnd(rounds int) {
	c.t.Helper()
	c.run(rounds)
	if c.failure != "" || !c.finished {
		c.t.Fatalf("failure %q, finished %v after %d frames", c.failure, c.finished, len(c.completed))
	}
}

// run drives the cluster until the run ends or rounds run out.
func (c *fakeCluster) run(rounds int) {
	for i := 0; i < rounds && c.failure == "" && !c.finished; i++ {
		c.round()
	}
}

func (c *fakeCluster) round() {
	c.now = c.now.Add(c.step)
	c.s.Step(Tick{Now: c.now})
	c.drain()
	for _, id := range c.s.Nodes() {
		n := c.nodes[id]
		if n.dead || n.silent {
			continue
		}
		if c.now.Sub(n.lastHB) >= 200*time.Millisecond {
			n.lastHB = c.now
			c.s.Step(Progress{Node: id})
		}
		if !n.stalled {
			c.advance(n)
			c.redrawOn(n)
		}
		c.drain()
	}
}

// heartbeatsOnly has every node heartbeat and nothing more, every 100
// ms, until the run fails or d has passed.
func (c *fakeCluster) heartbeatsOnly(d time.Duration) {
	from := c.now
	for c.failure == "" && c.now.Sub(from) < d {
		c.now = c.now.Add(100 * time.Millisecond)
		for _, id := range c.s.Nodes() {
			c.s.Step(Progress{Node: id})
		}
		c.s.Step(Tick{Now: c.now})
		c.drain()
	}
}

// inRunOrder is w with each channel's tasks in the order an executor runs
// them (planner.SortForRun): in plan order, a channel that is a
// destination and draws for other windows' trees finished a circle of
// waits that the executor never does.
func inRunOrder(w Work) Work {
	run := w
	run.Channels = make([]*planner.ChannelPlan, len(w.Channels))
	for i, cp := range w.Channels {
		sorted := *cp
		sorted.Tasks = slices.Clone(cp.Tasks)
		planner.SortForRun(sorted.Tasks)
		run.Channels[i] = &sorted
	}
	return run
}

func (c *fakeCluster) drain() {
	for c.s.HasReady() {
		rd := c.s.Ready()
		c.s.Advance()
		for _, w := range rd.Work {
			c.starts[w.Frame] = c.now
			c.sent = append(c.sent, w)
			c.nodes[w.Node].work = append(c.nodes[w.Node].work, inRunOrder(w))
			for _, ch := range w.Channels {
				if c.s.NodeOf(ch.Channel.ID) != w.Node {
					c.t.Errorf("frame %d: channel %s sent to node %s", w.Frame, ch.Channel.ID, w.Node)
				}
				if c.tasks != nil {
					c.tasks(w.Frame, ch)
				}
			}
		}
		for _, sw := range rd.Swaps {
			c.nodes[sw.Node].swaps[sw.Frame] = true
		}
		for _, a := range rd.Abandons {
			if c.abandoned[a.Frame] == nil {
				c.abandoned[a.Frame] = map[string]bool{}
			}
			for _, p := range a.Producers {
				c.abandoned[a.Frame][p] = true
			}
		}
		type framePipe struct {
			frame int
			pipe  *compound.Pipe
		}
		// one repair a pipe for each node lost (nodes that fall silent
		// together are lost in one pass)
		pipes := map[framePipe]int{}
		for _, r := range rd.Repairs {
			// the stand-in draws the lost part and hands it to itself
			c.repairs = append(c.repairs, r)
			if len(r.For) > 0 {
				at := framePipe{r.Frame, c.s.channels[r.For[0]].Window.Pipe}
				if pipes[at]++; pipes[at] > max(1, len(rd.Lost)) {
					c.t.Errorf("frame %d: two repairs at once on the pipe of %v: each would draw its feeders, and wait for the lost parts the other draws", r.Frame, names(c, r.For))
				}
			}
			for _, ch := range r.For {
				if c.s.NodeOf(ch) != r.Node {
					c.t.Errorf("frame %d: a repair for channel %s on node %s", r.Frame, ch, r.Node)
				}
			}
			rd := newRedrawing(r)
			c.redrawing = append(c.redrawing, rd)
			for _, g := range r.Grants {
				if g.Repair { // this repair's alone
					items := make([]int, len(g.Tiles)+len(g.Ranges))
					for i := range items {
						items[i] = g.First + i
					}
					rd.read(pullKey{g.Frame, g.Channel, g.Queue}, items, g.Done)
				} else {
					c.grant([]Grant{g}, false)
				}
			}
		}
		c.grant(rd.Grants, true)
		for _, g := range rd.Grants {
			if g.Repair {
				c.laterMirrors = append(c.laterMirrors, g)
			}
		}
		c.completed = append(c.completed, rd.Completed...)
		c.slow = append(c.slow, rd.Slow...)
		for _, l := range rd.Lost {
			c.log = append(c.log, fmt.Sprintf("lost %s: %s", l.Node, l.Reason))
			c.lostOnce[l.Node] = true // killed, or silent until lost
		}
		if rd.Failure != "" {
			c.failure = rd.Failure
		}
		c.finished = c.finished || rd.Finished
		inflight := c.s.Started() - c.s.Completed()
		c.maxInflight = max(c.maxInflight, inflight)
	}
}

// grant hands tile queue items to the node they are for: to the channel
// that pulled them (or its stand-in), or to a repair's feeder that draws
// them again. They are handed out now, or again with a repair.
func (c *fakeCluster) grant(gs []Grant, now bool) {
	for _, g := range gs {
		n := c.nodes[g.Node]
		k := pullKey{g.Frame, g.Channel, g.Queue}
		items := make([]int, len(g.Tiles)+len(g.Ranges))
		for i := range items {
			items[i] = g.First + i
		}
		if g.Repair {
			// every repair on the node that reads the channel's items
			for _, rd := range c.redrawing {
				if rd.r.Node == g.Node && rd.r.Frame == g.Frame && rd.reads(g.Channel) {
					rd.read(k, items, g.Done)
				}
			}
			continue
		}
		gc := g
		n.grants[k] = &gc
		if now {
			c.handed[k] = append(c.handed[k], items...)
			c.tiles[g.Queue] = append(c.tiles[g.Queue], items...)
		}
	}
}

// redrawing is a repair's parts in progress, each as far as the frames it
// assembles came from the parts drawn with it (as the pipe does, which
// keeps those apart from its own channels').
type redrawing struct {
	r     Repair
	parts []*planner.ChannelPlan // the feeders first
	next  []int
	local map[repairSent]bool
	done  bool
	// mirrored are the items its parts that read their channel's (Grant.
	// Repair) were handed, and whether the queue said it is done
	mirrored map[pullKey][]int
	mirrorOf map[pullKey]bool
}

// reads says whether a part of the repair reads a channel's items: a
// feeder, or a lost part in Reading.
func (rd *redrawing) reads(channel string) bool {
	return slices.ContainsFunc(rd.r.Feeders, func(cp *planner.ChannelPlan) bool { return cp.Channel.ID == channel }) ||
		slices.Contains(rd.r.Reading, channel)
}

func (rd *redrawing) read(k pullKey, items []int, done bool) {
	rd.mirrored[k] = append(rd.mirrored[k], items...)
	rd.mirrorOf[k] = rd.mirrorOf[k] || done
}

type repairSent struct {
	eye                      int
	name, producer, consumer string
}

func newRedrawing(r Repair) *redrawing {
	parts := slices.Concat(r.Feeders, r.Plans)
	return &redrawing{r: r, parts: parts, next: make([]int, len(parts)), local: map[repairSent]bool{},
		mirrored: map[pullKey][]int{}, mirrorOf: map[pullKey]bool{}}
}

// redrawOn runs the repairs on a node as far as they can go: a part that
// waits for a frame none of them sends leaves the rest of its own unsent,
// and its consumers wait. A lost part's stand-in pulls its tiles on; a
// feeder pulls none, and draws what its live channel is handed (Grant.
// Repair), the same items, as does a lost part drawn on several pipes
// (Repair.Reading), all of its queues' items handed with the repair. What a lost part sends the channels the repair
// is for reaches them; the rest goes nowhere else.
func (c *fakeCluster) redrawOn(n *fakeNode) {
	for _, rd := range c.redrawing {
		if rd.r.Node != n.id || rd.done {
			continue
		}
		r := rd.r
		for progressed := true; progressed; {
			progressed = false
			for i, cp := range rd.parts {
				feeder := i < len(r.Feeders)
				reads := feeder || slices.Contains(r.Reading, cp.Channel.ID)
				for ; rd.next[i] < len(cp.Tasks); rd.next[i]++ {
					t := cp.Tasks[rd.next[i]]
					if slices.ContainsFunc(t.Inputs, func(in planner.Input) bool {
						return slices.ContainsFunc(in.Producers, func(p string) bool { return !rd.local[repairSent{t.Eye, in.Name, p, cp.Channel.ID}] })
					}) {
						break
					}
					if t.Queue != "" {
						k := pullKey{r.Frame, cp.Channel.ID, t.Queue}
						if !reads && !c.pullTiles(n, r.Frame, cp.Channel.ID, t.Queue) {
							break
						}
						if reads {
							if !rd.mirrorOf[k] {
								break
							}
							want := c.handed[k]
							if !feeder || c.lostOnce[c.s.NodeOf(cp.Channel.ID)] {
								// a lost part's items, and the rest of the
								// queue, as the scheduler handed them (a
								// feeder's channel lost after its repair
								// is handed the rest too, and a rejoined
								// one pulls nothing of the frame)
								want = nil
								f := c.s.inflight[r.Frame]
								if f == nil {
									c.t.Fatalf("frame %d: a repair runs after the frame completed", r.Frame)
								}
								for _, g := range f.queues[t.Queue].given[cp.Channel.ID] {
									for i := range len(g.Tiles) + len(g.Ranges) {
										want = append(want, g.First+i)
									}
								}
							}
							got, want := slices.Sorted(slices.Values(rd.mirrored[k])), slices.Sorted(slices.Values(want))
							if !slices.Equal(got, want) {
								c.t.Errorf("frame %d: the part of %s drawn again on node %s drew items %v of queue %s, which handed it %v", r.Frame, cp.Channel.ID, n.id, got, t.Queue, want)
							}
						}
					}
					for _, o := range t.Outputs {
						for _, to := range o.Consumers {
							rd.local[repairSent{t.Eye, o.Name, cp.Channel.ID, to}] = true
							if !feeder && slices.Contains(r.For, to) {
								c.produced[frameKey{r.Frame, t.Eye, o.Name, cp.Channel.ID}] = true
							}
						}
					}
					progressed = true
				}
			}
		}
		rd.done = true
		for i, cp := range rd.parts {
			rd.done = rd.done && rd.next[i] == len(cp.Tasks)
		}
	}
}

// advance runs a node's oldest frame as far as its inputs allow.
func (c *fakeCluster) advance(n *fakeNode) {
	if len(n.work) == 0 {
		return
	}
	w := n.work[0]
	if len(n.work) > 1 && n.work[1].Frame <= w.Frame {
		c.t.Fatalf("node %s got frame %d after frame %d", n.id, n.work[1].Frame, w.Frame)
	}
	finished, dest := true, false
	for i, cp := range w.Channels {
		key := fmt.Sprintf("%d/%d", w.Frame, i) // a stand-in's aside plan is on its channel too
		for n.pos[key] < len(cp.Tasks) {
			t := cp.Tasks[n.pos[key]]
			if !c.run1(n, w.Frame, cp.Channel.ID, t) {
				break
			}
			n.pos[key]++
		}
		if n.pos[key] < len(cp.Tasks) {
			finished = false
		}
		dest = dest || c.s.isDestination(cp)
	}
	if !finished {
		return
	}
	if dest && c.s.SwapBarrier(w.Frame) && !n.swaps[w.Frame] {
		if !n.waiting[w.Frame] {
			n.waiting[w.Frame] = true
			c.s.Step(Assembled{Node: n.id, Frame: w.Frame})
		}
		return
	}
	n.work = n.work[1:]
	var recs []stats.Record
	for _, cp := range w.Channels {
		for _, t := range cp.Tasks {
			if t.Kind == planner.Draw {
				recs = append(recs, stats.Record{Frame: w.Frame, Compound: t.Compound, Channel: cp.Channel.ID, Viewport: t.Viewport,
					Range: t.Range, Times: stats.Times{Draw: time.Millisecond}})
			}
		}
	}
	if c.statistics != nil {
		recs = c.statistics(n.id, w.Frame, recs)
	}
	c.s.Step(Done{Node: n.id, Frame: w.Frame, Records: recs, Degraded: n.degraded[w.Frame]})
	delete(n.degraded, w.Frame)
}

// pullTiles pulls a channel's items of a queue until the queue says it is
// done; false while it is not.
func (c *fakeCluster) pullTiles(n *fakeNode, frame int, channel, queue string) bool {
	k := pullKey{frame, channel, queue}
	if n.emptied[k] {
		return true // a channel's second draw from the queue (the executor's tilePull)
	}
	g := n.grants[k]
	if g == nil {
		if !n.pulls[k] {
			n.pulls[k] = true
			c.s.Step(Pull{Node: n.id, Channel: channel, Frame: frame, Queue: queue, Max: 4})
		}
		return false
	}
	delete(n.grants, k)
	if !g.Done {
		c.s.Step(Pull{Node: n.id, Channel: channel, Frame: frame, Queue: queue, Max: 4})
		return false
	}
	n.emptied[k] = true
	return true
}

// run1 executes one task; false when it must wait.
func (c *fakeCluster) run1(n *fakeNode, frame int, channel string, t planner.Task) bool {
	switch t.Kind {
	case planner.Draw:
		if t.Queue != "" {
			if !c.pullTiles(n, frame, channel, t.Queue) {
				return false
			}
			for _, o := range t.Outputs {
				c.produced[frameKey{frame, t.Eye, o.Name, channel}] = true
			}
		}
	case planner.Readback:
		for _, o := range t.Outputs {
			c.produced[frameKey{frame, t.Eye, o.Name, channel}] = true
		}
	case planner.Assemble:
		for _, in := range t.Inputs {
			for _, p := range in.Producers {
				if !c.produced[frameKey{frame, t.Eye, in.Name, p}] && !c.abandoned[frame][p] {
					return false
				}
			}
		}
		for _, in := range t.Inputs {
			for _, p := range in.Producers {
				if !c.produced[frameKey{frame, t.Eye, in.Name, p}] {
					n.degraded[frame] = append(n.degraded[frame], in.Name)
				}
			}
		}
	}
	return true
}

// Frame f+latency+1 never starts before frame f completes, and as many
// frames as the latency allows overlap.
func TestLatencyBoundsFramesInFlight(t *testing.T) {
	for _, latency := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("latency %d", latency), func(t *testing.T) {
			cfg := withLatency(t, example("2d-lb-4.eqc"), latency)
			c := newCluster(t, cfg, Options{Frames: 20})
			c.runToEnd(10000)
			if len(c.completed) != 20 {
				t.Fatalf("%d frames completed", len(c.completed))
			}
			for i, f := range c.completed {
				if f.Frame != i {
					t.Fatalf("completed out of order: %d at %d", f.Frame, i)
				}
				for _, r := range f.Records {
					if r.Frame != f.Frame {
						t.Errorf("frame %d carries a record of frame %d", f.Frame, r.Frame)
					}
				}
				if j := i + latency + 1; j < len(c.completed) && c.completed[j].Started.Before(f.Finished) {
					t.Errorf("frame %d started at %v, before frame %d completed at %v", j, c.completed[j].Started, i, f.Finished)
				}
			}
			if c.maxInflight != latency+1 {
				t.Errorf("at most %d frames in flight, want %d", c.maxInflight, latency+1)
			}
		})
	}
}

// An application drives an open-ended run: frames start only when it
// asks, the run is not over when they are done, and Stop ends it.
func TestRequestedFramesUntilStopped(t *testing.T) {
	c := newCluster(t, withLatency(t, example("2d-lb-4.eqc"), 1), Options{})
	c.run(200)
	if len(c.completed) != 0 || c.finished {
		t.Fatalf("nothing asked: %d frames, finished %v", len(c.completed), c.finished)
	}
	c.s.Step(Request{Frames: 3})
	c.run(2000)
	if len(c.completed) != 3 || c.finished || c.failure != "" {
		t.Fatalf("3 asked: %d frames, finished %v, failure %q", len(c.completed), c.finished, c.failure)
	}
	c.s.Step(Request{Frames: 1})
	c.s.Step(Stop{})
	c.drain()
	c.run(2000)
	if len(c.completed) != 4 || !c.finished {
		t.Fatalf("asked once more, then stopped: %d frames, finished %v", len(c.completed), c.finished)
	}
}

// Stop in the middle of a run of a fixed length (a signal to eqserver):
// the frames in flight complete, no other frame starts, a request after
// it is ignored, and the run finishes.
func TestStopFinishesTheFramesInFlight(t *testing.T) {
	c := newCluster(t, withLatency(t, example("2d-lb-4.eqc"), 1), Options{Frames: 1000})
	for len(c.completed) < 5 {
		c.round()
	}
	started := c.s.Started()
	if started <= len(c.completed) {
		t.Fatalf("no frame in flight to finish: %d started, %d completed", started, len(c.completed))
	}
	c.s.Step(Stop{})
	c.s.Step(Request{Frames: 3})
	c.runToEnd(2000)
	if c.s.Started() != started || len(c.completed) != started {
		t.Errorf("stopped with %d frames started: %d started and %d completed in the end", started, c.s.Started(), len(c.completed))
	}
}

// Destinations on two nodes: neither shows a frame before both assembled
// it, and both are released together.
func TestSwapBarrierAcrossNodes(t *testing.T) {
	cfg := load(t, example("wall-2x2-views.eqc"))
	c := newCluster(t, cfg, Options{Frames: 6})
	// hold one destination node back: the other must wait at the barrier
	slow := "wall-right"
	if c.nodes[slow] == nil {
		t.Fatalf("no node %s in %v", slow, c.s.Nodes())
	}
	c.nodes[slow].silent = true
	c.run(20)
	for _, n := range c.nodes {
		if len(n.swaps) != 0 {
			t.Fatalf("node %s released %v while %s had not assembled", n.id, n.swaps, slow)
		}
	}
	waiting := 0
	for _, n := range c.nodes {
		if n.waiting[0] {
			waiting++
		}
	}
	if waiting == 0 {
		t.Fatal("no destination reached the barrier")
	}
	c.nodes[slow].silent = false
	c.run(10000)
	if c.failure != "" || !c.finished || len(c.completed) != 6 {
		t.Fatalf("failure %q finished %v completed %d", c.failure, c.finished, len(c.completed))
	}
	for f := 0; f < 6; f++ {
		released := 0
		for _, n := range c.nodes {
			if n.swaps[f] {
				released++
			}
		}
		if released != waitingNodes(c, f) {
			t.Errorf("frame %d: %d nodes released, %d waited", f, released, waitingNodes(c, f))
		}
	}
}

func waitingNodes(c *fakeCluster, f int) int {
	n := 0
	for _, x := range c.nodes {
		if x.waiting[f] {
			n++
		}
	}
	return n
}

// render2KilledAfter5 runs frames of cfg until 5 are complete, and then
// kills render2 with frames in flight; it returns the cluster and the
// first frame started after the loss.
func render2KilledAfter5(t *testing.T, cfg *compound.Config, frames int) (*fakeCluster, int) {
	c := newCluster(t, cfg, Options{Frames: frames})
	for len(c.completed) < 5 {
		c.round()
	}
	return c, c.kill("render2")
}

// kill makes a node die with the frames in flight, and tells the
// scheduler; it returns the first frame started after the loss.
func (c *fakeCluster) kill(node string) int {
	c.nodes[node].dead = true
	lostAt := c.s.Started()
	c.s.Step(Lost{Node: node, Reason: "killed"})
	c.drain()
	return lostAt
}

// rejoin brings a lost node back as a new client: it has none of the
// frames in flight.
func (c *fakeCluster) rejoin(node string) {
	c.nodes[node] = newFakeNode(node)
	c.s.Step(Join{Node: node})
	c.drain()
}

// names are channels' names in the config, by their IDs.
func names(c *fakeCluster, ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, c.s.channels[id].Name)
	}
	return out
}

// channelID is the ID of the config's channel of that name.
func channelID(t *testing.T, c *fakeCluster, name string) string {
	t.Helper()
	for _, ch := range c.s.channels {
		if ch.Name == name {
			return ch.ID
		}
	}
	t.Fatalf("no channel %s", name)
	return ""
}

// repairedWhole runs the cluster to the end and fails the test where no
// part was repaired or a frame came out degraded.
func repairedWhole(t *testing.T, c *fakeCluster) {
	t.Helper()
	c.runToEnd(20000)
	if len(c.repairs) == 0 {
		t.Fatal("nothing repaired")
	}
	for _, f := range c.completed {
		if f.Degraded {
			t.Errorf("frame %d is degraded", f.Frame)
		}
	}
}

// A source node lost mid-frame: the destination draws its parts of the
// frames in flight itself (Repair), so no frame lacks them; later frames
// leave its channels out, and the run ends normally.
func TestNodeLostMidFrame(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	c, lostAt := render2KilledAfter5(t, cfg, 30)
	c.run(20000)
	if c.failure != "" || !c.finished || len(c.completed) != 30 {
		t.Fatalf("failure %q finished %v completed %d", c.failure, c.finished, len(c.completed))
	}
	for _, f := range c.completed {
		if f.Degraded {
			t.Errorf("frame %d is degraded", f.Frame)
		}
	}
	repaired := map[int]bool{}
	for _, r := range c.repairs {
		repaired[r.Frame] = true
		if r.Frame >= lostAt || r.Node != "app" {
			t.Errorf("frame %d repaired on node %s; want frames before %d, on app", r.Frame, r.Node, lostAt)
		}
	}
	if len(repaired) == 0 || len(repaired) > cfg.Latency+1 {
		t.Errorf("%d frames repaired, want 1..%d", len(repaired), cfg.Latency+1)
	}
	for _, w := range c.nodes["render2"].work {
		if w.Frame >= lostAt {
			t.Errorf("frame %d sent to the lost node", w.Frame)
		}
	}
	if len(c.log) != 1 || !strings.Contains(c.log[0], "lost render2: killed") {
		t.Errorf("log %v", c.log)
	}
}

// A node lost while frames are in flight has only the parts it had not
// sent drawn again: one that ran ahead of a slow destination (latency 3
// here) had sent all but one of them.
func TestALostNodesUnsentPartsAloneAreRepaired(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	cfg.Latency = 3
	c := newCluster(t, cfg, Options{Frames: 30})
	for len(c.completed) < 5 {
		c.round()
	}
	render2 := c.nodes["render2"]
	c.nodes["app"].stalled = true
	for i := 0; i < 1000 && (len(render2.work) != 1 || c.s.Started()-c.s.Completed() != cfg.Latency+1); i++ {
		c.round()
	}
	if len(render2.work) != 1 || c.s.Started()-c.s.Completed() != cfg.Latency+1 {
		t.Fatalf("render2 has %d frames to do of the %d in flight; want the last one alone", len(render2.work), c.s.Started()-c.s.Completed())
	}
	unsent := render2.work[0].Frame
	render2.dead = true
	c.s.Step(Lost{Node: "render2", Reason: "killed"})
	c.drain()
	c.nodes["app"].stalled = false
	c.runToEnd(20000)
	var repaired []string
	for _, r := range c.repairs {
		for _, cp := range r.Plans {
			repaired = append(repaired, fmt.Sprintf("%d %s", r.Frame, cp.Channel.ID))
		}
	}
	slices.Sort(repaired)
	var want []string
	for id := range c.s.nodes["render2"].channels {
		want = append(want, fmt.Sprintf("%d %s", unsent, id))
	}
	slices.Sort(want)
	if !slices.Equal(repaired, want) {
		t.Errorf("repaired %v; want %v: render2's two channels' parts of the frame it had not sent", repaired, want)
	}
	for _, f := range c.completed {
		if f.Degraded {
			t.Errorf("frame %d is degraded", f.Frame)
		}
	}
}

// A lost node whose pipes composite among themselves before they send
// (src3 assembles src4's half) has both parts drawn again together, on
// the destination, in one repair: src4's frame then goes to src3's part
// drawn there.
func TestALostNodesPartsThatAssembleEachOtherAreRepairedTogether(t *testing.T) {
	cfg := load(t, filepath.Join("testdata", "node-local-assembly.eqc"))
	c, _ := render2KilledAfter5(t, cfg, 20)
	repairedWhole(t, c)
	for _, r := range c.repairs {
		var lost []string
		for _, cp := range r.Plans {
			lost = append(lost, cp.Channel.Name)
		}
		slices.Sort(lost)
		if !slices.Equal(lost, []string{"src3", "src4"}) || !slices.Equal(names(c, r.For), []string{"dest"}) {
			t.Errorf("frame %d: %v repaired for %v; want src3 and src4 together, for dest", r.Frame, lost, names(c, r.For))
		}
	}
}

// A lost source of two destinations on two pipes has its part drawn again
// on each, for its own: one pipe may have finished the frame, with the
// lost node's frame, while the other still waits for it.
func TestALostSourceOfTwoDestinationsIsRepairedForEach(t *testing.T) {
	cfg := load(t, filepath.Join("testdata", "two-destinations.eqc"))
	c, _ := render2KilledAfter5(t, cfg, 20)
	repairedWhole(t, c)
	repairedFor := map[int][]string{}
	for _, r := range c.repairs {
		if len(r.Plans) != 1 || r.Plans[0].Channel.Name != "src3" || len(r.For) != 1 {
			t.Errorf("frame %d: %d parts repaired for %v; want src3's, for one destination", r.Frame, len(r.Plans), names(c, r.For))
		}
		repairedFor[r.Frame] = append(repairedFor[r.Frame], names(c, r.For)...)
	}
	for frame, dests := range repairedFor {
		if slices.Sort(dests); !slices.Equal(dests, []string{"dest", "dest2"}) {
			t.Errorf("frame %d repaired for %v; want dest and dest2, each on its pipe", frame, dests)
		}
	}
}

// A lost part that assembles a live node's frame (which went to the dead
// node) has that node's part drawn again with it: the live channel's
// compound that sends to it, and nothing else of its plan.
func TestALostAssemblyOfALiveNodesFrameIsRepairedWithIt(t *testing.T) {
	cfg := load(t, filepath.Join("testdata", "cross-node-assembly.eqc"))
	c, _ := render2KilledAfter5(t, cfg, 20)
	repairedWhole(t, c)
	for _, r := range c.repairs {
		if len(r.Plans) != 1 || r.Plans[0].Channel.Name != "src3" || len(r.Feeders) != 1 || r.Feeders[0].Channel.Name != "src1" {
			t.Errorf("frame %d: %d parts and %d feeders repaired; want src3's part, fed by src1's", r.Frame, len(r.Plans), len(r.Feeders))
			continue
		}
		for _, task := range r.Feeders[0].Tasks {
			if task.Kind == planner.Readback && !slices.ContainsFunc(task.Outputs, func(o planner.Output) bool { return o.Name == "f1" }) {
				t.Errorf("frame %d: src1's part drawn again reads back more than f1", r.Frame)
			}
		}
	}
}

// A lost source of a sort-last exchange (3-node.DB: goeq's direct send)
// is drawn again on each pipe for what it needs: the other source's pipe
// gets the lost node's draw and its band for it alone, the destination's
// the lost band too, with the others' bands for it drawn again (they went
// to the dead node).
func TestALostExchangeSourceIsRepairedForWhatEachPipeNeeds(t *testing.T) {
	cfg := withLatency(t, corpus("3-node.DB.eqc"), 1)
	c := newCluster(t, cfg, Options{Frames: 12})
	for len(c.completed) < 4 {
		c.round()
	}
	c.kill("node2")
	repairedWhole(t, c)
	for _, r := range c.repairs {
		if len(r.Plans) != 1 {
			t.Fatalf("frame %d: %d lost parts repaired, want node2's one", r.Frame, len(r.Plans))
		}
		lost := r.Plans[0].Tasks
		exchanged := slices.ContainsFunc(lost, func(t planner.Task) bool { return t.Exchange != 0 })
		switch r.Node {
		case "node1":
			// draw and the readback of its bands, no merge
			if !exchanged || lost[len(lost)-1].Exchange != planner.ExchangeFirst || len(r.Feeders) != 0 {
				t.Errorf("frame %d on node1: %d tasks ending %v, %d feeders; want node2's draw and first readback alone", r.Frame, len(lost), lost[len(lost)-1].Exchange, len(r.Feeders))
			}
		case "app":
			if lost[len(lost)-1].Exchange != planner.ExchangeSend || len(r.Feeders) != 2 {
				t.Errorf("frame %d on app: %d tasks ending %v, %d feeders; want node2's whole part, fed by app's and node1's", r.Frame, len(lost), lost[len(lost)-1].Exchange, len(r.Feeders))
			}
			for _, fd := range r.Feeders {
				if slices.ContainsFunc(fd.Tasks, func(t planner.Task) bool { return t.Kind == planner.Assemble }) {
					t.Errorf("frame %d: %s's part drawn again merges its own band", r.Frame, fd.Channel.Name)
				}
			}
		default:
			t.Errorf("frame %d repaired on %s", r.Frame, r.Node)
		}
	}
}

// A lost node's sources of a binary swap (src3 and src4 of four) are drawn
// again on each pipe for what it needs. The destination's pipe gets both
// whole, fed by src1 and src2 up to their round 2 bands for them, which
// hold the halves they swapped in round 1 (drawn again too: feeders that
// feed each other). src1's pipe gets src3 up to its round 2 band for src1
// and src4 up to its round 1 half for src3, and no feeder; src2's the
// same the other way round.
func TestALostBinarySwapSourceIsRepairedWithThePartnersThatFedIt(t *testing.T) {
	cfg := load(t, filepath.Join("testdata", "binary-swap.eqc"))
	c, _ := render2KilledAfter5(t, cfg, 20)
	repairedWhole(t, c)
	type shape struct {
		lost, feeders []string // "name:last step" of each part
	}
	parts := func(cps []*planner.ChannelPlan) []string {
		var out []string
		for _, cp := range cps {
			out = append(out, fmt.Sprintf("%s:%d", cp.Channel.Name, cp.Tasks[len(cp.Tasks)-1].Exchange))
		}
		return out
	}
	send, first := int(planner.ExchangeSend), int(planner.ExchangeFirst)
	want := map[string]shape{
		"dest": {[]string{fmt.Sprintf("src3:%d", send), fmt.Sprintf("src4:%d", send)}, []string{fmt.Sprintf("src1:%d", send), fmt.Sprintf("src2:%d", send)}},
		"src1": {[]string{fmt.Sprintf("src3:%d", send), fmt.Sprintf("src4:%d", first)}, nil},
		"src2": {[]string{fmt.Sprintf("src3:%d", first), fmt.Sprintf("src4:%d", send)}, nil},
	}
	seen := map[string]int{}
	for _, r := range c.repairs {
		for_ := names(c, r.For)
		if len(for_) != 1 {
			t.Fatalf("frame %d: a repair for %v", r.Frame, for_)
		}
		got := shape{parts(r.Plans), parts(r.Feeders)}
		slices.Sort(got.lost)
		slices.Sort(got.feeders)
		if w := want[for_[0]]; !slices.Equal(got.lost, w.lost) || !slices.Equal(got.feeders, w.feeders) {
			t.Errorf("frame %d for %s: lost parts %v fed by %v; want %v fed by %v", r.Frame, for_[0], got.lost, got.feeders, w.lost, w.feeders)
		}
		for _, fd := range r.Feeders {
			if !slices.ContainsFunc(fd.Tasks, func(t planner.Task) bool { return t.Kind == planner.Assemble }) {
				t.Errorf("frame %d: %s's part drawn again does not merge its round 1 half", r.Frame, fd.Channel.Name)
			}
		}
		seen[for_[0]]++
	}
	if seen["dest"] == 0 {
		t.Errorf("repairs %v; want some for dest", seen)
	}
}

// A lost node's sources in two groups of a radix-k's first round (src3 and
// src4 of eight, which send each other nothing) are fed by the same live
// rounds: src7 merges src4's quarter before it sends src3 its half, and
// src0 merges src3's before it sends src4 its own. Each pipe gets one
// repair with both (two, each with its own src7 drawn again, would wait
// for the one src4 drawn again for both).
func TestLostPartsThatFeedEachOtherThroughLiveRoundsAreOneRepair(t *testing.T) {
	cfg := load(t, filepath.Join("testdata", "radix-k.eqc"))
	c, _ := render2KilledAfter5(t, cfg, 20)
	repairedWhole(t, c)
	forDest := 0
	for _, r := range c.repairs {
		if !slices.Equal(names(c, r.For), []string{"dest"}) {
			continue
		}
		forDest++
		var lost, merging []string
		for _, cp := range r.Plans {
			lost = append(lost, cp.Channel.Name)
		}
		for _, fd := range r.Feeders {
			if slices.ContainsFunc(fd.Tasks, func(t planner.Task) bool { return t.Kind == planner.Assemble }) {
				merging = append(merging, fd.Channel.Name)
			}
		}
		if slices.Sort(lost); !slices.Equal(lost, []string{"src3", "src4"}) {
			t.Errorf("frame %d for dest: %v repaired; want src3 and src4 in one repair", r.Frame, lost)
		}
		if slices.Sort(merging); !slices.Equal(merging, []string{"src0", "src7"}) {
			t.Errorf("frame %d for dest: feeders %v merge a round; want src0 and src7", r.Frame, merging)
		}
	}
	if forDest == 0 {
		t.Error("no repair for dest")
	}
}

// A lost part whose own consumer is done with the frame may still be
// needed: src4 (render2) fed src1 (render1), which finished the frame,
// and src3 (render2) waits for src1's frame. src3's part is drawn again
// for the destination with src1's, and src4's with them (it was given up
// when none of its own consumers waited, and the frame came out degraded).
func TestALostPartFedThroughALiveNodeThatFinishedIsDrawnAgain(t *testing.T) {
	cfg := load(t, filepath.Join("testdata", "fed-through-a-live-node.eqc"))
	c := newCluster(t, cfg, Options{Frames: 20})
	for len(c.completed) < 4 {
		c.round()
	}
	src4, render1, render2 := channelID(t, c, "src4"), c.nodes["render1"], c.nodes["render2"]
	frame := c.s.Started() - 1 // the newest, which render2 has not drawn
	sent := func() bool {
		return slices.ContainsFunc(compound.Eyes[:], func(eye int) bool { return c.produced[frameKey{frame, eye, "f4", src4}] })
	}
	for i := 0; i < 1000 && !sent(); i++ {
		c.round()
	}
	render2.stalled = true // with src3 waiting for src1's frame
	for i := 0; i < 1000 && slices.ContainsFunc(render1.work, func(w Work) bool { return w.Frame == frame }); i++ {
		c.round()
	}
	if !sent() || slices.ContainsFunc(render1.work, func(w Work) bool { return w.Frame == frame }) {
		t.Fatalf("frame %d: src4 sent f4 %v, render1 still has it to do", frame, sent())
	}
	render2.dead = true
	c.s.Step(Lost{Node: "render2", Reason: "killed"})
	c.drain()
	repairedWhole(t, c)
	found := false
	for _, r := range c.repairs {
		if r.Frame != frame {
			continue
		}
		var lost, fed []string
		for _, cp := range r.Plans {
			lost = append(lost, cp.Channel.Name)
		}
		for _, cp := range r.Feeders {
			fed = append(fed, cp.Channel.Name)
		}
		slices.Sort(lost)
		if slices.Equal(names(c, r.For), []string{"dest"}) && slices.Equal(lost, []string{"src3", "src4"}) && slices.Equal(fed, []string{"src1"}) {
			found = true
		}
	}
	if !found {
		t.Errorf("frame %d: no repair for dest of src3 and src4, fed by src1", frame)
	}
}

// A lost part that assembles the tiles a live node pulls from a queue:
// the live channel's tiles went to the dead node, so its part is drawn
// again with the lost one, on the same items (the feeder pulls none
// itself: it is handed what the live channel was, and then what it pulls
// on). render2 dies while src1 is still pulling the newest frame's tiles,
// and no frame is degraded.
func TestALostAssemblyOfALiveNodesTilesIsRepairedWithTheSameTiles(t *testing.T) {
	c := newCluster(t, load(t, filepath.Join("testdata", "cross-node-tiles.eqc")), Options{Frames: 30})
	for len(c.completed) < 5 {
		c.round()
	}
	src1 := channelID(t, c, "src1")
	frame := c.s.Started() - 1
	pulling := func() bool {
		for k, items := range c.handed {
			if k.frame == frame && k.channel == src1 && len(items) > 0 {
				return true
			}
		}
		return false
	}
	for i := 0; i < 1000 && !pulling(); i++ {
		c.round()
	}
	if !pulling() {
		t.Fatalf("src1 pulled nothing of frame %d", frame)
	}
	c.kill("render2")
	mirroredAtRepair := 0
	for _, r := range c.repairs {
		for _, g := range r.Grants {
			if g.Repair && g.Channel == src1 && g.Frame == frame {
				mirroredAtRepair++
			}
		}
	}
	repairedWhole(t, c)
	found := false
	for _, r := range c.repairs {
		var lost, fed []string
		for _, cp := range r.Plans {
			lost = append(lost, cp.Channel.Name)
		}
		for _, cp := range r.Feeders {
			fed = append(fed, cp.Channel.Name)
		}
		if r.Frame == frame && slices.Equal(names(c, r.For), []string{"dest"}) && slices.Equal(lost, []string{"src3"}) && slices.Equal(fed, []string{"src1"}) {
			found = true
		}
	}
	if !found {
		t.Errorf("frame %d: no repair for dest of src3, fed by src1", frame)
	}
	// redrawOn checked that the feeder drew what src1 was handed
	mirrored := 0
	for _, rd := range c.redrawing {
		for k, items := range rd.mirrored {
			if k.frame == frame && k.channel == src1 {
				mirrored += len(items)
			}
		}
	}
	if mirroredAtRepair == 0 || mirrored == 0 || !slices.ContainsFunc(c.laterMirrors, func(g Grant) bool { return g.Frame == frame && g.Channel == src1 }) {
		t.Errorf("frame %d: src1's feeder was handed %d grants with the repair and %d items in all; want some then and some as src1 pulled on", frame, mirroredAtRepair, mirrored)
	}
}

// A lost channel that draws a part aside (a column of the pixel
// decomposition it assembles) has both its plans drawn again, the aside
// one on a framebuffer of its own as in the frame, with src1's frame for
// it: no frame is degraded (the part drawn aside stood for the whole
// channel, which was not drawn again).
func TestALostChannelsPartDrawnAsideIsDrawnAgainWithIt(t *testing.T) {
	c, _ := render2KilledAfter5(t, load(t, filepath.Join("testdata", "drawn-aside.eqc")), 20)
	repairedWhole(t, c)
	for _, r := range c.repairs {
		var lost []string
		for _, cp := range r.Plans {
			lost = append(lost, fmt.Sprintf("%s aside %v", cp.Channel.Name, cp.Aside))
		}
		slices.Sort(lost)
		if !slices.Equal(names(c, r.For), []string{"dest"}) || !slices.Equal(lost, []string{"src3 aside false", "src3 aside true"}) ||
			len(r.Feeders) != 1 || r.Feeders[0].Channel.Name != "src1" {
			t.Errorf("frame %d: a repair for %v of %v, fed by %d parts; want one for dest of src3's plan and its plan aside, fed by src1", r.Frame, names(c, r.For), lost, len(r.Feeders))
		}
	}
}

// A lost part that pulls tiles and goes to channels on two pipes is drawn
// again on both. Neither stand-in pulls (two that pulled would share its
// remaining tiles out): the repair hands each every item the lost channel
// was handed, and the rest of its queues (Repair.Reading). One that drew
// what the other pulled, tried first, waited for ever where the other's
// pipe had finished the frame with the lost node's part and dropped its
// repair (random walls that lose their sources found it). No frame is
// degraded; before, the part was given up.
func TestALostPartThatPullsTilesForTwoPipesIsDrawnOnBoth(t *testing.T) {
	c, _ := render2KilledAfter5(t, load(t, filepath.Join("testdata", "tiles-for-two-destinations.eqc")), 30)
	repairedWhole(t, c)
	src3, src4 := channelID(t, c, "src3"), channelID(t, c, "src4")
	for _, r := range c.repairs {
		for _, cp := range r.Plans {
			if (cp.Channel.ID == src3 || cp.Channel.ID == src4) && !slices.Contains(r.Reading, cp.Channel.ID) {
				t.Errorf("frame %d: the repair for %v pulls %s's tiles; want it handed them all", r.Frame, names(c, r.For), cp.Channel.Name)
			}
		}
		// redrawOn checked that each drew all the items
	}
	for _, g := range c.laterMirrors {
		if g.Channel == src3 || g.Channel == src4 {
			t.Errorf("frame %d: %s's items handed after its repair", g.Frame, names(c, []string{g.Channel}))
		}
	}
}

// The render nodes of a tree are lost with frames in flight, one after
// the other (0 to 11 rounds apart, from 4 starts): no frame waits for
// ever, and none is degraded.
//   - render1 pulls the tiles that render2 assembles for the destination,
//     either lost first. With render1 first, render2 draws its parts again
//     and is lost with them: they are lost again, and drawn again by the
//     destination (before, it waited for ever for them). With render2
//     first, the destination draws copies of render1's parts (feeders)
//     that read its tiles as it pulls them; once render1 is lost too, none
//     pulls, and the copies are handed the rest (before, they waited for
//     ever).
//   - render1 draws the samples of a subpixel compound whose assembly
//     goes to render2. Lost, it has the destination stand in for it in two
//     plans aside, one assembling what the other draws. Once render2 is
//     lost too, those plans feed its part drawn again: the assembling one
//     came first in the channel's part, its cut left the other's sample
//     out, and the frames planned after the first loss were degraded.
//   - three render nodes each assemble the next one's picture, and are
//     lost from the innermost out: render3's part, drawn again on render2
//     and then on render1, is lost with render1 too, though render2, an
//     earlier stand-in, is lost already (before, render3's channel was
//     taken for a live one and the destination waited for ever).
func TestNodesLostOneAfterTheOtherAreRepaired(t *testing.T) {
	for _, tc := range []struct {
		config string
		order  []string
	}{
		{"tiles-assembled-on-another-node", []string{"render1", "render2"}},
		{"tiles-assembled-on-another-node", []string{"render2", "render1"}},
		{"samples-drawn-by-a-stand-in", []string{"render1", "render2"}},
		{"assemblies-nested-over-three-nodes", []string{"render3", "render2", "render1"}},
		{"assemblies-nested-over-three-nodes", []string{"render1", "render2", "render3"}},
	} {
		cfg := load(t, filepath.Join("testdata", tc.config+".eqc"))
		order := tc.order
		for apart := range 12 {
			for start := range 4 {
				c := newCluster(t, cfg, Options{Frames: 20})
				for len(c.completed) < 4+start {
					c.round()
				}
				for i, node := range order {
					if i > 0 {
						for range apart {
							c.round()
						}
					}
					c.kill(node)
				}
				c.run(40000)
				degraded := slices.IndexFunc(c.completed, func(f Completed) bool { return f.Degraded })
				if !c.finished || c.failure != "" || degraded >= 0 {
					t.Errorf("%s: %v lost in turn, %d rounds apart (from frame %d): finished %v, failure %q, degraded frame at %d",
						tc.config, order, apart, 4+start, c.finished, c.failure, degraded)
				}
			}
		}
	}
}

// A lost node that pulled tiles has the tiles it was handed drawn again by
// the destination, which pulls on for it: no frame lacks them.
func TestALostNodesQueuedPartsAreRepairedWithTheirTiles(t *testing.T) {
	cfg := load(t, example("tile-4.eqc"))
	c, _ := render2KilledAfter5(t, cfg, 30)
	repairedWhole(t, c)
	granted := 0
	for _, r := range c.repairs {
		granted += len(r.Grants)
		for _, g := range r.Grants {
			if g.Node != r.Node || g.Frame != r.Frame || c.s.NodeOf(g.Channel) != "render2" {
				t.Errorf("frame %d: a grant of %s for frame %d on node %s, with a repair on %s", r.Frame, g.Channel, g.Frame, g.Node, r.Node)
			}
		}
	}
	if granted == 0 {
		t.Error("no tile render2 was handed is drawn again")
	}
}

// Every node of the corpus that shows no destination of the layouts shown
// at the start, lost at latency 1 and 3 with frames in flight: the run
// goes on to its end, and no frame is degraded, the frames in flight
// repaired (the DB compounds' sort-last exchanges, and the direct sends
// and binary swaps written out in frames, too).
func TestEveryCorpusNodeLossIsRepaired(t *testing.T) {
	names, err := filepath.Glob(corpus("*.eqc"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, name := range names {
		base := filepath.Base(name)
		for _, latency := range []int{1, 3} {
			probe := newCluster(t, withLatency(t, name, latency), Options{Frames: 1})
			for _, id := range probe.s.Nodes() {
				if probe.s.shownDestination(probe.s.nodes[id]) != nil {
					continue
				}
				t.Run(fmt.Sprintf("%s/latency-%d/%s", base, latency, id), func(t *testing.T) {
					c := newCluster(t, withLatency(t, name, latency), Options{Frames: 12})
					for i := 0; i < 10000 && len(c.completed) < 4; i++ {
						c.round()
					}
					lostAt := c.kill(id)
					c.runToEnd(40000)
					for _, f := range c.completed {
						if f.Degraded {
							t.Errorf("frame %d is degraded (the loss was at frame %d)", f.Frame, lostAt)
						}
					}
				})
			}
		}
	}
}

// Losing the node that shows the destination fails the run at once.
func TestDestinationLostFailsTheRun(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 30})
	for len(c.completed) < 3 {
		c.round()
	}
	c.s.Step(Lost{Node: "app", Reason: "control stream ended"})
	c.drain()
	if !strings.Contains(c.failure, "node app, which shows the destination, died: control stream ended") {
		t.Fatalf("failure %q", c.failure)
	}
}

// A render node whose client never joins goes out of the run under the
// config's robustness (ON by default, as Equalizer's): the frames start
// without it, whole, and it takes part if it joins later. A node that
// shows the destination, or any node under robustness OFF, fails the run.
func TestARunGoesOnWithoutARenderNodeThatNeverJoins(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 30}, "render2")
	c.run(10)
	if c.s.Started() != 0 || c.s.Joined() {
		t.Fatalf("%d frames started before render2 joined or was given up", c.s.Started())
	}
	c.s.Step(Lost{Node: "render2", Reason: "its client did not connect within 30s"})
	c.drain()
	if len(c.log) != 1 || c.log[0] != "lost render2: its client did not connect within 30s" || c.failure != "" {
		t.Fatalf("log %v, failure %q", c.log, c.failure)
	}
	status := func() NodeStatus {
		return c.s.NodeStatus()[slices.IndexFunc(c.s.NodeStatus(), func(n NodeStatus) bool { return n.Node == "render2" })]
	}
	if st := status(); !st.NeverCame || st.Alive {
		t.Errorf("render2's status %+v, want one that never came (the dashboard showed it joining)", st)
	}
	for len(c.completed) < 10 {
		c.round()
	}
	if len(c.nodes["render2"].work) > 0 {
		t.Errorf("render2 was sent frame %d", c.nodes["render2"].work[0].Frame)
	}
	c.nodes["render2"].dead = false
	joinedAt := c.s.Started()
	c.s.Step(Join{Node: "render2"})
	if st := status(); st.NeverCame || !st.Alive {
		t.Errorf("render2's status %+v once it joined", st)
	}
	c.runToEnd(20000)
	drew := false
	for _, f := range c.completed {
		if f.Degraded {
			t.Errorf("frame %d is degraded", f.Frame)
		}
		for _, r := range f.Records {
			if c.s.NodeOf(r.Channel) == "render2" && f.Frame < joinedAt {
				t.Errorf("frame %d has a record of render2's channel %s before it joined", f.Frame, r.Channel)
			}
			drew = drew || c.s.NodeOf(r.Channel) == "render2"
		}
	}
	if !drew {
		t.Error("render2, joined late, never drew")
	}

	for _, tc := range []struct{ node, robustness, want string }{
		{"app", "ON", "node app did not join: no client"},
		{"render2", "OFF", "node render2 did not join: no client"},
	} {
		cfg := load(t, example("2d-lb-4.eqc"))
		cfg.Robustness = tc.robustness
		c := newCluster(t, cfg, Options{Frames: 30}, tc.node)
		c.s.Step(Lost{Node: tc.node, Reason: "no client"})
		c.drain()
		if c.failure != tc.want || c.s.Started() != 0 {
			t.Errorf("%s under robustness %s: failure %q after %d frames, want %q", tc.node, tc.robustness, c.failure, c.s.Started(), tc.want)
		}
	}
}

// A node that joins without some of its channels (pipes its client could
// not set up) gets no work for them, and the others' frames are whole; a
// later session that sets them up brings them back.
func TestAJoinLeavesOutTheChannelsItCouldNotSetUp(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	c := newCluster(t, cfg, Options{Frames: 40}, "render1")
	ids := map[string]string{}
	for _, ch := range cfg.Channels {
		ids[ch.Label] = ch.ID
	}
	c.nodes["render1"].dead = false
	c.s.Step(Join{Node: "render1", Down: map[string]string{ids["src2"]: "no GPU"}})
	lacks := func() []string {
		return c.s.NodeStatus()[slices.IndexFunc(c.s.NodeStatus(), func(n NodeStatus) bool { return n.Node == "render1" })].Lacks
	}
	if got, want := lacks(), []string{`pipe "gpu2" (no GPU)`}; !slices.Equal(got, want) {
		t.Errorf("render1 lacks %q, want %q", got, want)
	}
	for len(c.completed) < 20 {
		c.round()
	}
	c.s.Step(Lost{Node: "render1", Reason: "restarted"})
	c.s.Step(Join{Node: "render1"})
	if got := lacks(); got != nil {
		t.Errorf("render1, rejoined with every pipe, lacks %q", got)
	}
	backAt := c.s.Started()
	c.runToEnd(20000)
	drew := map[string]int{}
	for _, f := range c.completed {
		if f.Degraded && f.Frame < 20 {
			t.Errorf("frame %d is degraded", f.Frame)
		}
		for _, r := range f.Records {
			if r.Channel == ids["src2"] && f.Frame < 20 {
				t.Errorf("frame %d has a record of src2, which render1 did not set up", f.Frame)
			}
			if f.Frame < 20 || f.Frame > backAt {
				drew[r.Channel]++
			}
		}
	}
	if drew[ids["src1"]] == 0 || drew[ids["src2"]] == 0 {
		t.Errorf("src1 drew %d frames, src2 %d after render1 came back whole; want both", drew[ids["src1"]], drew[ids["src2"]])
	}
}

// A node lost between frames (or before the first) fails the run when it
// shows a destination (the frames after would show nothing there) or when
// the config's robustness is OFF (Equalizer's config then ends with any
// resource); before, the run went on and its next frames lacked the
// destination.
func TestALossBetweenFramesFailsWhereItMust(t *testing.T) {
	for _, tc := range []struct{ node, robustness, want string }{
		{"app", "ON", "node app, which shows the destination, died: gone"},
		{"render2", "OFF", "node render2 died: gone (the config's robustness is OFF"},
		{"render2", "ON", ""},
	} {
		cfg := load(t, example("2d-lb-4.eqc"))
		cfg.Robustness = tc.robustness
		c := newCluster(t, cfg, Options{}) // frames as an application asks for them
		c.s.Step(Request{Frames: 5})
		for i := 0; i < 20000 && len(c.completed) < 5; i++ {
			c.round()
		}
		if len(c.completed) != 5 || c.s.Started() != 5 {
			t.Fatalf("%d frames of 5 completed, %d started", len(c.completed), c.s.Started())
		}
		c.s.Step(Lost{Node: tc.node, Reason: "gone"}) // none in flight
		c.drain()
		if !strings.HasPrefix(c.failure, tc.want) || (tc.want == "") != (c.failure == "") {
			t.Errorf("%s lost under robustness %s: failure %q, want %q", tc.node, tc.robustness, c.failure, tc.want)
		}
	}
	// joined, and lost before the first frame: the frames would start
	// without the destination
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{})
	c.s.Step(Lost{Node: "app", Reason: "gone"})
	c.drain()
	if want := "node app, which shows the destination, died: gone"; c.failure != want {
		t.Errorf("the destination's node lost before the first frame: failure %q, want %q", c.failure, want)
	}
}

// A node that shows a destination only in layouts not shown now is lost
// as any render node is, and the run goes on (an operator's wall whose
// layout leaves the dead projector's segment out); a frame that shows
// such a layout again before the node rejoins fails the run, naming the
// node and the destination, and none is planned dark. So does a node that
// never joined. Before, the run ended with the loss, whatever the layout.
func TestALostNodeShowingOnlyAnotherLayoutIsNotTheEnd(t *testing.T) {
	path := halves(t)
	// and one that never joined while a layout without its destination
	// is shown: the run starts without it
	cfg := load(t, path)
	cfg.Canvases[0].ActiveLayout = 1
	c := newCluster(t, cfg, Options{}, "right")
	c.s.Step(Lost{Node: "right", Reason: "no client"})
	c.drain()
	c.framesIn(t, cfg.Canvases[0], 1, 2)
	c.s.Step(Request{Frames: 1, Layouts: map[*compound.Canvas]int{cfg.Canvases[0]: 0}})
	c.drain()
	if want := `node right was lost (no client), and channel "right" in layout "both", a destination of the layouts shown from frame 2, is on it`; !strings.HasPrefix(c.failure, want) {
		t.Errorf("the right node never joined, and layout \"both\" shown: failure %q, want %q...", c.failure, want)
	}

	for _, rejoin := range []bool{false, true} {
		cfg := load(t, path)
		c := newCluster(t, cfg, Options{})
		c.framesIn(t, cfg.Canvases[0], 0, 2)
		c.framesIn(t, cfg.Canvases[0], 1, 2)
		c.s.Step(Lost{Node: "right", Reason: "gone"})
		c.drain()
		if c.failure != "" {
			t.Fatalf("the right node lost while its segment is dark: %s", c.failure)
		}
		c.framesIn(t, cfg.Canvases[0], 1, 2)
		if rejoin {
			c.s.Step(Join{Node: "right"})
			c.framesIn(t, cfg.Canvases[0], 0, 2)
			continue
		}
		sent := len(c.sent)
		c.s.Step(Request{Frames: 2, Layouts: map[*compound.Canvas]int{cfg.Canvases[0]: 0}})
		c.drain()
		want := `node right was lost (gone), and channel "right" in layout "both", a destination of the layouts shown from frame 6, is on it`
		if !strings.HasPrefix(c.failure, want) {
			t.Errorf("layout \"both\" shown again without the right node: failure %q, want %q...", c.failure, want)
		}
		if len(c.sent) != sent {
			t.Errorf("work %v sent for the frame that would leave the right segment dark", c.sent[sent:])
		}
	}
}

// halves writes a config of two segments, each a node's, and two
// layouts: "both" shows both, "leftonly" the app node's alone.
func halves(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "halves.eqc")
	if err := os.WriteFile(path, []byte(`#Equalizer 1.2 ascii
config
{
    appNode { pipe { window { name "left" viewport [ 0 0 200 150 ] channel { name "left" } } } }
    node { name "right" host "localhost" pipe { name "gpu" window { name "right" viewport [ 0 0 200 150 ] channel { name "right" } } } }
    observer {}
    layout { name "both" view { observer 0 } }
    layout { name "leftonly" view { observer 0 viewport [ 0 0 .5 1 ] } }
    canvas { layout "both" layout "leftonly" wall {} segment { viewport [ 0 0 .5 1 ] channel "left" } segment { viewport [ .5 0 .5 1 ] channel "right" } }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A pipe that could not be set up, whose destinations are only in layouts
// not shown, leaves the run as a lost node does: the frames go on, and one
// whose layout shows such a destination ends the run, at the start as
// after a switch, and sends no work. The frames in flight before it
// complete first. A later session that sets the pipe up brings the
// layout back.
func TestAPipeNotSetUpEndsTheRunOnlyWhenItsDestinationIsShown(t *testing.T) {
	for _, tc := range []struct {
		name        string
		first       int  // the layout shown at the start
		rejoin      bool // with the pipe set up, before "both" is shown
		inflight    bool // "both" asked for while frames of "leftonly" are in flight
		failedFrame int  // -1: none
	}{
		{"shown at the start", 0, false, false, 0},
		{"shown after a switch", 1, false, false, 2},
		{"shown after a switch, frames in flight", 1, false, true, 2},
		{"shown after a session that set it up", 1, true, false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := load(t, halves(t))
			cfg.Canvases[0].ActiveLayout = tc.first
			c := newCluster(t, cfg, Options{}, "right")
			down := map[string]string{}
			for _, ch := range cfg.Channels {
				if ch.Window.Pipe.Name == "gpu" {
					down[ch.ID] = "no GPU"
				}
			}
			c.nodes["right"].dead = false
			c.s.Step(Join{Node: "right", Down: down})
			switch {
			case tc.inflight:
				c.s.Step(Request{Frames: 2, Layouts: map[*compound.Canvas]int{cfg.Canvases[0]: 1}})
				c.drain()
				if c.s.Started() != 2 || len(c.completed) != 0 {
					t.Fatalf("%d frames started, %d completed; want 2 in flight", c.s.Started(), len(c.completed))
				}
			case tc.first == 1:
				c.framesIn(t, cfg.Canvases[0], 1, 2)
			}
			if tc.rejoin {
				c.s.Step(Lost{Node: "right", Reason: "restarted"})
				c.s.Step(Join{Node: "right"})
			}
			sent := len(c.sent)
			c.s.Step(Request{Frames: 2, Layouts: map[*compound.Canvas]int{cfg.Canvases[0]: 0}})
			if tc.failedFrame < 0 {
				for want := len(c.completed) + 2; len(c.completed) < want && c.failure == ""; {
					c.round()
				}
				if c.failure != "" {
					t.Fatalf("the pipe set up again, and layout \"both\" shown: %s", c.failure)
				}
				return
			}
			for rounds := 0; c.failure == "" && rounds < 1000; rounds++ {
				c.round()
			}
			if len(c.completed) != tc.failedFrame {
				t.Errorf("%d frames completed before the run ended; want the %d before the frame that failed", len(c.completed), tc.failedFrame)
			}
			want := fmt.Sprintf(`node right: pipe "gpu" could not be set up (no GPU), and channel "right" in layout "both", a destination of the layouts shown from frame %d, is on it`, tc.failedFrame)
			if !strings.HasPrefix(c.failure, want) {
				t.Errorf("failure %q, want %q...", c.failure, want)
			}
			if len(c.sent) != sent {
				t.Errorf("work %v sent for a frame that would leave the right segment dark", c.sent[sent:])
			}
		})
	}
}

// A silent node is lost after the liveness timeout; a node that keeps
// reporting while a frame takes long is not, and a frame that can never
// complete fails the run within the frame timeout, naming what waits.
func TestFrameThatCannotComplete(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	c := newCluster(t, cfg, Options{Frames: 30, FrameTimeout: 3 * time.Second})
	for len(c.completed) < 2 {
		c.round()
	}
	// render1 stays alive (heartbeats) but never sends its frames: the
	// destination waits for them
	c.nodes["render1"].silent = true
	start := c.now
	for c.failure == "" && c.now.Sub(start) < 10*time.Second {
		c.now = c.now.Add(100 * time.Millisecond)
		c.s.Step(Progress{Node: "render1"})
		c.s.Step(Progress{Node: "app", Waits: []Wait{{Frame: c.s.Completed(), Channel: destID(cfg), What: "f1 from {n1.p0.w0.c0}"}}})
		c.s.Step(Progress{Node: "render2"})
		c.s.Step(Tick{Now: c.now})
		c.drain()
	}
	if c.failure == "" {
		t.Fatal("no failure after 10 s")
	}
	if took := c.now.Sub(start); took > 3*time.Second+cfg2Latency(cfg)*time.Second {
		t.Errorf("failed after %v, bound 3 s from the frame's start", took)
	}
	want := fmt.Sprintf("frame %d: channel dest on node app: waiting for f1 from channel src1 on node render1", c.s.Completed())
	if !strings.Contains(c.failure, want) {
		t.Errorf("failure %q\nwant it to contain %q", c.failure, want)
	}
	if len(c.log) != 0 {
		t.Errorf("a node that kept reporting was lost: %v", c.log)
	}
}

func cfg2Latency(cfg *compound.Config) time.Duration { return time.Duration(cfg.Latency + 1) }

// Left at 0, the frame timeout follows what frames take: slow is not
// stuck. hactar.rc's six 1080p walls, volume-rendered on two cores, took
// 13 s a frame and failed at their first, 10 s in. Before a frame has
// completed frames have FirstFrameTimeout; then 10 s, or three times the
// slowest recent frame where that is longer; a frame stuck beyond that
// still fails, saying which bound it passed. A timeout given keeps to
// itself.
func TestTheDefaultFrameTimeoutFollowsTheFramesTime(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	// slow has render1 draw for d (it heartbeats, and sends nothing)
	slow := func(c *fakeCluster, d time.Duration) {
		c.nodes["render1"].silent = true
		c.heartbeatsOnly(d)
		c.nodes["render1"].silent = false
	}
	c := newCluster(t, cfg, Options{Frames: 12})
	slow(c, 40*time.Second) // the first frame
	if c.failure != "" {
		t.Fatalf("a first frame of 40 s failed: %s", c.failure)
	}
	// the user learns of it once, past 10 s, with what it waits for
	if len(c.slow) != 1 || !strings.HasPrefix(c.slow[0], "frame 0: ") || !strings.Contains(c.slow[0], "(incomplete after 10s; the frame timeout lets it take 1m0s)") {
		t.Errorf("what the first frame of 40 s said: %q", c.slow)
	}
	for len(c.completed) < 4 && c.failure == "" {
		c.round()
	}
	slowest := time.Duration(0)
	for _, f := range c.completed {
		slowest = max(slowest, f.Finished.Sub(f.Started))
	}
	if slowest < 40*time.Second {
		t.Fatalf("the slowest frame took %v: not a test", slowest)
	}
	told := len(c.slow)
	slow(c, 100*time.Second) // within three times 40 s
	if c.failure != "" {
		t.Fatalf("a frame of 100 s, after one of %v, failed: %s", slowest, c.failure)
	}
	if len(c.slow) != told+1 {
		t.Errorf("a frame of 100 s after frames of up to %v said %q", slowest, c.slow[told:])
	}
	for len(c.completed) < 8 && c.failure == "" {
		c.round()
	}
	c.nodes["render1"].silent = true
	stuck := c.now
	c.heartbeatsOnly(10 * time.Minute)
	if !strings.Contains(c.failure, "the frame timeout, 3 times the slowest recent frame") {
		t.Fatalf("a stuck frame after slow ones: failure %q", c.failure)
	}
	if took := c.now.Sub(stuck); took > 330*time.Second {
		t.Errorf("a stuck frame failed after %v, after frames of up to about 100 s", took)
	}

	// stuck in the first frame: a minute
	c = newCluster(t, cfg, Options{Frames: 12})
	c.nodes["render1"].silent = true
	c.heartbeatsOnly(5 * time.Minute)
	if !strings.Contains(c.failure, "(incomplete after 1m0s, the frame timeout before a frame has completed") {
		t.Errorf("a stuck first frame: failure %q", c.failure)
	}
	// quick frames: 10 s
	c = newCluster(t, cfg, Options{Frames: 12})
	for len(c.completed) < 4 {
		c.round()
	}
	c.nodes["render1"].silent = true
	c.heartbeatsOnly(time.Minute)
	if !strings.Contains(c.failure, "(incomplete after 10s, the frame timeout: ") {
		t.Errorf("a stuck frame after quick ones: failure %q", c.failure)
	}
	// given
	c = newCluster(t, cfg, Options{Frames: 12, FrameTimeout: 10 * time.Second})
	slow(c, 40*time.Second)
	if !strings.Contains(c.failure, "(incomplete after 10s, the frame timeout: ") {
		t.Errorf("a first frame of 40 s under a timeout of 10 s: failure %q", c.failure)
	}
}

// A frame that times out on a wall behind a swap barrier says which
// nodes wait there, done, and which one they wait for: the nodes at the
// barrier "reported no wait".
func TestAFrameTimeoutNamesTheNodesAtTheSwapBarrier(t *testing.T) {
	cfg := load(t, corpus("hactar.rc.eqc"))
	var channel2 string
	for _, ch := range cfg.Channels {
		if ch.Name == "channel2" {
			channel2 = ch.ID
		}
	}
	c := newCluster(t, cfg, Options{Frames: 3, FrameTimeout: 2 * time.Second})
	c.nodes["node2"].silent = true
	for c.failure == "" && c.now.Sub(time.Unix(1000, 0)) < 10*time.Second {
		c.round()
		c.s.Step(Progress{Node: "node2", Waits: []Wait{{Frame: 0, Channel: channel2, What: "its renderer's Draw to return"}}})
		c.drain()
	}
	for _, want := range []string{"frame 0: node node1: at the swap barrier; channel channel2 on node node2: waiting for its renderer's Draw to return; node node3: at the swap barrier",
		"node node6: at the swap barrier (incomplete after 2s"} {
		if !strings.Contains(c.failure, want) {
			t.Errorf("failure %q\nwant it to contain %q", c.failure, want)
		}
	}
}

// Frames that each take most of the frame timeout, at latency 1: the
// second of two started together waits for the first, so it completes
// more than the timeout after its start, and it is not failed for that;
// the timeout counts from when it became the oldest frame in flight.
func TestFrameTimeoutCountsFromTheFrameBefore(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	const timeout = 2500 * time.Millisecond
	c := newCluster(t, cfg, Options{Frames: 12, FrameTimeout: timeout})
	c.step = time.Second // a round takes a second: a frame takes a few
	c.runToEnd(200)
	longest, before := time.Duration(0), time.Duration(0)
	for i, f := range c.completed {
		if took := f.Finished.Sub(f.Started); took > longest {
			longest = took
			if i > 0 {
				before = f.Finished.Sub(c.completed[i-1].Finished)
			}
		}
	}
	if longest <= timeout {
		t.Fatalf("no frame took longer than the timeout from its start (longest %v): not a test", longest)
	}
	if before > timeout {
		t.Errorf("a frame completed %v after the one before it, beyond the timeout", before)
	}
}

// The runtime standing still (the server's process stopped at a
// debugger's breakpoint or by SIGSTOP, a suspended machine) is no frame
// taking too long: the frame in flight is judged on the time the run
// moved, as the nodes' silence is, and its time does not lengthen the
// bound on silence. A frame that then stays incomplete still fails after
// the timeout.
func TestAStoppedRuntimeIsNoFrameTimeout(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	const timeout = 2 * time.Second
	c := newCluster(t, cfg, Options{Frames: 40, FrameTimeout: timeout})
	for len(c.completed) < 10 {
		c.round()
	}
	if c.s.Started() == c.s.Completed() {
		t.Fatal("no frame in flight at the stop: not a test")
	}
	c.now = c.now.Add(30 * time.Second) // stopped: no tick, nothing read
	for len(c.completed) < 20 && c.failure == "" {
		c.round()
	}
	// nor does the stopped frame's time make a silent node's bound longer
	if took := c.silenceUntilReported("render1"); took > time.Second {
		t.Errorf("render1 was lost %v after it fell silent after the stop, want within 1 s", took)
	}
	c.runToEnd(100000)

	c = newCluster(t, cfg, Options{Frames: 40, FrameTimeout: timeout})
	for len(c.completed) < 10 {
		c.round()
	}
	// stopped again; then render1 heartbeats but never sends its frames
	c.now = c.now.Add(30 * time.Second)
	c.nodes["render1"].silent = true
	stopped := c.now
	c.heartbeatsOnly(10 * time.Second)
	if !strings.Contains(c.failure, "incomplete after 2s") {
		t.Fatalf("failure %q: a frame that never completes after the stop was not failed", c.failure)
	}
	if took := c.now.Sub(stopped); took > timeout+cfg2Latency(cfg)*time.Second {
		t.Errorf("failed %v after the stop, want within the timeout", took)
	}
}

// A frame of many small tiles takes far longer than the frame timeout
// (eqPly's t key down to tiles of a pixel) while its sources keep
// pulling: it is slow, not stuck, and runs to its end. Once no source
// pulls, it fails within the timeout of the last tile handed out, saying
// how far its queue got.
func TestATileQueueThatKeepsHandingOutIsNoFrameTimeout(t *testing.T) {
	cfg := load(t, example("tile-4.eqc"))
	queues := 0
	cfg.Walk(func(c *compound.Compound) {
		for _, eq := range c.Equalizers {
			if eq.Kind == compound.TileEqualizer {
				eq.TileSize = [2]int{8, 8}
				queues++
			}
		}
	})
	if queues == 0 {
		t.Fatal("tile-4.eqc has no tile equalizer: not a test")
	}
	const timeout = 3 * time.Second
	c := newCluster(t, cfg, Options{Frames: 3, FrameTimeout: timeout})
	c.step = 100 * time.Millisecond // under the stall the scheduler forgives
	c.runToEnd(10000)
	longest := time.Duration(0)
	for _, f := range c.completed {
		longest = max(longest, f.Finished.Sub(f.Started))
	}
	if longest < 2*timeout {
		t.Fatalf("the longest frame took %v: not a test of a queue longer than the timeout", longest)
	}

	c = newCluster(t, cfg, Options{Frames: 3, FrameTimeout: timeout})
	c.step = 100 * time.Millisecond
	for len(c.tiles) == 0 {
		c.round()
	}
	for _, n := range c.nodes {
		n.silent = true // heartbeats, but pulls no more
	}
	stopped := c.now
	c.heartbeatsOnly(4 * timeout)
	if !strings.Contains(c.failure, "items handed out, the last") {
		t.Fatalf("failure %q: want the frame failed, saying how far its tile queue got", c.failure)
	}
	if took := c.now.Sub(stopped); took > timeout+time.Second {
		t.Errorf("failed %v after the last pull, want within the timeout", took)
	}
}

func destID(cfg *compound.Config) string {
	for _, ch := range cfg.Channels {
		if ch.Label == "dest" {
			return ch.ID
		}
	}
	return ""
}

// A node that stops answering altogether is lost within a second of its
// last message (four heartbeats), and the run goes on without it.
func TestSilentNodeIsLost(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 400})
	for c.now.Sub(time.Unix(1000, 0)) < 3*time.Second {
		c.round()
	}
	took := c.silenceUntilReported("render1")
	if took > time.Second {
		t.Errorf("lost %v after it fell silent, want within 1 s", took)
	}
	c.runToEnd(100000)
	if len(c.log) != 1 || !strings.Contains(c.log[0], "lost render1: no heartbeat for 800ms") {
		t.Errorf("log %v", c.log)
	}
}

// A node that shows the destination of a frame in flight is given 5 s of
// silence, not the 800 ms a render node is: losing it ends the run, and
// on an overloaded machine a process may wait seconds for a core. A
// frozen one still ends the run well before its frame times out.
func TestADestinationNodeIsGivenLongerToAnswer(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 100000})
	for c.now.Sub(time.Unix(1000, 0)) < 3*time.Second {
		c.round()
	}
	took := c.silenceUntilReported("app")
	if took <= time.Second || took > 5500*time.Millisecond {
		t.Errorf("the destination's node was lost %v after it fell silent; want after 5 s", took)
	}
	if !strings.Contains(c.failure, "node app, which shows the destination, died: no heartbeat for 5s") {
		t.Errorf("failure %q, log %q", c.failure, c.log)
	}
	// a frame timeout shorter than 10 s halves it
	c = newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 100000, FrameTimeout: 3 * time.Second})
	for c.now.Sub(time.Unix(1000, 0)) < 3*time.Second {
		c.round()
	}
	if took := c.silenceUntilReported("app"); took > 2*time.Second || !strings.Contains(c.failure, "no heartbeat for 1.5s") {
		t.Errorf("with a frame timeout of 3 s, lost after %v: %q", took, c.failure)
	}
}

// A node whose heartbeats come late (a loaded machine) gets a longer
// timeout, measured from its own gaps; one that is still setting up gets
// StartupLiveness; and a stall of the runtime itself (no tick for a
// while, its messages unread) loses nobody.
func TestLivenessAdaptsToGaps(t *testing.T) {
	s, tick, lost := joinedScheduler(t)
	// set-up: 1.5 s without a word from anyone is not yet a loss
	tick(1500 * time.Millisecond)
	if l := lost(); len(l) != 0 {
		t.Fatalf("lost during set-up: %v", l)
	}
	// render1 reports every 500 ms, the others every 200 ms
	for i := 1; i <= 100; i++ {
		tick(100 * time.Millisecond)
		for _, id := range []string{"app", "render2"} {
			if i%2 == 0 {
				s.Step(Progress{Node: id})
			}
		}
		if i%5 == 0 {
			s.Step(Progress{Node: "render1"})
		}
	}
	// the runtime stalls for 1.5 s; then everyone's messages are read
	tick(1500 * time.Millisecond)
	if l := lost(); len(l) != 0 {
		t.Fatalf("a stall of the runtime lost %v", l)
	}
	for _, id := range s.Nodes() {
		s.Step(Progress{Node: id})
	}
	// everyone falls silent: app and render2 go after 800 ms, render1
	// (gaps of 500 ms) only after 2 s
	for i := 0; i < 9; i++ {
		tick(100 * time.Millisecond)
	}
	got := lost()
	want := []string{"app: no heartbeat for 800ms", "render2: no heartbeat for 800ms"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("lost %v, want %v", got, want)
	}
	s.Advance()
	for i := 0; i < 11; i++ {
		tick(100 * time.Millisecond)
	}
	if got := lost(); len(got) != 0 {
		t.Fatalf("lost %v after 2 s of silence, want nobody yet", got)
	}
	tick(100 * time.Millisecond)
	if got := lost(); len(got) != 1 || got[0] != "render1: no heartbeat for 2s, 4 times its longest recent gap between messages" {
		t.Fatalf("lost %v, want render1 after 2 s", got)
	}
}

// A node silent while it sets up is lost after StartupLiveness, and the
// reason says why the bound was longer than the floor.
func TestSilenceWhileSettingUpSaysWhy(t *testing.T) {
	s, tick, lost := joinedScheduler(t)
	var reasons []string
	silence := time.Duration(0)
	for len(reasons) == 0 && silence < 10*time.Second {
		silence += 50 * time.Millisecond
		tick(50 * time.Millisecond)
		for _, id := range s.Nodes() {
			if id != "render2" {
				s.Step(Progress{Node: id})
			}
		}
		reasons = lost()
		s.Advance()
	}
	want := "render2: no heartbeat for 2s, as it had only just joined"
	if len(reasons) != 1 || reasons[0] != want {
		t.Errorf("lost %q, want %q", reasons, want)
	}
	if silence < StartupLiveness {
		t.Errorf("lost after %v of silence, before %v", silence, StartupLiveness)
	}
}

// joinedScheduler is a scheduler of 2d-lb-4.eqc whose nodes have all
// joined, with no word from them since; tick moves its clock on, and lost
// lists the losses Ready reports, each as "node: reason".
func joinedScheduler(t *testing.T) (s *Scheduler, tick func(time.Duration), lost func() []string) {
	cfg := load(t, example("2d-lb-4.eqc"))
	s = New(cfg, planner.New(cfg), Options{})
	now := time.Unix(1000, 0)
	tick = func(d time.Duration) { now = now.Add(d); s.Step(Tick{Now: now}) }
	tick(0)
	for _, id := range s.Nodes() {
		s.Step(Join{Node: id})
	}
	lost = func() []string {
		var out []string
		for _, l := range s.Ready().Lost {
			out = append(out, l.Node+": "+l.Reason)
		}
		return out
	}
	return s, tick, lost
}

// Sources pull tiles until the queue is empty; every tile of every frame
// is handed out exactly once.
func TestTileQueuePulls(t *testing.T) {
	cfg := load(t, corpus("2-node.tile.eqc"))
	c := newCluster(t, cfg, Options{Frames: 4})
	c.runToEnd(100000)
	if len(c.tiles) == 0 {
		t.Fatal("no tiles pulled")
	}
	for q, got := range c.tiles {
		count := map[int]int{}
		for _, idx := range got {
			count[idx]++
		}
		for idx, n := range count {
			if n != 4 {
				t.Errorf("queue %s: item %d handed out %d times over 4 frames", q, idx, n)
			}
		}
		if len(count) != 135 {
			t.Errorf("queue %s: %d distinct items, want 135 tiles of 64x64 in 960x540", q, len(count))
		}
	}
}

// tileRun drives a scheduler over tile-4.eqc's queue, 15 tiles of
// 128x128 among four sources, frame by frame. A source takes its cost in
// time units (milliseconds, in its statistics) to draw a tile, and asks
// for its next batch as it starts drawing one (channel.frameRun's
// drawTiles); the first to start asks twice before the others ask once
// (its grant comes back before they have started the frame).
type tileRun struct {
	t       *testing.T
	s       *Scheduler
	sources []tileSource // in the order they start a frame
	work    map[int][]Work
	now     time.Time
}

type tileSource struct{ node, channel, compound, queue string }

func newTileRun(t *testing.T, frames int) *tileRun {
	cfg := load(t, example("tile-4.eqc"))
	cfg.Walk(func(c *compound.Compound) {
		for _, eq := range c.Equalizers {
			if eq.Kind == compound.TileEqualizer {
				eq.TileSize = [2]int{128, 128} // 5x3 tiles of 640x360
			}
		}
	})
	r := &tileRun{t: t, s: New(cfg, planner.New(cfg), Options{Frames: frames}), work: map[int][]Work{}, now: time.Unix(1000, 0)}
	r.s.Step(Tick{Now: r.now})
	for _, id := range r.s.Nodes() {
		r.s.Step(Join{Node: id})
	}
	r.drain()
	for _, w := range r.work[0] {
		for _, cp := range w.Channels {
			for _, tk := range cp.Tasks {
				if tk.Queue != "" {
					r.sources = append(r.sources, tileSource{w.Node, cp.Channel.ID, tk.Compound, tk.Queue})
				}
			}
		}
	}
	if len(r.sources) != 4 {
		t.Fatalf("%d channels pull tiles, want tile-4.eqc's four sources", len(r.sources))
	}
	return r
}

func (r *tileRun) drain() {
	for r.s.HasReady() {
		rd := r.s.Ready()
		r.s.Advance()
		for _, w := range rd.Work {
			r.work[w.Frame] = append(r.work[w.Frame], w)
		}
	}
}

// frame runs frame f's pulls and draws, and reports it done from every
// node: when its last tile was drawn, and how many each source drew.
func (r *tileRun) frame(f int, cost map[string]int) (end int, drawn map[string]int) {
	type state struct {
		held            []int // the sizes of the batches it holds
		done            bool  // the queue said it is empty
		busyUntil, drew int
	}
	states := make([]*state, len(r.sources))
	handed := map[int]int{}
	pull := func(i int) {
		src, st := r.sources[i], states[i]
		r.s.Step(Pull{Node: src.node, Channel: src.channel, Frame: f, Queue: src.queue, Max: 4})
		for _, g := range r.s.Ready().Grants {
			if len(g.Tiles) > 0 {
				st.held = append(st.held, len(g.Tiles))
			}
			for k := range g.Tiles {
				handed[g.First+k]++
			}
			st.done = st.done || g.Done
		}
		r.s.Advance()
	}
	startBatch := func(i, now int) {
		st := states[i]
		if now < st.busyUntil || len(st.held) == 0 {
			return
		}
		st.busyUntil, st.drew = now+st.held[0]*cost[r.sources[i].channel], st.drew+st.held[0]
		st.held = st.held[1:]
		if !st.done {
			pull(i)
		}
	}
	for i := range r.sources {
		states[i] = &state{}
		pull(i)
		startBatch(i, 0)
	}
	for now := 1; now < 10000; now++ {
		for i := range r.sources {
			startBatch(i, now)
		}
	}
	drawn = map[string]int{}
	records := map[string][]stats.Record{}
	for i, src := range r.sources {
		end = max(end, states[i].busyUntil)
		drawn[src.channel] = states[i].drew
		records[src.node] = append(records[src.node], stats.Record{Frame: f, Compound: src.compound, Channel: src.channel, Tiles: states[i].drew,
			Times: stats.Times{Draw: time.Duration(states[i].drew*cost[src.channel]) * time.Millisecond}})
	}
	if len(handed) != 15 {
		r.t.Errorf("frame %d: %d of the 15 tiles handed out: %v", f, len(handed), drawn)
	}
	for k, n := range handed {
		if n != 1 {
			r.t.Errorf("frame %d: tile %d handed out %d times", f, k, n)
		}
	}
	for _, w := range r.work[f] {
		r.s.Step(Done{Node: w.Node, Frame: f, Records: records[w.Node]})
	}
	r.now = r.now.Add(time.Duration(end) * time.Millisecond)
	r.s.Step(Tick{Now: r.now})
	r.drain()
	return end, drawn
}

// A source asks for its next batch of tiles before it draws the one it
// holds, so the first sources to ask must not take the whole queue: each
// pull is handed half its share of what is left. Fifteen tiles among four
// sources of equal speed take four tiles' time (the fewest that cover
// them). Before, batches of four left the first source that asked eight
// and two sources none: the frame took twice as long. Sources a little
// unlike all draw to the end: a first form left the slower one out while
// the others still held tiles to draw.
func TestATileQueueLeavesEverySourceItsShare(t *testing.T) {
	r := newTileRun(t, 3)
	cost := map[string]int{}
	for _, src := range r.sources {
		cost[src.channel] = 1
	}
	for f := range 3 {
		if end, drawn := r.frame(f, cost); end > 4 {
			t.Errorf("frame %d: the 15 tiles took %d tiles' time among four sources, want 4; each drew %v", f, end, drawn)
		}
	}
	// sources a little unlike (one takes 3 units a tile, the others 2)
	// all draw to the end: 4, 4, 4 and 3 tiles end by 9 units, where
	// leaving the slower one out ends at 10
	r = newTileRun(t, 6)
	for _, src := range r.sources {
		cost[src.channel] = 2
	}
	cost[r.sources[3].channel] = 3
	for f := range 6 {
		if end, drawn := r.frame(f, cost); end > 9 {
			t.Errorf("frame %d of sources a little unlike took %d units; each drew %v", f, end, drawn)
		}
	}
}

// A source slowed by other work (here sixty times slower than the
// others) is handed no tile once its speed is measured, where the others
// would draw what is left before it drew one: the frame takes the five
// tiles' time three sources need. Before, it took its batch, and every
// frame waited for it (60 times four). Once its load has gone, it draws
// again within 20 frames.
func TestASlowSourceIsLeftOutOfATileQueueTheOthersEmptySooner(t *testing.T) {
	const frames = 50
	r := newTileRun(t, frames)
	slow := r.sources[0].channel
	cost := map[string]int{}
	for _, src := range r.sources {
		cost[src.channel] = 1
	}
	cost[slow] = 60
	for f := range 10 {
		end, drawn := r.frame(f, cost)
		if f >= 1 && (end > 5 || drawn[slow] > 0) {
			t.Errorf("frame %d took %d tiles' time, the slow source drawing %d of its tiles: %v", f, end, drawn[slow], drawn)
		}
	}
	cost[slow] = 1 // its load has gone
	back := -1
	for f := 10; f < frames && back < 0; f++ {
		if _, drawn := r.frame(f, cost); drawn[slow] > 0 {
			back = f
		}
	}
	if back < 0 || back >= 30 {
		t.Fatalf("the source whose load went at frame 10 drew again at frame %d (-1: not by frame %d)", back, frames-1)
	}
	// its speed measured again, it takes its share within a few frames
	var ends []int
	for f := back + 1; f <= back+4; f++ {
		end, _ := r.frame(f, cost)
		ends = append(ends, end)
	}
	if ends[len(ends)-1] > 4 {
		t.Errorf("frames %d to %d, after the source drew again at frame %d, took %v tiles' time", back+1, back+4, back, ends)
	}
	t.Logf("drew again at frame %d; then frames took %v", back, ends)
}

// fixedInterval plans like the planner but asks for a fixed interval
// between frames, as the framerate equalizer does.
type fixedInterval struct {
	*planner.Planner
	interval float64
}

func (p fixedInterval) Plan(f int) *planner.FramePlan {
	plan := p.Planner.Plan(f)
	plan.Interval, plan.Pace = p.interval, p.interval
	return plan
}

// The framerate equalizer's interval spaces frame starts, and the
// scheduler asks to be woken when the next frame is due. The work of the
// destination's node carries it as the frame's pace, which spaces what
// shows (sources with frames queued end them back to back, whatever their
// starts); the other nodes show nothing and have none.
func TestFramerateIntervalSpacesFrames(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	c := newCluster(t, cfg, Options{})
	c.s = New(cfg, fixedInterval{planner.New(cfg), 0.05}, Options{Frames: 12})
	c.s.Step(Tick{Now: c.now})
	for _, id := range c.s.Nodes() {
		c.s.Step(Join{Node: id})
	}
	sawWake := false
	for i := 0; i < 100000 && !c.finished && c.failure == ""; i++ {
		c.round()
		if !c.s.Ready().WakeAt.IsZero() {
			sawWake = true
		}
	}
	if c.failure != "" || !c.finished {
		t.Fatalf("failure %q finished %v", c.failure, c.finished)
	}
	for f := 1; f < 12; f++ {
		if gap := c.completed[f].Started.Sub(c.completed[f-1].Started); gap < 50*time.Millisecond {
			t.Errorf("frame %d started %v after frame %d; the interval is 50ms", f, gap, f-1)
		}
	}
	if !sawWake {
		t.Error("the scheduler never asked for a wake-up at the next frame's time")
	}
	destNode := c.s.NodeOf(cfg.Compounds[0].Channel.ID)
	for _, w := range c.sent {
		if want := map[bool]time.Duration{true: 50 * time.Millisecond}[w.Node == destNode]; w.Pace != want {
			t.Errorf("frame %d: node %s's work has pace %v, want %v", w.Frame, w.Node, w.Pace, want)
		}
	}
}

// Frames of different generations never mix: a node's late report of a
// frame it was lost in adds nothing to that frame, reports that arrive out
// of order complete frames in order, and every completed frame carries only
// its own records.
func TestFramesNeverMix(t *testing.T) {
	cfg := withLatency(t, example("2d-lb-4.eqc"), 2)
	c := newCluster(t, cfg, Options{Frames: 40})
	for len(c.completed) < 5 {
		c.round()
	}
	// render2 dies with frames in flight; its old session's report of one
	// of them arrives after the loss and must not count.
	old := c.nodes["render2"]
	if len(old.work) == 0 {
		t.Fatal("render2 has no frame in flight")
	}
	stale := old.work[0].Frame
	old.dead = true
	c.s.Step(Lost{Node: "render2", Reason: "killed"})
	c.drain()
	src2 := ""
	for _, ch := range cfg.Channels {
		if ch.Label == "src2" {
			src2 = ch.ID
		}
	}
	c.s.Step(Done{Node: "render2", Frame: stale, Records: []stats.Record{{Frame: stale, Channel: src2, Times: stats.Times{Draw: time.Hour}}}})
	c.drain()
	// A new session of render2 rejoins and takes frames again.
	for len(c.completed) < 12 {
		c.round()
	}
	c.nodes["render2"] = newFakeNode("render2")
	rejoinedAt := c.s.Started()
	c.s.Step(Join{Node: "render2"})
	c.drain()
	// render1 reports its next two frames in reverse order.
	r1 := c.nodes["render1"]
	for len(r1.work) < 2 && c.failure == "" {
		c.round()
	}
	first, second := r1.work[0].Frame, r1.work[1].Frame
	for _, w := range r1.work[:2] { // their outputs are sent; only the reports come late
		for _, cp := range w.Channels {
			for _, task := range cp.Tasks {
				for _, o := range task.Outputs {
					c.produced[frameKey{w.Frame, task.Eye, o.Name, cp.Channel.ID}] = true
				}
			}
		}
	}
	r1.work = r1.work[2:]
	c.s.Step(Done{Node: "render1", Frame: second})
	c.drain()
	for _, f := range c.completed {
		if f.Frame == first {
			t.Fatalf("frame %d completed on render1's report of frame %d", first, second)
		}
	}
	c.s.Step(Done{Node: "render1", Frame: first})
	c.drain()
	c.run(50000)
	if c.failure != "" || !c.finished || len(c.completed) != 40 {
		t.Fatalf("failure %q finished %v completed %d", c.failure, c.finished, len(c.completed))
	}
	worked := false
	for i, f := range c.completed {
		if f.Frame != i {
			t.Fatalf("completion %d is frame %d", i, f.Frame)
		}
		for _, r := range f.Records {
			if r.Frame != f.Frame {
				t.Errorf("frame %d carries a record of frame %d", f.Frame, r.Frame)
			}
			if r.Times.Draw == time.Hour {
				t.Errorf("frame %d carries the lost session's late report", f.Frame)
			}
			if r.Channel == src2 && f.Frame >= rejoinedAt {
				worked = true
			}
		}
	}
	if !worked {
		t.Error("the rejoined render2 never drew again")
	}
}

// While the runtime has messages it has not read (a loaded server's
// backlog), nobody is judged silent: the backlog may hold their
// heartbeats.
func TestNoLossWhileMessagesWaitUnread(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	s := New(cfg, planner.New(cfg), Options{})
	now := time.Unix(1000, 0)
	s.Step(Tick{Now: now})
	for _, id := range s.Nodes() {
		s.Step(Join{Node: id})
	}
	for i := 0; i < 40; i++ { // 3 s of silence, 75 ms ticks, always a backlog
		now = now.Add(75 * time.Millisecond)
		s.Step(Tick{Now: now, Unread: 100})
	}
	if l := s.Ready().Lost; len(l) != 0 {
		t.Fatalf("lost %v with messages unread", l)
	}
	now = now.Add(75 * time.Millisecond)
	s.Step(Tick{Now: now})
	if l := s.Ready().Lost; len(l) != len(s.Nodes()) {
		t.Fatalf("lost %v once everything was read, want every node", l)
	}
}

// Slow frames do not make the silence a node is allowed longer: its
// heartbeats do not wait for them. A node of a run whose frames take
// 300 ms is lost within a second of falling silent, where four times the
// slowest frame allowed it 1.2 s.
func TestSlowFramesDoNotLengthenLiveness(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 400})
	c.step = 150 * time.Millisecond
	for len(c.completed) < 40 {
		c.round()
	}
	slowest := time.Duration(0)
	for _, f := range c.completed[len(c.completed)-32:] {
		slowest = max(slowest, f.Finished.Sub(f.Started))
	}
	if 4*slowest <= DefaultLiveness { // the old rule's bound, four frames
		t.Fatalf("frames of %v are not slow enough for this test", slowest)
	}
	if took := c.silenceUntilReported("render1"); took > time.Second {
		t.Errorf("lost %v after it fell silent, frames of %v, want within 1 s (log %v)", took, slowest, c.log)
	}
	if want := "lost render1: no heartbeat for 800ms"; len(c.log) != 1 || c.log[0] != want {
		t.Errorf("log %v, want %q", c.log, want)
	}
}

// A node's gap window keeps the longest of its last livenessGaps gaps as
// they come, whatever the order: checked against the window kept whole.
func TestGapWindowKeepsTheLongestRecentGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var w gapWindow
	var all []time.Duration
	for i := range 2000 {
		g := time.Duration(rng.IntN(1000)) * time.Millisecond
		if i%300 < 40 {
			g = time.Duration(i%300) * time.Second // a rising run, then it leaves the window
		}
		w.add(g)
		all = append(all, g)
		recent := all[max(0, len(all)-livenessGaps):]
		if want := slices.Max(recent); w.longest != want || w.n != len(recent) {
			t.Fatalf("after %d gaps: longest %v of %d, want %v of %d", i+1, w.longest, w.n, want, len(recent))
		}
	}
}

// The run's first frames (shader compiles, allocation) are slow without
// the machine being loaded: they do not stretch the liveness timeout, so
// a node that falls silent right after them is lost within a second.
func TestFirstFramesDoNotLengthenLiveness(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 400})
	c.step = 150 * time.Millisecond
	for len(c.completed) < 3 {
		c.round()
	}
	if first := c.completed[0]; 4*first.Finished.Sub(first.Started) <= time.Second {
		t.Fatalf("a first frame of %v is not slow enough for this test", first.Finished.Sub(first.Started))
	}
	c.step = 5 * time.Millisecond
	for len(c.completed) < 10 {
		c.round()
	}
	took := c.silenceUntilReported("render1")
	if took > time.Second {
		t.Errorf("lost %v after it fell silent, want within 1 s (log %v)", took, c.log)
	}
	if len(c.log) != 1 || !strings.Contains(c.log[0], "lost render1: no heartbeat for 800ms") {
		t.Errorf("log %v", c.log)
	}
}

// With latency, the first frames start together, and the last of them
// is timed from that start: it waits behind the warm-up frames before it
// (2-node.DPlex, latency 3: frame 3 took 0.87 s, start to finish, where
// its draw took 0.3 s and later frames 0.1 s). That does not stretch the
// liveness timeout: a node that falls silent once the warm-up is done is
// lost within a second (it took 5.3 s on 2-node.DPlex).
func TestLatencyDoesNotLengthenLiveness(t *testing.T) {
	const warmupFrames = 3 // slow: they compile shaders and allocate
	for _, tc := range []struct{ path, node string }{
		{example("2d-lb-4.eqc"), "render1"},
		{corpus("2-node.DPlex.eqc"), "node1"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			cfg := load(t, tc.path)
			cfg.Latency = 3
			c := newCluster(t, cfg, Options{Frames: 400})
			c.step = 150 * time.Millisecond
			for len(c.completed) < warmupFrames {
				c.round()
			}
			c.step = 5 * time.Millisecond
			for len(c.completed) < 16 { // the 32 frames liveness keeps still hold the slow ones
				c.round()
			}
			slowest := time.Duration(0)
			for _, f := range c.completed[warmupFrames:] {
				slowest = max(slowest, f.Finished.Sub(f.Started))
			}
			if 4*slowest <= time.Second {
				t.Fatalf("no frame after the first %d took over 250 ms: nothing for this test to show", warmupFrames)
			}
			if took := c.silenceUntilReported(tc.node); took > time.Second {
				t.Errorf("lost %v after it fell silent, want within 1 s (log %v)", took, c.log)
			}
		})
	}
}

// Each record says when its node reported the frame done (the adaptive
// policy follows the renderers' frames from it), within the frame's
// start and completion; a Done that says when it came is stamped so.
func TestRecordsSayWhenTheirNodeWasDone(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	c := newCluster(t, cfg, Options{Frames: 10})
	c.runToEnd(2000)
	for _, f := range c.completed {
		for _, r := range f.Records {
			if r.Finished.IsZero() || r.Finished.Before(f.Started) || r.Finished.After(f.Finished) {
				t.Fatalf("frame %d: channel %s done at %v, the frame from %v to %v", f.Frame, r.Channel, r.Finished, f.Started, f.Finished)
			}
		}
	}
	s, rd := startedOneFrame(cfg)
	at := time.Unix(99, 0)
	for _, w := range rd.Work {
		s.Step(Done{Node: w.Node, Frame: w.Frame, At: at, Records: []stats.Record{{Frame: w.Frame, Channel: w.Channels[0].Channel.ID}}})
	}
	s.Step(Tick{Now: time.Unix(101, 0)})
	rd = s.Ready()
	if len(rd.Completed) != 1 || len(rd.Completed[0].Records) == 0 {
		t.Fatalf("completed %+v", rd.Completed)
	}
	for _, r := range rd.Completed[0].Records {
		if !r.Finished.Equal(at) {
			t.Errorf("channel %s stamped %v, want the Done's %v", r.Channel, r.Finished, at)
		}
	}
}

// startedOneFrame is a scheduler of one frame on cfg whose nodes have all
// joined, and the work it gave them.
func startedOneFrame(cfg *compound.Config) (*Scheduler, Ready) {
	s := New(cfg, planner.New(cfg), Options{Frames: 1})
	s.Step(Tick{Now: time.Unix(100, 0)})
	for _, id := range s.Nodes() {
		s.Step(Join{Node: id})
	}
	rd := s.Ready()
	s.Advance()
	return s, rd
}

// A frame's images are listed by name, not in the order the nodes
// reported: a summary lists a run's images the same way each time (a
// wall's four destinations on three nodes came in any order).
func TestAFramesImagesAreListedByName(t *testing.T) {
	s, rd := startedOneFrame(load(t, example("wall-2x2-views.eqc")))
	var nodes []string
	for _, w := range rd.Work {
		nodes = append(nodes, w.Node)
	}
	slices.Sort(nodes)
	slices.Reverse(nodes) // the last by name reports first
	for _, n := range nodes {
		s.Step(Done{Node: n, Frame: 0, Written: []string{n + "-b-000000.png", n + "-a-000000.png"}})
	}
	rd = s.Ready()
	s.Advance()
	if len(rd.Completed) != 1 || len(nodes) < 2 {
		t.Fatalf("%d frames completed by %d nodes; want 1 by more than one", len(rd.Completed), len(nodes))
	}
	if got := rd.Completed[0].Written; !slices.IsSorted(got) || len(got) != 2*len(nodes) {
		t.Errorf("images %v; want all %d, by name", got, 2*len(nodes))
	}
}

// A frame a node failed is not a frame done, though every node reported
// it; the images written for frames the failure leaves unfinished come
// with it, so that a summary lists every image on disk (the destination
// wrote frame 1's while a render node still owed its Done, then failed
// frame 2: the summary said 1 image of the 2 written, and counted frame 2
// as done).
func TestAFailedFrameIsNotDoneAndItsImagesAreListed(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	s := New(cfg, planner.New(cfg), Options{Frames: 3})
	s.Step(Tick{Now: time.Unix(100, 0)})
	for _, id := range s.Nodes() {
		s.Step(Join{Node: id})
	}
	var completed []int
	var unfinished []string
	failure := ""
	take := func() []Work {
		rd := s.Ready()
		s.Advance()
		for _, c := range rd.Completed {
			completed = append(completed, c.Frame)
		}
		if rd.Failure != "" {
			failure, unfinished = rd.Failure, rd.UnfinishedWritten
		}
		return rd.Work
	}
	dest := ""
	byFrame := map[int][]string{} // the nodes of each frame
	for _, w := range take() {
		byFrame[w.Frame] = append(byFrame[w.Frame], w.Node)
		for _, cp := range w.Channels {
			if cp.Destination {
				dest = w.Node
			}
		}
	}
	if dest == "" || len(byFrame[0]) < 2 || len(byFrame[1]) < 2 {
		t.Fatalf("destination %q, frames started %v", dest, byFrame)
	}
	written := func(frame int) []string { return []string{fmt.Sprintf("dest-%06d.png", frame)} }
	for _, n := range byFrame[0] {
		d := Done{Node: n, Frame: 0}
		if n == dest {
			d.Written = written(0)
		}
		s.Step(d)
	}
	for _, w := range take() {
		byFrame[w.Frame] = append(byFrame[w.Frame], w.Node)
	}
	// the destination is done with frame 1 and fails frame 2; the render
	// nodes report both after that
	s.Step(Done{Node: dest, Frame: 1, Written: written(1)})
	s.Step(Done{Node: dest, Frame: 2, Err: "writing dest-000002.png: no space left on device"})
	take()
	if failure == "" || !slices.Equal(unfinished, written(1)) || !slices.Equal(completed, []int{0}) {
		t.Fatalf("failure %q, unfinished frames' images %v, frames completed %v; want the failure, frame 1's image and frame 0", failure, unfinished, completed)
	}
	for _, f := range []int{1, 2} {
		for _, n := range byFrame[f] {
			if n != dest {
				s.Step(Done{Node: n, Frame: f})
			}
		}
	}
	take()
	if slices.Contains(completed, 2) {
		t.Errorf("frames completed %v: the failed frame 2 among them", completed)
	}
}

// A node whose destination's window showed a frame and shows nothing in
// the next (a layout that does not use it) gets that frame's work, with
// no channels and the window to blank; in the frames after, while the
// layout stays, it gets nothing. Switched back, it shows again. A
// destination that draws every other frame (a period) is not blanked in
// between: it still shows its last frame, as Equalizer's does.
func TestANodeTheLayoutStopsUsingGetsTheFrameToBlankIt(t *testing.T) {
	path := filepath.Join("testdata", "a-segment-on-its-own-node.eqc")
	cfg := load(t, path)
	c := newCluster(t, cfg, Options{})
	c.framesIn(t, cfg.Canvases[0], 0, 2)
	c.framesIn(t, cfg.Canvases[0], 1, 3)
	c.framesIn(t, cfg.Canvases[0], 0, 2)
	// frames 0, 1, 5 and 6 show the whole wall; frame 2 blanks
	if got, want := c.workSent("render"), []string{"0:1[]", "1:1[]", "2:0[right]", "5:1[]", "6:1[]"}; !slices.Equal(got, want) {
		t.Errorf("render's work (frame:channels[blanked]) %v, want %v", got, want)
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "canvas", `compound { channel ( segment 0 view 0 ) }
    compound { channel ( segment 1 view 0 ) period 2 }
    canvas`, 1)
	periodic := filepath.Join(t.TempDir(), "periodic.eqc")
	if err := os.WriteFile(periodic, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c = newCluster(t, load(t, periodic), Options{Frames: 6})
	c.runToEnd(5000)
	drawn := 0
	for _, w := range c.sent {
		if len(w.Blank) > 0 {
			t.Errorf("frame %d: node %s blanks %v", w.Frame, w.Node, windowNames(w.Blank))
		}
		if w.Node == "render" {
			drawn++
		}
	}
	if drawn != 3 {
		t.Errorf("the right projector drew %d of 6 frames, not every other one", drawn)
	}
}

// A source's window is used while the layout its destination shows is:
// switched to a layout whose tree does not have it, its node gets it to
// blank (its window would keep the last part it drew), and switched back,
// it draws again. A window whose pipe could not be set up is not there to
// blank: its node gets nothing for it.
func TestASourceTheLayoutStopsUsingIsBlanked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two-trees.eqc")
	if err := os.WriteFile(path, []byte(`#Equalizer 1.2 ascii
config
{
    appNode { pipe { window { name "dest" viewport [ 0 0 200 150 ] channel { name "dest" } } } }
    node { name "render" host "localhost" pipe { window { name "src" viewport [ 0 0 200 150 ] channel { name "src" } } } }
    observer {}
    layout { name "split" view { observer 0 } }
    layout { name "alone" view { observer 0 } }
    canvas { layout "split" layout "alone" wall {} segment { channel "dest" } }
    compound
    {
        channel ( canvas 0 segment 0 layout "split" view 0 )
        compound { viewport [ 0 0 .5 1 ] }
        compound { channel "src" viewport [ .5 0 .5 1 ] outputframe { name "half" } }
        inputframe { name "half" }
    }
    compound { channel ( canvas 0 segment 0 layout "alone" view 0 ) }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, path)
	c := newCluster(t, cfg, Options{})
	c.framesIn(t, cfg.Canvases[0], 0, 2)
	c.framesIn(t, cfg.Canvases[0], 1, 2)
	c.framesIn(t, cfg.Canvases[0], 0, 2)
	if got, want := c.workSent("render"), []string{"0:1[]", "1:1[]", "2:0[src]", "4:1[]", "5:1[]"}; !slices.Equal(got, want) {
		t.Errorf("render's work (frame:channels[blanked]) %v, want %v", got, want)
	}

	cfg = load(t, path)
	c = newCluster(t, cfg, Options{}, "render")
	c.nodes["render"].dead = false
	c.s.Step(Join{Node: "render", Down: map[string]string{channelID(t, c, "src"): "no GPU"}})
	c.framesIn(t, cfg.Canvases[0], 0, 2)
	c.framesIn(t, cfg.Canvases[0], 1, 2)
	c.framesIn(t, cfg.Canvases[0], 0, 2)
	if got := c.workSent("render"); len(got) > 0 {
		t.Errorf("render, whose pipe could not be set up, got work (frame:channels[blanked]) %v", got)
	}
}

// framesIn has the application ask for n frames with a canvas showing a
// layout, and runs the cluster until they are complete.
func (c *fakeCluster) framesIn(t *testing.T, canvas *compound.Canvas, layout, n int) {
	t.Helper()
	c.s.Step(Request{Frames: n, Layouts: map[*compound.Canvas]int{canvas: layout}})
	for want := len(c.completed) + n; len(c.completed) < want && c.failure == ""; {
		c.round()
	}
	if c.failure != "" {
		t.Fatal(c.failure)
	}
}

// workSent is the work the scheduler gave a node, a frame at a time, as
// "frame:channels[windows blanked]".
func (c *fakeCluster) workSent(node string) []string {
	var out []string
	for _, w := range c.sent {
		if w.Node == node {
			out = append(out, fmt.Sprintf("%d:%d%v", w.Frame, len(w.Channels), windowNames(w.Blank)))
		}
	}
	return out
}

func windowNames(ws []*compound.Window) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Name)
	}
	return out
}

// Every node of every corpus and example config with a load or tree
// equalizer that shows no destination, lost once the adaptive policy
// plans from its own model (past Equalizer's first plans), under both
// policies: the split goes on covering each balanced compound whole (no
// plan leaves a part undrawn, planner.FramePlan.Undrawn), and no frame is
// degraded. Under the adaptive policy the others kept their regions for
// the balancing period, and the lost node's part was drawn by no one in
// frames no one called degraded. The sources draw at different speeds,
// in proportion to their part, so the splits move.
func TestEverySplitCoversItsCompoundThroughANodeLoss(t *testing.T) {
	names, err := filepath.Glob(corpus("*.eqc"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	examples, _ := filepath.Glob(example("*.eqc"))
	names = append(names, examples...)
	withPolicy := func(name string, adaptive bool) (*compound.Config, bool) {
		cfg := load(t, name)
		balanced := false
		cfg.Walk(func(c *compound.Compound) {
			for _, eq := range c.Equalizers {
				if eq.Kind.Splits() {
					eq.Adaptive, balanced = adaptive, true
				}
			}
		})
		return cfg, balanced
	}
	for _, name := range names {
		if _, balanced := withPolicy(name, false); !balanced {
			continue
		}
		probe := newCluster(t, load(t, name), Options{Frames: 1})
		for _, id := range probe.s.Nodes() {
			if probe.s.shownDestination(probe.s.nodes[id]) != nil {
				continue
			}
			for _, adaptive := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/adaptive-%v", filepath.Base(name), id, adaptive), func(t *testing.T) {
					cfg, _ := withPolicy(name, adaptive)
					c := newCluster(t, cfg, Options{Frames: 24})
					c.statistics = func(node string, frame int, recs []stats.Record) []stats.Record {
						for i := range recs {
							part := recs[i].Viewport.W * recs[i].Viewport.H * (recs[i].Range.End - recs[i].Range.Start)
							speed := 1 + float64(len(recs[i].Channel)%3)
							recs[i].Times.Draw = time.Duration(part * speed * float64(20*time.Millisecond))
						}
						return recs
					}
					for i := 0; i < 20000 && len(c.completed) < 10; i++ {
						c.round()
					}
					c.kill(id)
					c.runToEnd(40000)
					for _, f := range c.completed {
						if f.Degraded || len(f.Undrawn) > 0 {
							t.Errorf("frame %d: degraded %v, undrawn %v", f.Frame, f.Degraded, f.Undrawn)
						}
					}
				})
			}
		}
	}
}

// Which channels a frame went without is the scheduler's word: a node's
// records that name some (stats.Record.Down) lose them, or a statistics
// file would carry what a client made up, and its replay would plan
// without those channels.
func TestANodesRecordsDoNotSayWhichChannelsAreDown(t *testing.T) {
	c := newCluster(t, load(t, example("2d-lb-4.eqc")), Options{Frames: 4})
	c.statistics = func(node string, frame int, recs []stats.Record) []stats.Record {
		for i := range recs {
			recs[i].Down = []string{recs[i].Channel}
		}
		return recs
	}
	c.runToEnd(10000)
	records := 0
	for _, f := range c.completed {
		for _, r := range f.Records {
			records++
			if r.Down != nil {
				t.Errorf("frame %d: channel %s's record says %v are down", f.Frame, r.Channel, r.Down)
			}
		}
	}
	if records == 0 {
		t.Fatal("no records")
	}
}

// undrawnAt is a planner whose plan of one frame leaves a part undrawn,
// as a planning fault would.
type undrawnAt struct {
	*planner.Planner
	frame int
}

func (p undrawnAt) Plan(frame int) *planner.FramePlan {
	plan := p.Planner.Plan(frame)
	if frame == p.frame {
		copied := *plan
		copied.Undrawn = []string{"compound 0: its 3 children that draw cover 0.7500 of it"}
		return &copied
	}
	return plan
}

// A frame whose plan leaves part of it to no channel (a planning fault)
// completes degraded, naming the part, and the run goes on: the fault is
// never silent, and the frames after it are whole.
func TestAFramePlannedWithAHoleIsDegraded(t *testing.T) {
	cfg := load(t, example("2d-lb-4.eqc"))
	c := newClusterPlanned(t, cfg, undrawnAt{planner.New(cfg), 3}, Options{Frames: 6})
	c.runToEnd(10000)
	for _, f := range c.completed {
		if f.Degraded != (f.Frame == 3) || (len(f.Undrawn) > 0) != (f.Frame == 3) {
			t.Errorf("frame %d: degraded %v, undrawn %v", f.Frame, f.Degraded, f.Undrawn)
		}
	}
	if len(c.completed) != 6 {
		t.Errorf("%d frames completed, want 6", len(c.completed))
	}
}
