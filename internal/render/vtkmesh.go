package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goeq/goeq/internal/bounded"
)

// vtkSurface is a VTK polydata's arrays as goeq draws them: its points,
// their normals and colours where it has them, its polygons and triangle
// strips, and their colours.
type vtkSurface struct {
	points   []float64 // x y z a point
	normals  []float64 // x y z a point, or nil
	pointRGB []uint8   // r g b a point, or nil
	polys    vtkCells
	strips   vtkCells
	polyRGB  []uint8 // r g b a polygon, or nil
	stripRGB []uint8 // r g b a strip, or nil
	others   int     // vertex and line cells, which goeq does not draw
}

// vtkCells is a cell array as VTK 9 holds one: each cell's points are
// connectivity[offsets[i]:offsets[i+1]].
type vtkCells struct {
	offsets      []int64
	connectivity []int64
}

func (c vtkCells) count() int { return max(len(c.offsets)-1, 0) }

// check refuses offsets that do not run up through the connectivity, or
// points past the surface's.
func (c vtkCells) check(what string, points int) error {
	if len(c.offsets) == 0 {
		return nil
	}
	if c.offsets[0] != 0 || c.offsets[len(c.offsets)-1] != int64(len(c.connectivity)) {
		return fmt.Errorf("%s: offsets from %d to %d over %d points", what, c.offsets[0], c.offsets[len(c.offsets)-1], len(c.connectivity))
	}
	for i := 1; i < len(c.offsets); i++ {
		if c.offsets[i] < c.offsets[i-1] {
			return fmt.Errorf("%s: offset %d goes back from %d to %d", what, i, c.offsets[i-1], c.offsets[i])
		}
	}
	for _, p := range c.connectivity {
		if p < 0 || p >= int64(points) {
			return fmt.Errorf("%s: point %d of %d", what, p, points)
		}
	}
	return nil
}

// model makes the surface's model: polygons fanned into triangles, strips
// turned every other triangle so that all wind alike, its normals (or
// ones computed as a PLY's are), the points' colours, or else the cells'.
func (s *vtkSurface) model() (*Model, error) {
	n := len(s.points) / 3
	if n > MaxPLYVertices {
		return nil, fmt.Errorf("%d points exceed the limit of %d", n, MaxPLYVertices)
	}
	for _, c := range []struct {
		what  string
		cells vtkCells
	}{{"polygons", s.polys}, {"strips", s.strips}} {
		if err := c.cells.check(c.what, n); err != nil {
			return nil, err
		}
	}
	if s.polys.count() == 0 && s.strips.count() == 0 {
		if s.others > 0 {
			return nil, fmt.Errorf("%d points and %d vertex or line cells, and no polygons: goeq draws surfaces (ParaView's Extract Surface, or Delaunay 2D of points, makes one)", n, s.others)
		}
		return nil, fmt.Errorf("%d points and no polygons or strips: goeq draws surfaces", n)
	}
	colored := len(s.polyRGB) == 3*s.polys.count() && len(s.stripRGB) == 3*s.strips.count()
	m := &Model{Vertices: make([]float32, 6*n)}
	for i := range n {
		for a := range 3 {
			m.Vertices[6*i+a] = float32(s.points[3*i+a])
		}
	}
	var faceRGB []uint8
	add := func(rgb []uint8, a, b, c int64) error {
		if a == b || b == c || a == c {
			return nil // strips joined by repeated points leave triangles of no area
		}
		if len(m.Triangles) >= 3*MaxPLYFaces {
			return fmt.Errorf("more than the limit of %d triangles", MaxPLYFaces)
		}
		m.Triangles = append(m.Triangles, uint32(a), uint32(b), uint32(c))
		if colored {
			faceRGB = append(faceRGB, rgb...)
		}
		return nil
	}
	for i := range s.polys.count() {
		p := s.polys.connectivity[s.polys.offsets[i]:s.polys.offsets[i+1]]
		for k := 2; k < len(p); k++ {
			if err := add(colorAt(s.polyRGB, i), p[0], p[k-1], p[k]); err != nil {
				return nil, err
			}
		}
	}
	for i := range s.strips.count() {
		p := s.strips.connectivity[s.strips.offsets[i]:s.strips.offsets[i+1]]
		for k := 2; k < len(p); k++ {
			a, b := p[k-2], p[k-1]
			if k%2 == 1 {
				a, b = b, a
			}
			if err := add(colorAt(s.stripRGB, i), a, b, p[k]); err != nil {
				return nil, err
			}
		}
	}
	if len(m.Triangles) == 0 {
		return nil, errors.New("polygons of no area")
	}
	if len(s.normals) == 3*n {
		for i := range n {
			for a := range 3 {
				m.Vertices[6*i+3+a] = float32(s.normals[3*i+a])
			}
		}
	} else {
		m.computeNormals()
	}
	switch {
	case len(s.pointRGB) == 3*n:
		m.Colors = s.pointRGB
	case faceRGB != nil:
		m.colorFaces(faceRGB)
	}
	m.kdOrder()
	return m, nil
}

