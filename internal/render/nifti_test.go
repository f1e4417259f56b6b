package render

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// NIfTI volumes load as VTK's reader (ParaView's) reads them: the files
// in testdata/nifti are nibabel's and VTK's (make.py there wrote them, and
// read.json what vtkNIFTIImageReader read of each). Single files, gzipped
// or not, pairs and Analyze 7.5's, NIfTI-2, big-endian, with an extension,
// of five number types; a left-handed grid (by its qform, or by its sform
// where it has no qform) with its slices reversed; scaled numbers as
// nibabel scales them. What goeq cannot read is refused, saying what it
// is.
func TestNIfTIVolumes(t *testing.T) {
	dir := filepath.Join("testdata", "nifti")
	b, err := os.ReadFile(filepath.Join(dir, "read.json"))
	if err != nil {
		t.Fatal(err)
	}
	var read map[string]struct {
		Dims    [3]int
		Spacing [3]float64
		Values  []float64
	}
	if err := json.Unmarshal(b, &read); err != nil {
		t.Fatal(err)
	}
	if len(read) != 17 {
		t.Fatalf("read.json holds %d files; want 17", len(read))
	}
	for name, want := range read {
		v, err := LoadVolume(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if [3]int{v.W, v.H, v.D} != want.Dims || v.Extent != [3]float64{0.75, 0.625, 1} {
			t.Errorf("%s: %d×%d×%d, box %v; want %v, box [0.75 0.625 1] (z spaced %g)", name, v.W, v.H, v.D, v.Extent, want.Dims, want.Spacing[2])
		}
		if got, wanted := v.Values, scaledOnto16Bits(want.Values); !slices.Equal(got, wanted) {
			t.Errorf("%s: values %v...; want %v... (as VTK reads them)", name, got[:8], wanted[:8])
		}
	}
	// the same file by its pair's image, and by a name in capitals
	for _, name := range []string{"pair.img", "analyze.img"} {
		loadsAsRamp(t, filepath.Join(dir, name))
	}
	caps := t.TempDir()
	for from, to := range map[string]string{"pair.hdr": "PAIR.HDR", "pair.img": "PAIR.IMG", "packed.nii.gz": "PACKED.NII.GZ"} {
		b, err := os.ReadFile(filepath.Join(dir, from))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(caps, to), b, 0o644)
	}
	loadsAsRamp(t, filepath.Join(caps, "PAIR.IMG"))
	loadsAsRamp(t, filepath.Join(caps, "PACKED.NII.GZ"))

	cut := t.TempDir()
	for name, n := range map[string]int{"plain.nii": 500, "packed.nii.gz": 200, "two.nii": 300} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cut, name), b[:n], 0o644)
	}
	plain, _ := os.ReadFile(filepath.Join(dir, "plain.nii"))
	nomagic := slices.Clone(plain)
	copy(nomagic[344:], "xx1\x00")
	os.WriteFile(filepath.Join(cut, "nomagic.nii"), nomagic, 0o644)
	pair, _ := os.ReadFile(filepath.Join(dir, "pair.hdr"))
	os.WriteFile(filepath.Join(cut, "lonely.hdr"), pair, 0o644)
	os.WriteFile(filepath.Join(cut, "notnifti.nii"), []byte("P5\n6 5\n255\n"), 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "time.nii"):         "2 volumes, one a time point (dim[4]): goeq reads one volume",
		filepath.Join(dir, "rgb.nii"):          "datatype 128, RGB colours: goeq's volumes hold one number a voxel",
		filepath.Join(dir, "flat.nii"):         "2 axes: goeq's volumes have three",
		filepath.Join(cut, "plain.nii"):        "its header's 6×5×4 voxels of 2 byte(s) need 240 after the 352",
		filepath.Join(cut, "packed.nii.gz"):    "the voxels' data ends early",
		filepath.Join(cut, "two.nii"):          "the file ends 300 bytes into its 540-byte header",
		filepath.Join(cut, "nomagic.nii"):      `no NIfTI magic ("n+1" at byte 344; it holds "xx1")`,
		filepath.Join(cut, "lonely.hdr"):       "lonely.img: no such file",
		filepath.Join(cut, "notnifti.nii"):     "not a NIfTI file: its first bytes give a header of",
		filepath.Join(dir, "nowhere.nii.gz"):   "no such file",
		filepath.Join(dir, "read.json") + "/x": "not a directory",
	} {
		if _, err := LoadVolume(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
}

// scaledOnto16Bits is values scaled from their least to their greatest
// onto a volume's 0..65535, as goeq scales numbers wider than bytes.
func scaledOnto16Bits(values []float64) []uint16 {
	lo, hi := slices.Min(values), slices.Max(values)
	out := make([]uint16, len(values))
	for i, x := range values {
		out[i] = uint16(math.Round((x - lo) * 65535 / (hi - lo)))
	}
	return out
}

// FuzzNIfTI: whatever a NIfTI header holds, loading it ends in a volume of
// the header's size or an error, never a panic or a wait.
func FuzzNIfTI(f *testing.F) {
	for _, name := range []string{"plain.nii", "two.nii", "big.nii", "scaled.nii", "mirrored.nii", "extension.nii"} {
		b, err := os.ReadFile(filepath.Join("testdata", "nifti", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.nii")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := LoadVolume(path)
		if err == nil && len(v.Values) != v.W*v.H*v.D {
			t.Fatalf("%d values for %d×%d×%d voxels", len(v.Values), v.W, v.H, v.D)
		}
	})
}
