package render

import (
	"fmt"
	"sort"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/shaders"
)

// Volume ray-casts a scalar field in a fragment shader: a procedural one
// in the unit cube, or a volume's voxels (Data) in its box. A DB range
// [a, b) renders the slab of the box's z from a to b (-1+2a <= z < -1+2b
// of the unit cube); slabs composited back to front (premultiplied
// "over") give the image of the whole volume. The output is premultiplied
// RGBA.
type Volume struct {
	Data *VolumeData // nil: the procedural field
	Step float64     // ray step in object units
	Spin float64
	// Density scales the transfer function's opacity (1: as designed).
	Density float64
	// Brightness scales its colours, up to white (1: as designed; eVolve's
	// -b).
	Brightness float64
	// Place places the box in the eye's space for a draw (or for
	// ordering its ranges), and says whether the draw projects the wall
	// in parallel (draw.Context.Ortho and OrthoView, eVolve's -o). nil
	// puts it 2.4 units in front of the eye, turned Spin radians per frame
	// about the vertical axis, in perspective.
	Place func(c *draw.Context) (model draw.Mat4, parallel bool)
	// Tint, when set, gives a draw a colour to mix into the volume's, and
	// how much of it (0 to 1), as eVolve's demo colours show which channel
	// drew which part.
	Tint func(c *draw.Context) (rgb [3]float32, weight float32)
	// Background, when set, gives a destination's background colour
	// (eVolve's b): drawn under the finished image, where the blended
	// slabs left it transparent. nil: black.
	Background func(c *draw.Context) [3]float32
	// Gradients, when set, gives a draw the neighbours its shading takes
	// gradients from (eVolve's n). nil: the six across faces.
	Gradients func(c *draw.Context) Gradient
	prog, vao uint32
	bgProg    uint32 // 0 until a background is drawn
	bgColor   int32
	textures  [2]uint32 // Data's voxels and transfer function
	uniforms  map[string]int32
}

// Gradient is the neighbours of a sample a volume's shading takes its
// gradient from, as eVolve's normals quality chooses them: more are
// slower, and smooth the shading of noisy data.
type Gradient int

const (
	GradientFaces   Gradient = iota // the 6 across faces (eVolve's lowest)
	GradientEdges                   // and the 12 across edges: 18
	GradientCorners                 // and the 8 across corners: 26 (eVolve's highest)
)

// Neighbours is how many neighbours a gradient takes.
func (g Gradient) Neighbours() int { return [...]int{6, 18, 26}[max(0, min(int(g), 2))] }

// NewVolume returns a volume renderer.
func NewVolume() *Volume { return &Volume{Step: DefaultStep, Density: 1, Brightness: 1} }

// DefaultStep is the ray step of a volume unless set, in object units.
const DefaultStep = 0.01

// Init compiles the ray caster (per pipe).
func (r *Volume) Init() error {
	frag := shaders.MustSource("volume.frag")
	if r.Data != nil {
		frag = withDefine(frag, "VOLUME_DATA")
	}
	var err error
	r.prog, err = glutil.Program(shaders.MustSource("quad.vert"), frag)
	if err != nil {
		return err
	}
	r.uniforms = map[string]int32{}
	for _, u := range []string{"invProjection", "invModelView", "viewport", "origin", "ndcAdjust", "extent", "slabLo", "slabHi", "dt", "density", "brightness", "volume", "transferTable", "voxel", "stepRef", "tint", "gradientReach"} {
		r.uniforms[u] = glutil.Uniform(r.prog, u)
	}
	gl.GenVertexArrays(1, &r.vao)
	if d := r.Data; d != nil {
		var most int32
		gl.GetIntegerv(gl.MAX_3D_TEXTURE_SIZE, &most)
		if side := max(d.W, d.H, d.D); side > int(most) {
			return fmt.Errorf("a volume of %d×%d×%d voxels: this GL's 3D textures take %d a side", d.W, d.H, d.D, most)
		}
		gl.GenTextures(2, &r.textures[0])
		gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
		gl.BindTexture(gl.TEXTURE_3D, r.textures[0])
		// 16-bit texels, for bytes too: filtered in 8 bits (llvmpipe does
		// so), the gradients the shading takes came in steps, bands
		// across a smooth volume; R16 is no slower there
		gl.TexImage3D(gl.TEXTURE_3D, 0, gl.R16, int32(d.W), int32(d.H), int32(d.D), 0, gl.RED, gl.UNSIGNED_SHORT, gl.Ptr(d.Values))
		setFilter(gl.TEXTURE_3D)
		gl.BindTexture(gl.TEXTURE_2D, r.textures[1])
		table := d.Transfer // a copy: cgo takes no pointer into memory that holds Go pointers
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 256, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&table[0][0]))
		setFilter(gl.TEXTURE_2D)
		gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	}
	return glutil.Error()
}

