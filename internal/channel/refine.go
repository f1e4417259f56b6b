package channel

import (
	"fmt"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compositor/gpu"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/render"
)

// Refined frames (idle antialiasing, goeq.Config.Refine, as eqPly's): a
// frame numbered as refine sample k (from 1) draws everything offset by
// the k-th of control.MaxRefineSamples subpixel positions, and each
// destination shows the running average of its refined frames so far.

// RefineJitter is refine sample k's offset in destination pixels; none
// for 0, an ordinary frame.
func RefineJitter(k int) [2]float64 {
	if k <= 0 {
		return [2]float64{}
	}
	return render.SubpixelJitter((k-1)%control.MaxRefineSamples, control.MaxRefineSamples)
}

func addJitter(a, b [2]float64) [2]float64 { return [2]float64{a[0] + b[0], a[1] + b[1]} }

// SetRefine gives the next frame's refine sample (0: an ordinary frame).
// Call it between frames.
func (e *Executor) SetRefine(sample int) { e.refine = sample }

// accumulation is a destination channel's running average: a float
// framebuffer of its size (8 bits a channel would round each step) and
// how many samples it holds.
type accumulation struct {
	fbo, tex uint32
	w, h, n  int
}

func (a *accumulation) delete() {
	gl.DeleteFramebuffers(1, &a.fbo)
	gl.DeleteTextures(1, &a.tex)
}

// accumulate folds a destination channel's finished image of a refined
// frame into its average and puts the average in the image's place, to
// be shown and written. Sample 1, a sample out of turn (one the channel
// did not finish) or a new size start the average over; an ordinary frame
// leaves it.
func (fr *frameRun) accumulate(r *channelRun) error {
	e, id, vp := fr.e, r.plan.Channel.ID, r.plan.Viewport
	a := e.accum[id]
	if fr.refine == 0 || vp.W <= 0 || vp.H <= 0 {
		if a != nil {
			a.n = 0
		}
		return nil
	}
	if a == nil || a.w != vp.W || a.h != vp.H {
		if a != nil {
			a.delete()
			delete(e.accum, id)
		}
		fbo, tex, err := glutil.ColorFramebuffer(vp.W, vp.H, gl.RGBA16F, gl.RGBA, gl.FLOAT)
		if err != nil {
			r.target.FB.Bind()
			return fmt.Errorf("refine: accumulation: %w", err)
		}
		a = &accumulation{w: vp.W, h: vp.H, fbo: fbo, tex: tex}
		e.accum[id] = a
	}
	gl.ColorMask(true, true, true, true)
	gl.Disable(gl.SCISSOR_TEST)
	x0, y0, x1, y1 := int32(vp.X), int32(vp.Y), int32(vp.X+vp.W), int32(vp.Y+vp.H)
	if fr.refine == 1 || a.n != fr.refine-1 {
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, r.target.FB.FBO)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, a.fbo)
		gl.BlitFramebuffer(x0, y0, x1, y1, 0, 0, int32(vp.W), int32(vp.H), gl.COLOR_BUFFER_BIT, gl.NEAREST)
		a.n = 1
	} else {
		gl.BindFramebuffer(gl.FRAMEBUFFER, a.fbo)
		a.n++
		if err := e.comp.Mix(r.target.FB.Color, [2]int{-vp.X, -vp.Y}, gpu.Rect{W: vp.W, H: vp.H}, 1/float64(a.n)); err != nil {
			r.target.FB.Bind()
			return err
		}
	}
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, a.fbo)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, r.target.FB.FBO)
	gl.BlitFramebuffer(0, 0, int32(vp.W), int32(vp.H), x0, y0, x1, y1, gl.COLOR_BUFFER_BIT, gl.NEAREST)
	r.target.FB.Bind()
	return glutil.Error()
}
