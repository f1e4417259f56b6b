package compound

import (
	"fmt"
	"slices"
	"strings"
)

// checkCoverage warns where the compounds that draw under a compound split
// its work along one dimension (2D viewports, DB ranges, pixel kernels,
// subpixel samples, or the frames of period and phase) and leave part of
// it to none of them, or draw part of it twice, or that all draw the same
// part of it, and where a destination's one draw leaves part of it out.
// Equalizer runs such a file
// as written: the part left out shows the clear, or misses from the
// picture, and the part drawn twice costs twice. The draws are taken
// wherever they are under it (a direct send draws its ranges a level
// down), and a compound whose children an equalizer splits is one part
// of what is above it, judged by its own extent. Draws that differ in more
// than one dimension are judged by the compound's children instead, where
// those differ in one (DB halves of pixel parts), and otherwise not (an
// eye decomposition of 2D parts, say).
func (r *resolver) checkCoverage(cfg *Config) {
	for _, root := range cfg.Compounds {
		r.checkCoverageUnder(root)
		root.Walk(func(c *Compound) {
			if c.Channel == nil && c.IsLeaf() {
				r.warnf(r.raw[c].pos, "this compound names no channel, nor does any compound above it: it draws nowhere (name the channel it draws on: channel \"...\")")
			}
			if c.Channel != nil && c.Destination() == c && c.Range != FullRange {
				r.warnf(r.raw[c].pos, "this destination draws only range [ %g %g ] of the data: its pictures show that part of the model alone",
					c.Range.Start, c.Range.End)
			}
		})
	}
}

// checkCoverageUnder checks c's subtree, innermost compounds first, and
// reports whether it warned: a compound above one it warned about is not
// judged again for the same draws.
func (r *resolver) checkCoverageUnder(c *Compound) bool {
	warned := false
	for _, ch := range c.Children {
		warned = r.checkCoverageUnder(ch) || warned
	}
	if warned {
		return true
	}
	if msg := r.coverage(c); msg != "" {
		r.warnf(r.raw[c].pos, "%s", msg)
		return true
	}
	return false
}

// splitDimension is what the draws under a compound split it by.
type splitDimension int

const (
	splitViewport splitDimension = iota
	splitRange
	splitPixel
	splitSubpixel
	splitTime
	splitEyes
	splitDimensions
)

// coverage says how the draws under c fail to split it, or "".
func (r *resolver) coverage(c *Compound) string {
	if len(c.Children) == 0 || len(c.Equalizers) > 0 || r.draws(c) || c.Channel == nil {
		return "" // a compound with no channel groups destinations, each whole
	}
	return r.splitCoverage(c, r.drawsUnder(c), true)
}

