package equalizer

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

func params(mode compound.SplitMode) compound.Equalizer {
	return compound.Equalizer{Kind: compound.LoadEqualizer, Mode: mode, Damping: 0, Boundary2D: [2]int{1, 1}, BoundaryDB: 1e-6}
}

func two(active ...bool) []Child {
	a := []bool{true, true}
	copy(a, active)
	return []Child{{Path: "a", Active: a[0], Usage: 1}, {Path: "b", Active: a[1], Usage: 1}}
}

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func TestFirstFrameSplitsEvenly(t *testing.T) {
	l := NewLoad(params(compound.Split2D), 960, 540)
	out := l.Plan(two(), nil)
	if out[0].Viewport != (vp(0, 0, 0.5, 1)) || out[1].Viewport != (vp(0.5, 0, 0.5, 1)) {
		t.Errorf("got %+v", out)
	}
}

// A took 30 ms on the left half, B 10 ms on the right: densities 60 and 20
// per unit area, 40 ms in all, 20 ms each: the split moves to x = 1/3.
func TestSplitFromLoadGrid(t *testing.T) {
	samples := []Sample{
		{Path: "a", Viewport: vp(0, 0, 0.5, 1), Busy: 0.030},
		{Path: "b", Viewport: vp(0.5, 0, 0.5, 1), Busy: 0.010},
	}
	l := NewLoad(params(compound.Split2D), 960, 540)
	l.Plan(two(), nil)
	out := l.Plan(two(), samples)
	if !near(out[0].Viewport.W, 1.0/3, 1e-6) || !near(out[1].Viewport.X, 1.0/3, 1e-6) {
		t.Errorf("split at %v, want 1/3", out[0].Viewport.W)
	}

	// Damping 0.5 moves half way from the old split: 0.5 -> 0.41667.
	p := params(compound.Split2D)
	p.Damping = 0.5
	l = NewLoad(p, 960, 540)
	l.Plan(two(), nil)
	out = l.Plan(two(), samples)
	if !near(out[0].Viewport.W, 0.5-0.5*(0.5-1.0/3), 1e-6) {
		t.Errorf("damped split %v, want 0.41667", out[0].Viewport.W)
	}

	// Boundary 64 px rounds 400 px to 384 px.
	p.Boundary2D = [2]int{64, 64}
	l = NewLoad(p, 960, 540)
	l.Plan(two(), nil)
	out = l.Plan(two(), samples)
	if !near(out[0].Viewport.W*960, 384, 1e-6) {
		t.Errorf("boundary split %v px, want 384", out[0].Viewport.W*960)
	}

	// Resistance 100 px: a move of 80 px is refused.
	p.Boundary2D, p.Resistance2D = [2]int{1, 1}, [2]int{100, 100}
	l = NewLoad(p, 960, 540)
	l.Plan(two(), nil)
	out = l.Plan(two(), samples)
	if !near(out[0].Viewport.W, 0.5, 1e-9) {
		t.Errorf("resistance: split %v, want 0.5", out[0].Viewport.W)
	}
}

func TestSplitDirection(t *testing.T) {
	children := []Child{{Path: "a", Active: true}, {Path: "b", Active: true}, {Path: "c", Active: true}, {Path: "d", Active: true}}
	// wide destination: first cut is vertical, then each half (480x540) is
	// taller than wide: horizontal cuts
	out := NewLoad(params(compound.Split2D), 960, 540).Plan(children, nil)
	want := []compound.Viewport{vp(0, 0, 0.5, 0.5), vp(0, 0.5, 0.5, 0.5), vp(0.5, 0, 0.5, 0.5), vp(0.5, 0.5, 0.5, 0.5)}
	for i, a := range out {
		if !near(a.Viewport.X, want[i].X, 1e-9) || !near(a.Viewport.Y, want[i].Y, 1e-9) || !near(a.Viewport.W, want[i].W, 1e-9) || !near(a.Viewport.H, want[i].H, 1e-9) {
			t.Errorf("child %d: %+v, want %+v", i, a.Viewport, want[i])
		}
	}
	out = NewLoad(params(compound.SplitHorizontal), 960, 540).Plan(children, nil)
	for i, a := range out {
		if !near(a.Viewport.Y, float64(i)*0.25, 1e-9) || a.Viewport.W != 1 {
			t.Errorf("HORIZONTAL child %d: %+v", i, a.Viewport)
		}
	}
	out = NewLoad(params(compound.SplitVertical), 960, 540).Plan(children, nil)
	for i, a := range out {
		if !near(a.Viewport.X, float64(i)*0.25, 1e-9) || a.Viewport.H != 1 {
			t.Errorf("VERTICAL child %d: %+v", i, a.Viewport)
		}
	}
}

