package render

import (
	"fmt"
	"math"
)

// colorSpace is how a colour map blends between its points, as VTK's
// colour transfer function (and so ParaView) does: the same two points
// give other colours in between in each.
type colorSpace int

const (
	spaceRGB colorSpace = iota
	spaceHSV
	spaceLab
	spaceDiverging // Moreland's: through white between saturated ends
	spaceStep      // no blend: each point's colour holds down to the point before
)

// parseColorSpace reads a preset's ColorSpace, as ParaView names them.
// A preset without one is blended in RGB. Lab/CIEDE2000 is refused rather
// than taken as Lab: its path through Lab space is not Lab's straight line,
// and its colours would differ by up to a tenth of the range unsaid.
func parseColorSpace(name string) (colorSpace, error) {
	switch name {
	case "", "RGB":
		return spaceRGB, nil
	case "HSV":
		return spaceHSV, nil
	case "Lab":
		return spaceLab, nil
	case "Diverging":
		return spaceDiverging, nil
	case "Step":
		return spaceStep, nil
	case "Lab/CIEDE2000":
		return 0, fmt.Errorf("ColorSpace %q: goeq blends colour maps in RGB, HSV, Lab, Diverging or Step; save the preset with \"Lab\", the nearest", name)
	}
	return 0, fmt.Errorf("ColorSpace %q: not one of ParaView's (RGB, HSV, Lab, Diverging, Lab/CIEDE2000, Step)", name)
}

// blend is the colour a of the way (0 to 1) from c0 to c1 in space; wrap
// takes HSV's hue the shorter way round the circle (ParaView's HSVWrap).
func (space colorSpace) blend(c0, c1 [3]float64, a float64, wrap bool) [3]float64 {
	switch space {
	case spaceHSV:
		h0, h1 := rgbToHSV(c0), rgbToHSV(c1)
		if wrap && math.Abs(h0[0]-h1[0]) > 0.5 {
			if h0[0] > h1[0] {
				h0[0]--
			} else {
				h1[0]--
			}
		}
		h := lerp3(h0, h1, a)
		if h[0] < 0 {
			h[0]++
		}
		return hsvToRGB(h)
	case spaceLab:
		return labToRGB(lerp3(rgbToLab(c0), rgbToLab(c1), a))
	case spaceDiverging:
		return diverging(c0, c1, a)
	case spaceStep:
		if a > 0 {
			return c1
		}
		return c0
	}
	return lerp3(c0, c1, a)
}

func lerp3(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1]), a[2] + t*(b[2]-a[2])}
}

// rgbToHSV gives hue, saturation and value, each 0 to 1.
func rgbToHSV(c [3]float64) [3]float64 {
	r, g, b := c[0], c[1], c[2]
	hi, lo := max(r, g, b), min(r, g, b)
	if hi <= 0 || hi == lo {
		return [3]float64{0, 0, hi}
	}
	d := hi - lo
	var h float64
	switch hi {
	case r:
		h = (g - b) / d / 6
	case g:
		h = 1.0/3 + (b-r)/d/6
	default:
		h = 2.0/3 + (r-g)/d/6
	}
	if h < 0 {
		h++
	}
	return [3]float64{h, d / hi, hi}
}

// hsvToRGB is rgbToHSV's inverse; a hue of 1 is a hue of 0.
func hsvToRGB(c [3]float64) [3]float64 {
	h, s, v := c[0], c[1], c[2]
	var r, g, b float64 // the fully saturated colour of h
	switch sextant := h * 6; {
	case sextant > 1 && sextant <= 2:
		r, g, b = 2-sextant, 1, 0
	case sextant > 2 && sextant <= 3:
		r, g, b = 0, 1, sextant-2
	case sextant > 3 && sextant <= 4:
		r, g, b = 0, 4-sextant, 1
	case sextant > 4 && sextant <= 5:
		r, g, b = sextant-4, 0, 1
	case sextant > 5 && sextant <= 6:
		r, g, b = 1, 0, 6-sextant
	default:
		r, g, b = 1, sextant, 0
	}
	return [3]float64{v * (s*r + 1 - s), v * (s*g + 1 - s), v * (s*b + 1 - s)}
}

// The white point (D65) and sRGB's primaries, as VTK converts with them.
const whiteX, whiteY, whiteZ = 0.9505, 1.0, 1.089

