// Package scheduler is goeq's frame scheduler, a pure state machine in the
// style of etcd's raft: the runtime (or the simulator) feeds it events with
// Step, takes what it decided with Ready, and acknowledges with Advance.
// It holds no goroutines, reads no clock (ticks carry the time) and does
// no I/O, so every rule of running frames lives here once and is tested
// without processes or GL:
//
//   - frame f starts when frame f-latency-1 is complete, every node has
//     joined, and the framerate equalizer's interval has passed;
//   - each node gets its channels' tasks; a frame completes when every node
//     with work reported it done, and frames complete in order;
//   - destinations on several nodes show each frame together (the swap
//     barrier);
//   - a lost node's channels leave the compounds, and frames in flight
//     abandon its outputs; losing a destination fails the run;
//   - sources pull tiles from the tile equalizer's queues;
//   - a frame that does not complete within the frame timeout fails the run
//     with what the oldest pending channel waits for.
package scheduler

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// Planner plans frames; planner.Planner is one, the reference oracle
// another.
type Planner interface {
	Plan(frame int) *planner.FramePlan
	Feed(stats.Frame)
	SetChannelDown(ch *compound.Channel, down bool)
}

// OverheadSetter is implemented by planners that choose their balancing
// period from the measured per-frame overhead (planning and interaction).
type OverheadSetter interface {
	SetOverhead(seconds float64)
}

// HeadSetter is implemented by planners whose frusta follow tracked
// observers.
type HeadSetter interface {
	SetHead(frame int, o *compound.Observer, h compound.Head)
}

// LayoutSetter is implemented by planners that switch a canvas' layout
// from a frame on (an index into its Layouts).
type LayoutSetter interface {
	SetLayout(frame int, canvas *compound.Canvas, layout int)
}

// ViewModeSetter is implemented by planners that switch a view between
// mono and stereo from a frame on.
type ViewModeSetter interface {
	SetViewMode(frame int, view *compound.View, stereo bool)
}

// ModelUnitSetter is implemented by planners that scale a view's walls
// and eyes by a model unit from a frame on (compound.View.ModelUnit).
type ModelUnitSetter interface {
	SetModelUnit(frame int, view *compound.View, unit float64)
}

// BalanceFreezer is implemented by planners whose load equalizers can be
// frozen from a frame on: they keep the split they have.
type BalanceFreezer interface {
	SetBalanceFrozen(frame int, frozen bool)
}

// BalancingSetter is implemented by planners whose views' equalizers an
// application may change from a frame on (compound.Balancing).
type BalancingSetter interface {
	SetBalancing(frame int, view *compound.View, change compound.BalancingChange)
}

// WindowSizer is implemented by planners whose frames follow the windows'
// sizes as users resize them.
type WindowSizer interface {
	SetWindowSize(frame int, w *compound.Window, size compound.Size)
}

// Options tune the scheduler; zero values take the defaults.
type Options struct {
	// Frames is how many frames to run; 0 means until stopped (Request
	// adds frames).
	Frames int
	// FrameTimeout bounds how long a frame may stay incomplete once it is
	// the oldest one in flight: with latency, a frame started beside the
	// one before it waits for that one first. Tiles its queues hand out
	// count as progress and start the bound again: a queue of many small
	// tiles takes long but is not stuck. 0 bounds frames by what they
	// take: DefaultFrameTimeout, or frameTimeoutMargin times the slowest
	// recent frame where frames are slower, and FirstFrameTimeout until
	// a frame has completed.
	FrameTimeout time.Duration
	// Liveness is the shortest silence after which a node is lost
	// (800 ms, four heartbeats). It grows with the gaps measured between
	// the node's messages and with the frame time, so that a node on a
	// loaded machine, whose heartbeats come late, is not taken for dead.
	Liveness time.Duration
	// Nodes restricts the run to these nodes (IDs); nil means every node
	// with pipes.
	Nodes []string
}

// Defaults.
const (
	DefaultFrameTimeout = 10 * time.Second
	// FirstFrameTimeout bounds the frames in flight while none has
	// completed, where FrameTimeout is left at 0: the first frames
	// compile, upload and allocate, and a renderer may load lazily. Six
	// 1080p volume renderings of hactar.rc's wall on two cores took 13 s
	// a frame, and the run failed at its first.
	FirstFrameTimeout = time.Minute
	DefaultLiveness   = 800 * time.Millisecond
	// StartupLiveness holds until a node's gaps are measured (its first
	// livenessGaps messages): set-up is when a client is busiest.
	StartupLiveness = 2 * time.Second
)

const (
	// livenessGaps is how many recent gaps between a node's messages its
	// timeout is judged from (about six seconds of heartbeats).
	livenessGaps = 32
	// livenessMargin times the longest recent gap is how long a node may
	// be silent.
	livenessMargin = 4
	// frameTimeoutMargin times the slowest recent frame bounds a frame
	// where FrameTimeout is left at 0 and frames take longer than a third
	// of DefaultFrameTimeout: slow is not stuck.
	frameTimeoutMargin = 3
	// destinationSilence is the least silence after which a node that
	// shows a destination of a frame in flight is lost (at most half the
	// frame timeout). Losing it ends the run, where a render node's loss
	// costs a degraded frame or two, so a heartbeat late on an overloaded
	// machine must not: on the 2-core machine, with three runs at once, a
	// process waited 2.2 s for a core, and a run lost its destination
	// node to 821 ms of silence. A frozen one still ends the run long
	// before its frame would time out.
	destinationSilence = 5 * time.Second
	// livenessChecks is how many checks for silence (a pass over every
	// node) fit in Options.Liveness: silences are measured in hundreds of
	// milliseconds, and a busy run loop ticks far more often (at 256
	// nodes, a check every 10 ms took 4% of the loop's time).
	livenessChecks = 16
)

// Event is an input to Step.
type Event interface{ isEvent() }

// Tick carries the time; every other event happens at the last tick's.
// Unread is how many messages the runtime has received but not yet
// stepped: nodes are judged silent only when it is 0, because a loaded
// server's backlog may hold their heartbeats.
type Tick struct {
	Now    time.Time
	Unread int
}

// Request asks for more frames (continuous or on-demand rendering).
type Request struct {
	Frames int
	// Heads places tracked observers from the first of these frames on
	// (planners that are HeadSetters follow them).
	Heads map[*compound.Observer]compound.Head
	// Layouts shows these layouts (indexes into each canvas' Layouts)
	// from the first of these frames on (planners that are
	// LayoutSetters switch them).
	Layouts map[*compound.Canvas]int
	// ViewModes makes these views stereo (true) or mono from the first of
	// these frames on (planners that are ViewModeSetters).
	ViewModes map[*compound.View]bool
	// ModelUnits give these views those model units (above zero) from the
	// first of these frames on (planners that are ModelUnitSetters).
	ModelUnits map[*compound.View]float64
	// Balancing changes how these views are balanced from the first of
	// these frames on (planners that are BalancingSetters).
	Balancing map[*compound.View]compound.BalancingChange
	// Freeze, when set, freezes the load equalizers from the first of
	// these frames on, or lets them balance again (planners that are
	// BalanceFreezers).
	Freeze *bool
	// EveryNode sends these frames to every node alive, also to nodes
	// with nothing to render in them: the frames carry the application's
	// cluster events, which every node takes in the same frame.
	EveryNode bool
}

// Join: a node's render client is set up and takes frames. Down holds its
// channels (IDs) on pipes that could not be set up, each with why, which
// the config's robustness lets the run go on without: they stay out of
// the frames, and a frame whose layouts show a destination among them
// ends the run.
type Join struct {
	Node string
	Down map[string]string
}

// Lost: a node died or its connection broke. Before it joined: its client
// could not be launched, set up or reached in time.
type Lost struct {
	Node   string
	Reason string
}

// Done: a node finished its tasks of a frame.
type Done struct {
	Node  string
	Frame int
	// At is when the node's message came (zero: the scheduler's now): the
	// server takes messages in batches, and its records are stamped with
	// it (stats.Record.Finished)
	At       time.Time
	Records  []stats.Record
	Degraded []string // input frames that never came
	Written  []string // image files the node wrote
	Warnings []string // what went wrong without failing the frame
	Err      string   // a task failed
}

// Assembled: a node's destination channels finished a frame and wait at
// the swap barrier.
type Assembled struct {
	Node  string
	Frame int
}

// Progress: what a node's channels are waiting for (sent with heartbeats);
// any event from a node also shows it alive.
type Progress struct {
	Node  string
	Waits []Wait
}

// Wait is one channel waiting in a frame.
type Wait struct {
	Frame   int    `json:"frame"`
	Channel string `json:"channel"` // ID
	What    string `json:"what"`
}

// Pull: a source asks for the next items of a tile queue.
type Pull struct {
	Node    string
	Channel string
	Frame   int
	Queue   string
	Max     int
}

// Overhead is the measured planning and interaction time per frame.
type Overhead struct{ Seconds float64 }

// Resize: a user resized an on-screen window. Frames started from now on
// render at its new size (planners that are WindowSizers).
type Resize struct {
	Window *compound.Window
	Size   compound.Size
}

// Stop ends the run after the frames in flight: no new frames start, those
// asked for and not started included, and later requests are ignored.
type Stop struct{}

func (Tick) isEvent()      {}
func (Request) isEvent()   {}
func (Resize) isEvent()    {}
func (Join) isEvent()      {}
func (Lost) isEvent()      {}
func (Done) isEvent()      {}
func (Assembled) isEvent() {}
func (Progress) isEvent()  {}
func (Pull) isEvent()      {}
func (Overhead) isEvent()  {}
func (Stop) isEvent()      {}

