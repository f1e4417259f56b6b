package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/simulate"
)

// TestReplayReproducesTheRecordedSplits records live runs (2D and DB,
// Equalizer's policy) and replays their statistics under the same policy:
// the replay plans every frame's split exactly as the live run did.
func TestReplayReproducesTheRecordedSplits(t *testing.T) {
	for _, name := range []string{"2d-lb-4.eqc", "db-lb-4.eqc"} {
		t.Run(name, func(t *testing.T) {
			r := run(t, config(name), 40)
			if r.err != nil {
				t.Fatalf("run: %v\n%s", r.err, r.stderr)
			}
			f, err := os.Open(filepath.Join(r.out, "stats.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := simulate.ReadStats(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := compound.Load(config(name), compound.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// the statistics name each channel's renderer: one per render
			// node here, its pipes on one rasterizer (or one GPU)
			nodeOf := map[string]string{}
			for _, ch := range m.Configs[0].Channels {
				nodeOf[ch.ID] = ch.Window.Pipe.Node.ID
			}
			rendererOf := map[string]string{}
			for _, rec := range recorded {
				node := nodeOf[rec.Channel]
				if node == "app" {
					continue
				}
				if !strings.HasPrefix(rec.Renderer, node+" ") {
					t.Fatalf("channel %s on node %s: renderer %q", rec.Channel, node, rec.Renderer)
				}
				if prev, ok := rendererOf[node]; ok && prev != rec.Renderer {
					t.Fatalf("node %s: renderers %q and %q", node, prev, rec.Renderer)
				}
				rendererOf[node] = rec.Renderer
			}
			if len(rendererOf) != 2 {
				t.Errorf("renderers of %d render nodes named, want 2: %v", len(rendererOf), rendererOf)
			}
			sum, replayed, err := simulate.Replay(m.Configs[0], name, recorded, "equalizer")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Frames != 40 {
				t.Fatalf("replayed %d frames, want 40", sum.Frames)
			}
			type key struct {
				frame    int
				compound string
			}
			want := map[key]compound.Viewport{}
			wantRange := map[key]compound.Range{}
			for _, rec := range recorded {
				want[key{rec.Frame, rec.Compound}] = rec.Viewport
				wantRange[key{rec.Frame, rec.Compound}] = rec.Range
			}
			moved := false
			for _, rec := range replayed {
				k := key{rec.Frame, rec.Compound}
				if rec.Viewport != want[k] || rec.Range != wantRange[k] {
					t.Errorf("frame %d, compound %s: replay planned %v %v, the run %v %v", rec.Frame, rec.Compound, rec.Viewport, rec.Range, want[k], wantRange[k])
				}
				moved = moved || rec.Frame > 0 && (rec.Viewport != want[key{0, rec.Compound}] || rec.Range != wantRange[key{0, rec.Compound}])
			}
			if len(replayed) < 4*40 {
				t.Errorf("the replay gave %d statistics, want 4 sources x 40 frames", len(replayed))
			}
			if !moved {
				t.Errorf("the split never moved in the recorded run: the comparison proves nothing")
			}
			// the command reports both policies in balance.md's table
			out, err := exec.Command(filepath.Join(binaries(t), "eqserver"), "replay", "--config", config(name), filepath.Join(r.out, "stats.jsonl")).CombinedOutput()
			if err != nil {
				t.Fatalf("eqserver replay: %v\n%s", err, out)
			}
			text := string(out)
			if !strings.Contains(text, simulate.TableHeader) || !strings.Contains(text, "| replay | equalizer | ") || !strings.Contains(text, "| replay | adaptive | ") {
				t.Errorf("eqserver replay printed:\n%s", text)
			}
		})
	}
}