// setFilter samples the texture bound to target linearly, clamped to its
// edge.
func setFilter(target uint32) {
	for _, p := range []uint32{gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T, gl.TEXTURE_WRAP_R} {
		gl.TexParameteri(target, p, gl.CLAMP_TO_EDGE)
	}
	gl.TexParameteri(target, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(target, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
}

// extent is the box's half size.
func (r *Volume) extent() [3]float64 {
	if r.Data == nil {
		return [3]float64{1, 1, 1}
	}
	return r.Data.Extent
}

// camera is a draw's projection and model-view matrix (the eye's view and
// the box's place), in the wall's perspective or its parallel projection,
// which parallel says.
func (r *Volume) camera(c *draw.Context) (proj, modelView draw.Mat4, parallel bool) {
	model := draw.Translate(0, 0, -2.4).Mul(draw.RotateY(r.Spin * float64(c.Frame)))
	if r.Place != nil {
		model, parallel = r.Place(c)
	}
	if parallel {
		return c.Ortho, c.OrthoView.Mul(model), true
	}
	return c.Projection, c.View.Mul(model), false
}

// Draw casts rays through the slab of the range.
func (r *Volume) Draw(p *draw.Context) (draw.Region, error) {
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.UseProgram(r.prog)
	// The adjusted projection is Adjust * P; rays are cast in the
	// destination's projection, so the shader undoes the adjustment on NDC.
	invAdj := p.Adjust.Inverse()
	proj, mv, _ := r.camera(p)
	invP := invAdj.Mul(proj).Inverse()
	invMV := mv.Inverse()
	gl.UniformMatrix4fv(r.uniforms["invProjection"], 1, false, &invP[0])
	gl.UniformMatrix4fv(r.uniforms["invModelView"], 1, false, &invMV[0])
	gl.UniformMatrix4fv(r.uniforms["ndcAdjust"], 1, false, &invAdj[0])
	gl.Uniform2f(r.uniforms["viewport"], float32(p.Width), float32(p.Height))
	gl.Uniform2f(r.uniforms["origin"], float32(p.X), float32(p.Y))
	rng := p.Range
	if rng.End <= rng.Start {
		rng = draw.Range{Start: 0, End: 1}
	}
	ext := r.extent()
	hi := float32(ext[2] * (-1 + 2*rng.End))
	if rng.End >= 1 {
		hi = 2 // include the box's far face
	}
	gl.Uniform3f(r.uniforms["extent"], float32(ext[0]), float32(ext[1]), float32(ext[2]))
	gl.Uniform1f(r.uniforms["slabLo"], float32(ext[2]*(-1+2*rng.Start)))
	gl.Uniform1f(r.uniforms["slabHi"], hi)
	gl.Uniform1f(r.uniforms["dt"], float32(r.Step))
	gl.Uniform1f(r.uniforms["density"], float32(r.Density))
	gl.Uniform1f(r.uniforms["brightness"], float32(r.Brightness))
	var tint [3]float32
	var weight float32
	if r.Tint != nil {
		tint, weight = r.Tint(p)
	}
	gl.Uniform4f(r.uniforms["tint"], tint[0], tint[1], tint[2], min(max(weight, 0), 1))
	if d := r.Data; d != nil {
		gl.ActiveTexture(gl.TEXTURE0)
		gl.BindTexture(gl.TEXTURE_3D, r.textures[0])
		gl.ActiveTexture(gl.TEXTURE1)
		gl.BindTexture(gl.TEXTURE_2D, r.textures[1])
		gl.ActiveTexture(gl.TEXTURE0)
		gl.Uniform1i(r.uniforms["volume"], 0)
		gl.Uniform1i(r.uniforms["transferTable"], 1)
		gl.Uniform3f(r.uniforms["voxel"], 1/float32(d.W), 1/float32(d.H), 1/float32(d.D))
		// eVolve's slice distance at its default precision: an opacity
		// of the transfer function is for a step of that length
		gl.Uniform1f(r.uniforms["stepRef"], 1.8/float32(max(d.W, d.H, d.D)))
		reach := GradientFaces
		if r.Gradients != nil {
			reach = max(GradientFaces, min(r.Gradients(p), GradientCorners))
		}
		gl.Uniform1i(r.uniforms["gradientReach"], int32(reach))
	}
	glutil.Quad(r.vao)
	gl.BindVertexArray(0)
	return draw.All, glutil.Error()
}

// Exit frees the GL objects.
func (r *Volume) Exit() {
	gl.DeleteVertexArrays(1, &r.vao)
	gl.DeleteProgram(r.prog)
	if r.bgProg != 0 {
		gl.DeleteProgram(r.bgProg)
	}
	if r.Data != nil {
		gl.DeleteTextures(2, &r.textures[0])
	}
}

// BackToFront orders DB ranges of the volume for compositing, the slab
// farthest from the eye first. Slabs are parallel: seen from the eye (the
// origin of eye space, where the perspective projection draws from), a
// slab hides another only on the same side of the eye's own plane across
// them, and the nearer to that plane hides the farther. So they are
// ordered by their distance from the eye along z in the model's space, the
// slab the eye's plane crosses last. Ordering by the depth of their centres
// drew a volume seen from its side with the slabs on one side of the eye
// the wrong way round (as eVolve's image orderer splits its order there).
func (r *Volume) BackToFront(c *draw.Context, ranges []draw.Range) []int {
	_, mv, parallel := r.camera(c)
	eye := mv.Inverse()
	ze := float64(eye[14] / eye[15]) // the eye's z in the model's space
	if parallel {
		// seen in parallel, the eye is far back along the view: the
		// model-space z of the direction it looks in (eye space's -z)
		ze = float64(eye[10]) * farEye
	}
	ext := r.extent()[2]
	away := make([]float64, len(ranges))
	order := make([]int, len(ranges))
	for i, rg := range ranges {
		order[i] = i
		lo, hi := ext*(-1+2*rg.Start), ext*(-1+2*rg.End)
		away[i] = max(lo-ze, ze-hi, 0)
	}
	sort.SliceStable(order, func(i, j int) bool { return away[order[i]] > away[order[j]] })
	return order
}

// farEye is how far back along the view a parallel projection's eye is
// taken to be, in the model's units: past any slab.
const farEye = 1e9

// DrawOverlay puts the background under a destination's finished image:
// the slabs blend over transparency, which the colour fills as far as
// they left it (premultiplied "under").
func (r *Volume) DrawOverlay(c *draw.Context) error {
	if r.Background == nil {
		return nil
	}
	bg := r.Background(c)
	if bg == ([3]float32{}) {
		return nil // black: what the transparency shows already
	}
	if r.bgProg == 0 { // compiled for the first background that is not black
		prog, err := glutil.Program(shaders.MustSource("quad.vert"), shaders.MustSource("background.frag"))
		if err != nil {
			return err
		}
		r.bgProg, r.bgColor = prog, glutil.Uniform(prog, "color")
	}
	gl.Enable(gl.BLEND)
	gl.BlendFunc(gl.ONE_MINUS_DST_ALPHA, gl.ONE)
	gl.UseProgram(r.bgProg)
	gl.Uniform3f(r.bgColor, bg[0], bg[1], bg[2])
	gl.BindVertexArray(r.vao)
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	gl.BindVertexArray(0)
	gl.Disable(gl.BLEND)
	return glutil.Error()
}

// ClearColor is transparent: slabs blend over the background.
func (r *Volume) ClearColor() [4]float32 { return [4]float32{0, 0, 0, 0} }
