// Package compound resolves a parsed .eqc file into goeq's config model:
// the resource tree (nodes, pipes, windows, channels), the display
// description (observers, layouts, views, canvases, segments) and the
// compound tree with every inherited value made explicit, the way Equalizer
// resolves it. The result is plain data: the frame planner and equalizers
// read it without GL or network.
package compound

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// Viewport is a fractional rectangle: x, y, width, height in [0,1].
type Viewport struct{ X, Y, W, H float64 }

// FullViewport covers everything.
var FullViewport = Viewport{0, 0, 1, 1}

// Apply returns the sub-rectangle child of v (child is relative to v).
func (v Viewport) Apply(child Viewport) Viewport {
	return Viewport{v.X + child.X*v.W, v.Y + child.Y*v.H, v.W * child.W, v.H * child.H}
}

// Intersect returns the overlap of two viewports (zero size if none).
func (v Viewport) Intersect(o Viewport) Viewport {
	x0, y0 := max(v.X, o.X), max(v.Y, o.Y)
	x1, y1 := min(v.X+v.W, o.X+o.W), min(v.Y+v.H, o.Y+o.H)
	if x1 <= x0 || y1 <= y0 {
		return Viewport{}
	}
	return Viewport{x0, y0, x1 - x0, y1 - y0}
}

// RelativeTo expresses v in the coordinates of outer.
func (v Viewport) RelativeTo(outer Viewport) Viewport {
	return Viewport{(v.X - outer.X) / outer.W, (v.Y - outer.Y) / outer.H, v.W / outer.W, v.H / outer.H}
}

// HasArea reports whether the viewport covers anything.
func (v Viewport) HasArea() bool { return v.W > 0 && v.H > 0 }

// PixelViewport is a rectangle in pixels.
type PixelViewport struct{ X, Y, W, H int }

// Apply returns the pixels of the fractional sub-rectangle vp. Edges are
// rounded so that neighbouring viewports tile without gaps or overlap.
func (p PixelViewport) Apply(vp Viewport) PixelViewport {
	x0 := p.X + edge(vp.X*float64(p.W))
	y0 := p.Y + edge(vp.Y*float64(p.H))
	x1 := p.X + edge((vp.X+vp.W)*float64(p.W))
	y1 := p.Y + edge((vp.Y+vp.H)*float64(p.H))
	return PixelViewport{x0, y0, x1 - x0, y1 - y0}
}

// edge rounds a pixel edge to the nearest, a tie up. An edge that float
// arithmetic left a hair below a tie counts as the tie: one part's end,
// Y+H, and the next part's start, Y, reach the same edge by different
// sums (5/6 of 297 rows is 247.5 as 5/6, 247.49999999999997 as 4/6 +
// 1/6), and rounded apart they left row 247 to neither.
func edge(f float64) int { return int(math.Floor(f + 0.5 + 1e-7)) }

// Range is a fraction [Start, End) of the database (sort-last).
type Range struct{ Start, End float64 }

// FullRange is the whole database.
var FullRange = Range{0, 1}

// Apply returns the sub-range child of r.
func (r Range) Apply(child Range) Range {
	w := r.End - r.Start
	return Range{r.Start + child.Start*w, r.Start + child.End*w}
}

// covers reports whether r holds all of o.
func (r Range) covers(o Range) bool { return r.Start <= o.Start && r.End >= o.End }

// Pixel is a pixel decomposition: this source draws every W-th pixel
// starting at X horizontally and every H-th starting at Y vertically.
type Pixel struct{ X, Y, W, H int }

// Apply nests child inside p.
func (p Pixel) Apply(child Pixel) Pixel {
	return Pixel{p.X + child.X*p.W, p.Y + child.Y*p.H, p.W * child.W, p.H * child.H}
}

// Subpixel is a subpixel (anti-aliasing) decomposition: sample Index of Size.
type Subpixel struct{ Index, Size int }

// Apply nests child inside s.
func (s Subpixel) Apply(child Subpixel) Subpixel {
	return Subpixel{s.Index*child.Size + child.Index, s.Size * child.Size}
}

// MaxSubpixelWeight bounds the least common multiple of the sizes of
// subpixel samples on the same pixels: a sample of n weighs multiple/n,
// and the mean's sums of a channel, 255 × the multiple, fit 32 bits.
const MaxSubpixelWeight = 1 << 24

// SubpixelSpan is a run of samples of the least common multiple of some
// subpixel samples' sizes that the same of them cover.
type SubpixelSpan struct {
	Start, End int   // in samples of that multiple
	Covers     []int // indices of the samples that cover it; none for a run no sample draws
}

