package render

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goeq/goeq/draw"
)

// vhf writes an eVolve header: dimensions, scales, and a transfer
// function of value v: (v, 255-v, 7, v/2).
func vhf(dims, scales string) string {
	var b strings.Builder
	for i, key := range []string{"w", "h", "d"} {
		fmt.Fprintf(&b, "%s=%s\n", key, strings.Fields(dims)[i])
	}
	for i, key := range []string{"wScale", "hScale", "dScale"} {
		fmt.Fprintf(&b, "%s=%s\n", key, strings.Fields(scales)[i])
	}
	b.WriteString("TF:\nsize=256\n")
	for v := range 256 {
		fmt.Fprintf(&b, "r=%d\ng=%d\nb=7\na=%d\n", v, 255-v, v/2)
	}
	return b.String()
}

// A header gives the box as eVolve fits it: the dimensions' proportions
// times the scales, the longest side from -1 to 1; and a colour and an
// opacity for each value.
func TestVolumeHeaderGivesTheBoxAndTheTransferFunction(t *testing.T) {
	for _, c := range []struct {
		dims, scales string
		want         [3]float64
	}{
		{"32 32 32", "1 1 1", [3]float64{1, 1, 1}},
		{"64 32 16", "1 1 1", [3]float64{1, 0.5, 0.25}},
		{"64 32 16", "1 1 8", [3]float64{0.5, 0.25, 1}}, // slices 8 times as far apart as voxels
	} {
		v, err := ReadVolumeHeader(strings.NewReader(vhf(c.dims, c.scales)))
		if err != nil {
			t.Fatalf("%s %s: %v", c.dims, c.scales, err)
		}
		if v.Extent != c.want {
			t.Errorf("%s, scales %s: box %v; want %v", c.dims, c.scales, v.Extent, c.want)
		}
		if v.Transfer[0] != [4]uint8{0, 255, 7, 0} || v.Transfer[200] != [4]uint8{200, 55, 7, 100} {
			t.Errorf("transfer function %v, %v", v.Transfer[0], v.Transfer[200])
		}
	}
}

// What eVolve would misread or reject is a clear error.
func TestABadVolumeHeaderIsRefused(t *testing.T) {
	good := vhf("4 4 4", "1 1 1")
	for _, c := range []struct{ text, want string }{
		{"", "it ends before w"},
		{strings.Replace(good, "h=4", "height=4", 1), `line 2: "height=4"; want h=`},
		{strings.Replace(good, "d=4", "d=0", 1), "line 3: d=0; want a whole number from 1 to 2048"},
		{strings.Replace(good, "w=4", "w=4096", 1), "line 1: w=4096; want a whole number from 1 to 2048"},
		{vhf("2048 2048 2048", "1 1 1"), "2048×2048×2048 voxels exceed the limit of 1073741824"},
		{strings.Replace(good, "dScale=1", "dScale=0", 1), "line 6: dScale=0; want a number of 0.001 or more"},
		{strings.Replace(good, "TF:", "TF", 1), `line 7: "TF"; want "TF:"`},
		{strings.Replace(good, "size=256", "size=128", 1), "line 8: size=128; want a whole number from 256 to 256 (a colour for each value)"},
		{strings.Replace(good, "a=100\n", "a=300\n", 1), "a=300; want a whole number from 0 to 255 (value 200's)"},
		{good[:len(good)-30], "it ends before"},
	} {
		if _, err := ReadVolumeHeader(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: %v; want %q", c.text, err, c.want)
		}
	}
}

