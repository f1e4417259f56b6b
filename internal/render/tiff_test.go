package render

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TIFF stacks load as tifffile (and, for LZW, libtiff) reads them: the
// files in testdata/tiff are tifffile's, VTK's and libtiff's tiffcp's
// (make.py there wrote them, and read.json what tifffile read of each).
// ImageJ's stacks with their calibration, classic and BigTIFF, either byte
// order, strips of a few rows, uncompressed, Deflate, LZW and PackBits,
// the horizontal predictor, five number types, white is zero, and a folder
// of a slice a file in its names' order (TIFFs, or PNGs: 16-bit, 8-bit, and
// RGB of grey pixels, as Pillow saves them); the first page's top row shows at
// the top and nearest the eye. What goeq cannot read is refused, saying
// what it is.
func TestTIFFStacks(t *testing.T) {
	dir := filepath.Join("testdata", "tiff")
	b, err := os.ReadFile(filepath.Join(dir, "read.json"))
	if err != nil {
		t.Fatal(err)
	}
	var read map[string]struct {
		Spacing [3]float64
		Values  []float64
	}
	if err := json.Unmarshal(b, &read); err != nil {
		t.Fatal(err)
	}
	if len(read) != 19 {
		t.Fatalf("read.json holds %d stacks; want 19", len(read))
	}
	for name, want := range read {
		v, err := LoadVolume(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		size := [3]float64{6 * want.Spacing[0], 5 * want.Spacing[1], 4 * want.Spacing[2]}
		longest := max(size[0], size[1], size[2])
		box := [3]float64{size[0] / longest, size[1] / longest, size[2] / longest}
		if v.W != 6 || v.H != 5 || v.D != 4 || v.Extent != box {
			t.Errorf("%s: %d×%d×%d, box %v; want 6×5×4, box %v (spaced %v)", name, v.W, v.H, v.D, v.Extent, box, want.Spacing)
		}
		wanted := scaledOnto16Bits(want.Values)
		if strings.Contains(name, "bytes") || name == "png8" || name == "pngrgb" { // bytes are taken as they are
			for i, x := range want.Values {
				wanted[i] = byteValue * uint16(x)
			}
		}
		if !slices.Equal(v.Values, wanted) {
			t.Errorf("%s: values %v...; want %v... (as tifffile reads them)", name, v.Values[:8], wanted[:8])
		}
	}

	cut := t.TempDir()
	imagej, _ := os.ReadFile(filepath.Join(dir, "imagej.tif"))
	// ImageJ writes a stack past 4 GB with one directory, its images one
	// after another: the first directory's next is 0
	first := binary.LittleEndian.Uint32(imagej[4:])
	entries := binary.LittleEndian.Uint16(imagej[first:])
	one := slices.Clone(imagej)
	binary.LittleEndian.PutUint32(one[first+2+12*uint32(entries):], 0)
	os.WriteFile(filepath.Join(cut, "one-directory.tif"), one, 0o644)
	want := read["imagej.tif"].Values
	if v, err := LoadVolume(filepath.Join(cut, "one-directory.tif")); err != nil || !slices.Equal(v.Values, scaledOnto16Bits(want)) {
		t.Errorf("ImageJ's stack of one directory: %v", err)
	}
	loop := slices.Clone(imagej)
	binary.LittleEndian.PutUint32(loop[first+2+12*uint32(entries):], first)
	os.WriteFile(filepath.Join(cut, "loop.tif"), loop, 0o644)
	os.WriteFile(filepath.Join(cut, "cut.tif"), imagej[:len(imagej)-100], 0o644) // its last directory
	os.WriteFile(filepath.Join(cut, "one-cut.tif"), one[:500], 0o644)            // its last image
	zlib, _ := os.ReadFile(filepath.Join(dir, "zlib.tif"))
	os.WriteFile(filepath.Join(cut, "zlib-cut.tif"), zlib[:len(zlib)*2/3], 0o644)
	os.WriteFile(filepath.Join(cut, "not.tif"), []byte("P5\n6 5\n255\n"), 0o644)
	mixed := filepath.Join(cut, "mixed")
	os.Mkdir(mixed, 0o755)
	for i, name := range []string{"int16.tif", "folder/slice8.tif"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		os.WriteFile(filepath.Join(mixed, []string{"a.tif", "b.tif"}[i]), b, 0o644)
	}
	colour := filepath.Join(cut, "colour")
	os.Mkdir(colour, 0o755)
	for i := range 2 {
		img := image.NewRGBA(image.Rect(0, 0, 3, 2))
		img.Set(1, 1, color.RGBA{200, 100, 50, 255})
		var b bytes.Buffer
		png.Encode(&b, img)
		os.WriteFile(filepath.Join(colour, fmt.Sprintf("s%d.png", i)), b.Bytes(), 0o644)
	}
	both := filepath.Join(cut, "both")
	os.Mkdir(both, 0o755)
	for _, name := range []string{"folder/slice8.tif", "png8/slice_9.png"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		os.WriteFile(filepath.Join(both, filepath.Base(name)), b, 0o644)
	}
	for path, want := range map[string]string{
		colour:                             "s0.png is in colour (its pixel at 1,1): goeq reads grey slices",
		both:                               "holds TIFF and PNG slices: a stack's slices are alike",
		filepath.Join(dir, "rgb.tif"):      "3 samples a pixel (colour): goeq's volumes hold one number a voxel",
		filepath.Join(dir, "one-page.tif"): "a TIFF of one page: a stack has a page a slice (a folder of TIFF slices loads as one stack",
		filepath.Join(dir, "channels.tif"): "an ImageJ hyperstack of 2 channels: goeq reads one",
		filepath.Join(dir, "tiled.tif"):    "page 1 is tiled: goeq reads TIFFs in strips",
		filepath.Join(cut, "loop.tif"):     "its image file directories loop back to the one at byte",
		filepath.Join(cut, "cut.tif"):      "image file directory at byte 940: 148 bytes at byte 942 lie past the file's end",
		filepath.Join(cut, "one-cut.tif"):  "the voxels' data ends early",
		filepath.Join(cut, "zlib-cut.tif"): "lie past the file's end",
		filepath.Join(cut, "not.tif"):      `not a TIFF file (it begins "P5", not II or MM)`,
		mixed:                              "a.tif holds several pages: a folder's TIFFs are a slice each",
	} {
		if _, err := LoadVolume(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
}

// Slices are ordered by the numbers in their names, as people number
// them.
func TestNaturalCompare(t *testing.T) {
	names := []string{"slice10.tif", "slice9.tif", "slice010b.tif", "Slice1.tif", "slice1.tif", "slice.tif", "slice0002.tif"}
	slices.SortFunc(names, naturalCompare)
	want := []string{"Slice1.tif", "slice.tif", "slice1.tif", "slice0002.tif", "slice9.tif", "slice10.tif", "slice010b.tif"}
	if !slices.Equal(names, want) {
		t.Errorf("%v; want %v", names, want)
	}
}

// FuzzTIFF: whatever a TIFF holds, loading it ends in a volume of its
// pages' size or an error, never a panic or a wait.
func FuzzTIFF(f *testing.F) {
	for _, name := range []string{"imagej.tif", "bigtiff.tif", "zlib.tif", "lzw.tif", "vtk-packbits.tif", "big-endian.tif"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tiff", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.tif")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := LoadVolume(path)
		if err == nil && len(v.Values) != v.W*v.H*v.D {
			t.Fatalf("%d values for %d×%d×%d voxels", len(v.Values), v.W, v.H, v.D)
		}
	})
}
