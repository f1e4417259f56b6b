package render

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// glTF models load as VTK's glTF reader reads them: the files in
// testdata/gltf are make.py's there, and read.json what VTK 9.1 read of
// each. A mesh placed by three nodes (translation, rotation and scale, a
// child's matrix, a mirroring scale; a node outside the scene left out)
// in a material's colour, its buffer in a .bin; a .glb of interleaved
// positions and normals, colours of normalized bytes and 32-bit indices;
// a strip and a fan of float colours and no normals in a data: uri, beside
// a line strip; positions quantized to 16-bit integers, scaled back by
// their node, indices of bytes. Colours show as glTF viewers show them:
// linear, in sRGB.
// What goeq cannot read is refused, saying what it is.
func TestGLTF(t *testing.T) {
	dir := filepath.Join("testdata", "gltf")
	b, err := os.ReadFile(filepath.Join(dir, "read.json"))
	if err != nil {
		t.Fatal(err)
	}
	var read map[string]json.RawMessage
	if err := json.Unmarshal(b, &read); err != nil {
		t.Fatal(err)
	}
	var material [3]uint8
	if err := json.Unmarshal(read["material"], &material); err != nil {
		t.Fatal(err)
	}
	// the buffer named with a space, as a uri escapes it
	spaced := t.TempDir()
	text, _ := os.ReadFile(filepath.Join(dir, "nodes.gltf"))
	bin, _ := os.ReadFile(filepath.Join(dir, "nodes.bin"))
	os.WriteFile(filepath.Join(spaced, "nodes.gltf"), []byte(strings.Replace(string(text), `"nodes.bin"`, `"nodes%20buffer.bin"`, 1)), 0o644)
	os.WriteFile(filepath.Join(spaced, "nodes buffer.bin"), bin, 0o644)
	for _, c := range []struct{ path, ref string }{
		{filepath.Join(dir, "nodes.gltf"), "nodes.gltf"},
		{filepath.Join(spaced, "nodes.gltf"), "nodes.gltf"},
		{filepath.Join(dir, "interleaved.glb"), "interleaved.glb"},
		{filepath.Join(dir, "strips.gltf"), "strips.gltf"},
		{filepath.Join(dir, "quantized.gltf"), "quantized.gltf"},
	} {
		var triangles []struct {
			Corners [3][3]float64
			Colors  *[3][3]uint8
		}
		if err := json.Unmarshal(read[c.ref], &triangles); err != nil {
			t.Fatal(err)
		}
		want := map[corners][3][3]uint8{}
		for _, tri := range triangles {
			colors := [3][3]uint8{material, material, material}
			if strings.Contains(c.ref, "quantized") {
				colors = [3][3]uint8{}
			}
			if tri.Colors != nil {
				colors = *tri.Colors
			}
			want[nearCorners(cornersOf(tri.Corners))] = colorsOfCorners(cornersOf(tri.Corners), colors)
		}
		m, err := LoadModel(c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		uncoloured := strings.Contains(c.path, "quantized")
		if m.TriangleCount() != len(triangles) || (m.Colors == nil) != uncoloured {
			t.Errorf("%s: %d triangles, coloured %v; want VTK's %d, coloured %v", c.path, m.TriangleCount(), m.Colors != nil, len(triangles), !uncoloured)
			continue
		}
		if uncoloured {
			m.Colors = make([]uint8, len(m.Vertices)/2) // to compare with its material's: none
		}
		for tri := range m.TriangleCount() {
			var p [3][3]float64
			var rgb [3][3]uint8
			for k := range 3 {
				v := m.Triangles[3*tri+k]
				for a := range 3 {
					p[k][a] = float64(m.Vertices[6*v+uint32(a)])
					rgb[k][a] = m.Colors[3*v+uint32(a)]
				}
			}
			c4 := nearCorners(cornersOf(p))
			wanted, ok := want[c4]
			if !ok {
				// VTK keeps a mirrored node's triangles in their order,
				// which then wind the other way; glTF turns them back
				back := nearCorners(corners{c4[0], c4[2], c4[1]})
				if wanted, ok = want[back]; !ok || !strings.Contains(c.path, "nodes") {
					t.Errorf("%s: triangle %v is none of VTK's (as placed, and wound, by the nodes)", c.path, c4)
					break
				}
				c4 = back
				rgb[1], rgb[2] = rgb[2], rgb[1]
				p[1], p[2] = p[2], p[1]
			}
			if got := colorsOfCorners(cornersOf(p), rgb); got != wanted {
				t.Errorf("%s: triangle %v is coloured %v; want %v", c.path, c4, got, wanted)
				break
			}
			// every triangle winds as its normals point (out of the
			// sphere, mirrored or not)
			if m.Colors != nil && !strings.Contains(c.path, "strips") {
				v := m.Triangles[3*tri]
				n := cross3(sub3(m.vertexAt(m.Triangles[3*tri+1]), m.vertexAt(v)), sub3(m.vertexAt(m.Triangles[3*tri+2]), m.vertexAt(v)))
				if n[0]*float64(m.Vertices[6*v+3])+n[1]*float64(m.Vertices[6*v+4])+n[2]*float64(m.Vertices[6*v+5]) <= 0 {
					t.Errorf("%s: triangle %v winds against its normals", c.path, c4)
					break
				}
			}
		}
		// the sphere's normals, placed by each node, point out from its
		// centre, whether read (nodes, interleaved) or computed (strips
		// are flat: their normals are the faces')
		if !strings.Contains(c.path, "strips") {
			for v := 0; v < len(m.Vertices); v += 6 {
				if n := m.Vertices[v+3 : v+6]; math.Abs(float64(n[0]*n[0]+n[1]*n[1]+n[2]*n[2])-1) > 1e-4 {
					t.Errorf("%s: a normal %v of length other than 1", c.path, n)
					break
				}
			}
		}
	}

	cut := t.TempDir()
	glb, _ := os.ReadFile(filepath.Join(dir, "interleaved.glb"))
	os.WriteFile(filepath.Join(cut, "cut.glb"), glb[:len(glb)-100], 0o644)
	os.WriteFile(filepath.Join(cut, "nobin.gltf"), text, 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "draco.gltf"):    "requires the extension KHR_draco_mesh_compression: goeq reads glTF without it",
		filepath.Join(dir, "version1.gltf"): `glTF version "1.0": goeq reads glTF 2`,
		filepath.Join(dir, "lines.gltf"):    "no triangles in its scene (goeq draws triangles, not points or lines)",
		filepath.Join(cut, "cut.glb"):       "says it holds",
		filepath.Join(cut, "nobin.gltf"):    "nodes.bin: no such file",
	} {
		if _, err := LoadModel(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
}

// vertexAt is vertex v's position.
func (m *Model) vertexAt(v uint32) [3]float64 {
	return [3]float64{float64(m.Vertices[6*v]), float64(m.Vertices[6*v+1]), float64(m.Vertices[6*v+2])}
}

// colorsOfCorners is a triangle's corners' colours in the order its
// corners take in nearCorners.
func colorsOfCorners(c corners, rgb [3][3]uint8) [3][3]uint8 {
	byCorner := map[[3]float32][3]uint8{}
	for k := range 3 {
		byCorner[near(c[k])] = rgb[k]
	}
	n := nearCorners(c)
	return [3][3]uint8{byCorner[n[0]], byCorner[n[1]], byCorner[n[2]]}
}

// FuzzGLTF: whatever a .gltf or .glb holds, loading it ends in a model
// whose triangles index its vertices, or an error, never a panic.
func FuzzGLTF(f *testing.F) {
	for _, name := range []string{"interleaved.glb", "strips.gltf"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gltf", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.glb")
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
