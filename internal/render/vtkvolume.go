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

// xmlAttr is the value of e's attribute name, "" where it has none.
func xmlAttr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// readVTKFile takes the layout of a VTK XML file's arrays from its root
// element, a VTKFile of type want; reads says what goeq reads where the
// type is another.
func (b *vtkBlocks) readVTKFile(e xml.StartElement, want, reads string, order *binary.ByteOrder) error {
	if t := xmlAttr(e, "type"); t != want {
		return fmt.Errorf("VTKFile type %q: goeq reads %s", t, reads)
	}
	if xmlAttr(e, "byte_order") == "BigEndian" {
		*order = binary.BigEndian
	}
	if xmlAttr(e, "header_type") == "UInt64" {
		b.header = 8
	}
	switch c := xmlAttr(e, "compressor"); c {
	case "":
	case "vtkZLibDataCompressor":
		b.compressed = true
	default:
		return fmt.Errorf("compressor %s: goeq reads zlib-compressed data or data not compressed (ParaView saves so with its Compressor Type ZLib or None)", c)
	}
	return nil
}

// statVTI reads a VTK XML image (*.vti, ParaView's own format for image
// data): its extent, spacing and the point data array it shows (the
// PointData's Scalars, or its first array of one component), inline or
// appended, base64 or raw, zlib-compressed or not.
func statVTI(path string) (*VolumeData, voxelFile, error) {
	img, err := openVTI(path)
	if err != nil {
		return nil, voxelFile{}, err
	}
	if img.piece != img.whole {
		return nil, voxelFile{}, fmt.Errorf("%s: a piece of extent %v, not the whole %v: goeq reads an image of one piece, or the .pvti that lists the pieces (ParaView's Merge Blocks, or Save Data of the whole, writes one piece)", path, img.piece, img.whole)
	}
	v, err := newVolume(img.whole.dims(), img.spacing)
	if err == nil && img.leftHanded {
		img.voxels.reverseRuns = v.W * v.H
	}
	return v, img.voxels, err
}

// vtiImage is what a .vti's header says: the whole image's extent, the
// extent of the piece the file holds, its spacing, and where its array's
// values are.
type vtiImage struct {
	whole, piece extent
	spacing      [3]float64
	voxels       voxelFile
	leftHanded   bool // its Direction (VTK 9's) turns its axes into a left-handed frame
}

// openVTI reads the header of the .vti at path.
func openVTI(path string) (vtiImage, error) {
	f, err := os.Open(path)
	if err != nil {
		return vtiImage{}, err
	}
	defer f.Close()
	img, err := readVTIHeader(f)
	if err != nil {
		return vtiImage{}, fmt.Errorf("%s: %w", path, err)
	}
	img.voxels.path = path
	return img, nil
}

// extent is VTK's: the first and last point on each axis, x, y and z.
type extent [6]int

// parseExtent reads an extent of sides from 1 to MaxVolumeSide points.
func parseExtent(s string) (extent, bool) {
	var e extent
	f := strings.Fields(s)
	if len(f) != 6 {
		return e, false
	}
	for i := range e {
		n, err := strconv.ParseInt(f[i], 10, 32) // VTK's are ints: their differences cannot overflow
		if err != nil {
			return e, false
		}
		e[i] = int(n)
	}
	for a := range 3 {
		if e[2*a+1] < e[2*a] || e[2*a+1]-e[2*a] >= MaxVolumeSide {
			return e, false
		}
	}
	return e, true
}

// dims is the points the extent holds on each axis.
func (e extent) dims() [3]int { return [3]int{e[1] - e[0] + 1, e[3] - e[2] + 1, e[5] - e[4] + 1} }

// within is whether e lies in w.
func (e extent) within(w extent) bool {
	return e[0] >= w[0] && e[1] <= w[1] && e[2] >= w[2] && e[3] <= w[3] && e[4] >= w[4] && e[5] <= w[5]
}

func (e extent) String() string {
	return fmt.Sprintf("%d %d %d %d %d %d", e[0], e[1], e[2], e[3], e[4], e[5])
}