// colorAt is the i-th colour of rgb, or nil.
func colorAt(rgb []uint8, i int) []uint8 {
	if 3*i+3 > len(rgb) {
		return nil
	}
	return rgb[3*i : 3*i+3]
}

// rgbOf is an array of comps components (3 or 4, unsigned bytes) as
// r g b bytes; nil for another array.
func rgbOf(values []float64, comps int) []uint8 {
	if comps != 3 && comps != 4 {
		return nil
	}
	rgb := make([]uint8, 0, len(values)/comps*3)
	for i := 0; i+comps <= len(values); i += comps {
		for a := range 3 {
			rgb = append(rgb, uint8(min(max(values[i+a], 0), 255)))
		}
	}
	return rgb
}

// maxVTKArray is the most values goeq reads of a VTK array: a surface at
// the limits of points and triangles.
const maxVTKArray = 3 * MaxPLYFaces

// readVTP reads a VTK XML PolyData file (*.vtp, ParaView's own format for
// surfaces), of one piece or several: its points, polygons and strips,
// the points' normals (the PointData's Normals), and colours (a Scalars
// or other array of 3 or 4 unsigned bytes) of its points or else its
// cells, inline (ascii or base64) or appended, zlib-compressed or not.
func readVTP(f *os.File, size int64) (*Model, error) {
	s, err := readVTPSurface(f, size)
	if err != nil {
		return nil, err
	}
	return s.model()
}

