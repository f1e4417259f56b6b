package compound

import (
	"math"
	"testing"
)

// A window's size holds from the frame it was set for; its channels keep
// their fraction of it, and the walls they show widen with their aspect.
func TestWindowSizesHoldFromTheirFrame(t *testing.T) {
	w := &Window{PixelViewport: PixelViewport{X: 10, Y: 20, W: 640, H: 360}}
	left := &Channel{Window: w, Viewport: Viewport{W: 0.5, H: 1}, PixelViewport: PixelViewport{W: 320, H: 360}}
	right := &Channel{Window: w, Viewport: Viewport{X: 0.5, W: 0.5, H: 1}, PixelViewport: PixelViewport{X: 320, W: 320, H: 360}}
	var s WindowSizes
	s.Set(3, w, Size{W: 1280, H: 360})
	s.Set(5, w, Size{W: 640, H: 360})
	for frame, want := range []Size{{640, 360}, {640, 360}, {640, 360}, {1280, 360}, {1280, 360}, {640, 360}} {
		s.Advance(frame)
		if got := s.Window(w); got != want {
			t.Errorf("frame %d: window %v, want %v", frame, got, want)
		}
		wantRight := PixelViewport{X: want.W / 2, W: want.W / 2, H: want.H}
		if got := s.Channel(right); got != wantRight {
			t.Errorf("frame %d: right channel %v, want %v", frame, got, wantRight)
		}
		wantWidening := float64(want.W) / 640
		if got := s.Widening(left); math.Abs(got-wantWidening) > 1e-12 {
			t.Errorf("frame %d: widening %g, want %g", frame, got, wantWidening)
		}
	}
	if got := s.Channel(&Channel{Window: &Window{}, PixelViewport: PixelViewport{W: 7, H: 9}}); got != (PixelViewport{W: 7, H: 9}) {
		t.Errorf("a window never resized: %v", got)
	}
}

// Widened keeps the wall's centre and height, as Equalizer's
// resizeHorizontal does.
func TestWallWidened(t *testing.T) {
	got := DefaultWall.Widened(2)
	want := Wall{BottomLeft: Vec3{-1.6, -0.5, -1}, BottomRight: Vec3{1.6, -0.5, -1}, TopLeft: Vec3{-1.6, 0.5, -1}}
	if got != want {
		t.Errorf("widened twice: %+v, want %+v", got, want)
	}
	if DefaultWall.Widened(1) != DefaultWall || DefaultWall.Widened(0) != DefaultWall {
		t.Error("a ratio of 1 (or none) changed the wall")
	}
}