// splitCoverage says how parts fail to split c, or "". Draws that differ
// in several dimensions are judged by c's children that draw instead
// (where byChildren), each taken as whole, as its own level judges it: a
// DB split of pixel-decomposed halves is a split of ranges.
func (r *resolver) splitCoverage(c *Compound, parts []*Compound, byChildren bool) string {
	if len(parts) == 0 {
		return ""
	}
	var differ [splitDimensions]bool
	first, others := parts[0], parts[1:]
	if len(parts) == 1 {
		if c.Destination() != c {
			return "" // a stage of a split above (a binary swap's)
		}
		// the one draw is judged against the destination: what it leaves
		// out, nothing draws
		first, others = c, parts
	}
	for _, x := range others {
		differ[splitViewport] = differ[splitViewport] || x.Viewport != first.Viewport
		differ[splitRange] = differ[splitRange] || x.Range != first.Range
		differ[splitPixel] = differ[splitPixel] || x.Pixel != first.Pixel
		differ[splitSubpixel] = differ[splitSubpixel] || x.Subpixel != first.Subpixel
		differ[splitTime] = differ[splitTime] || x.Period != first.Period || x.Phase%x.Period != first.Phase%first.Period
		differ[splitEyes] = differ[splitEyes] || x.Eyes != first.Eyes
	}
	n := 0
	for _, d := range differ {
		if d {
			n++
		}
	}
	if len(parts) == 1 && (n != 1 || differ[splitTime] || differ[splitEyes]) {
		return ""
	}
	switch {
	case n == 0:
		return fmt.Sprintf("the %d draws under this compound all draw the same part of it, %d times over", len(parts), len(parts))
	case n == 2 && differ[splitViewport] && differ[splitRange]:
		// a split of both area and data: judged below, pixel by pixel
	case n > 1 && byChildren:
		var kids []*Compound
		for _, k := range c.Children {
			if len(k.Equalizers) > 0 || r.draws(k) || len(r.drawsUnder(k)) > 0 {
				kids = append(kids, k)
			}
		}
		if len(kids) < 2 || len(kids) == len(parts) {
			return ""
		}
		return r.splitCoverage(c, kids, false)
	case n > 1:
		return "" // several at once: not a split this judges
	}
	// a compound that sends a frame of a part it does not set itself is a
	// stage of its parent's split (sources that merge a neighbour's range
	// before sending): the parent judges that split whole
	d := r.raw[c]
	if len(c.OutputFrames) > 0 && (differ[splitViewport] && d.viewport == FullViewport ||
		differ[splitRange] && d.rng == FullRange || differ[splitPixel] && d.pixel == (Pixel{0, 0, 1, 1}) ||
		differ[splitSubpixel] && d.subpixel == (Subpixel{0, 1}) || differ[splitTime] && d.period < 0 && d.phase < 0) {
		return ""
	}
	var msg string
	switch {
	case n == 2:
		var areas []Viewport
		var rs []Range
		span := c.Range.End - c.Range.Start
		for _, x := range parts {
			areas = append(areas, x.Viewport.RelativeTo(c.Viewport))
			rs = append(rs, Range{(x.Range.Start - c.Range.Start) / span, (x.Range.End - c.Range.Start) / span})
		}
		msg = areaDataCoverage(areas, rs)
	case differ[splitViewport]:
		var vps []Viewport
		for _, x := range parts {
			v := x.Viewport
			vps = append(vps, Viewport{(v.X - c.Viewport.X) / c.Viewport.W, (v.Y - c.Viewport.Y) / c.Viewport.H, v.W / c.Viewport.W, v.H / c.Viewport.H})
		}
		msg = viewportCoverage(vps)
	case differ[splitRange]:
		var rs []Range
		span := c.Range.End - c.Range.Start
		for _, x := range parts {
			rs = append(rs, Range{(x.Range.Start - c.Range.Start) / span, (x.Range.End - c.Range.Start) / span})
		}
		msg = rangeCoverage(rs)
	case differ[splitPixel]:
		var ps []Pixel
		q := c.Pixel
		for _, x := range parts {
			p := x.Pixel
			if p.W%q.W != 0 || p.H%q.H != 0 {
				return ""
			}
			ps = append(ps, Pixel{(p.X - q.X) / q.W, (p.Y - q.Y) / q.H, p.W / q.W, p.H / q.H})
		}
		msg = pixelCoverage(ps)
	case differ[splitSubpixel]:
		var ss []Subpixel
		q := c.Subpixel
		for _, x := range parts {
			s := x.Subpixel
			if s.Size%q.Size != 0 {
				return ""
			}
			n := s.Size / q.Size
			ss = append(ss, Subpixel{s.Index - q.Index*n, n})
		}
		msg = subpixelCoverage(ss)
	case differ[splitTime]:
		msg = timeCoverage(c, parts)
	}
	if msg == "" {
		return ""
	}
	if len(parts) == 1 {
		return "the one draw under this destination " + msg + ": nothing else draws under it"
	}
	if !byChildren {
		return fmt.Sprintf("the %d children that draw under this compound %s", len(parts), msg)
	}
	return fmt.Sprintf("the %d draws under this compound %s", len(parts), msg)
}

// drawsUnder lists the compounds that draw under c, wherever they are;
// a compound an equalizer splits is one of them, with its own extent,
// since its split changes every frame.
func (r *resolver) drawsUnder(c *Compound) []*Compound {
	var parts []*Compound
	var visit func(x *Compound)
	visit = func(x *Compound) {
		if len(x.Equalizers) > 0 {
			parts = append(parts, x)
			return
		}
		if r.draws(x) {
			parts = append(parts, x)
		}
		for _, ch := range x.Children {
			visit(ch)
		}
	}
	for _, ch := range c.Children {
		visit(ch)
	}
	return parts
}