// Work is one node's tasks for one frame.
type Work struct {
	Node     string
	Frame    int
	Channels []*planner.ChannelPlan
	// Pace is the least time from the node's destinations showing the
	// frame before to their showing this one (planner.FramePlan.Pace),
	// for a node with destinations; zero where frames show as they are
	// done.
	Pace time.Duration
	// Blank are the node's windows that the layouts used and do not use
	// from this frame on: they go black.
	Blank []*compound.Window
}

// Swap releases a node's destinations to show a frame.
type Swap struct {
	Node  string
	Frame int
}

// Abandon tells a node that the outputs of these producers (channel IDs)
// of a lost node will not come for a frame, but for what the lost node
// sent before it died.
type Abandon struct {
	Node      string
	Frame     int
	Producers []string
	Lost      string // the node they were on
}

// Repair has a node draw lost channels' parts of a frame in flight, which
// their node died before it sent: the pipe of the channels the parts go
// to (For) draws them apart, as the lost channels would have, and hands
// them to those channels under the lost channels' names. Without it, the
// frame would be shown without them.
type Repair struct {
	Node  string
	Frame int
	// For are the channels (IDs) the parts go to on one of the node's
	// pipes, which draws them for those alone
	For   []string
	Plans []*planner.ChannelPlan // the lost channels' parts, drawn together
	// Feeders are the parts of live channels' plans that send the lost
	// parts frames (those went to the dead node), and of those that feed
	// these in turn (a binary swap's earlier rounds): drawn again with
	// them, they send frames to the parts drawn with them alone
	Feeders []*planner.ChannelPlan
	// Grants are the tile queue items the lost channels were handed: the
	// stand-in draws them, whether they came or not (its consumer keeps one
	// of each), and pulls the rest for them as they would have. A feeder
	// that pulls tiles is handed the items its live channel was (Repair
	// set), and later ones as that channel pulls them: its tiles went to
	// the dead node, and the live one pulls on for itself.
	Grants []Grant
	// Reading are lost channels (IDs) of Plans that pull tiles and are
	// drawn on several pipes: each of those is handed, here, every item
	// of their queues the channel was and the rest of them (Repair set),
	// and pulls none
	Reading []string
}

// Grant hands a source the next items of a tile queue; Done says the queue
// is empty after them.
type Grant struct {
	Node    string
	Channel string
	Frame   int
	Queue   string
	First   int // index of the first item in the queue
	Tiles   []compound.PixelViewport
	Ranges  []compound.Range
	Done    bool
	// Repair: for the parts of a repair on Node that draw Channel's items
	// again (a live channel's feeder, a lost one's Reading), pulling
	// nothing themselves
	Repair bool
}

// Completed is a finished frame with its statistics.
type Completed struct {
	Frame    int
	Started  time.Time
	Finished time.Time
	Records  []stats.Record
	Degraded bool // shown without an input a lost node never sent, or Undrawn
	// Undrawn are parts of the frame that its plan gave no channel
	// (planner.FramePlan.Undrawn): a planning fault
	Undrawn []string
	Written []string // the images written, by name
	// Errors are what went wrong in the frame: a node's failure, which
	// also fails the run, and what failed without failing the frame (a
	// screenshot not written)
	Errors []string
}

// NodeLoss reports a node the scheduler took out of the run.
type NodeLoss struct {
	Node     string
	Reason   string
	Channels []string // as the config names them (compound.ConfigNames)
	// NeverJoined: the node was taken out before it ever joined (the run
	// goes on without it; it may still join later)
	NeverJoined bool
}

// Ready is what the scheduler decided since the last Advance.
type Ready struct {
	Work      []Work
	Swaps     []Swap
	Abandons  []Abandon
	Repairs   []Repair
	Grants    []Grant
	Completed []Completed
	Lost      []NodeLoss
	// Failure, once set, ends the run: a destination died, a node failed
	// a frame, or a frame did not complete in time.
	Failure string
	// UnfinishedWritten, with a Failure, are the images written for the
	// frames it leaves unfinished, in frame order: they are on disk, and
	// a summary lists every image written.
	UnfinishedWritten []string
	// Finished is set once every frame asked for is complete (or the run
	// was stopped and the frames in flight are).
	Finished bool
	// Slow says, once a frame, that it has taken longer than
	// DefaultFrameTimeout and than twice the slowest recent frame, what
	// it waits for, and how long it may still take: a timeout that
	// follows the frames gives a frame stuck at the start a minute, and
	// the user learns of it before.
	Slow []string
	// WakeAt is when the scheduler wants its next tick (a frame waits for
	// the framerate interval), zero when any tick will do.
	WakeAt time.Time
}

func (r *Ready) empty() bool {
	return len(r.Work) == 0 && len(r.Swaps) == 0 && len(r.Abandons) == 0 && len(r.Repairs) == 0 && len(r.Grants) == 0 &&
		len(r.Completed) == 0 && len(r.Lost) == 0 && r.Failure == "" && !r.Finished && len(r.Slow) == 0
}

type nodeState struct {
	id       string
	index    int                          // in order
	channels map[string]*compound.Channel // by ID
	joined   bool
	joins    int
	alive    bool
	lastSeen time.Time
	gaps     gapWindow // recent gaps between its messages
	waits    []Wait
	// showing are its windows the layouts used at the frame started last
	// (this session)
	showing []*compound.Window
	lostFor string // why it was lost last
	// down are its channels (IDs) on pipes its client could not set up
	// this session, each with why (Join.Down)
	down map[string]string
}

// gapWindow holds a node's last livenessGaps gaps between messages and
// the longest of them, kept as they come: silence is judged often, on
// every node.
type gapWindow struct {
	gaps    [livenessGaps]time.Duration
	n, next int
	longest time.Duration
}

func (w *gapWindow) add(g time.Duration) {
	evicted := time.Duration(-1)
	if w.n == livenessGaps {
		evicted = w.gaps[w.next]
	} else {
		w.n++
	}
	w.gaps[w.next] = g
	w.next = (w.next + 1) % livenessGaps
	if g >= w.longest {
		w.longest = g
	} else if evicted == w.longest {
		w.longest = 0
		for _, x := range w.gaps[:w.n] {
			w.longest = max(w.longest, x)
		}
	}
}

type frameState struct {
	number  int
	plan    *planner.FramePlan
	started time.Time
	// nodes with work this frame, and those that still owe Done
	nodes   nodeSet
	pending nodeSet
	// destination nodes and those at the swap barrier; lostDest: one of
	// the destinations was lost (the run fails, but the others go on)
	dests     nodeSet
	assembled nodeSet
	lostDest  bool
	swapped   bool
	failed    bool // a node's Done carried an error
	// stalled: the runtime stood still while it was in flight, so its
	// time says nothing of how long frames take
	stalled bool
	queues  map[string]*queueState
	// standIns are the nodes whose repairs draw a lost channel's part
	// again (by ID): a stand-in lost in turn loses it again
	standIns map[string][]standIn
	// handedOut is when its tile queues last handed out work: a frame
	// whose sources keep pulling is slow, not stuck
	handedOut time.Time
	done      Completed
}

// standIn is a node that draws a lost part again: its index, and its
// joins then (a node that rejoined since has none of that frame's work).
type standIn struct{ node, joins int }

// nodeSet is a set of the run's nodes by their index in the config's
// order: a frame's sets are looked up for every message of a large wall.
type nodeSet struct {
	in []bool
	n  int
}

func newNodeSet(nodes int) nodeSet { return nodeSet{in: make([]bool, nodes)} }

func (s *nodeSet) has(i int) bool { return s.in[i] }

func (s *nodeSet) add(i int) {
	if !s.in[i] {
		s.in[i] = true
		s.n++
	}
}

func (s *nodeSet) remove(i int) {
	if s.in[i] {
		s.in[i] = false
		s.n--
	}
}

type queueState struct {
	q         *planner.Queue
	next      int
	handedOut time.Time // when it last handed out items
	// given are the items handed to each channel (by ID): a lost one's
	// are drawn again by its stand-in (repair)
	given map[string][]Grant
	// mirrors are the nodes whose repairs draw a live channel's (by ID)
	// items again (a feeder that pulls tiles): each is handed them too
	mirrors map[string][]string
	// pullers are the channels that pull from the queue in the frame
	pullers []puller
	// emptied are the channels (IDs) the queue said it is done to: a
	// queue of small tiles hands out hundreds of thousands of grants
	emptied map[string]bool
}

// puller is a channel (ID) that draws a queue's items for a compound
// (path): its time per item is measured there (Scheduler.tileCost), as
// another layout's queue may cut items of another size.
type puller struct{ channel, compound string }

// listPullers lists each of the frame's queues' pullers: the channels
// with a task on it. A frame without queues (most) has nothing to look at.
func (f *frameState) listPullers() {
	if len(f.queues) == 0 {
		return
	}
	for _, cp := range f.plan.Channels {
		for _, t := range cp.Tasks {
			if q := f.queues[t.Queue]; q != nil && q.pullerOf(cp.Channel.ID).compound == "" {
				q.pullers = append(q.pullers, puller{cp.Channel.ID, t.Compound})
			}
		}
	}
}

// pullerOf is the channel's puller of the queue.
func (q *queueState) pullerOf(channel string) puller {
	if i := slices.IndexFunc(q.pullers, func(p puller) bool { return p.channel == channel }); i >= 0 {
		return q.pullers[i]
	}
	return puller{channel: channel}
}

