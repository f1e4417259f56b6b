// Package gpu composites frames on the GPU: 2D assembly, depth merge
// (sort-last), premultiplied blending in a given order, pixel interleaving
// and subpixel averaging, with the GLSL of package shaders. It gives the
// same images as package compositor's CPU paths (exactly, except subpixel
// averaging, which may round a value differently by one).
//
// A Compositor belongs to one context: create and use it on the pipe
// goroutine. It draws into the currently bound framebuffer.
package gpu

import (
	"fmt"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/shaders"
)

// MaxAverage is how many sources one Average pass takes.
const MaxAverage = 8

// Compositor holds the compositing programs of one context.
type Compositor struct {
	vao                                  uint32
	assemble, depth, interleave, average uint32
	scale, depthScale, interleaveDepth   uint32
	nearestDepth                         uint32
	linear                               uint32 // sampler object: linear filtering for scaled assembly
}

// New compiles the compositing programs in the current context.
func New() (*Compositor, error) {
	c := &Compositor{}
	var err error
	quad := shaders.MustSource("quad.vert")
	for _, p := range []struct {
		dst  *uint32
		frag string
	}{{&c.assemble, "assemble.frag"}, {&c.depth, "depth.frag"}, {&c.interleave, "interleave.frag"}, {&c.average, "average.frag"},
		{&c.scale, "scale.frag"}, {&c.depthScale, "depthscale.frag"}, {&c.interleaveDepth, "interleavedepth.frag"},
		{&c.nearestDepth, "nearestdepth.frag"}} {
		if *p.dst, err = glutil.Program(quad, shaders.MustSource(p.frag)); err != nil {
			return nil, fmt.Errorf("gpu compositor: %s: %w", p.frag, err)
		}
	}
	gl.GenVertexArrays(1, &c.vao)
	gl.UseProgram(c.average)
	for i := 0; i < MaxAverage; i++ {
		gl.Uniform1i(glutil.Uniform(c.average, fmt.Sprintf("colors[%d]", i)), int32(i))
	}
	for _, p := range []uint32{c.depth, c.depthScale, c.interleaveDepth} {
		gl.UseProgram(p)
		gl.Uniform1i(glutil.Uniform(p, "color"), 0)
		gl.Uniform1i(glutil.Uniform(p, "depth"), 1)
	}
	gl.UseProgram(0)
	// texture filtering is state of the (shared) texture; a sampler object
	// belongs to this context, so the upload context is not affected
	gl.GenSamplers(1, &c.linear)
	gl.SamplerParameteri(c.linear, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.SamplerParameteri(c.linear, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.SamplerParameteri(c.linear, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.SamplerParameteri(c.linear, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	return c, glutil.Error()
}

// Delete frees the programs.
func (c *Compositor) Delete() {
	for _, p := range []uint32{c.assemble, c.depth, c.interleave, c.average, c.scale, c.depthScale, c.interleaveDepth, c.nearestDepth} {
		gl.DeleteProgram(p)
	}
	gl.DeleteSamplers(1, &c.linear)
	gl.DeleteVertexArrays(1, &c.vao)
}

func (c *Compositor) draw(prog uint32, x, y, w, h int) {
	gl.Viewport(int32(x), int32(y), int32(w), int32(h))
	gl.UseProgram(prog)
	glutil.Quad(c.vao)
	gl.BindVertexArray(0)
	gl.UseProgram(0)
}

func bind(unit uint32, tex uint32) {
	gl.ActiveTexture(gl.TEXTURE0 + unit)
	gl.BindTexture(gl.TEXTURE_2D, tex)
}

// Assemble copies a w x h colour texture to (x, y) of the framebuffer
// (2D compositing).
func (c *Compositor) Assemble(color uint32, x, y, w, h int) error {
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	bind(0, color)
	gl.UseProgram(c.assemble)
	gl.Uniform2i(glutil.Uniform(c.assemble, "offset"), int32(x), int32(y))
	c.draw(c.assemble, x, y, w, h)
	return glutil.Error()
}

// DepthMerge keeps, per pixel, the nearer of the framebuffer and the input
// (colour and depth textures of w x h at (x, y)).
func (c *Compositor) DepthMerge(color, depth uint32, x, y, w, h int) error {
	c.beginDepth(c.depth, color, depth)
	gl.Uniform2i(glutil.Uniform(c.depth, "offset"), int32(x), int32(y))
	c.draw(c.depth, x, y, w, h)
	return endDepth()
}

// Copy writes the rectangle at (x, y) of a colour and a depth texture
// into the same place of the framebuffer, as they are (into every sample
// of a multisampled one).
func (c *Compositor) Copy(color, depth uint32, x, y, w, h int) error {
	c.beginDepth(c.depth, color, depth)
	gl.DepthFunc(gl.ALWAYS)
	gl.Uniform2i(glutil.Uniform(c.depth, "offset"), 0, 0)
	c.draw(c.depth, x, y, w, h)
	gl.DepthFunc(gl.LESS)
	return endDepth()
}

// NearestDepth writes into the framebuffer's depth, in the rectangle at
// (x, y), the nearest of the samples of a multisampled depth texture of
// as many samples there (glutil.Multisample's), leaving its colour as it
// is. The caller puts its colour mask back.
func (c *Compositor) NearestDepth(depth uint32, samples, x, y, w, h int) error {
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.ALWAYS)
	gl.DepthMask(true)
	gl.ColorMask(false, false, false, false)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D_MULTISAMPLE, depth)
	gl.UseProgram(c.nearestDepth)
	gl.Uniform1i(glutil.Uniform(c.nearestDepth, "depth"), 0)
	gl.Uniform1i(glutil.Uniform(c.nearestDepth, "samples"), int32(samples))
	c.draw(c.nearestDepth, x, y, w, h)
	gl.BindTexture(gl.TEXTURE_2D_MULTISAMPLE, 0)
	gl.DepthFunc(gl.LESS)
	gl.ColorMask(true, true, true, true)
	gl.Disable(gl.DEPTH_TEST)
	return glutil.Error()
}

// beginDepth sets up a depth-tested pass of prog over a colour and a depth
// texture: the depth test (LESS) keeps the nearer of framebuffer and input.
func (c *Compositor) beginDepth(prog, color, depth uint32) {
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.DepthMask(true)
	gl.Disable(gl.BLEND)
	bind(0, color)
	bind(1, depth)
	gl.UseProgram(prog)
}

func endDepth() error {
	bind(1, 0)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.Disable(gl.DEPTH_TEST)
	return glutil.Error()
}

// BlendOver composites a premultiplied colour texture in front of the
// framebuffer: dst = src + (1 - src.alpha) dst. Blending DB slabs back to
// front is a sequence of BlendOver calls.
func (c *Compositor) BlendOver(color uint32, x, y, w, h int) error {
	gl.Disable(gl.DEPTH_TEST)
	blendOver(true)
	bind(0, color)
	gl.UseProgram(c.assemble)
	gl.Uniform2i(glutil.Uniform(c.assemble, "offset"), int32(x), int32(y))
	c.draw(c.assemble, x, y, w, h)
	gl.Disable(gl.BLEND)
	return glutil.Error()
}

// blendOver has what is drawn next composited premultiplied "over" the
// framebuffer, or written as it is.
func blendOver(on bool) {
	if !on {
		gl.Disable(gl.BLEND)
		return
	}
	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
}

// Mix blends a colour texture into the framebuffer rectangle r with a
// weight: dst = weight*src + (1-weight)*dst, the texel under pixel p taken
// from p - offset. A running average adds its n-th sample with weight 1/n.
func (c *Compositor) Mix(color uint32, offset [2]int, r Rect, weight float64) error {
	gl.Disable(gl.DEPTH_TEST)
	blendWeighted(weight)
	bind(0, color)
	gl.UseProgram(c.assemble)
	gl.Uniform2i(glutil.Uniform(c.assemble, "offset"), int32(offset[0]), int32(offset[1]))
	c.draw(c.assemble, r.X, r.Y, r.W, r.H)
	gl.Disable(gl.BLEND)
	return glutil.Error()
}

// blendWeighted makes draws blend dst = weight*src + (1-weight)*dst.
func blendWeighted(weight float64) {
	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendColor(0, 0, 0, float32(weight))
	gl.BlendFunc(gl.CONSTANT_ALPHA, gl.ONE_MINUS_CONSTANT_ALPHA)
}

// Samples places a pixel-decomposed source's samples in the framebuffer:
// sample (i, j) of its share's Grid lands on pixel First + (i, j)*Step.
// The source drew Drawn of them (fewer than Grid under a zoom), which
// stand for the samples' centres at ((i, j) + 0.5)*Drawn/Grid - 0.5: its
// colour is filtered linearly between them, and with depth it takes the
// nearest's (compositor.Resample).
type Samples struct {
	First, Step, Drawn, Grid [2]int
}

func (s Samples) set(program uint32) {
	for _, u := range []struct {
		name string
		v    [2]int
	}{{"first", s.First}, {"step", s.Step}, {"drawn", s.Drawn}, {"grid", s.Grid}} {
		gl.Uniform2i(glutil.Uniform(program, u.name), int32(u.v[0]), int32(u.v[1]))
	}
}

// Interleave writes a pixel-decomposed source into the framebuffer's clip
// rectangle, its samples placed as s says.
func (c *Compositor) Interleave(color uint32, s Samples, clip Rect) error {
	return c.interleaveBlended(color, s, clip, false)
}

// InterleaveOver is Interleave compositing each sample premultiplied
// "over" the pixel it lands on: a pixel-decomposed part of a database
// range blended in its turn.
func (c *Compositor) InterleaveOver(color uint32, s Samples, clip Rect) error {
	return c.interleaveBlended(color, s, clip, true)
}

func (c *Compositor) interleaveBlended(color uint32, s Samples, clip Rect, blend bool) error {
	if s.Grid[0] < 1 || s.Grid[1] < 1 {
		return fmt.Errorf("gpu compositor: interleave a grid of %dx%d samples", s.Grid[0], s.Grid[1])
	}
	gl.Disable(gl.DEPTH_TEST)
	blendOver(blend)
	bind(0, color)
	gl.UseProgram(c.interleave)
	s.set(c.interleave)
	c.draw(c.interleave, clip.X, clip.Y, clip.W, clip.H)
	gl.Disable(gl.BLEND)
	return glutil.Error()
}

// InterleaveDepth is Interleave for a source with depth: each sample is
// kept only where it is nearer than the framebuffer's.
func (c *Compositor) InterleaveDepth(color, depth uint32, s Samples, clip Rect) error {
	if s.Grid[0] < 1 || s.Grid[1] < 1 {
		return fmt.Errorf("gpu compositor: interleave a grid of %dx%d samples", s.Grid[0], s.Grid[1])
	}
	c.beginDepth(c.interleaveDepth, color, depth)
	s.set(c.interleaveDepth)
	c.draw(c.interleaveDepth, clip.X, clip.Y, clip.W, clip.H)
	return endDepth()
}

// Rect is a rectangle of framebuffer pixels.
type Rect struct{ X, Y, W, H int }

// Average writes the mean of up to MaxAverage colour textures into the
// framebuffer rectangle r (subpixel compositing); texel (0, 0) lands on
// r's corner. With a weight below 1 it mixes the mean into what r holds,
// dst = weight*mean + (1-weight)*dst: more samples than one pass takes
// average in batches, each weighted by its share of the samples so far.
func (c *Compositor) Average(colors []uint32, r Rect, weight float64) error {
	if len(colors) == 0 || len(colors) > MaxAverage {
		return fmt.Errorf("gpu compositor: average takes 1 to %d sources, got %d", MaxAverage, len(colors))
	}
	if weight <= 0 || weight > 1 {
		return fmt.Errorf("gpu compositor: average weighted %g, want (0, 1]", weight)
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	if weight < 1 {
		blendWeighted(weight)
	}
	for i, t := range colors {
		bind(uint32(i), t)
	}
	gl.UseProgram(c.average)
	gl.Uniform1i(glutil.Uniform(c.average, "count"), int32(len(colors)))
	gl.Uniform2i(glutil.Uniform(c.average, "offset"), int32(r.X), int32(r.Y))
	c.draw(c.average, r.X, r.Y, r.W, r.H)
	gl.Disable(gl.BLEND)
	for i := range colors {
		bind(uint32(i), 0)
	}
	gl.ActiveTexture(gl.TEXTURE0)
	return glutil.Error()
}

// AssembleScaled stretches the used w x h part of a texW x texH colour
// texture over the framebuffer rectangle r, filtering linearly; with blend
// it composites premultiplied "over" instead of replacing.
func (c *Compositor) AssembleScaled(color uint32, w, h, texW, texH int, r Rect, blend bool) error {
	gl.Disable(gl.DEPTH_TEST)
	blendOver(blend)
	bind(0, color)
	gl.BindSampler(0, c.linear)
	gl.UseProgram(c.scale)
	gl.Uniform2f(glutil.Uniform(c.scale, "offset"), float32(r.X), float32(r.Y))
	gl.Uniform2f(glutil.Uniform(c.scale, "size"), float32(r.W), float32(r.H))
	gl.Uniform2f(glutil.Uniform(c.scale, "extent"), float32(w)/float32(texW), float32(h)/float32(texH))
	gl.Uniform2f(glutil.Uniform(c.scale, "last"), (float32(w)-0.5)/float32(texW), (float32(h)-0.5)/float32(texH))
	c.draw(c.scale, r.X, r.Y, r.W, r.H)
	gl.BindSampler(0, 0)
	gl.Disable(gl.BLEND)
	return glutil.Error()
}

// DepthMergeScaled is DepthMerge for an input of w x h samples covering
// the framebuffer rectangle r (nearest sample per pixel).
func (c *Compositor) DepthMergeScaled(color, depth uint32, w, h int, r Rect) error {
	c.beginDepth(c.depthScale, color, depth)
	gl.Uniform2f(glutil.Uniform(c.depthScale, "offset"), float32(r.X), float32(r.Y))
	gl.Uniform2f(glutil.Uniform(c.depthScale, "ratio"), float32(w)/float32(r.W), float32(h)/float32(r.H))
	c.draw(c.depthScale, r.X, r.Y, r.W, r.H)
	return endDepth()
}
