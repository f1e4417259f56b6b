package render

import (
	"bytes"
	"cmp"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// MaxTransferFile bounds what ReadParaViewTransfer reads: a preset is a
// few kilobytes.
const MaxTransferFile = 1 << 20

// ReadParaViewTransfer reads a transfer function from a colour map
// preset as ParaView exports one (Save as preset, or Export): JSON, one
// preset or a list of them (the first is taken), its RGBPoints (x, red,
// green, blue, 0 to 1) and, where it has them, its opacity Points (x,
// opacity, midpoint, sharpness); or the XML colour maps of ParaView before
// 4.3 and of SciVisColor (a ColorMap of Points x, r, g, b, taken as
// ParaView takes them: colours only). Its x run is spread over the
// volume's values, 0 to 255, as ParaView fits a preset to the data's
// range. Colours blend in the preset's ColorSpace (RGB where it names
// none; HSVWrap as ParaView applies it, off unless the preset sets it),
// opacities as their midpoints and sharpnesses shape them, as VTK's
// functions that ParaView hands them to do. Without Points the opacities
// are DefaultTransfer's.
func ReadParaViewTransfer(r io.Reader) ([256][4]uint8, error) {
	var tf [256][4]uint8
	b, err := io.ReadAll(io.LimitReader(r, MaxTransferFile+1))
	if err != nil {
		return tf, err
	}
	if len(b) > MaxTransferFile {
		return tf, fmt.Errorf("more than %d bytes: no colour map preset", MaxTransferFile)
	}
	var p colorMapPreset
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // as a Windows editor saves it
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '<' {
		p, err = readColorMapXML(b)
	} else {
		p, err = readColorMapJSON(b)
	}
	if err != nil {
		return tf, err
	}
	space, err := parseColorSpace(p.ColorSpace)
	if err != nil {
		return tf, err
	}
	wrap, err := p.wraps()
	if err != nil {
		return tf, err
	}
	colors, err := transferPoints("RGBPoints", p.RGBPoints, 4, 1)
	if err != nil {
		return tf, err
	}
	var opacities [][]float64
	if len(p.Points) > 0 {
		if opacities, err = transferPoints("Points", p.Points, 4, 1); err != nil {
			return tf, err
		}
	}
	lo, hi := colors[0][0], colors[len(colors)-1][0]
	defaults := DefaultTransfer()
	for v := range tf {
		x := lo + (hi-lo)*float64(v)/255
		c0, c1, a := around(colors, x)
		rgb := space.blend([3]float64(c0[1:4]), [3]float64(c1[1:4]), a, wrap)
		for c := range 3 {
			tf[v][c] = unit(rgb[c])
		}
		tf[v][3] = defaults[v][3]
		if opacities != nil {
			o0, o1, a := around(opacities, x)
			// the shape is the left point's, as in VTK
			a = shapedFraction(a, o0[2], o0[3])
			tf[v][3] = unit(o0[1] + a*(o1[1]-o0[1]))
		}
	}
	return tf, nil
}

// colorMapPreset is what goeq takes of a colour map preset, in the JSON's
// terms.
type colorMapPreset struct {
	ColorSpace string
	HSVWrap    json.RawMessage // 0 or 1 as ParaView writes it; a bool by hand
	RGBPoints  []float64
	Points     []float64
}

func (p colorMapPreset) wraps() (bool, error) {
	switch v := string(bytes.TrimSpace(p.HSVWrap)); v {
	case "", "0", "false", "null":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, fmt.Errorf("HSVWrap %s: want 0 or 1", quoteShort(v))
	}
}

func readColorMapJSON(b []byte) (colorMapPreset, error) {
	var presets []colorMapPreset
	if err := json.Unmarshal(b, &presets); err != nil {
		var one colorMapPreset
		if err1 := json.Unmarshal(b, &one); err1 != nil {
			return one, fmt.Errorf("not a ParaView colour map preset (JSON with RGBPoints, or XML with a ColorMap): %v", err)
		}
		presets = []colorMapPreset{one}
	}
	if len(presets) == 0 {
		return colorMapPreset{}, errors.New("a list of no colour map presets")
	}
	return presets[0], nil
}

// readColorMapXML reads the first ColorMap of ParaView's older XML
// (a ColorMaps list, or one ColorMap): its space ("Wrapped" is HSV that
// wraps) and Points, sorted by x as ParaView sorts them. A Point's o is
// not read, as ParaView does not read it (it writes 1 to every point).
func readColorMapXML(b []byte) (colorMapPreset, error) {
	type point struct {
		X *float64 `xml:"x,attr"`
		R *float64 `xml:"r,attr"`
		G *float64 `xml:"g,attr"`
		B *float64 `xml:"b,attr"`
	}
	type colorMap struct {
		Name    string  `xml:"name,attr"`
		Space   string  `xml:"space,attr"`
		Indexed string  `xml:"indexedLookup,attr"`
		Points  []point `xml:"Point"`
	}
	var doc struct {
		XMLName xml.Name
		colorMap
		Maps []colorMap `xml:"ColorMap"`
	}
	var p colorMapPreset
	if err := xml.Unmarshal(b, &doc); err != nil {
		return p, fmt.Errorf("not a ParaView colour map (XML with a ColorMap): %v", err)
	}
	m := doc.colorMap
	switch {
	case doc.XMLName.Local == "ColorMaps" && len(doc.Maps) > 0:
		m = doc.Maps[0]
	case doc.XMLName.Local != "ColorMap":
		return p, fmt.Errorf("XML <%s> holds no ColorMap: not a ParaView colour map", doc.XMLName.Local)
	}
	if m.Indexed == "true" || m.Indexed == "1" {
		return p, fmt.Errorf("colour map %q is categorical (indexedLookup): a colour per value, where a volume's values take colours from a continuous map", m.Name)
	}
	switch m.Space {
	case "Wrapped":
		p.ColorSpace, p.HSVWrap = "HSV", json.RawMessage("1")
	case "NoChange":
	default:
		p.ColorSpace = m.Space
	}
	for i, pt := range m.Points {
		if pt.X == nil || pt.R == nil || pt.G == nil || pt.B == nil {
			return p, fmt.Errorf("colour map %q: Point %d lacks x, r, g or b", m.Name, i)
		}
		p.RGBPoints = append(p.RGBPoints, *pt.X, *pt.R, *pt.G, *pt.B)
	}
	sortPoints(p.RGBPoints, 4)
	return p, nil
}

// sortPoints sorts a flat list of points of size numbers by their first.
func sortPoints(flat []float64, size int) {
	points := make([][]float64, 0, len(flat)/size)
	for i := 0; i+size <= len(flat); i += size {
		points = append(points, slices.Clone(flat[i:i+size]))
	}
	slices.SortStableFunc(points, func(a, b []float64) int { return cmp.Compare(a[0], b[0]) })
	for i, pt := range points {
		copy(flat[i*size:], pt)
	}
}

// transferPoints splits a preset's flat list into points of size numbers,
// x first, at least least of them, in x order: x any number, the others
// 0 to 1.
func transferPoints(name string, flat []float64, size, least int) ([][]float64, error) {
	if len(flat) == 0 || len(flat)%size != 0 || len(flat)/size < least {
		return nil, fmt.Errorf("%s holds %d numbers; want %d or more points of %d (x, then the values)", name, len(flat), least, size)
	}
	var points [][]float64
	for i := 0; i < len(flat); i += size {
		p := flat[i : i+size]
		for k, x := range p {
			if math.IsNaN(x) || math.IsInf(x, 0) || k > 0 && (x < 0 || x > 1) {
				return nil, fmt.Errorf("%s point %d: %v; want a number x, then values from 0 to 1", name, i/size, p)
			}
		}
		if len(points) > 0 && p[0] < points[len(points)-1][0] {
			return nil, fmt.Errorf("%s point %d: x %v comes before the point before it", name, i/size, p[0])
		}
		points = append(points, p)
	}
	return points, nil
}

// around is the two points either side of x and x's fraction of the way
// from the first to the second; beyond the ends, the end twice.
func around(points [][]float64, x float64) (p0, p1 []float64, a float64) {
	i, _ := slices.BinarySearchFunc(points, x, func(p []float64, x float64) int {
		switch {
		case p[0] < x:
			return -1
		case p[0] > x:
			return 1
		}
		return 0
	})
	switch {
	case i == 0:
		return points[0], points[0], 0
	case i == len(points):
		return points[i-1], points[i-1], 0
	}
	p0, p1 = points[i-1], points[i]
	if p1[0] == p0[0] {
		return p1, p1, 0
	}
	return p0, p1, (x - p0[0]) / (p1[0] - p0[0])
}

// unit is x (0 to 1) as a byte.
func unit(x float64) uint8 { return uint8(math.Round(min(max(x, 0), 1) * 255)) }
