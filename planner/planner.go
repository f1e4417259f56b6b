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
	"math"
	"sort"

	"goeq/compound"
	"goeq/equalizer"
	"goeq/stats"
)

// Task kinds, in the order a compound runs them.
const (
	Clear    = "clear"
	Draw     = "draw"
	Assemble = "assemble"
	Readback = "readback"
)

// FrameRef names a frame a task produces or consumes.
type FrameRef struct {
	Name string `json:"name"`
	// Viewport is the part of the task's region an output frame reads
	// back, Buffers what it reads (colour, depth).
	Viewport compound.Viewport `json:"viewport"`
	Buffers  int               `json:"buffers"`
	// Channels that consume an output frame, or produce an input frame.
	Peers []string `json:"peers"`
}

// Task is one unit of work for one channel in one frame.
type Task struct {
	Kind          string                 `json:"kind"`
	Compound      string                 `json:"compound"`
	Eye           int                    `json:"eye"`
	Viewport      compound.Viewport      `json:"viewport"` // of the destination
	PixelViewport compound.PixelViewport `json:"pixel_viewport"`
	Range         compound.Range         `json:"range"`
	Pixel         compound.Pixel         `json:"pixel"`
	Subpixel      compound.Subpixel      `json:"subpixel"`
	Zoom          compound.Zoom          `json:"zoom"`
	Frustum       compound.Frustum       `json:"frustum"`
	ViewMatrix    [16]float64            `json:"view_matrix"` // column-major
	Buffers       int                    `json:"buffers"`
	// Dest is the destination channel's size in pixels, Offset the part of
	// it this task covers, and DestFrustum the destination's frustum for
	// the eye: a renderer projects with DestFrustum and the adjustment that
	// maps its pixels onto Offset (render.Sub), which keeps decomposed
	// renders pixel-exact.
	Dest        compound.PixelViewport `json:"dest"`
	Offset      compound.PixelViewport `json:"offset"`
	DestFrustum compound.Frustum       `json:"dest_frustum"`
	Outputs     []FrameRef             `json:"outputs,omitempty"`
	Inputs      []FrameRef             `json:"inputs,omitempty"`
}

// ChannelPlan is one channel's tasks for a frame, in execution order.
type ChannelPlan struct {
	Channel *compound.Channel
	Tasks   []Task
}

// CompoundState is what the planner decided for one compound this frame.
type CompoundState struct {
	Active   bool
	Skip     bool // active but renders nothing (assemble-only, empty share)
	Local    compound.Local
	Viewport compound.Viewport // composed, relative to the destination
	Range    compound.Range
	Pixel    compound.Pixel
	Subpixel compound.Subpixel
	Zoom     compound.Zoom
}

// FramePlan is the plan of one frame.
type FramePlan struct {
	Frame     int
	Channels  []*ChannelPlan
	Compounds map[string]CompoundState
	// Interval is the minimum time between swaps the framerate equalizer
	// asks for (seconds; 0: none).
	Interval float64
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
	latest    *stats.Frame
	// history keeps each planned frame's compound states so statistics that
	// arrive late (latency) are read against the regions they measured.
	history map[int]map[string]CompoundState
	// down holds channels whose node died: their compounds leave the
	// frame and the equalizers share their work out.
	down map[*compound.Channel]bool
	// Overhead is the planning and interaction cost the live server
	// measures (seconds per frame); the adaptive policy sets its
	// balancing period from it.
	Overhead float64
}

// New prepares a planner with a state machine per equalizer of cfg.
func New(cfg *compound.Config) *Planner {
	p := &Planner{cfg: cfg, loads: map[*compound.Compound]*equalizer.Load{}, trees: map[*compound.Compound]bool{},
		views: map[*compound.Compound]*equalizer.View{}, dfrs: map[*compound.Compound]*equalizer.DFR{},
		framerate: map[*compound.Compound]*equalizer.Framerate{}, usage: map[*compound.Compound]float64{},
		history: map[int]map[string]CompoundState{}, down: map[*compound.Channel]bool{}}
	cfg.Walk(func(c *compound.Compound) {
		for _, eq := range c.Equalizers {
			switch eq.Kind {
			case "load", "tree":
				w, h := 1, 1
				if c.Channel != nil {
					pvp := c.Channel.PixelViewport.Apply(c.Viewport)
					w, h = pvp.W, pvp.H
				}
				p.loads[c] = equalizer.NewLoad(*eq, w, h)
				p.trees[c] = eq.Kind == "tree"
			case "view":
				p.views[c] = equalizer.NewView(0.5)
			case "DFR":
				p.dfrs[c] = equalizer.NewDFR(*eq)
			case "framerate":
				p.framerate[c] = &equalizer.Framerate{Damping: 0.5}
			}
		}
	})
	return p
}

