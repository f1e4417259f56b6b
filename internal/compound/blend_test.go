package compound

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/corpus"
)

// With ranges blended (a volume renderer's, as Equalizer's eVolve runs any
// config), a config's frames and compounds carry no depth, and no
// sort-last compound exchanges bands by depth. The parts of the data keep
// their places: a part drawn in place (a destination's own range, a direct
// send's or a binary swap's source) stays in place, where the render
// client orders it with the parts blended over it.
func TestBlendedRangesCarryNoDepth(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "eqc-corpus")
	load := func(path string, blend bool) *Config {
		t.Helper()
		opt := noEnv
		opt.BlendRanges = blend
		m, _, err := Load(path, opt)
		if err != nil {
			t.Fatal(err)
		}
		return m.Configs[0]
	}
	sortLast := filepath.Join("..", "..", "examples", "configs", "db-lb-4.eqc")
	if len(load(sortLast, false).SortLast()) == 0 || len(load(sortLast, true).SortLast()) != 0 {
		t.Error("db-lb-4.eqc: exchanges by depth with ranges blended, or none without")
	}
	for _, name := range []string{"2-window.DB.eqc", "2-pipe.DB.ds.eqc", "4-window.DB.bs.eqc", "4-window.DB.stream.eqc"} {
		cfg := load(filepath.Join(corpus, name), true)
		cfg.Walk(func(x *Compound) {
			if x.Buffers&BufferDepth != 0 {
				t.Errorf("%s: compound %s keeps depth", name, x.Path())
			}
			for _, f := range append(x.OutputFrames, x.InputFrames...) {
				if f.Buffers&BufferDepth != 0 {
					t.Errorf("%s: frame %q keeps depth", name, f.Name)
				}
			}
			if x.DrawsAside {
				t.Errorf("%s: %s draws aside", name, x.Path())
			}
		})
	}
}

// A part its destination draws in place from a tile equalizer's chunks of
// the data draws aside with ranges blended, each chunk read back and
// blended in its turn (in place, each replaced the one before); tiles of
// the screen, and chunks merged by depth, stay in place.
func TestBlendedChunksDrawnInPlaceDrawAside(t *testing.T) {
	const config = `server { config {
		appNode { pipe { window { viewport [ 0 0 400 300 ] channel { name "destination" } } } }
		compound { channel "destination" tile_equalizer { %s } compound {} }
	} }`
	for _, c := range []struct {
		equalizer string
		blend     bool
		aside     bool
	}{{"size 0.25", true, true}, {"size 0.25", false, false}, {"size [ 64 64 ]", true, false}} {
		opt := noEnv
		opt.BlendRanges = c.blend
		m, _, err := LoadText("chunks.eqc", []byte(fmt.Sprintf(config, c.equalizer)), opt)
		if err != nil {
			t.Fatal(err)
		}
		part := m.Configs[0].Compounds[0].Children[0]
		if part.DrawsAside != c.aside || (len(part.OutputFrames) > 0) != c.aside {
			t.Errorf("tile_equalizer { %s }, ranges blended %v: the destination's part draws aside %v with %d output frames; want aside %v",
				c.equalizer, c.blend, part.DrawsAside, len(part.OutputFrames), c.aside)
		}
	}
}

// A frame that brings depth ranges without DEPTH is found where the
// config writes it (goeq's volume example, for its blended slabs), and in
// no other corpus or example config: Equalizer's DB configs all merge by
// depth.
func TestRangesWithoutDepthAreFound(t *testing.T) {
	volume := filepath.Join("..", "..", "examples", "configs", "db-volume-4.eqc")
	m, _, err := Load(volume, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Configs[0].RangesWithoutDepth()
	if f == nil || f.Name != "f1" || f.Pos.Line == 0 {
		t.Fatalf("%s: got %+v, want its first input frame, f1, with its place", volume, f)
	}
	text, err := os.ReadFile(volume)
	if err != nil {
		t.Fatal(err)
	}
	withDepth := strings.Replace(string(text), "buffer [ COLOR ]", "buffer [ COLOR DEPTH ]", 1)
	if m, _, err = LoadText("depth.eqc", []byte(withDepth), noEnv); err != nil || m.Configs[0].RangesWithoutDepth() != nil {
		t.Errorf("with DEPTH: %v, found a frame without depth", err)
	}
	// Ranges that meet no other range on a pixel never blend: parts that
	// split both the area and the data (check warns of what they leave
	// out) are no case of it.
	apart := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "a" } } } }
    compound { channel "dest"
        compound { viewport [ 0 0 .5 1 ] range [ 0 .5 ] }
        compound { channel "a" viewport [ .5 0 .5 1 ] range [ .5 1 ] outputframe { name "fa" } }
        inputframe { name "fa" } }
}`
	if m, _, err = LoadText("apart.eqc", []byte(apart), noEnv); err != nil {
		t.Fatal(err)
	} else if f := m.Configs[0].RangesWithoutDepth(); f != nil {
		t.Errorf("ranges side by side: input frame %q taken for ranges without depth", f.Name)
	}
	over := strings.Replace(apart, `channel "a" viewport [ .5 0 .5 1 ]`, `channel "a" viewport [ .4 0 .6 1 ]`, 1)
	if m, _, err = LoadText("over.eqc", []byte(over), noEnv); err != nil {
		t.Fatal(err)
	} else if f := m.Configs[0].RangesWithoutDepth(); f == nil || f.Name != "fa" {
		t.Errorf("ranges that overlap by a tenth: got %v, want fa", f)
	}
	// a tile queue of database chunks gives out ranges too (the corpus'
	// 2-node.tile.eqc with its tiles made chunks drew them over each other)
	chunks := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "a" } } } }
    compound { channel "dest" tile_equalizer { size %s } %s
        compound { }
        compound { channel "a" outputframe { name "fa" } }
        inputframe { name "fa" } }
}`
	for _, c := range []struct {
		size, buffers string
		found         bool
	}{{"0.3", "", true}, {"0.3", "buffer [ COLOR DEPTH ]", false}, {"[ 64 64 ]", "", false}} {
		if m, _, err = LoadText("chunks.eqc", []byte(fmt.Sprintf(chunks, c.size, c.buffers)), noEnv); err != nil {
			t.Fatal(err)
		} else if f := m.Configs[0].RangesWithoutDepth(); (f != nil) != c.found {
			t.Errorf("tile_equalizer { size %s } with %q: found %v, want found %v", c.size, c.buffers, f, c.found)
		}
	}
	for _, path := range corpus.Paths(t) {
		m, _, err := Load(path, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		if f := m.Configs[0].RangesWithoutDepth(); f != nil && filepath.Base(path) != filepath.Base(volume) {
			t.Errorf("%s: input frame %q at %s taken for ranges without depth", filepath.Base(path), f.Name, f.Pos)
		}
	}
}