// rgbToLab takes an sRGB colour to CIE L*a*b*.
func rgbToLab(c [3]float64) [3]float64 {
	var lin [3]float64
	for i, v := range c {
		if v > 0.04045 {
			lin[i] = math.Pow((v+0.055)/1.055, 2.4)
		} else {
			lin[i] = v / 12.92
		}
	}
	x := (lin[0]*0.4124 + lin[1]*0.3576 + lin[2]*0.1805) / whiteX
	y := (lin[0]*0.2126 + lin[1]*0.7152 + lin[2]*0.0722) / whiteY
	z := (lin[0]*0.0193 + lin[1]*0.1192 + lin[2]*0.9505) / whiteZ
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	fx, fy, fz := f(x), f(y), f(z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// labToRGB is rgbToLab's inverse, a colour outside sRGB brought inside
// by scaling down (VTK's clipping: a component over 1 scales all three).
func labToRGB(c [3]float64) [3]float64 {
	fy := (c[0] + 16) / 116
	fx, fz := c[1]/500+fy, fy-c[2]/200
	inv := func(t float64) float64 {
		if t3 := t * t * t; t3 > 0.008856 {
			return t3
		}
		return (t - 16.0/116) / 7.787
	}
	x, y, z := whiteX*inv(fx), whiteY*inv(fy), whiteZ*inv(fz)
	lin := [3]float64{
		x*3.2406 + y*-1.5372 + z*-0.4986,
		x*-0.9689 + y*1.8758 + z*0.0415,
		x*0.0557 + y*-0.2040 + z*1.0570,
	}
	var rgb [3]float64
	for i, v := range lin {
		if v > 0.0031308 {
			rgb[i] = 1.055*math.Pow(v, 1/2.4) - 0.055
		} else {
			rgb[i] = 12.92 * v
		}
	}
	if top := max(rgb[0], rgb[1], rgb[2]); top > 1 {
		rgb = [3]float64{rgb[0] / top, rgb[1] / top, rgb[2] / top}
	}
	return [3]float64{max(rgb[0], 0), max(rgb[1], 0), max(rgb[2], 0)}
}

// diverging blends as Moreland's diverging colour maps do (ParaView's
// default, Cool to Warm): in polar Lab (Msh: magnitude, saturation as the
// angle from the L axis, hue), through a white at least as bright as
// either end when both ends are saturated colours of unlike hue, and
// with an unsaturated end given a hue that keeps the path smooth.
func diverging(c0, c1 [3]float64, a float64) [3]float64 {
	m0, m1 := labToMsh(rgbToLab(c0)), labToMsh(rgbToLab(c1))
	if m0[1] > 0.05 && m1[1] > 0.05 && hueDistance(m0[2], m1[2]) > math.Pi/3 {
		white := [3]float64{max(m0[0], m1[0], 88), 0, 0}
		if a < 0.5 {
			m1, a = white, 2*a
		} else {
			m0, a = white, 2*a-1
		}
	}
	switch {
	case m0[1] < 0.05 && m1[1] > 0.05:
		m0[2] = spunHue(m1, m0[0])
	case m1[1] < 0.05 && m0[1] > 0.05:
		m1[2] = spunHue(m0, m1[0])
	}
	m := lerp3(m0, m1, a)
	return labToRGB([3]float64{
		m[0] * math.Cos(m[1]),
		m[0] * math.Sin(m[1]) * math.Cos(m[2]),
		m[0] * math.Sin(m[1]) * math.Sin(m[2]),
	})
}

func labToMsh(lab [3]float64) [3]float64 {
	m := math.Sqrt(lab[0]*lab[0] + lab[1]*lab[1] + lab[2]*lab[2])
	var s, h float64
	if m > 0.001 {
		s = math.Acos(lab[0] / m)
	}
	if s > 0.001 {
		h = math.Atan2(lab[2], lab[1])
	}
	return [3]float64{m, s, h}
}

// hueDistance is the angle between two hues, 0 to π.
func hueDistance(h0, h1 float64) float64 {
	d := math.Mod(math.Abs(h0-h1), 2*math.Pi)
	if d > math.Pi {
		d = 2*math.Pi - d
	}
	return d
}

// spunHue is the hue an unsaturated colour of magnitude m takes beside the
// saturated msh: msh's, turned away from purple by as much as the
// unsaturated end is brighter.
func spunHue(msh [3]float64, m float64) float64 {
	if msh[0] >= m-0.1 {
		return msh[2]
	}
	spin := msh[1] * math.Sqrt(m*m-msh[0]*msh[0]) / (msh[0] * math.Sin(msh[1]))
	if msh[2] > -0.3*math.Pi {
		return msh[2] + spin
	}
	return msh[2] - spin
}

// shapedFraction is how far between two points x's value lies, a being
// x's fraction of the way, as a point's midpoint and sharpness shape it
// (VTK's piecewise functions): the midpoint is where the value is half
// way; a sharpness of 0 is linear, of 1 a step at the midpoint, and in
// between a curve that flattens at both points.
func shapedFraction(a, midpoint, sharpness float64) float64 {
	midpoint = min(max(midpoint, 1e-5), 1-1e-5) // as VTK holds it, off the ends
	if a < midpoint {
		a = 0.5 * a / midpoint
	} else {
		a = 0.5 + 0.5*(a-midpoint)/(1-midpoint)
	}
	switch {
	case sharpness > 0.99:
		if a < 0.5 {
			return 0
		}
		return 1
	case sharpness < 0.01:
		return a
	}
	// push the fraction toward the ends, then a Hermite curve whose
	// slopes at the points shrink as the sharpness grows
	exp := 1 + 10*sharpness
	if a < 0.5 {
		a = 0.5 * math.Pow(2*a, exp)
	} else if a > 0.5 {
		a = 1 - 0.5*math.Pow(2*(1-a), exp)
	}
	a2, a3 := a*a, a*a*a
	slope := 1 - sharpness
	f := -2*a3 + 3*a2 + (a3-2*a2+a)*slope + (a3-a2)*slope
	return min(max(f, 0), 1)
}
