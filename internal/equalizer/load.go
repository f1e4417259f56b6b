// Package equalizer holds goeq's equalizers: deterministic state machines
// that turn the statistics of finished frames into the next frame's
// decomposition. Each is fed plain values (no GL, no network, no clock), so
// the planner, the simulator and the tests drive the same code.
package equalizer

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/goeq/goeq/internal/compound"
)

// Child is one source of a load-balanced compound as the planner sees it
// for the frame being planned.
type Child struct {
	Path   string
	Active bool // runs in this frame (period/phase)
	// Usage is the share of a full resource this child may use (1 unless
	// a view equalizer lends part of it to another view).
	Usage float64
	// Destination is true for the child rendering on the compound's own
	// channel: it also assembles, and its assembly time comes off its
	// share.
	Destination bool
}

// Sample is what one child reported for one finished frame.
type Sample struct {
	Path     string
	Frame    int
	Viewport compound.Viewport // local, relative to the balanced compound
	Range    compound.Range
	Busy     float64 // seconds of rendering work (clear, draw, sync readback)
	Assemble float64 // seconds spent assembling (destination child)
	// Renderer is what drew it (stats.Record.Renderer): children with
	// the same renderer take turns on it
	Renderer string
	// Started and Completed are when the frame's tasks were sent and when
	// it completed (stats.Frame), and Finished when the child's node
	// reported it done (stats.Record.Finished); zero: unknown. They tell
	// how the renderers' frames overlap (see finishes).
	Started, Completed, Finished time.Time
}

// Assignment is a child's share for the planned frame.
type Assignment struct {
	Path     string
	Viewport compound.Viewport // local
	Range    compound.Range
	// Skip is true when the child renders nothing this frame (inactive,
	// or its share fell under assemble_only_limit).
	Skip bool
}

// Load is the load equalizer (and, with Tree set, the tree equalizer):
// a binary split tree over the active children; each inner node splits its
// region so that the load left of the split, integrated over a grid built
// from the last samples (time per area, or per range for DB), matches the
// left subtree's share of the time.
type Load struct {
	Params compound.Equalizer
	// PixelW and PixelH are the balanced compound's size in pixels, for
	// rounding 2D splits to the boundary.
	PixelW, PixelH int
	// Adaptive is the adaptive policy state; nil for Equalizer's policy.
	Adaptive *Adaptive

	splits map[string]float64 // previous split position per tree node
	last   map[string]Assignment
	// DataMoved is the amount of range (DB) or area (2D) that changed
	// owner in the last planned frame.
	DataMoved float64
}

// NewLoad returns a load equalizer for the parameters; adaptive selects
// the adaptive policy (the config's `adaptive ON`).
func NewLoad(p compound.Equalizer, pixelW, pixelH int) *Load {
	l := &Load{Params: p, PixelW: max(pixelW, 1), PixelH: max(pixelH, 1), splits: map[string]float64{}, last: map[string]Assignment{}}
	if p.Adaptive {
		eq := p
		eq.Adaptive = false
		l.Adaptive = NewAdaptive()
		l.Adaptive.equalizer, l.Adaptive.coldLeft = NewLoad(eq, pixelW, pixelH), coldPlans
	}
	return l
}

// SetParams changes the parameters an application may change while the
// config runs (damping, boundary, resistance: compound.Balancing); the
// splits hold.
func (l *Load) SetParams(p compound.Equalizer) {
	adaptive := l.Params.Adaptive
	l.Params = p
	l.Params.Adaptive = adaptive
	if l.Adaptive != nil && l.Adaptive.equalizer != nil {
		l.Adaptive.equalizer.SetParams(p) // its cold start's, not adaptive
	}
}

// Resize sets the balanced compound's size in pixels: its window was
// resized. The splits are fractions and hold.
func (l *Load) Resize(pixelW, pixelH int) {
	l.PixelW, l.PixelH = max(pixelW, 1), max(pixelH, 1)
	if l.Adaptive != nil && l.Adaptive.equalizer != nil {
		l.Adaptive.equalizer.Resize(pixelW, pixelH) // its cold start's
	}
}