// A source's pixels leave its channel in the output frames read back on
// it: its own, its ancestors' on the channel, and those of their other
// compounds there (binary swap reads back, in a sibling, what the draw
// left). Where those frames leave part of what it draws, check says how
// much they carry: the direct-send example with one stripe cut to a
// quarter of its width (verify's test case) carries 81.2% of src2's
// draw. No corpus config is warned, binary swap's included.
func TestCheckWarnsWhereOutputFramesLeavePartOfADraw(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "configs", "db-direct-send.eqc")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const sent = "name \"tile3.src2\"\n                    viewport [ 0 0.5 1 0.25 ]"
	if strings.Count(string(text), sent) != 1 {
		t.Fatalf("%s does not send tile3.src2 as the test expects", path)
	}
	quarter := strings.Replace(string(text), sent, "name \"tile3.src2\"\n                    viewport [ 0 0.5 0.25 0.25 ]", 1)
	_, got := resolveWarned(t, "quarter.eqc", quarter)
	want := `channel "src2" draws here for destination "dest", but the output frames read back on it carry 81.2% of what it draws`
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("warnings:\n%s\nwant only one saying %q", strings.Join(got, "\n"), want)
	}
	noneWarns(t, "output frames read back on it carry", append(corpus.Paths(t), path)...)
}

// noneWarns fails where a file's warnings say what.
func noneWarns(t *testing.T, what string, paths ...string) {
	t.Helper()
	for _, path := range paths {
		_, res, err := Load(path, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			if strings.Contains(w.Msg, what) {
				t.Errorf("%s", w)
			}
		}
	}
}

// Where a destination draws a range on its own pixels and colour-only
// frames come back composited over them (direct send and binary swap in
// Equalizer's corpus), each stripe of the draw must go out to be
// composited into the frame that paints it: where an output frame leaves
// part of a stripe, that part of the destination's range is painted over.
// check said nothing (the destination draws in place, and needs no frame
// to show), and verify found the pictures wrong: 4-node.DB.ds with the
// destination's second stripe cut to half its width is one of 19 such
// corpus mutants. A 2D tile assembled over a destination that draws the
// whole view paints the same data, and is not warned of.
func TestCheckWarnsWhereFramesPaintOverADestinationsDraw(t *testing.T) {
	text := corpusText(t, "4-node.DB.ds.eqc")
	const sent = `outputframe { name "stripe2.c1" viewport [ 0 .25 1 .25 ] }`
	if strings.Count(text, sent) != 1 {
		t.Fatal("4-node.DB.ds.eqc does not send stripe2.c1 as the test expects")
	}
	half := strings.Replace(text, sent, `outputframe { name "stripe2.c1" viewport [ 0 .25 .5 .25 ] }`, 1)
	_, got := resolveWarned(t, "half.eqc", half)
	want := `channel "channel1" draws here on destination "channel1"'s own pixels, but colour-only input frames assembled there paint over 12.5% of what it draws`
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("warnings:\n%s\nwant only one saying %q", strings.Join(got, "\n"), want)
	}
	tiled := `config {
    appNode { pipe { window { viewport [ 0 0 800 600 ] channel { name "dest" } } }
        pipe { window { viewport [ 0 0 400 600 ] attributes { hint_drawable FBO } channel { name "src" } } } }
    compound { channel "dest"
        compound { channel "dest" }
        compound { channel "src" viewport [ 0 0 .5 1 ] outputframe { name "tile" } }
        inputframe { name "tile" } }
}`
	if _, got := resolveWarned(t, "tiled.eqc", tiled); len(got) != 1 || strings.Contains(got[0], "paint over") {
		// the one warning: the tile draws half the area twice
		t.Errorf("a 2D tile over a whole draw: warnings\n%s\nwant none of painting over", strings.Join(got, "\n"))
	}
	noneWarns(t, "paint over", corpus.Paths(t)...)
}
