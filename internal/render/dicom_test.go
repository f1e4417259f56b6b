package render

import (
	"bytes"
	"io"
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
// first); given as the folder or as one of its files, or as a disc's
// DICOMDIR or the folder that holds it. Its voxels lie as VTK's DICOM reader (and so ParaView) lays
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
		filepath.Join("enhanced", "reversed.dcm"), filepath.Join("enhanced-explicit", "reversed.dcm"), "jpeg",
		"disc", filepath.Join("disc", "DICOMDIR")} {
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
	if _, err := LoadVolume(filepath.Join(dir, "two")); err == nil || !strings.Contains(err.Error(), "holds 2 DICOM series") {
		t.Errorf("two series: %v", err)
	}
	// a file of frames and its copy, side by side
	multi, err := os.ReadFile(filepath.Join(dir, "frames", "multi.dcm"))
	if err != nil {
		t.Fatal(err)
	}
	copies := t.TempDir()
	os.WriteFile(filepath.Join(copies, "a.dcm"), multi, 0o644)
	os.WriteFile(filepath.Join(copies, "b.dcm"), multi, 0o644)
	if _, err := LoadVolume(filepath.Join(copies, "b.dcm")); err == nil || !strings.Contains(err.Error(), "a.dcm and b.dcm (of 2 files) are of one series and of 4 frames each") {
		t.Errorf("a file of frames and its copy: %v", err)
	}
	// a disc's index of two series, and one that names a file outside it
	for _, path := range []string{"disc2", filepath.Join("disc2", "DICOMDIR")} {
		_, err := LoadVolume(filepath.Join(dir, path))
		if err == nil || !strings.Contains(err.Error(), "DICOMDIR lists 2 DICOM series: ") || !strings.Contains(err.Error(), "(4 files, DICOM/SER2/IM0000 among them); give one of the series' files") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := LoadVolume(filepath.Join(dir, "disc2", "DICOM", "SER2", "IM0013")); err != nil {
		t.Errorf("a file of one of a disc's two series: %v", err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "disc", "DICOMDIR"))
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "DICOMDIR")
	os.WriteFile(outside, bytes.Replace(index, []byte(`DICOM\SER1\IM0026`), []byte(`..\..\..\..\IM026`), 1), 0o644)
	if _, err := LoadVolume(outside); err == nil || !strings.Contains(err.Error(), `a record names the file "..\\..\\..\\..\\IM026": a path outside the DICOMDIR's folder`) {
		t.Errorf("a DICOMDIR naming a file outside its folder: %v", err)
	}
	// a syntax goeq does not decode (JPEG-LS, where the slice says
	// lossless JPEG)
	b, err := os.ReadFile(filepath.Join(dir, "jpeg", "IM0000"))
	if err != nil {
		t.Fatal(err)
	}
	jpegLS := filepath.Join(t.TempDir(), "IM0000")
	os.WriteFile(jpegLS, bytes.Replace(b, []byte("1.2.840.10008.1.2.4.70"), []byte("1.2.840.10008.1.2.4.80"), 1), 0o644)
	if _, err := LoadVolume(jpegLS); err == nil || !strings.Contains(err.Error(), "transfer syntax 1.2.840.10008.1.2.4.80: JPEG-LS compressed; goeq reads uncompressed DICOM, lossless JPEG, 8-bit baseline JPEG and RLE (decompress it first") {
		t.Errorf("JPEG-LS: %v", err)
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

// Compressed slices as PACS hand them out load as their uncompressed
// files do (testdata/dicom/codecs, compressed by DCMTK, whose own
// decompression is the reference of a lossy one): lossless JPEG of each of
// its seven predictors, in fragments of 1 KB with and without a basic
// offset table, with a point transform; RLE; 12 bits stored of 16,
// signed, and bytes; baseline JPEG within two levels of 255 (Go's IDCT
// and libjpeg's round apart by one: this file is one level apart).
func TestCompressedDICOM(t *testing.T) {
	dir := filepath.Join("testdata", "dicom", "codecs")
	load := func(name string) *VolumeData {
		t.Helper()
		v, err := LoadVolume(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	for reference, files := range map[string][]string{
		"source.dcm":        {"sv1.dcm", "sv2.dcm", "sv3.dcm", "sv4.dcm", "sv5.dcm", "sv6.dcm", "sv7.dcm", "fragments.dcm", "unindexed.dcm", "rle.dcm"},
		"pt2-reference.dcm": {"pt2.dcm"},
		"bytes.dcm":         {"bytes-sv1.dcm", "bytes-rle.dcm"},
	} {
		want := load(reference)
		if want.W != 48 || want.H != 32 || want.D != 3 {
			t.Fatalf("%s: %d×%d×%d", reference, want.W, want.H, want.D)
		}
		for _, name := range files {
			if got := load(name); got.W != want.W || got.H != want.H || got.D != want.D || !slices.Equal(got.Values, want.Values) {
				t.Errorf("%s does not load as %s does", name, reference)
			}
		}
	}
	// the volumes' values are scaled from their least to their greatest,
	// which hides a point transform's shift: the samples are DCMTK's too
	raw := func(name string) []byte {
		t.Helper()
		sl, err := readDICOMSlice(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(sl.path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var r io.Reader = io.NewSectionReader(f, sl.pixels, sl.pixelBytes)
		if sl.codec != codecNone {
			frames, err := sl.frameFragments()
			if err != nil {
				t.Fatal(err)
			}
			r = &decodedFrames{s: &sl, f: f, frames: frames}
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b
	}
	if !bytes.Equal(raw("pt2.dcm"), raw("pt2-reference.dcm")) {
		t.Error("pt2.dcm's samples are not DCMTK's")
	}
	want, got := load("bytes-baseline-reference.dcm"), load("bytes-baseline.dcm")
	worst := 0
	for i := range want.Values {
		worst = max(worst, int(absDiff16(got.Values[i], want.Values[i])))
	}
	if got.D != want.D || worst > 2*257 {
		t.Errorf("baseline JPEG: %d slices, %d of 65535 from DCMTK's decompression at worst; want %d, within two levels of 255", got.D, worst, want.D)
	}
	// a frame cut short; sides no compressed data of its size holds
	b, err := os.ReadFile(filepath.Join(dir, "sv1.dcm"))
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Replace(b, []byte("\x28\x00\x10\x00US\x02\x00\x20\x00"), []byte("\x28\x00\x10\x00US\x02\x00\x00\x08"), 1)
	huge = bytes.Replace(huge, []byte("\x28\x00\x11\x00US\x02\x00\x30\x00"), []byte("\x28\x00\x11\x00US\x02\x00\x00\x08"), 1)
	hugePath := filepath.Join(t.TempDir(), "huge.dcm")
	os.WriteFile(hugePath, huge, 0o644)
	if _, err := LoadVolume(hugePath); bytes.Equal(huge, b) || err == nil || !strings.Contains(err.Error(), "for 2048×2048 pixels of 16 bits (3 frames): more than any codec packs them") {
		t.Errorf("a compressed file of 2048×2048 pixels: %v", err)
	}
	end := bytes.Index(b, []byte{0xFF, 0xD9}) // the first frame's: and one 40 bytes sooner
	cut := slices.Concat(b[:end-40], []byte{0xFF, 0xD9}, b[end-38:])
	cutPath := filepath.Join(t.TempDir(), "cut.dcm")
	os.WriteFile(cutPath, cut, 0o644)
	if _, err := LoadVolume(cutPath); err == nil || !strings.Contains(err.Error(), "frame 1: ") {
		t.Errorf("a frame cut short: %v", err)
	}
}

func absDiff16(a, b uint16) uint16 { return max(a, b) - min(a, b) }

// FuzzDICOM: whatever a slice file holds, loading it ends in a volume of
// its size or an error, never a panic or a wait.
func FuzzDICOM(f *testing.F) {
	for _, name := range []string{"implicit/IM0000", "explicit/IM0013", "big/IM0026", "bytes/IM0039", "jpeg/IM0000", "enhanced/reversed.dcm", "enhanced-explicit/reversed.dcm",
		"codecs/sv7.dcm", "codecs/fragments.dcm", "codecs/rle.dcm", "codecs/bytes-baseline.dcm", "disc/DICOMDIR"} {
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
