package planner

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/corpus"
)

// A config whose plans change only when the planner is told of a change
// reuses its last plan. Planned afresh every frame by a second planner,
// every corpus and example config must come out the same, frame by frame,
// through resizes, head moves, layout and view mode switches and a
// channel that goes down and comes back.
func TestReusedPlansEqualPlansMadeAfresh(t *testing.T) {
	unchanging, reused := 0, 0
	for _, path := range corpus.Paths(t) {
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		cfg := m.Configs[0]
		afresh, again := New(cfg), New(cfg)
		afresh.unchanging = false
		if again.unchanging {
			unchanging++
		}
		changes := changesFor(cfg)
		var last *FramePlan
		for f := 0; f < 18; f++ {
			for _, c := range changes[f] {
				c(afresh)
				c(again)
			}
			want, got := afresh.Plan(f), again.Plan(f)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%s frame %d: the reused plan differs from the one made afresh", filepath.Base(path), f)
			}
			if !reflect.DeepEqual(afresh.Planned(f), again.Planned(f)) {
				t.Fatalf("%s frame %d: the planned states differ", filepath.Base(path), f)
			}
			if last != nil && len(got.Channels) > 0 && &got.Channels[0] == &last.Channels[0] {
				reused++
			}
			last = got
		}
	}
	// walls, pixel and eye decompositions without equalizers are
	// unchanging; each of them planned afresh after every change above
	if unchanging < 10 || reused < 4*unchanging {
		t.Errorf("%d unchanging configs reused %d plans", unchanging, reused)
	}
}

// changesFor is a script of changes, by frame, that every config has the
// parts for: the first window resized, the first observer's head moved,
// the first canvas with two layouts switched, the first view made stereo,
// and the first channel down for three frames.
func changesFor(cfg *compound.Config) map[int][]func(*Planner) {
	out := map[int][]func(*Planner){}
	at := func(f int, c func(*Planner)) { out[f] = append(out[f], c) }
	if len(cfg.Channels) > 0 {
		w := cfg.Channels[0].Window
		size := compound.Size{W: max(1, w.PixelViewport.W*2/3), H: max(1, w.PixelViewport.H/2)}
		at(3, func(p *Planner) { p.SetWindowSize(3, w, size) })
		ch := cfg.Channels[0]
		at(11, func(p *Planner) { p.SetChannelDown(ch, true) })
		at(14, func(p *Planner) { p.SetChannelDown(ch, false) })
	}
	if len(cfg.Observers) > 0 {
		o := cfg.Observers[0]
		head := compound.IdentityHead
		head.Matrix[12], head.Matrix[14] = 0.3, -0.2
		at(5, func(p *Planner) { p.SetHead(5, o, head) })
	}
	for _, cv := range cfg.Canvases {
		if len(cv.Layouts) > 1 {
			at(7, func(p *Planner) { p.SetLayout(7, cv, 1) })
			break
		}
	}
	if views := cfg.Views(); len(views) > 0 {
		at(9, func(p *Planner) { p.SetViewMode(9, views[0], true) })
	}
	return out
}
