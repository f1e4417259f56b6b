package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/simulate"
)

// TestExchangesMatchTheReference runs sort-last configs whose sources
// exchange bands in several rounds (binary swap over 8, radix-k as 4x2),
// with the destination drawing its own range in place or not, the bands
// kept in memory or merged through the GL, and compares each image with
// the reference: the destination rendering the whole frame alone.
func TestExchangesMatchTheReference(t *testing.T) {
	const frames, k = 4, 3
	gen := filepath.Join(t.TempDir(), "gen-db-8.eqc")
	os.WriteFile(gen, []byte(simulate.Generated{Mode: compound.SplitDB, Sources: 8, W: 320, H: 180, PipesPerNode: 2}.EQC()), 0o644)
	corpus8 := filepath.Join(corpusDir(), "8-node.layout.DB.eqc")
	cases := []struct {
		name, cfg, strategy, want string
		args                      []string
	}{
		{"binary swap among 8 generated sources", gen, "binary_swap", "0 BINARY_SWAP among 8", nil},
		{"radix-k among 8 generated sources", gen, "radix_k", "0 RADIX_K among 8", nil},
		{"binary swap, the destination in place", corpus8, "binary_swap", "0 BINARY_SWAP among 8", []string{"--layout", "DB"}},
		// under llvmpipe the bands stay in memory between rounds; through
		// the GL, as on a GPU, each round's merge is uploaded and read back
		{"binary swap through the GL", gen, "binary_swap", "0 BINARY_SWAP among 8", []string{"--merge", "gpu"}},
		{"direct send through the GL, the destination in place", corpus8, "direct_send", "0 DIRECT_SEND among 8", []string{"--layout", "DB", "--merge", "gpu"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--renderer", "mesh"}, c.args...)
			r := run(t, c.cfg, frames, append(args, "--compositing", c.strategy)...)
			if r.err != nil || r.summary.Frames != frames || r.summary.Degraded != 0 {
				t.Fatalf("run: %v %+v\n%s", r.err, r.summary, r.stderr)
			}
			if r.summary.Exchanges[c.want] != frames {
				t.Errorf("exchanges %v, want %d frames of %q", r.summary.Exchanges, frames, c.want)
			}
			compareWithReference(t, r, c.cfg, frames, k, 0, args...)
		})
	}
}

// A render node killed while its sources exchange bands: the others stop
// waiting for its parts, at most two frames are degraded, and the next
// frames exchange among the sources left and equal the reference.
func TestExchangeSurvivesAKilledNode(t *testing.T) {
	const frames = 30
	sp, sum := runKillingRender2(t, config("db-lb-4.eqc"), frames, "--compositing", "direct_send")
	if len(sum.LostNodes) != 1 || sum.Degraded > 2 || sum.Frames != frames {
		t.Errorf("summary %+v", sum)
	}
	if sum.Exchanges["0 DIRECT_SEND among 4"] == 0 || sum.Exchanges["0 DIRECT_SEND among 2"] == 0 {
		t.Errorf("exchanges %v: want frames among 4 sources, then among the 2 left", sum.Exchanges)
	}
	name := fmt.Sprintf("dest-%06d.png", frames-1)
	got := loadPNG(t, filepath.Join(sp.out, name))
	want := loadPNG(t, filepath.Join(referenceDir(t, "mesh", frames), name))
	if bad, worst := differing(got, want, 1); bad > 640*360/1000 {
		t.Errorf("after recovery frame %d differs from the reference in %d pixels (worst %d)", frames-1, bad, worst)
	}
}

// A cross-balanced wall (2-window.wall.DB.lb.eqc: each window renders a
// range for the other's segment too) ran its first frame into a deadlock
// once its sources exchanged: each window runs the other destination's
// tree first, and there waited for a band the other window would send
// only from its own tree. The cost model chose an exchange at 1080p, so
// the config hung as written. Its trees now composite as written, with
// any strategy asked for, and match the reference.
func TestCrossBalancedWallRuns(t *testing.T) {
	const frames, k = 4, 3
	text, err := os.ReadFile(filepath.Join(corpusDir(), "2-window.wall.DB.lb.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	// the corpus' windows at 1080p, where the cost model picks an exchange
	big := strings.NewReplacer("viewport [ 100 100 480 300 ]", "viewport [ 0 0 1920 1080 ]",
		"viewport [ 580 100 480 300 ]", "viewport [ 0 0 1920 1080 ]").Replace(string(text))
	if big == string(text) {
		t.Fatal("the corpus config's window viewports changed: update this test")
	}
	bigPath := filepath.Join(t.TempDir(), "2-window.wall.DB.lb.1080p.eqc")
	if err := os.WriteFile(bigPath, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, cfg string
		args      []string
	}{
		{"1080p, strategy chosen", bigPath, nil},
		{"binary swap asked for", filepath.Join(corpusDir(), "2-window.wall.DB.lb.eqc"), []string{"--compositing", "binary_swap"}},
		{"direct send asked for", filepath.Join(corpusDir(), "2-window.wall.DB.lb.eqc"), []string{"--compositing", "direct_send"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--renderer", "mesh", "--frame-timeout", "20s"}, c.args...)
			r := run(t, c.cfg, frames, args...)
			if r.err != nil || r.summary.Frames != frames || r.summary.Degraded != 0 {
				t.Fatalf("run: %v %+v\n%s", r.err, r.summary, tailOf(r.stderr, 3000))
			}
			if len(r.summary.Exchanges) != 0 {
				t.Errorf("exchanges %v: crossed trees must composite as written", r.summary.Exchanges)
			}
			if c.args != nil && !strings.Contains(r.stderr, "composite as written: their sources' windows draw sort-last sources for another destination too") {
				t.Errorf("no warning that the strategy asked for is not used:\n%s", tailOf(r.stderr, 3000))
			}
			ref := run(t, c.cfg, frames, "--renderer", "mesh", "--reference")
			if ref.err != nil {
				t.Fatalf("reference: %v\n%s", ref.err, ref.stderr)
			}
			names, _ := filepath.Glob(filepath.Join(ref.out, fmt.Sprintf("*-%06d.png", k)))
			if len(names) != 2 {
				t.Fatalf("the reference wrote %d images of frame %d, want 2", len(names), k)
			}
			for _, want := range names {
				got := loadPNG(t, filepath.Join(r.out, filepath.Base(want)))
				if bad, worst := differing(got, loadPNG(t, want), 1); bad > 0 {
					t.Errorf("%s: %d pixels differ from the reference (worst %d)", filepath.Base(want), bad, worst)
				}
			}
		})
	}
}
