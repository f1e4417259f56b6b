package render

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
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

// LoadRawVolume reads an eVolve volume: path (*.raw) and its header,
// path + ".vhf".
func LoadRawVolume(path string) (*VolumeData, error) {
	v, bytes, err := statRawVolume(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	v.Values = make([]uint8, v.W*v.H*v.D)
	if bytes == 1 {
		if _, err := io.ReadFull(r, v.Values); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return v, nil
	}
	// the value is each voxel's fourth byte: read a run of voxels at a time
	run := make([]byte, 4<<16)
	for at := 0; at < len(v.Values); {
		n := min(len(run)/4, len(v.Values)-at)
		if _, err := io.ReadFull(r, run[:4*n]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i := range n {
			v.Values[at+i] = run[4*i+3]
		}
		at += n
	}
	return v, nil
}

// CheckRawVolume reads an eVolve volume's header and checks that its
// voxels' file has the size the header gives, without reading them.
func CheckRawVolume(path string) error {
	_, _, err := statRawVolume(path)
	return err
}

// statRawVolume reads path's header and checks the size of path, whose
// voxels take bytes each.
func statRawVolume(path string) (v *VolumeData, bytes int, err error) {
	hf, err := os.Open(path + ".vhf")
	if err != nil {
		return nil, 0, fmt.Errorf("volume header: %w", err)
	}
	defer hf.Close()
	if v, err = ReadVolumeHeader(hf); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path+".vhf", err)
	}
	bytes = 1
	if strings.HasSuffix(path, "_d.raw") {
		bytes = 4 // a gradient first: eVolve computes it itself otherwise, as here always
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if n := v.W * v.H * v.D; st.Size() != int64(n*bytes) {
		return nil, 0, fmt.Errorf("%s holds %d bytes; its header's %d×%d×%d voxels of %d byte(s) need %d", path, st.Size(), v.W, v.H, v.D, bytes, n*bytes)
	}
	return v, bytes, nil
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