func TestDBSplit(t *testing.T) {
	l := NewLoad(params(compound.SplitDB), 960, 540)
	out := l.Plan(two(), nil)
	if out[0].Range != (rng(0, 0.5)) {
		t.Fatalf("first DB split %+v", out[0].Range)
	}
	// a: 0.3 s on [0,0.5), b: 0.1 s on [0.5,1): split at 1/3
	out = l.Plan(two(), []Sample{{Path: "a", Range: rng(0, 0.5), Busy: 0.3}, {Path: "b", Range: rng(0.5, 1), Busy: 0.1}})
	if !near(out[0].Range.End, 1.0/3, 1e-6) || !near(out[1].Range.Start, 1.0/3, 1e-6) {
		t.Errorf("DB split %+v", out)
	}
	// DB boundary 0.25 rounds 1/3 to 0.25
	p := params(compound.SplitDB)
	p.BoundaryDB = 0.25
	l = NewLoad(p, 960, 540)
	l.Plan(two(), nil)
	out = l.Plan(two(), []Sample{{Path: "a", Range: rng(0, 0.5), Busy: 0.3}, {Path: "b", Range: rng(0.5, 1), Busy: 0.1}})
	if !near(out[0].Range.End, 0.25, 1e-9) {
		t.Errorf("DB boundary split %+v", out[0].Range)
	}
}

func TestInactiveChildGetsNothing(t *testing.T) {
	out := NewLoad(params(compound.Split2D), 960, 540).Plan(two(true, false), nil)
	if out[0].Skip || out[0].Viewport != compound.FullViewport || !out[1].Skip {
		t.Errorf("got %+v", out)
	}
}

// The destination child's assembly time comes off its share; under the
// assemble-only limit it only assembles.
func TestDestinationShareAndAssembleOnlyLimit(t *testing.T) {
	children := []Child{{Path: "dest", Active: true, Destination: true}, {Path: "src", Active: true}}
	samples := []Sample{
		{Path: "dest", Viewport: vp(0, 0, 0.5, 1), Busy: 0.010, Assemble: 0.004},
		{Path: "src", Viewport: vp(0.5, 0, 0.5, 1), Busy: 0.010},
	}
	l := NewLoad(params(compound.Split2D), 960, 540)
	l.Plan(children, nil)
	out := l.Plan(children, samples)
	// total 20 ms: dest 10-4 = 6 ms, src 10 ms: split at 6/16 of uniform load
	if !near(out[0].Viewport.W, 6.0/16, 1e-6) {
		t.Errorf("destination share %v, want 0.375", out[0].Viewport.W)
	}
	p := params(compound.Split2D)
	lim := 8.0 // ms
	p.AssembleOnlyLimit = &lim
	l = NewLoad(p, 960, 540)
	l.Plan(children, nil)
	out = l.Plan(children, samples)
	if !out[0].Skip || out[1].Viewport != compound.FullViewport {
		t.Errorf("under the assemble-only limit the destination must only assemble: %+v", out)
	}
}

