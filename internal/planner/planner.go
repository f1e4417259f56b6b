// Package planner turns the resolved compound tree and the statistics of
// finished frames into every channel's work for the next frame: the ordered
// tasks (clear, draw, assemble, readback) with their pixel viewport,
// fractional viewport, range, pixel/subpixel, eye, frustum and view matrix,
// zoom, and the frames each task produces and consumes.
//
// It is pure: no GL, no network, no clock. The live server and the
// simulator drive the same Planner.
package planner

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/equalizer"
	"github.com/goeq/goeq/internal/stats"
)

// Kind is what a task does.
type Kind uint8

// Task kinds, in the order a compound runs them.
const (
	Clear Kind = iota + 1
	Draw
	Assemble
	Readback
)

var kindNames = [...]string{Clear: "clear", Draw: "draw", Assemble: "assemble", Readback: "readback"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText writes the kind's name (control messages, logs).
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n != "" && n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("planner: unknown task kind %q", b)
}

// ColorMask selects the colour channels a task writes (anaglyph stereo);
// zero writes all of them.
type ColorMask uint8

// Colour mask bits.
const (
	MaskRed ColorMask = 1 << iota
	MaskGreen
	MaskBlue
	MaskAlpha
)

// Output is an output frame a readback produces.
type Output struct {
	Name string `json:"name"`
	// Viewport is the part of the task's region read back, Buffers what
	// is read (colour, depth).
	Viewport compound.Viewport `json:"viewport"`
	Buffers  int               `json:"buffers"`
	// Consumers are the channels (IDs) that assemble the frame.
	Consumers []string `json:"consumers"`
	// ROI: only the region the renderer drew needs to travel, because
	// every consumer cleared its region before assembling.
	ROI bool `json:"roi,omitempty"`
	// The frame travels smaller than it was rendered, scaled down by the
	// producer (colour averaged on its GPU; with depth, the sample
	// nearest each pixel's centre kept, as a scaled depth merge takes
	// it), where:
	//
	// ReadW x ReadH, when set, is the size it travels at: every consumer
	// is a monitor that shows it at that size, so the full picture need
	// not travel (Equalizer zooms such output frames so).
	ReadW int `json:"read_w,omitempty"`
	ReadH int `json:"read_h,omitempty"`
	// AtShare: it was rendered zoomed up (supersampled) and every
	// consumer lands it at its share's resolution, so it travels at that.
	AtShare bool `json:"at_share,omitempty"`
	// Scale, when set, is the fraction of its rendered resolution it
	// travels at: its output frame's zoom asks so
	// (compound.Frame.ReadScale). Its consumers scale it to where it
	// lands.
	Scale compound.Zoom `json:"scale,omitzero"`
}

// Input is an input frame an assemble task composites.
type Input struct {
	Name string `json:"name"`
	// Producers are the channels (IDs) whose frames of that name arrive
	// this frame (one each).
	Producers []string `json:"producers"`
	// Place, when set, is where the frame lands in the task's region,
	// scaled to fit (the monitor equalizer); otherwise it lands at its
	// share of the destination.
	Place *compound.PixelViewport `json:"place,omitempty"`
	// Tiles: the producers draw from a tile queue and send their part as
	// tiles, then a count.
	Tiles bool `json:"tiles,omitempty"`
	// Native: the frame comes from another destination's tree; as in
	// Equalizer it lands at the task's corner (its own origin there), not
	// at its share of a destination it does not belong to.
	Native bool `json:"native,omitempty"`
	// Depth: a producer sends depth with it, which the assembly merges
	// against the framebuffer's.
	Depth bool `json:"depth,omitempty"`
	// Scale, when set, scales where the frame lands from the corner of
	// the task's region: its output and input frames' zooms land it at
	// another size than its share's (compound.LandingScale).
	Scale compound.Zoom `json:"scale,omitzero"`
}

// Task is one unit of work for one channel in one frame.
type Task struct {
	Kind Kind `json:"kind"`
	// Seq orders the frame's tasks as the plan emitted them: destination
	// tree by tree, eye by eye within a tree, compound tree order within
	// an eye. Home says the tree's destination is on the task's window.
	// Channels that share a window run its tasks for other windows'
	// destinations first, then its own trees' in Seq order, so that each
	// destination's clear and assemble bracket what its window renders
	// for it and the window ends showing its destinations.
	Seq      int    `json:"seq"`
	Home     bool   `json:"home,omitempty"`
	Compound string `json:"compound"`
	Eye      int    `json:"eye"`
	// View is the config's view the compound's destination shows (an
	// index into compound.Config.Views), -1 when it shows none: an
	// application with a camera or model per view picks it by this.
	View int `json:"view"`
	// Region is the task's rectangle in its channel's framebuffer. On the
	// destination channel it is the compound's share of it; on any other
	// channel it starts at the channel's corner: as Equalizer does, a
	// source renders its share one pixel per destination pixel at its
	// native origin.
	Region compound.PixelViewport `json:"region"`
	// Share is the part of the destination the compound covers, in
	// destination pixels. Region has its size unless the compound renders
	// at another resolution (pixel decomposition, zoom).
	Share compound.PixelViewport `json:"share"`
	// Frustum is the eye's frustum of the wall the compound renders, a wall
	// that spans Area (destination pixels): a renderer projects with it and
	// the adjustment that maps its pixels onto Share (render.Sub), which
	// keeps decomposed renders pixel-exact. ViewMatrix is that wall's.
	Area       compound.PixelViewport `json:"area"`
	Frustum    compound.Frustum       `json:"frustum"`
	ViewMatrix [16]float64            `json:"view_matrix"` // column-major
	// Ortho and OrthoView are the same wall seen without perspective
	// (compound.Wall.OrthoFrustum, OrthoViewMatrix), for applications
	// that offer a parallel projection.
	Ortho     compound.Frustum  `json:"ortho,omitzero"`
	OrthoView [16]float64       `json:"ortho_view,omitzero"` // column-major
	Viewport  compound.Viewport `json:"viewport"`            // of the destination
	Range     compound.Range    `json:"range"`
	Pixel     compound.Pixel    `json:"pixel"`
	// GridZoom, when set, is the zoom of the pixels a pixel
	// decomposition's part samples: its assembly's, which interleaves the
	// samples on its zoomed pixels (render.Sub's GridZoom).
	GridZoom compound.Zoom `json:"grid_zoom,omitzero"`
	// Interleave, on a whole draw, is the pattern of the region's pixels
	// it changes (counted from the region's corner); the others keep what
	// they held. The reference draws so each eye of a destination whose
	// tree interleaves its eyes by pixel (a row-interleaved stereo wall).
	Interleave compound.Pixel    `json:"interleave,omitzero"`
	Subpixel   compound.Subpixel `json:"subpixel"`
	Zoom       compound.Zoom     `json:"zoom"`
	Buffers    int               `json:"buffers"`
	ColorMask  ColorMask         `json:"color_mask,omitempty"`
	// Samples, on a draw, is how many samples per pixel it renders with
	// (compound.Compound.DrawSamples); 0 renders single-sampled.
	Samples int `json:"samples,omitempty"`
	// Scratch, on a readback (or a tile queue's draw, which reads back
	// each tile), says that what the compound drew on its destination's
	// own pixels is not the destination's picture: drawn off its place
	// (a pixel, subpixel or zoom part: at the corner, smaller or
	// shifted), or sent whole back in a frame to the destination (or to
	// an assembly between it and the destination on the channel). What
	// its region held before the compound's first task goes back after
	// it; otherwise an off-place draw stayed in the picture (and won a
	// depth-merged assembly over the parts where nearer), and the
	// compound's clear erased what the destination had drawn there in
	// place.
	Scratch bool     `json:"scratch,omitempty"`
	Outputs []Output `json:"outputs,omitempty"`
	Inputs  []Input  `json:"inputs,omitempty"`
	// Queue, on a draw, names the tile queue the channel pulls tiles (or
	// database chunks) from instead of drawing its share at once; each tile
	// is read back and sent to the Outputs as it is drawn.
	Queue string `json:"queue,omitempty"`
	// Exchange marks the tasks of a sort-last exchange (exchange.go): what
	// each does with the band its source holds, so that an executor may
	// keep that band in memory from the first readback to the last merge.
	// Band, on the last merge on the compound's own channel, is the part
	// of the region the source ends up holding (which it shows).
	Exchange ExchangeStep       `json:"exchange,omitempty"`
	Band     *compound.Viewport `json:"band,omitempty"`
}

// ExchangeStep is what a task of a sort-last exchange does with the band
// its source holds.
type ExchangeStep uint8

// Exchange steps.
const (
	// ExchangeFirst: a readback after the draw; the source's image is its
	// band, parts of which it sends.
	ExchangeFirst ExchangeStep = iota + 1
	// ExchangeMerge: an assemble of parts others sent into the band.
	ExchangeMerge
	// ExchangeSend: a readback of parts of the band (or, at the end, the
	// merged band's colour for the compound).
	ExchangeSend
	// ExchangeShow: the last merge, on the compound's own channel: the
	// band stays in the channel's image.
	ExchangeShow
)

// ChannelPlan is one channel's tasks for a frame, in execution order.
type ChannelPlan struct {
	Channel *compound.Channel
	Tasks   []Task
	// Viewport is the channel's pixel viewport in its window this frame,
	// and WindowSize its window's size: the config's until a user resizes
	// the window (compound.WindowSizes).
	Viewport   compound.PixelViewport
	WindowSize compound.Size
	// Destination: the channel shows the result of a compound tree this
	// frame (it is presented and its image written), of the config's view
	// View (-1: none; as Task.View).
	Destination bool
	View        int
	// Aside: the plan stands in for lost channels (Planner.findStandIns)
	// and renders past its window's own pixels, so it runs in an order of
	// its own rather than the window's (as another window would).
	Aside bool
}

