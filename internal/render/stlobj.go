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
	"path/filepath"
	"strconv"
	"strings"
)

// LoadModel reads a model: an STL file (*.stl, binary or ASCII, as CAD
// and 3D printing tools write them), a Wavefront OBJ file (*.obj), a VTK
// surface (*.vtp, ParaView's own, a parallel one's pieces listed in a
// *.pvtp, or a legacy *.vtk of POLYDATA), a glTF 2 model (*.gltf or
// *.glb), or else
// a PLY file (LoadPLY).
func LoadModel(path string) (*Model, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".stl":
		return loadWith(path, readSTL)
	case ".obj":
		return loadWith(path, func(f *os.File, _ int64) (*Model, error) { return readOBJ(f) })
	case ".vtp":
		return loadWith(path, readVTP)
	case ".pvtp":
		return loadPVTP(path)
	case ".gltf", ".glb":
		return loadGLTF(path)
	case ".vtk":
		return loadWith(path, readLegacyVTKSurface)
	}
	return LoadPLY(path)
}

// IsModelName reports whether a folder's file is a model by its name:
// .ply (or .ply.gz), .stl, .obj, .vtp, .pvtp, .vtk, .gltf or .glb (ModelParts says
// which of a folder's .vtp files are a .pvtp's pieces).
func IsModelName(path string) bool {
	name := strings.ToLower(filepath.Base(path))
	for _, ext := range []string{".ply", ".ply.gz", ".stl", ".obj", ".vtp", ".pvtp", ".vtk", ".gltf", ".glb"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func loadWith(path string, read func(f *os.File, size int64) (*Model, error)) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	m, err := read(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readSTL reads an STL file of size bytes: binary (80 bytes of header, a
// count, 50 bytes a triangle) where its size says so, else ASCII (solid,
// facet, outer loop, vertex x y z). Its triangles' corners at one place
// become one vertex, so that the shading runs smooth over them.
func readSTL(f *os.File, size int64) (*Model, error) {
	r := bufio.NewReaderSize(f, 1<<16)
	head, _ := r.Peek(84)
	if len(head) == 84 {
		// a binary file may begin with "solid" too: its size tells it
		n := int64(binary.LittleEndian.Uint32(head[80:]))
		if 84+50*n == size {
			if n > MaxPLYFaces {
				return nil, fmt.Errorf("stl: %d triangles exceed the limit of %d", n, MaxPLYFaces)
			}
			r.Discard(84)
			w := newWelder(int(n))
			var tri [50]byte
			for range n {
				if _, err := io.ReadFull(r, tri[:]); err != nil {
					return nil, errors.New("stl: the triangles end early")
				}
				for k := range 3 {
					var p [3]float32
					for a := range 3 {
						p[a] = math.Float32frombits(binary.LittleEndian.Uint32(tri[12+12*k+4*a:]))
					}
					if err := w.corner(p); err != nil {
						return nil, err
					}
				}
			}
			return w.model()
		}
	}
	if !bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("solid")) {
		return nil, errors.New("stl: neither binary (its size is not 84 bytes and 50 a triangle) nor ASCII (no solid at its start)")
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	w := newWelder(1 << 10)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "vertex" {
			continue
		}
		if len(fields) != 4 {
			return nil, fmt.Errorf("stl: line %d: a vertex of %d numbers; want 3", line, len(fields)-1)
		}
		var p [3]float32
		for a := range 3 {
			x, err := strconv.ParseFloat(fields[1+a], 32)
			if err != nil {
				return nil, fmt.Errorf("stl: line %d: %q is no number", line, quoteShort(fields[1+a]))
			}
			p[a] = float32(x)
		}
		if err := w.corner(p); err != nil {
			return nil, fmt.Errorf("stl: line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("stl: %w", err)
	}
	if len(w.m.Triangles)%3 != 0 {
		return nil, fmt.Errorf("stl: %d vertices, not three a facet", len(w.m.Triangles))
	}
	return w.model()
}

// welder makes a model of triangles' corners, one vertex a place.
type welder struct {
	m  *Model
	at map[[3]float32]uint32
}

func newWelder(triangles int) *welder {
	n := min(triangles, 1<<20)
	return &welder{m: &Model{Triangles: make([]uint32, 0, 3*n), Vertices: make([]float32, 0, 6*n)}, at: make(map[[3]float32]uint32, n)}
}

// corner adds a triangle's next corner at p.
func (w *welder) corner(p [3]float32) error {
	for _, x := range p {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("a corner at %v: not a finite float32", p)
		}
	}
	if len(w.m.Triangles) >= 3*MaxPLYFaces {
		return fmt.Errorf("more than the limit of %d triangles", MaxPLYFaces)
	}
	v, ok := w.at[p]
	if !ok {
		v = uint32(len(w.m.Vertices) / 6)
		w.at[p] = v
		w.m.Vertices = append(w.m.Vertices, p[0], p[1], p[2], 0, 0, 0)
	}
	w.m.Triangles = append(w.m.Triangles, v)
	return nil
}

func (w *welder) model() (*Model, error) {
	if len(w.m.Triangles) == 0 {
		return nil, errors.New("stl: no triangles")
	}
	w.m.computeNormals()
	w.m.kdOrder()
	return w.m, nil
}

// readOBJ reads a Wavefront OBJ model: its vertices (v x y z, and r g b
// after them as MeshLab writes colours), normals (vn) and faces (f, of
// v, v/vt, v//vn or v/vt/vn corners, counted from 1, or back from the
// last where negative); polygons are fanned into triangles. Its normals
// are taken where every corner names one (a corner of its own for each
// vertex and normal it pairs), else computed as a PLY's are. Other lines
// (texture coordinates, groups, materials) are read past.
func readOBJ(r io.Reader) (*Model, error) {
	sc := bufio.NewScanner(bufio.NewReaderSize(r, 1<<16))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var (
		positions, normals [][3]float32
		colors             [][3]uint8
		colored            = true
		corners            [][2]int // every face corner's vertex and normal (-1: none), fanned
		named              = true   // every corner names a normal
		face               [][2]int // one face's, reused
	)
	// three reads a line's first three numbers
	three := func(fields []string, line int) ([3]float32, error) {
		var p [3]float32
		for a := range p {
			x, err := strconv.ParseFloat(fields[a], 32)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return p, fmt.Errorf("obj: line %d: %q is no finite number", line, quoteShort(fields[a]))
			}
			p[a] = float32(x)
		}
		return p, nil
	}
	// index resolves an index of a corner: from 1, or back from the last
	// of n where negative
	index := func(s string, n, line int) (int, error) {
		i, err := strconv.Atoi(s)
		switch {
		case err != nil || i == 0:
			return 0, fmt.Errorf("obj: line %d: %q is no index (counted from 1, or back from -1)", line, quoteShort(s))
		case i < 0:
			i += n
		default:
			i--
		}
		if i < 0 || i >= n {
			return 0, fmt.Errorf("obj: line %d: index %s of %d", line, s, n)
		}
		return i, nil
	}
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) < 4 {
				return nil, fmt.Errorf("obj: line %d: a vertex of %d numbers; want 3 (and a colour's 3)", line, len(fields)-1)
			}
			if len(positions) >= MaxPLYVertices {
				return nil, fmt.Errorf("obj: more than the limit of %d vertices", MaxPLYVertices)
			}
			p, err := three(fields[1:], line)
			if err != nil {
				return nil, err
			}
			positions = append(positions, p)
			if len(fields) != 7 {
				colored = false
				continue
			}
			rgb, err := three(fields[4:], line)
			if err != nil {
				return nil, err
			}
			var c [3]uint8
			for a, x := range rgb {
				c[a] = colorByte(float64(x), scalarFloat32)
			}
			colors = append(colors, c)
		case "vn":
			if len(fields) != 4 {
				return nil, fmt.Errorf("obj: line %d: a normal of %d numbers; want 3", line, len(fields)-1)
			}
			if len(normals) >= MaxPLYVertices {
				return nil, fmt.Errorf("obj: more than the limit of %d normals", MaxPLYVertices)
			}
			n, err := three(fields[1:], line)
			if err != nil {
				return nil, err
			}
			normals = append(normals, n)
		case "f":
			if len(fields)-1 > maxPolygon {
				return nil, fmt.Errorf("obj: line %d: a face of %d corners (up to %d)", line, len(fields)-1, maxPolygon)
			}
			face = face[:0]
			for _, c := range fields[1:] {
				parts := strings.Split(c, "/")
				v, err := index(parts[0], len(positions), line)
				if err != nil {
					return nil, err
				}
				n := -1
				if len(parts) == 3 && parts[2] != "" {
					if n, err = index(parts[2], len(normals), line); err != nil {
						return nil, err
					}
				}
				named = named && n >= 0
				face = append(face, [2]int{v, n})
			}
			for i := 1; i+1 < len(face); i++ {
				if len(corners) >= 3*MaxPLYFaces {
					return nil, fmt.Errorf("obj: more than the limit of %d triangles", MaxPLYFaces)
				}
				corners = append(corners, face[0], face[i], face[i+1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("obj: line %d: %w", line+1, err)
	}
	if len(corners) == 0 {
		if len(positions) > 0 {
			return nil, fmt.Errorf("obj: %d vertices and no faces: a point cloud, and goeq draws surfaces", len(positions))
		}
		return nil, errors.New("obj: no faces (f lines)")
	}
	// a vertex for each pair of position and normal the corners name
	m := &Model{Triangles: make([]uint32, 0, len(corners))}
	at := make(map[[2]int]uint32, len(positions))
	for _, c := range corners {
		if !named {
			c[1] = -1
		}
		v, ok := at[c]
		if !ok {
			v = uint32(len(m.Vertices) / 6)
			at[c] = v
			p := positions[c[0]]
			var n [3]float32
			if c[1] >= 0 {
				n = normals[c[1]]
			}
			m.Vertices = append(m.Vertices, p[0], p[1], p[2], n[0], n[1], n[2])
			if colored {
				m.Colors = append(m.Colors, colors[c[0]][:]...)
			}
		}
		m.Triangles = append(m.Triangles, v)
	}
	if !named {
		m.computeNormals()
	}
	m.kdOrder()
	return m, nil
}
