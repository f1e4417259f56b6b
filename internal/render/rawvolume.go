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

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"

	"github.com/goeq/goeq/internal/bounded"
)

// VolumeData is a volume in eVolve's files, as Equalizer's eVolve reads
// them: FILE.raw holds w×h×d voxels, x fastest, then y (upwards), then z
// (towards the eye), one byte each, or four (a gradient, then the value)
// in a file named *_d.raw; FILE.raw.vhf holds the dimensions, each axis's
// scale and a transfer function of a colour and opacity for each value.
type VolumeData struct {
	W, H, D int
	// Values are the W*H*D voxels' values, 0 to 65535: a byte's value v
	// as 257·v, wider numbers scaled from their least to their greatest
	// (16 bits keep a CT scan's 12 and the shading's gradients smooth).
	Values []uint16
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

// Volume header bounds: a header is a few hundred bytes; what has no line
// end that soon, or goes on longer, is no header.
const (
	maxVolumeHeaderLine = 64 << 10
	maxVolumeHeader     = 1 << 20
)

// headerLines reads a volume header's lines, each within
// maxVolumeHeaderLine, the whole within maxVolumeHeader: a binary file or
// a device is no header, and is not read until memory runs out.
type headerLines struct {
	r      *bufio.Reader
	format string // what the header is, for errors: "NRRD"
	endsAt string // what ends it, for errors: "ElementDataFile"
	line   int    // the last line read, from 1
	size   int64  // the bytes read, line ends and all
}

// next is the next line without its line end; at the input's end it is
// the last line, if any, with io.EOF.
func (h *headerLines) next() (string, error) {
	text, err := bounded.ReadLine(h.r, maxVolumeHeaderLine)
	if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
		return "", fmt.Errorf("line %d is longer than %d bytes: not a %s header", h.line+1, maxVolumeHeaderLine, h.format)
	}
	if err != nil && err != io.EOF {
		return "", err
	}
	h.line++
	h.size += int64(len(text))
	if h.size > maxVolumeHeader {
		return "", fmt.Errorf("the header goes on past %d bytes with no %s", maxVolumeHeader, h.endsAt)
	}
	return strings.TrimRight(string(text), "\r\n"), err
}

// quoteShort is the start of a line to quote in an error: a binary
// file's bytes quoted take four characters each.
func quoteShort(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// beside is the file a header names: name, or where it is relative, in
// the header's folder.
func beside(header, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(header), name)
}

// checkSpacing refuses voxels far flatter than wide (eVolve's own bound
// on its scales): the volume would be flattened away.
func checkSpacing(spacing [3]float64) error {
	if longest := max(spacing[0], spacing[1], spacing[2]); min(spacing[0], spacing[1], spacing[2]) < longest/1000 {
		return errors.New("an axis more than 1000 times closer than another")
	}
	return nil
}

// LoadVolume reads a volume: eVolve's, path (*.raw) and its header
// path + ".vhf"; a NRRD file (*.nrrd, or a detached header *.nhdr and the
// data file it names), as Teem, 3D Slicer and ParaView write them; a
// MetaImage (*.mha, or a header *.mhd and its data file), as ITK and VTK
// write them; a VTK image (*.vti, a parallel one's pieces listed in a
// *.pvti, or legacy structured points *.vtk); a NIfTI volume (*.nii,
// *.nii.gz, or a pair *.hdr and *.img, Analyze 7.5's too), as
// neuroimaging tools write them; a TIFF stack (*.tif of a page a slice,
// or path a folder of TIFF or PNG slices), as microscopes, ImageJ and CT
// reconstructions write them; a DICOM series, as CT and
// MR scanners write them (path a folder of slices, or one of its files,
// *.dcm or of no extension: the folder's files of its series); or,
// with no header beside it, a raw file named as the Open SciVis datasets
// are, NAME_WxHxD_TYPE.raw (bonsai_256x256x256_uint8.raw), whose name
// gives its size and its voxels' type.
func LoadVolume(path string) (*VolumeData, error) {
	v, voxels, err := statVolume(path)
	if err != nil {
		return nil, err
	}
	if v.Values, err = voxels.read(v.W * v.H * v.D); err != nil {
		return nil, err
	}
	return v, nil
}

