package render

import (
	"cmp"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/shaders"
)

// Model is a triangle mesh: interleaved position and normal per vertex,
// and triangles ordered along a kd-tree so that any contiguous range of
// triangles is a spatially coherent part of the model (what a DB range
// draws).
type Model struct {
	Vertices  []float32 // x y z nx ny nz per vertex
	Triangles []uint32  // three indices per triangle
	Colors    []uint8   // red green blue per vertex; nil: the mesh's colour

	boundsOnce sync.Once
	bounds     [][2][3]float32 // per chunk of the triangle list
}

// TriangleCount is the number of triangles.
func (m *Model) TriangleCount() int { return len(m.Triangles) / 3 }

// Bumpy generates a procedural model: a sphere of radius ~0.8 with ridges,
// tessellated into 2 x rings x segments triangles (rings 500, segments
// 1000 make one million), then kd-ordered.
func Bumpy(rings, segments int) *Model {
	m := &Model{}
	pos := func(u, v float64) [3]float64 {
		th, ph := u*math.Pi, v*2*math.Pi
		r := 0.8 + 0.06*math.Sin(7*ph)*math.Sin(5*th) + 0.03*math.Sin(23*th+3*ph)
		return [3]float64{r * math.Sin(th) * math.Cos(ph), r * math.Cos(th), r * math.Sin(th) * math.Sin(ph)}
	}
	for i := 0; i <= rings; i++ {
		for j := 0; j <= segments; j++ {
			// the last meridian is the first, and each pole one point,
			// bit for bit: triangles that meet there share their edges
			// exactly, so no pixel is drawn twice at one depth (a tie
			// that DB ranges resolve by arrival, not by range) or left out
			along := j % segments
			if i == 0 || i == rings {
				along = 0
			}
			u, v := float64(i)/float64(rings), float64(along)/float64(segments)
			p := pos(u, v)
			const e = 1e-4
			du := sub3(pos(math.Min(u+e, 1), v), pos(math.Max(u-e, 0), v))
			dv := sub3(pos(u, v+e), pos(u, v-e))
			n := cross3(du, dv)
			if l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]); l > 0 {
				n = [3]float64{n[0] / l, n[1] / l, n[2] / l}
			} else {
				n = [3]float64{p[0] / 0.8, p[1] / 0.8, p[2] / 0.8}
			}
			m.Vertices = append(m.Vertices, float32(p[0]), float32(p[1]), float32(p[2]), float32(n[0]), float32(n[1]), float32(n[2]))
		}
	}
	row := uint32(segments + 1)
	for i := uint32(0); i < uint32(rings); i++ {
		for j := uint32(0); j < uint32(segments); j++ {
			a, b, c, d := i*row+j, i*row+j+1, (i+1)*row+j, (i+1)*row+j+1
			m.Triangles = append(m.Triangles, a, c, b, b, c, d)
		}
	}
	m.kdOrder()
	return m
}

// ViewRadius is how far from the origin a viewer fits a model's vertices
// (Normalize): the procedural model's radius, which eqply's home camera
// shows whole.
const ViewRadius = 0.9

