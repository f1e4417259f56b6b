package channel

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/stats"
)

// Sink is where an executor's output leaves the pipe: frames to their
// consumers (on this node through memory, elsewhere over the network) and
// requests for tiles. Both are called on the pipe's goroutines and must
// not block on the network.
type Sink interface {
	// Send takes ownership of f.
	Send(f *FrameData)
	// Pull asks for up to max items of a tile queue; the grant comes
	// back through Executor.Grant.
	Pull(frame int, channel, queue string, max int)
}

// DefaultClearColor is the background of renderers that do not say.
var DefaultClearColor = [4]float32{0.1, 0.1, 0.15, 1}

// Wait is what a channel waits for, for heartbeats and error messages.
// Channel IDs in What are written {id}.
type Wait struct {
	Frame   int
	Channel string
	What    string
}

// ExecOptions configure an executor.
type ExecOptions struct {
	// AsyncReadback finishes readbacks on the download goroutine (on a
	// GPU: a software GL reads on the render goroutine either way).
	AsyncReadback bool
	// FullReadback reads back whole regions, not just what was drawn.
	FullReadback bool
	// InputTimeout bounds how long a frame may wait for its inputs
	// before the task fails (the server normally fails the run sooner).
	InputTimeout time.Duration
	// TileBatch is how many tiles a source asks for at a time.
	TileBatch int
	// Merge says where sort-last inputs are depth-merged.
	Merge MergeOn
	// Node, Port and Device name the pipe's renderer in its statistics
	// (stats.Record.Renderer).
	Node         string
	Port, Device int
	// Warn, when set, takes what a user should hear of (from any
	// goroutine): a frame sent for a depth merge without depth.
	Warn func(msg string)
}

// MergeOn is where a destination depth-merges its sort-last inputs.
type MergeOn int

const (
	// MergeAuto merges in memory, as MergeCPU: under a software GL (Mesa's
	// llvmpipe) a shader pass is CPU work and costs about 20 times the
	// vector CPU merge, and on an NVIDIA H200 uploading each input costs
	// more than merging it on one core (docs/benchmarks.md, "On a GPU").
	MergeAuto MergeOn = iota
	// MergeGPU uploads every input and composites it with a shader.
	MergeGPU
	// MergeCPU merges inputs in memory as they arrive, then uploads and
	// merges the result once.
	MergeCPU
)

// ParseMergeOn reads "auto", "gpu" or "cpu" ("" is auto).
func ParseMergeOn(s string) (MergeOn, error) {
	switch s {
	case "", "auto":
		return MergeAuto, nil
	case "gpu":
		return MergeGPU, nil
	case "cpu":
		return MergeCPU, nil
	}
	return MergeAuto, fmt.Errorf("merge %q: want auto, gpu or cpu", s)
}

// Executor runs the tasks of one pipe's channels, frame after frame, in an
// order that cannot deadlock: a channel whose assemble waits for an input
// lets the pipe's other channels go on (their readbacks may be what it
// waits for), and the pipe waits only when no channel can progress.
type Executor struct {
	Pipe     *Pipe
	Renderer draw.Renderer
	comp     *gpu.Compositor
	sink     Sink
	opt      ExecOptions
	inbox    *inbox
	targets  map[targetKey]*Target
	// multisampled framebuffers of the targets whose draws antialias,
	// and the most samples this GL allows
	multisampled map[targetKey]*glutil.Multisample
	maxSamples   int
	// maxFramebuffer is the GL's largest framebuffer side: a channel
	// whose tasks need more this frame fails it, naming the channel
	maxFramebuffer int

	// cpuMerge: sort-last inputs are held in memory and merged there
	// (cpumerge.go); mergeAll are the in-memory merges made, mergeFree
	// those no assembly uses now
	cpuMerge  bool
	renderer  string // stats.Record.Renderer
	mergeAll  []*cpuMerged
	mergeFree []*cpuMerged
	// colorScratch holds colour on its way into the framebuffer (scratch)
	colorScratch []byte
	// fanIn is how many input frames each channel (ID) composited in the
	// last frame run: a lone input is uploaded as it arrives, on the
	// upload goroutine, as merging it in memory would gain nothing
	fanIn atomic.Pointer[map[string]int]

	waitsMu sync.Mutex
	waits   []Wait
	// the renderer's method running now, for Waits: a frame that does not
	// complete names a draw that does not return
	inRenderer struct {
		frame         int
		channel, what string
		since         time.Time
	}
	// the task running now, for Waits: a frame that does not complete
	// names the task its pipe is busy with (the GL's work on a software
	// rasterizer lands in the first call that waits for it, not the draw)
	inTask struct {
		frame   int
		channel string
		task    *planner.Task
		since   time.Time
	}
	// the window showing a frame now, for Waits: its swap waits on the
	// window system, which a hung X server answers never
	inPresent struct {
		frame   int
		channel string
		since   time.Time
	}
	stale []*arrival // uploads for frames already finished
	// the statistics overlay of the next frame (SetOverlay)
	overlay []control.OverlayPart
	// how many frames of each channel (label) sent for a depth merge
	// were looked at for depth (depthLost)
	depthMu      sync.Mutex
	depthChecked map[string]int
	// the next frame's refine sample (SetRefine), and each destination
	// channel's average of refined frames (by channel ID)
	refine int
	accum  map[string]*accumulation
	// frames read back smaller than rendered are scaled down here first
	shrink *shrinkBuffer
}

// initer is a renderer made off the pipe's goroutine that sets up its GL
// objects there (the built-in renderers in tests).
type initer interface{ Init() error }

// NewExecutor starts an executor on p with the renderer (initialised here,
// on the pipe's goroutine, when it has an Init).
func NewExecutor(p *Pipe, r draw.Renderer, sink Sink, opt ExecOptions) (*Executor, error) {
	if opt.InputTimeout <= 0 {
		opt.InputTimeout = 30 * time.Second
	}
	if opt.TileBatch <= 0 {
		opt.TileBatch = 4
	}
	e := &Executor{Pipe: p, Renderer: r, sink: sink, opt: opt, inbox: newInbox(), targets: map[targetKey]*Target{},
		multisampled: map[targetKey]*glutil.Multisample{}, cpuMerge: opt.Merge != MergeGPU, accum: map[string]*accumulation{},
		depthChecked: map[string]int{}}
	err := p.Do(func() error {
		if i, ok := r.(initer); ok {
			if err := i.Init(); err != nil {
				return err
			}
		}
		comp, err := gpu.New()
		e.comp = comp
		e.maxSamples = glutil.MaxSamples()
		e.maxFramebuffer = glutil.MaxFramebuffer()
		// llvmpipe rasterizes for one context at a time of each display
		// the process opens (the node's, the software device's, or one X
		// screen's); a GPU serves the pipes opened on it
		e.renderer = fmt.Sprintf("%s GPU %d:%d", opt.Node, opt.Port, opt.Device)
		if p.softwareGL {
			e.renderer = opt.Node + " software" + p.ownDisplay()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Label, err)
	}
	return e, nil
}

// Close frees the executor's GL objects (renderer, compositor,
// framebuffers) and what is left of arrived frames.
func (e *Executor) Close() {
	e.Pipe.ExitRenderer(e.Renderer)
	e.Pipe.Do(func() error {
		e.comp.Delete()
		for _, m := range e.mergeAll {
			m.deleteTextures()
		}
		for _, t := range e.targets {
			t.FB.Delete()
		}
		for _, m := range e.multisampled {
			m.Delete()
		}
		for _, a := range e.accum {
			a.delete()
		}
		if e.shrink != nil {
			e.shrink.delete()
		}
		for _, a := range e.inbox.forget(int(^uint(0) >> 1)) {
			a.upload.Release()
		}
		for _, a := range e.stale {
			a.upload.Release()
		}
		return nil
	})
}

// Target is a window's framebuffer. Channels are rectangles of it, as in
// Equalizer: a destination channel's tasks cover its share there, a
// source's start at its channel's corner (one pixel per destination
// pixel), which may reach beyond the window, so the framebuffer grows to
// hold them.
type Target struct {
	Window *compound.Window
	key    targetKey
	FB     *glutil.Target
	// written is what was drawn, composited or cleared again in the
	// framebuffer since the frame began by clearing all of it: elsewhere
	// it holds that first clear
	written compound.PixelViewport
	// cleared is what the first clear of cleared.color stores (clearPixel)
	cleared struct {
		known bool
		color [4]float32
		pixel [4]byte
	}
	// ranges are the parts of the data it holds where, for a renderer
	// whose ranges blend (Executor.rangeOrderer)
	ranges heldRanges
	// depthRead: a task of the frame reads back or merges against the
	// framebuffer's depth, so a multisampled draw resolves each pixel's
	// nearest sample (a shader pass) where otherwise a blit's one sample
	// does (the pass made 1080p frames of 4 samples 15% slower on
	// llvmpipe: docs/config-language.md)
	depthRead bool
}

// wrote notes that r of the framebuffer was written.
func (t *Target) wrote(r compound.PixelViewport) { t.written = union(t.written, r) }

// holdsClear reports whether r of the framebuffer holds only the frame's
// first clear.
func (t *Target) holdsClear(r compound.PixelViewport) bool {
	i := intersect(t.written, r)
	return i.W <= 0 || i.H <= 0
}

// clearPixel is the pixel the frame's first clear stored in t, read once
// for each clear colour at (x, y), which must still hold it: GLs convert
// a colour to 8 bits in ways of their own (llvmpipe rounds 2.5/255 down),
// so computing it would be off by one now and then.
func (fr *frameRun) clearPixel(t *Target, x, y int) [4]byte {
	c := fr.clearColor()
	if !t.cleared.known || t.cleared.color != c {
		t.FB.Bind()
		copy(t.cleared.pixel[:], glutil.ReadColor(x, y, 1, 1, nil))
		t.cleared.known, t.cleared.color = true, c
	}
	return t.cleared.pixel
}

// targetKey names a framebuffer: a window's, or a channel's own where it
// renders apart from the window's other channels (ownTargets).
type targetKey struct {
	window  *compound.Window
	channel *compound.Channel // nil: the window's
	// repair: a part drawn again for a lost one (Executor.Repair), which
	// may be a part of a channel of this pipe; the nth drawn this frame
	repair int
}

// target returns the framebuffer of key, made (or grown) to hold at least
// w x h pixels. Call on the pipe.
func (e *Executor) target(key targetKey, w, h int) (*Target, error) {
	w, h = max(w, 1), max(h, 1)
	win := key.window
	t := e.targets[key]
	if t != nil && t.FB.W >= w && t.FB.H >= h {
		return t, nil
	}
	if t != nil {
		w, h = max(w, t.FB.W), max(h, t.FB.H)
		t.FB.Delete()
	}
	newTarget := glutil.NewTarget
	if win.Stencil() {
		newTarget = glutil.NewStencilTarget
	}
	fb, err := newTarget(w, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", win.Label(), err)
	}
	t = &Target{Window: win, key: key, FB: fb}
	e.targets[key] = t
	return t, nil
}

// Samples is how many samples a pixel a draw asking for n renders with:
// n, at most what the GL allows (0 or 1: single-sampled).
func (e *Executor) Samples(n int) int { return min(n, e.maxSamples) }

// multisample returns the multisampled framebuffer a draw on t's window
// renders into before it is resolved into t, as large as t. Call on the
// pipe.
func (e *Executor) multisample(t *Target, samples int) (*glutil.Multisample, error) {
	m := e.multisampled[t.key]
	if m != nil && m.W == t.FB.W && m.H == t.FB.H && m.Samples == samples {
		return m, nil
	}
	if m != nil {
		m.Delete()
		delete(e.multisampled, t.key)
	}
	m, err := glutil.NewMultisample(t.FB.W, t.FB.H, samples, t.Window.Stencil())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Window.Label(), err)
	}
	e.multisampled[t.key] = m
	return m, nil
}

// ownTargets says which plans render on a framebuffer of their own: a
// source channel that asks for one (drawable [ FBO_COLOR ... ], as
// Equalizer's channel FBOs), the channels of a window that shows no
// destination this frame whose tasks touch the same pixels, and a source
// whose tasks touch a destination's pixels in its window. Their pixels
// are only read back, and one channel's clear or draw would land on
// another's between its draw and its readback (Equalizer's
// 2-window.2D.DFR has two sources over the whole of one window, one
// assembling the other's part), or stay in the picture a destination
// shows where no frame covers them (Equalizer's stress.lb.2D has twenty
// sources in the lower half of its destination's window: with the eye
// raised, the lowest band drew nothing, and the destination showed
// another band's draw there).
func ownTargets(plans []*planner.ChannelPlan, tasks [][]planner.Task) []bool {
	own := make([]bool, len(plans))
	shows := map[*compound.Window]bool{}
	for i, p := range plans {
		shows[p.Channel.Window] = shows[p.Channel.Window] || p.Destination
		own[i] = !p.Destination && !p.Aside && p.Channel.OwnFramebuffer()
	}
	extent := make([]compound.PixelViewport, len(plans))
	for i, ts := range tasks {
		for _, t := range ts {
			extent[i] = union(extent[i], t.Region)
		}
	}
	for i, a := range plans {
		for j, b := range plans[:i] {
			if a.Channel.Window != b.Channel.Window || a.Aside || b.Aside || a.Channel == b.Channel {
				continue
			}
			if r := intersect(extent[i], extent[j]); r.W <= 0 || r.H <= 0 {
				continue
			}
			switch {
			case !shows[a.Channel.Window]:
				own[i], own[j] = true, true
			case a.Destination && !b.Destination:
				own[j] = true
			case b.Destination && !a.Destination:
				own[i] = true
			}
		}
	}
	return own
}

// inRunOrder is a channel's tasks in window coordinates, in the order it
// runs them (planner.SortForRun).
func inRunOrder(p *planner.ChannelPlan) []planner.Task {
	tasks := inWindow(p)
	planner.SortForRun(tasks)
	return tasks
}

