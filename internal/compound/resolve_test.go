package compound

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/configparser"
)

func mustResolve(t *testing.T, src string, opt Options) *Model {
	t.Helper()
	res, err := configparser.Parse("t.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if opt.Getenv == nil {
		opt = noEnv
	}
	m, err := Resolve(res, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const twoChannels = `config {
    appNode { pipe { window { viewport [ 0 0 800 600 ] channel { name "dest" } channel { name "src" viewport [ 0.5 0 0.5 1 ] } } } }
    %s
}`

func cfgWith(body string) string { return strings.Replace(twoChannels, "%s", body, 1) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestInheritanceComposesDecompositions(t *testing.T) {
	m := mustResolve(t, cfgWith(`compound {
        channel "dest" period 2 phase 1 eye [ LEFT RIGHT ] buffer [ COLOR DEPTH ]
        compound {
            viewport [ 0 0 0.5 1 ] range [ 0.5 1 ] pixel [ 1 0 2 1 ] zoom [ 0.5 0.5 ]
            compound { channel "src" viewport [ 0.5 0 0.5 1 ] range [ 0 0.5 ] pixel [ 0 0 2 1 ] subpixel [ 1 2 ] eye [ LEFT ] outputframe {} }
        }
        inputframe { name "frame.src" }
    }`), Options{})
	leaf := m.Configs[0].Compounds[0].Children[0].Children[0]
	if leaf.Viewport != (Viewport{0.25, 0, 0.25, 1}) {
		t.Errorf("viewport %+v, want {0.25 0 0.25 1}", leaf.Viewport)
	}
	if !near(leaf.Range.Start, 0.5) || !near(leaf.Range.End, 0.75) {
		t.Errorf("range %+v, want [0.5 0.75]", leaf.Range)
	}
	if leaf.Pixel != (Pixel{1, 0, 4, 1}) {
		t.Errorf("pixel %+v, want {1 0 4 1}", leaf.Pixel)
	}
	if leaf.Subpixel != (Subpixel{1, 2}) || leaf.Zoom != (Zoom{0.5, 0.5}) {
		t.Errorf("subpixel %+v zoom %+v", leaf.Subpixel, leaf.Zoom)
	}
	if leaf.Period != 2 || leaf.Phase != 1 || leaf.Buffers != BufferColor|BufferDepth || leaf.Eyes != EyeLeft {
		t.Errorf("period %d phase %d buffers %b eyes %b", leaf.Period, leaf.Phase, leaf.Buffers, leaf.Eyes)
	}
	mid := m.Configs[0].Compounds[0].Children[0]
	if mid.Channel.Name != "dest" || mid.Eyes != EyeLeft|EyeRight {
		t.Errorf("middle compound channel %q eyes %b: channel and eyes come from the parent", mid.Channel.Name, mid.Eyes)
	}
	if !leaf.IsActive(1) || leaf.IsActive(2) {
		t.Error("period 2 phase 1 must run odd frames only")
	}
}

func TestRootDefaults(t *testing.T) {
	root := mustResolve(t, cfgWith(`compound { channel "dest" }`), Options{}).Configs[0].Compounds[0]
	// the channel has no view, so the default eyes are the cyclop eye
	// alone (see TestADestinationWithoutAViewIsMonoUnlessEyesAreSet)
	if root.Eyes != EyeCyclop || root.Period != 1 || root.Phase != 0 || root.Buffers != BufferColor {
		t.Errorf("eyes %b period %d phase %d buffers %b", root.Eyes, root.Period, root.Phase, root.Buffers)
	}
	// A lone leaf clears and draws; without frames it neither reads back
	// nor assembles.
	if root.Tasks != TaskClear|TaskDraw {
		t.Errorf("tasks %b, want CLEAR|DRAW", root.Tasks)
	}
}

func TestDefaultTasks(t *testing.T) {
	m := mustResolve(t, cfgWith(`compound {
        channel "dest"
        compound { }
        compound { channel "src" outputframe { } }
        compound { channel "src" name "explicit" task [ DRAW READBACK ] outputframe { } }
        inputframe { name "frame.src" }
        inputframe { name "frame.explicit" }
    }`), Options{})
	root := m.Configs[0].Compounds[0]
	if root.Tasks != TaskClear|TaskAssemble {
		t.Errorf("root tasks %b, want CLEAR|ASSEMBLE (no output frames: no READBACK)", root.Tasks)
	}
	same, src, explicit := root.Children[0], root.Children[1], root.Children[2]
	if same.Tasks != TaskDraw {
		t.Errorf("leaf on the parent's channel: tasks %b, want DRAW only (no CLEAR, no frames)", same.Tasks)
	}
	if src.Tasks != TaskClear|TaskDraw|TaskReadback {
		t.Errorf("source leaf: tasks %b, want CLEAR|DRAW|READBACK", src.Tasks)
	}
	if explicit.Tasks != TaskDraw|TaskReadback {
		t.Errorf("explicit task list: %b", explicit.Tasks)
	}
	if src.OutputFrames[0].Name != "frame.src" || explicit.OutputFrames[0].Name != "frame.explicit" {
		t.Errorf("default frame names %q %q", src.OutputFrames[0].Name, explicit.OutputFrames[0].Name)
	}
	in := root.InputFrames[0]
	if len(in.Producers) != 1 || in.Producers[0] != src || len(src.OutputFrames[0].Consumers) != 1 {
		t.Errorf("frame links wrong: producers %v", in.Producers)
	}
	if in.Buffers != BufferColor || in.Texture || in.Viewport != FullViewport {
		t.Errorf("frame defaults %+v", in)
	}
}

func TestCanvasWithoutCompoundGetsDestinationCompounds(t *testing.T) {
	m := mustResolve(t, `config {
        appNode { pipe {
            window { viewport [ 0 0 400 300 ] channel { name "left" } }
            window { viewport [ 400 0 400 300 ] channel { name "right" } }
        } }
        observer {}
        layout { name "two" view { viewport [ 0 0 0.5 1 ] } view { viewport [ 0.5 0 0.5 1 ] } }
        layout { name "one" view { } }
        canvas { layout "two" layout "one" segment { channel "left" viewport [ 0 0 0.5 1 ] } segment { channel "right" viewport [ 0.5 0 0.5 1 ] } }
    }`, Options{})
	cfg := m.Configs[0]
	if len(cfg.Compounds) != 2 {
		t.Fatalf("%d root compounds, want one group per layout", len(cfg.Compounds))
	}
	two, one := cfg.Compounds[0], cfg.Compounds[1]
	if two.Name != "two" || len(two.Children) != 2 || one.Name != "one" || len(one.Children) != 2 {
		t.Fatalf("groups %q(%d) %q(%d), want two(2) one(2)", two.Name, len(two.Children), one.Name, len(one.Children))
	}
	for _, c := range append(two.Children, one.Children...) {
		if !c.Generated || c.Channel.View == nil || c.Channel.Segment == nil {
			t.Errorf("generated compound without destination channel: %+v", c)
		}
	}
	// In layout "one" the single view spans both segments: each segment's
	// destination channel shows half of the view's wall.
	w := one.Children[1].Frustum
	if !near(w.BottomLeft[0], 0) || !near(w.BottomRight[0], 0.8) {
		t.Errorf("right half of the default wall: %+v", w)
	}
}

// Configs older than canvases give destinations no view, so no view's
// mode makes them mono or stereo: they are mono unless eyes are set, and
// Equalizer's reliability tests count one draw per source and frame.
func TestADestinationWithoutAViewIsMonoUnlessEyesAreSet(t *testing.T) {
	cases := []struct {
		name, compound string
		want           []int // eyes of the root and then of each compound below, depth first
	}{
		{"a leaf", `compound { channel "dest" }`, []int{EyeCyclop}},
		{"sources", `compound { channel "dest" compound {} compound { channel "src" outputframe {} } inputframe { name "frame.src" } }`, []int{EyeCyclop, EyeCyclop, EyeCyclop}},
		{"under a root without a channel", `compound { compound { channel "dest" } compound { channel "src" } }`,
			[]int{EyesAll, EyeCyclop, EyeCyclop}},
		{"eyes set at the root", `compound { channel "dest" eye [ LEFT RIGHT ] compound {} compound { channel "src" outputframe {} } inputframe { name "frame.src" } }`,
			[]int{EyeLeft | EyeRight, EyeLeft | EyeRight, EyeLeft | EyeRight}},
		{"eyes set above a destination", `compound { eye [ LEFT RIGHT ] compound { channel "dest" } }`,
			[]int{EyeLeft | EyeRight, EyeLeft | EyeRight}},
		// the destination shows what its sources draw
		{"eyes set by the sources", `compound { channel "dest" compound { eye [ LEFT ] } compound { channel "src" eye [ RIGHT ] outputframe {} } inputframe { name "frame.src" } }`,
			[]int{EyeLeft | EyeRight, EyeLeft, EyeRight}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []int
			mustResolve(t, cfgWith(c.compound), Options{}).Configs[0].Compounds[0].Walk(func(x *Compound) { got = append(got, x.Eyes) })
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("eyes %b, want %b", got, c.want)
			}
		})
	}
	// a view's destination keeps all eyes: its view's mode picks
	viewed := mustResolve(t, cfgWith(`layout { view {} } canvas { layout 0 segment { channel "dest" } }
        compound { channel ( segment 0 view 0 ) }`), Options{}).Configs[0].Compounds[0]
	if viewed.Eyes != EyesAll || viewed.DestinationEyes() != EyeCyclop {
		t.Errorf("a mono view's destination: eyes %b shown %b, want all and cyclop", viewed.Eyes, viewed.DestinationEyes())
	}
}

// A destination's viewport cuts its wall, not its channel (Equalizer's
// old four-window config shows a quarter of one wall in each window).
func TestADestinationsViewportCutsItsWall(t *testing.T) {
	m := mustResolve(t, cfgWith(`compound {
        wall { bottom_left [ -1 -1 -1 ] bottom_right [ 1 -1 -1 ] top_left [ -1 1 -1 ] }
        compound { channel "dest" viewport [ 0 0.5 0.5 0.5 ] }
        compound { channel "src" viewport [ 0.5 0 0.5 0.5 ] wall { bottom_left [ 0 -1 -1 ] bottom_right [ 2 -1 -1 ] top_left [ 0 1 -1 ] } }
    }`), Options{})
	root := m.Configs[0].Compounds[0]
	for i, want := range []Wall{
		{BottomLeft: Vec3{-1, 0, -1}, BottomRight: Vec3{0, 0, -1}, TopLeft: Vec3{-1, 1, -1}},
		{BottomLeft: Vec3{1, -1, -1}, BottomRight: Vec3{2, -1, -1}, TopLeft: Vec3{1, 0, -1}},
	} {
		c := root.Children[i]
		if c.Viewport != FullViewport || c.Local.Viewport != FullViewport {
			t.Errorf("%s: viewport %+v local %+v, want the whole channel", c.Channel.Name, c.Viewport, c.Local.Viewport)
		}
		for _, f := range []*Wall{c.Frustum, c.Wall} {
			if !near(f.BottomLeft[0], want.BottomLeft[0]) || !near(f.BottomLeft[1], want.BottomLeft[1]) ||
				!near(f.BottomRight[0], want.BottomRight[0]) || !near(f.TopLeft[1], want.TopLeft[1]) {
				t.Errorf("%s: wall %+v, want %+v", c.Channel.Name, *f, want)
			}
		}
		if c.WallOwner != c {
			t.Errorf("%s: the wall belongs to %s", c.Channel.Name, c.WallOwner.Path())
		}
	}
}

// A pre-canvas compound that draws on a channel of its own, which no frame
// carries back to its destination, becomes a destination of that channel
// (a root) with what it inherited: passive stereo's right eye on a second
// channel, or a mosaic of channels over one window each showing a part of
// the wall. The tree it leaves shows the eyes that still reach it.
func TestAChannelOfItsOwnBecomesADestination(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 640 240 ]
        channel { name "left" viewport [ 0 0 .5 1 ] } channel { name "right" viewport [ .5 0 .5 1 ] } }
        window { viewport [ 0 0 600 200 ] channel { name "all" }
            channel { name "c1" viewport [ .5 0 .5 1 ] } channel { name "c2" viewport [ 0 0 .5 1 ] } } } }
    compound { channel "left" wall { bottom_left [ -1 -1 -1 ] bottom_right [ 1 -1 -1 ] top_left [ -1 1 -1 ] }
        attributes { stereo_mode PASSIVE }
        compound { eye [ LEFT ] }
        compound { channel "right" eye [ RIGHT ] } }
    compound { channel "all" wall { bottom_left [ -1 -1 -1 ] bottom_right [ 1 -1 -1 ] top_left [ -1 1 -1 ] }
        compound { channel "c1" viewport [ .5 0 .5 1 ] }
        compound { channel "c2" viewport [ 0 0 .5 1 ] } }
}`
	m, warned := resolveWarned(t, "old.eqc", src)
	if len(warned) > 0 {
		t.Errorf("warnings: %s", strings.Join(warned, "\n"))
	}
	roots := m.Configs[0].Compounds
	if len(roots) != 5 {
		t.Fatalf("%d roots, want 5 (two trees and three channels of their own)", len(roots))
	}
	left, all := roots[0], roots[1]
	if left.Eyes != EyeLeft || len(left.Children) != 1 {
		t.Errorf("left: eyes %b and %d children, want the left eye alone and its child", left.Eyes, len(left.Children))
	}
	if !all.IsLeaf() || all.Eyes != EyeCyclop || all.Tasks != TaskClear {
		t.Errorf("all: %d children, eyes %b, tasks %b: want a mono clear", len(all.Children), all.Eyes, all.Tasks)
	}
	whole := Wall{BottomLeft: Vec3{-1, -1, -1}, BottomRight: Vec3{1, -1, -1}, TopLeft: Vec3{-1, 1, -1}}
	for i, want := range []struct {
		channel string
		eyes    int
		wall    Wall
	}{
		{"right", EyeRight, whole},
		{"c1", EyeCyclop, Wall{BottomLeft: Vec3{0, -1, -1}, BottomRight: Vec3{1, -1, -1}, TopLeft: Vec3{0, 1, -1}}},
		{"c2", EyeCyclop, Wall{BottomLeft: Vec3{-1, -1, -1}, BottomRight: Vec3{0, -1, -1}, TopLeft: Vec3{-1, 1, -1}}},
	} {
		c := roots[2+i]
		if c.Channel.Name != want.channel || c.Parent != nil || c.Destination() != c || c.Path() != fmt.Sprint(2+i) {
			t.Errorf("root %d: channel %s, path %s: want %s as a destination", 2+i, c.Channel.Name, c.Path(), want.channel)
			continue
		}
		if c.Eyes != want.eyes || c.Tasks&(TaskClear|TaskDraw) != TaskClear|TaskDraw || c.Attributes["stereo_mode"] != map[bool]string{true: "PASSIVE", false: "AUTO"}[i == 0] {
			t.Errorf("%s: eyes %b, tasks %b, attributes %v", want.channel, c.Eyes, c.Tasks, c.Attributes)
		}
		if c.Viewport != FullViewport || c.Local.Viewport != FullViewport || c.WallOwner != c {
			t.Errorf("%s: viewport %+v local %+v, wall of %s: want the whole channel and a wall of its own", want.channel, c.Viewport, c.Local.Viewport, c.WallOwner.Path())
		}
		for _, f := range []*Wall{c.Frustum, c.Wall} {
			if !near(f.BottomLeft[0], want.wall.BottomLeft[0]) || !near(f.BottomRight[0], want.wall.BottomRight[0]) || !near(f.TopLeft[1], want.wall.TopLeft[1]) {
				t.Errorf("%s: wall %+v, want %+v", want.channel, *f, want.wall)
			}
		}
	}
}

// A compound that names another channel on its destination channel's
// pixels draws on the destination's channel: the segment channel the
// view's channel is cut from (Equalizer's configTool wrote DB stream
// configs so), or another channel over the same part of the window. A
// channel of other pixels stays its own.
func TestAChildOnTheSegmentsChannelIsTheDestinationsChannel(t *testing.T) {
	m := mustResolve(t, cfgWith(`layout { view { } } canvas { layout 0 segment { channel "dest" } }
        compound { channel ( view 0 segment 0 ) buffer [ COLOR DEPTH ]
            compound { channel "src" range [ 0 .5 ] outputframe { name "s" } }
            compound { channel "dest" range [ .5 1 ] inputframe { name "s" } } }`), Options{})
	root := m.Configs[0].Compounds[0]
	if root.Channel.View == nil {
		t.Fatal("the root shows no view")
	}
	if own := root.Children[1]; own.Channel != root.Channel {
		t.Errorf("the part on the segment's channel draws on %s, want the destination's channel", own.Channel.Label)
	}
	if src := root.Children[0]; src.Channel == root.Channel || src.Channel.Name != "src" {
		t.Errorf("the source draws on %s, want its own channel", src.Channel.Label)
	}
	m = mustResolve(t, `config {
    appNode { pipe { window { viewport [ 0 0 320 200 ] channel { name "a" } channel { name "b" } channel { name "half" viewport [ 0 0 .5 1 ] } } } }
    compound { channel "a" compound { channel "b" outputframe {} } compound { channel "half" outputframe {} } inputframe { name "frame.b" } inputframe { name "frame.half" } } }`, Options{})
	root = m.Configs[0].Compounds[0]
	if b, half := root.Children[0], root.Children[1]; b.Channel != root.Channel || half.Channel.Name != "half" {
		t.Errorf("channels %s and %s, want a (the same pixels) and half", b.Channel.Label, half.Channel.Label)
	}
	// the channel it named still names its default frame and keeps its
	// clear, as Equalizer's would
	if b := root.Children[0]; b.OutputFrames[0].Name != "frame.b" || b.Tasks&TaskClear == 0 {
		t.Errorf("frame %q, tasks %b: want frame.b, cleared", b.OutputFrames[0].Name, b.Tasks)
	}
}

func TestMessagesNameChannelsAsTheConfigDoes(t *testing.T) {
	// dest shows a canvas: a destination channel named dest is made from
	// it, and the window's channel is labelled apart
	m := mustResolve(t, strings.Replace(cfgWith(`layout { view { } } canvas { layout 0 segment { channel "dest" } }
        compound { channel ( view 0 segment 0 ) compound { channel "src" outputframe { } } inputframe { name "frame.src" } }`),
		`channel { name "src"`, `channel { viewport [ 0 0 .5 1 ] } channel { name "src"`, 1), Options{})
	chs := m.Configs[0].Channels
	if len(chs) != 4 {
		t.Fatalf("%d channels, want dest and its destination, an unnamed one and src", len(chs))
	}
	var unnamed string
	for _, ch := range chs {
		if ch.Name == "" {
			unnamed = ch.Label
		}
	}
	want := []string{"dest", unnamed, "src"}
	slices.Sort(want)
	if got := ConfigNames(chs); !slices.Equal(got, want) {
		t.Errorf("ConfigNames = %q, want %q", got, want)
	}
}

// A label names a channel's image files, and a file name holds 255
// bytes: a channel named at length (a 300-character name failed the run at
// its first image, "file name too long") gets a label cut to 200 bytes, and
// two that differ only past the cut keep labels apart.
func TestLongChannelNamesGiveLabelsAFileCanHave(t *testing.T) {
	long := strings.Repeat("x", 300)
	m := mustResolve(t, strings.NewReplacer(`"dest"`, `"`+long+`a"`, `"src"`, `"`+long+`b"`).Replace(cfgWith("")), Options{})
	labels := map[string]bool{}
	for _, ch := range m.Configs[0].Channels {
		if len(ch.Label) > maxLabel || !strings.HasPrefix(ch.Label, "xxxx") {
			t.Errorf("channel %.10s...: label %q (%d bytes), want a cut name of at most %d", ch.Name, ch.Label, len(ch.Label), maxLabel)
		}
		labels[ch.Label] = true
	}
	if len(labels) != len(m.Configs[0].Channels) {
		t.Errorf("labels %q: two channels share one", slices.Collect(maps.Keys(labels)))
	}
}

func TestFrustumFromWallAndEyes(t *testing.T) {
	m := mustResolve(t, cfgWith(`observer { eye_base 0.1 }
        layout { view { observer 0 wall { bottom_left [ -1 -1 -2 ] bottom_right [ 1 -1 -2 ] top_left [ -1 1 -2 ] } } }
        canvas { layout 0 segment { channel "dest" } }
        compound { channel ( segment 0 view 0 ) compound { viewport [ 0.5 0 0.5 1 ] } }`), Options{})
	root := m.Configs[0].Compounds[0]
	f := root.Frustum.EyeFrustum(Vec3{}, 0.1, 100)
	if !near(f.Left, -0.05) || !near(f.Right, 0.05) || !near(f.Bottom, -0.05) || !near(f.Top, 0.05) {
		t.Errorf("cyclop frustum %+v, want ±0.05 at near 0.1 for a 2 m wall 2 m away", f)
	}
	half := root.Children[0].Frustum.EyeFrustum(Vec3{0.05, 0, 0}, 0.1, 100)
	if !near(half.Left, -0.0025) || !near(half.Right, 0.0475) {
		t.Errorf("right eye on the right half: %+v", half)
	}
}

func TestProjectionBecomesWall(t *testing.T) {
	w := Projection{Distance: 1, FOV: [2]float64{90, 90}}.Wall()
	if !near(w.BottomLeft[0], -1) || !near(w.TopLeft[1], 1) || !near(w.BottomLeft[2], -1) {
		t.Errorf("wall %+v, want 2x2 at z=-1", w)
	}
	turned := Projection{Distance: 1, FOV: [2]float64{90, 90}, HPR: Vec3{90, 0, 0}}.Wall()
	if !near(turned.BottomLeft[0], -1) || !near(turned.BottomLeft[2], 1) {
		t.Errorf("head 90 degrees: %+v, want the wall at x=-1", turned)
	}
}

func TestGlobalAttributesFromEnvironment(t *testing.T) {
	env := func(k string) (string, bool) {
		switch k {
		case "EQ_WINDOW_IATTR_HINT_FULLSCREEN":
			return "ON", true
		case "EQ_WINDOW_IATTR_HINT_DOUBLEBUFFER":
			return "OFF", true
		}
		return "", false
	}
	src := `global { EQ_WINDOW_IATTR_HINT_DOUBLEBUFFER ON }
config { appNode { pipe { window { channel { name "c" } } } } }`
	m := mustResolve(t, src, Options{Getenv: env})
	w := m.Configs[0].Nodes[0].Pipes[0].Windows[0]
	if w.Attributes["hint_fullscreen"] != "ON" {
		t.Errorf("environment default not applied: %v", w.Attributes)
	}
	if w.Attributes["hint_doublebuffer"] != "ON" {
		t.Errorf("file must win over the environment: %v", w.Attributes)
	}
	res, _ := configparser.Parse("t.eqc", []byte(src))
	_, err := Resolve(res, Options{Getenv: func(k string) (string, bool) {
		return "SIDEWAYS", k == "EQ_WINDOW_IATTR_HINT_FULLSCREEN"
	}})
	if err == nil || !strings.Contains(err.Error(), "EQ_WINDOW_IATTR_HINT_FULLSCREEN") {
		t.Errorf("bad environment value: %v", err)
	}
}

// Equalizer takes the number of a named value (1 for ON, -12 for FBO), in
// a file and in its EQ_* environment variables, which it reads as numbers
// only: scripts set EQ_WINDOW_IATTR_HINT_FULLSCREEN=1, and got a window
// that was not fullscreen. Attributes that count keep their numbers.
func TestAttributeNumbersNameTheirValues(t *testing.T) {
	env := func(k string) (string, bool) {
		switch k {
		case "EQ_WINDOW_IATTR_HINT_FULLSCREEN":
			return "1", true
		case "EQ_COMPOUND_IATTR_STEREO_MODE":
			return "-3", true
		}
		return "", false
	}
	src := `config { appNode { attributes { thread_model -10 launch_timeout 1000 } pipe { window {
        attributes { hint_drawable -12 hint_decoration 0 planes_color -13 planes_samples 4 planes_stencil 1 }
        channel { name "c" } } } }
    compound { channel "c" } }`
	m := mustResolve(t, src, Options{Getenv: env})
	cfg := m.Configs[0]
	w := cfg.Nodes[0].Pipes[0].Windows[0]
	for k, want := range map[string]string{"hint_fullscreen": "ON", "hint_drawable": "FBO", "hint_decoration": "OFF",
		"planes_color": "RGBA16F", "planes_samples": "4", "planes_stencil": "1"} {
		if w.Attributes[k] != want {
			t.Errorf("window %s = %q, want %q", k, w.Attributes[k], want)
		}
	}
	if n := cfg.Nodes[0].Attributes; n["thread_model"] != "DRAW_SYNC" || n["launch_timeout"] != "1000" {
		t.Errorf("node attributes %v, want thread_model DRAW_SYNC and launch_timeout 1000", n)
	}
	if mode := cfg.Compounds[0].Attributes["stereo_mode"]; mode != "PASSIVE" {
		t.Errorf("stereo_mode %q from EQ_COMPOUND_IATTR_STEREO_MODE=-3, want PASSIVE", mode)
	}
}

// A string attribute's environment variable is the string and a character
// attribute's is its first character, quoted or not, as Equalizer reads
// them: Livre's job scripts export EQ_CHANNEL_SATTR_DUMP_IMAGE=path to
// dump every frame, and goeq refused a value without the quotes of the
// config language.
func TestStringVariablesAreTakenAsTheyAre(t *testing.T) {
	for _, c := range []struct{ dump, command, quote, wantQuote string }{
		{"/tmp/frames/livre_", "ssh -x -n %h %c", `"`, `'"'`},
		{`"/tmp/frames/livre_"`, `"ssh -x -n %h %c"`, `'"'`, `'"'`},
	} {
		env := func(k string) (string, bool) {
			v, ok := map[string]string{"EQ_CHANNEL_SATTR_DUMP_IMAGE": c.dump, "EQ_NODE_SATTR_LAUNCH_COMMAND": c.command,
				"EQ_NODE_CATTR_LAUNCH_COMMAND_QUOTE": c.quote}[k]
			return v, ok
		}
		m := mustResolve(t, `config { appNode { pipe { window { channel { name "c" } } } } compound { channel "c" } }`, Options{Getenv: env})
		cfg := m.Configs[0]
		node, ch := cfg.Nodes[0], cfg.Nodes[0].Pipes[0].Windows[0].Channels[0]
		if ch.Attributes["dump_image"] != "/tmp/frames/livre_" || node.Attributes["launch_command"] != "ssh -x -n %h %c" || node.Attributes["launch_command_quote"] != c.wantQuote {
			t.Errorf("%+v: dump_image %q, launch_command %q, launch_command_quote %q", c, ch.Attributes["dump_image"], node.Attributes["launch_command"], node.Attributes["launch_command_quote"])
		}
	}
}

