package equalizer

import (
	"math"
	"sort"

	"github.com/goeq/goeq/internal/compound"
)

// ---- view equalizer ---------------------------------------------------------

// ViewLoad is one view (a child of the view equalizer's compound) with the
// time its sources spent on it last frame and the sources it may use.
type ViewLoad struct {
	Path    string
	Load    float64 // seconds
	Sources []string
}

// View is the view equalizer: it moves resources between views by load.
// A source that several views may use is shared in proportion to the views'
// loads; the result is each (view, source) usage, damped frame to frame.
type View struct {
	Damping float64
	usage   map[[2]string]float64
}

// NewView returns a view equalizer.
func NewView(damping float64) *View { return &View{Damping: damping, usage: map[[2]string]float64{}} }

// Plan returns usage[view][source] in [0,1]; a source's usages over the
// views sum to 1.
func (v *View) Plan(views []ViewLoad) map[string]map[string]float64 {
	users := map[string][]int{}
	for i, vw := range views {
		for _, s := range vw.Sources {
			users[s] = append(users[s], i)
		}
	}
	out := map[string]map[string]float64{}
	for _, vw := range views {
		out[vw.Path] = map[string]float64{}
	}
	sources := make([]string, 0, len(users))
	for s := range users {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	for _, s := range sources {
		idx := users[s]
		total := 0.0
		for _, i := range idx {
			total += math.Max(views[i].Load, 0)
		}
		for _, i := range idx {
			share := 1 / float64(len(idx))
			if total > 0 {
				share = math.Max(views[i].Load, 0) / total
			}
			key := [2]string{views[i].Path, s}
			if old, ok := v.usage[key]; ok {
				share = old + (1-v.Damping)*(share-old)
			}
			v.usage[key] = share
			out[views[i].Path][s] = share
		}
	}
	return out
}

// ---- framerate equalizer (DPlex smoothing) ----------------------------------

// Framerate smooths the output of time-multiplexed (DPlex) compounds: a
// source that takes T seconds for a frame and renders every Nth frame
// (period N) keeps up with a frame every T/N seconds; releasing frames at
// the pace of the slowest source, instead of as they finish, gives an even
// frame rate. The interval is filtered (weight 1-Damping for news).
type Framerate struct {
	Damping  float64
	Interval float64 // seconds between frames; 0 until measured

	// paces holds each source's last T/N: a frame's statistics have
	// times only for the sources that rendered it
	paces []float64
}

// Update takes each source's time for the last finished frame (0 for
// those that did not render it) and its period, and returns the interval
// to release frames at. frame is how long that frame took on the server's
// clock, from its start to its completion (0: unknown): no source spent
// longer on it, so a time reported longer is cut to it. (A draw reported
// as taking hours spaced the frames by as much, and the run stood still.)
func (f *Framerate) Update(times []float64, periods []int, frame float64) float64 {
	if len(f.paces) != len(times) {
		f.paces = make([]float64, len(times))
	}
	for i, t := range times {
		if frame > 0 {
			t = min(t, frame)
		}
		if t > 0 && periods[i] > 0 {
			f.paces[i] = t / float64(periods[i])
		}
	}
	target := 0.0
	for _, p := range f.paces {
		target = max(target, p)
	}
	switch {
	case target == 0:
	case f.Interval == 0:
		f.Interval = target
	default:
		f.Interval += (1 - f.Damping) * (target - f.Interval)
	}
	return f.Interval
}

// ---- DFR equalizer ----------------------------------------------------------

// DFR is the dynamic frame resize equalizer: it scales the rendering
// resolution (zoom) so that the frame time meets the target frame rate.
// Time is taken as proportional to the pixel count, zoom squared.
type DFR struct {
	Damping   float64
	Framerate float64 // target frames per second
	Zoom      float64 // current zoom, 1 = full resolution
	MinZoom   float64
}

// NewDFR returns a DFR equalizer at full resolution.
func NewDFR(p compound.Equalizer) *DFR {
	return &DFR{Damping: p.Damping, Framerate: p.Framerate, Zoom: 1, MinZoom: 0.125}
}

// Update takes the last frame time (seconds, measured at the current zoom)
// and returns the zoom for the next frame, in [MinZoom, 1].
func (d *DFR) Update(frameSeconds float64) float64 {
	if frameSeconds <= 0 || d.Framerate <= 0 {
		return d.Zoom
	}
	want := d.Zoom * math.Sqrt(1/d.Framerate/frameSeconds)
	z := d.Zoom + (1-d.Damping)*(want-d.Zoom)
	d.Zoom = math.Min(1, math.Max(d.MinZoom, z))
	return d.Zoom
}

// ---- monitor equalizer ------------------------------------------------------

// MonitorInput is a frame of the wall (its segment's viewport on the canvas
// and its size in pixels) shown on the monitor.
type MonitorInput struct {
	Viewport       compound.Viewport
	PixelW, PixelH int
}

// MonitorPlacement is where and at which zoom an input frame lands on the
// monitor channel.
type MonitorPlacement struct {
	PixelViewport compound.PixelViewport
	Zoom          compound.Zoom
}

// Monitor places each wall frame on a (smaller) monitor window: at its
// segment's position scaled to the monitor, downscaled by the zoom that
// makes its pixels fit.
func Monitor(monitor compound.PixelViewport, inputs []MonitorInput) []MonitorPlacement {
	out := make([]MonitorPlacement, len(inputs))
	for i, in := range inputs {
		pvp := monitor.Apply(in.Viewport)
		z := compound.Zoom{X: 1, Y: 1}
		if in.PixelW > 0 && in.PixelH > 0 {
			z = compound.Zoom{X: float64(pvp.W) / float64(in.PixelW), Y: float64(pvp.H) / float64(in.PixelH)}
		}
		out[i] = MonitorPlacement{PixelViewport: pvp, Zoom: z}
	}
	return out
}

// ---- tile equalizer ---------------------------------------------------------

// Tiles cuts a w x h pixel area into tiles of the given size, in zigzag
// order (left to right on even rows, right to left on odd ones) so that
// consecutive tiles stay close in the image.
func Tiles(w, h, tw, th int) []compound.PixelViewport {
	if tw < 1 || th < 1 {
		return nil
	}
	var out []compound.PixelViewport
	for row, y := 0, 0; y < h; row, y = row+1, y+th {
		var line []compound.PixelViewport
		for x := 0; x < w; x += tw {
			line = append(line, compound.PixelViewport{X: x, Y: y, W: min(tw, w-x), H: min(th, h-y)})
		}
		if row%2 == 1 {
			for i, j := 0, len(line)-1; i < j; i, j = i+1, j-1 {
				line[i], line[j] = line[j], line[i]
			}
		}
		out = append(out, line...)
	}
	return out
}

// Chunks cuts the database range into chunks of the given size (DB tiles).
func Chunks(chunk float64) []compound.Range {
	if chunk <= 0 {
		return nil
	}
	var out []compound.Range
	for s := 0.0; s < 1-1e-9; s += chunk {
		out = append(out, compound.Range{Start: s, End: math.Min(1, s+chunk)})
	}
	return out
}
