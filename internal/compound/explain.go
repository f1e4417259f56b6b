package compound

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// The explain view is the resolved model as plain data: every value that
// inheritance or a default decided is spelled out, and nothing depends on
// positions in the source, so explain(fmt(x)) == explain(x).

type ExplainModel struct {
	Version float64           `json:"version"`
	Global  map[string]string `json:"global,omitempty"`
	Configs []ExplainConfig   `json:"configs"`
}

type ExplainConfig struct {
	Name       string            `json:"name"`
	Latency    int               `json:"latency"`
	EyeBase    float64           `json:"eye_base"`
	Robustness string            `json:"robustness"`
	Nodes      []ExplainNode     `json:"nodes"`
	Observers  []ExplainObserver `json:"observers,omitempty"`
	Layouts    []ExplainLayout   `json:"layouts,omitempty"`
	Canvases   []ExplainCanvas   `json:"canvases,omitempty"`
	Compounds  []ExplainCompound `json:"compounds"`
}

type ExplainNode struct {
	Name        string            `json:"name"`
	App         bool              `json:"app"`
	Host        string            `json:"host,omitempty"`
	Connections []Connection      `json:"connections,omitempty"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	Pipes       []ExplainPipe     `json:"pipes"`
}

type ExplainPipe struct {
	Name          string            `json:"name"`
	Port          int               `json:"port"`
	Device        int               `json:"device"`
	PixelViewport [4]int            `json:"pixel_viewport"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	Windows       []ExplainWindow   `json:"windows"`
}

type ExplainWindow struct {
	Name          string            `json:"name"`
	PixelViewport [4]int            `json:"pixel_viewport"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	Channels      []ExplainChannel  `json:"channels"`
}

type ExplainChannel struct {
	Name          string            `json:"name"`
	Viewport      [4]float64        `json:"viewport"`
	PixelViewport [4]int            `json:"pixel_viewport"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	Drawable      []string          `json:"drawable,omitempty"`
}

type ExplainObserver struct {
	Name          string     `json:"name"`
	EyeLeft       [3]float64 `json:"eye_left"`
	EyeCyclop     [3]float64 `json:"eye_cyclop"`
	EyeRight      [3]float64 `json:"eye_right"`
	FocusDistance float64    `json:"focus_distance"`
	FocusMode     string     `json:"focus_mode"`
}

type ExplainLayout struct {
	Name  string        `json:"name"`
	Views []ExplainView `json:"views"`
}

type ExplainView struct {
	Name     string       `json:"name"`
	Mode     string       `json:"mode"`
	Viewport [4]float64   `json:"viewport"`
	Observer string       `json:"observer"`
	Wall     *ExplainWall `json:"wall,omitempty"`
}

type ExplainWall struct {
	BottomLeft  [3]float64 `json:"bottom_left"`
	BottomRight [3]float64 `json:"bottom_right"`
	TopLeft     [3]float64 `json:"top_left"`
	Type        string     `json:"type"`
}

type ExplainCanvas struct {
	Name     string           `json:"name"`
	Layouts  []string         `json:"layouts"`
	Wall     *ExplainWall     `json:"wall,omitempty"`
	Segments []ExplainSegment `json:"segments"`
}

type ExplainSegment struct {
	Name        string       `json:"name"`
	Channel     string       `json:"channel"`
	Eyes        []string     `json:"eyes"`
	Viewport    [4]float64   `json:"viewport"`
	Wall        *ExplainWall `json:"wall"`
	SwapBarrier *SwapBarrier `json:"swapbarrier,omitempty"`
}

type ExplainFrame struct {
	Name      string     `json:"name"`
	Type      string     `json:"type"`
	Viewport  [4]float64 `json:"viewport"`
	Buffers   []string   `json:"buffers"`
	Zoom      [2]float64 `json:"zoom"`
	From      []string   `json:"from,omitempty"`
	Consumers []string   `json:"consumers,omitempty"`
}

type ExplainTiles struct {
	Name string `json:"name"`
	Size [2]int `json:"size"`
}