// node is a split-tree node: a leaf (child != nil) or a split of left and
// right.
type node struct {
	child       *Child
	left, right *node
	key         string
	target      float64 // seconds of work this subtree should get
	usage       float64
}

// leftEmpty and rightEmpty report a subtree that must get nothing (its
// children only assemble) while the other side has work.
func (n *node) leftEmpty() bool  { return n.left.target == 0 && n.target > 0 }
func (n *node) rightEmpty() bool { return n.right.target == 0 && n.target > 0 }

func buildTree(children []*Child) *node {
	if len(children) == 1 {
		return &node{child: children[0], key: children[0].Path}
	}
	mid := (len(children) + 1) / 2
	l, r := buildTree(children[:mid]), buildTree(children[mid:])
	return &node{left: l, right: r, key: "(" + l.key + "|" + r.key + ")"}
}

// Plan computes the children's shares for the next frame from the most
// recent samples (one per child that ran; latency makes them a few frames
// old, which is fine: each sample carries the region it was measured on).
func (l *Load) Plan(children []Child, samples []Sample) []Assignment {
	var active []*Child
	for i := range children {
		if children[i].Active {
			active = append(active, &children[i])
		}
	}
	out := make([]Assignment, 0, len(children))
	if len(active) == 0 {
		for _, c := range children {
			out = append(out, Assignment{Path: c.Path, Skip: true})
		}
		return out
	}
	db := l.Params.Mode == compound.SplitDB
	g := newGrid(db, samples)
	if l.Adaptive != nil {
		g = l.Adaptive.filter(g, samples, db)
		if out, ok := l.Adaptive.planCold(l, children, samples, db); ok {
			return out
		}
	}

	// Time shares: every active child's share of the total work, by usage;
	// the destination's assembly comes off its share, and under the
	// assemble-only limit it renders nothing. With frames overlapping, a
	// renderer that starts late gets less (see finishes).
	if l.Adaptive != nil {
		l.Adaptive.followFinishes(l, active, g, samples, db)
	}
	total := g.total()
	usage := 0.0
	for _, c := range active {
		usage += l.share(c)
	}
	assemble := map[string]float64{}
	for _, s := range samples {
		assemble[s.Path] = s.Assemble
	}
	tree := buildTree(active)
	var assign func(n *node)
	assign = func(n *node) {
		if n.child != nil {
			n.usage = l.share(n.child)
			n.target = total * n.usage / usage
			if n.child.Destination {
				n.target = math.Max(0, n.target-assemble[n.child.Path]*l.speed(n.child.Path))
				if lim := l.Params.AssembleOnlyLimit; lim != nil && n.target < *lim/1000 {
					n.target = 0
				}
			}
			return
		}
		assign(n.left)
		assign(n.right)
		n.usage = n.left.usage + n.right.usage
		n.target = n.left.target + n.right.target
	}
	assign(tree)

	regions := map[string]region{}
	if l.Adaptive != nil {
		l.Adaptive.keptSplits = maps.Clone(l.splits)
	}
	if db {
		if l.Adaptive != nil && l.Adaptive.Neighbour {
			l.neighbourDB(tree, active, g, regions)
		} else {
			l.split(tree, region{r: compound.FullRange}, compound.Viewport{}, g, regions)
		}
	} else {
		l.split(tree, region{vp: compound.FullViewport}, compound.FullViewport, g, regions)
	}
	if l.Adaptive != nil {
		regions = l.Adaptive.gate(l, active, g, regions)
	}

	l.DataMoved = 0
	for _, c := range children {
		a := Assignment{Path: c.Path, Viewport: compound.FullViewport, Range: compound.FullRange}
		reg, ok := regions[c.Path]
		switch {
		case !c.Active || !ok:
			a.Skip = true
		case db:
			a.Range = reg.r
			a.Skip = reg.r.End-reg.r.Start <= 0
		default:
			a.Viewport = reg.vp
			a.Skip = !reg.vp.HasArea()
		}
		if prev, ok := l.last[c.Path]; ok {
			l.DataMoved += moved(prev, a, db)
		}
		l.last[c.Path] = a
		out = append(out, a)
	}
	return out
}