// Normalize centres the model's bounding box on the origin and scales it
// so that its farthest vertex lies radius from there, as eqPly fits every
// model it loads into the same place: a scan in millimetres and one in
// metres show alike from the same camera, a cube as whole as a sphere. A
// model of one point stays where it is. Call it before the model is drawn
// (its bounds are kept from the first draw).
func (m *Model) Normalize(radius float64) {
	if len(m.Vertices) < 6 {
		return
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for v := 0; v+5 < len(m.Vertices); v += 6 {
		for a := 0; a < 3; a++ {
			x := float64(m.Vertices[v+a])
			lo[a], hi[a] = min(lo[a], x), max(hi[a], x)
		}
	}
	centre := [3]float64{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}
	farthest := 0.0
	for v := 0; v+5 < len(m.Vertices); v += 6 {
		d := 0.0
		for a := 0; a < 3; a++ {
			x := float64(m.Vertices[v+a]) - centre[a]
			d += x * x
		}
		farthest = max(farthest, d)
	}
	if farthest <= 0 {
		return
	}
	scale := radius / math.Sqrt(farthest)
	for v := 0; v+5 < len(m.Vertices); v += 6 {
		for a := 0; a < 3; a++ {
			m.Vertices[v+a] = float32((float64(m.Vertices[v+a]) - centre[a]) * scale)
		}
	}
}

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// kdOrder orders the triangles along a kd-tree over their centroids: split
// at the median of the longest axis, recursively, so that the tree's leaves
// in order form the triangle list. Each split only partitions about its
// median: sorting each level took five times as long, seconds for a
// million triangles in every process that loads the model
// (BenchmarkBumpyMillion).
func (m *Model) kdOrder() { m.kdOrderSpread(bits.Len(uint(runtime.GOMAXPROCS(0))) + 1) }

// kdOrderSpread orders as kdOrder does, with the splits of the top
// spread levels on goroutines of their own.
func (m *Model) kdOrderSpread(spread int) {
	n := m.TriangleCount()
	tris := make([]kdTriangle, n)
	for t := 0; t < n; t++ {
		var c [3]float32
		for k := 0; k < 3; k++ {
			v := m.Triangles[3*t+k]
			for a := 0; a < 3; a++ {
				c[a] += m.Vertices[6*v+uint32(a)] / 3
			}
		}
		tris[t] = kdTriangle{c, [3]uint32{m.Triangles[3*t], m.Triangles[3*t+1], m.Triangles[3*t+2]}}
	}
	// the halves of a split are ordered apart, so the top levels run on
	// goroutines: the order is the same, in a fraction of the time on a
	// machine of several cores (a 5M-triangle model took 2.3 s on one)
	var wg sync.WaitGroup
	var split func(ts []kdTriangle, depth int)
	split = func(ts []kdTriangle, depth int) {
		if len(ts) <= 64 {
			return
		}
		lo, hi := ts[0].c, ts[0].c
		for _, t := range ts {
			for a := 0; a < 3; a++ {
				lo[a] = min(lo[a], t.c[a])
				hi[a] = max(hi[a], t.c[a])
			}
		}
		axis := 0
		for a := 1; a < 3; a++ {
			if hi[a]-lo[a] > hi[axis]-lo[axis] {
				axis = a
			}
		}
		mid := len(ts) / 2
		selectNth(ts, mid, axis)
		if depth < spread && len(ts) >= 1<<16 {
			wg.Go(func() { split(ts[:mid], depth+1) })
		} else {
			split(ts[:mid], depth+1)
		}
		split(ts[mid:], depth+1)
	}
	split(tris, 0)
	wg.Wait()
	for t, tr := range tris {
		copy(m.Triangles[3*t:], tr.idx[:])
	}
}

type kdTriangle struct {
	c   [3]float32 // centroid
	idx [3]uint32
}

// selectNth puts the triangles whose centroids come before the k-th along
// the axis before k and those after it from k on (quickselect: Hoare's
// partition, whose scans both stop at keys equal to the pivot, so equal
// centroids split evenly; the pivot a median of three; deterministic, as
// every process must order a model alike). What is left after the
// partitions good pivots would need, or once 16 or fewer, is sorted.
func selectNth(ts []kdTriangle, k, axis int) {
	key := func(i int) float32 { return ts[i].c[axis] }
	lo, hi := 0, len(ts) // the k-th lies in [lo, hi)
	for budget := 2 * bits.Len(uint(len(ts))); hi-lo > 16 && budget > 0; budget-- {
		a, b, c := key(lo), key(lo+(hi-lo)/2), key(hi-1)
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo-1, hi
		for {
			for i++; key(i) < pivot; i++ {
			}
			for j--; key(j) > pivot; j-- {
			}
			if i >= j {
				break
			}
			ts[i], ts[j] = ts[j], ts[i]
		}
		// [lo, j] are at most the pivot, (j, hi) at least
		if k <= j {
			hi = j + 1
		} else {
			lo = j + 1
		}
	}
	slices.SortFunc(ts[lo:hi], func(a, b kdTriangle) int { return cmp.Compare(a.c[axis], b.c[axis]) })
}

// Mesh draws a Model: Lambert and specular shading, the model turning with
// the frame number; a DB range [a, b) draws the triangles [a*n, b*n).
type Mesh struct {
	Model *Model
	// Spin is radians per frame about the vertical axis.
	Spin  float64
	Color [3]float32
	// PlainColor draws the model in Color, its own colours left out.
	PlainColor bool
	// Wireframe draws the triangles' edges only.
	Wireframe  bool
	prog, vao  uint32
	vbo, ebo   uint32
	cbo        uint32 // the model's colours, if it has them
	uProj, uMV int32
	uColor     int32
	uOwn       int32 // -1 without the model's colours
}

// NewMesh returns a mesh renderer for the model.
func NewMesh(m *Model) *Mesh {
	return &Mesh{Model: m, Spin: 0.02, Color: [3]float32{0.85, 0.55, 0.3}}
}

// Init uploads the model and compiles the shaders (per pipe).
func (r *Mesh) Init() error {
	vert, frag := shaders.MustSource("mesh.vert"), shaders.MustSource("mesh.frag")
	if len(r.Model.Colors) > 0 {
		vert, frag = withDefine(vert, "VERTEX_COLORS"), withDefine(frag, "VERTEX_COLORS")
	}
	var err error
	r.prog, err = glutil.Program(vert, frag)
	if err != nil {
		return err
	}
	r.uProj, r.uMV, r.uColor = glutil.Uniform(r.prog, "projection"), glutil.Uniform(r.prog, "modelView"), glutil.Uniform(r.prog, "baseColor")
	r.uOwn = -1
	if len(r.Model.Colors) > 0 {
		r.uOwn = glutil.Uniform(r.prog, "ownColors")
	}
	gl.GenVertexArrays(1, &r.vao)
	gl.BindVertexArray(r.vao)
	gl.GenBuffers(1, &r.vbo)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, 4*len(r.Model.Vertices), gl.Ptr(r.Model.Vertices), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, 24, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, 24, 12)
	if len(r.Model.Colors) > 0 {
		gl.GenBuffers(1, &r.cbo)
		gl.BindBuffer(gl.ARRAY_BUFFER, r.cbo)
		gl.BufferData(gl.ARRAY_BUFFER, len(r.Model.Colors), gl.Ptr(r.Model.Colors), gl.STATIC_DRAW)
		gl.EnableVertexAttribArray(2)
		gl.VertexAttribPointerWithOffset(2, 3, gl.UNSIGNED_BYTE, true, 3, 0)
	}
	gl.GenBuffers(1, &r.ebo)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo)
	gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, 4*len(r.Model.Triangles), gl.Ptr(r.Model.Triangles), gl.STATIC_DRAW)
	gl.BindVertexArray(0)
	return glutil.Error()
}