type ExplainEqualizer struct {
	Kind              string   `json:"kind"`
	Mode              string   `json:"mode,omitempty"`
	Damping           *float64 `json:"damping,omitempty"`
	Boundary          string   `json:"boundary,omitempty"`
	Resistance        string   `json:"resistance,omitempty"`
	AssembleOnlyLimit string   `json:"assemble_only_limit,omitempty"`
	Adaptive          *bool    `json:"adaptive,omitempty"`
	Framerate         *float64 `json:"framerate,omitempty"`
	Name              string   `json:"name,omitempty"`
	Size              string   `json:"size,omitempty"`
}

type ExplainEyeFrustum struct {
	Eye     string     `json:"eye"`
	Frustum [6]float64 `json:"frustum"` // left right bottom top near far
}

type ExplainCompound struct {
	Path         string              `json:"path"`
	Name         string              `json:"name,omitempty"`
	Generated    bool                `json:"generated,omitempty"`
	Channel      string              `json:"channel"`
	Destination  string              `json:"destination,omitempty"`
	Tasks        []string            `json:"tasks"`
	Eyes         []string            `json:"eyes"`
	Buffers      []string            `json:"buffers"`
	Viewport     [4]float64          `json:"viewport"`
	PixelVP      [4]int              `json:"pixel_viewport"`
	Range        [2]float64          `json:"range"`
	Pixel        [4]int              `json:"pixel"`
	Subpixel     [2]int              `json:"subpixel"`
	Zoom         [2]float64          `json:"zoom"`
	Period       int                 `json:"period"`
	Phase        int                 `json:"phase"`
	Wall         *ExplainWall        `json:"wall"`
	EyeFrusta    []ExplainEyeFrustum `json:"eye_frusta"`
	SwapBarrier  *SwapBarrier        `json:"swapbarrier,omitempty"`
	Attributes   map[string]string   `json:"attributes"`
	OutputFrames []ExplainFrame      `json:"output_frames,omitempty"`
	InputFrames  []ExplainFrame      `json:"input_frames,omitempty"`
	OutputTiles  []ExplainTiles      `json:"output_tiles,omitempty"`
	InputTiles   []ExplainTiles      `json:"input_tiles,omitempty"`
	Equalizers   []ExplainEqualizer  `json:"equalizers,omitempty"`
	Children     []ExplainCompound   `json:"children,omitempty"`
}

func r6(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
	return v
}

func vp4(v Viewport) [4]float64   { return [4]float64{r6(v.X), r6(v.Y), r6(v.W), r6(v.H)} }
func pvp4(p PixelViewport) [4]int { return [4]int{p.X, p.Y, p.W, p.H} }
func v3(v Vec3) [3]float64        { return [3]float64{r6(v[0]), r6(v[1]), r6(v[2])} }

func explainWall(w *Wall) *ExplainWall {
	if w == nil {
		return nil
	}
	return &ExplainWall{v3(w.BottomLeft), v3(w.BottomRight), v3(w.TopLeft), w.TypeName()}
}

