package render

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// VTK volumes load with the values, size and spacing VTK wrote: its XML
// images (.vti, ParaView's own) inline or appended, base64 or raw, zlib
// blocks or none, 32- or 64-bit headers, either byte order, the active
// scalars or the first array of one component; and its legacy structured
// points (.vtk), binary and ascii. The files in testdata/vtk are VTK
// 9.1's own (make.py there wrote them). What goeq cannot read is refused,
// saying what it is.
func TestVTKVolumes(t *testing.T) {
	dir := filepath.Join("testdata", "vtk")
	for _, name := range []string{"default.vti", "raw-appended.vti", "raw-appended-zlib.vti", "base64-appended.vti",
		"inline-binary.vti", "inline-binary-plain.vti", "ascii.vti", "uint64-header.vti", "blocks.vti", "blocks-base64.vti",
		"bigendian.vti", "vector-first.vti", "active-scalars.vti", "pieces.vti", "binary.vtk", "ascii.vtk", "v42.vtk"} {
		loadsAsRamp(t, filepath.Join(dir, name))
	}
	cut := t.TempDir()
	// an extent that does not begin at 0, as a piece cut from a larger
	// image has (it was refused as a piece of the whole)
	ascii, err := os.ReadFile(filepath.Join(dir, "ascii.vti"))
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.ReplaceAll(string(ascii), `Extent="0 5 0 4 0 3"`, `Extent="10 15 0 4 -3 0"`)
	if moved == string(ascii) {
		t.Fatal("ascii.vti's extents are not as the test expects")
	}
	os.WriteFile(filepath.Join(cut, "moved.vti"), []byte(moved), 0o644)
	loadsAsRamp(t, filepath.Join(cut, "moved.vti"))
	for name, n := range map[string]int{"raw-appended-zlib.vti": 700, "blocks-base64.vti": 800, "binary.vtk": 300} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cut, name), b[:n], 0o644)
	}
	os.WriteFile(filepath.Join(cut, "notvtk.vtk"), []byte("P5\n6 5\n255\n"), 0o644)
	os.WriteFile(filepath.Join(cut, "notvti.vti"), []byte("P5\n6 5\n255\n"), 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "lz4.vti"):               "compressor vtkLZ4DataCompressor: goeq reads zlib-compressed data or data not compressed",
		filepath.Join(dir, "lzma.vti"):              "compressor vtkLZMADataCompressor",
		filepath.Join(dir, "cells.vti"):             "no point data array of one value a point",
		filepath.Join(cut, "raw-appended-zlib.vti"): "the voxels' data ends early",
		filepath.Join(cut, "blocks-base64.vti"):     "the voxels' data ends early",
		filepath.Join(cut, "binary.vtk"):            "its header's 6×5×4 voxels of 2 byte(s) need 240 after the",
		filepath.Join(cut, "notvtk.vtk"):            `not a legacy VTK file (first line "P5")`,
		filepath.Join(cut, "notvti.vti"):            "no ImageData element: not a VTK XML image",
	} {
		if _, err := LoadVolume(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
}

// FuzzVTI: whatever a .vti holds, loading it ends in a volume of the
// header's size or an error, never a panic or a wait.
func FuzzVTI(f *testing.F) {
	for _, name := range []string{"default.vti", "raw-appended-zlib.vti", "blocks-base64.vti", "inline-binary.vti", "ascii.vti"} {
		b, err := os.ReadFile(filepath.Join("testdata", "vtk", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := readVTIHeader(bytes.NewReader(b))
		d := img.whole.dims()
		if err != nil || d[0]*d[1]*d[2] > 1<<16 { // a large one would only take time to fill
			return
		}
		path := filepath.Join(dir, "fuzz.vti")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := LoadVolume(path); err == nil && len(got.Values) != d[0]*d[1]*d[2] {
			t.Fatalf("%d values for %v", len(got.Values), d)
		}
	})
}

// An image whose array is inline, base64 or ascii, and larger than a
// header's bound (megabytes of text) loads: its text was read as XML up
// to the bound, and the image refused as cut short.
func TestALargeInlineVTIImageLoads(t *testing.T) {
	const w, h, d = 128, 128, 80
	values := make([]byte, w*h*d)
	for i := range values {
		values[i] = byte(i * 7 / 3)
	}
	image := func(format, text string) []byte {
		return []byte(`<?xml version="1.0"?>
<VTKFile type="ImageData" version="0.1" byte_order="LittleEndian" header_type="UInt32">
  <ImageData WholeExtent="0 127 0 127 0 79" Origin="0 0 0" Spacing="1 1 1" Direction="1 0 0 0 1 0 0 0 1">
  <Piece Extent="0 127 0 127 0 79">
    <PointData Scalars="d">
      <DataArray type="UInt8" Name="d" format="` + format + `">
        ` + text + `
      </DataArray>
    </PointData>
  </Piece>
  </ImageData>
</VTKFile>
`)
	}
	raw := binary.LittleEndian.AppendUint32(nil, uint32(len(values)))
	var ascii strings.Builder
	for i, v := range values {
		if i%6 == 0 {
			ascii.WriteString("\n        ")
		}
		fmt.Fprintf(&ascii, "%d ", v)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"binary.vti": image("binary", base64.StdEncoding.EncodeToString(append(raw, values...))),
		"ascii.vti":  image("ascii", ascii.String()),
	} {
		if len(b) <= maxVolumeHeader {
			t.Fatalf("%s is %d bytes: within the header's bound, the test would prove nothing", name, len(b))
		}
		path := filepath.Join(dir, name)
		os.WriteFile(path, b, 0o644)
		v, err := LoadVolume(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if v.W != w || v.H != h || v.D != d || !slices.Equal(v.Values, widened(values)) {
			t.Errorf("%s: %d×%d×%d, its values not the image's", name, v.W, v.H, v.D)
		}
	}
}

// A parallel image (.pvti, as ParaView writes one from a run of several
// processes) loads as the same image written whole: each piece in its
// place, the pieces scaled together. A piece file names its own extent;
// one that says another, or is not there, is refused.
func TestAParallelVTKImageLoadsAsTheWhole(t *testing.T) {
	dir := filepath.Join("testdata", "vtk")
	got, err := LoadVolume(filepath.Join(dir, "wave.pvti"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := LoadVolume(filepath.Join(dir, "wave-whole.vti"))
	if err != nil {
		t.Fatal(err)
	}
	if got.W != 8 || got.H != 6 || got.D != 4 || got.Extent != want.Extent || !slices.Equal(got.Values, want.Values) {
		t.Errorf("the pieces: %d×%d×%d, box %v; the whole: %d×%d×%d, box %v; values equal %v",
			got.W, got.H, got.D, got.Extent, want.W, want.H, want.D, want.Extent, slices.Equal(got.Values, want.Values))
	}
	index, err := os.ReadFile(filepath.Join(dir, "wave.pvti"))
	if err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	for _, name := range []string{"wave_0.vti", "wave_1.vti", "wave_2.vti", "wave_3.vti"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		os.WriteFile(filepath.Join(bad, name), b, 0o644)
	}
	for name, c := range map[string]struct{ from, to, want string }{
		"missing.pvti": {"wave_3.vti", "wave_9.vti", "wave_9.vti: no such file"},
		"moved.pvti":   {`Extent="3 7 2 5 0 3"`, `Extent="3 7 2 5 0 2"`, "piece 3: wave_3.vti holds the extent 3 7 2 5 0 3, not 3 7 2 5 0 2"},
		"outside.pvti": {`Extent="3 7 2 5 0 3"`, `Extent="3 8 2 5 0 3"`, `piece 3: extent "3 8 2 5 0 3", source "wave_3.vti"; want an extent within the whole 0 7 0 5 0 3`},
	} {
		os.WriteFile(filepath.Join(bad, name), []byte(strings.Replace(string(index), c.from, c.to, 1)), 0o644)
		if _, err := LoadVolume(filepath.Join(bad, name)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
	}
}

// An extent whose sides would overflow, or run backwards, is refused: a
// side of 2^64 points made a slice of negative length.
func TestAnExtentPastIntsIsRefused(t *testing.T) {
	for _, s := range []string{"-9223372036854775807 9223372036854775807 0 1 0 1", "0 2147483648 0 1 0 1", "5 4 0 1 0 1", "0 2048 0 1 0 1", "0 1 0 1 0"} {
		if e, ok := parseExtent(s); ok {
			t.Errorf("%q read as %v", s, e)
		}
	}
	if e, ok := parseExtent("-2147483648 -2147481601 0 0 0 0"); !ok || e.dims() != [3]int{2048, 1, 1} {
		t.Errorf("the lowest extent of 2048 points: %v %v", e, ok)
	}
}
