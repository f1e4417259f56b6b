package render

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A volume whose file says its grid is left-handed (NRRD's space
// directions in their space, as 3D Slicer writes them; MetaImage's
// TransformMatrix, as ITK writes it; VTK's Direction, as ParaView places
// an image; NIfTI's qform and sform, TestNIfTIVolumes) is shown
// unmirrored: its slices reversed. The oracle: one object, stored with its
// slices the other way and its last axis turned, loads as it does stored
// plainly.
func TestALeftHandedGridIsShownUnmirrored(t *testing.T) {
	dir := t.TempDir()
	const w, h, d = 6, 5, 4
	shorts, want := rampOfShorts(w * h * d)
	var back []byte // the slices from the last
	for z := d - 1; z >= 0; z-- {
		back = append(back, shorts[2*w*h*z:2*w*h*(z+1)]...)
	}
	wantBack := slices.Clone(want)
	reverseRuns(wantBack, w*h)
	nrrd := func(space, dirs string, data []byte) []byte {
		return append([]byte("NRRD0004\ntype: short\ndimension: 3\nsizes: 6 5 4\nencoding: raw\nendian: little\nspace: "+space+
			"\nspace directions: "+dirs+"\n\n"), data...)
	}
	meta := func(matrix string, data []byte) []byte {
		return append([]byte("ObjectType = Image\nNDims = 3\nTransformMatrix = "+matrix+"\nElementSpacing = 1 1 2\nDimSize = 6 5 4\nElementType = MET_SHORT\nElementDataFile = LOCAL\n"), data...)
	}
	ascii, err := os.ReadFile(filepath.Join("testdata", "vtk", "ascii.vti"))
	if err != nil {
		t.Fatal(err)
	}
	directed := strings.Replace(string(ascii), `Spacing="1 1 2"`, `Spacing="1 1 2" Direction="1 0 0 0 1 0 0 0 -1"`, 1)
	if directed == string(ascii) {
		t.Fatal("ascii.vti's spacing is not as the test expects")
	}
	files := map[string][]byte{
		"right.nrrd":    nrrd("left-posterior-superior", "(1,0,0) (0,1,0) (0,0,2)", shorts),
		"left.nrrd":     nrrd("left-posterior-superior", "(1,0,0) (0,1,0) (0,0,-2)", back),
		"oblique.nrrd":  nrrd("right-anterior-superior", "(0,1,0) (1,0,0) (0,0,2)", back),
		"las.nrrd":      nrrd("left-anterior-superior", "(1,0,0) (0,1,0) (0,0,2)", back),
		"las-left.nrrd": nrrd("left-anterior-superior", "(1,0,0) (0,1,0) (0,0,-2)", shorts),
		"right.mha":     meta("1 0 0 0 1 0 0 0 1", shorts),
		"left.mha":      meta("1 0 0 0 1 0 0 0 -1", back),
		"directed.vti":  []byte(directed),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, wanted := range map[string][]uint16{
		"right.nrrd": want, "left.nrrd": want, "oblique.nrrd": want, "las.nrrd": want, "las-left.nrrd": want,
		"right.mha": want, "left.mha": want,
		"directed.vti": wantBack, // its data as stored: the other way round
	} {
		v, err := LoadVolume(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if v.Extent != [3]float64{0.75, 0.625, 1} || !slices.Equal(v.Values, wanted) {
			t.Errorf("%s: box %v, values %v...; want box [0.75 0.625 1], values %v...", name, v.Extent, v.Values[:8], wanted[:8])
		}
	}

	// a parallel image's Direction turns the whole
	pieces := t.TempDir()
	for _, name := range []string{"wave_0.vti", "wave_1.vti", "wave_2.vti", "wave_3.vti", "wave.pvti"} {
		b, _ := os.ReadFile(filepath.Join("testdata", "vtk", name))
		if name == "wave.pvti" {
			b = []byte(strings.Replace(string(b), `Spacing="1 1 1"`, `Spacing="1 1 1" Direction="-1 0 0 0 1 0 0 0 1"`, 1))
		}
		os.WriteFile(filepath.Join(pieces, name), b, 0o644)
	}
	plain, err := LoadVolume(filepath.Join("testdata", "vtk", "wave.pvti"))
	if err != nil {
		t.Fatal(err)
	}
	turned, err := LoadVolume(filepath.Join(pieces, "wave.pvti"))
	if err != nil {
		t.Fatal(err)
	}
	reverseRuns(plain.Values, plain.W*plain.H)
	if !slices.Equal(turned.Values, plain.Values) {
		t.Errorf("a parallel image of a left-handed Direction: its slices are not reversed")
	}
}