// With latency the samples are older than the last plan; they carry the
// region they were measured on, so the split is computed the same.
func TestLateSamplesUseTheirOwnRegions(t *testing.T) {
	l := NewLoad(params(compound.Split2D), 960, 540)
	l.Plan(two(), nil)
	l.Plan(two(), nil) // a second frame planned before any statistics
	out := l.Plan(two(), []Sample{
		{Path: "a", Frame: 0, Viewport: vp(0, 0, 0.5, 1), Busy: 0.030},
		{Path: "b", Frame: 0, Viewport: vp(0.5, 0, 0.5, 1), Busy: 0.010},
	})
	if !near(out[0].Viewport.W, 1.0/3, 1e-6) {
		t.Errorf("split %v, want 1/3", out[0].Viewport.W)
	}
}

func TestUsageSharesResources(t *testing.T) {
	children := []Child{{Path: "a", Active: true, Usage: 1}, {Path: "b", Active: true, Usage: 0.5}}
	out := NewLoad(params(compound.Split2D), 960, 540).Plan(children, nil)
	if !near(out[0].Viewport.W, 2.0/3, 1e-6) {
		t.Errorf("usage 1 : 0.5 split %v, want 2/3", out[0].Viewport.W)
	}
}

func vp(x, y, w, h float64) compound.Viewport { return compound.Viewport{X: x, Y: y, W: w, H: h} }
func rng(a, b float64) compound.Range         { return compound.Range{Start: a, End: b} }

// Three sources on a 2:1 window: a and b share the left part, c the
// right, where drawing costs a thousandth. The balance moves the root split
// left until a and b's region is taller than wide.
func TestSplitDirectionsAreTheTrees(t *testing.T) {
	for _, adaptive := range []bool{false, true} {
		p := params(compound.Split2D)
		p.Damping, p.Adaptive = 0.5, adaptive
		l := NewLoad(p, 2000, 1000)
		children := []Child{{Path: "a", Active: true}, {Path: "b", Active: true}, {Path: "c", Active: true}}
		cost := func(v compound.Viewport) float64 {
			dense := math.Max(0, math.Min(v.X+v.W, 0.3)-v.X) * v.H
			return 0.030 * (dense + 0.001*(v.W*v.H-dense))
		}
		out, tall := l.Plan(children, nil), false
		for frame := 0; frame < 40; frame++ {
			a, b := out[0].Viewport, out[1].Viewport
			if a.Y != b.Y || a.H != 1 {
				t.Fatalf("adaptive %v, frame %d: a %+v and b %+v are not side by side", adaptive, frame, a, b)
			}
			tall = tall || (a.W+b.W)*2000 < 1000
			var samples []Sample
			for _, as := range out {
				samples = append(samples, Sample{Path: as.Path, Viewport: as.Viewport, Busy: cost(as.Viewport)})
			}
			out = l.Plan(children, samples)
		}
		if !tall {
			t.Errorf("adaptive %v: a and b's region never became taller than wide", adaptive)
		}
	}
}

// When the active children change, a tree node of the same children can
// sit where the tree splits the other way. Its split then starts where the
// load puts it: a took 30 ms on the left half and b 10 ms on the right, so
// the columns split is at 1/3 and a rows split at 1/2. It used to be
// damped toward the columns split's position, a coordinate on the other
// axis (5/12).
func TestASplitThatTurnsStartsAfresh(t *testing.T) {
	p := params(compound.Split2D)
	p.Damping = 0.5
	l := NewLoad(p, 2000, 1000)
	a, b := &Child{Path: "a", Active: true}, &Child{Path: "b", Active: true}
	tree := buildTree([]*Child{a, b})
	tree.target, tree.left.target, tree.right.target = 0.02, 0.01, 0.01
	g := newGrid(false, []Sample{
		{Path: "a", Viewport: vp(0, 0, 0.5, 1), Busy: 0.030},
		{Path: "b", Viewport: vp(0.5, 0, 0.5, 1), Busy: 0.010},
	})
	out := map[string]region{}
	l.split(tree, region{vp: compound.FullViewport}, compound.FullViewport, g, out)
	if w := out["a"].vp.W; !near(w, 1.0/3, 1e-3) {
		t.Fatalf("columns: a's width %.4f, want 1/3", w)
	}
	// the same node where the tree's region is taller than wide
	l.split(tree, region{vp: compound.FullViewport}, vp(0, 0, 0.25, 1), g, out)
	if h := out["a"].vp.H; !near(h, 0.5, 1e-3) || out["a"].vp.W != 1 {
		t.Errorf("rows: a %+v, want the top half", out["a"].vp)
	}
}

