package render

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zlib"

	"github.com/goeq/goeq/internal/bounded"
)

// VTK's type names: the XML formats' and the legacy format's.
var (
	vtkXMLTypes = map[string]scalarKind{"Int8": scalarInt8, "UInt8": scalarUint8, "Int16": scalarInt16, "UInt16": scalarUint16,
		"Int32": scalarInt32, "UInt32": scalarUint32, "Int64": scalarInt64, "UInt64": scalarUint64, "Float32": scalarFloat32, "Float64": scalarFloat64}
	vtkLegacyTypes = map[string]scalarKind{"char": scalarInt8, "unsigned_char": scalarUint8, "short": scalarInt16, "unsigned_short": scalarUint16,
		"int": scalarInt32, "unsigned_int": scalarUint32, "vtktypeint64": scalarInt64, "vtktypeuint64": scalarUint64, "float": scalarFloat32, "double": scalarFloat64}
)

// vtkBlocks is how an array of VTK's XML formats is stored: base64 text
// or raw bytes, compressed in zlib blocks or not, after a header of
// 32- or 64-bit counts.
type vtkBlocks struct {
	base64     bool
	compressed bool
	header     int // bytes of a header count
}

// statVTI reads a VTK XML image (*.vti, ParaView's own format for image
// data): its extent, spacing and the point data array it shows (the
// PointData's Scalars, or its first array of one component), inline or
// appended, base64 or raw, zlib-compressed or not.
func statVTI(path string) (*VolumeData, voxelFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, voxelFile{}, err
	}
	defer f.Close()
	v, voxels, err := readVTIHeader(f)
	if err != nil {
		return nil, voxelFile{}, fmt.Errorf("%s: %w", path, err)
	}
	voxels.path = path
	return v, voxels, nil
}

