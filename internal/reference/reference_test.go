package reference

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
)

// A destination whose compound only clears (Equalizer's 1-window.mixed
// clears a quarter of its window so) shows the clear: the reference must
// not draw the model there, or every decomposed frame of it "differs".
func TestADestinationThatOnlyClearsShowsTheClear(t *testing.T) {
	const text = `server { config {
    appNode { pipe { window { viewport [ 0 0 400 200 ]
        channel { name "clear" viewport [ 0 0 .5 1 ] }
        channel { name "drawn" viewport [ .5 0 .5 1 ] }
        channel { name "assembled" viewport [ .5 0 .5 1 ] }
        channel { name "source" viewport [ .5 0 .5 1 ] } } } }
    compound { task [ CLEAR ] channel "clear" wall {} }
    compound { channel "drawn" wall {} }
    compound { task [ CLEAR ASSEMBLE ] channel "assembled" wall {}
        compound { channel "source" outputframe { name "f" } }
        inputframe { name "f" } }
} }`
	path := filepath.Join(t.TempDir(), "clear.eqc")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	plan := New(m.Configs[0]).Plan(0)
	drawsOn := map[string]bool{}
	for _, cp := range plan.Channels {
		for _, task := range cp.Tasks {
			drawsOn[cp.Channel.Name] = drawsOn[cp.Channel.Name] || task.Kind == planner.Draw
		}
	}
	want := map[string]bool{"clear": false, "drawn": true, "assembled": true}
	for name, w := range want {
		if drawsOn[name] != w {
			t.Errorf("channel %q: the reference draws %v, want %v", name, drawsOn[name], w)
		}
	}
}