// inWindow moves a channel's tasks from channel to window coordinates.
func inWindow(p *planner.ChannelPlan) []planner.Task {
	o := p.Viewport
	tasks := make([]planner.Task, len(p.Tasks))
	for i, t := range p.Tasks {
		t.Region.X += o.X
		t.Region.Y += o.Y
		if len(t.Inputs) > 0 {
			ins := make([]planner.Input, len(t.Inputs))
			for j, in := range t.Inputs {
				if in.Place != nil {
					pl := *in.Place
					pl.X += o.X
					pl.Y += o.Y
					in.Place = &pl
				}
				ins[j] = in
			}
			t.Inputs = ins
		}
		tasks[i] = t
	}
	return tasks
}

// Deliver hands the executor an input frame (any goroutine): its upload
// starts at once.
func (e *Executor) Deliver(f *FrameData) {
	b := e.inbox
	b.mu.Lock()
	if f.Frame <= b.through {
		b.mu.Unlock()
		f.release()
		return
	}
	if f.End {
		b.ends[keyOf(f)] = f.Tiles
		b.mu.Unlock()
		f.release()
		b.wake()
		return
	}
	b.mu.Unlock()
	px := &Pixels{Frame: f.Frame, PixelViewport: compound.PixelViewport{W: f.W, H: f.H}, Color: f.Color, Depth: f.Depth}
	depth := f.Depth != nil
	var up *Upload
	if e.holds(f) {
		up = HoldUpload(px, f.Release)
	} else {
		up = e.Pipe.StartUploadRelease(px, f.Release)
	}
	f.Release, f.Color, f.Depth = nil, nil, nil
	a := &arrival{data: f, upload: up, depth: depth}
	b.mu.Lock()
	if f.Frame <= b.through {
		e.stale = append(e.stale, a) // handed back by the next run
	} else {
		k := keyOf(f)
		b.arrivals[k] = append(b.arrivals[k], a)
	}
	b.mu.Unlock()
	b.wake()
}

// Abandon says that these producers' frames will not come for a frame.
func (e *Executor) Abandon(frame int, producers []string) { e.inbox.abandon(frame, producers) }

// Repair has this pipe draw lost channels' parts of a frame, in the
// frame, as the lost channels would have, for some of its channels (to,
// IDs): their tasks run, each on a framebuffer of its own, and what they
// read back goes to those channels, or to each other, under the lost
// channels' names. Feeders are live channels' parts that send the lost
// ones frames, or each other, drawn again with them (what they sent went
// to the dead node): they send frames only to the parts drawn with them.
// Feeders, and the lost channels (IDs) reading says, draw the tile queue
// items they are handed marked Repaired, and pull none: a live channel
// pulls for itself, and a lost one drawn on several pipes is handed all
// its items with the repair.
// Any goroutine.
func (e *Executor) Repair(frame int, to []string, lost, feeders []*planner.ChannelPlan, reading []string) {
	e.inbox.repair(frame, repair{to: to, lost: lost, feeders: feeders, reading: reading})
}

// Grant delivers tile queue items asked for with Sink.Pull.
func (e *Executor) Grant(g Grant) { e.inbox.grant(g) }

// Waits is what the executor's channels wait for now.
func (e *Executor) Waits() []Wait {
	e.waitsMu.Lock()
	defer e.waitsMu.Unlock()
	waits := append([]Wait(nil), e.waits...)
	if in := e.inRenderer; in.what != "" {
		waits = append(waits, Wait{Frame: in.frame, Channel: in.channel,
			What: fmt.Sprintf("its renderer's %s to return (running for %v)", in.what, time.Since(in.since).Round(100*time.Millisecond))})
	} else if in := e.inTask; in.task != nil && time.Since(in.since) >= time.Second {
		waits = append(waits, Wait{Frame: in.frame, Channel: in.channel,
			What: fmt.Sprintf("its %s of compound %s to finish (running for %v)", in.task.Kind, in.task.Compound, time.Since(in.since).Round(100*time.Millisecond))})
	}
	if in := e.inPresent; in.channel != "" && time.Since(in.since) >= time.Second {
		waits = append(waits, Wait{Frame: in.frame, Channel: in.channel,
			What: fmt.Sprintf("its window's buffer swap to return (running for %v: the window system, a hung X server?)", time.Since(in.since).Round(100*time.Millisecond))})
	}
	return waits
}

// callRenderer marks the renderer's method what as running for a channel
// of frame, until the returned func is called once it has returned; that
// func also takes the GL errors the method left and puts back the GL
// state goeq relies on, with fbo, the framebuffer the renderer was given
// (Pipe.afterApplication).
func (e *Executor) callRenderer(frame int, ch *compound.Channel, what string, fbo uint32) (returned func()) {
	e.waitsMu.Lock()
	e.inRenderer.frame, e.inRenderer.channel, e.inRenderer.what, e.inRenderer.since = frame, ch.ID, what, time.Now()
	e.waitsMu.Unlock()
	return func() {
		e.Pipe.afterApplication(fbo, what, fmt.Sprintf("channel %s: the renderer's %s (frame %d)", ch.Label, what, frame))
		e.waitsMu.Lock()
		e.inRenderer.what = ""
		e.waitsMu.Unlock()
	}
}

func (e *Executor) setWaits(w []Wait) {
	e.waitsMu.Lock()
	e.waits = w
	e.waitsMu.Unlock()
}

// Result is what a frame's run produced. Readbacks finish and images are
// written in the background: Wait for them before reading Records.
type Result struct {
	Frame    int
	Records  []*stats.Record
	Degraded []string
	// Shown lists the plans of the channels that showed the frame:
	// destinations.
	Shown []*planner.ChannelPlan
	// Images are the destination images asked for, by channel ID (RGBA,
	// bottom-up).
	Images map[string]*Pixels
	Err    error
	mu     sync.Mutex // guards Records' times updated in the background
	bg     sync.WaitGroup
}

// Wait blocks until the frame's background work (readbacks) finished.
func (r *Result) Wait() { r.bg.Wait() }

// Failure is Err, for a reader that has not waited: a readback finishing
// in the background may set it.
func (r *Result) Failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Err
}

// Add adds a duration to a record's field (any goroutine).
func (r *Result) Add(d *time.Duration, v time.Duration) {
	r.mu.Lock()
	*d += v
	r.mu.Unlock()
}

// channelRun is one channel's progress through its tasks of a frame.
type channelRun struct {
	plan   *planner.ChannelPlan
	target *Target
	next   int
	done   []bool
	// dirty is what was drawn or assembled since the last clear, per
	// eye: the region of interest readbacks are cut to
	dirty map[int]compound.PixelViewport
	asm   *assembly
	tiles *tileDraw
	// bands are an exchange's bands kept in memory, per eye (band.go)
	bands map[int]*cpuMerged
	// holdFor lists, by the index of the task a compound starts with,
	// the scratch readbacks (planner.Task.Scratch) it ends with; kept is
	// what each one's region held before, by the readback's index
	holdFor map[int][]int
	kept    map[int]*heldPixels
	// repair, for a part drawn here again (Executor.Repair), says which
	// frames it hands on
	repair *repairRoutes
}

// repairRoutes are where a part drawn again for a lost one sends its
// frames: to the parts drawn with it that assemble them, on this pipe
// (the lost ones' node is gone, and the live ones' own frames are not
// theirs), and, for a lost part, to the channels of this pipe it is drawn
// for. Its frames for others are theirs to draw.
type repairRoutes struct {
	takes map[string][]string // part's channel ID -> the producers it assembles
	to    map[string]bool
	// reads: the parts draw the tile queue items their channels are
	// handed elsewhere (Grant.Repaired) and pull none themselves; pulls
	// are how far each channel's draws got (all of them: a channel's plan
	// aside draws from its queue too, and takes the items its own plan did
	// not, as on its own pipe), by queue
	reads bool
	pulls map[grantKey]*tilePull
}

// send hands an output frame to its consumer: through the sink, or, from
// a part drawn again, as repairRoutes say. Any goroutine: the routes do
// not change.
func (r *channelRun) send(e *Executor, f *FrameData) {
	rr := r.repair
	if rr == nil {
		e.sink.Send(f)
		return
	}
	local, out := slices.Contains(rr.takes[f.Consumer], f.Producer), rr.to[f.Consumer]
	if local && out {
		// the waiting channel takes it, and so does a part drawn again
		// on its channel that sends on
		c := *f
		c.Color, c.Depth, c.Release = slices.Clone(f.Color), slices.Clone(f.Depth), nil
		c.repaired = true
		e.Deliver(&c)
	}
	switch {
	case out:
		e.sink.Send(f)
	case local:
		f.repaired = true
		e.Deliver(f)
	default:
		f.release()
	}
}

// frameRun is one frame on the pipe.
type frameRun struct {
	e       *Executor
	snap    func(*compound.Channel) bool
	frame   int
	data    []byte // the application's frame data
	refine  int    // the refine sample (SetRefine); 0 for none
	runs    []*channelRun
	windows [][]taskRef
	res     *Result
	records map[string]*stats.Record
	pulls   map[grantKey]*tilePull // by channel and queue
}

// Receive hands a frame's cluster events to the renderer, when it takes
// them (draw.Receiver), on the pipe's goroutine.
func (e *Executor) Receive(frame int, msgs [][]byte) error {
	r, ok := e.Renderer.(draw.Receiver)
	if !ok || len(msgs) == 0 {
		return nil
	}
	ms := make([]draw.Message, len(msgs))
	for i, m := range msgs {
		ms[i] = m
	}
	return e.Pipe.DoApplication("the renderer's Receive", func() error {
		if err := r.Receive(frame, ms); err != nil {
			return fmt.Errorf("frame %d: cluster events: %w", frame, err)
		}
		return nil
	})
}

// Run executes a frame's tasks for this pipe's channels and returns when
// all ran, the context ended, or inputs did not come in time. The pipe
// goroutine is held for the whole frame.
//
// snap says which destination channels' images to keep (Result.Images),
// taken when the channel finished its tasks.
func (e *Executor) Run(ctx context.Context, frame int, data []byte, plans []*planner.ChannelPlan, snap func(*compound.Channel) bool) *Result {
	res := &Result{Frame: frame, Images: map[string]*Pixels{}}
	fr := &frameRun{e: e, frame: frame, data: data, refine: e.refine, res: res, snap: snap, records: map[string]*stats.Record{}}
	err := e.Pipe.Do(func() error {
		for _, a := range e.stale {
			a.upload.Release()
		}
		e.stale = nil
		e.noteFanIn(plans)
		// a window's target covers what every plan on it renders, sized
		// before any plan takes it (growing it replaces it)
		tasks := make([][]planner.Task, len(plans))
		for i, p := range plans {
			tasks[i] = inRunOrder(p)
		}
		own := ownTargets(plans, tasks)
		keys := make([]targetKey, len(plans))
		sizes := map[targetKey][2]int{}
		for i, p := range plans {
			keys[i] = targetKey{window: p.Channel.Window}
			if own[i] {
				keys[i].channel = p.Channel
			}
			wh := sizes[keys[i]]
			w, h, err := e.size(p, tasks[i])
			if err != nil {
				return err
			}
			sizes[keys[i]] = [2]int{max(wh[0], w), max(wh[1], h)}
		}
		for i, p := range plans {
			wh := sizes[keys[i]]
			tg, err := e.target(keys[i], wh[0], wh[1])
			if err != nil {
				return err
			}
			wp := *p
			wp.Tasks = tasks[i]
			fr.runs = append(fr.runs, &channelRun{plan: &wp, target: tg, dirty: map[int]compound.PixelViewport{}, done: make([]bool, len(tasks[i])),
				holdFor: scratchStarts(wp.Tasks)})
		}
		fr.windowOrder()
		cleared := map[*Target]bool{}
		for _, r := range fr.runs {
			if !cleared[r.target] {
				cleared[r.target] = true
				fr.startTarget(r.target)
			}
			r.target.depthRead = r.target.depthRead || slices.ContainsFunc(r.plan.Tasks, readsDepth)
		}
		defer func() {
			gl.ColorMask(true, true, true, true)
			for _, r := range fr.runs {
				if r.asm != nil { // an assemble cut short (failure, stop)
					r.asm.releaseCPUMerge()
					ReleaseUploads(r.asm.used...)
				}
				r.releaseBands(e)
			}
			for _, a := range e.inbox.forget(frame) {
				a.upload.Release()
			}
			e.setWaits(nil)
		}()
		lastProgress := time.Now()
		for {
			if err := ctx.Err(); err != nil {
				// a frame given up (the run stopped, or failed) draws no
				// more of its tasks, nor do the frames queued behind it:
				// the 9 render processes of a stress config on 2 cores
				// drew on for 4 s after a failed run's stop, and were
				// killed before their renderers' Exit
				return fmt.Errorf("frame %d: %w", frame, err)
			}
			for _, rp := range e.inbox.takeRepairs(frame) {
				if err := fr.repair(rp); err != nil {
					return err
				}
			}
			progressed, err := fr.step()
			if err == nil {
				// a part that failed (a renderer's readback) stops the
				// frame now: its consumers would wait for it until the
				// frame timeout, which would not say why
				err = fr.res.Failure()
			}
			if err != nil {
				return err
			}
			if fr.done() {
				return nil
			}
			if progressed {
				lastProgress = time.Now()
				continue
			}
			waits := fr.waits()
			e.setWaits(waits)
			if time.Since(lastProgress) > e.opt.InputTimeout {
				return fmt.Errorf("frame %d: %s: no input for %v", frame, describeWaits(waits), e.opt.InputTimeout)
			}
			t := time.NewTimer(200 * time.Millisecond)
			select {
			case <-e.inbox.changed:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("frame %d: %w (%s)", frame, ctx.Err(), describeWaits(waits))
			}
			t.Stop()
		}
	})
	if err != nil {
		fr.fail(err)
	}
	for _, k := range sortedKeys(fr.records) {
		res.Records = append(res.Records, fr.records[k])
	}
	for _, r := range fr.runs {
		if r.next == len(r.plan.Tasks) && r.plan.Destination {
			res.Shown = append(res.Shown, r.plan)
		}
	}
	return res
}

