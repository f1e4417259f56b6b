package render

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// VTK surfaces load as VTK's readers read them: the files in
// testdata/vtkmesh are VTK 9.1's own (make.py there wrote them, and
// read.json what VTK's readers and its triangle filter read of them). A
// sphere of polygons with its normals and its points' colours, and the
// same sphere as triangle strips with their colours, each as XML PolyData
// in every form VTK writes (inline or appended, base64 or raw, zlib or
// not, 32- or 64-bit headers, big-endian, ascii) and as legacy files
// (4.2's cells and 5.1's offsets, ASCII and binary); and the strips with
// vertex and line cells before them, every cell coloured; a sphere in
// three pieces, as a parallel run writes one, in a .vtp and as a .pvtp
// naming a .vtp a piece. What goeq cannot draw
// is refused, saying what it is.
func TestVTKSurfaces(t *testing.T) {
	dir := filepath.Join("testdata", "vtkmesh")
	b, err := os.ReadFile(filepath.Join(dir, "read.json"))
	if err != nil {
		t.Fatal(err)
	}
	var read map[string]struct {
		Triangles []struct {
			Corners [3][3]float64
			Color   *[3]uint8
		}
		Colors []struct {
			At    [3]float64
			Color [3]uint8
		}
	}
	if err := json.Unmarshal(b, &read); err != nil {
		t.Fatal(err)
	}
	forms := []string{".vtp", "-raw.vtp", "-raw-zlib.vtp", "-base64.vtp", "-inline.vtp", "-ascii.vtp", "-uint64.vtp", "-big.vtp",
		"-ascii.vtk", "-binary.vtk", "-ascii42.vtk", "-binary42.vtk"}
	for _, stem := range []string{"points", "strips", "mixed"} {
		ref := read[stem+".vtp"]
		triangles := map[corners]*[3]uint8{}
		for _, tri := range ref.Triangles {
			triangles[nearCorners(cornersOf(tri.Corners))] = tri.Color
		}
		colors := map[[3]float32][3]uint8{}
		for _, c := range ref.Colors {
			colors[near([3]float32{float32(c.At[0]), float32(c.At[1]), float32(c.At[2])})] = c.Color
		}
		if len(triangles) != 90 || stem == "points" && len(colors) != 47 {
			t.Fatalf("read.json: %s has %d triangles and %d coloured points; want 90, and 47", stem, len(triangles), len(colors))
		}
		stemForms := forms
		if stem == "mixed" {
			stemForms = []string{".vtp", "-binary.vtk", "-ascii42.vtk"}
		}
		for _, form := range stemForms {
			name := stem + form
			m, err := LoadModel(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if m.TriangleCount() != 90 || m.Colors == nil {
				t.Errorf("%s: %d triangles, coloured %v; want 90, coloured", name, m.TriangleCount(), m.Colors != nil)
				continue
			}
			for tri := range m.TriangleCount() {
				c := nearCorners(m.corners(tri))
				face, ok := triangles[c]
				if !ok {
					t.Errorf("%s: triangle %v is none of VTK's", name, c)
					break
				}
				// every triangle winds as VTK's sphere does: outwards
				var p [3][3]float64
				for k := range 3 {
					v := m.Triangles[3*tri+k]
					p[k] = [3]float64{float64(m.Vertices[6*v]), float64(m.Vertices[6*v+1]), float64(m.Vertices[6*v+2])}
				}
				n := cross3(sub3(p[1], p[0]), sub3(p[2], p[0]))
				if n[0]*p[0][0]+n[1]*p[0][1]+n[2]*p[0][2] <= 0 {
					t.Errorf("%s: triangle %v winds inwards", name, c)
					break
				}
				for k := range 3 {
					v := m.Triangles[3*tri+k]
					rgb := [3]uint8(m.Colors[3*v : 3*v+3])
					at := near([3]float32(m.Vertices[6*v : 6*v+3]))
					want := colors[at]
					if face != nil {
						want = *face
					}
					if rgb != want {
						t.Errorf("%s: the corner at %v of triangle %v is coloured %v; want %v", name, at, c, rgb, want)
					}
					if stem == "points" {
						// the file's normals, the sphere's own: out from its centre
						l := math.Sqrt(p[k][0]*p[k][0] + p[k][1]*p[k][1] + p[k][2]*p[k][2])
						for a := range 3 {
							if d := math.Abs(float64(m.Vertices[6*int(v)+3+a]) - p[k][a]/l); d > 1e-3 {
								t.Errorf("%s: the normal at %v is %v, not the file's", name, at, m.Vertices[6*v+3:6*v+6])
								break
							}
						}
					}
				}
			}
		}
	}

	// the sphere in three pieces, each of its own points, in one file
	// and as a parallel surface: one model
	for _, name := range []string{"pieces.vtp", "parallel.pvtp"} {
		m, err := LoadModel(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want := map[corners]bool{}
		for _, tri := range read[name].Triangles {
			want[nearCorners(cornersOf(tri.Corners))] = true
		}
		got := map[corners]bool{}
		for tri := range m.TriangleCount() {
			got[nearCorners(m.corners(tri))] = true
		}
		if len(want) != 90 || !maps.Equal(got, want) || m.TriangleCount() != 90 || len(m.Vertices)/6 != 66 {
			t.Errorf("%s: %d triangles (%d alike VTK's %d), %d vertices; want 90 of VTK's, and the pieces' 3×22 vertices", name, m.TriangleCount(), len(got), len(want), len(m.Vertices)/6)
		}
	}
	if parts, err := ModelParts(filepath.Join(dir, "parallel.pvtp")); err != nil || len(parts) != 3 || parts[2] != filepath.Join(dir, "parallel_2.vtp") {
		t.Errorf("the parts of parallel.pvtp: %v, %v; want its three pieces' files", parts, err)
	}

	cut := t.TempDir()
	raw, _ := os.ReadFile(filepath.Join(dir, "points-raw.vtp"))
	os.WriteFile(filepath.Join(cut, "short.vtp"), raw[:len(raw)-200], 0o644)
	ascii, _ := os.ReadFile(filepath.Join(dir, "points-ascii42.vtk"))
	os.WriteFile(filepath.Join(cut, "far.vtk"), []byte(strings.Replace(string(ascii), "POLYGONS 90 360\n3 2 7 0", "POLYGONS 90 360\n3 2 99 0", 1)), 0o644)
	os.WriteFile(filepath.Join(cut, "cloud.vtk"), []byte("# vtk DataFile Version 4.2\nscan\nASCII\nDATASET POLYDATA\nPOINTS 2 float\n0 0 0 1 0 0\nVERTICES 2 4\n1 0\n1 1\n"), 0o644)
	os.WriteFile(filepath.Join(cut, "grid.vtp"), []byte(`<?xml version="1.0"?><VTKFile type="UnstructuredGrid"></VTKFile>`), 0o644)
	os.WriteFile(filepath.Join(cut, "notvtk.vtk"), []byte("ply\nformat ascii 1.0\n"), 0o644)
	os.WriteFile(filepath.Join(cut, "lost.pvtp"), []byte(`<VTKFile type="PPolyData"><PPolyData><Piece Source="lost_0.vtp"/></PPolyData></VTKFile>`), 0o644)
	for path, want := range map[string]string{
		filepath.Join(cut, "short.vtp"):                "array \"offsets\": 550 bytes: the data end within a value of 8 bytes",
		filepath.Join(cut, "far.vtk"):                  "polygons: point 99 of 47",
		filepath.Join(cut, "cloud.vtk"):                "2 points and 2 vertex or line cells, and no polygons: goeq draws surfaces",
		filepath.Join(cut, "grid.vtp"):                 `VTKFile type "UnstructuredGrid": goeq reads surfaces of PolyData`,
		filepath.Join(cut, "notvtk.vtk"):               `not a legacy VTK file (first line "ply")`,
		filepath.Join(cut, "lost.pvtp"):                "lost_0.vtp: no such file",
		filepath.Join("testdata", "vtk", "binary.vtk"): "goeq draws POLYDATA surfaces (a STRUCTURED_POINTS image is a volume",
	} {
		if _, err := LoadModel(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
}

// near is p to 4 decimals: VTK's ASCII legacy files hold 6 digits.
func near(p [3]float32) [3]float32 {
	for a := range p {
		p[a] = float32(math.Round(float64(p[a])*1e4) / 1e4)
	}
	return p
}

func nearCorners(c corners) corners {
	for k := range c {
		c[k] = near(c[k])
	}
	return c.rotated()
}

// FuzzVTKSurface: whatever a .vtp or legacy .vtk holds, reading it ends
// in a model whose triangles index its vertices, or an error, never a
// panic.
func FuzzVTKSurface(f *testing.F) {
	for _, name := range []string{"points-raw.vtp", "strips.vtp", "points-inline.vtp", "points-binary.vtk", "strips-ascii42.vtk"} {
		b, err := os.ReadFile(filepath.Join("testdata", "vtkmesh", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, strings.HasSuffix(name, ".vtk"))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte, legacy bool) {
		path := filepath.Join(dir, "fuzz.vtp")
		if legacy {
			path = filepath.Join(dir, "fuzz.vtk")
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := LoadModel(path)
		if err != nil {
			return
		}
		for _, v := range m.Triangles {
			if int(v) >= len(m.Vertices)/6 {
				t.Fatalf("index %d of %d vertices", v, len(m.Vertices)/6)
			}
		}
	})
}
