package goeq

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goeq/goeq/internal/appconn"
	"github.com/goeq/goeq/internal/autoconfig"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/server"
	"github.com/goeq/goeq/internal/stats"
	"github.com/goeq/goeq/internal/winsys"
)

// MaxFrameData bounds the encoded frame data of one frame (and the init
// data): it travels with every frame's work.
const MaxFrameData = 1 << 20

// maxPendingEvents bounds the window events an application has not taken;
// past it the oldest go.
const maxPendingEvents = 4096

// Options configure a run of an application.
type Options struct {
	// Config is the .eqc file: nodes, pipes, windows, channels and the
	// compound tree. Without Config, ConfigText and Server, the run is on
	// a config made for this machine, as Equalizer's auto-configuration:
	// a pipe per GPU, a window on the first, a layout per way of splitting
	// the frame over them (see docs/api.md); it is saved to
	// <application>.auto.eqc in the working directory, to edit.
	Config string
	// ConfigText, when set, is the config itself, in the .eqc language,
	// in place of reading the file Config (which then only names it in
	// messages, as in "name:line:col: ..."): an application can make its
	// config in code, or carry one built in.
	ConfigText string
	// InitData is sent once to every render client (encoded as JSON, at
	// most MaxFrameData bytes: a model's path, not the model); a renderer
	// factory reads it with Pipe.InitData.
	InitData any
	// Local starts every node's client on this machine; otherwise nodes
	// whose host is another machine are started through their
	// launch_command (ssh by default; %c is this executable with goeq's
	// client arguments).
	Local bool
	// OutDir, when set, receives every frame's destination images as PNG.
	OutDir string
	// Reference makes every destination channel render its whole frame
	// itself, undecomposed: the oracle a decomposed run is compared with.
	Reference bool
	// FrameTimeout fails the run when a frame takes longer, counted from
	// when it is the oldest in flight; tiles its tile queues hand out
	// start the count again (a queue of small tiles is slow, not stuck).
	// 0 follows the frames' time: 10 s, or 3 times the slowest recent
	// frame where that is longer, and a minute before a frame has
	// completed.
	FrameTimeout time.Duration
	// Liveness is the shortest silence after which a render node is lost
	// and the run goes on without it (0: 800 ms; it grows by itself with
	// each node's heartbeat gaps). A debugger that
	// stops a render client's process silences it: to debug a renderer,
	// set this and FrameTimeout to minutes.
	Liveness time.Duration
	// InitTimeout bounds each render client's set-up once it has
	// connected: its pipes, windows and the renderers NewRenderer makes,
	// which may load the application's data (0: 5 minutes). A client
	// that stops answering while it sets up fails the run at once.
	InitTimeout time.Duration
	// Log receives the run's log records: what it does at INFO, what it
	// survives (a node lost, a frame dropped) at WARN, what ends it at
	// ERROR. nil means standard error, in GOEQ_LOG_FORMAT. The render
	// clients write theirs to their standard error (this process'), from
	// the lowest level Log writes: a Log that leaves out INFO quiets them
	// too.
	Log *slog.Logger
	// Server, when set, is the address of an eqserver already running and
	// waiting for an application (`eqserver run --app ADDR CONFIG`): it
	// loads its own config (Config is ignored) and starts this executable
	// as the render clients. The token is GOEQ_TOKEN's, which the server
	// must share. Otherwise the server runs inside this process.
	Server string
	// Overlay starts the run with the statistics overlay on (see
	// Config.SetOverlay).
	Overlay bool
	// HTTP, when set, serves the run's live dashboard (frames, split,
	// task timing, nodes, links) and Prometheus /metrics on this address,
	// with the server in this process (a running eqserver serves its own:
	// eqserver run --http).
	HTTP string
	// Stats, when set, is the file the run's statistics go to, a JSON
	// line per channel and frame, as eqserver run --stats writes them:
	// eqserver replay balances the run again from it under either policy.
	// The server in this process writes it (a running eqserver writes its
	// own: eqserver run --stats).
	Stats string
	// BlendRanges says that the renderers' images are translucent colour
	// without depth (a volume) and that their database ranges blend in
	// their draw.RangeOrderer's order, as Equalizer's eVolve assembles:
	// on any config, the frames then carry no depth, no sources exchange
	// bands by depth, and a part a channel draws in place blends in its
	// turn with the parts composited over it. Without it, a config whose
	// frames carry depth merges the parts by depth.
	BlendRanges bool
	// Layout, when set, is the layout the run starts with on every canvas
	// that has it: its name, or its index in the config for an unnamed
	// one (as Equalizer's --eq-layout). Otherwise each canvas starts with
	// its first. Config.UseLayout switches later.
	Layout string
	// ModelUnit, when set, is every view's model unit from the first
	// frame on (as Equalizer's --eq-modelunit; see Config.SetModelUnit).
	// Otherwise it is 1.
	ModelUnit float64
	// Relaunch starts a lost render node's client again, up to this many
	// times per node, as eqserver run --relaunch: it rejoins, sets up its
	// renderers again (NewRenderer, with the same InitData) and gets work
	// from a later frame on. 0 leaves a lost node out for the rest of the
	// run. The server in this process relaunches (a running eqserver
	// follows its own --relaunch).
	Relaunch int
}

