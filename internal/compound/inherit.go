package compound

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/goeq/goeq/internal/configparser"
)

// inherit resolves c and its subtree the way Equalizer does: a root takes
// eyes all (a destination without a view the cyclop eye), period 1, phase
// 0, buffer COLOR; a child composes its viewport,
// range, pixel, subpixel and zoom with its parent's and takes the parent's
// channel, eyes, period, phase and buffers unless it sets its own. A
// destination's viewport cuts its wall, not its channel: it shows that
// part of the wall on the whole channel (old configs tile one wall over
// windows so, each window's compound a quarter of a channel-less root).
func (r *resolver) inherit(c *Compound) {
	d := r.raw[c]
	p := c.Parent
	destination := c.Channel != nil && (p == nil || p.Channel == nil)
	c.Local = Local{Viewport: d.viewport, Range: d.rng, Pixel: d.pixel, Subpixel: d.subpixel, Zoom: d.zoom}
	if destination {
		c.Local.Viewport = FullViewport
	}
	if p == nil {
		c.Viewport, c.Range, c.Pixel, c.Subpixel, c.Zoom = d.viewport, d.rng, d.pixel, d.subpixel, d.zoom
		c.Eyes, c.Period, c.Phase, c.Buffers = EyesAll, 1, 0, BufferColor
		attrs := globalDefaults(r.model.Global, "COMPOUND")
		base := map[string]string{"stereo_mode": "AUTO", "stereo_anaglyph_left_mask": "[ RED ]", "stereo_anaglyph_right_mask": "[ GREEN BLUE ]"}
		for k, v := range attrs {
			base[k] = v
		}
		for k, v := range c.Attributes {
			base[k] = v
		}
		c.Attributes = base
	} else {
		if c.Channel == nil {
			c.Channel = p.Channel
		}
		c.Viewport = p.Viewport.Apply(d.viewport)
		c.Range = p.Range.Apply(d.rng)
		c.Pixel = p.Pixel.Apply(d.pixel)
		c.Subpixel = p.Subpixel.Apply(d.subpixel)
		c.Zoom = Zoom{p.Zoom.X * d.zoom.X, p.Zoom.Y * d.zoom.Y}
		c.Eyes, c.Period, c.Phase, c.Buffers = p.Eyes, p.Period, p.Phase, p.Buffers
		merged := map[string]string{}
		for k, v := range p.Attributes {
			merged[k] = v
		}
		for k, v := range c.Attributes {
			merged[k] = v
		}
		c.Attributes = merged
	}
	switch {
	case d.eyes >= 0:
		c.Eyes = d.eyes
	case r.defaultEyes(c) && c.Destination() != nil && c.Destination().Channel.View == nil:
		// A destination without a view is mono unless eyes are set: a
		// view's mode cannot make it stereo. Equalizer renders such
		// children's cyclop eye alone (its reliability tests count on it:
		// Source pipe failure-6d3r3a draws twice a frame, not six times).
		c.Eyes = EyeCyclop
	}
	if d.period >= 0 {
		c.Period = d.period
	}
	if d.phase >= 0 {
		c.Phase = d.phase
	}
	if d.buffers >= 0 {
		c.Buffers = d.buffers
	}
	if c.Period > 0 && c.Phase >= c.Period {
		c.Phase %= c.Period
	}

	// Tasks: a leaf does everything, an inner compound clears, assembles
	// and reads back; neither clears a channel an ancestor already cleared
	// (Equalizer spares only leaves, and an inner compound's second clear
	// wipes what a sibling tree drew there, as in 4-window.DB.2D.lb).
	// Without frames there is nothing to read back or assemble.
	switch {
	case d.tasks >= 0:
		c.Tasks = d.tasks
	default:
		c.Tasks = TaskClear | TaskAssemble | TaskReadback
		if c.IsLeaf() {
			c.Tasks = TasksAll
		}
		for a := c.Parent; a != nil; a = a.Parent {
			if r.namedChannel(a) == r.namedChannel(c) && (c.IsLeaf() || a.Tasks&TaskClear != 0) {
				c.Tasks &^= TaskClear
				break
			}
		}
	}
	if len(d.outputFrames) == 0 {
		c.Tasks &^= TaskReadback
	}
	if len(d.inFrames) == 0 {
		c.Tasks &^= TaskAssemble
	}

	// Frustum: the compound's own wall, else the one it inherits (its
	// destination channel's at the root), cut to its viewport. A wall
	// set at a destination is its whole channel's.
	var fb frustumBase
	ownVP := c.Viewport
	if destination {
		ownVP = FullViewport
	}
	switch {
	case d.frustum != nil:
		fb = frustumBase{wall: *d.frustum, vp: ownVP, owner: c}
	case c.Channel != nil && c.Channel.Frustum != nil && c.IsDestination():
		fb = frustumBase{wall: *c.Channel.Frustum, vp: ownVP, owner: c}
	case p != nil:
		fb = r.base[p]
	default:
		fb = frustumBase{wall: DefaultWall, vp: FullViewport, owner: c}
	}
	if destination {
		cut := c.Viewport
		c.Viewport = FullViewport
		fb = frustumBase{wall: fb.wall.Sub(cut.RelativeTo(fb.vp)), vp: FullViewport, owner: c}
	}
	r.base[c] = fb
	w := fb.wall.Sub(c.Viewport.RelativeTo(fb.vp))
	c.Frustum = &w
	base := fb.wall
	c.Wall, c.WallOwner = &base, fb.owner

	for _, ch := range c.Children {
		r.inherit(ch)
	}
	if destination && c.Channel.View == nil && r.defaultEyes(c) {
		// it shows the eyes its tree draws, where some set theirs
		if drawn := drawnEyes(c); drawn != 0 {
			c.Eyes = drawn
		}
	}
}

