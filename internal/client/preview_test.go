package client

import (
	"bytes"
	"image/jpeg"
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

// A destination's preview is as wide as its share of the canvas the
// dashboard draws: a whole canvas's up to previewWidth, a 4x4 wall's
// segment half that, a 16x16 wall's segment minPreviewWidth. Each
// segment of a 16x16 wall of 1920x1080 screens sent the server a picture
// 640 pixels wide five times a second, where the page shows it 62 pixels
// wide.
func TestAWallsSegmentsSendPreviewsOfTheirShare(t *testing.T) {
	const w, h = 1920, 1080
	rgba := make([]byte, 4*w*h)
	for i := range rgba {
		rgba[i] = byte(i*7 + i/(4*w)) // detail a JPEG must keep
	}
	whole := len(previewJPEG(rgba, w, h, previewWidth))
	for _, c := range []struct {
		of        string
		area      compound.Viewport
		wantWidth int // the preview's, a whole fraction of 1920
	}{
		{"no canvas", compound.FullViewport, 640},
		{"a 4x4 wall's segment", compound.Viewport{X: .25, Y: .5, W: .25, H: .25}, 480},
		{"a 16x16 wall's segment", compound.Viewport{W: 1. / 16, H: 1. / 16}, 160},
	} {
		ch := &compound.Channel{}
		if c.area != compound.FullViewport {
			ch.Segment = &compound.Segment{Viewport: c.area}
		}
		b := previewJPEG(rgba, w, h, previewWidthOf(ch))
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", c.of, err)
		}
		if cfg.Width != c.wantWidth || cfg.Height != h*c.wantWidth/w {
			t.Errorf("%s: a preview of %dx%d, want %dx%d", c.of, cfg.Width, cfg.Height, c.wantWidth, h*c.wantWidth/w)
		}
		t.Logf("%s: %dx%d, %d bytes (%.0f%% of the whole canvas's)", c.of, cfg.Width, cfg.Height, len(b), 100*float64(len(b))/float64(whole))
	}
}