// readVTIHeader reads the XML of a .vti up to its appended data.
func readVTIHeader(r io.ReadSeeker) (vtiImage, error) {
	dec := xml.NewDecoder(bufio.NewReaderSize(io.LimitReader(r, maxVolumeHeader), 1<<16))
	var (
		blocks                      = vtkBlocks{header: 4}
		order      binary.ByteOrder = binary.LittleEndian
		img                         = vtiImage{spacing: [3]float64{1, 1, 1}}
		sawPiece   bool
		scalars    string
		inPoint    bool
		chosen     *xml.StartElement
		chosenAt   int64 // an inline array's text, in the file
		appendedAt int64 = -1
		sawImage   bool
	)
	// the XML is read up to the appended data, or to the chosen array's
	// own where it is inline: its text (megabytes of base64) is read as
	// data, not as XML, which the header's bound would cut short
	for appendedAt < 0 && !(chosen != nil && xmlAttr(*chosen, "format") != "appended") {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return vtiImage{}, fmt.Errorf("not a VTK XML image: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "VTKFile":
				if err := blocks.readVTKFile(e, "ImageData", "image data (.vti)", &order); err != nil {
					return vtiImage{}, err
				}
			case "ImageData":
				sawImage = true
				var ok bool
				if img.whole, ok = parseExtent(xmlAttr(e, "WholeExtent")); !ok {
					return vtiImage{}, fmt.Errorf("WholeExtent %q; want six numbers, sides from 1 to %d points", xmlAttr(e, "WholeExtent"), MaxVolumeSide)
				}
				var err error
				if img.spacing, err = parseSpacing(xmlAttr(e, "Spacing")); err != nil {
					return vtiImage{}, err
				}
				img.leftHanded = leftHandedDirection(xmlAttr(e, "Direction"))
			case "Piece":
				if sawPiece {
					continue // the array chosen is the first piece's
				}
				var ok bool
				if img.piece, ok = parseExtent(xmlAttr(e, "Extent")); !ok || !img.piece.within(img.whole) {
					return vtiImage{}, fmt.Errorf("a piece of extent %q in the whole %v", xmlAttr(e, "Extent"), img.whole)
				}
				sawPiece = true
			case "PointData":
				inPoint, scalars = true, xmlAttr(e, "Scalars")
			case "DataArray":
				if !inPoint || chosen != nil {
					continue
				}
				if n := xmlAttr(e, "NumberOfComponents"); n != "" && n != "1" && xmlAttr(e, "Name") != scalars {
					continue
				}
				if scalars != "" && xmlAttr(e, "Name") != scalars {
					continue
				}
				e := e.Copy()
				chosen, chosenAt = &e, dec.InputOffset()
			case "AppendedData":
				appendedAt = dec.InputOffset()
				if xmlAttr(e, "encoding") == "base64" {
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
		return vtiImage{}, errors.New("no ImageData element: not a VTK XML image")
	case !sawPiece:
		return vtiImage{}, errors.New("no Piece element: an image of no data")
	case chosen == nil:
		return vtiImage{}, errors.New("no point data array of one value a point (goeq's voxels are point samples: cell data, or a vector, shows as nothing)")
	}
	a := *chosen
	if n := xmlAttr(a, "NumberOfComponents"); n != "" && n != "1" {
		return vtiImage{}, fmt.Errorf("array %q has %s components: goeq's volumes hold one value a voxel", xmlAttr(a, "Name"), n)
	}
	voxels := &img.voxels
	voxels.order, voxels.source = order, "header"
	var ok bool
	if voxels.kind, ok = vtkXMLTypes[xmlAttr(a, "type")]; !ok {
		return vtiImage{}, fmt.Errorf("array %q of type %q; want Int8 to Float64", xmlAttr(a, "Name"), xmlAttr(a, "type"))
	}
	switch format := xmlAttr(a, "format"); format {
	case "ascii":
		voxels.offset, voxels.encoding = chosenAt, asciiVoxels
	case "binary":
		blocks.base64 = true
		voxels.offset, voxels.encoding, voxels.vtk = chosenAt, vtkVoxels, &blocks
	case "appended":
		if appendedAt < 0 {
			return vtiImage{}, errors.New("an appended array, and no AppendedData")
		}
		offset, err := strconv.ParseInt(xmlAttr(a, "offset"), 10, 64)
		if err != nil || offset < 0 {
			return vtiImage{}, fmt.Errorf("array offset %q", xmlAttr(a, "offset"))
		}
		// the appended data begin after an underscore
		if _, err := r.Seek(appendedAt, io.SeekStart); err != nil {
			return vtiImage{}, err
		}
		br := bufio.NewReader(r)
		for at := appendedAt; ; at++ {
			c, err := br.ReadByte()
			if err != nil {
				return vtiImage{}, errors.New("AppendedData with no underscore before its data")
			}
			if c == '_' {
				voxels.offset = at + 1 + offset
				break
			}
			if !strings.ContainsRune(" \t\r\n", rune(c)) {
				return vtiImage{}, fmt.Errorf("AppendedData begins %q, not with an underscore", c)
			}
		}
		voxels.encoding, voxels.vtk = vtkVoxels, &blocks
	default:
		return vtiImage{}, fmt.Errorf("array format %q; want ascii, binary or appended", format)
	}
	if _, err := newVolume(img.whole.dims(), img.spacing); err != nil {
		return vtiImage{}, err
	}
	return img, nil
}

// leftHandedDirection says whether a VTK image's Direction (nine
// numbers, row by row; none: the identity) makes its axes a left-handed
// frame. ParaView shows the image so placed: unmirrored.
func leftHandedDirection(s string) bool {
	f := strings.Fields(s)
	if len(f) != 9 {
		return false
	}
	var m [3][3]float64
	for i := range 9 {
		m[i/3][i%3], _ = strconv.ParseFloat(f[i], 64)
	}
	return leftHanded(m)
}

// parseSpacing reads an image's Spacing: three numbers other than 0 (a
// negative one runs its axis the other way), 1 1 1 where none is given.
func parseSpacing(s string) ([3]float64, error) {
	spacing := [3]float64{1, 1, 1}
	f := strings.Fields(s)
	if len(f) != 3 {
		return spacing, nil
	}
	for i := range spacing {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || x == 0 {
			return spacing, fmt.Errorf("the image's Spacing %q; want three numbers other than 0", s)
		}
		spacing[i] = math.Abs(x)
	}
	return spacing, nil
}

// statPVTI reads a parallel VTK image (*.pvti, as ParaView and VTK write
// one from a run of several processes): the whole image's extent and
// spacing, and its pieces, each a .vti (Source) of an extent within it.
func statPVTI(path string) (*VolumeData, voxelSource, error) {
	b, err := bounded.ReadFile(path, maxVolumeHeader)
	if err != nil {
		return nil, nil, err
	}
	var doc struct {
		Type  string `xml:"type,attr"`
		Image struct {
			WholeExtent string `xml:"WholeExtent,attr"`
			Spacing     string `xml:"Spacing,attr"`
			Direction   string `xml:"Direction,attr"`
			Pieces      []struct {
				Extent string `xml:"Extent,attr"`
				Source string `xml:"Source,attr"`
			} `xml:"Piece"`
		} `xml:"PImageData"`
	}
	fail := func(format string, args ...any) (*VolumeData, voxelSource, error) {
		return nil, nil, fmt.Errorf("%s: "+format, append([]any{path}, args...)...)
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return fail("not a parallel VTK image: %v", err)
	}
	if doc.Type != "PImageData" {
		return fail("VTKFile type %q: goeq reads a parallel image (PImageData) from a .pvti", doc.Type)
	}
	whole, ok := parseExtent(doc.Image.WholeExtent)
	if !ok {
		return fail("WholeExtent %q; want six numbers, sides from 1 to %d points", doc.Image.WholeExtent, MaxVolumeSide)
	}
	spacing, err := parseSpacing(doc.Image.Spacing)
	if err != nil {
		return fail("%v", err)
	}
	v, err := newVolume(whole.dims(), spacing)
	if err != nil {
		return fail("%v", err)
	}
	if len(doc.Image.Pieces) == 0 {
		return fail("no pieces")
	}
	src := vtiPieces{whole: whole}
	if leftHandedDirection(doc.Image.Direction) {
		src.reverseRuns = v.W * v.H
	}
	for i, p := range doc.Image.Pieces {
		at, ok := parseExtent(p.Extent)
		if !ok || !at.within(whole) || p.Source == "" {
			return fail("piece %d: extent %q, source %q; want an extent within the whole %v, and its file", i, p.Extent, p.Source, whole)
		}
		file := beside(path, p.Source)
		if err := regular(file); err != nil {
			return nil, nil, err
		}
		img, err := openVTI(file)
		if err != nil {
			return nil, nil, err
		}
		if img.piece != at {
			return fail("piece %d: %s holds the extent %v, not %v", i, p.Source, img.piece, at)
		}
		if i > 0 && img.voxels.kind != src.pieces[0].voxels.kind {
			return fail("piece %d: %s holds numbers of another type than the first piece's", i, p.Source)
		}
		src.pieces = append(src.pieces, vtiPiece{at: at, voxels: img.voxels})
	}
	return v, src, nil
}

// vtiPieces are the pieces of a parallel image, each placed where its
// extent lies in the whole. Points a piece shares with another (VTK's
// pieces meet on a layer of points) are the same in both.
type vtiPieces struct {
	whole       extent
	pieces      []vtiPiece
	reverseRuns int // as voxelFile's: the whole's
}

type vtiPiece struct {
	at     extent
	voxels voxelFile
}

// read reads the whole image's n values: bytes as they are, widened,
// other types' numbers scaled from the least to the greatest of every
// piece, after a first pass over the pieces that also finds their data
// all there.
func (p vtiPieces) read(n int) ([]uint16, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pc := range p.pieces {
		d := pc.at.dims()
		err := pc.voxels.pass(d[0]*d[1]*d[2], func(_ int, x float64) {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pc.voxels.path, err)
		}
	}
	scale := valueScale(lo, hi)
	if p.pieces[0].voxels.kind == scalarUint8 {
		lo, scale = 0, byteValue // bytes as they are
	}
	values := make([]uint16, n)
	w := p.whole.dims()
	for _, pc := range p.pieces {
		d := pc.at.dims()
		x0, y0, z0 := pc.at[0]-p.whole[0], pc.at[2]-p.whole[2], pc.at[4]-p.whole[4]
		err := pc.voxels.pass(d[0]*d[1]*d[2], func(i int, x float64) {
			px, py, pz := i%d[0], i/d[0]%d[1], i/(d[0]*d[1])
			values[((z0+pz)*w[1]+y0+py)*w[0]+x0+px] = scaledValue(x, lo, scale)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pc.voxels.path, err)
		}
	}
	reverseRuns(values, p.reverseRuns)
	return values, nil
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
	lines := headerLines{r: bufio.NewReaderSize(f, 1<<16), format: "legacy VTK", endsAt: "LOOKUP_TABLE line"}
	var (
		dims    [3]int
		spacing = [3]float64{1, 1, 1}
		voxels  = voxelFile{path: path, order: binary.BigEndian, source: "header"}
		points  = -1
	)
	fail := func(format string, args ...any) (*VolumeData, voxelFile, error) {
		return nil, voxelFile{}, fmt.Errorf("%s: "+format, append([]any{path}, args...)...)
	}
	for {
		text, err := lines.next()
		if err == io.EOF {
			return fail("the header ends before its scalars' LOOKUP_TABLE line")
		}
		if err != nil {
			return fail("%v", err)
		}
		s := strings.TrimSpace(text)
		fields := strings.Fields(s)
		switch {
		case lines.line == 1:
			if !strings.HasPrefix(s, "# vtk DataFile") {
				return fail("not a legacy VTK file (first line %q)", quoteShort(s))
			}
		case lines.line == 2: // the title
		case lines.line == 3:
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
			voxels.offset = lines.size
			if err := voxels.place(v, false); err != nil {
				return nil, voxelFile{}, err
			}
			return v, voxels, nil
		case strings.EqualFold(fields[0], "ORIGIN"), strings.EqualFold(fields[0], "METADATA"), strings.EqualFold(fields[0], "INFORMATION"), strings.EqualFold(fields[0], "NAME"), strings.EqualFold(fields[0], "DATA"):
		default:
			return fail("line %d: %q before the point scalars: goeq reads an image's first point scalars", lines.line, s)
		}
	}
}