// Summary is what a run did.
type Summary struct {
	Frames   int     `json:"frames"`
	Seconds  float64 `json:"seconds"`
	FPS      float64 `json:"fps"`
	Degraded int     `json:"degraded_frames"`
	// DegradedFrames are the frames shown (and written) without the part
	// of a node lost while they were in flight, up to latency+1 for each
	// loss, or without a part their plan gave no channel, a planning
	// fault the run warns of (FrameStats.Degraded): render them again
	// where they count.
	DegradedFrames []int `json:"degraded_frame_numbers,omitempty"`
	// RepairedFrames are the frames in flight at a loss whose lost parts
	// were drawn by the channels they went to instead: they are whole.
	RepairedFrames []int    `json:"repaired_frame_numbers,omitempty"`
	Written        []string `json:"written,omitempty"` // PNG files, frame by frame, by name within a frame
	// Exchanges counts the frames whose sort-last compounds composited by
	// exchanging bands among their sources, by "compound STRATEGY among
	// N" (the others gathered every image at the compound).
	Exchanges map[string]int `json:"exchanges,omitempty"`
	// CodecBytes is what crossed frame links between nodes, in bytes by
	// codec.
	CodecBytes map[string]int64 `json:"codec_bytes,omitempty"`
	// LostNodes are the nodes the run went on without (silent past
	// Options.Liveness, their client gone, or, under the config's
	// robustness, never come), in the order they were lost;
	// RejoinedNodes those that came back.
	LostNodes     []string `json:"lost_nodes,omitempty"`
	RejoinedNodes []string `json:"rejoined_nodes,omitempty"`
	// LostPipes are the pipes ("node: pipe") that could not be set up,
	// which the config's robustness let the run go on without.
	LostPipes []string `json:"lost_pipes,omitempty"`
}

// Config is a running configuration: the application drives its frames.
// Its methods may be called from several goroutines (an event loop
// beside the frame loop): what they set for the next frame started goes
// with the first StartFrame or Refine to start one after them. Once no
// frame can start (after Exit, or once the run has failed) those that
// return an error refuse such settings with the reason.
type Config struct {
	frames    chan server.AppFrame
	done      chan struct{} // closed when the run has ended
	latency   int
	onScreen  int
	observers []string
	eyeBases  []float64 // the config's, by observer
	focus     []float64 // the config's focus distances, by observer
	focusMode []FocusMode
	layouts   []string
	// stuckStereo and stuckMono (by view) are the mode switches after
	// which the frames would wait in a circle, and why (server.RunInfo):
	// they are refused, as the layouts are that Canvas.Refused lists
	stuckStereo, stuckMono map[int]string
	views                  []string
	// viewLayouts is each view's layout, by view
	viewLayouts []int
	units       []float64 // the views' model units, as last set (under mu)
	canvases    []Canvas
	shown       []int // by canvas: the layout it shows, as last asked for (under mu)
	// channels name the channels the statistics give by identity
	channels map[string]server.ChannelInfo

	// what goes with the next frame started (under mu)
	messages     [][]byte
	messageBytes int
	heads        map[int]compound.Head
	// placed holds each observer's head as last set (SetHead and
	// SetFocus each change their part of it)
	placed     map[int]compound.Head
	overlay    *bool
	useLayouts map[int]int // by canvas
	viewModes  map[int]bool
	modelUnits map[int]float64
	freeze     *bool
	screenshot string
	// balancing is each view's as last set, balancingSent as the last
	// frame started took it (SetBalancing)
	balancing, balancingSent []compound.Balancing

	// starting lets one StartFrame or Refine start a frame at a time, so
	// that frames are numbered in the order the run takes them; it
	// guards the last frame started's data and the refined frames started
	// since (Refine)
	starting sync.Mutex
	lastData []byte
	refined  int

	mu        sync.Mutex
	changed   *sync.Cond
	started   int
	completed int
	ended     bool // the run is over (Exit, or an error)
	err       error
	summary   *server.Summary
	exited    bool
	events    []Event // window events not yet taken
	stats     FrameStats
}

// clientFlag marks a process the launcher started as a render client.
const clientFlag = "--goeq-client"

