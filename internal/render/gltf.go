package render

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// glTF bounds: a document's JSON, and a buffer (what a 32-bit GLB holds).
const (
	maxGLTFJSON   = 64 << 20
	maxGLTFBuffer = math.MaxUint32
)

// gltfDoc is what goeq reads of a glTF 2.0 document.
type gltfDoc struct {
	Asset struct {
		Version    string `json:"version"`
		MinVersion string `json:"minVersion"`
	} `json:"asset"`
	ExtensionsRequired []string `json:"extensionsRequired"`
	Scene              *int     `json:"scene"`
	Scenes             []struct {
		Nodes []int `json:"nodes"`
	} `json:"scenes"`
	Nodes []struct {
		Mesh        *int      `json:"mesh"`
		Children    []int     `json:"children"`
		Matrix      []float64 `json:"matrix"`
		Translation []float64 `json:"translation"`
		Rotation    []float64 `json:"rotation"`
		Scale       []float64 `json:"scale"`
	} `json:"nodes"`
	Meshes    []gltfMesh `json:"meshes"`
	Materials []struct {
		PBR struct {
			BaseColorFactor []float64 `json:"baseColorFactor"`
		} `json:"pbrMetallicRoughness"`
	} `json:"materials"`
	Accessors   []gltfAccessor `json:"accessors"`
	BufferViews []struct {
		Buffer     int   `json:"buffer"`
		ByteOffset int64 `json:"byteOffset"`
		ByteLength int64 `json:"byteLength"`
		ByteStride int64 `json:"byteStride"`
	} `json:"bufferViews"`
	Buffers []struct {
		URI        *string `json:"uri"`
		ByteLength int64   `json:"byteLength"`
	} `json:"buffers"`
}

type gltfMesh struct {
	Primitives []gltfPrimitive `json:"primitives"`
}

type gltfPrimitive struct {
	Attributes map[string]int `json:"attributes"`
	Indices    *int           `json:"indices"`
	Mode       *int           `json:"mode"`
	Material   *int           `json:"material"`
}

type gltfAccessor struct {
	BufferView    *int            `json:"bufferView"`
	ByteOffset    int64           `json:"byteOffset"`
	ComponentType int             `json:"componentType"`
	Normalized    bool            `json:"normalized"`
	Count         int             `json:"count"`
	Type          string          `json:"type"`
	Sparse        json.RawMessage `json:"sparse"`
}

