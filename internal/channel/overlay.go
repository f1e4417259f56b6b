package channel

import (
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/control"
)

// overlayColours are the statistics overlay's task colours: draw,
// readback, transmit (with compression), assemble, wait.
var overlayColours = [][3]float32{{0.2, 0.8, 0.2}, {0.9, 0.8, 0.1}, {0.2, 0.5, 1}, {0.9, 0.3, 0.9}, {0.5, 0.5, 0.5}}

// OverlayBarScale is the overlay's bar length: one pixel per 0.2 ms.
const OverlayBarScale = 200 * time.Microsecond

// SetOverlay gives the statistics overlay to draw over the next frame's
// destinations (nil: none). Call it between frames.
func (e *Executor) SetOverlay(parts []control.OverlayPart) { e.overlay = parts }

// statsOverlay draws the statistics overlay over a destination channel's
// finished image, as Equalizer's: a bar per channel from the top left
// (draw, readback, transmit, assemble and wait times), and each drawing
// channel's share of the destination outlined in its colour, with its
// database range as a bar along the bottom.
func (fr *frameRun) statsOverlay(r *channelRun) {
	var parts []control.OverlayPart
	for _, p := range fr.e.overlay {
		if p.Destination == r.plan.Channel.ID {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return
	}
	pv := r.plan.Viewport
	r.target.FB.Bind()
	gl.Enable(gl.SCISSOR_TEST)
	defer gl.Disable(gl.SCISSOR_TEST)
	gl.ColorMask(true, true, true, true)
	rect := func(x, y, w, h int, c [3]float32) {
		x0, y0 := max(x, 0), max(y, 0)
		x1, y1 := min(x+w, pv.W), min(y+h, pv.H)
		if x1 <= x0 || y1 <= y0 {
			return
		}
		gl.Scissor(int32(pv.X+x0), int32(pv.Y+y0), int32(x1-x0), int32(y1-y0))
		gl.ClearColor(c[0], c[1], c[2], 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
	}
	for i, p := range parts {
		t := p.Times
		x, y := 8, pv.H-12-10*i
		for k, d := range []time.Duration{t.Draw, t.ReadbackSync + t.ReadbackAsync, t.Compress + t.Transmit, t.Assemble, t.Wait} {
			w := int(d / OverlayBarScale)
			rect(x, y, w, 7, overlayColours[k])
			x += w
		}
		if t.Draw <= 0 {
			continue // it only assembled: no share of its own
		}
		pc := control.Palette[p.Colour%len(control.Palette)]
		c := [3]float32{float32(pc[0]) / 255, float32(pc[1]) / 255, float32(pc[2]) / 255}
		vp := p.Viewport
		x0, y0 := int(vp.X*float64(pv.W)+0.5), int(vp.Y*float64(pv.H)+0.5)
		x1, y1 := int((vp.X+vp.W)*float64(pv.W)+0.5)-1, int((vp.Y+vp.H)*float64(pv.H)+0.5)-1
		rect(x0, y0, x1-x0+1, 1, c)
		rect(x0, y1, x1-x0+1, 1, c)
		rect(x0, y0, 1, y1-y0+1, c)
		rect(x1, y0, 1, y1-y0+1, c)
		if rg := p.Range; rg.End > rg.Start && (rg.Start > 0 || rg.End < 1) {
			rect(int(rg.Start*float64(pv.W)), 2, int((rg.End-rg.Start)*float64(pv.W)), 4, c)
		}
	}
}