// Equalizer 1.1 and 1.2 read the observers' focus from two globals, which
// configs of that time set; an observer's own focus_distance and
// focus_mode win.
func TestFocusGlobalsOfEqualizer11(t *testing.T) {
	src := `global { EQ_CONFIG_FATTR_FOCUS_DISTANCE 2. EQ_CONFIG_IATTR_FOCUS_MODE relative_to_observer }
config { appNode { pipe { window { channel { name "c" } } } }
    observer {} observer { focus_distance 3 focus_mode fixed } }`
	m, warned := resolveWarned(t, "focus.eqc", src)
	obs := m.Configs[0].Observers
	if obs[0].FocusDistance != 2 || obs[0].FocusMode != FocusRelativeToObserver {
		t.Errorf("observer 0: focus %g %s, want the globals' 2 relative_to_observer", obs[0].FocusDistance, obs[0].FocusMode)
	}
	if obs[1].FocusDistance != 3 || obs[1].FocusMode != FocusFixed {
		t.Errorf("observer 1: focus %g %s, want its own 3 fixed", obs[1].FocusDistance, obs[1].FocusMode)
	}
	if len(warned) != 0 {
		t.Errorf("warnings %q", warned)
	}
	_, warned = resolveWarned(t, "focus.eqc", `global { EQ_CONFIG_IATTR_FOCUS_MODE ON } config { observer {} }`)
	if want := "focus.eqc:1:10: focus_mode ON: not fixed, relative_to_origin or relative_to_observer; the focus is fixed"; len(warned) != 1 || warned[0] != want {
		t.Errorf("warnings %q, want %q", warned, want)
	}
}

