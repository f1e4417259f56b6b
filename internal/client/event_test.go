package client

import (
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

// A pointer in a window of another size than the config's (resized, or
// fullscreen) is placed where the scaled frame shows under it.
func TestWindowPointFollowsTheScaledFrame(t *testing.T) {
	model := compound.PixelViewport{W: 640, H: 360}
	cases := []struct {
		name            string
		screenW, screen int
		x, y            float64 // from the window's top left
		gx, gy          float64 // the config's window, from its bottom left
	}{
		{"the config's size", 640, 360, 100, 50, 100, 310},
		{"three times as large", 1920, 1080, 960, 540, 320, 180},
		{"wider: bars left and right", 1280, 360, 320 + 100, 360 - 50, 100, 50},
		{"taller: bars above and below", 640, 1000, 100, 320 + 360 - 50, 100, 50},
		{"on the left bar", 1280, 360, 10, 100, -310, 260},
	}
	for _, c := range cases {
		gx, gy := windowPoint(model, c.screenW, c.screen, c.x, c.y)
		if gx != c.gx || gy != c.gy {
			t.Errorf("%s: (%g, %g) maps to (%g, %g), want (%g, %g)", c.name, c.x, c.y, gx, gy, c.gx, c.gy)
		}
	}
	if gx, gy := windowPoint(model, 0, 0, 5, 5); gx >= 0 || gy >= 0 {
		t.Errorf("a minimised window maps a point to (%g, %g), inside the frame", gx, gy)
	}
}
