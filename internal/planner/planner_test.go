package planner

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/stats"
)

func load(t *testing.T, name string) *compound.Config {
	t.Helper()
	m, _, err := compound.Load(filepath.Join("..", "..", "examples", "configs", name), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

// loadText loads a config written here, naming it name in its errors.
func loadText(t *testing.T, name, text string) *compound.Config {
	t.Helper()
	m, _, err := compound.LoadText(name, []byte(text), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

func channel(plan *FramePlan, name string) *ChannelPlan {
	for _, c := range plan.Channels {
		if c.Channel.Name == name {
			return c
		}
	}
	return nil
}

func kinds(cp *ChannelPlan) string {
	var k []string
	for _, t := range cp.Tasks {
		k = append(k, t.Kind.String())
	}
	return strings.Join(k, " ")
}

func TestPlan2DFirstFrame(t *testing.T) {
	p := New(load(t, "2d-lb-4.eqc"))
	plan := p.Plan(0)
	dest := channel(plan, "dest")
	if dest == nil || kinds(dest) != "clear assemble" {
		t.Fatalf("dest tasks: %v", dest)
	}
	if n := len(dest.Tasks[1].Inputs); n != 4 {
		t.Errorf("dest assembles %d frames, want 4", n)
	}
	for _, in := range dest.Tasks[1].Inputs {
		if in.Depth {
			t.Errorf("input %s of colour frames says it carries depth", in.Name)
		}
	}
	want := map[string]compound.PixelViewport{
		"src1": {X: 0, Y: 0, W: 320, H: 180}, "src2": {X: 0, Y: 180, W: 320, H: 180},
		"src3": {X: 320, Y: 0, W: 320, H: 180}, "src4": {X: 320, Y: 180, W: 320, H: 180},
	}
	for name, share := range want {
		cp := channel(plan, name)
		if cp == nil || kinds(cp) != "clear draw readback" {
			t.Fatalf("%s tasks: %v", name, cp)
		}
		if got := cp.Tasks[1].Share; got != share {
			t.Errorf("%s draws share %+v, want %+v", name, got, share)
		}
		// a source renders its share one to one at its channel's corner
		if got, want := cp.Tasks[1].Region, (compound.PixelViewport{W: share.W, H: share.H}); got != want {
			t.Errorf("%s draws into %+v, want %+v", name, got, want)
		}
		out := cp.Tasks[2].Outputs
		if len(out) != 1 || len(out[0].Consumers) != 1 || out[0].Consumers[0] != dest.Channel.ID {
			t.Errorf("%s output %+v, want one frame to dest", name, out)
		}
		if cp.Tasks[1].Eye != compound.EyeCyclop {
			t.Errorf("%s: mono view renders the cyclop eye only", name)
		}
	}
}

func record(frame int, path string, vp compound.Viewport, draw time.Duration) stats.Record {
	return stats.Record{Frame: frame, Compound: path, Viewport: vp, Times: stats.Times{Draw: draw}}
}

// src1 is three times slower than the others: the first plan that reads
// frame 0's statistics gives it less. At latency 1 that is frame 2's: frame
// 1's plan keeps the even split though they came before it.
func TestStatisticsMoveTheSplit(t *testing.T) {
	p := New(load(t, "2d-lb-4.eqc"))
	plan := p.Plan(0)
	var recs []stats.Record
	for i, name := range []string{"src1", "src2", "src3", "src4"} {
		d := 10 * time.Millisecond
		if i == 0 {
			d = 30 * time.Millisecond
		}
		recs = append(recs, record(0, "0."+string(rune('0'+i)), channel(plan, name).Tasks[1].Viewport, d))
	}
	p.Feed(stats.Frame{Frame: 0, Records: recs})
	if got, want := channel(p.Plan(1), "src1").Tasks[1].Share, channel(plan, "src1").Tasks[1].Share; got != want {
		t.Errorf("frame 1 read frame 0's statistics (latency 1): src1 has %v, not %v", got, want)
	}
	plan = p.Plan(2)
	a1 := channel(plan, "src1").Tasks[1].Share
	a2 := channel(plan, "src2").Tasks[1].Share
	if a1.W*a1.H >= a2.W*a2.H {
		t.Errorf("slow src1 kept %v, src2 has %v", a1, a2)
	}
}

// A plan reads the statistics of the frame latency+1 before it, whenever
// later ones came: two runs whose frames finished at other times (in
// another order, or a later one before a frame was planned) plan alike.
func TestAPlanReadsTheStatisticsOfItsLatency(t *testing.T) {
	skewed := func(plan *FramePlan, slow string) stats.Frame {
		var recs []stats.Record
		for i, name := range []string{"src1", "src2", "src3", "src4"} {
			d := 10 * time.Millisecond
			if name == slow {
				d = 25 * time.Millisecond
			}
			recs = append(recs, record(plan.Frame, "0."+string(rune('0'+i)), channel(plan, name).Tasks[1].Viewport, d))
		}
		return stats.Frame{Frame: plan.Frame, Records: recs}
	}
	slowOf := func(f int) string { return []string{"src1", "src2", "src3", "src4"}[f%4] }
	// in time: frame f's statistics come just before frame f+2 is planned
	inTime := New(load(t, "2d-lb-4.eqc"))
	var want []*FramePlan
	for f := 0; f < 12; f++ {
		if f >= 2 {
			inTime.Feed(skewed(want[f-2], slowOf(f-2)))
		}
		want = append(want, inTime.Plan(f))
	}
	// early and out of order: frame f's statistics come before frame f+1
	// is planned, every other pair the later first
	early := New(load(t, "2d-lb-4.eqc"))
	var got []*FramePlan
	for f := 0; f < 12; f++ {
		if f >= 2 && f%2 == 0 {
			early.Feed(skewed(got[f-1], slowOf(f-1)))
			early.Feed(skewed(got[f-2], slowOf(f-2)))
		}
		got = append(got, early.Plan(f))
	}
	for f := range want {
		for _, name := range []string{"src1", "src2", "src3", "src4"} {
			if a, b := channel(got[f], name).Tasks[1].Share, channel(want[f], name).Tasks[1].Share; a != b {
				t.Errorf("frame %d: %s has %v with statistics early, %v in time", f, name, a, b)
			}
		}
	}
	moved := false
	for f := range want {
		moved = moved || channel(want[f], "src1").Tasks[1].Share != channel(want[0], "src1").Tasks[1].Share
	}
	if !moved {
		t.Error("the statistics never moved the split: the comparison proves nothing")
	}
}

// With latency, statistics of frame 0 arrive after frames 1 and 2 were
// planned; they are read against frame 0's regions.
func TestLateStatistics(t *testing.T) {
	p := New(load(t, "2d-lb-4.eqc"))
	p0 := p.Plan(0)
	p.Plan(1)
	p.Plan(2)
	var recs []stats.Record
	for i, name := range []string{"src1", "src2", "src3", "src4"} {
		recs = append(recs, record(0, "0."+string(rune('0'+i)), channel(p0, name).Tasks[1].Viewport, 10*time.Millisecond))
	}
	p.Feed(stats.Frame{Frame: 0, Records: recs})
	plan := p.Plan(3)
	if got := channel(plan, "src1").Tasks[1].Share; got != (compound.PixelViewport{X: 0, Y: 0, W: 320, H: 180}) {
		t.Errorf("balanced statistics moved the split: %+v", got)
	}
}

func TestDBPlanRanges(t *testing.T) {
	plan := New(load(t, "db-lb-4.eqc")).Plan(0)
	for i, name := range []string{"src1", "src2", "src3", "src4"} {
		r := channel(plan, name).Tasks[1].Range
		if r.Start != float64(i)/4 || r.End != float64(i+1)/4 {
			t.Errorf("%s range %+v", name, r)
		}
		if pvp := channel(plan, name).Tasks[1].Region; pvp.W != 640 || pvp.H != 360 {
			t.Errorf("%s: DB sources render the whole viewport, got %+v", name, pvp)
		}
	}
}

// An input says it carries depth exactly when a producer's output of that
// name does (an executor resolves the depth of a multisampled draw only
// for what reads it), on every corpus and example config, sort-last
// exchanges included.
func TestInputsSayWhetherTheyCarryDepth(t *testing.T) {
	var paths []string
	for _, dir := range []string{filepath.Join("..", "..", "..", "shared", "eqc-corpus"), filepath.Join("..", "..", "examples", "configs")} {
		found, err := filepath.Glob(filepath.Join(dir, "*.eqc"))
		if err != nil || len(found) == 0 {
			t.Fatalf("no configs in %s: %v", dir, err)
		}
		paths = append(paths, found...)
	}
	withDepth, without := 0, 0
	for _, path := range paths {
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			continue // the corpus' broken configs have tests of their own
		}
		for _, cfg := range m.Configs {
			p := New(cfg)
			for f := range 4 {
				plan := p.Plan(f)
				depth := map[string]bool{} // by frame name
				for _, cp := range plan.Channels {
					for _, task := range cp.Tasks {
						for _, out := range task.Outputs {
							depth[out.Name] = depth[out.Name] || out.Buffers&compound.BufferDepth != 0
						}
					}
				}
				for _, cp := range plan.Channels {
					for _, task := range cp.Tasks {
						for _, in := range task.Inputs {
							if in.Depth != depth[in.Name] {
								t.Errorf("%s frame %d: %s's input %s says depth %v; its producers send depth: %v", filepath.Base(path), f, cp.Channel.Name, in.Name, in.Depth, depth[in.Name])
							}
							if in.Depth {
								withDepth++
							} else {
								without++
							}
						}
					}
				}
			}
		}
	}
	if withDepth == 0 || without == 0 {
		t.Errorf("%d inputs with depth, %d without: the configs should have both", withDepth, without)
	}
}

func TestPeriodPhaseAndStereo(t *testing.T) {
	m, _, err := compound.Load(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "2-node.DPlex.eqc"), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Skip("corpus not present")
	}
	p := New(m.Configs[0])
	for f := 0; f < 4; f++ {
		plan := p.Plan(f)
		c1, c2 := channel(plan, "channel1"), channel(plan, "channel2")
		if (f%2 == 0) != (c1 != nil) || (f%2 == 1) != (c2 != nil) {
			t.Errorf("frame %d: channel1 %v channel2 %v", f, c1 != nil, c2 != nil)
		}
	}
}

func TestFrustumAndViewMatrix(t *testing.T) {
	plan := New(load(t, "one-window.eqc")).Plan(0)
	draw := channel(plan, "dest").Tasks[1]
	if draw.Kind != Draw {
		t.Fatalf("tasks %v", kinds(channel(plan, "dest")))
	}
	f := draw.Frustum
	if !near(f.Left, -0.08) || !near(f.Right, 0.08) || !near(f.Bottom, -0.05) || !near(f.Top, 0.05) {
		t.Errorf("frustum %+v for the default wall", f)
	}
	want := [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	if draw.ViewMatrix != want {
		t.Errorf("view matrix %v, want identity for the default wall seen from the origin", draw.ViewMatrix)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// BenchmarkPlanLargest plans one frame of the 143-compound
// 4-window.all.eqc (all equalizers running, statistics fed every frame).
// BenchmarkResolveLargest in package compound is the baseline.
func BenchmarkPlanLargest(b *testing.B) {
	m, _, err := compound.Load(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "4-window.all.eqc"), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		b.Skip("corpus not present")
	}
	p := New(m.Configs[0])
	var recs []stats.Record
	m.Configs[0].Walk(func(c *compound.Compound) {
		if c.IsLeaf() && c.Channel != nil {
			recs = append(recs, stats.Record{Compound: c.Path(), Channel: c.Channel.Name, Viewport: c.Viewport, Range: c.Range,
				Times: stats.Times{Draw: time.Duration(5+len(recs)%7) * time.Millisecond}})
		}
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range recs {
			recs[j].Frame = i
		}
		p.Feed(stats.Frame{Frame: i, Records: recs})
		if plan := p.Plan(i + 1); len(plan.Channels) == 0 {
			b.Fatal("empty plan")
		}
	}
}

// A tree equalizer weighs each child by the sources under it: a child
// with two sources gets two thirds of the first frame.
func TestTreeEqualizerWeighsBySources(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 900 300 ] channel { name "dest" } channel { name "c1" } channel { name "c2" } channel { name "c3" } } } }
    compound {
        channel "dest"
        tree_equalizer { mode VERTICAL }
        compound { compound { channel "c1" outputframe { name "f1" } } compound { channel "c2" outputframe { name "f2" } } }
        compound { channel "c3" outputframe { name "f3" } }
        inputframe { name "f1" } inputframe { name "f2" } inputframe { name "f3" }
    }
}`
	res, err := configparser.Parse("tree.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := compound.Resolve(res, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	plan := New(m.Configs[0]).Plan(0)
	if vp := plan.Compounds["0.0"].Viewport; !near(vp.W, 2.0/3) {
		t.Errorf("two-source child got %+v, want two thirds", vp)
	}
	if vp := plan.Compounds["0.1"].Viewport; !near(vp.X, 2.0/3) || !near(vp.W, 1.0/3) {
		t.Errorf("one-source child got %+v", vp)
	}
}

// A tracked head moves the eye, and the fixed walls of a CAVE are seen off
// axis from it: every frustum below is computed by hand from the walls of
// 3-channel.cave.eqc (2 m cube faces one metre from the origin) and the
// near plane 0.1.
func TestTrackedHeadMovesCaveFrusta(t *testing.T) {
	cfg := corpusConfig(t, "3-channel.cave.eqc")
	if len(cfg.Observers) != 1 {
		t.Fatalf("%d observers", len(cfg.Observers))
	}
	p := New(cfg)
	// the head steps 0.5 m right and 0.2 m back from frame 1 on; a later
	// move waits for its frame
	head := compound.IdentityHead
	head.Matrix[12], head.Matrix[14] = 0.5, 0.2
	p.SetHead(1, cfg.Observers[0], head)
	later := compound.IdentityHead
	later.Matrix[13] = 3
	p.SetHead(5, cfg.Observers[0], later)
	type lrbt [4]float64
	frustum := func(plan *FramePlan, name string) (lrbt, [16]float64) {
		t.Helper()
		cp := channel(plan, name)
		if cp == nil {
			t.Fatalf("frame %d: no tasks for %s", plan.Frame, name)
		}
		for _, task := range cp.Tasks {
			if task.Kind == Draw {
				f := task.Frustum
				return lrbt{f.Left, f.Right, f.Bottom, f.Top}, task.ViewMatrix
			}
		}
		t.Fatalf("frame %d: %s does not draw (%s)", plan.Frame, name, kinds(cp))
		return lrbt{}, [16]float64{}
	}
	check := func(frame int, want map[string]lrbt) map[string][16]float64 {
		t.Helper()
		plan := p.Plan(frame)
		views := map[string][16]float64{}
		for name, w := range want {
			got, view := frustum(plan, name)
			for i := range got {
				if !near6(got[i], w[i]) {
					t.Errorf("frame %d %s: frustum l r b t %v, want %v", frame, name, got, w)
					break
				}
			}
			views[name] = view
		}
		return views
	}
	// untracked: the eye at the origin sees every wall centred
	check(0, map[string]lrbt{
		"channel-left":   {-0.1, 0.1, -0.1, 0.1},
		"channel-middle": {-0.1, 0.1, -0.1, 0.1},
		"channel-right":  {-0.1, 0.1, -0.1, 0.1},
	})
	// eye at (0.5, 0, 0.2):
	//   front wall z=-1, 1.2 m away: x from -1.5 to 0.5, y ±1, scaled 0.1/1.2
	//   left wall x=-1, 1.5 m away, its right axis -z: from -0.8 to 1.2, y ±1, scaled 0.1/1.5
	//   right wall x=1, 0.5 m away, its right axis +z: from -1.2 to 0.8, y ±1, scaled 0.1/0.5
	views := check(1, map[string]lrbt{
		"channel-middle": {-1.5 / 12, 0.5 / 12, -1.0 / 12, 1.0 / 12},
		"channel-left":   {-0.8 / 15, 1.2 / 15, -1.0 / 15, 1.0 / 15},
		"channel-right":  {-1.2 / 5, 0.8 / 5, -1.0 / 5, 1.0 / 5},
	})
	// the front wall's view matrix moves the world by minus the eye
	if v := views["channel-middle"]; !near6(v[12], -0.5) || !near6(v[13], 0) || !near6(v[14], -0.2) {
		t.Errorf("front wall view translation %v, want (-0.5, 0, -0.2)", v[12:15])
	}
	check(4, map[string]lrbt{"channel-middle": {-1.5 / 12, 0.5 / 12, -1.0 / 12, 1.0 / 12}})
	// eye at (0, 3, 0): the front wall from y -4 to -2, 1 m away
	check(5, map[string]lrbt{"channel-middle": {-0.1, 0.1, -0.4, -0.2}})
}

func near6(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

// A resized destination window renders at its new size from the frame
// the size was set for: its tree's shares tile the new size, and the
// frustum widens with the aspect, so the picture is not stretched.
func TestResizedWindowRendersAtItsNewSize(t *testing.T) {
	cfg := load(t, "2d-lb-4.eqc")
	p := New(cfg)
	dest := channel(p.Plan(0), "dest").Channel
	before := frustumOf(t, p.Plan(1), "dest")
	p.SetWindowSize(3, dest.Window, compound.Size{W: 1280, H: 360})
	for f := 2; f < 5; f++ {
		plan := p.Plan(f)
		want := compound.Size{W: 640, H: 360}
		if f >= 3 {
			want = compound.Size{W: 1280, H: 360}
		}
		cp := channel(plan, "dest")
		if cp.WindowSize != want || cp.Viewport != (compound.PixelViewport{W: want.W, H: want.H}) {
			t.Fatalf("frame %d: dest plans window %v, viewport %v; want %v", f, cp.WindowSize, cp.Viewport, want)
		}
		area := 0
		for _, c := range plan.Channels {
			for _, task := range c.Tasks {
				if task.Kind == Draw {
					area += task.Share.W * task.Share.H
					if task.Share.X+task.Share.W > want.W || task.Share.Y+task.Share.H > want.H {
						t.Errorf("frame %d: %s draws %v, outside %v", f, c.Channel.Name, task.Share, want)
					}
				}
			}
		}
		if area != want.W*want.H {
			t.Errorf("frame %d: the sources draw %d pixels of %dx%d", f, area, want.W, want.H)
		}
		fr := frustumOf(t, plan, "dest")
		aspect := (fr.Right - fr.Left) / (fr.Top - fr.Bottom)
		wantAspect := (before.Right - before.Left) / (before.Top - before.Bottom) * float64(want.W) / 640
		if diff := aspect - wantAspect; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("frame %d: frustum aspect %g, want %g", f, aspect, wantAspect)
		}
		if fr.Top != before.Top || fr.Bottom != before.Bottom {
			t.Errorf("frame %d: frustum height changed: %+v, was %+v", f, fr, before)
		}
	}
}

// frustumOf is the whole frustum a destination's draws are cut from.
func frustumOf(t *testing.T, plan *FramePlan, name string) compound.Frustum {
	t.Helper()
	dest := channel(plan, name)
	for _, c := range plan.Channels {
		for _, task := range c.Tasks {
			if task.Kind == Draw && dest != nil && task.Area.W == dest.Viewport.W && task.Area.H == dest.Viewport.H {
				return task.Frustum
			}
		}
	}
	t.Fatalf("frame %d: no draw spans %s", plan.Frame, name)
	return compound.Frustum{}
}

// Frozen, the load equalizer keeps the split it has whatever the
// statistics say, until a source leaves (the work is shared out again)
// or it is let go.
func TestFrozenBalanceKeepsItsSplit(t *testing.T) {
	cfg := load(t, "2d-lb-4.eqc")
	p := New(cfg)
	sources := []string{"src1", "src2", "src3", "src4"}
	skewed := func(plan *FramePlan) stats.Frame {
		var recs []stats.Record
		for i, name := range sources {
			if cp := channel(plan, name); cp != nil {
				d := 10 * time.Millisecond
				if i == 0 {
					d = 30 * time.Millisecond // src1 is slow
				}
				recs = append(recs, record(plan.Frame, "0."+string(rune('0'+i)), cp.Tasks[1].Viewport, d))
			}
		}
		return stats.Frame{Frame: plan.Frame, Records: recs}
	}
	shares := func(plan *FramePlan) map[string]compound.PixelViewport {
		out := map[string]compound.PixelViewport{}
		area := 0
		for _, name := range sources {
			if cp := channel(plan, name); cp != nil {
				out[name] = cp.Tasks[1].Share
				area += out[name].W * out[name].H
			}
		}
		if area != 640*360 {
			t.Errorf("frame %d: the sources draw %d pixels of 640x360", plan.Frame, area)
		}
		return out
	}
	first := p.Plan(0)
	p.SetBalanceFrozen(1, true)
	p.Feed(skewed(first))
	for f := 1; f < 3; f++ {
		plan := p.Plan(f)
		if got, want := shares(plan), shares(first); !maps.Equal(got, want) {
			t.Errorf("frozen, frame %d split %v; frame 0's was %v", f, got, want)
		}
		p.Feed(skewed(plan))
	}
	p.SetChannelDown(channel(first, "src4").Channel, true)
	lost := p.Plan(3)
	if got := shares(lost); len(got) != 3 {
		t.Errorf("frozen, with src4 lost: %v, want the work shared by the other three", got)
	}
	p.Feed(skewed(lost))
	p.SetBalanceFrozen(4, false)
	again := p.Plan(4)
	if a, b := shares(again)["src1"], shares(lost)["src1"]; a.W*a.H >= b.W*b.H {
		t.Errorf("let go, slow src1 kept %v (it had %v)", a, b)
	}
}

// A view made stereo renders both eyes from its frame on, as anaglyph on
// framebuffer objects, and one eye again once made mono.
func TestViewModeSwitchesFromItsFrame(t *testing.T) {
	cfg := load(t, "2d-lb-4.eqc")
	p := New(cfg)
	view := cfg.Views()[0]
	p.SetViewMode(2, view, true)
	p.SetViewMode(4, view, false)
	for f := 0; f < 6; f++ {
		eyes := map[int]ColorMask{}
		for _, cp := range p.Plan(f).Channels {
			for _, task := range cp.Tasks {
				if task.Kind == Draw {
					eyes[task.Eye] |= task.ColorMask
				}
			}
		}
		want := map[int]ColorMask{compound.EyeCyclop: 0}
		if f == 2 || f == 3 {
			want = map[int]ColorMask{compound.EyeLeft: MaskRed | MaskAlpha, compound.EyeRight: MaskGreen | MaskBlue | MaskAlpha}
		}
		if !maps.Equal(eyes, want) {
			t.Errorf("frame %d draws eyes (with masks) %v, want %v", f, eyes, want)
		}
	}
}

// An observer whose focus is relative to the origin at 2 m moves a 1 m
// distant wall to 2 m, twice its size, as Equalizer's focus modes do: the
// cyclop eye sees the same frustum, the stereo eyes converge at 2 m. A
// fixed focus leaves the wall where it is.
func TestFocusModeMovesTheWall(t *testing.T) {
	frustumFor := func(mode string, headZ float64) map[int]compound.Frustum {
		text := `config {
    appNode { pipe { window { viewport [ 0 0 160 100 ] attributes { hint_drawable FBO } channel { name "c" } } } }
    observer { eye_left [ -0.05 0 0 ] eye_right [ 0.05 0 0 ] focus_distance 2 focus_mode ` + mode + ` }
    layout { view { mode STEREO observer 0 } }
    canvas { layout 0 wall { bottom_left [ -0.8 -0.5 -1 ] bottom_right [ 0.8 -0.5 -1 ] top_left [ -0.8 0.5 -1 ] } segment { channel "c" } }
}`
		cfg := loadText(t, "focus.eqc", text)
		p := New(cfg)
		if headZ != 0 {
			head := compound.IdentityHead
			head.Matrix[14] = headZ
			p.SetHead(0, cfg.Observers[0], head)
		}
		return drawFrusta(p.Plan(0))
	}
	near := compound.DefaultNear
	// the left eye at x -0.05 sees the wall from -0.8 to 0.8 at 1 m, or
	// from -1.6 to 1.6 at 2 m, scaled to the near plane
	fixed, moved := frustumFor("fixed", 0), frustumFor("relative_to_origin", 0)
	check := func(name string, got compound.Frustum, left, right float64) {
		t.Helper()
		if math.Abs(got.Left-left) > 1e-12 || math.Abs(got.Right-right) > 1e-12 {
			t.Errorf("%s: frustum left %g right %g, want %g and %g", name, got.Left, got.Right, left, right)
		}
	}
	check("fixed, left eye", fixed[compound.EyeLeft], (-0.8+0.05)*near/1, (0.8+0.05)*near/1)
	check("moved, left eye", moved[compound.EyeLeft], (-1.6+0.05)*near/2, (1.6+0.05)*near/2)
	check("moved, right eye", moved[compound.EyeRight], (-1.6-0.05)*near/2, (1.6-0.05)*near/2)
	// relative to an observer 0.5 m back: the wall, 1.5 m ahead of the
	// cyclop eye, moves to 2 m ahead of it, 4/3 as large about the eye
	observed := frustumFor("relative_to_observer", 0.5)
	check("relative to the observer, left eye", observed[compound.EyeLeft], (-0.8*4/3+0.05)*near/2, (0.8*4/3+0.05)*near/2)
}

// drawFrusta is the frustum of each eye's draws in a plan.
func drawFrusta(plan *FramePlan) map[int]compound.Frustum {
	out := map[int]compound.Frustum{}
	for _, cp := range plan.Channels {
		for _, task := range cp.Tasks {
			if task.Kind == Draw {
				out[task.Eye] = task.Frustum
			}
		}
	}
	return out
}

// An application's focus (Config.SetFocus: the head's FocusDistance and
// FocusMode) moves the wall as the config's focus does: an observer the
// config gives a fixed focus at 1 m, given relative_to_origin at 2 m,
// draws the frusta of one the config gives that; an invalid focus is
// refused by Check.
func TestAFocusSetAtRunTimeIsTheConfigsFocus(t *testing.T) {
	frusta := func(focus string, head *compound.Head) map[int]compound.Frustum {
		cfg := loadText(t, "focus.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 160 100 ] attributes { hint_drawable FBO } channel { name "c" } } } }
    observer { eye_left [ -0.05 0 0 ] eye_right [ 0.05 0 0 ] `+focus+` }
    layout { view { mode STEREO observer 0 } }
    canvas { layout 0 wall { bottom_left [ -0.8 -0.5 -1 ] bottom_right [ 0.8 -0.5 -1 ] top_left [ -0.8 0.5 -1 ] } segment { channel "c" } }
}`)
		p := New(cfg)
		if head != nil {
			p.SetHead(0, cfg.Observers[0], *head)
		}
		return drawFrusta(p.Plan(0))
	}
	set := compound.IdentityHead
	set.FocusDistance, set.FocusMode = 2, compound.FocusRelativeToOrigin
	got, want := frusta("focus_distance 1 focus_mode fixed", &set), frusta("focus_distance 2 focus_mode relative_to_origin", nil)
	fixed := frusta("focus_distance 1 focus_mode fixed", nil)
	for _, eye := range []int{compound.EyeLeft, compound.EyeRight} {
		if got[eye] != want[eye] {
			t.Errorf("eye %d: the focus set at run time gives %+v, the config's %+v", eye, got[eye], want[eye])
		}
		if got[eye] == fixed[eye] {
			t.Errorf("eye %d: the focus set at run time left the fixed focus's frustum", eye)
		}
	}
	for _, bad := range []compound.Head{{FocusDistance: -1}, {FocusDistance: math.NaN()}, {FocusMode: "sideways"}} {
		if bad.Check() == nil {
			t.Errorf("head %+v passed Check", bad)
		}
	}
}