// Scheduler runs frames for one config. Create it with New.
type Scheduler struct {
	cfg     *compound.Config
	planner Planner
	opt     Options
	latency int

	nodes map[string]*nodeState
	order []*nodeState // the nodes, in config order
	// joinedAll: every node joined once (a lost one stays joined)
	joinedAll bool
	nodeOf    map[string]string // channel ID -> node ID
	// the node of each of the config's channels, by pointer: starting a
	// frame finds every channel plan's node without hashing names
	channelNode map[*compound.Channel]*nodeState
	channels    map[string]*compound.Channel

	now      time.Time
	lastTick time.Time
	// livenessChecked is when silence was last checked for
	livenessChecked time.Time
	// adaptiveTimeout: Options.FrameTimeout was left at 0, and frames are
	// bounded by what recent frames took (frameTimeout)
	adaptiveTimeout bool
	slowFrames      []time.Duration // recent frame times, the warm-up's too
	slowTold        int             // the frame Ready.Slow last told of, plus one
	requested       int
	next            int // next frame to start
	completed       int // frames completed (the next to complete)
	lastCompleted   time.Time
	// stalledOldest is how long the runtime stood still (forgiveStall)
	// while the oldest frame in flight was being judged: a paused server
	// (a debugger's breakpoint, SIGSTOP, a suspended laptop) is not a
	// frame that took too long
	stalledOldest time.Duration
	inflight      map[int]*frameState
	lastStart     time.Time
	interval      time.Duration
	stopping      bool
	finished      bool
	failed        string
	// ending is the failure of a frame that could not start: it ends the
	// run once the frames in flight, which were whole, have completed
	ending    string
	everyNode map[int]bool // frames that go to every node (Request.EveryNode)
	// tileCost is each puller's time per item it drew from a tile queue
	// (seconds; recent frames weigh most), which sizes its grants
	tileCost map[puller]float64

	ready Ready
}

// New makes a scheduler for cfg's nodes that have pipes; frames are
// planned by p.
func New(cfg *compound.Config, p Planner, opt Options) *Scheduler {
	adaptive := opt.FrameTimeout <= 0
	if adaptive {
		opt.FrameTimeout = DefaultFrameTimeout
	}
	if opt.Liveness <= 0 {
		opt.Liveness = DefaultLiveness
	}
	s := &Scheduler{cfg: cfg, planner: p, opt: opt, latency: cfg.Latency, nodes: map[string]*nodeState{},
		nodeOf: map[string]string{}, channels: map[string]*compound.Channel{}, channelNode: map[*compound.Channel]*nodeState{}, inflight: map[int]*frameState{},
		requested: opt.Frames, everyNode: map[int]bool{}, tileCost: map[puller]float64{}, adaptiveTimeout: adaptive}
	only := map[string]bool{}
	for _, id := range opt.Nodes {
		only[id] = true
	}
	for _, n := range cfg.Nodes {
		if len(n.Pipes) == 0 || opt.Nodes != nil && !only[n.ID] {
			continue // nothing to render: not part of the run
		}
		s.order = append(s.order, &nodeState{id: n.ID, index: len(s.order), channels: map[string]*compound.Channel{}})
	}
	// the nodes' names share one allocation: every message's node is found
	// by its name, and names spread over the heap cost a cache miss each to
	// hash (on a wall of 256 nodes, the server loop took 1.70 ms a frame
	// with them, 1.47 with one allocation)
	var names strings.Builder
	for _, ns := range s.order {
		names.WriteString(ns.id)
	}
	packed := names.String()
	for _, ns := range s.order {
		ns.id, packed = packed[:len(ns.id)], packed[len(ns.id):]
		s.nodes[ns.id] = ns
	}
	for _, ch := range cfg.Channels {
		node := ch.Window.Pipe.Node.ID
		s.nodeOf[ch.ID] = node
		s.channels[ch.ID] = ch
		if ns := s.nodes[node]; ns != nil {
			ns.channels[ch.ID] = ch
			s.channelNode[ch] = ns
		}
	}
	return s
}

// NodeStatus is what the scheduler knows of a node.
type NodeStatus struct {
	Node  string
	Joins int // how often it joined (more than once: it rejoined)
	// NeverCame: it never joined, and the run went on without it
	NeverCame bool
	Alive     bool
	LastSeen  time.Time // its last heartbeat or message
	// Lacks are the pipes its client could not set up, alive, each with
	// why (Join.Down), in the node's order
	Lacks []string
}

// NodeStatus reports every node's state, in config order.
func (s *Scheduler) NodeStatus() []NodeStatus {
	out := make([]NodeStatus, 0, len(s.order))
	for _, ns := range s.order {
		out = append(out, NodeStatus{Node: ns.id, Joins: ns.joins, NeverCame: ns.joined && ns.joins == 0, Alive: ns.alive, LastSeen: ns.lastSeen, Lacks: ns.lacks()})
	}
	return out
}

// lacks names the pipes a node alive could not set up, each with why.
func (ns *nodeState) lacks() []string {
	if !ns.alive || len(ns.down) == 0 {
		return nil
	}
	why := map[*compound.Pipe]string{}
	for id, reason := range ns.down {
		if ch := ns.channels[id]; ch != nil {
			why[ch.Window.Pipe] = reason
		}
	}
	pipes := slices.SortedFunc(maps.Keys(why), func(a, b *compound.Pipe) int {
		return slices.Index(a.Node.Pipes, a) - slices.Index(b.Node.Pipes, b)
	})
	out := make([]string, len(pipes))
	for i, p := range pipes {
		out[i] = fmt.Sprintf("%s (%s)", p.Label(), why[p])
	}
	return out
}

// Nodes lists the nodes that take part (those with pipes), in config order.
func (s *Scheduler) Nodes() []string {
	ids := make([]string, len(s.order))
	for i, ns := range s.order {
		ids[i] = ns.id
	}
	return ids
}

// NodeOf returns the node a channel (ID) is on.
func (s *Scheduler) NodeOf(channel string) string { return s.nodeOf[channel] }

// Step feeds one event.
func (s *Scheduler) Step(e Event) {
	switch e := e.(type) {
	case Tick:
		if e.Now.After(s.now) {
			s.now = e.Now
		}
		s.forgiveStall()
		if e.Unread == 0 && s.now.Sub(s.livenessChecked) >= s.opt.Liveness/livenessChecks {
			s.livenessChecked = s.now
			s.checkLiveness()
		}
		s.checkTimeout()
	case Request:
		if s.stopping {
			break // asked for after the run was told to stop
		}
		if hs, ok := s.planner.(HeadSetter); ok {
			for o, h := range e.Heads {
				hs.SetHead(s.requested, o, h)
			}
		}
		if ls, ok := s.planner.(LayoutSetter); ok {
			for cv, i := range e.Layouts {
				ls.SetLayout(s.requested, cv, i)
			}
		}
		if ms, ok := s.planner.(ViewModeSetter); ok {
			for v, stereo := range e.ViewModes {
				ms.SetViewMode(s.requested, v, stereo)
			}
		}
		if us, ok := s.planner.(ModelUnitSetter); ok {
			for v, unit := range e.ModelUnits {
				us.SetModelUnit(s.requested, v, unit)
			}
		}
		if bs, ok := s.planner.(BalancingSetter); ok {
			for v, ch := range e.Balancing {
				bs.SetBalancing(s.requested, v, ch)
			}
		}
		if bf, ok := s.planner.(BalanceFreezer); ok && e.Freeze != nil {
			bf.SetBalanceFrozen(s.requested, *e.Freeze)
		}
		if e.EveryNode {
			for f := s.requested; f < s.requested+e.Frames; f++ {
				s.everyNode[f] = true
			}
		}
		s.requested += e.Frames
	case Resize:
		if ws, ok := s.planner.(WindowSizer); ok {
			ws.SetWindowSize(s.next, e.Window, e.Size)
		}
	case Stop:
		s.stopping = true
		s.requested = s.next
	case Overhead:
		if o, ok := s.planner.(OverheadSetter); ok {
			o.SetOverhead(e.Seconds)
		}
	case Join:
		if ns := s.nodes[e.Node]; ns != nil && !ns.alive {
			// a lost node rejoins: its channels take part again, but those
			// its client could not set up this time
			for id, ch := range ns.channels {
				if _, down := e.Down[id]; down || ns.joined {
					s.planner.SetChannelDown(ch, down)
				}
			}
			ns.joined, ns.alive, ns.lastSeen, ns.gaps, ns.showing, ns.down = true, true, s.now, gapWindow{}, nil, e.Down
			ns.joins++
		}
	case Lost:
		if ns := s.nodes[e.Node]; ns != nil && !ns.joined {
			s.neverJoined(ns, e.Reason)
		} else {
			s.lose(e.Node, e.Reason)
		}
	case Done:
		if ns := s.seen(e.Node); ns != nil {
			s.done(ns, e)
		}
	case Assembled:
		ns := s.seen(e.Node)
		if f := s.inflight[e.Frame]; f != nil && ns != nil && f.dests.has(ns.index) {
			f.assembled.add(ns.index)
			s.releaseSwap(f)
		}
	case Progress:
		if ns := s.seen(e.Node); ns != nil {
			ns.waits = e.Waits
		}
	case Pull:
		s.seen(e.Node)
		s.pull(e)
	}
	s.startFrames()
	s.completeFrames()
}

// HasReady reports whether Ready has anything.
func (s *Scheduler) HasReady() bool { return !s.ready.empty() }

// Ready returns what was decided since the last Advance.
func (s *Scheduler) Ready() Ready {
	r := s.ready
	r.WakeAt = s.wakeAt()
	if r.Failure != "" {
		for n := s.completed; n < s.next; n++ {
			if f := s.inflight[n]; f != nil {
				r.UnfinishedWritten = append(r.UnfinishedWritten, f.done.Written...)
			}
		}
	}
	return r
}

// Advance acknowledges the last Ready: it has been acted upon.
func (s *Scheduler) Advance() { s.ready = Ready{} }

// Failure is why the run failed ("" while it has not).
func (s *Scheduler) Failure() string { return s.failed }

// Finished reports whether every frame asked for is complete.
func (s *Scheduler) Finished() bool { return s.finished }

// Completed is the number of frames completed.
func (s *Scheduler) Completed() int { return s.completed }

// Started is the number of frames started.
func (s *Scheduler) Started() int { return s.next }

