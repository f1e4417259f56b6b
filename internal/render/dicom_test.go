package render

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// DICOM series as scanners hand them out (testdata/dicom, written by
// pydicom and DCMTK: make.py there) load as the same volume: a folder of
// slices whose names and files come in no order, placed by their
// positions, rescaled to Hounsfield units, spaced as they say, in
// implicit and explicit VR, little and big endian, of 16 and 32 bits, with
// sequences of undefined length, group lengths and an empty element, or
// as one file of many frames (an enhanced image's too, its frames placed,
// spaced and scaled by its functional groups, last along the normal
// first); given as the folder or as one of its files. Its voxels lie as VTK's DICOM reader (and so ParaView) lays
// them out: rows up, slices from the last along their normal, so that the
// patient is not mirrored. What goeq does not read is refused, saying
// what it is.
func TestDICOMSeries(t *testing.T) {
	dir := filepath.Join("testdata", "dicom")
	// rescaling is linear: the stored ramp's order and spread, its slices
	// (z) taken from the last; VTK 9.1's vtkDICOMImageReader reads the
	// explicit series' first voxels as 5036 5110 5184 (ramp 90, 91, 92)
	_, ramp := rampOfShorts(6 * 5 * 4)
	want := make([]uint16, len(ramp))
	for i := range want {
		want[i] = ramp[(3-i/30)*30+i%30]
	}
	for _, path := range []string{"implicit", "explicit", "big", "wide", filepath.Join("implicit", "IM0026"), filepath.Join("two", "first"), filepath.Join("frames", "multi.dcm"),
		filepath.Join("enhanced", "reversed.dcm"), filepath.Join("enhanced-explicit", "reversed.dcm")} {
		v, err := LoadVolume(filepath.Join(dir, path))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		// 6×5×4 voxels 0.5 by 0.5 by 2.5 mm: a box 3 by 2.5 by 10
		if v.W != 6 || v.H != 5 || v.D != 4 || v.Extent != [3]float64{0.3, 0.25, 1} {
			t.Errorf("%s: %d×%d×%d, box %v; want 6×5×4, box [0.3 0.25 1]", path, v.W, v.H, v.D, v.Extent)
		}
		if !slices.Equal(v.Values, want) {
			t.Errorf("%s: values %v...; want %v...", path, v.Values[:8], want[:8])
		}
	}
	// bytes, unsigned, as a ramp too
	v, err := LoadVolume(filepath.Join(dir, "bytes"))
	if err != nil {
		t.Fatal(err)
	}
	up := make([]uint16, len(v.Values)) // its slices in their order
	for i := range up {
		up[i] = v.Values[(3-i/30)*30+i%30]
	}
	if !slices.IsSorted(up) || up[0] != 0 || up[len(up)-1] != 65535 {
		t.Fatalf("8-bit slices: values %v...; want a ramp from 0 to 65535", up[:8])
	}
	for path, want := range map[string]string{
		"two":                           "holds 2 DICOM series",
		filepath.Join("jpeg"):           "transfer syntax 1.2.840.10008.1.2.4.70: JPEG compressed; goeq reads uncompressed DICOM (decompress it first",
		filepath.Join("jpeg", "IM0000"): "JPEG compressed",
	} {
		if _, err := LoadVolume(filepath.Join(dir, path)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
	// a slice cut short, a folder of no DICOM, a file that only begins as one
	tmp := t.TempDir()
	for _, name := range []string{"IM0000", "IM0013", "IM0026", "IM0039"} {
		b, err := os.ReadFile(filepath.Join(dir, "explicit", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "IM0039" {
			b = b[:len(b)-7]
		}
		os.WriteFile(filepath.Join(tmp, name), b, 0o644)
	}
	if _, err := LoadVolume(tmp); err == nil || !strings.Contains(err.Error(), "IM0039: its pixel data ends early: the file holds 53 bytes of the 60 its element says") {
		t.Errorf("a slice cut short: %v", err)
	}
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("scan of 3 May"), 0o644)
	if _, err := LoadVolume(empty); err == nil || !strings.Contains(err.Error(), "no DICOM files") {
		t.Errorf("a folder of no DICOM: %v", err)
	}
	head := append(make([]byte, 128), "DICM\x02\x00\x10\x00UI"...)
	os.WriteFile(filepath.Join(empty, "x.dcm"), head, 0o644)
	if _, err := LoadVolume(filepath.Join(empty, "x.dcm")); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("a file that only begins as DICOM: %v", err)
	}
	// two slices, or two frames, at one place (a position's z of 105
	// where it was 107.5)
	moved := 0
	move := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`\107.5`)) {
			moved++
		}
		os.WriteFile(to, bytes.Replace(b, []byte(`\107.5`), []byte(`\105.0`), 1), 0o644)
	}
	twice := t.TempDir()
	for _, name := range []string{"IM0000", "IM0013", "IM0026", "IM0039"} {
		move(filepath.Join(dir, "explicit", name), filepath.Join(twice, name))
	}
	if _, err := LoadVolume(twice); moved != 1 || err == nil || !strings.Contains(err.Error(), "lie at the same place: two series, or a series taken twice") {
		t.Errorf("two slices at one place (%d moved): %v", moved, err)
	}
	stacks := filepath.Join(t.TempDir(), "stacks.dcm")
	move(filepath.Join(dir, "enhanced", "reversed.dcm"), stacks)
	if _, err := LoadVolume(stacks); moved != 2 || err == nil || !strings.Contains(err.Error(), "frames 1 and 2 lie at the same place: a file of several stacks or times") {
		t.Errorf("two frames at one place: %v", err)
	}
}

// FuzzDICOM: whatever a slice file holds, loading it ends in a volume of
// its size or an error, never a panic or a wait.
func FuzzDICOM(f *testing.F) {
	for _, name := range []string{"implicit/IM0000", "explicit/IM0013", "big/IM0026", "bytes/IM0039", "jpeg/IM0000", "enhanced/reversed.dcm", "enhanced-explicit/reversed.dcm"} {
		b, err := os.ReadFile(filepath.Join("testdata", "dicom", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "slice.dcm")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := readDICOMSlice(path)
		if err != nil || s.rows*s.columns*s.frames > 1<<16 { // a large one would only take time to fill
			return
		}
		if got, err := LoadVolume(path); err == nil && len(got.Values) != s.rows*s.columns*s.frames {
			t.Fatalf("%d values for %d×%d×%d", len(got.Values), s.columns, s.rows, s.frames)
		}
	})
}