// Producers are the channels (IDs) whose frames the plan's tasks
// assemble, each once, in the order they first come.
func (cp *ChannelPlan) Producers() []string {
	var out []string
	for _, t := range cp.Tasks {
		for _, in := range t.Inputs {
			for _, p := range in.Producers {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// CompoundState is what the planner decided for one compound this frame.
type CompoundState struct {
	Active   bool
	Skip     bool // active but renders nothing (assemble-only, empty share)
	Eyes     int  // the eyes it renders this frame
	Local    compound.Local
	Viewport compound.Viewport // composed, relative to the destination
	Range    compound.Range
	Pixel    compound.Pixel
	Subpixel compound.Subpixel
	Zoom     compound.Zoom
	// Share is its part of the destination in destination pixels, cut
	// level by level as Equalizer does so that siblings tile exactly.
	Share compound.PixelViewport
}

// Queue is a tile equalizer's work for one frame: tiles of the compound's
// share (destination pixels), or database chunks. Sources pull from it.
type Queue struct {
	ID     string                   `json:"id"`
	Tiles  []compound.PixelViewport `json:"tiles,omitempty"`
	Ranges []compound.Range         `json:"ranges,omitempty"`
}

// Len is the number of items in the queue.
func (q *Queue) Len() int { return len(q.Tiles) + len(q.Ranges) }

// FramePlan is the plan of one frame.
type FramePlan struct {
	Frame     int
	Channels  []*ChannelPlan
	Compounds map[string]CompoundState
	Queues    []*Queue
	// Interval is the minimum time between frames the framerate equalizer
	// asks for (seconds; 0: none).
	Interval float64
	// Pace is the least time between the destinations showing one frame
	// and the next (seconds; 0: as they are done): the interval of the
	// framerate equalizers whose destination's pipe draws none of their
	// frames. A pipe that draws frames of its own in between cannot be
	// held to a pace: waiting to show one frame delays drawing the next.
	// A destination whose pipe drew every other frame showed them 60 and
	// 120 ms apart, at two thirds of the frames a second.
	Pace float64
	// Exchanges are the sort-last compounds whose sources exchange bands
	// this frame, and how.
	Exchanges []Exchanged
	// Showing are the windows the frame's layouts and view modes use:
	// those of the destinations they show and of these destinations'
	// sources, where an eye of theirs is drawn in the view's mode, whether
	// or not they draw this frame (a period skips frames), but for those
	// of channels down. A window that leaves it shows nothing from this
	// frame on.
	Showing []*compound.Window
	// Undrawn names the parts of the frame that no channel draws, or two
	// do: a load or tree equalizer whose children that draw cover less
	// (or more) than their compound. A correct plan has none; the frame
	// is shown as planned and called degraded, so that a planning fault
	// is never silent.
	Undrawn []string
}

// Planner plans frames for one config. Feed it statistics as frames
// finish, then Plan the next frame.
type Planner struct {
	cfg       *compound.Config
	loads     map[*compound.Compound]*equalizer.Load
	trees     map[*compound.Compound]bool
	views     map[*compound.Compound]*equalizer.View
	dfrs      map[*compound.Compound]*equalizer.DFR
	framerate map[*compound.Compound]*equalizer.Framerate
	usage     map[*compound.Compound]float64
	// latest is the statistics the plan reads: of frame latency+1 before
	// the one planned, or older; fed holds those that came sooner (see
	// Feed)
	latest *stats.Frame
	fed    []stats.Frame
	// history keeps each planned frame's compound states so statistics that
	// arrive late (latency) are read against the regions they measured.
	history map[int]map[string]CompoundState
	// down holds channels whose node died: their compounds leave the
	// frame and the equalizers share their work out.
	down map[*compound.Channel]bool
	// standIns are the channels that run the compounds of down channels
	// no equalizer shares out (findStandIns), for the frame being planned
	standIns map[*compound.Compound]*compound.Channel
	// drawnAside are the compounds that stand in for themselves
	// (compound.Compound.DrawsAside)
	drawnAside []*compound.Compound
	// interleaving are the destinations whose trees interleave their eyes
	// (compound.Compound.EyePixels): one clear serves all their eyes
	interleaving map[*compound.Compound]bool
	// asides hold the tasks stand-ins run for each lost channel in the
	// frame being planned: a plan of their own, so that they and the
	// stand-in's own tasks wait for each other's frames as two channels
	// would, each lost channel's past the last one's pixels (placeAsides).
	// A channel that is a source of two destinations has a stand-in in
	// each, and a plan in each.
	asides map[aside]*ChannelPlan
	seq    int // task sequence of the frame being planned
	// compounds is how many the config has (a frame's states, sized once)
	compounds int
	eyeViews  map[eyeKey]*eyeView
	// drawn keeps each drawing compound's multisampling
	// (Compound.DrawSamples, fixed by the config), asked for every frame
	drawn map[*compound.Compound]int
	// drawsEye keeps whether a compound's tree draws for an eye
	// (Compound.DrawsFor, fixed by the config), asked for every frame
	drawsEye map[eyeKey]bool
	// Changes are the heads, layouts, view modes and model units and the
	// window sizes the frames follow (scheduler.HeadSetter, LayoutSetter,
	// ViewModeSetter, ModelUnitSetter, WindowSizer)
	compound.Changes
	// frozen load equalizers keep the split they have (the application's
	// switch, from a frame on)
	freezes compound.FromFrame[bool]
	frozen  bool
	// sortLast holds each compound's sources that may exchange bands
	// (compound.SortLastSources), firstSends what each of them sends in
	// the first round of this frame and eye.
	sortLast   map[*compound.Compound][]*compound.Compound
	firstSends map[*compound.Compound][]Output
	// Rates are the costs the compositing strategy is chosen by where the
	// config leaves it to goeq (compositing AUTO); chosen holds the last
	// choice for each compound.
	Rates  compositing.Rates
	chosen map[*compound.Compound]compositing.Strategy
	// Overhead is the planning and interaction cost the live server
	// measures (seconds per frame); the adaptive policy sets its
	// balancing period from it.
	Overhead float64
	// unchanging configs plan the same frame every frame until the planner
	// is told of a change: no equalizer, period or sort-last exchange
	// reads the frame number or the statistics. A wall of hundreds of
	// displays is one, and planning its tasks again each frame was a
	// third of the server loop's time. last is the plan that still holds.
	unchanging bool
	last       *FramePlan
}

// New prepares a planner with a state machine per equalizer of cfg.
func New(cfg *compound.Config) *Planner {
	p := &Planner{cfg: cfg, loads: map[*compound.Compound]*equalizer.Load{}, trees: map[*compound.Compound]bool{},
		views: map[*compound.Compound]*equalizer.View{}, dfrs: map[*compound.Compound]*equalizer.DFR{},
		framerate: map[*compound.Compound]*equalizer.Framerate{}, usage: map[*compound.Compound]float64{},
		history: map[int]map[string]CompoundState{}, down: map[*compound.Channel]bool{}, standIns: map[*compound.Compound]*compound.Channel{}, asides: map[aside]*ChannelPlan{},
		firstSends: map[*compound.Compound][]Output{}, Rates: compositing.DefaultRates,
		chosen: map[*compound.Compound]compositing.Strategy{}, eyeViews: map[eyeKey]*eyeView{}, drawn: map[*compound.Compound]int{}, drawsEye: map[eyeKey]bool{},
		interleaving: map[*compound.Compound]bool{}}
	p.sortLast = cfg.SortLast()
	p.unchanging = len(p.sortLast) == 0
	cfg.Walk(func(c *compound.Compound) {
		p.compounds++
		if c.DrawsAside {
			p.drawnAside = append(p.drawnAside, c)
		}
		if c.Destination() == c && c.EyePixels() != nil {
			p.interleaving[c] = true
		}
		if len(c.Equalizers) > 0 || c.Period != 1 {
			p.unchanging = false
		}
		for _, eq := range c.Equalizers {
			switch eq.Kind {
			case compound.LoadEqualizer, compound.TreeEqualizer:
				w, h := p.loadSize(c)
				p.loads[c] = equalizer.NewLoad(*eq, w, h)
				p.trees[c] = eq.Kind == compound.TreeEqualizer
			case compound.ViewEqualizer:
				p.views[c] = equalizer.NewView(0.5)
			case compound.DFREqualizer:
				p.dfrs[c] = equalizer.NewDFR(*eq)
			case compound.FramerateEqualizer:
				p.framerate[c] = &equalizer.Framerate{Damping: 0.5}
			}
		}
	})
	return p
}

// SetBalanceFrozen freezes the load equalizers from frame on, or lets
// them balance again (scheduler.BalanceFreezer).
func (p *Planner) SetBalanceFrozen(frame int, frozen bool) { p.freezes.Set(frame, frozen) }

// SetBalancing changes how a view's compounds are balanced from frame on
// (scheduler.BalancingSetter).
func (p *Planner) SetBalancing(frame int, v *compound.View, ch compound.BalancingChange) {
	p.Changes.SetBalancing(frame, p.cfg, v, ch)
}

// followBalancing gives the equalizers the parameters the model has now,
// which an application may have changed (SetBalancing).
func (p *Planner) followBalancing() {
	for c, l := range p.loads {
		for _, eq := range c.Equalizers {
			if eq.Kind.Splits() {
				l.SetParams(*eq)
			}
		}
	}
	for c, d := range p.dfrs {
		for _, eq := range c.Equalizers {
			if eq.Kind == compound.DFREqualizer {
				d.Damping, d.Framerate = eq.Damping, eq.Framerate
			}
		}
	}
}

// frozenSplit reports whether c's load equalizer keeps its split: all
// are frozen, or those of c's view.
func (p *Planner) frozenSplit(c *compound.Compound) bool {
	if p.frozen {
		return true
	}
	v := compound.ViewOf(c)
	return v != nil && v.BalanceFrozen
}

// Planned returns the compound states planned for a recent frame (nil
// when it is too old).
func (p *Planner) Planned(frame int) map[string]CompoundState { return p.history[frame] }

// loadSize is a load-balanced compound's size in pixels now, which its
// boundary is counted in.
func (p *Planner) loadSize(c *compound.Compound) (w, h int) {
	if c.Channel == nil {
		return 1, 1
	}
	pvp := p.Sizes.Channel(c.Channel).Apply(c.Viewport)
	return pvp.W, pvp.H
}

// Config returns the planned config.
func (p *Planner) Config() *compound.Config { return p.cfg }

// Load returns the load or tree equalizer attached to c, if any.
func (p *Planner) Load(c *compound.Compound) *equalizer.Load { return p.loads[c] }

// BalanceState is what the adaptive policy of one load-balanced compound
// chose from what it measured, for the statistics file and reports.
type BalanceState struct {
	Compound   string  `json:"compound"`
	Period     int     `json:"period"`      // frames between moves
	Grain      int     `json:"grain"`       // 2D boundary in pixels (0: not chosen)
	Noise      float64 `json:"noise"`       // measured relative timer noise
	OverheadMs float64 `json:"overhead_ms"` // measured planning and interaction per frame
	Decision   string  `json:"decision"`
}

// Balance returns the adaptive policies' state, by compound path.
func (p *Planner) Balance() []BalanceState {
	var out []BalanceState
	p.cfg.Walk(func(c *compound.Compound) {
		if l := p.loads[c]; l != nil && l.Adaptive != nil {
			a := l.Adaptive
			out = append(out, BalanceState{Compound: c.Path(), Period: a.Period, Grain: a.Grain, Noise: a.Noise(),
				OverheadMs: 1000 * p.Overhead, Decision: a.LastDecision})
		}
	})
	return out
}

// SetChannelDown takes a channel out of (or back into) the frames: the
// equalizers redistribute its compounds' work, and where none does (a
// static decomposition) its destination's channel draws it instead.
func (p *Planner) SetChannelDown(ch *compound.Channel, down bool) {
	p.last = nil
	if down {
		p.down[ch] = true
	} else {
		delete(p.down, ch)
	}
}

// DownChannels are the IDs of the channels out of the frames
// (SetChannelDown), sorted; nil when none is. A statistics file gives
// them with each frame planned without them, so that its replay plans
// without them too.
func (p *Planner) DownChannels() []string {
	if len(p.down) == 0 {
		return nil
	}
	ids := make([]string, 0, len(p.down))
	for ch := range p.down {
		ids = append(ids, ch.ID)
	}
	slices.Sort(ids)
	return ids
}

// Feed delivers the statistics of a finished frame. Only the newest frame
// a plan may read is used: each load equalizer balances on its last
// measurement. A plan of frame f reads frame f-latency-1's statistics (or
// older ones), even where a later frame has finished too: the scheduler
// starts f only once that frame has finished, and frames that finish
// sooner than that (a destination that writes its images beside its
// pipe reports two frames at once) would otherwise make the plan depend
// on when the messages came, and a recorded run could not be replayed.
func (p *Planner) Feed(f stats.Frame) {
	if p.latest != nil && f.Frame <= p.latest.Frame {
		return
	}
	i := len(p.fed)
	for i > 0 && p.fed[i-1].Frame >= f.Frame {
		i--
	}
	if i < len(p.fed) && p.fed[i].Frame == f.Frame {
		return
	}
	p.fed = slices.Insert(p.fed, i, f)
	if len(p.fed) > maxFed {
		p.fed = slices.Delete(p.fed, 0, len(p.fed)-maxFed)
	}
}

// maxFed bounds the statistics held for later plans.
const maxFed = 64

// read makes latest the newest statistics a plan of frame may read.
func (p *Planner) read(frame int) {
	i := 0
	for i < len(p.fed) && p.fed[i].Frame <= frame-p.cfg.Latency-1 {
		i++
	}
	if i > 0 {
		f := p.fed[i-1]
		p.latest = &f
		p.fed = slices.Delete(p.fed, 0, i)
	}
}

// Plan computes the plan for frame.
func (p *Planner) Plan(frame int) *FramePlan {
	p.read(frame)
	changed := p.Changes.Advance(frame)
	if changed {
		p.followBalancing()
	}
	p.freezes.Advance(frame, func(f bool) { p.frozen = f })
	if p.last != nil && !changed {
		plan := *p.last // its channels and states are only read from here on
		plan.Frame = frame
		p.keep(&plan)
		return &plan
	}
	plan := &FramePlan{Frame: frame, Compounds: make(map[string]CompoundState, p.compounds)}
	states := plan.Compounds
	for c, l := range p.loads {
		l.Resize(p.loadSize(c))
	}
	// 1. base state: active by period/phase and the destination's layout
	// and eyes, local values as configured
	p.findStandIns()
	p.cfg.Walk(func(c *compound.Compound) {
		eyes := 0
		dest := c.Destination()
		if dest != nil && dest.Channel.Showing() {
			eyes = c.Eyes & dest.DestinationEyes()
		} else if dest == nil {
			eyes = c.Eyes
		}
		if c.Parent != nil && c.Parent.Destination() == dest {
			// an eye its parent does not draw is not drawn below it (its
			// tasks are not planned), so nothing waits for it either: a
			// destination waited for ever for a frame of eye [ RIGHT ]
			// under eye [ LEFT ]
			eyes &= states[c.Parent.Path()].Eyes
		}
		active := c.IsActive(frame) && (!p.down[c.Channel] || p.standIns[c] != nil) && eyes != 0
		states[c.Path()] = CompoundState{Active: active, Eyes: eyes, Local: c.Local}
	})
	// 2. equalizers, top-down so that inner ones see their share
	p.cfg.Walk(func(c *compound.Compound) {
		p.runEqualizers(c, frame, states, plan)
	})
	plan.Undrawn = p.uncoveredSplits(states)
	// 3. compose locals into destination-relative values
	for _, root := range p.cfg.Compounds {
		compose(root, nil, states, &p.Sizes)
	}
	p.keep(plan)
	// 4. tile queues, then tasks, eye by eye as Equalizer runs them
	p.cfg.Walk(func(c *compound.Compound) {
		for _, eye := range compound.Eyes {
			if q := queueFor(c, eye, states); q != nil {
				plan.Queues = append(plan.Queues, q)
			}
		}
	})
	byChannel := make(map[*compound.Channel]*ChannelPlan, len(p.cfg.Channels))
	p.seq = 0
	clear(p.asides)
	clear(p.firstSends)
	p.cfg.Walk(func(c *compound.Compound) {
		if c.Channel != nil && c.Destination() == c {
			for _, eye := range compound.Eyes {
				p.emit(c, eye, states, byChannel, plan)
			}
		}
	})
	p.placeAsides(plan)
	plan.Showing = p.showing(states)
	if p.unchanging {
		p.last = plan
	}
	return plan
}

// showing lists the windows the layouts and view modes use now
// (FramePlan.Showing), in the config's order: a passive stereo wall's
// right-eye projector is not used in mono. A down channel's window is
// not there to use, or to blank: its pipe could not be set up, or its
// node is lost.
func (p *Planner) showing(states map[string]CompoundState) []*compound.Window {
	var out []*compound.Window
	listed := map[*compound.Window]bool{}
	p.cfg.Walk(func(c *compound.Compound) {
		dest := c.Destination()
		if c.Channel == nil || dest == nil || !dest.Channel.Showing() || states[c.Path()].Eyes == 0 || listed[c.Channel.Window] || p.down[c.Channel] {
			return
		}
		listed[c.Channel.Window] = true
		out = append(out, c.Channel.Window)
	})
	return out
}

// keep records a planned frame's states for the statistics that arrive
// later.
func (p *Planner) keep(plan *FramePlan) {
	p.history[plan.Frame] = plan.Compounds
	delete(p.history, plan.Frame-64)
}

// uncoveredSplits names the compounds whose load or tree equalizer left
// part of them to no child, or to two: the children that draw cover less
// (or more) than the whole viewport (2D) or range (DB). None does in a
// correct plan; sorted by compound.
func (p *Planner) uncoveredSplits(states map[string]CompoundState) []string {
	var out []string
	for c := range p.loads {
		st := states[c.Path()]
		if !st.Active || st.Skip {
			continue
		}
		db := p.loads[c].Params.Mode == compound.SplitDB
		covered, drawing := 0.0, 0
		for _, child := range c.Children {
			s := states[child.Path()]
			if !s.Active || s.Skip {
				continue
			}
			drawing++
			if db {
				covered += s.Local.Range.End - s.Local.Range.Start
			} else {
				covered += s.Local.Viewport.W * s.Local.Viewport.H
			}
		}
		if drawing > 0 && math.Abs(covered-1) > 1e-6 {
			out = append(out, fmt.Sprintf("compound %s: its %d children that draw cover %.4f of it", c.Path(), drawing, covered))
		}
	}
	slices.Sort(out)
	return out
}

// findStandIns gives each compound of a down channel whose work no
// equalizer shares out (a static 2D, DB or time-multiplex part, or a
// direct send or binary swap written in the config) its destination's
// channel as a stand-in, so that the part is still drawn: by the node
// that shows it, in the compound's own way (its readback, assembly and
// output frames too), past its window's own pixels and in an order of its
// own (ChannelPlan.Aside). Where an equalizer's children are all down,
// there is no one to share the work out to: one of them (heir) gets the
// stand-in, and the equalizer gives it all. A compound that draws aside
// (a part of a pixel, subpixel or zoom decomposition its destination's
// channel draws itself) stands in for itself so.
func (p *Planner) findStandIns() {
	clear(p.standIns)
	for _, c := range p.drawnAside {
		if !p.down[c.Channel] {
			p.standIns[c] = c.Channel
		}
	}
	if len(p.down) == 0 {
		return
	}
	p.cfg.Walk(func(c *compound.Compound) { // parents first
		if c.Channel == nil || !p.down[c.Channel] {
			return
		}
		parent := c.Parent
		if parent != nil && parent.Channel == c.Channel {
			if in := p.standIns[parent]; in != nil {
				p.standIns[c] = in
			}
			return
		}
		dest := c.Destination()
		if dest == nil || dest == c || p.down[dest.Channel] || parent == nil {
			return // there is no one to draw it
		}
		if (p.loads[parent] != nil || p.views[parent] != nil || tileEqualizer(parent) != nil) &&
			(c != p.heir(parent) || p.anyLiveDraws(parent)) {
			return // its equalizer shares the work out
		}
		p.standIns[c] = dest.Channel
	})
}

// anyLiveDraws says whether a child of an equalized compound runs on a
// channel that is up and draws for an eye its destination shows: one
// that draws nothing there (an eye decomposition in a mono view) gets no
// share from the equalizer, and cannot take the lost children's over.
func (p *Planner) anyLiveDraws(equalized *compound.Compound) bool {
	shown := shownEyes(equalized)
	return slices.ContainsFunc(equalized.Children, func(c *compound.Compound) bool {
		return c.Channel != nil && !p.down[c.Channel] && p.drawsShown(c, shown)
	})
}

// heir is the compound among an equalizer's lost children that takes the
// whole part: the first that draws for an eye its destination shows (an
// eye decomposition in a mono view draws nothing, and the part stayed
// empty) and renders at full resolution (a zoomed one would draw all of
// it coarser); failing that, the first that draws, or else the first.
func (p *Planner) heir(equalized *compound.Compound) *compound.Compound {
	cs, shown := equalized.Children, shownEyes(equalized)
	draws := func(c *compound.Compound) bool { return p.drawsShown(c, shown) }
	if i := slices.IndexFunc(cs, func(c *compound.Compound) bool { return draws(c) && !c.Zoom.Scales() }); i >= 0 {
		return cs[i]
	}
	if i := slices.IndexFunc(cs, draws); i >= 0 {
		return cs[i]
	}
	return cs[0]
}

// shownEyes are the eyes c's destination shows (every eye where it has
// none).
func shownEyes(c *compound.Compound) int {
	if dest := c.Destination(); dest != nil {
		return dest.DestinationEyes()
	}
	return compound.EyesAll
}

// drawsShown says whether c draws for one of the eyes shown.
func (p *Planner) drawsShown(c *compound.Compound, shown int) bool {
	return slices.ContainsFunc(compound.Eyes[:], func(eye int) bool { return shown&eye != 0 && p.drawsFor(c, eye) })
}

// asideFor is the stand-in in's plan for the lost channel's compounds
// (placed by placeAsides once they are all planned).
func (p *Planner) asideFor(lost, in *compound.Channel, plan *FramePlan) *ChannelPlan {
	key := aside{lost, in}
	if a := p.asides[key]; a != nil {
		return a
	}
	a := &ChannelPlan{Channel: in, Viewport: p.Sizes.Channel(in), WindowSize: p.Sizes.Window(in.Window), View: p.cfg.ViewIndex(in), Aside: true}
	p.asides[key] = a
	plan.Channels = append(plan.Channels, a)
	return a
}

// aside is a lost channel's stand-in.
type aside struct{ lost, in *compound.Channel }

// placeAsides moves each stand-in plan's regions into a band of their own
// past its window's own pixels, past what the window's other plans render
// there (a zoomed share renders offscreen at full size, past the window's
// pixels too) and past the bands placed in that window already (of the
// lost channels its channel stands in for, or of another channel of the
// window), so that the pixels of each stay as they are (the window's
// target grows to fit). A band is as large as what its tasks render;
// bands go on in rows below once a row would pass the framebuffer limit:
// a 4K window standing in for four lost channels in a row would need
// 19200 pixels.
func (p *Planner) placeAsides(plan *FramePlan) {
	type cursor struct{ x, y, rowH int }
	// one cursor a window: its channels share its framebuffer (a band of
	// each, placed from its own cursor, lay where the other's did)
	cursors := map[*compound.Window]*cursor{}
	cursorOf := func(a *ChannelPlan) *cursor {
		c := cursors[a.Channel.Window]
		if c == nil {
			c = &cursor{x: a.WindowSize.W, rowH: a.WindowSize.H}
			cursors[a.Channel.Window] = c
		}
		return c
	}
	// extent is how far a plan's tasks reach from its channel's corner
	extent := func(a *ChannelPlan) (w, h int) {
		w, h = 1, 1
		for _, t := range a.Tasks {
			w, h = max(w, t.Region.X+t.Region.W), max(h, t.Region.Y+t.Region.H)
		}
		return w, h
	}
	for _, a := range plan.Channels {
		if a.Aside {
			continue
		}
		c := cursorOf(a)
		w, h := extent(a)
		c.x, c.rowH = max(c.x, a.Viewport.X+w), max(c.rowH, a.Viewport.Y+h)
	}
	for _, a := range plan.Channels {
		if !a.Aside {
			continue
		}
		w, h := extent(a)
		c := cursorOf(a)
		if c.x > 0 && c.x+w > compound.MaxFramebuffer {
			c.x, c.y, c.rowH = 0, c.y+c.rowH, 0
		}
		dx, dy := c.x-a.Viewport.X, c.y-a.Viewport.Y
		c.x += w
		c.rowH = max(c.rowH, h)
		for i := range a.Tasks {
			t := &a.Tasks[i]
			t.Region.X += dx
			t.Region.Y += dy
			t.Inputs = slices.Clone(t.Inputs)
			for j, in := range t.Inputs {
				if in.Place != nil {
					pl := *in.Place
					pl.X += dx
					pl.Y += dy
					t.Inputs[j].Place = &pl
				}
			}
		}
	}
}

// channelOf is the channel that runs c's tasks: its own, or its stand-in
// while its own is down.
func (p *Planner) channelOf(c *compound.Compound) *compound.Channel {
	if in := p.standIns[c]; in != nil {
		return in
	}
	return c.Channel
}

// compose makes a compound's values destination-relative: viewport, range,
// pixel, subpixel and zoom compose with its parent's, and its share of the
// destination's pixels is cut from its parent's share (Equalizer rounds
// level by level, which keeps siblings tiling their parent exactly).
func compose(c *compound.Compound, parent *CompoundState, states map[string]CompoundState, sizes *compound.WindowSizes) {
	s := states[c.Path()]
	if parent == nil || parent.Share.W == 0 && c.Channel != nil && c.Destination() == c {
		s.Viewport, s.Range, s.Pixel, s.Subpixel, s.Zoom = s.Local.Viewport, s.Local.Range, s.Local.Pixel, s.Local.Subpixel, s.Local.Zoom
		if c.Channel != nil {
			pvp := sizes.Channel(c.Channel)
			s.Share = compound.PixelViewport{W: pvp.W, H: pvp.H}.Apply(s.Local.Viewport)
		}
		if parent != nil {
			s.Active = s.Active && parent.Active
		}
	} else {
		local := s.Local
		s.Zoom = compound.Zoom{X: parent.Zoom.X * s.Local.Zoom.X, Y: parent.Zoom.Y * s.Local.Zoom.Y}
		if eq := tileEqualizer(c); eq != nil && eq.ChunkDB == 0 {
			// its sources' tiles come at full size: its own zoom has no
			// effect either (check warns), or it assembled them scaled
			s.Zoom = parent.Zoom
		}
		if eq := tileEqualizer(c.Parent); eq != nil {
			// a tile carries its place, frustum and range: a source
			// draws the tiles it takes of its parent, whatever part a
			// viewport or a load equalizer gives it (as in Equalizer)
			local.Viewport, local.Range = compound.FullViewport, compound.FullRange
			if eq.ChunkDB == 0 {
				// and at full size whatever its zoom, each at its place
				// in the region, which the clear then covers
				s.Zoom = compound.Zoom{X: 1, Y: 1}
			}
		}
		s.Viewport = parent.Viewport.Apply(local.Viewport)
		s.Range = parent.Range.Apply(local.Range)
		s.Share = parent.Share.Apply(local.Viewport)
		s.Pixel = rebase(parent.Pixel, s.Share.X-parent.Share.X, s.Share.Y-parent.Share.Y).Apply(s.Local.Pixel)
		s.Subpixel = parent.Subpixel.Apply(s.Local.Subpixel)
		s.Active = s.Active && parent.Active
		s.Skip = s.Skip || parent.Skip && c.Channel == nil
	}
	if s.Share.W <= 0 || s.Share.H <= 0 || s.Range.End <= s.Range.Start {
		// Equalizer: no pixels or no data, no tasks
		s.Skip = true
	}
	states[c.Path()] = s
	for _, ch := range c.Children {
		compose(ch, &s, states, sizes)
	}
}

// rebase is a pixel decomposition seen from a share that starts dx, dy
// pixels further on: its first pixel there is the next one of the same
// columns and rows of the destination. A part of a pixel compound's share
// (a viewport under it) then draws its sibling sources' columns, not
// those next to them: at an odd start it drew every other column its
// sibling drew, and left the rest of its part empty.
func rebase(px compound.Pixel, dx, dy int) compound.Pixel {
	if px.W > 1 {
		px.X = ((px.X-dx)%px.W + px.W) % px.W
	}
	if px.H > 1 {
		px.Y = ((px.Y-dy)%px.H + px.H) % px.H
	}
	return px
}

// keepSplit gives a frozen load equalizer's children the split they had
// in the frame before, as Equalizer's frozen load equalizer keeps its
// tree. It reports false, and keeps nothing, when that frame is not known
// or a child joined or left since: then the work is shared out again.
func (p *Planner) keepSplit(c *compound.Compound, frame int, states map[string]CompoundState) bool {
	prev := p.history[frame-1]
	if prev == nil {
		return false
	}
	for _, ch := range c.Children {
		if prev[ch.Path()].Active != states[ch.Path()].Active {
			return false
		}
	}
	for _, ch := range c.Children {
		s := states[ch.Path()]
		was := prev[ch.Path()]
		s.Skip, s.Local.Viewport, s.Local.Range = was.Skip, was.Local.Viewport, was.Local.Range
		states[ch.Path()] = s
	}
	return true
}

// samples collects, from the newest statistics, each child's busy and
// assembly time with the local region it had in that frame.
func (p *Planner) samples(c *compound.Compound) []equalizer.Sample {
	if p.latest == nil {
		return nil
	}
	then := p.history[p.latest.Frame]
	var out []equalizer.Sample
	for _, child := range c.Children {
		var busy, assemble float64
		var finished time.Time
		found, renderer := false, ""
		for _, r := range p.latest.Records {
			if r.Compound == child.Path() || isBelow(r.Compound, child.Path()) {
				if !found {
					renderer = r.Renderer
				} else if r.Renderer != renderer {
					renderer = "" // drawn by several: it shares no one renderer
				}
				// the grid wants rendering work: assembly comes off the
				// destination's share separately, data loading is one-off
				busy += (r.Times.Busy() - r.Times.Assemble - r.Times.DataLoad).Seconds()
				assemble += r.Times.Assemble.Seconds()
				if r.Finished.After(finished) {
					finished = r.Finished
				}
				found = true
			}
		}
		if !found {
			continue
		}
		st, ok := then[child.Path()]
		if !ok || !st.Active || st.Skip {
			continue
		}
		out = append(out, equalizer.Sample{Path: child.Path(), Frame: p.latest.Frame, Viewport: st.Local.Viewport,
			Range: st.Local.Range, Busy: busy, Assemble: assemble, Renderer: renderer,
			Started: p.latest.Started, Completed: p.latest.Completed, Finished: finished})
	}
	return out
}

func isBelow(path, ancestor string) bool {
	return len(path) > len(ancestor) && path[:len(ancestor)] == ancestor && path[len(ancestor)] == '.'
}

func leaves(c *compound.Compound) int {
	if c.IsLeaf() {
		return 1
	}
	n := 0
	for _, ch := range c.Children {
		n += leaves(ch)
	}
	return n
}

func (p *Planner) runEqualizers(c *compound.Compound, frame int, states map[string]CompoundState, plan *FramePlan) {
	if l := p.loads[c]; l != nil && len(c.Children) > 0 && !(p.frozenSplit(c) && p.keepSplit(c, frame, states)) {
		var children []equalizer.Child
		for _, ch := range c.Children {
			u := 1.0
			if v, ok := p.usage[ch]; ok {
				u = v
			}
			if p.trees[c] {
				u *= float64(leaves(ch))
			}
			// a child with nothing to draw for the eyes shown (an eye
			// decomposition in a mono view) gets no part of the split,
			// which would stay empty
			children = append(children, equalizer.Child{Path: ch.Path(), Active: states[ch.Path()].Active && states[c.Path()].Active && servesNow(c, ch, states),
				Usage: u, Destination: ch.Channel == c.Channel})
		}
		samples := p.samples(c)
		if l.Adaptive != nil {
			p.observeAdaptive(l, samples)
			if len(samples) > 0 {
				l.Adaptive.ObserveLag(frame - samples[0].Frame)
			}
		}
		for _, a := range l.Plan(children, samples) {
			s := states[a.Path]
			s.Skip = a.Skip
			if l.Params.Mode == compound.SplitDB {
				s.Local.Range = a.Range
			} else {
				s.Local.Viewport = a.Viewport
			}
			states[a.Path] = s
		}
	}
	if tileEqualizer(c) != nil {
		// a child with nothing to draw for the eyes shown pulls no tiles:
		// its frame, which no tile reached, was waited for until the
		// frame timed out
		for _, ch := range c.Children {
			if s := states[ch.Path()]; !servesNow(c, ch, states) {
				s.Skip = true
				states[ch.Path()] = s
			}
		}
	}
	if v := p.views[c]; v != nil && p.latest != nil {
		var loads []equalizer.ViewLoad
		sourcesOf := map[string][]*compound.Compound{}
		for _, view := range c.Children {
			vl := equalizer.ViewLoad{Path: view.Path()}
			view.Walk(func(x *compound.Compound) {
				if x.IsLeaf() && x.Channel != nil {
					vl.Sources = append(vl.Sources, sourceID(x.Channel))
					sourcesOf[view.Path()+"|"+sourceID(x.Channel)] = append(sourcesOf[view.Path()+"|"+sourceID(x.Channel)], x)
				}
			})
			for _, r := range p.latest.Records {
				if r.Compound == view.Path() || isBelow(r.Compound, view.Path()) {
					vl.Load += r.Times.Busy().Seconds()
				}
			}
			loads = append(loads, vl)
		}
		for view, per := range v.Plan(loads) {
			for src, u := range per {
				for _, x := range sourcesOf[view+"|"+src] {
					p.usage[x] = u
				}
			}
		}
	}
	if d := p.dfrs[c]; d != nil && p.latest != nil {
		worst := 0.0
		for _, r := range p.latest.Records {
			if r.Compound == c.Path() || isBelow(r.Compound, c.Path()) {
				worst = math.Max(worst, r.Times.Busy().Seconds())
			}
		}
		z := d.Update(worst)
		s := states[c.Path()]
		s.Local.Zoom = compound.Zoom{X: s.Local.Zoom.X * z, Y: s.Local.Zoom.Y * z}
		states[c.Path()] = s
	}
	if f := p.framerate[c]; f != nil && p.latest != nil {
		times, periods := make([]float64, len(c.Children)), make([]int, len(c.Children))
		for i, ch := range c.Children {
			for _, r := range p.latest.ByCompound(ch.Path()) {
				times[i] += r.Times.Busy().Seconds()
			}
			periods[i] = ch.Period
		}
		took := 0.0
		if !p.latest.Started.IsZero() && !p.latest.Completed.IsZero() {
			took = p.latest.Completed.Sub(p.latest.Started).Seconds()
		}
		interval := f.Update(times, periods, took)
		plan.Interval = math.Max(plan.Interval, interval)
		if !drawsOnItsPipe(c) {
			plan.Pace = math.Max(plan.Pace, interval)
		}
	}
}

// drawsOnItsPipe reports whether a compound below c draws on the pipe of
// c's channel.
func drawsOnItsPipe(c *compound.Compound) bool {
	draws := false
	if c.Channel != nil {
		c.Walk(func(x *compound.Compound) {
			draws = draws || x != c && x.Channel != nil && x.Channel.Window.Pipe == c.Channel.Window.Pipe && x.Tasks&compound.TaskDraw != 0
		})
	}
	return draws
}

// observeAdaptive feeds the adaptive policy what it chooses its period and
// grain from: planning overhead, frame time, per-task fixed cost and cost
// per pixel, and data-load times after moves.
func (p *Planner) observeAdaptive(l *equalizer.Load, samples []equalizer.Sample) {
	if p.latest == nil {
		return
	}
	frameTime, busy, draw, pixels, tasks, load, moved := 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0
	for _, r := range p.latest.Records {
		frameTime = math.Max(frameTime, r.Times.Busy().Seconds())
		busy += r.Times.Busy().Seconds()
		draw += r.Times.Draw.Seconds()
		pixels += r.Viewport.W * r.Viewport.H * float64(l.PixelW*l.PixelH)
		tasks++
		load += r.Times.DataLoad.Seconds()
		moved += r.DataMoved
	}
	l.Adaptive.ObserveOverhead(p.Overhead, frameTime)
	if tasks > 0 && pixels > 0 && l.Params.Mode != compound.SplitDB {
		// a split edge runs across a source's region: about the shorter
		// side of the compound over the number of sources along it
		span := math.Min(float64(l.PixelW), float64(l.PixelH)) / math.Sqrt(float64(tasks))
		l.Adaptive.ObserveGrain(busy/float64(tasks), draw/pixels, span)
	}
	if moved > 0 {
		l.Adaptive.ObserveMove(load, moved)
	}
}

// sourceID identifies the resource behind a channel: its pipe (GPU).
func sourceID(ch *compound.Channel) string {
	pipe := ch.Window.Pipe
	return pipe.Node.Name + "/" + pipe.Name + "/" + ch.Window.Name
}

// region is where a compound renders in its channel's framebuffer (see
// Task.Region): its share on the destination channel; on another, its
// place in its home's picture (compound.Compound.Home), which is at the
// channel's corner; a part drawn aside at the corner too (placeAsides
// moves it past the window's pixels). Pixel decomposition and zoom change
// the number of pixels rendered.
func region(c *compound.Compound, s CompoundState, states map[string]CompoundState) compound.PixelViewport {
	r := s.Share
	home := c.Home()
	switch dest := c.Destination(); {
	case c.DrawsAside || dest == nil:
		r.X, r.Y = 0, 0
	case home == dest:
		// in place on the destination's channel, the destination too
	case home == c:
		r.X, r.Y = 0, 0
	default:
		// a home under a pixel compound holds that compound's samples
		// alone: c's place among them
		hs := states[home.Path()]
		r.X = amongSamples(r.X-hs.Share.X, s.Pixel.X, hs.Pixel.X, hs.Pixel.W)
		r.Y = amongSamples(r.Y-hs.Share.Y, s.Pixel.Y, hs.Pixel.Y, hs.Pixel.H)
	}
	if g := gridZoom(c, s, states); g.Scales() {
		// the samples of its zoomed assembly's pixels, at its zoom
		// beyond that
		w, h := int(float64(r.W)*g.X+0.5), int(float64(r.H)*g.Y+0.5)
		r.W, r.H = RenderSize(w, h, s.Pixel, compound.Zoom{X: s.Zoom.X / g.X, Y: s.Zoom.Y / g.Y})
		return r
	}
	r.W, r.H = RenderSize(r.W, r.H, s.Pixel, s.Zoom)
	return r
}

// amongSamples is where a part d pixels into its home's share, its first
// sample at first there, lands among the home's samples (every step-th
// pixel from home's first); d itself where the home takes every pixel.
func amongSamples(d, first, homeFirst, step int) int {
	if step <= 1 {
		return d
	}
	return (d + first - homeFirst) / step
}

// RenderSize is the size of a render covering w x h destination pixels
// under a pixel decomposition and a zoom.
func RenderSize(w, h int, px compound.Pixel, z compound.Zoom) (int, int) {
	pw, ph := max(px.W, 1), max(px.H, 1)
	w, h = (w-px.X+pw-1)/pw, (h-px.Y+ph-1)/ph
	if z.X > 0 && z.X != 1 {
		w = max(1, int(float64(w)*z.X+0.5))
	}
	if z.Y > 0 && z.Y != 1 {
		h = max(1, int(float64(h)*z.Y+0.5))
	}
	return w, h
}

// colorMask is the anaglyph mask c's tasks for eye write under (0: every
// colour).
func colorMask(c *compound.Compound, eye int) ColorMask {
	return ParseColorMask(c.AnaglyphMask(eye))
}

// ParseColorMask reads a mask attribute such as "[ GREEN BLUE ]". A mask
// writes alpha too, as Equalizer's does: each eye's translucent image
// (a volume's) keeps its own opacity, for the parts of a database
// decomposition to blend by.
func ParseColorMask(v string) ColorMask {
	var m ColorMask
	for _, w := range strings.Fields(strings.Trim(v, "[] ")) {
		switch w {
		case "RED":
			m |= MaskRed
		case "GREEN":
			m |= MaskGreen
		case "BLUE":
			m |= MaskBlue
		}
	}
	if m == 0 {
		return 0
	}
	return m | MaskAlpha
}

// emit appends c's tasks for one eye and its subtree's to the channels, in
// the order they run: clear and draw on the way down, assemble and
// readback on the way up.
func (p *Planner) emit(c *compound.Compound, eye int, states map[string]CompoundState, byChannel map[*compound.Channel]*ChannelPlan, plan *FramePlan) {
	s := states[c.Path()]
	if !s.Active || s.Eyes&eye == 0 {
		return
	}
	if p.eyePartShownAs(c, eye, states) {
		// the compound holding its parent's picture (its destination, or
		// an assembly on a source's channel) draws it in place, as a
		// part of its own
		home := c.Parent.Home()
		cp := byChannel[home.Channel]
		if in := p.standIns[home]; in != nil {
			// the picture is drawn aside: by a stand-in for its lost
			// channel, or by its channel apart from its other work
			cp = p.asideFor(home.Channel, in, plan)
		}
		if cp != nil {
			t := p.numbered(p.task(c, eye, states), Draw)
			t.Home, t.Region = home.Channel.Window == c.Destination().Channel.Window, s.Share
			if at := states[home.Path()].Share; home != c.Destination() {
				t.Region.X, t.Region.Y = t.Region.X-at.X, t.Region.Y-at.Y
			}
			t.Samples = p.drawSamples(home)
			cp.Tasks = append(cp.Tasks, t)
		}
		return
	}
	var cp *ChannelPlan
	if in := p.standIns[c]; in != nil {
		cp = p.asideFor(c.Channel, in, plan)
	} else if c.Channel != nil {
		cp = byChannel[c.Channel]
		if cp == nil {
			// room for a source's clear, draw and readback, and one
			// more: the list grew for nearly every source each frame
			cp = &ChannelPlan{Channel: c.Channel, Tasks: make([]Task, 0, 4), Viewport: p.Sizes.Channel(c.Channel),
				WindowSize: p.Sizes.Window(c.Channel.Window), View: p.cfg.ViewIndex(c.Channel)}
			byChannel[c.Channel] = cp
			plan.Channels = append(plan.Channels, cp)
		}
		cp.Destination = cp.Destination || c.Destination() == c
	}
	// c's tasks for this eye differ only in kind and order: the eye's
	// frustum is worked out once (base stays on the stack: a task is 720
	// bytes, and a wall plans hundreds a frame)
	var base Task
	based := false
	task := func(kind Kind) Task {
		if !based {
			base, based = p.task(c, eye, states), true
		}
		return p.numbered(base, kind)
	}
	renders := cp != nil && !s.Skip
	queue := queueOf(c, eye)
	if renders {
		if c.Tasks&compound.TaskClear != 0 && !p.clearedForEarlierEye(c, eye, s) {
			cp.Tasks = append(cp.Tasks, task(Clear))
		}
		if c.Tasks&compound.TaskDraw != 0 && c.IsLeaf() {
			t := task(Draw)
			t.Samples = p.drawSamples(c)
			if queue != "" {
				// tiles are read back and sent as they are drawn
				t.Queue = queue
				if c.Tasks&compound.TaskReadback != 0 {
					t.Outputs = p.outputs(c, states)
					t.Scratch = scratch(c, s, states)
				}
			}
			cp.Tasks = append(cp.Tasks, t)
		}
	}
	x := p.exchangeFor(c, eye, states)
	if x != nil {
		for i, src := range x.sources {
			p.firstSends[src] = x.sends(0, i)
		}
		plan.Exchanges = append(plan.Exchanges, Exchanged{Compound: c.Path(), Strategy: x.strategy, Sources: len(x.sources)})
	}
	for _, ch := range c.Children {
		p.emit(ch, eye, states, byChannel, plan)
	}
	if x != nil {
		p.rounds(x, states, byChannel)
	}
	if cp == nil {
		return
	}
	// a view switched to a mode its tree has no part for (an eye
	// decomposition shown mono) is drawn by its destination, where
	// Equalizer's would show nothing, and such a part that sends its
	// picture on by the compound that sends it
	unserved := !c.IsLeaf() && c.HoldsPicture() && (!p.drawsFor(c, eye) || !drawsNow(c, eye, states, map[*compound.Compound]bool{}))
	if (c.Tasks&compound.TaskDraw != 0 || unserved) && !c.IsLeaf() && renders {
		// an inner compound that draws does so before assembling
		t := task(Draw)
		t.Samples = p.drawSamples(c)
		cp.Tasks = append(cp.Tasks, t)
	}
	if c.Tasks&compound.TaskAssemble != 0 && len(c.InputFrames) > 0 && !(s.Skip && s.Share.W == 0) {
		t := task(Assemble)
		monitor := hasEqualizer(c, compound.MonitorEqualizer)
		if x != nil {
			t.Inputs = x.collected()
		}
		for _, f := range c.InputFrames {
			if x != nil && allIn(f.Producers, p.sortLast[c]) {
				continue // its band arrives merged
			}
			in := Input{Name: f.Name}
			for _, prod := range f.Producers {
				ps := states[prod.Path()]
				if ps.Active && !ps.Skip && ps.Eyes&eye != 0 && prod.Channel != nil && prod.Tasks&compound.TaskReadback != 0 {
					in.Producers = append(in.Producers, p.channelOf(prod).ID)
					in.Tiles = in.Tiles || queueOf(prod, eye) != ""
					in.Native = in.Native || prod.Destination() != c.Destination()
					in.Depth = in.Depth || sendsDepth(prod, f.Name)
					if monitor {
						in.Place = monitorPlace(t.Region, c, prod, ps)
					} else {
						in.Scale = landingScale(c, f, prod, eye, states)
					}
				}
			}
			if len(in.Producers) > 0 {
				sort.Strings(in.Producers)
				t.Inputs = append(t.Inputs, in)
			}
		}
		if len(t.Inputs) > 0 {
			cp.Tasks = append(cp.Tasks, t)
		}
	}
	sends, exchanging := p.firstSends[c]
	if (c.Tasks&compound.TaskReadback != 0 && len(c.OutputFrames) > 0 || exchanging) && renders && !(queue != "" && c.IsLeaf()) {
		t := task(Readback)
		t.Outputs = p.outputs(c, states)
		t.Scratch = scratch(c, s, states) && !exchanging // an exchange goes on from the image it holds
		if exchanging {
			t.Outputs = sends // its image goes to the exchange's first round
			t.Exchange = ExchangeFirst
			delete(p.firstSends, c)
		}
		cp.Tasks = append(cp.Tasks, t)
	}
}

// landingScale is how much larger than its share c lands prod's frame
// of input frame in: zero where at its share, as frames of a pixel or
// subpixel decomposition or a tile queue always land (check warns of
// their zoom).
func landingScale(c *compound.Compound, in *compound.Frame, prod *compound.Compound, eye int, states map[string]CompoundState) compound.Zoom {
	out := prod.OutputFrame(in.Name)
	ps, cs := states[prod.Path()], states[c.Path()]
	if out == nil || interleaves(ps) || interleaves(cs) || queueOf(prod, eye) != "" {
		return compound.Zoom{}
	}
	if z := compound.LandingScale(out, in, ps.Zoom, cs.Zoom); z != (compound.Zoom{X: 1, Y: 1}) {
		return z
	}
	return compound.Zoom{}
}

// gridZoom is the zoom of the pixels c's samples interleave on, where c
// is a part of a pixel decomposition whose assembly (its first output
// frame's first consumer) is zoomed, is no part of a pixel or subpixel
// decomposition itself, and sets that zoom on the pixels the kernel
// samples (compound.PixelGrid): the assembly's zoom. Zero otherwise
// (check warns where such an assembly's picture comes out wrong).
func gridZoom(c *compound.Compound, s CompoundState, states map[string]CompoundState) compound.Zoom {
	if s.Pixel.W <= 1 && s.Pixel.H <= 1 || len(c.OutputFrames) == 0 || len(c.OutputFrames[0].Consumers) == 0 {
		return compound.Zoom{}
	}
	cons := c.OutputFrames[0].Consumers[0]
	cs := states[cons.Path()]
	grid := compound.PixelGrid(c, cons)
	if !cs.Zoom.Scales() || interleaves(cs) || grid == nil || states[grid.Path()].Zoom != cs.Zoom {
		return compound.Zoom{}
	}
	return cs.Zoom
}

// interleaves reports whether a compound's samples spread over its
// share's pixels: a pixel or subpixel decomposition's.
func interleaves(s CompoundState) bool {
	return s.Pixel.W > 1 || s.Pixel.H > 1 || s.Subpixel.Size > 1
}

// sendsDepth reports whether c's output frame of that name carries depth.
func sendsDepth(c *compound.Compound, name string) bool {
	f := c.OutputFrame(name)
	return f != nil && f.Buffers&compound.BufferDepth != 0
}

// scratch says whether what c draws on its destination's own channel is
// not the destination's picture (Task.Scratch): drawn off its place (a
// pixel, subpixel or zoom part), or sent whole back in a frame to the
// destination, or to an assembly between them on the channel, which
// assembles it there; its clear erased what the destination drew in
// place before it (a channel on the destination's
// pixels is the destination's, compound.Config's sameAsDestination). A
// part that sends pieces of itself elsewhere and keeps the rest in place
// (a direct send's) is the destination's picture. The same holds on a
// source's channel for the picture an assembly there holds (Home), at
// that picture's zoom: a tile queue's sources under a zoomed assembly
// draw at full size (compose), over the assembly's smaller picture.
func scratch(c *compound.Compound, s CompoundState, states map[string]CompoundState) bool {
	home := c.Home()
	if c.Destination() == nil {
		return false
	}
	if home == c {
		// a part on a channel whose picture an assembly above holds (a
		// channel that assembles there and draws a part for another
		// channel's assembly below it) draws at the corner, over that
		// picture
		for a := c.Parent; a != nil; a = a.Parent {
			if a.Channel == c.Channel {
				return true
			}
		}
		return false
	}
	if home != c.Destination() && !home.HoldsPicture() {
		// a compound above on a source's channel that neither shows nor
		// sends a picture (it clears, as 4-window.EYE.PIXEL's right eye
		// does for its pixel parts): no picture there goes on, and the
		// window shows what the part drew, as Equalizer's does
		return false
	}
	if s.Pixel.W > 1 || s.Pixel.H > 1 || s.Subpixel.Size > 1 || s.Zoom != (compound.Zoom{X: 1, Y: 1}) || s.Zoom != states[home.Path()].Zoom {
		return true
	}
	// a frame to a compound that assembles into the same picture (home,
	// or an assembly between it and c on the channel) composites it there
	assemblesHere := func(x *compound.Compound) bool { return x == home || x.Channel == c.Channel && x.Home() == home }
	for _, f := range c.OutputFrames {
		if (f.Viewport == compound.FullViewport || !f.Viewport.HasArea()) && slices.ContainsFunc(f.Consumers, assemblesHere) {
			return true
		}
	}
	return false
}

// clearedForEarlierEye says whether c is a destination that interleaves
// its eyes and that an earlier eye of the frame cleared: Equalizer clears
// for each eye, which leaves only the last eye's pixels.
func (p *Planner) clearedForEarlierEye(c *compound.Compound, eye int, s CompoundState) bool {
	if !p.interleaving[c] {
		return false
	}
	for _, e := range compound.Eyes {
		if e == eye {
			return false
		}
		if s.Eyes&e != 0 {
			return true
		}
	}
	return false
}

// eyePartShownAs says whether c is a part of its destination's view with
// parts for other eyes only (an eye decomposition under a 2D or DB split),
// or for eyes its ancestors leave out, shown in eye: its place would stay
// empty, so the compound holding its parent's picture draws it (the
// destination, or an assembly on a source's channel: HoldsPicture).
// A part that draws into that picture one to one is drawn so; under a
// pixel, subpixel or zoom decomposition it stays empty, as in Equalizer.
// A part that holds a picture of its own, or holds one below it, draws
// it itself (unserved in emit): drawn for it, its frame was still awaited.
func (p *Planner) eyePartShownAs(c *compound.Compound, eye int, states map[string]CompoundState) bool {
	if !c.PartOfHeldPicture() || p.drawsFor(c, eye) || holdsPictureBelow(c) {
		return false
	}
	home := c.Parent.Home()
	s := states[c.Path()]
	if s.Skip || s.Share.W <= 0 || s.Share.H <= 0 || s.Pixel.W > 1 || s.Pixel.H > 1 || s.Subpixel.Size > 1 || s.Zoom != (compound.Zoom{X: 1, Y: 1}) {
		return false
	}
	// an eye decomposition: it draws other eyes, or only eyes that its
	// ancestors leave out (eye [ LEFT ] parts under an eye [ CYCLOP ]
	// compound), which it never draws
	other := false
	for _, e := range compound.Eyes {
		other = other || e != eye && p.drawsFor(c, e)
	}
	other = other || c.HasDraws()
	// where nothing of the view draws the eye the destination draws it
	// whole already (an assembly on a source's channel its share)
	return other && drawsNow(home, eye, states, map[*compound.Compound]bool{})
}

// holdsPictureBelow says whether a compound below c holds a picture of
// its own that it sends on (an assembly on a source's channel).
func holdsPictureBelow(c *compound.Compound) bool {
	held := false
	c.Walk(func(x *compound.Compound) { held = held || x != c && x.HoldsPicture() })
	return held
}

// servesNow says whether child draws in this frame for an eye its
// parent renders.
func servesNow(parent, child *compound.Compound, states map[string]CompoundState) bool {
	return slices.ContainsFunc(compound.Eyes[:], func(eye int) bool {
		return states[parent.Path()].Eyes&eye != 0 && drawsNow(child, eye, states, map[*compound.Compound]bool{})
	})
}

// drawsNow says whether c, or a compound whose frames it takes, draws for
// eye in this frame: DrawsFor, counting only compounds active in it (a
// time-multiplexed phase may be an eye decomposition alone).
func drawsNow(c *compound.Compound, eye int, states map[string]CompoundState, seen map[*compound.Compound]bool) bool {
	if seen[c] {
		return false
	}
	seen[c] = true
	s := states[c.Path()]
	if !s.Active || s.Eyes&eye == 0 {
		return false
	}
	if c.Tasks&compound.TaskDraw != 0 && c.Channel != nil {
		return true
	}
	for _, f := range c.InputFrames {
		for _, prod := range f.Producers {
			if drawsNow(prod, eye, states, seen) {
				return true
			}
		}
	}
	for _, ch := range c.Children {
		if drawsNow(ch, eye, states, seen) {
			return true
		}
	}
	return false
}

// drawsFor is c.DrawsFor(eye), worked out once per compound and eye.
func (p *Planner) drawsFor(c *compound.Compound, eye int) bool {
	k := eyeKey{c, eye}
	d, ok := p.drawsEye[k]
	if !ok {
		d = c.DrawsFor(eye)
		p.drawsEye[k] = d
	}
	return d
}

// drawSamples is c.DrawSamples(), worked out once per compound.
func (p *Planner) drawSamples(c *compound.Compound) int {
	n, ok := p.drawn[c]
	if !ok {
		n = c.DrawSamples()
		p.drawn[c] = n
	}
	return n
}

// numbered is t as the frame's next task, of a kind.
func (p *Planner) numbered(t Task, kind Kind) Task {
	p.seq++
	t.Kind, t.Seq = kind, p.seq
	return t
}

// task makes compound c's task for an eye, without its kind and order.
func (p *Planner) task(c *compound.Compound, eye int, states map[string]CompoundState) Task {
	s := states[c.Path()]
	t := Task{Home: c.Destination().Channel.Window == c.Channel.Window, Compound: c.Path(), Eye: eye, View: p.cfg.ViewIndex(c.Destination().Channel),
		Viewport: s.Viewport, Range: s.Range, Pixel: s.Pixel,
		Subpixel: s.Subpixel, Zoom: s.Zoom, Buffers: c.Buffers, Share: s.Share, Region: region(c, s, states),
		ColorMask: colorMask(c, eye), GridZoom: gridZoom(c, s, states)}
	if owner := c.WallOwner; owner != nil && c.Wall != nil {
		t.Area = states[owner.Path()].Share
		wall, eyePos := p.Changes.Wall(p.cfg, c, eye)
		cyclop := eyePos
		if eye != compound.EyeCyclop {
			_, cyclop = p.Changes.Wall(p.cfg, c, compound.EyeCyclop)
		}
		v := p.eyeViews[eyeKey{c, eye}]
		if v == nil || v.wall != wall || v.eye != eyePos || v.cyclop != cyclop {
			v = &eyeView{wall: wall, eye: eyePos, cyclop: cyclop, frustum: wall.EyeFrustum(eyePos, compound.DefaultNear, compound.DefaultFar),
				view: wall.ViewMatrix(eyePos), ortho: wall.OrthoFrustum(cyclop, compound.DefaultNear, compound.DefaultFar),
				orthoView: wall.OrthoViewMatrix(eyePos, cyclop)}
			p.eyeViews[eyeKey{c, eye}] = v
		}
		t.Frustum, t.ViewMatrix, t.Ortho, t.OrthoView = v.frustum, v.view, v.ortho, v.orthoView
	}
	return t
}

// eyeKey is a compound's eye; eyeView the frusta and view matrices
// (perspective and ortho) it had last, from that wall and eye and cyclop
// positions (they change when a tracked head moves, and were worked out
// again for every task of every frame).
type eyeKey struct {
	c   *compound.Compound
	eye int
}

type eyeView struct {
	wall      compound.Wall
	eye       compound.Vec3
	cyclop    compound.Vec3
	frustum   compound.Frustum
	view      [16]float64
	ortho     compound.Frustum
	orthoView [16]float64
}

// outputs lists c's output frames with their active consumers.
func (p *Planner) outputs(c *compound.Compound, states map[string]CompoundState) []Output {
	var outs []Output
	for _, f := range c.OutputFrames {
		out := Output{Name: f.Name, Viewport: f.Viewport, Buffers: f.Buffers, ROI: true}
		if !out.Viewport.HasArea() {
			out.Viewport = compound.FullViewport
		}
		for _, cons := range f.Consumers {
			if cs := states[cons.Path()]; cs.Active && cons.Channel != nil {
				out.Consumers = append(out.Consumers, p.channelOf(cons).ID)
				// a monitor scales the frame to its place: a cut of it
				// would land rounded to the monitor's pixels, off by up
				// to half of one
				out.ROI = out.ROI && clears(cons) && !hasEqualizer(cons, compound.MonitorEqualizer)
			}
		}
		if interleaves(states[c.Path()]) {
			out.ROI = false // interleaving and averaging need every sample
		} else if z := f.ReadScale(); z != (compound.Zoom{X: 1, Y: 1}) && scalable(c, out) {
			out.Scale = z // asked for: what consumers land it at follows
		} else {
			out.ReadW, out.ReadH = monitorReadSize(c, f, out, states)
			out.AtShare = out.ReadW == 0 && landsAtShare(c, f, out, states)
		}
		sort.Strings(out.Consumers)
		outs = append(outs, out)
	}
	return outs
}

// monitorReadSize is the size c's output frame f is read back at where
// it is scalable and each of its active consumers is a monitor showing
// it smaller than c renders it, all at one size: read at that size, it is
// what they show. 0, 0 otherwise: read as rendered.
func monitorReadSize(c *compound.Compound, f *compound.Frame, out Output, states map[string]CompoundState) (w, h int) {
	if !scalable(c, out) {
		return 0, 0
	}
	s := states[c.Path()]
	read := region(c, s, states).Apply(out.Viewport)
	for _, cons := range f.Consumers {
		cs := states[cons.Path()]
		if !cs.Active || cons.Channel == nil {
			continue
		}
		if !hasEqualizer(cons, compound.MonitorEqualizer) {
			return 0, 0
		}
		place := monitorPlace(region(cons, cs, states), cons, c, s)
		if w == 0 && h == 0 {
			w, h = place.W, place.H
		}
		if place.W != w || place.H != h {
			return 0, 0
		}
	}
	if w <= 0 || h <= 0 || w > read.W || h > read.H || w == read.W && h == read.H {
		return 0, 0
	}
	return w, h
}

// scalable reports whether c's output frame out can be scaled down
// before it travels: it goes to some consumer, and is no tile queue's
// (tiles travel one by one). Its colour is averaged down; one with depth
// keeps the sample nearest each pixel's centre of both, which is what a
// consumer's scaled depth merge takes of it.
func scalable(c *compound.Compound, out Output) bool {
	return len(out.Consumers) > 0 && (c.Parent == nil || tileEqualizer(c.Parent) == nil)
}

// landsAtShare reports whether c renders its output frame f zoomed up
// (a supersampling zoom above 1) and every active consumer lands it at
// the resolution of its share (one not zoomed itself, and no monitor),
// and it is scalable: it can travel at that resolution.
func landsAtShare(c *compound.Compound, f *compound.Frame, out Output, states map[string]CompoundState) bool {
	if z := states[c.Path()].Zoom; z.X < 1 || z.Y < 1 || z.X == 1 && z.Y == 1 || !scalable(c, out) {
		return false
	}
	for _, cons := range f.Consumers {
		cs := states[cons.Path()]
		if !cs.Active || cons.Channel == nil {
			continue
		}
		if hasEqualizer(cons, compound.MonitorEqualizer) || cs.Zoom.X != 1 || cs.Zoom.Y != 1 {
			return false
		}
	}
	return true
}

// clears reports whether a compound's region is cleared before it
// assembles: by its own clear task, or by an ancestor's on the same
// channel.
func clears(c *compound.Compound) bool {
	for x := c; x != nil && x.Channel == c.Channel; x = x.Parent {
		if x.Tasks&compound.TaskClear != 0 {
			return true
		}
	}
	return false
}

func hasEqualizer(c *compound.Compound, kind compound.EqualizerKind) bool {
	for _, eq := range c.Equalizers {
		if eq.Kind == kind {
			return true
		}
	}
	return false
}

// tileEqualizer returns the tile equalizer of c, if any.
func tileEqualizer(c *compound.Compound) *compound.Equalizer {
	for _, eq := range c.Equalizers {
		if eq.Kind == compound.TileEqualizer {
			return eq
		}
	}
	return nil
}

// queueOf names the tile queue a compound's draw for an eye pulls from:
// its parent's tile equalizer's for that eye, as Equalizer gives each
// child an input queue per eye (each eye's pass draws all of the tiles).
func queueOf(c *compound.Compound, eye int) string {
	if c.Parent == nil {
		return ""
	}
	if eq := tileEqualizer(c.Parent); eq != nil {
		return queueID(c.Parent, eq, eye)
	}
	return ""
}

func queueID(c *compound.Compound, eq *compound.Equalizer, eye int) string {
	return fmt.Sprintf("%s/%s/eye%d", c.Path(), eq.Name, eye)
}

// queueFor makes this frame's queue of a tile equalizer compound for an
// eye it renders: tiles of its share (destination pixels), or database
// chunks.
func queueFor(c *compound.Compound, eye int, states map[string]CompoundState) *Queue {
	eq := tileEqualizer(c)
	s := states[c.Path()]
	if eq == nil || !s.Active || s.Skip || s.Eyes&eye == 0 {
		return nil
	}
	q := &Queue{ID: queueID(c, eq, eye)}
	if eq.ChunkDB > 0 {
		for _, r := range equalizer.Chunks(eq.ChunkDB) {
			q.Ranges = append(q.Ranges, s.Range.Apply(r))
		}
		return q
	}
	// under a pixel decomposition a tile spans whole periods of it, so
	// that each starts on the decomposition's own column and row
	tw, th := eq.TileSize[0], eq.TileSize[1]
	if pw := s.Pixel.W; pw > 1 {
		tw = (tw + pw - 1) / pw * pw
	}
	if ph := s.Pixel.H; ph > 1 {
		th = (th + ph - 1) / ph * ph
	}
	// tiles made smaller at run time, or a window resized larger, past
	// what the config is refused for: larger tiles, whole periods still
	for tw >= 1 && th >= 1 && compound.TileCount(s.Share.W, s.Share.H, tw, th) > compound.MaxTiles {
		tw, th = 2*tw, 2*th
	}
	for _, t := range equalizer.Tiles(s.Share.W, s.Share.H, tw, th) {
		t.X += s.Share.X
		t.Y += s.Share.Y
		q.Tiles = append(q.Tiles, t)
	}
	return q
}

// monitorPlace is where the monitor equalizer puts a frame of another
// destination on the monitor channel: at its place on its canvas, within
// the part of the monitor's canvas the monitor shows (a view's, where the
// layout has several), scaled to the monitor's region. A monitor showing
// the whole of its canvas (Equalizer's case) takes the canvas as it is.
func monitorPlace(monitor compound.PixelViewport, c, prod *compound.Compound, ps CompoundState) *compound.PixelViewport {
	vp := ps.Viewport
	if dest := prod.Destination(); dest != nil {
		vp = dest.Channel.CanvasArea().Apply(ps.Viewport)
	}
	if dest := c.Destination(); dest != nil {
		vp = vp.RelativeTo(dest.Channel.CanvasArea())
	}
	place := equalizer.Monitor(monitor, []equalizer.MonitorInput{{Viewport: vp, PixelW: ps.Share.W, PixelH: ps.Share.H}})[0].PixelViewport
	return &place
}
