package glutil

import "github.com/go-gl/gl/v3.3-core/gl"

// AfterApplication puts back the GL state goeq's own passes take for
// granted, after the application's code ran on the context (a draw, a
// readback, an assembly, an overlay, cluster events, a renderer factory).
// An application sets the state its draws need and, as in any GL
// program, need not restore it; but a pixel pack buffer left bound, a
// pack row length, rasterizer discard or a draw buffer of NONE would make
// goeq's readback, clears and compositing wrong without an error. fbo is
// goeq's framebuffer the application was given (0 for none): it is bound
// again, drawing to and reading from its colour attachment. The colour
// mask is the caller's to put back: it is the task's (an anaglyph eye's).
func AfterApplication(fbo uint32) {
	if fbo != 0 {
		gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
		gl.DrawBuffer(gl.COLOR_ATTACHMENT0)
		gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
	}
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	gl.BindBuffer(gl.PIXEL_UNPACK_BUFFER, 0)
	for _, p := range [...][2]uint32{
		{gl.PACK_SWAP_BYTES, 0}, {gl.PACK_LSB_FIRST, 0}, {gl.PACK_ROW_LENGTH, 0}, {gl.PACK_IMAGE_HEIGHT, 0},
		{gl.PACK_SKIP_ROWS, 0}, {gl.PACK_SKIP_PIXELS, 0}, {gl.PACK_SKIP_IMAGES, 0}, {gl.PACK_ALIGNMENT, 4},
		{gl.UNPACK_SWAP_BYTES, 0}, {gl.UNPACK_LSB_FIRST, 0}, {gl.UNPACK_ROW_LENGTH, 0}, {gl.UNPACK_IMAGE_HEIGHT, 0},
		{gl.UNPACK_SKIP_ROWS, 0}, {gl.UNPACK_SKIP_PIXELS, 0}, {gl.UNPACK_SKIP_IMAGES, 0}, {gl.UNPACK_ALIGNMENT, 4},
	} {
		gl.PixelStorei(p[0], int32(p[1]))
	}
	for _, c := range [...]uint32{gl.RASTERIZER_DISCARD, gl.COLOR_LOGIC_OP, gl.FRAMEBUFFER_SRGB, gl.SAMPLE_ALPHA_TO_COVERAGE,
		gl.SAMPLE_ALPHA_TO_ONE, gl.SAMPLE_COVERAGE, gl.POLYGON_OFFSET_FILL, gl.DEPTH_CLAMP, gl.PRIMITIVE_RESTART,
		gl.CLIP_DISTANCE0, gl.CLIP_DISTANCE1, gl.CLIP_DISTANCE2, gl.CLIP_DISTANCE3,
		gl.CLIP_DISTANCE4, gl.CLIP_DISTANCE5, gl.CLIP_DISTANCE6, gl.CLIP_DISTANCE7,
		gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.STENCIL_TEST} {
		gl.Disable(c)
	}
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.DepthMask(true)
	gl.StencilMask(0xffffffff)
	gl.DepthRange(0, 1)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendFunc(gl.ONE, gl.ZERO)
	gl.ActiveTexture(gl.TEXTURE0)
	for unit := uint32(0); unit < 4; unit++ {
		gl.BindSampler(unit, 0) // goeq's passes sample with their textures' own parameters
	}
	gl.UseProgram(0)
	gl.BindVertexArray(0)
}