// seen notes a message from a node, and returns the node (nil for one
// not in the run).
func (s *Scheduler) seen(node string) *nodeState {
	ns := s.nodes[node]
	if ns != nil && ns.alive {
		ns.gaps.add(s.now.Sub(ns.lastSeen))
		ns.lastSeen = s.now
	}
	return ns
}

// Joined reports whether every node has joined once, or was taken out of
// the run before it did (Lost): frames start from then on.
func (s *Scheduler) Joined() bool { return s.allJoined() }

func (s *Scheduler) allJoined() bool {
	if !s.joinedAll {
		s.joinedAll = !slices.ContainsFunc(s.order, func(ns *nodeState) bool { return !ns.joined })
	}
	return s.joinedAll
}

func (s *Scheduler) wakeAt() time.Time {
	if s.interval > 0 && s.next < s.requested && s.next <= s.completed+s.latency {
		return s.lastStart.Add(s.interval)
	}
	return time.Time{}
}

func (s *Scheduler) fail(reason string) {
	if s.failed == "" {
		s.failed = reason
		s.ready.Failure = reason
	}
}

// endAfterInflight ends the run once the frames in flight have completed
// (completeFrames); no frame starts meanwhile.
func (s *Scheduler) endAfterInflight(reason string) {
	if s.ending == "" {
		s.ending = reason
	}
	if len(s.inflight) == 0 {
		s.fail(reason)
	}
}

// startFrames starts every frame the latency rule and the framerate
// interval allow.
func (s *Scheduler) startFrames() {
	for s.failed == "" && s.ending == "" && s.next < s.requested && s.next <= s.completed+s.latency && s.allJoined() {
		if s.interval > 0 && !s.lastStart.IsZero() && s.now.Before(s.lastStart.Add(s.interval)) {
			return
		}
		s.start(s.next)
		s.next++
	}
}

func (s *Scheduler) start(number int) {
	plan := s.planner.Plan(number)
	// a layout switched to, or the first, shows a destination on a node
	// lost while another was shown, or on a pipe that could not be set
	// up: the frame would leave it dark. The frames before it are the
	// user's, whole: the run ends once they complete
	if why := s.darkDestination(number); why != "" {
		s.endAfterInflight(why)
		return
	}
	n := len(s.order)
	f := &frameState{number: number, plan: plan, started: s.now, nodes: newNodeSet(n), pending: newNodeSet(n),
		dests: newNodeSet(n), assembled: newNodeSet(n), queues: map[string]*queueState{}}
	// a record per channel drawn is the usual count
	f.done = Completed{Frame: number, Started: s.now, Records: make([]stats.Record, 0, len(plan.Channels))}
	if len(plan.Undrawn) > 0 {
		// a planning fault: shown as it is, and never silently
		f.done.Degraded, f.done.Undrawn = true, plan.Undrawn
	}
	s.inflight[number] = f
	s.lastStart = s.now
	s.interval = time.Duration(plan.Interval * float64(time.Second))
	for _, q := range plan.Queues {
		f.queues[q.ID] = &queueState{q: q, given: map[string][]Grant{}, mirrors: map[string][]string{}, emptied: map[string]bool{}}
	}
	f.listPullers()
	works := make([]Work, n) // by node index; one with no Node has none
	for _, cp := range plan.Channels {
		ns := s.channelNode[cp.Channel] // nil: its node is not in the run
		if ns == nil || !ns.alive || len(cp.Tasks) == 0 {
			continue
		}
		w := &works[ns.index]
		w.Node, w.Frame = ns.id, number
		w.Channels = append(w.Channels, cp)
		if s.isDestination(cp) {
			f.dests.add(ns.index)
		}
	}
	if s.everyNode[number] {
		delete(s.everyNode, number)
		for i, ns := range s.order {
			if works[i].Node == "" && ns.alive {
				works[i] = Work{Node: ns.id, Frame: number}
			}
		}
	}
	// windows the layouts used and do not any more are blanked with this
	// frame, on a node that has nothing else to do in it too
	showingOn := map[string][]*compound.Window{}
	for _, w := range plan.Showing {
		showingOn[w.Pipe.Node.ID] = append(showingOn[w.Pipe.Node.ID], w)
	}
	for i, ns := range s.order {
		showing := showingOn[ns.id]
		var blank []*compound.Window
		for _, w := range ns.showing {
			if !slices.Contains(showing, w) {
				blank = append(blank, w)
			}
		}
		ns.showing = showing
		if len(blank) > 0 && ns.alive {
			works[i].Node, works[i].Frame, works[i].Blank = ns.id, number, blank
		}
	}
	for i, w := range works {
		if f.dests.has(i) {
			w.Pace = time.Duration(plan.Pace * float64(time.Second))
		}
		if w.Node != "" {
			f.nodes.add(i)
			f.pending.add(i)
			s.ready.Work = append(s.ready.Work, w)
		}
	}
}

// isDestination reports whether a channel plan shows a result.
func (s *Scheduler) isDestination(cp *planner.ChannelPlan) bool { return cp.Destination }

func (s *Scheduler) done(ns *nodeState, e Done) {
	f := s.inflight[e.Frame]
	if f == nil || !f.pending.has(ns.index) {
		return
	}
	f.pending.remove(ns.index)
	at := e.At
	if at.IsZero() {
		at = s.now
	}
	// A node's statistics steer every later plan: those no run could
	// have written are left out.
	var refused []error
	for _, r := range e.Records {
		if err := r.Check(); err != nil {
			refused = append(refused, err)
			continue
		}
		// when it came, and which channels the frame went without, are
		// the scheduler's word, not the node's
		r.Finished, r.Down = at, nil
		f.done.Records = append(f.done.Records, r)
		if r.Tiles > 0 {
			cost := r.Times.Busy().Seconds() / float64(r.Tiles)
			p := puller{r.Channel, r.Compound}
			if old := s.tileCost[p]; old > 0 {
				cost = (old + cost) / 2
			}
			s.tileCost[p] = cost
		}
	}
	if len(refused) > 0 {
		f.done.Errors = append(f.done.Errors, fmt.Sprintf("node %s: %d of its %d statistics records left out, as no run could have written them: %v",
			e.Node, len(refused), len(e.Records), refused[0]))
	}
	f.done.Written = append(f.done.Written, e.Written...)
	for _, w := range e.Warnings {
		f.done.Errors = append(f.done.Errors, fmt.Sprintf("node %s: %s", e.Node, w))
	}
	if len(e.Degraded) > 0 {
		f.done.Degraded = true
	}
	if e.Err != "" {
		f.failed = true // not a frame done: it stays unfinished
		msg := fmt.Sprintf("frame %d failed on node %s: %s", e.Frame, e.Node, e.Err)
		f.done.Errors = append(f.done.Errors, msg)
		s.fail(msg)
	}
}

func (s *Scheduler) releaseSwap(f *frameState) {
	if f.swapped || f.dests.n < 2 {
		return
	}
	if f.assembled.n < f.dests.n {
		if !f.lostDest {
			return
		}
		for i, ns := range s.order {
			if f.dests.has(i) && ns.alive && !f.assembled.has(i) {
				return
			}
		}
	}
	f.swapped = true
	for i, ns := range s.order {
		if f.dests.has(i) && ns.alive {
			s.ready.Swaps = append(s.ready.Swaps, Swap{Node: ns.id, Frame: f.number})
		}
	}
}

// SwapBarrier reports whether a frame's destinations span several nodes,
// so that they wait for a Swap before showing it.
func (s *Scheduler) SwapBarrier(frame int) bool {
	f := s.inflight[frame]
	return f != nil && f.dests.n > 1
}

func (s *Scheduler) completeFrames() {
	for {
		f := s.inflight[s.completed]
		if f == nil || f.pending.n > 0 || f.failed {
			break
		}
		delete(s.inflight, s.completed)
		s.decayQueueCosts(f)
		f.done.Finished, s.lastCompleted, s.stalledOldest = s.now, s.now, 0
		s.planner.Feed(stats.Frame{Frame: f.number, Records: f.done.Records, Started: f.started, Completed: s.now})
		if took := f.done.Finished.Sub(f.done.Started); !f.stalled {
			s.slowFrames = append(s.slowFrames, took)
			if len(s.slowFrames) > livenessGaps {
				s.slowFrames = s.slowFrames[1:]
			}
		}
		// the nodes' images in the order of their names, not of the
		// nodes' reports: a run's summary lists them the same each time
		slices.Sort(f.done.Written)
		s.ready.Completed = append(s.ready.Completed, f.done)
		s.completed++
	}
	if s.ending != "" && len(s.inflight) == 0 {
		s.fail(s.ending)
	}
	if !s.finished && s.failed == "" && s.completed >= s.requested && len(s.inflight) == 0 && (s.opt.Frames > 0 || s.stopping) {
		s.finished = true
		s.ready.Finished = true
	}
}

// neverJoined takes a node whose client never joined out of the run. As
// Equalizer's config init does under the config's robustness (ON unless
// the config turns it off), the run goes on without a node that shows no
// destination: its channels' work goes to the others, and it takes part
// if it joins later. A node that shows a destination of the layouts shown
// must join, or the run fails: its pictures would be lost. One whose
// destinations are in other layouts is lost as a node that joined, until
// a frame shows one of them (start).
func (s *Scheduler) neverJoined(ns *nodeState, reason string) {
	if !s.cfg.Robust() || s.shownDestination(ns) != nil {
		s.fail(fmt.Sprintf("node %s did not join: %s", ns.id, reason))
		return
	}
	ns.joined, ns.alive = true, true // lost from here, as a node that joined
	s.lose(ns.id, reason)
}