// weight is a child's share of the work: its usage, times its measured
// speed under the adaptive policy (whose load model is in work units).
func (l *Load) weight(c *Child) float64 { return childUsage(c) * l.speed(c.Path) }

// share is the weight the split gives a child: its weight, less where its
// renderer starts the frame late with frames overlapping (see finishes).
func (l *Load) share(c *Child) float64 {
	if l.Adaptive == nil {
		return l.weight(c)
	}
	return l.weight(c) * l.Adaptive.catchUp(c.Path)
}

func (l *Load) speed(path string) float64 {
	if l.Adaptive == nil {
		return 1
	}
	if s := l.Adaptive.speed(path); s > 0 {
		return s
	}
	return 1
}

func childUsage(c *Child) float64 {
	if c.Usage <= 0 {
		return 1
	}
	return c.Usage
}

// moved is how much of a child's region or range changed owner: the size
// of the symmetric difference (for 1-D ranges; for 2-D the area gained).
func moved(prev, next Assignment, db bool) float64 {
	if db {
		if prev.Skip {
			prev.Range = compound.Range{}
		}
		if next.Skip {
			next.Range = compound.Range{}
		}
		inter := math.Max(0, math.Min(prev.Range.End, next.Range.End)-math.Max(prev.Range.Start, next.Range.Start))
		return (prev.Range.End - prev.Range.Start) + (next.Range.End - next.Range.Start) - 2*inter
	}
	if next.Skip {
		return 0
	}
	inter := next.Viewport.Intersect(prev.Viewport)
	return next.Viewport.W*next.Viewport.H - inter.W*inter.H
}

// region is a node's part of the compound: a viewport (2D) or range (DB).
type region struct {
	vp compound.Viewport
	r  compound.Range
}

// split walks the tree top-down, cutting each node's region between its
// subtrees in proportion to their target times. even is the node's region
// in the tree split in halves, whose shape gives Equalizer's policy the
// split's direction (2D).
func (l *Load) split(n *node, reg region, even compound.Viewport, g *grid, out map[string]region) {
	if n.child != nil {
		out[n.child.Path] = reg
		return
	}
	frac := 0.5
	if n.target > 0 {
		frac = n.left.target / n.target
	} else if n.usage > 0 {
		frac = n.left.usage / n.usage
	}
	db := l.Params.Mode == compound.SplitDB
	if db {
		lo, hi := reg.r.Start, reg.r.End
		pos := g.findSplit1D(lo, hi, frac)
		pos = l.settle(n.key, pos, lo, hi, l.Params.BoundaryDB, l.Params.ResistanceDB, l.step(n), n.leftEmpty(), n.rightEmpty())
		l.split(n.left, region{r: compound.Range{Start: lo, End: pos}}, even, g, out)
		l.split(n.right, region{r: compound.Range{Start: pos, End: hi}}, even, g, out)
		return
	}
	vertical := l.splitVertically(even)
	var lo, hi, px float64
	var bound, resist int
	if vertical {
		lo, hi, px = reg.vp.X, reg.vp.X+reg.vp.W, float64(l.PixelW)
		bound, resist = l.Params.Boundary2D[0], l.Params.Resistance2D[0]
	} else {
		lo, hi, px = reg.vp.Y, reg.vp.Y+reg.vp.H, float64(l.PixelH)
		bound, resist = l.Params.Boundary2D[1], l.Params.Resistance2D[1]
	}
	if l.Adaptive != nil && l.Adaptive.Grain > 0 && bound <= 1 {
		bound = l.Adaptive.Grain
	}
	// a node's split is kept per direction: when the active children
	// change, a node of the same children can sit where the tree splits
	// the other way, and its last position is then on the other axis;
	// damping the new split toward it (or holding it there by resistance)
	// put it where nothing was measured
	key, turned := n.key+" columns", n.key+" rows"
	if !vertical {
		key, turned = turned, key
	}
	delete(l.splits, turned)
	pos := g.findSplit2D(reg.vp, vertical, frac)
	pos = l.settle(key, pos, lo, hi, float64(max(bound, 1))/px, float64(resist)/px, l.step(n), n.leftEmpty(), n.rightEmpty())
	left, right := reg.vp, reg.vp
	if vertical {
		left.W = pos - reg.vp.X
		right.X, right.W = pos, reg.vp.X+reg.vp.W-pos
	} else {
		left.H = pos - reg.vp.Y
		right.Y, right.H = pos, reg.vp.Y+reg.vp.H-pos
	}
	evenLeft, evenRight := even, even
	if vertical {
		evenLeft.W /= 2
		evenRight.X, evenRight.W = even.X+evenLeft.W, evenLeft.W
	} else {
		evenLeft.H /= 2
		evenRight.Y, evenRight.H = even.Y+evenLeft.H, evenLeft.H
	}
	l.split(n.left, region{vp: left}, evenLeft, g, out)
	l.split(n.right, region{vp: right}, evenRight, g, out)
}

