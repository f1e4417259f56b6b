package render

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// NIfTI's headers: NIfTI-1's and Analyze 7.5's are 348 bytes, NIfTI-2's
// 540; a single file's voxels follow its header and the 4 bytes that say
// whether extensions follow.
const (
	nifti1HeaderSize = 348
	nifti2HeaderSize = 540
)

// niftiTypes are NIfTI's (and Analyze's) datatype codes of a number a voxel.
var niftiTypes = map[int]scalarKind{
	2: scalarUint8, 4: scalarInt16, 8: scalarInt32, 16: scalarFloat32, 64: scalarFloat64,
	256: scalarInt8, 512: scalarUint16, 768: scalarUint32, 1024: scalarInt64, 1280: scalarUint64,
}

// niftiOtherTypes names the datatypes goeq does not read.
var niftiOtherTypes = map[int]string{
	1: "bits", 32: "complex numbers", 128: "RGB colours", 1536: "128-bit floats",
	1792: "complex numbers", 2048: "complex numbers", 2304: "RGBA colours",
}

// niftiHeader is what goeq takes from a NIfTI-1, NIfTI-2 or Analyze 7.5
// header.
type niftiHeader struct {
	version   int // 1 or 2; 0 for Analyze 7.5, which has no magic
	single    bool
	order     binary.ByteOrder
	dims      [8]int64
	datatype  int
	pixdim    [8]float64
	voxOffset float64
	slope     float64
	qformCode int
	sformCode int
	sform     [3][3]float64
}

// isNIfTIName says whether path is named as a NIfTI or Analyze file is:
// FILE.nii, FILE.nii.gz, or a pair's header FILE.hdr.
func isNIfTIName(path string) bool {
	lower := strings.ToLower(path)
	return strings.HasSuffix(lower, ".nii") || strings.HasSuffix(lower, ".nii.gz") || strings.HasSuffix(lower, ".hdr")
}

// niftiPairHeader is the header of a NIfTI or Analyze pair's image file
// FILE.img, where FILE.hdr is there.
func niftiPairHeader(path string) (string, bool) {
	ext := filepath.Ext(path)
	if !strings.EqualFold(ext, ".img") {
		return "", false
	}
	hdr := strings.TrimSuffix(path, ext) + ".hdr"
	if ext == ".IMG" {
		hdr = strings.TrimSuffix(path, ext) + ".HDR"
	}
	if _, err := os.Stat(hdr); err != nil {
		return "", false
	}
	return hdr, true
}