// readVTIHeader reads the XML of a .vti up to its appended data.
func readVTIHeader(r io.ReadSeeker) (*VolumeData, voxelFile, error) {
	dec := xml.NewDecoder(bufio.NewReaderSize(io.LimitReader(r, maxVolumeHeader), 1<<16))
	var (
		blocks                      = vtkBlocks{header: 4}
		order      binary.ByteOrder = binary.LittleEndian
		dims       [3]int
		spacing    = [3]float64{1, 1, 1}
		scalars    string
		inPoint    bool
		chosen     *xml.StartElement
		chosenAt   int64 // an inline array's text, in the file
		appendedAt int64 = -1
		sawImage   bool
	)
	attr := func(e xml.StartElement, name string) string {
		for _, a := range e.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	// the XML is read up to the appended data, or to the chosen array's
	// own where it is inline: its text (megabytes of base64) is read as
	// data, not as XML, which the header's bound would cut short
	for appendedAt < 0 && !(chosen != nil && attr(*chosen, "format") != "appended") {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, voxelFile{}, fmt.Errorf("not a VTK XML image: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "VTKFile":
				if t := attr(e, "type"); t != "ImageData" {
					return nil, voxelFile{}, fmt.Errorf("VTKFile type %q: goeq reads image data (.vti)", t)
				}
				if attr(e, "byte_order") == "BigEndian" {
					order = binary.BigEndian
				}
				if attr(e, "header_type") == "UInt64" {
					blocks.header = 8
				}
				switch c := attr(e, "compressor"); c {
				case "":
				case "vtkZLibDataCompressor":
					blocks.compressed = true
				default:
					return nil, voxelFile{}, fmt.Errorf("compressor %s: goeq reads zlib-compressed data or data not compressed (ParaView saves so with its Compressor Type ZLib or None)", c)
				}
			case "ImageData":
				sawImage = true
				ext := strings.Fields(attr(e, "WholeExtent"))
				if len(ext) != 6 {
					return nil, voxelFile{}, fmt.Errorf("WholeExtent %q; want six numbers", attr(e, "WholeExtent"))
				}
				for i := range dims {
					lo, err1 := strconv.Atoi(ext[2*i])
					hi, err2 := strconv.Atoi(ext[2*i+1])
					if err1 != nil || err2 != nil || hi < lo || hi-lo >= MaxVolumeSide {
						return nil, voxelFile{}, fmt.Errorf("WholeExtent %q; want sides from 1 to %d points", attr(e, "WholeExtent"), MaxVolumeSide)
					}
					dims[i] = hi - lo + 1
				}
				if s := strings.Fields(attr(e, "Spacing")); len(s) == 3 {
					for i := range spacing {
						x, err := strconv.ParseFloat(s[i], 64)
						if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || x == 0 {
							return nil, voxelFile{}, fmt.Errorf("the image's Spacing %q; want three numbers other than 0", attr(e, "Spacing"))
						}
						spacing[i] = math.Abs(x)
					}
				}
			case "Piece":
				if ext := attr(e, "Extent"); chosen == nil && strings.Join(strings.Fields(ext), " ") != wholeExtent(dims) {
					return nil, voxelFile{}, fmt.Errorf("a piece of extent %q, not the whole %q: goeq reads an image of one piece (ParaView's Merge Blocks, or Save Data of the whole, writes one)", ext, wholeExtent(dims))
				}
			case "PointData":
				inPoint, scalars = true, attr(e, "Scalars")
			case "DataArray":
				if !inPoint || chosen != nil {
					continue
				}
				if n := attr(e, "NumberOfComponents"); n != "" && n != "1" && attr(e, "Name") != scalars {
					continue
				}
				if scalars != "" && attr(e, "Name") != scalars {
					continue
				}
				e := e.Copy()
				chosen, chosenAt = &e, dec.InputOffset()
			case "AppendedData":
				appendedAt = dec.InputOffset()
				if attr(e, "encoding") == "base64" {
					blocks.base64 = true
				}
			}
		case xml.EndElement:
			if e.Name.Local == "PointData" {
				inPoint = false
			}
		}
	}
	switch {
	case !sawImage:
		return nil, voxelFile{}, errors.New("no ImageData element: not a VTK XML image")
	case chosen == nil:
		return nil, voxelFile{}, errors.New("no point data array of one value a point (goeq's voxels are point samples: cell data, or a vector, shows as nothing)")
	}
	a := *chosen
	if n := attr(a, "NumberOfComponents"); n != "" && n != "1" {
		return nil, voxelFile{}, fmt.Errorf("array %q has %s components: goeq's volumes hold one value a voxel", attr(a, "Name"), n)
	}
	voxels := voxelFile{order: order, source: "header"}
	var ok bool
	if voxels.kind, ok = vtkXMLTypes[attr(a, "type")]; !ok {
		return nil, voxelFile{}, fmt.Errorf("array %q of type %q; want Int8 to Float64", attr(a, "Name"), attr(a, "type"))
	}
	switch format := attr(a, "format"); format {
	case "ascii":
		voxels.offset, voxels.encoding = chosenAt, asciiVoxels
	case "binary":
		blocks.base64 = true
		voxels.offset, voxels.encoding, voxels.vtk = chosenAt, vtkVoxels, &blocks
	case "appended":
		if appendedAt < 0 {
			return nil, voxelFile{}, errors.New("an appended array, and no AppendedData")
		}
		offset, err := strconv.ParseInt(attr(a, "offset"), 10, 64)
		if err != nil || offset < 0 {
			return nil, voxelFile{}, fmt.Errorf("array offset %q", attr(a, "offset"))
		}
		// the appended data begin after an underscore
		if _, err := r.Seek(appendedAt, io.SeekStart); err != nil {
			return nil, voxelFile{}, err
		}
		br := bufio.NewReader(r)
		for at := appendedAt; ; at++ {
			c, err := br.ReadByte()
			if err != nil {
				return nil, voxelFile{}, errors.New("AppendedData with no underscore before its data")
			}
			if c == '_' {
				voxels.offset = at + 1 + offset
				break
			}
			if !strings.ContainsRune(" \t\r\n", rune(c)) {
				return nil, voxelFile{}, fmt.Errorf("AppendedData begins %q, not with an underscore", c)
			}
		}
		voxels.encoding, voxels.vtk = vtkVoxels, &blocks
	default:
		return nil, voxelFile{}, fmt.Errorf("array format %q; want ascii, binary or appended", format)
	}
	v, err := newVolume(dims, spacing)
	return v, voxels, err
}

// wholeExtent is the extent of a piece that covers dims points.
func wholeExtent(dims [3]int) string {
	return fmt.Sprintf("0 %d 0 %d 0 %d", dims[0]-1, dims[1]-1, dims[2]-1)
}

