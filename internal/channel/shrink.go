package channel

import (
	"fmt"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/glutil"
)

// shrinkBuffer is where a pipe scales a frame down on the GPU before
// reading it back at the size its consumers show it: a monitor's
// (planner.Output's ReadW x ReadH), or a supersampled frame's share
// (Output.AtShare).
type shrinkBuffer struct {
	fbo, tex uint32
	w, h     int
}

func (b *shrinkBuffer) delete() {
	gl.DeleteFramebuffers(1, &b.fbo)
	gl.DeleteTextures(1, &b.tex)
}

// readShrunk reads the region read of the channel's framebuffer back
// scaled to w x h pixels, filtered linearly as the consumer's assembly
// would have scaled the frame.
func (fr *frameRun) readShrunk(r *channelRun, read compound.PixelViewport, w, h int) (*Pixels, error) {
	e := fr.e
	if b := e.shrink; b == nil || b.w < w || b.h < h {
		// grown, not fitted: the frames read so differ in size
		bw, bh := max(w, 256), max(h, 256)
		if b != nil {
			bw, bh = max(bw, b.w), max(bh, b.h)
			b.delete()
			e.shrink = nil
		}
		fbo, tex, err := glutil.ColorFramebuffer(bw, bh, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
		if err != nil {
			r.target.FB.Bind()
			return nil, fmt.Errorf("frame %d: channel %s: to scale frames down in: %w", fr.frame, r.plan.Channel.Label, err)
		}
		e.shrink = &shrinkBuffer{fbo: fbo, tex: tex, w: bw, h: bh}
	}
	gl.ColorMask(true, true, true, true)
	gl.Disable(gl.SCISSOR_TEST)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, r.target.FB.FBO)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, e.shrink.fbo)
	gl.BlitFramebuffer(int32(read.X), int32(read.Y), int32(read.X+read.W), int32(read.Y+read.H), 0, 0, int32(w), int32(h), gl.COLOR_BUFFER_BIT, gl.LINEAR)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, e.shrink.fbo)
	px := ReadSync(fr.frame, compound.PixelViewport{W: w, H: h}, false)
	r.target.FB.Bind()
	return px, glutil.Error()
}
