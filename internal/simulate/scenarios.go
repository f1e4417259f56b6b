package simulate

import (
	"math"
	"math/rand"
	"sort"

	"github.com/goeq/goeq/internal/compound"
)

// Scenario is a synthetic workload.
type Scenario struct {
	Name  string
	About string
	// Density is the cost field over the destination (x, y in [0,1]); for
	// DB configs x is the database range and y is integrated over.
	Density func(x, y float64, frame int) float64
	Moving  bool      // the field changes every frame
	Speeds  []float64 // per-source speed (default 1)
	// Competing load on one source: its speed halves from StepFrame on,
	// or alternates between full and half every OscPeriod/2 frames.
	Loaded    int
	StepFrame int
	OscPeriod int
	// LoadedPair: the load is on the core that Loaded shares with its
	// sibling (see SharedCores), so both slow down, as a CPU hog on a
	// render node's core slows both of its pipes.
	LoadedPair bool
	// Bursts: the load comes in bursts, as a CPU hog's does on live runs
	// here: the first frames after it comes on are slower still, and
	// while it runs more of the frames are slow, one or two in a row
	// (see burst).
	Bursts bool
	Noise  float64 // per-frame random speed variation, +-fraction
	// Hiccups is the chance that a source's frame takes longer for a
	// reason gone by the next: the operating system's scheduling on
	// shared cores, as node times on live runs here show. How much longer
	// is drawn as it was there (see hiccupSize).
	Hiccups  float64
	Overhead float64 // seconds per source per frame (clear, readback)
	MoveCost float64 // seconds to load one unit of database range
	// SharedCores: sources share cores in pairs (0 and 1, 2 and 3, ...),
	// as two pipes of a software-rendered node on one core do: both run
	// at half speed until the shorter is done, so a source's time is its
	// own work plus as much of its sibling's as overlaps it.
	SharedCores bool
	// SharedRasterizer: sources share a rasterizer in pairs, as two pipes
	// of a process on llvmpipe do: it serves one of them, chosen by chance
	// each frame, and then the other, whose time is then both ones' work.
	// (The statistics of both shared scenarios name the pair's renderer,
	// as live statistics name a node's software rasterizer.)
	SharedRasterizer bool
	Sessions         bool
}

// FrameCost is the cost of the whole frame at speed 1 (seconds): four
// sources make ~10 ms frames.
const FrameCost = 0.040

func uniform(x, y float64, _ int) float64 { return 1 }

func hotspotAt(cx, cy float64) func(x, y float64, _ int) float64 {
	return func(x, y float64, _ int) float64 {
		d2 := (x-cx)*(x-cx) + (y-cy)*(y-cy)
		return 1 + 9*math.Exp(-d2/(2*0.1*0.1))
	}
}