// A view's model unit (Config.SetModelUnit) scales its walls, eyes, focus
// and tracked head, as Equalizer's: unit 4 draws what a config with all of
// them four times as large draws, eye by eye, in perspective and in
// parallel. A head tracked at run time moves four times as far.
func TestAModelUnitScalesTheWallsAndEyes(t *testing.T) {
	type drawn struct {
		frustum, ortho  compound.Frustum
		view, orthoView [16]float64
	}
	plan := func(scale, unit float64) map[int]drawn {
		n := func(v float64) string { return fmt.Sprint(v * scale) }
		cfg := loadText(t, "unit.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 160 100 ] attributes { hint_drawable FBO } channel { name "c" } } } }
    observer { eye_left [ `+n(-0.05)+` 0 0 ] eye_right [ `+n(0.05)+` 0 0 ] focus_distance `+n(2)+` focus_mode relative_to_origin }
    layout { view { mode STEREO observer 0 } }
    canvas { layout 0 wall { bottom_left [ `+n(-0.8)+` `+n(-0.5)+` `+n(-1)+` ] bottom_right [ `+n(0.8)+` `+n(-0.5)+` `+n(-1)+` ] top_left [ `+n(-0.8)+` `+n(0.5)+` `+n(-1)+` ] } segment { channel "c" } }
}`)
		p := New(cfg)
		head := compound.IdentityHead
		head.Matrix[12], head.Matrix[14] = 0.1*scale, 0.2*scale
		p.SetHead(0, cfg.Observers[0], head)
		if unit != 1 {
			p.SetModelUnit(0, cfg.Views()[0], unit)
		}
		out := map[int]drawn{}
		for _, cp := range p.Plan(0).Channels {
			for _, task := range cp.Tasks {
				if task.Kind == Draw {
					out[task.Eye] = drawn{task.Frustum, task.Ortho, task.ViewMatrix, task.OrthoView}
				}
			}
		}
		return out
	}
	near := func(a, b []float64) bool {
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9*max(1, math.Abs(b[i])) {
				return false
			}
		}
		return true
	}
	frustum := func(f compound.Frustum) []float64 { return []float64{f.Left, f.Right, f.Bottom, f.Top, f.Near, f.Far} }
	got, want, plain := plan(1, 4), plan(4, 1), plan(1, 1)
	for _, eye := range []int{compound.EyeLeft, compound.EyeRight} {
		g, w := got[eye], want[eye]
		if !near(frustum(g.frustum), frustum(w.frustum)) || !near(g.view[:], w.view[:]) {
			t.Errorf("eye %d in perspective: unit 4 draws %+v %v, the config four times as large %+v %v", eye, g.frustum, g.view, w.frustum, w.view)
		}
		if !near(frustum(g.ortho), frustum(w.ortho)) || !near(g.orthoView[:], w.orthoView[:]) {
			t.Errorf("eye %d in parallel: unit 4 draws %+v %v, the config four times as large %+v %v", eye, g.ortho, g.orthoView, w.ortho, w.orthoView)
		}
		if p := plain[eye]; near(g.view[:], p.view[:]) || near(frustum(g.ortho), frustum(p.ortho)) {
			t.Errorf("eye %d: unit 4 draws what unit 1 does", eye)
		}
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1), 1e13} {
		if compound.CheckModelUnit(bad) == nil {
			t.Errorf("model unit %v passed CheckModelUnit", bad)
		}
	}
}

// A tile equalizer has a queue per eye, each of all its tiles, and each
// eye's draws pull from that eye's, as Equalizer's: with one queue for
// both, the left eye's pass took every tile and the right eye showed
// nothing.
func TestTileQueuePerEye(t *testing.T) {
	cfg := load(t, "tile-4.eqc")
	p := New(cfg)
	p.SetViewMode(0, cfg.Views()[0], true)
	plan := p.Plan(0)
	queues := map[string]int{}
	for _, q := range plan.Queues {
		queues[q.ID] = q.Len()
	}
	if len(queues) != 2 {
		t.Fatalf("queues %v, want one for each eye", queues)
	}
	byEye := map[int]map[string]bool{}
	for _, cp := range plan.Channels {
		for _, task := range cp.Tasks {
			if task.Kind != Draw || task.Queue == "" {
				continue
			}
			if queues[task.Queue] == 0 {
				t.Errorf("%s draws eye %d from queue %q, not one of %v", cp.Channel.Name, task.Eye, task.Queue, queues)
			}
			if byEye[task.Eye] == nil {
				byEye[task.Eye] = map[string]bool{}
			}
			byEye[task.Eye][task.Queue] = true
		}
	}
	left, right := byEye[compound.EyeLeft], byEye[compound.EyeRight]
	if len(left) != 1 || len(right) != 1 || maps.Equal(left, right) {
		t.Errorf("left eye's draws pull from %v, right eye's from %v: want one queue each, not the same", left, right)
	}
	n := -1
	for _, l := range queues {
		if n >= 0 && l != n {
			t.Errorf("queue lengths %v: every eye's queue holds all tiles", queues)
		}
		n = l
	}
}

// Tiles made 1x1 at run time on a window resized to 2048x1024 would make
// two million tiles a frame, past what check refuses in a config: the
// queue takes larger tiles, and still covers every pixel once.
func TestATileQueueStaysWithinItsBound(t *testing.T) {
	cfg := load(t, "tile-4.eqc")
	p := New(cfg)
	dest := channel(p.Plan(0), "dest").Channel
	p.SetBalancing(1, cfg.Views()[0], compound.BalancingChange{Balancing: compound.Balancing{TileSize: [2]int{1, 1}}, Fields: compound.BalanceTileSize})
	p.SetWindowSize(2, dest.Window, compound.Size{W: 2048, H: 1024})
	for frame, want := range []int{60, 230400} {
		if got := p.Plan(frame).Queues[0].Len(); got != want {
			t.Errorf("frame %d: %d tiles, want %d", frame, got, want)
		}
	}
	q := p.Plan(2).Queues[0]
	if q.Len() > compound.MaxTiles || q.Len() < compound.MaxTiles/4 {
		t.Errorf("2048x1024 pixels in 1x1 tiles: %d tiles, want at most %d, and tiles no larger than needed", q.Len(), compound.MaxTiles)
	}
	area := 0
	for _, tile := range q.Tiles {
		area += tile.W * tile.H
	}
	if area != 2048*1024 {
		t.Errorf("the tiles cover %d pixels, want 2048x1024", area)
	}
}

// An eye decomposition shown mono (the corpus' 3-window.EYE.anaglyph.eqc
// with its view switched) has no compound for the cyclop eye: its
// destination draws the frame itself rather than show nothing, and goes
// back to assembling the eyes once the view is stereo again.
func TestAViewShownInAModeItsTreeLacksIsDrawnByItsDestination(t *testing.T) {
	cfg := corpusConfig(t, "3-window.EYE.anaglyph.eqc")
	p := New(cfg)
	p.SetViewMode(1, cfg.Views()[0], false)
	p.SetViewMode(2, cfg.Views()[0], true)
	for f, want := range []map[string]string{
		{"destination": "clear assemble clear assemble", "channel1": "clear draw readback", "channel2": "clear draw readback"},
		{"destination": "clear draw"},
		{"destination": "clear assemble clear assemble", "channel1": "clear draw readback", "channel2": "clear draw readback"},
	} {
		got := map[string]string{}
		for _, cp := range p.Plan(f).Channels {
			got[cp.Channel.Name] = strings.ToLower(kinds(cp))
			if cp.Channel.Name == "destination" {
				for _, task := range cp.Tasks {
					if task.Kind == Draw && (task.Eye != compound.EyeCyclop || task.ColorMask != 0 || task.Region != cp.Viewport) {
						t.Errorf("frame %d: the destination draws eye %d (mask %v) over %v, want the cyclop eye over %v", f, task.Eye, task.ColorMask, task.Region, cp.Viewport)
					}
				}
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("frame %d: tasks %v, want %v", f, got, want)
		}
	}
}

// Where an equalizer's children that draw for the eyes its destination
// shows are all down, the one that takes the whole part over draws for
// them: in a mono view, not an eye decomposition, which the equalizer
// gives nothing, up or down (the part stayed empty).
func TestALostEqualizersHeirDrawsWhatTheViewShows(t *testing.T) {
	cfg := loadText(t, "eyes-first.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 300 200 ] channel { name "dest" } } } }
    node { name "node1"
        pipe { window { viewport [ 0 0 300 200 ] channel { name "left" } } }
        pipe { window { viewport [ 0 0 300 200 ] channel { name "right" } } }
        pipe { window { viewport [ 0 0 300 200 ] channel { name "whole" } } } }
    observer { }
    layout { name "L" view { mode MONO observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { load_equalizer { mode DB }
            compound { channel "left"
                compound { eye [ LEFT ] }
                compound { channel "right" eye [ RIGHT ] outputframe { name "r" } }
                inputframe { name "r" } outputframe { name "eyes" } }
            compound { channel "whole" outputframe { name "w" } } }
        inputframe { name "eyes" } inputframe { name "w" } }
}`)
	// every source lost, and whole's alone: the eye decomposition still
	// up cannot take its part over
	for _, lost := range [][]string{{"left", "right", "whole"}, {"whole"}} {
		p := New(cfg)
		for _, ch := range cfg.Channels {
			if slices.Contains(lost, ch.Name) {
				p.SetChannelDown(ch, true)
			}
		}
		plan := p.Plan(0)
		drawn := compound.Range{}
		for _, cp := range plan.Channels {
			for _, task := range cp.Tasks {
				if task.Kind == Draw && cp.Aside {
					drawn = task.Range
					if task.Compound != "0.0.1" || cp.Channel.Name != "dest" {
						t.Errorf("%v lost: %s draws compound %s, want the destination drawing compound 0.0.1 (whole's)", lost, cp.Channel.Name, task.Compound)
					}
				}
			}
		}
		if drawn != compound.FullRange {
			t.Errorf("%v lost: the stand-in draws the range %v, want all of it", lost, drawn)
		}
	}
}