// voxelSource reads a volume's values: from one file (voxelFile), or
// from the pieces of an image (vtiPieces).
type voxelSource interface {
	read(n int) ([]uint16, error)
}

// CheckVolume reads a volume's header, or its name, and checks that its
// voxels' file is there, of the size they give where it can tell without
// reading them.
func CheckVolume(path string) error {
	_, _, err := statVolume(path)
	return err
}

// statVolume reads path's header (or its name) and checks what it can of
// the voxels' file without reading it.
func statVolume(path string) (*VolumeData, voxelSource, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if holdsSlices(path) {
			return statTIFF(path)
		}
		return statDICOM(path)
	}
	if err := regular(path); err != nil {
		return nil, nil, err
	}
	if isTIFFName(path) {
		return statTIFF(path)
	}
	if isNIfTIName(path) {
		return statNIfTI(path)
	}
	if hdr, ok := niftiPairHeader(path); ok {
		return statNIfTI(hdr)
	}
	var stat func(string) (*VolumeData, voxelFile, error)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dcm", ".dicom":
		return statDICOM(path)
	case ".nrrd", ".nhdr":
		stat = statNRRD
	case ".mha", ".mhd":
		stat = statMetaImage
	case ".vti":
		stat = statVTI
	case ".vtk":
		stat = statLegacyVTK
	case ".pvti":
		return statPVTI(path)
	default:
		if isDICOM(path) { // a scanner's files have no extension
			return statDICOM(path)
		}
		stat = statRaw
	}
	v, voxels, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	return v, voxels, nil
}

// statRaw reads an eVolve volume's header, or the name of a volume that
// has none.
func statRaw(path string) (*VolumeData, voxelFile, error) {
	var v *VolumeData
	voxels := voxelFile{path: path, kind: scalarUint8, order: binary.LittleEndian, source: "header"}
	openErr := regular(path + ".vhf")
	var hf *os.File
	if openErr == nil {
		hf, openErr = os.Open(path + ".vhf")
	}
	switch {
	case openErr == nil:
		defer hf.Close()
		var err error
		if v, err = ReadVolumeHeader(hf); err != nil {
			return nil, voxelFile{}, fmt.Errorf("%s: %w", path+".vhf", err)
		}
		if strings.HasSuffix(path, "_d.raw") {
			voxels.derived = true // a gradient first: eVolve computes it itself otherwise, as here always
		}
	case errors.Is(openErr, fs.ErrNotExist):
		nv, named, err := volumeFromName(filepath.Base(path))
		if !named {
			return nil, voxelFile{}, fmt.Errorf("volume header: %w; with no header, the file's name gives its size and type, as the Open SciVis datasets' do: NAME_WxHxD_TYPE.raw (bonsai_256x256x256_uint8.raw; TYPE uint8, int8, uint16, int16, uint32, int32, float32 or float64). goeq reads those, eVolve's FILE.raw with FILE.raw.vhf, NRRD (.nrrd, .nhdr), MetaImage (.mha, .mhd), VTK images (.vti, .pvti, .vtk), NIfTI (.nii, .nii.gz, or .hdr and .img), TIFF stacks (.tif, or a folder of TIFF or PNG slices) and DICOM series (a folder, or one of its files)", openErr)
		}
		if err != nil {
			return nil, voxelFile{}, err
		}
		v, voxels.kind, voxels.source = nv.volume, nv.kind, "name"
	default:
		return nil, voxelFile{}, fmt.Errorf("volume header: %w", openErr)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, voxelFile{}, err
	}
	if n := int64(v.W * v.H * v.D); st.Size() != n*int64(voxels.size()) {
		return nil, voxelFile{}, fmt.Errorf("%s holds %d bytes; its %s's %d×%d×%d voxels of %d byte(s) need %d", path, st.Size(), voxels.source, v.W, v.H, v.D, voxels.size(), n*int64(voxels.size()))
	}
	return v, voxels, nil
}

