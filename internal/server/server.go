// Package server is `eqserver run`: I/O around the frame scheduler. It
// loads a config, launches a render client per node (or lets them join),
// feeds the scheduler what the clients report and the time, and carries
// out what it decides: frames' tasks, swap releases, abandons and tiles to
// the clients, statistics to the equalizers and the stats file. Every wait
// is bounded: joins, frames (the scheduler's frame timeout), liveness, the
// clients' exit.
package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/dashboard"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/procstat"
	"github.com/goeq/goeq/internal/reference"
	"github.com/goeq/goeq/internal/scheduler"
	"github.com/goeq/goeq/internal/stats"
	"github.com/goeq/goeq/internal/transport"
)

// Options configure a run.
type Options struct {
	ConfigPath string
	// ConfigText, when set, is the config itself (ConfigPath then only
	// names it in messages): an application may make its config in code.
	ConfigText string
	// Frames is how many frames to render (100 when not positive);
	// Forever renders until Stop or the context ends the run.
	Frames    int
	OutDir    string
	StatsPath string
	Local     bool
	NoLaunch  bool // wait for clients started by hand (eqclient --server)
	// TokenFile holds the run's token for clients started by hand, as a
	// lost node's is to rejoin (eqclient --token-file); empty: they take
	// it from GOEQ_TOKEN, as the server did. TokenMadeUp says that the
	// token was made up for the run and no one else knows it: the run
	// writes it into a file of its own at the first loss, and removes it
	// as it ends.
	TokenFile    string
	TokenMadeUp  bool
	TLSConfig    *tls.Config
	Listen       string // control address; default 127.0.0.1:0
	Token        string
	ClientBinary string // eqclient; default: beside this executable, then PATH
	// ClientOutput takes the output of the clients this server launches
	// (their log); default standard error. Launched clients write it from
	// goroutines of their own: it must take concurrent writes.
	ClientOutput io.Writer
	DumpEvery    int
	Codec        string
	Async        bool
	FullReadback bool // read back whole regions, not just what was drawn
	// Merge is where destinations depth-merge sort-last inputs ("" or
	// auto: the CPU under a software GL; gpu; cpu).
	Merge    string
	Drawable string
	// Compositing, when set, overrides how every sort-last compound
	// composites (a compositing.Strategy word; "" keeps the config's).
	Compositing string
	// Reference renders every destination channel's whole frame itself:
	// the oracle decomposed runs are compared with.
	Reference bool
	// Layout makes a layout of that name the active one on every canvas
	// that has it.
	Layout string
	// BlendRanges runs the config for renderers whose images are
	// translucent colour without depth (a volume): their database parts
	// blend in the renderer's order, whatever the config's frames carry
	// (compound.Options.BlendRanges).
	BlendRanges bool
	// JoinTimeout bounds a node's launch, until its client says hello
	// (30 s; a node's launch_timeout overrides it).
	JoinTimeout time.Duration
	// InitTimeout bounds a node's set-up after its hello: its pipes,
	// windows and the application's renderer factories
	// (DefaultInitTimeout).
	InitTimeout  time.Duration
	FrameTimeout time.Duration // a frame that takes longer fails the run (10 s)
	// Stop, once closed, ends the run after the frames in flight: none
	// starts after it, and those started complete and are written as any
	// other (the summary says Interrupted). Cancelling Run's context ends
	// the run at once instead.
	Stop <-chan struct{}
	// Liveness is the shortest silence after which a node is lost (800 ms;
	// it grows by itself with each node's gaps between messages).
	Liveness time.Duration
	Log      *slog.Logger
	Progress io.Writer // one-line progress (a terminal), or nil

	// App, when set, is an application that drives the run frame by
	// frame (package goeq); Frames is then ignored.
	App *App
	// ClientArgs go before a launched client's own arguments (the
	// application binary's client flag).
	ClientArgs []string
	// NullClients launches eqclient --null for every node (no GL; fixed
	// draw times, empty frames), those on this machine a few processes
	// each serving many nodes (nullProcesses).
	NullClients bool
	// InitData is the application's init data, sent to every client
	// (eqclient's: which built-in renderer, render.Builtin).
	InitData []byte
	// HTTP, when set, serves the run's dashboard and Prometheus metrics
	// on this address.
	HTTP string
	// Overlay draws the statistics overlay over every destination (an
	// application switches it per frame: AppFrame.Overlay).
	Overlay bool
	// Relaunch starts a lost node's client again, up to this many times
	// per node; the node rejoins and gets work again.
	Relaunch int
	// EncryptFrames encrypts the pixel links between nodes (TLS 1.3 with
	// keys made for this run, handed out over the control plane); a TLS
	// control port implies it.
	EncryptFrames bool
}

// App connects a run to the application driving it. Its functions are
// called on the run's goroutine and must not block.
type App struct {
	// Frames carries each frame the application asks for, in order;
	// closing it ends the run once the frames asked for are done.
	Frames <-chan AppFrame
	// Ready is called once every node has joined.
	Ready func(RunInfo)
	// Completed is called as each frame completes, in order, with its
	// statistics.
	Completed func(frame int, degraded bool, records []stats.Record)
	// Input is called with the input events of the nodes' windows, in the
	// order each node saw them.
	Input func(node string, events []control.WindowEvent)
}

// LayoutOff stands for a canvas's `layout OFF` where layouts are
// numbered: the canvas shows nothing.
const LayoutOff = -1

// ChannelInfo names a channel whose identity the statistics give.
type ChannelInfo struct {
	ID   string
	Name string // as the config calls it (destinations of a canvas share their segment channel's)
	Node string // its node, as LostNodes name it
}

// CanvasInfo is what an application learns of a canvas.
type CanvasInfo struct {
	Name string
	// Layouts are the layouts the canvas lists, in its order: indexes in
	// RunInfo.Layouts, or LayoutOff.
	Layouts []int
	// Shows is the one it shows as the run starts (Options.Layout, or its
	// first): an index in RunInfo.Layouts, or LayoutOff.
	Shows int
	// Stuck are the layouts (as Layouts) after a switch to which the
	// frames would wait in a circle, and why (planner.CheckOrder).
	Stuck map[int]string
}

// AppFrame is one frame an application asks for.
type AppFrame struct {
	Data []byte // its frame data, encoded
	// Messages are cluster events every node takes before drawing it.
	Messages [][]byte
	// Heads places tracked observers (by index in the config) from this
	// frame on.
	Heads map[int]compound.Head
	// Overlay, when set, switches the statistics overlay on or off from
	// this frame on.
	Overlay *bool
	// CanvasLayouts show layouts on canvases from this frame on: by
	// canvas index (RunInfo.Canvases), the index in RunInfo.Layouts of a
	// layout the canvas lists, or LayoutOff where it lists `layout OFF`
	// (by index, since layouts and canvases may have no name).
	CanvasLayouts map[int]int `json:",omitempty"`
	// ViewModes makes views (by index in the config's views, layout by
	// layout) stereo (true) or mono from this frame on.
	ViewModes map[int]bool `json:",omitempty"`
	// ModelUnits give views (by index, as ViewModes) those model units
	// from this frame on (compound.View.ModelUnit).
	ModelUnits map[int]float64 `json:",omitempty"`
	// Screenshot, when set, is a folder this frame's destination images
	// are written into, on the nodes that show them.
	Screenshot string `json:",omitempty"`
	// Sample, from 1, makes this frame a refinement of the one before
	// (control.FrameWork.Sample).
	Sample int `json:",omitempty"`
	// FreezeBalance, when set, freezes the load equalizers from this
	// frame on, or lets them balance again.
	FreezeBalance *bool `json:",omitempty"`
	// Balancing changes how views (by index, as ViewModes) are balanced
	// from this frame on.
	Balancing map[int]compound.BalancingChange `json:",omitempty"`
}

// RunInfo is what an application learns of the run once it is ready.
type RunInfo struct {
	Latency   int      // frames that may be in flight beyond the one finishing
	Observers []string // the config's observers' names, by index
	// EyeBases are the observers' eye bases as the config gives them
	// (the distance between their eyes), by index
	EyeBases []float64
	// FocusDistances and FocusModes are the observers' focus as the
	// config gives it, by index
	FocusDistances []float64
	FocusModes     []string
	Layouts        []string // the config's layouts' names
	// Canvases are the config's canvases, with the layouts each lists
	// and shows as the run starts.
	Canvases []CanvasInfo
	Views    []string // the config's views' names, layout by layout
	// ViewLayouts is each view's layout, an index in Layouts, by index
	// as Views.
	ViewLayouts []int
	// Balancing is how each view's compounds are balanced as the run
	// starts, by index as Views.
	Balancing []compound.Balancing
	// StuckStereo and StuckMono are the views (as Views) in whose stereo
	// or mono mode, not the one they start in, the frames would wait in a
	// circle, and why.
	StuckStereo, StuckMono map[int]string
	// FrameTimeout is how long the server lets a frame take before it
	// fails the run: an application on a server of its own gives up on a
	// server silent for much longer while frames are due.
	FrameTimeout time.Duration
	// OnScreen counts the windows shown on a display, on every node that
	// joined: 0 when all draw offscreen (headless, or where no display
	// opened), and no user's input comes from them.
	OnScreen int
	// Channels name every channel of the config, by its identity.
	Channels []ChannelInfo
}

// Summary is what a run reports at the end.
type Summary struct {
	Frames   int     `json:"frames"`
	Seconds  float64 `json:"seconds"`
	FPS      float64 `json:"fps"`
	Degraded int     `json:"degraded_frames"`
	// DegradedFrames are the frames shown (and written) without the part
	// of a node lost while they were in flight: up to latency+1 of them
	// for each loss; or without a part their plan gave no channel, a
	// planning fault (scheduler.Completed.Undrawn). An application that
	// records frames renders them again.
	DegradedFrames []int `json:"degraded_frame_numbers,omitempty"`
	// RepairedFrames are the frames in flight at a loss whose lost parts
	// their consumers drew instead (scheduler.Repair): they are whole.
	RepairedFrames []int    `json:"repaired_frame_numbers,omitempty"`
	LostNodes      []string `json:"lost_nodes,omitempty"`
	// RejoinedNodes lists nodes that came back after a loss (a client
	// started again by hand, or relaunched)
	RejoinedNodes []string `json:"rejoined_nodes,omitempty"`
	// LostPipes lists pipes ("node: pipe") a client could not set up,
	// which the config's robustness let the run go on without
	LostPipes  []string          `json:"lost_pipes,omitempty"`
	Channels   []ChannelSummary  `json:"channels"`
	FinalSplit map[string]string `json:"final_split"`
	Written    []string          `json:"written"`
	// Interrupted is set when the run was stopped early (Options.Stop, or
	// Run's context cancelled).
	Interrupted bool `json:"interrupted,omitempty"`
	// ControlMsPerFrame is the server loop's time per frame (planning,
	// dispatch, statistics), and ServerCPUMsPerFrame the server process's
	// CPU time per frame (also its control streams' encoding), from the
	// first frame on.
	ControlMsPerFrame   float64 `json:"control_ms_per_frame"`
	ServerCPUMsPerFrame float64 `json:"server_cpu_ms_per_frame"`
	// Exchanges counts the frames whose sort-last compounds composited by
	// exchanging bands among their sources, by "compound STRATEGY among
	// N"; frames not counted gathered every image at the compound.
	Exchanges map[string]int `json:"exchanges,omitempty"`
	// CodecBytes is what crossed frame links between nodes, in bytes by
	// codec: what the per-link chooser (--codec auto) picked.
	CodecBytes map[string]int64 `json:"codec_bytes,omitempty"`
}

