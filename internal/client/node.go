package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/channel"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/transport"
	"github.com/goeq/goeq/internal/winsys"
)

// node is this client's part of the config: its pipes with their
// executors and windows.
type node struct {
	// exiting: the run has stopped and the pipes' frames have ended; the
	// renderers run their Exit (said with the heartbeats)
	exiting    atomic.Bool
	frameBound frameBound
	log        *slog.Logger
	token      string
	name       string
	session    *session
	setupM     *control.Setup
	cfg        *compound.Config
	model      *compound.Node
	pipes      []*pipe
	// lostPipes could not be set up; the node goes on without them
	lostPipes []control.LostPipe
	byChan    map[string]*pipe // channel ID -> the pipe it is on (this node's)
	// repairing are other nodes' lost channels whose parts of a frame a
	// pipe here draws (by frame and ID): their tile grants go to it; each
	// frame's to its own, which pulls them (serve's alone)
	repairing map[repairOf]*pipe
	// feeding are the pipes here whose repairs of a frame read a
	// channel's tile grants: a live channel's part drawn again (a feeder),
	// or a lost one's that is drawn on several pipes; its grants marked
	// Repair go to them (serve's alone)
	feeding map[repairOf][]*pipe
	chooser *compressor.Chooser
	// listener takes the frames peers send (Drained)
	listener *transport.Listener
	data     []byte // the latest frame data (only changes travel)
	// earlier: messages broadcast before this session's first frame, for
	// its pipes to take before it (run loop only)
	earlier      []control.FrameMessages
	earlierBytes int

	// onRasterizers counts the pipes given a display of the software
	// renderer so far, which spreads them over its rasterizers
	onRasterizers int

	// input events of on-screen windows, on their way to the server
	events chan control.WindowEvent
	// windowGone carries the first on-screen window another X client
	// destroyed, which ends the node: nothing of it can show again
	windowGone chan error
	// where the pointer is, per window (keys go to the channel under it)
	pointer map[*compound.Window][2]float64
	// shown is what each window showed last: the channels window events
	// are placed in (the layout the application chose; before its first
	// frame, the config's), at the size they had
	shownMu sync.Mutex
	shown   map[*compound.Window][]*planner.ChannelPlan

	sendersMu sync.Mutex
	senders   map[string]*sender // by frame address
	peersMu   sync.Mutex
	peers     map[string]string // channel ID -> frame address (latest)

	framesMu sync.Mutex
	frames   map[int]*frameTrack
	// images waits for every image being written, of frames done or
	// failed alike: the process does not leave before they are whole
	images sync.WaitGroup
	// drop names output frames this node never sends: a fault injected
	// by tests through GOEQ_DROP_FRAMES (comma-separated names)
	drop map[string]bool

	frameTLS *tls.Config // the run's frame links' TLS, or nil

	// the step set-up is in, for the heartbeats that report it
	step setupStep

	previewMu sync.Mutex
	previewed map[string]time.Time // when each destination last went to the dashboard

	barrierMu sync.Mutex
	released  map[int]chan struct{} // swap barrier releases by frame
}

// pipe is one GPU: its executor, windows and the frames it runs in order.
type pipe struct {
	model   *compound.Pipe
	gl      *channel.Pipe // nil for a null node
	exec    executor
	windows []*channel.Window
	work    *jobQueue
	done    chan struct{}
	shownAt time.Time // when it last showed a frame (runPipe's)
}

// maxFramesHeld bounds the frames a node takes before it is done with the
// first: the server starts a frame once the one latency+1 before it is
// done; the rest is room for a server that counts otherwise.
func maxFramesHeld(latency int) int { return 2*latency + 32 }

// jobQueue is a pipe's frames to run, in order. The node's message loop
// adds to it without waiting: the pipe may be waiting, in an earlier
// frame, for a message only that loop takes (tiles, a swap barrier's
// release). When it waited for room in a queue of 16, every config with a
// tile queue or a swap barrier across nodes hung at frame 0 from latency
// 17 on. The frames a node is sent are bounded by the latency (see
// start).
type jobQueue struct {
	mu     sync.Mutex
	jobs   []*pipeJob
	closed bool
	more   chan struct{} // a token while jobs or the closing are unread
}

func newJobQueue() *jobQueue { return &jobQueue{more: make(chan struct{}, 1)} }

func (q *jobQueue) push(job *pipeJob) {
	q.mu.Lock()
	q.jobs = append(q.jobs, job)
	q.mu.Unlock()
	q.wake()
}

// close ends the queue once the jobs in it are taken.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *jobQueue) wake() {
	select {
	case q.more <- struct{}{}:
	default:
	}
}

// next waits for the next job; false once the queue is closed and empty.
func (q *jobQueue) next() (*pipeJob, bool) {
	for {
		q.mu.Lock()
		if len(q.jobs) > 0 {
			job := q.jobs[0]
			q.jobs[0] = nil
			q.jobs = q.jobs[1:]
			q.mu.Unlock()
			return job, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil, false
		}
		<-q.more
	}
}

type pipeJob struct {
	track *frameTrack
	plans []*planner.ChannelPlan
	dest  bool
	// blank are the pipe's windows the layouts stopped using with this
	// frame (FrameWork.Blank)
	blank []*channel.Window
}

// frameTrack gathers one frame's results from the pipes and the sends.
type frameTrack struct {
	frame    int
	data     []byte // the application's frame data
	messages [][]byte
	// earlier: the messages of earlier frames, taken first (this
	// session's first frame)
	earlier []control.FrameMessages
	overlay []control.OverlayPart // the statistics overlay's content
	// screenshot is a folder the destinations' images go into too
	screenshot string
	sample     int  // of a refined frame
	barrier    bool // the frame's destinations span nodes: the server's Swap releases it
	pace       time.Duration
	// together is closed once every destination pipe of this node has the
	// frame, where it has several (destPipes): they show it together
	together  chan struct{}
	destPipes int
	ctx       context.Context
	cancel    context.CancelFunc
	mu        sync.Mutex
	pipes     int // pipes still running it
	dests     int // destination pipes not yet at the barrier
	results   []*channel.Result
	written   []string
	warnings  []string // of screenshots not written
	err       error
	sends     sync.WaitGroup
	writes    sync.WaitGroup    // of its images (writeImages)
	extra     map[string]*sent  // compression, transmission and bytes per record key
	links     map[[2]string]int // bytes sent by consumer channel and codec
}

// showsWindows reports whether any window of this node asks to be on
// screen (its hint_drawable, or the override, is not offscreen).
func (n *node) showsWindows(override string) bool {
	if env := os.Getenv("GOEQ_DRAWABLE"); override == "" && env != "" {
		override = env
	}
	for _, p := range n.model.Pipes {
		for _, w := range p.Windows {
			want := strings.ToLower(override)
			if want == "" {
				want = strings.ToLower(w.Attributes["hint_drawable"])
			}
			if want != "fbo" && want != "pbuffer" {
				return true
			}
		}
	}
	return false
}