// size is the framebuffer a channel plan's tasks (in window coordinates)
// need this frame: its window's size this frame, grown to hold them. A
// zoomed share, or one larger than its channel, renders offscreen at full
// size; what this GL cannot hold fails here, saying why, rather than as an
// incomplete framebuffer.
func (e *Executor) size(p *planner.ChannelPlan, tasks []planner.Task) (w, h int, err error) {
	w, h = p.WindowSize.W, p.WindowSize.H
	for _, t := range tasks {
		w, h = max(w, t.Region.X+t.Region.W), max(h, t.Region.Y+t.Region.H)
	}
	if w > e.maxFramebuffer || h > e.maxFramebuffer {
		return 0, 0, fmt.Errorf("%s: channel %q needs %dx%d pixels this frame (its tasks, zoomed shares included, render offscreen at full size): larger than this GL's framebuffer limit of %d",
			p.Channel.Window.Label(), p.Channel.Name, w, h, e.maxFramebuffer)
	}
	return w, h, nil
}

// startTarget clears a target as the frame begins, as a fresh back buffer
// is: pixels no channel writes (a channel masked to one eye's colours)
// are defined.
func (fr *frameRun) startTarget(t *Target) {
	t.written, t.ranges, t.depthRead = compound.PixelViewport{}, nil, false
	t.FB.Bind()
	gl.ColorMask(true, true, true, true)
	fr.clearRegion(compound.PixelViewport{W: t.FB.W, H: t.FB.H})
}

// repair runs lost channels' parts of the frame, and their feeders
// (Executor.Repair), each on a framebuffer of its own, keyed by its
// channel, which no channel of this pipe shares: their tasks run in an
// order of their own, as another window's would, from where the frame is
// now. The framebuffer stays for the channel's next repair, as a window's
// does.
func (fr *frameRun) repair(rp repair) error {
	e := fr.e
	takes := map[string][]string{}
	for _, p := range slices.Concat(rp.lost, rp.feeders) {
		// a lost channel's plan aside sends its own plan a frame
		for _, producer := range p.Producers() {
			if !slices.Contains(takes[p.Channel.ID], producer) {
				takes[p.Channel.ID] = append(takes[p.Channel.ID], producer)
			}
		}
	}
	lost := &repairRoutes{takes: takes, to: map[string]bool{}}
	for _, id := range rp.to {
		lost.to[id] = true
	}
	// a lost channel drawn on several pipes, handed all its tiles
	reading := &repairRoutes{takes: takes, to: lost.to, reads: true, pulls: map[grantKey]*tilePull{}}
	// a live channel's frames for the channels waiting here are its own
	// to send
	fed := &repairRoutes{takes: takes, reads: true, pulls: map[grantKey]*tilePull{}}
	for i, lp := range slices.Concat(rp.lost, rp.feeders) {
		tasks := inRunOrder(lp)
		w, h, err := e.size(lp, tasks)
		if err != nil {
			return err
		}
		// a channel drawn again twice this frame (a feeder of two
		// repairs) draws each on a framebuffer of its own
		nth := 1
		for _, r := range fr.runs {
			if r.repair != nil && r.plan.Channel == lp.Channel {
				nth++
			}
		}
		tg, err := e.target(targetKey{window: lp.Channel.Window, channel: lp.Channel, repair: nth}, w, h)
		if err != nil {
			return err
		}
		fr.startTarget(tg)
		tg.depthRead = slices.ContainsFunc(tasks, readsDepth)
		p := *lp
		p.Tasks = tasks
		routes := lost
		switch {
		case i >= len(rp.lost):
			routes = fed
		case slices.Contains(rp.reading, lp.Channel.ID):
			routes = reading
		}
		r := &channelRun{plan: &p, target: tg, dirty: map[int]compound.PixelViewport{}, done: make([]bool, len(tasks)),
			holdFor: scratchStarts(tasks), repair: routes}
		fr.runs = append(fr.runs, r)
		refs := make([]taskRef, len(tasks))
		for i := range tasks {
			refs[i] = taskRef{run: r, index: i}
		}
		fr.windows = append(fr.windows, refs)
	}
	return nil
}

func describeWaits(ws []Wait) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, "channel {"+w.Channel+"} waits for "+w.What)
	}
	if len(parts) == 0 {
		return "nothing to wait for"
	}
	return strings.Join(parts, "; ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (fr *frameRun) done() bool {
	for _, r := range fr.runs {
		if r.next < len(r.plan.Tasks) {
			return false
		}
	}
	return true
}

// step runs what can run. Tasks on one window run in the plan's order
// (channels that share a window share its pixels: see planner.Task.Seq);
// different windows go on independently. Only when nothing can
// run that way may a channel run ahead of another on its window: one whose
// frame an assemble waits for, so that two channels of one window
// exchanging frames cannot deadlock, then any whose task touches none of
// the pixels of those it passes.
func (fr *frameRun) step() (progressed bool, err error) {
	for _, w := range fr.windows {
		for _, it := range w {
			if it.run.done[it.index] {
				continue
			}
			ok, err := fr.runNext(it.run)
			if err != nil {
				return progressed, err
			}
			if !ok {
				break
			}
			progressed = true
		}
	}
	if progressed {
		return true, nil
	}
	// nothing runs in order: if a waiting assemble needs a frame that a
	// channel of this pipe has yet to render, that channel runs ahead;
	// frames already on their way are just waited for
	needed := map[string]bool{}
	for _, r := range fr.runs {
		if r.asm != nil {
			for _, k := range r.asm.keys() {
				if !r.asm.finished[k] {
					needed[k.producer] = true
				}
			}
		}
	}
	for _, r := range fr.runs {
		if !needed[r.plan.Channel.ID] {
			continue
		}
		for r.next < len(r.plan.Tasks) {
			ok, err := fr.runNext(r)
			if err != nil || !ok {
				if err != nil {
					return progressed, err
				}
				break
			}
			progressed = true
		}
	}
	if progressed {
		return true, nil
	}
	// still nothing: a channel's next task runs ahead of the tasks before
	// it on its window where it touches none of their pixels, so the order
	// does not show. The frame a channel waits for may come from another
	// pipe that waits for a readback behind it on the window; in order, as
	// Equalizer's pipe runs its tasks, both wait for ever.
	for _, w := range fr.windows {
		var before []compound.PixelViewport
		for _, it := range w {
			r := it.run
			if r.done[it.index] {
				continue
			}
			touched := r.touches(it.index)
			if it.index == r.next && !slices.ContainsFunc(before, func(b compound.PixelViewport) bool {
				return slices.ContainsFunc(touched, func(t compound.PixelViewport) bool { return overlaps(b, t) })
			}) {
				ok, err := fr.runNext(r)
				if err != nil {
					return progressed, err
				}
				if ok {
					progressed = true
					continue
				}
			}
			before = append(before, touched...)
		}
	}
	return progressed, nil
}

// touches lists the pixels of its window a channel's task may write or
// read: the channel's viewport (where input frames land, the overlays and
// the picture taken of a destination), its region and those it holds for
// a scratch part, which lie in it unless the channel renders past it.
func (r *channelRun) touches(i int) []compound.PixelViewport {
	out := []compound.PixelViewport{r.plan.Viewport, r.plan.Tasks[i].Region}
	for _, rb := range r.holdFor[i] {
		out = append(out, r.plan.Tasks[rb].Region)
	}
	return out
}

// runNext runs a channel's next task; false when it waits.
func (fr *frameRun) runNext(r *channelRun) (bool, error) {
	t := &r.plan.Tasks[r.next]
	e := fr.e
	e.waitsMu.Lock()
	e.inTask.frame, e.inTask.channel, e.inTask.task, e.inTask.since = fr.frame, r.plan.Channel.ID, t, time.Now()
	e.waitsMu.Unlock()
	defer func() {
		e.waitsMu.Lock()
		e.inTask.task = nil
		e.waitsMu.Unlock()
	}()
	for _, rb := range r.holdFor[r.next] {
		if r.kept == nil {
			r.kept = map[int]*heldPixels{}
		}
		if _, ok := r.kept[rb]; ok {
			continue
		}
		region := r.plan.Tasks[rb].Region
		var k *heldPixels
		if r.target.holdsClear(region) {
			// as the frame began: clearing it again puts it back
			k = &heldPixels{at: region, clear: true}
		} else {
			k = hold(r.target.FB, region, compound.Pixel{})
			if t.Kind != planner.Clear || !contains(t.Region, region) {
				// a compound drawn off its home's picture that starts
				// without a clear of its own (an ancestor on this channel
				// cleared, but its own picture alone: a zoomed one
				// smaller, or over tiles drawn at full size) starts from
				// the background, not from the depth and colour another
				// destination's tree left there this frame; what the
				// region held goes back after it
				r.target.FB.Bind()
				gl.ColorMask(true, true, true, true)
				fr.clearRegion(region)
				r.target.wrote(region)
			}
		}
		// the channel's drawn region goes back with the pixels: the
		// compound's clear dropped it, and a readback after cut what
		// the picture held to none
		k.drawn, k.wasDrawn = r.dirty[r.plan.Tasks[rb].Eye]
		r.kept[rb] = k
	}
	ok, err := fr.run(r, t)
	if k := r.kept[r.next]; err == nil && ok && t.Scratch && k != nil {
		if k.clear {
			r.target.FB.Bind()
			gl.ColorMask(true, true, true, true)
			fr.clearRegion(k.at)
		} else {
			err = k.putBack(r.target.FB)
		}
		if k.wasDrawn {
			r.dirty[t.Eye] = k.drawn
		} else {
			delete(r.dirty, t.Eye)
		}
		delete(r.kept, r.next)
	}
	if err != nil {
		return false, fmt.Errorf("frame %d: channel %s: %s of compound %s: %w", fr.frame, r.plan.Channel.Label, t.Kind, t.Compound, err)
	}
	if ok {
		r.done[r.next] = true
		r.next++
		if r.next == len(r.plan.Tasks) && r.plan.Destination {
			// the refined average and the overlays go over its image
			if err := fr.flushOthers(r); err != nil {
				return false, fmt.Errorf("frame %d: channel %s: %w", fr.frame, r.plan.Channel.Label, err)
			}
			r.target.wrote(r.plan.Viewport)
			if err := fr.accumulate(r); err != nil {
				return false, fmt.Errorf("frame %d: channel %s: %w", fr.frame, r.plan.Channel.Label, err)
			}
			fr.statsOverlay(r)
			if err := fr.overlay(r); err != nil {
				return false, fmt.Errorf("frame %d: channel %s: overlay: %w", fr.frame, r.plan.Channel.Label, err)
			}
		}
		if r.next == len(r.plan.Tasks) && r.plan.Destination && fr.snap != nil && fr.snap(r.plan.Channel) {
			// the channel's view is finished: its image is taken now, as
			// Equalizer does, before other channels of its window draw
			r.target.FB.Bind()
			fr.res.Images[r.plan.Channel.ID] = ReadSync(fr.frame, r.plan.Viewport, false)
		}
	}
	return ok, nil
}

// overlay lets a renderer that is an Overlayer draw over a destination
// channel's finished image.
func (fr *frameRun) overlay(r *channelRun) error {
	o, ok := fr.e.Renderer.(draw.Overlayer)
	if !ok {
		return nil
	}
	pv := r.plan.Viewport
	r.target.FB.Bind()
	gl.Viewport(int32(pv.X), int32(pv.Y), int32(pv.W), int32(pv.H))
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(pv.X), int32(pv.Y), int32(pv.W), int32(pv.H))
	// the finished image's every colour: an anaglyph's last eye left its
	// colour mask
	gl.ColorMask(true, true, true, true)
	defer gl.Disable(gl.SCISSOR_TEST)
	defer fr.e.callRenderer(fr.frame, r.plan.Channel, "DrawOverlay", r.target.FB.FBO)()
	return o.DrawOverlay(&draw.Context{Frame: fr.frame, Channel: r.plan.Channel.ID, Data: fr.data, Eye: draw.Cyclop, ViewIndex: r.plan.View,
		X: pv.X, Y: pv.Y, Width: pv.W, Height: pv.H, DestWidth: pv.W, DestHeight: pv.H, Share: draw.Region{W: pv.W, H: pv.H},
		Viewport: draw.Viewport{W: 1, H: 1}, Range: draw.Range{End: 1}, Projection: draw.Identity, Adjust: draw.Identity, View: draw.Identity,
		Ortho: draw.Identity, OrthoView: draw.Identity})
}

// windowOrder merges the tasks of the channels on each window in plan
// order.
func (fr *frameRun) windowOrder() {
	byWindow := map[*compound.Window][]taskRef{}
	var order []*compound.Window
	for _, r := range fr.runs {
		w := r.plan.Channel.Window
		if r.plan.Aside || r.target.key.channel != nil {
			// it renders past the window's own pixels, or on a target of
			// its own: an order of its own
			w = &compound.Window{}
		}
		if _, ok := byWindow[w]; !ok {
			order = append(order, w)
		}
		for i := range r.plan.Tasks {
			byWindow[w] = append(byWindow[w], taskRef{run: r, index: i})
		}
	}
	for _, w := range order {
		refs := byWindow[w]
		sort.SliceStable(refs, func(i, j int) bool {
			a, b := &refs[i].run.plan.Tasks[refs[i].index], &refs[j].run.plan.Tasks[refs[j].index]
			if a.Home != b.Home {
				return !a.Home // other windows' destinations first
			}
			return a.Seq < b.Seq
		})
		fr.windows = append(fr.windows, refs)
	}
}