// A node without a host runs on its first connection's hostname, in every
// version, as Equalizer launches it; a host it names wins.
func TestHostFromConnection(t *testing.T) {
	for _, version := range []string{"1.1", "1.2"} {
		src := "#Equalizer " + version + " ascii\nconfig { node { connection { hostname \"render7\" } } node { host \"render8\" connection { hostname \"10.0.0.8\" } } }"
		nodes := mustResolve(t, src, Options{}).Configs[0].Nodes
		if h := nodes[1].Host; h != "render7" {
			t.Errorf("%s: host %q, want it taken from the connection", version, h)
		}
		if h := nodes[2].Host; h != "render8" {
			t.Errorf("%s: host %q, want the node's own", version, h)
		}
	}
}

func TestEqualizerDefaults(t *testing.T) {
	m := mustResolve(t, cfgWith(`compound { channel "dest" load_equalizer { } tree_equalizer { mode DB } DFR_equalizer { } tile_equalizer { } }`), Options{})
	eqs := m.Configs[0].Compounds[0].Equalizers
	le := eqs[0]
	if le.Mode != Split2D || le.Damping != 0.5 || le.Boundary2D != [2]int{1, 1} || le.AssembleOnlyLimit != nil || le.Adaptive {
		t.Errorf("load defaults %+v", le)
	}
	if eqs[1].Kind != TreeEqualizer || eqs[1].Mode != SplitDB || eqs[2].Framerate != 10 || eqs[3].TileSize != [2]int{64, 64} {
		t.Errorf("defaults %+v %+v %+v", eqs[1], eqs[2], eqs[3])
	}
}

