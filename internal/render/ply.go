package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/goeq/goeq/internal/bounded"
)

// PLY limits: a model goeq loads must fit these (a malformed header must
// not make the loader allocate without bound).
const (
	MaxPLYVertices = 50_000_000
	MaxPLYFaces    = 100_000_000
	maxPolygon     = 1 << 16 // corners of one face
)

// LoadPLY reads a PLY file (ascii, binary_little_endian or
// binary_big_endian) with vertex x y z, optional nx ny nz and optional
// colours (red green blue), and faces given as vertex index lists or as
// triangle strips, in any order; polygons are fanned into triangles.
// Faces' colours colour a model whose vertices have none.
// Missing normals are computed from the faces. The triangles are
// kd-ordered. A gzip-compressed file (model.ply.gz, as scan repositories
// hand them out) is read through gzip.
func LoadPLY(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := readPLYFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readPLYFile reads an open PLY file, compressed or not.
func readPLYFile(f *os.File) (*Model, error) {
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	r := bufio.NewReaderSize(f, 1<<16)
	if magic, _ := r.Peek(2); !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return readPLY(r, size)
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	// the file's size no longer bounds what the header may promise: the
	// element limits, and slices that grow as the data comes, do
	data := bufio.NewReaderSize(zr, 1<<16)
	m, err := readPLY(data, -1)
	if err != nil {
		return nil, err
	}
	// the stream's checksum, at its end, catches a byte changed in a
	// download that still inflates
	if _, err := io.Copy(io.Discard, io.LimitReader(data, maxTrailer)); err != nil {
		return nil, err
	}
	return m, nil
}

// maxTrailer bounds what is read after a compressed model's data to reach
// its checksum: more there is not read (it could expand without bound).
const maxTrailer = 1 << 20

// plyKinds are PLY's type names.
var plyKinds = map[string]scalarKind{"char": scalarInt8, "int8": scalarInt8, "uchar": scalarUint8, "uint8": scalarUint8,
	"short": scalarInt16, "int16": scalarInt16, "ushort": scalarUint16, "uint16": scalarUint16, "int": scalarInt32, "int32": scalarInt32,
	"uint": scalarUint32, "uint32": scalarUint32, "float": scalarFloat32, "float32": scalarFloat32, "double": scalarFloat64, "float64": scalarFloat64}

// colorScale takes a colour component of the kind to 0..255: floating
// point colours run from 0 to 1, 16-bit ones to 65535.
func (k scalarKind) colorScale() float64 {
	switch k {
	case scalarFloat32, scalarFloat64:
		return 255
	case scalarInt16, scalarUint16:
		return 255.0 / 65535
	}
	return 1
}

type plyProperty struct {
	name      string
	kind      scalarKind // scalar type, or the item type of a list
	list      bool
	countKind scalarKind
}

type plyElement struct {
	name  string
	count int
	props []plyProperty
}

// ReadPLY reads a PLY model from r.
func ReadPLY(r *bufio.Reader) (*Model, error) { return readPLY(r, -1) }

// readPLY reads a PLY model from r, whose size in bytes is size when
// known (-1 otherwise): a header that promises more data than a file
// holds is refused before anything is allocated for it.
func readPLY(r *bufio.Reader, size int64) (*Model, error) {
	line, err := headerLine(r)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("ply: not a PLY file: %v", err)
	}
	if first := strings.TrimSpace(line); first != "ply" {
		return nil, fmt.Errorf("ply: not a PLY file (first line %q)", quoteShort(first))
	}
	header := int64(len(line))
	format := ""
	var elems []*plyElement
	kind := func(name, line string) (scalarKind, error) {
		k, ok := plyKinds[name]
		if !ok {
			return 0, fmt.Errorf("ply: unknown type %q in %q", name, strings.TrimSpace(line))
		}
		return k, nil
	}
	for {
		line, err = headerLine(r)
		if err != nil {
			return nil, fmt.Errorf("ply: header ends early: %v", err)
		}
		header += int64(len(line))
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "comment" || f[0] == "obj_info" {
			continue
		}
		switch f[0] {
		case "format":
			if len(f) < 2 {
				return nil, fmt.Errorf("ply: bad format line %q", strings.TrimSpace(line))
			}
			format = f[1]
		case "element":
			if len(f) != 3 {
				return nil, fmt.Errorf("ply: bad element line %q", strings.TrimSpace(line))
			}
			n, err := strconv.Atoi(f[2])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("ply: bad element count %q", f[2])
			}
			elems = append(elems, &plyElement{name: f[1], count: n})
		case "property":
			if len(elems) == 0 {
				return nil, fmt.Errorf("ply: property before any element")
			}
			e := elems[len(elems)-1]
			var p plyProperty
			var err error
			switch {
			case len(f) == 5 && f[1] == "list":
				p = plyProperty{name: f[4], list: true}
				if p.countKind, err = kind(f[2], line); err == nil {
					p.kind, err = kind(f[3], line)
				}
			case len(f) == 3:
				p = plyProperty{name: f[2]}
				p.kind, err = kind(f[1], line)
			default:
				return nil, fmt.Errorf("ply: bad property line %q", strings.TrimSpace(line))
			}
			if err != nil {
				return nil, err
			}
			e.props = append(e.props, p)
		case "end_header":
			var left int64 = -1
			if size >= 0 {
				left = size - header
			}
			return readPLYBody(r, format, elems, left)
		default:
			return nil, fmt.Errorf("ply: unknown header line %q", strings.TrimSpace(line))
		}
	}
}