// A volume's file holds one byte a voxel, or four in a *_d.raw, its
// value the fourth; a file of another size than its header gives is
// refused before anything is read.
func TestLoadRawVolumeReadsTheValues(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		os.WriteFile(path+".vhf", []byte(vhf("3 2 2", "1 1 1")), 0o644)
		return path
	}
	values := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	var derived []byte
	for _, v := range values {
		derived = append(derived, 128, 255-v, 3, v)
	}
	for _, path := range []string{write("plain.raw", values), write("plain_d.raw", derived)} {
		v, err := LoadVolume(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(v.Values, widened(values)) {
			t.Errorf("%s: values %v; want %v", filepath.Base(path), v.Values, widened(values))
		}
	}
	short := write("short_d.raw", values)
	if err := CheckVolume(short); err == nil || !strings.Contains(err.Error(), "holds 12 bytes; its header's 3×2×2 voxels of 4 byte(s) need 48") {
		t.Errorf("a file too short: %v", err)
	}
	os.Remove(short + ".vhf")
	if _, err := LoadVolume(short); err == nil || !strings.Contains(err.Error(), "volume header: open "+short+".vhf") ||
		!strings.Contains(err.Error(), "NAME_WxHxD_TYPE.raw") || !strings.Contains(err.Error(), "NRRD (.nrrd, .nhdr), MetaImage (.mha, .mhd), VTK images (.vti, .pvti, .vtk), NIfTI (.nii, .nii.gz, or .hdr and .img), TIFF stacks (.tif, or a folder of TIFF or PNG slices) and DICOM series") {
		t.Errorf("no header: %v", err)
	}
}

// A volume named as the Open SciVis datasets are, NAME_WxHxD_TYPE.raw,
// loads without a header: its numbers, of any of their types, scaled
// from the least to the greatest onto 0..65535 (what is no number shows as
// the least), in cubic voxels and the default transfer function. A
// header beside it still rules.
func TestAVolumeNamedWithItsSizeNeedsNoHeader(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// 4×2×1 voxels: the values -100, 0, ..., 600 in each type that holds them
	numbers := []float64{-100, 0, 100, 200, 300, 400, 500, 600}
	var want []uint16
	for _, x := range numbers {
		want = append(want, uint16(math.Round((x+100)*65535/700)))
	}
	encode := map[string]func(x float64) []byte{
		"int16":   func(x float64) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(int16(x))) },
		"int32":   func(x float64) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(int32(x))) },
		"float32": func(x float64) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(x))) },
		"float64": func(x float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)) },
		"uint16":  func(x float64) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(x+100)) },
		"uint32":  func(x float64) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(x+100)) },
		"int8":    func(x float64) []byte { return []byte{byte(int8(x / 5))} },
	}
	for kind, enc := range encode {
		var data []byte
		for _, x := range numbers {
			data = append(data, enc(x)...)
		}
		v, err := LoadVolume(write("ramp_4x2x1_"+kind+".raw", data))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !slices.Equal(v.Values, want) {
			t.Errorf("%s: values %v; want %v", kind, v.Values, want)
		}
		if v.W != 4 || v.H != 2 || v.D != 1 || v.Extent != [3]float64{1, 0.5, 0.25} || v.Transfer != DefaultTransfer() {
			t.Errorf("%s: %d×%d×%d, box %v", kind, v.W, v.H, v.D, v.Extent)
		}
	}
	bytes := []byte{0, 10, 20, 30, 40, 50, 60, 70}
	if v, err := LoadVolume(write("bytes_4x2x1_uint8.raw", bytes)); err != nil || !slices.Equal(v.Values, widened(bytes)) {
		t.Errorf("uint8, as they are: %v, %v", v, err)
	}
	var odd []byte
	for _, x := range []float32{float32(math.NaN()), 1, float32(math.Inf(1)), 3} {
		odd = binary.LittleEndian.AppendUint32(odd, math.Float32bits(x))
	}
	if v, err := LoadVolume(write("odd_2x2x1_float32.raw", odd)); err != nil || !slices.Equal(v.Values, []uint16{0, 0, 0, 65535}) {
		t.Errorf("float32 with NaN and Inf: %v, %v", v, err)
	}
	headed := write("headed_3x2x2_uint16.raw", make([]byte, 12))
	os.WriteFile(headed+".vhf", []byte(vhf("3 2 2", "1 1 1")), 0o644)
	if v, err := LoadVolume(headed); err != nil || v.Transfer[200] != [4]uint8{200, 55, 7, 100} {
		t.Errorf("a header beside a named volume is not what rules: %v", err)
	}
	for name, want := range map[string]string{
		"short_4x2x2_uint16.raw":        "holds 8 bytes; its name's 4×2×2 voxels of 2 byte(s) need 32",
		"bad_4x2x1_float16.raw":         `voxel type "float16"; want uint8`,
		"big_4096x2x1_uint8.raw":        "side 4096; want a whole number from 1 to 2048",
		"huge_2048x2048x2048_uint8.raw": "2048×2048×2048 voxels exceed the limit",
	} {
		if err := CheckVolume(write(name, make([]byte, 8))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
}

// Slabs blend farthest from the eye first: from the side, the eye's plane
// across the slabs between them, those on each side of it are ordered
// towards it, and the slab it crosses comes last.
func TestSlabsBlendFarthestFromTheEyeFirst(t *testing.T) {
	ranges := []draw.Range{{Start: 0, End: 0.25}, {Start: 0.25, End: 0.5}, {Start: 0.5, End: 0.75}, {Start: 0.75, End: 1}}
	for _, c := range []struct {
		name  string
		model draw.Mat4
		want  []int
	}{
		// the eye at z 3 in the model's space: the slabs of lower z are farther
		{"in front", draw.Translate(0, 0, -3), []int{0, 1, 2, 3}},
		{"behind", draw.Translate(0, 0, -3).Mul(draw.RotateY(math.Pi)), []int{3, 2, 1, 0}},
		// turned 80° about y: the eye at z 3·cos 80° = 0.52, in slab 3
		{"from the side", draw.Translate(0, 0, -3).Mul(draw.RotateY(80 * math.Pi / 180)), []int{0, 1, 2, 3}},
		// at z 3·cos 85° = 0.26, in slab 2: slab 3 lies nearer
		{"from the side, nearer the middle", draw.Translate(0, 0, -3).Mul(draw.RotateY(85 * math.Pi / 180)), []int{0, 1, 3, 2}},
		{"from the other side", draw.Translate(0, 0, -3).Mul(draw.RotateY(95 * math.Pi / 180)), []int{3, 2, 0, 1}},
	} {
		v := NewVolume()
		model := c.model
		v.Place = func(*draw.Context) (draw.Mat4, bool) { return model, false }
		if got := v.BackToFront(&draw.Context{View: draw.Identity}, ranges); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v; want %v", c.name, got, c.want)
		}
	}
}

