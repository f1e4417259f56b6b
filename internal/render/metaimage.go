package render

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// metaTypes are MetaImage's element types.
var metaTypes = map[string]scalarKind{
	"MET_CHAR": scalarInt8, "MET_UCHAR": scalarUint8, "MET_SHORT": scalarInt16, "MET_USHORT": scalarUint16,
	"MET_INT": scalarInt32, "MET_UINT": scalarUint32, "MET_LONG": scalarInt32, "MET_ULONG": scalarUint32,
	"MET_LONG_LONG": scalarInt64, "MET_ULONG_LONG": scalarUint64, "MET_FLOAT": scalarFloat32, "MET_DOUBLE": scalarFloat64,
}

// statMetaImage reads a MetaImage header, ITK's and VTK's: *.mha with its
// data after it (ElementDataFile = LOCAL), or *.mhd naming its data file,
// and checks what it can of the data without reading it.
func statMetaImage(path string) (*VolumeData, voxelFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, voxelFile{}, err
	}
	defer f.Close()
	fields, size, err := readMetaHeader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, voxelFile{}, fmt.Errorf("%s: %w", path, err)
	}
	v, voxels, headerSize, err := metaVolume(fields, path, size)
	if err != nil {
		return nil, voxelFile{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := voxels.place(v, headerSize == -1); err != nil {
		return nil, voxelFile{}, err
	}
	return v, voxels, nil
}

// readMetaHeader reads "Key = Value" lines up to ElementDataFile, which
// ends a MetaImage header, and the header's size in bytes.
func readMetaHeader(r *bufio.Reader) (map[string]string, int64, error) {
	fields := map[string]string{}
	lines := headerLines{r: r, format: "MetaImage", endsAt: "ElementDataFile"}
	for {
		text, err := lines.next()
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		if s := strings.TrimSpace(text); s != "" {
			key, value, ok := strings.Cut(s, "=")
			if !ok {
				return nil, 0, fmt.Errorf("line %d: %q; want \"Key = Value\" (a MetaImage header)", lines.line, quoteShort(s))
			}
			key = strings.TrimSpace(key)
			fields[strings.ToLower(key)] = strings.TrimSpace(value)
			if strings.EqualFold(key, "ElementDataFile") {
				return fields, lines.size, nil
			}
		}
		if err == io.EOF {
			return nil, 0, errors.New("the header ends with no ElementDataFile")
		}
	}
}

// metaVolume is the header's volume and where its voxels are, for a
// header of size bytes read from path; headerSize is its HeaderSize (-1:
// the data end their file).
func metaVolume(fields map[string]string, path string, size int64) (v *VolumeData, voxels voxelFile, headerSize int64, err error) {
	voxels = voxelFile{path: path, offset: size, order: binary.LittleEndian, source: "header"}
	fail := func(format string, args ...any) (*VolumeData, voxelFile, int64, error) {
		return nil, voxelFile{}, 0, fmt.Errorf(format, args...)
	}
	if t, ok := fields["objecttype"]; ok && !strings.EqualFold(t, "Image") {
		return fail("ObjectType %q: goeq reads images", t)
	}
	var ok bool
	if voxels.kind, ok = metaTypes[strings.ToUpper(fields["elementtype"])]; !ok {
		return fail("ElementType %q; want MET_UCHAR, MET_SHORT, MET_FLOAT or another of MetaImage's scalar types", fields["elementtype"])
	}
	if c, ok := fields["elementnumberofchannels"]; ok && c != "1" {
		return fail("ElementNumberOfChannels %s: goeq's volumes hold one value a voxel", c)
	}
	sizes := strings.Fields(fields["dimsize"])
	if n := fields["ndims"]; n != "3" || len(sizes) != 3 {
		return fail("NDims %q, DimSize %q: goeq's volumes have three axes", n, fields["dimsize"])
	}
	var dims [3]int
	for i := range dims {
		n, err := strconv.Atoi(sizes[i])
		if err != nil || n < 1 || n > MaxVolumeSide {
			return fail("DimSize %q; want whole numbers from 1 to %d", fields["dimsize"], MaxVolumeSide)
		}
		dims[i] = n
	}
	spacing := [3]float64{1, 1, 1}
	sp, ok := fields["elementspacing"]
	if !ok {
		sp, ok = fields["elementsize"]
	}
	if ok {
		f := strings.Fields(sp)
		if len(f) != 3 {
			return fail("ElementSpacing %q; want three numbers", sp)
		}
		for i := range spacing {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return fail("ElementSpacing %q; want three numbers above 0", sp)
			}
			spacing[i] = x
		}
		if err := checkSpacing(spacing); err != nil {
			return fail("ElementSpacing %q: %v", sp, err)
		}
	}
	if v, err = newVolume(dims, spacing); err != nil {
		return fail("%v", err)
	}
	for _, key := range []string{"binarydatabyteordermsb", "elementbyteordermsb", "byteordermsb"} {
		if msb, ok := fields[key]; ok && strings.EqualFold(msb, "True") {
			voxels.order = binary.BigEndian
		}
	}
	for _, key := range []string{"transformmatrix", "rotation", "orientation"} {
		if f := strings.Fields(fields[key]); len(f) == 9 {
			var m [3][3]float64
			for i := range 9 {
				m[i/3][i%3], _ = strconv.ParseFloat(f[i], 64)
			}
			if leftHanded(m) { // as ITK writes a grid's directions
				voxels.reverseRuns = v.W * v.H
			}
			break
		}
	}
	if b, ok := fields["binarydata"]; ok && !strings.EqualFold(b, "True") {
		voxels.encoding = asciiVoxels
	}
	if strings.EqualFold(fields["compresseddata"], "True") {
		voxels.encoding = zlibVoxels
	}
	if h, ok := fields["headersize"]; ok {
		if headerSize, err = strconv.ParseInt(h, 10, 64); err != nil || headerSize < -1 || headerSize == -1 && voxels.encoding != rawVoxels {
			return fail("HeaderSize %q; want a whole number, 0 or more (or -1 for raw data that end the file)", h)
		}
	}
	switch data := fields["elementdatafile"]; {
	case strings.EqualFold(data, "LOCAL"):
		if headerSize > 0 {
			voxels.offset += headerSize
		}
	case strings.EqualFold(data, "LIST"), strings.Contains(data, "%"), len(strings.Fields(data)) != 1:
		return fail("ElementDataFile %q: goeq reads a volume's data from one file", data)
	default:
		voxels.path, voxels.offset = beside(path, data), max(headerSize, 0)
	}
	return v, voxels, headerSize, nil
}
