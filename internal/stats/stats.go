// Package stats is the statistics model: what each channel reports about
// each frame it worked on. The server's equalizers and the simulator read
// it; render clients write it.
package stats

import (
	"fmt"
	"math"
	"time"

	"github.com/goeq/goeq/internal/compound"
)

// Times are the durations of one channel's work for one compound task set.
type Times struct {
	Clear         time.Duration `json:"clear"`
	Draw          time.Duration `json:"draw"`
	ReadbackSync  time.Duration `json:"readback_sync"`  // on the render goroutine
	ReadbackAsync time.Duration `json:"readback_async"` // finished on the download goroutine
	Compress      time.Duration `json:"compress"`
	Transmit      time.Duration `json:"transmit"`
	Wait          time.Duration `json:"wait"` // waiting for input frames
	Assemble      time.Duration `json:"assemble"`
	// DataLoad is time spent loading data for range newly assigned (DB).
	DataLoad time.Duration `json:"data_load"`
}

// Busy is the time the channel's render goroutine was occupied: what a
// load equalizer balances. Asynchronous readback, compression and
// transmission overlap the next frame's drawing and are left out; waiting
// is idle time.
func (t Times) Busy() time.Duration {
	return t.Clear + t.Draw + t.ReadbackSync + t.Assemble + t.DataLoad
}

// Record is one channel's statistics for one compound in one frame.
type Record struct {
	Frame    int    `json:"frame"`
	Compound string `json:"compound"` // compound.Path()
	Channel  string `json:"channel"`
	Eye      int    `json:"eye"`
	// What the channel was asked to render: the equalizers interpret the
	// times against the region and range they were measured on, so late
	// statistics (latency > 0) are read correctly.
	Viewport compound.Viewport `json:"viewport"`
	Range    compound.Range    `json:"range"`
	// Drawn is the region the application reported as actually drawn (its
	// region of interest), in the compound's viewport coordinates; zero
	// when unknown.
	Drawn compound.Viewport `json:"drawn"`
	Times Times             `json:"times"`
	// Bytes is what the channel sent over the network for the compound
	// (encoded); Size the pixels its draws rendered (width, height of the
	// last, which a DFR zoom shrinks); Tiles how many tiles it drew from
	// a tile queue.
	Bytes int    `json:"bytes"`
	Size  [2]int `json:"size,omitempty"`
	Tiles int    `json:"tiles,omitempty"`
	// DataMoved is the range newly assigned to this channel (DB), which
	// DataLoad was spent loading.
	DataMoved float64 `json:"data_moved"`
	// Renderer names what drew it where others draw too: a software
	// rasterizer of the node (llvmpipe serves one context at a time on
	// each display) or one GPU. Channels with the same renderer take turns
	// on it, so one's time includes part of the others' work.
	Renderer string `json:"renderer,omitempty"`
	// Down are the channels (IDs) the frame was planned without: on pipes
	// not set up, or nodes lost. A statistics file gives them on a
	// frame's first record, and a replay plans that frame without them.
	Down []string `json:"down,omitempty"`
	// Finished is when the channel's node reported the frame done, on the
	// scheduler's clock (zero: unknown); the statistics file has it as
	// done_s
	Finished time.Time `json:"-"`
}

// MaxTime bounds each time a record may carry: no channel spends an hour
// on one step of a frame, and a replay of such a time would simulate for
// that long.
const MaxTime = time.Hour

// Check reports what makes a record one no run could have written (a
// statistics file edited, cut or made by another program, or a client's
// report gone wrong): a negative frame, a time below zero or above
// MaxTime, or a viewport, drawn region or range that is not finite or
// runs backwards.
func (r Record) Check() error {
	if r.Frame < 0 {
		return fmt.Errorf("frame %d is negative", r.Frame)
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"clear", r.Times.Clear}, {"draw", r.Times.Draw}, {"readback_sync", r.Times.ReadbackSync}, {"readback_async", r.Times.ReadbackAsync},
		{"compress", r.Times.Compress}, {"transmit", r.Times.Transmit}, {"wait", r.Times.Wait}, {"assemble", r.Times.Assemble},
		{"data_load", r.Times.DataLoad}} {
		if t.d < 0 || t.d > MaxTime {
			return fmt.Errorf("channel %s's %s time %v is not between 0 and %v", r.Channel, t.name, t.d, MaxTime)
		}
	}
	for _, v := range []struct {
		name string
		v    compound.Viewport
	}{{"viewport", r.Viewport}, {"drawn region", r.Drawn}} {
		if !finite(v.v.X, v.v.Y, v.v.W, v.v.H) {
			return fmt.Errorf("channel %s's %s %v is not a finite one", r.Channel, v.name, v.v)
		}
		if v.v.W < 0 || v.v.H < 0 {
			return fmt.Errorf("channel %s's %s %v has a negative size", r.Channel, v.name, v.v)
		}
	}
	if !finite(r.Range.Start, r.Range.End) {
		return fmt.Errorf("channel %s's range [%g %g] is not a finite one", r.Channel, r.Range.Start, r.Range.End)
	}
	if r.Range.End < r.Range.Start {
		return fmt.Errorf("channel %s's range [%g %g] ends before it starts", r.Channel, r.Range.Start, r.Range.End)
	}
	if !finite(r.DataMoved) {
		return fmt.Errorf("channel %s's data_moved %g is not a finite number", r.Channel, r.DataMoved)
	}
	if r.Bytes < 0 || r.Tiles < 0 {
		return fmt.Errorf("channel %s's bytes %d or tiles %d are negative", r.Channel, r.Bytes, r.Tiles)
	}
	return nil
}

// finite: not NaN nor infinite, nor so large that sums of them lose all
// precision (a record's fractions lie within [0, 1])
func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
			return false
		}
	}
	return true
}

// Frame is every record of one finished frame, and when its tasks were
// sent and it completed, on the server's clock (zero: unknown).
type Frame struct {
	Frame              int
	Records            []Record
	Started, Completed time.Time
}

// ByCompound returns the records of the compound with the given path.
func (f *Frame) ByCompound(path string) []Record {
	var out []Record
	for _, r := range f.Records {
		if r.Compound == path {
			out = append(out, r)
		}
	}
	return out
}

// ByRenderer folds the times of channels that share a renderer into one:
// the slowest one's, which is when the renderer was done with all of them.
// Unnamed renderers stay one time each, in order. Balance is measured on
// what runs in parallel: two channels taking turns on one core are busy
// for the same seconds, and counting each one's time would count the
// core's time twice (the shared channel that finished first would make
// the renderer look idle, though it was busy with the other).
func ByRenderer(renderers []string, times []float64) []float64 {
	out := make([]float64, 0, len(times))
	at := map[string]int{}
	for i, t := range times {
		name := ""
		if i < len(renderers) {
			name = renderers[i]
		}
		if name == "" {
			out = append(out, t)
			continue
		}
		if k, ok := at[name]; ok {
			out[k] = max(out[k], t)
			continue
		}
		at[name] = len(out)
		out = append(out, t)
	}
	return out
}