// parsed is the config text this process parsed last: the nodes of one
// process (eqclient --null serves hundreds) are sent the same text, and
// each parsing it again took a 512-node wall's null clients minutes of
// CPU, long enough for their sessions to time out in setup.
var parsed struct {
	sync.Mutex
	name, text string
	res        *configparser.Result
}

// parseOnce parses a config's text, or returns its last parse when the
// process parsed the same text before (resolve a Clone of it).
func parseOnce(name, text string) (*configparser.Result, error) {
	parsed.Lock()
	defer parsed.Unlock()
	if parsed.res == nil || parsed.name != name || parsed.text != text {
		res, err := configparser.Parse(name, []byte(text))
		if err != nil {
			return nil, err
		}
		parsed.name, parsed.text, parsed.res = name, text, res
	}
	return parsed.res, nil
}

func (n *node) setup(s *control.Setup, opt Options) error {
	n.setupM = s
	n.step.enter("reading the config")
	res, err := parseOnce(s.ConfigName, s.ConfigText)
	if err != nil {
		return err
	}
	m, err := compound.Resolve(res.Clone(), compound.Options{Getenv: compound.Defaults(s.Defaults), BlendRanges: s.BlendRanges})
	if err != nil {
		return err
	}
	n.cfg = m.Configs[0]
	for _, nd := range n.cfg.Nodes {
		if nd.ID == opt.Node {
			n.model = nd
		}
	}
	if n.model == nil {
		return fmt.Errorf("config %s has no node %q", s.ConfigName, opt.Node)
	}
	var sys winsys.System
	if !opt.Null {
		n.step.enter("opening the window system")
		var why winsys.Why
		if sys, why, err = winsys.Open(opt.WinSys, n.showsWindows(s.Drawable)); err != nil {
			return err
		}
		logAt := n.log.Info
		if why.DisplayUnusable {
			logAt = n.log.Warn // the wall shows nothing
		}
		logAt(fmt.Sprintf("window system: %s (%s)", sys.Name(), why))
	}
	n.chooser = compressor.NewChooser()
	sample := make([]byte, 4*256*64)
	for i := range sample {
		sample[i] = byte(i / 4 / 64)
	}
	n.chooser.Calibrate(compressor.RGBA8, 256, 64, sample)
	n.byChan, n.repairing, n.feeding = map[string]*pipe{}, map[repairOf]*pipe{}, map[repairOf][]*pipe{}
	n.frames = map[int]*frameTrack{}
	n.drop = map[string]bool{}
	if v := os.Getenv("GOEQ_DROP_FRAMES"); v != "" {
		for _, name := range strings.Split(v, ",") {
			n.drop[name] = true
		}
		n.log.Warn(fmt.Sprintf("fault injection: never sending frames %s", v))
	}
	n.released = map[int]chan struct{}{}
	n.events = make(chan control.WindowEvent, eventQueue)
	n.pointer = map[*compound.Window][2]float64{}
	// a pipe may fail alone: the node goes on without it under the
	// config's robustness, as Equalizer's config init drops a pipe that
	// fails. The server says whether the run can: not while a layout
	// shown has a destination on it, which may change before the first
	// frame and a rejoining node does not know
	var firstLoss error
	var lossWarnings []string // logged once some pipe is set up: else the node itself did not come
	lose := func(pi int, p *pipe, r draw.Renderer, err error) {
		lossWarnings = append(lossWarnings, fmt.Sprintf("%s could not be set up (%v): the node goes on without it, as the config's robustness lets it", n.model.Pipes[pi].Label(), err))
		n.logPanic(err)
		if p != nil {
			p.release(r)
		}
		n.lostPipes = append(n.lostPipes, control.LostPipe{Pipe: pi, Reason: err.Error()})
		if firstLoss == nil {
			firstLoss = err
		}
	}
	var glPipes []*pipe
	var glIndex []int // of each in the node's pipes
	for pi, pm := range n.model.Pipes {
		if opt.Null {
			p := &pipe{model: pm, exec: nullExecutor{sink: n}, work: newJobQueue(), done: make(chan struct{})}
			n.pipes = append(n.pipes, p)
			n.claimChannels(p)
			go n.runPipe(p)
			continue
		}
		p, err := n.openPipe(pm, sys, s.Drawable)
		if err != nil {
			if !n.cfg.Robust() {
				return err
			}
			lose(pi, nil, nil, err)
			continue
		}
		glPipes, glIndex = append(glPipes, p), append(glIndex, pi)
	}
	renderers, failed, err := n.makeRenderers(glPipes, s, opt)
	if err != nil {
		return err
	}
	// what the factories allocated and dropped (a model file parsed, a
	// mesh ordered: several times what they keep) goes back to the system
	// now; the Go heap would otherwise hold its peak for the whole run,
	// as frames allocate too little to collect it
	debug.FreeOSMemory()
	merge, err := channel.ParseMergeOn(s.Merge)
	if err != nil {
		return err
	}
	for i, p := range glPipes {
		if failed[i] != nil {
			lose(glIndex[i], p, nil, failed[i])
			continue
		}
		pm, glp := p.model, p.gl
		// through a *channel.Executor: a nil one failed, and must not become
		// a non-nil executor that shutdown would close
		exec, err := channel.NewExecutor(glp, renderers[i], n, channel.ExecOptions{AsyncReadback: s.AsyncReadback, FullReadback: s.FullReadback, InputTimeout: s.InputTimeout, Merge: merge,
			Node: n.name, Port: pm.Port, Device: pm.Device, Warn: func(msg string) { n.log.Warn(msg) }})
		if err != nil {
			if !n.cfg.Robust() {
				return err
			}
			lose(glIndex[i], p, renderers[i], err)
			continue
		}
		p.exec = exec
		for _, cw := range p.windows {
			w := cw.Model
			if want := w.Samples(); exec.Samples(want) < want {
				n.log.Warn(fmt.Sprintf("%s asks for %d samples a pixel (planes_samples); this GL allows %d, which its draws render with", w.Label(), want, exec.Samples(want)))
			}
			cw.OnEvent(func(e winsys.Event) { n.windowEvent(cw, e) })
			if sw, sh, ok := cw.ScreenSize(); ok && (sw != w.PixelViewport.W || sh != w.PixelViewport.H) {
				// fullscreen on a screen unlike its pipe's viewport: the
				// frames follow its size on screen, as after a user's resize
				n.queueEvent(w, control.WindowEvent{Kind: int(winsys.Resize), Window: w.Name, WindowID: w.ID, View: -1, W: sw, H: sh})
			}
		}
		n.pipes = append(n.pipes, p)
		n.claimChannels(p)
		go n.runPipe(p)
	}
	if len(n.pipes) == 0 && firstLoss != nil {
		return firstLoss // nothing left: the node itself did not come
	}
	for _, w := range lossWarnings {
		n.log.Warn(w)
	}
	return nil
}

