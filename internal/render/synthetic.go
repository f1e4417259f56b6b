package render

import (
	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/shaders"
)

// Synthetic draws a recognisable pattern and spends GPU time proportional
// to a cost field over its viewport and range (a hotspot ten times as
// expensive as the rest): the benchmark renderer, whose draw time the
// load equalizer must balance. The cost lies on the destination and the
// colours in the eye's space, each where the draw's projection places
// it, so a decomposed run composes the picture its reference draws.
type Synthetic struct {
	Iterations float64 // loop length per pixel at cost 1
	Hotspot    [2]float32
	prog, vao  uint32
	uniforms   map[string]int32
}

// NewSynthetic returns a synthetic-cost renderer.
func NewSynthetic(iterations float64) *Synthetic {
	return &Synthetic{Iterations: iterations, Hotspot: [2]float32{0.3, 0.6}}
}

// Init compiles the shader (per pipe).
func (r *Synthetic) Init() error {
	var err error
	r.prog, err = glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("synthetic.frag"))
	if err != nil {
		return err
	}
	r.uniforms = map[string]int32{}
	for _, u := range []string{"viewport", "viewOrigin", "ndcAdjust", "invProjection", "iterations", "hotspot", "rangeLo", "rangeHi"} {
		r.uniforms[u] = glutil.Uniform(r.prog, u)
	}
	gl.GenVertexArrays(1, &r.vao)
	return glutil.Error()
}

// Draw fills the render with the pattern at its place in the destination,
// at mid depth: a database decomposition's depth merge keeps what is drawn.
func (r *Synthetic) Draw(p *draw.Context) (draw.Region, error) {
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.DepthMask(true)
	gl.Disable(gl.BLEND)
	gl.UseProgram(r.prog)
	toDest := p.Adjust.Inverse()
	gl.Uniform2f(r.uniforms["viewport"], float32(p.Width), float32(p.Height))
	gl.Uniform2f(r.uniforms["viewOrigin"], float32(p.X), float32(p.Y))
	gl.UniformMatrix4fv(r.uniforms["ndcAdjust"], 1, false, &toDest[0])
	fromEye := p.Projection.Inverse()
	gl.UniformMatrix4fv(r.uniforms["invProjection"], 1, false, &fromEye[0])
	gl.Uniform1f(r.uniforms["iterations"], float32(r.Iterations))
	gl.Uniform2f(r.uniforms["hotspot"], r.Hotspot[0], r.Hotspot[1])
	rng := p.Range
	if rng.End <= rng.Start {
		rng = draw.Range{Start: 0, End: 1}
	}
	gl.Uniform1f(r.uniforms["rangeLo"], float32(rng.Start))
	gl.Uniform1f(r.uniforms["rangeHi"], float32(rng.End))
	glutil.Quad(r.vao)
	gl.BindVertexArray(0)
	return draw.All, glutil.Error()
}

// Exit frees the GL objects.
func (r *Synthetic) Exit() {
	gl.DeleteVertexArrays(1, &r.vao)
	gl.DeleteProgram(r.prog)
}
