package render

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// unu runs Teem's unu (Debian's teem-apps), which writes NRRD files as
// Teem, 3D Slicer and ParaView users have them.
func unu(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin, err := exec.LookPath("teem-unu")
	if err != nil {
		if bin, err = exec.LookPath("unu"); err != nil {
			t.Fatal("Teem's unu is needed (make test installs teem-apps)")
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("unu %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// NRRD volumes as unu writes them load with the values, the size and the
// spacing their header gives: attached and detached headers, raw, gzip
// and ascii data, either byte order, integer and floating point types, a
// first axis of one sample, data after a byte or line skip or at a
// file's end. What goeq cannot read is refused, saying what it is.
func TestNRRDVolumesAsTeemWritesThem(t *testing.T) {
	dir := t.TempDir()
	const w, h, d = 6, 5, 4
	shorts, _ := rampOfShorts(w * h * d)
	if err := os.WriteFile(filepath.Join(dir, "shorts.raw"), shorts, 0o644); err != nil {
		t.Fatal(err)
	}
	bytesData := make([]byte, w*h*d)
	for i := range bytesData {
		bytesData[i] = byte(i * 7)
	}
	os.WriteFile(filepath.Join(dir, "bytes.raw"), bytesData, 0o644)
	// the data after 9 bytes of something else, and after two lines
	os.WriteFile(filepath.Join(dir, "tail.raw"), append([]byte("ignored!!"), shorts...), 0o644)
	os.WriteFile(filepath.Join(dir, "lines.raw"), append([]byte("one line\nand another\n"), shorts...), 0o644)

	size := []string{"-s", "6", "5", "4"}
	make := func(out string, extra ...string) {
		unu(t, dir, append(append([]string{"make", "-i", "shorts.raw", "-t", "short", "-en", "little", "-sp", "1", "1", "2", "-o", out}, size...), extra...)...)
	}
	make("attached.nrrd")
	unu(t, dir, "save", "-i", "attached.nrrd", "-f", "nrrd", "-e", "gzip", "-o", "gzip.nrrd")
	unu(t, dir, "save", "-i", "attached.nrrd", "-f", "nrrd", "-en", "big", "-o", "big.nrrd")
	unu(t, dir, "save", "-i", "attached.nrrd", "-f", "nrrd", "-e", "ascii", "-o", "ascii.nrrd")
	unu(t, dir, "convert", "-i", "attached.nrrd", "-t", "double", "-o", "double.nrrd")
	unu(t, dir, "save", "-i", "double.nrrd", "-f", "nrrd", "-e", "gzip", "-o", "double.nhdr")
	unu(t, dir, "axinsert", "-i", "attached.nrrd", "-a", "0", "-o", "fourd.nrrd")
	unu(t, dir, append([]string{"make", "-h", "-i", "shorts.raw", "-t", "short", "-en", "little", "-spc", "RAS", "-dirs", "(1,0,0) (0,1,0) (0,0,2)", "-orig", "(0,0,0)", "-o", "directions.nhdr"}, size...)...)
	unu(t, dir, append([]string{"make", "-h", "-i", "tail.raw", "-t", "short", "-en", "little", "-bs", "-1", "-sp", "1", "1", "2", "-o", "byteskip.nhdr"}, size...)...)
	unu(t, dir, append([]string{"make", "-h", "-i", "lines.raw", "-t", "short", "-en", "little", "-ls", "2", "-sp", "1", "1", "2", "-o", "lineskip.nhdr"}, size...)...)
	for _, name := range []string{"attached.nrrd", "gzip.nrrd", "big.nrrd", "ascii.nrrd", "double.nrrd", "double.nhdr", "fourd.nrrd", "directions.nhdr", "byteskip.nhdr", "lineskip.nhdr"} {
		loadsAsRamp(t, filepath.Join(dir, name))
	}
	unu(t, dir, append([]string{"make", "-i", "bytes.raw", "-t", "uchar", "-o", "bytes.nrrd"}, size...)...)
	if v, err := LoadVolume(filepath.Join(dir, "bytes.nrrd")); err != nil || !slices.Equal(v.Values, widened(bytesData)) {
		t.Errorf("uchar, its bytes as they are: %v", err)
	}

	// what goeq does not read
	unu(t, dir, "save", "-i", "attached.nrrd", "-f", "nrrd", "-e", "bzip2", "-o", "bzip2.nrrd")
	os.WriteFile(filepath.Join(dir, "rgb.raw"), make3(w*h*d), 0o644)
	unu(t, dir, "make", "-i", "rgb.raw", "-t", "uchar", "-s", "3", "6", "5", "4", "-o", "rgb.nrrd")
	make("missing.nhdr", "-h")
	os.Rename(filepath.Join(dir, "shorts.raw"), filepath.Join(dir, "gone.raw"))
	attached, _ := os.ReadFile(filepath.Join(dir, "attached.nrrd"))
	os.WriteFile(filepath.Join(dir, "short.nrrd"), attached[:len(attached)-10], 0o644)
	packed, _ := os.ReadFile(filepath.Join(dir, "gzip.nrrd"))
	os.WriteFile(filepath.Join(dir, "cut.nrrd"), packed[:len(packed)-40], 0o644)
	os.WriteFile(filepath.Join(dir, "notnrrd.nrrd"), []byte("P5\n6 5\n255\n"), 0o644)
	for name, want := range map[string]string{
		"bzip2.nrrd":   `encoding "bzip2": goeq reads raw, gzip and ascii`,
		"rgb.nrrd":     `sizes "3 6 5 4": goeq's volumes have three axes of one value a voxel`,
		"missing.nhdr": "shorts.raw: no such file",
		"short.nrrd":   "its header's 6×5×4 voxels of 2 byte(s) need 240 after the",
		"cut.nrrd":     "the voxels' data ends early",
		"notnrrd.nrrd": `not a NRRD file (first line "P5"; want NRRD0001 to NRRD0005)`,
	} {
		if _, err := LoadVolume(filepath.Join(dir, name)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
}

// rampOfShorts is n 16-bit values, little-endian, and what they load as,
// scaled onto 0..65535 from the least to the greatest.
func rampOfShorts(n int) (shorts []byte, want []uint16) {
	lo, hi := -300.0, -300.0+float64(n-1)*37
	for i := range n {
		x := -300 + i*37
		shorts = binary.LittleEndian.AppendUint16(shorts, uint16(int16(x)))
		want = append(want, uint16(math.Round((float64(x)-lo)*65535/(hi-lo))))
	}
	return shorts, want
}

// loadsAsRamp checks that the volume at path, 6×5×4 voxels spaced 1 1 2,
// loads as rampOfShorts does.
func loadsAsRamp(t *testing.T, path string) {
	t.Helper()
	_, want := rampOfShorts(6 * 5 * 4)
	v, err := LoadVolume(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if v.W != 6 || v.H != 5 || v.D != 4 || v.Extent != [3]float64{0.75, 0.625, 1} || v.Transfer != DefaultTransfer() {
		t.Errorf("%s: %d×%d×%d, box %v; want 6×5×4, box [0.75 0.625 1] (z spaced 2)", path, v.W, v.H, v.D, v.Extent)
	}
	if !slices.Equal(v.Values, want) {
		t.Errorf("%s: values %v...; want %v...", path, v.Values[:8], want[:8])
	}
}

// make3 is n voxels of three bytes each, an RGB volume's.
func make3(n int) []byte { return bytes.Repeat([]byte{1, 2, 3}, n) }

// FuzzNRRDHeader: whatever a header says, reading it and the volume it
// gives ends in a volume within the limits or an error, never a panic.
func FuzzNRRDHeader(f *testing.F) {
	f.Add("NRRD0004\ntype: short\ndimension: 3\nsizes: 6 5 4\nspacings: 1 1 2\nendian: little\nencoding: raw\n\n")
	f.Add("NRRD0004\ntype: float\ndimension: 4\nsizes: 1 6 5 4\nspace directions: none (1,0,0) (0,1,0) (0,0,2)\nendian: big\nencoding: gzip\ndata file: x.raw.gz\nbyte skip: -1\nline skip: 2\n")
	f.Fuzz(func(t *testing.T, header string) {
		h, err := readNRRDHeader(bufio.NewReader(strings.NewReader(header)))
		if err != nil {
			return
		}
		v, voxels, err := h.volume("/x/volume.nrrd")
		if err != nil {
			return
		}
		if v.W*v.H*v.D > MaxVolumeVoxels || max(v.W, v.H, v.D) > MaxVolumeSide || voxels.size() == 0 || voxels.offset < 0 || voxels.lines < 0 {
			t.Fatalf("%q: %d×%d×%d, %+v", header, v.W, v.H, v.D, voxels)
		}
	})
}

// A small compressed file whose header promises a billion voxels is
// refused for its short data before anything is made for the voxels: it
// made every node allocate a gigabyte first.
func TestAShortCompressedVolumeAllocatesNothingForItsHeader(t *testing.T) {
	dir := t.TempDir()
	var packed bytes.Buffer
	zw := gzip.NewWriter(&packed)
	zw.Write(make([]byte, 1000))
	zw.Close()
	for name, header := range map[string]string{
		"bytes.nrrd":  "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 1024 1024 1024\nencoding: gzip\n\n",
		"floats.nrrd": "NRRD0004\ntype: float\ndimension: 3\nsizes: 1024 1024 1024\nendian: little\nencoding: gzip\n\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, append([]byte(header), packed.Bytes()...), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := LoadVolume(path)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "the voxels' data ends early") {
			t.Errorf("%s: %v; want the data short", name, err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
			t.Errorf("%s: %d MB allocated for 1000 bytes of data", name, grown>>20)
		}
	}
}