// readVTPSurface reads a .vtp's pieces as one surface.
func readVTPSurface(f *os.File, size int64) (*vtkSurface, error) {
	dec := xml.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	var (
		blocks                      = vtkBlocks{header: 4}
		order      binary.ByteOrder = binary.LittleEndian
		arrays     []*vtpArray
		pieces     []map[string]int // each piece's counts: NumberOfPoints ...
		section    string           // PointData, CellData, Points, Polys...
		named      map[string]string
		current    *vtpArray
		appendedAt int64 = -1
		sawPoly    bool
	)
	for appendedAt < 0 {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a VTK XML file: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "VTKFile":
				if err := blocks.readVTKFile(e, "PolyData", "surfaces of PolyData (.vtp; ParaView's Extract Surface makes one of other data)", &order); err != nil {
					return nil, err
				}
			case "PolyData":
				sawPoly = true
			case "Piece":
				counts := map[string]int{}
				for _, name := range []string{"NumberOfPoints", "NumberOfVerts", "NumberOfLines", "NumberOfStrips", "NumberOfPolys"} {
					n, err := strconv.Atoi(xmlAttr(e, name))
					if xmlAttr(e, name) == "" {
						n, err = 0, nil
					}
					if err != nil || n < 0 || n > MaxPLYFaces {
						return nil, fmt.Errorf("piece %d: %s %q; want a count from 0 to %d", len(pieces)+1, name, xmlAttr(e, name), MaxPLYFaces)
					}
					counts[name] = n
				}
				pieces = append(pieces, counts)
			case "PointData", "CellData", "Points", "Verts", "Lines", "Strips", "Polys":
				section = e.Name.Local
				named = map[string]string{"Scalars": xmlAttr(e, "Scalars"), "Normals": xmlAttr(e, "Normals")}
			case "DataArray":
				if len(pieces) == 0 || section == "" {
					continue
				}
				comps, err := strconv.Atoi(xmlAttr(e, "NumberOfComponents"))
				if xmlAttr(e, "NumberOfComponents") == "" {
					comps, err = 1, nil
				}
				if err != nil || comps < 1 || comps > 64 {
					return nil, fmt.Errorf("array %q: NumberOfComponents %q", xmlAttr(e, "Name"), xmlAttr(e, "NumberOfComponents"))
				}
				a := &vtpArray{piece: len(pieces) - 1, section: section, name: xmlAttr(e, "Name"), comps: comps,
					typ: xmlAttr(e, "type"), format: xmlAttr(e, "format"), offset: xmlAttr(e, "offset")}
				a.scalars = a.name != "" && a.name == named["Scalars"]
				a.normals = a.name != "" && a.name == named["Normals"]
				arrays, current = append(arrays, a), a
			case "AppendedData":
				appendedAt = dec.InputOffset()
				if xmlAttr(e, "encoding") == "base64" {
					blocks.base64 = true
				}
			default:
				current = nil // an InformationKey's values are not the array's
			}
		case xml.CharData:
			if current != nil && current.format != "appended" {
				if current.text.Len()+len(e) > maxVTKArray*24 {
					return nil, fmt.Errorf("array %q: more text than %d values take", current.name, maxVTKArray)
				}
				current.text.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "DataArray":
				current = nil
			case "PointData", "CellData", "Points", "Verts", "Lines", "Strips", "Polys":
				section = ""
			}
		}
	}
	if !sawPoly || len(pieces) == 0 {
		return nil, errors.New("no PolyData element with a Piece: not a VTK XML surface")
	}
	dataAt := int64(-1)
	if appendedAt >= 0 {
		// the appended data begin after an underscore
		br := bufio.NewReader(io.NewSectionReader(f, appendedAt, 1<<20))
		for at := appendedAt; ; at++ {
			c, err := br.ReadByte()
			if err != nil {
				return nil, errors.New("AppendedData with no underscore before its data")
			}
			if c == '_' {
				dataAt = at + 1
				break
			}
			if !strings.ContainsRune(" \t\r\n", rune(c)) {
				return nil, fmt.Errorf("AppendedData begins %q, not with an underscore", c)
			}
		}
	}
	read := func(a *vtpArray) ([]float64, error) {
		values, err := a.values(f, size, dataAt, blocks, order)
		if err != nil {
			return nil, fmt.Errorf("array %q: %w", a.name, err)
		}
		return values, nil
	}
	// readRGB reads an array of colours of n tuples as r g b bytes
	readRGB := func(a *vtpArray, n int) ([]uint8, error) {
		values, err := read(a)
		if err != nil {
			return nil, err
		}
		if len(values) != a.comps*n {
			return nil, fmt.Errorf("array %q holds %d values for %d tuples of %d", a.name, len(values), n, a.comps)
		}
		return rgbOf(values, a.comps), nil
	}
	s := &vtkSurface{}
	for p, counts := range pieces {
		piece := &vtkSurface{}
		var (
			points, ptNormals, ptColors, cellColors *vtpArray
			cells                                   = map[string]map[string]*vtpArray{}
		)
		for _, a := range arrays {
			if a.piece != p {
				continue
			}
			switch a.section {
			case "Points":
				if points == nil {
					points = a
				}
			case "PointData":
				switch {
				case a.normals || a.name == "Normals" && ptNormals == nil:
					ptNormals = a
				case a.isRGB() && (a.scalars || ptColors == nil):
					ptColors = a
				}
			case "CellData":
				if a.isRGB() && (a.scalars || cellColors == nil) {
					cellColors = a
				}
			default:
				if cells[a.section] == nil {
					cells[a.section] = map[string]*vtpArray{}
				}
				cells[a.section][a.name] = a
			}
		}
		if points == nil || points.comps != 3 {
			return nil, fmt.Errorf("piece %d: no Points array of three components", p+1)
		}
		xyz, err := read(points)
		if err != nil {
			return nil, err
		}
		if len(xyz) != 3*counts["NumberOfPoints"] {
			return nil, fmt.Errorf("piece %d: %d point values for NumberOfPoints %d", p+1, len(xyz), counts["NumberOfPoints"])
		}
		piece.points = xyz
		for _, c := range []struct {
			section, count string
			into           *vtkCells
		}{{"Polys", "NumberOfPolys", &piece.polys}, {"Strips", "NumberOfStrips", &piece.strips}} {
			if counts[c.count] == 0 {
				continue
			}
			conn, offs := cells[c.section]["connectivity"], cells[c.section]["offsets"]
			if conn == nil || offs == nil {
				return nil, fmt.Errorf("piece %d: %s with no connectivity and offsets arrays", p+1, c.section)
			}
			connectivity, err := read(conn)
			if err != nil {
				return nil, err
			}
			offsets, err := read(offs)
			if err != nil {
				return nil, err
			}
			if len(offsets) != counts[c.count] {
				return nil, fmt.Errorf("piece %d: %d %s offsets for %s %d", p+1, len(offsets), c.section, c.count, counts[c.count])
			}
			c.into.offsets = []int64{0}
			for _, x := range connectivity {
				if !whole(x, 0, float64(counts["NumberOfPoints"]-1)) {
					return nil, fmt.Errorf("piece %d: %s point %g of %d", p+1, c.section, x, counts["NumberOfPoints"])
				}
				c.into.connectivity = append(c.into.connectivity, int64(x))
			}
			for _, x := range offsets { // each cell's end
				if !whole(x, 0, float64(len(connectivity))) {
					return nil, fmt.Errorf("piece %d: %s offset %g of %d points", p+1, c.section, x, len(connectivity))
				}
				c.into.offsets = append(c.into.offsets, int64(x))
			}
		}
		others := counts["NumberOfVerts"] + counts["NumberOfLines"]
		piece.others = others
		if ptNormals != nil && ptNormals.comps == 3 {
			if normals, err := read(ptNormals); err != nil {
				return nil, err
			} else {
				piece.normals = normals
			}
		}
		if ptColors != nil {
			if rgb, err := readRGB(ptColors, counts["NumberOfPoints"]); err != nil {
				return nil, err
			} else {
				piece.pointRGB = rgb
			}
		}
		if cellColors != nil {
			rgb, err := readRGB(cellColors, others+counts["NumberOfPolys"]+counts["NumberOfStrips"])
			if err != nil {
				return nil, err
			}
			rgb = rgb[3*others:]
			piece.polyRGB = rgb[:3*counts["NumberOfPolys"]]
			piece.stripRGB = rgb[3*counts["NumberOfPolys"]:]
		}
		s.join(piece)
	}
	return s, nil
}

