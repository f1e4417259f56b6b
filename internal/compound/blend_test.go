package compound

import (
	"path/filepath"
	"testing"
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
