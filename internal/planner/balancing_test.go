package planner

import (
	"maps"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/stats"
)

// twoViews has a layout of two views side by side, each load-balanced
// over two sources of its own.
const twoViews = `config {
  latency 1
  appNode { pipe { window { viewport [ 0 0 640 360 ] channel { name "dest" } } } }
  node { pipe { window { viewport [ 0 0 640 360 ] attributes { hint_drawable FBO }
    channel { name "a1" } channel { name "a2" } channel { name "b1" } channel { name "b2" } } } }
  observer { }
  layout { view { observer 0 viewport [ 0 0 .5 1 ] } view { observer 0 viewport [ .5 0 .5 1 ] } }
  canvas { layout 0 wall { } segment { channel "dest" } }
  compound { channel ( segment 0 view 0 ) load_equalizer { damping .3 resistance [ 2 3 ] }
    compound { channel "a1" outputframe { name "a1" } } compound { channel "a2" outputframe { name "a2" } }
    inputframe { name "a1" } inputframe { name "a2" } }
  compound { channel ( segment 0 view 1 ) load_equalizer { }
    compound { channel "b1" outputframe { name "b1" } } compound { channel "b2" outputframe { name "b2" } }
    inputframe { name "b1" } inputframe { name "b2" } }
}`

// Frozen through its view's Balancing, one view's load equalizer keeps its
// split while the other view's goes on balancing by the same statistics,
// until the view is let go.
func TestBalancingFreezesOneView(t *testing.T) {
	cfg := loadText(t, "two-views.eqc", twoViews)
	p := New(cfg)
	views := cfg.Views()
	// the first source of each view is three times as slow
	skewed := func(plan *FramePlan) stats.Frame {
		var recs []stats.Record
		for root, names := range [][2]string{{"a1", "a2"}, {"b1", "b2"}} {
			for i, name := range names {
				d := 10 * time.Millisecond
				if i == 0 {
					d = 30 * time.Millisecond
				}
				if cp := channel(plan, name); cp != nil {
					recs = append(recs, record(plan.Frame, string(rune('0'+root))+"."+string(rune('0'+i)), cp.Tasks[1].Viewport, d))
				}
			}
		}
		return stats.Frame{Frame: plan.Frame, Records: recs}
	}
	shares := func(plan *FramePlan, names ...string) map[string]compound.PixelViewport {
		out := map[string]compound.PixelViewport{}
		for _, name := range names {
			if cp := channel(plan, name); cp != nil {
				out[name] = cp.Tasks[1].Share
			}
		}
		return out
	}
	first := p.Plan(0)
	p.SetBalancing(1, views[0], compound.BalancingChange{Balancing: compound.Balancing{Frozen: true}, Fields: compound.BalanceFrozen})
	p.SetBalancing(5, views[0], compound.BalancingChange{Balancing: compound.Balancing{Frozen: false}, Fields: compound.BalanceFrozen})
	p.Feed(skewed(first))
	var last *FramePlan
	for f := 1; f < 5; f++ {
		last = p.Plan(f)
		if got, want := shares(last, "a1", "a2"), shares(first, "a1", "a2"); !maps.Equal(got, want) {
			t.Errorf("view 0 frozen, frame %d split %v; frame 0's was %v", f, got, want)
		}
		p.Feed(skewed(last))
	}
	if a, b := shares(last, "b1")["b1"], shares(first, "b1")["b1"]; a.W*a.H >= b.W*b.H {
		t.Errorf("view 1, not frozen, kept slow b1 at %v (it had %v)", a, b)
	}
	again := p.Plan(5)
	if a, b := shares(again, "a1")["a1"], shares(first, "a1")["a1"]; a.W*a.H >= b.W*b.H {
		t.Errorf("view 0 let go, slow a1 kept %v (it had %v)", a, b)
	}
	if views[0].BalanceFrozen || views[1].BalanceFrozen {
		t.Errorf("frozen views after: %v, %v", views[0].BalanceFrozen, views[1].BalanceFrozen)
	}
}

// A change of a view's Balancing reaches that view's equalizers from its
// frame on, and only the fields it sets: the other view's keep theirs.
func TestBalancingChangesOnlyItsViewsFields(t *testing.T) {
	cfg := loadText(t, "two-views.eqc", twoViews)
	p := New(cfg)
	views := cfg.Views()
	loadOf := func(v int) *compound.Equalizer {
		return &p.Load(cfg.Compounds[v]).Params
	}
	if got := cfg.ViewBalancing(views[0]); got.Damping != .3 || got.Resistance != [2]int{2, 3} || got.Boundary != [2]int{1, 1} {
		t.Errorf("view 0 as configured: %+v", got)
	}
	b := cfg.ViewBalancing(views[0])
	b.Damping = .9
	p.SetBalancing(2, views[0], b.Diff(cfg.ViewBalancing(views[0])))
	for f := 0; f < 4; f++ {
		p.Plan(f)
		want := .3
		if f >= 2 {
			want = .9
		}
		if got := loadOf(0); got.Damping != want || got.Resistance2D != [2]int{2, 3} {
			t.Errorf("frame %d: view 0's load equalizer damps %v with resistance %v, want %v and [2 3]", f, got.Damping, got.Resistance2D, want)
		}
		if got := loadOf(1); got.Damping != .5 {
			t.Errorf("frame %d: view 1's load equalizer damps %v, want the config's .5", f, got.Damping)
		}
	}
}

