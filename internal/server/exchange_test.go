package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
	os.WriteFile(gen, []byte(simulate.Generated{Mode: "DB", Sources: 8, W: 320, H: 180, PipesPerNode: 2}.EQC()), 0o644)
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
			ref := run(t, c.cfg, frames, append(args, "--reference")...)
			if ref.err != nil {
				t.Fatalf("reference: %v\n%s", ref.err, ref.stderr)
			}
			names, _ := filepath.Glob(filepath.Join(ref.out, fmt.Sprintf("*-%06d.png", k)))
			if len(names) == 0 {
				t.Fatalf("the reference wrote no frame %d", k)
			}
			for _, want := range names {
				got := loadPNG(t, filepath.Join(r.out, filepath.Base(want)))
				if bad, worst := differing(got, loadPNG(t, want), 0); bad > 0 {
					t.Errorf("%s: %d pixels differ from the reference (worst %d)", filepath.Base(want), bad, worst)
				}
			}
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
