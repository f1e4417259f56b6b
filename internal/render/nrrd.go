package render

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// nrrdTypes are NRRD's type names.
var nrrdTypes = map[string]scalarKind{
	"signed char": scalarInt8, "int8": scalarInt8, "int8_t": scalarInt8,
	"uchar": scalarUint8, "unsigned char": scalarUint8, "uint8": scalarUint8, "uint8_t": scalarUint8,
	"short": scalarInt16, "short int": scalarInt16, "signed short": scalarInt16, "signed short int": scalarInt16, "int16": scalarInt16, "int16_t": scalarInt16,
	"ushort": scalarUint16, "unsigned short": scalarUint16, "unsigned short int": scalarUint16, "uint16": scalarUint16, "uint16_t": scalarUint16,
	"int": scalarInt32, "signed int": scalarInt32, "int32": scalarInt32, "int32_t": scalarInt32,
	"uint": scalarUint32, "unsigned int": scalarUint32, "uint32": scalarUint32, "uint32_t": scalarUint32,
	"longlong": scalarInt64, "long long": scalarInt64, "long long int": scalarInt64, "signed long long": scalarInt64, "signed long long int": scalarInt64, "int64": scalarInt64, "int64_t": scalarInt64,
	"ulonglong": scalarUint64, "unsigned long long": scalarUint64, "unsigned long long int": scalarUint64, "uint64": scalarUint64, "uint64_t": scalarUint64,
	"float": scalarFloat32, "double": scalarFloat64,
}

// statNRRD reads a NRRD header, attached (*.nrrd, the data after it) or
// detached (*.nhdr, naming its data file), and checks what it can of the
// data without reading it.
func statNRRD(path string) (*VolumeData, voxelFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, voxelFile{}, err
	}
	defer f.Close()
	h, err := readNRRDHeader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, voxelFile{}, fmt.Errorf("%s: %w", path, err)
	}
	v, voxels, err := h.volume(path)
	if err != nil {
		return nil, voxelFile{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := voxels.place(v, h.byteSkip == -1); err != nil {
		return nil, voxelFile{}, err
	}
	return v, voxels, nil
}

// nrrdHeader is what goeq reads of a NRRD header.
type nrrdHeader struct {
	fields   map[string]string
	size     int64 // its bytes, up to and with the blank line that ends it
	byteSkip int64
}

// readNRRDHeader reads a header: the magic line NRRD000N, then "field:
// value" lines (comments begin with #; "key:=value" pairs are skipped),
// up to a blank line or the file's end.
func readNRRDHeader(r *bufio.Reader) (*nrrdHeader, error) {
	h := &nrrdHeader{fields: map[string]string{}}
	lines := headerLines{r: r, format: "NRRD", endsAt: "blank line"}
	for {
		s, err := lines.next()
		if err != nil && err != io.EOF {
			return nil, err
		}
		h.size = lines.size
		switch {
		case lines.line == 1:
			if !strings.HasPrefix(s, "NRRD000") {
				return nil, fmt.Errorf("not a NRRD file (first line %q; want NRRD0001 to NRRD0005)", quoteShort(s))
			}
		case s == "": // the blank line before attached data, or the file's end
			return h, nil
		case strings.HasPrefix(s, "#"):
		case strings.Contains(s, ":="):
		default:
			key, value, ok := strings.Cut(s, ": ")
			if !ok {
				return nil, fmt.Errorf("line %d: %q; want \"field: value\"", lines.line, s)
			}
			h.fields[strings.ToLower(strings.TrimSpace(key))] = strings.TrimSpace(value)
		}
		if err == io.EOF {
			return h, nil
		}
	}
}

// field is the value of one of the names given a field (NRRD spells some
// two ways).
func (h *nrrdHeader) field(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := h.fields[n]; ok {
			return v, true
		}
	}
	return "", false
}