// A DB grid's loads by prefix sums are the loads summed cell by cell:
// random ranges with gaps (at the mean density), queried inside and past
// the cells; overlapping cells are summed one by one.
func TestDBPrefixSumsAreTheCellsLoads(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 2000; trial++ {
		cuts := []float64{0, 1}
		for i := rng.Intn(20); i >= 0; i-- {
			cuts = append(cuts, rng.Float64())
		}
		slices.Sort(cuts)
		var samples []Sample
		for i := 0; i+1 < len(cuts); i++ {
			if rng.Intn(4) > 0 { // else a gap
				samples = append(samples, Sample{Path: "s", Range: compound.Range{Start: cuts[i], End: cuts[i+1]}, Busy: rng.Float64()})
			}
		}
		g := newGrid(true, samples)
		if len(samples) > 0 && g.edges == nil {
			t.Fatalf("trial %d: no prefix sums for %d ranges that do not overlap", trial, len(samples))
		}
		bySum := *g
		bySum.edges = nil
		for k := 0; k < 50; k++ {
			lo, hi := rng.Float64()*1.2-0.1, rng.Float64()*1.2-0.1
			lo, hi = min(lo, hi), max(lo, hi)
			if a, b := g.load1D(lo, hi), bySum.load1D(lo, hi); math.Abs(a-b) > 1e-9 {
				t.Fatalf("trial %d: load of [%.4f, %.4f] %.12f, summed over the cells %.12f", trial, lo, hi, a, b)
			}
		}
	}
	overlapping := newGrid(true, []Sample{{Path: "a", Range: compound.Range{Start: 0, End: 0.6}, Busy: 1},
		{Path: "b", Range: compound.Range{Start: 0.5, End: 1}, Busy: 1}})
	if overlapping.edges != nil {
		t.Error("prefix sums for overlapping ranges")
	}
}

// A 2D grid's loads by its summed-area table are the loads summed cell by
// cell: random splits of the area, some parts left without a sample (at
// the mean density), queried anywhere in it; overlapping cells are summed
// one by one.
func TestSummedAreasAreTheCellsLoads(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var split func(v compound.Viewport, depth int, out *[]Sample)
	split = func(v compound.Viewport, depth int, out *[]Sample) {
		if depth == 0 || rng.Intn(5) == 0 {
			if rng.Intn(4) > 0 { // else a gap
				*out = append(*out, Sample{Path: "s", Viewport: v, Busy: rng.Float64()})
			}
			return
		}
		f := 0.1 + 0.8*rng.Float64()
		if rng.Intn(2) == 0 {
			split(compound.Viewport{X: v.X, Y: v.Y, W: v.W * f, H: v.H}, depth-1, out)
			split(compound.Viewport{X: v.X + v.W*f, Y: v.Y, W: v.W * (1 - f), H: v.H}, depth-1, out)
		} else {
			split(compound.Viewport{X: v.X, Y: v.Y, W: v.W, H: v.H * f}, depth-1, out)
			split(compound.Viewport{X: v.X, Y: v.Y + v.H*f, W: v.W, H: v.H * (1 - f)}, depth-1, out)
		}
	}
	for trial := 0; trial < 1000; trial++ {
		var samples []Sample
		split(compound.FullViewport, 1+rng.Intn(8), &samples)
		g := newGrid(false, samples)
		if len(samples) > 0 && g.table == nil {
			t.Fatalf("trial %d: no table for %d parts that do not overlap", trial, len(samples))
		}
		bySum := *g
		bySum.table = nil
		for k := 0; k < 50; k++ {
			v := randomViewport(rng)
			if a, b := g.load2D(v), bySum.load2D(v); math.Abs(a-b) > 1e-9 {
				t.Fatalf("trial %d: load of %+v %.12f, summed over the cells %.12f", trial, v, a, b)
			}
		}
	}
	overlapping := newGrid(false, []Sample{{Path: "a", Viewport: vp(0, 0, 0.6, 1), Busy: 1}, {Path: "b", Viewport: vp(0.5, 0, 0.5, 1), Busy: 1}})
	if overlapping.table != nil {
		t.Error("a table for overlapping parts")
	}
}