// maxHeaderLine bounds a PLY header's line: what has no line end that
// soon (a binary file, a device such as /dev/zero) is no PLY header.
const maxHeaderLine = 64 << 10

// headerLine reads one line of a PLY header, with its line end.
func headerLine(r *bufio.Reader) (string, error) {
	line, err := bounded.ReadLine(r, maxHeaderLine)
	if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
		return "", fmt.Errorf("a header line longer than %d bytes", maxHeaderLine)
	}
	return string(line), err
}

// endsEarly is the error of a body whose reading stopped at err: the
// file's end, or what the reader met (a gzip stream's corruption).
func endsEarly(err error) error {
	if err == nil || err == io.EOF {
		return errors.New("ply: data ends early")
	}
	return fmt.Errorf("ply: data ends early: %w", err)
}

// plyValues reads a PLY body's values one at a time, as text or as binary.
type plyValues struct {
	r      *bufio.Reader
	order  binary.ByteOrder // nil: ascii
	tokens *bufio.Scanner
}

func (v *plyValues) next(k scalarKind) (float64, error) {
	if v.order == nil {
		if !v.tokens.Scan() {
			return 0, endsEarly(v.tokens.Err())
		}
		return strconv.ParseFloat(v.tokens.Text(), 64)
	}
	n := k.size()
	b, err := v.r.Peek(n)
	if err != nil {
		return 0, endsEarly(err)
	}
	x := k.decode(b, v.order)
	v.r.Discard(n)
	return x, nil
}