// glTF's component types and element types.
var (
	gltfComponents = map[int]scalarKind{5120: scalarInt8, 5121: scalarUint8, 5122: scalarInt16, 5123: scalarUint16, 5125: scalarUint32, 5126: scalarFloat32}
	gltfTypes      = map[string]int{"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
)

// gltfExtensions are the required extensions goeq reads: the quantized
// attributes KHR_mesh_quantization allows are accessors it reads anyway.
var gltfExtensions = map[string]bool{"KHR_mesh_quantization": true, "KHR_materials_unlit": true, "KHR_texture_transform": true}

// gltfModel is a glTF document being read into a model.
type gltfModel struct {
	doc     gltfDoc
	path    string
	buffers [][]byte
	m       *Model
	rgb     []float64 // linear r g b a vertex, where the model is coloured
	normals bool      // every primitive gave its normals
	colored bool
}

// loadGLTF reads a glTF 2.0 model, as Blender, three.js and most 3D tools
// export them: a .gltf (JSON, its buffers in files beside it or in data:
// URIs) or a .glb (the JSON and a buffer in one binary file). Its scene's
// nodes place their meshes (instances too) by their transforms; their
// triangles (lists, strips and fans) are drawn with their normals, and
// with their colours (COLOR_0 times the material's base colour, taken
// from glTF's linear colours to the screen's sRGB) where any primitive is
// coloured. Points, lines, textures and animations are not drawn;
// required compressions (Draco, meshopt) are refused, saying so.
func loadGLTF(path string) (*Model, error) {
	g := &gltfModel{path: path}
	if err := g.read(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := g.model()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// read reads the document and its buffers.
func (g *gltfModel) read() error {
	f, err := os.Open(g.path)
	if err != nil {
		return err
	}
	defer f.Close()
	var head [12]byte
	n, _ := io.ReadFull(f, head[:])
	var text, bin []byte
	if n == 12 && string(head[:4]) == "glTF" {
		if text, bin, err = readGLB(f, head); err != nil {
			return err
		}
	} else {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if text, err = io.ReadAll(io.LimitReader(f, maxGLTFJSON+1)); err != nil {
			return err
		}
		if len(text) > maxGLTFJSON {
			return fmt.Errorf("more than %d bytes of JSON", maxGLTFJSON)
		}
	}
	if err := json.Unmarshal(text, &g.doc); err != nil {
		return fmt.Errorf("not a glTF file: %v", err)
	}
	d := &g.doc
	if !strings.HasPrefix(d.Asset.Version, "2.") || d.Asset.MinVersion != "" && !strings.HasPrefix(d.Asset.MinVersion, "2.") {
		return fmt.Errorf("glTF version %q: goeq reads glTF 2 (Blender's and most tools' export; glTF 1 is from before 2017)", d.Asset.Version)
	}
	for _, ext := range d.ExtensionsRequired {
		if !gltfExtensions[ext] {
			return fmt.Errorf("it requires the extension %s: goeq reads glTF without it (export without Draco or meshopt compression)", ext)
		}
	}
	for i, b := range d.Buffers {
		if b.ByteLength < 0 || b.ByteLength > maxGLTFBuffer {
			return fmt.Errorf("buffer %d: byteLength %d", i, b.ByteLength)
		}
		var data []byte
		switch {
		case b.URI == nil && i == 0 && bin != nil:
			data = bin
		case b.URI == nil:
			return fmt.Errorf("buffer %d has no uri, and is not a .glb's", i)
		case strings.HasPrefix(*b.URI, "data:"):
			_, encoded, ok := strings.Cut(*b.URI, ";base64,")
			if !ok {
				return fmt.Errorf("buffer %d: a data: uri not of base64", i)
			}
			if base64.StdEncoding.DecodedLen(len(encoded)) > int(b.ByteLength)+3 {
				return fmt.Errorf("buffer %d: its data: uri holds more than its byteLength %d", i, b.ByteLength)
			}
			if data, err = base64.StdEncoding.DecodeString(encoded); err != nil {
				return fmt.Errorf("buffer %d: %w", i, err)
			}
		default:
			name, err := url.PathUnescape(*b.URI)
			if err != nil || strings.Contains(name, "://") || filepath.IsAbs(name) {
				return fmt.Errorf("buffer %d: uri %q; want a file beside the .gltf", i, *b.URI)
			}
			file := beside(g.path, filepath.FromSlash(name))
			if err := regular(file); err != nil {
				return err
			}
			if data, err = readPrefix(file, b.ByteLength); err != nil {
				return fmt.Errorf("buffer %d: %w", i, err)
			}
		}
		if int64(len(data)) < b.ByteLength {
			return fmt.Errorf("buffer %d holds %d bytes of its byteLength %d", i, len(data), b.ByteLength)
		}
		g.buffers = append(g.buffers, data[:b.ByteLength])
	}
	return nil
}

// readPrefix reads a file's first n bytes, or what it holds of them (a
// buffer's file may hold more than the buffer).
func readPrefix(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, min(n, st.Size()))
	_, err = io.ReadFull(f, data)
	return data, err
}

// readGLB reads a binary glTF after its header: its JSON chunk and its
// first BIN chunk.
func readGLB(f *os.File, head [12]byte) (text, bin []byte, err error) {
	if v := binary.LittleEndian.Uint32(head[4:]); v != 2 {
		return nil, nil, fmt.Errorf("a .glb of version %d: goeq reads glTF 2", v)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	length := int64(binary.LittleEndian.Uint32(head[8:]))
	if length > st.Size() {
		return nil, nil, fmt.Errorf("a .glb of %d bytes says it holds %d", st.Size(), length)
	}
	r := io.LimitReader(f, length-12)
	for {
		var chunk [8]byte
		if _, err := io.ReadFull(r, chunk[:]); err != nil {
			break
		}
		size, kind := int64(binary.LittleEndian.Uint32(chunk[:])), binary.LittleEndian.Uint32(chunk[4:])
		if size > length {
			return nil, nil, fmt.Errorf("a chunk of %d bytes in a .glb of %d", size, length)
		}
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, nil, errors.New("the .glb ends within a chunk")
		}
		switch {
		case kind == 0x4E4F534A && text == nil: // JSON
			text = data
		case kind == 0x004E4942 && bin == nil: // BIN
			bin = data
		}
	}
	if text == nil {
		return nil, nil, errors.New("a .glb with no JSON chunk")
	}
	return text, bin, nil
}

// model places the scene's meshes: the document's scene (or its first),
// or, with no scene, every node no other holds.
func (g *gltfModel) model() (*Model, error) {
	d := &g.doc
	var roots []int
	switch {
	case d.Scene != nil && (*d.Scene < 0 || *d.Scene >= len(d.Scenes)):
		return nil, fmt.Errorf("scene %d of %d", *d.Scene, len(d.Scenes))
	case d.Scene != nil:
		roots = d.Scenes[*d.Scene].Nodes
	case len(d.Scenes) > 0:
		roots = d.Scenes[0].Nodes
	default:
		held := make([]bool, len(d.Nodes))
		for _, n := range d.Nodes {
			for _, c := range n.Children {
				if c >= 0 && c < len(held) {
					held[c] = true
				}
			}
		}
		for i := range d.Nodes {
			if !held[i] {
				roots = append(roots, i)
			}
		}
	}
	g.m = &Model{}
	g.normals = true
	g.colored = slices.ContainsFunc(d.Meshes, func(mesh gltfMesh) bool {
		return slices.ContainsFunc(mesh.Primitives, func(p gltfPrimitive) bool {
			_, vertexColors := p.Attributes["COLOR_0"]
			return vertexColors || g.baseColor(p) != [4]float64{1, 1, 1, 1}
		})
	})
	for _, n := range roots {
		if err := g.node(n, identity4(), 0); err != nil {
			return nil, err
		}
	}
	if len(g.m.Triangles) == 0 {
		return nil, errors.New("no triangles in its scene (goeq draws triangles, not points or lines)")
	}
	if !g.normals {
		for v := 0; v < len(g.m.Vertices); v += 6 {
			clear(g.m.Vertices[v+3 : v+6])
		}
		g.m.computeNormals()
	}
	if g.colored {
		g.m.Colors = make([]uint8, len(g.rgb)/4*3)
		for i := range len(g.rgb) / 4 {
			for a := range 3 {
				g.m.Colors[3*i+a] = srgbByte(g.rgb[4*i+a])
			}
		}
	}
	g.m.kdOrder()
	return g.m, nil
}

// baseColor is a primitive's material's base colour factor (white by
// default).
func (g *gltfModel) baseColor(p gltfPrimitive) [4]float64 {
	c := [4]float64{1, 1, 1, 1}
	if p.Material != nil && *p.Material >= 0 && *p.Material < len(g.doc.Materials) {
		if f := g.doc.Materials[*p.Material].PBR.BaseColorFactor; len(f) == 4 {
			copy(c[:], f)
		}
	}
	return c
}

// srgbByte is a linear colour component as an sRGB byte, as a glTF viewer
// shows it.
func srgbByte(c float64) uint8 {
	c = min(max(c, 0), 1)
	if c <= 0.0031308 {
		c *= 12.92
	} else {
		c = 1.055*math.Pow(c, 1/2.4) - 0.055
	}
	return uint8(math.Round(c * 255))
}

// node places node n's mesh and its children under the transform parent.
func (g *gltfModel) node(n int, parent [16]float64, depth int) error {
	d := &g.doc
	if n < 0 || n >= len(d.Nodes) {
		return fmt.Errorf("node %d of %d", n, len(d.Nodes))
	}
	if depth > len(d.Nodes) {
		return fmt.Errorf("node %d is its own descendant", n)
	}
	node := d.Nodes[n]
	local, err := gltfTransform(node.Matrix, node.Translation, node.Rotation, node.Scale)
	if err != nil {
		return fmt.Errorf("node %d: %w", n, err)
	}
	world := mul4(parent, local)
	if node.Mesh != nil {
		if *node.Mesh < 0 || *node.Mesh >= len(d.Meshes) {
			return fmt.Errorf("node %d: mesh %d of %d", n, *node.Mesh, len(d.Meshes))
		}
		for i, p := range d.Meshes[*node.Mesh].Primitives {
			if err := g.primitive(p, world); err != nil {
				return fmt.Errorf("mesh %d, primitive %d: %w", *node.Mesh, i, err)
			}
		}
	}
	for _, c := range node.Children {
		if err := g.node(c, world, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// primitive adds a primitive's triangles, placed by world.
func (g *gltfModel) primitive(p gltfPrimitive, world [16]float64) error {
	mode := 4
	if p.Mode != nil {
		mode = *p.Mode
	}
	if mode < 4 || mode > 6 {
		return nil // points and lines
	}
	pos, ok := p.Attributes["POSITION"]
	if !ok {
		return errors.New("no POSITION")
	}
	positions, err := g.accessor(pos, 3, "POSITION")
	if err != nil {
		return err
	}
	count := len(positions) / 3
	var normals, colors []float64
	comps := 0
	if a, ok := p.Attributes["NORMAL"]; ok {
		if normals, err = g.accessor(a, 3, "NORMAL"); err != nil {
			return err
		}
		if len(normals) != 3*count {
			return fmt.Errorf("%d normals for %d positions", len(normals)/3, count)
		}
	} else {
		g.normals = false
	}
	if a, ok := p.Attributes["COLOR_0"]; ok {
		if a < 0 || a >= len(g.doc.Accessors) {
			return fmt.Errorf("COLOR_0: accessor %d of %d", a, len(g.doc.Accessors))
		}
		comps = gltfTypes[g.doc.Accessors[a].Type]
		if comps != 3 && comps != 4 {
			return fmt.Errorf("COLOR_0 of type %s; want VEC3 or VEC4", g.doc.Accessors[a].Type)
		}
		if colors, err = g.accessor(a, comps, "COLOR_0"); err != nil {
			return err
		}
		if len(colors) != comps*count {
			return fmt.Errorf("%d colours for %d positions", len(colors)/comps, count)
		}
	}
	indices := make([]float64, count)
	for i := range indices {
		indices[i] = float64(i)
	}
	if p.Indices != nil {
		if indices, err = g.accessor(*p.Indices, 1, "indices"); err != nil {
			return err
		}
	}
	base := uint32(len(g.m.Vertices) / 6)
	if int(base)+count > MaxPLYVertices {
		return fmt.Errorf("more than the limit of %d vertices", MaxPLYVertices)
	}
	normal := normalMatrix(world)
	base4 := g.baseColor(p)
	for i := range count {
		x := transformPoint(world, positions[3*i:3*i+3])
		n := [3]float64{}
		if normals != nil {
			n = transformNormal(normal, normals[3*i:3*i+3])
		}
		g.m.Vertices = append(g.m.Vertices, float32(x[0]), float32(x[1]), float32(x[2]), float32(n[0]), float32(n[1]), float32(n[2]))
		if g.colored {
			c := [4]float64{1, 1, 1, 1}
			if colors != nil {
				copy(c[:comps], colors[comps*i:comps*i+comps])
			}
			for a := range 4 {
				c[a] *= base4[a]
			}
			g.rgb = append(g.rgb, c[:]...)
		}
	}
	// a mirroring transform turns the triangles' winding
	mirrored := det3(world) < 0
	add := func(a, b, c float64) error {
		for _, k := range []float64{a, b, c} {
			if !whole(k, 0, float64(count-1)) {
				return fmt.Errorf("index %g of %d vertices", k, count)
			}
		}
		if a == b || b == c || a == c {
			return nil
		}
		if len(g.m.Triangles) >= 3*MaxPLYFaces {
			return fmt.Errorf("more than the limit of %d triangles", MaxPLYFaces)
		}
		if mirrored {
			b, c = c, b
		}
		g.m.Triangles = append(g.m.Triangles, base+uint32(a), base+uint32(b), base+uint32(c))
		return nil
	}
	for i := 2; i < len(indices); i++ {
		var err error
		switch mode {
		case 4:
			if i%3 == 2 {
				err = add(indices[i-2], indices[i-1], indices[i])
			}
		case 5: // a strip: every other triangle turned back
			if i%2 == 0 {
				err = add(indices[i-2], indices[i-1], indices[i])
			} else {
				err = add(indices[i-1], indices[i-2], indices[i])
			}
		case 6: // a fan about the first
			err = add(indices[0], indices[i-1], indices[i])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// accessor reads accessor a's values, comps a element, as numbers
// (normalized integers from 0 or -1 to 1); what names the attribute in
// errors.
func (g *gltfModel) accessor(a, comps int, what string) ([]float64, error) {
	d := &g.doc
	if a < 0 || a >= len(d.Accessors) {
		return nil, fmt.Errorf("%s: accessor %d of %d", what, a, len(d.Accessors))
	}
	acc := d.Accessors[a]
	fail := func(format string, args ...any) ([]float64, error) {
		return nil, fmt.Errorf("%s: accessor %d: %s", what, a, fmt.Sprintf(format, args...))
	}
	if gltfTypes[acc.Type] != comps {
		return fail("type %s; want %d components", acc.Type, comps)
	}
	kind, ok := gltfComponents[acc.ComponentType]
	if !ok {
		return fail("componentType %d", acc.ComponentType)
	}
	if acc.Count < 0 || acc.Count > MaxPLYFaces*3 {
		return fail("count %d", acc.Count)
	}
	if len(acc.Sparse) > 0 {
		return fail("sparse: goeq reads accessors whole (export without sparse accessors)")
	}
	if acc.BufferView == nil {
		if acc.Count > 1<<16 {
			return fail("%d elements of no bufferView: zeros, as glTF says, and no model's", acc.Count)
		}
		return make([]float64, acc.Count*comps), nil // zeros, as glTF says
	}
	if *acc.BufferView < 0 || *acc.BufferView >= len(d.BufferViews) {
		return fail("bufferView %d of %d", *acc.BufferView, len(d.BufferViews))
	}
	view := d.BufferViews[*acc.BufferView]
	if view.Buffer < 0 || view.Buffer >= len(g.buffers) {
		return fail("buffer %d of %d", view.Buffer, len(g.buffers))
	}
	buf := g.buffers[view.Buffer]
	if view.ByteOffset < 0 || view.ByteLength < 0 || view.ByteOffset > int64(len(buf)) || view.ByteLength > int64(len(buf))-view.ByteOffset {
		return fail("a bufferView of %d bytes at %d in a buffer of %d", view.ByteLength, view.ByteOffset, len(buf))
	}
	data := buf[view.ByteOffset : view.ByteOffset+view.ByteLength]
	size := int64(kind.size() * comps)
	stride := size
	if view.ByteStride > 0 {
		if view.ByteStride < size || view.ByteStride > 252 {
			return fail("byteStride %d for elements of %d bytes", view.ByteStride, size)
		}
		stride = view.ByteStride
	}
	if acc.Count > 0 && (acc.ByteOffset < 0 || acc.ByteOffset+stride*int64(acc.Count-1)+size > int64(len(data))) {
		return fail("%d elements of %d bytes, %d apart from byte %d, past its bufferView's %d bytes", acc.Count, size, stride, acc.ByteOffset, len(data))
	}
	values := make([]float64, acc.Count*comps) // within the data: checked
	scale := 0.0
	if acc.Normalized {
		scale = map[scalarKind]float64{scalarInt8: 127, scalarUint8: 255, scalarInt16: 32767, scalarUint16: 65535}[kind]
	}
	for i := range acc.Count {
		at := acc.ByteOffset + stride*int64(i)
		for c := range comps {
			x := kind.decode(data[at+int64(c*kind.size()):], binary.LittleEndian)
			if scale > 0 {
				x = max(x/scale, -1)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fail("element %d is no finite number", i)
			}
			values[comps*i+c] = x
		}
	}
	return values, nil
}

// identity4 is the 4×4 identity, column-major.
func identity4() [16]float64 { return [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

// gltfTransform is a node's local transform: its matrix (column-major),
// or its translation, rotation (a unit quaternion x y z w) and scale.
func gltfTransform(matrix, t, r, s []float64) ([16]float64, error) {
	if matrix != nil {
		if len(matrix) != 16 {
			return [16]float64{}, fmt.Errorf("a matrix of %d numbers", len(matrix))
		}
		return [16]float64(matrix), nil
	}
	m := identity4()
	if s != nil {
		if len(s) != 3 {
			return m, fmt.Errorf("a scale of %d numbers", len(s))
		}
		for a := range 3 {
			m[5*a] = s[a]
		}
	}
	if r != nil {
		if len(r) != 4 {
			return m, fmt.Errorf("a rotation of %d numbers", len(r))
		}
		x, y, z, w := r[0], r[1], r[2], r[3]
		if l := math.Sqrt(x*x + y*y + z*z + w*w); l > 0 {
			x, y, z, w = x/l, y/l, z/l, w/l
		}
		rot := [16]float64{
			1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w), 0,
			2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w), 0,
			2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y), 0,
			0, 0, 0, 1,
		}
		m = mul4(rot, m)
	}
	if t != nil {
		if len(t) != 3 {
			return m, fmt.Errorf("a translation of %d numbers", len(t))
		}
		m[12], m[13], m[14] = t[0], t[1], t[2]
	}
	return m, nil
}

// mul4 is a·b of column-major 4×4 matrices.
func mul4(a, b [16]float64) [16]float64 {
	var m [16]float64
	for c := range 4 {
		for r := range 4 {
			for k := range 4 {
				m[4*c+r] += a[4*k+r] * b[4*c+k]
			}
		}
	}
	return m
}

func transformPoint(m [16]float64, p []float64) [3]float64 {
	var q [3]float64
	for r := range 3 {
		q[r] = m[r]*p[0] + m[4+r]*p[1] + m[8+r]*p[2] + m[12+r]
	}
	return q
}

// det3 is the determinant of m's upper 3×3.
func det3(m [16]float64) float64 {
	return m[0]*(m[5]*m[10]-m[9]*m[6]) - m[4]*(m[1]*m[10]-m[9]*m[2]) + m[8]*(m[1]*m[6]-m[5]*m[2])
}

// normalMatrix is the inverse transpose of m's upper 3×3 (row-major),
// which takes normals as m takes points.
func normalMatrix(m [16]float64) [3][3]float64 {
	a := [3][3]float64{{m[0], m[4], m[8]}, {m[1], m[5], m[9]}, {m[2], m[6], m[10]}} // rows
	det := det3(m)
	if det == 0 {
		return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	var n [3][3]float64 // the cofactors over the determinant: the inverse's transpose
	for r := range 3 {
		for c := range 3 {
			r1, r2, c1, c2 := (r+1)%3, (r+2)%3, (c+1)%3, (c+2)%3
			n[r][c] = (a[r1][c1]*a[r2][c2] - a[r1][c2]*a[r2][c1]) / det
		}
	}
	return n
}

func transformNormal(n [3][3]float64, v []float64) [3]float64 {
	var q [3]float64
	for r := range 3 {
		q[r] = n[r][0]*v[0] + n[r][1]*v[1] + n[r][2]*v[2]
	}
	if l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2]); l > 0 {
		for r := range 3 {
			q[r] /= l
		}
	}
	return q
}
