package compound

import (
	"path/filepath"
	"strings"
	"testing"
)

// With ranges blended (a volume renderer's, as Equalizer's eVolve runs any
// config), a config's frames and compounds carry no depth, no sort-last
// compound exchanges bands by depth, and a part of the data drawn in
// place on a channel where a compound above it composites draws aside and
// sends its image there to blend in its turn: on a destination
// (2-window.DB.eqc) and on a source of a direct send (2-pipe.DB.ds.eqc).
func TestBlendedRangesCarryNoDepthAndDrawAside(t *testing.T) {
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
	for _, c := range []struct {
		config string
		aside  []string // the channels whose part draws aside
	}{
		{"2-window.DB.eqc", []string{"channel1"}},
		{"2-pipe.DB.ds.eqc", []string{"channel2", "channel1"}},
	} {
		cfg := load(filepath.Join(corpus, c.config), true)
		var aside []string
		cfg.Walk(func(x *Compound) {
			if x.Buffers&BufferDepth != 0 {
				t.Errorf("%s: compound %s keeps depth", c.config, x.Path())
			}
			for _, f := range append(x.OutputFrames, x.InputFrames...) {
				if f.Buffers&BufferDepth != 0 {
					t.Errorf("%s: frame %q keeps depth", c.config, f.Name)
				}
			}
			if x.DrawsAside {
				aside = append(aside, x.Channel.Name)
				if last := x.OutputFrames[len(x.OutputFrames)-1]; len(last.Consumers) != 1 || last.Consumers[0].Channel != x.Channel || !isAncestor(last.Consumers[0], x) {
					t.Errorf("%s: %s draws aside for %v, not a compound above it on its channel", c.config, x.Path(), last.Consumers)
				}
			}
		})
		if strings.Join(aside, " ") != strings.Join(c.aside, " ") {
			t.Errorf("%s: parts drawn aside on %q; want %q", c.config, aside, c.aside)
		}
		if load(filepath.Join(corpus, c.config), false).Compounds[0].Children[0].DrawsAside {
			t.Errorf("%s: a part draws aside with ranges merged by depth", c.config)
		}
	}
}

// Where goeq does not order blended ranges yet, the config says so: a
// binary swap or a stream written out, whose compounds composite others'
// parts into a part drawn in place, and parts interleaved by pixel. Where
// it does, or where ranges merge by depth, nothing is said.
func TestBlendedRangesWarnWhereTheyCannotBeOrdered(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "eqc-corpus")
	for _, c := range []struct {
		config string
		want   string
	}{
		{"4-window.DB.bs.eqc", `channel "channel1": ranges blend (a volume), but goeq does not yet order the part of the data drawn here with what the compound at line 71 composites`},
		{"4-window.DB.stream.eqc", `channel "channel2": ranges blend (a volume), but goeq does not yet order the part of the data drawn here with what it composites`},
		{"7-window.DB.PIXEL.eqc", `channel "channel-first-1": ranges blend (a volume), but parts of the data are interleaved by pixel into "channel-all"`},
		{"2-window.DB.eqc", ""},
		{"2-pipe.DB.ds.eqc", ""},
		{"4-window.DB.2D.lb.eqc", ""},
	} {
		for _, blend := range []bool{true, false} {
			opt := noEnv
			opt.BlendRanges = blend
			_, res, err := Load(filepath.Join(corpus, c.config), opt)
			if err != nil {
				t.Fatal(err)
			}
			var said []string
			for _, w := range res.Warnings {
				if strings.Contains(w.Msg, "ranges blend") {
					said = append(said, w.Msg)
				}
			}
			want := c.want != "" && blend
			if got := len(said) > 0 && strings.Contains(strings.Join(said, "\n"), c.want); got != want || !want && len(said) > 0 {
				t.Errorf("%s, ranges blended %v: warned %q; want %q", c.config, blend, said, c.want)
			}
		}
	}
}