func readPLYBody(r *bufio.Reader, format string, elems []*plyElement, left int64) (*Model, error) {
	v := &plyValues{r: r}
	switch format {
	case "ascii":
		v.tokens = bufio.NewScanner(r)
		v.tokens.Buffer(make([]byte, 1<<16), 1<<20)
		v.tokens.Split(bufio.ScanWords)
	case "binary_little_endian":
		v.order = binary.LittleEndian
	case "binary_big_endian":
		v.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("ply: unknown format %q", format)
	}
	// what each element's items take at the least, in the file: a header
	// whose counts need more than the file has is refused at once, and
	// no slice is made larger than the file can fill
	least := func(e *plyElement) int64 {
		var n int64
		for _, p := range e.props {
			k := p.kind
			if p.list {
				k = p.countKind
			}
			if v.order == nil {
				n += 2 // a digit and a space
			} else {
				n += int64(k.size())
			}
		}
		return n
	}
	if left >= 0 {
		var need, slack int64 // slack: the last ascii value needs no space after it
		if v.order == nil {
			slack = 1
		}
		for _, e := range elems {
			// compared by division: a count of 9e18 would overflow the
			// product and pass
			n := least(e)
			if n > 0 && int64(e.count) > (left+slack-need)/n {
				return nil, fmt.Errorf("ply: the header's %d %s elements need at least %d bytes each, more than the file has after its header with the elements before them (%d bytes)",
					e.count, e.name, n, left)
			}
			need += int64(e.count) * n
		}
	}
	room := func(e *plyElement) int {
		if left < 0 || least(e) == 0 {
			return min(e.count, 1<<20)
		}
		return int(min(int64(e.count), left/least(e)))
	}
	m := &Model{}
	// faces may come before the vertices they index (PLY leaves the
	// elements' order to the file): indices are checked against the
	// header's vertex count
	nVerts := -1
	for _, e := range elems {
		if e.name != "vertex" {
			continue
		}
		if nVerts >= 0 {
			return nil, fmt.Errorf("ply: two vertex elements")
		}
		if e.count > MaxPLYVertices {
			return nil, fmt.Errorf("ply: %d vertices exceed the limit of %d", e.count, MaxPLYVertices)
		}
		nVerts = e.count
	}
	index := func(x float64, what string, i int) (uint32, error) {
		if !whole(x, 0, float64(nVerts)-1) {
			return 0, fmt.Errorf("ply: %s %d refers to vertex %v of %d", what, i, x, max(nVerts, 0))
		}
		return uint32(x), nil
	}
	// skip reads and drops a property's values
	skip := func(e *plyElement, i int, p plyProperty) error {
		n := 1.0
		if p.list {
			c, err := v.next(p.countKind)
			if err != nil {
				return err
			}
			if !whole(c, 0, math.MaxUint32) {
				return fmt.Errorf("ply: %s %d's %s has %v items", e.name, i, p.name, c)
			}
			n = c
		}
		for range int(n) {
			if _, err := v.next(p.kind); err != nil {
				return err
			}
		}
		return nil
	}
	// eachList calls list with each of e's items' vertex index list: its
	// length (at most limit) and the type of its values, which list reads.
	// Where read is not nil, it is called once an item is read whole, with
	// its scalar properties' values by column (a face's colour); otherwise
	// they are skipped, as the items' other lists are.
	eachList := func(e *plyElement, limit float64, list func(item, n int, kind scalarKind) error, read func(item int, scalars []float64)) error {
		scalars := make([]float64, len(e.props))
		for i := 0; i < e.count; i++ {
			for c, p := range e.props {
				if !p.list && read != nil {
					x, err := v.next(p.kind)
					if err != nil {
						return err
					}
					scalars[c] = x
					continue
				}
				if !p.list || p.name != "vertex_indices" && p.name != "vertex_index" {
					if err := skip(e, i, p); err != nil {
						return err
					}
					continue
				}
				n, err := v.next(p.countKind)
				if err != nil {
					return err
				}
				if !whole(n, 0, limit) {
					return fmt.Errorf("ply: %s %d has %v vertices (0 to %.0f)", e.name, i, n, limit)
				}
				if err := list(i, int(n), p.kind); err != nil {
					return err
				}
			}
			if read != nil {
				read(i, scalars)
			}
		}
		return nil
	}
	hasNormals := false
	var ids []uint32 // one face's, reused
	// red, green and blue of each triangle, where the faces have colours:
	// as long as m.Triangles while every face came with one
	var faceColors []uint8
	for _, e := range elems {
		switch e.name {
		case "vertex":
			for _, p := range e.props {
				if p.list {
					return nil, fmt.Errorf("ply: list properties on vertices are not supported")
				}
			}
			idx := propIndex(e)
			for _, k := range []string{"x", "y", "z"} {
				if _, ok := idx[k]; !ok {
					return nil, fmt.Errorf("ply: vertex has no %s", k)
				}
			}
			names := []string{"x", "y", "z"}
			if _, ok := idx["nx"]; ok {
				for _, k := range []string{"ny", "nz"} {
					if _, ok := idx[k]; !ok {
						return nil, fmt.Errorf("ply: vertex has nx but no %s", k)
					}
				}
				hasNormals = true
				names = append(names, "nx", "ny", "nz")
			}
			cols := make([]int, len(names)) // of each name, in vals
			for i, k := range names {
				cols[i] = idx[k]
			}
			colors := plyColors(e.props, idx)
			m.Vertices = make([]float32, 0, 6*room(e))
			if colors != nil {
				m.Colors = make([]uint8, 0, 3*room(e))
			}
			vals := make([]float64, len(e.props))
			for vi := 0; vi < e.count; vi++ {
				for i, p := range e.props {
					x, err := v.next(p.kind)
					if err != nil {
						return nil, err
					}
					vals[i] = x
				}
				var vx [6]float32
				for i, col := range cols {
					// a coordinate past float32's range is infinite
					// once converted, and one infinity or NaN spoils the
					// model's bounds and every normal
					vx[i] = float32(vals[col])
					if f := float64(vx[i]); math.IsNaN(f) || math.IsInf(f, 0) {
						return nil, fmt.Errorf("ply: vertex %d's %s %v is not a finite float32", vi, names[i], vals[col])
					}
				}
				m.Vertices = append(m.Vertices, vx[:]...)
				for _, c := range colors {
					m.Colors = append(m.Colors, colorByte(vals[c], e.props[c].kind))
				}
			}
		case "face":
			if e.count > MaxPLYFaces {
				return nil, fmt.Errorf("ply: %d faces exceed the limit of %d", e.count, MaxPLYFaces)
			}
			m.Triangles = slices.Grow(m.Triangles, 3*room(e))
			// faces of a colour each (as segmentations and MeshLab's
			// face colours are) colour their triangles
			var colored func(fc int, scalars []float64)
			colors := plyColors(e.props, propIndex(e))
			if colors != nil && len(faceColors) == len(m.Triangles) { // every triangle before coloured too
				faceColors = slices.Grow(faceColors, 3*room(e))
				colored = func(_ int, scalars []float64) {
					for len(faceColors) < len(m.Triangles) {
						for _, c := range colors {
							faceColors = append(faceColors, colorByte(scalars[c], e.props[c].kind))
						}
					}
				}
			}
			// a polygon of more corners is no model's (a bound, for a
			// file read from a pipe, on what one face holds)
			err := eachList(e, maxPolygon, func(fc, n int, kind scalarKind) error {
				ids = ids[:0]
				for range n {
					x, err := v.next(kind)
					if err != nil {
						return err
					}
					id, err := index(x, "face", fc)
					if err != nil {
						return err
					}
					ids = append(ids, id)
				}
				for i := 1; i+1 < len(ids); i++ {
					m.Triangles = append(m.Triangles, ids[0], ids[i], ids[i+1])
				}
				return nil
			}, colored)
			if err != nil {
				return nil, err
			}
		case "tristrips":
			// triangle strips, as some scanned models (Stanford's among
			// them) hold their faces: each list runs strips apart by -1,
			// and every other triangle turns its order back, so that all
			// wind alike
			err := eachList(e, math.MaxUint32, func(st, n int, kind scalarKind) error {
				var strip [2]uint32 // the last two vertices of the strip
				inStrip := 0        // how many of the strip's vertices have come
				for range n {
					x, err := v.next(kind)
					if err != nil {
						return err
					}
					if x == -1 {
						inStrip = 0
						continue
					}
					id, err := index(x, "tristrips", st)
					if err != nil {
						return err
					}
					if inStrip >= 2 {
						a, b := strip[0], strip[1]
						if inStrip%2 == 1 {
							a, b = b, a
						}
						// strips joined by repeated vertices leave
						// triangles of no area
						if a != b && b != id && a != id {
							if len(m.Triangles) >= 3*MaxPLYFaces {
								return fmt.Errorf("ply: tristrips hold more than the limit of %d faces", MaxPLYFaces)
							}
							m.Triangles = append(m.Triangles, a, b, id)
						}
					}
					strip[0], strip[1] = strip[1], id
					inStrip++
				}
				return nil
			}, nil)
			if err != nil {
				return nil, err
			}
		default:
			// skip other elements' data (an element of no properties has
			// none, whatever its count)
			if len(e.props) == 0 {
				continue
			}
			for i := 0; i < e.count; i++ {
				for _, p := range e.props {
					if err := skip(e, i, p); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if len(m.Triangles) == 0 {
		faces := 0
		for _, e := range elems {
			if e.name == "face" || e.name == "tristrips" {
				faces += e.count
			}
		}
		if faces == 0 && nVerts > 0 {
			// a scan's points, as scanners and point cloud libraries
			// write them: say what the file is, not only what it lacks
			return nil, fmt.Errorf("ply: %d vertices and no faces: a point cloud, and goeq draws surfaces (a face or tristrips element with vertex_indices; a surface reconstruction makes one of a point cloud)", nVerts)
		}
		return nil, fmt.Errorf("ply: no faces (a face or tristrips element with vertex_indices)")
	}
	if !hasNormals {
		m.computeNormals()
	}
	// the vertices' own colours go before the faces' (eqPly draws those
	// alone); faces' colours that some triangles lack (tristrips beside
	// them) colour none
	if m.Colors == nil && faceColors != nil && len(faceColors) == len(m.Triangles) {
		m.colorFaces(faceColors)
	}
	m.kdOrder()
	return m, nil
}

// propIndex is the column of each of e's properties, by name.
func propIndex(e *plyElement) map[string]int {
	idx := make(map[string]int, len(e.props))
	for i, p := range e.props {
		idx[p.name] = i
	}
	return idx
}

// colorByte is a colour component x of a PLY property of kind k, on 0..255.
func colorByte(x float64, k scalarKind) uint8 {
	x = math.Round(x * k.colorScale())
	if math.IsNaN(x) {
		x = 0
	}
	return uint8(min(max(x, 0), 255))
}

// colorFaces colours each triangle in its colour of rgb (three bytes a
// triangle): a vertex of triangles of one colour takes it, and one where
// colours meet becomes a vertex for each, so that every face shows its
// own. The normals stay the shared vertex's, so shading runs smooth
// across the colours' borders.
func (m *Model) colorFaces(rgb []uint8) {
	const none = ^uint32(0)
	nv := len(m.Vertices) / 6
	first := make([]uint32, nv)   // the colour a vertex took first (r<<16|g<<8|b)
	firstAt := make([]uint32, nv) // and its vertex in the result (none: not yet)
	for i := range firstAt {
		firstAt[i] = none
	}
	more := map[uint64]uint32{} // a vertex's other colours: (vertex<<24|colour) -> its vertex
	verts := make([]float32, 0, len(m.Vertices))
	colors := make([]uint8, 0, len(m.Vertices)/2)
	for t, v := range m.Triangles {
		c := rgb[3*(t/3) : 3*(t/3)+3]
		key := uint32(c[0])<<16 | uint32(c[1])<<8 | uint32(c[2])
		var at uint32
		switch {
		case firstAt[v] == none:
			first[v], firstAt[v] = key, uint32(len(verts)/6)
			at = firstAt[v]
		case first[v] == key:
			at = firstAt[v]
		default:
			k := uint64(v)<<24 | uint64(key)
			var ok bool
			if at, ok = more[k]; !ok {
				at = uint32(len(verts) / 6)
				more[k] = at
			}
		}
		if int(at) == len(verts)/6 { // a vertex new to the result
			verts = append(verts, m.Vertices[6*v:6*v+6]...)
			colors = append(colors, c...)
		}
		m.Triangles[t] = at
	}
	m.Vertices, m.Colors = verts, colors
}

// plyColors are the columns of a vertex's red, green and blue (or
// diffuse_red ...), or nil when it has none.
func plyColors(props []plyProperty, idx map[string]int) []int {
	for _, prefix := range []string{"", "diffuse_"} {
		var cols []int
		for _, c := range []string{"red", "green", "blue"} {
			if i, ok := idx[prefix+c]; ok {
				cols = append(cols, i)
			}
		}
		if len(cols) == 3 {
			return cols
		}
	}
	return nil
}

// whole reports whether x, read as a count or an index, is a whole number
// from lo to hi (NaN is not; a float file may hold any value there).
func whole(x, lo, hi float64) bool { return x == math.Trunc(x) && x >= lo && x <= hi }

// computeNormals sets each vertex normal to the normalised sum of its
// faces' normals.
func (m *Model) computeNormals() {
	for t := 0; t+2 < len(m.Triangles); t += 3 {
		var p [3][3]float64
		for k := 0; k < 3; k++ {
			v := m.Triangles[t+k]
			p[k] = [3]float64{float64(m.Vertices[6*v]), float64(m.Vertices[6*v+1]), float64(m.Vertices[6*v+2])}
		}
		n := cross3(sub3(p[1], p[0]), sub3(p[2], p[0]))
		for k := 0; k < 3; k++ {
			v := m.Triangles[t+k]
			for a := 0; a < 3; a++ {
				m.Vertices[6*v+3+uint32(a)] += float32(n[a])
			}
		}
	}
	for v := 0; v+5 < len(m.Vertices); v += 6 {
		x, y, z := m.Vertices[v+3], m.Vertices[v+4], m.Vertices[v+5]
		if l := float32(math.Sqrt(float64(x*x + y*y + z*z))); l > 0 {
			m.Vertices[v+3], m.Vertices[v+4], m.Vertices[v+5] = x/l, y/l, z/l
		}
	}
}

// WritePLY writes m as a binary little-endian PLY file with vertex
// positions, normals and colours (where it has them) and triangle faces:
// what other renderers (ParaView's PLYReader among them) read, so that
// they draw the very same model.
func WritePLY(w io.Writer, m *Model) error {
	colors := len(m.Colors) == len(m.Vertices)/2 && len(m.Colors) > 0
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "ply\nformat binary_little_endian 1.0\ncomment goeq\nelement vertex %d\n", len(m.Vertices)/6)
	for _, p := range []string{"x", "y", "z", "nx", "ny", "nz"} {
		fmt.Fprintf(bw, "property float %s\n", p)
	}
	if colors {
		fmt.Fprintf(bw, "property uchar red\nproperty uchar green\nproperty uchar blue\n")
	}
	fmt.Fprintf(bw, "element face %d\nproperty list uchar int vertex_indices\nend_header\n", m.TriangleCount())
	var b [13]byte
	for v := 0; v+5 < len(m.Vertices); v += 6 {
		for _, x := range m.Vertices[v : v+6] {
			binary.LittleEndian.PutUint32(b[:4], math.Float32bits(x))
			bw.Write(b[:4])
		}
		if colors {
			bw.Write(m.Colors[v/2 : v/2+3])
		}
	}
	b[0] = 3
	for t := 0; t+2 < len(m.Triangles); t += 3 {
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint32(b[1+4*k:], m.Triangles[t+k])
		}
		bw.Write(b[:13])
	}
	return bw.Flush()
}