// openPipe starts a pipe's GL thread and opens its windows; on an error
// it leaves nothing open.
func (n *node) openPipe(pm *compound.Pipe, sys winsys.System, drawable string) (*pipe, error) {
	psys := n.pipeSystem(sys, pm)
	n.step.enter("opening " + pm.Label())
	glp, err := channel.StartPipe(pm.Label(), psys)
	if err != nil {
		return nil, err
	}
	glp.Warn = func(msg string) { n.log.Warn(msg) }
	p := &pipe{model: pm, gl: glp, work: newJobQueue(), done: make(chan struct{})}
	// the windows open before the renderer factories run: a window that
	// cannot open fails the run before the application's data is loaded,
	// not after
	for _, w := range pm.Windows {
		d, why := channel.ChooseDrawable(w, psys, drawable)
		n.step.enter("opening " + w.Label())
		cw, err := glp.OpenWindow(w, d)
		if err != nil {
			p.release(nil)
			return nil, err
		}
		n.log.Info(fmt.Sprintf("%s: %s (%s)", w.Label(), d, why))
		p.windows = append(p.windows, cw)
	}
	return p, nil
}

// onScreen counts the node's windows shown on a display.
func (n *node) onScreen() int {
	count := 0
	for _, p := range n.pipes {
		for _, w := range p.windows {
			if w.Drawable == channel.OnScreen {
				count++
			}
		}
	}
	return count
}

// release closes a pipe that never ran: its renderer (nil: none was
// made), its windows and its GL thread.
func (p *pipe) release(r draw.Renderer) {
	p.gl.ExitRenderer(r)
	for _, w := range p.windows {
		w.Close()
	}
	p.gl.Stop()
}

// makeRenderers runs the application's renderer factory of every pipe at
// once, each on its pipe's thread with the pipe's context current (the
// factory may make GL objects), as Equalizer's pipe threads initialise
// together: factories that load the application's data take the time of
// the slowest, not the sum. The first to fail ends it at once, without
// waiting for the others' loads: the process leaves with its error. Under
// the config's robustness a pipe fails alone: its error is its entry in
// failed.
func (n *node) makeRenderers(pipes []*pipe, s *control.Setup, opt Options) (renderers []draw.Renderer, failed []error, err error) {
	if len(pipes) == 0 {
		return nil, nil, nil
	}
	labels := make([]string, len(pipes))
	for i, p := range pipes {
		labels[i] = p.model.Label()
	}
	n.step.enter("running the renderer factory (NewRenderer) of " + strings.Join(labels, ", "))
	type made struct {
		i   int
		r   draw.Renderer
		err error
	}
	results := make(chan made, len(pipes))
	for i, p := range pipes {
		go func() {
			pm := p.model
			var r draw.Renderer
			err := p.gl.DoApplication("the renderer factory (NewRenderer)", func() error {
				var err error
				r, err = opt.NewRenderer(PipeInfo{Node: n.name, Pipe: pm.Name, Device: pm.Device, InitData: s.InitData,
					SendEvent: func(data []byte) error { return n.pipeEvent(pm, data) }})
				return err
			})
			if err != nil && !strings.HasPrefix(err.Error(), pm.Label()) {
				err = fmt.Errorf("%s: %w", pm.Label(), err) // which pipe's, of several at once
			}
			results <- made{i, r, err}
		}()
	}
	renderers, failed = make([]draw.Renderer, len(pipes)), make([]error, len(pipes))
	for range pipes {
		m := <-results
		if m.err != nil && !n.cfg.Robust() {
			return nil, nil, m.err
		}
		renderers[m.i], failed[m.i] = m.r, m.err
	}
	return renderers, failed, nil
}

// logPanic logs the stack of a panic in the application's code, where
// the error that reaches the server and the application says only where
// it happened: what led there is the developer's to read.
func (n *node) logPanic(err error) {
	if pe, ok := errors.AsType[*channel.PanicError](err); ok {
		n.log.Error(fmt.Sprintf("%v\n%s", pe, pe.Stack))
	}
}

// claimChannels routes the channels of p's windows to p.
func (n *node) claimChannels(p *pipe) {
	for _, ch := range n.cfg.Channels {
		if ch.Window.Pipe == p.model {
			n.byChan[ch.ID] = p
		}
	}
}

// frameBound bounds the frames a node's listener accepts by the largest
// it can be sent: a share is at most its destination, so at most the
// largest window, and a zoomed compound renders it larger, by its zoom
// times its ancestors' (a zoom of 2 under another of 2 sends 16 times the
// window's pixels). Four times that leaves room for windows of other
// nodes made larger. A window of this node resized grows the bound
// before the server hears of it, so before any frame of its new size is
// sent (a frame the bound refuses drops the link it came on); the shares
// of windows of other nodes grow it with the frame's plan (a part that
// comes before it waits for that: transport.Listener.admit).
type frameBound struct {
	mu     sync.Mutex
	ln     *transport.Listener
	window int     // the largest window's pixels
	zoom   float64 // the largest zoom's growth of a share's pixels
}

// bound sets ln's bound from cfg's windows and zooms.
func (b *frameBound) bound(ln *transport.Listener, cfg *compound.Config) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ln, b.zoom = ln, 1
	for _, nd := range cfg.Nodes {
		for _, p := range nd.Pipes {
			for _, w := range p.Windows {
				b.window = max(b.window, w.PixelViewport.W*w.PixelViewport.H)
			}
		}
	}
	cfg.Walk(func(c *compound.Compound) { b.zoom = max(b.zoom, c.Zoom.X*c.Zoom.Y) })
	b.apply()
}

// allow grows the bound for a window, or a share of one, of that many
// pixels.
func (b *frameBound) allow(pixels int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pixels > b.window {
		b.window = pixels
		b.apply()
	}
}

func (b *frameBound) apply() {
	if b.ln != nil {
		b.ln.SetMaxPixels(int(math.Ceil(4 * float64(max(b.window, 1)) * b.zoom)))
	}
}