// A down channel's part goes to its destination's channel, in a plan of
// its own (Aside) whose regions lie past the window's own pixels, and its
// frame comes from there; back up, the channel draws its part again. A
// lost part that assembles others' frames (a direct send written in the
// config) is stood in for the same way.
func TestADownChannelsPartHasAStandIn(t *testing.T) {
	named := func(cfg *compound.Config, name string) *compound.Channel {
		for _, ch := range cfg.Channels {
			if ch.Name == name {
				return ch
			}
		}
		t.Fatalf("no channel %s", name)
		return nil
	}
	plans := func(plan *FramePlan) (dest, aside *ChannelPlan) {
		for _, cp := range plan.Channels {
			switch {
			case cp.Aside:
				aside = cp
			case cp.Destination:
				dest = cp
			}
		}
		return dest, aside
	}
	cfg := corpusConfig(t, "2-node.DB.eqc")
	p := New(cfg)
	lost := named(cfg, "channel2")
	p.SetChannelDown(lost, true)
	plan := p.Plan(0)
	dest, aside := plans(plan)
	if channel(plan, "channel2") != nil || dest == nil || aside == nil || aside.Channel != dest.Channel {
		t.Fatalf("channel2 planned: %v; destination %v, stand-in %v", channel(plan, "channel2") != nil, dest, aside)
	}
	if got := strings.ToLower(kinds(dest)); got != "clear draw assemble" {
		t.Errorf("the destination's own tasks: %s", got)
	}
	if got := strings.ToLower(kinds(aside)); got != "clear draw readback" {
		t.Errorf("its tasks for channel2: %s", got)
	}
	for _, task := range aside.Tasks {
		if task.Region.X+aside.Viewport.X < aside.WindowSize.W {
			t.Errorf("%s at %v: within the window's own %d pixels", task.Kind, task.Region, aside.WindowSize.W)
		}
	}
	for _, task := range dest.Tasks {
		if task.Kind == Assemble && (len(task.Inputs) != 1 || !slices.Equal(task.Inputs[0].Producers, []string{dest.Channel.ID})) {
			t.Errorf("assembles %+v, want the stand-in's frame", task.Inputs)
		}
	}
	p.SetChannelDown(lost, false)
	if plan := p.Plan(1); channel(plan, "channel2") == nil || strings.ToLower(kinds(channel(plan, "channel2"))) != "clear draw readback" {
		t.Errorf("back up, channel2 does not draw its part again")
	}

	ds := corpusConfig(t, "3-node.DB.ds.eqc")
	p = New(ds)
	p.SetChannelDown(named(ds, "channel3"), true)
	plan = p.Plan(0)
	if _, aside := plans(plan); aside == nil || !strings.Contains(strings.ToLower(kinds(aside)), "assemble") || channel(plan, "channel3") != nil {
		t.Errorf("a lost direct-send node's part: stand-in plan %v", aside)
	}
	// two lost channels of a direct send need each other's frames: a
	// plan each, in bands of their own past the window
	p.SetChannelDown(named(ds, "channel2"), true)
	var bands [][2]int
	for _, cp := range p.Plan(1).Channels {
		if cp.Aside {
			lo, hi := math.MaxInt, 0
			for _, task := range cp.Tasks {
				lo, hi = min(lo, task.Region.X), max(hi, task.Region.X+task.Region.W)
			}
			bands = append(bands, [2]int{lo + cp.Viewport.X, hi + cp.Viewport.X})
		}
	}
	if len(bands) != 2 || bands[0][0] < bands[1][1] && bands[1][0] < bands[0][1] {
		t.Errorf("two lost channels' stand-in plans render at %v: want two, apart", bands)
	}
}

