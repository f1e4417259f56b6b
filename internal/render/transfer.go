package render

import (
	"encoding/json"
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
// opacity, midpoint, sharpness). Its x run is spread over the volume's
// values, 0 to 255, as ParaView fits a preset to the data's range; colours
// are interpolated in RGB (ParaView may blend in another colour space),
// opacities linearly (midpoint and sharpness aside). Without Points the
// opacities are DefaultTransfer's.
func ReadParaViewTransfer(r io.Reader) ([256][4]uint8, error) {
	var tf [256][4]uint8
	b, err := io.ReadAll(io.LimitReader(r, MaxTransferFile+1))
	if err != nil {
		return tf, err
	}
	if len(b) > MaxTransferFile {
		return tf, fmt.Errorf("more than %d bytes: no colour map preset", MaxTransferFile)
	}
	type preset struct {
		Name      string
		RGBPoints []float64
		Points    []float64
	}
	var presets []preset
	if err := json.Unmarshal(b, &presets); err != nil {
		var one preset
		if err1 := json.Unmarshal(b, &one); err1 != nil {
			return tf, fmt.Errorf("not a ParaView colour map preset (JSON with RGBPoints): %v", err)
		}
		presets = []preset{one}
	}
	if len(presets) == 0 {
		return tf, errors.New("a list of no colour map presets")
	}
	p := presets[0]
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
		for c := range 3 {
			tf[v][c] = unit(interpolate(colors, x, 1+c))
		}
		tf[v][3] = defaults[v][3]
		if opacities != nil {
			tf[v][3] = unit(interpolate(opacities, x, 1))
		}
	}
	return tf, nil
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

// interpolate is the value at column k of the points at x, linearly
// between the two around it, the end's beyond the ends.
func interpolate(points [][]float64, x float64, k int) float64 {
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
		return points[0][k]
	case i == len(points):
		return points[len(points)-1][k]
	}
	a, b := points[i-1], points[i]
	if b[0] == a[0] {
		return b[k]
	}
	t := (x - a[0]) / (b[0] - a[0])
	return a[k] + t*(b[k]-a[k])
}

// unit is x (0 to 1) as a byte.
func unit(x float64) uint8 { return uint8(math.Round(min(max(x, 0), 1) * 255)) }