// voxelFile is where a volume's voxels are and how they are held.
type voxelFile struct {
	path   string
	offset int64 // bytes before the voxels: an attached header, a byte skip
	lines  int   // lines before them (NRRD's line skip), after offset
	kind   scalarKind
	// derived: eVolve's *_d.raw voxels, a gradient's three bytes, then
	// the value
	derived  bool
	order    binary.ByteOrder
	encoding voxelEncoding
	vtk      *vtkBlocks // with vtkVoxels: how the blocks are held
	tiff     *tiffStack // with tiffVoxels: the pages
	// inflatedSkip is the bytes before the voxels in a compressed
	// stream (a NIfTI's header, inside its gzip)
	inflatedSkip int64
	// slope scales the numbers stored to the numbers meant (NIfTI's
	// scl_slope; -1 for TIFF's white is zero): its sign orders them.
	// An intercept would shift all alike, which their scaling onto 16
	// bits undoes. 0 leaves them as stored.
	slope float64
	// reverseRuns, where not 0, takes the voxels' runs of this many (a
	// slice, or a row) in reverse order: a grid its file says is
	// left-handed, or whose rows run down, shown unmirrored.
	reverseRuns int
	source      string // what gave the layout: "header" or "name"
}

// voxelEncoding is how a file holds its voxels' numbers.
type voxelEncoding uint8

const (
	rawVoxels   voxelEncoding = iota
	gzipVoxels                // a gzip stream (NRRD's gzip)
	zlibVoxels                // a zlib stream (MetaImage's compressed data)
	asciiVoxels               // text, apart by white space
	vtkVoxels                 // VTK XML's header and blocks
	tiffVoxels                // a TIFF stack's pages (path is the file or folder)
)

var (
	volumeName = regexp.MustCompile(`_(\d+)x(\d+)x(\d+)_([a-z]+\d+)\.raw$`)
	// the Open SciVis datasets' type names
	namedTypes = map[string]scalarKind{"uint8": scalarUint8, "int8": scalarInt8, "uint16": scalarUint16, "int16": scalarInt16,
		"uint32": scalarUint32, "int32": scalarInt32, "float32": scalarFloat32, "float64": scalarFloat64}
)

// place checks that the voxels' file is there and, where their bytes are
// raw, holds v's voxels after offset; atEnd, they end the file, and
// offset is set so.
func (f *voxelFile) place(v *VolumeData, atEnd bool) error {
	if err := regular(f.path); err != nil {
		return err
	}
	st, err := os.Stat(f.path)
	if err != nil || f.encoding != rawVoxels || f.lines > 0 {
		return err // what the file's size says of the voxels is not known
	}
	need := int64(v.W*v.H*v.D) * int64(f.size())
	if atEnd {
		f.offset = st.Size() - need
	}
	if f.offset < 0 || st.Size()-f.offset < need {
		return fmt.Errorf("%s holds %d bytes; its header's %d×%d×%d voxels of %d byte(s) need %d after the %d before them",
			f.path, st.Size(), v.W, v.H, v.D, f.size(), need, max(f.offset, 0))
	}
	return nil
}

// regular refuses a path that is there but no regular file: every node
// would wait on a named pipe for a writer, or read a device without end.
func regular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // what opening it says, it says
	}
	if kind := bounded.Special(st.Mode()); kind != "" {
		return fmt.Errorf("%s is a %s, not a file: every node reads the volume from files", path, kind)
	}
	return nil
}

// size is the bytes a voxel takes in a binary file.
func (f voxelFile) size() int {
	if f.derived {
		return 4
	}
	return f.kind.size()
}

// namedVolume is what a file's name gives of its volume.
type namedVolume struct {
	volume *VolumeData
	kind   scalarKind
}