// Scenarios are the named workloads of `eqserver simulate --scenario`.
var Scenarios = map[string]*Scenario{
	"uniform": {Name: "uniform", About: "uniform cost, equal sources, 2% timer noise",
		Density: uniform, Noise: 0.02, Overhead: 0.0005},
	"hotspot": {Name: "hotspot", About: "static hotspot (10x cost) at (0.3, 0.6), 2% timer noise",
		Density: hotspotAt(0.3, 0.6), Noise: 0.02, Overhead: 0.0005},
	"moving-hotspot": {Name: "moving-hotspot", About: "hotspot circling the screen every 120 frames, 2% noise",
		Density: func(x, y float64, f int) float64 {
			a := 2 * math.Pi * float64(f) / 120
			return hotspotAt(0.5+0.3*math.Cos(a), 0.5+0.3*math.Sin(a))(x, y, f)
		}, Moving: true, Noise: 0.02, Overhead: 0.0005},
	"step": {Name: "step", About: "competing load halves source 2's speed from frame 100",
		Density: uniform, Loaded: 1, StepFrame: 100, Overhead: 0.0005},
	"oscillating": {Name: "oscillating", About: "source 2 alternates between full and half speed every 3 frames",
		Density: uniform, Loaded: 1, OscPeriod: 6, Overhead: 0.0005},
	"noisy": {Name: "noisy", About: "every source's speed varies randomly by +-20% each frame",
		Density: uniform, Noise: 0.2, Overhead: 0.0005},
	"hiccups": {Name: "hiccups", About: "every source's speed varies by +-10% and 5% of its frames take 1.3 to 4 times as long, half of them over 1.5 (scheduling on shared cores, sizes as on live runs)",
		Density: uniform, Noise: 0.1, Hiccups: 0.05, Overhead: 0.0005},
	"heterogeneous": {Name: "heterogeneous", About: "source speeds 1, 1, 2, 0.5 (mixed GPUs), 2% noise",
		Density: uniform, Speeds: []float64{1, 1, 2, 0.5}, Noise: 0.02, Overhead: 0.0005},
	"db-step": {Name: "db-step", About: "cost rising along the range, source 2 halves at frame 100, 2% noise, loading data costs 20 ms per unit of range",
		Density: func(x, y float64, _ int) float64 { return 1 + x }, Loaded: 1, StepFrame: 100, Noise: 0.02, Overhead: 0.0005, MoveCost: 0.020},
	"shared-cores": {Name: "shared-cores", About: "static hotspot as in hotspot; sources share cores in pairs, so each one's time includes its sibling's overlapping work, 2% noise",
		Density: hotspotAt(0.3, 0.6), SharedCores: true, Noise: 0.02, Overhead: 0.0005},
	"shared-rasterizer": {Name: "shared-rasterizer", About: "static hotspot as in hotspot; sources share a rasterizer in pairs, which serves them one after the other in a random order each frame, 2% noise",
		Density: hotspotAt(0.3, 0.6), SharedRasterizer: true, Noise: 0.02, Overhead: 0.0005},
	"sessions": {Name: "sessions", About: "views arrive and leave on a pool of 4 pipes: least-loaded sticky placement (adaptive) vs round-robin (equalizer)",
		Sessions: true},
}