// randomViewport is a viewport between two random corners of the unit
// square.
func randomViewport(rng *rand.Rand) compound.Viewport {
	x0, x1, y0, y1 := rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()
	return compound.Viewport{X: min(x0, x1), Y: min(y0, y1), W: math.Abs(x1 - x0), H: math.Abs(y1 - y0)}
}

// bisected is the split the bisections find, each step weighing the part
// with load: the splits read the table at a part's fixed edge once, and
// must find what a full weighing of every part finds, bit for bit.
func bisected(lo, hi, frac, total float64, load func(m float64) float64) float64 {
	a, b := lo, hi
	for i := 0; i < 50; i++ {
		m := (a + b) / 2
		if load(m) < frac*total {
			a = m
		} else {
			b = m
		}
	}
	return (a + b) / 2
}

// Splits found through a summed-area table, prefix sums or a raster
// equal the bisection that weighs each part whole (load2D, load1D), on
// random grids and regions, both ways, and so do those of grids summed
// cell by cell.
func TestSplitsWeighPartsAsLoadDoes(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 300; trial++ {
		var samples, ranges []Sample
		for i := rng.Intn(12); i >= 0; i-- {
			v := randomViewport(rng)
			samples = append(samples, Sample{Path: "s", Viewport: v, Busy: rng.Float64()})
			ranges = append(ranges, Sample{Path: "s", Range: compound.Range{Start: v.X, End: v.X + v.W}, Busy: rng.Float64()})
		}
		tiled := newGrid(false, samples[:1]) // one part: a table
		raster := newRaster(false)
		for k := range raster.d {
			raster.d[k] = rng.Float64()
		}
		rasterDB := newRaster(true)
		for k := range rasterDB.d {
			rasterDB.d[k] = rng.Float64()
		}
		grids2D := map[string]*grid{"table": tiled, "summed": newGrid(false, samples), "raster": raster.grid()}
		grids1D := map[string]*grid{"prefix sums": newGrid(true, ranges[:1]), "summed": newGrid(true, ranges), "raster": rasterDB.grid()}
		if len(samples) > 1 && grids2D["summed"].table != nil {
			continue // parts that happen not to overlap
		}
		for k := 0; k < 20; k++ {
			v, frac := randomViewport(rng), rng.Float64()
			for name, g := range grids2D {
				for _, vertical := range []bool{true, false} {
					lo, hi := v.Y, v.Y+v.H
					if vertical {
						lo, hi = v.X, v.X+v.W
					}
					want := bisected(lo, hi, frac, g.load2D(v), func(m float64) float64 {
						part := v
						if vertical {
							part.W = m - v.X
						} else {
							part.H = m - v.Y
						}
						return g.load2D(part)
					})
					if got := g.findSplit2D(v, vertical, frac); got != want {
						t.Fatalf("trial %d, %s, %+v, vertical %v, frac %.4f: split at %v, weighing whole parts %v", trial, name, v, vertical, frac, got, want)
					}
				}
			}
			for name, g := range grids1D {
				lo, hi := v.X, v.X+v.W
				want := bisected(lo, hi, frac, g.load1D(lo, hi), func(m float64) float64 { return g.load1D(lo, m) })
				if got := g.findSplit1D(lo, hi, frac); got != want {
					t.Fatalf("trial %d, %s, [%v, %v], frac %.4f: split at %v, weighing whole ranges %v", trial, name, lo, hi, frac, got, want)
				}
			}
		}
	}
}