// taskRef is one channel's task in its window's order.
type taskRef struct {
	run   *channelRun
	index int
}

// waits lists what each blocked channel waits for.
func (fr *frameRun) waits() []Wait {
	var out []Wait
	for _, r := range fr.runs {
		if r.next >= len(r.plan.Tasks) {
			continue
		}
		what := "its turn"
		switch {
		case r.asm != nil:
			what = r.asm.missing()
		case r.tiles != nil:
			what = "tiles of queue " + r.tiles.queue + " from the server"
		}
		out = append(out, Wait{Frame: fr.frame, Channel: r.plan.Channel.ID, What: what})
	}
	return out
}

func (fr *frameRun) record(ch *compound.Channel, t *planner.Task) *stats.Record {
	key := fmt.Sprintf("%s|%s|%d", ch.ID, t.Compound, t.Eye)
	r := fr.records[key]
	if r == nil {
		r = &stats.Record{Frame: fr.frame, Compound: t.Compound, Channel: ch.ID, Eye: t.Eye, Viewport: t.Viewport, Range: t.Range,
			Renderer: fr.e.renderer}
		fr.records[key] = r
	}
	return r
}

func applyMask(m planner.ColorMask) {
	if m == 0 {
		gl.ColorMask(true, true, true, true)
		return
	}
	gl.ColorMask(m&planner.MaskRed != 0, m&planner.MaskGreen != 0, m&planner.MaskBlue != 0, m&planner.MaskAlpha != 0)
}

// run executes one task; ok is false when it must wait for inputs.
func (fr *frameRun) run(r *channelRun, t *planner.Task) (bool, error) {
	rec := fr.record(r.plan.Channel, t)
	if r.repair != nil {
		// a part drawn for a lost one is neither this pipe's work nor the
		// lost channel's speed: the equalizers are not told of it
		rec = &stats.Record{}
	}
	start := time.Now()
	if t.Kind != planner.Readback {
		if err := fr.flushOthers(r); err != nil {
			return false, err
		}
	}
	r.target.FB.Bind()
	applyMask(t.ColorMask)
	switch t.Kind {
	case planner.Clear:
		reg := t.Region
		if !r.target.holdsClear(reg) {
			// where nothing was written since the frame's first clear,
			// clearing again would change nothing (and take llvmpipe
			// about 5 ms at 1920x1080)
			fr.clearRegion(reg)
			r.target.wrote(reg)
		}
		r.target.ranges.hold(reg, anyEye, compound.Range{})
		if d, ok := r.dirty[t.Eye]; ok && contains(reg, d) {
			delete(r.dirty, t.Eye)
		}
		rec.Times.Clear += time.Since(start)
		return true, nil
	case planner.Draw:
		if t.Queue != "" {
			return fr.drawTiles(r, t, rec)
		}
		var held *heldPixels
		if t.Interleave.W > 1 || t.Interleave.H > 1 {
			held = hold(r.target.FB, t.Region, t.Interleave)
		}
		roi, err := fr.draw(r, t, t.Share, t.Region, t.Range)
		if err != nil {
			return false, err
		}
		if held != nil {
			if err := held.restore(r.target.FB); err != nil {
				return false, fmt.Errorf("frame %d: channel %s: %w", fr.frame, r.plan.Channel.Label, err)
			}
		}
		fr.drewRange(r, t, t.Region, t.Range)
		gl.Finish() // draw time is what the equalizers balance
		rec.Times.Draw += time.Since(start)
		rec.Size = [2]int{t.Region.W, t.Region.H}
		fr.drawn(r, t, rec, roi)
		return true, nil
	case planner.Readback:
		fr.readback(r, t, rec, t.Region, t.Share, 0, t.Range)
		rec.Times.ReadbackSync += time.Since(start)
		return true, nil
	case planner.Assemble:
		if r.asm == nil {
			r.asm = newAssembly(fr, r, t)
		}
		done, err := r.asm.progress()
		if err != nil {
			return false, err
		}
		if !done {
			return false, nil
		}
		rec.Times.Wait += r.asm.waited()
		rec.Times.Assemble += r.asm.busy
		fr.res.Degraded = append(fr.res.Degraded, r.asm.degraded...)
		r.dirty[t.Eye] = union(r.dirty[t.Eye], r.asm.touched)
		r.asm = nil
		return true, nil
	}
	return false, fmt.Errorf("unknown task kind %v", t.Kind)
}

// heldPixels is what a region of a framebuffer held before a draw that
// may change only the pixels of a pattern (planner.Task.Interleave).
type heldPixels struct {
	at      compound.PixelViewport // the region, within the framebuffer
	clear   bool                   // it held the frame's first clear: none read
	first   [2]int                 // the pattern's first column and row in at
	step    [2]int
	color   []byte
	depth   []float32
	stencil []byte
	// drawn is the channel's drawn region of the eye (channelRun.dirty)
	// when a scratch compound's region was held, if any (wasDrawn)
	drawn    compound.PixelViewport
	wasDrawn bool
}

// hold reads what region of fb holds, for the pixels outside pattern to
// be put back after a draw.
func hold(fb *glutil.Target, region compound.PixelViewport, pattern compound.Pixel) *heldPixels {
	at := intersect(region, compound.PixelViewport{W: fb.W, H: fb.H})
	if at.W <= 0 || at.H <= 0 {
		return nil
	}
	step := [2]int{max(pattern.W, 1), max(pattern.H, 1)}
	h := &heldPixels{at: at, step: step,
		first: [2]int{mod(pattern.X+region.X-at.X, step[0]), mod(pattern.Y+region.Y-at.Y, step[1])}}
	h.color, h.depth, h.stencil = readAll(fb, at)
	return h
}

// restore puts the held pixels back outside the pattern, keeping what the
// draw left in it. A whole draw and a copy back are a path of their own:
// a pixel decomposition's draw renders its pattern alone.
func (h *heldPixels) restore(fb *glutil.Target) error {
	if h == nil {
		return nil
	}
	color, depth, stencil := readAll(fb, h.at)
	for y := range h.at.H {
		for x := range h.at.W {
			if (x-h.first[0])%h.step[0] == 0 && (y-h.first[1])%h.step[1] == 0 {
				continue
			}
			i := y*h.at.W + x
			copy(color[4*i:4*i+4], h.color[4*i:4*i+4])
			depth[i] = h.depth[i]
			if stencil != nil {
				stencil[i] = h.stencil[i]
			}
		}
	}
	return fb.Write(h.at.X, h.at.Y, h.at.W, h.at.H, h.at.W, color, depth, stencil)
}

// putBack writes all the held pixels back.
func (h *heldPixels) putBack(fb *glutil.Target) error {
	if h == nil {
		return nil
	}
	return fb.Write(h.at.X, h.at.Y, h.at.W, h.at.H, h.at.W, h.color, h.depth, h.stencil)
}

// scratchStarts finds the task each scratch readback's compound starts
// with (its first task, or its subtree's, in the channel's order): what
// the readback's region holds there goes back after the readback.
func scratchStarts(tasks []planner.Task) map[int][]int {
	var starts map[int][]int
	for rb, t := range tasks {
		if !t.Scratch {
			continue
		}
		for i := range rb + 1 {
			c := tasks[i]
			if c.Eye == t.Eye && (c.Compound == t.Compound || strings.HasPrefix(c.Compound, t.Compound+".")) {
				if starts == nil {
					starts = map[int][]int{}
				}
				starts[i] = append(starts[i], rb)
				break
			}
		}
	}
	return starts
}

// readAll reads the colour, depth and (for a stencil target) stencil of
// region of fb.
func readAll(fb *glutil.Target, at compound.PixelViewport) ([]byte, []float32, []byte) {
	fb.Bind()
	var stencil []byte
	if fb.Stencil {
		stencil = glutil.ReadStencil(at.X, at.Y, at.W, at.H, nil)
	}
	return glutil.ReadColor(at.X, at.Y, at.W, at.H, nil), glutil.ReadDepth(at.X, at.Y, at.W, at.H, nil), stencil
}

// mod is a modulo m that is never negative.
func mod(a, m int) int { return (a%m + m) % m }

// drewRange notes which part of the data a draw left in region, for a
// renderer whose ranges blend: a range drawn whole, or nothing to order
// (all the data, or samples of a pixel or subpixel decomposition).
func (fr *frameRun) drewRange(r *channelRun, t *planner.Task, region compound.PixelViewport, rng compound.Range) {
	if _, ok := fr.e.rangeOrderer(); !ok {
		return
	}
	if rng == compound.FullRange || t.Pixel.W > 1 || t.Pixel.H > 1 || t.Subpixel.Size > 1 {
		rng = compound.Range{}
	}
	r.target.ranges.hold(region, t.Eye, rng)
}

// rangeOrderer is the renderer as a draw.RangeOrderer: its images are
// translucent colour, and its database ranges blend in its order.
func (e *Executor) rangeOrderer() (draw.RangeOrderer, bool) {
	o, ok := e.Renderer.(draw.RangeOrderer)
	return o, ok
}

// drawn records the region a draw touched, for region-of-interest
// readback and the statistics.
func (fr *frameRun) drawn(r *channelRun, t *planner.Task, rec *stats.Record, roi compound.PixelViewport) {
	whole := t.Region
	roi = clip(roi, whole)
	r.target.wrote(roi)
	if roi.W > 0 && roi.H > 0 {
		r.dirty[t.Eye] = union(r.dirty[t.Eye], roi)
	} else if _, ok := r.dirty[t.Eye]; !ok {
		r.dirty[t.Eye] = compound.PixelViewport{X: whole.X, Y: whole.Y}
	}
	if whole.W > 0 && whole.H > 0 && roi.W > 0 && roi.H > 0 {
		rec.Drawn = compound.Viewport{X: float64(roi.X-whole.X) / float64(whole.W), Y: float64(roi.Y-whole.Y) / float64(whole.H),
			W: float64(roi.W) / float64(whole.W), H: float64(roi.H) / float64(whole.H)}
	}
}

// draw renders share (destination pixels) into region of the channel's
// framebuffer.
func (fr *frameRun) draw(r *channelRun, t *planner.Task, share, region compound.PixelViewport, rng compound.Range) (drawn compound.PixelViewport, err error) {
	area := t.Area
	if area.W == 0 || area.H == 0 {
		area = compound.PixelViewport{W: share.W, H: share.H}
	}
	sub := render.Sub{DestW: area.W, DestH: area.H, X: share.X - area.X, Y: share.Y - area.Y, W: region.W, H: region.H,
		Pixel: t.Pixel, Jitter: addJitter(render.SubpixelJitter(t.Subpixel.Index, t.Subpixel.Size), RefineJitter(fr.refine)), ShareW: share.W, ShareH: share.H,
		GridZoom: t.GridZoom}
	adj := sub.Matrix()
	vp := t.Viewport
	if dest := t.Area; dest.W > 0 && dest.H > 0 {
		vp = compound.Viewport{X: float64(share.X-dest.X) / float64(dest.W), Y: float64(share.Y-dest.Y) / float64(dest.H),
			W: float64(share.W) / float64(dest.W), H: float64(share.H) / float64(dest.H)}
	}
	var ms *glutil.Multisample
	drawnInto := r.target.FB.FBO
	if samples := fr.e.Samples(t.Samples); samples > 1 {
		// the draw lands on what the region holds (a clear, an earlier
		// draw or eye), so the region goes into every sample first
		var err error
		if ms, err = fr.e.multisample(r.target, samples); err != nil {
			return compound.PixelViewport{}, err
		}
		gl.BindFramebuffer(gl.FRAMEBUFFER, ms.FBO)
		drawnInto = ms.FBO
		gl.ColorMask(true, true, true, true)
		if r.target.holdsClear(region) {
			// the same clear in every sample, without a shader pass that
			// writes each one
			fr.clearRegion(region)
		} else if err := fr.e.comp.Copy(r.target.FB.Color, r.target.FB.Depth, region.X, region.Y, region.W, region.H); err != nil {
			return compound.PixelViewport{}, err
		} else if ms.Stencil {
			// a shader cannot copy stencil: the region's starts cleared
			gl.Enable(gl.SCISSOR_TEST)
			gl.Scissor(int32(region.X), int32(region.Y), int32(region.W), int32(region.H))
			gl.ClearStencil(0)
			gl.StencilMask(0xff)
			gl.Clear(gl.STENCIL_BUFFER_BIT)
		}
		applyMask(t.ColorMask)
	}
	gl.Viewport(int32(region.X), int32(region.Y), int32(region.W), int32(region.H))
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(region.X), int32(region.Y), int32(region.W), int32(region.H))
	defer gl.Disable(gl.SCISSOR_TEST)
	if ms != nil {
		defer func() {
			ms.ResolveInto(r.target.FB, region.X, region.Y, region.W, region.H, !r.target.depthRead)
			var depthErr error
			if r.target.depthRead {
				depthErr = fr.e.comp.NearestDepth(ms.Depth, ms.DepthSamples, region.X, region.Y, region.W, region.H)
			}
			applyMask(t.ColorMask)
			if err == nil && depthErr != nil {
				err = fmt.Errorf("%s: resolving a multisampled depth: %w", r.plan.Channel.Label, depthErr)
			}
		}()
	}
	defer fr.e.callRenderer(fr.frame, r.plan.Channel, "Draw", drawnInto)()
	roi, err := fr.e.Renderer.Draw(&draw.Context{Frame: fr.frame, Channel: r.plan.Channel.ID, Data: fr.data, Eye: draw.Eye(t.Eye), ViewIndex: t.View,
		X: region.X, Y: region.Y, Width: region.W, Height: region.H,
		DestWidth: area.W, DestHeight: area.H, Share: draw.Region{X: share.X - area.X, Y: share.Y - area.Y, W: share.W, H: share.H},
		Viewport: draw.Viewport(vp), Range: draw.Range(rng), Pixel: draw.Pixel(t.Pixel), Subpixel: draw.Subpixel(t.Subpixel),
		Projection: adj.Mul(render.Frustum(t.Frustum)), View: mat4(t.ViewMatrix), Adjust: adj,
		Ortho: adj.Mul(render.Ortho(t.Ortho)), OrthoView: mat4(t.OrthoView)})
	applyMask(t.ColorMask) // for the next tile's draw, and the resolve
	switch {
	case roi == draw.All:
		return region, err
	case roi.W <= 0 || roi.H <= 0: // nothing drawn
		return compound.PixelViewport{X: region.X, Y: region.Y}, err
	}
	return compound.PixelViewport{X: region.X + roi.X, Y: region.Y + roi.Y, W: roi.W, H: roi.H}, err
}