// statNIfTI reads a NIfTI volume's header, as neuroimaging tools write
// them (FSL, SPM, dcm2niix, nibabel, ITK, VTK): a single file FILE.nii,
// gzipped or not, or a pair FILE.hdr and FILE.img (NIfTI's, or Analyze
// 7.5's, which have no magic). Its voxels are scaled by scl_slope where
// the header sets it (scl_inter shifts all alike, which their scaling
// onto 16 bits undoes), and spaced by its pixdim. A grid
// its qform (or, without one, its sform) says is left-handed, as FSL's
// radiological files are, has its slices taken in reverse, as VTK's reader
// (ParaView's) takes them: shown in the right-handed frame it is drawn in,
// it would be mirrored, a patient's left on their right.
func statNIfTI(path string) (*VolumeData, voxelSource, error) {
	h, err := readNIfTIHeader(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	v, voxels, err := h.volume(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if voxels.encoding == rawVoxels {
		if err := voxels.place(v, false); err != nil {
			return nil, nil, err
		}
	} else if err := regular(voxels.path); err != nil {
		return nil, nil, err
	}
	if h.mirrored() {
		voxels.reverseRuns = v.W * v.H
	}
	return v, voxels, nil
}

// readNIfTIHeader reads the header at path's start, through gzip for a
// FILE.nii.gz.
func readNIfTIHeader(path string) (*niftiHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		if r, err = gzip.NewReader(r); err != nil {
			return nil, fmt.Errorf("not a gzip file: %w", err)
		}
	}
	b := make([]byte, nifti2HeaderSize)
	n, err := io.ReadFull(r, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return parseNIfTIHeader(b[:n], path)
}

// parseNIfTIHeader reads a header from b, its file's first bytes; path
// tells a pair's header (FILE.hdr) from a single file.
func parseNIfTIHeader(b []byte, path string) (*niftiHeader, error) {
	if len(b) < 4 {
		return nil, errors.New("not a NIfTI file: it ends before its header's size")
	}
	h := &niftiHeader{order: binary.LittleEndian}
	size := binary.LittleEndian.Uint32(b)
	if size != nifti1HeaderSize && size != nifti2HeaderSize {
		h.order, size = binary.BigEndian, binary.BigEndian.Uint32(b)
	}
	if size != nifti1HeaderSize && size != nifti2HeaderSize {
		return nil, fmt.Errorf("not a NIfTI file: its first bytes give a header of %d bytes (NIfTI-1's and Analyze's have %d, NIfTI-2's %d)",
			binary.LittleEndian.Uint32(b), nifti1HeaderSize, nifti2HeaderSize)
	}
	if len(b) < int(size) {
		return nil, fmt.Errorf("the file ends %d bytes into its %d-byte header", len(b), size)
	}
	o := h.order
	f32 := func(at int) float64 { return float64(math.Float32frombits(o.Uint32(b[at:]))) }
	f64 := func(at int) float64 { return math.Float64frombits(o.Uint64(b[at:])) }
	if size == nifti1HeaderSize {
		switch string(b[344:348]) {
		case "n+1\x00":
			h.version, h.single = 1, true
		case "ni1\x00":
			h.version = 1
		default:
			if !strings.EqualFold(filepath.Ext(path), ".hdr") {
				return nil, fmt.Errorf("no NIfTI magic (\"n+1\" at byte 344; it holds %q): an Analyze 7.5 header has none, and is a pair's FILE.hdr", b[344:347])
			}
		}
		for i := range h.dims {
			h.dims[i] = int64(int16(o.Uint16(b[40+2*i:])))
			h.pixdim[i] = f32(76 + 4*i)
		}
		h.datatype = int(int16(o.Uint16(b[70:])))
		h.voxOffset = f32(108)
		if h.version > 0 {
			h.slope = f32(112)
			h.qformCode, h.sformCode = int(int16(o.Uint16(b[252:]))), int(int16(o.Uint16(b[254:])))
			for i := range 3 {
				for j := range 3 {
					h.sform[i][j] = f32(280 + 16*i + 4*j)
				}
			}
		}
		return h, nil
	}
	switch string(b[4:8]) {
	case "n+2\x00":
		h.version, h.single = 2, true
	case "ni2\x00":
		h.version = 2
	default:
		return nil, fmt.Errorf("no NIfTI-2 magic (\"n+2\" at byte 4; it holds %q)", b[4:7])
	}
	h.datatype = int(int16(o.Uint16(b[12:])))
	for i := range h.dims {
		h.dims[i] = int64(o.Uint64(b[16+8*i:]))
		h.pixdim[i] = f64(104 + 8*i)
	}
	h.voxOffset = float64(int64(o.Uint64(b[168:])))
	h.slope = f64(176)
	h.qformCode, h.sformCode = int(int32(o.Uint32(b[344:]))), int(int32(o.Uint32(b[348:])))
	for i := range 3 {
		for j := range 3 {
			h.sform[i][j] = f64(400 + 32*i + 8*j)
		}
	}
	return h, nil
}

// volume is the header's volume and where its voxels are, for a header
// read from path.
func (h *niftiHeader) volume(path string) (*VolumeData, voxelFile, error) {
	fail := func(format string, args ...any) (*VolumeData, voxelFile, error) {
		return nil, voxelFile{}, fmt.Errorf(format, args...)
	}
	axes := h.dims[0]
	if axes < 1 || axes > 7 {
		return fail("dim[0] %d: want 1 to 7 axes (or the header's byte order is not its own)", axes)
	}
	if axes < 3 {
		return fail("%d axes: goeq's volumes have three", axes)
	}
	var dims [3]int
	for i := range dims {
		n := h.dims[1+i]
		if n < 1 || n > MaxVolumeSide {
			return fail("dim[%d] %d; want 1 to %d voxels", 1+i, n, MaxVolumeSide)
		}
		dims[i] = int(n)
	}
	for i := 4; i <= int(axes); i++ {
		switch n := h.dims[i]; {
		case n < 1:
			return fail("dim[%d] %d; want 1 or more", i, n)
		case n == 1:
		case i == 4:
			return fail("%d volumes, one a time point (dim[4]): goeq reads one volume; take one out first (FSL's fslroi IN OUT T 1 takes time point T)", n)
		case i == 5:
			return fail("%d values a voxel (dim[5]): goeq's volumes hold one", n)
		default:
			return fail("dim[%d] %d: goeq's volumes have three axes", i, n)
		}
	}
	kind, ok := niftiTypes[h.datatype]
	if !ok {
		if what, named := niftiOtherTypes[h.datatype]; named {
			return fail("datatype %d, %s: goeq's volumes hold one number a voxel", h.datatype, what)
		}
		return fail("datatype %d: not one of NIfTI's", h.datatype)
	}
	spacing := [3]float64{1, 1, 1}
	for i := range spacing {
		// Analyze's writers often leave pixdim 0, and a negative one
		// is a flip the qform or sform gives, not a size.
		if x := math.Abs(h.pixdim[1+i]); x > 0 && !math.IsInf(x, 0) {
			spacing[i] = x
		}
	}
	if err := checkSpacing(spacing); err != nil {
		return fail("pixdim %v: %v", h.pixdim[1:4], err)
	}
	v, err := newVolume(dims, spacing)
	if err != nil {
		return fail("%v", err)
	}
	if h.voxOffset < 0 || h.voxOffset != math.Trunc(h.voxOffset) || h.voxOffset > 1<<40 {
		return fail("vox_offset %g; want a whole number of bytes, 0 or more", h.voxOffset)
	}
	voxels := voxelFile{path: path, offset: int64(h.voxOffset), kind: kind, order: h.order, source: "header"}
	if h.single {
		headerEnd := int64(nifti1HeaderSize + 4)
		if h.version == 2 {
			headerEnd = nifti2HeaderSize + 4
		}
		if voxels.offset < headerEnd {
			return fail("vox_offset %d: a single file's voxels follow its %d bytes of header", voxels.offset, headerEnd)
		}
	} else {
		ext := filepath.Ext(path)
		voxels.path = strings.TrimSuffix(path, ext) + ".img"
		if ext == ".HDR" {
			voxels.path = strings.TrimSuffix(path, ext) + ".IMG"
		}
	}
	if strings.HasSuffix(strings.ToLower(voxels.path), ".gz") {
		voxels.encoding, voxels.inflatedSkip, voxels.offset = gzipVoxels, voxels.offset, 0
	}
	// A slope of 0 (or none at all) leaves the numbers as they are.
	if h.version > 0 && h.slope != 0 && !math.IsNaN(h.slope) && !math.IsInf(h.slope, 0) {
		voxels.slope = h.slope
	}
	return v, voxels, nil
}

// mirrored says whether the voxel grid is left-handed, as VTK's reader
// decides: by the qform's qfac (pixdim[0]) where the header has a qform,
// else by the sform's determinant where it has one, else not.
func (h *niftiHeader) mirrored() bool {
	switch {
	case h.version == 0:
		return false
	case h.qformCode > 0:
		return h.pixdim[0] < 0
	case h.sformCode > 0:
		return leftHanded(h.sform)
	}
	return false
}