func (s *Scheduler) lose(node, reason string) {
	ns := s.nodes[node]
	if ns == nil || !ns.alive {
		return
	}
	ns.alive, ns.lostFor = false, reason
	var chs []*compound.Channel
	var ids []string
	for id, ch := range ns.channels {
		s.planner.SetChannelDown(ch, true)
		chs = append(chs, ch)
		ids = append(ids, id)
	}
	sort.Strings(ids)
	s.ready.Lost = append(s.ready.Lost, NodeLoss{Node: node, Reason: reason, Channels: compound.ConfigNames(chs), NeverJoined: ns.joins == 0})
	frames := make([]int, 0, len(s.inflight))
	for n := range s.inflight {
		frames = append(frames, n)
	}
	sort.Ints(frames)
	for _, n := range frames {
		f := s.inflight[n]
		if f.dests.has(ns.index) {
			f.lostDest = true
			s.fail(fmt.Sprintf("node %s, which shows the destination, died: %s", node, reason))
		}
		if !f.nodes.has(ns.index) {
			continue
		}
		// Whether the frame lacks the node's part is for its consumers
		// to say: one whose input from it never came reports the frame
		// degraded (Done.Degraded). A node lost after it sent its part,
		// or with nothing to send, costs the frame nothing: marked here,
		// every frame in flight was degraded, latency + 1 of them, though
		// a node that runs ahead has sent most of them whole. Its parts
		// that their consumer can draw itself are drawn there (repair),
		// and only the others are given up.
		abandoned := ids
		if f.pending.has(ns.index) {
			abandoned = s.repair(f, ns, ids)
		}
		f.pending.remove(ns.index)
		// the node's part of this frame is settled: lost again once it
		// rejoined, it has none (its parts drawn again elsewhere were
		// given up for a second time, and frames came out degraded)
		f.nodes.remove(ns.index)
		for i, other := range s.order {
			if f.nodes.has(i) && other.alive && len(abandoned) > 0 {
				s.ready.Abandons = append(s.ready.Abandons, Abandon{Node: other.id, Frame: n, Producers: abandoned, Lost: node})
			}
		}
		s.releaseSwap(f)
	}
	switch {
	case !s.cfg.Robust():
		s.fail(fmt.Sprintf("node %s died: %s (the config's robustness is OFF: the run ends with any node)", node, reason))
	case s.shownDestination(ns) != nil:
		// between frames too, and before the first: the frames after
		// would show nothing there. A node that shows only layouts not
		// shown now is lost as any other; a frame that shows one of them
		// again before it rejoins fails (start)
		s.fail(fmt.Sprintf("node %s, which shows the destination, died: %s", node, reason))
	case s.next > 0 && !slices.ContainsFunc(s.order, func(ns *nodeState) bool { return ns.alive }):
		s.fail("every node is lost")
	}
}