// SubpixelSpans cuts the samples of ss, weighed in samples of the least
// common multiple of their sizes, into spans that the same of them cover,
// in order: the multiple's samples of ss[i] are Index*m/Size to
// (Index+1)*m/Size. Samples of different sizes thus weigh what their own
// samples do (a sample of 2 as much as three of 6) without a list of the
// multiple's samples. ok is false where a size is below 1, an index is
// outside its size, or the multiple is over MaxSubpixelWeight.
func SubpixelSpans(ss []Subpixel) (spans []SubpixelSpan, multiple int, ok bool) {
	multiple = 1
	for _, s := range ss {
		if s.Size < 1 || s.Size > MaxSubpixelWeight || s.Index < 0 || s.Index >= s.Size {
			return nil, 0, false
		}
		if multiple = multiple / gcd(multiple, s.Size) * s.Size; multiple > MaxSubpixelWeight {
			return nil, 0, false
		}
	}
	cuts := []int{0, multiple}
	for _, s := range ss {
		per := multiple / s.Size
		cuts = append(cuts, s.Index*per, (s.Index+1)*per)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for k := 0; k+1 < len(cuts); k++ {
		span := SubpixelSpan{Start: cuts[k], End: cuts[k+1]}
		for i, s := range ss {
			if per := multiple / s.Size; s.Index*per <= span.Start && span.Start < (s.Index+1)*per {
				span.Covers = append(span.Covers, i)
			}
		}
		spans = append(spans, span)
	}
	return spans, multiple, true
}

// Zoom scales the rendered resolution.
type Zoom struct{ X, Y float64 }

// Scales reports whether z changes the resolution: it is set, and not
// [ 1 1 ].
func (z Zoom) Scales() bool { return z != (Zoom{1, 1}) && z != (Zoom{}) }

// Interleaves reports whether c's samples spread over its share's
// pixels: it is a part of a pixel or subpixel decomposition.
func (c *Compound) Interleaves() bool {
	return c.Pixel.W > 1 || c.Pixel.H > 1 || c.Subpixel.Size > 1
}

// OutputFrame is c's output frame of that name, or nil.
func (c *Compound) OutputFrame(name string) *Frame {
	for _, f := range c.OutputFrames {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// ReadScale is how much smaller than rendered an output frame is read
// back: its zoom where below 1 (Equalizer reads such frames scaled down;
// a zoom above 1 scales it up where it lands, LandingScale). {1, 1}
// where it is not read smaller.
func (f *Frame) ReadScale() Zoom {
	if !f.Zoom.Scales() {
		return Zoom{1, 1}
	}
	return Zoom{min(f.Zoom.X, 1), min(f.Zoom.Y, 1)}
}

// LandingScale is how much larger than its share, at the consumer's zoom,
// a frame lands: rendered by a compound at zoom from, and assembled by one
// at zoom to, from output frame out into input frame in. Equalizer lands a
// frame at its rendered size times out's zoom times in's; unset (or
// [ 1 1 ]), those are 1/from and to, which land it at its share. {1, 1}
// where they cancel out, as [ 0.5 0.5 ] out and [ 2 2 ] in do: a frame
// sent at half its resolution and shown at its size.
func LandingScale(out, in *Frame, from, to Zoom) Zoom {
	from, to = orOne(from), orOne(to)
	zo, zi := Zoom{1 / from.X, 1 / from.Y}, to
	if out.Zoom.Scales() {
		zo = out.Zoom
	}
	if in.Zoom.Scales() {
		zi = in.Zoom
	}
	near1 := func(v float64) float64 {
		if math.Abs(v-1) < 1e-9 {
			return 1
		}
		return v
	}
	return Zoom{near1(from.X * zo.X * zi.X / to.X), near1(from.Y * zo.Y * zi.Y / to.Y)}
}

func orOne(z Zoom) Zoom {
	if z.X <= 0 || z.Y <= 0 {
		return Zoom{1, 1}
	}
	return z
}

// Eye bits.
const (
	EyeCyclop = 1 << iota
	EyeLeft
	EyeRight
	EyesAll = EyeCyclop | EyeLeft | EyeRight
)

// Eyes lists the eyes in the order Equalizer renders them.
var Eyes = [...]int{EyeCyclop, EyeLeft, EyeRight}

// Task bits, in execution order.
const (
	TaskClear = 1 << iota
	TaskDraw
	TaskAssemble
	TaskReadback
	TasksAll = TaskClear | TaskDraw | TaskAssemble | TaskReadback
)

// Buffer bits.
const (
	BufferColor = 1 << iota
	BufferDepth
)

// Model is everything one .eqc file describes.
type Model struct {
	Version float64
	Global  map[string]string // EQ_* attributes in effect (file, then environment)
	Server  []Connection
	Configs []*Config
}

// Config is one configuration.
type Config struct {
	Name       string
	Latency    int
	EyeBase    float64
	Robustness string
	Nodes      []*Node
	Observers  []*Observer
	Layouts    []*Layout
	Canvases   []*Canvas
	// Channels lists every channel: those declared in windows, then the
	// destination channels that canvases create for each segment and view.
	Channels  []*Channel
	Compounds []*Compound // roots
}

// Connection describes how to reach a node or the server.
type Connection struct {
	Type      string
	Hostname  string
	Interface string
	Port      int
	Bandwidth int
	Filename  string
	Pos       lexer.Position `json:"-"` // where the config writes it
}

// Node is one process (a render client or the application node).
type Node struct {
	// ID is the node's unique name at run time: its name, "app" for an
	// unnamed application node, "node<index>" for other unnamed nodes.
	ID          string
	Name        string
	Host        string
	App         bool
	Connections []Connection
	Attributes  map[string]string
	Pipes       []*Pipe
}

// Pipe is one GPU.
type Pipe struct {
	Name string
	Node *Node
	// Port and Device are the pipe's X display number and screen under X
	// (Equalizer's `:port.device`), its GPU headless; PortSet says the
	// config named a port, 0 included.
	Port, Device  int
	PortSet       bool
	PixelViewport PixelViewport
	Attributes    map[string]string
	Windows       []*Window
}

// Window is one drawable (on-screen window or offscreen FBO).
type Window struct {
	// ID is the window's identity in every process that resolves the
	// same config, as a channel's is.
	ID            string
	Name          string
	Pipe          *Pipe
	PixelViewport PixelViewport
	Attributes    map[string]string
	Channels      []*Channel
}

// Channel is a viewport of a window that compounds render into.
type Channel struct {
	// ID is the channel's identity in every process that resolves the
	// same config (control, transport, statistics); Label is a unique,
	// file-name-safe name for logs and images. Name is what the config
	// calls it (not unique: canvases make destination channels that share
	// their segment channel's name).
	ID            string
	Label         string
	Name          string
	Window        *Window
	Viewport      Viewport // fraction of the window
	PixelViewport PixelViewport
	Attributes    map[string]string
	Drawable      []string
	// For destination channels made from a canvas: the view and segment
	// they show, and the segment's channel they are cut from.
	View    *View
	Segment *Segment
	Source  *Channel
	// Frustum is the wall a destination channel shows; nil otherwise.
	Frustum *Wall
	// SharedDump is true where another destination channel that can show
	// in the same frame has the same dump_image prefix: each names its
	// images by itself too (channel.DumpPath).
	SharedDump bool
}

// ViewPoint maps a point of the channel (x, y in [0, 1] from its
// bottom-left corner) to the view it shows: a destination channel of a
// canvas shows the part of its view inside its segment. Other channels
// are their own view.
func (c *Channel) ViewPoint(x, y float64) (float64, float64) {
	if c.View == nil || c.Segment == nil || c.View.Viewport.W <= 0 || c.View.Viewport.H <= 0 {
		return x, y
	}
	area, v := c.CanvasArea(), c.View.Viewport
	cx, cy := area.X+x*area.W, area.Y+y*area.H // on the canvas
	return (cx - v.X) / v.W, (cy - v.Y) / v.H
}

// CanvasArea is the part of its canvas a destination channel of a canvas
// shows: its segment's viewport within its view's. Any other channel is
// a canvas of its own, whole.
func (c *Channel) CanvasArea() Viewport {
	switch {
	case c.Segment == nil:
		return FullViewport
	case c.View == nil:
		return c.Segment.Viewport
	}
	return c.Segment.Viewport.Intersect(c.View.Viewport)
}

// Observer is a tracked viewer.
type Observer struct {
	Name          string
	EyeLeft       Vec3
	EyeCyclop     Vec3
	EyeRight      Vec3
	FocusDistance float64
	FocusMode     string
}

// Layout is a set of views.
type Layout struct {
	Name  string
	Views []*View
}

// View is a 3-D view on a layout.
type View struct {
	Name     string
	Layout   *Layout
	Stereo   bool // renders a left and a right eye (mode STEREO), not a cyclop (MONO)
	Viewport Viewport
	Frustum  *Wall // own wall or projection, if any
	Observer *Observer
	// ModelUnit is Equalizer's model unit: how many of the model's units
	// make a metre of the display. Walls and eyes are scaled by it, so
	// that a model in millimetres (1000) shows at its real size, with eyes
	// and focus to match. 1 unless an application sets another.
	ModelUnit float64
	// BalanceFrozen load and tree equalizers of the view's compounds keep
	// the split they have (an application's Balancing.Frozen).
	BalanceFrozen bool
}

// ModeName is its mode as a config names it.
func (v *View) ModeName() string {
	if v.Stereo {
		return "STEREO"
	}
	return "MONO"
}

// Canvas is a display surface made of segments.
type Canvas struct {
	Name    string
	Layouts []*Layout // nil entries are `layout OFF`
	// ActiveLayout indexes Layouts: the layout the canvas shows (the first,
	// as in Equalizer, until the application switches).
	ActiveLayout int
	Frustum      *Wall
	SwapBarrier  *SwapBarrier
	Segments     []*Segment
}

// Segment is the part of a canvas one channel shows.
type Segment struct {
	Name        string
	Canvas      *Canvas
	Channel     *Channel
	Eyes        int
	Viewport    Viewport
	Frustum     *Wall // own wall, or the canvas wall cut to the segment
	SwapBarrier *SwapBarrier
}

// SwapBarrier synchronises buffer swaps.
type SwapBarrier struct {
	Name      string
	NVGroup   string
	NVBarrier string
}

// Frame is an output or input frame of a compound.
type Frame struct {
	Name     string
	Texture  bool // type texture; read back as memory is (docs/config-language.md)
	Viewport Viewport
	Buffers  int
	Zoom     Zoom
	ZoomPos  lexer.Position // where Zoom is set
	Compound *Compound
	// For an input frame, the compounds producing the frame of that name
	// (several when period and phase alternate them); for an output frame,
	// the compounds consuming it.
	Producers []*Compound
	Consumers []*Compound
	Pos       lexer.Position
}

// TypeName is its type as a config names it.
func (f *Frame) TypeName() string {
	if f.Texture {
		return "texture"
	}
	return "memory"
}

// TileQueue is an output or input tile queue.
type TileQueue struct {
	Name     string
	Size     [2]int
	Compound *Compound
}

// EqualizerKind is which of Equalizer's equalizers a compound carries.
type EqualizerKind uint8

const (
	LoadEqualizer      EqualizerKind = iota + 1 // splits its children's share by their last frames' costs
	TreeEqualizer                               // the same split, decided pairwise down a binary tree
	DFREqualizer                                // zooms the frame to hold a frame rate
	FramerateEqualizer                          // smooths the rate of time-multiplexed parts
	MonitorEqualizer                            // zooms a view shown again on another canvas
	ViewEqualizer                               // lends sources between destinations
	TileEqualizer                               // hands out tiles (or DB chunks) as sources ask
)

var equalizerNames = [...]string{"", "load", "tree", "DFR", "framerate", "monitor", "view", "tile"}

// String is its name in a config, less "_equalizer".
func (k EqualizerKind) String() string {
	if int(k) < len(equalizerNames) && k != 0 {
		return equalizerNames[k]
	}
	return fmt.Sprintf("EqualizerKind(%d)", k)
}

// Splits says whether it sets its children's viewports or ranges from
// their costs: a load or a tree equalizer.
func (k EqualizerKind) Splits() bool { return k == LoadEqualizer || k == TreeEqualizer }

// SplitMode is how a load or tree equalizer splits: the zero value, as in
// Equalizer, is 2D.
type SplitMode uint8

const (
	Split2D         SplitMode = iota // rectangles, each cut across its longer side
	SplitVertical                    // columns
	SplitHorizontal                  // rows
	SplitDB                          // depth ranges of the model
)

var splitModeNames = [...]string{"2D", "VERTICAL", "HORIZONTAL", "DB"}

// String is its keyword in a config.
func (m SplitMode) String() string {
	if int(m) < len(splitModeNames) {
		return splitModeNames[m]
	}
	return fmt.Sprintf("SplitMode(%d)", m)
}

// splitModeOf is the mode a config's keyword names (the grammar admits no other).
func splitModeOf(word string) SplitMode {
	return SplitMode(max(0, slices.Index(splitModeNames[:], word)))
}

// Equalizer is one equalizer attached to a compound, with every parameter
// resolved (defaults filled in).
type Equalizer struct {
	Kind EqualizerKind
	// load and tree
	Mode              SplitMode
	Damping           float64
	Boundary2D        [2]int
	BoundaryDB        float64
	Resistance2D      [2]int
	ResistanceDB      float64
	AssembleOnlyLimit *float64 // nil: no limit
	Adaptive          bool
	// DFR
	Framerate float64
	// tile
	Name     string
	TileSize [2]int
	ChunkDB  float64 // tile equalizer in DB mode: range chunk
}

// Compound is one node of the compound tree with its inherited values.
type Compound struct {
	Name     string
	Parent   *Compound
	Children []*Compound
	Index    int // position among its parent's children (or the roots)

	Channel  *Channel
	Tasks    int
	Eyes     int
	Buffers  int
	Viewport Viewport // relative to the destination channel
	Range    Range
	Pixel    Pixel
	Subpixel Subpixel
	Zoom     Zoom
	Period   int
	Phase    int

	// Frustum is the wall this compound renders (nil when none applies).
	Frustum *Wall
	// Wall is the whole wall Frustum is cut from, and WallOwner the
	// compound whose region it spans: the compound that sets its own wall,
	// or the destination, whose channel's view or segment gives it.
	Wall        *Wall
	WallOwner   *Compound
	SwapBarrier *SwapBarrier
	Attributes  map[string]string

	OutputFrames []*Frame
	InputFrames  []*Frame
	OutputTiles  []*TileQueue
	InputTiles   []*TileQueue
	Equalizers   []*Equalizer

	// Generated is true for compounds goeq made for canvases without one.
	Generated bool
	// DrawsAside is true for a part of a pixel, subpixel or zoom
	// decomposition that its destination's channel draws itself, or of
	// interleaved eyes (EyePixels): it draws past the window's pixels and
	// sends its frame to its own assembly (see drawAside).
	DrawsAside bool

	path string // Path(), cached once the tree is built

	// Local holds what the compound sets itself, relative to its parent;
	// the fields above are those composed with the ancestors'. Equalizers
	// replace local values per frame and the planner recomposes.
	Local Local
}

// Local is a compound's own decomposition, relative to its parent.
type Local struct {
	Viewport Viewport
	Range    Range
	Pixel    Pixel
	Subpixel Subpixel
	Zoom     Zoom
}

// Path names the compound by its position: "0" for the first root, "0.2"
// for that root's third child.
func (c *Compound) Path() string {
	if c.path != "" {
		return c.path
	}
	if c.Parent == nil {
		return strconv.Itoa(c.Index)
	}
	return c.Parent.Path() + "." + strconv.Itoa(c.Index)
}

// rendersEye reports whether c and each of its ancestors up to its
// destination render eye: the planner plans no task of an eye below a
// compound that does not render it.
func (c *Compound) rendersEye(eye int) bool {
	for x := c; x != nil; x = x.Parent {
		if x.Eyes&eye == 0 {
			return false
		}
		if x.Parent == nil || x.Parent.Destination() != x.Destination() {
			return true
		}
	}
	return true
}

// HasDraws reports whether c or a compound below it draws, for whichever
// eyes it names, reached or not (DrawsFor counts only the eyes that reach
// it).
func (c *Compound) HasDraws() bool {
	draws := false
	c.Walk(func(x *Compound) { draws = draws || x.IsLeaf() && x.Tasks&TaskDraw != 0 && x.Channel != nil })
	return draws
}

// IsLeaf reports whether the compound has no children.
func (c *Compound) IsLeaf() bool { return len(c.Children) == 0 }

// DrawsFor reports whether c, a compound below it, or the producer of a
// frame one of them assembles draws for eye: an eye decomposition has no
// compound for the cyclop eye, so its view shown mono has nothing to draw.
// An eye reaches a compound only through ancestors that render it (as
// Equalizer's activity, an eye [ CYCLOP ] part under an eye [ LEFT ] one
// never draws).
func (c *Compound) DrawsFor(eye int) bool {
	return c.drawsFor(eye, map[*Compound]bool{})
}

func (c *Compound) drawsFor(eye int, seen map[*Compound]bool) bool {
	if seen[c] {
		return false
	}
	seen[c] = true
	if !c.rendersEye(eye) {
		return false
	}
	if c.Tasks&TaskDraw != 0 && c.Channel != nil {
		return true
	}
	for _, f := range c.InputFrames {
		for _, p := range f.Producers {
			if p.drawsFor(eye, seen) {
				return true
			}
		}
	}
	for _, ch := range c.Children {
		if ch.drawsFor(eye, seen) {
			return true
		}
	}
	return false
}

// IsDestination reports whether c is the top-most compound with a channel:
// the one whose channel shows the result. Compounds below it are sources
// and render parts of its frustum, whatever their own channel.
func (c *Compound) IsDestination() bool {
	if c.Channel == nil {
		return false
	}
	for p := c.Parent; p != nil; p = p.Parent {
		if p.Channel != nil {
			return false
		}
	}
	return true
}

// CachePaths fixes every compound's Path (the tree must not change after).
func (c *Config) CachePaths() {
	c.Walk(func(x *Compound) { x.path = ""; x.path = x.Path() })
}

// Walk visits c and its descendants depth-first, parents first.
func (c *Compound) Walk(fn func(*Compound)) {
	fn(c)
	for _, ch := range c.Children {
		ch.Walk(fn)
	}
}

// Walk visits every compound of the config.
func (c *Config) Walk(fn func(*Compound)) {
	for _, r := range c.Compounds {
		r.Walk(fn)
	}
}

// Robust reports whether the run goes on without a render node or pipe
// that fails to come, as Equalizer's config init does under the config's
// robustness (ON unless the config says OFF).
func (c *Config) Robust() bool { return c.Robustness != "OFF" }

// ShowsADestination reports whether any of channels is the channel of a
// destination compound, in any layout.
func (c *Config) ShowsADestination(channels func(*Channel) bool) bool {
	found := false
	c.Walk(func(x *Compound) { found = found || x.Channel != nil && x.Destination() == x && channels(x.Channel) })
	return found
}

// ShownDestination is the channel of a destination among channels that
// is on screen in the layouts shown now (Channel.Showing), or nil.
func (c *Config) ShownDestination(channels func(*Channel) bool) *Channel {
	var found *Channel
	c.Walk(func(x *Compound) {
		if found == nil && x.Channel != nil && x.Destination() == x && channels(x.Channel) && x.Channel.Showing() {
			found = x.Channel
		}
	})
	return found
}

// IsActive reports whether the compound runs in the given frame (period
// and phase).
func (c *Compound) IsActive(frame int) bool {
	return frame%c.Period == c.Phase%c.Period
}

// ChannelID returns the channel's identity (see Channel.ID).
func (c *Config) ChannelID(ch *Channel) string { return ch.ID }

// ChannelByID finds a channel by its identity.
func (c *Config) ChannelByID(id string) *Channel {
	for _, ch := range c.Channels {
		if ch.ID == id {
			return ch
		}
	}
	return nil
}

// WindowByID returns the window with that ID, nil if none.
func (c *Config) WindowByID(id string) *Window {
	for _, n := range c.Nodes {
		for _, p := range n.Pipes {
			for _, w := range p.Windows {
				if w.ID == id {
					return w
				}
			}
		}
	}
	return nil
}

// Showing reports whether a destination channel is on screen: one made
// from a canvas shows while its view's layout is the canvas' active one;
// other channels always do.
func (ch *Channel) Showing() bool {
	if ch.View == nil || ch.Segment == nil {
		return true
	}
	cv := ch.Segment.Canvas
	if cv == nil || ch.Segment.Canvas.ActiveLayout < 0 || cv.ActiveLayout >= len(cv.Layouts) {
		return false
	}
	return cv.Layouts[cv.ActiveLayout] == ch.View.Layout
}

// ConfigNames names channels in messages as the config does: each window
// channel once, by its name when it has one. Destination channels made
// from a canvas are left out (their segment's channel is among them, and
// a label such as "channel1.n0.p0.w1.c0" would say what the config never
// did).
func ConfigNames(chs []*Channel) []string {
	var names []string
	for _, ch := range chs {
		if ch.View != nil && ch.Source != nil {
			continue
		}
		name := ch.Name
		if name == "" {
			name = ch.Label
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// OwnFramebuffer reports whether the channel renders into a framebuffer
// object of its own rather than its window's (drawable [ FBO_COLOR ... ]).
func (ch *Channel) OwnFramebuffer() bool {
	for _, w := range ch.Drawable {
		if strings.HasPrefix(w, "FBO_") {
			return true
		}
	}
	return false
}

// DestinationEyes are the eyes a destination compound shows, as Equalizer
// activates them: for a channel of a view, the view's eyes (MONO: cyclop;
// STEREO: left and right) that its segment shows; otherwise the
// compound's own eyes.
func (c *Compound) DestinationEyes() int {
	ch := c.Channel
	if ch == nil || ch.View == nil || ch.Segment == nil {
		return c.Eyes
	}
	seg := ch.Segment.Eyes
	if seg == 0 {
		seg = EyesAll
	}
	if ch.View.Stereo {
		return (EyeLeft | EyeRight) & seg
	}
	return EyeCyclop & seg
}

// AnaglyphMask is the colour mask (an attribute's value, as "[ RED ]")
// that c's tasks for eye write under, or "" where they write every
// colour: its own (inherited) mask for a stereo eye where its stereo
// mode is ANAGLYPH (or QUAD, which framebuffer objects show as one), or
// AUTO while its destination shows both eyes (goeq renders into
// framebuffer objects, which have no quad-buffered stereo; Equalizer
// chooses the same for FBO windows). A mask naming no colour writes every
// colour too.
func (c *Compound) AnaglyphMask(eye int) string {
	if eye == EyeCyclop {
		return ""
	}
	switch c.Attributes["stereo_mode"] {
	case "PASSIVE":
		return ""
	case "ANAGLYPH", "QUAD":
	default: // AUTO
		dest := c.Destination()
		if dest == nil || dest.DestinationEyes()&(EyeLeft|EyeRight) != EyeLeft|EyeRight {
			return ""
		}
	}
	key := "stereo_anaglyph_left_mask"
	if eye == EyeRight {
		key = "stereo_anaglyph_right_mask"
	}
	return c.Attributes[key]
}

// EyePixels is the pixel pattern each eye of destination c shows in where
// its tree interleaves its eyes: each compound below c that draws some of
// its eyes only is a pixel decomposition of it (a row-interleaved passive
// stereo wall draws its left eye on odd rows and its right on even ones).
// It is nil where no eye is drawn so, or where an eye would take two
// patterns.
func (c *Compound) EyePixels() map[int]Pixel {
	out := map[int]Pixel{}
	var walk func(x *Compound) bool
	walk = func(x *Compound) bool {
		for _, ch := range x.Children {
			if !ch.interleavesEye(c) {
				if !walk(ch) {
					return false
				}
				continue
			}
			for _, eye := range Eyes {
				if ch.Eyes&eye == 0 {
					continue
				}
				if p, ok := out[eye]; ok && p != ch.Pixel {
					return false
				}
				out[eye] = ch.Pixel
			}
		}
		return true
	}
	if !walk(c) || len(out) == 0 {
		return nil
	}
	return out
}

// interleavesEye says whether c draws some of its destination dest's eyes
// only, in a pixel pattern of its own.
func (c *Compound) interleavesEye(dest *Compound) bool {
	return c.Eyes&dest.Eyes != dest.Eyes && (c.Local.Pixel.W > 1 || c.Local.Pixel.H > 1)
}

// Home is the compound whose picture c draws into on its channel: its
// destination for a part the destination's channel draws; otherwise the
// top-most of c and its ancestors in an unbroken line on c's channel (an
// assembling compound on a source's channel holds its parts' picture
// there, as the destination holds its own). It is c where c's parent is
// on another channel.
func (c *Compound) Home() *Compound {
	if dest := c.Destination(); dest != nil && dest.Channel == c.Channel {
		return dest
	}
	h := c
	for h.Parent != nil && h.Parent.Channel == c.Channel {
		h = h.Parent
	}
	return h
}

// HoldsPicture reports whether c's channel holds a picture of c's that
// goes on: c is a destination, or an inner compound that reads back what
// its parts made and sends it in a frame (an assembly on a source's
// channel, the Home of its parts there). Such a compound draws what its
// parts leave to it (an eye decomposition's parts in a mono view).
func (c *Compound) HoldsPicture() bool {
	return c.Channel != nil && (c.Destination() == c || !c.IsLeaf() && c.Tasks&TaskReadback != 0 && len(c.OutputFrames) > 0)
}

// PartOfHeldPicture reports whether c draws into a picture that a
// compound above it holds (its parent's Home, where that HoldsPicture)
// and holds none of its own: the parts whose empty places the holder
// fills in (eye parts of a mono view), or check warns about.
func (c *Compound) PartOfHeldPicture() bool {
	return c.Parent != nil && !c.HoldsPicture() && c.Parent.Home().HoldsPicture()
}

// Destination is the top-most compound with a channel above or at c:
// the one whose channel shows what c renders (nil for channel-less roots).
func (c *Compound) Destination() *Compound {
	var dest *Compound
	for x := c; x != nil; x = x.Parent {
		if x.Channel != nil {
			dest = x
		}
	}
	return dest
}

// CheckDrawableOverride checks a --drawable override of every window's
// hint_drawable: window or FBO, in any case, or "" for none.
func CheckDrawableOverride(d string) error {
	switch strings.ToLower(d) {
	case "", "window", "fbo":
		return nil
	}
	return fmt.Errorf("--drawable %q: want window or FBO", d)
}

// Label names a pipe in messages: by its name, or by its place in its node
// (pipes need no name in a config), and by both where another pipe of the
// node has the name (Equalizer's 2-pipe.all names two "GPU 0").
func (p *Pipe) Label() string {
	i := -1
	if p.Node != nil {
		i = slices.Index(p.Node.Pipes, p)
	}
	switch {
	case p.Name != "" && i >= 0 && slices.ContainsFunc(p.Node.Pipes, func(o *Pipe) bool { return o != p && o.Name == p.Name }):
		return fmt.Sprintf("pipe %q (pipe %d of node %s)", p.Name, i+1, p.Node.ID)
	case p.Name != "":
		return fmt.Sprintf("pipe %q", p.Name)
	case i >= 0:
		return fmt.Sprintf("pipe %d of node %s", i+1, p.Node.ID)
	}
	return "a pipe"
}

// OnScreen reports whether the config asks for an on-screen window (its
// hint_drawable is not FBO or pbuffer), as a fullscreen hint needs.
func (w *Window) OnScreen() bool {
	d := strings.ToLower(w.Attributes["hint_drawable"])
	return d != "fbo" && d != "pbuffer"
}

// Label names a window in messages: by its name, or by its place in its
// pipe, and by its pipe too where another window of the node has the name
// (2-pipe.all names two "window GPU 0"), and its place where one of the
// pipe has.
func (w *Window) Label() string {
	if w.Name != "" {
		twin := func(o *Window) bool { return o != w && o.Name == w.Name }
		switch {
		case w.Pipe == nil || w.Pipe.Node == nil:
		case slices.ContainsFunc(w.Pipe.Windows, twin):
			return fmt.Sprintf("window %q (window %d of %s)", w.Name, slices.Index(w.Pipe.Windows, w)+1, w.Pipe.Label())
		case slices.ContainsFunc(w.Pipe.Node.Pipes, func(p *Pipe) bool { return slices.ContainsFunc(p.Windows, twin) }):
			return fmt.Sprintf("window %q of %s", w.Name, w.Pipe.Label())
		}
		return fmt.Sprintf("window %q", w.Name)
	}
	if w.Pipe != nil {
		if i := slices.Index(w.Pipe.Windows, w); i >= 0 {
			return fmt.Sprintf("window %d of %s", i+1, w.Pipe.Label())
		}
	}
	return "a window"
}

// Resampling says why the config changes resolution or sampling on
// purpose in a layout shown (zoom, DFR, monitor or subpixel), or "": its
// decomposed pictures then differ from the undecomposed one by more than
// edge pixels (imagecmp.Diff.Matches). It says subpixel only where nothing
// changes resolution: a smooth picture's samples (the synthetic
// renderer's) then average to nearly the unjittered one.
func (c *Config) Resampling() string {
	// a layout that is not on screen is left out
	return c.resampling(func(dest *Compound) bool { return dest == nil || dest.Channel.Showing() })
}

// ResamplingOf is Resampling for the pictures of one destination channel,
// whatever layout is shown: an application's run that switched layouts
// has pictures of several.
func (c *Config) ResamplingOf(ch *Channel) string {
	return c.resampling(func(dest *Compound) bool { return dest != nil && dest.Channel == ch })
}

// resampling says why the compounds whose destination counts resample.
func (c *Config) resampling(counts func(dest *Compound) bool) string {
	why := ""
	c.Walk(func(cp *Compound) {
		if !counts(cp.Destination()) {
			return
		}
		switch {
		case (cp.Zoom.X != 1 || cp.Zoom.Y != 1) && !zoomIgnored(cp):
			why = "zoom"
		case cp.Subpixel.Size > 1 && why == "":
			why = "subpixel"
		}
		for _, eq := range cp.Equalizers {
			if eq.Kind == DFREqualizer || eq.Kind == MonitorEqualizer {
				why = eq.Kind.String()
			}
		}
		for _, f := range cp.InputFrames {
			if f.Zoom.Scales() && why == "" {
				why = "frame zoom"
			}
		}
		for _, f := range cp.OutputFrames {
			if f.Zoom.Scales() && why == "" {
				why = "frame zoom"
			}
		}
	})
	return why
}

// RangesWithoutDepth returns an input frame, of a layout shown, that brings
// depth ranges (a DB part, the parts of a DB load or tree equalizer, or a
// tile queue's chunks) without DEPTH, or nil. Its compound blends such
// frames in range order by colour alone: right for a renderer whose slabs
// are see-through and drawn to be blended (volume), but an opaque
// renderer's ranges then cover each other in that order rather than by
// depth, as under Equalizer.
func (c *Config) RangesWithoutDepth() *Frame {
	var found *Frame
	c.Walk(func(cp *Compound) {
		if found != nil {
			return
		}
		if dest := cp.Destination(); dest != nil && !dest.Channel.Showing() {
			return
		}
		for _, in := range cp.InputFrames {
			if in.Buffers&BufferDepth != 0 {
				continue
			}
			for _, p := range in.Producers {
				if splitsDepth(p) || p.Range != FullRange && overlapsOtherRange(cp, p) {
					found = in
					return
				}
			}
		}
	})
	return found
}

// overlapsOtherRange reports whether p's part of the picture meets, at the
// compound cp that assembles it, a part of another range: only there do
// ranges blend (a part that splits both the area and the data meets none).
func overlapsOtherRange(cp, p *Compound) bool {
	var parts []*Compound
	cp.Walk(func(x *Compound) {
		if x.Channel == cp.Channel && x.IsLeaf() && x.Tasks&TaskDraw != 0 {
			parts = append(parts, x)
		}
	})
	for _, in := range cp.InputFrames {
		parts = append(parts, in.Producers...)
	}
	for _, o := range parts {
		if o != p && o.Range != p.Range && o.Viewport.Intersect(p.Viewport).HasArea() {
			return true
		}
	}
	return false
}

// splitsDepth reports whether an equalizer above c (or on it) gives out
// depth ranges: a DB load or tree equalizer, or a tile queue of database
// chunks.
func splitsDepth(c *Compound) bool {
	for a := c; a != nil; a = a.Parent {
		for _, eq := range a.Equalizers {
			if eq.Kind.Splits() && eq.Mode == SplitDB || eq.Kind == TileEqualizer && eq.ChunkDB > 0 {
				return true
			}
		}
	}
	return false
}

// TCP reports whether goeq listens on c as written: a TCP connection (the
// other types fall back to TCP with a warning).
func (c Connection) TCP() bool { return c.Type == "" || strings.EqualFold(c.Type, "TCPIP") }

// FrameConnection is the connection a node takes frames on, as Equalizer's
// node listens on: its first TCP one, or nil.
func (n *Node) FrameConnection() *Connection {
	for i, c := range n.Connections {
		if c.TCP() {
			return &n.Connections[i]
		}
	}
	return nil
}

// SharesFramePort returns another node on n's host whose frame connection
// names n's port, or nil: the two cannot both listen on it.
func (c *Config) SharesFramePort(n *Node) *Node {
	own := n.FrameConnection()
	if own == nil || own.Port == 0 {
		return nil
	}
	for _, o := range c.Nodes {
		if o != n && o.Host == n.Host {
			if oc := o.FrameConnection(); oc != nil && oc.Port == own.Port {
				return o
			}
		}
	}
	return nil
}
