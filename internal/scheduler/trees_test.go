package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
)

// randomTree writes a config of a compound tree no example or corpus file
// has: decompositions (2D, DB, pixel, eye, time) nested up to three deep,
// with load and tile equalizers, in mono or stereo, the sources on pipes of
// their own or channels of one window, the destination drawing a part
// itself now and then.
func randomTree(r *rand.Rand) string {
	sources := 0
	destDraws := r.IntN(4) == 0
	var tree func(depth int) string
	tree = func(depth int) string {
		k := 2 + r.IntN(2)
		kinds := []string{"viewport", "range", "pixel", "eye", "load 2D", "load DB", "tile"}
		if depth == 0 {
			kinds = append(kinds, "period")
		}
		kind := kinds[r.IntN(len(kinds))]
		cuts := []float64{0, 1}
		for range k - 1 {
			cuts = append(cuts, 0.1+0.8*r.Float64())
		}
		slices.Sort(cuts)
		own := ""
		switch kind {
		case "load 2D", "load DB":
			own = fmt.Sprintf("load_equalizer { mode %s }", strings.TrimPrefix(kind, "load "))
		case "tile":
			own = fmt.Sprintf("tile_equalizer { size [ %d %d ] }", 8+r.IntN(60), 8+r.IntN(60))
		}
		var children []string
		for i := range k {
			part := ""
			switch kind {
			case "viewport":
				part = fmt.Sprintf("viewport [ %.3f 0 %.3f 1 ]", cuts[i], cuts[i+1]-cuts[i])
			case "range":
				part = fmt.Sprintf("range [ %.3f %.3f ]", cuts[i], cuts[i+1])
			case "pixel":
				part = fmt.Sprintf("pixel [ %d 0 %d 1 ]", i, k)
			case "eye":
				part = "eye [ " + []string{"LEFT", "RIGHT", "CYCLOP"}[i] + " ]"
			case "period":
				part = fmt.Sprintf("period %d phase %d", k, i)
			}
			if depth == 0 && i == 0 && destDraws && kind != "eye" && kind != "period" {
				// the destination draws this part itself (aside, where
				// it is a pixel part)
				children = append(children, "compound { "+part+" }")
				continue
			}
			if depth < 2 && r.IntN(3) == 0 {
				children = append(children, "compound { "+part+" "+tree(depth+1)+" }")
				continue
			}
			children = append(children, fmt.Sprintf(`compound { channel "src%d" %s outputframe { name "f%d" } }`, sources, part, sources))
			sources++
		}
		return own + "\n" + strings.Join(children, "\n")
	}
	body := tree(0)
	w, h := 16+r.IntN(600), 8+r.IntN(400)
	var pipes, inputs []string
	oneWindow := r.IntN(4) == 0
	var channels []string
	for i := range sources {
		inputs = append(inputs, fmt.Sprintf(`inputframe { name "f%d" }`, i))
		if oneWindow {
			channels = append(channels, fmt.Sprintf(`channel { name "src%d" viewport [ %g 0 %g 1 ] }`, i, float64(i)/float64(sources), 1/float64(sources)))
			continue
		}
		pipes = append(pipes, fmt.Sprintf(`pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "src%d" } } }`, w, h, i))
	}
	if oneWindow {
		pipes = []string{fmt.Sprintf(`pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } %s } }`, w*sources, h, strings.Join(channels, " "))}
	}
	mode := []string{"MONO", "STEREO"}[r.IntN(2)]
	return fmt.Sprintf(`config {
latency %d
appNode { pipe { window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "dest" } } } }
node { host "localhost" %s }
observer { }
layout { name "L" view { mode %s observer 0 } }
canvas { layout "L" wall { } segment { channel "dest" } }
compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
%s
%s
}
}
`, r.IntN(3), w, h, strings.Join(pipes, " "), mode, body, strings.Join(inputs, " "))
}

// Randomly generated compound trees (as users nest decompositions, some
// of them contradictory: an eye [ RIGHT ] under an eye [ LEFT ]) run their
// frames to the end on nodes that run their tasks in memory: a
// destination waited for ever for a frame that no task was planned to
// send. The same trees rendered for real and compared with the reference
// found the planner's faults with pixel parts and eye parts.
func TestRandomCompoundTreesRun(t *testing.T) {
	for seed := range uint64(400) {
		text := randomTree(rand.New(rand.NewPCG(seed, 11)))
		res, err := configparser.Parse(fmt.Sprintf("tree%d.eqc", seed), []byte(text))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		m, err := compound.Resolve(res, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		c := newCluster(t, m.Configs[0], Options{Frames: 4})
		c.run(20000)
		if !c.finished || c.failure != "" {
			t.Errorf("seed %d: finished %v after %d frames, failure %q\n%s", seed, c.finished, len(c.completed), c.failure, text)
		}
	}
}