// A tile equalizer cuts its queue into the tile size its view's Balancing
// sets, from that frame on.
func TestBalancingSetsTheTileSize(t *testing.T) {
	cfg := load(t, "tile-4.eqc")
	p := New(cfg)
	view := cfg.Views()[0]
	if got := cfg.ViewBalancing(view).TileSize; got != [2]int{64, 64} {
		t.Fatalf("tile size as configured: %v", got)
	}
	p.SetBalancing(1, view, compound.BalancingChange{Balancing: compound.Balancing{TileSize: [2]int{128, 100}}, Fields: compound.BalanceTileSize})
	for f, want := range []int{10 * 6, 5 * 4} { // 640x360 in 64x64 tiles, then in 128x100
		plan := p.Plan(f)
		if len(plan.Queues) != 1 {
			t.Fatalf("frame %d: %d tile queues", f, len(plan.Queues))
		}
		for _, q := range plan.Queues {
			if len(q.Tiles) != want {
				t.Errorf("frame %d: %d tiles, want %d", f, len(q.Tiles), want)
			}
		}
	}
}

// A view's DFR equalizer holds the frame rate and damping its Balancing
// sets, from that frame on: Equalizer's 1-window.DFR asks for 15 frames a
// second, and the change for 30.
func TestBalancingSetsTheDFRFrameRate(t *testing.T) {
	cfg := corpusConfig(t, "1-window.DFR.eqc")
	p := New(cfg)
	view := cfg.Views()[0]
	b := cfg.ViewBalancing(view)
	if b.Framerate != 15 || b.Damping != .5 {
		t.Fatalf("as configured: frame rate %v, damping %v; want 15 and .5", b.Framerate, b.Damping)
	}
	b.Framerate, b.Damping = 30, .2
	p.SetBalancing(1, view, b.Diff(cfg.ViewBalancing(view)))
	for f, want := range []float64{15, 30} {
		p.Plan(f)
		for _, d := range p.dfrs {
			if d.Framerate != want || f == 1 && d.Damping != .2 {
				t.Errorf("frame %d: the DFR equalizer holds %v frames a second, damping %v", f, d.Framerate, d.Damping)
			}
		}
	}
	if len(p.dfrs) != 1 {
		t.Fatalf("%d DFR equalizers, want 1", len(p.dfrs))
	}
}

// A load equalizer splits on the boundary its view's Balancing sets from
// that frame on: 2d-lb-4's four sources, which split at any pixel, split
// at multiples of 64 pixels once it is 64x64.
func TestBalancingSetsTheBoundary(t *testing.T) {
	cfg := load(t, "2d-lb-4.eqc")
	p := New(cfg)
	view := cfg.Views()[0]
	b := cfg.ViewBalancing(view)
	b.Boundary = [2]int{64, 64}
	p.SetBalancing(3, view, b.Diff(cfg.ViewBalancing(view)))
	aligned := func(plan *FramePlan) bool {
		for _, name := range []string{"src1", "src2", "src3", "src4"} {
			s := channel(plan, name).Tasks[1].Share
			for _, edge := range []int{s.X, s.Y, s.X + s.W, s.Y + s.H} {
				if edge%64 != 0 && edge != 640 && edge != 360 {
					return false
				}
			}
		}
		return true
	}
	for f := 0; f < 6; f++ {
		plan := p.Plan(f)
		if f >= 3 && !aligned(plan) {
			for _, name := range []string{"src1", "src2", "src3", "src4"} {
				t.Errorf("frame %d: %s draws %v, not on the 64-pixel boundary", f, name, channel(plan, name).Tasks[1].Share)
			}
		}
		var recs []stats.Record
		for i, name := range []string{"src1", "src2", "src3", "src4"} {
			d := time.Duration(10+7*i) * time.Millisecond
			recs = append(recs, record(plan.Frame, "0."+string(rune('0'+i)), channel(plan, name).Tasks[1].Viewport, d))
		}
		p.Feed(stats.Frame{Frame: plan.Frame, Records: recs})
	}
}

// A view frozen through its Balancing still shares a lost source's work
// out: the other source of that view draws the whole view.
func TestAFrozenViewSharesALostSourcesWork(t *testing.T) {
	cfg := loadText(t, "two-views.eqc", twoViews)
	p := New(cfg)
	first := p.Plan(0)
	p.SetBalancing(1, cfg.Views()[0], compound.BalancingChange{Balancing: compound.Balancing{Frozen: true}, Fields: compound.BalanceFrozen})
	if plan := p.Plan(1); channel(plan, "a1") == nil {
		t.Fatal("frame 1: a1 draws nothing before it is lost")
	}
	p.SetChannelDown(channel(first, "a1").Channel, true)
	plan := p.Plan(2)
	if cp := channel(plan, "a1"); cp != nil {
		t.Errorf("frame 2: lost a1 still draws %v", cp.Tasks)
	}
	if got := channel(plan, "a2").Tasks[1].Share; got != (compound.PixelViewport{W: 320, H: 360}) {
		t.Errorf("frame 2: a2 draws %v of the frozen view, want all of its 320x360", got)
	}
}
