package render

import (
	"bytes"
	"os"
	"path/filepath"
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
		v, _, err := readVTIHeader(bytes.NewReader(b))
		if err != nil || v.W*v.H*v.D > 1<<16 { // a large one would only take time to fill
			return
		}
		path := filepath.Join(dir, "fuzz.vti")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := LoadVolume(path); err == nil && len(got.Values) != v.W*v.H*v.D {
			t.Fatalf("%d values for %d×%d×%d", len(got.Values), v.W, v.H, v.D)
		}
	})
}
