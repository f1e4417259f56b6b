package client

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"time"

	"github.com/goeq/goeq/internal/channel"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
)

// previewWidth bounds a preview's width: a destination shrinks by a
// whole factor until it fits. A segment of a wall is bounded by its share
// of the width the dashboard draws a canvas at (wallWidth, twice over for
// a screen of high density), and by minPreviewWidth at the least: each of
// a 16x16 wall's 256 segments sent a picture 640 pixels wide five times a
// second, where the page shows it 62 pixels wide.
const (
	previewWidth    = 800
	minPreviewWidth = 160
	wallWidth       = 1000 // the dashboard's widest canvas (maxWall in web/app.js)
)

// previewWidthOf is the widest preview of a destination channel.
func previewWidthOf(ch *compound.Channel) int {
	return min(previewWidth, max(minPreviewWidth, int(math.Ceil(2*wallWidth*ch.CanvasArea().W))))
}

// previewDue says whether a destination channel's image goes to the
// dashboard with this frame (at most every Setup.PreviewEvery), and
// counts it as sent when it does. Pipe goroutines call it.
func (n *node) previewDue(ch *compound.Channel) bool {
	every := n.setupM.PreviewEvery
	if every <= 0 {
		return false
	}
	n.previewMu.Lock()
	defer n.previewMu.Unlock()
	if n.previewed == nil {
		n.previewed = map[string]time.Time{}
	}
	if time.Since(n.previewed[ch.ID]) < every {
		return false
	}
	n.previewed[ch.ID] = time.Now()
	return true
}

// sendPreviews encodes the due destinations' images (shrunk, as JPEG) and
// sends them to the server, off the pipe's goroutine.
func (n *node) sendPreviews(frame int, res *channel.Result, due map[string]bool) {
	for id := range due {
		px := res.Images[id]
		ch := n.cfg.ChannelByID(id)
		if px == nil || ch == nil {
			continue
		}
		w, h, most := px.PixelViewport.W, px.PixelViewport.H, previewWidthOf(ch)
		go func() {
			b := previewJPEG(px.Color, w, h, most)
			if b == nil {
				return
			}
			if err := n.session.send(&control.ClientMsg{Preview: &control.Preview{Channel: id, Frame: frame, JPEG: b}}); err != nil {
				n.log.Warn(fmt.Sprintf("frame %d: preview of %s: %v", frame, ch.Label, err))
			}
		}()
	}
}

// previewJPEG turns bottom-up RGBA rows into a JPEG no wider than most
// pixels, or nil when it cannot fit the bound.
func previewJPEG(rgba []byte, w, h, most int) []byte {
	if len(rgba) < 4*w*h || w <= 0 || h <= 0 || most <= 0 {
		return nil
	}
	step := (w + most - 1) / most
	img := image.NewRGBA(image.Rect(0, 0, w/step, h/step))
	for y := 0; y < h/step; y++ {
		src := (h - 1 - y*step) * w * 4 // top row first
		for x := 0; x < w/step; x++ {
			copy(img.Pix[y*img.Stride+4*x:y*img.Stride+4*x+4], rgba[src+4*x*step:src+4*x*step+4])
			img.Pix[y*img.Stride+4*x+3] = 255
		}
	}
	for q := 85; q >= 40; q -= 15 {
		var buf bytes.Buffer
		if jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}) == nil && buf.Len() <= control.MaxPreview {
			return buf.Bytes()
		}
	}
	return nil
}