// readback reads each output frame's part of region (cut to what was
// drawn where the consumers allow it) and sends it to every consumer.
// share is what region covers in destination pixels; tile numbers a tile.
func (fr *frameRun) readback(r *channelRun, t *planner.Task, rec *stats.Record, region, share compound.PixelViewport, tile int, rng compound.Range) {
	pixel := t.Pixel.W > 1 || t.Pixel.H > 1
	band := fr.band(r, t, region)
	for _, out := range t.Outputs {
		vp := out.Viewport
		if !vp.HasArea() {
			vp = compound.FullViewport
		}
		read, outShare := region, share
		if !pixel {
			read, outShare = region.Apply(vp), share.Apply(vp)
		}
		extent := outShare
		// its zoom asks for it smaller (planner.Output.Scale)
		scaledW, scaledH := 0, 0
		if z := out.Scale; z.X > 0 && z.Y > 0 && !pixel {
			scaledW, scaledH = max(1, int(float64(read.W)*z.X+0.5)), max(1, int(float64(read.H)*z.Y+0.5))
		}
		if out.ROI && !pixel && !fr.e.opt.FullReadback {
			// cut to the drawn region, and the share with it
			if d, ok := r.dirty[t.Eye]; ok {
				if scaledW > 0 {
					read, outShare, scaledW, scaledH = cutToDrawnScaled(read, outShare, d, scaledW, scaledH)
				} else {
					read, outShare = cutToDrawn(read, outShare, d)
				}
			}
		}
		depth := out.Buffers&compound.BufferDepth != 0
		held := rng
		if _, ok := fr.e.rangeOrderer(); ok {
			// what its pixels hold: a stream's compound sends the parts
			// it blended into its own with it
			held = r.target.ranges.rangeAt(read, t.Eye, rng)
		}
		base := FrameData{Frame: fr.frame, Eye: t.Eye, Name: out.Name, Producer: r.plan.Channel.ID, Compound: t.Compound,
			Share: outShare, Extent: extent, Range: held, Pixel: t.Pixel, Subpixel: t.Subpixel, W: read.W, H: read.H, Tile: tile}
		send := func(px *Pixels) {
			if depth && px != nil {
				fr.e.checkDepth(r.plan.Channel.Label, px)
			}
			for i, consumer := range out.Consumers {
				f := base
				f.Consumer = consumer
				if px != nil {
					f.Color, f.Depth = px.Color, px.Depth
					if i < len(out.Consumers)-1 {
						// every consumer owns its copy
						f.Color = append([]byte(nil), px.Color...)
						if px.Depth != nil {
							f.Depth = append([]float32(nil), px.Depth...)
						}
					}
				}
				r.send(fr.e, &f)
			}
		}
		if read.W <= 0 || read.H <= 0 {
			base.W, base.H = 0, 0
			send(nil)
			continue
		}
		if band != nil {
			send(band.slice(fr.frame, read, depth))
			continue
		}
		rd, reader := fr.e.Renderer.(draw.Reader)
		w, h := out.ReadW, out.ReadH
		if out.AtShare {
			// a supersampled frame: its share's pixels hold what the
			// consumers keep of it
			w, h = outShare.W, outShare.H
		}
		if scaledW > 0 {
			w, h = scaledW, scaledH
		}
		shrink := w > 0 && h > 0 && w <= read.W && h <= read.H && (w < read.W || h < read.H) && !pixel
		if shrink && !depth && !reader {
			// the consumers show it smaller: read it so (a renderer that
			// reads back itself sends what it drew, which they scale)
			px, err := fr.readShrunk(r, read, w, h)
			if err != nil {
				fr.fail(err)
				continue
			}
			base.W, base.H = w, h
			send(px)
			continue
		}
		if shrink && depth {
			// the samples the consumers' scaled depth merge would take
			whole := send
			send = func(px *Pixels) { whole(nearestSamples(px, w, h)) }
			base.W, base.H = w, h
		}
		start := time.Now()
		if reader {
			px, err := fr.readByRenderer(rd, r, t, read, depth)
			if err != nil {
				fr.fail(err)
				continue
			}
			send(px)
			continue
		}
		if !fr.e.opt.AsyncReadback || fr.e.Pipe.softwareGL {
			// A software GL's glReadPixels into a buffer blocks as long as
			// a direct read, so the download goroutine only adds a copy;
			// and llvmpipe once crashed (SIGSEGV in glMapBufferRange)
			// mapping on the download context while the render context
			// drew.
			send(ReadSync(fr.frame, read, depth))
			continue
		}
		rb := fr.e.Pipe.StartReadback(fr.frame, read, depth)
		fr.res.bg.Add(1)
		go func() {
			defer fr.res.bg.Done()
			px, err := rb.Wait()
			fr.res.Add(&rec.Times.ReadbackAsync, time.Since(start))
			if err != nil {
				fr.fail(err)
				return
			}
			send(px)
		}()
	}
}

// nearestSamples keeps, of pixels read with depth, the sample nearest the
// centre of each pixel of a w x h frame over the same region: what a
// consumer's scaled depth merge (depthscale.frag) takes of them, which
// then lands them unscaled. Colour and depth stay together, so a pixel
// keeps the colour of the depth that wins.
func nearestSamples(px *Pixels, w, h int) *Pixels {
	if px == nil {
		return nil
	}
	rw, rh := px.PixelViewport.W, px.PixelViewport.H
	out := &Pixels{Frame: px.Frame, PixelViewport: compound.PixelViewport{X: px.PixelViewport.X, Y: px.PixelViewport.Y, W: w, H: h},
		Color: make([]byte, 4*w*h), Depth: make([]float32, w*h)}
	// in float32, as the shader computes it: where a pixel's centre falls
	// on a sample's edge, exact arithmetic can pick the other one
	at := func(i, n, m int) int { return min(int((float32(i)+0.5)*(float32(n)/float32(m))), n-1) }
	xs := make([]int, w)
	for i := range xs {
		xs[i] = at(i, rw, w)
	}
	for j := range h {
		row := at(j, rh, h) * rw
		for i, x := range xs {
			copy(out.Color[4*(j*w+i):4*(j*w+i)+4], px.Color[4*(row+x):])
			out.Depth[j*w+i] = px.Depth[row+x]
		}
	}
	return out
}

// fail records a frame's error from any goroutine (the first one stays).
func (fr *frameRun) fail(err error) {
	fr.res.mu.Lock()
	if fr.res.Err == nil {
		fr.res.Err = err
	}
	fr.res.mu.Unlock()
}

// readByRenderer has a renderer that is a draw.Reader read region back,
// and checks what it returns.
func (fr *frameRun) readByRenderer(rd draw.Reader, r *channelRun, t *planner.Task, read compound.PixelViewport, depth bool) (*Pixels, error) {
	defer fr.e.callRenderer(fr.frame, r.plan.Channel, "ReadBack", r.target.FB.FBO)()
	color, z, err := rd.ReadBack(&draw.Context{Frame: fr.frame, Channel: r.plan.Channel.ID, Data: fr.data, Eye: draw.Eye(t.Eye), ViewIndex: t.View,
		X: read.X, Y: read.Y, Width: read.W, Height: read.H, Range: draw.Range(t.Range), Pixel: draw.Pixel(t.Pixel),
		Subpixel: draw.Subpixel(t.Subpixel)}, draw.Region{X: read.X, Y: read.Y, W: read.W, H: read.H}, depth)
	n := read.W * read.H
	switch {
	case err != nil:
		return nil, fmt.Errorf("frame %d: channel %s: the renderer's readback: %w", fr.frame, r.plan.Channel.Label, err)
	case len(color) != 4*n:
		return nil, fmt.Errorf("frame %d: channel %s: the renderer read back %d bytes of colour for %dx%d pixels, want %d", fr.frame, r.plan.Channel.Label, len(color), read.W, read.H, 4*n)
	case depth && len(z) != n:
		return nil, fmt.Errorf("frame %d: channel %s: the renderer read back %d depth values for %dx%d pixels, want %d", fr.frame, r.plan.Channel.Label, len(z), read.W, read.H, n)
	}
	if !depth {
		z = nil
	}
	return &Pixels{Frame: fr.frame, PixelViewport: read, Color: color, Depth: z}, nil
}

// tileDraw is a draw task pulling tiles from a queue.
type tileDraw struct {
	queue   string
	pending []tileItem
	sent    int
}

// tilePull is what a channel asked of a tile queue in a frame.
type tilePull struct {
	asked bool // a pull is outstanding
	last  bool // the queue said it is empty
	read  int  // grants read, by a part that reads them (inbox.grantsFrom)
}

type tileItem struct {
	index int
	tile  *compound.PixelViewport
	rng   *compound.Range
}

// drawTiles pulls tiles (or database chunks) and draws, reads back and
// sends each; it is done when the queue is empty and every tile is sent,
// which it tells the consumers.
func (fr *frameRun) drawTiles(r *channelRun, t *planner.Task, rec *stats.Record) (bool, error) {
	e := fr.e
	if r.tiles == nil {
		r.tiles = &tileDraw{queue: t.Queue}
	}
	td := r.tiles
	// a channel may pull from a queue for two compounds (its own part and
	// one it draws aside, or one merged into it): the grants answer the
	// channel, so whichever of its draws runs takes them, and each ends
	// once the queue is done
	// a feeder of a repair draws what its live channel is handed, which
	// pulls on for itself (and a lost part drawn on several pipes what
	// the repair hands it): it asks for nothing, and reads the grants,
	// which another repair's part of the channel reads too
	reads := r.repair != nil && r.repair.reads
	key := grantKey{fr.frame, r.plan.Channel.ID, t.Queue, reads}
	pulls := fr.pulls
	if reads {
		pulls = r.repair.pulls
	} else if pulls == nil {
		fr.pulls = map[grantKey]*tilePull{}
		pulls = fr.pulls
	}
	pull := pulls[key]
	if pull == nil {
		pull = &tilePull{asked: reads}
		pulls[key] = pull
	}
	var grants []Grant
	if reads {
		grants = e.inbox.grantsFrom(key, pull.read)
		pull.read += len(grants)
	} else {
		grants = e.inbox.takeGrants(key)
	}
	for _, g := range grants {
		pull.asked = reads
		for i := range g.Tiles {
			td.pending = append(td.pending, tileItem{index: g.First + i, tile: &g.Tiles[i]})
		}
		for i := range g.Ranges {
			td.pending = append(td.pending, tileItem{index: g.First + i, rng: &g.Ranges[i]})
		}
		pull.last = pull.last || g.Done
	}
	if !pull.asked && !pull.last {
		// ask for the next batch before drawing this one
		e.sink.Pull(fr.frame, r.plan.Channel.ID, t.Queue, e.opt.TileBatch)
		pull.asked = true
	}
	for _, it := range td.pending {
		start := time.Now()
		share, region, rng := t.Share, t.Region, t.Range
		if it.tile != nil {
			share = *it.tile
			// a tile of a pixel decomposition renders its samples alone,
			// from its place among the task's (tiles span whole periods)
			pw, ph := max(t.Pixel.W, 1), max(t.Pixel.H, 1)
			region = compound.PixelViewport{X: t.Region.X + (share.X-t.Share.X)/pw, Y: t.Region.Y + (share.Y-t.Share.Y)/ph}
			region.W, region.H = planner.RenderSize(share.W, share.H, t.Pixel, compound.Zoom{X: 1, Y: 1})
		} else {
			rng = *it.rng
			if len(t.Outputs) > 0 {
				// each chunk is its own frame: start from the background
				fr.clearRegion(region)
				r.target.wrote(region)
			}
		}
		roi, err := fr.draw(r, t, share, region, rng)
		if err != nil {
			return false, err
		}
		fr.drewRange(r, t, region, rng)
		gl.Finish()
		rec.Times.Draw += time.Since(start)
		rec.Tiles++
		fr.drawn(r, t, rec, roi)
		if len(t.Outputs) > 0 {
			start = time.Now()
			dirty := r.dirty[t.Eye]
			r.dirty[t.Eye] = region
			fr.readback(r, t, rec, region, share, it.index+1, rng)
			r.dirty[t.Eye] = dirty
			rec.Times.ReadbackSync += time.Since(start)
		}
		td.sent++
	}
	td.pending = nil
	if !pull.last {
		return false, nil
	}
	for _, out := range t.Outputs {
		for _, consumer := range out.Consumers {
			r.send(e, &FrameData{Frame: fr.frame, Eye: t.Eye, Name: out.Name, Producer: r.plan.Channel.ID, Consumer: consumer,
				Compound: t.Compound, End: true, Tiles: td.sent})
		}
	}
	r.tiles = nil
	return true, nil
}

// clearRegion clears a rectangle of the bound framebuffer to the
// renderer's background, depth to far.
func (fr *frameRun) clearRegion(reg compound.PixelViewport) {
	cc := fr.clearColor()
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(reg.X), int32(reg.Y), int32(reg.W), int32(reg.H))
	gl.ClearColor(cc[0], cc[1], cc[2], cc[3])
	gl.ClearDepth(1)
	gl.DepthMask(true)
	gl.ClearStencil(0)
	gl.StencilMask(0xff)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT)
	gl.Disable(gl.SCISSOR_TEST)
}