// ChannelSummary is a channel's mean times over the run (milliseconds).
type ChannelSummary struct {
	Channel  string  `json:"channel"`
	Draw     float64 `json:"draw_ms"`
	Readback float64 `json:"readback_ms"`
	Transmit float64 `json:"transmit_ms"`
	Assemble float64 `json:"assemble_ms"`
	Wait     float64 `json:"wait_ms"`
}

// nodeConn is one node's client: its process (when launched here), its
// control stream and the queue of messages to it.
type nodeConn struct {
	id        string
	model     *compound.Node
	frameAddr string
	onScreen  int // its windows shown on a display, as it said at its join
	cmd       *exec.Cmd
	output    *lastLine // the launched client's output, for messages
	exited    chan struct{}
	// sharesProcess: cmd serves other nodes too (NullClients), and
	// losing this one does not end it
	sharesProcess bool
	// why the launched process ended, set before exited is closed
	exitReason string
	// set while a session holds the node: a second client for the same
	// node is refused, unless the run has lost the node (stale), when a
	// new client takes over
	claimed bool
	stale   bool
	// gen numbers the node's sessions and launches the number of its
	// processes: events of an earlier one are dropped once the node has
	// a newer one (a rejoined node). Written under mu, they are read
	// without it for every event the run loop takes.
	gen      atomic.Int64
	launches atomic.Int64
	// heard is when the node's session last sent anything (UnixNano),
	// and exiting whether its heartbeats said its renderers run their
	// Exit: a client ending after the run is waited for while both hold
	heard   atomic.Int64
	exiting atomic.Bool
	// settingUp is what the client last said its set-up does, nil once
	// it joined
	settingUp atomic.Pointer[string]
	// framed: the run sent it a frame's work (read and written by the
	// run loop alone)
	framed bool
	// caughtUp: this session was sent the messages broadcast before its
	// first frame (run loop only)
	caughtUp bool
	relaunch int // relaunches so far
	// down: lost, and not joined since; lostLaunch and lostGen are its
	// process and session at the loss. A later one that ends before it
	// joins (a client that was to take the node back) is the server's to
	// tell of: the scheduler lost the node already. Run loop only.
	down                bool
	lostLaunch, lostGen int64
	out                 chan *control.ServerMsg
	gone                chan struct{} // closed when the current session ends
	// the frame data last sent (only changes travel) and the version of
	// the peers it has; both start again with each session
	lastData []byte
	dataSent bool
	peersGen int
}

// newSession forgets what an earlier session of the node was sent: a
// rejoined client has none of it.
func (nc *nodeConn) newSession() {
	nc.dataSent, nc.lastData, nc.peersGen, nc.caughtUp = false, nil, 0, false
	nc.exiting.Store(false)
}

// addPeers gives a frame the peers' addresses when the node's session has
// not got this version of them yet.
func (nc *nodeConn) addPeers(fw *control.FrameWork, peers map[string]string, gen int) {
	if nc.peersGen != gen {
		fw.Peers, nc.peersGen = peers, gen
	}
}

// addData gives a frame the application's data, or marks it kept when the
// node's session already has the same: only a change travels.
func (nc *nodeConn) addData(fw *control.FrameWork, data []byte) {
	if nc.dataSent && bytes.Equal(data, nc.lastData) {
		fw.DataKept = true
		return
	}
	fw.Data, nc.lastData, nc.dataSent = data, data, true
}

// sendEarlier sends a node's session, before its first frame, the
// messages broadcast in the frames before it: a node started again (or
// late) had none of them, and its renderers drew without what they set
// (a tint, a transfer function) until the application sent it again.
func (s *server) sendEarlier(nc *nodeConn, first int) {
	batches, dropped, droppedThrough := s.broadcasts.before(first)
	if dropped > 0 {
		s.opt.Log.Warn(fmt.Sprintf("node %s: the oldest messages broadcast, up to frame %d, are not sent to it (the run keeps the last %d MiB): its renderers lack them", nc.id, droppedThrough, maxBroadcastHistory>>20))
	}
	if len(batches) == 0 {
		return
	}
	var frames []int
	for _, b := range batches {
		for _, fm := range b {
			frames = append(frames, fm.Frame)
		}
		s.send(nc, &control.ServerMsg{Earlier: b})
	}
	s.opt.Log.Info(fmt.Sprintf("node %s takes the messages broadcast before its first frame, %d: those of frames %s", nc.id, first, frameList(frames)))
}

// kill ends a launched client and whatever its launcher started.
func (nc *nodeConn) kill() {
	syscall.Kill(-nc.cmd.Process.Pid, syscall.SIGKILL)
	nc.cmd.Process.Kill()
}

// sendQueue bounds the messages waiting for a client; a client that does
// not read them is lost rather than holding the server.
const sendQueue = 1024

// event is what a session reports to the run loop.
type event struct {
	node   string
	ev     scheduler.Event
	failed string // the client could not set up
	// input events of the node's windows, for the application
	input []control.WindowEvent
	// for the dashboard: what the node sent, a destination's image
	links   []control.LinkBytes
	preview *control.Preview
	// the node's connection, and the session (gen) or process (launch) it
	// came from, 0 for none; the application's events have none
	conn        *nodeConn
	gen, launch int64
	// a heartbeat's account of the client process
	health *procstat.Health
	// what a client that is setting up is doing (its hello, its
	// heartbeats until it is ready)
	settingUp string
	// what else wakes the run loop, which takes everything from this one
	// queue (wakeups)
	wake     wakeKind
	appFrame *AppFrame // with wakeAppFrame
}

// wakeKind tells the run loop's own events from the sessions'.
type wakeKind uint8

const (
	wakeNone      wakeKind = iota // ev as it is: a session's, or the application's frames ending
	wakeTick                      // the loop's timer
	wakeStop                      // Options.Stop: the run is interrupted (with a scheduler.Stop)
	wakeAppFrame                  // the application asked for a frame
	wakeCancelled                 // the run's context ended
)

// wakeups makes what else wakes the run loop events on its one queue:
// the returned timer, Options.Stop, the application's frames (their end
// as a scheduler.Stop) and ctx's end, until done is closed. The loop
// parks and wakes many times a frame on a wall, and a select over five
// channels enqueued and dequeued itself on each of them every time.
func (s *server) wakeups(ctx context.Context, done <-chan struct{}) *time.Timer {
	put := func(e event) bool {
		select {
		case s.events <- e:
			return true
		case <-done:
			return false
		}
	}
	// once puts e when c closes (a nil c never does)
	once := func(c <-chan struct{}, e event) {
		go func() {
			select {
			case <-c:
				put(e)
			case <-done:
			}
		}()
	}
	once(ctx.Done(), event{wake: wakeCancelled})
	once(s.opt.Stop, event{wake: wakeStop, ev: scheduler.Stop{}})
	if s.opt.App != nil && s.opt.App.Frames != nil {
		go func() {
			for {
				select {
				case af, ok := <-s.opt.App.Frames:
					if !ok {
						put(event{ev: scheduler.Stop{}})
						return
					}
					if !put(event{wake: wakeAppFrame, appFrame: &af}) {
						return
					}
				case <-done:
					return
				}
			}
		}()
	}
	// a tick that finds the queue full is not needed: the loop has a
	// pass to run anyway
	return time.AfterFunc(0, func() {
		select {
		case s.events <- event{wake: wakeTick}:
		default:
		}
	})
}

type server struct {
	// stuckLayouts (by canvas, then layout, as RunInfo numbers them),
	// stuckStereo and stuckMono (by view) are the switches after which
	// frames would wait in a circle (planner.CheckOrder), and why: an
	// application is refused them
	stuckLayouts           []map[int]string
	stuckStereo, stuckMono map[int]string

	// removeTokenFile takes away the file writeMadeUpToken wrote the
	// run's made-up token into (nil: none written)
	removeTokenFile func()
	// peers is every channel's frame address; it changes only when a node
	// (re)joins, and each node gets it again only then (peersGen counts
	// its versions): sent with every frame, it made the control traffic
	// grow with the square of the nodes. addrChanges counts the sessions
	// that set a node's address (under mu), peersOf its count when peers
	// was built.
	peers       map[string]string
	peersGen    int
	addrChanges int
	peersOf     int

	opt  Options
	cfg  *compound.Config
	text string
	// defaults are the EQ_* environment defaults cfg was resolved with,
	// which every client resolves it with too
	defaults map[string]string
	sched    *scheduler.Scheduler
	plan     *planner.Planner // nil in reference runs
	// exchanges counts frames composited by exchange (Summary.Exchanges)
	exchanges map[string]int
	// balanced is the adaptive policies' state as each frame in flight
	// was planned, and downAt the channels it was planned without, for
	// the statistics file
	balanced map[int][]planner.BalanceState
	downAt   map[int][]string
	nodes    map[string]*nodeConn
	order    []string
	mu       sync.Mutex
	events   chan event
	// frame data by frame, from the application, until the frame is done
	data     map[int][]byte
	messages map[int][][]byte
	// broadcasts: every frame's messages, for nodes that join mid-run
	broadcasts broadcastHistory
	// screenshots are the folders frames write their destinations' images
	// into, as the application asked
	screenshots map[int]string
	// samples are the refine samples of refined frames
	samples map[int]int
	live    *live // the dashboard, when asked for
	// the run's frame-link keys (PEM), when links are encrypted
	frameCert, frameKey []byte
	listening           net.Addr // the control port
	// the statistics overlay: on or off by frame (from the application),
	// and what it shows: the last frame completed, its records made into
	// parts by destination when a frame with the overlay on is sent
	overlayFrom   map[int]bool
	overlayOn     bool
	lastRecords   []stats.Record
	overlayByDest map[string][]control.OverlayPart
	destOf        map[string]string // compound path -> its destination channel
	colours       map[[2]string]int // (channel, destination) -> colour index
	asked         int
}

// Forever, as Options.Frames, renders until the run is stopped.
const Forever = -1

