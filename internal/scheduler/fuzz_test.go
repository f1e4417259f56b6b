package scheduler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
)

// FuzzConfigRuns feeds arbitrary config text through the parser, the
// resolver and the scheduler, with nodes that run their tasks in memory:
// a config that resolves either runs its frames or fails with a message,
// nothing panics or waits without bound, and no plan leaves a part of a
// balanced compound to no one (FramePlan.Undrawn). Run with `make fuzz`; the
// corpus and the examples seed it.
func FuzzConfigRuns(f *testing.F) {
	for _, pattern := range []string{example("*.eqc"), corpus("*.eqc")} {
		names, _ := filepath.Glob(pattern)
		for _, name := range names {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("server { config { appNode { pipe { window { channel { name \"c\" } } } } compound { channel \"c\" } } }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := configparser.Parse("fuzz.eqc", src)
		if err != nil {
			return
		}
		m, err := compound.Resolve(res, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			return
		}
		for _, cfg := range m.Configs {
			// 20000 rounds of 5 ms: ten times the default frame timeout
			const rounds = 20000
			c := newCluster(t, cfg, Options{Frames: 3})
			c.run(rounds)
			if !c.finished && c.failure == "" {
				t.Fatalf("3 frames neither done nor failed after %d rounds: %d completed", rounds, len(c.completed))
			}
			// and no plan leaves a part of a balanced compound to no one
			for _, f := range c.completed {
				if len(f.Undrawn) > 0 {
					t.Fatalf("frame %d leaves %v undrawn", f.Frame, f.Undrawn)
				}
			}
		}
	})
}
