package render

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/compound"
)

const asciiPLY = `ply
format ascii 1.0
comment a unit square in two triangles, as one quad
element vertex 4
property float x
property float y
property float z
element face 1
property list uchar int vertex_indices
end_header
0 0 0
1 0 0
1 1 0
0 1 0
4 0 1 2 3
`

func TestReadPLYASCII(t *testing.T) {
	m, err := ReadPLY(bufio.NewReader(strings.NewReader(asciiPLY)))
	if err != nil {
		t.Fatal(err)
	}
	if m.TriangleCount() != 2 || len(m.Vertices) != 24 {
		t.Fatalf("%d triangles, %d floats", m.TriangleCount(), len(m.Vertices))
	}
	if nz := m.Vertices[5]; math.Abs(float64(nz)-1) > 1e-6 {
		t.Errorf("computed normal z %v, want 1", nz)
	}
}

func TestReadPLYBinary(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		name := "binary_little_endian"
		if order == binary.BigEndian {
			name = "binary_big_endian"
		}
		var b bytes.Buffer
		b.WriteString("ply\nformat " + name + " 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\nelement face 1\nproperty list uchar uint vertex_indices\nend_header\n")
		for _, v := range [][6]float32{{0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 1}, {0, 1, 0, 0, 0, 1}} {
			binary.Write(&b, order, v)
		}
		b.WriteByte(3)
		binary.Write(&b, order, [3]uint32{0, 1, 2})
		m, err := ReadPLY(bufio.NewReader(&b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.TriangleCount() != 1 || m.Vertices[6] != 1 || m.Vertices[5] != 1 {
			t.Errorf("%s: %+v", name, m)
		}
	}
}

func TestReadPLYRejectsBadInput(t *testing.T) {
	for _, src := range []string{
		"",
		"plyx\n",
		"ply\nformat ascii 1.0\nelement vertex -1\nend_header\n",
		"ply\nformat ascii 1.0\nelement vertex 999999999999\nend_header\n",
		"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n3 0 1 2\n",
		strings.Replace(asciiPLY, "4 0 1 2 3", "4 0 1 2", 1),
		"ply\nformat ascii 1.0\nbogus\nend_header\n",
		// what a file may hold where numbers go: a coordinate that is not
		// one or is past float32, a count or index that is no whole number
		// in range (a NaN count once panicked making the face's list)
		strings.Replace(asciiPLY, "1 1 0\n", "1 nan 0\n", 1),
		strings.Replace(asciiPLY, "1 1 0\n", "1 1e39 0\n", 1),
		strings.Replace(asciiPLY, "4 0 1 2 3", "nan 0 1 2 3", 1),
		strings.Replace(asciiPLY, "4 0 1 2 3", "3.5 0 1 2 3", 1),
		strings.Replace(asciiPLY, "4 0 1 2 3", "4 0 1 2 1e30", 1),
		strings.Replace(asciiPLY, "4 0 1 2 3", "4 0 1 2 nan", 1),
		strings.Replace(asciiPLY, "4 0 1 2 3", "4 0 1 2 2.5", 1),
		// a normal with one component, which the others would be read from x
		strings.Replace(asciiPLY, "property float z\n", "property float z\nproperty float nx\n", 1),
	} {
		if _, err := ReadPLY(bufio.NewReader(strings.NewReader(src))); err == nil {
			t.Errorf("accepted %q", src)
		}
	}
}

// A point cloud, vertices without faces as Open3D writes one (no face
// element) and VTK does (element face 0), is refused as what it is.
func TestReadPLYSaysAPointCloudIsOne(t *testing.T) {
	points := "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\n"
	for name, src := range map[string]string{
		"no face element": points + "end_header\n0 0 0\n1 0 0\n0 1 0\n",
		"element face 0":  points + "element face 0\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n",
	} {
		_, err := ReadPLY(bufio.NewReader(strings.NewReader(src)))
		if err == nil || !strings.Contains(err.Error(), "3 vertices and no faces: a point cloud") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A file that is no PLY and has no line end (a device: /dev/zero, whose
// first line was read until memory ran out) is refused at its first
// line's bound, and a binary first line is quoted short.
func TestLoadPLYRefusesALineWithoutEnd(t *testing.T) {
	_, err := LoadPLY("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "not a PLY file: a header line longer than") {
		t.Errorf("/dev/zero: %v", err)
	}
	_, err = ReadPLY(bufio.NewReader(strings.NewReader(strings.Repeat("\x01", 1000) + "\nply\n")))
	if err == nil || len(err.Error()) > 150 {
		t.Errorf("a binary first line: %v", err)
	}
}

// Vertex colours come from red, green and blue (or diffuse_red ...), of
// bytes, of 16 bits or of floats from 0 to 1, taken to bytes and held to
// their range; a model without them has none.
func TestReadPLYColors(t *testing.T) {
	for _, c := range []struct {
		props, values string
		want          []uint8
	}{
		{"property uchar red\nproperty uchar green\nproperty uchar blue\n", "255 128 0", []uint8{255, 128, 0}},
		{"property uchar diffuse_red\nproperty uchar diffuse_green\nproperty uchar diffuse_blue\nproperty uchar alpha\n", "1 2 3 4", []uint8{1, 2, 3}},
		{"property float red\nproperty float green\nproperty float blue\n", "1 0.5 -3", []uint8{255, 128, 0}},
		{"property ushort red\nproperty ushort green\nproperty ushort blue\n", "65535 0 257", []uint8{255, 0, 1}},
		{"property uchar red\nproperty uchar green\n", "9 9", nil},
		{"", "", nil},
	} {
		src := "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n" + c.props +
			"element face 1\nproperty list uchar int vertex_indices\nend_header\n"
		for _, p := range []string{"0 0 0", "1 0 0", "0 1 0"} {
			src += p + " " + c.values + "\n"
		}
		src += "3 0 1 2\n"
		m, err := ReadPLY(bufio.NewReader(strings.NewReader(src)))
		if err != nil {
			t.Fatalf("%q: %v", c.props, err)
		}
		var want []uint8
		for range 3 {
			want = append(want, c.want...)
		}
		if !slices.Equal(m.Colors, want) {
			t.Errorf("%q with %q: colours %v, want %v", c.props, c.values, m.Colors, want)
		}
	}
}

// Faces' colours colour a model whose vertices have none, each face in
// its own, as VTK's PLY reader reads them: the sphere VTK's PLY writer
// wrote, ASCII and binary (testdata/ply/make.py), its neighbouring faces
// of other colours. Its vertices' normals stay shared across the colours'
// borders. Vertex colours go first, and a model of coloured faces and
// uncoloured tristrips is left in the mesh's colour.
func TestReadPLYFaceColours(t *testing.T) {
	var faces []struct {
		Corners [3][3]float64
		Color   [3]uint8
	}
	b, err := os.ReadFile(filepath.Join("testdata", "ply", "faces.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &faces); err != nil {
		t.Fatal(err)
	}
	want := map[corners][3]uint8{}
	for _, f := range faces {
		want[cornersOf(f.Corners)] = f.Color
	}
	for _, name := range []string{"faces-ascii.ply", "faces-binary.ply"} {
		m, err := LoadPLY(filepath.Join("testdata", "ply", name))
		if err != nil {
			t.Fatal(err)
		}
		if m.TriangleCount() != len(want) || len(m.Colors) != len(m.Vertices)/2 {
			t.Fatalf("%s: %d triangles, %d colour bytes for %d vertices; want %d triangles, a colour each vertex", name, m.TriangleCount(), len(m.Colors), len(m.Vertices)/6, len(want))
		}
		normals := map[[3]float32][3]float32{} // of each position
		for tri := range m.TriangleCount() {
			c := m.corners(tri)
			var rgb [3][3]uint8
			for k := range 3 {
				v := m.Triangles[3*tri+k]
				copy(rgb[k][:], m.Colors[3*v:3*v+3])
				var at, n [3]float32
				copy(at[:], m.Vertices[6*v:6*v+3])
				copy(n[:], m.Vertices[6*v+3:6*v+6])
				if was, ok := normals[at]; ok && was != n {
					t.Errorf("%s: the vertex at %v has normals %v and %v", name, at, was, n)
				}
				normals[at] = n
			}
			color, ok := want[c]
			if !ok {
				t.Fatalf("%s: triangle %v is none of VTK's", name, c)
			}
			if rgb[0] != color || rgb[1] != color || rgb[2] != color {
				t.Errorf("%s: triangle %v has corners of %v, want %v", name, c, rgb, color)
			}
		}
	}

	head := "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
	for name, c := range map[string]struct {
		src  string
		want []uint8
	}{
		"vertex colours too": {head + "property uchar red\nproperty uchar green\nproperty uchar blue\n" +
			"element face 2\nproperty list uchar int vertex_indices\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n" +
			"0 0 0 1 1 1\n1 0 0 2 2 2\n0 1 0 3 3 3\n1 1 0 4 4 4\n3 0 1 2 200 0 0\n3 1 3 2 0 200 0\n", []uint8{1, 1, 1, 3, 3, 3, 2, 2, 2, 4, 4, 4}},
		"tristrips beside": {head + "element tristrips 1\nproperty list int int vertex_indices\n" +
			"element face 1\nproperty list uchar int vertex_indices\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n" +
			"0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 1 3 2 0 200 0\n", nil},
		"a quad": {head + "element face 1\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty list uchar int vertex_indices\nend_header\n" +
			"0 0 0\n1 0 0\n0 1 0\n1 1 0\n9 8 7 4 0 1 3 2\n", []uint8{9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7}},
	} {
		m, err := ReadPLY(bufio.NewReader(strings.NewReader(c.src)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := m.colorsByPosition(); !slices.Equal(got, c.want) {
			t.Errorf("%s: colours by position %v, want %v", name, got, c.want)
		}
	}
}

// STL and Wavefront OBJ models load as VTK's readers read them: the
// sphere VTK's STL writer wrote (binary, and ASCII), each triangle's
// corners its own there, welded into shared vertices shaded smooth; and as
// its OBJ writer wrote it, with its normals (testdata/ply/make.py). Each
// triangle is matched by its corners. OBJ's other forms: quads fanned,
// indices back from the last, v/vt/vn corners, MeshLab's vertex colours;
// and what is no model is refused, saying what.
func TestLoadSTLAndOBJ(t *testing.T) {
	var triangles [][3][3]float64
	b, err := os.ReadFile(filepath.Join("testdata", "ply", "triangles.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &triangles); err != nil {
		t.Fatal(err)
	}
	want := map[corners]bool{}
	for _, tri := range triangles {
		want[cornersOf(tri)] = true
	}
	for _, name := range []string{"sphere-binary.stl", "sphere-ascii.stl", "sphere.obj"} {
		m, err := LoadModel(filepath.Join("testdata", "ply", name))
		if err != nil {
			t.Fatal(err)
		}
		if m.TriangleCount() != len(want) || len(m.Vertices)/6 != 47 || m.Colors != nil {
			t.Fatalf("%s: %d triangles, %d vertices, colours %v; want %d triangles on the sphere's 47 vertices, no colours", name, m.TriangleCount(), len(m.Vertices)/6, m.Colors != nil, len(want))
		}
		for tri := range m.TriangleCount() {
			c := m.corners(tri)
			for k := range 3 {
				v := m.Triangles[3*tri+k]
				// a sphere's normals point out from its centre
				n, p := m.Vertices[6*v+3:6*v+6], m.Vertices[6*v:6*v+3]
				if dot := n[0]*p[0] + n[1]*p[1] + n[2]*p[2]; dot < 0.4 {
					t.Fatalf("%s: the normal %v at %v points %.2f out", name, n, p, dot)
				}
			}
			if !want[c] {
				t.Fatalf("%s: triangle %v is none of VTK's", name, c)
			}
		}
	}

	for name, c := range map[string]struct {
		src       string
		triangles int
		colors    []uint8
		err       string
	}{
		"a quad, back from the last, v/vt/vn": {"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf -4/1/1 -3/1/1 -2/1/1 -1/1/1\n", 2, nil, ""},
		// by position: (0,0,0) red, (0,1,0) blue, (1,0,0) green
		"MeshLab's vertex colours":   {"v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nf 1 2 3\n", 1, []uint8{255, 0, 0, 0, 0, 255, 0, 255, 0}, ""},
		"an index past the vertices": {"v 0 0 0\nv 1 0 0\nf 1 2 3\n", 0, nil, "obj: line 3: index 3 of 2"},
		"index 0":                    {"v 0 0 0\nf 0 1 1\n", 0, nil, `obj: line 2: "0" is no index`},
		"a point cloud":              {"v 0 0 0\nv 1 0 0\n", 0, nil, "obj: 2 vertices and no faces: a point cloud"},
		"a NaN":                      {"v 0 nan 0\n", 0, nil, `obj: line 1: "nan" is no finite number`},
	} {
		m, err := readOBJ(strings.NewReader(c.src))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v; want %q", name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if colors := m.colorsByPosition(); m.TriangleCount() != c.triangles || !slices.Equal(colors, c.colors) {
			t.Errorf("%s: %d triangles, colours %v; want %d, %v", name, m.TriangleCount(), colors, c.triangles, c.colors)
		}
	}
	dir := t.TempDir()
	for name, want := range map[string]string{
		"cut.stl":  "stl: neither binary",
		"none.stl": "stl: no triangles",
	} {
		src := map[string]string{"cut.stl": "\x00\x01", "none.stl": "solid x\nendsolid x\n"}[name]
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
		if _, err := LoadModel(filepath.Join(dir, name)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
}

// A header whose counts need more bytes than its file holds is refused
// with the two sizes, before anything is read or made for its counts (it
// was found only at the end of the data, after slices for them grew).
func TestLoadPLYRefusesAHeaderLargerThanItsFile(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"binary": "ply\nformat binary_little_endian 1.0\nelement vertex 40000000\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n" + strings.Repeat("\x00", 100),
		"ascii":  strings.Replace(asciiPLY, "element face 1", "element face 1000", 1),
		// a count whose bytes overflow 64 bits, which a product would pass
		"overflow": strings.Replace(asciiPLY, "element vertex 4", "element junk 4611686018427387904\nproperty float a\nproperty float b\nelement vertex 4", 1),
	} {
		path := filepath.Join(dir, name+".ply")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPLY(path)
		if err == nil || !strings.Contains(err.Error(), "need at least") || !strings.Contains(err.Error(), "the file has") {
			t.Errorf("%s: %v; want the bytes its header needs and the file has", name, err)
		}
	}
	// a file that ends without a newline after its last value is whole
	path := filepath.Join(dir, "tight.ply")
	if err := os.WriteFile(path, []byte(strings.TrimSuffix(asciiPLY, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := LoadPLY(path); err != nil || m.TriangleCount() != 2 {
		t.Errorf("a file without a last newline: %v", err)
	}
}

// Normalize centres the model's box on the origin and puts its farthest
// vertex at the radius given, whatever its units and place.
func TestNormalizeFitsTheSphere(t *testing.T) {
	m := &Model{Vertices: []float32{1000, -50, 7, 0, 0, 1, 1400, -50, 9, 0, 0, 1, 1000, 250, 7, 0, 0, 1}, Triangles: []uint32{0, 1, 2}}
	m.Normalize(2)
	// the box is 400 x 300 x 2 about (1200, 100, 8): its corners (and
	// these vertices) lie sqrt(200² + 150² + 1) = 250.002 from its centre
	s := 2 / math.Sqrt(200*200+150*150+1)
	want := []float32{float32(-200 * s), float32(-150 * s), float32(-s), 0, 0, 1, float32(200 * s), float32(-150 * s), float32(s), 0, 0, 1, float32(-200 * s), float32(150 * s), float32(-s), 0, 0, 1}
	for i := range want {
		if math.Abs(float64(m.Vertices[i]-want[i])) > 1e-6 {
			t.Fatalf("normalised %v, want %v", m.Vertices, want)
		}
	}
}

// BenchmarkLoadPLYMillion loads a binary PLY of a million triangles with
// normals, as every render process of eqply --model does.
func BenchmarkLoadPLYMillion(b *testing.B) {
	path := filepath.Join(b.TempDir(), "m.ply")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := WritePLY(f, Bumpy(500, 1000)); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for b.Loop() {
		if _, err := LoadPLY(path); err != nil {
			b.Fatal(err)
		}
	}
}

// An element of no properties holds no data, whatever count its header
// gives: the loader skips it at once (it counted to 9e18 before).
func TestReadPLYSkipsAnElementOfNoProperties(t *testing.T) {
	src := strings.Replace(asciiPLY, "element vertex 4", "element nothing 9000000000000000000\nelement vertex 4", 1)
	m, err := ReadPLY(bufio.NewReader(strings.NewReader(src)))
	if err != nil || m.TriangleCount() != 2 {
		t.Fatalf("%v, %+v", err, m)
	}
}

// Files that real tools write in ways the unit square above does not:
// faces before the vertices they index (PLY leaves the order to the
// file), triangle strips (as Stanford's scanned models hold them), and a
// polygon of many corners. Each loads as the same triangles, wound alike,
// as the model written plainly.
func TestReadPLYInTheFormsOtherToolsWrite(t *testing.T) {
	// a strip of a 3x2 grid of points, row 0 at y=0 and row 1 at y=1:
	// four triangles, all facing +z
	const vertices = "element vertex 6\nproperty float x\nproperty float y\nproperty float z\n"
	const points = "0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n"
	want := normals(t, "ply\nformat ascii 1.0\n"+vertices+"element face 2\nproperty list uchar int vertex_indices\nend_header\n"+points+"4 0 1 4 3\n4 1 2 5 4\n")
	for name, src := range map[string]string{
		"faces first": "ply\nformat ascii 1.0\nelement face 2\nproperty list uchar int vertex_indices\n" + vertices + "end_header\n4 0 1 4 3\n4 1 2 5 4\n" + points,
		// two strips apart by -1, after a property of the element's own
		"tristrips": "ply\nformat ascii 1.0\n" + vertices + "element tristrips 1\nproperty uchar flags\nproperty list int int vertex_indices\nend_header\n" + points + "7 9 3 0 4 1 -1 4 1 5 2\n",
		// one strip, joined by repeated vertices: triangles of no area,
		// dropped
		"joined tristrips": "ply\nformat ascii 1.0\n" + vertices + "element tristrips 1\nproperty list int int vertex_indices\nend_header\n" + points + "10 3 0 4 1 1 4 4 1 5 2\n",
	} {
		if got := normals(t, src); !slices.Equal(got, want) {
			t.Errorf("%s: triangles facing %v, want %v", name, got, want)
		}
	}
	const corners = 300
	var b strings.Builder
	fmt.Fprintf(&b, "ply\nformat ascii 1.0\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list ushort int vertex_indices\nend_header\n", corners)
	for i := range corners {
		a := 2 * math.Pi * float64(i) / corners
		fmt.Fprintf(&b, "%g %g 0\n", math.Cos(a), math.Sin(a))
	}
	fmt.Fprintf(&b, "%d", corners)
	for i := range corners {
		fmt.Fprintf(&b, " %d", i)
	}
	if got := normals(t, b.String()+"\n"); len(got) != corners-2 || slices.ContainsFunc(got, func(z float64) bool { return z != 1 }) {
		t.Errorf("a polygon of %d corners: triangles facing %v, want %d facing +z", corners, got, corners-2)
	}
}

// normals reads a PLY model and gives each triangle's facing along z, by
// its winding (1, -1, or 0 for none), in order of the triangles' centres.
func normals(t *testing.T, src string) []float64 {
	t.Helper()
	m, err := ReadPLY(bufio.NewReader(strings.NewReader(src)))
	if err != nil {
		t.Fatal(err)
	}
	type tri struct{ cx, cy, z float64 }
	var tris []tri
	for i := 0; i+2 < len(m.Triangles); i += 3 {
		var p [3][3]float64
		for k := range 3 {
			v := m.Triangles[i+k]
			p[k] = [3]float64{float64(m.Vertices[6*v]), float64(m.Vertices[6*v+1]), float64(m.Vertices[6*v+2])}
		}
		n := cross3(sub3(p[1], p[0]), sub3(p[2], p[0]))
		tris = append(tris, tri{(p[0][0] + p[1][0] + p[2][0]) / 3, (p[0][1] + p[1][1] + p[2][1]) / 3, math.Copysign(1, n[2]) * float64(min(1, math.Abs(n[2])*1e9))})
	}
	slices.SortFunc(tris, func(a, b tri) int {
		if a.cx != b.cx {
			return cmp.Compare(a.cx, b.cx)
		}
		return cmp.Compare(a.cy, b.cy)
	})
	var z []float64
	for _, tr := range tris {
		z = append(z, tr.z)
	}
	return z
}

// Whatever bytes a PLY file holds, the loader returns an error or a
// model of finite vertices whose triangles index them, and never panics.
func FuzzReadPLY(f *testing.F) {
	f.Add([]byte(asciiPLY))
	f.Add([]byte(strings.Replace(strings.Replace(asciiPLY, "property float z\n", "property float z\nproperty uchar red\nproperty uchar green\nproperty float blue\n", 1), " 0\n", " 0 1 2 0.5\n", -1)))
	f.Add([]byte(strings.Replace(asciiPLY, "element face 1", "element junk 2\nproperty list float float j\nelement face 1", 1)))
	f.Add([]byte("ply\nformat ascii 1.0\nelement tristrips 1\nproperty list int int vertex_indices\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n5 0 1 -1 2 0\n0 0 0\n1 0 0\n0 1 0\n"))
	var b bytes.Buffer
	b.WriteString("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar uint vertex_indices\nend_header\n")
	binary.Write(&b, binary.LittleEndian, [9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
	b.WriteByte(3)
	binary.Write(&b, binary.LittleEndian, [3]uint32{0, 1, 2})
	f.Add(b.Bytes())
	for _, name := range []string{"faces-ascii.ply", "faces-binary.ply"} { // faces' colours, as VTK writes them
		data, err := os.ReadFile(filepath.Join("testdata", "ply", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadPLY(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		for i, v := range m.Vertices {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("vertex float %d is %v", i, v)
			}
		}
		for _, ix := range m.Triangles {
			if int(ix) >= len(m.Vertices)/6 {
				t.Fatalf("a triangle indexes vertex %d of %d", ix, len(m.Vertices)/6)
			}
		}
		if len(m.Colors) != 0 && len(m.Colors) != len(m.Vertices)/2 {
			t.Fatalf("%d colour bytes for %d vertices", len(m.Colors), len(m.Vertices)/6)
		}
	})
}

// A contiguous range of kd-ordered triangles is a compact part of the
// model: the bounding boxes of the four quarters are much smaller than the
// whole model's.
func TestKDOrderMakesRangesCoherent(t *testing.T) {
	m := Bumpy(40, 80)
	if m.TriangleCount() != 6400 {
		t.Fatalf("%d triangles", m.TriangleCount())
	}
	box := func(lo, hi int) float64 {
		mn, mx := [3]float32{9, 9, 9}, [3]float32{-9, -9, -9}
		for _, v := range m.Triangles[3*lo : 3*hi] {
			for a := 0; a < 3; a++ {
				mn[a] = min(mn[a], m.Vertices[6*v+uint32(a)])
				mx[a] = max(mx[a], m.Vertices[6*v+uint32(a)])
			}
		}
		return float64((mx[0] - mn[0]) * (mx[1] - mn[1]) * (mx[2] - mn[2]))
	}
	whole := box(0, m.TriangleCount())
	n := m.TriangleCount() / 4
	for q := 0; q < 4; q++ {
		if b := box(q*n, (q+1)*n); b > 0.6*whole {
			t.Errorf("quarter %d spans %.2f of the model's box", q, b/whole)
		}
	}
}

// selectNth leaves the k smallest keys before k, as sorting does, on
// random keys, keys with few values, sorted, reversed and equal ones, and
// whatever NaNs a PLY file may hold cannot make it loop.
func TestSelectNthSplitsAsSortingDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := map[string]func(i, n int) float32{
		"random":   func(int, int) float32 { return rng.Float32() },
		"3 values": func(int, int) float32 { return float32(rng.IntN(3)) },
		"sorted":   func(i, _ int) float32 { return float32(i) },
		"reversed": func(i, n int) float32 { return float32(n - i) },
		"equal":    func(int, int) float32 { return 1 },
		"organ":    func(i, n int) float32 { return float32(min(i, n-i)) },
	}
	for name, key := range inputs {
		for _, n := range []int{17, 100, 1000, 5001} {
			ts := make([]kdTriangle, n)
			want := make([]float32, n)
			for i := range ts {
				ts[i].c[1] = key(i, n)
				ts[i].idx[0] = uint32(i)
				want[i] = ts[i].c[1]
			}
			slices.Sort(want)
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				selectNth(ts, k, 1)
				got := make([]float32, k)
				seen := map[uint32]bool{}
				for i, tr := range ts {
					seen[tr.idx[0]] = true
					if i < k {
						got[i] = tr.c[1]
					}
				}
				slices.Sort(got)
				if len(seen) != n || !slices.Equal(got, want[:k]) {
					t.Fatalf("%s, %d keys, k %d: the first k are not the k smallest (or a triangle was lost)", name, n, k)
				}
			}
		}
	}
	nan := make([]kdTriangle, 1000)
	for i := range nan {
		nan[i].c[0] = rng.Float32()
		if i%7 == 0 {
			nan[i].c[0] = float32(math.NaN())
		}
	}
	selectNth(nan, 500, 0)
}

// The kd order is the same whether the splits run on goroutines or not
// (every process must order a model alike, on any number of cores).
func TestKDOrderIsTheSameOnGoroutines(t *testing.T) {
	m := Bumpy(300, 600) // 360000 triangles: the top levels split on goroutines
	one := &Model{Vertices: m.Vertices, Triangles: slices.Clone(m.Triangles)}
	one.kdOrderSpread(0)
	for _, spread := range []int{1, 3, 6} {
		many := &Model{Vertices: m.Vertices, Triangles: slices.Clone(m.Triangles)}
		many.kdOrderSpread(spread)
		if !slices.Equal(one.Triangles, many.Triangles) {
			t.Fatalf("splits on goroutines for %d levels order the triangles unlike one goroutine", spread)
		}
	}
}

// BenchmarkBumpyMillion makes the demo's model: a million triangles,
// generated and kd-ordered, as every process that renders it does first.
func BenchmarkBumpyMillion(b *testing.B) {
	for b.Loop() {
		Bumpy(500, 1000)
	}
}

// The sub-frame matrix maps a tile's pixel centres onto the destination's:
// the centre of tile pixel (0,0) is destination pixel (X, Y) centre.
func TestSubMatrix(t *testing.T) {
	s := Sub{DestW: 100, DestH: 50, X: 30, Y: 10, W: 20, H: 10}
	m := s.Matrix()
	// destination NDC of pixel (30,10) centre
	dx := (30.5/100)*2 - 1
	dy := (10.5/50)*2 - 1
	sx := float64(m[0])*dx + float64(m[12])
	sy := float64(m[5])*dy + float64(m[13])
	// tile NDC of its pixel (0,0) centre
	if math.Abs(sx-((0.5/20)*2-1)) > 1e-6 || math.Abs(sy-((0.5/10)*2-1)) > 1e-6 {
		t.Errorf("maps to %v %v", sx, sy)
	}
	// pixel decomposition: source pixel (1,0) is destination pixel 1+2*1 = 3
	p := Sub{DestW: 8, DestH: 2, W: 4, H: 1, Pixel: compound.Pixel{X: 1, Y: 0, W: 2, H: 2}}
	m = p.Matrix()
	dx = (3.5/8)*2 - 1
	if sx := float64(m[0])*dx + float64(m[12]); math.Abs(sx-((1.5/4)*2-1)) > 1e-6 {
		t.Errorf("pixel decomposition maps to %v", sx)
	}
	// zoomed by a half as well: the share's 6 samples (destination pixels
	// 1, 3, ..., 11 of 12) are drawn as 3, source pixel 1 standing for
	// samples 2 and 3 (pixels 5 and 7), its centre (1.5) at 6.5 between
	// theirs (it was sample 1's, so that the render covered half the share)
	z := Sub{DestW: 12, DestH: 2, W: 3, H: 1, Pixel: compound.Pixel{X: 1, Y: 0, W: 2, H: 2}, ShareW: 12, ShareH: 2}
	m = z.Matrix()
	dx = (6.5/12)*2 - 1
	if sx := float64(m[0])*dx + float64(m[12]); math.Abs(sx-((1.5/3)*2-1)) > 1e-6 {
		t.Errorf("zoomed pixel decomposition maps to %v", sx)
	}
	// under an assembly zoomed by 2, the samples are its zoomed pixels:
	// of a 6-pixel share's 12 zoomed pixels, this part's 6 are 1, 3, ...,
	// 11, so its pixel 2 (centre 2.5) is zoomed pixel 5, whose centre is
	// at destination pixel 2.75
	g := Sub{DestW: 6, DestH: 2, W: 6, H: 2, Pixel: compound.Pixel{X: 1, Y: 0, W: 2, H: 2}, ShareW: 6, ShareH: 2, GridZoom: compound.Zoom{X: 2, Y: 2}}
	m = g.Matrix()
	dx = (2.75/6)*2 - 1
	if sx := float64(m[0])*dx + float64(m[12]); math.Abs(sx-((2.5/6)*2-1)) > 1e-6 {
		t.Errorf("a pixel decomposition under a zoomed assembly maps to %v", sx)
	}
}

// The procedural model is closed: by their corners' positions, every edge
// of a triangle that has an area is one of exactly two triangles'. Its
// last meridian did not meet its first bit for bit, and its poles were
// rings of points: triangles there overlapped, and a pixel drawn twice at
// one depth took whichever DB range came first, not the first range.
func TestTheProceduralModelIsClosed(t *testing.T) {
	for _, size := range [][2]int{{12, 24}, {40, 80}, {7, 13}} {
		m := Bumpy(size[0], size[1])
		at := func(v uint32) [3]float32 { return [3]float32(m.Vertices[6*v : 6*v+3]) }
		edges := map[[2][3]float32]int{}
		for tri := 0; tri+2 < len(m.Triangles); tri += 3 {
			c := [3][3]float32{at(m.Triangles[tri]), at(m.Triangles[tri+1]), at(m.Triangles[tri+2])}
			if c[0] == c[1] || c[1] == c[2] || c[0] == c[2] {
				continue // a pole's: no area
			}
			for k := range 3 {
				a, b := c[k], c[(k+1)%3]
				if slices.Compare(a[:], b[:]) > 0 {
					a, b = b, a
				}
				edges[[2][3]float32{a, b}]++
			}
		}
		open := 0
		for _, n := range edges {
			if n != 2 {
				open++
			}
		}
		if open > 0 {
			t.Errorf("Bumpy(%d, %d): %d of %d edges are not two triangles'", size[0], size[1], open, len(edges))
		}
	}
}

func TestOneMillionTriangles(t *testing.T) {
	if n := Bumpy(500, 1000).TriangleCount(); n < 1_000_000 {
		t.Errorf("%d triangles", n)
	}
}

// TestWritePLYReadsBack writes a model and reads it with ReadPLY, which
// kd-orders again: the same triangles (by their vertices' positions and
// normals, in any order) must come back.
func TestWritePLYReadsBack(t *testing.T) {
	m := Bumpy(12, 24)
	for v := 0; v < len(m.Vertices); v += 6 { // a colour of its own for each vertex
		m.Colors = append(m.Colors, uint8(v), uint8(v/256), uint8(v*7))
	}
	var b bytes.Buffer
	if err := WritePLY(&b, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPLY(bufio.NewReader(&b))
	if err != nil {
		t.Fatal(err)
	}
	triangles := func(m *Model) map[[27]float32]int {
		out := map[[27]float32]int{}
		for t := 0; t+2 < len(m.Triangles); t += 3 {
			var k [27]float32
			for c := 0; c < 3; c++ {
				v := m.Triangles[t+c]
				copy(k[9*c:], m.Vertices[6*v:6*v+6])
				for a := range 3 {
					k[9*c+6+a] = float32(m.Colors[3*v+uint32(a)])
				}
			}
			out[k]++
		}
		return out
	}
	want, got := triangles(m), triangles(back)
	if back.TriangleCount() != m.TriangleCount() || len(got) != len(want) {
		t.Fatalf("read back %d triangles (%d distinct), wrote %d (%d distinct)", back.TriangleCount(), len(got), m.TriangleCount(), len(want))
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("triangle %v: written %d times, read back %d", k, n, got[k])
		}
	}
}

// A model compressed with gzip, as scan repositories hand them out
// (xyzrgb_dragon.ply.gz), loads as the plain file does; one cut short, or
// changed on the way, is refused with what gzip found.
func TestLoadPLYReadsAGzippedModel(t *testing.T) {
	var plain bytes.Buffer
	if err := WritePLY(&plain, Bumpy(12, 24)); err != nil {
		t.Fatal(err)
	}
	var packed bytes.Buffer
	zw := gzip.NewWriter(&packed)
	zw.Write(plain.Bytes())
	zw.Close()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	want, err := LoadPLY(write("model.ply", plain.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadPLY(write("model.ply.gz", packed.Bytes()))
	if err != nil {
		t.Fatalf("gzipped: %v", err)
	}
	if !slices.Equal(got.Vertices, want.Vertices) || !slices.Equal(got.Triangles, want.Triangles) {
		t.Errorf("gzipped: %d triangles, %d vertex floats; the plain file: %d, %d",
			got.TriangleCount(), len(got.Vertices), want.TriangleCount(), len(want.Vertices))
	}
	cut := packed.Bytes()[:packed.Len()/2]
	if _, err := LoadPLY(write("cut.ply.gz", cut)); err == nil || !strings.Contains(err.Error(), "cut.ply.gz: ply: data ends early: unexpected EOF") {
		t.Errorf("cut short: %v", err)
	}
	// a byte of the checksum changed: the data inflate, and only the
	// checksum at the end tells
	changed := bytes.Clone(packed.Bytes())
	changed[len(changed)-6] ^= 0x40
	if _, err := LoadPLY(write("changed.ply.gz", changed)); err == nil || !strings.Contains(err.Error(), "changed.ply.gz: gzip: invalid checksum") {
		t.Errorf("changed: %v", err)
	}
}

// TestVisibleRunsLeaveOutOnlyHiddenTriangles checks the culled chunks
// triangle by triangle: every triangle of [first, last) left out must lie
// entirely beyond one clip plane, and a quarter of the view must leave out
// most of the model.
func TestVisibleRunsLeaveOutOnlyHiddenTriangles(t *testing.T) {
	m := Bumpy(60, 120)
	n := m.TriangleCount()
	mv := draw.Translate(0, 0, -2.2).Mul(draw.RotateX(0.35)).Mul(draw.RotateY(0.7))
	hidden := func(mvp draw.Mat4, tri int) bool {
		for plane := 0; plane < 6; plane++ {
			beyond := 0
			for k := 0; k < 3; k++ {
				v := m.Vertices[6*m.Triangles[3*tri+k]:]
				var c [4]float32
				for row := 0; row < 4; row++ {
					c[row] = mvp[row]*v[0] + mvp[4+row]*v[1] + mvp[8+row]*v[2] + mvp[12+row]
				}
				if a := plane / 2; (plane%2 == 0 && c[a] < -c[3]) || (plane%2 == 1 && c[a] > c[3]) {
					beyond++
				}
			}
			if beyond == 3 {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name        string
		f           compound.Frustum
		first, last int
		maxShare    float64
	}{
		{"whole view", compound.Frustum{Left: -0.9, Right: 0.9, Bottom: -0.5, Top: 0.5, Near: 1, Far: 100}, 0, n, 1},
		{"top right quarter", compound.Frustum{Left: 0, Right: 0.9, Bottom: 0, Top: 0.5, Near: 1, Far: 100}, 0, n, 0.5},
		{"left edge", compound.Frustum{Left: -0.9, Right: -0.3, Bottom: -0.5, Top: 0.5, Near: 1, Far: 100}, 0, n, 0.35},
		{"a DB range, quarter", compound.Frustum{Left: -0.9, Right: 0, Bottom: -0.5, Top: 0, Near: 1, Far: 100}, n / 3, 2 * n / 3, 0.5},
	} {
		mvp := Frustum(tc.f).Mul(mv)
		runs := m.VisibleRuns(mvp, tc.first, tc.last)
		drawn := make([]bool, n)
		count := 0
		for _, r := range runs {
			if r[0] < tc.first || r[1] > tc.last || r[0] >= r[1] {
				t.Fatalf("%s: run %v outside [%d, %d)", tc.name, r, tc.first, tc.last)
			}
			for i := r[0]; i < r[1]; i++ {
				drawn[i] = true
				count++
			}
		}
		for i := tc.first; i < tc.last; i++ {
			if !drawn[i] && !hidden(mvp, i) {
				t.Fatalf("%s: triangle %d is left out but visible", tc.name, i)
			}
		}
		if share := float64(count) / float64(tc.last-tc.first); share > tc.maxShare {
			t.Errorf("%s: draws %.0f%% of its triangles, want at most %.0f%%", tc.name, 100*share, 100*tc.maxShare)
		}
	}
}

// A render client takes its renderer's parameters from the server: ones
// out of range are refused before the mesh they size is built or the
// shader's loop count wraps.
func TestBuiltinRefusesParametersOutOfRange(t *testing.T) {
	for _, b := range []Builtin{
		{Renderer: "mesh", Triangles: -1},
		{Renderer: "mesh", Triangles: MaxPLYFaces + 1},
		{Renderer: "mesh", Spin: math.NaN()},
		{Renderer: "volume", Spin: math.Inf(1)},
		{Renderer: "synthetic", Iterations: -1},
		{Renderer: "synthetic", Iterations: 1e12},
		{Renderer: "synthetic", Iterations: math.NaN()},
		{Renderer: "teapot"},
	} {
		if _, err := b.New(); err == nil {
			t.Errorf("%+v: made a renderer", b)
		}
	}
	for _, b := range []Builtin{{}, {Renderer: "synthetic", Iterations: 64}, {Renderer: "mesh", Triangles: 2000, Spin: 0.01}, {Renderer: "synthetic", Iterations: 1e8}} {
		if err := b.Check(); err != nil {
			t.Errorf("%+v: %v", b, err)
		}
	}
}

// corners are a triangle's corners, rotated to start at the least: they
// identify it whatever the kd-order made of a model's triangle list, and
// whichever corner a file listed first.
type corners [3][3]float32

// cornersOf is the corners of a triangle given as numbers (a JSON file's).
func cornersOf(tri [3][3]float64) corners {
	var c corners
	for k := range 3 {
		for a := range 3 {
			c[k][a] = float32(tri[k][a])
		}
	}
	return c.rotated()
}

func (c corners) rotated() corners {
	least := 0
	for k := 1; k < 3; k++ {
		if slices.Compare(c[k][:], c[least][:]) < 0 {
			least = k
		}
	}
	return corners{c[least], c[(least+1)%3], c[(least+2)%3]}
}

// colorsByPosition is m's vertices' colours in the order of their
// positions (x, then y, then z), whatever order the vertices took; nil
// where m has none.
func (m *Model) colorsByPosition() []uint8 {
	if m.Colors == nil {
		return nil
	}
	order := make([]int, len(m.Vertices)/6)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return slices.Compare(m.Vertices[6*a:6*a+3], m.Vertices[6*b:6*b+3]) })
	var colors []uint8
	for _, v := range order {
		colors = append(colors, m.Colors[3*v:3*v+3]...)
	}
	return colors
}

// corners is the corners of m's triangle tri.
func (m *Model) corners(tri int) corners {
	var c corners
	for k := range 3 {
		v := m.Triangles[3*tri+k]
		copy(c[k][:], m.Vertices[6*v:6*v+3])
	}
	return c.rotated()
}

// FuzzReadOBJ: whatever an OBJ file holds, reading it ends in a model
// whose triangles index its vertices, or an error, never a panic.
func FuzzReadOBJ(f *testing.F) {
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n"))
	f.Add([]byte("v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nv 1 1 0 1 1 1\nvt 0 0\nf -4/1 -3/1 -1/1 -2/1\n"))
	if b, err := os.ReadFile(filepath.Join("testdata", "ply", "sphere.obj")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := readOBJ(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, ix := range m.Triangles {
			if int(ix) >= len(m.Vertices)/6 {
				t.Fatalf("a triangle indexes vertex %d of %d", ix, len(m.Vertices)/6)
			}
		}
		if m.Colors != nil && len(m.Colors) != len(m.Vertices)/2 {
			t.Fatalf("%d colour bytes for %d vertices", len(m.Colors), len(m.Vertices)/6)
		}
	})
}
