// Package reference is the oracle that decomposed runs are checked
// against (`eqserver run --reference`): every destination channel renders
// the whole frame itself, with the same frame number, eye, frustum and
// image names, and nothing else runs. It plans from the config model
// alone; none of the planner's decomposition (shares, regions, frames,
// equalizers) is used, so a bug there cannot hide in both.
package reference

import (
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// Planner plans reference frames (scheduler.Planner).
type Planner struct {
	cfg *compound.Config
	// Changes are the heads, layouts, view modes and model units and the
	// window sizes the reference follows as the planner does
	// (scheduler.HeadSetter, LayoutSetter, ViewModeSetter,
	// ModelUnitSetter, WindowSizer)
	compound.Changes
}

// New returns the reference planner of cfg.
func New(cfg *compound.Config) *Planner { return &Planner{cfg: cfg} }

// Feed ignores statistics: nothing is balanced.
func (p *Planner) Feed(stats.Frame) {}

// SetChannelDown has nothing to redistribute.
func (p *Planner) SetChannelDown(*compound.Channel, bool) {}

// Nodes lists the nodes that own a destination channel: the only ones a
// reference run needs.
func (p *Planner) Nodes() []string {
	seen := map[string]bool{}
	var out []string
	p.cfg.Walk(func(c *compound.Compound) {
		if c.Channel != nil && c.Destination() == c {
			id := c.Channel.Window.Pipe.Node.ID
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	})
	return out
}

// Plan gives each destination channel that shows this frame a clear and a
// full draw per eye it shows (the clear alone where its tree neither draws
// nor assembles, and the pictures beneath it where it does not clear
// either); a channel that only shows other channels'
// images (a monitor) draws each of their views where it shows them. Eyes
// that the destination's tree interleaves share one clear, and each draw
// keeps to its eye's pixels (planner.Task.Interleave). A destination that
// draws and whose tree never clears (omegalib's generated configs leave
// the clear to the application) gets no clear either: its eyes and frames
// draw over each other, as they do in the decomposed run.
func (p *Planner) Plan(frame int) *planner.FramePlan {
	plan := &planner.FramePlan{Frame: frame, Compounds: map[string]planner.CompoundState{}}
	p.Changes.Advance(frame)
	byChannel := map[*compound.Channel]*planner.ChannelPlan{}
	seq := 0
	next := func() int { seq++; return seq }
	p.cfg.Walk(func(c *compound.Compound) {
		if c.Channel == nil || c.Destination() != c || !c.Channel.Showing() || !c.IsActive(frame) {
			return
		}
		eyes := c.Eyes & c.DestinationEyes()
		if eyes == 0 || idle(c) {
			return
		}
		cp := byChannel[c.Channel]
		if cp == nil {
			cp = &planner.ChannelPlan{Channel: c.Channel, Destination: true, Viewport: p.Sizes.Channel(c.Channel),
				WindowSize: p.Sizes.Window(c.Channel.Window), View: p.cfg.ViewIndex(c.Channel)}
			byChannel[c.Channel] = cp
			plan.Channels = append(plan.Channels, cp)
		}
		full := compound.PixelViewport{W: cp.Viewport.W, H: cp.Viewport.H}
		views, nothing, interleave := p.shown(c, full), showsNothing(c), c.EyePixels() // the same for every eye
		treeClears := clears(c)
		if nothing && !treeClears {
			views = p.beneath(c, frame)
		}
		drawsUncleared := c.Tasks&compound.TaskDraw != 0 && !treeClears
		cleared := false
		for _, eye := range compound.Eyes {
			if eyes&eye == 0 {
				continue
			}
			mask := anaglyph(c, eye)
			if !drawsUncleared && (!cleared || interleave == nil) {
				cp.Tasks = append(cp.Tasks, planner.Task{Kind: planner.Clear, Seq: next(), Home: true, Compound: c.Path(), Eye: eye, View: p.cfg.ViewIndex(c.Channel),
					Region: full, Share: full, Area: full, Viewport: compound.FullViewport, Range: compound.FullRange, ColorMask: mask})
				cleared = true
			}
			switch {
			case len(views) > 0:
				for _, v := range views {
					cp.Tasks = append(cp.Tasks, p.draw(v.source, eye, v.place, v.cut, mask, next()))
				}
			case !nothing:
				draw := p.draw(wallOwner(c), eye, full, compound.FullViewport, mask, next())
				draw.Interleave = interleave[eye]
				cp.Tasks = append(cp.Tasks, draw)
			}
		}
	})
	return plan
}

// draw is a full render of compound c's wall (as its destination shows
// it), or of the cut of it, into region.
func (p *Planner) draw(c *compound.Compound, eye int, region compound.PixelViewport, cut compound.Viewport, mask planner.ColorMask, seq int) planner.Task {
	wall, eyePos := p.Changes.Wall(p.cfg, c, eye)
	if cut != compound.FullViewport {
		wall = wall.Sub(cut)
	}
	_, cyclop := p.Changes.Wall(p.cfg, c, compound.EyeCyclop)
	all := compound.PixelViewport{W: region.W, H: region.H}
	return planner.Task{Kind: planner.Draw, Seq: seq, Home: true, Compound: c.Path(), Eye: eye, View: p.cfg.ViewIndex(c.Destination().Channel),
		Region: region, Share: all, Area: all,
		Viewport: compound.FullViewport, Range: compound.FullRange, Pixel: compound.Pixel{W: 1, H: 1},
		Subpixel: compound.Subpixel{Size: 1}, Zoom: compound.Zoom{X: 1, Y: 1}, Buffers: compound.BufferColor | compound.BufferDepth,
		Frustum: wall.EyeFrustum(eyePos, compound.DefaultNear, compound.DefaultFar), ViewMatrix: wall.ViewMatrix(eyePos),
		Ortho: wall.OrthoFrustum(cyclop, compound.DefaultNear, compound.DefaultFar), OrthoView: wall.OrthoViewMatrix(eyePos, cyclop),
		ColorMask: mask, Samples: c.Destination().TreeSamples()}
}

// wallOwner is the compound whose wall the destination shows: its own, or
// that of a descendant covering it that sets its own wall (an HMD's
// compound overrides the view's frustum so).
func wallOwner(dest *compound.Compound) *compound.Compound {
	owner := dest
	for x := dest; len(x.Children) > 0; {
		x = x.Children[0]
		if x.Viewport != dest.Viewport {
			break
		}
		if x.WallOwner == x {
			owner = x
		}
	}
	return owner
}

// draws reports whether a compound of dest's tree draws on a channel.
func draws(dest *compound.Compound) bool {
	found := false
	dest.Walk(func(x *compound.Compound) { found = found || x.Tasks&compound.TaskDraw != 0 && x.Channel != nil })
	return found
}

// idle reports whether no compound of dest's tree has a task (Equalizer's
// issue155 config gives a window's channel "task []" under a swap barrier,
// and a view's channel draws the window). Such a channel does nothing, so
// the run shows and writes nothing of its own for it.
func idle(dest *compound.Compound) bool {
	tasks := 0
	dest.Walk(func(x *compound.Compound) { tasks |= x.Tasks })
	return tasks == 0
}

// showsNothing reports whether dest's tree neither draws nor assembles a
// frame (a destination whose only task is CLEAR): its picture is the
// clear alone.
func showsNothing(dest *compound.Compound) bool {
	if draws(dest) {
		return false
	}
	assembles := false
	dest.Walk(func(x *compound.Compound) { assembles = assembles || len(x.InputFrames) > 0 })
	return !assembles
}

// clears reports whether a compound of dest's tree clears.
func clears(dest *compound.Compound) bool {
	found := false
	dest.Walk(func(x *compound.Compound) { found = found || x.Tasks&compound.TaskClear != 0 })
	return found
}

// beneath lists what a destination that neither clears, draws nor
// assembles shows: the pictures the destinations before it on its window
// leave in its pixels, each where the two channels overlap (a channel
// over a cave's faces unfolded in one window, which only reads the window
// back to dump it).
func (p *Planner) beneath(dest *compound.Compound, frame int) []view {
	at := p.Sizes.Channel(dest.Channel)
	var out []view
	reached := false
	p.cfg.Walk(func(c *compound.Compound) {
		reached = reached || c == dest
		if reached || c.Channel == nil || c.Destination() != c || c.Channel.Window != dest.Channel.Window ||
			!c.Channel.Showing() || !c.IsActive(frame) || showsNothing(c) {
			return
		}
		src := p.Sizes.Channel(c.Channel)
		x0, y0 := max(at.X, src.X), max(at.Y, src.Y)
		x1, y1 := min(at.X+at.W, src.X+src.W), min(at.Y+at.H, src.Y+src.H)
		if x1 <= x0 || y1 <= y0 || src.W <= 0 || src.H <= 0 {
			return
		}
		cut := compound.Viewport{X: float64(x0-src.X) / float64(src.W), Y: float64(y0-src.Y) / float64(src.H),
			W: float64(x1-x0) / float64(src.W), H: float64(y1-y0) / float64(src.H)}
		out = append(out, view{source: wallOwner(c), cut: cut, place: compound.PixelViewport{X: x0 - at.X, Y: y0 - at.Y, W: x1 - x0, H: y1 - y0}})
	})
	return out
}

// view is another destination's picture, or the part of it a frame
// carries, shown by a channel that draws nothing itself: its source
// compound, the part and where it lands.
type view struct {
	source *compound.Compound
	cut    compound.Viewport
	place  compound.PixelViewport
}

// shown lists the pictures of other trees that a destination drawing
// nothing of its own shows: a monitor each input frame's producing
// destination, placed at its place on the canvas within the part of the
// canvas the monitor shows (its region); another destination the part
// each frame carries, pixel for pixel at its corner, as the frame lands
// there (an old display-wall config sends each window its half of one
// picture so).
func (p *Planner) shown(dest *compound.Compound, region compound.PixelViewport) []view {
	if draws(dest) {
		return nil
	}
	monitor := false
	for _, eq := range dest.Equalizers {
		monitor = monitor || eq.Kind == compound.MonitorEqualizer
	}
	var out []view
	for _, in := range dest.InputFrames {
		for _, prod := range in.Producers {
			src := prod.Destination()
			if src == nil || src == dest {
				continue
			}
			if monitor {
				vp := shownOnCanvas(src.Channel).RelativeTo(shownOnCanvas(dest.Channel))
				out = append(out, view{source: wallOwner(src), cut: compound.FullViewport, place: region.Apply(vp)})
				continue
			}
			pvp := p.Sizes.Channel(src.Channel)
			if pvp.W <= 0 || pvp.H <= 0 {
				continue
			}
			// the frame's pixels, and the part of the picture they hold: a
			// cut inside a pixel (half of an odd width) renders from the
			// edges of the pixels the frame carries, as its producer did
			part := compound.PixelViewport{W: pvp.W, H: pvp.H}.Apply(prod.Viewport.Apply(outputViewport(prod, in.Name)))
			cut := compound.Viewport{X: float64(part.X) / float64(pvp.W), Y: float64(part.Y) / float64(pvp.H),
				W: float64(part.W) / float64(pvp.W), H: float64(part.H) / float64(pvp.H)}
			out = append(out, view{source: wallOwner(src), cut: cut, place: compound.PixelViewport{X: region.X, Y: region.Y, W: part.W, H: part.H}})
		}
	}
	return out
}

// shownOnCanvas is the part of its canvas a channel shows: its
// segment's area within its view's, or all of it.
func shownOnCanvas(ch *compound.Channel) compound.Viewport {
	vp := compound.FullViewport
	if ch.Segment != nil {
		vp = ch.Segment.Viewport
	}
	if ch.View != nil && ch.Segment != nil {
		v := ch.View.Viewport
		x0, y0 := max(vp.X, v.X), max(vp.Y, v.Y)
		x1, y1 := min(vp.X+vp.W, v.X+v.W), min(vp.Y+vp.H, v.Y+v.H)
		vp = compound.Viewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
	}
	return vp
}

// outputViewport is the part of its compound that c's output frame of a
// name carries.
func outputViewport(c *compound.Compound, name string) compound.Viewport {
	for _, f := range c.OutputFrames {
		if f.Name == name && f.Viewport.HasArea() {
			return f.Viewport
		}
	}
	return compound.FullViewport
}

// anaglyph is the colour mask of an eye when the destination shows both
// stereo eyes without quad-buffered stereo (always, on framebuffer
// objects), read from the compound's attributes.
func anaglyph(c *compound.Compound, eye int) planner.ColorMask {
	if eye == compound.EyeCyclop || c.Attributes["stereo_mode"] == "PASSIVE" {
		return 0
	}
	if c.Attributes["stereo_mode"] != "ANAGLYPH" && c.Attributes["stereo_mode"] != "QUAD" &&
		c.DestinationEyes()&(compound.EyeLeft|compound.EyeRight) != compound.EyeLeft|compound.EyeRight {
		return 0
	}
	attr := c.Attributes["stereo_anaglyph_left_mask"]
	if eye == compound.EyeRight {
		attr = c.Attributes["stereo_anaglyph_right_mask"]
	}
	return planner.ParseColorMask(attr)
}