// repair hands the parts of frame f the lost node ns had yet to finish to
// the live channels they go to, to draw them (Repair), and returns the lost
// channels (ids) whose parts it did not hand out. The frame's plan holds
// each part as the lost channel was to draw it, so the frame comes out as
// it would have. Parts go together where one assembles another's frame
// (the node's pipes composite among themselves first), and a group is
// drawn again only where everything it assembles is drawn again too. The
// pipe of each live channel they send to draws, in one repair, what its
// channels need. A part that pulls tiles draws again the tiles it was
// handed and pulls on; one drawn on several pipes is handed the rest of
// its queues at once (Repair.Reading).
// A part that assembles a live node's frames has them drawn again with it
// (theirs went to the dead node: a sort-last exchange's bands, tiles a
// live channel pulled), and what those assemble first in turn (a binary
// swap's earlier rounds). Otherwise its consumers go on without it.
// The parts of a node lost before that ns alone drew again are lost again
// with it, and drawn again as its own are; copies of its parts that
// earlier repairs draw on live nodes (feeders) read on what its parts'
// stand-ins pull, or the rest of their queues where none pulls.
func (s *Scheduler) repair(f *frameState, ns *nodeState, ids []string) []string {
	plansOf := map[string][]*planner.ChannelPlan{}
	for _, cp := range f.plan.Channels {
		if len(cp.Tasks) > 0 {
			plansOf[cp.Channel.ID] = append(plansOf[cp.Channel.ID], cp)
		}
	}
	lost := map[string]*planner.ChannelPlan{} // the lost node's parts, by channel ID
	own := map[string]*planner.ChannelPlan{}  // every channel's part with a plan of its own
	for id, plans := range plansOf {
		part := onePart(plans)
		if s.channelNode[plans[0].Channel] == ns || s.drawnOnlyOn(f, id, ns) {
			lost[id] = part
		}
		if !part.Aside {
			own[id] = part
		}
	}
	ordered := slices.Sorted(maps.Keys(lost))
	// a live channel's frames for a lost part went to the dead node: the
	// part of its plan that sends them is drawn again with it (a feeder),
	// and so are the live channels' parts that feed those in turn (a
	// binary swap's earlier rounds)
	feeders := map[string]*planner.ChannelPlan{}
	wanted := func(c string) bool { return lost[c] != nil || feeders[c] != nil }
	for changed := true; changed; {
		changed = false
		for _, id := range slices.Sorted(maps.Keys(feeders)) {
			changed = addFeeders(feeders[id], lost, own, feeders, wanted) || changed
		}
		for _, id := range ordered {
			changed = addFeeders(lost[id], lost, own, feeders, wanted) || changed
		}
	}
	redrawn := map[string]bool{}
	for id, cp := range lost {
		redrawn[id] = redrawable(cp)
	}
	fed := map[string]bool{} // feeders whose own inputs are drawn again
	for id := range feeders {
		fed[id] = true
	}
	// a part that assembles a frame none drawn again sends is not drawn
	// either: it would wait for it
	produced := func(p, name string, eye int, to string) bool {
		if fd := feeders[p]; fd != nil {
			return fed[p] && sends(fd, name, eye, to)
		}
		return redrawn[p] && sends(lost[p], name, eye, to)
	}
	waitsInVain := func(cp *planner.ChannelPlan) bool {
		return slices.ContainsFunc(cp.Tasks, func(t planner.Task) bool {
			return slices.ContainsFunc(t.Inputs, func(in planner.Input) bool {
				return slices.ContainsFunc(in.Producers, func(p string) bool { return !produced(p, in.Name, t.Eye, cp.Channel.ID) })
			})
		})
	}
	settle := func() {
		for changed := true; changed; {
			changed = false
			for id, cp := range lost {
				if redrawn[id] && waitsInVain(cp) {
					redrawn[id], changed = false, true
				}
			}
			for id, fd := range feeders {
				if fed[id] && waitsInVain(fd) {
					fed[id], changed = false, true
				}
			}
		}
	}
	settle()
	// each pipe that shows a channel a part drawn again sends to draws it
	// for its own, where the node still runs the frame: one pipe may have
	// finished its part of the frame (with the lost node's frame) while
	// another still waits. A part whose own consumers all finished may
	// still feed a live channel's part drawn again for another.
	var pipes []*compound.Pipe
	var waiting map[*compound.Pipe][]string
	for {
		groups := lostGroups(lost, redrawn)
		pipes, waiting = nil, map[*compound.Pipe][]string{}
		giveUp := func(g *lostGroup) {
			for _, id := range g.members {
				redrawn[id] = false
			}
		}
		given := false // up: a group none draws again
		for _, g := range groups {
			if g.outside[""] { // it sends to a lost part not drawn again
				giveUp(g)
				given = true
				continue
			}
			gpipes, gwaiting := s.waitingPipes(f, g.outside)
			for _, p := range gpipes {
				if waiting[p] == nil {
					pipes = append(pipes, p)
				}
				for _, c := range gwaiting[p] {
					if !slices.Contains(waiting[p], c) {
						waiting[p] = append(waiting[p], c)
					}
				}
			}
		}
		if !given {
			break
		}
		settle() // what fed on a part given up waits in vain
	}
	cuts := map[*compound.Pipe]map[string]*planner.ChannelPlan{}
	for _, p := range pipes {
		cuts[p] = repairCuts(lost, redrawn, feeders, fed, waiting[p])
	}
	// a lost part that pulls tiles, drawn on several pipes: each stand-in
	// draws every item, handed it with the repair, and none pulls (two
	// that pulled would share them out; one that drew what the other
	// pulled waited for ever where the other's pipe had finished the frame
	// with the lost node's part and dropped its repair)
	shared := map[string][]string{} // lost channel -> the queues it pulls from
	drawnOn := map[string]int{}     // lost channel -> the pipes it is drawn on
	for _, p := range pipes {
		for id, cut := range cuts[p] {
			if lost[id] == nil {
				continue
			}
			drawnOn[id]++
			for _, t := range cut.Tasks {
				if t.Queue != "" && !slices.Contains(shared[id], t.Queue) {
					shared[id] = append(shared[id], t.Queue)
				}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(shared)) {
		if drawnOn[id] < 2 {
			delete(shared, id)
			continue
		}
		for _, qid := range shared[id] {
			s.handRest(f, qid, id)
		}
	}
	// a lost part drawn nowhere whose items copies of it on live nodes
	// read (a feeder of an earlier loss's repair): none pulls for it now,
	// so they are handed the rest
	for _, id := range ordered {
		if drawnOn[id] > 0 {
			continue
		}
		for _, t := range lost[id].Tasks {
			if q := f.queues[t.Queue]; q != nil && len(q.mirrors[id]) > 0 {
				s.handRest(f, t.Queue, id)
			}
		}
	}
	var repaired []string
	// one repair for each pipe: parts of different groups may feed each
	// other through live channels (a radix-k's rounds), whose parts drawn
	// again then serve both
	for _, p := range pipes {
		slices.Sort(waiting[p])
		node := s.channelNode[s.channels[waiting[p][0]]]
		rp := Repair{Node: node.id, Frame: f.number, For: waiting[p]}
		for _, id := range slices.Sorted(maps.Keys(cuts[p])) {
			if feeders[id] != nil {
				rp.Feeders = append(rp.Feeders, splitPart(cuts[p][id], plansOf[id])...)
				continue
			}
			rp.Plans = append(rp.Plans, splitPart(cuts[p][id], plansOf[id])...)
			if !slices.Contains(repaired, id) {
				repaired = append(repaired, id)
			}
			if f.standIns == nil {
				f.standIns = map[string][]standIn{}
			}
			f.standIns[id] = append(f.standIns[id], standIn{node.index, node.joins})
		}
		if len(rp.Plans) == 0 {
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(cuts[p])) {
			reads := feeders[id] != nil || shared[id] != nil
			if shared[id] != nil {
				rp.Reading = append(rp.Reading, id)
			}
			for _, qid := range slices.Sorted(maps.Keys(f.queues)) {
				q := f.queues[qid]
				if feeders[id] != nil && slices.ContainsFunc(cuts[p][id].Tasks, func(t planner.Task) bool { return t.Queue == qid }) && !slices.Contains(q.mirrors[id], node.id) {
					q.mirrors[id] = append(q.mirrors[id], node.id)
				}
				for _, given := range q.given[id] {
					given.Node, given.Repair = node.id, reads
					rp.Grants = append(rp.Grants, given)
				}
			}
		}
		s.ready.Repairs = append(s.ready.Repairs, rp)
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(repaired, id) })
}

// onePart is a channel's plans of a frame as one part: its own plan's
// tasks after those of its plans aside (a compound of a pixel
// decomposition its channel draws past its own pixels, a stand-in's for
// a channel lost before), whose frames it assembles. splitPart parts
// them again. A channel with no plan of its own is not drawn again.
func onePart(plans []*planner.ChannelPlan) *planner.ChannelPlan {
	if len(plans) == 1 {
		return plans[0]
	}
	var part *planner.ChannelPlan
	var order []*planner.ChannelPlan
	for _, cp := range plans {
		if cp.Aside {
			order = append(order, cp)
		} else {
			part = cp
		}
	}
	if part == nil {
		return plans[0]
	}
	one := *part
	one.Tasks = nil
	for _, cp := range producersFirst(append(order, part)) {
		one.Tasks = append(one.Tasks, cp.Tasks...)
	}
	return &one
}

// producersFirst orders a channel's plans so that each comes after those
// that draw frames it assembles (a plan aside assembling another's
// samples), as they run; otherwise as given. A part is cut after its last
// frame for others by its tasks' place in it: the assembly's frames, drawn
// by a plan after it, were cut off, and it waited for them in vain.
func producersFirst(plans []*planner.ChannelPlan) []*planner.ChannelPlan {
	self := plans[0].Channel.ID
	feeds := func(from, to *planner.ChannelPlan) bool {
		return slices.ContainsFunc(from.Tasks, func(t planner.Task) bool {
			return slices.ContainsFunc(t.Outputs, func(o planner.Output) bool {
				return slices.Contains(o.Consumers, self) && takes(to, o.Name, t.Eye, self)
			})
		})
	}
	placed := make([]bool, len(plans))
	waits := func(i int) bool { // for a plan not placed yet
		for j, o := range plans {
			if j != i && !placed[j] && feeds(o, plans[i]) {
				return true
			}
		}
		return false
	}
	var ordered []*planner.ChannelPlan
	for len(ordered) < len(plans) {
		next := -1
		for i := range plans {
			if placed[i] {
				continue
			}
			if next < 0 {
				next = i // where every plan waits for another: as given
			}
			if !waits(i) {
				next = i
				break
			}
		}
		placed[next] = true
		ordered = append(ordered, plans[next])
	}
	return ordered
}

// takes says whether a plan assembles frame name of eye from producer.
func takes(cp *planner.ChannelPlan, name string, eye int, producer string) bool {
	return slices.ContainsFunc(cp.Tasks, func(t planner.Task) bool {
		return t.Eye == eye && slices.ContainsFunc(t.Inputs, func(in planner.Input) bool {
			return in.Name == name && slices.Contains(in.Producers, producer)
		})
	})
}

// splitPart parts a cut of a part made by onePart into its channel's
// plans, each on a framebuffer of its own as it was in the frame, by the
// tasks' sequence numbers (unique in a frame).
func splitPart(cut *planner.ChannelPlan, plans []*planner.ChannelPlan) []*planner.ChannelPlan {
	if len(plans) == 1 {
		return []*planner.ChannelPlan{cut}
	}
	var out []*planner.ChannelPlan
	for _, cp := range plans {
		part := *cp
		part.Tasks = nil
		for _, t := range cut.Tasks {
			if slices.ContainsFunc(cp.Tasks, func(o planner.Task) bool { return o.Seq == t.Seq }) {
				part.Tasks = append(part.Tasks, t)
			}
		}
		if len(part.Tasks) > 0 {
			part.Destination = cut.Destination && !cp.Aside
			out = append(out, &part)
		}
	}
	return out
}

// lostGroup is lost parts drawn again that send each other frames (a
// node's pipes that composite among themselves first), and the live
// channels they send to ("" for a lost part not drawn again).
type lostGroup struct {
	members []string // channel IDs
	outside map[string]bool
}

// lostGroups parts the lost parts drawn again (redrawn) into groups.
func lostGroups(lost map[string]*planner.ChannelPlan, redrawn map[string]bool) []*lostGroup {
	ordered := slices.Sorted(maps.Keys(lost))
	group := map[string]string{} // part -> its group's first part
	var find func(id string) string
	find = func(id string) string {
		if g, ok := group[id]; ok && g != id {
			g = find(g)
			group[id] = g
			return g
		}
		return id
	}
	for _, id := range ordered {
		if !redrawn[id] {
			continue
		}
		group[id] = find(id)
		for _, c := range consumersOf(lost[id]) {
			if redrawn[c] {
				a, b := find(id), find(c)
				group[max(a, b)] = min(a, b)
			}
		}
	}
	byFirst := map[string]*lostGroup{}
	var groups []*lostGroup
	for _, id := range ordered {
		if !redrawn[id] {
			continue
		}
		g := byFirst[find(id)]
		if g == nil {
			g = &lostGroup{outside: map[string]bool{}}
			byFirst[find(id)] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, id)
		for _, c := range consumersOf(lost[id]) {
			if lost[c] == nil {
				g.outside[c] = true
			} else if !redrawn[c] {
				g.outside[""] = true // to a part not drawn again: none is
			}
		}
	}
	return groups
}

// waitingPipes are the pipes of the live channels (consumers, IDs) that
// still run frame f, in order, with those channels on each.
func (s *Scheduler) waitingPipes(f *frameState, consumers map[string]bool) ([]*compound.Pipe, map[*compound.Pipe][]string) {
	var pipes []*compound.Pipe
	waiting := map[*compound.Pipe][]string{}
	for _, c := range slices.Sorted(maps.Keys(consumers)) {
		ch := s.channels[c]
		if ch == nil {
			continue // "": a lost part
		}
		if cns := s.channelNode[ch]; cns != nil && cns.alive && f.pending.has(cns.index) {
			if waiting[ch.Window.Pipe] == nil {
				pipes = append(pipes, ch.Window.Pipe)
			}
			waiting[ch.Window.Pipe] = append(waiting[ch.Window.Pipe], c)
		}
	}
	return pipes, waiting
}

// redrawable says whether a part could be drawn again by another channel:
// it does not show a destination.
func redrawable(cp *planner.ChannelPlan) bool { return !cp.Destination && !cp.Aside }

// sends says whether a part sends a frame of that name and eye to a
// channel (ID).
func sends(cp *planner.ChannelPlan, name string, eye int, to string) bool {
	return slices.ContainsFunc(cp.Tasks, func(t planner.Task) bool {
		return t.Eye == eye && slices.ContainsFunc(t.Outputs, func(o planner.Output) bool {
			return o.Name == name && slices.Contains(o.Consumers, to)
		})
	})
}

// upTo is a part's tasks up to its last frame for a channel (ID) that
// wants says it needs, nil where it sends none of them one.
func upTo(cp *planner.ChannelPlan, wants func(channel string) bool) *planner.ChannelPlan {
	last := -1
	for i, t := range cp.Tasks {
		if sendsTo(t, wants) {
			last = i
		}
	}
	switch last {
	case -1:
		return nil
	case len(cp.Tasks) - 1:
		return cp
	}
	cut := *cp
	cut.Tasks = cp.Tasks[:last+1]
	return &cut
}

// sendsTo says whether a task sends a frame to a channel (ID) that wants
// says it needs.
func sendsTo(t planner.Task, wants func(channel string) bool) bool {
	return slices.ContainsFunc(t.Outputs, func(o planner.Output) bool { return slices.ContainsFunc(o.Consumers, wants) })
}

// addFeeders adds the feeders of a part drawn again (its live producers'
// parts that send it frames: feeding) to feeders, or lengthens them to
// send what is wanted now; it reports whether any changed.
func addFeeders(cp *planner.ChannelPlan, lost, own, feeders map[string]*planner.ChannelPlan, wanted func(string) bool) bool {
	changed := false
	for _, p := range cp.Producers() {
		if lost[p] != nil || own[p] == nil {
			continue
		}
		// it only grows (wanted does)
		if fd := feeding(own[p], wanted); fd != nil && (feeders[p] == nil || len(fd.Tasks) > len(feeders[p].Tasks)) {
			feeders[p], changed = fd, true
		}
	}
	return changed
}

// repairCuts are the parts drawn again on a pipe for its channels waiting
// for them (IDs), and no more: a sort-last exchange's source sends each
// of them a band, and merges its own from every other source's. A part is
// cut after its last frame for a channel waiting there or for a part drawn
// with it that assembles it, by channel ID: the lost parts drawn again
// (redrawn) and the feeders whose own inputs are (fed).
func repairCuts(lost map[string]*planner.ChannelPlan, redrawn map[string]bool, feeders map[string]*planner.ChannelPlan, fed map[string]bool,
	waiting []string) map[string]*planner.ChannelPlan {
	cuts := map[string]*planner.ChannelPlan{}
	for changed := true; changed; {
		changed = false
		for _, id := range slices.Sorted(maps.Keys(lost)) {
			if redrawn[id] {
				changed = cutFor(lost[id], waiting, cuts) || changed
			}
		}
		for _, id := range slices.Sorted(maps.Keys(feeders)) {
			if fed[id] {
				// its frames for the channels waiting here are the live
				// channel's to send
				changed = cutFor(feeders[id], nil, cuts) || changed
			}
		}
	}
	return cuts
}

// cutFor puts a part's tasks into cuts up to its last frame for a channel
// waiting for it (IDs) or for a part in cuts that assembles it; it
// reports whether cuts grew.
func cutFor(cp *planner.ChannelPlan, waiting []string, cuts map[string]*planner.ChannelPlan) bool {
	id := cp.Channel.ID
	cut := upTo(cp, func(c string) bool {
		return c != id && (slices.Contains(waiting, c) || cuts[c] != nil && slices.Contains(cuts[c].Producers(), id))
	})
	if cut == nil || cuts[id] != nil && len(cuts[id].Tasks) >= len(cut.Tasks) {
		return false
	}
	cuts[id] = cut
	return true
}

// feeding is the part of a live channel's plan that sends frames to the
// channels (IDs) wanted: the tasks of its compounds whose readback goes
// there (a draw of tiles reads back each), and of those on the channel
// beneath them, up to the last that sends there; nil where there are
// none. What they assemble first is drawn again too (its producers feed
// it in turn).
func feeding(cp *planner.ChannelPlan, wanted func(string) bool) *planner.ChannelPlan {
	isWanted := func(c string) bool { return c != cp.Channel.ID && wanted(c) }
	var roots []string
	for _, t := range cp.Tasks {
		if (t.Kind == planner.Readback || t.Queue != "") && sendsTo(t, isWanted) {
			roots = append(roots, t.Compound)
		}
	}
	under := func(path string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return path == r || strings.HasPrefix(path, r+".") })
	}
	above := func(path string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return strings.HasPrefix(r, path+".") })
	}
	// up to its last frame for them: a sort-last exchange's source goes on
	// to merge its own band, which is the live channel's
	last := -1
	for i, t := range cp.Tasks {
		if under(t.Compound) && sendsTo(t, isWanted) {
			last = i
		}
	}
	sub := *cp
	sub.Tasks, sub.Destination = nil, false
	for _, t := range cp.Tasks[:last+1] {
		// a compound above them on the channel clears what they draw
		// into (a destination that draws a range in place clears for
		// each eye: the second eye's draw wants its depth cleared)
		if under(t.Compound) || t.Kind == planner.Clear && above(t.Compound) {
			sub.Tasks = append(sub.Tasks, t)
		}
	}
	if len(sub.Tasks) == 0 {
		return nil
	}
	return &sub
}