// draws reports whether a compound draws: a leaf unless its tasks leave
// DRAW out, an inner compound only when its tasks name DRAW, and neither
// when it renders no eye.
func (r *resolver) draws(c *Compound) bool {
	d := r.raw[c]
	if d.eyes == 0 {
		return false
	}
	if d.tasks < 0 {
		return c.IsLeaf()
	}
	return d.tasks&TaskDraw != 0
}

// coverageEps absorbs the rounding of fractions written with a few digits
// (three parts of .333).
const coverageEps = 0.002

// forEachCell cuts the unit square along every viewport's edges and calls
// visit with each piece's area and the indexes of the viewports over it.
func forEachCell(vps []Viewport, visit func(area float64, over []int)) {
	xs, ys := []float64{0, 1}, []float64{0, 1}
	for _, v := range vps {
		xs = append(xs, v.X, v.X+v.W)
		ys = append(ys, v.Y, v.Y+v.H)
	}
	slices.Sort(xs)
	slices.Sort(ys)
	xs, ys = slices.Compact(xs), slices.Compact(ys)
	var over []int
	for i := 0; i+1 < len(xs); i++ {
		for j := 0; j+1 < len(ys); j++ {
			cx, cy := (xs[i]+xs[i+1])/2, (ys[j]+ys[j+1])/2
			if cx < 0 || cy < 0 || cx > 1 || cy > 1 {
				continue
			}
			over = over[:0]
			for k, v := range vps {
				if cx > v.X && cx < v.X+v.W && cy > v.Y && cy < v.Y+v.H {
					over = append(over, k)
				}
			}
			visit((xs[i+1]-xs[i])*(ys[j+1]-ys[j]), over)
		}
	}
}

// viewportCoverage says what part of the whole the viewports leave
// undrawn or draw twice, or "" when they tile it.
func viewportCoverage(vps []Viewport) string {
	var undrawn, twice float64
	forEachCell(vps, func(area float64, over []int) {
		switch {
		case len(over) == 0:
			undrawn += area
		case len(over) > 1:
			twice += area * float64(len(over)-1)
		}
	})
	return coverageMessage("viewports", "of its area", len(vps), undrawn, twice)
}

// areaDataCoverage judges parts that each draw a range of the data over
// an area: every pixel must show the whole data once, so the ranges drawn
// over each piece of the area must tile it. It says what part of the area
// shows only part of the data, or part of it twice, or "".
func areaDataCoverage(areas []Viewport, rs []Range) string {
	var partly, twice float64
	forEachCell(areas, func(area float64, over []int) {
		var drawn []Range
		for _, k := range over {
			drawn = append(drawn, rs[k])
		}
		undrawn, drawnTwice := rangeGaps(drawn)
		if undrawn > coverageEps {
			partly += area
		}
		if drawnTwice > coverageEps {
			twice += area
		}
	})
	amount := func(f float64) string {
		if f <= coverageEps {
			return ""
		}
		return fmt.Sprintf("%.3g%% of its area", 100*f)
	}
	var says []string
	if a := amount(partly); a != "" {
		says = append(says, "leave "+a+" showing only part of the data")
	}
	if a := amount(twice); a != "" {
		says = append(says, "draw part of the data twice over "+a)
	}
	if len(says) == 0 {
		return ""
	}
	return "(their viewports and ranges) " + strings.Join(says, " and ") + ": the ranges drawn over each pixel must add up to the whole data once"
}