func bitNames(bits int, names []string) []string {
	out := []string{}
	for i, n := range names {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

var (
	eyeNames    = []string{"CYCLOP", "LEFT", "RIGHT"}
	taskNames   = []string{"CLEAR", "DRAW", "ASSEMBLE", "READBACK"}
	bufferNames = []string{"COLOR", "DEPTH"}
)

// Explain builds the explain view of a model.
func Explain(m *Model) *ExplainModel {
	out := &ExplainModel{Version: m.Version, Global: m.Global}
	for _, c := range m.Configs {
		out.Configs = append(out.Configs, explainConfig(c))
	}
	return out
}

func explainConfig(c *Config) ExplainConfig {
	ec := ExplainConfig{Name: c.Name, Latency: c.Latency, EyeBase: c.EyeBase, Robustness: c.Robustness,
		Compounds: []ExplainCompound{}}
	for _, n := range c.Nodes {
		en := ExplainNode{Name: n.Name, App: n.App, Host: n.Host, Connections: n.Connections, Attributes: n.Attributes, Pipes: []ExplainPipe{}}
		for _, p := range n.Pipes {
			ep := ExplainPipe{Name: p.Name, Port: p.Port, Device: p.Device, PixelViewport: pvp4(p.PixelViewport), Attributes: p.Attributes, Windows: []ExplainWindow{}}
			for _, w := range p.Windows {
				ew := ExplainWindow{Name: w.Name, PixelViewport: pvp4(w.PixelViewport), Attributes: w.Attributes, Channels: []ExplainChannel{}}
				for _, ch := range w.Channels {
					ew.Channels = append(ew.Channels, ExplainChannel{Name: ch.Name, Viewport: vp4(ch.Viewport),
						PixelViewport: pvp4(ch.PixelViewport), Attributes: ch.Attributes, Drawable: ch.Drawable})
				}
				ep.Windows = append(ep.Windows, ew)
			}
			en.Pipes = append(en.Pipes, ep)
		}
		ec.Nodes = append(ec.Nodes, en)
	}
	for _, o := range c.Observers {
		ec.Observers = append(ec.Observers, ExplainObserver{o.Name, v3(o.EyeLeft), v3(o.EyeCyclop), v3(o.EyeRight), o.FocusDistance, o.FocusMode})
	}
	for _, l := range c.Layouts {
		el := ExplainLayout{Name: l.Name}
		for _, v := range l.Views {
			obs := ""
			if v.Observer != nil {
				obs = observerLabel(c, v.Observer)
			}
			el.Views = append(el.Views, ExplainView{Name: v.Name, Mode: v.ModeName(), Viewport: vp4(v.Viewport), Observer: obs, Wall: explainWall(v.Frustum)})
		}
		ec.Layouts = append(ec.Layouts, el)
	}
	for _, cv := range c.Canvases {
		ecv := ExplainCanvas{Name: cv.Name, Wall: explainWall(cv.Frustum), Layouts: []string{}}
		for _, l := range cv.Layouts {
			if l == nil {
				ecv.Layouts = append(ecv.Layouts, "OFF")
			} else {
				ecv.Layouts = append(ecv.Layouts, l.Name)
			}
		}
		for _, s := range cv.Segments {
			name := ""
			if s.Channel != nil {
				name = s.Channel.Name
			}
			ecv.Segments = append(ecv.Segments, ExplainSegment{Name: s.Name, Channel: name, Eyes: bitNames(s.Eyes, eyeNames),
				Viewport: vp4(s.Viewport), Wall: explainWall(s.Frustum), SwapBarrier: s.SwapBarrier})
		}
		ec.Canvases = append(ec.Canvases, ecv)
	}
	for i, root := range c.Compounds {
		ec.Compounds = append(ec.Compounds, explainCompound(c, root, strconv.Itoa(i)))
	}
	return ec
}

func observerLabel(c *Config, o *Observer) string {
	for i, x := range c.Observers {
		if x == o {
			if o.Name != "" {
				return o.Name
			}
			return "#" + strconv.Itoa(i)
		}
	}
	return ""
}

func channelLabel(ch *Channel) (name, dest string) {
	if ch == nil {
		return "", ""
	}
	if ch.View != nil {
		seg := ch.Segment.Name
		if seg == "" {
			seg = "#" + strconv.Itoa(indexOf(ch.Segment.Canvas.Segments, ch.Segment))
		}
		dest = fmt.Sprintf("layout %q view %s on canvas %q segment %s", ch.View.Layout.Name, ch.View.label(), ch.Segment.Canvas.Name, seg)
	}
	return ch.Name, dest
}

// label is v's name, or "#i" for the layout's i-th view where it has none.
func (v *View) label() string {
	if v.Name != "" {
		return v.Name
	}
	return "#" + strconv.Itoa(indexOf(v.Layout.Views, v))
}

func indexOf[T comparable](list []T, x T) int {
	for i, v := range list {
		if v == x {
			return i
		}
	}
	return -1
}

func compoundLabel(c *Compound) string { return c.Path() }

func explainCompound(cfg *Config, c *Compound, path string) ExplainCompound {
	name, dest := channelLabel(c.Channel)
	e := ExplainCompound{
		Path: path, Name: c.Name, Generated: c.Generated, Channel: name, Destination: dest,
		Tasks: bitNames(c.Tasks, taskNames), Eyes: bitNames(c.Eyes, eyeNames), Buffers: bitNames(c.Buffers, bufferNames),
		Viewport: vp4(c.Viewport), Range: [2]float64{r6(c.Range.Start), r6(c.Range.End)},
		Pixel: [4]int{c.Pixel.X, c.Pixel.Y, c.Pixel.W, c.Pixel.H}, Subpixel: [2]int{c.Subpixel.Index, c.Subpixel.Size},
		Zoom: [2]float64{r6(c.Zoom.X), r6(c.Zoom.Y)}, Period: c.Period, Phase: c.Phase,
		Wall: explainWall(c.Frustum), SwapBarrier: c.SwapBarrier, Attributes: c.Attributes,
		EyeFrusta: []ExplainEyeFrustum{},
	}
	if c.Channel != nil {
		e.PixelVP = pvp4(c.Channel.PixelViewport.Apply(c.Viewport.RelativeTo(destinationViewport(c))))
	}
	if c.Frustum != nil {
		frustum := *c.Frustum
		if v := ViewOf(c); v != nil && !frustum.HMD {
			frustum = frustum.movedFocus((&Changes{}).focusOf(cfg, v)) // as planned, heads untracked
		}
		for i, eye := range []int{EyeCyclop, EyeLeft, EyeRight} {
			if c.Eyes&eye == 0 {
				continue
			}
			wall, pos := (*Tracking)(nil).Eye(cfg, c, frustum, eye)
			f := wall.EyeFrustum(pos, DefaultNear, DefaultFar)
			e.EyeFrusta = append(e.EyeFrusta, ExplainEyeFrustum{eyeNames[i], [6]float64{r6(f.Left), r6(f.Right), r6(f.Bottom), r6(f.Top), f.Near, f.Far}})
		}
	}
	for _, f := range c.OutputFrames {
		ef := explainFrame(f)
		for _, cons := range f.Consumers {
			ef.Consumers = append(ef.Consumers, compoundLabel(cons))
		}
		e.OutputFrames = append(e.OutputFrames, ef)
	}
	for _, f := range c.InputFrames {
		ef := explainFrame(f)
		for _, p := range f.Producers {
			ef.From = append(ef.From, compoundLabel(p))
		}
		e.InputFrames = append(e.InputFrames, ef)
	}
	for _, q := range c.OutputTiles {
		e.OutputTiles = append(e.OutputTiles, ExplainTiles{q.Name, q.Size})
	}
	for _, q := range c.InputTiles {
		e.InputTiles = append(e.InputTiles, ExplainTiles{q.Name, q.Size})
	}
	for _, eq := range c.Equalizers {
		e.Equalizers = append(e.Equalizers, explainEqualizer(eq))
	}
	for i, ch := range c.Children {
		e.Children = append(e.Children, explainCompound(cfg, ch, path+"."+strconv.Itoa(i)))
	}
	return e
}

// destinationViewport is the viewport of the nearest compound up the tree
// that uses the same channel as c's root-most user: c's pixels are that
// channel's pixels cut by c's viewport relative to it.
func destinationViewport(c *Compound) Viewport {
	top := c
	for p := c.Parent; p != nil; p = p.Parent {
		if p.Channel == c.Channel {
			top = p
		}
	}
	if top == c {
		return FullViewport
	}
	return top.Viewport
}

func explainFrame(f *Frame) ExplainFrame {
	return ExplainFrame{Name: f.Name, Type: f.TypeName(), Viewport: vp4(f.Viewport), Buffers: bitNames(f.Buffers, bufferNames),
		Zoom: [2]float64{r6(f.Zoom.X), r6(f.Zoom.Y)}}
}

func fnum(f float64) string { return strconv.FormatFloat(r6(f), 'g', -1, 64) }

func explainEqualizer(eq *Equalizer) ExplainEqualizer {
	e := ExplainEqualizer{Kind: eq.Kind.String()}
	switch eq.Kind {
	case LoadEqualizer, TreeEqualizer:
		e.Mode = eq.Mode.String()
		d := eq.Damping
		e.Damping = &d
		if eq.Mode == SplitDB {
			e.Boundary = fnum(eq.BoundaryDB)
			e.Resistance = fnum(eq.ResistanceDB)
		} else {
			e.Boundary = fmt.Sprintf("[ %d %d ]", eq.Boundary2D[0], eq.Boundary2D[1])
			e.Resistance = fmt.Sprintf("[ %d %d ]", eq.Resistance2D[0], eq.Resistance2D[1])
		}
		if eq.Kind == LoadEqualizer {
			e.AssembleOnlyLimit = "unlimited"
			if eq.AssembleOnlyLimit != nil {
				e.AssembleOnlyLimit = fnum(*eq.AssembleOnlyLimit)
			}
		}
		a := eq.Adaptive
		e.Adaptive = &a
	case DFREqualizer:
		d, f := eq.Damping, eq.Framerate
		e.Damping, e.Framerate = &d, &f
	case TileEqualizer:
		e.Name = eq.Name
		if eq.ChunkDB > 0 {
			e.Size = fnum(eq.ChunkDB)
		} else {
			e.Size = fmt.Sprintf("[ %d %d ]", eq.TileSize[0], eq.TileSize[1])
		}
	}
	return e
}

// WriteJSON writes the explain view as indented JSON.
func (e *ExplainModel) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(e)
}

// WriteText writes the explain view for people: one line per element,
// compounds as an indented tree with every resolved value.
func (e *ExplainModel) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	p := func(indent int, format string, args ...any) {
		b.WriteString(strings.Repeat("  ", indent))
		fmt.Fprintf(b, format, args...)
		b.WriteByte('\n')
	}
	p(0, "format version %g", e.Version)
	for _, k := range sortedKeys(e.Global) {
		p(0, "global %s %s", k, e.Global[k])
	}
	for _, c := range e.Configs {
		p(0, "config %q latency %d eye_base %g robustness %s", c.Name, c.Latency, c.EyeBase, c.Robustness)
		for _, n := range c.Nodes {
			kind := "node"
			if n.App {
				kind = "appNode"
			}
			p(1, "%s %q host %q%s", kind, n.Name, n.Host, attrText(n.Attributes))
			for _, conn := range n.Connections {
				p(2, "connection %s hostname %q port %d", conn.Type, conn.Hostname, conn.Port)
			}
			for _, pp := range n.Pipes {
				p(2, "pipe %q device %d pixel_viewport %v%s", pp.Name, pp.Device, pp.PixelViewport, attrText(pp.Attributes))
				for _, win := range pp.Windows {
					p(3, "window %q pixel_viewport %v%s", win.Name, win.PixelViewport, attrText(win.Attributes))
					for _, ch := range win.Channels {
						p(4, "channel %q viewport %v pixel_viewport %v%s", ch.Name, ch.Viewport, ch.PixelViewport, attrText(ch.Attributes))
					}
				}
			}
		}
		for i, o := range c.Observers {
			p(1, "observer %d %q eyes left %v cyclop %v right %v focus %g %s", i, o.Name, o.EyeLeft, o.EyeCyclop, o.EyeRight, o.FocusDistance, o.FocusMode)
		}
		for i, l := range c.Layouts {
			p(1, "layout %d %q", i, l.Name)
			for j, v := range l.Views {
				p(2, "view %d %q %s viewport %v observer %q%s", j, v.Name, v.Mode, v.Viewport, v.Observer, wallText(v.Wall))
			}
		}
		for i, cv := range c.Canvases {
			p(1, "canvas %d %q layouts %q%s", i, cv.Name, cv.Layouts, wallText(cv.Wall))
			for j, s := range cv.Segments {
				p(2, "segment %d %q channel %q eyes %v viewport %v%s", j, s.Name, s.Channel, s.Eyes, s.Viewport, wallText(s.Wall))
			}
		}
		for _, cc := range c.Compounds {
			writeCompoundText(p, 1, cc)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCompoundText(p func(int, string, ...any), in int, c ExplainCompound) {
	head := "compound " + c.Path
	if c.Name != "" {
		head += fmt.Sprintf(" %q", c.Name)
	}
	if c.Generated {
		head += " (generated for an unused destination channel)"
	}
	p(in, "%s", head)
	ch := fmt.Sprintf("%q", c.Channel)
	if c.Destination != "" {
		ch += " showing " + c.Destination
	}
	p(in+1, "channel %s", ch)
	p(in+1, "tasks %v eyes %v buffers %v period %d phase %d", c.Tasks, c.Eyes, c.Buffers, c.Period, c.Phase)
	p(in+1, "viewport %v pixel_viewport %v range %v pixel %v subpixel %v zoom %v", c.Viewport, c.PixelVP, c.Range, c.Pixel, c.Subpixel, c.Zoom)
	if c.Wall != nil {
		p(in+1, "%s", strings.TrimPrefix(wallText(c.Wall), " "))
	}
	for _, f := range c.EyeFrusta {
		p(in+1, "frustum %s [l r b t n f] %v", f.Eye, f.Frustum)
	}
	p(in+1, "attributes%s", attrText(c.Attributes))
	if c.SwapBarrier != nil {
		p(in+1, "swapbarrier %q NV_group %s NV_barrier %s", c.SwapBarrier.Name, c.SwapBarrier.NVGroup, c.SwapBarrier.NVBarrier)
	}
	for _, f := range c.OutputFrames {
		p(in+1, "outputframe %q %s viewport %v buffers %v zoom %v consumed by %v", f.Name, f.Type, f.Viewport, f.Buffers, f.Zoom, f.Consumers)
	}
	for _, f := range c.InputFrames {
		p(in+1, "inputframe %q %s viewport %v buffers %v zoom %v from compounds %v", f.Name, f.Type, f.Viewport, f.Buffers, f.Zoom, f.From)
	}
	for _, q := range c.OutputTiles {
		p(in+1, "outputtiles %q size %v", q.Name, q.Size)
	}
	for _, q := range c.InputTiles {
		p(in+1, "inputtiles %q size %v", q.Name, q.Size)
	}
	for _, e := range c.Equalizers {
		s := e.Kind + "_equalizer"
		if e.Mode != "" {
			s += " mode " + e.Mode
		}
		if e.Damping != nil {
			s += " damping " + fnum(*e.Damping)
		}
		if e.Boundary != "" {
			s += " boundary " + e.Boundary + " resistance " + e.Resistance
		}
		if e.AssembleOnlyLimit != "" {
			s += " assemble_only_limit " + e.AssembleOnlyLimit
		}
		if e.Adaptive != nil {
			s += " adaptive " + map[bool]string{true: "ON", false: "OFF"}[*e.Adaptive]
		}
		if e.Framerate != nil {
			s += " framerate " + fnum(*e.Framerate)
		}
		if e.Name != "" {
			s += fmt.Sprintf(" name %q size %s", e.Name, e.Size)
		}
		p(in+1, "%s", s)
	}
	for _, child := range c.Children {
		writeCompoundText(p, in+1, child)
	}
}

func wallText(w *ExplainWall) string {
	if w == nil {
		return ""
	}
	return fmt.Sprintf(" wall bl %v br %v tl %v %s", w.BottomLeft, w.BottomRight, w.TopLeft, w.Type)
}

func attrText(a map[string]string) string {
	if len(a) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(a) {
		parts = append(parts, k+"="+a[k])
	}
	return " {" + strings.Join(parts, " ") + "}"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
