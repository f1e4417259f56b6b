package compound

// showOnOwnChannels makes a compound that draws on a channel of its own,
// where no frame carries its pixels to its destination, a destination of
// that channel: a root of its own, with the frustum, eyes and attributes
// it inherited. Configs before canvases drove a second display so
// (passive stereo's right eye on a second channel, a mosaic of channels
// each showing its part of a wall): Equalizer showed such pixels on that
// channel as they were, and as a destination the channel is presented,
// its images written and the reference drawn like any other. The tree it
// leaves shows only the eyes that still reach it, so passive stereo's two
// channels each show one eye in full colour, not an anaglyph of both.
//
// Only pre-canvas trees qualify (neither channel in a view), where no
// equalizer above divides the work among the channels, no frame or tile
// queue is in the compound's tree, no other compound uses its channel,
// and the channel draws on its window, not a framebuffer of its own that
// nothing shows.
func (r *resolver) showOnOwnChannels(cfg *Config) {
	users := map[*Channel]int{}
	cfg.Walk(func(c *Compound) {
		if c.Channel != nil {
			users[c.Channel]++
		}
	})
	var shown []*Compound
	cfg.Walk(func(c *Compound) {
		if showsOnOwnChannel(c, users) {
			shown = append(shown, c)
		}
	})
	left := map[*Compound]bool{} // the destinations they leave
	for _, s := range shown {
		left[s.Destination()] = true
		detach(s)
		s.Index = len(cfg.Compounds)
		cfg.Compounds = append(cfg.Compounds, s)
	}
	for dest := range left {
		if r.defaultEyes(dest) {
			dest.Eyes = EyeCyclop // mono unless what it still draws sets eyes
			if drawn := drawnEyes(dest); drawn != 0 {
				dest.Eyes = drawn
			}
		}
	}
}

// showsOnOwnChannel reports whether c is where a pre-canvas tree moves to
// a channel whose pixels nothing carries back (see showOnOwnChannels).
func showsOnOwnChannel(c *Compound, users map[*Channel]int) bool {
	p := c.Parent
	if p == nil || c.Channel == nil || c.Channel == p.Channel || c.Channel.View != nil || c.Channel.OwnFramebuffer() {
		return false
	}
	dest := c.Destination()
	if dest == nil || dest.Channel.View != nil || sendsOn(c, dest.Channel) {
		return false
	}
	for a := p; a != nil; a = a.Parent {
		if len(a.Equalizers) > 0 {
			return false
		}
	}
	alone, draws, n := true, false, 0
	c.Walk(func(x *Compound) {
		alone = alone && x.Channel == c.Channel && len(x.OutputFrames)+len(x.InputFrames)+len(x.OutputTiles)+len(x.InputTiles) == 0
		draws = draws || x.Tasks&TaskDraw != 0
		n++
	})
	return alone && draws && users[c.Channel] == n
}

// detach makes s a root that shows what it drew as a child: its viewport
// becomes the cut of the wall it shows (a destination's viewport cuts its
// wall, not its channel), and its descendants' viewports and walls are
// taken relative to it.
func detach(s *Compound) {
	p := s.Parent
	kids := p.Children[:0]
	for _, ch := range p.Children {
		if ch != s {
			ch.Index = len(kids)
			kids = append(kids, ch)
		}
	}
	p.Children = kids
	s.Parent = nil
	inside := map[*Compound]bool{}
	s.Walk(func(x *Compound) { inside[x] = true })
	outer, wall := s.Viewport, *s.Frustum
	s.Walk(func(x *Compound) {
		x.Viewport = x.Viewport.RelativeTo(outer)
		if !inside[x.WallOwner] {
			x.Wall, x.WallOwner = &wall, s
		}
	})
	s.Local = Local{Viewport: FullViewport, Range: s.Range, Pixel: s.Pixel, Subpixel: s.Subpixel, Zoom: s.Zoom}
}

// sameAsDestination gives a compound that names another channel on its
// destination channel's pixels (the same window and pixel viewport) the
// destination's channel: it draws in place on those pixels either way,
// and as one channel its draws and assemblies run in the destination's
// order and are in its image. As two, the destination's image was taken
// when its own clear was done, before the other drew. Equalizer's
// configTool wrote its DB stream configs so, the last part on the segment
// channel that the view's channel is cut from. The channel it named still
// names its default frames and keeps its clear (namedChannel).
func (r *resolver) sameAsDestination(cfg *Config) {
	for _, root := range cfg.Compounds {
		root.Walk(func(c *Compound) {
			dest := c.Destination()
			if dest == nil || dest == c || c.Channel == nil {
				return
			}
			d, ch := dest.Channel, c.Channel
			if ch != d && ch.Window == d.Window && ch.PixelViewport == d.PixelViewport && !ch.OwnFramebuffer() && !d.OwnFramebuffer() {
				r.merged[c] = ch
				c.Channel = d
			}
		})
	}
}