// withDefine defines name in a shader's source, after its #version line.
func withDefine(src, name string) string {
	version, rest, _ := strings.Cut(src, "\n")
	return version + "\n#define " + name + "\n" + rest
}

// ModelView is the mesh's model-view matrix for a frame: turned by the
// frame number, two units in front of the eye.
func (r *Mesh) ModelView(view draw.Mat4, frame int) draw.Mat4 {
	return view.Mul(draw.Translate(0, 0, -2.2)).Mul(draw.RotateX(0.35)).Mul(draw.RotateY(r.Spin * float64(frame)))
}

// Draw renders the triangles of the range with depth testing.
func (r *Mesh) Draw(p *draw.Context) (draw.Region, error) {
	return r.DrawPlaced(p, r.ModelView(p.View, p.Frame))
}

// DrawPlaced renders the triangles of the range with the model-view
// matrix mv (an application's camera) instead of the turning one.
func (r *Mesh) DrawPlaced(p *draw.Context, mv draw.Mat4) (draw.Region, error) {
	return r.DrawProjected(p, p.Projection, mv)
}

// DrawProjected renders the triangles of the range through the projection
// proj (p.Projection, or p.Ortho for a parallel one) with the model-view
// matrix mv.
func (r *Mesh) DrawProjected(p *draw.Context, proj, mv draw.Mat4) (draw.Region, error) {
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.Disable(gl.BLEND)
	gl.UseProgram(r.prog)
	gl.UniformMatrix4fv(r.uProj, 1, false, &proj[0])
	gl.UniformMatrix4fv(r.uMV, 1, false, &mv[0])
	gl.Uniform3f(r.uColor, r.Color[0], r.Color[1], r.Color[2])
	if r.uOwn >= 0 {
		own := float32(1)
		if r.PlainColor {
			own = 0
		}
		gl.Uniform1f(r.uOwn, own)
	}
	n := r.Model.TriangleCount()
	rng := p.Range
	if rng.End <= rng.Start {
		rng = draw.Range{Start: 0, End: 1}
	}
	first, last := int(math.Round(rng.Start*float64(n))), int(math.Round(rng.End*float64(n)))
	gl.BindVertexArray(r.vao)
	if r.Wireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	}
	for _, run := range r.Model.VisibleRuns(proj.Mul(mv), first, last) {
		gl.DrawElementsWithOffset(gl.TRIANGLES, int32(3*(run[1]-run[0])), gl.UNSIGNED_INT, uintptr(12*run[0]))
	}
	if r.Wireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	}
	gl.BindVertexArray(0)
	return r.roi(p, proj.Mul(mv), first, last), glutil.Error()
}