// join adds o to the surface: its points after the surface's, its cells
// after its cells. Normals and colours that a part lacks leave the whole
// without (model goes by their lengths).
func (s *vtkSurface) join(o *vtkSurface) {
	base := int64(len(s.points) / 3)
	if len(o.normals) == len(o.points) {
		s.normals = append(s.normals, o.normals...)
	}
	if len(o.pointRGB) == len(o.points) {
		s.pointRGB = append(s.pointRGB, o.pointRGB...)
	}
	if len(o.polyRGB) == 3*o.polys.count() && len(o.stripRGB) == 3*o.strips.count() {
		s.polyRGB = append(s.polyRGB, o.polyRGB...)
		s.stripRGB = append(s.stripRGB, o.stripRGB...)
	}
	s.points = append(s.points, o.points...)
	s.polys.join(o.polys, base)
	s.strips.join(o.strips, base)
	s.others += o.others
}

// join adds o's cells, their points counted from base.
func (c *vtkCells) join(o vtkCells, base int64) {
	if o.count() == 0 {
		return
	}
	if len(c.offsets) == 0 {
		c.offsets = []int64{0}
	}
	start := int64(len(c.connectivity))
	for _, x := range o.offsets[1:] {
		c.offsets = append(c.offsets, start+x)
	}
	for _, p := range o.connectivity {
		c.connectivity = append(c.connectivity, base+p)
	}
}

