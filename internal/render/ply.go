package render

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// PLY limits: a model goeq loads must fit these (a malformed header must
// not make the loader allocate without bound).
const (
	MaxPLYVertices = 50_000_000
	MaxPLYFaces    = 100_000_000
)

// LoadPLY reads a PLY file (ascii, binary_little_endian or
// binary_big_endian) with vertex x y z (and optional nx ny nz) and faces
// given as vertex index lists; polygons are fanned into triangles. Missing
// normals are computed from the faces. The triangles are kd-ordered.
func LoadPLY(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ReadPLY(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// plySizes are the byte sizes of PLY's scalar types.
var plySizes = map[string]int{"char": 1, "int8": 1, "uchar": 1, "uint8": 1, "short": 2, "int16": 2, "ushort": 2, "uint16": 2,
	"int": 4, "int32": 4, "uint": 4, "uint32": 4, "float": 4, "float32": 4, "double": 8, "float64": 8}

type plyProperty struct {
	name      string
	kind      string // scalar type, or the item type of a list
	list      bool
	countKind string
}

type plyElement struct {
	name  string
	count int
	props []plyProperty
}

// ReadPLY reads a PLY model from r.
func ReadPLY(r *bufio.Reader) (*Model, error) {
	line, err := r.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ply" {
		return nil, fmt.Errorf("ply: not a PLY file (first line %q)", strings.TrimSpace(line))
	}
	format := ""
	var elems []*plyElement
	for {
		line, err = r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("ply: header ends early: %v", err)
		}
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
			if len(f) == 5 && f[1] == "list" {
				e.props = append(e.props, plyProperty{name: f[4], kind: f[3], list: true, countKind: f[2]})
			} else if len(f) == 3 {
				e.props = append(e.props, plyProperty{name: f[2], kind: f[1]})
			} else {
				return nil, fmt.Errorf("ply: bad property line %q", strings.TrimSpace(line))
			}
		case "end_header":
			return readPLYBody(r, format, elems)
		default:
			return nil, fmt.Errorf("ply: unknown header line %q", strings.TrimSpace(line))
		}
	}
}

func readPLYBody(r *bufio.Reader, format string, elems []*plyElement) (*Model, error) {
	var order binary.ByteOrder
	switch format {
	case "ascii":
	case "binary_little_endian":
		order = binary.LittleEndian
	case "binary_big_endian":
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("ply: unknown format %q", format)
	}
	var tokens *bufio.Scanner
	if order == nil {
		tokens = bufio.NewScanner(r)
		tokens.Buffer(make([]byte, 1<<16), 1<<20)
		tokens.Split(bufio.ScanWords)
	}
	read := func(kind string) (float64, error) {
		if order == nil {
			if !tokens.Scan() {
				return 0, fmt.Errorf("ply: data ends early")
			}
			return strconv.ParseFloat(tokens.Text(), 64)
		}
		var b [8]byte
		size := plySizes[kind]
		if size == 0 {
			return 0, fmt.Errorf("ply: unknown type %q", kind)
		}
		if _, err := io.ReadFull(r, b[:size]); err != nil {
			return 0, fmt.Errorf("ply: data ends early")
		}
		switch kind {
		case "char", "int8":
			return float64(int8(b[0])), nil
		case "uchar", "uint8":
			return float64(b[0]), nil
		case "short", "int16":
			return float64(int16(order.Uint16(b[:]))), nil
		case "ushort", "uint16":
			return float64(order.Uint16(b[:])), nil
		case "int", "int32":
			return float64(int32(order.Uint32(b[:]))), nil
		case "uint", "uint32":
			return float64(order.Uint32(b[:])), nil
		case "float", "float32":
			return float64(math.Float32frombits(order.Uint32(b[:]))), nil
		}
		return math.Float64frombits(order.Uint64(b[:])), nil
	}
	m := &Model{}
	nVerts := 0
	hasNormals := false
	for _, e := range elems {
		switch e.name {
		case "vertex":
			if e.count > MaxPLYVertices {
				return nil, fmt.Errorf("ply: %d vertices exceed the limit of %d", e.count, MaxPLYVertices)
			}
			idx := map[string]int{}
			for i, p := range e.props {
				idx[p.name] = i
			}
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
			nVerts = e.count
			vals := make([]float64, len(e.props))
			for v := 0; v < e.count; v++ {
				for i, p := range e.props {
					if p.list {
						return nil, fmt.Errorf("ply: list properties on vertices are not supported")
					}
					x, err := read(p.kind)
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
						return nil, fmt.Errorf("ply: vertex %d's %s %v is not a finite float32", v, names[i], vals[col])
					}
				}
				m.Vertices = append(m.Vertices, vx[:]...)
			}
		case "face":
			if e.count > MaxPLYFaces {
				return nil, fmt.Errorf("ply: %d faces exceed the limit of %d", e.count, MaxPLYFaces)
			}
			for fc := 0; fc < e.count; fc++ {
				for _, p := range e.props {
					if !p.list {
						if _, err := read(p.kind); err != nil {
							return nil, err
						}
						continue
					}
					n, err := read(p.countKind)
					if err != nil {
						return nil, err
					}
					if !whole(n, 0, 64) {
						return nil, fmt.Errorf("ply: face %d has %v vertices (0 to 64)", fc, n)
					}
					ids := make([]uint32, int(n))
					for i := range ids {
						x, err := read(p.kind)
						if err != nil {
							return nil, err
						}
						if !whole(x, 0, float64(nVerts)-1) {
							return nil, fmt.Errorf("ply: face %d refers to vertex %v of %d", fc, x, nVerts)
						}
						ids[i] = uint32(x)
					}
					if p.name != "vertex_indices" && p.name != "vertex_index" {
						continue
					}
					for i := 1; i+1 < len(ids); i++ {
						m.Triangles = append(m.Triangles, ids[0], ids[i], ids[i+1])
					}
				}
			}
		default:
			// skip other elements' data (an element of no properties has
			// none, whatever its count)
			if len(e.props) == 0 {
				continue
			}
			for i := 0; i < e.count; i++ {
				for _, p := range e.props {
					n := 1.0
					if p.list {
						c, err := read(p.countKind)
						if err != nil {
							return nil, err
						}
						if !whole(c, 0, math.MaxUint32) {
							return nil, fmt.Errorf("ply: %s %d's %s has %v items", e.name, i, p.name, c)
						}
						n = c
					}
					for k := 0; k < int(n); k++ {
						if _, err := read(p.kind); err != nil {
							return nil, err
						}
					}
				}
			}
		}
	}
	if len(m.Triangles) == 0 {
		return nil, fmt.Errorf("ply: no faces")
	}
	if !hasNormals {
		m.computeNormals()
	}
	m.kdOrder()
	return m, nil
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
// positions and normals and triangle faces: what other renderers (ParaView's
// PLYReader among them) read, so that they draw the very same model.
func WritePLY(w io.Writer, m *Model) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "ply\nformat binary_little_endian 1.0\ncomment goeq\nelement vertex %d\n", len(m.Vertices)/6)
	for _, p := range []string{"x", "y", "z", "nx", "ny", "nz"} {
		fmt.Fprintf(bw, "property float %s\n", p)
	}
	fmt.Fprintf(bw, "element face %d\nproperty list uchar int vertex_indices\nend_header\n", m.TriangleCount())
	var b [13]byte
	for _, v := range m.Vertices {
		binary.LittleEndian.PutUint32(b[:4], math.Float32bits(v))
		bw.Write(b[:4])
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