// rangeGaps returns how much of [0,1] the ranges leave out and how much
// they cover more than once.
func rangeGaps(rs []Range) (undrawn, twice float64) {
	ends := []float64{0, 1}
	for _, r := range rs {
		ends = append(ends, r.Start, r.End)
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	for i := 0; i+1 < len(ends); i++ {
		mid, n := (ends[i]+ends[i+1])/2, 0
		for _, r := range rs {
			if mid > r.Start && mid < r.End {
				n++
			}
		}
		switch {
		case n == 0:
			undrawn += ends[i+1] - ends[i]
		case n > 1:
			twice += (ends[i+1] - ends[i]) * float64(n-1)
		}
	}
	return undrawn, twice
}

// rangeCoverage is viewportCoverage's for DB ranges.
func rangeCoverage(rs []Range) string {
	undrawn, twice := rangeGaps(rs)
	return coverageMessage("ranges", "of the data", len(rs), undrawn, twice)
}

func coverageMessage(what, of string, parts int, undrawn, twice float64) string {
	amount := func(f float64) string {
		if f <= coverageEps {
			return ""
		}
		return fmt.Sprintf("%.3g%% %s", 100*f, of)
	}
	return splitMessage(what, parts, amount(undrawn), amount(twice))
}

// splitMessage says what a split's parts leave to none of them and draw
// twice ("" for nothing), or "" when neither; of one part, what it leaves
// undrawn.
func splitMessage(what string, parts int, undrawn, twice string) string {
	if parts == 1 {
		if undrawn == "" {
			return ""
		}
		return "(its " + strings.TrimSuffix(what, "s") + ") leaves " + undrawn + " undrawn"
	}
	var says []string
	if undrawn != "" {
		says = append(says, "leave "+undrawn+" to none of them")
	}
	if twice != "" {
		says = append(says, "draw "+twice+" twice")
	}
	if len(says) == 0 {
		return ""
	}
	return "(their " + what + ") " + strings.Join(says, " and ")
}

// pixelCoverage counts, over one repeat of every kernel, the pixels no
// kernel draws and those several do.
func pixelCoverage(ps []Pixel) string {
	w, h := 1, 1
	for _, p := range ps {
		w, h = lcm(w, p.W), lcm(h, p.H)
	}
	if w*h > 1<<16 {
		return ""
	}
	undrawn, twice := 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := 0
			for _, p := range ps {
				if x%p.W == p.X && y%p.H == p.Y {
					n++
				}
			}
			switch {
			case n == 0:
				undrawn++
			case n > 1:
				twice += n - 1
			}
		}
	}
	return countMessage("pixel kernels", "pixels", len(ps), w*h, undrawn, twice)
}

// subpixelCoverage does the same for samples. Samples of different
// counts weigh as their own samples do, as the assembly averages them: a
// sample of n is size/n samples of the least common multiple of the
// counts.
func subpixelCoverage(ss []Subpixel) string {
	spans, size, ok := SubpixelSpans(ss)
	if !ok {
		return fmt.Sprintf("(their subpixel samples) are of sizes whose least common multiple is over %d, more than goeq weighs on the same pixels: each frame fails", MaxSubpixelWeight)
	}
	undrawn, twice := 0, 0
	for _, s := range spans {
		switch n := len(s.Covers); {
		case n == 0:
			undrawn += s.End - s.Start
		case n > 1:
			twice += (n - 1) * (s.End - s.Start)
		}
	}
	return countMessage("subpixel samples", "samples", len(ss), size, undrawn, twice)
}

// timeCoverage counts the frames the compound runs in that none of its
// parts does (it then shows only its clear), over one repeat of every
// period.
func timeCoverage(c *Compound, parts []*Compound) string {
	n := c.Period
	for _, ch := range parts {
		n = lcm(n, ch.Period)
	}
	if n > 1<<16 {
		return ""
	}
	runs, idle := 0, 0
	for f := 0; f < n; f++ {
		if !c.IsActive(f) {
			continue
		}
		runs++
		if !slices.ContainsFunc(parts, func(ch *Compound) bool { return ch.IsActive(f) }) {
			idle++
		}
	}
	if idle == 0 {
		return ""
	}
	return fmt.Sprintf("(their period and phase) run in none of %d of every %d frames this compound runs in, which show only its clear", idle, runs)
}

func countMessage(what, unit string, parts, total, undrawn, twice int) string {
	amount := func(n int) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("%d of every %d %s", n, total, unit)
	}
	return splitMessage(what, parts, amount(undrawn), amount(twice))
}

func lcm(a, b int) int { return a / gcd(a, b) * b }