// Each equalizer and split mode a config names resolves to its own kind,
// whose name is the config's word again (explain and check print it).
func TestEqualizerKindsAndModesAreTheConfigsWords(t *testing.T) {
	m := mustResolve(t, cfgWith(`compound { channel "dest" load_equalizer { mode VERTICAL } tree_equalizer { mode HORIZONTAL } DFR_equalizer { }
		framerate_equalizer { } monitor_equalizer { } view_equalizer { } tile_equalizer { } load_equalizer { mode DB } tree_equalizer { mode 2D } }`), Options{})
	var got []string
	for _, eq := range m.Configs[0].Compounds[0].Equalizers {
		s := eq.Kind.String()
		if eq.Kind.Splits() {
			s += " " + eq.Mode.String()
		}
		got = append(got, s)
	}
	want := "load VERTICAL, tree HORIZONTAL, DFR, framerate, monitor, view, tile, load DB, tree 2D"
	if strings.Join(got, ", ") != want {
		t.Errorf("kinds %q, want %q", strings.Join(got, ", "), want)
	}
}

// A fullscreen window takes its pipe's size, as Equalizer's takes its
// screen's when it opens; an offscreen one keeps its viewport.
func TestFullscreenWindowTakesThePipesSize(t *testing.T) {
	src := `config { appNode { pipe { viewport [ 0 0 1280 1024 ]
		window { viewport [ 10 20 640 360 ] attributes { hint_fullscreen ON } channel { name "a" } }
		window { viewport [ 10 20 640 360 ] attributes { hint_fullscreen ON hint_drawable FBO } channel { name "b" } }
		window { viewport [ 10 20 640 360 ] channel { name "c" } } } } }`
	windows := mustResolve(t, src, Options{Getenv: func(string) (string, bool) { return "", false }}).Configs[0].Nodes[0].Pipes[0].Windows
	for i, want := range []PixelViewport{{0, 0, 1280, 1024}, {10, 20, 640, 360}, {10, 20, 640, 360}} {
		if got := windows[i].PixelViewport; got != want {
			t.Errorf("window %d: %v, want %v", i, got, want)
		}
		if got := windows[i].Channels[0].PixelViewport; got.W != want.W || got.H != want.H {
			t.Errorf("window %d's channel: %v, want the window's size", i, got)
		}
	}
}