// loadPVTP reads a parallel VTK surface (*.pvtp, as ParaView and VTK
// write one from a run of several processes): its pieces, each a .vtp
// (Source) beside it, as one surface.
func loadPVTP(path string) (*Model, error) {
	files, err := pvtpPieces(path)
	if err != nil {
		return nil, err
	}
	s := &vtkSurface{}
	for _, file := range files {
		if err := regular(file); err != nil {
			return nil, err
		}
		var piece *vtkSurface
		_, err := loadWith(file, func(f *os.File, size int64) (*Model, error) {
			var err error
			piece, err = readVTPSurface(f, size)
			return nil, err
		})
		if err != nil {
			return nil, err
		}
		s.join(piece)
	}
	m, err := s.model()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// pvtpPieces is the files of a .pvtp's pieces.
func pvtpPieces(path string) ([]string, error) {
	b, err := bounded.ReadFile(path, maxVolumeHeader)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Type   string `xml:"type,attr"`
		Pieces []struct {
			Source string `xml:"Source,attr"`
		} `xml:"PPolyData>Piece"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a parallel VTK surface: %v", path, err)
	}
	if doc.Type != "PPolyData" {
		return nil, fmt.Errorf("%s: VTKFile type %q: goeq reads a parallel surface (PPolyData) from a .pvtp", path, doc.Type)
	}
	if len(doc.Pieces) == 0 {
		return nil, fmt.Errorf("%s: no pieces", path)
	}
	var files []string
	for i, p := range doc.Pieces {
		if p.Source == "" {
			return nil, fmt.Errorf("%s: piece %d names no file (Source)", path, i+1)
		}
		files = append(files, beside(path, p.Source))
	}
	return files, nil
}

// ModelParts is the other files the model at path is read from: a
// .pvtp's pieces (a folder holding it holds them too, and they are
// parts of it, not models of their own); none for other models.
func ModelParts(path string) ([]string, error) {
	if !strings.EqualFold(filepath.Ext(path), ".pvtp") {
		return nil, nil
	}
	return pvtpPieces(path)
}

// vtpArray is a DataArray of a .vtp: where it is, and its text where it
// is inline.
type vtpArray struct {
	piece            int
	section, name    string
	comps            int
	typ              string
	format, offset   string
	scalars, normals bool // the section names it its Scalars or Normals
	text             strings.Builder
}

// isRGB says whether the array holds colours: 3 or 4 unsigned bytes a
// tuple, as VTK's PLY reader and ParaView write them.
func (a *vtpArray) isRGB() bool { return a.typ == "UInt8" && (a.comps == 3 || a.comps == 4) }

// values reads the array's values: inline, or appended at dataAt.
func (a *vtpArray) values(f *os.File, size, dataAt int64, blocks vtkBlocks, order binary.ByteOrder) ([]float64, error) {
	kind, ok := vtkXMLTypes[a.typ]
	if !ok {
		return nil, fmt.Errorf("type %q; want Int8 to Float64", a.typ)
	}
	var r *bufio.Reader
	switch a.format {
	case "ascii":
		fields := strings.Fields(a.text.String())
		values := make([]float64, len(fields))
		for i, w := range fields {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, fmt.Errorf("%q is no finite number", quoteShort(w))
			}
			values[i] = x
		}
		return values, nil
	case "binary":
		blocks.base64 = true
		r = bufio.NewReader(strings.NewReader(strings.TrimSpace(a.text.String())))
	case "appended":
		if dataAt < 0 {
			return nil, errors.New("appended, and no AppendedData")
		}
		offset, err := strconv.ParseInt(a.offset, 10, 64)
		if err != nil || offset < 0 || offset > size-dataAt {
			return nil, fmt.Errorf("offset %q in %d bytes of appended data", a.offset, size-dataAt)
		}
		r = bufio.NewReaderSize(io.NewSectionReader(f, dataAt+offset, size-dataAt-offset), 1<<16)
	default:
		return nil, fmt.Errorf("format %q; want ascii, binary or appended", a.format)
	}
	data, err := blocks.open(r, order)
	if err != nil {
		return nil, err
	}
	width := kind.size()
	b, err := io.ReadAll(io.LimitReader(data, int64(maxVTKArray*width)+1))
	switch {
	case err != nil:
		return nil, endedEarly(err)
	case len(b) > maxVTKArray*width:
		return nil, fmt.Errorf("more than %d values", maxVTKArray)
	case len(b)%width != 0:
		return nil, fmt.Errorf("%d bytes: the data end within a value of %d bytes", len(b), width)
	}
	values := make([]float64, len(b)/width)
	for i := range values {
		values[i] = kind.decode(b[width*i:], order)
	}
	return values, nil
}

// legacyVTK reads a legacy VTK file's keyword lines and their values:
// text, or big-endian binary right after a keyword line.
type legacyVTK struct {
	r      *bufio.Reader
	binary bool
	line   int
}

// keywords is the next line that is not blank, in fields.
func (l *legacyVTK) keywords() ([]string, error) {
	for {
		text, err := bounded.ReadLine(l.r, maxVolumeHeaderLine)
		l.line++
		if f := strings.Fields(string(text)); len(f) > 0 && (err == nil || err == io.EOF) {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// values reads n values of the type named typ (VTK's legacy names).
func (l *legacyVTK) values(n int, typ string) ([]float64, error) {
	kind, ok := vtkLegacyTypes[strings.ToLower(typ)]
	if strings.EqualFold(typ, "vtkIdType") {
		kind, ok = scalarInt32, true // as VTK writes ids in legacy files
	}
	if !ok {
		return nil, fmt.Errorf("line %d: type %q; want float, double, int, unsigned_char or another of VTK's", l.line, typ)
	}
	return l.valuesOf(n, kind)
}

func (l *legacyVTK) valuesOf(n int, kind scalarKind) ([]float64, error) {
	if n < 0 || n > maxVTKArray {
		return nil, fmt.Errorf("line %d: %d values; want 0 to %d", l.line, n, maxVTKArray)
	}
	values := make([]float64, 0, min(n, 1<<16))
	if l.binary {
		size := kind.size()
		err := eachRun(l.r, size, n, func(_ int, run []byte) {
			for i := 0; i < len(run); i += size {
				values = append(values, kind.decode(run[i:], binary.BigEndian))
			}
		})
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", l.line, endedEarly(err))
		}
		return values, nil
	}
	for range n {
		w, err := l.word()
		if err != nil {
			return nil, fmt.Errorf("line %d: %d values of %d: %w", l.line, len(values), n, endedEarly(err))
		}
		x, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("line %d: %q is no finite number", l.line, quoteShort(w))
		}
		values = append(values, x)
	}
	return values, nil
}

// word is the next word of text values.
func (l *legacyVTK) word() (string, error) {
	var b strings.Builder
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			if b.Len() > 0 {
				return b.String(), nil
			}
			return "", err
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			if c == '\n' {
				l.line++
			}
			if b.Len() > 0 {
				return b.String(), nil
			}
			continue
		}
		if b.Len() > 64 {
			return "", fmt.Errorf("line %d: a value longer than 64 bytes", l.line)
		}
		b.WriteByte(c)
	}
}

// count reads field i of f as a count from 0 to most.
func count(f []string, i, most int) (int, bool) {
	if i >= len(f) {
		return 0, false
	}
	n, err := strconv.Atoi(f[i])
	return n, err == nil && n >= 0 && n <= most
}

// readLegacyVTKSurface reads a legacy VTK file (*.vtk) of POLYDATA, as
// VTK and ParaView write them (versions to 4.2, and 5.1's offsets and
// connectivity), ASCII or binary: its points, polygons and triangle
// strips, the points' normals, and colours (COLOR_SCALARS, or SCALARS of
// 3 or 4 unsigned chars) of its points or else its cells.
func readLegacyVTKSurface(f *os.File, _ int64) (*Model, error) {
	l := &legacyVTK{r: bufio.NewReaderSize(f, 1<<16)}
	line, err := bounded.ReadLine(l.r, maxVolumeHeaderLine)
	head := string(line)
	if err != nil || !strings.HasPrefix(head, "# vtk DataFile Version") {
		return nil, fmt.Errorf("not a legacy VTK file (first line %q)", quoteShort(strings.TrimSpace(head)))
	}
	version, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(head, "# vtk DataFile Version")), 64)
	if _, err := bounded.ReadLine(l.r, maxVolumeHeaderLine); err != nil { // the title
		return nil, errors.New("the file ends in its title")
	}
	l.line = 2
	mode, err := l.keywords()
	if err != nil {
		return nil, errors.New("the file ends before ASCII or BINARY")
	}
	switch strings.ToUpper(mode[0]) {
	case "ASCII":
	case "BINARY":
		l.binary = true
	default:
		return nil, fmt.Errorf("line 3: %q; want ASCII or BINARY", mode[0])
	}
	s := &vtkSurface{}
	var (
		cellKinds [4]int // vertices, lines, polygons, strips
		data      string // POINT_DATA or CELL_DATA
		tuples    int    // of the data
		cellRGB   []uint8
		sawSet    bool
	)
	for {
		f, err := l.keywords()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		key := strings.ToUpper(f[0])
		bad := func() (*Model, error) {
			return nil, fmt.Errorf("line %d: %q", l.line, quoteShort(strings.Join(f, " ")))
		}
		switch key {
		case "DATASET":
			if len(f) != 2 || !strings.EqualFold(f[1], "POLYDATA") {
				return nil, fmt.Errorf("line %d: %q: goeq draws POLYDATA surfaces (a STRUCTURED_POINTS image is a volume, for goeq's volume example)", l.line, strings.Join(f, " "))
			}
			sawSet = true
		case "POINTS":
			n, ok := count(f, 1, MaxPLYVertices)
			if !ok || len(f) != 3 {
				return bad()
			}
			if s.points, err = l.values(3*n, f[2]); err != nil {
				return nil, err
			}
		case "VERTICES", "LINES", "POLYGONS", "TRIANGLE_STRIPS":
			n, ok := count(f, 1, MaxPLYFaces)
			size, ok2 := count(f, 2, maxVTKArray)
			if !ok || !ok2 || len(f) != 3 {
				return bad()
			}
			cells, err := l.cells(n, size, version)
			if err != nil {
				return nil, err
			}
			kind := map[string]int{"VERTICES": 0, "LINES": 1, "POLYGONS": 2, "TRIANGLE_STRIPS": 3}[key]
			cellKinds[kind] = cells.count()
			switch kind {
			case 2:
				s.polys = cells
			case 3:
				s.strips = cells
			}
		case "POINT_DATA", "CELL_DATA":
			n, ok := count(f, 1, MaxPLYFaces)
			if !ok {
				return bad()
			}
			data, tuples = key, n
		case "SCALARS", "COLOR_SCALARS", "NORMALS", "VECTORS", "TEXTURE_COORDINATES", "TENSORS", "GLOBAL_IDS", "PEDIGREE_IDS":
			if data == "" {
				return nil, fmt.Errorf("line %d: %s before POINT_DATA or CELL_DATA", l.line, key)
			}
			values, comps, err := l.attribute(key, f, tuples)
			if err != nil {
				return nil, err
			}
			colours := key == "COLOR_SCALARS" || key == "SCALARS" && strings.EqualFold(f[2], "unsigned_char")
			switch {
			case key == "NORMALS" && data == "POINT_DATA":
				s.normals = values
			case colours && data == "POINT_DATA" && s.pointRGB == nil:
				s.pointRGB = rgbOf(values, comps)
			case colours && data == "CELL_DATA" && cellRGB == nil:
				cellRGB = rgbOf(values, comps)
			}
		case "FIELD":
			arrays, ok := count(f, 2, 1<<10)
			if !ok {
				return bad()
			}
			for range arrays {
				a, err := l.keywords()
				if err != nil {
					return nil, endedEarly(err)
				}
				comps, ok := count(a, 1, 1<<10)
				n, ok2 := count(a, 2, maxVTKArray)
				if !ok || !ok2 || len(a) != 4 || comps*n > maxVTKArray {
					return nil, fmt.Errorf("line %d: %q; want an array's name, components, tuples and type", l.line, quoteShort(strings.Join(a, " ")))
				}
				if _, err := l.values(comps*n, a[3]); err != nil {
					return nil, err
				}
			}
		case "METADATA":
			if err := l.skipMetadata(); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("line %d: %q: not a keyword of a legacy VTK POLYDATA file", l.line, quoteShort(strings.Join(f, " ")))
		}
	}
	if !sawSet {
		return nil, errors.New("no DATASET POLYDATA line")
	}
	s.others = cellKinds[0] + cellKinds[1]
	if cells := cellKinds[0] + cellKinds[1] + cellKinds[2] + cellKinds[3]; len(cellRGB) == 3*cells {
		s.polyRGB = cellRGB[3*s.others : 3*(s.others+cellKinds[2])]
		s.stripRGB = cellRGB[3*(s.others+cellKinds[2]):]
	}
	return s.model()
}

// cells reads a cell array of n cells (n+1 offsets from version 5) over
// size points (or counts and points, before 5).
func (l *legacyVTK) cells(n, size int, version float64) (vtkCells, error) {
	if version >= 5 {
		var c vtkCells
		for _, want := range []string{"OFFSETS", "CONNECTIVITY"} {
			f, err := l.keywords()
			if err != nil || len(f) != 2 || !strings.EqualFold(f[0], want) {
				return vtkCells{}, fmt.Errorf("line %d: want %s TYPE", l.line, want)
			}
			values, err := l.values(map[string]int{"OFFSETS": n, "CONNECTIVITY": size}[want], f[1])
			if err != nil {
				return vtkCells{}, err
			}
			ints := make([]int64, len(values))
			for i, x := range values {
				if !whole(x, 0, maxVTKArray) {
					return vtkCells{}, fmt.Errorf("line %d: %s %g", l.line, strings.ToLower(want), x)
				}
				ints[i] = int64(x)
			}
			if want == "OFFSETS" {
				c.offsets = ints
			} else {
				c.connectivity = ints
			}
		}
		if n == 0 {
			c.offsets = nil
		}
		return c, nil
	}
	values, err := l.valuesOf(size, scalarInt32)
	if err != nil {
		return vtkCells{}, err
	}
	c := vtkCells{offsets: []int64{0}}
	for i := 0; i < len(values); {
		k := values[i]
		if !whole(k, 0, float64(len(values)-i-1)) {
			return vtkCells{}, fmt.Errorf("line %d: a cell of %g points, %d values left", l.line, k, len(values)-i-1)
		}
		for _, p := range values[i+1 : i+1+int(k)] {
			if !whole(p, 0, math.MaxInt32) {
				return vtkCells{}, fmt.Errorf("line %d: point %g", l.line, p)
			}
			c.connectivity = append(c.connectivity, int64(p))
		}
		c.offsets = append(c.offsets, int64(len(c.connectivity)))
		i += 1 + int(k)
	}
	if c.count() != n {
		return vtkCells{}, fmt.Errorf("line %d: %d cells for a count of %d", l.line, c.count(), n)
	}
	return c, nil
}

// attribute reads a point or cell attribute of n tuples: its values and
// their components a tuple.
func (l *legacyVTK) attribute(key string, f []string, n int) ([]float64, int, error) {
	bad := fmt.Errorf("line %d: %q", l.line, quoteShort(strings.Join(f, " ")))
	switch key {
	case "SCALARS":
		if len(f) < 3 || len(f) > 4 {
			return nil, 0, bad
		}
		comps := 1
		if len(f) == 4 {
			var ok bool
			if comps, ok = count(f, 3, 4); !ok || comps < 1 {
				return nil, 0, bad
			}
		}
		table, err := l.keywords()
		if err != nil || !strings.EqualFold(table[0], "LOOKUP_TABLE") {
			return nil, 0, fmt.Errorf("line %d: SCALARS with no LOOKUP_TABLE line", l.line)
		}
		values, err := l.values(comps*n, f[2])
		return values, comps, err
	case "COLOR_SCALARS":
		comps, ok := count(f, 2, 4)
		if !ok || comps < 1 || len(f) != 3 {
			return nil, 0, bad
		}
		if l.binary {
			values, err := l.valuesOf(comps*n, scalarUint8)
			return values, comps, err
		}
		values, err := l.valuesOf(comps*n, scalarFloat64) // 0 to 1 as text
		for i := range values {
			values[i] = math.Round(values[i] * 255)
		}
		return values, comps, err
	case "NORMALS", "VECTORS":
		if len(f) != 3 {
			return nil, 0, bad
		}
		values, err := l.values(3*n, f[2])
		return values, 3, err
	case "TENSORS":
		if len(f) != 3 {
			return nil, 0, bad
		}
		values, err := l.values(9*n, f[2])
		return values, 9, err
	case "TEXTURE_COORDINATES":
		dims, ok := count(f, 2, 3)
		if !ok || dims < 1 || len(f) != 4 {
			return nil, 0, bad
		}
		values, err := l.values(dims*n, f[3])
		return values, dims, err
	}
	// GLOBAL_IDS, PEDIGREE_IDS
	if len(f) != 3 {
		return nil, 0, bad
	}
	values, err := l.values(n, f[2])
	return values, 1, err
}

// skipMetadata reads past a METADATA block: lines up to a blank one.
func (l *legacyVTK) skipMetadata() error {
	for lines := 0; ; lines++ {
		text, err := bounded.ReadLine(l.r, maxVolumeHeaderLine)
		l.line++
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", l.line, err)
		}
		if len(bytes.TrimSpace(text)) == 0 || err != nil || lines > 1<<16 {
			return nil
		}
	}
}