// ScenarioNames lists the scenarios in order.
func ScenarioNames() []string {
	out := make([]string, 0, len(Scenarios))
	for k := range Scenarios {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *Scenario) speed(i, f int, rng *rand.Rand) float64 {
	v := 1.0
	if i < len(s.Speeds) {
		v = s.Speeds[i]
	}
	if s.loads(i) {
		if s.sinceStep(f) >= 0 {
			v *= 0.5
		}
		if s.sinceSwitch(f) >= 0 {
			v *= 0.5
		}
	}
	if s.Noise > 0 {
		v *= 1 + s.Noise*(2*rng.Float64()-1)
	}
	if s.Hiccups > 0 && rng.Float64() < s.Hiccups {
		v /= hiccupSize(rng.Float64())
	}
	return v
}

// hiccupSize is how many times as long a hiccup makes a frame, for u
// uniform in [0,1): 1.3 times a Pareto variable of index 4.84, at most 4.
// On live runs here (2D synthetic, Equalizer's policy, the statistics kept
// by goeq-balancelive -keep) a node's frames over 1.3 times the median of
// the ten before took a median 1.5 times as long, a p98 2 to 3 times and
// at most 4: this draw's median is 1.5 and its p98 2.9. (Drawn uniform in
// 1.5-2.5 times, as they first were, they had none of the small ones that
// the adaptive policy took for a change of work, see minHiccup, nor the
// large ones that decide a p99.)
func hiccupSize(u float64) float64 {
	return math.Min(4, 1.3*math.Pow(1-u, -1/4.84))
}

// loads tells whether the competing load is on source i's core: Loaded,
// and its sibling where LoadedPair.
func (s *Scenario) loads(i int) bool {
	return i == s.Loaded || (s.LoadedPair && i == s.Loaded^1)
}

// loadedFor is how many frames the competing load has been on at frame f
// (-1: off).
func (s *Scenario) loadedFor(f int) int {
	step, switched := s.sinceStep(f), s.sinceSwitch(f)
	if step < 0 || (switched >= 0 && switched < step) {
		return switched
	}
	return step
}

// sinceStep is how many frames the load that stays has been on at frame f
// (-1: off).
func (s *Scenario) sinceStep(f int) int {
	if s.StepFrame > 0 && f >= s.StepFrame {
		return f - s.StepFrame
	}
	return -1
}

// sinceSwitch is how many frames the load switched on and off has been on
// at frame f (-1: off): the second half of each OscPeriod.
func (s *Scenario) sinceSwitch(f int) int {
	if half := s.OscPeriod / 2; half > 0 && (f/half)%2 == 1 {
		return f % half
	}
	return -1
}

// Burst figures, from the kept statistics of live 2D synthetic runs here
// with Equalizer's policy and a hog that stays from 10 s on
// (goeq-balancelive -keep; docs/equalizers.md, "A hog on a shared
// core"): the hogged node's first three frames under the hog took about
// 1.45-1.65 times its time under the hog after, and then its frames more than 1.3
// times the median of the ten before rose from 12-15% to 21-22%, at a
// median 1.45 and a p90 of 1.75 times, about one run in five two frames
// long and almost none longer.
const (
	burstStart  = 3    // frames slowed after the load comes on
	burstChance = 0.08 // a run of slow frames starting, per frame
	burstTwice  = 0.2  // a run lasting two frames
)

// burst is how many times as long source i's frame f takes for the
// bursts of its competing load (1 where it has none). Bursts belong to
// the core, so both sources on it share them; they draw on a random
// source of their own, seeded by the run's seed, the frame and the core,
// so that other scenarios' draws stay as they were.
func (s *Scenario) burst(i, f int, seed int64) float64 {
	if !s.Bursts || !s.loads(i) {
		return 1
	}
	on := s.loadedFor(f)
	if on < 0 {
		return 1
	}
	draw := func(f int) *rand.Rand {
		return rand.New(rand.NewSource(seed*1_000_003 + int64(f)*7919 + int64(s.Loaded/2)))
	}
	if on < burstStart {
		return 1.5 + 0.2*draw(f).Float64()
	}
	// a run starting at f, or a two-frame run at f-1
	for back := 0; back < 2 && on-back >= burstStart; back++ {
		r := draw(f - back)
		if starts, twice, factor := r.Float64() < burstChance, r.Float64() < burstTwice, 1.3+0.5*r.Float64(); starts && (back == 0 || twice) {
			return factor
		}
	}
	return 1
}

// field is the cost field sampled on a grid with a summed-area table, so
// the cost of any rectangle is exact for the piecewise-constant field.
type field struct {
	sc    *Scenario
	db    bool
	n     int
	sat   []float64 // (n+1) x (n+1) cumulative cost
	frame int
}

const gridSize = 128

func newField(sc *Scenario, db bool) *field {
	f := &field{sc: sc, db: db, n: gridSize, sat: make([]float64, (gridSize+1)*(gridSize+1)), frame: -1}
	f.build(0)
	return f
}

func (f *field) advance(frame int) {
	if f.sc.Moving && frame != f.frame {
		f.build(frame)
	}
}

func (f *field) build(frame int) {
	n := f.n
	f.frame = frame
	total := 0.0
	for j := 0; j < n; j++ {
		row := 0.0
		for i := 0; i < n; i++ {
			row += f.sc.Density((float64(i)+0.5)/float64(n), (float64(j)+0.5)/float64(n), frame)
			f.sat[(j+1)*(n+1)+i+1] = f.sat[j*(n+1)+i+1] + row
		}
		total += row
	}
	scale := FrameCost / total
	for i := range f.sat {
		f.sat[i] *= scale
	}
}

// at is the cumulative cost of [0,x] x [0,y], bilinear between grid nodes
// (exact for a piecewise-constant field).
func (f *field) at(x, y float64) float64 {
	n := float64(f.n)
	gx, gy := math.Max(0, math.Min(n, x*n)), math.Max(0, math.Min(n, y*n))
	i, j := int(math.Min(gx, n-1)), int(math.Min(gy, n-1))
	fx, fy := gx-float64(i), gy-float64(j)
	w := f.n + 1
	a, b := f.sat[j*w+i], f.sat[j*w+i+1]
	c, d := f.sat[(j+1)*w+i], f.sat[(j+1)*w+i+1]
	return a*(1-fx)*(1-fy) + b*fx*(1-fy) + c*(1-fx)*fy + d*fx*fy
}

func (f *field) rect(x0, y0, x1, y1 float64) float64 {
	return f.at(x1, y1) - f.at(x0, y1) - f.at(x1, y0) + f.at(x0, y0)
}

// cost of rendering a viewport and range of the destination at speed 1.
func (f *field) cost(vp compound.Viewport, r compound.Range) float64 {
	if f.db {
		return f.rect(r.Start, 0, r.End, 1) * vp.W * vp.H
	}
	return f.rect(vp.X, vp.Y, vp.X+vp.W, vp.Y+vp.H) * (r.End - r.Start)
}