// open reads the array's values' bytes from r, at the array's start:
// its header first, then its data, inflating zlib blocks as they come.
func (b vtkBlocks) open(r *bufio.Reader, order binary.ByteOrder) (io.Reader, error) {
	src := io.Reader(r)
	if b.base64 {
		src = &noSpace{r: r}
	}
	// chunk is what one base64 chunk or the raw bytes give: VTK encodes
	// a compressed array's header by itself, its blocks after it
	chunk := func() io.Reader { return src }
	if b.base64 {
		chunk = func() io.Reader { return base64.NewDecoder(base64.StdEncoding, src) }
	}
	word := func(p []byte) uint64 {
		if b.header == 8 {
			return order.Uint64(p)
		}
		return uint64(order.Uint32(p))
	}
	if !b.compressed {
		data := chunk()
		head := make([]byte, b.header)
		if _, err := io.ReadFull(data, head); err != nil {
			return nil, endedEarly(err)
		}
		return io.LimitReader(data, int64(word(head))), nil
	}
	// a compressed header: blocks, block size, last block's size, then
	// each block's compressed size; base64 pads it to whole groups
	var head []byte
	if b.base64 {
		first := make([]byte, 4*b.header) // three words: a whole number of base64 groups
		if _, err := io.ReadFull(src, first); err != nil {
			return nil, endedEarly(err)
		}
		three, err := base64.StdEncoding.DecodeString(string(first))
		if err != nil {
			return nil, fmt.Errorf("the array's header: %w", err)
		}
		n := word(three)
		if n > 1<<24 {
			return nil, fmt.Errorf("the array's header gives %d blocks", n)
		}
		rest := make([]byte, (int(3+n)*b.header+2)/3*4-len(first))
		if _, err := io.ReadFull(src, rest); err != nil {
			return nil, endedEarly(err)
		}
		if head, err = base64.StdEncoding.DecodeString(string(first) + string(rest)); err != nil {
			return nil, fmt.Errorf("the array's header: %w", err)
		}
	} else {
		head = make([]byte, 3*b.header)
		if _, err := io.ReadFull(src, head); err != nil {
			return nil, endedEarly(err)
		}
		n := word(head)
		if n > 1<<24 {
			return nil, fmt.Errorf("the array's header gives %d blocks", n)
		}
		head = append(head, make([]byte, int(n)*b.header)...)
		if _, err := io.ReadFull(src, head[3*b.header:]); err != nil {
			return nil, endedEarly(err)
		}
	}
	n := int(word(head))
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = int64(word(head[(3+i)*b.header:]))
	}
	return &zlibBlocks{data: chunk(), sizes: sizes}, nil
}

// zlibBlocks reads VTK's compressed blocks one after another, each a
// zlib stream of its own.
type zlibBlocks struct {
	data  io.Reader
	sizes []int64
	block io.Reader
}

func (z *zlibBlocks) Read(p []byte) (int, error) {
	for {
		if z.block != nil {
			n, err := z.block.Read(p)
			if err == io.EOF {
				z.block, err = nil, nil
			}
			if n > 0 || err != nil {
				return n, err
			}
		}
		if len(z.sizes) == 0 {
			return 0, io.EOF
		}
		zr, err := zlib.NewReader(bufio.NewReader(io.LimitReader(z.data, z.sizes[0])))
		if err != nil {
			return 0, fmt.Errorf("a compressed block: %w", err)
		}
		z.block, z.sizes = zr, z.sizes[1:]
	}
}

// noSpace reads r without its white space, which base64 text inline in
// XML is indented with.
type noSpace struct{ r *bufio.Reader }

func (s *noSpace) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c, err := s.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '<': // the element's end: the text is over
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		p[n] = c
		n++
		if s.r.Buffered() == 0 {
			break
		}
	}
	return n, nil
}