// Config returns the planned config.
func (p *Planner) Config() *compound.Config { return p.cfg }

// Load returns the load or tree equalizer attached to c, if any.
func (p *Planner) Load(c *compound.Compound) *equalizer.Load { return p.loads[c] }

// SetChannelDown takes a channel out of (or back into) the frames: its
// compounds become inactive and the equalizers redistribute their work.
func (p *Planner) SetChannelDown(ch *compound.Channel, down bool) {
	if down {
		p.down[ch] = true
	} else {
		delete(p.down, ch)
	}
}

// Feed delivers the statistics of a finished frame. Only the newest frame
// is used: each load equalizer balances on its last measurement.
func (p *Planner) Feed(f stats.Frame) {
	if p.latest == nil || f.Frame > p.latest.Frame {
		cp := f
		p.latest = &cp
	}
}

// Plan computes the plan for frame.
func (p *Planner) Plan(frame int) *FramePlan {
	plan := &FramePlan{Frame: frame, Compounds: map[string]CompoundState{}}
	states := plan.Compounds
	// 1. base state: active by period/phase, local values as configured
	p.cfg.Walk(func(c *compound.Compound) {
		states[c.Path()] = CompoundState{Active: c.IsActive(frame) && !p.down[c.Channel], Local: c.Local}
	})
	// 2. equalizers, top-down so that inner ones see their share
	p.cfg.Walk(func(c *compound.Compound) {
		p.runEqualizers(c, frame, states, plan)
	})
	// 3. compose locals into destination-relative values
	for _, root := range p.cfg.Compounds {
		compose(root, nil, states)
	}
	p.history[frame] = states
	delete(p.history, frame-64)
	// 4. tasks
	byChannel := map[*compound.Channel]*ChannelPlan{}
	for _, root := range p.cfg.Compounds {
		p.emit(root, states, byChannel, plan)
	}
	return plan
}