// volume is the header's volume and where its voxels are, for a header
// read from path.
func (h *nrrdHeader) volume(path string) (*VolumeData, voxelFile, error) {
	for _, name := range []string{"type", "dimension", "sizes", "encoding"} {
		if _, ok := h.fields[name]; !ok {
			return nil, voxelFile{}, fmt.Errorf("no %q field", name)
		}
	}
	voxels := voxelFile{path: path, offset: h.size, order: binary.LittleEndian, source: "header"}
	var ok bool
	if voxels.kind, ok = nrrdTypes[strings.ToLower(h.fields["type"])]; !ok {
		return nil, voxelFile{}, fmt.Errorf("type %q: goeq reads whole numbers and floating point ones, not blocks", h.fields["type"])
	}
	dim, err := strconv.Atoi(h.fields["dimension"])
	sizes := strings.Fields(h.fields["sizes"])
	if err != nil || len(sizes) != dim {
		return nil, voxelFile{}, fmt.Errorf("dimension %q, sizes %q: want as many sizes as the dimension", h.fields["dimension"], h.fields["sizes"])
	}
	// a first axis of one sample (a scalar's, as some writers put it) is
	// no axis of the volume's
	skipAxis := 0
	if dim == 4 && sizes[0] == "1" {
		skipAxis = 1
	}
	if dim-skipAxis != 3 {
		return nil, voxelFile{}, fmt.Errorf("sizes %q: goeq's volumes have three axes of one value a voxel", h.fields["sizes"])
	}
	var dims [3]int
	for i := range dims {
		n, err := strconv.Atoi(sizes[skipAxis+i])
		if err != nil || n < 1 || n > MaxVolumeSide {
			return nil, voxelFile{}, fmt.Errorf("size %q; want a whole number from 1 to %d", sizes[skipAxis+i], MaxVolumeSide)
		}
		dims[i] = n
	}
	spacing, err := h.spacing(dim, skipAxis)
	if err != nil {
		return nil, voxelFile{}, err
	}
	v, err := newVolume(dims, spacing)
	if err != nil {
		return nil, voxelFile{}, err
	}
	switch enc := strings.ToLower(h.fields["encoding"]); enc {
	case "raw":
	case "gzip", "gz":
		voxels.encoding = gzipVoxels
	case "ascii", "text", "txt":
		voxels.encoding = asciiVoxels
	default:
		return nil, voxelFile{}, fmt.Errorf("encoding %q: goeq reads raw, gzip and ascii (unu save -e gzip writes one it reads)", enc)
	}
	if voxels.encoding != asciiVoxels && voxels.size() > 1 {
		switch e, _ := h.field("endian"); e {
		case "little":
		case "big":
			voxels.order = binary.BigEndian
		default:
			return nil, voxelFile{}, fmt.Errorf("endian %q; want little or big", e)
		}
	}
	if s, ok := h.field("line skip", "lineskip"); ok {
		if voxels.lines, err = strconv.Atoi(s); err != nil || voxels.lines < 0 {
			return nil, voxelFile{}, fmt.Errorf("line skip %q; want a whole number, 0 or more", s)
		}
	}
	if s, ok := h.field("byte skip", "byteskip"); ok {
		if h.byteSkip, err = strconv.ParseInt(s, 10, 64); err != nil || h.byteSkip < -1 || h.byteSkip == -1 && voxels.encoding != rawVoxels {
			return nil, voxelFile{}, fmt.Errorf("byte skip %q; want a whole number, 0 or more (or -1 for raw data that end the file)", s)
		}
		if voxels.encoding == gzipVoxels && h.byteSkip > 0 {
			return nil, voxelFile{}, fmt.Errorf("byte skip %q in gzip data: goeq skips bytes of raw data only", s)
		}
	}
	if data, ok := h.field("data file", "datafile"); ok {
		if f := strings.Fields(data); len(f) != 1 || f[0] == "LIST" || strings.Contains(f[0], "%") {
			return nil, voxelFile{}, fmt.Errorf("data file %q: goeq reads a volume's data from one file", data)
		}
		voxels.path, voxels.offset = beside(path, data), 0
	}
	if h.byteSkip > 0 {
		voxels.offset += h.byteSkip
	}
	if h.leftHanded(skipAxis) {
		voxels.reverseRuns = v.W * v.H
	}
	return v, voxels, nil
}

// nrrdLeftSpaces are NRRD's spaces whose axes make a left-handed frame.
var nrrdLeftSpaces = map[string]bool{"left-anterior-superior": true, "las": true, "left-anterior-superior-time": true,
	"last": true, "3d-left-handed": true, "3d-left-handed-time": true}

// leftHanded says whether the volume's axes, its space directions, make a
// left-handed frame in the header's space (a left-handed space, as LAS,
// turns them again), as 3D Slicer places them: shown as they are, the
// volume would be mirrored.
func (h *nrrdHeader) leftHanded(skipAxis int) bool {
	dirs := strings.Fields(h.fields["space directions"])
	if len(dirs) < skipAxis+3 {
		return false
	}
	var m [3][3]float64
	for i := range 3 {
		c := strings.Split(strings.Trim(dirs[skipAxis+i], "()"), ",")
		if len(c) != 3 {
			return false // a space of other than three axes
		}
		for a := range 3 {
			m[a][i], _ = strconv.ParseFloat(strings.TrimSpace(c[a]), 64)
		}
	}
	return leftHanded(m) != nrrdLeftSpaces[strings.ToLower(h.fields["space"])]
}

// spacing is the distance between the voxels along each of the volume's
// axes: the header's spacings, or the lengths of its space directions;
// 1 where neither gives one.
func (h *nrrdHeader) spacing(dim, skipAxis int) ([3]float64, error) {
	out := [3]float64{1, 1, 1}
	if s, ok := h.fields["space directions"]; ok {
		dirs := strings.Fields(s)
		if len(dirs) != dim {
			return out, fmt.Errorf("space directions %q: want one for each of the %d axes", s, dim)
		}
		for i := range out {
			d := dirs[skipAxis+i]
			var length float64
			for _, c := range strings.Split(strings.Trim(d, "()"), ",") {
				x, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
				if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
					return out, fmt.Errorf("space direction %q: want a vector (x,y,z)", d)
				}
				length += x * x
			}
			if length > 0 {
				out[i] = math.Sqrt(length)
			}
		}
	} else if s, ok := h.fields["spacings"]; ok {
		sp := strings.Fields(s)
		if len(sp) != dim {
			return out, fmt.Errorf("spacings %q: want one for each of the %d axes", s, dim)
		}
		for i := range out {
			x, err := strconv.ParseFloat(sp[skipAxis+i], 64)
			if err == nil && x > 0 && !math.IsInf(x, 0) {
				out[i] = x // "nan" (none given) stays 1
			}
		}
	}
	if err := checkSpacing(out); err != nil {
		return out, fmt.Errorf("spacing %v: %w", out, err)
	}
	return out, nil
}