// volumeFromName reads a volume's size and type from its file's name,
// NAME_WxHxD_TYPE.raw; named is false for a name of another form. With
// no header to give one, the transfer function is DefaultTransfer's and
// the voxels are cubes.
func volumeFromName(name string) (nv namedVolume, named bool, err error) {
	m := volumeName.FindStringSubmatch(name)
	if m == nil {
		return namedVolume{}, false, nil
	}
	kind, ok := namedTypes[m[4]]
	if !ok {
		return namedVolume{}, true, fmt.Errorf("%s: voxel type %q; want uint8, int8, uint16, int16, uint32, int32, float32 or float64", name, m[4])
	}
	var dims [3]int
	for i := range dims {
		n, err := strconv.Atoi(m[1+i])
		if err != nil || n < 1 || n > MaxVolumeSide {
			return namedVolume{}, true, fmt.Errorf("%s: side %s; want a whole number from 1 to %d", name, m[1+i], MaxVolumeSide)
		}
		dims[i] = n
	}
	v, err := newVolume(dims, [3]float64{1, 1, 1})
	if err != nil {
		return namedVolume{}, true, fmt.Errorf("%s: %w", name, err)
	}
	return namedVolume{volume: v, kind: kind}, true, nil
}

// newVolume is a volume of the dimensions given, its voxels spaced so on
// each axis, in the default transfer function: the box as eVolve fits it,
// its longest side from -1 to 1.
func newVolume(dims [3]int, spacing [3]float64) (*VolumeData, error) {
	v := &VolumeData{W: dims[0], H: dims[1], D: dims[2], Transfer: DefaultTransfer()}
	if min(v.W, v.H, v.D) < 1 || max(v.W, v.H, v.D) > MaxVolumeSide {
		return nil, fmt.Errorf("%d×%d×%d voxels: want sides from 1 to %d", v.W, v.H, v.D, MaxVolumeSide)
	}
	if n := v.W * v.H * v.D; n > MaxVolumeVoxels {
		return nil, fmt.Errorf("%d×%d×%d voxels exceed the limit of %d", v.W, v.H, v.D, MaxVolumeVoxels)
	}
	var size [3]float64
	for i := range size {
		size[i] = float64(dims[i]) * spacing[i]
	}
	longest := max(size[0], size[1], size[2])
	for i := range size {
		v.Extent[i] = size[i] / longest
	}
	return v, nil
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

// read reads n voxels' values: bytes as they are (eVolve's, a derived
// voxel's fourth), widened, other types' numbers scaled from their
// smallest to their largest, which takes two passes over the file. The
// values are allocated once the data are known to hold them all: a small
// compressed file whose header promises a billion voxels made every node
// allocate them before it found the data short.
func (f voxelFile) read(n int) ([]uint16, error) {
	values, err := f.values(n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	reverseRuns(values, f.reverseRuns)
	return values, nil
}

// reverseRuns puts values' runs of run values in reverse order (none
// where run is 0).
func reverseRuns(values []uint16, run int) {
	if run <= 0 {
		return
	}
	for a, b := 0, len(values)-run; a < b; a, b = a+run, b-run {
		for i := range run {
			values[a+i], values[b+i] = values[b+i], values[a+i]
		}
	}
}

// leftHanded says whether a grid's axes, the columns of m, make a
// left-handed frame: shown in goeq's right-handed one as they are, the
// volume would be mirrored.
func leftHanded(m [3][3]float64) bool {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	return det < 0
}

func (f voxelFile) values(n int) ([]uint16, error) {
	if f.derived || f.kind == scalarUint8 && f.encoding != asciiVoxels && f.slope == 0 {
		sized := f.encoding == rawVoxels && f.lines == 0 // its file's size was checked
		if !sized {
			if err := f.pass(n, func(int, float64) {}); err != nil {
				return nil, err
			}
		}
		values := make([]uint16, n)
		r, done, err := f.open()
		if err != nil {
			return nil, err
		}
		defer done()
		if f.derived {
			return values, endedEarly(eachRun(r, 4, n, func(at int, run []byte) {
				for i := range len(run) / 4 {
					values[at+i] = byteValue * uint16(run[4*i+3])
				}
			}))
		}
		return values, endedEarly(eachRun(r, 1, n, func(at int, run []byte) {
			for i, b := range run {
				values[at+i] = byteValue * uint16(b)
			}
		}))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	err := f.pass(n, func(_ int, x float64) {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = min(lo, x), max(hi, x)
		}
	})
	if err != nil {
		return nil, err
	}
	scale := valueScale(lo, hi)
	values := make([]uint16, n)
	return values, f.pass(n, func(i int, x float64) {
		values[i] = scaledValue(x, lo, scale)
	})
}

// byteValue is a byte's step in a volume's values: 0 to 255 onto 0 to
// 65535.
const byteValue = 257

// valueScale is what takes numbers from lo to hi onto a volume's values.
func valueScale(lo, hi float64) float64 {
	if hi > lo {
		return math.MaxUint16 / (hi - lo)
	}
	return 0
}

// scaledValue is x's value, lo at 0 and scale a value per unit; what is no
// number shows as the least.
func scaledValue(x, lo, scale float64) uint16 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return uint16(min(max(math.Round((x-lo)*scale), 0), math.MaxUint16))
}

// pass reads the file from the voxels' start, giving use each of n
// voxels' values in order.
func (f voxelFile) pass(n int, use func(i int, x float64)) error {
	r, done, err := f.open()
	if err != nil {
		return err
	}
	defer done()
	return f.scan(r, n, use)
}

// endedEarly is the error of a read of the voxels that stopped at err:
// one that ran out says so.
func endedEarly(err error) error {
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return errors.New("the voxels' data ends early")
	}
	return err
}