// defaultEyes reports whether neither c nor a compound above it sets eyes.
func (r *resolver) defaultEyes(c *Compound) bool { return r.eyeListOf(c) == nil }

// eyeListOf is the compound whose eye list c renders: c, or the nearest
// compound above it that writes one (nil: none does, all eyes).
func (r *resolver) eyeListOf(c *Compound) *Compound {
	for x := c; x != nil; x = x.Parent {
		if r.raw[x].eyes >= 0 {
			return x
		}
	}
	return nil
}

// drawnEyes are the eyes that the compounds of c's tree draw.
func drawnEyes(c *Compound) int {
	eyes := 0
	c.Walk(func(x *Compound) {
		if x.Tasks&TaskDraw != 0 && x.Channel != nil {
			eyes |= x.Eyes
		}
	})
	return eyes
}

// convert10 applies Equalizer's 1.0 to 1.1 conversion: a destination
// compound that renders stereo eyes without the cyclop eye makes its view
// a stereo view, and segments show the eyes their compounds render.
func (r *resolver) convert10(cfg *Config) {
	if r.model.Version >= 1.1 {
		return
	}
	for _, s := range cfg.Canvases {
		for _, seg := range s.Segments {
			seg.Eyes = 0
		}
	}
	for _, root := range cfg.Compounds {
		r.convertDestinations10(root)
	}
	for _, s := range cfg.Canvases {
		for _, seg := range s.Segments {
			if seg.Eyes == 0 {
				seg.Eyes = EyesAll
			}
		}
	}
}

// convertDestinations10 converts the destinations in c's subtree, the
// first compounds with a channel on each path down (a group of
// destinations without a channel, as an HMD's two eyes, holds several):
// the eyes a destination renders are its own, or those of the nearest
// compound above it that names some, as Equalizer's conversion takes them.
func (r *resolver) convertDestinations10(c *Compound) {
	ch := c.Channel
	if ch == nil {
		for _, child := range c.Children {
			r.convertDestinations10(child)
		}
		return
	}
	if ch.View == nil || ch.Segment == nil {
		return
	}
	eyes := EyesAll
	if from := r.eyeListOf(c); from != nil {
		d := r.raw[from]
		eyes = d.eyes
		if eyes&EyeCyclop == 0 {
			ch.View.Stereo = true
			d.eyes |= EyeCyclop
		}
	}
	ch.Segment.Eyes |= eyes | EyeCyclop
}

// addOutputCompounds gives every destination channel that no root compound
// uses a compound of its own, grouped by layout (as Equalizer does for
// configs whose canvases have no compound).
func (r *resolver) addOutputCompounds(cfg *Config) {
	// a channel is used when it is some tree's destination: the first
	// compound with a channel on a path from a root (as Equalizer's
	// UnusedOutputChannelFinder looks)
	used := map[*Channel]bool{}
	var visit func(c *Compound)
	visit = func(c *Compound) {
		if c.Channel != nil {
			used[c.Channel] = true
			return
		}
		for _, ch := range c.Children {
			visit(ch)
		}
	}
	for _, root := range cfg.Compounds {
		visit(root)
	}
	var unused []*Channel
	for _, ch := range cfg.Channels {
		if ch.View != nil && !used[ch] {
			unused = append(unused, ch)
		}
	}
	for len(unused) > 0 {
		layout := unused[0].View.Layout
		group := &Compound{Name: layout.Name, Attributes: map[string]string{}, Generated: true, Index: len(cfg.Compounds)}
		r.raw[group] = newCompoundData()
		var rest []*Channel
		for _, ch := range unused {
			if ch.View.Layout != layout {
				rest = append(rest, ch)
				continue
			}
			child := &Compound{Name: layout.Name, Parent: group, Channel: ch, Attributes: map[string]string{},
				Generated: true, Index: len(group.Children)}
			r.raw[child] = newCompoundData()
			group.Children = append(group.Children, child)
		}
		cfg.Compounds = append(cfg.Compounds, group)
		unused = rest
	}
}

func newCompoundData() *compoundData {
	return &compoundData{tasks: -1, eyes: -1, buffers: -1, viewport: FullViewport, rng: FullRange,
		pixel: Pixel{0, 0, 1, 1}, subpixel: Subpixel{0, 1}, zoom: Zoom{1, 1}, period: -1, phase: -1}
}

