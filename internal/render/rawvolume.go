package render

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// VolumeData is a volume in eVolve's files, as Equalizer's eVolve reads
// them: FILE.raw holds w×h×d voxels, x fastest, then y (upwards), then z
// (towards the eye), one byte each, or four (a gradient, then the value)
// in a file named *_d.raw; FILE.raw.vhf holds the dimensions, each axis's
// scale and a transfer function of a colour and opacity for each value.
type VolumeData struct {
	W, H, D int
	Values  []uint8 // W*H*D, the voxels' values
	// Extent is the box's half size on each axis: the volume fills
	// [-Extent, Extent], its longest side from -1 to 1 (as eVolve fits it).
	Extent [3]float64
	// Transfer is each value's colour and opacity, not premultiplied; an
	// opacity is for a step of about a voxel (eVolve's slices).
	Transfer [256][4]uint8
}

// MaxVolumeSide is the most voxels along a volume's side (what GL's 3D
// textures take at the least), and MaxVolumeVoxels the most in all.
const (
	MaxVolumeSide   = 2048
	MaxVolumeVoxels = 1 << 30
)

// LoadRawVolume reads a volume: eVolve's, path (*.raw) and its header
// path + ".vhf"; or, with no header beside it, a file named as the Open
// SciVis datasets are, NAME_WxHxD_TYPE.raw (bonsai_256x256x256_uint8.raw),
// whose name gives its size and its voxels' type.
func LoadRawVolume(path string) (*VolumeData, error) {
	v, voxel, err := statRawVolume(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v.Values = make([]uint8, v.W*v.H*v.D)
	if err := voxel.read(f, v.Values); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// CheckRawVolume reads a volume's header, or its name, and checks that
// its voxels' file has the size they give, without reading them.
func CheckRawVolume(path string) error {
	_, _, err := statRawVolume(path)
	return err
}

// statRawVolume reads path's header (or its name) and checks the size of
// path, whose voxels are as voxel gives.
func statRawVolume(path string) (v *VolumeData, voxel voxelType, err error) {
	hf, openErr := os.Open(path + ".vhf")
	switch {
	case openErr == nil:
		defer hf.Close()
		if v, err = ReadVolumeHeader(hf); err != nil {
			return nil, voxelType{}, fmt.Errorf("%s: %w", path+".vhf", err)
		}
		voxel = evolveValue
		if strings.HasSuffix(path, "_d.raw") {
			voxel = evolveDerived // a gradient first: eVolve computes it itself otherwise, as here always
		}
	case errors.Is(openErr, fs.ErrNotExist):
		var named bool
		if v, voxel, named, err = volumeFromName(filepath.Base(path)); !named {
			return nil, voxelType{}, fmt.Errorf("volume header: %w; with no header, the file's name gives its size and type, as the Open SciVis datasets' do: NAME_WxHxD_TYPE.raw (bonsai_256x256x256_uint8.raw; TYPE uint8, int8, uint16, int16, uint32, int32, float32 or float64)", openErr)
		}
		if err != nil {
			return nil, voxelType{}, err
		}
	default:
		return nil, voxelType{}, fmt.Errorf("volume header: %w", openErr)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, voxelType{}, err
	}
	if n := v.W * v.H * v.D; st.Size() != int64(n*voxel.size) {
		return nil, voxelType{}, fmt.Errorf("%s holds %d bytes; its %s's %d×%d×%d voxels of %d byte(s) need %d", path, st.Size(), voxel.source, v.W, v.H, v.D, voxel.size, n*voxel.size)
	}
	return v, voxel, nil
}

// voxelType is how a file holds its voxels, and what gave it.
type voxelType struct {
	size   int    // bytes a voxel
	kind   string // an Open SciVis type name; "" for eVolve's bytes
	source string // "header" or "name"
}

var (
	evolveValue   = voxelType{size: 1, source: "header"}
	evolveDerived = voxelType{size: 4, source: "header"}
	namedTypes    = map[string]int{"uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 4, "int32": 4, "float32": 4, "float64": 8}
	volumeName    = regexp.MustCompile(`_(\d+)x(\d+)x(\d+)_([a-z]+\d+)\.raw$`)
)

// volumeFromName reads a volume's size and type from its file's name,
// NAME_WxHxD_TYPE.raw; named is false for a name of another form. With
// no header to give one, the transfer function is DefaultTransfer's and
// the voxels are cubes.
func volumeFromName(name string) (v *VolumeData, voxel voxelType, named bool, err error) {
	m := volumeName.FindStringSubmatch(name)
	if m == nil {
		return nil, voxelType{}, false, nil
	}
	size, ok := namedTypes[m[4]]
	if !ok {
		return nil, voxelType{}, true, fmt.Errorf("%s: voxel type %q; want uint8, int8, uint16, int16, uint32, int32, float32 or float64", name, m[4])
	}
	v = &VolumeData{Transfer: DefaultTransfer()}
	for i, dim := range []*int{&v.W, &v.H, &v.D} {
		n, err := strconv.Atoi(m[1+i])
		if err != nil || n < 1 || n > MaxVolumeSide {
			return nil, voxelType{}, true, fmt.Errorf("%s: side %s; want a whole number from 1 to %d", name, m[1+i], MaxVolumeSide)
		}
		*dim = n
	}
	if n := v.W * v.H * v.D; n > MaxVolumeVoxels {
		return nil, voxelType{}, true, fmt.Errorf("%s: %d×%d×%d voxels exceed the limit of %d", name, v.W, v.H, v.D, MaxVolumeVoxels)
	}
	longest := float64(max(v.W, v.H, v.D))
	for i, n := range []int{v.W, v.H, v.D} {
		v.Extent[i] = float64(n) / longest
	}
	return v, voxelType{size: size, kind: m[4], source: "name"}, true, nil
}

// DefaultTransfer is the transfer function of a volume that has none: a
// grey ramp, the lowest values (air, noise) clear and opacity growing
// with the square of the value, so that the densest parts show through
// what surrounds them.
func DefaultTransfer() [256][4]uint8 {
	var tf [256][4]uint8
	const clear = 16
	for v := range 256 {
		a := 0.0
		if v > clear {
			x := float64(v-clear) / (255 - clear)
			a = 96 * x * x
		}
		tf[v] = [4]uint8{uint8(v), uint8(v), uint8(v), uint8(math.Round(a))}
	}
	return tf
}

// read fills values from r, one value a voxel: eVolve's bytes as they are
// (a derived voxel's fourth), a named type's numbers scaled from their
// smallest to their largest onto 0..255, which takes two passes over r.
func (t voxelType) read(r io.ReadSeeker, values []uint8) error {
	switch t {
	case evolveValue:
		_, err := io.ReadFull(bufio.NewReaderSize(r, 1<<20), values)
		return err
	case evolveDerived:
		return eachRun(r, 4, len(values), func(at int, run []byte) {
			for i := range len(run) / 4 {
				values[at+i] = run[4*i+3]
			}
		})
	}
	if t.kind == "uint8" {
		_, err := io.ReadFull(bufio.NewReaderSize(r, 1<<20), values)
		return err
	}
	decode := t.decoder()
	lo, hi := math.Inf(1), math.Inf(-1)
	err := eachRun(r, t.size, len(values), func(_ int, run []byte) {
		for i := 0; i < len(run); i += t.size {
			if x := decode(run[i:]); !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	})
	if err != nil {
		return err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	scale := 0.0
	if hi > lo {
		scale = 255 / (hi - lo)
	}
	return eachRun(r, t.size, len(values), func(at int, run []byte) {
		for i := 0; i < len(run); i += t.size {
			x := decode(run[i:])
			if math.IsNaN(x) || math.IsInf(x, 0) {
				x = lo // what is no number shows as the least
			}
			values[at+i/t.size] = uint8(min(max(math.Round((x-lo)*scale), 0), 255))
		}
	})
}

// decoder decodes one little-endian value of the type, as the Open SciVis
// datasets store them.
func (t voxelType) decoder() func(b []byte) float64 {
	le := binary.LittleEndian
	switch t.kind {
	case "int8":
		return func(b []byte) float64 { return float64(int8(b[0])) }
	case "uint16":
		return func(b []byte) float64 { return float64(le.Uint16(b)) }
	case "int16":
		return func(b []byte) float64 { return float64(int16(le.Uint16(b))) }
	case "uint32":
		return func(b []byte) float64 { return float64(le.Uint32(b)) }
	case "int32":
		return func(b []byte) float64 { return float64(int32(le.Uint32(b))) }
	case "float32":
		return func(b []byte) float64 { return float64(math.Float32frombits(le.Uint32(b))) }
	case "float64":
		return func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) }
	}
	return func(b []byte) float64 { return float64(b[0]) }
}

// eachRun reads n voxels of size bytes from r a run at a time, giving
// each run with the index of its first voxel.
func eachRun(r io.Reader, size, n int, use func(at int, run []byte)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	run := make([]byte, size<<16)
	for at := 0; at < n; {
		k := min(len(run)/size, n-at)
		if _, err := io.ReadFull(br, run[:k*size]); err != nil {
			return err
		}
		use(at, run[:k*size])
		at += k
	}
	return nil
}

// ReadVolumeHeader reads an eVolve header (.vhf): lines w=, h=, d=,
// wScale=, hScale=, dScale=, then TF:, size=256 and r=, g=, b=, a= for
// each value from 0 to 255. The scales multiply the dimensions' own
// proportions.
func ReadVolumeHeader(r io.Reader) (*VolumeData, error) {
	sc := bufio.NewScanner(r)
	line := 0
	// next reads the next line that is not blank: want=VALUE
	next := func(want string) (string, error) {
		for sc.Scan() {
			line++
			text := strings.TrimSpace(sc.Text())
			if text == "" {
				continue
			}
			key, value, ok := strings.Cut(text, "=")
			if want == "TF:" {
				if text != want {
					return "", fmt.Errorf("line %d: %q; want \"TF:\"", line, text)
				}
				return "", nil
			}
			if !ok || strings.TrimSpace(key) != want {
				return "", fmt.Errorf("line %d: %q; want %s=", line, text, want)
			}
			return strings.TrimSpace(value), nil
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("it ends before %s", want)
	}
	integer := func(key string, lo, hi int) (int, error) {
		s, err := next(key)
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("line %d: %s=%s; want a whole number from %d to %d", line, key, s, lo, hi)
		}
		return n, nil
	}
	v := &VolumeData{}
	var err error
	for i, key := range []string{"w", "h", "d"} {
		dim := [3]*int{&v.W, &v.H, &v.D}[i]
		if *dim, err = integer(key, 1, MaxVolumeSide); err != nil {
			return nil, err
		}
	}
	if n := v.W * v.H * v.D; n > MaxVolumeVoxels {
		return nil, fmt.Errorf("%d×%d×%d voxels exceed the limit of %d", v.W, v.H, v.D, MaxVolumeVoxels)
	}
	var scale [3]float64
	for i, key := range []string{"wScale", "hScale", "dScale"} {
		s, err := next(key)
		if err != nil {
			return nil, err
		}
		x, err := strconv.ParseFloat(s, 64)
		// eVolve's own bound: a smaller scale flattens the volume away
		if err != nil || !(x >= 0.001) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("line %d: %s=%s; want a number of 0.001 or more", line, key, s)
		}
		scale[i] = x
	}
	// the dimensions' proportions times the scales, the largest 1
	longest := float64(max(v.W, v.H, v.D))
	for i, n := range []int{v.W, v.H, v.D} {
		scale[i] *= float64(n) / longest
	}
	top := max(scale[0], scale[1], scale[2])
	for i := range scale {
		v.Extent[i] = scale[i] / top
	}
	if _, err := next("TF:"); err != nil {
		return nil, err
	}
	if _, err := integer("size", 256, 256); err != nil {
		return nil, fmt.Errorf("%w (a colour for each value)", err)
	}
	for value := range 256 {
		for c, key := range []string{"r", "g", "b", "a"} {
			x, err := integer(key, 0, 255)
			if err != nil {
				return nil, fmt.Errorf("%w (value %d's)", err, value)
			}
			v.Transfer[value][c] = uint8(x)
		}
	}
	return v, nil
}