// open opens the voxels' file at the voxels' start, inflating it where it
// is compressed; done closes it.
func (f voxelFile) open() (r io.Reader, done func(), err error) {
	if f.encoding == tiffVoxels {
		return f.tiff.open()
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := file.Seek(f.offset, io.SeekStart); err != nil {
		file.Close()
		return nil, nil, err
	}
	in := bufio.NewReaderSize(file, 1<<16)
	r = in
	switch f.encoding {
	case gzipVoxels:
		r, err = gzip.NewReader(in)
	case zlibVoxels:
		r, err = zlib.NewReader(in)
	case vtkVoxels:
		r, err = f.vtk.open(in, f.order)
	}
	if err != nil {
		file.Close()
		return nil, nil, err
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if _, err := br.Discard(int(f.inflatedSkip)); err != nil {
		file.Close()
		return nil, nil, endedEarly(err)
	}
	for range f.lines {
		if _, err := br.ReadBytes('\n'); err != nil {
			file.Close()
			return nil, nil, endedEarly(err)
		}
	}
	return br, func() { file.Close() }, nil
}

// scan gives use each of n voxels' values in order, read from r.
func (f voxelFile) scan(r io.Reader, n int, use func(i int, x float64)) error {
	if f.slope != 0 {
		stored := use
		use = func(i int, x float64) { stored(i, f.slope*x) }
	}
	if f.encoding == asciiVoxels {
		words := bufio.NewScanner(r)
		words.Split(bufio.ScanWords)
		for i := range n {
			if !words.Scan() {
				if err := words.Err(); err != nil {
					return err
				}
				return fmt.Errorf("the voxels' data ends after %d of %d values", i, n)
			}
			x, err := strconv.ParseFloat(words.Text(), 64)
			if err != nil {
				return fmt.Errorf("voxel %d: %q is no number", i, words.Text())
			}
			use(i, x)
		}
		return nil
	}
	size := f.size()
	return endedEarly(eachRun(r, size, n, func(at int, run []byte) {
		for i := 0; i < len(run); i += size {
			use(at+i/size, f.kind.decode(run[i:], f.order))
		}
	}))
}

// eachRun reads n voxels of size bytes from r a run at a time, giving
// each run with the index of its first voxel.
func eachRun(r io.Reader, size, n int, use func(at int, run []byte)) error {
	run := make([]byte, size<<16)
	for at := 0; at < n; {
		k := min(len(run)/size, n-at)
		if _, err := io.ReadFull(r, run[:k*size]); err != nil {
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