// splitVertically picks the split direction: VERTICAL mode cuts columns,
// HORIZONTAL rows, and 2D across the longer side (in pixels) of the
// node's region in the tree split in halves, even. A tree node's direction
// is fixed, as Equalizer sets each node's mode from that shape whatever
// the load does to the regions, and both policies keep it: a split turned
// over as its region changed shape cut across the regions the statistics
// were measured on, and the plan after it rested on a shape nobody saw (a
// hotspot circling the screen cost frames up to 75% longer).
func (l *Load) splitVertically(even compound.Viewport) bool {
	switch l.Params.Mode {
	case compound.SplitVertical:
		return true
	case compound.SplitHorizontal:
		return false
	}
	return even.W*float64(l.PixelW) >= even.H*float64(l.PixelH)
}

// step is the fraction of the way from a node's split to the computed one
// that the split moves: 1 less Equalizer's damping; for the adaptive
// policy, which filters measurements and gates moves instead, all of it,
// but half for the model's first plan (see coldPlans) and as little as
// half while it overshoots (see Adaptive.overshoot).
func (l *Load) step(n *node) float64 {
	switch {
	case l.Adaptive == nil:
		return 1 - l.Params.Damping
	case l.Adaptive.handover:
		return 0.5
	}
	return 1 - 0.5*l.Adaptive.overshoot(n)
}

// settle applies the step, resistance and boundary rounding to a computed
// split position. An empty side (target 0) keeps its split at the edge.
func (l *Load) settle(key string, pos, lo, hi, boundary, resistance, step float64, leftEmpty, rightEmpty bool) float64 {
	switch {
	case leftEmpty:
		l.splits[key] = lo
		return lo
	case rightEmpty:
		l.splits[key] = hi
		return hi
	}
	if old, ok := l.splits[key]; ok && old > lo && old < hi {
		pos = old + step*(pos-old)
		if math.Abs(pos-old) < resistance {
			pos = old
		}
	}
	if boundary > 0 {
		pos = math.Round(pos/boundary) * boundary
	}
	// keep both sides non-empty: at least one boundary step each
	least := math.Max(boundary, 1e-6)
	if pos < lo+least {
		pos = math.Min(lo+least, (lo+hi)/2)
	}
	if pos > hi-least {
		pos = math.Max(hi-least, (lo+hi)/2)
	}
	l.splits[key] = pos
	return pos
}

// Splits returns the current split positions, sorted by tree node, for
// reports (jitter) and tests.
func (l *Load) Splits() []float64 {
	keys := make([]string, 0, len(l.splits))
	for k := range l.splits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = l.splits[k]
	}
	return out
}

// ---- load grid --------------------------------------------------------------