// consumersOf are the channels (IDs) a part sends frames to, itself
// left out.
func consumersOf(cp *planner.ChannelPlan) []string {
	var out []string
	for _, t := range cp.Tasks {
		for _, o := range t.Outputs {
			for _, c := range o.Consumers {
				if c != cp.Channel.ID && !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// shownDestination is a channel of a node's that shows a destination in
// the layouts shown now (those of the frame planned last), or nil.
func (s *Scheduler) shownDestination(ns *nodeState) *compound.Channel {
	return s.cfg.ShownDestination(func(ch *compound.Channel) bool { return ns.channels[ch.ID] == ch })
}

// darkDestination says why frame number, planned, would leave a
// destination of the layouts it shows dark: it is on a lost node, or on a
// pipe its node could not set up; "" when none is. The config is walked
// once, and only while a node is lost or lacks a pipe: a frame's control
// time is bounded.
func (s *Scheduler) darkDestination(number int) string {
	if !slices.ContainsFunc(s.order, func(ns *nodeState) bool { return !ns.alive || len(ns.down) > 0 }) {
		return ""
	}
	ch := s.cfg.ShownDestination(func(ch *compound.Channel) bool {
		ns := s.nodes[s.nodeOf[ch.ID]]
		if ns == nil {
			return false
		}
		_, down := ns.down[ch.ID]
		return !ns.alive || down
	})
	if ch == nil {
		return ""
	}
	ns := s.nodes[s.nodeOf[ch.ID]]
	if !ns.alive {
		return fmt.Sprintf("node %s was lost (%s), and %s, a destination of the layouts shown from frame %d, is on it: the run ends, as with the loss of a node that shows the destination",
			ns.id, ns.lostFor, s.describeDestination(ch), number)
	}
	return fmt.Sprintf("node %s: %s could not be set up (%s), and %s, a destination of the layouts shown from frame %d, is on it: the run ends, as the config's robustness goes on only without what shows no destination",
		ns.id, ch.Window.Pipe.Label(), ns.down[ch.ID], s.describeDestination(ch), number)
}

// describeDestination names a destination channel as the config does: a
// canvas' by its segment's channel and its view's layout.
func (s *Scheduler) describeDestination(ch *compound.Channel) string {
	if ch.Source == nil || ch.View == nil || ch.View.Layout == nil {
		return fmt.Sprintf("channel %q", compound.ConfigNames([]*compound.Channel{ch})[0])
	}
	return fmt.Sprintf("channel %q in %s", compound.ConfigNames([]*compound.Channel{ch.Source})[0], s.cfg.LayoutLabel(ch.View.Layout))
}

func (s *Scheduler) pull(e Pull) {
	f := s.inflight[e.Frame]
	if f == nil {
		return
	}
	q := f.queues[e.Queue]
	g := Grant{Node: e.Node, Channel: e.Channel, Frame: e.Frame, Queue: e.Queue, Done: true}
	if n := s.share(q, e.Channel, e.Max); n > 0 && s.handOut(f, q, &g, n) && e.Frame == s.completed {
		s.stalledOldest = 0 // counted from now on
	}
	s.ready.Grants = append(s.ready.Grants, g)
	if q == nil {
		return
	}
	q.give(g)
	s.mirror(q, g)
}

// give records a grant handed out.
func (q *queueState) give(g Grant) {
	q.given[g.Channel] = append(q.given[g.Channel], g)
	q.emptied[g.Channel] = q.emptied[g.Channel] || g.Done
}

// share is how many items channel's pull of up to asked items is
// handed: half its part of what is left, split among the channels that
// pull by their measured speeds (tileCost; alike until measured), and at
// least one (factoring, as loops are scheduled on parallel machines).
// Sources ask for their next batch before drawing the one they hold, so
// a full batch to the first that asks could leave the others nothing to
// draw: six tiles in batches of four among four sources took four
// draws' time where two suffice.
//
// A channel is handed none, and told the queue is done, where channels
// at least twice as fast, still pulling, would draw all that is left
// (and what they hold) before it drew one item: a source slowed by other
// work (a loaded node, a weaker GPU) took its batch and the others
// waited for it, which made a frame that three sources drew in 10 ms
// take 240. Sources only a little slower are not left out (the faster
// ones may still hold tiles to draw). One that drew nothing counts as
// faster each frame (decayQueueCosts), so that it is tried again once
// its load may have gone. Speeds are measured per compound a channel
// pulls for: another layout's queue may cut items of another size.
func (s *Scheduler) share(q *queueState, channel string, asked int) int {
	if q == nil {
		return 0
	}
	left := q.q.Len() - q.next
	if left <= 0 {
		return 0
	}
	var known, sum float64
	for _, p := range q.pullers {
		if c := s.tileCost[p]; c > 0 {
			known, sum = known+1, sum+1/c
		}
	}
	rate := func(p puller) float64 {
		switch c := s.tileCost[p]; {
		case c > 0:
			return 1 / c
		case known > 0:
			return sum / known
		}
		return 1
	}
	me := q.pullerOf(channel)
	mine, total, faster, held := rate(me), 0.0, 0.0, 0
	for _, p := range q.pullers {
		total += rate(p)
		if p.channel != channel && rate(p) >= 2*mine && s.stillPulls(q, p.channel) {
			faster += rate(p)
			held += q.holds(p.channel)
		}
	}
	if s.tileCost[me] > 0 && faster > 0 && float64(left+held)/faster < 1/mine {
		return 0
	}
	return max(1, min(asked, int(float64(left)*mine/total/2)))
}

// holds bounds what a channel has yet to draw of the items it was
// handed: the batch it draws and the one it asked for as it started it.
func (q *queueState) holds(channel string) int {
	n := 0
	given := q.given[channel]
	for _, g := range given[max(0, len(given)-2):] {
		n += len(g.Tiles) + len(g.Ranges)
	}
	return n
}

// stillPulls says whether a channel may pull more of a queue in the
// frame: its node is alive and the queue has not said it is done to it.
func (s *Scheduler) stillPulls(q *queueState, channel string) bool {
	ns := s.nodes[s.nodeOf[channel]]
	return ns != nil && ns.alive && !q.emptied[channel]
}

// decayQueueCosts takes a fifth off the time per item of each channel
// that pulled from a frame's queues but drew nothing: it was handed
// nothing, so its time is not measured again, and the load that slowed
// it may have gone.
func (s *Scheduler) decayQueueCosts(f *frameState) {
	for _, q := range f.queues {
		for _, p := range q.pullers {
			drew := slices.ContainsFunc(q.given[p.channel], func(g Grant) bool { return len(g.Tiles)+len(g.Ranges) > 0 })
			if c := s.tileCost[p]; c > 0 && !drew {
				s.tileCost[p] = 0.8 * c
			}
		}
	}
}

// handRest hands a lost channel the rest of a queue's items in a frame,
// where the queue has not said it is done to it: its stand-ins on
// several pipes (Repair.Reading), or the copies of it that earlier
// repairs draw (mirrors), draw them all, and the live channels that pull
// from the queue are told it is done.
func (s *Scheduler) handRest(f *frameState, queue, channel string) {
	q := f.queues[queue]
	if q == nil || q.emptied[channel] {
		return
	}
	g := Grant{Channel: channel, Frame: f.number, Queue: queue}
	s.handOut(f, q, &g, q.q.Len())
	q.give(g)
	s.mirror(q, g)
}

// mirror hands a grant to the live nodes whose repairs draw its channel's
// items again (queueState.mirrors).
func (s *Scheduler) mirror(q *queueState, g Grant) {
	for _, node := range q.mirrors[g.Channel] {
		if ns := s.nodes[node]; ns != nil && ns.alive {
			m := g
			m.Node, m.Repair = node, true
			s.ready.Grants = append(s.ready.Grants, m)
		}
	}
}

// drawnOnlyOn says whether a lost channel's part of frame f is drawn
// again on node ns and on no other live node: lost with ns, it is lost
// again. Stand-ins lost before count for nothing, rejoined or not (three
// nodes lost one after the other: the first one's part drawn again on
// the second, and then on the third).
func (s *Scheduler) drawnOnlyOn(f *frameState, id string, ns *nodeState) bool {
	on := f.standIns[id]
	return slices.Contains(on, standIn{ns.index, ns.joins}) && !slices.ContainsFunc(on, func(e standIn) bool {
		n := s.order[e.node]
		return n != ns && n.alive && n.joins == e.joins
	})
}

// handOut moves up to n of a queue's next items into a grant, which says
// whether the queue is done after them; it reports whether it moved any.
func (s *Scheduler) handOut(f *frameState, q *queueState, g *Grant, n int) bool {
	g.First = q.next
	for ; n > 0 && q.next < q.q.Len(); n-- {
		if len(q.q.Tiles) > 0 {
			g.Tiles = append(g.Tiles, q.q.Tiles[q.next])
		} else {
			g.Ranges = append(g.Ranges, q.q.Ranges[q.next])
		}
		q.next++
	}
	g.Done = q.next >= q.q.Len()
	if g.First == q.next {
		return false
	}
	f.handedOut, q.handedOut = s.now, s.now
	return true
}

// livenessTimeout is how long a node may be silent: livenessMargin times
// the longest of its recent gaps, at least the configured floor; while its
// gaps are not yet measured, StartupLiveness. Heartbeats do not wait for
// rendering, so slow frames do not lengthen it: they did (four times the
// slowest recent frame) until a frozen node of stress.2D, whose latency
// keeps eleven frames in flight, was found only after 1.2 s, and in a
// whole make test, and runs of 4M triangles beside four busy loops, that
// term never kept a node from being lost that the gaps did not.
func (s *Scheduler) livenessTimeout(ns *nodeState) time.Duration {
	floor := s.opt.Liveness
	if ns.gaps.n < livenessGaps/4 {
		floor = max(floor, StartupLiveness)
	}
	return max(floor, livenessMargin*ns.gaps.longest)
}

// forgiveStall keeps the runtime's own stalls from counting as silence,
// or against the oldest frame's timeout: ticks come at least every
// heartbeat while nodes are alive, so a longer gap between ticks means
// messages waited unread (the runtime was starved, busy or stopped), and
// the nodes cannot be blamed for that time.
func (s *Scheduler) forgiveStall() {
	stall := s.now.Sub(s.lastTick)
	first := s.lastTick.IsZero()
	s.lastTick = s.now
	if first || stall <= s.opt.Liveness/2 {
		return
	}
	if len(s.inflight) > 0 {
		s.stalledOldest += stall
	}
	for _, f := range s.inflight {
		f.stalled = true
	}
	for _, ns := range s.order {
		if ns.alive && !ns.lastSeen.IsZero() {
			ns.lastSeen = ns.lastSeen.Add(stall)
		}
	}
}

func (s *Scheduler) checkLiveness() {
	for _, ns := range s.order {
		if !ns.alive || ns.lastSeen.IsZero() {
			continue
		}
		own := s.livenessTimeout(ns)
		limit := own
		if s.showsAFrameInFlight(ns) {
			limit = max(own, min(destinationSilence, s.opt.FrameTimeout/2))
		}
		if s.now.Sub(ns.lastSeen) > limit {
			why := "" // a destination's loss says it is one
			if limit == own {
				why = s.lengthenedBy(ns, own)
			}
			s.lose(ns.id, fmt.Sprintf("no heartbeat for %v%s", limit.Round(time.Millisecond), why))
		}
	}
}

// lengthenedBy says what made a node's own bound on silence
// (livenessTimeout) longer than the floor, if anything did: a user who was
// promised a second sees why it took longer.
func (s *Scheduler) lengthenedBy(ns *nodeState, limit time.Duration) string {
	switch {
	case limit <= s.opt.Liveness:
		return ""
	case limit == livenessMargin*ns.gaps.longest:
		return fmt.Sprintf(", %d times its longest recent gap between messages", livenessMargin)
	case limit == StartupLiveness:
		return ", as it had only just joined"
	}
	return ""
}

// showsAFrameInFlight reports whether a node shows a destination of a
// frame in flight: losing it would end the run.
func (s *Scheduler) showsAFrameInFlight(ns *nodeState) bool {
	for _, f := range s.inflight {
		if f.dests.has(ns.index) {
			return true
		}
	}
	return false
}

func (s *Scheduler) checkTimeout() {
	if s.failed != "" {
		return
	}
	f := s.inflight[s.completed]
	if f == nil {
		return
	}
	// a frame is judged from when it became the oldest: frames of 5 s at
	// latency 1 started two at a time, and the second one, 10 s after its
	// start, had been on its own for 5
	oldest := f.started
	for _, t := range []time.Time{s.lastCompleted, f.handedOut} {
		if t.After(oldest) {
			oldest = t
		}
	}
	took, limit := s.now.Sub(oldest)-s.stalledOldest, s.frameTimeout()
	if took > limit {
		s.fail(s.diagnose(f))
		return
	}
	if s.adaptiveTimeout && took > DefaultFrameTimeout && took > 2*s.SlowestRecentFrame() && s.slowTold <= f.number {
		s.slowTold = f.number + 1
		s.ready.Slow = append(s.ready.Slow, fmt.Sprintf("frame %d: %s (incomplete after %v; the frame timeout lets it take %v)",
			f.number, strings.Join(s.waiting(f), "; "), took.Round(time.Second), limit))
	}
}

// SlowestRecentFrame is the longest of the recent frames, the warm-up's
// too (0 before any completed): how long a draw of this run may take.
func (s *Scheduler) SlowestRecentFrame() time.Duration { return longest(s.slowFrames) }

// longest is the longest of ds, 0 for none.
func longest(ds []time.Duration) time.Duration {
	l := time.Duration(0)
	for _, d := range ds {
		l = max(l, d)
	}
	return l
}

// frameTimeout is how long the oldest frame in flight may stay
// incomplete: Options.FrameTimeout where it was given, otherwise as long
// as recent frames make it.
func (s *Scheduler) frameTimeout() time.Duration {
	switch {
	case !s.adaptiveTimeout:
		return s.opt.FrameTimeout
	case s.completed == 0:
		return FirstFrameTimeout
	}
	return max(DefaultFrameTimeout, frameTimeoutMargin*s.SlowestRecentFrame())
}

// diagnose says why a frame is incomplete: per pending node, what its
// channels reported waiting for.
func (s *Scheduler) diagnose(f *frameState) string {
	parts := s.waiting(f)
	timeout := s.frameTimeout()
	why := "the frame timeout"
	switch {
	case s.adaptiveTimeout && s.completed == 0:
		why = "the frame timeout before a frame has completed"
	case s.adaptiveTimeout && timeout > DefaultFrameTimeout:
		why = fmt.Sprintf("the frame timeout, %d times the slowest recent frame", frameTimeoutMargin)
	}
	return fmt.Sprintf("frame %d: %s (incomplete after %v, %s: --frame-timeout, an application's Options.FrameTimeout)", f.number, strings.Join(parts, "; "), timeout, why)
}

// waiting says, per pending node of a frame, what its channels reported
// waiting for, and how far its tile queues got.
func (s *Scheduler) waiting(f *frameState) []string {
	var parts []string
	for i, ns := range s.order {
		if !f.pending.has(i) {
			continue
		}
		id := ns.id
		var waits []string
		for _, w := range ns.waits {
			if w.Frame != f.number {
				continue
			}
			label := w.Channel
			if ch := s.channels[w.Channel]; ch != nil {
				label = ch.Label
			}
			waits = append(waits, fmt.Sprintf("channel %s on node %s: waiting for %s", label, id, s.describe(w.What)))
		}
		switch {
		case len(waits) > 0:
		case f.assembled.has(i):
			// its destinations are done: it waits for the others' at the
			// swap barrier
			waits = append(waits, fmt.Sprintf("node %s: at the swap barrier", id))
		default:
			waits = append(waits, fmt.Sprintf("node %s: reported no wait (last heard %v ago)", id, s.now.Sub(ns.lastSeen).Round(time.Millisecond)))
		}
		parts = append(parts, waits...)
	}
	for _, id := range slices.Sorted(maps.Keys(f.queues)) {
		switch q := f.queues[id]; {
		case q.next == 0:
			parts = append(parts, fmt.Sprintf("tile queue %s: none of its %d items handed out", id, q.q.Len()))
		case q.next < q.q.Len():
			parts = append(parts, fmt.Sprintf("tile queue %s: %d of its %d items handed out, the last %v ago", id, q.next, q.q.Len(), s.now.Sub(q.handedOut).Round(time.Millisecond)))
		}
	}
	return parts
}

// describe replaces channel IDs in a wait by labels and their node.
func (s *Scheduler) describe(what string) string {
	for id, ch := range s.channels {
		if strings.Contains(what, "{"+id+"}") {
			what = strings.ReplaceAll(what, "{"+id+"}", fmt.Sprintf("channel %s on node %s", ch.Label, s.nodeOf[id]))
		}
	}
	return what
}
