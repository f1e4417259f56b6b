package compound

// WindowSizes are the windows' sizes frame by frame, as users resize
// on-screen windows: a size set for frame N holds from frame N on, and
// until then a window has its config's. As in Equalizer, a resized
// window's channels keep their fraction of it, and the trees they show
// render at their new size, their walls widened or narrowed so that the
// picture keeps its aspect (Equalizer's View::handleEvent on a resize).
// Planning reads it; it has no clock of its own. The zero value is ready.
type WindowSizes struct {
	sizes   map[*Window]Size
	pending FromFrame[windowSize]
}

// Size is a width and height in pixels.
type Size struct{ W, H int }

type windowSize struct {
	window *Window
	size   Size
}

// Set gives window w that size from frame on.
func (s *WindowSizes) Set(frame int, w *Window, size Size) {
	s.pending.Set(frame, windowSize{w, size})
}

// Advance applies the sizes set for frames up to frame: call it before
// planning frame. It reports whether a size was set.
func (s *WindowSizes) Advance(frame int) bool {
	return s.pending.Advance(frame, func(c windowSize) {
		if s.sizes == nil {
			s.sizes = map[*Window]Size{}
		}
		if c.size == (Size{c.window.PixelViewport.W, c.window.PixelViewport.H}) {
			delete(s.sizes, c.window)
			return
		}
		s.sizes[c.window] = c.size
	})
}

// Window is w's size now.
func (s *WindowSizes) Window(w *Window) Size {
	if size, ok := s.sizes[w]; ok {
		return size
	}
	return Size{w.PixelViewport.W, w.PixelViewport.H}
}

// Channel is ch's pixel viewport in its window now: the config's, or its
// fraction of its resized window.
func (s *WindowSizes) Channel(ch *Channel) PixelViewport {
	size, ok := s.sizes[ch.Window]
	if !ok {
		return ch.PixelViewport
	}
	return PixelViewport{W: size.W, H: size.H}.Apply(ch.Viewport)
}

// Widening is how much wider, relative to its height, channel ch shows
// its picture now than its config says (1 unless its window was resized):
// the factor a wall ch shows is widened by to keep the picture's aspect.
func (s *WindowSizes) Widening(ch *Channel) float64 {
	now, was := s.Channel(ch), ch.PixelViewport
	if now == was || now.W <= 0 || now.H <= 0 || was.W <= 0 || was.H <= 0 {
		return 1
	}
	return float64(now.W) / float64(now.H) * float64(was.H) / float64(was.W)
}

// Widened is the wall made ratio times as wide about its centre, its
// height kept (Equalizer's Wall::resizeHorizontal).
func (w Wall) Widened(ratio float64) Wall {
	if ratio == 1 || ratio <= 0 {
		return w
	}
	delta := w.BottomRight.Sub(w.BottomLeft).Scale((ratio - 1) / 2)
	w.BottomLeft, w.BottomRight, w.TopLeft = w.BottomLeft.Sub(delta), w.BottomRight.Add(delta), w.TopLeft.Sub(delta)
	return w
}