// grid is the load distribution of the last frame: each cell a region with
// a load density (seconds per unit area or per unit range). Parts of the
// compound no sample covers get the mean density.
type grid struct {
	db    bool
	cells []cell
	mean  float64
	// sat, when set, is the cumulative load of a regular raster of n cells
	// per side (2D: (n+1)^2 summed-area table; DB: n+1 prefix sums), so a
	// region's load costs four lookups instead of a pass over the cells:
	// the splits integrate it some thousand times per frame.
	sat []float64
	n   int
	// edges and below, for DB cells that do not overlap (a split's ranges
	// never do): the load of the range up to edges[i] is below[i], and the
	// density between edges[i-1] and edges[i] is density[i], so a range's
	// load costs two binary searches instead of a pass over the cells:
	// the splits' bisections take it some thousand times a frame, which
	// cost 20 ms a frame with 256 sources
	edges, below, density []float64
	// xs, ys and table, for 2D cells that do not overlap: the cells' edges
	// make a grid of columns and rows, and table[j*len(xs)+i] is the load
	// of [xs[0], xs[i]] x [ys[0], ys[j]], each grid cell at its cell's
	// density or the mean; a region's load is then four lookups
	// (bilinear within a grid cell, exact there) instead of a pass over
	// the cells, 13 ms a frame with 256 sources
	xs, ys, table []float64
}

type cell struct {
	vp      compound.Viewport
	r       compound.Range
	density float64
	path    string
}

func newGrid(db bool, samples []Sample) *grid {
	g := &grid{db: db}
	covered, load := 0.0, 0.0
	for _, s := range samples {
		size := s.Viewport.W * s.Viewport.H
		if db {
			size = s.Range.End - s.Range.Start
		}
		if size <= 0 {
			continue
		}
		d := s.Busy / size
		g.cells = append(g.cells, cell{vp: s.Viewport, r: s.Range, density: d, path: s.Path})
		covered += size
		load += s.Busy
	}
	if covered > 0 {
		g.mean = load / covered
	}
	if db {
		g.prefix()
	} else {
		g.summedArea()
	}
	return g
}

// edgeTolerance merges cell edges closer than it: neighbours' edges
// computed as x+w and x differ by a rounding.
const edgeTolerance = 1e-12

// summedArea builds the 2D table, where no two cells overlap.
func (g *grid) summedArea() {
	if len(g.cells) == 0 {
		return
	}
	xs, ys := []float64{0, 1}, []float64{0, 1}
	for _, c := range g.cells {
		xs = append(xs, c.vp.X, c.vp.X+c.vp.W)
		ys = append(ys, c.vp.Y, c.vp.Y+c.vp.H)
	}
	xs, ys = edgesOf(xs), edgesOf(ys)
	nx, ny := len(xs), len(ys)
	// the density of grid cell (i, j), between xs[i] and xs[i+1], ys[j]
	// and ys[j+1]; NaN until a cell covers it
	dens := make([]float64, (nx-1)*(ny-1))
	for k := range dens {
		dens[k] = math.NaN()
	}
	for _, c := range g.cells {
		i0, i1 := nearest(xs, c.vp.X), nearest(xs, c.vp.X+c.vp.W)
		j0, j1 := nearest(ys, c.vp.Y), nearest(ys, c.vp.Y+c.vp.H)
		if i0 == i1 || j0 == j1 {
			return // a cell thinner than the tolerance: its load would be lost
		}
		for j := j0; j < j1; j++ {
			for i := i0; i < i1; i++ {
				if !math.IsNaN(dens[j*(nx-1)+i]) {
					return // overlapping cells: load2D sums them one by one
				}
				dens[j*(nx-1)+i] = c.density
			}
		}
	}
	table := make([]float64, nx*ny)
	for j := 1; j < ny; j++ {
		for i := 1; i < nx; i++ {
			d := dens[(j-1)*(nx-1)+i-1]
			if math.IsNaN(d) {
				d = g.mean
			}
			table[j*nx+i] = table[(j-1)*nx+i] + table[j*nx+i-1] - table[(j-1)*nx+i-1] + d*(xs[i]-xs[i-1])*(ys[j]-ys[j-1])
		}
	}
	g.xs, g.ys, g.table = xs, ys, table
}

// edgesOf sorts edges and merges those within edgeTolerance.
func edgesOf(edges []float64) []float64 {
	slices.Sort(edges)
	out := edges[:1]
	for _, e := range edges[1:] {
		if e-out[len(out)-1] > edgeTolerance {
			out = append(out, e)
		}
	}
	return out
}

// nearest is the index of the edge nearest to x.
func nearest(edges []float64, x float64) int {
	i, _ := slices.BinarySearch(edges, x)
	if i == len(edges) || i > 0 && x-edges[i-1] < edges[i]-x {
		i--
	}
	return i
}