func compose(c *compound.Compound, parent *CompoundState, states map[string]CompoundState) {
	s := states[c.Path()]
	if parent == nil {
		s.Viewport, s.Range, s.Pixel, s.Subpixel, s.Zoom = s.Local.Viewport, s.Local.Range, s.Local.Pixel, s.Local.Subpixel, s.Local.Zoom
	} else {
		s.Viewport = parent.Viewport.Apply(s.Local.Viewport)
		s.Range = parent.Range.Apply(s.Local.Range)
		s.Pixel = parent.Pixel.Apply(s.Local.Pixel)
		s.Subpixel = parent.Subpixel.Apply(s.Local.Subpixel)
		s.Zoom = compound.Zoom{X: parent.Zoom.X * s.Local.Zoom.X, Y: parent.Zoom.Y * s.Local.Zoom.Y}
		s.Active = s.Active && parent.Active
		s.Skip = s.Skip || parent.Skip && c.Channel == nil
	}
	states[c.Path()] = s
	for _, ch := range c.Children {
		compose(ch, &s, states)
	}
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
		found := false
		for _, r := range p.latest.Records {
			if r.Compound == child.Path() || isBelow(r.Compound, child.Path()) {
				// the grid wants rendering work: assembly comes off the
				// destination's share separately, data loading is one-off
				busy += (r.Times.Busy() - r.Times.Assemble - r.Times.DataLoad).Seconds()
				assemble += r.Times.Assemble.Seconds()
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
			Range: st.Local.Range, Busy: busy, Assemble: assemble})
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
	if l := p.loads[c]; l != nil && len(c.Children) > 0 {
		var children []equalizer.Child
		for _, ch := range c.Children {
			u := 1.0
			if v, ok := p.usage[ch]; ok {
				u = v
			}
			if p.trees[c] {
				u *= float64(leaves(ch))
			}
			children = append(children, equalizer.Child{Path: ch.Path(), Active: states[ch.Path()].Active && states[c.Path()].Active,
				Usage: u, Destination: ch.Channel == c.Channel})
		}
		samples := p.samples(c)
		if l.Adaptive != nil {
			p.observeAdaptive(l, samples)
		}
		for _, a := range l.Plan(children, samples) {
			s := states[a.Path]
			s.Skip = a.Skip
			if l.Params.Mode == "DB" {
				s.Local.Range = a.Range
			} else {
				s.Local.Viewport = a.Viewport
			}
			states[a.Path] = s
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
		var times []float64
		for _, ch := range c.Children {
			t := 0.0
			for _, r := range p.latest.ByCompound(ch.Path()) {
				t += r.Times.Busy().Seconds()
			}
			if t > 0 {
				times = append(times, t*float64(ch.Period))
			}
		}
		plan.Interval = math.Max(plan.Interval, f.Update(times, len(c.Children)))
	}
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
	if tasks > 0 && pixels > 0 && l.Params.Mode != "DB" {
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

// eyesFor returns the eyes a compound renders this frame: its eyes, cut to
// what its view shows (a mono view only the cyclop eye, a stereo view only
// left and right).
func eyesFor(c *compound.Compound) []int {
	mode := ""
	for x := c; x != nil; x = x.Parent {
		if x.Channel != nil && x.Channel.View != nil {
			mode = x.Channel.View.Mode
		}
	}
	var out []int
	for _, e := range []int{compound.EyeCyclop, compound.EyeLeft, compound.EyeRight} {
		if c.Eyes&e == 0 {
			continue
		}
		if mode == "MONO" && e != compound.EyeCyclop || mode == "STEREO" && e == compound.EyeCyclop {
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 && c.Eyes&compound.EyeCyclop != 0 {
		out = []int{compound.EyeCyclop}
	}
	return out
}

// emit appends c's tasks and its subtree's to the channels, in the order
// they run: clear and draw on the way down, assemble and readback on the
// way up.
func (p *Planner) emit(c *compound.Compound, states map[string]CompoundState, byChannel map[*compound.Channel]*ChannelPlan, plan *FramePlan) {
	s := states[c.Path()]
	if !s.Active {
		return
	}
	var cp *ChannelPlan
	if c.Channel != nil {
		cp = byChannel[c.Channel]
		if cp == nil {
			cp = &ChannelPlan{Channel: c.Channel}
			byChannel[c.Channel] = cp
			plan.Channels = append(plan.Channels, cp)
		}
	}
	eyes := eyesFor(c)
	task := func(kind string, eye int) Task {
		t := Task{Kind: kind, Compound: c.Path(), Eye: eye, Viewport: s.Viewport, Range: s.Range, Pixel: s.Pixel,
			Subpixel: s.Subpixel, Zoom: s.Zoom, Buffers: c.Buffers}
		if c.Channel != nil {
			t.PixelViewport = pixelViewport(c, s.Viewport, states)
		}
		if c.Frustum != nil {
			base := c.Frustum
			if w := wallOf(c, s.Viewport); w != nil {
				base = w
			}
			eyePos := eyePosition(p.cfg, c, eye)
			t.Frustum = base.EyeFrustum(eyePos, compound.DefaultNear, compound.DefaultFar)
			t.ViewMatrix = viewMatrix(*base, eyePos)
		}
		if dest := destinationOf(c); dest != nil {
			ds := states[dest.Path()]
			t.Dest = compound.PixelViewport{W: dest.Channel.PixelViewport.W, H: dest.Channel.PixelViewport.H}
			t.Offset = t.Dest.Apply(s.Viewport.RelativeTo(ds.Viewport))
			if dest.Frustum != nil {
				eyePos := eyePosition(p.cfg, c, eye)
				t.DestFrustum = dest.Frustum.EyeFrustum(eyePos, compound.DefaultNear, compound.DefaultFar)
				t.ViewMatrix = viewMatrix(*dest.Frustum, eyePos)
			}
		}
		return t
	}
	renders := cp != nil && !s.Skip
	if renders {
		for _, e := range eyes {
			if c.Tasks&compound.TaskClear != 0 {
				cp.Tasks = append(cp.Tasks, task(Clear, e))
			}
			if c.Tasks&compound.TaskDraw != 0 && c.IsLeaf() {
				cp.Tasks = append(cp.Tasks, task(Draw, e))
			}
		}
	}
	for _, ch := range c.Children {
		p.emit(ch, states, byChannel, plan)
	}
	if cp == nil {
		return
	}
	for _, e := range eyes {
		if c.Tasks&compound.TaskDraw != 0 && !c.IsLeaf() && renders {
			// an inner compound that draws does so before assembling
			cp.Tasks = append(cp.Tasks, task(Draw, e))
		}
		if c.Tasks&compound.TaskAssemble != 0 && len(c.InputFrames) > 0 {
			t := task(Assemble, e)
			for _, f := range c.InputFrames {
				ref := FrameRef{Name: f.Name}
				for _, prod := range f.Producers {
					if ps := states[prod.Path()]; ps.Active && !ps.Skip && prod.Channel != nil {
						ref.Peers = append(ref.Peers, prod.Channel.Name)
					}
				}
				if len(ref.Peers) > 0 {
					t.Inputs = append(t.Inputs, ref)
				}
			}
			if len(t.Inputs) > 0 {
				cp.Tasks = append(cp.Tasks, t)
			}
		}
		if c.Tasks&compound.TaskReadback != 0 && len(c.OutputFrames) > 0 && renders {
			t := task(Readback, e)
			for _, f := range c.OutputFrames {
				ref := FrameRef{Name: f.Name, Viewport: f.Viewport, Buffers: f.Buffers}
				for _, cons := range f.Consumers {
					if cs := states[cons.Path()]; cs.Active && cons.Channel != nil {
						ref.Peers = append(ref.Peers, cons.Channel.Name)
					}
				}
				sort.Strings(ref.Peers)
				t.Outputs = append(t.Outputs, ref)
			}
			cp.Tasks = append(cp.Tasks, t)
		}
	}
}

// destinationOf is the top-most compound with a channel above (or at) c:
// the one whose channel shows the result.
func destinationOf(c *compound.Compound) *compound.Compound {
	var dest *compound.Compound
	for x := c; x != nil; x = x.Parent {
		if x.Channel != nil {
			dest = x
		}
	}
	return dest
}

// pixelViewport is the part of c's channel it renders: the channel's pixels
// cut by c's viewport relative to the top-most compound on that channel.
func pixelViewport(c *compound.Compound, vp compound.Viewport, states map[string]CompoundState) compound.PixelViewport {
	top := compound.FullViewport
	for x := c.Parent; x != nil; x = x.Parent {
		if x.Channel == c.Channel {
			top = states[x.Path()].Viewport
		}
	}
	return c.Channel.PixelViewport.Apply(vp.RelativeTo(top))
}

// wallOf returns the wall the compound renders this frame: its destination
// wall cut to its (equalized) viewport.
func wallOf(c *compound.Compound, vp compound.Viewport) *compound.Wall {
	root := c
	for root.Parent != nil {
		root = root.Parent
	}
	var dest *compound.Compound
	for x := c; x != nil; x = x.Parent {
		if x.IsDestination() {
			dest = x
		}
	}
	if dest == nil || dest.Frustum == nil {
		return nil
	}
	w := dest.Frustum.Sub(vp.RelativeTo(dest.Viewport))
	return &w
}

func eyePosition(cfg *compound.Config, c *compound.Compound, eye int) compound.Vec3 {
	var obs *compound.Observer
	for x := c; x != nil && obs == nil; x = x.Parent {
		if x.Channel != nil && x.Channel.View != nil {
			obs = x.Channel.View.Observer
		}
	}
	if obs == nil {
		h := cfg.EyeBase / 2
		obs = &compound.Observer{EyeLeft: compound.Vec3{-h, 0, 0}, EyeRight: compound.Vec3{h, 0, 0}}
	}
	switch eye {
	case compound.EyeLeft:
		return obs.EyeLeft
	case compound.EyeRight:
		return obs.EyeRight
	}
	return obs.EyeCyclop
}

// viewMatrix is the column-major matrix from world to the wall-aligned eye
// space: rows are the wall's right, up and normal axes, translated by the
// eye.
func viewMatrix(w compound.Wall, eye compound.Vec3) [16]float64 {
	u := w.BottomRight.Sub(w.BottomLeft).Normalized()
	v := w.TopLeft.Sub(w.BottomLeft).Normalized()
	n := u.Cross(v).Normalized()
	return [16]float64{
		u[0], v[0], n[0], 0,
		u[1], v[1], n[1], 0,
		u[2], v[2], n[2], 0,
		-u.Dot(eye), -v.Dot(eye), -n.Dot(eye), 1,
	}
}