// statLegacyVTK reads a legacy VTK file (*.vtk) of structured points, as
// VTK and ParaView write them: its dimensions, spacing and first point
// scalars, binary (big-endian) or ascii.
func statLegacyVTK(path string) (*VolumeData, voxelFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, voxelFile{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var (
		offset  int64
		dims    [3]int
		spacing = [3]float64{1, 1, 1}
		voxels  = voxelFile{path: path, order: binary.BigEndian, source: "header"}
		points  = -1
	)
	fail := func(format string, args ...any) (*VolumeData, voxelFile, error) {
		return nil, voxelFile{}, fmt.Errorf("%s: "+format, append([]any{path}, args...)...)
	}
	for line := 1; ; line++ {
		text, err := bounded.ReadLine(br, maxVolumeHeaderLine)
		if err != nil {
			return fail("the header ends before its scalars' LOOKUP_TABLE line")
		}
		offset += int64(len(text))
		if offset > maxVolumeHeader {
			return fail("the header goes on past %d bytes", maxVolumeHeader)
		}
		s := strings.TrimSpace(string(text))
		fields := strings.Fields(s)
		switch {
		case line == 1:
			if !strings.HasPrefix(s, "# vtk DataFile") {
				if len(s) > 20 {
					s = s[:20] + "..."
				}
				return fail("not a legacy VTK file (first line %q)", s)
			}
		case line == 2: // the title
		case line == 3:
			switch strings.ToUpper(s) {
			case "BINARY":
			case "ASCII":
				voxels.encoding = asciiVoxels
			default:
				return fail("line 3: %q; want BINARY or ASCII", s)
			}
		case len(fields) == 0:
		case strings.EqualFold(fields[0], "DATASET"):
			if len(fields) != 2 || !strings.EqualFold(fields[1], "STRUCTURED_POINTS") {
				return fail("%q: goeq reads STRUCTURED_POINTS (an image) as a volume", s)
			}
		case strings.EqualFold(fields[0], "DIMENSIONS"), strings.EqualFold(fields[0], "SPACING"), strings.EqualFold(fields[0], "ASPECT_RATIO"):
			if len(fields) != 4 {
				return fail("%q; want three numbers", s)
			}
			for i := range 3 {
				if strings.EqualFold(fields[0], "DIMENSIONS") {
					n, err := strconv.Atoi(fields[1+i])
					if err != nil || n < 1 || n > MaxVolumeSide {
						return fail("%q; want sides from 1 to %d", s, MaxVolumeSide)
					}
					dims[i] = n
					continue
				}
				x, err := strconv.ParseFloat(fields[1+i], 64)
				if err != nil || x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
					return fail("%q; want three numbers other than 0", s)
				}
				spacing[i] = math.Abs(x)
			}
		case strings.EqualFold(fields[0], "POINT_DATA"):
			if len(fields) == 2 {
				points, _ = strconv.Atoi(fields[1])
			}
		case strings.EqualFold(fields[0], "CELL_DATA") && points < 0:
			return fail("cell data: goeq's voxels are point samples")
		case strings.EqualFold(fields[0], "SCALARS"):
			if points < 0 {
				return fail("SCALARS before POINT_DATA")
			}
			if len(fields) == 4 && fields[3] != "1" {
				return fail("%q: goeq's volumes hold one value a voxel", s)
			}
			var ok bool
			if len(fields) < 3 {
				return fail("%q; want SCALARS NAME TYPE", s)
			}
			if voxels.kind, ok = vtkLegacyTypes[strings.ToLower(fields[2])]; !ok {
				return fail("scalars of type %q; want unsigned_char, short, float, double or another of fixed size", fields[2])
			}
		case strings.EqualFold(fields[0], "LOOKUP_TABLE"):
			if voxels.kind == 0 {
				return fail("LOOKUP_TABLE before SCALARS")
			}
			v, err := newVolume(dims, spacing)
			if err != nil {
				return fail("%v", err)
			}
			if points != v.W*v.H*v.D {
				return fail("POINT_DATA %d for DIMENSIONS %d %d %d", points, v.W, v.H, v.D)
			}
			voxels.offset = offset
			if err := voxels.place(v, false); err != nil {
				return nil, voxelFile{}, err
			}
			return v, voxels, nil
		case strings.EqualFold(fields[0], "ORIGIN"), strings.EqualFold(fields[0], "METADATA"), strings.EqualFold(fields[0], "INFORMATION"), strings.EqualFold(fields[0], "NAME"), strings.EqualFold(fields[0], "DATA"):
		default:
			return fail("line %d: %q before the point scalars: goeq reads an image's first point scalars", line, s)
		}
	}
}