// cellOf is the grid cell of x among edges, and how far x lies across it.
func cellOf(edges []float64, x float64) (int, float64) {
	i, _ := slices.BinarySearch(edges, x)
	i = min(max(i, 1), len(edges)-1) - 1
	return i, (x - edges[i]) / (edges[i+1] - edges[i])
}

// summedTo is the load of [xs[0], x] x [ys[0], y].
func (g *grid) summedTo(x, y float64) float64 {
	i, fx := cellOf(g.xs, x)
	j, fy := cellOf(g.ys, y)
	w := len(g.xs)
	a, b := g.table[j*w+i], g.table[j*w+i+1]
	c, d := g.table[(j+1)*w+i], g.table[(j+1)*w+i+1]
	return a*(1-fx)*(1-fy) + b*fx*(1-fy) + c*(1-fx)*fy + d*fx*fy
}

// prefix sums the DB cells' loads from 0, the gaps between them at the
// mean density, where no two cells overlap.
func (g *grid) prefix() {
	if len(g.cells) == 0 {
		return
	}
	cells := slices.Clone(g.cells)
	slices.SortFunc(cells, func(a, b cell) int { return cmp.Compare(a.r.Start, b.r.Start) })
	edges, below, density := []float64{0}, []float64{0}, []float64{g.mean}
	add := func(to, d float64) {
		last := len(edges) - 1
		if to <= edges[last] {
			return
		}
		below = append(below, below[last]+(to-edges[last])*d)
		edges, density = append(edges, to), append(density, d)
	}
	for i, c := range cells {
		if c.r.Start < 0 || (i > 0 && c.r.Start < cells[i-1].r.End) {
			return // overlapping cells: load1D sums them one by one
		}
		add(c.r.Start, g.mean)
		add(c.r.End, c.density)
	}
	g.edges, g.below, g.density = edges, below, density
}

// upTo is the load of the range from 0 to x, by the prefix sums; beyond
// the cells, at the mean density.
func (g *grid) upTo(x float64) float64 {
	i, _ := slices.BinarySearch(g.edges, x)
	switch {
	case i == 0:
		return x * g.mean // x <= 0
	case i == len(g.edges):
		last := len(g.edges) - 1
		return g.below[last] + (x-g.edges[last])*g.mean
	}
	return g.below[i-1] + (x-g.edges[i-1])*g.density[i]
}

// total is the load of the whole compound.
func (g *grid) total() float64 {
	if g.db {
		return g.load1D(0, 1)
	}
	return g.load2D(compound.FullViewport)
}

// summedWithin is the load of [0,x] x [0,y] by a summed-area table that
// covers vp, or nil where load2D must sum vp's cells one by one.
func (g *grid) summedWithin(vp compound.Viewport) func(x, y float64) float64 {
	switch {
	case g.sat != nil:
		return g.satAt
	case g.table != nil && vp.X >= g.xs[0]-edgeTolerance && vp.Y >= g.ys[0]-edgeTolerance &&
		vp.X+vp.W <= g.xs[len(g.xs)-1]+edgeTolerance && vp.Y+vp.H <= g.ys[len(g.ys)-1]+edgeTolerance:
		return g.summedTo
	}
	return nil
}

func (g *grid) load2D(vp compound.Viewport) float64 {
	if at := g.summedWithin(vp); at != nil {
		x1, y1 := vp.X+vp.W, vp.Y+vp.H
		return at(x1, y1) - at(vp.X, y1) - at(x1, vp.Y) + at(vp.X, vp.Y)
	}
	area := vp.W * vp.H
	if len(g.cells) == 0 {
		return area
	}
	sum, covered := 0.0, 0.0
	for _, c := range g.cells {
		in := vp.Intersect(c.vp)
		a := in.W * in.H
		sum += a * c.density
		covered += a
	}
	if rest := area - covered; rest > 1e-12 {
		sum += rest * g.mean
	}
	return sum
}