// Run performs a run. On error (or interruption) the summary holds what
// was done so far.
func Run(ctx context.Context, opt Options) (sum *Summary, err error) {
	if opt.Log == nil {
		opt.Log = logging.New(os.Stderr, logging.Text, slog.LevelInfo, "eqserver")
	}
	switch {
	case opt.App != nil:
		opt.Frames = 0 // the application asks for each frame
	case opt.Frames == Forever:
		opt.Frames = math.MaxInt
	case opt.Frames <= 0:
		opt.Frames = 100
	}
	if opt.JoinTimeout == 0 {
		opt.JoinTimeout = 30 * time.Second
	}
	if opt.Token == "" {
		return nil, errors.New("no token: set GOEQ_TOKEN or --token-file")
	}
	if _, _, err := compressor.ParseChoice(opt.Codec); err != nil {
		return nil, err
	}
	text := []byte(opt.ConfigText)
	if opt.ConfigText == "" {
		var err error
		if text, err = configparser.ReadFile(opt.ConfigPath); err != nil {
			return nil, err
		}
	}
	res, err := configparser.Parse(opt.ConfigPath, text)
	if err != nil {
		return nil, err
	}
	defaults := compound.EnvironmentDefaults()
	m, err := compound.Resolve(res, compound.Options{Getenv: compound.Defaults(defaults), BlendRanges: opt.BlendRanges})
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		opt.Log.Warn(w.String())
	}
	cfg := m.Configs[0]
	if opt.Layout != "" {
		if err := cfg.ActivateLayout(opt.Layout); err != nil {
			return nil, err
		}
	}
	if opt.Compositing != "" {
		strategy, err := compositing.Parse(opt.Compositing)
		if err != nil {
			return nil, err
		}
		applied, shared := 0, 0
		exchanging := cfg.SortLast()
		cfg.Walk(func(c *compound.Compound) {
			switch {
			case exchanging[c] != nil:
				c.Attributes[compound.CompositingAttr] = strategy.String()
				applied++
			case c.SortLastSources() != nil:
				shared++
			}
		})
		if shared > 0 {
			opt.Log.Warn(fmt.Sprintf("--compositing %s: %d sort-last compounds of %s composite as written: their sources' windows draw sort-last sources for another destination too, and trees exchanging over the same windows would wait for each other",
				opt.Compositing, shared, opt.ConfigPath))
		}
		if applied == 0 && shared == 0 {
			// the user asked for a strategy and would otherwise believe the run used it
			opt.Log.Warn("--compositing " + opt.Compositing + " changes nothing: no compound of " + opt.ConfigPath +
				" composites sort-last (a DB compound with depth whose children each draw a range of the whole view at its size, unzoomed, into one output frame)")
		}
	}
	stuck, err := planner.CheckOrder(cfg)
	if err != nil {
		return nil, err
	}
	for _, st := range stuck {
		opt.Log.Warn(st.Warning.String())
	}
	s := &server{opt: opt, cfg: cfg, text: string(text), defaults: defaults, nodes: map[string]*nodeConn{}, events: make(chan event, 4096),
		data: map[int][]byte{}, messages: map[int][][]byte{}, broadcasts: broadcastHistory{limit: maxBroadcastHistory}, screenshots: map[int]string{}, samples: map[int]int{}, overlayFrom: map[int]bool{}, overlayOn: opt.Overlay,
		destOf: map[string]string{}, colours: dashboard.ColourIndexes(cfg)}
	s.refuse(stuck)
	cfg.Walk(func(c *compound.Compound) {
		if d := c.Destination(); d != nil && d.Channel != nil {
			s.destOf[c.Path()] = d.Channel.ID
		}
	})
	sopt := scheduler.Options{Frames: opt.Frames, FrameTimeout: opt.FrameTimeout, Liveness: opt.Liveness}
	var p scheduler.Planner
	if opt.Reference {
		ref := reference.New(cfg)
		sopt.Nodes = ref.Nodes()
		p = ref
	} else {
		s.plan = planner.New(cfg)
		if opt.Local || !opt.NoLaunch && allLocal(cfg) {
			// every node shares this machine's cores: the compositing
			// cost model counts the work of all of them
			s.plan.Rates.Cores = float64(runtime.NumCPU())
		}
		if opt.Merge == "gpu" {
			s.plan.Rates.BandsInMemory = false // every merge goes through the GL
		}
		s.exchanges, s.balanced, s.downAt = map[string]int{}, map[int][]planner.BalanceState{}, map[int][]string{}
		p = plannerWithOverhead{s.plan, s.exchanges, s.balanced, s.downAt}
	}
	s.sched = scheduler.New(cfg, p, sopt)
	for _, id := range s.sched.Nodes() {
		for _, n := range cfg.Nodes {
			if n.ID == id {
				s.nodes[id] = &nodeConn{id: id, model: n, out: make(chan *control.ServerMsg, sendQueue), gone: make(chan struct{})}
				s.order = append(s.order, id)
			}
		}
	}
	if len(s.order) == 0 {
		return nil, fmt.Errorf("%s: no node has anything to render", opt.ConfigPath)
	}
	if opt.EncryptFrames || opt.TLSConfig != nil {
		if s.frameCert, s.frameKey, err = transport.NewRunKeys(); err != nil {
			return nil, fmt.Errorf("making the frame links' keys: %w", err)
		}
	}
	if opt.OutDir != "" {
		if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
			return nil, fmt.Errorf("the folder for the images (--out): %w", err)
		}
	}
	// made before any client starts: a path that cannot be written fails
	// the run at once, not once every node has set up
	var statsFile *os.File
	if opt.StatsPath != "" {
		if statsFile, err = os.Create(opt.StatsPath); err != nil {
			return nil, fmt.Errorf("the statistics file (--stats): %w", err)
		}
		defer statsFile.Close() // for the returns before the loop, which closes it
	}
	addr := opt.Listen
	if addr == "" {
		addr = s.listenAddr(m.Server)
	}
	// a client per node, each once more while it rejoins, and room for
	// peers that are refused
	ln, err := control.Listen(addr, 2*len(s.nodes)+64)
	if err != nil && opt.Listen != "" {
		return nil, fmt.Errorf("the control server cannot listen on %s (--listen): %w", addr, err)
	}
	if err != nil {
		return nil, fmt.Errorf("the control server cannot listen on %s, the config's server connection (--listen gives another address; --local runs every node on this machine): %w", addr, err)
	}
	if opt.HTTP != "" {
		if s.live, err = s.startDashboard(opt.HTTP); err != nil {
			return nil, err
		}
		defer func() { s.live.stop(howItEnded(sum, err)) }()
	}
	s.listening = ln.Addr()
	gs := control.NewServer(s, opt.Token, opt.TLSConfig, opt.Log)
	go gs.Serve(ln)
	defer gs.Stop()
	mode := ""
	if opt.Reference {
		mode = " (reference: every destination renders its whole frame)"
	}
	opt.Log.Info(fmt.Sprintf("control server on %s; config %s: %d nodes%s", ln.Addr(), opt.ConfigPath, len(s.order), mode))

	defer s.stopClients(ctx)
	defer func() {
		if s.removeTokenFile != nil {
			s.removeTokenFile()
		}
	}()
	if opt.NoLaunch {
		logging.Prompt(opt.Log, fmt.Sprintf("waiting for nodes %s to join: eqclient --server %s --node NAME, with this server's token (GOEQ_TOKEN or --token-file)", strings.Join(s.order, ", "), ln.Addr()))
	} else if err := s.launch(ln.Addr()); err != nil {
		return nil, err
	}
	return s.loop(ctx, statsFile)
}

// plannerWithOverhead lets the scheduler hand the measured overhead to
// the planner, counts the frames each sort-last compound composited by
// exchange, by strategy, and keeps the adaptive policies' state and the
// channels down as each frame was planned.
type plannerWithOverhead struct {
	*planner.Planner
	exchanges map[string]int
	balanced  map[int][]planner.BalanceState
	downAt    map[int][]string
}

func (p plannerWithOverhead) SetOverhead(seconds float64) { p.Planner.Overhead = seconds }

func (p plannerWithOverhead) Plan(frame int) *planner.FramePlan {
	plan := p.Planner.Plan(frame)
	if b := p.Planner.Balance(); len(b) > 0 {
		p.balanced[frame] = b
	}
	if down := p.Planner.DownChannels(); len(down) > 0 {
		p.downAt[frame] = down
	}
	seen := map[string]bool{}
	for _, x := range plan.Exchanges {
		k := fmt.Sprintf("%s %s among %d", x.Compound, x.Strategy, x.Sources)
		if !seen[k] { // once per frame, not per eye
			seen[k] = true
			p.exchanges[k]++
		}
	}
	return plan
}

// refuse keeps the switches CheckOrder found stuck, numbered as RunInfo
// numbers them, before the run changes any layout or mode.
func (s *server) refuse(stuck []planner.Switch) {
	s.stuckLayouts = make([]map[int]string, len(s.cfg.Canvases))
	views := s.cfg.Views()
	for _, st := range stuck {
		switch {
		case st.Canvas >= 0:
			layout := LayoutOff
			if l := s.cfg.Canvases[st.Canvas].Layouts[st.Layout]; l != nil {
				layout = slices.Index(s.cfg.Layouts, l)
			}
			s.stuckLayouts[st.Canvas] = withKey(s.stuckLayouts[st.Canvas], layout, st.Why)
		case views[st.View].Stereo:
			s.stuckMono = withKey(s.stuckMono, st.View, st.Why)
		default:
			s.stuckStereo = withKey(s.stuckStereo, st.View, st.Why)
		}
	}
}

// stuckLayout says why frames would wait in a circle with canvas cv
// showing layout (numbered as RunInfo does), or "".
func (s *server) stuckLayout(cv, layout int) string {
	if cv < 0 || cv >= len(s.stuckLayouts) {
		return ""
	}
	return s.stuckLayouts[cv][layout]
}

// withKey sets m[k], making m where it is nil.
func withKey(m map[int]string, k int, v string) map[int]string {
	if m == nil {
		m = map[int]string{}
	}
	m[k] = v
	return m
}

// canvasInfos number each canvas's layouts as RunInfo does.
func canvasInfos(cfg *compound.Config) []CanvasInfo {
	var infos []CanvasInfo
	for _, cv := range cfg.Canvases {
		info := CanvasInfo{Name: cv.Name, Shows: LayoutOff}
		for i, l := range cv.Layouts {
			index := LayoutOff
			if l != nil {
				index = slices.Index(cfg.Layouts, l)
			}
			info.Layouts = append(info.Layouts, index)
			if i == cv.ActiveLayout {
				info.Shows = index
			}
		}
		infos = append(infos, info)
	}
	return infos
}

// describeLayout names layout l (index i in the config's; nil: OFF).
func describeLayout(l *compound.Layout, i int) string {
	if l == nil {
		return "OFF"
	}
	return compound.DescribeLayoutName(l.Name, i)
}

func (s *server) clientBinary() string { return ClientBinary(s.opt.ClientBinary) }

// ClientBinary is the eqclient a run starts: given, or the one beside this
// executable, or the one on PATH.
func ClientBinary(given string) string {
	if given != "" {
		return given
	}
	if exe, err := os.Executable(); err == nil {
		sib := strings.TrimSuffix(exe, "eqserver") + "eqclient"
		if _, err := os.Stat(sib); err == nil && sib != exe {
			return sib
		}
	}
	if p, err := exec.LookPath("eqclient"); err == nil {
		return p
	}
	return "eqclient"
}

