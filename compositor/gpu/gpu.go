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

	"goeq/internal/glutil"
	"goeq/shaders"
)

// MaxAverage is how many sources one Average pass takes.
const MaxAverage = 8

// Compositor holds the compositing programs of one context.
type Compositor struct {
	vao                                  uint32
	assemble, depth, interleave, average uint32
}

// New compiles the compositing programs in the current context.
func New() (*Compositor, error) {
	c := &Compositor{}
	var err error
	quad := shaders.MustSource("quad.vert")
	for _, p := range []struct {
		dst  *uint32
		frag string
	}{{&c.assemble, "assemble.frag"}, {&c.depth, "depth.frag"}, {&c.interleave, "interleave.frag"}, {&c.average, "average.frag"}} {
		if *p.dst, err = glutil.Program(quad, shaders.MustSource(p.frag)); err != nil {
			return nil, fmt.Errorf("gpu compositor: %s: %w", p.frag, err)
		}
	}
	gl.GenVertexArrays(1, &c.vao)
	gl.UseProgram(c.average)
	for i := 0; i < MaxAverage; i++ {
		gl.Uniform1i(glutil.Uniform(c.average, fmt.Sprintf("colors[%d]", i)), int32(i))
	}
	gl.UseProgram(c.depth)
	gl.Uniform1i(glutil.Uniform(c.depth, "color"), 0)
	gl.Uniform1i(glutil.Uniform(c.depth, "depth"), 1)
	gl.UseProgram(0)
	return c, glutil.Error()
}

// Delete frees the programs.
func (c *Compositor) Delete() {
	for _, p := range []uint32{c.assemble, c.depth, c.interleave, c.average} {
		gl.DeleteProgram(p)
	}
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
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.DepthMask(true)
	gl.Disable(gl.BLEND)
	bind(0, color)
	bind(1, depth)
	gl.UseProgram(c.depth)
	gl.Uniform2i(glutil.Uniform(c.depth, "offset"), int32(x), int32(y))
	c.draw(c.depth, x, y, w, h)
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
	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	bind(0, color)
	gl.UseProgram(c.assemble)
	gl.Uniform2i(glutil.Uniform(c.assemble, "offset"), int32(x), int32(y))
	c.draw(c.assemble, x, y, w, h)
	gl.Disable(gl.BLEND)
	return glutil.Error()
}

// Interleave writes a pixel-decomposed source (parameters px py pw ph) into
// the framebuffer's w x h area at its origin.
func (c *Compositor) Interleave(color uint32, px, py, pw, ph, w, h int) error {
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	bind(0, color)
	gl.UseProgram(c.interleave)
	gl.Uniform2i(glutil.Uniform(c.interleave, "first"), int32(px), int32(py))
	gl.Uniform2i(glutil.Uniform(c.interleave, "step"), int32(pw), int32(ph))
	c.draw(c.interleave, 0, 0, w, h)
	return glutil.Error()
}

// Average writes the mean of up to MaxAverage w x h colour textures
// (subpixel compositing).
func (c *Compositor) Average(colors []uint32, w, h int) error {
	if len(colors) == 0 || len(colors) > MaxAverage {
		return fmt.Errorf("gpu compositor: average takes 1 to %d sources, got %d", MaxAverage, len(colors))
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	for i, t := range colors {
		bind(uint32(i), t)
	}
	gl.UseProgram(c.average)
	gl.Uniform1i(glutil.Uniform(c.average, "count"), int32(len(colors)))
	c.draw(c.average, 0, 0, w, h)
	for i := range colors {
		bind(uint32(i), 0)
	}
	gl.ActiveTexture(gl.TEXTURE0)
	return glutil.Error()
}