// Start loads opt.Config (or takes opt.ConfigText, or makes a config for
// this machine without either), starts a render client for every node
// (this executable, started again with goeq's client flag: call Init
// first in main) and returns once every node has joined, or left the run
// under the config's robustness (a render node or pipe that failed to
// come: Summary.LostNodes and LostPipes name it). The server runs inside
// this process, or is the eqserver at opt.Server.
// Equalizer's options that Init took from the command line apply over
// opt: --eq-config names the config, --eq-layout the layout to start
// with, --eq-server the eqserver, --eq-logfile where the log goes (when
// opt.Log is nil), --eq-modelunit the views' model unit. Cancelling ctx
// ends the run.
func Start(ctx context.Context, app Application, opt Options) (*Config, error) {
	if len(os.Args) > 1 && os.Args[1] == clientFlag {
		// a render client whose main did not call Init would start a run
		// of its own, and launch clients of its own, without end
		return nil, errors.New("goeq: this process is a render client of a run, and its main called Start without calling goeq.Init(app) first: call Init at the top of main, before flags are parsed")
	}
	if app == nil {
		return nil, errors.New("goeq: no application")
	}
	opt, err := eqArgs.apply(opt)
	if err != nil {
		return nil, err
	}
	if opt.FrameTimeout < 0 {
		return nil, fmt.Errorf("goeq: FrameTimeout %v: want 0 (10 s) or more", opt.FrameTimeout)
	}
	if opt.Liveness < 0 {
		return nil, fmt.Errorf("goeq: Liveness %v: want 0 (800 ms) or more", opt.Liveness)
	}
	if opt.InitTimeout < 0 {
		return nil, fmt.Errorf("goeq: InitTimeout %v: want 0 (5 minutes) or more", opt.InitTimeout)
	}
	if opt.Relaunch < 0 {
		return nil, fmt.Errorf("goeq: Relaunch %d: want 0 or more", opt.Relaunch)
	}
	if opt.ModelUnit != 0 {
		if err := compound.CheckModelUnit(opt.ModelUnit); err != nil {
			return nil, fmt.Errorf("goeq: ModelUnit: %w", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("goeq: finding this executable to start render clients: %w", err)
	}
	var initData []byte
	if opt.InitData != nil {
		if initData, err = json.Marshal(opt.InitData); err != nil {
			return nil, fmt.Errorf("goeq: init data: %w", err)
		}
		if len(initData) > MaxFrameData {
			return nil, fmt.Errorf("goeq: init data is %d bytes encoded, more than the %d allowed", len(initData), MaxFrameData)
		}
	}
	logger := opt.Log
	if logger == nil {
		logger = logging.New(os.Stderr, logging.FromEnv(), slog.LevelInfo, "goeq")
	}
	if opt.ConfigText == "" && opt.Server == "" && (opt.Config == "" || autoconfig.IsSession(opt.Config)) {
		opt.Config, opt.ConfigText = autoConfig(exe, opt.Config, logger)
	}
	token := os.Getenv("GOEQ_TOKEN")
	tokenMadeUp := token == ""
	if tokenMadeUp {
		var b [16]byte
		rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	c := &Config{frames: make(chan server.AppFrame), done: make(chan struct{})}
	c.changed = sync.NewCond(&c.mu)
	ready := make(chan server.RunInfo, 1)
	hooks := &server.App{
		Frames: c.frames,
		Ready:  func(info server.RunInfo) { ready <- info },
		Completed: func(frame int, degraded bool, records []stats.Record) {
			c.mu.Lock()
			c.completed = frame + 1
			c.stats = frameStatsOf(frame, records, c.channels)
			c.stats.Degraded = degraded
			c.changed.Broadcast()
			c.mu.Unlock()
		},
		Input: func(node string, evs []control.WindowEvent) {
			c.mu.Lock()
			for _, e := range evs {
				c.events = append(c.events, eventOf(node, e))
			}
			if over := len(c.events) - maxPendingEvents; over > 0 {
				c.events = c.events[over:] // an application that never takes them
			}
			c.changed.Broadcast()
			c.mu.Unlock()
		},
	}
	run := func() (*server.Summary, error) {
		return server.Run(ctx, server.Options{ConfigPath: configName(opt), ConfigText: opt.ConfigText, OutDir: opt.OutDir, DumpEvery: 1, Local: opt.Local, Token: token,
			ClientBinary: exe, ClientArgs: []string{clientFlag}, InitData: initData, App: hooks, Async: true,
			Reference: opt.Reference, FrameTimeout: opt.FrameTimeout, Liveness: opt.Liveness, InitTimeout: opt.InitTimeout, Log: logger, Codec: "auto", HTTP: opt.HTTP, Overlay: opt.Overlay, Layout: opt.Layout,
			BlendRanges: opt.BlendRanges, StatsPath: opt.Stats, Relaunch: opt.Relaunch, TokenMadeUp: tokenMadeUp})
	}
	if opt.Server != "" {
		for _, o := range []struct{ name, value, own string }{{"HTTP", opt.HTTP, "serves its own dashboard (eqserver run --http)"},
			{"Stats", opt.Stats, "writes its own statistics (eqserver run --stats)"}} {
			if o.value != "" {
				return nil, fmt.Errorf("goeq: Options.%s goes with the server in this process: the eqserver at %s %s", o.name, opt.Server, o.own)
			}
		}
		if opt.Relaunch != 0 {
			return nil, fmt.Errorf("goeq: Options.Relaunch goes with the server in this process: the eqserver at %s starts lost clients again as its own --relaunch says", opt.Server)
		}
		if os.Getenv("GOEQ_TOKEN") == "" {
			return nil, errors.New("goeq: a run on a running eqserver needs its token in GOEQ_TOKEN")
		}
		out := opt.OutDir
		if out != "" {
			// the render clients start in the server's directory
			if out, err = filepath.Abs(out); err != nil {
				return nil, fmt.Errorf("goeq: %w", err)
			}
		}
		hello := appconn.Hello{Executable: exe, ClientArgs: []string{clientFlag}, InitData: initData, OutDir: out,
			Reference: opt.Reference, FrameTimeout: opt.FrameTimeout, Liveness: opt.Liveness, InitTimeout: opt.InitTimeout, Overlay: opt.Overlay, Layout: opt.Layout,
			BlendRanges: opt.BlendRanges}
		run = func() (*server.Summary, error) { return appconn.Run(ctx, opt.Server, token, hello, hooks) }
	}
	go func() {
		sum, err := run()
		c.mu.Lock()
		c.summary, c.err, c.ended = sum, err, true
		if c.err == nil && !c.exited {
			c.err = errors.New("goeq: the run ended")
			if sum != nil && sum.Interrupted {
				c.err = fmt.Errorf("goeq: the server was stopped (a signal) after %d frames", sum.Frames)
			}
		}
		c.changed.Broadcast()
		c.mu.Unlock()
		close(c.done)
		close(ready)
	}()
	info, ok := <-ready
	if !ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return nil, c.err
	}
	c.latency, c.observers, c.eyeBases, c.layouts, c.views = info.Latency, info.Observers, info.EyeBases, info.Layouts, info.Views
	c.viewLayouts = info.ViewLayouts
	for _, cv := range info.Canvases {
		c.canvases = append(c.canvases, Canvas{Name: cv.Name, Layouts: cv.Layouts, Refused: cv.Stuck})
		c.shown = append(c.shown, cv.Shows)
	}
	c.stuckStereo, c.stuckMono = info.StuckStereo, info.StuckMono
	c.focus = info.FocusDistances
	c.onScreen = info.OnScreen
	c.mu.Lock()
	c.channels = map[string]server.ChannelInfo{}
	for _, ch := range info.Channels {
		c.channels[ch.ID] = ch
	}
	c.balancing = append([]compound.Balancing(nil), info.Balancing...)
	c.balancingSent = append([]compound.Balancing(nil), info.Balancing...)
	c.units = make([]float64, len(c.views))
	for i := range c.units {
		c.units[i] = 1
		if opt.ModelUnit != 0 {
			c.setModelUnitLocked(i, opt.ModelUnit)
		}
	}
	c.mu.Unlock()
	for _, m := range info.FocusModes {
		c.focusMode = append(c.focusMode, focusModeOf(m))
	}
	return c, nil
}

// errExited is what a frame started after Exit gets.
var errExited = errors.New("goeq: the config has exited (Exit was called)")

// closedLocked is why no next frame will start, or nil while one may: a
// setting for the next frame (a screenshot, a message) is refused then,
// rather than taken and never acted on. c.mu is held.
func (c *Config) closedLocked() error {
	switch {
	case c.exited:
		return errExited
	case c.ended:
		return c.err
	}
	return nil
}

// Latency is how many frames may be in flight beyond the one FinishFrame
// waits for (the config's latency).
func (c *Config) Latency() int { return c.latency }

// OnScreen counts the run's windows that show on a display, on every
// node that joined as it started. 0 means every window draws offscreen:
// a headless run (no DISPLAY, or hint_drawable FBO), or one whose DISPLAY
// did not open, where goeq went on with EGL. No key or pointer event can
// come from the user then, so an interactive application renders on its
// own (as eqply does) rather than wait for input.
func (c *Config) OnScreen() int { return c.onScreen }

// StartFrame asks for the next frame with its data (any value encoding/json
// takes; nil for none) and returns its number. Only data that differs from
// the previous frame's travels to the render clients. It waits, as
// FinishFrame does, while more than the config's latency of frames are
// in flight.
func (c *Config) StartFrame(data any) (int, error) {
	var b []byte
	if data != nil {
		var err error
		if b, err = json.Marshal(data); err != nil {
			return 0, fmt.Errorf("goeq: frame data: %w", err)
		}
		if len(b) > MaxFrameData {
			return 0, fmt.Errorf("goeq: frame data is %d bytes encoded, more than the %d allowed", len(b), MaxFrameData)
		}
	}
	c.starting.Lock()
	defer c.starting.Unlock()
	frame, err := c.start(b, 0)
	if err == nil {
		c.lastData, c.refined = b, 0
	}
	return frame, err
}

// MaxRefineSamples is how many refined frames Refine starts after a frame.
const MaxRefineSamples = control.MaxRefineSamples

// Refine starts a frame that refines the last one (idle antialiasing, as
// eqPly's): the last frame's data again, every draw offset by the next of
// MaxRefineSamples subpixel positions, and every destination showing the
// average of the refined frames so far, its edges smoother with each. An
// application that renders on demand calls it while nothing changes. It
// returns false and starts nothing once all samples are taken or before a
// first StartFrame. StartFrame ends the refinement, and a head, layout,
// view mode or cluster event (Broadcast) for the next frame starts the
// average over.
func (c *Config) Refine() (frame int, ok bool, err error) {
	c.starting.Lock()
	defer c.starting.Unlock()
	c.mu.Lock()
	started := c.started
	changes := c.heads != nil || c.useLayouts != nil || c.viewModes != nil || c.modelUnits != nil || len(c.messages) > 0
	c.mu.Unlock()
	if started == 0 {
		return 0, false, nil
	}
	if changes {
		c.refined = 0 // the picture changes
	}
	if c.refined >= MaxRefineSamples {
		return 0, false, nil
	}
	if frame, err = c.start(c.lastData, c.refined+1); err != nil {
		return 0, false, err
	}
	c.refined++
	return frame, true, nil
}

// start starts a frame of encoded data, refine sample sample (0: none).
func (c *Config) start(data []byte, sample int) (int, error) {
	c.mu.Lock()
	exited := c.exited
	c.mu.Unlock()
	if exited {
		return 0, errExited
	}
	// at most latency frames wait ahead of this one, as after FinishFrame:
	// an application that never calls it is held to the frames' pace
	// rather than queue frames and their data without bound
	if err := c.waitCompleted(-c.latency); err != nil {
		return 0, err
	}
	c.mu.Lock()
	af := server.AppFrame{Data: data, Sample: sample, Messages: c.messages, Heads: c.heads, Overlay: c.overlay, CanvasLayouts: c.useLayouts, ViewModes: c.viewModes,
		ModelUnits: c.modelUnits, FreezeBalance: c.freeze, Screenshot: c.screenshot, Balancing: c.balancingChangesLocked()}
	c.messages, c.messageBytes, c.heads, c.overlay, c.useLayouts, c.viewModes, c.modelUnits, c.freeze, c.screenshot = nil, 0, nil, nil, nil, nil, nil, nil, ""
	c.mu.Unlock()
	select {
	case c.frames <- af: // the run's loop takes it at once
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return 0, c.err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	frame := c.started
	c.started++
	return frame, nil
}

// SetOverlay switches the statistics overlay on or off from the next
// frame started: drawn over every destination after assembly, as
// Equalizer's, it shows each channel's times of the last frame completed
// as bars (draw, readback, transmit, assemble, wait; a pixel per 0.2 ms)
// and outlines each channel's share of the destination in its colour.
func (c *Config) SetOverlay(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.overlay = &on
}

// Screenshot has the next frame started write every destination's image
// into dir as PNG, named as Options.OutDir names them
// (<channel>-<frame>.png), as eqPly's F11 takes one. The node that shows
// a destination writes it: dir is made here, and a relative one is taken
// from this process' working directory, which names the same folder for
// the nodes of this machine. The files are there once the frame is
// finished (FinishAllFrames). One that cannot be written is logged at
// WARN and the run goes on (a frame OutDir asks for fails the run
// instead).
func (c *Config) Screenshot(dir string) error {
	if dir == "" {
		return errors.New("goeq: screenshot: no folder")
	}
	c.mu.Lock()
	closed := c.closedLocked()
	c.mu.Unlock()
	if closed != nil {
		return closed
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		return fmt.Errorf("goeq: screenshot: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.screenshot = abs
	return nil
}

// FreezeBalancing freezes every load equalizer from the next frame
// started on, or lets them balance again: frozen, each keeps the split it
// has, as Equalizer's frozen load equalizer does, to watch or measure one
// decomposition (Balancing.Frozen freezes one view's). A source that is
// lost or rejoins still has the work shared out again.
func (c *Config) FreezeBalancing(frozen bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.freeze = &frozen
}

// maxMessages bounds the cluster events that go with one frame.
const maxMessages = 1024

// Broadcast sends v (any value encoding/json takes) to every node with the
// next frame started: on every node, every pipe's renderer that is a
// Receiver takes it before drawing that frame, in the order sent. The
// messages of one frame share the frame data's bound, MaxFrameData. A
// node that joins mid-run (started again after it was lost, or late)
// has new renderers: before its first frame they take every message
// broadcast earlier, in order and each with its own frame, so that they
// hold what the others do (the run keeps the last 32 MiB of messages;
// past that, the log says what such a node lacks).
func (c *Config) Broadcast(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("goeq: broadcast: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	if len(c.messages) >= maxMessages {
		return fmt.Errorf("goeq: broadcast: %d messages wait for the next frame already, the most one frame carries", maxMessages)
	}
	if c.messageBytes+len(b) > MaxFrameData {
		return fmt.Errorf("goeq: broadcast: the next frame's messages would be %d bytes encoded, more than the %d allowed", c.messageBytes+len(b), MaxFrameData)
	}
	c.messages = append(c.messages, b)
	c.messageBytes += len(b)
	return nil
}

// Layouts lists the config's layouts' names, in the config's order (some
// may be empty: UseLayoutIndex chooses those).
func (c *Config) Layouts() []string { return append([]string(nil), c.layouts...) }

// UseLayout shows the layout of that name on every canvas that lists it,
// from the next frame started on, as Equalizer's Canvas::useLayout does
// on each: the destination channels of its views render, those of the
// layout it replaces stop. A canvas shows its first layout until then
// (or Options.Layout). UseCanvasLayout switches one canvas alone. A
// layout whose frames would wait in a circle on a canvas (check warns of
// it: Canvas.Refused) is refused with ErrNeverCompletes, and no canvas
// switches.
func (c *Config) UseLayout(name string) error {
	if i := slices.Index(c.layouts, name); name != "" && i >= 0 {
		return c.UseLayoutIndex(i)
	}
	return fmt.Errorf("goeq: no layout %q: the config has %s", name, c.describeLayouts())
}

// UseLayoutIndex is UseLayout for the config's layout at index i, in the
// order Layouts lists them: the way to choose a layout without a name.
func (c *Config) UseLayoutIndex(i int) error {
	if i < 0 || i >= len(c.layouts) {
		return fmt.Errorf("goeq: no layout %d: the config has %s", i, c.describeLayouts())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	for cv, canvas := range c.canvases {
		if slices.Contains(canvas.Layouts, i) {
			if err := c.stuckLayout(cv, i); err != nil {
				return err
			}
		}
	}
	listed := false
	for cv, canvas := range c.canvases {
		if slices.Contains(canvas.Layouts, i) {
			c.useLocked(cv, i)
			listed = true
		}
	}
	if !listed {
		return fmt.Errorf("goeq: no canvas lists layout %s", c.describeLayout(i))
	}
	return nil
}

func (c *Config) useLocked(canvas, layout int) {
	if c.useLayouts == nil {
		c.useLayouts = map[int]int{}
	}
	c.useLayouts[canvas], c.shown[canvas] = layout, layout
}

// Layout is the index in Layouts of the layout the first canvas that
// shows one shows (0 when none does): the one the run started with
// (Options.Layout, or the canvas's first), or the one last asked for.
func (c *Config) Layout() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.shown {
		if l != LayoutOff {
			return l
		}
	}
	return 0
}

// LayoutOff stands for a canvas's `layout OFF` where CanvasLayout and
// UseCanvasLayout number layouts: the canvas shows nothing (its
// destination channels stop), as Equalizer's.
const LayoutOff = server.LayoutOff

// Canvas is one of the config's canvases: a wall, a monitor of it, an
// operator's screen.
type Canvas struct {
	Name string // may be empty
	// Layouts are the layouts the canvas lists, in the config's order for
	// it: indexes in Config.Layouts, or LayoutOff for its `layout OFF`.
	Layouts []int
	// Refused are the layouts among them whose frames would wait in a
	// circle on the canvas (check warns of each), and why: a switch to
	// one is refused with ErrNeverCompletes.
	Refused map[int]string
}

// ErrNeverCompletes is the error of a layout or view mode switch refused
// because the frames would wait in a circle after it: a channel would
// assemble a frame before it draws it, or channels each other's.
var ErrNeverCompletes = errors.New("would never complete a frame")

// Canvases lists the config's canvases, in its order.
func (c *Config) Canvases() []Canvas {
	out := slices.Clone(c.canvases)
	for i := range out {
		out[i].Layouts = slices.Clone(out[i].Layouts)
		out[i].Refused = maps.Clone(out[i].Refused)
	}
	return out
}

// CanvasLayout is the layout a canvas (by index in Canvases) shows: an
// index in Layouts, or LayoutOff.
func (c *Config) CanvasLayout(canvas int) (int, error) {
	if canvas < 0 || canvas >= len(c.canvases) {
		return 0, c.noCanvas(canvas)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shown[canvas], nil
}

// UseCanvasLayout shows on one canvas (by index in Canvases) a layout it
// lists (an index in Layouts, or LayoutOff where it lists `layout OFF`)
// from the next frame started on, as Equalizer's Canvas::useLayout (and
// eqPly's l on its current canvas): an operator's screen keeps its
// layout while the wall's changes, or the wall goes dark.
func (c *Config) UseCanvasLayout(canvas, layout int) error {
	if canvas < 0 || canvas >= len(c.canvases) {
		return c.noCanvas(canvas)
	}
	if layout != LayoutOff && (layout < 0 || layout >= len(c.layouts)) {
		return fmt.Errorf("goeq: no layout %d: the config has %s", layout, c.describeLayouts())
	}
	if !slices.Contains(c.canvases[canvas].Layouts, layout) {
		return fmt.Errorf("goeq: canvas %s does not list layout %s; it lists %s", c.describeCanvas(canvas), c.describeLayout(layout), c.describeCanvasLayouts(canvas))
	}
	if err := c.stuckLayout(canvas, layout); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	c.useLocked(canvas, layout)
	return nil
}

// stuckLayout says why a canvas may not show a layout, if the frames
// would wait in a circle there.
func (c *Config) stuckLayout(canvas, layout int) error {
	if why := c.canvases[canvas].Refused[layout]; why != "" {
		return fmt.Errorf("goeq: layout %s on canvas %s %w: %s", c.describeLayout(layout), c.describeCanvas(canvas), ErrNeverCompletes, why)
	}
	return nil
}

func (c *Config) noCanvas(canvas int) error {
	return fmt.Errorf("goeq: no canvas %d: the config has %d", canvas, len(c.canvases))
}

func (c *Config) describeCanvas(i int) string {
	if name := c.canvases[i].Name; name != "" {
		return strconv.Quote(name)
	}
	return strconv.Itoa(i)
}

// describeLayout names a layout by its index in Layouts (or LayoutOff).
func (c *Config) describeLayout(i int) string {
	if i == LayoutOff {
		return "OFF"
	}
	return compound.DescribeLayoutName(c.layouts[i], i)
}

func (c *Config) describeCanvasLayouts(canvas int) string {
	var names []string
	for _, l := range c.canvases[canvas].Layouts {
		names = append(names, c.describeLayout(l))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (c *Config) describeLayouts() string { return compound.DescribeLayoutNames(c.layouts) }

// ViewMode is how a view renders: with one eye, or with two.
type ViewMode int

// The view modes.
const (
	Mono ViewMode = iota
	Stereo
)

// Views lists the config's views' names (some may be empty), layout by
// layout, in the order SetViewMode numbers them.
func (c *Config) Views() []string { return append([]string(nil), c.views...) }

// ViewLayout is the layout a view (by index in Views) belongs to, an
// index in Layouts, as Equalizer's View::getLayout: the views a canvas
// shows are those of its layout (eqply's v steps through them).
func (c *Config) ViewLayout(view int) (int, error) {
	if view < 0 || view >= len(c.viewLayouts) {
		return 0, fmt.Errorf("goeq: no view %d: the config has %d", view, len(c.views))
	}
	return c.viewLayouts[view], nil
}

// SetViewMode renders a view in mode from the next frame started on, as
// Equalizer's View::changeMode (eqPly's g): stereo renders a left and a
// right eye where the view's destinations show both (on framebuffer
// objects as anaglyph, in the colours the compounds give), mono the
// cyclop eye. A mode the view's frames would wait in a circle in (check
// warns of it) is refused with ErrNeverCompletes.
func (c *Config) SetViewMode(view int, mode ViewMode) error {
	if view < 0 || view >= len(c.views) {
		return fmt.Errorf("goeq: no view %d: the config has %d", view, len(c.views))
	}
	if mode != Mono && mode != Stereo {
		return fmt.Errorf("goeq: view mode %d is neither Mono nor Stereo", mode)
	}
	stuck, name := c.stuckMono, "mono"
	if mode == Stereo {
		stuck, name = c.stuckStereo, "stereo"
	}
	if why := stuck[view]; why != "" {
		return fmt.Errorf("goeq: view %d in %s %w: %s", view, name, ErrNeverCompletes, why)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	if c.viewModes == nil {
		c.viewModes = map[int]bool{}
	}
	c.viewModes[view] = mode == Stereo
	return nil
}

// The model units SetModelUnit takes: from a model in astronomical units
// (about 7e-12 per metre) to one in picometres.
const (
	MinModelUnit = compound.MinModelUnit
	MaxModelUnit = compound.MaxModelUnit
)

// ModelUnit is a view's model unit as last set (SetModelUnit,
// Options.ModelUnit), 1 until then, and 0 for a view the config does not
// have.
func (c *Config) ModelUnit(view int) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if view < 0 || view >= len(c.units) {
		return 0
	}
	return c.units[view]
}

// SetModelUnit gives a view a model unit from the next frame started on,
// as Equalizer's View::setModelUnit (eqPly's y and Y): how many of the
// model's units make a metre of the display. The view's walls and its
// observer's eyes and focus are scaled by it, so that a model in
// millimetres with unit 1000 shows at its real size in a wall's stereo,
// and a parallel projection shows as many units across as the wall has
// metres times the unit. An eye at the wall's origin looks as before in
// perspective: the unit moves the eyes, not the angles. unit must be
// within MinModelUnit to MaxModelUnit.
func (c *Config) SetModelUnit(view int, unit float64) error {
	if view < 0 || view >= len(c.views) {
		return fmt.Errorf("goeq: no view %d: the config has %d", view, len(c.views))
	}
	if err := compound.CheckModelUnit(unit); err != nil {
		return fmt.Errorf("goeq: view %d: %w", view, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	c.setModelUnitLocked(view, unit)
	return nil
}

func (c *Config) setModelUnitLocked(view int, unit float64) {
	if c.modelUnits == nil {
		c.modelUnits = map[int]float64{}
	}
	c.modelUnits[view], c.units[view] = unit, unit
}

// Observers lists the config's observers' names (some may be empty), in
// the order SetHead numbers them.
func (c *Config) Observers() []string { return append([]string(nil), c.observers...) }

// EyeBase is the distance between an observer's eyes as the config gives
// it (Equalizer's eye base: 0.05 unless the config sets one), 0 for an
// observer the config does not have. SetHead sets another.
func (c *Config) EyeBase(observer int) float64 {
	if observer < 0 || observer >= len(c.eyeBases) {
		return 0
	}
	return c.eyeBases[observer]
}

// SetHead places a tracked observer's head from the next frame started
// on: head takes head space to world space (a tracker's matrix), and
// eyeBase, when above zero, sets the distance between the eyes (zero keeps
// the eyes the config gives). Walls and projections stay where the config
// puts them, so their frusta follow the head off axis, as in a CAVE; an
// HMD wall moves with the head.
func (c *Config) SetHead(observer int, head Mat4, eyeBase float64) error {
	var m [16]float64
	for i, v := range head {
		m[i] = float64(v)
	}
	return c.place(observer, func(h *compound.Head) { h.Matrix, h.EyeBase = m, eyeBase })
}

// FocusMode is how an observer's focus follows it, as Equalizer's focus
// modes do: in any mode but FocusFixed, the walls of its views move to its
// focus distance (scaled about its eye, so that the cyclop eye sees the
// same picture), and its stereo eyes converge there.
type FocusMode int

// The focus modes.
const (
	FocusUnchanged          FocusMode = iota // SetFocus keeps the mode
	FocusFixed                               // the walls stay where the config puts them
	FocusRelativeToOrigin                    // the focus distance is from the origin, along -z
	FocusRelativeToObserver                  // the focus distance is ahead of the head
)

var focusModeNames = [...]string{FocusFixed: compound.FocusFixed, FocusRelativeToOrigin: compound.FocusRelativeToOrigin,
	FocusRelativeToObserver: compound.FocusRelativeToObserver}

func focusModeOf(name string) FocusMode {
	for m, n := range focusModeNames {
		if n == name && n != "" {
			return FocusMode(m)
		}
	}
	return FocusFixed
}

// Focus is an observer's focus distance and mode as the config gives them
// (Equalizer's: 1 and fixed unless it sets others); 0 and FocusUnchanged
// for an observer the config does not have.
func (c *Config) Focus(observer int) (distance float64, mode FocusMode) {
	if observer < 0 || observer >= len(c.focus) || observer >= len(c.focusMode) {
		return 0, FocusUnchanged
	}
	return c.focus[observer], c.focusMode[observer]
}

// SetFocus sets an observer's focus from the next frame started on, as
// eqPly's + - 1 2 3 do: distance, when above zero, is its focus distance;
// mode, unless FocusUnchanged, its focus mode. What is not set stays as
// last set, or as the config gives it.
func (c *Config) SetFocus(observer int, distance float64, mode FocusMode) error {
	if mode < FocusUnchanged || mode > FocusRelativeToObserver {
		return fmt.Errorf("goeq: focus mode %d of observer %d: no such mode", mode, observer)
	}
	return c.place(observer, func(h *compound.Head) {
		if distance > 0 {
			h.FocusDistance = distance
		}
		if mode != FocusUnchanged {
			h.FocusMode = focusModeNames[mode]
		}
	})
}

// place changes an observer's head as last set (where the config puts it,
// before any) and sends it with the next frame started.
func (c *Config) place(observer int, change func(*compound.Head)) error {
	if observer < 0 || observer >= len(c.observers) {
		return fmt.Errorf("goeq: no observer %d: the config has %d", observer, len(c.observers))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	h, ok := c.placed[observer]
	if !ok {
		h = compound.IdentityHead
	}
	change(&h)
	if err := h.Check(); err != nil {
		return fmt.Errorf("goeq: head of observer %d: %w", observer, err)
	}
	if c.heads == nil {
		c.heads = map[int]compound.Head{}
	}
	if c.placed == nil {
		c.placed = map[int]compound.Head{}
	}
	c.heads[observer], c.placed[observer] = h, h
	return nil
}

// FinishFrame returns once frame (started − 1 − latency) is complete: the
// last frame started minus the config's latency, as in Equalizer.
func (c *Config) FinishFrame() error {
	return c.waitCompleted(-c.latency)
}

// FinishAllFrames returns once every frame started is complete.
func (c *Config) FinishAllFrames() error {
	return c.waitCompleted(0)
}

// waitCompleted waits until the frames started, plus more (a negative
// number), are complete.
func (c *Config) waitCompleted(more int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.started + more
	for c.completed < n && !c.ended {
		c.changed.Wait()
	}
	if c.completed < n {
		return c.err
	}
	return nil
}

// Exit finishes every frame started, ends the run and every render client,
// and returns what the run did.
func (c *Config) Exit() (*Summary, error) {
	// no frame is being started while the frames' channel closes
	c.starting.Lock()
	defer c.starting.Unlock()
	ferr := c.FinishAllFrames()
	c.mu.Lock()
	if !c.exited {
		c.exited = true
		if !c.ended {
			close(c.frames)
		}
	}
	for !c.ended {
		c.changed.Wait()
	}
	sum, err := c.summary, c.err
	c.mu.Unlock()
	if err == nil {
		err = ferr
	}
	if sum == nil {
		return nil, err
	}
	return &Summary{Frames: sum.Frames, Seconds: sum.Seconds, FPS: sum.FPS, Degraded: sum.Degraded, DegradedFrames: sum.DegradedFrames, RepairedFrames: sum.RepairedFrames, Written: sum.Written, Exchanges: sum.Exchanges,
		CodecBytes: sum.CodecBytes, LostNodes: sum.LostNodes, RejoinedNodes: sum.RejoinedNodes, LostPipes: sum.LostPipes}, err
}

// ChannelStats is one channel's work on one frame: what it rendered and
// how long each step took.
type ChannelStats struct {
	Channel string // its identity
	// Name is what the config calls the channel ("" for an unnamed one),
	// and Node its node, as Summary.LostNodes names it
	Name, Node                               string
	Eye                                      Eye
	Viewport                                 Viewport // the part of the destination it rendered
	Range                                    Range    // the part of the database
	Draw, Readback, Transmit, Assemble, Wait time.Duration
}

// FrameStats is every channel's work on one frame.
type FrameStats struct {
	Frame    int
	Channels []ChannelStats
	// Degraded: the frame was shown without the part of a node lost while
	// it was in flight, or without a part its plan gave no channel
	// (Summary.DegradedFrames lists every such frame).
	Degraded bool
}

func frameStatsOf(frame int, records []stats.Record, channels map[string]server.ChannelInfo) FrameStats {
	fs := FrameStats{Frame: frame}
	for _, r := range records {
		t := r.Times
		ch := channels[r.Channel]
		fs.Channels = append(fs.Channels, ChannelStats{Channel: r.Channel, Name: ch.Name, Node: ch.Node, Eye: Eye(r.Eye), Viewport: Viewport(r.Viewport),
			Range: Range(r.Range), Draw: t.Draw, Readback: t.ReadbackSync + t.ReadbackAsync, Transmit: t.Compress + t.Transmit,
			Assemble: t.Assemble, Wait: t.Wait})
	}
	return fs
}

// LastFrameStats is the statistics of the last frame completed (the zero
// value before any).
func (c *Config) LastFrameStats() FrameStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// autoConfig is the config of a run that names none, or names a session,
// as Equalizer's server makes one: this machine's GPUs (autoconfig.Text).
// As Equalizer, it is written to <session>.auto.eqc in the working
// directory (the application's name without a session), for the user to
// edit and pass as --eq-config; a file of that name that says something
// else is the user's, and stays.
func autoConfig(exe, session string, log *slog.Logger) (name, text string) {
	app := cmp.Or(session, strings.TrimSuffix(filepath.Base(exe), filepath.Ext(exe)))
	name, text, how := autoconfig.Save(autoconfig.Here(app, winsys.GPUs(true)), "with --eq-config")
	given := "no config given"
	if session != "" {
		given = fmt.Sprintf("config %q is no file and not a .eqc name: a session", session)
	}
	log.Info(given + ": " + how)
	return name, text
}

// configName names the run's config in messages: its file, or what stands
// for a config given as text only.
func configName(opt Options) string {
	if opt.Config == "" && opt.ConfigText != "" {
		return "ConfigText"
	}
	return opt.Config
}