// launch starts the nodes' clients: here for local nodes (and with
// --local), otherwise through the node's launch_command, with Equalizer's
// %h (the host), %n (the node) and %c (the client's command line, each
// argument in launch_command_quote's quotes). The token goes to the
// client on its standard input, never on a command line or in the
// environment: ssh forwards stdin (which is why goeq's default is "ssh %h
// %c", without Equalizer's -n), and needs no SendEnv.
func (s *server) launch(listening net.Addr) error {
	// null nodes on this machine share processes, those that reach the
	// server at the same address
	var addrs []string
	null := map[string][]string{}
	for _, id := range s.order {
		if nc := s.nodes[id]; s.opt.NullClients && s.runsHere(nc.model.Host) {
			addr := s.addrFor(nc, listening)
			if null[addr] == nil {
				addrs = append(addrs, addr)
			}
			null[addr] = append(null[addr], id)
			continue
		}
		if err := s.launchNodes([]string{id}, listening); err != nil {
			return err
		}
	}
	for _, addr := range addrs {
		for _, group := range nullGroups(null[addr], nullProcesses()) {
			if err := s.launchNodes(group, listening); err != nil {
				return err
			}
		}
	}
	return nil
}

// nullProcesses is how many processes the null nodes on this machine
// share: a process per node left a 2-core machine switching between a
// hundred processes, whose heartbeats came seconds late (128 nodes:
// silences of up to 8 s, 1.4 frames a second, and nodes lost at the
// default liveness); two processes serve them at 59 frames a second, and
// 256 nodes at 28.
func nullProcesses() int { return max(2, runtime.NumCPU()) }

// nullGroups splits ids into at most n groups of consecutive nodes, as
// even as they go.
func nullGroups(ids []string, n int) [][]string {
	n = min(n, len(ids))
	groups := make([][]string, 0, n)
	for i := range n {
		groups = append(groups, ids[i*len(ids)/n:(i+1)*len(ids)/n])
	}
	return groups
}

// launchNodes starts one client process for nodes ids: a node's own, or
// null nodes' shared one (they are all on this machine).
func (s *server) launchNodes(ids []string, listening net.Addr) error {
	bin := s.clientBinary()
	nc := s.nodes[ids[0]]
	args := append([]string(nil), s.opt.ClientArgs...)
	if s.opt.NullClients {
		args = append(args, "--null")
	}
	args = append(args, "--server", s.addrFor(nc, listening))
	for _, id := range ids {
		args = append(args, "--node", id)
	}
	args = append(args, "--token-stdin", "--launched")
	if level := logging.LevelOf(s.opt.Log); level != slog.LevelInfo {
		// the client writes what the server does (an argument, which
		// reaches a client over ssh, where the environment does not)
		args = append(args, "--log-level", level.String())
	}
	var cmd *exec.Cmd
	// eqclient, or the application's executable, whose processes are the
	// render clients of its runs
	client := filepath.Base(bin)
	if s.runsHere(nc.model.Host) {
		cmd = exec.Command(bin, args...)
	} else {
		cmd = exec.Command("sh", "-c", launchLine(nc.model, bin, args))
		// the launcher's own errors name the host, which an unnamed
		// node's name (node6 on host node1) does not
		client = fmt.Sprintf("%s launched on host %s", client, nc.model.Host)
	}
	cmd.Stdin = strings.NewReader(s.opt.Token + "\n" + string(s.launchCert()))
	cmd.Env = withoutToken(os.Environ())
	// the client's output goes to ours; its last line also explains a
	// client that exits before it joins
	last := &lastLine{}
	output := s.opt.ClientOutput
	if output == nil {
		output = os.Stderr
	}
	cmd.Stdout = io.MultiWriter(output, last)
	cmd.Stderr = cmd.Stdout
	// a client dies with the server, whatever ends the server; a
	// launcher's children (ssh, sleep) are in its process group, and
	// one that holds the output open does not hold Wait
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("launching node %s (%s): %w", strings.Join(ids, ", "), bin, err)
	}
	exited := make(chan struct{})
	launches := make([]int64, len(ids))
	s.mu.Lock()
	for i, id := range ids {
		n := s.nodes[id]
		n.cmd, n.output, n.exited, n.sharesProcess = cmd, last, exited, len(ids) > 1
		launches[i] = n.launches.Add(1)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.opt.Log.Info(fmt.Sprintf("node %s: client pid %d", id, cmd.Process.Pid))
	}
	go func() {
		err := cmd.Wait()
		reason := fmt.Sprintf("%s exited (%v)", client, exitText(err))
		if c := last.Crash(); c != "" {
			reason = fmt.Sprintf("%s crashed (%v): %s; its output above has the whole report", client, exitText(err), c)
		} else if l := last.Why(s.opt.ClientBinary, s.opt.ClientArgs); l != "" && !killed(err) {
			reason += ": " + l
		}
		s.mu.Lock()
		for _, id := range ids {
			if n := s.nodes[id]; n.exited == exited { // not since relaunched
				n.exitReason = reason
			}
		}
		s.mu.Unlock()
		close(exited)
		for i, id := range ids {
			s.events <- event{node: id, conn: s.nodes[id], ev: scheduler.Lost{Node: id, Reason: reason}, launch: launches[i]}
		}
	}()
	return nil
}

// processEnd is why the node's launched client ended, when it ends
// within a moment of its control stream: a client that crashed or exited
// closes its stream first, and "the stream ended" would not say that.
// It is empty for a client started by hand, or one that is still there
// (its link was lost).
func (s *server) processEnd(nc *nodeConn) string {
	s.mu.Lock()
	exited := nc.exited
	s.mu.Unlock()
	if exited == nil {
		return ""
	}
	select {
	case <-exited:
	case <-time.After(300 * time.Millisecond):
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return nc.exitReason
}

// joinTimeout is how long a node has to join: its launch_timeout
// (milliseconds, as in Equalizer), else the run's join timeout.
func (s *server) joinTimeout(n *compound.Node) time.Duration {
	if v, err := strconv.Atoi(n.Attributes["launch_timeout"]); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return s.opt.JoinTimeout
}

// stillLaunching says, for a node that has not joined, what its launched
// client is doing: a launcher that hangs (ssh to a host that does not
// answer) prints nothing, and the timeout alone would not point at it.
func (s *server) stillLaunching(nc *nodeConn) string {
	s.mu.Lock()
	cmd, output, exited := nc.cmd, nc.output, nc.exited
	s.mu.Unlock()
	if cmd == nil {
		return ""
	}
	select {
	case <-exited:
		return ""
	default:
	}
	what := fmt.Sprintf("; its client (pid %d) is still running", cmd.Process.Pid)
	if !s.runsHere(nc.model.Host) {
		what = fmt.Sprintf("; its launch_command %q for host %s is still running", launchCommand(nc.model), nc.model.Host)
	}
	if l := output.String(); l != "" {
		return what + ", its last line: " + l
	}
	return what + " and has printed nothing"
}

func launchTimeoutNote(n *compound.Node) string {
	if n.Attributes["launch_timeout"] != "" {
		return ", its launch_timeout"
	}
	return ""
}

// launchCert is the control port's certificate (PEM) that launched
// clients trust, nil without TLS.
func (s *server) launchCert() []byte {
	if s.opt.TLSConfig == nil || len(s.opt.TLSConfig.Certificates) == 0 || len(s.opt.TLSConfig.Certificates[0].Certificate) == 0 {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.opt.TLSConfig.Certificates[0].Certificate[0]})
}

// launchCommand is a node's launch_command, or goeq's default.
func launchCommand(n *compound.Node) string {
	if launch := n.Attributes["launch_command"]; launch != "" {
		return launch
	}
	return "ssh %h %c"
}