// assembly is an assemble task in progress: inputs are composited as they
// arrive; those whose order matters (blending, averaging) once all came.
type assembly struct {
	fr      *frameRun
	r       *channelRun
	t       *planner.Task
	started time.Time
	busy    time.Duration
	got     map[inputKey]int // parts composited (tiles) per input
	// tiles are the tiles composited per input, by Tile: a lost producer's
	// tiles drawn again by a stand-in (Executor.Repair) come a second time
	// where the producer had sent them, and count once
	tiles     map[inputKey]map[int]bool
	finished  map[inputKey]bool        // complete, or abandoned
	deferred  []*arrival               // blend and average inputs (all, for a draw.Assembler)
	placed    []compound.PixelViewport // where each deferred input lands (a draw.Assembler's)
	over      []lateInput              // inputs that go over the blended slabs
	used      []*Upload                // composited inputs, released together
	degraded  []string
	touched   compound.PixelViewport
	waitUntil time.Time
	merged    *cpuMerged // sort-last inputs merged in memory (cpumerge.go)
}

func newAssembly(fr *frameRun, r *channelRun, t *planner.Task) *assembly {
	return &assembly{fr: fr, r: r, t: t, started: time.Now(), got: map[inputKey]int{}, finished: map[inputKey]bool{}}
}

func (a *assembly) waited() time.Duration {
	return max(0, a.waitUntil.Sub(a.started)-a.busy)
}

func (a *assembly) keys() []inputKey {
	var ks []inputKey
	for _, in := range a.t.Inputs {
		for _, p := range in.Producers {
			ks = append(ks, a.key(in, p))
		}
	}
	return ks
}

// key names what the assemble waits for from a producer.
func (a *assembly) key(in planner.Input, producer string) inputKey {
	return inputKey{frame: a.fr.frame, eye: a.t.Eye, name: in.Name, producer: producer, consumer: a.r.plan.Channel.ID, repaired: a.r.repair != nil}
}

// missing describes the inputs not yet complete.
func (a *assembly) missing() string {
	var parts []string
	for _, k := range a.keys() {
		if !a.finished[k] {
			parts = append(parts, fmt.Sprintf("%s from {%s}", k.name, k.producer))
		}
	}
	return strings.Join(parts, ", ")
}

// progress composites what arrived; done when every input is complete.
func (a *assembly) progress() (bool, error) {
	b := a.fr.e.inbox
	for _, in := range a.t.Inputs {
		for _, p := range in.Producers {
			k := a.key(in, p)
			if a.finished[k] {
				continue
			}
			for _, ar := range b.take(k, in.Tiles) {
				if in.Tiles && ar.data.Tile > 0 {
					if a.tiles[k][ar.data.Tile] {
						a.used = append(a.used, ar.upload)
						continue
					}
					if a.tiles == nil {
						a.tiles = map[inputKey]map[int]bool{}
					}
					if a.tiles[k] == nil {
						a.tiles[k] = map[int]bool{}
					}
					a.tiles[k][ar.data.Tile] = true
				}
				a.inTaskSamples(ar)
				if err := a.composite(in, ar); err != nil {
					return false, err
				}
				a.got[k]++
			}
			switch {
			case in.Tiles:
				if n, ok := b.end(k); ok && a.got[k] >= n {
					a.finished[k] = true
				}
			case a.got[k] > 0:
				a.finished[k] = true
			}
			// a repair's inputs are drawn in it, not sent by the
			// producer (whose loss after the repair came abandons its
			// frames to the others)
			if !a.finished[k] && !k.repaired && b.isAbandoned(a.fr.frame, p) {
				a.finished[k] = true
				a.degraded = append(a.degraded, in.Name)
			}
		}
	}
	for _, k := range a.keys() {
		if !a.finished[k] {
			return false, nil
		}
	}
	a.waitUntil = time.Now()
	start := time.Now()
	if a.t.Exchange == planner.ExchangeShow {
		// the band this channel shows goes back to its image
		keep := a.t.Region
		if a.t.Band != nil {
			keep = a.t.Region.Apply(*a.t.Band)
		}
		if err := a.returnBand(keep); err != nil {
			return false, err
		}
	}
	err := a.flushCPUMerge()
	if err == nil {
		err = a.compositeDeferred()
	}
	a.releaseCPUMerge()
	// the inputs' textures go back behind one fence
	ReleaseUploads(a.used...)
	a.used = nil
	a.busy += time.Since(start)
	return true, err
}

// inTaskSamples expresses an input drawn under the task's own pixel
// decomposition (the task assembles on a source's channel for a part of a
// pixel compound) among the task's samples: its region holds those
// alone, as its draws and its readback do, so a frame of the same
// columns and rows lands there as a plain image, and one of a finer
// decomposition interleaves by the finer step over the coarser. Placed
// by its columns and rows of the destination, it fell off the region and
// over what the others drew.
func (a *assembly) inTaskSamples(ar *arrival) {
	tp, f := a.t.Pixel, ar.data
	if tp.W <= 1 && tp.H <= 1 {
		return
	}
	tw, th := max(tp.W, 1), max(tp.H, 1)
	fw, fh := max(f.Pixel.W, 1), max(f.Pixel.H, 1)
	// the input's first sample, from the first of the task's
	dx := f.Share.X - a.t.Share.X + f.Pixel.X - tp.X
	dy := f.Share.Y - a.t.Share.Y + f.Pixel.Y - tp.Y
	if dx%tw != 0 || dy%th != 0 || fw%tw != 0 || fh%th != 0 || f.W <= 0 || f.H <= 0 {
		return // not drawn under it: it lands at its share
	}
	kw, kh := fw/tw, fh/th
	// the samples its share has (a zoomed part drew fewer, which spread
	// over them)
	gw, gh := planner.RenderSize(f.Share.W, f.Share.H, f.Pixel, compound.Zoom{X: 1, Y: 1})
	g := *f
	g.Share = compound.PixelViewport{X: a.t.Share.X + dx/tw, Y: a.t.Share.Y + dy/th, W: (gw-1)*kw + 1, H: (gh-1)*kh + 1}
	g.Extent = g.Share
	g.Pixel = compound.Pixel{W: kw, H: kh}
	ar.data = &g
}

// place is where an input frame lands in the channel's framebuffer.
func (a *assembly) place(in planner.Input, f *FrameData) compound.PixelViewport {
	if in.Place != nil {
		return scaleRect(f.Share, f.Extent, *in.Place)
	}
	at := a.atShare(in, f)
	if z := in.Scale; z.X > 0 && z.Y > 0 {
		// its frames' zooms scale it from the region's corner
		r := a.t.Region
		x0, y0 := r.X+int(float64(at.X-r.X)*z.X+0.5), r.Y+int(float64(at.Y-r.Y)*z.Y+0.5)
		x1, y1 := r.X+int(float64(at.X+at.W-r.X)*z.X+0.5), r.Y+int(float64(at.Y+at.H-r.Y)*z.Y+0.5)
		at = compound.PixelViewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
	}
	return at
}

// atShare is where an input frame lands at its share (the config's frame
// zooms aside).
func (a *assembly) atShare(in planner.Input, f *FrameData) compound.PixelViewport {
	t := a.t
	if in.Native {
		return compound.PixelViewport{X: t.Region.X + f.Share.X - f.Extent.X, Y: t.Region.Y + f.Share.Y - f.Extent.Y, W: f.Share.W, H: f.Share.H}
	}
	if z := t.Zoom; z.X > 0 && z.Y > 0 && (z.X != 1 || z.Y != 1) {
		// a compound that renders zoomed assembles its parts zoomed too:
		// its region holds its share at the zoom's resolution
		return scaleRect(f.Share, t.Share, t.Region)
	}
	return compound.PixelViewport{X: f.Share.X - t.Share.X + t.Region.X, Y: f.Share.Y - t.Share.Y + t.Region.Y, W: f.Share.W, H: f.Share.H}
}

func (a *assembly) composite(in planner.Input, ar *arrival) error {
	start := time.Now()
	defer func() { a.busy += time.Since(start) }()
	f := ar.data
	a.used = append(a.used, ar.upload)
	if f.W <= 0 || f.H <= 0 {
		return nil // nothing was drawn there
	}
	if _, ok := a.fr.e.Renderer.(draw.Assembler); ok {
		// the renderer composites them all at once
		a.deferred = append(a.deferred, ar)
		a.placed = append(a.placed, a.place(in, f))
		return ar.upload.Use()
	}
	if _, ok := a.fr.e.rangeOrderer(); ok && !ar.depth && f.Range == compound.FullRange && f.Subpixel.Size <= 1 {
		// a renderer's slabs blend once all came: a colour image of all
		// the data (a direct send's stripe, finished elsewhere) goes over
		// them
		a.over = append(a.over, lateInput{in, ar})
		return nil
	}
	return a.compositeAt(in, ar)
}

// lateInput is an input composited after the others.
type lateInput struct {
	in planner.Input
	ar *arrival
}

// compositeOver composites inputs that go over the blended slabs: each
// holds all the data where it lands, nothing to order. What it merged in
// memory (a pixel decomposition's samples, under a software GL) goes into
// the framebuffer before it returns: the blends before it were written
// there.
func (a *assembly) compositeOver(late []lateInput) error {
	for _, l := range late {
		if err := a.compositeAt(l.in, l.ar); err != nil {
			return err
		}
		a.r.target.ranges.hold(a.place(l.in, l.ar.data), a.t.Eye, compound.Range{})
	}
	return a.flushCPUMerge()
}

// compositeAt composites an input where it lands.
func (a *assembly) compositeAt(in planner.Input, ar *arrival) error {
	f := ar.data
	at := a.place(in, f)
	exact := f.W == at.W && f.H == at.H
	if ar.upload.held != nil {
		fb := a.r.target.FB
		if exact && at.X >= 0 && at.Y >= 0 && at.X+at.W <= fb.W && at.Y+at.H <= fb.H {
			if b := a.band(); b != nil {
				return a.mergeIntoBand(b, ar.upload.held, at)
			}
			a.touched = union(a.touched, at)
			return a.mergeOnCPU(ar.upload.held, at)
		}
		// placed where it does not fit unscaled: the GPU scales and clips it
		held, release := ar.upload.held, ar.upload.releaseHeld
		ar.upload.held, ar.upload.releaseHeld = nil, nil
		ar.upload.released = true
		ar.upload = a.fr.e.Pipe.StartUploadRelease(held, release)
		a.used = append(a.used, ar.upload)
	}
	if a.band() != nil {
		// an input the band cannot take: the GL holds the band from here
		if err := a.returnBand(a.t.Region); err != nil {
			return err
		}
	}
	pixel := f.Pixel.W > 1 || f.Pixel.H > 1
	slab := f.Range != compound.FullRange && f.Range.End > f.Range.Start
	fb := a.r.target.FB
	fbRect := compound.PixelViewport{W: fb.W, H: fb.H}
	if f.Subpixel.Size > 1 {
		// averaged once every sample is here, in memory where it can be
		a.deferred = append(a.deferred, ar)
		return nil
	}
	if a.blendsInOrder(ar) {
		// blended in the renderer's order once all came; the samples of
		// a pixel decomposition each over the pixel they land on
		a.deferred = append(a.deferred, ar)
		return ar.upload.Use()
	}
	var samples gpu.Samples
	if pixel {
		samples, at = a.interleaving(f)
		if px := ar.upload.pending; px != nil && a.writesFramebuffer() && contains(fbRect, at) {
			// under a software GL the samples go into the image in memory
			// (cpumerge.go), where the shader would take 10 times as long
			a.touched = union(a.touched, at)
			return a.interleaveOnCPU(px, samples, at)
		}
	}
	// what was merged in memory goes first, to keep the order of arrival
	if err := a.flushCPUMerge(); err != nil {
		return err
	}
	if px := ar.upload.pending; px != nil && px.Depth == nil && exact && !pixel && !slab && a.writesMasked() && contains(fbRect, at) {
		// a tile under a software GL goes into the framebuffer as it is,
		// or with the channels a colour mask leaves read back first
		if a.t.ColorMask == 0 {
			a.wrote(at)
			return fb.Write(at.X, at.Y, at.W, at.H, f.W, px.Color, nil, nil)
		}
		if len(px.Color) >= 4*at.W*at.H {
			return a.assembleMasked(px, at)
		}
	}
	if err := ar.upload.Use(); err != nil {
		return err
	}
	c := a.fr.e.comp
	rect := gpu.Rect{X: at.X, Y: at.Y, W: at.W, H: at.H}
	var err error
	switch {
	case slab && ar.upload.Depth == 0 && !pixel:
		a.deferred = append(a.deferred, ar)
		return nil
	case pixel && ar.upload.Depth != 0:
		err = c.InterleaveDepth(ar.upload.Color, ar.upload.Depth, samples, rect)
	case pixel:
		err = c.Interleave(ar.upload.Color, samples, rect)
	case ar.upload.Depth != 0 && exact:
		err = c.DepthMerge(ar.upload.Color, ar.upload.Depth, at.X, at.Y, at.W, at.H)
	case ar.upload.Depth != 0:
		err = c.DepthMergeScaled(ar.upload.Color, ar.upload.Depth, f.W, f.H, rect)
	case exact:
		err = c.Assemble(ar.upload.Color, at.X, at.Y, at.W, at.H)
	default:
		err = c.AssembleScaled(ar.upload.Color, f.W, f.H, ar.upload.TexW, ar.upload.TexH, rect, false)
	}
	a.wrote(at)
	return err
}

// blendsInOrder reports whether ar is a slab of a renderer that blends
// its database ranges in its own order (its colour translucent, no depth
// to merge by).
func (a *assembly) blendsInOrder(ar *arrival) bool {
	_, orders := a.fr.e.rangeOrderer()
	r := ar.data.Range
	return orders && !ar.depth && r != compound.FullRange && r.End > r.Start
}