func (n *node) shutdown() {
	// every pipe ends its frame first: the server waits for the
	// renderers' Exit, not for a draw that does not return
	for _, p := range n.pipes {
		p.work.close()
	}
	for _, p := range n.pipes {
		<-p.done
	}
	n.exiting.Store(true)
	for _, p := range n.pipes {
		if p.exec != nil {
			p.exec.Close()
		}
		for _, w := range p.windows {
			w.Close()
		}
		if p.gl != nil {
			p.gl.Stop()
		}
	}
	n.images.Wait() // the pipes are done: no write starts after this
	n.sendersMu.Lock()
	for _, s := range n.senders {
		s.close()
	}
	n.sendersMu.Unlock()
}

// serve receives the server's messages until it stops the run.
func (n *node) serve(ctx context.Context, s *session) error {
	type msg struct {
		m   *control.ServerMsg
		err error
	}
	in := make(chan msg)
	go func() {
		for {
			m, err := s.stream.Recv()
			select {
			case in <- msg{m, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		var r msg
		select {
		case r = <-in:
		case <-ctx.Done():
			n.cancelFrames()
			return ctx.Err()
		case err := <-n.windowGone:
			n.cancelFrames()
			return err
		}
		if r.err != nil {
			n.cancelFrames()
			return fmt.Errorf("connection to the server lost: %s", control.ErrorText(r.err))
		}
		m := r.m
		switch {
		case m.Stop:
			n.cancelFrames()
			return errStopped
		case m.Dropped != "":
			n.cancelFrames()
			return fmt.Errorf("the server went on without this node (lost: %s); start the client again to rejoin", m.Dropped)
		case m.Abandon != nil:
			n.abandon(m.Abandon)
		case m.Repair != nil:
			n.repair(m.Repair)
		case m.Swap != nil:
			n.release(*m.Swap)
		case m.Grant != nil:
			n.grant(*m.Grant)
		case m.Earlier != nil:
			if err := n.takeEarlier(m.Earlier); err != nil {
				n.cancelFrames()
				return err
			}
		case m.Frame != nil:
			if err := n.start(ctx, m.Frame); err != nil {
				return err
			}
		}
	}
}

// grant hands tile queue items to the pipe of the channel they are for, or
// of the channel that draws a lost one's part (repair), or, marked Repair,
// to the pipes whose repairs read them (feeding).
func (n *node) grant(g control.Grant) {
	cg := channelGrant(g)
	at := repairOf{g.Frame, g.Channel}
	if g.Repair {
		for _, p := range n.feeding[at] {
			p.exec.Grant(cg)
		}
		return
	}
	p := n.byChan[g.Channel]
	if p == nil {
		p = n.repairing[at]
	}
	if p != nil {
		p.exec.Grant(cg)
	}
}

func channelGrant(g control.Grant) channel.Grant {
	return channel.Grant{Frame: g.Frame, Channel: g.Channel, Queue: g.Queue, First: g.First, Tiles: g.Tiles,
		Ranges: g.Ranges, Done: g.Done, Repaired: g.Repair}
}

// repairOf names a channel's part of a frame drawn again.
type repairOf struct {
	frame   int
	channel string
}

// repair hands lost channels' parts of a frame to the pipe of the channels
// they go to, with the tile queue items they were handed: it pulls the
// rest for them.
func (n *node) repair(r *control.Repair) {
	var p *pipe
	for _, id := range r.For {
		q := n.byChan[id]
		if q == nil || p != nil && q != p {
			n.log.Warn(fmt.Sprintf("frame %d: a repair for channels %v, which are not on one pipe of this node: ignored", r.Frame, r.For))
			return
		}
		p = q
	}
	if p == nil {
		n.log.Warn(fmt.Sprintf("frame %d: a repair for no channel: ignored", r.Frame))
		return
	}
	plans := func(cws []control.ChannelWork) []*planner.ChannelPlan {
		var out []*planner.ChannelPlan
		for _, cw := range cws {
			ch := n.cfg.ChannelByID(cw.Channel)
			if ch == nil {
				n.log.Warn(fmt.Sprintf("frame %d: a repair of channel %s, which is not in the config: ignored", r.Frame, cw.Channel))
				return nil
			}
			out = append(out, &planner.ChannelPlan{Channel: ch, Tasks: cw.Tasks, Viewport: cw.Viewport, WindowSize: cw.WindowSize, View: cw.View})
		}
		return out
	}
	lost, feeders := plans(r.Lost), plans(r.Feeders)
	if len(lost) != len(r.Lost) || len(feeders) != len(r.Feeders) {
		return
	}
	// the frames done here are done with their repairs
	n.framesMu.Lock()
	done := func(at repairOf) bool { return at.frame < r.Frame && n.frames[at.frame] == nil }
	maps.DeleteFunc(n.repairing, func(at repairOf, _ *pipe) bool { return done(at) })
	maps.DeleteFunc(n.feeding, func(at repairOf, _ []*pipe) bool { return done(at) })
	n.framesMu.Unlock()
	reads := func(id string) {
		// a node has few pipes: the list stays short
		at := repairOf{r.Frame, id}
		if !slices.Contains(n.feeding[at], p) {
			n.feeding[at] = append(n.feeding[at], p)
		}
	}
	for _, cw := range r.Lost {
		if slices.Contains(r.Reading, cw.Channel) {
			reads(cw.Channel)
		} else {
			n.repairing[repairOf{r.Frame, cw.Channel}] = p
		}
	}
	for _, cw := range r.Feeders {
		reads(cw.Channel)
	}
	// this repair's alone: another pipe here that reads the channel's
	// grants had its own (and a part that read them twice would draw
	// each tile twice, and count it so)
	for _, g := range r.Grants {
		p.exec.Grant(channelGrant(g))
	}
	p.exec.Repair(r.Frame, r.For, lost, feeders, r.Reading)
}

// maxEarlier bounds the earlier messages a node holds for its first frame
// (the server keeps 32 MiB of them).
const maxEarlier = 64 << 20

// takeEarlier holds messages broadcast before the session's first frame,
// checked to come in frame order and within maxEarlier.
func (n *node) takeEarlier(fms []control.FrameMessages) error {
	for _, fm := range fms {
		if len(n.earlier) > 0 && fm.Frame <= n.earlier[len(n.earlier)-1].Frame || fm.Frame < 0 {
			return fmt.Errorf("the server sent the messages of frame %d out of order", fm.Frame)
		}
		n.earlierBytes += fm.Size()
		if n.earlierBytes > maxEarlier {
			return fmt.Errorf("the server sent more than %d MiB of earlier messages", maxEarlier>>20)
		}
		n.earlier = append(n.earlier, fm)
	}
	return nil
}

// start hands a frame's work to the pipes; each runs its frames in order.
func (n *node) start(ctx context.Context, fw *control.FrameWork) error {
	if fw.Peers != nil { // sent when they changed
		n.peersMu.Lock()
		n.peers = fw.Peers
		n.peersMu.Unlock()
		n.retireSenders(fw.Peers)
	}
	byPipe := map[*pipe]*pipeJob{}
	fctx, cancel := context.WithCancel(ctx)
	if !fw.DataKept {
		n.data = fw.Data
	}
	track := &frameTrack{frame: fw.Frame, data: n.data, messages: fw.Messages, overlay: fw.Overlay, barrier: fw.SwapBarrier, pace: min(max(fw.Pace, 0), maxPace), screenshot: fw.Screenshot, sample: fw.Sample, ctx: fctx, cancel: cancel, extra: map[string]*sent{}, links: map[[2]string]int{}}
	if len(n.earlier) > 0 {
		if last := n.earlier[len(n.earlier)-1].Frame; last >= fw.Frame {
			cancel()
			return fmt.Errorf("frame %d: the server sent messages of frame %d as earlier ones", fw.Frame, last)
		}
		track.earlier, n.earlier, n.earlierBytes = n.earlier, nil, 0
	}
	for _, cw := range fw.Channels {
		ch := n.cfg.ChannelByID(cw.Channel)
		p := n.byChan[cw.Channel]
		if ch == nil || p == nil {
			cancel()
			return fmt.Errorf("frame %d: channel %s is not on node %s", fw.Frame, cw.Channel, n.name)
		}
		// a window of another node resized larger: this one's shares
		// of it grew with it
		most := cw.WindowSize.W * cw.WindowSize.H
		for _, t := range cw.Tasks {
			most = max(most, t.Region.W*t.Region.H)
		}
		n.frameBound.allow(most)
		job := byPipe[p]
		if job == nil {
			job = &pipeJob{track: track}
			byPipe[p] = job
		}
		job.plans = append(job.plans, &planner.ChannelPlan{Channel: ch, Tasks: cw.Tasks, Destination: cw.Destination, Aside: cw.Aside,
			Viewport: cw.Viewport, WindowSize: cw.WindowSize, View: cw.View})
		job.dest = job.dest || cw.Destination
	}
	if len(fw.Messages)+len(track.earlier) > 0 {
		// every pipe takes the frame's messages, drawing or not
		for _, p := range n.pipes {
			if byPipe[p] == nil {
				byPipe[p] = &pipeJob{track: track}
			}
		}
	}
	for _, id := range fw.Blank {
		w, p := n.windowByID(id)
		if w == nil {
			cancel()
			return fmt.Errorf("frame %d: window %s is not on node %s", fw.Frame, id, n.name)
		}
		if byPipe[p] == nil {
			byPipe[p] = &pipeJob{track: track}
		}
		byPipe[p].blank = append(byPipe[p].blank, w)
	}
	track.pipes = len(byPipe)
	for _, job := range byPipe {
		if job.dest {
			track.dests++
		}
	}
	track.destPipes, track.together = track.dests, make(chan struct{})
	n.framesMu.Lock()
	held := len(n.frames)
	n.frames[fw.Frame] = track
	n.framesMu.Unlock()
	if held > maxFramesHeld(n.cfg.Latency) {
		cancel()
		return fmt.Errorf("frame %d: the server sent it while this node had %d frames not done, more than latency %d lets it send", fw.Frame, held, n.cfg.Latency)
	}
	if len(byPipe) == 0 {
		n.finish(track)
		return nil
	}
	for _, p := range n.pipes {
		if job := byPipe[p]; job != nil {
			p.work.push(job)
		}
	}
	return nil
}

// windowByID finds one of the node's windows, and its pipe.
func (n *node) windowByID(id string) (*channel.Window, *pipe) {
	for _, p := range n.pipes {
		for _, w := range p.windows {
			if w.Model.ID == id {
				return w, p
			}
		}
	}
	return nil, nil
}

// receive gives a pipe's renderer a frame's messages, after the earlier
// frames' this session was not sent before.
func (n *node) receive(p *pipe, t *frameTrack) error {
	for _, fm := range t.earlier {
		if err := p.exec.Receive(fm.Frame, fm.Messages); err != nil {
			return fmt.Errorf("the messages broadcast in frame %d, taken before frame %d: %w", fm.Frame, t.frame, err)
		}
	}
	return p.exec.Receive(t.frame, t.messages)
}

// runPipe runs a pipe's frames in order: the tasks, the images, the swap
// barrier and presentation.
func (n *node) runPipe(p *pipe) {
	defer close(p.done)
	for {
		job, ok := p.work.next()
		if !ok {
			return
		}
		t := job.track
		var res *channel.Result
		if err := n.receive(p, t); err != nil {
			res = &channel.Result{Frame: t.frame, Err: err}
		} else {
			previews := map[string]bool{}
			p.exec.SetOverlay(t.overlay)
			p.exec.SetRefine(t.sample)
			res = p.exec.Run(t.ctx, t.frame, t.data, job.plans, func(ch *compound.Channel) bool {
				if n.previewDue(ch) {
					previews[ch.ID] = true
				}
				return len(n.imagePaths(ch, t)) > 0 || previews[ch.ID]
			})
			n.sendPreviews(t.frame, res, previews)
		}
		n.writeImages(t, res)
		err := res.Failure()
		if err == nil {
			err = n.showDrawn(p, job)
		}
		switch {
		case job.dest && err == nil:
			err = n.pace(p, t)
			if err == nil {
				err = n.barrier(t)
			}
			if err == nil {
				err = p.exec.Present(t.frame, p.windows, res.Shown)
				p.shownAt = time.Now()
				n.noteShown(res.Shown)
			}
		case job.dest:
			// the frame failed here: the node's other destination pipes
			// do not wait for this one to show it
			if _, err := n.atBarrier(t); err != nil {
				n.log.Warn(fmt.Sprintf("frame %d: %v", t.frame, err))
			}
		}
		if len(job.blank) > 0 && err == nil {
			err = p.exec.Blank(job.blank)
			n.noteBlank(job.blank)
		}
		t.mu.Lock()
		t.results = append(t.results, res)
		if err != nil && t.err == nil {
			t.err = err
		}
		t.pipes--
		last := t.pipes == 0
		t.mu.Unlock()
		if last {
			go n.finish(t)
		}
	}
}

// showDrawn shows on the pipe's on-screen windows that drew this frame
// but show no destination in it (a source's window) what they drew, as
// Equalizer's source windows do: a 2D source's tile, a DB source's range,
// a time multiplex's frames in turn. It does so at once, as nothing waits
// for a source. Before, such windows stayed black. A window drawn only
// every few frames (a time multiplex) keeps its picture in between.
func (n *node) showDrawn(p *pipe, job *pipeJob) error {
	var windows []*channel.Window
	var drawn []*planner.ChannelPlan
	for _, w := range p.windows {
		if w.Drawable != channel.OnScreen {
			continue
		}
		on := func(cp *planner.ChannelPlan) bool { return cp.Channel.Window == w.Model && !cp.Aside }
		i := slices.IndexFunc(job.plans, on)
		if i < 0 || slices.ContainsFunc(job.plans, func(cp *planner.ChannelPlan) bool { return on(cp) && cp.Destination }) {
			continue
		}
		windows, drawn = append(windows, w), append(drawn, job.plans[i])
	}
	if len(windows) == 0 {
		return nil
	}
	return p.exec.Present(job.track.frame, windows, drawn)
}

// imagePaths are where a channel's image of a frame goes, none when none
// is asked for: its dump_image, every DumpEvery-th frame into OutDir, and
// the folder the application asked a screenshot of the frame into.
func (n *node) imagePaths(ch *compound.Channel, t *frameTrack) []imagePath {
	var paths []imagePath
	every := max(n.setupM.DumpEvery, 1)
	if t.frame%every == 0 || ch.Attributes["dump_image"] != "" {
		if p := channel.DumpPath(ch, n.setupM.OutDir, t.frame); p != "" {
			paths = append(paths, imagePath{path: p})
		}
	}
	if t.screenshot != "" {
		paths = append(paths, imagePath{path: channel.LabelPath(ch, t.screenshot, t.frame), screenshot: true})
	}
	return paths
}

// imagePath is where an image goes, and whether it is a screenshot: the
// frames a run writes must all be written, or the run fails, but a
// screenshot that cannot be written is reported and the session goes on.
type imagePath struct {
	path       string
	screenshot bool
}

// imageSlots bounds the images being written at once in this process: a
// pipe that asks for one more waits, so a disk or an encoder slower than
// the frames holds the pipes back instead of piling up frames in memory.
// One a core, two at least and four at most: four 3840x2160 images wait
// in 130 MB, and encode (about 120 ms each) faster than 30 a second.
var imageSlots = make(chan struct{}, min(max(2, runtime.NumCPU()), 4))

// writeImages writes the images the run kept, beside the pipe: encoding a
// PNG takes longer than drawing a frame (tens of milliseconds at 1280x800),
// and the pipe goes on to its next frame meanwhile. The frame is reported
// done only once they are written (finish), and a failed write fails it.
func (n *node) writeImages(t *frameTrack, res *channel.Result) {
	for _, sp := range res.Shown {
		ch := sp.Channel
		px := res.Images[ch.ID]
		if px == nil || px.PixelViewport.W <= 0 || px.PixelViewport.H <= 0 {
			continue // a channel of no pixels (check warns of one)
		}
		for _, to := range n.imagePaths(ch, t) {
			imageSlots <- struct{}{}
			t.writes.Add(1)
			n.images.Add(1)
			go func() {
				defer n.images.Done()
				defer t.writes.Done()
				err := channel.WritePNG(to.path, px.Color, px.PixelViewport.W, px.PixelViewport.H)
				<-imageSlots
				t.mu.Lock()
				defer t.mu.Unlock()
				switch {
				case err != nil && to.screenshot:
					t.warnings = append(t.warnings, fmt.Sprintf("channel %s: no screenshot: writing %s: %v", ch.Label, to.path, err))
				case err != nil:
					if t.err == nil {
						t.err = fmt.Errorf("channel %s: writing %s: %w", ch.Label, to.path, err)
					}
				default:
					t.written = append(t.written, to.path)
				}
			}()
		}
	}
}

// maxPace bounds the pace a frame's work may ask for: a time multiplex
// whose sources take a minute a frame is not a display anyone watches.
const maxPace = time.Minute

// pace holds a destination pipe's frame until the frame's pace has passed
// since the pipe showed the one before, as Equalizer's framerate
// equalizer throttles a destination window's swaps. The server spaces the
// frames' starts by the same interval, but that cannot space their ends
// once sources have frames queued: a time multiplex's sources then
// finished theirs at the same moments, and they showed in pairs.
func (n *node) pace(p *pipe, t *frameTrack) error {
	if t.pace <= 0 || p.shownAt.IsZero() {
		return nil
	}
	wait := time.Until(p.shownAt.Add(t.pace))
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-t.ctx.Done():
		return fmt.Errorf("frame %d: waiting for its turn to show: %w", t.frame, t.ctx.Err())
	}
}

// barrier holds a destination pipe's frame until it may be shown, so
// that a wall's segments show the same frame: until every destination
// pipe of this node has it (two projectors on two GPUs of one node), and
// where the frame's destinations span nodes, until the server's Swap
// releases them all. The node says Assembled once its last destination
// pipe arrives. Before, the pipes of one node showed each frame as each
// finished it: segments of a projector wall showed different frames
// whatever the config's swap barrier.
func (n *node) barrier(t *frameTrack) error {
	rel, err := n.atBarrier(t)
	if rel == nil || err != nil {
		return err
	}
	timer := time.NewTimer(max(n.setupM.InputTimeout, 30*time.Second))
	defer timer.Stop()
	select {
	case <-rel:
		return nil
	case <-t.ctx.Done():
		return fmt.Errorf("frame %d: waiting at the swap barrier: %w", t.frame, t.ctx.Err())
	case <-timer.C:
		return fmt.Errorf("frame %d: the swap barrier was not released", t.frame)
	}
}

// atBarrier counts a destination pipe as having the frame, and gives what
// releases it: nil where it need not wait (the node's one destination
// pipe, of a frame shown on this node alone).
func (n *node) atBarrier(t *frameTrack) (chan struct{}, error) {
	if !t.barrier && t.destPipes < 2 {
		return nil, nil
	}
	t.mu.Lock()
	t.dests--
	arrived := t.dests == 0
	t.mu.Unlock()
	if !t.barrier {
		if arrived {
			close(t.together)
		}
		return t.together, nil
	}
	rel := n.releaseOf(t.frame)
	if arrived {
		f := t.frame
		if err := n.session.send(&control.ClientMsg{Assembled: &f}); err != nil {
			return nil, err
		}
	}
	return rel, nil
}

func (n *node) releaseOf(frame int) chan struct{} {
	n.barrierMu.Lock()
	defer n.barrierMu.Unlock()
	ch := n.released[frame]
	if ch == nil {
		ch = make(chan struct{})
		n.released[frame] = ch
	}
	return ch
}

func (n *node) release(frame int) {
	ch := n.releaseOf(frame)
	n.barrierMu.Lock()
	defer n.barrierMu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
	for f := range n.released {
		if f < frame-64 {
			delete(n.released, f)
		}
	}
}

// drainWait bounds how long a node waits for the frames a lost node sent
// before it tells its pipes not to wait for its parts: one that died
// closed its connections at once, after what it had written; one that
// froze or lost its link had sent nothing for the liveness time before it
// was lost.
const drainWait = 500 * time.Millisecond

// abandon tells the pipes that a lost node's parts of a frame will not
// come, once what it sent before it died has come: told at once, they
// would not wait for a part that had been sent whole and is on its way
// (a frame named degraded that need not have been).
func (n *node) abandon(a *control.Abandon) {
	tell := func() {
		for _, p := range n.pipes {
			p.exec.Abandon(a.Frame, a.Producers)
		}
	}
	if a.From == "" || n.listener == nil {
		tell()
		return
	}
	drained := n.listener.Drained(a.From)
	go func() {
		t := time.NewTimer(drainWait)
		defer t.Stop()
		select {
		case <-drained:
		case <-t.C:
		}
		tell()
	}()
}

// finish reports a frame once its pipes and sends are done.
func (n *node) finish(t *frameTrack) {
	for _, r := range t.results {
		r.Wait()
	}
	t.sends.Wait()
	t.writes.Wait()
	t.cancel()
	n.framesMu.Lock()
	delete(n.frames, t.frame)
	n.framesMu.Unlock()
	sort.Strings(t.written) // written in parallel
	sort.Strings(t.warnings)
	done := &control.FrameDone{Frame: t.frame, Written: t.written, Warnings: t.warnings}
	for k, b := range t.links {
		done.Links = append(done.Links, control.LinkBytes{To: k[0], Codec: k[1], Bytes: b})
	}
	for _, r := range t.results {
		done.Degraded = append(done.Degraded, r.Degraded...)
		for _, rec := range r.Records {
			x := *rec
			if e := t.extra[recordKey(rec.Channel, rec.Compound, rec.Eye)]; e != nil {
				x.Times.Compress += e.compress
				x.Times.Transmit += e.transmit
				x.Bytes += e.bytes
			}
			done.Records = append(done.Records, x)
		}
		if r.Err != nil && t.err == nil {
			t.err = r.Err
		}
	}
	sort.Slice(done.Records, func(i, j int) bool {
		a, b := done.Records[i], done.Records[j]
		if a.Compound != b.Compound {
			return a.Compound < b.Compound
		}
		return a.Eye < b.Eye
	})
	if t.err != nil && !errors.Is(t.err, context.Canceled) {
		done.Error = n.describe(t.err.Error())
		n.logPanic(t.err)
	}
	if err := n.session.send(&control.ClientMsg{Done: done}); err != nil {
		n.log.Warn(fmt.Sprintf("frame %d: reporting: %v", t.frame, err))
	}
}

// sent is what a record's frames cost on the network.
type sent struct {
	compress, transmit time.Duration
	bytes              int
}

func recordKey(channelID, compoundPath string, eye int) string {
	return fmt.Sprintf("%s|%s|%d", channelID, compoundPath, eye)
}

// describe replaces channel IDs written {id} by their labels.
func (n *node) describe(s string) string {
	for _, ch := range n.cfg.Channels {
		s = replaceAll(s, "{"+ch.ID+"}", "channel "+ch.Label)
	}
	return s
}

func (n *node) cancelFrames() {
	n.framesMu.Lock()
	defer n.framesMu.Unlock()
	for _, t := range n.frames {
		t.cancel()
	}
}

func (n *node) track(frame int) *frameTrack {
	n.framesMu.Lock()
	defer n.framesMu.Unlock()
	return n.frames[frame]
}

// waits is what the node's channels wait for now.
func (n *node) waits() []control.Wait {
	var out []control.Wait
	for _, p := range n.pipes {
		for _, w := range p.exec.Waits() {
			out = append(out, control.Wait{Frame: w.Frame, Channel: w.Channel, What: w.What})
		}
	}
	return out
}

// eventQueue bounds the window events waiting to be sent; past it they are
// dropped (and logged), never blocking the window system's thread.
const eventQueue = 4096

// windowEvent runs on the window system's thread: it places the event in
// the view of the channel under the pointer and queues it.
func (n *node) windowEvent(cw *channel.Window, e winsys.Event) {
	w := cw.Model
	if e.Kind == winsys.Destroyed {
		select {
		case n.windowGone <- fmt.Errorf("%s: %w", w.Label(), winsys.ErrDestroyed):
		default:
		}
		return
	}
	x, y := e.X, e.Y
	switch e.Kind {
	case winsys.PointerMotion, winsys.ButtonPress, winsys.ButtonRelease, winsys.Wheel:
		n.pointer[w] = [2]float64{x, y}
	default:
		p := n.pointer[w]
		x, y = p[0], p[1]
	}
	n.shownMu.Lock()
	shown, presented := n.shown[w]
	n.shownMu.Unlock()
	size := compound.Size{W: w.PixelViewport.W, H: w.PixelViewport.H}
	if presented && len(shown) > 0 {
		size = shown[0].WindowSize
	} else if !presented {
		// before the window's first frame: the layouts the config starts with
		for _, ch := range n.cfg.Channels {
			if ch.Window == w && ch.Showing() {
				shown = append(shown, &planner.ChannelPlan{Channel: ch, Viewport: ch.PixelViewport, WindowSize: size})
			}
		}
	}
	screenW, screenH, ok := cw.ScreenSize()
	if !ok {
		screenW, screenH = size.W, size.H
	}
	gx, gy := windowPoint(size, screenW, screenH, x, y)
	ev := control.WindowEvent{Kind: int(e.Kind), Window: w.Name, WindowID: w.ID, View: -1, DX: e.DX, DY: e.DY, Button: e.Button, Key: e.Key, Mods: e.Mods, W: e.W, H: e.H}
	for _, sp := range shown {
		pv := sp.Viewport
		if pv.W <= 0 || pv.H <= 0 {
			continue
		}
		if gx >= float64(pv.X) && gx < float64(pv.X+pv.W) && gy >= float64(pv.Y) && gy < float64(pv.Y+pv.H) {
			ev.Channel, ev.View = sp.Channel.ID, n.cfg.ViewIndex(sp.Channel)
			ev.X, ev.Y = sp.Channel.ViewPoint((gx-float64(pv.X))/float64(pv.W), (gy-float64(pv.Y))/float64(pv.H))
		}
	}
	n.queueEvent(w, ev)
}

// pipeEvent queues a renderer's event for the application.
func (n *node) pipeEvent(pm *compound.Pipe, data []byte) error {
	if len(data) > control.MaxEventData {
		return fmt.Errorf("an event of %d bytes encoded, more than the %d allowed", len(data), control.MaxEventData)
	}
	select {
	case n.events <- control.WindowEvent{Kind: control.PipeEventKind, View: -1, Pipe: pm.Name, Data: data, Time: time.Now().UnixNano()}:
		return nil
	default:
		return fmt.Errorf("%d events wait to be sent already", eventQueue)
	}
}

// queueEvent queues an event for the server, never blocking.
func (n *node) queueEvent(w *compound.Window, ev control.WindowEvent) {
	ev.Time = time.Now().UnixNano() // queued as its window sees it
	if ev.Kind == int(winsys.Resize) {
		n.frameBound.allow(ev.W * ev.H)
	}
	select {
	case n.events <- ev:
	default:
		n.log.Warn(fmt.Sprintf("%s: %d events waiting to be sent: this one is dropped", w.Label(), eventQueue))
	}
}

// pipeSystem is where the pipe renders: under X, a pipe that names a
// port or a device other than 0 gets that X display and screen
// (`:port.device`, as Equalizer opens it); headless, a device other than
// 0 gets that GPU of the EGL device platform, as Equalizer gives each pipe
// its GPU; the node's window system otherwise. A display or GPU this
// machine lacks leaves the pipe on the node's, and says so. Pipes left on
// the node's EGL display are spread over the software renderer's
// rasterizers, where it has several.
func (n *node) pipeSystem(sys winsys.System, pm *compound.Pipe) winsys.System {
	if s := n.pipeDisplay(sys, pm); s != sys {
		return s
	}
	return n.rasterizer(sys, pm)
}

// rasterizer is the display of the software renderer the pipe renders on
// when it renders on the node's EGL display (winsys.Rasterizers): taken in
// turn, so that two pipes of a node do not queue their scenes on one
// rasterizer as long as there is another.
func (n *node) rasterizer(sys winsys.System, pm *compound.Pipe) winsys.System {
	if _, ok := sys.(*winsys.EGL); !ok {
		return sys
	}
	i := n.onRasterizers
	n.onRasterizers++
	if i == 0 {
		return sys // the first keeps the node's: a node of one pipe opens no other
	}
	rs, err := winsys.Rasterizers()
	if err != nil || rs[0] != sys {
		return sys
	}
	r := rs[i%len(rs)]
	if r != sys {
		n.log.Info(fmt.Sprintf("%s: %s, a software rasterizer of its own", pm.Label(), r.Name()))
	}
	return r
}

// pipeDisplay is the display or GPU the pipe names, or the node's system.
func (n *node) pipeDisplay(sys winsys.System, pm *compound.Pipe) winsys.System {
	if pm.Device == 0 && !pm.PortSet {
		return sys
	}
	if _, onScreen := sys.(*winsys.GLFW); onScreen {
		return n.screenSystem(sys, pm)
	}
	if pm.Device == 0 {
		return sys
	}
	dev, count, err := winsys.OpenEGLDevice(pm.Device)
	if err != nil {
		n.log.Warn(fmt.Sprintf("%s names device %d (%v): it renders where the node's pipes that name none do, on %s", pm.Label(), pm.Device, err, sys.Name()))
		return sys
	}
	n.log.Info(fmt.Sprintf("%s: %s of %d", pm.Label(), dev.Name(), count))
	return dev
}

// screenSystem is the X display and screen a pipe's port and device name,
// on the host of the node's DISPLAY (without a port, DISPLAY's number).
// The display and screen DISPLAY opens stay with GLFW.
func (n *node) screenSystem(sys winsys.System, pm *compound.Pipe) winsys.System {
	display := os.Getenv("DISPLAY")
	number := -1
	if pm.PortSet {
		number = pm.Port
	}
	name, err := winsys.XDisplay(display, number, pm.Device)
	if err == nil {
		if own, _ := winsys.ScreenDisplay(display, winsys.DisplayScreen(display)); name == own {
			return sys
		}
		var s *winsys.X11
		if s, err = winsys.OpenX11Screen(name); err == nil {
			n.log.Info(fmt.Sprintf("%s: %s", pm.Label(), s.Name()))
			return s
		}
	}
	names := fmt.Sprintf("device %d", pm.Device)
	if pm.PortSet {
		names = fmt.Sprintf("port %d, device %d", pm.Port, pm.Device)
	}
	n.log.Warn(fmt.Sprintf("%s names %s (%v): its windows open on %s, the node's DISPLAY %q", pm.Label(), names, err, sys.Name(), display))
	return sys
}

// noteShown keeps what windows showed in the frame presented: a window
// shown replaces what it showed before, and the others keep theirs (a
// destination drawn every few frames, a period) until they are shown
// again or blanked (noteBlank).
func (n *node) noteShown(shown []*planner.ChannelPlan) {
	now := map[*compound.Window][]*planner.ChannelPlan{}
	for _, sp := range shown {
		now[sp.Channel.Window] = append(now[sp.Channel.Window], sp)
	}
	n.shownMu.Lock()
	defer n.shownMu.Unlock()
	if n.shown == nil {
		n.shown = map[*compound.Window][]*planner.ChannelPlan{}
	}
	maps.Copy(n.shown, now)
}

// noteBlank records that windows show nothing: their events are on no
// channel. Before, a window blanked on a pipe that showed nothing else
// kept the channels it showed last, and a click on it moved the view of a
// layout no longer shown.
func (n *node) noteBlank(windows []*channel.Window) {
	n.shownMu.Lock()
	defer n.shownMu.Unlock()
	if n.shown == nil {
		n.shown = map[*compound.Window][]*planner.ChannelPlan{}
	}
	for _, w := range windows {
		n.shown[w.Model] = nil
	}
}

// windowPoint maps a pointer position in a screenW x screenH window (from
// its top left) to the frame it shows, of size model (from its bottom
// left, as channels count), where the frame shows in it (channel.Fit).
func windowPoint(model compound.Size, screenW, screenH int, x, y float64) (float64, float64) {
	fit := channel.Fit(model.W, model.H, screenW, screenH)
	if fit.W <= 0 || fit.H <= 0 {
		return -1, -1
	}
	gx := (x - float64(fit.X)) * float64(model.W) / float64(fit.W)
	gy := (float64(screenH) - y - float64(fit.Y)) * float64(model.H) / float64(fit.H)
	return gx, gy
}

// eventBatch bounds the window events one message carries.
const eventBatch = 256

// takeQueued appends to batch the window events queued now, up to
// eventBatch in all.
func (n *node) takeQueued(batch []control.WindowEvent) []control.WindowEvent {
	for len(batch) < eventBatch {
		select {
		case e := <-n.events:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// forwardEvents sends window events to the server as they come, batched.
func (n *node) forwardEvents(ctx context.Context, s *session) {
	for {
		select {
		case e := <-n.events:
			if err := s.send(&control.ClientMsg{Events: n.takeQueued([]control.WindowEvent{e})}); err != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