// launchLine is a node's launch_command with its %h, %n and %c expanded.
func launchLine(n *compound.Node, bin string, args []string) string {
	launch := launchCommand(n)
	q := "'" // the config gives a character literal: '"' or '\''
	if raw := n.Attributes["launch_command_quote"]; len(raw) >= 3 && raw[0] == '\'' && raw[len(raw)-1] == '\'' {
		if inner := strings.TrimPrefix(raw[1:len(raw)-1], `\`); len(inner) == 1 {
			q = inner
		}
	}
	parts := []string{q + bin + q}
	for _, a := range args {
		parts = append(parts, q+a+q)
	}
	return strings.NewReplacer("%h", n.Host, "%n", n.ID, "%c", strings.Join(parts, " ")).Replace(launch)
}

// withoutToken is an environment without GOEQ_TOKEN: launched clients get
// the token on stdin.
func withoutToken(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "GOEQ_TOKEN=") {
			out = append(out, e)
		}
	}
	return out
}

// killed reports whether a client's end came from outside it (kill -9,
// a TERM, a hang-up): its last line of output then says nothing of why.
func killed(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		return true
	}
	return false
}

func exitText(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// Session serves one client's control stream.
func (s *server) Session(stream grpc.ServerStream, node string) error {
	nc := s.nodes[node]
	if nc == nil {
		s.opt.Log.Warn(fmt.Sprintf("refused a client for unknown node %q", node))
		return fmt.Errorf("unknown node %q (nodes: %s)", node, strings.Join(s.order, ", "))
	}
	s.mu.Lock()
	if nc.claimed && !nc.stale {
		s.mu.Unlock()
		s.opt.Log.Warn(fmt.Sprintf("refused a second client for node %s", node))
		return fmt.Errorf("node %s already has a client", node)
	}
	nc.claimed, nc.stale = true, false
	gen := nc.gen.Add(1)
	out := make(chan *control.ServerMsg, sendQueue)
	gone := make(chan struct{})
	nc.out, nc.gone = out, gone
	s.mu.Unlock()
	// from here on the node's name is the scheduler's own string, which
	// its lookups by node find without comparing bytes
	node = nc.id
	// tell hands the run loop what this session heard
	tell := func(e event) {
		e.node, e.conn, e.gen = node, nc, gen
		s.events <- e
	}
	defer func() {
		s.mu.Lock()
		if nc.gen.Load() == gen {
			nc.claimed = false
		}
		s.mu.Unlock()
		close(gone)
	}()
	hello := &control.ClientMsg{}
	if err := stream.RecvMsg(hello); err != nil || hello.Hello == nil {
		return fmt.Errorf("node %s sent no hello", node)
	}
	if err := control.SameBuild("node "+node+"'s client", hello.Hello.Build); err != nil {
		s.opt.Log.Warn("refused a client: " + err.Error())
		return err
	}
	setup := &control.Setup{ConfigName: s.opt.ConfigPath, ConfigText: s.text, Defaults: s.defaults, Node: node,
		OutDir: s.opt.OutDir, DumpEvery: s.opt.DumpEvery, Codec: s.opt.Codec,
		Drawable: s.opt.Drawable, AsyncReadback: s.opt.Async, FullReadback: s.opt.FullReadback, Merge: s.opt.Merge,
		InputTimeout: max(2*max(s.opt.FrameTimeout, scheduler.DefaultFrameTimeout)+5*time.Second, control.ServerWait()), InitData: s.opt.InitData,
		BlendRanges: s.opt.BlendRanges}
	if s.live != nil {
		setup.PreviewEvery = previewEvery
	}
	setup.FrameCert, setup.FrameKey = s.frameCert, s.frameKey
	setup.FrameHost, setup.FramePort = s.frameConnection(nc.model)
	if err := stream.SendMsg(&control.ServerMsg{Setup: setup}); err != nil {
		return err
	}
	tell(event{settingUp: "taking the config"})
	// the node takes part once it has opened its pipes, windows and
	// channels: frames sent earlier would find nothing to land in
	var down map[string]string // channels of the pipes it could not set up, with why
	var ready *control.ClientMsg
	for {
		m := &control.ClientMsg{}
		if err := stream.RecvMsg(m); err != nil {
			tell(event{failed: "its session ended during setup: " + control.ErrorText(err)})
			return nil
		}
		if m.Failed != "" {
			tell(event{failed: m.Failed})
			return nil
		}
		if m.Ready {
			ready = m
			var why string
			if down, why = s.lostPipes(nc.model, m.LostPipes); why != "" {
				tell(event{failed: why})
				return nil
			}
			break
		}
		nc.heard.Store(time.Now().UnixNano())
		if hb := m.Heartbeat; hb != nil && hb.SettingUp != "" {
			doing := clipText(hb.SettingUp, maxSettingUp)
			nc.settingUp.Store(&doing)
			tell(event{settingUp: doing})
		}
	}
	nc.settingUp.Store(nil)
	frameAddr := hello.Hello.FrameAddr
	if ready.FrameAddr != "" {
		frameAddr = ready.FrameAddr
	}
	if !validFrameAddr(frameAddr) {
		// every peer would dial it
		tell(event{failed: fmt.Sprintf("its frame address %q is no host:port", clipText(frameAddr, 100))})
		return nil
	}
	s.mu.Lock()
	nc.frameAddr = frameAddr
	nc.onScreen = min(max(ready.OnScreen, 0), windowsOf(nc.model))
	s.addrChanges++
	s.mu.Unlock()
	s.opt.Log.Info(fmt.Sprintf("node %s joined (pid %d, frames at %s)", node, hello.Hello.PID, frameAddr))
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case m := <-out:
				if err := stream.SendMsg(m); err != nil {
					return
				}
				if m.Stop || m.Dropped != "" {
					return
				}
			case <-done:
				return
			}
		}
	}()
	if evs := clientEvents(ready.Events); len(evs) > 0 {
		// before the join: the frames planned once it is in take them
		// (a fullscreen window's size on its screen)
		tell(event{input: evs})
	}
	tell(event{ev: scheduler.Join{Node: node, Down: down}})
	for {
		m := &control.ClientMsg{}
		err := stream.RecvMsg(m)
		nc.heard.Store(time.Now().UnixNano())
		if err != nil {
			reason := "control stream ended: " + control.ErrorText(err)
			if why := s.processEnd(nc); why != "" {
				reason = why
			}
			tell(event{ev: scheduler.Lost{Node: node, Reason: reason}})
			return nil
		}
		switch {
		case len(m.Events) > 0:
			if evs := clientEvents(m.Events); len(evs) > 0 {
				tell(event{input: evs})
			}
		case m.Done != nil:
			// the loop takes messages in batches: a batch's time is not
			// when each came
			d := m.Done
			tell(event{ev: scheduler.Done{Node: node, Frame: d.Frame, At: time.Now(), Records: d.Records, Degraded: d.Degraded,
				Written: d.Written, Warnings: d.Warnings, Err: d.Error}, links: d.Links})
		case m.Preview != nil:
			if s.live != nil && len(m.Preview.JPEG) <= control.MaxPreview {
				tell(event{preview: m.Preview})
			}
		case m.Assembled != nil:
			tell(event{ev: scheduler.Assembled{Node: node, Frame: *m.Assembled}})
		case m.Pull != nil:
			tell(event{ev: scheduler.Pull{Node: node, Channel: m.Pull.Channel, Frame: m.Pull.Frame, Queue: m.Pull.Queue, Max: m.Pull.Max}})
		case m.Heartbeat != nil:
			if m.Heartbeat.Exiting {
				nc.exiting.Store(true)
			}
			var waits []scheduler.Wait
			for _, w := range m.Heartbeat.Waits {
				waits = append(waits, scheduler.Wait{Frame: w.Frame, Channel: w.Channel, What: w.What})
			}
			tell(event{ev: scheduler.Progress{Node: node, Waits: waits},
				health: &procstat.Health{Goroutines: m.Heartbeat.Goroutines, RSS: m.Heartbeat.RSS}})
		}
	}
}

// send queues a message for a node; a node whose queue is full is not
// reading and is taken out.
func (s *server) send(nc *nodeConn, m *control.ServerMsg) {
	s.mu.Lock()
	out := nc.out
	s.mu.Unlock()
	select {
	case out <- m:
	default:
		s.sched.Step(scheduler.Lost{Node: nc.id, Reason: fmt.Sprintf("it does not read its messages (%d queued)", sendQueue)})
	}
}

// outOf is the queue of a node's current session.
func (s *server) outOf(id string) chan *control.ServerMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodes[id].out
}

// rejoining reports whether ev comes from a client that was to take the
// lost node back: a process or session that began after the loss (the
// lost one's own ends come after the loss too).
func (nc *nodeConn) rejoining(ev *event) bool {
	return nc.down && (ev.launch > nc.lostLaunch || ev.gen > nc.lostGen)
}

// stale reports an event of a node's earlier session or process, which
// a newer one has replaced.
func (s *server) stale(ev *event) bool {
	nc := ev.conn
	if nc == nil {
		return false
	}
	return ev.gen != 0 && ev.gen != nc.gen.Load() || ev.launch != 0 && ev.launch != nc.launches.Load()
}

// loop runs the scheduler until the run ends, writing each frame's
// statistics to statsFile (when not nil) and closing it.
func (s *server) loop(ctx context.Context, statsFile *os.File) (sum *Summary, err error) {
	var statsOut *json.Encoder
	if f := statsFile; f != nil {
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("writing the statistics (--stats %s): %w", s.opt.StatsPath, cerr)
			}
		}()
		statsOut = json.NewEncoder(f)
	}
	rep := newReport(s, statsOut)
	loopDone := make(chan struct{})
	defer close(loopDone)
	tick := s.wakeups(ctx, loopDone)
	defer tick.Stop()
	joining := newJoinWatch(s.opt.InitTimeout)
	for _, id := range s.order {
		joining.launched(id, time.Now(), s.joinTimeout(s.nodes[id].model))
	}
	joined := map[string]bool{}
	toldReady := false
	overhead := 0.0
	var batch []event
	interrupted := false
	for {
		batch = append(batch[:0], <-s.events)
		if len(s.events) < yieldBelow {
			// the sessions holding messages run before the pass rather
			// than after it: a message's arrival wakes the loop ahead of
			// them, and at 256 nodes passes that took one or two messages
			// each came 300 times a frame (30 with the yield)
			runtime.Gosched()
		}
		// what came while the last pass ran is taken in this one: a wall's
		// messages come in bursts (every node's done, every node's
		// assembled), and a pass per message repeated the pass's own costs
	more:
		for len(batch) < maxBatch {
			select {
			case e := <-s.events:
				batch = append(batch, e)
			default:
				break more
			}
		}
		for i := range batch {
			switch e := &batch[i]; e.wake {
			case wakeCancelled:
				return rep.summary(true), ctx.Err()
			case wakeStop:
				interrupted = true
			case wakeAppFrame:
				req, err := s.request(*e.appFrame)
				if err != nil {
					return rep.summary(false), err
				}
				e.ev = req
			}
		}
		work := time.Now()
		s.sched.Step(scheduler.Tick{Now: work, Unread: len(batch) + len(s.events)})
		joinOrLoss := false
		for i := range batch {
			if e := &batch[i]; e.settingUp != "" && !s.stale(e) {
				joining.settingUp(e.node, e.settingUp, time.Now())
				continue
			}
			ev, err := s.take(&batch[i], rep, joined)
			if err != nil {
				return rep.summary(false), err
			}
			if ev != nil {
				switch e := ev.(type) {
				case scheduler.Join:
					joining.joined(e.Node)
					joinOrLoss = true
				case scheduler.Lost:
					joinOrLoss = true
					nc := s.nodes[e.Node]
					if nc.rejoining(&batch[i]) {
						s.rejoinFailed(nc, e.Reason, joined[e.Node], joining)
						continue
					}
					if !nc.down {
						// (a lost client's second end, its process after
						// its session, is not its new client's to end)
						joining.joined(e.Node) // the scheduler decides whether the run goes on
					}
				}
				s.sched.Step(ev)
			}
		}
		if len(batch) > 0 && len(s.events) == 0 {
			// everything received is stepped: silence can be judged now
			// (the timer's ticks stop coming while messages do)
			s.sched.Step(scheduler.Tick{Now: work})
		}
		if !joining.allJoined() {
			now := time.Now()
			joining.forgiveStall(now)
			for _, id := range s.order {
				nc := s.nodes[id]
				launchNote := func() string { return launchTimeoutNote(nc.model) + s.stillLaunching(nc) }
				if why := joining.overdue(id, now, s.joinTimeout(nc.model), launchNote); why != "" {
					if nc.down {
						s.rejoinFailed(nc, why, joined[id], joining)
						continue
					}
					joining.joined(id)
					s.sched.Step(scheduler.Lost{Node: id, Reason: why})
				}
			}
			for _, note := range joining.stillSettingUp(s.order, now) {
				s.opt.Log.Info(note)
			}
		}
		if !toldReady && s.sched.Joined() {
			toldReady = true
			s.tellReady()
		}
		started := false
		for s.sched.HasReady() {
			rd := s.sched.Ready()
			s.sched.Advance()
			started = started || len(rd.Work) > 0
			if err := s.act(rd, rep, joining); err != nil {
				return rep.summary(false), err
			}
			if rd.Finished {
				return rep.summary(interrupted), nil
			}
		}
		if started {
			// planning and sending a frame's work is the per-frame overhead
			// the adaptive policy sets its balancing period from
			overhead = 0.8*overhead + 0.2*time.Since(work).Seconds()
			s.sched.Step(scheduler.Overhead{Seconds: overhead})
		}
		if s.live != nil {
			s.live.nodes(time.Now(), s.sched.NodeStatus(), joinOrLoss, joining.doing)
		}
		next := 50 * time.Millisecond
		if w := s.sched.Ready().WakeAt; !w.IsZero() && (joining.allJoined() || time.Until(w) < next) {
			// (while nodes join, a pass every 50 ms at the least: the join
			// watch takes a longer gap for the server standing still)
			next = max(time.Until(w), time.Millisecond)
		}
		if !rep.start.IsZero() {
			// the loop's work (planning, dispatch, statistics) once frames
			// run: what bounds the frame rate of a large cluster
			rep.busy += time.Since(work)
		}
		tick.Reset(next)
	}
}

// resized has the frames started from now on follow the windows a user
// of node resized, as Equalizer's do.
func (s *server) resized(node string, events []control.WindowEvent) {
	for _, e := range events {
		if e.W <= 0 || e.H <= 0 {
			continue // not a resize, or minimised: the frames keep their size
		}
		w := s.cfg.WindowByID(e.WindowID)
		switch {
		case w == nil || w.Pipe.Node.ID != node:
			s.opt.Log.Warn(fmt.Sprintf("node %s resized window %q, which it does not have: ignored", node, e.WindowID))
		case e.W > compound.MaxFramebuffer || e.H > compound.MaxFramebuffer:
			s.opt.Log.Warn(fmt.Sprintf("%s resized to %dx%d, larger than a framebuffer may be: its frames keep their size", w.Label(), e.W, e.H))
		default:
			s.sched.Step(scheduler.Resize{Window: w, Size: compound.Size{W: e.W, H: e.H}})
		}
	}
}

// maxBatch bounds the messages one pass of the run loop takes.
const maxBatch = 256

// yieldBelow is the backlog under which the run loop lets the sessions
// run before its pass.
const yieldBelow = 8

// take handles what a session reported outside the scheduler and returns
// the scheduler's event, nil when there is none (a stale session's, an
// input event, a preview).
func (s *server) take(ev *event, rep *report, joined map[string]bool) (scheduler.Event, error) {
	if s.stale(ev) {
		return nil, nil // from a session or process the node has replaced
	}
	if ev.failed != "" {
		// the scheduler decides whether the run goes on without it (or
		// the loop, for a lost node's client that was to rejoin)
		ev.ev = scheduler.Lost{Node: ev.node, Reason: "it failed to set up: " + ev.failed}
	}
	if ev.health != nil && s.live != nil {
		s.live.dash.Process(ev.node, ev.health.Goroutines, ev.health.RSS)
	}
	switch {
	case ev.input != nil:
		s.resized(ev.node, ev.input)
		if s.opt.App != nil && s.opt.App.Input != nil {
			s.opt.App.Input(ev.node, ev.input)
		}
		return nil, nil
	case ev.preview != nil:
		s.live.dash.Preview(ev.preview.Channel, ev.preview.Frame, ev.preview.JPEG)
		return nil, nil
	case len(ev.links) > 0:
		rep.sent(ev.links)
		if s.live != nil {
			s.live.links(ev.node, ev.links, s.sched.NodeOf)
		}
	}
	switch e := ev.ev.(type) {
	case scheduler.Join:
		// a new session has nothing of what earlier ones were sent
		s.nodes[e.Node].newSession()
		s.nodes[e.Node].down = false
		switch {
		case joined[e.Node]:
			s.opt.Log.Info(fmt.Sprintf("node %s rejoined: its channels take part again", e.Node))
			rep.rejoined = append(rep.rejoined, e.Node)
			s.tellApp(e.Node, control.NodeJoinedKind, "")
		case slices.Contains(rep.lost, e.Node):
			s.opt.Log.Info(fmt.Sprintf("node %s joined late: its channels take part from now on", e.Node))
			s.tellApp(e.Node, control.NodeJoinedKind, "")
		}
		joined[e.Node] = true
		for _, ch := range s.cfg.Channels {
			label := e.Node + ": " + ch.Window.Pipe.Label()
			if _, down := e.Down[ch.ID]; down && !slices.Contains(rep.lostPipes, label) {
				rep.lostPipes = append(rep.lostPipes, label)
			}
		}
	}
	return ev.ev, nil
}

// lostPipes checks the pipes a node's client could not set up, and
// returns their channels (IDs), each with why. The run goes on without a
// pipe only under the config's robustness, and while the layouts shown
// have no destination on it (the scheduler's to judge, frame by frame);
// otherwise why says that the node failed to set up.
func (s *server) lostPipes(n *compound.Node, lost []control.LostPipe) (down map[string]string, why string) {
	seen := map[int]bool{}
	var warnings []string // logged once every pipe passed
	for _, l := range lost {
		if l.Pipe < 0 || l.Pipe >= len(n.Pipes) || seen[l.Pipe] {
			return nil, fmt.Sprintf("its client reported pipe %d lost, which the node does not have, or twice", l.Pipe)
		}
		seen[l.Pipe] = true
		pm := n.Pipes[l.Pipe]
		reason := clipText(l.Reason, maxSettingUp)
		if !s.cfg.Robust() {
			return nil, fmt.Sprintf("%s: %s", pm.Label(), reason)
		}
		var chs []*compound.Channel
		for _, ch := range s.cfg.Channels {
			if ch.Window.Pipe == pm {
				if down == nil {
					down = map[string]string{}
				}
				down[ch.ID] = reason
				chs = append(chs, ch)
			}
		}
		while := ""
		if s.cfg.ShowsADestination(func(ch *compound.Channel) bool { return ch.Window.Pipe == pm }) {
			while = " while the layouts shown have no destination on it"
		}
		warnings = append(warnings, fmt.Sprintf("node %s: %s could not be set up (%s): the run goes on without it%s, as the config's robustness (ON unless the config says OFF) lets it; its channels %s leave the compounds",
			n.ID, pm.Label(), reason, while, strings.Join(compound.ConfigNames(chs), ", ")))
	}
	for _, w := range warnings {
		s.opt.Log.Warn(w)
	}
	return down, ""
}

// windowsOf counts a node's windows.
func windowsOf(n *compound.Node) int {
	count := 0
	for _, p := range n.Pipes {
		count += len(p.Windows)
	}
	return count
}

// tellReady gives the application the run's facts once every node has
// joined or the run goes on without it.
func (s *server) tellReady() {
	if s.opt.App == nil || s.opt.App.Ready == nil {
		return
	}
	info := RunInfo{Latency: s.cfg.Latency, FrameTimeout: s.opt.FrameTimeout}
	if info.FrameTimeout <= 0 {
		info.FrameTimeout = scheduler.DefaultFrameTimeout
	}
	for _, l := range s.cfg.Layouts {
		info.Layouts = append(info.Layouts, l.Name)
	}
	info.Canvases = canvasInfos(s.cfg)
	for i := range info.Canvases {
		if i < len(s.stuckLayouts) {
			info.Canvases[i].Stuck = s.stuckLayouts[i]
		}
	}
	info.StuckStereo, info.StuckMono = s.stuckStereo, s.stuckMono
	for _, ch := range s.cfg.Channels {
		info.Channels = append(info.Channels, ChannelInfo{ID: ch.ID, Name: ch.Name, Node: ch.Window.Pipe.Node.ID})
	}
	s.mu.Lock()
	for _, nc := range s.nodes {
		info.OnScreen += nc.onScreen
	}
	s.mu.Unlock()
	for _, o := range s.cfg.Observers {
		info.Observers = append(info.Observers, o.Name)
		info.EyeBases = append(info.EyeBases, o.EyeRight.Sub(o.EyeLeft).Len())
		info.FocusDistances = append(info.FocusDistances, o.FocusDistance)
		info.FocusModes = append(info.FocusModes, o.FocusMode)
	}
	for _, v := range s.cfg.Views() {
		info.Views = append(info.Views, v.Name)
		info.ViewLayouts = append(info.ViewLayouts, slices.Index(s.cfg.Layouts, v.Layout))
		info.Balancing = append(info.Balancing, s.cfg.ViewBalancing(v))
	}
	s.opt.App.Ready(info)
}

// refreshPeers rebuilds the channels' frame addresses when a session set
// a node's address since the last time.
func (s *server) refreshPeers() {
	// sessions set the addresses as they join
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers != nil && s.peersOf == s.addrChanges {
		return
	}
	s.peersOf = s.addrChanges
	s.peersGen++
	s.peers = map[string]string{}
	for _, ch := range s.cfg.Channels {
		if nc := s.nodes[ch.Window.Pipe.Node.ID]; nc != nil && nc.frameAddr != "" {
			s.peers[ch.ID] = nc.frameAddr
		}
	}
}

// processCPU is the CPU time this process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// request takes an application's frame: its data and messages wait for
// the frame's work, its heads go to the planner.
func (s *server) request(af AppFrame) (scheduler.Request, error) {
	frame := s.asked
	s.asked++
	s.data[frame] = af.Data
	if af.Overlay != nil {
		s.overlayFrom[frame] = *af.Overlay
	}
	if af.Screenshot != "" {
		s.screenshots[frame] = af.Screenshot
	}
	if af.Sample < 0 || af.Sample > control.MaxRefineSamples {
		return scheduler.Request{}, fmt.Errorf("frame %d: refine sample %d: want 0 to %d", frame, af.Sample, control.MaxRefineSamples)
	}
	if af.Sample > 0 {
		s.samples[frame] = af.Sample
	}
	req := scheduler.Request{Frames: 1, EveryNode: len(af.Messages) > 0, Freeze: af.FreezeBalance}
	if req.EveryNode {
		s.messages[frame] = af.Messages
		s.broadcasts.add(frame, af.Messages)
	}
	for i, h := range af.Heads {
		if i < 0 || i >= len(s.cfg.Observers) {
			return req, fmt.Errorf("frame %d: no observer %d (the config has %d)", frame, i, len(s.cfg.Observers))
		}
		if err := h.Check(); err != nil {
			return req, fmt.Errorf("frame %d: the head of observer %d: %w", frame, i, err)
		}
		if req.Heads == nil {
			req.Heads = map[*compound.Observer]compound.Head{}
		}
		req.Heads[s.cfg.Observers[i]] = h
	}
	var views []*compound.View
	if len(af.ViewModes)+len(af.ModelUnits)+len(af.Balancing) > 0 {
		views = s.cfg.Views()
	}
	checkView := func(i int) error {
		if i < 0 || i >= len(views) {
			return fmt.Errorf("frame %d: no view %d (the config has %d)", frame, i, len(views))
		}
		return nil
	}
	for i, stereo := range af.ViewModes {
		if err := checkView(i); err != nil {
			return req, err
		}
		stuck, mode := s.stuckMono, "mono"
		if stereo {
			stuck, mode = s.stuckStereo, "stereo"
		}
		if why := stuck[i]; why != "" {
			return req, fmt.Errorf("frame %d: view %d in %s would never complete a frame: %s", frame, i, mode, why)
		}
		if req.ViewModes == nil {
			req.ViewModes = map[*compound.View]bool{}
		}
		req.ViewModes[views[i]] = stereo
	}
	for i, unit := range af.ModelUnits {
		if err := checkView(i); err != nil {
			return req, err
		}
		if err := compound.CheckModelUnit(unit); err != nil {
			return req, fmt.Errorf("frame %d: view %d: %w", frame, i, err)
		}
		if req.ModelUnits == nil {
			req.ModelUnits = map[*compound.View]float64{}
		}
		req.ModelUnits[views[i]] = unit
	}
	for i, ch := range af.Balancing {
		if err := checkView(i); err != nil {
			return req, err
		}
		if err := ch.Check(); err != nil {
			return req, fmt.Errorf("frame %d: view %d: balancing: %w", frame, i, err)
		}
		if req.Balancing == nil {
			req.Balancing = map[*compound.View]compound.BalancingChange{}
		}
		req.Balancing[views[i]] = ch
	}
	for cv, layout := range af.CanvasLayouts {
		if cv < 0 || cv >= len(s.cfg.Canvases) {
			return req, fmt.Errorf("frame %d: no canvas %d: the config has %d", frame, cv, len(s.cfg.Canvases))
		}
		canvas := s.cfg.Canvases[cv]
		var l *compound.Layout // nil: OFF
		if layout != LayoutOff {
			if layout < 0 || layout >= len(s.cfg.Layouts) {
				return req, fmt.Errorf("frame %d: no layout %d: the config has %s", frame, layout, s.cfg.DescribeLayouts())
			}
			l = s.cfg.Layouts[layout]
		}
		i := slices.Index(canvas.Layouts, l)
		if i < 0 {
			return req, fmt.Errorf("frame %d: canvas %d does not list layout %s", frame, cv, describeLayout(l, layout))
		}
		if why := s.stuckLayout(cv, layout); why != "" {
			return req, fmt.Errorf("frame %d: layout %s on canvas %d would never complete a frame: %s", frame, describeLayout(l, layout), cv, why)
		}
		if req.Layouts == nil {
			req.Layouts = map[*compound.Canvas]int{}
		}
		req.Layouts[canvas] = i
	}
	return req, nil
}

// grantMsg is a grant of tile queue items as its node is sent it.
func grantMsg(g scheduler.Grant) control.Grant {
	return control.Grant{Frame: g.Frame, Channel: g.Channel, Queue: g.Queue, First: g.First, Tiles: g.Tiles, Ranges: g.Ranges, Done: g.Done, Repair: g.Repair}
}

// channelWork is a channel's plan as its node is sent it.
func channelWork(cp *planner.ChannelPlan) control.ChannelWork {
	return control.ChannelWork{Channel: cp.Channel.ID, Tasks: cp.Tasks, Destination: cp.Destination, Aside: cp.Aside,
		Viewport: cp.Viewport, WindowSize: cp.WindowSize, View: cp.View}
}

// overlayFor is the statistics overlay of a node's work: the parts of its
// destinations in the last frame completed, when the overlay is on.
func (s *server) overlayFor(w scheduler.Work, rep *report) []control.OverlayPart {
	// a switch holds from its frame on (frames start in order)
	from := -1
	for f, on := range s.overlayFrom {
		if f <= w.Frame && f > from {
			from, s.overlayOn = f, on
		}
	}
	for f := range s.overlayFrom {
		if f <= w.Frame {
			delete(s.overlayFrom, f)
		}
	}
	if !s.overlayOn {
		return nil
	}
	if s.overlayByDest == nil {
		s.overlayByDest = map[string][]control.OverlayPart{}
		for _, r := range s.lastRecords {
			dest := s.destOf[r.Compound]
			s.overlayByDest[dest] = append(s.overlayByDest[dest], control.OverlayPart{Destination: dest, Label: rep.label(r.Channel),
				Colour: s.colours[[2]string{r.Channel, dest}], Viewport: r.Viewport, Range: r.Range, Times: r.Times})
		}
	}
	var out []control.OverlayPart
	for _, cp := range w.Channels {
		if cp.Destination {
			out = append(out, s.overlayByDest[cp.Channel.ID]...)
		}
	}
	return out
}

// relaunch starts a lost node's client again, and watches it join as
// the first one was.
func (s *server) relaunch(nc *nodeConn, joining *joinWatch) {
	nc.relaunch++
	s.opt.Log.Info(fmt.Sprintf("node %s: starting its client again (%d of %d)", nc.id, nc.relaunch, s.opt.Relaunch))
	if err := s.launchNodes([]string{nc.id}, s.listening); err != nil {
		s.opt.Log.Warn(fmt.Sprintf("node %s: %v%s", nc.id, err, s.startAgain(nc.id)))
		return
	}
	joining.launched(nc.id, time.Now(), s.joinTimeout(nc.model))
}

// rejoinFailed tells of a lost node's client that ended, or did not join
// in time, before it joined: the scheduler lost the node already, and
// would drop the end without a word. A client the server started is
// started again while --relaunch allows (a client that crashed as it set
// up was the node's last: the node stayed lost however many relaunches
// were left).
func (s *server) rejoinFailed(nc *nodeConn, why string, joinedBefore bool, joining *joinWatch) {
	joining.joined(nc.id)
	// told once: the same client's other end (its process after its
	// session, or after it is killed here) says nothing new
	nc.lostLaunch, nc.lostGen = nc.launches.Load(), nc.gen.Load()
	did := "did not join"
	if joinedBefore {
		did = "did not rejoin"
	}
	if nc.cmd == nil || s.opt.NoLaunch {
		s.opt.Log.Warn(fmt.Sprintf("node %s %s: %s", nc.id, did, why))
		return
	}
	select {
	case <-nc.exited:
	default:
		if !nc.sharesProcess {
			nc.kill() // stopped, or setting up for ever: its end is stale once another is started
		}
	}
	if nc.relaunch >= s.opt.Relaunch {
		s.opt.Log.Warn(fmt.Sprintf("node %s %s: %s; its client is not started again (--relaunch %d, all taken)", nc.id, did, why, s.opt.Relaunch))
		return
	}
	s.opt.Log.Warn(fmt.Sprintf("node %s %s: %s", nc.id, did, why))
	s.relaunch(nc, joining)
}

// clientEvents are a client's events without those of the server's own
// kinds, which are its word alone.
func clientEvents(evs []control.WindowEvent) []control.WindowEvent {
	return slices.DeleteFunc(evs, func(e control.WindowEvent) bool {
		return e.Kind == control.NodeLostKind || e.Kind == control.NodeJoinedKind
	})
}

// tellApp gives the application the server's own event of a node: lost,
// or joined mid-run.
func (s *server) tellApp(node string, kind int, why string) {
	if s.opt.App != nil && s.opt.App.Input != nil {
		s.opt.App.Input(node, []control.WindowEvent{{Kind: kind, View: -1, Why: why, Time: time.Now().UnixNano()}})
	}
}

// startAgain says how to start a lost node's client again by hand (an
// eqclient, or the application's executable as its client): where no
// GOEQ_TOKEN was set the run's token was made up, and goes in TokenFile.
func (s *server) startAgain(node string) string {
	if err := s.writeMadeUpToken(); err != nil {
		return fmt.Sprintf("; its client cannot be started again by hand: the run's token could not be written for it (%v)", err)
	}
	client, whose := "eqclient", "server's"
	if len(s.opt.ClientArgs) > 0 { // an application's executable
		client, whose = strings.Join(append([]string{s.opt.ClientBinary}, s.opt.ClientArgs...), " "), "application's"
	}
	how := fmt.Sprintf("; started again by hand, its client rejoins: %s --server %s --node %s", client, s.listening, node)
	if s.opt.TokenFile != "" {
		return how + " --token-file " + s.opt.TokenFile
	}
	return how + ", with the " + whose + " GOEQ_TOKEN"
}

// writeMadeUpToken puts a made-up token into TokenFile, once. It is
// written at the first loss, not at the start: a run that loses no node
// leaves no file, even where it is killed.
func (s *server) writeMadeUpToken() error {
	if !s.opt.TokenMadeUp || s.opt.TokenFile != "" {
		return nil
	}
	path, remove, err := control.WriteTokenFile(s.opt.Token)
	if err != nil {
		return err
	}
	s.opt.TokenFile, s.removeTokenFile = path, remove
	return nil
}

// act carries out one Ready; joining watches the clients it starts again.
func (s *server) act(rd scheduler.Ready, rep *report, joining *joinWatch) error {
	for _, slow := range rd.Slow {
		s.opt.Log.Warn(slow)
	}
	for _, l := range rd.Lost {
		nc := s.nodes[l.Node]
		// a loss that ends the run (a destination's node) is not worth a
		// new client: it would only be stopped again
		relaunchable := nc.cmd != nil && nc.cmd.Process != nil && nc.relaunch < s.opt.Relaunch && !s.opt.NoLaunch
		relaunch := relaunchable && rd.Failure == ""
		// the server starts it again and says so next; a hint to start it
		// by hand would race that client
		again := func() string {
			if relaunch {
				return "; its client is started again"
			}
			return s.startAgain(l.Node)
		}
		switch {
		case rd.Failure != "":
			// the run ends (its failure says why): nothing to leave
			// the compounds or to start again, and a user who asked
			// for relaunches is told why this node gets none
			why := ""
			if relaunchable {
				why = fmt.Sprintf("; its client is not started again, as the run ends (--relaunch %d starts again only the nodes a run goes on without)", s.opt.Relaunch)
			}
			s.opt.Log.Warn(fmt.Sprintf("node %s lost (%s)%s", l.Node, l.Reason, why))
		case l.NeverJoined:
			s.opt.Log.Warn(fmt.Sprintf("node %s did not join (%s): the run goes on without it, as the config's robustness (ON unless the config says OFF) lets it; its channels %s leave the compounds%s", l.Node, l.Reason, strings.Join(l.Channels, ", "), again()))
		default:
			s.opt.Log.Warn(fmt.Sprintf("node %s lost (%s): its channels %s leave the compounds%s", l.Node, l.Reason, strings.Join(l.Channels, ", "), again()))
		}
		rep.lost = append(rep.lost, l.Node)
		s.tellApp(l.Node, control.NodeLostKind, l.Reason)
		nc.down, nc.lostLaunch, nc.lostGen = true, nc.launches.Load(), nc.gen.Load()
		s.mu.Lock()
		nc.stale = true // a new client may take the node over
		out := nc.out
		s.mu.Unlock()
		// a client still there (stopped, then continued) would otherwise
		// wait for work that goes to others: it is told, and ends
		select {
		case out <- &control.ServerMsg{Dropped: l.Reason}:
		default:
		}
		if nc.cmd != nil && nc.cmd.Process != nil {
			if !nc.sharesProcess { // a shared one ends the node on Dropped
				nc.kill()
			}
			if relaunch {
				s.relaunch(nc, joining)
			}
		}
	}
	if len(rd.Work) > 0 {
		if rep.start.IsZero() {
			rep.start = time.Now()
			rep.startCPU = processCPU()
		}
		s.refreshPeers()
		for _, w := range rd.Work {
			fw := &control.FrameWork{Frame: w.Frame, SwapBarrier: s.sched.SwapBarrier(w.Frame), Pace: w.Pace, Messages: s.messages[w.Frame], Screenshot: s.screenshots[w.Frame],
				Sample: s.samples[w.Frame], Overlay: s.overlayFor(w, rep)}
			for _, cp := range w.Channels {
				fw.Channels = append(fw.Channels, channelWork(cp))
			}
			for _, win := range w.Blank {
				fw.Blank = append(fw.Blank, win.ID)
			}
			nc := s.nodes[w.Node]
			nc.framed = true
			if !nc.caughtUp {
				nc.caughtUp = true
				s.sendEarlier(nc, w.Frame)
			}
			nc.addPeers(fw, s.peers, s.peersGen)
			if s.opt.App != nil {
				nc.addData(fw, s.data[w.Frame])
			}
			s.send(nc, &control.ServerMsg{Frame: fw})
		}
	}
	for _, sw := range rd.Swaps {
		f := sw.Frame
		s.send(s.nodes[sw.Node], &control.ServerMsg{Swap: &f})
	}
	for _, a := range rd.Abandons {
		s.send(s.nodes[a.Node], &control.ServerMsg{Abandon: &control.Abandon{Frame: a.Frame, Producers: a.Producers, From: a.Lost}})
	}
	for _, r := range rd.Repairs {
		rep.repaired(r)
		m := &control.Repair{Frame: r.Frame, For: r.For, Reading: r.Reading}
		for _, cp := range r.Plans {
			m.Lost = append(m.Lost, channelWork(cp))
		}
		for _, cp := range r.Feeders {
			m.Feeders = append(m.Feeders, channelWork(cp))
		}
		for _, g := range r.Grants {
			m.Grants = append(m.Grants, grantMsg(g))
		}
		s.send(s.nodes[r.Node], &control.ServerMsg{Repair: m})
	}
	for _, g := range rd.Grants {
		m := grantMsg(g)
		s.send(s.nodes[g.Node], &control.ServerMsg{Grant: &m})
	}
	for _, c := range rd.Completed {
		rep.complete(c)
		if rep.statsErr != nil {
			return rep.statsErr
		}
		s.lastRecords, s.overlayByDest = c.Records, nil
		if s.live != nil {
			s.live.completed(c)
		}
		delete(s.data, c.Frame)
		delete(s.messages, c.Frame)
		delete(s.screenshots, c.Frame)
		delete(s.samples, c.Frame)
		if s.opt.App != nil && s.opt.App.Completed != nil {
			s.opt.App.Completed(c.Frame, c.Degraded, c.Records)
		}
	}
	if rd.Failure != "" {
		rep.written = append(rep.written, rd.UnfinishedWritten...)
		return errors.New(rd.Failure)
	}
	return nil
}

// A launched client ends after the run's stop once its pipes have ended
// their frames and run their renderers' Exit, the application's code,
// which may free much or write files: it has exitGrace while its
// heartbeats say it is in those (and go on), and a second otherwise, or
// once it has been silent for exitSilence after that. A client still in
// a draw has as long as the run's frames make a draw last (stopClients'
// drawGrace); one whose draw does not return is not waited for longer.
// One whose session has ended since the stop has done its part and is on
// its way out: the kernel reclaims its memory before its process is gone,
// which took 4 s for a render client on a loaded machine, and it has
// exitReap for that.
const (
	exitGrace   = 30 * time.Second
	exitSilence = time.Second
	exitReap    = 10 * time.Second
)

// stopClients tells every client to stop and gives them a second to exit
// (to end their sessions, where started by hand); launched ones heard
// from in a draw get up to drawGrace, in their renderers' Exit up to
// exitGrace, and those whose sessions ended since the stop up to
// exitReap, unless ctx has ended (a second interrupt: the second is all
// they get). Stragglers are killed (no orphans), with a warning, and
// their ends awaited together for half a second more.
func (s *server) stopClients(ctx context.Context) {
	for _, id := range s.order {
		select {
		case s.outOf(id) <- &control.ServerMsg{Stop: true}:
		default:
		}
	}
	// the sessions open at the stop: one that ends after it was the
	// client leaving as told (a client started by hand is waited for
	// until its session ends)
	open := map[*nodeConn]chan struct{}{}
	s.mu.Lock()
	for _, nc := range s.nodes {
		if nc.claimed {
			open[nc] = nc.gone
		}
	}
	s.mu.Unlock()
	stopped := time.Now()
	deadline := stopped.Add(time.Second)
	// a client heard from that has yet to end its frames is in a draw
	// (a stop that ends a failed run comes mid-frame): it may take three
	// of the run's slowest recent frames, three seconds at least; past
	// that, it is a draw that does not return (a draw of a big frame on
	// a software GL takes seconds, and was killed before the renderers'
	// Exit at the second it had)
	drawGrace := min(exitGrace, max(3*time.Second, 3*s.sched.SlowestRecentFrame()))
	var launched, killed []*nodeConn
	for _, id := range s.order {
		nc := s.nodes[id]
		if nc.cmd != nil {
			launched = append(launched, nc)
			continue
		}
		// a client started by hand: let it read the stop and leave,
		// or it finds the connection gone and reports an error
		if gone := open[nc]; gone != nil {
			select {
			case <-gone:
			case <-time.After(time.Until(deadline)):
			}
		}
	}
	for len(launched) > 0 {
		var left []*nodeConn
		for _, nc := range launched {
			select {
			case <-nc.exited:
				continue
			default:
			}
			since, silent := time.Since(stopped), time.Since(time.Unix(0, nc.heard.Load()))
			leaving := false // its session ended since the stop
			if gone := open[nc]; gone != nil {
				select {
				case <-gone:
					leaving = true
				default:
				}
			}
			drawing := nc.framed && !nc.exiting.Load() && silent < exitSilence
			if since < time.Second || ctx.Err() == nil && drawing && since < drawGrace || ctx.Err() == nil && nc.exiting.Load() && since < exitGrace && silent < exitSilence || ctx.Err() == nil && leaving && since < exitReap {
				left = append(left, nc)
				continue
			}
			why := fmt.Sprintf("silent for %v", silent.Round(time.Millisecond))
			switch {
			case leaving:
				why = "its session ended, its process still exiting"
			case nc.heard.Load() == 0:
				why = "not heard from since it was launched: still starting"
			case nc.settingUp.Load() != nil:
				why = "still setting up, last " + *nc.settingUp.Load()
			case ctx.Err() != nil:
				why = "the run was stopped at once"
			case silent < exitSilence && nc.exiting.Load():
				why = "still in its renderers' Exit"
			case silent < exitSilence && !nc.framed:
				// it joined as the run stopped (another node never did)
				why = "still starting: set up, and given no frame"
			case silent < exitSilence:
				why = fmt.Sprintf("still heard from, its frames not ended in the %v a draw of this run is given: a draw that did not return?", drawGrace.Round(time.Millisecond))
			}
			s.opt.Log.Warn(fmt.Sprintf("node %s's client had not ended %v after the run's stop (%s): killed", nc.id, since.Round(time.Millisecond), why))
			nc.kill()
			killed = append(killed, nc)
		}
		launched = left
		if len(launched) > 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	reaped := time.After(500 * time.Millisecond)
	for _, nc := range killed {
		select {
		case <-nc.exited:
		case <-reaped:
			return
		}
	}
}

// sortedChannels is the summary's order.
func sortedChannels(cs []ChannelSummary) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Channel < cs[j].Channel })
}

// lastLine keeps the last complete line written to it, and the first
// that says a flag was not defined.
type lastLine struct {
	mu        sync.Mutex
	partial   []byte
	last      string
	flagError string
	crash     crashReport
}

func (l *lastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := strings.IndexByte(string(l.partial), '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(l.partial[:i])); line != "" {
			l.last = line
			l.crash.line(line)
			if l.flagError == "" && strings.HasPrefix(line, "flag provided but not defined: ") {
				l.flagError = line
			}
		}
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 4096 {
		l.partial = l.partial[len(l.partial)-4096:]
	}
	return len(p), nil
}

func (l *lastLine) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// Why is what explains a client that exited: a flag it was given and did
// not define, or else its last line. Where that flag is one of an
// application's client arguments, its main parsed its flags (and printed
// its usage) before goeq.Init took the client's; a go test binary
// (binary named *.test) parses them before TestMain.
func (l *lastLine) Why(binary string, clientArgs []string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.flagError == "" {
		return l.last
	}
	name := strings.TrimLeft(strings.TrimPrefix(l.flagError, "flag provided but not defined: "), "-")
	for _, a := range clientArgs {
		if strings.TrimLeft(a, "-") == name {
			if strings.HasSuffix(binary, ".test") {
				return l.flagError + ": a test binary is its own render client, and takes the client's flags only where TestMain calls goeq.Init(app) before m.Run"
			}
			return l.flagError + ": the application's main parsed its flags before calling goeq.Init(app), which takes the client's: call goeq.Init(app) first in main"
		}
	}
	return l.flagError
}

// Crash sums up a Go crash the client printed, empty when none.
func (l *lastLine) Crash() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.crash.String()
}

// crashReport reads a Go runtime crash in a client's output: its first
// line (a signal, "fatal error:" or "panic:"), whether the signal came in
// C code, and the first functions of the goroutine that crashed outside
// the runtime. A crash's last line is a register, which says nothing.
// Xlib's reports of an X error (its default handler exits the process)
// and of a lost X connection are read too: their last line is a serial
// number.
type crashReport struct {
	header string
	inC    bool
	stack  []string
	// reading the first goroutine of the report
	inGoroutine, done bool
	// xRequest is the X request that failed, after the header's error
	xRequest string
}

// crashStart is the first line of a Go crash report, or of Xlib's.
var crashStart = regexp.MustCompile(`^(SIG[A-Z]+: |fatal error: |panic: |X Error of failed request: |XIO: )`)

// sourceLine is a stack frame's file and line, under its function.
var sourceLine = regexp.MustCompile(`^\S+\.go:\d+`)

func (c *crashReport) line(line string) {
	switch {
	case c.done:
	case c.header == "":
		switch {
		case !crashStart.MatchString(line):
		case strings.HasPrefix(line, "X"): // Xlib's, which pads with spaces
			c.header = strings.Join(strings.Fields(line), " ")
			c.done = strings.HasPrefix(line, "XIO: ")
		default:
			c.header = line
		}
	case strings.HasPrefix(c.header, "X Error "):
		if op, ok := strings.CutPrefix(line, "Major opcode of failed request:"); ok {
			c.xRequest = strings.Join(strings.Fields(op), " ")
		}
		c.done = c.xRequest != ""
	case line == "signal arrived during cgo execution":
		c.inC = true
	case strings.HasPrefix(line, "goroutine "):
		if c.inGoroutine {
			c.done = true
		}
		c.inGoroutine = true
	case strings.HasPrefix(line, "created by ") || strings.HasPrefix(line, "..."):
		c.done = c.inGoroutine
	case c.inGoroutine && !sourceLine.MatchString(line) && !strings.HasPrefix(line, "runtime.") && !strings.HasPrefix(line, "panic("):
		fn := line
		if i := strings.LastIndex(fn, "("); i > 0 {
			fn = fn[:i]
		}
		fn = fn[strings.LastIndex(fn, "/")+1:]
		c.stack = append(c.stack, fn)
		c.done = len(c.stack) == 3
	}
}

func (c *crashReport) String() string {
	if c.header == "" {
		return ""
	}
	s := c.header
	if c.xRequest != "" {
		s += " in request " + c.xRequest
	}
	if c.inC {
		s += " in C code (a library: the GL driver?)"
	}
	if len(c.stack) > 0 {
		s += ", called from " + strings.Join(c.stack, " < ")
	}
	return s
}