// A 4K window standing in for five lost channels of a static DB split
// would need 23040 pixels in a row: the stand-in plans' bands go on in
// rows below past the framebuffer limit, every band apart from the
// window's own pixels and from each other.
func TestStandInBandsStayWithinTheFramebufferLimit(t *testing.T) {
	const sources, lost = 6, 5
	var nodes, children, inputs strings.Builder
	for i := range sources {
		fmt.Fprintf(&nodes, `node { name "n%d" pipe { window { viewport [ 0 0 3840 2160 ] attributes { hint_drawable FBO } channel { name "src%d" } } } }
`, i, i)
		fmt.Fprintf(&children, `compound { channel "src%d" range [ %g %g ] outputframe { name "f%d" } }
`, i, float64(i)/sources, float64(i+1)/sources, i)
		fmt.Fprintf(&inputs, `inputframe { name "f%d" }
`, i)
	}
	text := `server { config {
appNode { pipe { window { viewport [ 0 0 3840 2160 ] attributes { hint_drawable FBO } channel { name "dest" } } } }
` + nodes.String() + `compound { channel "dest" buffer [ COLOR DEPTH ] task [ CLEAR ASSEMBLE ]
wall { bottom_left [ -.8 -.45 -1 ] bottom_right [ .8 -.45 -1 ] top_left [ -.8 .45 -1 ] }
` + children.String() + inputs.String() + `} } }`
	cfg := loadText(t, "db-4k.eqc", text)
	p := New(cfg)
	for _, ch := range cfg.Channels {
		if ch.Name != "dest" && ch.Name != "src0" {
			p.SetChannelDown(ch, true)
		}
	}
	plan := p.Plan(0)
	var bands []compound.PixelViewport
	for _, cp := range plan.Channels {
		if !cp.Aside {
			continue
		}
		band := asideBand(cp)
		if band.X+band.W > compound.MaxFramebuffer || band.Y+band.H > compound.MaxFramebuffer {
			t.Errorf("a stand-in band at %v passes the %d-pixel framebuffer limit", band, compound.MaxFramebuffer)
		}
		own := compound.PixelViewport{W: cp.WindowSize.W, H: cp.WindowSize.H}
		if overlaps(band, own) {
			t.Errorf("a stand-in band at %v overlaps the window's own %v", band, own)
		}
		for _, b := range bands {
			if overlaps(band, b) {
				t.Errorf("stand-in bands at %v and %v overlap", band, b)
			}
		}
		bands = append(bands, band)
	}
	if len(bands) != lost {
		t.Fatalf("%d stand-in plans for %d lost channels", len(bands), lost)
	}
}