// interleaving is where a pixel-decomposed input's samples land in the
// framebuffer: sample (i, j) of its share's on first + (i, j)*step,
// inside at (its share's pixels, zoomed where the task is a zoomed
// assembly of the decomposition); a zoomed part drew fewer.
func (a *assembly) interleaving(f *FrameData) (s gpu.Samples, at compound.PixelViewport) {
	at = compound.PixelViewport{X: a.t.Region.X + f.Share.X - a.t.Share.X, Y: a.t.Region.Y + f.Share.Y - a.t.Share.Y, W: f.Share.W, H: f.Share.H}
	if z, p := a.t.Zoom, a.t.Pixel; z.Scales() && p.W <= 1 && p.H <= 1 && a.t.Subpixel.Size <= 1 {
		// a zoomed assembly of a pixel decomposition below it: its parts
		// sampled its zoomed pixels (planner.Task.GridZoom)
		at = scaleRect(f.Share, a.t.Share, a.t.Region)
	}
	gw, gh := planner.RenderSize(at.W, at.H, f.Pixel, compound.Zoom{X: 1, Y: 1})
	return gpu.Samples{First: [2]int{at.X + f.Pixel.X, at.Y + f.Pixel.Y}, Step: [2]int{max(f.Pixel.W, 1), max(f.Pixel.H, 1)},
		Drawn: [2]int{f.W, f.H}, Grid: [2]int{gw, gh}}, at
}

// wrote notes that the assembly wrote at into the framebuffer.
func (a *assembly) wrote(at compound.PixelViewport) {
	a.touched = union(a.touched, at)
	a.r.target.wrote(at)
}

// writesFramebuffer reports whether the assembly writes pixels into the
// framebuffer's textures as they are, where a shader pass would copy
// them: under a software GL (where that pass costs 10 to 20 times the
// upload) unless every input is to go through the GL (--merge gpu), and
// with no colour masked.
func (a *assembly) writesFramebuffer() bool {
	return a.writesMasked() && a.t.ColorMask == 0
}

// writesMasked reports whether the assembly writes pixels into the
// framebuffer as writesFramebuffer says, colour masks aside: a tile under
// a mask goes in with the channels the mask leaves read back
// (assembleMasked).
func (a *assembly) writesMasked() bool {
	return a.fr.e.cpuMerge && a.fr.e.Pipe.softwareGL
}

// compositeDeferred blends database slabs in the renderer's order (back
// to front) and averages subpixel samples.
func (a *assembly) compositeDeferred() error {
	var blend, average []*arrival
	for _, ar := range a.deferred {
		if ar.data.Subpixel.Size > 1 {
			average = append(average, ar)
		} else {
			blend = append(blend, ar)
		}
	}
	defer func() { a.deferred, a.placed, a.over = nil, nil, nil }()
	if asm, ok := a.fr.e.Renderer.(draw.Assembler); ok {
		return a.assembleByRenderer(asm)
	}
	if err := a.blend(blend); err != nil {
		return err
	}
	if err := a.compositeOver(a.over); err != nil {
		return err
	}
	return a.averageSamples(average)
}