// roi is the render's region of interest: the screen box of the triangles
// drawn (their chunks' bounding boxes, projected by mvp), in viewport
// pixels.
func (r *Mesh) roi(p *draw.Context, mvp draw.Mat4, first, last int) draw.Region {
	if last <= first {
		return draw.Nothing
	}
	box, ok := r.Model.RangeBounds(first, last)
	if !ok {
		return draw.All
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range clipCorners(mvp, box) {
		v := [4]float64{float64(c[0]), float64(c[1]), float64(c[2]), float64(c[3])}
		if v[3] <= 1e-6 {
			return draw.All // the box reaches behind the eye
		}
		sx := (v[0]/v[3] + 1) / 2 * float64(p.Width)
		sy := (v[1]/v[3] + 1) / 2 * float64(p.Height)
		x0, y0, x1, y1 = math.Min(x0, sx), math.Min(y0, sy), math.Max(x1, sx), math.Max(y1, sy)
	}
	ix0 := max(0, int(math.Floor(x0))-1)
	iy0 := max(0, int(math.Floor(y0))-1)
	ix1 := min(p.Width, int(math.Ceil(x1))+1)
	iy1 := min(p.Height, int(math.Ceil(y1))+1)
	if ix1 <= ix0 || iy1 <= iy0 {
		return draw.Nothing
	}
	return draw.Region{X: ix0, Y: iy0, W: ix1 - ix0, H: iy1 - iy0}
}

// boundChunks is how many pieces of the triangle list the model keeps a
// bounding box for (RangeBounds, VisibleRuns).
const boundChunks = 256

// VisibleRuns are the parts of the triangles [first, last) whose chunks the
// frustum of the model-view-projection mvp may see, adjacent ones merged.
// llvmpipe transforms every vertex it is given, so a sort-first source that
// drew the whole model would pay for all of it whatever its tile; culled,
// it pays about for its share (eqPly culls its kd-tree the same way). Only
// chunks entirely outside one clip plane are left out, so the image is
// unchanged.
func (m *Model) VisibleRuns(mvp draw.Mat4, first, last int) [][2]int {
	n := m.TriangleCount()
	first, last = max(first, 0), min(last, n)
	if last <= first {
		return nil
	}
	m.boundsOnce.Do(m.computeBounds)
	per := (n + boundChunks - 1) / boundChunks
	var runs [][2]int
	for c := first / per; c <= (last-1)/per && c < len(m.bounds); c++ {
		if outside(mvp, m.bounds[c]) {
			continue
		}
		lo, hi := max(first, c*per), min(last, (c+1)*per)
		if k := len(runs) - 1; k >= 0 && runs[k][1] == lo {
			runs[k][1] = hi
		} else {
			runs = append(runs, [2]int{lo, hi})
		}
	}
	return runs
}

// clipCorners are the box's eight corners in mvp's clip space.
func clipCorners(mvp draw.Mat4, box [2][3]float32) [8][4]float32 {
	var out [8][4]float32
	for i := range out {
		c := [3]float32{box[0][0], box[0][1], box[0][2]}
		for k := 0; k < 3; k++ {
			if i&(1<<k) != 0 {
				c[k] = box[1][k]
			}
		}
		for row := 0; row < 4; row++ {
			out[i][row] = mvp[row]*c[0] + mvp[4+row]*c[1] + mvp[8+row]*c[2] + mvp[12+row]
		}
	}
	return out
}

// outside reports whether every corner of the box lies beyond the same
// clip plane of mvp's frustum.
func outside(mvp draw.Mat4, box [2][3]float32) bool {
	var out [6]int
	for _, v := range clipCorners(mvp, box) {
		for a := 0; a < 3; a++ {
			if v[a] < -v[3] {
				out[2*a]++
			}
			if v[a] > v[3] {
				out[2*a+1]++
			}
		}
	}
	for _, n := range out {
		if n == 8 {
			return true
		}
	}
	return false
}

// RangeBounds is a bounding box (min, max corners) of the triangles
// [first, last): the union of the boxes of the kd-ordered chunks they
// touch.
func (m *Model) RangeBounds(first, last int) ([2][3]float32, bool) {
	n := m.TriangleCount()
	if n == 0 || last <= first {
		return [2][3]float32{}, false
	}
	m.boundsOnce.Do(m.computeBounds)
	per := (n + boundChunks - 1) / boundChunks
	box := [2][3]float32{{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}, {float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}}
	for c := first / per; c <= (last-1)/per && c < len(m.bounds); c++ {
		for k := 0; k < 3; k++ {
			box[0][k] = min(box[0][k], m.bounds[c][0][k])
			box[1][k] = max(box[1][k], m.bounds[c][1][k])
		}
	}
	return box, true
}

func (m *Model) computeBounds() {
	n := m.TriangleCount()
	per := (n + boundChunks - 1) / boundChunks
	for start := 0; start < n; start += per {
		box := [2][3]float32{{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}, {float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}}
		for t := start; t < min(n, start+per); t++ {
			for j := 0; j < 3; j++ {
				v := m.Triangles[3*t+j]
				for k := 0; k < 3; k++ {
					x := m.Vertices[6*int(v)+k]
					box[0][k] = min(box[0][k], x)
					box[1][k] = max(box[1][k], x)
				}
			}
		}
		m.bounds = append(m.bounds, box)
	}
}

// Exit frees the GL objects.
func (r *Mesh) Exit() {
	gl.DeleteBuffers(1, &r.vbo)
	gl.DeleteBuffers(1, &r.ebo)
	if r.cbo != 0 {
		gl.DeleteBuffers(1, &r.cbo)
	}
	gl.DeleteVertexArrays(1, &r.vao)
	gl.DeleteProgram(r.prog)
}