// A volume, its header or its data file that is a named pipe is refused
// before anything is read: every node waited on it for a writer.
func TestAVolumeFromANamedPipeIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	os.WriteFile(filepath.Join(dir, "headed.raw"), make([]byte, 12), 0o644)
	fifo("headed.raw.vhf")
	os.WriteFile(filepath.Join(dir, "detached.nhdr"), []byte("NRRD0004\ntype: uchar\ndimension: 3\nsizes: 3 2 2\nencoding: gzip\ndata file: data.raw.gz\n"), 0o644)
	fifo("data.raw.gz")
	for _, c := range []struct{ path, want string }{
		{fifo("pipe_3x2x2_uint8.raw"), "pipe_3x2x2_uint8.raw is a named pipe, not a file"},
		{fifo("pipe.nrrd"), "pipe.nrrd is a named pipe, not a file"},
		{filepath.Join(dir, "headed.raw"), "volume header: " + filepath.Join(dir, "headed.raw.vhf") + " is a named pipe, not a file"},
		{filepath.Join(dir, "detached.nhdr"), "data.raw.gz is a named pipe, not a file"},
	} {
		done := make(chan error, 1)
		go func() { done <- CheckVolume(c.path) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v; want %q", filepath.Base(c.path), err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still waiting on the pipe after 10 s", filepath.Base(c.path))
		}
	}
}

// widened is bytes as a volume's values hold them.
func widened(bytes []byte) []uint16 {
	values := make([]uint16, len(bytes))
	for i, b := range bytes {
		values[i] = 257 * uint16(b)
	}
	return values
}

// A CT scan's 12 bits stay 12 bits: 4096 values in a 16-bit file load as
// 4096 values, in order (scaled onto bytes, 16 of them made each one, and
// a transfer function's narrow window showed steps).
func TestAVolumeKeepsItsValuesFinerThanBytes(t *testing.T) {
	var data []byte
	for i := range 4096 {
		data = binary.LittleEndian.AppendUint16(data, uint16(i))
	}
	path := filepath.Join(t.TempDir(), "ct_16x16x16_uint16.raw")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := LoadVolume(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(v.Values); i++ {
		if v.Values[i] <= v.Values[i-1] {
			t.Fatalf("values %d and %d load as %d and %d: no longer apart", i-1, i, v.Values[i-1], v.Values[i])
		}
	}
}