// averageSamples averages subpixel inputs, each decomposition in its
// place.
func (a *assembly) averageSamples(frames []*arrival) error {
	ds, err := subpixelDecompositions(frames, func(ar *arrival) compound.PixelViewport { return a.place(planner.Input{}, ar.data) })
	if err != nil {
		return err
	}
	for _, d := range ds {
		// a renderer's slabs blend in its order with what lies under
		// them (another range blended before): averaged as they are,
		// they would cover it
		slabs := slices.ContainsFunc(d.frames, a.blendsInOrder)
		// the mean alone is colour: where the channel sends its image on
		// with depth (an assembly on a source's channel), the samples
		// composited each leave a depth to merge by, not the clear's
		keepDepth := d.depth && a.readsDepthLater()
		var err error
		if d.oneFramePerSample && !slabs && !keepDepth && (!d.depth || a.r.target.holdsClear(d.at)) {
			err = a.average(d.frames, d.at)
		} else {
			err = a.averageComposited(d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readsDepth reports whether t reads the framebuffer's depth: to send it
// (a readback, or a tile queue's draw, which reads back each tile) or to
// merge a frame against it.
func readsDepth(t planner.Task) bool {
	return sendsDepth(t) || slices.ContainsFunc(t.Inputs, func(in planner.Input) bool { return in.Depth })
}

// sendsDepth reports whether one of t's output frames carries depth.
func sendsDepth(t planner.Task) bool {
	return slices.ContainsFunc(t.Outputs, func(o planner.Output) bool { return o.Buffers&compound.BufferDepth != 0 })
}

// readsDepthLater reports whether the channel reads back depth after the
// assembly, for a frame it sends on.
func (a *assembly) readsDepthLater() bool {
	ts := a.r.plan.Tasks
	for i := range ts {
		if &ts[i] != a.t {
			continue
		}
		return slices.ContainsFunc(ts[i+1:], func(t planner.Task) bool { return t.Kind == planner.Readback && sendsDepth(t) })
	}
	return false
}

// blend blends database slabs over the framebuffer in the renderer's
// order (back to front). For a draw.RangeOrderer, the parts of the data
// the framebuffer holds under them (drawn in place, or blended by an
// earlier assembly: heldRanges) take their turn in that order too, as
// eVolve orders the image drawn in place: a part something blends behind
// moves to a texture, its pixels cleared, and blends in its turn.
func (a *assembly) blend(slabs []*arrival) error {
	if len(slabs) == 0 {
		return nil
	}
	type part struct {
		ar      *arrival // a slab; nil for what the framebuffer holds
		at      compound.PixelViewport
		samples gpu.Samples // a pixel decomposition's
		rng     compound.Range
		moved   uint32 // the texture a held part moved to
	}
	parts := make([]part, 0, len(slabs))
	var covered compound.PixelViewport
	for _, ar := range slabs {
		p := part{ar: ar, at: a.place(planner.Input{}, ar.data), rng: ar.data.Range}
		if f := ar.data; f.Pixel.W > 1 || f.Pixel.H > 1 {
			p.samples, p.at = a.interleaving(f)
		}
		parts = append(parts, p)
		covered = union(covered, p.at)
	}
	t := a.r.target
	orderer, orders := a.fr.e.rangeOrderer()
	if orders {
		for _, h := range t.ranges.pieces(intersect(covered, compound.PixelViewport{W: t.FB.W, H: t.FB.H}), a.t.Eye) {
			parts = append(parts, part{at: h.at, rng: h.rng})
		}
	}
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	if orders {
		ranges := make([]draw.Range, len(parts))
		for i, p := range parts {
			ranges[i] = draw.Range(p.rng)
		}
		order = orderer.BackToFront(&draw.Context{Frame: a.fr.frame, Channel: a.r.plan.Channel.ID, Eye: draw.Eye(a.t.Eye), ViewIndex: a.t.View, View: mat4(a.t.ViewMatrix),
			OrthoView: mat4(a.t.OrthoView), Data: a.fr.data}, ranges)
		if !isPermutation(order, len(parts)) {
			return fmt.Errorf("the renderer's BackToFront ordered %d ranges as %v, not each index once", len(parts), order)
		}
	} else {
		// far ranges first: the database's order is its depth order
		sort.Slice(order, func(i, j int) bool { return parts[order[i]].rng.Start > parts[order[j]].rng.Start })
	}
	// a held part that a slab blends behind moves out of the way
	var moved []uint32
	defer func() {
		if len(moved) > 0 {
			gl.DeleteTextures(int32(len(moved)), &moved[0])
		}
	}()
	for k, i := range order {
		p := &parts[i]
		if p.ar != nil || !slices.ContainsFunc(order[:k], func(j int) bool { return parts[j].ar != nil && overlaps(parts[j].at, p.at) }) {
			continue
		}
		t.FB.Bind()
		p.moved = glutil.Texture(p.at.W, p.at.H, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
		moved = append(moved, p.moved)
		gl.CopyTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(p.at.X), int32(p.at.Y), int32(p.at.W), int32(p.at.H))
		// under the task's colour mask: another eye's colours stay
		a.fr.clearRegion(p.at)
	}
	c := a.fr.e.comp
	for _, i := range order {
		p := parts[i]
		rect := gpu.Rect{X: p.at.X, Y: p.at.Y, W: p.at.W, H: p.at.H}
		var err error
		switch {
		case p.ar == nil && p.moved == 0: // it stays under the rest
			continue
		case p.ar == nil:
			err = c.BlendOver(p.moved, p.at.X, p.at.Y, p.at.W, p.at.H)
		case p.samples.Grid != [2]int{}:
			err = c.InterleaveOver(p.ar.upload.Color, p.samples, rect)
		case p.ar.data.W == p.at.W && p.ar.data.H == p.at.H:
			err = c.BlendOver(p.ar.upload.Color, p.at.X, p.at.Y, p.at.W, p.at.H)
		default:
			f := p.ar.data
			err = c.AssembleScaled(p.ar.upload.Color, f.W, f.H, p.ar.upload.TexW, p.ar.upload.TexH, rect, true)
		}
		if err != nil {
			return err
		}
		a.wrote(p.at)
	}
	if orders {
		// each slab's place now holds every part blended there
		for _, s := range parts[:len(slabs)] {
			var there []compound.Range
			for _, p := range parts {
				if overlaps(p.at, s.at) {
					there = append(there, p.rng)
				}
			}
			t.ranges.hold(s.at, a.t.Eye, spanning(there))
		}
	}
	return nil
}

// isPermutation reports whether order holds each of 0..n-1 once.
func isPermutation(order []int, n int) bool {
	if len(order) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range order {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

// overlaps reports whether two rectangles share a pixel.
func overlaps(a, b compound.PixelViewport) bool {
	i := intersect(a, b)
	return i.W > 0 && i.H > 0
}

// maxSubpixelSamples bounds the samples of one subpixel decomposition:
// Equalizer's configs use 2 to 16.
const maxSubpixelSamples = 4096

// A decomposition the config takes is one the assembly can average (a
// negative array length does not compile).
var _ [compositor.MaxAverage - compound.MaxSubpixel]struct{}

// The weights of a decomposition's samples, which sum to at most the
// least common multiple of their sizes, are weights it can sum.
var _ [compositor.MaxWeight - compound.MaxSubpixelWeight]struct{}

// subpixelDecomposition is the input frames of one subpixel
// decomposition: those that share pixels, by sample.
type subpixelDecomposition struct {
	at     compound.PixelViewport // the places' union
	frames []*arrival
	// samples are the frames of each run of samples that the same frames
	// cover, in order of arrival, and weights how many samples of the
	// least common multiple of the frames' subpixel sizes each run is: a
	// frame, sample i of n, covers the multiple's samples i*m/n to
	// (i+1)*m/n - 1, so that a decomposition nested in another's sample
	// (sizes 2 and 4) and decompositions of different ranges (2 and 3
	// samples) each weigh what their own samples do
	samples [][]*arrival
	weights []int
	// oneFramePerSample: each sample is one frame covering at pixel for
	// pixel, averaged as it is; otherwise each sample's frames (the parts
	// of a DB or 2D split under or over the subpixel compound, a zoomed
	// or pixel-decomposed render) are composited first
	oneFramePerSample bool
	depth             bool // a frame has depth, to merge with what lies under it
}

// subpixelDecompositions groups subpixel inputs by decomposition. The
// parts of a 2D split may each be one, averaged in its part (all were
// averaged into the first one's place, and the others' left empty).
func subpixelDecompositions(frames []*arrival, place func(*arrival) compound.PixelViewport) ([]*subpixelDecomposition, error) {
	var ds []*subpixelDecomposition
	for _, ar := range frames {
		d := &subpixelDecomposition{at: place(ar), frames: []*arrival{ar}}
		// it joins every decomposition it shares pixels with, and they
		// one another
		for merged := true; merged; {
			merged = false
			for i, o := range ds {
				if sharePixels(o.frames, d.frames, place) {
					d.at, d.frames = union(o.at, d.at), append(o.frames, d.frames...)
					ds = append(ds[:i], ds[i+1:]...)
					merged = true
					break
				}
			}
		}
		ds = append(ds, d)
	}
	for _, d := range ds {
		ss := make([]compound.Subpixel, len(d.frames))
		for i, ar := range d.frames {
			// a frame's sample comes from the network: one outside its
			// size, or sizes whose samples weigh too much to sum, fail
			// the frame
			sp := ar.data.Subpixel
			if sp.Size < 1 || sp.Size > maxSubpixelSamples || sp.Index < 0 || sp.Index >= sp.Size {
				return nil, fmt.Errorf("%s from %s: subpixel [ %d %d ] is no sample of at most %d", ar.data.Name, ar.data.Producer, sp.Index, sp.Size, maxSubpixelSamples)
			}
			ss[i] = sp
		}
		spans, multiple, ok := compound.SubpixelSpans(ss)
		if !ok {
			return nil, fmt.Errorf("subpixel decompositions of sizes whose least common multiple is over %d on the same pixels", compound.MaxSubpixelWeight)
		}
		d.oneFramePerSample = true
		for _, ar := range d.frames {
			f := ar.data
			d.oneFramePerSample = d.oneFramePerSample && place(ar) == d.at && f.W == d.at.W && f.H == d.at.H && f.Subpixel.Size == multiple
			d.depth = d.depth || ar.depth
		}
		// a sample no frame drew is left out of the mean, as Equalizer
		// averages the frames that came
		for _, s := range spans {
			if len(s.Covers) == 0 {
				continue
			}
			sample := make([]*arrival, len(s.Covers))
			for i, k := range s.Covers {
				sample[i] = d.frames[k]
			}
			d.samples, d.weights = append(d.samples, sample), append(d.weights, s.End-s.Start)
			d.oneFramePerSample = d.oneFramePerSample && len(sample) == 1
		}
	}
	return ds, nil
}

// sharePixels reports whether a frame of as and one of bs land on a
// common pixel: their places overlap, and a column and a row of the
// overlap are sampled by both their pixel decompositions (the rows or
// columns of one pixel compound's parts are each a subpixel decomposition
// of its own, and parts of pixel compounds nested to other sizes, rows 3k
// and rows 6k+1, can be apart too).
func sharePixels(as, bs []*arrival, place func(*arrival) compound.PixelViewport) bool {
	for _, a := range as {
		for _, b := range bs {
			pa, pb := place(a), place(b)
			overlap := intersect(pa, pb)
			if overlap.W <= 0 || overlap.H <= 0 {
				continue
			}
			// the columns and rows they sample, counted from the
			// framebuffer's corner (a part's are from its share's)
			p, q := a.data.Pixel, b.data.Pixel
			if samplesMeet(overlap.X, overlap.W, pa.X+p.X, p.W, pb.X+q.X, q.W) &&
				samplesMeet(overlap.Y, overlap.H, pa.Y+p.Y, p.H, pb.Y+q.Y, q.H) {
				return true
			}
		}
	}
	return false
}

// samplesMeet reports whether [lo, lo+n) holds a column (or row) x that
// both x = ra (mod m) and x = rb (mod k) sample; a step of 0 or 1 samples
// every one.
func samplesMeet(lo, n, ra, m, rb, k int) bool {
	m, k = max(m, 1), max(k, 1)
	for x := lo; x < lo+min(n, m/gcd(m, k)*k); x++ {
		if mod(x-ra, m) == 0 && mod(x-rb, k) == 0 {
			return true
		}
	}
	return false
}

// averageComposited composites each sample of d onto what the
// framebuffer holds under it (the clear, inputs of no subpixel
// decomposition such as another DB range), as the assembly does inputs
// of none, reads it back, and writes the samples' mean there.
func (a *assembly) averageComposited(d *subpixelDecomposition) error {
	t := a.r.target
	at := intersect(d.at, compound.PixelViewport{W: t.FB.W, H: t.FB.H})
	if at.W <= 0 || at.H <= 0 {
		return nil
	}
	color, depth, stencil := readAll(t.FB, at)
	under := &compositor.Image{W: at.W, H: at.H, Color: color, Depth: depth}
	held := slices.Clone(t.ranges)
	imgs := make([]*compositor.Image, len(d.samples))
	for i, sample := range d.samples {
		if i > 0 {
			t.FB.Bind()
			if err := t.FB.Write(at.X, at.Y, at.W, at.H, at.W, under.Color, under.Depth, stencil); err != nil {
				return err
			}
			t.ranges = slices.Clone(held)
		}
		deferred, over := len(a.deferred), len(a.over)
		for _, ar := range sample {
			one, f := *ar, *ar.data
			f.Subpixel = compound.Subpixel{}
			one.data = &f
			if err := a.composite(planner.Input{}, &one); err != nil {
				return err
			}
			// a frame held in memory and placed scaled went to the GPU
			// (compositeAt): the later samples it is in take it there
			ar.upload = one.upload
		}
		slabs, late := a.deferred[deferred:], a.over[over:]
		a.deferred, a.over = a.deferred[:deferred], a.over[:over]
		if err := a.flushCPUMerge(); err != nil {
			return err
		}
		if err := a.blend(slabs); err != nil {
			return err
		}
		if err := a.compositeOver(late); err != nil {
			return err
		}
		t.FB.Bind()
		imgs[i] = &compositor.Image{W: at.W, H: at.H, Color: glutil.ReadColor(at.X, at.Y, at.W, at.H, nil)}
	}
	mean := &compositor.Image{W: at.W, H: at.H, Color: a.fr.e.scratch(4 * at.W * at.H)}
	if err := compositor.WeightedAverage(mean, imgs, d.weights); err != nil {
		return err
	}
	a.wrote(at)
	return t.FB.Write(at.X, at.Y, at.W, at.H, at.W, mean.Color, nil, nil)
}

// average writes the mean of one subpixel decomposition's samples at at.
func (a *assembly) average(average []*arrival, at compound.PixelViewport) error {
	c := a.fr.e.comp
	if done, err := a.averageOnCPU(average, at); done || err != nil {
		return err
	}
	for taken := 0; taken < len(average); {
		n := min(len(average)-taken, gpu.MaxAverage)
		var texs []uint32
		for _, ar := range average[taken : taken+n] {
			if err := ar.upload.Use(); err != nil {
				return err
			}
			texs = append(texs, ar.upload.Color)
		}
		taken += n
		if err := c.Average(texs, gpu.Rect{X: at.X, Y: at.Y, W: at.W, H: at.H}, float64(n)/float64(taken)); err != nil {
			return err
		}
		a.wrote(at)
	}
	return nil
}

// assembleByRenderer hands every input to a renderer that is a
// draw.Assembler.
func (a *assembly) assembleByRenderer(asm draw.Assembler) error {
	if len(a.deferred) == 0 {
		return nil
	}
	images := make([]draw.Image, len(a.deferred))
	for i, ar := range a.deferred {
		f, at := ar.data, a.placed[i]
		images[i] = draw.Image{Color: ar.upload.Color, Depth: ar.upload.Depth, Width: f.W, Height: f.H, TexWidth: ar.upload.TexW,
			TexHeight: ar.upload.TexH, At: draw.Region{X: at.X, Y: at.Y, W: at.W, H: at.H}, Producer: f.Producer,
			Range: draw.Range(f.Range), Pixel: draw.Pixel(f.Pixel), Subpixel: draw.Subpixel(f.Subpixel)}
		if ext := f.Extent; ext.W > 0 && ext.H > 0 {
			images[i].Viewport = draw.Viewport{X: float64(f.Share.X-ext.X) / float64(ext.W), Y: float64(f.Share.Y-ext.Y) / float64(ext.H),
				W: float64(f.Share.W) / float64(ext.W), H: float64(f.Share.H) / float64(ext.H)}
		}
		a.wrote(at)
	}
	reg := a.t.Region
	a.r.target.wrote(reg)
	gl.Viewport(int32(reg.X), int32(reg.Y), int32(reg.W), int32(reg.H))
	gl.Disable(gl.SCISSOR_TEST)
	defer a.fr.e.callRenderer(a.fr.frame, a.r.plan.Channel, "Assemble", a.r.target.FB.FBO)()
	err := asm.Assemble(&draw.Context{Frame: a.fr.frame, Channel: a.r.plan.Channel.ID, Data: a.fr.data, Eye: draw.Eye(a.t.Eye), ViewIndex: a.t.View,
		X: reg.X, Y: reg.Y, Width: reg.W, Height: reg.H, View: mat4(a.t.ViewMatrix), Viewport: draw.Viewport(a.t.Viewport), Range: draw.Range(a.t.Range)}, images)
	if err != nil {
		return fmt.Errorf("the renderer's assembly: %w", err)
	}
	return nil
}

// Present shows the windows of the channels that showed frame (no-op
// for offscreen windows). Call after the swap barrier released it.
func (e *Executor) Present(frame int, windows []*Window, shown []*planner.ChannelPlan) error {
	return e.Pipe.Do(func() error {
		defer func() {
			e.waitsMu.Lock()
			e.inPresent.channel = ""
			e.waitsMu.Unlock()
		}()
		for _, w := range windows {
			t := e.targets[targetKey{window: w.Model}]
			i := slices.IndexFunc(shown, func(p *planner.ChannelPlan) bool { return p.Channel.Window == w.Model })
			if t == nil || i < 0 {
				continue
			}
			e.waitsMu.Lock()
			e.inPresent.frame, e.inPresent.channel, e.inPresent.since = frame, shown[i].Channel.ID, time.Now()
			e.waitsMu.Unlock()
			size := shown[i].WindowSize
			if err := w.Present(size, []PresentPart{{Texture: t.FB.Color, TexW: t.FB.W, TexH: t.FB.H,
				At: compound.PixelViewport{W: size.W, H: size.H}}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Blank shows black on the on-screen windows among these.
func (e *Executor) Blank(windows []*Window) error {
	return e.Pipe.Do(func() error {
		for _, w := range windows {
			if err := w.Blank(); err != nil {
				return err
			}
		}
		return nil
	})
}

// ---- rectangles ------------------------------------------------------------

func intersect(a, b compound.PixelViewport) compound.PixelViewport {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return compound.PixelViewport{X: x0, Y: y0}
	}
	return compound.PixelViewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

func union(a, b compound.PixelViewport) compound.PixelViewport {
	if a.W <= 0 || a.H <= 0 {
		return b
	}
	if b.W <= 0 || b.H <= 0 {
		return a
	}
	x0, y0 := min(a.X, b.X), min(a.Y, b.Y)
	x1, y1 := max(a.X+a.W, b.X+b.W), max(a.Y+a.H, b.Y+b.H)
	return compound.PixelViewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

func contains(outer, inner compound.PixelViewport) bool {
	return inner.X >= outer.X && inner.Y >= outer.Y && inner.X+inner.W <= outer.X+outer.W && inner.Y+inner.H <= outer.Y+outer.H
}

// cutToDrawn cuts a read region, and the share it covers, to the drawn
// part. A read of another size than its share (a zoomed source) is
// stretched onto it by a filter, so its cut must land where the same
// pixels of the whole read would: it is widened by one pixel, which the
// filter reaches, and then to the nearest edges that fall on whole pixels
// of both read and share (at the worst, the whole read).
func cutToDrawn(read, share, drawn compound.PixelViewport) (compound.PixelViewport, compound.PixelViewport) {
	cut := intersect(read, drawn)
	if cut.W <= 0 || cut.H <= 0 {
		return cut, compound.PixelViewport{X: share.X, Y: share.Y}
	}
	if read.W == share.W && read.H == share.H {
		return cut, scaleRect(cut, read, share)
	}
	x0, x1, sx0, sx1, _, _ := cutOnWholePixels(cut.X-1-read.X, cut.X+cut.W+1-read.X, read.W, share.W, read.W)
	y0, y1, sy0, sy1, _, _ := cutOnWholePixels(cut.Y-1-read.Y, cut.Y+cut.H+1-read.Y, read.H, share.H, read.H)
	return compound.PixelViewport{X: read.X + x0, Y: read.Y + y0, W: x1 - x0, H: y1 - y0},
		compound.PixelViewport{X: share.X + sx0, Y: share.Y + sy0, W: sx1 - sx0, H: sy1 - sy0}
}

// cutToDrawnScaled is cutToDrawn for a read scaled to w x h before it
// travels (planner.Output.Scale): the cut also falls on whole pixels of
// the scaled read, widened by one of them, which the filter that scales it
// back up reaches, so that its pixels are those of the whole read scaled.
// It returns the cut's scaled size with it.
func cutToDrawnScaled(read, share, drawn compound.PixelViewport, w, h int) (compound.PixelViewport, compound.PixelViewport, int, int) {
	cut := intersect(read, drawn)
	if cut.W <= 0 || cut.H <= 0 {
		return cut, compound.PixelViewport{X: share.X, Y: share.Y}, 0, 0
	}
	// one scaled pixel, in read pixels
	px, py := (read.W+w-1)/w, (read.H+h-1)/h
	x0, x1, sx0, sx1, kx0, kx1 := cutOnWholePixels(cut.X-px-read.X, cut.X+cut.W+px-read.X, read.W, share.W, w)
	y0, y1, sy0, sy1, ky0, ky1 := cutOnWholePixels(cut.Y-py-read.Y, cut.Y+cut.H+py-read.Y, read.H, share.H, h)
	return compound.PixelViewport{X: read.X + x0, Y: read.Y + y0, W: x1 - x0, H: y1 - y0},
		compound.PixelViewport{X: share.X + sx0, Y: share.Y + sy0, W: sx1 - sx0, H: sy1 - sy0}, kx1 - kx0, ky1 - ky0
}

// cutOnWholePixels widens the span [lo, hi) of a read of n pixels that
// covers m pixels of its share, and k of a scaled copy of it, to edges on
// whole pixels of all three, and returns them in read, share and scaled
// pixels.
func cutOnWholePixels(lo, hi, n, m, k int) (rlo, rhi, slo, shi, klo, khi int) {
	if n <= 0 || m <= 0 || k <= 0 {
		return 0, max(n, 0), 0, max(m, 0), 0, max(k, 0)
	}
	lo, hi = max(lo, 0), min(hi, n)
	// share pixel s lies on a read pixel where s*n is a multiple of m,
	// and on a scaled one where s*k is: every step share pixels
	step := lcm(m/gcd(n, m), m/gcd(k, m))
	slo = lo * m / n / step * step
	shi = min((hi*m+n-1)/n+step-1, m) / step * step // step divides m
	return slo * n / m, shi * n / m, slo, shi, slo * k / m, shi * k / m
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// scaleRect maps cut (a part of read) onto the same part of share.
func scaleRect(cut, read, share compound.PixelViewport) compound.PixelViewport {
	if read.W == share.W && read.H == share.H {
		return compound.PixelViewport{X: share.X + cut.X - read.X, Y: share.Y + cut.Y - read.Y, W: cut.W, H: cut.H}
	}
	if read.W == 0 || read.H == 0 {
		return share
	}
	fx, fy := float64(share.W)/float64(read.W), float64(share.H)/float64(read.H)
	x0 := share.X + int(float64(cut.X-read.X)*fx+0.5)
	y0 := share.Y + int(float64(cut.Y-read.Y)*fy+0.5)
	x1 := share.X + int(float64(cut.X+cut.W-read.X)*fx+0.5)
	y1 := share.Y + int(float64(cut.Y+cut.H-read.Y)*fy+0.5)
	return compound.PixelViewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// mat4 is a planned matrix (float64, column-major) as GL takes it.
func mat4(m [16]float64) draw.Mat4 {
	var out draw.Mat4
	for i, x := range m {
		out[i] = float32(x)
	}
	return out
}
