package render

import (
	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/shaders"
)

// Volume ray-casts a procedural scalar field in a fragment shader. A DB
// range [a, b) renders the slab -1+2a <= z < -1+2b of the unit cube;
// slabs composited back to front (premultiplied "over") give the image of
// the whole volume. The output is premultiplied RGBA.
type Volume struct {
	Step float64 // ray step in object units
	Spin float64
	// Density scales the transfer function's opacity (1: as designed).
	Density float64
	// Model places the unit cube in the eye's space for a draw (or for
	// ordering its ranges); nil puts it 2.4 units in front of the eye,
	// turned Spin radians per frame about the vertical axis.
	Model     func(c *draw.Context) draw.Mat4
	prog, vao uint32
	uniforms  map[string]int32
}

// NewVolume returns a volume renderer.
func NewVolume() *Volume { return &Volume{Step: 0.01, Density: 1} }

// Init compiles the ray caster (per pipe).
func (r *Volume) Init() error {
	var err error
	r.prog, err = glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("volume.frag"))
	if err != nil {
		return err
	}
	r.uniforms = map[string]int32{}
	for _, u := range []string{"invProjection", "invModelView", "viewport", "origin", "ndcAdjust", "slabLo", "slabHi", "dt", "density"} {
		r.uniforms[u] = glutil.Uniform(r.prog, u)
	}
	gl.GenVertexArrays(1, &r.vao)
	return glutil.Error()
}

// ModelView is the volume's model-view matrix for a draw: the eye's view
// and the model's placement.
func (r *Volume) ModelView(c *draw.Context) draw.Mat4 {
	if r.Model != nil {
		return c.View.Mul(r.Model(c))
	}
	return c.View.Mul(draw.Translate(0, 0, -2.4)).Mul(draw.RotateY(r.Spin * float64(c.Frame)))
}

// Draw casts rays through the slab of the range.
func (r *Volume) Draw(p *draw.Context) (draw.Region, error) {
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.UseProgram(r.prog)
	// The adjusted projection is Adjust * P; rays are cast in the
	// destination's projection, so the shader undoes the adjustment on NDC.
	invAdj := p.Adjust.Inverse()
	invP := invAdj.Mul(p.Projection).Inverse()
	invMV := r.ModelView(p).Inverse()
	gl.UniformMatrix4fv(r.uniforms["invProjection"], 1, false, &invP[0])
	gl.UniformMatrix4fv(r.uniforms["invModelView"], 1, false, &invMV[0])
	gl.UniformMatrix4fv(r.uniforms["ndcAdjust"], 1, false, &invAdj[0])
	gl.Uniform2f(r.uniforms["viewport"], float32(p.Width), float32(p.Height))
	gl.Uniform2f(r.uniforms["origin"], float32(p.X), float32(p.Y))
	rng := p.Range
	if rng.End <= rng.Start {
		rng = draw.Range{Start: 0, End: 1}
	}
	hi := float32(-1 + 2*rng.End)
	if rng.End >= 1 {
		hi = 2 // include the cube's far face
	}
	gl.Uniform1f(r.uniforms["slabLo"], float32(-1+2*rng.Start))
	gl.Uniform1f(r.uniforms["slabHi"], hi)
	gl.Uniform1f(r.uniforms["dt"], float32(r.Step))
	gl.Uniform1f(r.uniforms["density"], float32(r.Density))
	glutil.Quad(r.vao)
	gl.BindVertexArray(0)
	return draw.All, glutil.Error()
}

// Exit frees the GL objects.
func (r *Volume) Exit() {
	gl.DeleteVertexArrays(1, &r.vao)
	gl.DeleteProgram(r.prog)
}

// BackToFront orders DB ranges of the volume for compositing: the
// slab farthest from the eye first. The eye looks down -z in eye space; a
// slab's distance is that of its centre after the model-view transform.
func (r *Volume) BackToFront(c *draw.Context, ranges []draw.Range) []int {
	mv := r.ModelView(c)
	order := make([]int, len(ranges))
	depth := make([]float32, len(ranges))
	for i, rg := range ranges {
		order[i] = i
		z := float32(-1 + (rg.Start + rg.End))
		// eye-space z of (0, 0, z): third row of mv applied to the point
		depth[i] = mv[2]*0 + mv[6]*0 + mv[10]*z + mv[14]
	}
	// farther = more negative eye z: ascending
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && depth[order[j]] < depth[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// ClearColor is transparent: slabs blend over the background.
func (r *Volume) ClearColor() [4]float32 { return [4]float32{0, 0, 0, 0} }