// summedUpTo is the load of [0,x] by prefix sums, or nil where load1D
// must sum the cells one by one.
func (g *grid) summedUpTo() func(x float64) float64 {
	switch {
	case g.sat != nil:
		return func(x float64) float64 { return g.satAt(x, 0) }
	case g.edges != nil:
		return g.upTo
	}
	return nil
}

func (g *grid) load1D(lo, hi float64) float64 {
	if upTo := g.summedUpTo(); upTo != nil {
		return upTo(hi) - upTo(lo)
	}
	if len(g.cells) == 0 {
		return hi - lo
	}
	sum, covered := 0.0, 0.0
	for _, c := range g.cells {
		w := math.Max(0, math.Min(hi, c.r.End)-math.Max(lo, c.r.Start))
		sum += w * c.density
		covered += w
	}
	if rest := (hi - lo) - covered; rest > 1e-12 {
		sum += rest * g.mean
	}
	return sum
}

// satAt is the load of [0,x] x [0,y] (DB: of [0,x]) on a raster grid:
// bilinear between the table's nodes, exact for piecewise-constant cells.
func (g *grid) satAt(x, y float64) float64 {
	n := float64(g.n)
	gx := math.Max(0, math.Min(n, x*n))
	i := int(math.Min(gx, n-1))
	fx := gx - float64(i)
	if g.db {
		return g.sat[i]*(1-fx) + g.sat[i+1]*fx
	}
	gy := math.Max(0, math.Min(n, y*n))
	j := int(math.Min(gy, n-1))
	fy := gy - float64(j)
	w := g.n + 1
	a, b := g.sat[j*w+i], g.sat[j*w+i+1]
	c, d := g.sat[(j+1)*w+i], g.sat[(j+1)*w+i+1]
	return a*(1-fx)*(1-fy) + b*fx*(1-fy) + c*(1-fx)*fy + d*fx*fy
}

// findSplit2D returns the position along the split axis where the load on
// the low side is frac of the region's load (bisection: load is monotone).
// Each step moves one edge of the part, so the table is read at the two
// corners of its fixed edge once: the sum is load2D's, term for term.
func (g *grid) findSplit2D(vp compound.Viewport, vertical bool, frac float64) float64 {
	total := g.load2D(vp)
	lo, hi := vp.Y, vp.Y+vp.H
	if vertical {
		lo, hi = vp.X, vp.X+vp.W
	}
	at := g.summedWithin(vp)
	var fixedFar, fixedCorner float64 // the table at the fixed edge's corners
	if at != nil {
		fixedCorner = at(vp.X, vp.Y)
		if vertical {
			fixedFar = at(vp.X, vp.Y+vp.H)
		} else {
			fixedFar = at(vp.X+vp.W, vp.Y)
		}
	}
	a, b := lo, hi
	for i := 0; i < 50; i++ {
		m := (a + b) / 2
		part := vp
		if vertical {
			part.W = m - vp.X
		} else {
			part.H = m - vp.Y
		}
		var load float64
		x1, y1 := part.X+part.W, part.Y+part.H
		switch {
		case at == nil:
			load = g.load2D(part)
		case vertical:
			load = at(x1, y1) - fixedFar - at(x1, part.Y) + fixedCorner
		default:
			load = at(x1, y1) - at(part.X, y1) - fixedFar + fixedCorner
		}
		if load < frac*total {
			a = m
		} else {
			b = m
		}
	}
	return (a + b) / 2
}

func (g *grid) findSplit1D(lo, hi, frac float64) float64 {
	total := g.load1D(lo, hi)
	upTo := g.summedUpTo()
	var fixed float64 // the sums at lo, read once
	if upTo != nil {
		fixed = upTo(lo)
	}
	a, b := lo, hi
	for i := 0; i < 50; i++ {
		m := (a + b) / 2
		var load float64
		if upTo != nil {
			load = upTo(m) - fixed
		} else {
			load = g.load1D(lo, m)
		}
		if load < frac*total {
			a = m
		} else {
			b = m
		}
	}
	return (a + b) / 2
}

// load of a region, either kind.
func (g *grid) load(r region) float64 {
	if g.db {
		return g.load1D(r.r.Start, r.r.End)
	}
	return g.load2D(r.vp)
}
