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
// load equalizer must balance.
type Synthetic struct {
	DestW, DestH int
	Iterations   float64 // loop length per pixel at cost 1
	Hotspot      [2]float32
	prog, vao    uint32
	uniforms     map[string]int32
}

// NewSynthetic returns a synthetic-cost renderer for a destination size.
func NewSynthetic(destW, destH int, iterations float64) *Synthetic {
	return &Synthetic{DestW: destW, DestH: destH, Iterations: iterations, Hotspot: [2]float32{0.3, 0.6}}
}

// Init compiles the shader (per pipe).
func (r *Synthetic) Init() error {
	var err error
	r.prog, err = glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("synthetic.frag"))
	if err != nil {
		return err
	}
	r.uniforms = map[string]int32{}
	for _, u := range []string{"destSize", "origin", "viewOrigin", "scale", "iterations", "hotspot", "rangeLo", "rangeHi"} {
		r.uniforms[u] = glutil.Uniform(r.prog, u)
	}
	gl.GenVertexArrays(1, &r.vao)
	return glutil.Error()
}

// Draw fills the render with the pattern at its place in the destination.
func (r *Synthetic) Draw(p *draw.Context) (draw.Region, error) {
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.UseProgram(r.prog)
	destW, destH, origin := r.DestW, r.DestH, [2]float32{float32(p.Viewport.X * float64(r.DestW)), float32(p.Viewport.Y * float64(r.DestH))}
	scale := [2]float32{1, 1}
	if p.DestWidth > 0 && p.DestHeight > 0 {
		destW, destH = p.DestWidth, p.DestHeight
		origin = [2]float32{float32(p.Share.X), float32(p.Share.Y)}
		if p.Width > 0 && p.Height > 0 && p.Share.W > 0 {
			scale = [2]float32{float32(p.Share.W) / float32(p.Width), float32(p.Share.H) / float32(p.Height)}
		}
	}
	gl.Uniform2f(r.uniforms["destSize"], float32(destW), float32(destH))
	gl.Uniform2f(r.uniforms["origin"], origin[0], origin[1])
	gl.Uniform2f(r.uniforms["viewOrigin"], float32(p.X), float32(p.Y))
	gl.Uniform2f(r.uniforms["scale"], scale[0], scale[1])
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