// frameName is Equalizer's default: frame.<compound name or channel name>.
func (r *resolver) frameName(prefix string, c *Compound) string {
	if c.Name != "" {
		return prefix + c.Name
	}
	if c.Channel != nil {
		return prefix + r.namedChannel(c).Name
	}
	return prefix
}

// namedChannel is the channel c draws on as the config names it: another
// channel over its destination's pixels, where sameAsDestination made it
// draw on the destination's channel, else its channel. Default frame
// names and clears follow the config's names, as in Equalizer.
func (r *resolver) namedChannel(c *Compound) *Channel {
	for x := c; x != nil && x.Channel == c.Channel; x = x.Parent {
		if named := r.merged[x]; named != nil {
			return named
		}
	}
	return c.Channel
}

// frames resolves output and input frames and tile queues: default names,
// unique output names, and an output frame for every input frame. Frame
// names are scoped to one root compound's tree: real configs reuse them
// across the trees of different layouts, of which only one is active.
func (r *resolver) frames(cfg *Config) {
	for _, root := range cfg.Compounds {
		outputs := map[string][]*Frame{}
		root.Walk(func(c *Compound) {
			d := r.raw[c]
			for i, f := range d.outputFrames {
				fr := r.frame(f, c, d.outPos[i])
				clash := false
				for _, prev := range outputs[fr.Name] {
					if activeTogether(prev.Compound, c) {
						r.errorf(fr.Pos, "duplicate output frame %q: already defined at line %d, column %d (two output frames may share a name only when period and phase keep them out of the same frame)", fr.Name, prev.Pos.Line, prev.Pos.Column)
						clash = true
						break
					}
				}
				if clash {
					continue
				}
				outputs[fr.Name] = append(outputs[fr.Name], fr)
				c.OutputFrames = append(c.OutputFrames, fr)
			}
			for _, q := range append(append([]*TileQueue{}, c.OutputTiles...), c.InputTiles...) {
				if q.Name == "" {
					q.Name = r.frameName("queue.", c)
				}
			}
		})
		root.Walk(func(c *Compound) {
			d := r.raw[c]
			for i, f := range d.inFrames {
				fr := r.frame(f, c, d.inPos[i])
				outs := outputs[fr.Name]
				if len(outs) == 0 && r.res.HasHeader {
					r.warnf(fr.Pos, "input frame %q has no output frame of that name in this compound tree; ignored, as Equalizer does (an error in files without an #Equalizer header)", fr.Name)
					continue
				}
				if len(outs) == 0 {
					r.errorf(fr.Pos, "input frame %q has no output frame of that name in this compound tree%s", fr.Name, knownFrames(len(outputs)))
					continue
				}
				for _, out := range outs {
					fr.Producers = append(fr.Producers, out.Compound)
					out.Consumers = append(out.Consumers, c)
				}
				c.InputFrames = append(c.InputFrames, fr)
			}
		})
		root.Walk(func(c *Compound) {
			for _, fr := range c.OutputFrames {
				if len(fr.Consumers) == 0 {
					r.warnf(fr.Pos, "output frame %q is assembled by no input frame in this compound tree, so what this compound draws for it shows nowhere", fr.Name)
				}
			}
		})
	}
}

func knownFrames(n int) string {
	if n == 0 {
		return " (it has no output frames)"
	}
	return fmt.Sprintf(" (%d output frame names are defined there; names must match exactly)", n)
}

// activeTogether reports whether two compounds run in a common frame:
// frame f runs c when f mod period == phase, so both run in some frame
// exactly when their phases agree modulo gcd(period1, period2).
func activeTogether(a, b *Compound) bool {
	g := gcd(a.Period, b.Period)
	return a.Phase%g == b.Phase%g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	if a == 0 {
		return 1
	}
	return a
}

func (r *resolver) frame(f *configparser.Frame, c *Compound, pos lexer.Position) *Frame {
	fr := &Frame{Viewport: FullViewport, Buffers: c.Buffers, Zoom: Zoom{1, 1}, Compound: c, Pos: pos}
	for _, ff := range f.Fields {
		switch {
		case ff.Name != nil:
			fr.Name = str(ff.Name)
		case ff.Type != "":
			fr.Texture = ff.Type == "texture"
		case ff.Viewport != nil:
			fr.Viewport = r.fracViewport(ff.Viewport, "frame")
		case ff.Buffer != nil:
			fr.Buffers = flagBits(ff.Buffer, bufferBits)
			if fr.Buffers == 0 {
				r.warnf(ff.Buffer.Pos, "buffer [ ]: this frame carries neither colour nor depth, so nothing passes through it")
			}
		case ff.Zoom != nil:
			v := floats(ff.Zoom.V)
			fr.Zoom = Zoom{v[0], v[1]}
			fr.ZoomPos = ff.Zoom.Pos
		}
	}
	if fr.Name == "" {
		fr.Name = r.frameName("frame.", c)
	}
	return fr
}