func union(a, b compound.PixelViewport) compound.PixelViewport {
	x0, y0 := min(a.X, b.X), min(a.Y, b.Y)
	x1, y1 := max(a.X+a.W, b.X+b.W), max(a.Y+a.H, b.Y+b.H)
	return compound.PixelViewport{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// asideBand is the window pixels an aside plan's tasks render into.
func asideBand(cp *ChannelPlan) compound.PixelViewport {
	var band compound.PixelViewport
	for i, task := range cp.Tasks {
		r := task.Region
		r.X += cp.Viewport.X
		r.Y += cp.Viewport.Y
		if i == 0 {
			band = r
		}
		band = union(band, r)
	}
	return band
}

func overlaps(a, b compound.PixelViewport) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// The parts of a pixel compound's share (viewports under it, fixed or
// from a load equalizer) draw the columns and rows of their pixel
// decomposition, so that every destination pixel is drawn once: a part
// starting at an odd column drew its sibling's columns there and left its
// own empty (a generated config of a 2D split under pixel [ 1 0 2 1 ]).
func TestPartsOfAPixelCompoundDrawEveryPixelOnce(t *testing.T) {
	for _, size := range [][2]int{{118, 230}, {7, 5}, {33, 17}, {64, 3}} {
		for _, split := range []string{"viewport [ 0 0 %[1]g 1 ]", "viewport [ 0 0 1 %[1]g ]"} {
			for _, at := range []float64{0.3, 0.5, 0.77} {
				w, h := size[0], size[1]
				first := fmt.Sprintf(split, at)
				second := strings.NewReplacer("0 0 "+fmt.Sprint(at)+" 1", fmt.Sprintf("%g 0 %g 1", at, 1-at), "0 0 1 "+fmt.Sprint(at), fmt.Sprintf("0 %g 1 %g", at, 1-at)).Replace(first)
				var nodes strings.Builder
				for i := range 5 {
					fmt.Fprintf(&nodes, `node { name "n%d" pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "src%d" } } } }
`, i, w, h, i)
				}
				text := fmt.Sprintf(`server { config {
appNode { pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "dest" } } } }
%s compound { channel "dest" task [ CLEAR ASSEMBLE ]
wall { bottom_left [ -.8 -.45 -1 ] bottom_right [ .8 -.45 -1 ] top_left [ -.8 .45 -1 ] }
compound { channel "src0" pixel [ 0 0 3 1 ] outputframe { name "f0" } }
compound { pixel [ 1 0 3 1 ]
  compound { channel "src1" %s outputframe { name "f1" } }
  compound { channel "src2" %s outputframe { name "f2" } } }
compound { pixel [ 2 0 3 1 ] load_equalizer { mode 2D }
  compound { channel "src3" outputframe { name "f3" } }
  compound { channel "src4" outputframe { name "f4" } } }
inputframe { name "f0" } inputframe { name "f1" } inputframe { name "f2" } inputframe { name "f3" } inputframe { name "f4" }
} } }`, w, h, nodes.String(), first, second)
				p := New(loadText(t, "pixel-parts.eqc", text))
				for frame := range 3 { // the load equalizer moves its split
					plan := p.Plan(frame)
					drawn := make([]int, w*h)
					for _, cp := range plan.Channels {
						for _, task := range cp.Tasks {
							if task.Kind != Draw || task.Eye != compound.EyeCyclop {
								continue
							}
							px := task.Pixel
							for j := range task.Region.H {
								for i := range task.Region.W {
									x, y := task.Share.X+px.X+i*px.W, task.Share.Y+px.Y+j*px.H
									if x >= task.Share.X+task.Share.W || y >= task.Share.Y+task.Share.H {
										t.Fatalf("%dx%d, %s, frame %d: %s samples (%d, %d), outside its share %+v", w, h, first, frame, cp.Channel.Name, x, y, task.Share)
									}
									drawn[y*w+x]++
								}
							}
						}
					}
					for i, n := range drawn {
						if n != 1 {
							t.Fatalf("%dx%d, %s, frame %d: pixel (%d, %d) drawn %d times", w, h, first, frame, i%w, i/w, n)
						}
					}
				}
			}
		}
	}
}

// A mono view of a tree with parts for the stereo eyes alone: in the
// frames of a time-multiplex phase that is an eye decomposition the
// destination draws the view itself, a load equalizer gives a child that
// is one no part of its split, and the destination draws such a part of a
// fixed split in place. All were left empty.
func TestPartsForTheStereoEyesAloneInAMonoView(t *testing.T) {
	var nodes strings.Builder
	for i := range 4 {
		fmt.Fprintf(&nodes, `node { name "n%d" pipe { window { viewport [ 0 0 200 100 ] attributes { hint_drawable FBO } channel { name "src%d" } } } }
`, i, i)
	}
	config := func(body string) *compound.Config {
		return loadText(t, "eyes-mono.eqc", `server { config {
appNode { pipe { window { viewport [ 0 0 200 100 ] attributes { hint_drawable FBO } channel { name "dest" } } } }
`+nodes.String()+`observer { }
layout { name "L" view { mode MONO observer 0 } }
canvas { layout "L" wall { } segment { channel "dest" } }
compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ]
`+body+`
inputframe { name "f0" } inputframe { name "f1" } inputframe { name "f2" } inputframe { name "f3" }
} } }`)
	}
	draws := func(plan *FramePlan, name string) (n int, share compound.PixelViewport) {
		for _, task := range channel(plan, name).Tasks {
			if task.Kind == Draw && task.Eye == compound.EyeCyclop {
				n++
				share = task.Share
			}
		}
		return n, share
	}
	phases := New(config(`compound { period 2 phase 0
  compound { channel "src0" eye [ LEFT ] outputframe { name "f0" } }
  compound { channel "src1" eye [ RIGHT ] outputframe { name "f1" } } }
compound { channel "src2" period 2 phase 1 viewport [ 0 0 0.5 1 ] outputframe { name "f2" } }
compound { channel "src3" period 2 phase 1 viewport [ 0.5 0 0.5 1 ] outputframe { name "f3" } }`))
	for frame := range 4 {
		n, _ := draws(phases.Plan(frame), "dest")
		if want := 1 - frame%2; n != want {
			t.Errorf("frame %d: the destination draws %d times, want %d", frame, n, want)
		}
	}
	balanced := New(config(`load_equalizer { mode 2D }
compound { channel "src0" outputframe { name "f0" } }
compound { compound { channel "src1" eye [ LEFT ] outputframe { name "f1" } }
  compound { channel "src2" eye [ RIGHT ] outputframe { name "f2" } } }
compound { channel "src3" outputframe { name "f3" } }`))
	plan := balanced.Plan(0)
	covered := 0
	for _, name := range []string{"src0", "src3"} {
		n, share := draws(plan, name)
		if n != 1 {
			t.Fatalf("%s draws %d times", name, n)
		}
		covered += share.W * share.H
	}
	if covered != 200*100 {
		t.Errorf("the two sources that draw the mono view cover %d of its %d pixels", covered, 200*100)
	}
	// a fixed split: the destination draws the part in place
	fixed := New(config(`compound { channel "src0" viewport [ 0 0 0.25 1 ] outputframe { name "f0" } }
compound { viewport [ 0.25 0 0.5 1 ]
  compound { channel "src1" eye [ LEFT ] outputframe { name "f1" } }
  compound { channel "src2" eye [ RIGHT ] outputframe { name "f2" } } }
compound { channel "src3" viewport [ 0.75 0 0.25 1 ] outputframe { name "f3" } }`))
	plan = fixed.Plan(0)
	if n, share := draws(plan, "dest"); n != 1 || share != (compound.PixelViewport{X: 50, Y: 0, W: 100, H: 100}) {
		t.Errorf("the destination draws %d times, the last %+v; want once, the middle part", n, share)
	}
	dest := channel(plan, "dest")
	if k := kinds(dest); k != "clear draw assemble" {
		t.Errorf("the destination's tasks: %s", k)
	}
	// the part in a compound of no channel of its own, under which an
	// assembly on a source's channel sends its picture on: that source
	// draws it (the destination drew the part in place, and waited for
	// the source's frame, which never came: the run hung)
	wrapped := New(config(`compound { channel "src0" viewport [ 0 0 0.5 1 ] outputframe { name "f0" } }
compound { viewport [ 0.5 0 0.5 1 ] compound { channel "src3"
  compound { channel "src1" eye [ LEFT ] outputframe { name "f1" } }
  compound { channel "src2" eye [ RIGHT ] outputframe { name "f2" } }
  inputframe { name "f1" } inputframe { name "f2" } outputframe { name "f3" } } }`))
	plan = wrapped.Plan(0)
	if n, _ := draws(plan, "dest"); n != 0 {
		t.Errorf("the destination draws %d times, want none", n)
	}
	if channel(plan, "src3") == nil {
		t.Fatal("src3 has no tasks: the destination waits for its frame")
	}
	if n, share := draws(plan, "src3"); n != 1 || share != (compound.PixelViewport{X: 100, Y: 0, W: 100, H: 100}) {
		t.Errorf("src3 draws %d times, the last %+v; want once, its part", n, share)
	}
	if k := kinds(channel(plan, "src3")); k != "clear draw readback" {
		t.Errorf("src3's tasks: %s", k)
	}
}

// Two channels of one window that each draw a part of a pixel
// decomposition aside get bands apart: their window's framebuffer holds
// both (each channel's band began at the window's edge, where the other's
// lay).
func TestPartsDrawnAsideByTwoChannelsOfAWindowGetBandsApart(t *testing.T) {
	cfg := loadText(t, "wall2.eqc", `config {
appNode { pipe { window { viewport [ 0 0 600 240 ] attributes { hint_drawable FBO }
    channel { name "destL" viewport [ 0 0 0.5 1 ] } channel { name "destR" viewport [ 0.5 0 0.5 1 ] } } } }
node { host "localhost" pipe { window { viewport [ 0 0 300 240 ] channel { name "src0" } } } pipe { window { viewport [ 0 0 300 240 ] channel { name "src1" } } } }
observer { }
layout { name "L" view { observer 0 } }
canvas { layout "L" wall { } segment { channel "destL" viewport [ 0 0 0.5 1 ] } segment { channel "destR" viewport [ 0.5 0 0.5 1 ] } }
compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ]
    compound { pixel [ 0 0 2 1 ] } compound { channel "src0" pixel [ 1 0 2 1 ] outputframe { name "f0" } } inputframe { name "f0" } }
compound { channel ( segment 1 view 0 ) task [ CLEAR ASSEMBLE ]
    compound { pixel [ 0 0 1 2 ] } compound { channel "src1" pixel [ 0 1 1 2 ] outputframe { name "f1" } } inputframe { name "f1" } }
}`)
	plan := New(cfg).Plan(0)
	var bands []compound.PixelViewport
	for _, cp := range plan.Channels {
		if !cp.Aside {
			continue
		}
		band := asideBand(cp)
		if overlaps(band, compound.PixelViewport{W: cp.WindowSize.W, H: cp.WindowSize.H}) {
			t.Errorf("%s's band %v overlaps the window's own pixels", cp.Channel.Name, band)
		}
		for _, b := range bands {
			if overlaps(band, b) {
				t.Errorf("%s's band %v overlaps another's, %v", cp.Channel.Name, band, b)
			}
		}
		bands = append(bands, band)
	}
	if len(bands) != 2 {
		t.Fatalf("%d channels draw aside, want both", len(bands))
	}
}

// A part drawn aside gets a band past what its window's other tasks
// render beyond the window's pixels: a zoomed share renders offscreen at
// full size there too. Its band began at the window's edge, inside a
// zoomed part's render on the same channel, and cleared it whenever the
// stand-in plan ran between that part's draw and readback (random pairs
// of zoomed trees, seed 133: a fifth of destination 1 the background).
func TestAPartDrawnAsideKeepsClearOfAZoomedShare(t *testing.T) {
	cfg := loadText(t, "zoomaside.eqc", `config {
appNode { pipe { window { viewport [ 0 0 400 300 ] attributes { hint_drawable FBO }
    channel { name "dest" viewport [ 0 0 0.5 1 ] } channel { name "dest2" viewport [ 0.5 0 0.5 1 ] } } } }
node { host "localhost" pipe { window { viewport [ 0 0 200 300 ] channel { name "src0" } } } pipe { window { viewport [ 0 0 200 300 ] channel { name "src1" } } } }
observer { }
layout { name "L" view { observer 0 } }
canvas { layout "L" wall { } segment { channel "dest" viewport [ 0 0 0.5 1 ] } segment { channel "dest2" viewport [ 0.5 0 0.5 1 ] } }
compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ]
    compound { channel "src0" zoom [ 2 2 ] outputframe { name "a0" } } inputframe { name "a0" } }
compound { channel ( segment 1 view 0 ) task [ CLEAR ASSEMBLE ]
    compound { channel "src0" task [ CLEAR ASSEMBLE ]
        compound { pixel [ 0 0 2 1 ] } compound { channel "src1" pixel [ 1 0 2 1 ] outputframe { name "g1" } }
        inputframe { name "g1" } outputframe { name "b1" } }
    inputframe { name "b1" } }
}`)
	plan := New(cfg).Plan(0)
	var zoomed, band compound.PixelViewport
	for _, cp := range plan.Channels {
		if cp.Channel.Name != "src0" {
			continue
		}
		if cp.Aside {
			band = asideBand(cp)
			continue
		}
		for _, task := range cp.Tasks {
			if task.Zoom.X == 2 {
				zoomed = task.Region
			}
		}
	}
	if zoomed.W != 400 || band.W == 0 {
		t.Fatalf("src0 renders the zoomed share at %v and draws aside at %v; want both, the share at 400x600", zoomed, band)
	}
	if overlaps(band, zoomed) {
		t.Errorf("the band drawn aside, %v, overlaps the zoomed share's render, %v", band, zoomed)
	}
}

// A time multiplex of two sources (period 2) that take 40 ms for a frame
// gives a frame every 20 ms between them: the framerate equalizer spaces
// frames so. It spaced them 40 ms apart, a source's whole frame time,
// and a DPlex config ran no faster than one source alone.
func TestFramerateSpacesDPlexFramesByEachSourcesShare(t *testing.T) {
	cfg := loadText(t, "dplex.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } } }
    node { pipe { window { viewport [ 0 0 320 240 ] channel { name "a" } } } }
    node { pipe { window { viewport [ 0 0 320 240 ] channel { name "b" } } } }
    compound { channel "dest" framerate_equalizer {}
        compound { channel "a" period 2 phase 0 outputframe { name "f" } }
        compound { channel "b" period 2 phase 1 outputframe { name "f" } }
        inputframe { name "f" } }
}`)
	p := New(cfg)
	for f := 0; f < 8; f++ {
		plan := p.Plan(f)
		if f >= 2 && math.Abs(plan.Interval-0.020) > 1e-9 {
			t.Errorf("frame %d: interval %v s, want 0.020", f, plan.Interval)
		}
		if f >= 2 && plan.Pace != plan.Interval {
			t.Errorf("frame %d: pace %v s, want the interval: the destination's pipe only shows the frames", f, plan.Pace)
		}
		src := fmt.Sprintf("0.%d", f%2) // the source this frame renders on
		p.Feed(stats.Frame{Frame: f, Records: []stats.Record{record(f, src, compound.FullViewport, 40*time.Millisecond)}})
	}
}

// Where the destination's pipe draws frames of the multiplex itself,
// frames are not paced where they show: waiting to show one frame would
// delay drawing the next on that pipe. (The corpus' multiplexes draw on
// other pipes: 2-node.DPlex's destination pipe only shows the frames of
// its node's second pipe and of the other node.)
func TestADestinationThatDrawsInItsMultiplexIsNotPaced(t *testing.T) {
	cfg := loadText(t, "dplex-dest.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } } }
    node { pipe { window { viewport [ 0 0 320 240 ] channel { name "b" } } } }
    compound { channel "dest" framerate_equalizer {}
        compound { channel "dest" period 2 phase 0 outputframe { name "f" } }
        compound { channel "b" period 2 phase 1 outputframe { name "f" } }
        inputframe { name "f" } }
}`)
	p := New(cfg)
	for f := 0; f < 6; f++ {
		plan := p.Plan(f)
		if f >= 2 && (plan.Interval <= 0 || plan.Pace != 0) {
			t.Errorf("frame %d: interval %v s, pace %v s; want an interval and no pace", f, plan.Interval, plan.Pace)
		}
		src := fmt.Sprintf("0.%d", f%2)
		p.Feed(stats.Frame{Frame: f, Records: []stats.Record{record(f, src, compound.FullViewport, 40*time.Millisecond)}})
	}
}

// A tile carries its place and range, so a source under a tile equalizer
// draws tiles of its parent's whole share, whatever part a load equalizer
// beside it or its own viewport gives it (Equalizer's old 2-node.tiles
// config has both; goeq drew each tile shifted by the source's part and
// left some black).
func TestSourcesOfATileQueueDrawTheirParentsShare(t *testing.T) {
	cfg := loadText(t, "tiles.eqc", `server { config {
    appNode { pipe { window { viewport [ 0 0 640 360 ] channel { name "dest" } } } }
    node { pipe { window { viewport [ 0 0 640 360 ] channel { name "src" } } } }
    compound { channel "dest" tile_equalizer {} load_equalizer {}
        compound {}
        compound { channel "src" viewport [ 0.5 0 0.5 1 ] range [ 0 0.5 ] outputframe {} }
        inputframe { name "frame.src" } }
} }`)
	p := New(cfg)
	for f := 0; f < 3; f++ {
		plan := p.Plan(f)
		draws := 0
		for _, cp := range plan.Channels {
			for _, task := range cp.Tasks {
				if task.Kind != Draw {
					continue
				}
				draws++
				if task.Queue == "" || task.Share != (compound.PixelViewport{W: 640, H: 360}) || task.Range != compound.FullRange {
					t.Errorf("frame %d: %s draws share %+v range %+v from queue %q, want the whole 640x360 and range from the queue",
						f, cp.Channel.Name, task.Share, task.Range, task.Queue)
				}
			}
		}
		if draws != 2 {
			t.Errorf("frame %d: %d draws, want 2", f, draws)
		}
		// the source is slow: the load equalizer moves its split
		p.Feed(stats.Frame{Frame: f, Records: []stats.Record{
			record(f, "0.0", compound.FullViewport, 5*time.Millisecond),
			record(f, "0.1", compound.FullViewport, 30*time.Millisecond)}})
	}
}

// A destination that interleaves its eyes (compound.Compound.EyePixels)
// is cleared once a frame, before its first eye: Equalizer clears it for
// each eye, which wiped the rows the eyes before the last were assembled
// into. Its eye part on its own channel renders aside, past the window's
// pixels, so that its render stays out of the other eye's rows.
func TestInterleavedEyesClearTheDestinationOnce(t *testing.T) {
	cfg := loadText(t, "interleaved.eqc", `server { config {
    appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "dest" } }
        window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src" } } } }
    compound { channel "dest" eye [ LEFT RIGHT ] attributes { stereo_mode PASSIVE } wall {}
        compound { eye [ RIGHT ] pixel [ 0 0 1 2 ] outputframe { name "r" } }
        compound { eye [ LEFT ] channel "src" pixel [ 0 1 1 2 ] outputframe { name "l" } }
        inputframe { name "r" } inputframe { name "l" } }
} }`)
	plan := New(cfg).Plan(0)
	clears, assembles := map[int]int{}, map[int]int{}
	asideDraws := 0
	for _, cp := range plan.Channels {
		if cp.Channel.Name != "dest" {
			continue
		}
		for _, task := range cp.Tasks {
			switch {
			case cp.Aside && task.Kind == Draw:
				asideDraws++
				if task.Eye != compound.EyeRight || task.Region.X < 320 {
					t.Errorf("the aside draw is of eye %d at %v, want the right eye's past the window's 320 pixels", task.Eye, task.Region)
				}
			case cp.Aside:
			case task.Kind == Clear:
				clears[task.Eye]++
			case task.Kind == Assemble:
				assembles[task.Eye]++
			case task.Kind == Draw:
				t.Errorf("the destination's window draws eye %d at %v", task.Eye, task.Region)
			}
		}
	}
	if clears[compound.EyeLeft] != 1 || clears[compound.EyeRight] != 0 {
		t.Errorf("the destination clears %v times by eye, want once, for the left eye", clears)
	}
	if assembles[compound.EyeLeft] != 1 || assembles[compound.EyeRight] != 1 || asideDraws != 1 {
		t.Errorf("assembles %v by eye and draws aside %d times, want one each", assembles, asideDraws)
	}
}

// A part the destination draws on its own pixels off its place there
// (pixel, subpixel or zoom: at the corner, smaller or shifted), or sends
// back to itself in a frame, marks its readback Scratch: the executor puts
// back what the part's clear and draw overwrote. A part drawn in place
// whose frame goes to a source (which merges it into its own) is the
// destination's picture too, and a source draws on pixels of its own.
func TestScratchReadbacksAreThoseTheDestinationDoesNotShow(t *testing.T) {
	for _, c := range []struct {
		part    string
		viaSrc  bool // the part's frame goes to src, which sends it on
		scratch bool
	}{
		{"pixel [ 0 0 2 1 ]", false, true},
		{"subpixel [ 0 2 ]", false, true},
		{"zoom [ 0.5 0.5 ]", false, true},
		{"viewport [ 0 0 0.5 1 ]", false, true},
		{"range [ 0 0.5 ]", false, true},
		{"range [ 0 0.5 ]", true, false},
		{"pixel [ 0 0 2 1 ]", true, true},
	} {
		own, other := `inputframe { name "own" }`, ""
		if c.viaSrc {
			own, other = "", `inputframe { name "own" }`
		}
		cfg := loadText(t, "scratch.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 300 200 ] attributes { hint_drawable FBO } channel { name "dest" } } }
        pipe { window { viewport [ 0 0 300 200 ] attributes { hint_drawable FBO } channel { name "src" } } } }
    observer { } layout { view { observer 0 } } canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { `+c.part+` outputframe { name "own" } }
        compound { channel "src" `+c.part+` outputframe { name "other" } `+other+` }
        `+own+` inputframe { name "other" } } }`)
		plan := New(cfg).Plan(0)
		for _, ch := range []string{"dest", "src"} {
			cp := channel(plan, ch)
			var readbacks []Task
			for _, task := range cp.Tasks {
				if task.Kind == Readback {
					readbacks = append(readbacks, task)
				}
			}
			want := c.scratch && ch == "dest"
			if len(readbacks) != 1 || readbacks[0].Scratch != want {
				t.Errorf("%s (via src %v) on %s: readbacks %+v; want one, Scratch %v", c.part, c.viaSrc, ch, readbacks, want)
			}
		}
	}
}

// A destination that pulls tiles of such a part reads each back as it
// draws it: its queued draw is the scratch one.
func TestScratchTilesOfAPixelPartOnTheDestination(t *testing.T) {
	cfg := loadText(t, "scratch-tiles.eqc", `config {
    appNode { pipe { window { viewport [ 0 0 300 200 ] attributes { hint_drawable FBO } channel { name "dest" } } } }
    observer { } layout { view { observer 0 } } canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 2 1 ] tile_equalizer { size [ 32 16 ] } compound { outputframe { name "own" } } }
        compound { pixel [ 1 0 2 1 ] outputframe { name "other" } }
        inputframe { name "own" } inputframe { name "other" } } }`)
	var scratch []string
	for _, task := range channel(New(cfg).Plan(0), "dest").Tasks {
		if task.Scratch {
			scratch = append(scratch, task.Kind.String()+" "+task.Compound)
			if task.Kind == Draw && task.Queue == "" {
				t.Errorf("a draw of %s is scratch but pulls no tiles", task.Compound)
			}
		}
	}
	if !slices.Equal(scratch, []string{"draw 0.0.0", "readback 0.1"}) {
		t.Errorf("scratch tasks %q; want the queued draw of 0.0.0 and the readback of 0.1", scratch)
	}
}

// corpusConfig loads a config of the shared Equalizer corpus, with no
// environment defaults.
func corpusConfig(t testing.TB, name string) *compound.Config {
	t.Helper()
	m, _, err := compound.Load(filepath.Join("..", "..", "..", "shared", "eqc-corpus", name), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

// A frame whose every consumer is a monitor showing it at one size
// smaller than rendered is read back at that size, with depth too (the
// samples nearest the monitor's pixels); one that another compound
// assembles too, or that monitors show at two sizes, is read back as
// rendered.
func TestMonitorFramesAreReadAtTheMonitorsSize(t *testing.T) {
	const text = `config {
    appNode { pipe {
        window { viewport [ 0 0 480 300 ] channel { name "wall" } }
        window { viewport [ 0 0 240 150 ] channel { name "mon" } }
        window { viewport [ 0 0 MON2 ] channel { name "mon2" } }
        window { viewport [ 0 0 480 300 ] channel { name "copy" } }
    } }
    observer { }
    layout { name "L" view { observer 0 } }
    canvas { layout "L" wall { } segment { channel "wall" } }
    canvas { layout "L" wall { } segment { channel "mon" } }
    canvas { layout "L" wall { } segment { channel "mon2" } }
    compound {
        compound { channel ( segment 0 layout "L" view 0 ) outputframe { name "a" BUFFERS } }
        compound { channel ( canvas 1 segment 0 layout "L" view 0 ) monitor_equalizer { } task [ CLEAR ASSEMBLE ] inputframe { name "a" } }
        MORE
    }
}`
	second := `compound { channel ( canvas 2 segment 0 layout "L" view 0 ) monitor_equalizer { } task [ CLEAR ASSEMBLE ] inputframe { name "a" } }`
	for _, c := range []struct {
		about, mon2, buffers, more string
		w, h                       int
	}{
		{"a monitor", "120 75", "", "", 240, 150},
		{"two monitors of one size", "240 150", "", second, 240, 150},
		{"two monitors of two sizes", "120 75", "", second, 0, 0},
		{"a monitor and a copy", "120 75", "", `compound { channel "copy" task [ CLEAR ASSEMBLE ] inputframe { name "a" } }`, 0, 0},
		{"with depth", "120 75", "buffer [ COLOR DEPTH ]", "", 240, 150},
	} {
		cfg := loadText(t, "monitor.eqc", strings.NewReplacer("MON2", c.mon2, "BUFFERS", c.buffers, "MORE", c.more).Replace(text))
		var outs []Output
		for _, task := range channel(New(cfg).Plan(0), "wall").Tasks {
			outs = append(outs, task.Outputs...)
		}
		if len(outs) != 1 || outs[0].ReadW != c.w || outs[0].ReadH != c.h {
			t.Errorf("%s: outputs %+v; want one read at %dx%d", c.about, outs, c.w, c.h)
		}
	}
}

// A frame rendered zoomed up (supersampled) is read back at its share's
// resolution where every consumer lands it at that resolution (with
// depth too, as the samples nearest its pixels): not below 1, and not for
// a consumer zoomed itself.
func TestSupersampledFramesAreReadAtTheirShare(t *testing.T) {
	const text = `config {
    appNode { pipe { window { viewport [ 0 0 400 200 ] channel { name "dest" } } } }
    node { host "localhost" pipe { window { viewport [ 0 0 800 400 ] channel { name "src" } } } }
    observer { }
    layout { view { observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) BUFFERS
        compound { ASSEMBLER
            compound { channel "src" zoom [ ZOOM ] outputframe { name "f" } }
            inputframe { name "f" } }
    }
}`
	for _, c := range []struct {
		about, zoom, buffers, assembler string
		want                            bool
	}{
		{"zoomed by 2", "2 2", "", "", true},
		{"zoomed by 2 across", "2 1", "", "", true},
		{"zoomed down", "0.5 0.5", "", "", false},
		{"with depth", "2 2", "buffer [ COLOR DEPTH ]", "", true},
		{"under a zoomed assembly", "2 2", "", "zoom [ 2 2 ]", false},
	} {
		cfg := loadText(t, "zoom.eqc", strings.NewReplacer("ZOOM", c.zoom, "BUFFERS", c.buffers, "ASSEMBLER", c.assembler).Replace(text))
		var outs []Output
		for _, task := range channel(New(cfg).Plan(0), "src").Tasks {
			outs = append(outs, task.Outputs...)
		}
		if len(outs) != 1 || outs[0].AtShare != c.want {
			t.Errorf("%s: outputs %+v; want one with AtShare %v", c.about, outs, c.want)
		}
	}
}

// An output frame's zoom below 1 reads the frame back smaller, where it
// can be (no pixel or subpixel decomposition); the output and input
// frames' zooms together scale where it lands unless they cancel out,
// relative to the share the source's zoom alone lands it at.
func TestFrameZoomsScaleTheReadAndTheLanding(t *testing.T) {
	const text = `config {
    appNode { pipe { window { viewport [ 0 0 400 200 ] channel { name "dest" } } } }
    node { host "localhost" pipe { window { viewport [ 0 0 800 400 ] channel { name "src" } } } }
    observer { }
    layout { view { observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) BUFFERS
        compound { channel "src" SOURCE outputframe { name "f" zoom [ OUT ] } }
        inputframe { name "f" zoom [ IN ] }
    }
}`
	half, none := compound.Zoom{X: 0.5, Y: 0.5}, compound.Zoom{}
	for _, c := range []struct {
		about, out, in, source, buffers string
		read, land                      compound.Zoom
	}{
		{"cancelled", "0.5 0.5", "2 2", "", "", half, none},
		{"output alone", "0.5 0.5", "1 1", "", "", half, half},
		{"output above 1", "2 2", "1 1", "", "", none, compound.Zoom{X: 2, Y: 2}},
		{"input alone", "1 1", "0.5 1", "", "", none, compound.Zoom{X: 0.5, Y: 1}},
		{"supersampled, read at half its share", "0.25 0.25", "2 2", "zoom [ 2 2 ]", "", compound.Zoom{X: 0.25, Y: 0.25}, none},
		{"with depth", "0.5 0.5", "2 2", "", "buffer [ COLOR DEPTH ]", half, none},
		{"a pixel part", "0.5 0.5", "1 1", "pixel [ 0 0 2 1 ]", "", none, none},
	} {
		cfg := loadText(t, "zoom.eqc", strings.NewReplacer("OUT", c.out, "IN", c.in, "SOURCE", c.source, "BUFFERS", c.buffers).Replace(text))
		plan := New(cfg).Plan(0)
		var outs []Output
		for _, task := range channel(plan, "src").Tasks {
			outs = append(outs, task.Outputs...)
		}
		var ins []Input
		for _, task := range channel(plan, "dest").Tasks {
			ins = append(ins, task.Inputs...)
		}
		if len(outs) != 1 || outs[0].Scale != c.read || outs[0].AtShare || outs[0].ReadW != 0 {
			t.Errorf("%s: outputs %+v; want one read at scale %v", c.about, outs, c.read)
		}
		if len(ins) != 1 || ins[0].Scale != c.land {
			t.Errorf("%s: inputs %+v; want one landing at scale %v", c.about, ins, c.land)
		}
	}
}

// The parts of a pixel decomposition under a zoomed assembly sample its
// zoomed pixels (GridZoom), and their regions hold those samples: a
// 321-pixel share zoomed by 2 has 642 zoomed columns, 321 for each part
// of two. Under an assembly that is a pixel part itself (check warns)
// they sample the destination's pixels, as before.
func TestPixelPartsUnderAZoomedAssemblySampleItsZoomedPixels(t *testing.T) {
	const text = `config {
    appNode { pipe { window { viewport [ 0 0 321 200 ] channel { name "dest" } } } }
    node { host "localhost" pipe {
        window { viewport [ 0 0 642 400 ] channel { name "asm" } }
        window { viewport [ 0 0 642 400 ] channel { name "a" } }
        window { viewport [ 0 0 642 400 ] channel { name "b" } } } }
    observer { }
    layout { view { observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 )
        compound { channel "asm" zoom [ 2 2 ] ASSEMBLY
            compound { channel "a" pixel [ 0 0 2 1 ] outputframe { name "a" } }
            compound { channel "b" pixel [ 1 0 2 1 ] outputframe { name "b" } }
            inputframe { name "a" } inputframe { name "b" } outputframe { name "asm" } }
        inputframe { name "asm" }
    }
}`
	for _, c := range []struct {
		about, assembly string
		grid            compound.Zoom
		w               [2]int // a's, b's
		h               int
	}{
		{"zoomed above the kernel", "", compound.Zoom{X: 2, Y: 2}, [2]int{321, 321}, 400},
		{"a pixel part itself", "pixel [ 0 0 1 2 ]", compound.Zoom{}, [2]int{322, 320}, 200},
	} {
		plan := New(loadText(t, "grid.eqc", strings.Replace(text, "ASSEMBLY", c.assembly, 1))).Plan(0)
		for i, name := range []string{"a", "b"} {
			for _, task := range channel(plan, name).Tasks {
				if task.Kind == Draw && (task.GridZoom != c.grid || task.Region.W != c.w[i] || task.Region.H != c.h) {
					t.Errorf("%s: %s draws %v at grid zoom %v; want %d x %d at %v", c.about, name, task.Region, task.GridZoom, c.w[i], c.h, c.grid)
				}
			}
		}
	}
}

// A plan names what its equalizers left to no child (FramePlan.Undrawn),
// so that a fault like the adaptive policy's kept split after a source
// left (its region drawn by no one, in frames no one called degraded)
// shows as a degraded frame and an error rather than a silent hole. A
// correct plan names nothing; children that cover less of their compound,
// or overlap, are named.
func TestAPlanNamesWhatNoChildDraws(t *testing.T) {
	for _, name := range []string{"2d-lb-4.eqc", "db-lb-4.eqc"} {
		p := New(load(t, name))
		if plan := p.Plan(0); plan.Undrawn != nil {
			t.Fatalf("%s: frame 0 leaves %v undrawn", name, plan.Undrawn)
		}
		states := maps.Clone(p.history[0])
		second := states["0.1"]
		if strings.HasPrefix(name, "db") {
			second.Local.Range.End -= 0.1
		} else {
			second.Local.Viewport.W /= 2
		}
		states["0.1"] = second
		got := p.uncoveredSplits(states)
		if len(got) != 1 || !strings.HasPrefix(got[0], "compound 0: its 4 children that draw cover 0.") {
			t.Errorf("%s: a child shrunk: %v", name, got)
		}
		second.Skip = true
		states["0.1"] = second
		if got := p.uncoveredSplits(states); len(got) != 1 {
			t.Errorf("%s: a child skipped: %v", name, got)
		}
		second.Skip = false
		if strings.HasPrefix(name, "db") {
			second.Local.Range.End += 0.2
		} else {
			second.Local.Viewport.W *= 4
		}
		states["0.1"] = second
		if got := p.uncoveredSplits(states); len(got) != 1 || !strings.Contains(got[0], "cover 1.") {
			t.Errorf("%s: a child grown over its neighbour: %v", name, got)
		}
	}
}