// A destination whose parts each draw some of its eyes in a pixel pattern
// of their own interleaves its eyes (omegalib's row-interleaved stereo):
// each eye's pattern is found, and a part on the destination's own channel
// draws aside, clearing first, so that its render stays out of the rows
// of the eyes assembled before it. Eye parts without patterns, one
// pattern for every eye, or an eye in two patterns interleave nothing.
func TestEyesInterleavedByPixel(t *testing.T) {
	cases := []struct {
		name, compounds string
		want            map[int]Pixel
	}{
		{"rows", `compound { channel "dest" eye [ LEFT RIGHT ] wall {}
            compound { eye [ RIGHT ] pixel [ 0 0 1 2 ] outputframe { name "r" } }
            compound { eye [ LEFT ] channel "src" pixel [ 0 1 1 2 ] outputframe { name "l" } }
            inputframe { name "r" } inputframe { name "l" } }`, map[int]Pixel{EyeRight: {0, 0, 1, 2}, EyeLeft: {0, 1, 1, 2}}},
		{"eye parts without patterns", `compound { channel "dest" eye [ LEFT RIGHT ] wall {}
            compound { eye [ RIGHT ] }
            compound { eye [ LEFT ] channel "src" outputframe { name "l" } } inputframe { name "l" } }`, nil},
		{"one pattern for every eye", `compound { channel "dest" eye [ LEFT RIGHT ] wall {}
            compound { pixel [ 0 0 1 2 ] outputframe { name "a" } }
            compound { channel "src" pixel [ 0 1 1 2 ] outputframe { name "b" } }
            inputframe { name "a" } inputframe { name "b" } }`, nil},
		{"an eye in two patterns", `compound { channel "dest" eye [ LEFT RIGHT ] wall {}
            compound { eye [ RIGHT ] pixel [ 0 0 2 1 ] outputframe { name "a" } }
            compound { eye [ RIGHT ] channel "src" pixel [ 1 0 2 1 ] outputframe { name "b" } }
            compound { eye [ LEFT ] }
            inputframe { name "a" } inputframe { name "b" } }`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dest := mustResolve(t, cfgWith(c.compounds), Options{}).Configs[0].Compounds[0]
			if got := dest.EyePixels(); !maps.Equal(got, c.want) {
				t.Fatalf("eye patterns %v, want %v", got, c.want)
			}
			for _, part := range dest.Children {
				aside := c.want != nil && part.Channel == dest.Channel
				if part.DrawsAside != aside || aside && part.Tasks&TaskClear == 0 {
					t.Errorf("part %s on %q: draws aside %v, clears %v; want aside %v, clearing", part.Path(), part.Channel.Name,
						part.DrawsAside, part.Tasks&TaskClear != 0, aside)
				}
			}
		})
	}
}
