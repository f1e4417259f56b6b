package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

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
	} {
		if _, err := ReadPLY(bufio.NewReader(strings.NewReader(src))); err == nil {
			t.Errorf("accepted %q", src)
		}
	}
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
	if w, h := Size(8, 3, compound.Pixel{X: 1, Y: 1, W: 2, H: 2}); w != 4 || h != 1 {
		t.Errorf("size %d x %d", w, h)
	}
}

func TestOneMillionTriangles(t *testing.T) {
	if n := Bumpy(500, 1000).TriangleCount(); n < 1_000_000 {
		t.Errorf("%d triangles", n)
	}
}
