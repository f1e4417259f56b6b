package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/imagecmp"
)

// Compound trees drawn at random, as no one would write them but as a
// user's nesting may come out: 2D splits across and in rows, database
// ranges, pixel interleaves, subpixel samples, balanced splits (2D,
// rows, columns, DB), time multiplexes, tiles and eye decompositions,
// up to three levels deep over up to eight sources, mono and stereo, in
// windows of even and odd sizes (odd ones put part edges on half pixels), some
// parts drawn by the destination itself (in place, or sent to itself in a
// frame), some trees' sources in the destination's own window. Each runs
// against its reference, with the corpus' tolerances. Trees whose check
// warns that a part stays empty (eyes alone under a pixel part of a mono
// view, or in a phase of one, as in Equalizer) are drawn again. make test
// runs 12 (seeds 0 to 11); GOEQ_RANDOM_TREES=N runs N, from seed
// GOEQ_RANDOM_TREES_FROM (0). The first three
// hundred found a cyclop part under a stereo eye's taken for one that
// draws (the cyclop-under-an-eye case of
// TestGeneratedCompoundTreesMatchTheReference), seven hundred the phases'
// holes. With sources in the destination's window and the destination
// sending its part to itself, nine hundred found a part drawn off its
// place on the destination's pixels left in its picture, two compounds of
// one channel waiting on each other's tiles, and a source on the
// destination's pixels clearing what it drew in place (the
// destination-sends, destination-pulls and source-on-the-destination
// cases there); 900 pass since. Seeds 1400 to 1699 found a DB range's 2
// subpixel samples and another's 3 averaged as 5 samples of one range
// each (subpixels-of-two-sizes-in-db there, seed 1547). Under
// GOEQ_PROBE_RENDERER the tally of trees whose frames the tolerance
// tells apart may fall short, as the corpus' does: the volume changes
// little from frame to frame (85 of 120 at seeds 7000 to 7119, all of
// which match their reference).
func TestRandomCompoundTreesMatchTheReference(t *testing.T) {
	ran, distinguished := 0, 0
	for _, seed := range randomSeeds(12, 1) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x601d))
			ran++
			if runRandomConfig(t, func() (string, string) {
				g, body := randomTree(r)
				return g.config(body), fmt.Sprintf("%dx%d, %d sources (in the destination's window: %v), stereo %v:\n%s", g.w, g.h, g.sources, g.inDestination, g.stereo, body)
			}) {
				distinguished++
			}
		})
	}
	if distinguished < ran*3/4 {
		t.Errorf("the tolerances told frame N from frame N+1 in only %d of %d trees", distinguished, ran)
	}
}

// Random trees whose sources render zoomed, half of them by one of six
// zooms (down, up, and unlike across and up), under the synthetic
// renderer: its pattern is smooth, so a zoomed part comes within a few
// levels of the reference, and one misplaced or drawn over is far off
// where the mesh's resampled edges would hide it. make test runs 4;
// GOEQ_RANDOM_TREES=N runs N/4, from seed GOEQ_RANDOM_TREES_FROM. Seed
// 40 found zoomed sources of a tile queue drawing tiles past the region
// their clear covered (zoomed-tiles in
// TestGeneratedCompoundTreesMatchTheReference); seeds 0 to 459 pass since.
func TestRandomZoomedTreesMatchTheReference(t *testing.T) {
	t.Setenv("GOEQ_PROBE_RENDERER", "synthetic")
	for _, seed := range randomSeeds(4, 4) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x200a))
			zr := rand.New(rand.NewPCG(uint64(seed), 0x300b))
			runRandomConfig(t, func() (string, string) {
				g, body := randomTree(r)
				body = zoomSources(zr, body)
				return g.config(body), fmt.Sprintf("%dx%d, %d sources (in the destination's window: %v), stereo %v:\n%s", g.w, g.h, g.sources, g.inDestination, g.stereo, body)
			})
		})
	}
}

// zoomSources zooms half the source compounds of text, drawn from r, by
// one of six zooms: down, up, and unlike across and up.
func zoomSources(r *rand.Rand, text string) string {
	zooms := []string{"0.5 0.5", "2 2", "0.25 0.5", "0.75 1.5", "1.5 1.5", "0.33 0.67"}
	return sourceAt.ReplaceAllStringFunc(text, func(s string) string {
		if r.IntN(2) == 0 {
			return s
		}
		return s + " zoom [ " + zooms[r.IntN(len(zooms))] + " ]"
	})
}

var sourceAt = regexp.MustCompile(`compound \{ channel "src\d+"`)

// Pairs of random trees (TestRandomTreesOfTwoDestinationsShareTheirSources),
// half of them assembling, whose sources render zoomed as in
// TestRandomZoomedTreesMatchTheReference, at latency 0 to 2. make test
// runs 2; GOEQ_RANDOM_TREES=N runs N/4, from
// seed GOEQ_RANDOM_TREES_FROM. Seeds 38 and 136 found a shared source's
// part under a zoomed assembly drawn over the other destination's picture
// (TestPartsOfASharedSourceUnderAZoomedAssembly). Seed 133 failed in
// about one run of five: src0 drew a tile queue's part aside in a band
// that began at its window's edge, inside its zoomed share's render for
// the other destination, whenever it ran between that share's draw and
// readback (planner's TestAPartDrawnAsideKeepsClearOfAZoomedShare).
// Seeds 0 to 299 pass since. A pair that check warns assembles a pixel
// decomposition at a zoom it cannot place it on (a known limit) is drawn
// again; until TestAZoomedAssemblyInterleavesItsPixelPartsOnItsZoomedPixels
// every zoomed assembly of pixel parts was.
func TestRandomZoomedPairsMatchTheReference(t *testing.T) {
	t.Setenv("GOEQ_PROBE_RENDERER", "synthetic")
	for _, seed := range randomSeeds(2, 4) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x7f01))
			zr := rand.New(rand.NewPCG(uint64(seed), 0x7f02))
			runRandomConfig(t, func() (string, string) {
				for {
					text, _ := twoTrees(r, zr.IntN(2) == 0)
					text = zoomSources(zr, text)
					latency := zr.IntN(3)
					text = strings.Replace(text, "latency 1", fmt.Sprintf("latency %d", latency), 1)
					if !zoomedInterleaveWarned(t, text) {
						return text, fmt.Sprintf("latency %d", latency)
					}
				}
			})
		})
	}
}

// Random trees, half of them assembling and half over nodes, whose load
// equalizers are tree equalizers for half of them, with boundaries,
// resistances and damping drawn at random (DB's as fractions). make test
// runs 2; GOEQ_RANDOM_TREES=N runs N/2, from seed GOEQ_RANDOM_TREES_FROM.
// Seeds 0 to 199 pass.
func TestRandomBalancingParametersMatchTheReference(t *testing.T) {
	equalizer := regexp.MustCompile(`load_equalizer \{ mode (\w+) \}`)
	for _, seed := range randomSeeds(2, 2) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x9a01))
			pr := rand.New(rand.NewPCG(uint64(seed), 0x9a02))
			pick := func(of ...string) string { return of[pr.IntN(len(of))] }
			runRandomConfig(t, func() (string, string) {
				for {
					g, body := randomTreeOf(r, pr.IntN(2) == 0)
					if !strings.Contains(body, "load_equalizer") {
						continue
					}
					body = equalizer.ReplaceAllStringFunc(body, func(s string) string {
						mode := equalizer.FindStringSubmatch(s)[1]
						kind := pick("load_equalizer", "tree_equalizer")
						var params []string
						if mode == "DB" {
							if pr.IntN(2) == 0 {
								params = append(params, "boundary "+pick("0.01", "0.1", "0.25"))
							}
							if pr.IntN(2) == 0 {
								params = append(params, "resistance "+pick("0.01", "0.1"))
							}
						} else {
							if pr.IntN(2) == 0 {
								params = append(params, fmt.Sprintf("boundary [ %s %s ]", pick("1", "8", "16", "64"), pick("1", "8", "16", "64")))
							}
							if pr.IntN(2) == 0 {
								params = append(params, fmt.Sprintf("resistance [ %s %s ]", pick("1", "10", "50"), pick("1", "10", "50")))
							}
						}
						if pr.IntN(2) == 0 {
							params = append(params, "damping "+pick("0", "0.5", "0.9", "1"))
						}
						return fmt.Sprintf("%s { mode %s %s }", kind, mode, strings.Join(params, " "))
					})
					if pr.IntN(2) == 0 {
						g.nodeOf = spreadOverNodes(pr, g)
					}
					return g.config(body), fmt.Sprintf("%dx%d, on nodes %v:\n%s", g.w, g.h, g.nodeOf, body)
				}
			})
		})
	}
}

// Random trees with tile queues, half of them assembling and half over
// nodes, whose tile equalizers hand out database chunks (size 0.05 to
// 0.5 of the range, as Equalizer's chunk compounds) rather than tiles:
// the sources take chunks as they come, and their frames carry depth.
// make test runs 2; GOEQ_RANDOM_TREES=N runs N/2, from seed
// GOEQ_RANDOM_TREES_FROM. Seeds 0 to 199 pass but seed 46: 16 single
// pixels on the silhouette (0.026%) under a 9-wide pixel kernel (pixel
// [ 1 0 3 1 ] under another), whose render pixel is 9 destination pixels
// wide, where llvmpipe snaps vertices to 1/256 of it.
func TestRandomChunkQueuesMatchTheReference(t *testing.T) {
	tiles := regexp.MustCompile(`tile_equalizer \{ size \[ \d+ \d+ \] \}`)
	for _, seed := range randomSeeds(2, 2) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x6c01))
			cr := rand.New(rand.NewPCG(uint64(seed), 0x6c02))
			runRandomConfig(t, func() (string, string) {
				for {
					g, body := randomTreeOf(r, cr.IntN(2) == 0)
					if !strings.Contains(body, "tile_equalizer") {
						continue
					}
					body = tiles.ReplaceAllStringFunc(body, func(string) string {
						return fmt.Sprintf("tile_equalizer { size %s }", []string{"0.05", "0.1", "0.25", "0.5"}[cr.IntN(4)])
					})
					if cr.IntN(2) == 0 {
						g.nodeOf = spreadOverNodes(cr, g)
					}
					return g.config(body), fmt.Sprintf("%dx%d, on nodes %v:\n%s", g.w, g.h, g.nodeOf, body)
				}
			})
		})
	}
}

// Random trees, half of them assembling, under an assembly on a channel
// of its own with a DFR equalizer, which sends the picture to the
// destination as a colour texture (as Equalizer's DFR examples do: it is
// scaled up filtered), at frame rates of 1 (no zoom), 30 and 1000 (its
// least zoom, 1/8) and, for half of them, over two or three render
// nodes; under the synthetic renderer, whose smooth pattern stays within
// the resampling allowance (a frame with depth, scaled unfiltered, came
// to 29.4 dB at 1/8 in 200x300 pixels). make test runs 2;
// GOEQ_RANDOM_TREES=N runs N/2, from seed GOEQ_RANDOM_TREES_FROM. The
// first 200 found parts that such an assembly draws itself drawn at their
// unzoomed offset
// (TestAPartDrawnInPlaceUnderADFRAssemblyIsScaledWithTheOthers), and
// mono eye parts left empty where check had said nothing; seeds 0 to
// 399 pass since. A tree that check warns assembles pixel parts at the
// DFR's zoom it cannot place them on (a known limit) is drawn again;
// until TestAZoomedAssemblyInterleavesItsPixelPartsOnItsZoomedPixels
// every such tree was.
func TestRandomDFRTreesMatchTheReference(t *testing.T) {
	t.Setenv("GOEQ_PROBE_RENDERER", "synthetic")
	for _, seed := range randomSeeds(2, 2) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x9b01))
			dr := rand.New(rand.NewPCG(uint64(seed), 0x9b02))
			runRandomConfig(t, func() (string, string) {
				for {
					g, body := randomTreeOf(r, dr.IntN(2) == 0)
					if g.inDestination != nil {
						continue // their channels are the destination window's
					}
					task, tree, _ := strings.Cut(body, "\n")
					framerate := []int{1, 30, 1000}[dr.IntN(3)]
					body = fmt.Sprintf(`%s
        compound { channel "src%d" buffer [ COLOR DEPTH ] DFR_equalizer { framerate %d damping %g }
        %s
        outputframe { name "dfr" type texture buffers [ COLOR ] } }
        inputframe { name "dfr" }`, task, g.sources, framerate, []float64{0, 0.5, 0.9}[dr.IntN(3)], tree)
					g.sources++
					if dr.IntN(2) == 0 {
						g.nodeOf = spreadOverNodes(dr, g)
					}
					if text := g.config(body); !zoomedInterleaveWarned(t, text) {
						return text, fmt.Sprintf("%dx%d, DFR at %d fps, on nodes %v:\n%s", g.w, g.h, framerate, g.nodeOf, body)
					}
				}
			})
		})
	}
}

// checkWarns reports whether check warns of a config's text with any of
// the phrases: a random config that a test draws again.
func checkWarns(t *testing.T, text string, phrases ...string) bool {
	t.Helper()
	_, res, err := compound.LoadText("random.eqc", []byte(text), compound.Options{})
	if err != nil {
		t.Fatalf("a random config does not load: %v\n%s", err, text)
	}
	return slices.ContainsFunc(res.Warnings, func(w configparser.Diagnostic) bool {
		return slices.ContainsFunc(phrases, func(p string) bool { return strings.Contains(w.Msg, p) })
	})
}

// zoomedInterleaveWarned reports whether check warns that a compound of
// text assembles pixel parts at a zoom it cannot place them on.
func zoomedInterleaveWarned(t *testing.T, text string) bool {
	t.Helper()
	return checkWarns(t, text, "assembles the parts of a pixel decomposition at")
}

// Random trees whose inner compounds assemble their parts on a channel
// of their own, a new one or their first source's, and send the result
// up in one frame (hierarchical compositing: a DB range's parts
// depth-merged, a pixel or subpixel decomposition put together, on the
// way to the destination). Half of them have their sources' pipes spread
// over two or three render nodes (spreadOverNodes, from a stream of its
// own), so that frames go between render clients over TCP, an
// assembly's parts among them. make test runs 4; GOEQ_RANDOM_TREES=N
// runs N/2, from seed GOEQ_RANDOM_TREES_FROM. The first forty found an
// assembly's channel drawing parts off their place or at its corner, an
// assembly under a pixel compound placing its parts off its region,
// subpixel samples averaged there without depth, and eye parts of a mono
// view left empty there; the first two hundred, a part that sends its
// picture drawn for it by its destination, which then waited for its
// frame (the assembly cases of TestGeneratedCompoundTreesMatchTheReference);
// seeds 0 to 399 pass since. With their nodes drawn, seeds 0 to 299 pass
// (and a probe of 360 such trees, all across nodes). Seeds 400 to 519
// found two channels over the destination's pixels, one assembling a tile
// queue it draws in place, the other's clear wiping those tiles
// (tiles-assembled-on-the-destinations-pixels there); all pass since.
func TestRandomAssemblingTreesMatchTheReference(t *testing.T) {
	for _, seed := range randomSeeds(4, 2) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x4a55))
			nr := rand.New(rand.NewPCG(uint64(seed), 0x4a56))
			runRandomConfig(t, func() (string, string) {
				g, body := randomTreeOf(r, true)
				if nr.IntN(2) == 0 {
					g.nodeOf = spreadOverNodes(nr, g)
				}
				return g.config(body), fmt.Sprintf("%dx%d, %d channels (in the destination's window: %v, on nodes %v), stereo %v:\n%s", g.w, g.h, g.sources, g.inDestination, g.nodeOf, g.stereo, body)
			})
		})
	}
}

// spreadOverNodes puts g's sources' pipes on two or three render nodes
// (as many as it has sources, if fewer), each with at least one; nil
// where its sources have no pipes of their own (they are channels of
// the destination's window) or are fewer than two.
func spreadOverNodes(r *rand.Rand, g generated) []int {
	if g.inDestination != nil || g.oneWindow || g.sources < 2 {
		return nil
	}
	n := min(2+r.IntN(2), g.sources)
	nodeOf := make([]int, g.sources)
	for k, i := range r.Perm(g.sources) {
		nodeOf[i] = k
		if k >= n {
			nodeOf[i] = r.IntN(n)
		}
	}
	return nodeOf
}

// A random assembling tree over two or three render nodes loses one of
// them after 6 frames, and the server launches its client again
// (--relaunch 1): the run goes on with at most the 2 frames in flight
// degraded, the node rejoins and, 10 frames after that, the run is
// stopped: every frame not named degraded matches the reference. The
// tree's other nodes keep their work, and an assembly whose channel was
// lost takes its parts' frames again once it is back. make test runs 1;
// GOEQ_RANDOM_TREES=N runs N/4, from seed GOEQ_RANDOM_TREES_FROM. Seeds 0
// to 79 pass (0 to 49 with every frame compared, not only the last two).
// (A probe of forty other such trees, their node frozen by SIGSTOP for
// 2.5 s and continued, found nothing either.)
func TestRandomAssemblingTreesLoseANodeThatRejoins(t *testing.T) {
	for _, seed := range randomSeeds(1, 4) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x4a57))
			path, text, victim, mode := randomSpreadTree(t, r, func() bool { return true })
			// until stopped, as its node's client comes back in its own time
			sp := startServer(t, path, 0, "--spin", "0.02", "--relaunch", "1")
			sp.waitFrames(t, 6)
			pid := sp.pid(victim)
			if pid == 0 {
				t.Fatalf("no pid for %s: %v", victim, sp.pids)
			}
			syscall.Kill(pid, syscall.SIGKILL)
			sp.waitLog(t, regexp.MustCompile(`node `+victim+` rejoined`))
			sp.waitFrames(t, sp.framesDone()+10)
			sp.cmd.Process.Signal(os.Interrupt)
			if err := sp.wait(t); err != nil && sp.cmd.ProcessState.ExitCode() != 130 {
				t.Fatalf("the run failed after %s died: %v\n%s\n%s", victim, err, tailOf(sp.log(), 3000), text)
			}
			var sum Summary
			if err := json.Unmarshal([]byte(sp.stdout.String()), &sum); err != nil {
				t.Fatalf("summary: %v", err)
			}
			if !slices.Equal(sum.LostNodes, []string{victim}) || !slices.Equal(sum.RejoinedNodes, []string{victim}) || sum.Degraded > 2 {
				t.Errorf("summary: lost %v, rejoined %v, %d degraded (want %s lost and rejoined, at most the 2 frames in flight degraded)",
					sum.LostNodes, sum.RejoinedNodes, sum.Degraded, victim)
			}
			frames := sum.Frames
			ref := startServer(t, path, frames, "--spin", "0.02", "--reference")
			if err := ref.wait(t); err != nil {
				t.Fatalf("reference: %v", err)
			}
			if wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, mode, "with "+victim+" lost and rejoined") < frames-2 {
				t.Errorf("the reference of %d frames wrote fewer images", frames)
			}
			if t.Failed() {
				t.Logf("the whole config (%s killed):\n%s", victim, text)
			}
		})
	}
}

// Random trees, assembling or not, their sources' pipes spread over two or
// three render nodes, one of which is killed after 6 frames and stays
// lost: the run goes on with at most the 2 frames in flight degraded, and
// every frame not named degraded matches the reference, the lost parts
// drawn by the others (an equalizer's share) or by stand-ins. make test
// runs 1; GOEQ_RANDOM_TREES=N runs N/2, from seed GOEQ_RANDOM_TREES_FROM.
// Seeds 0 to 579 pass but 278, whose frames 6 and 16 are 14 and 16 pixels
// on the silhouette (0.023-0.027%) off in a run without a loss too: a
// 9-row pixel kernel (pixel [ 0 1 1 3 ] under pixel [ 0 0 1 3 ]), as seed
// 46 of TestRandomChunkQueuesMatchTheReference. Until 2026-12-05 only
// the last two frames were compared.
func TestRandomTreesLoseANodeForGood(t *testing.T) {
	const frames = 20
	for _, seed := range randomSeeds(1, 2) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x10c7))
			path, text, victim, mode := randomSpreadTree(t, r, func() bool { return r.IntN(2) == 0 })
			sp, sum, ref := runLosingNode(t, path, frames, victim)
			if !slices.Equal(sum.LostNodes, []string{victim}) || sum.Frames != frames || sum.Degraded > 2 {
				t.Errorf("summary: lost %v, %d frames, %d degraded (want %s lost, at most the 2 in flight degraded)", sum.LostNodes, sum.Frames, sum.Degraded, victim)
			}
			wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, mode, "with "+victim+" lost")
			if t.Failed() {
				t.Logf("the whole config (%s killed):\n%s", victim, text)
			}
		})
	}
}

// randomSpreadTree draws a random tree (assembling when assembling says
// so, asked once per tree drawn) whose sources' pipes spread over two or
// three render nodes, and one of those nodes to lose: the config's path
// and text, the node, and how the config resamples.
func randomSpreadTree(t *testing.T, r *rand.Rand, assembling func() bool) (path, text, victim, mode string) {
	t.Helper()
	nodes := 0
	path, text, _ = drawRandomConfig(t, func() (string, string) {
		for {
			g, body := randomTreeOf(r, assembling())
			if g.nodeOf = spreadOverNodes(r, g); g.nodeOf != nil {
				nodes = slices.Max(g.nodeOf) + 1
				return g.config(body), ""
			}
		}
	})
	victim = fmt.Sprintf("node%d", 1+r.IntN(nodes))
	m, _, err := compound.Load(path, compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return path, text, victim, m.Configs[0].Resampling()
}

// Sort-last compounds drawn at random, as users write them for large
// data: 2 to 8 sources with random DB ranges or a DB load equalizer, the
// destination drawing a range in place or not, their pipes on one to
// three render nodes, latency 0 to 2, each compositing by a strategy
// drawn from all of them (the sources exchange bands among odd counts
// too, over nodes and within one). Each runs against its reference.
// make test runs 3; GOEQ_RANDOM_TREES=N runs N, from seed
// GOEQ_RANDOM_TREES_FROM. Seeds 0 to 299 pass. An earlier probe of 200
// with windows of 7 x 300 and 640 x 3 pixels among the sizes failed
// three of 7 pixels' width, every strategy alike, gather too: at frame 0
// the model's vertices on its plane of symmetry lie on the pixel centres
// of the middle column, where faces meet at one depth, and in 4 pixels
// the ranges' merge kept another face than the whole render's depth
// test. The 0.02% allowance is under one pixel there; such widths are
// left out.
func TestRandomSortLastCompoundsMatchTheReference(t *testing.T) {
	sizes := [][2]int{{320, 200}, {256, 240}, {400, 150}, {200, 300}, {333, 297}, {257, 241}, {640, 24}}
	strategies := []string{"radix_k", "direct_send", "binary_swap", "gather", "auto"}
	for _, seed := range randomSeeds(3, 1) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x5157))
			size := sizes[r.IntN(len(sizes))]
			g := generated{w: size[0], h: size[1], stereo: r.IntN(4) == 0, sources: 2 + r.IntN(7)}
			balanced, destDraws := r.IntN(2) == 0, r.IntN(3) == 0
			// the ranges' ends, at twentieths
			ends := []float64{0, 1}
			for _, a := range r.Perm(19)[:g.sources-1] {
				ends = append(ends, float64(a+1)/20)
			}
			slices.Sort(ends)
			var parts, inputs []string
			for i := range g.sources {
				part := ""
				if !balanced {
					part = fmt.Sprintf("range [ %g %g ]", ends[i], ends[i+1])
				}
				if i == 0 && destDraws {
					parts = append(parts, "compound { "+part+" }")
					continue
				}
				parts = append(parts, source(i, part))
				inputs = append(inputs, fmt.Sprintf(`inputframe { name "f%d" }`, i))
			}
			body := "task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]"
			if balanced {
				body += " load_equalizer { mode DB }"
			}
			body += "\n        " + strings.Join(parts, "\n        ") + "\n        " + strings.Join(inputs, " ")
			if r.IntN(2) == 0 {
				g.nodeOf = spreadOverNodes(r, g)
			}
			text := strings.Replace(g.config(body), "latency 1", fmt.Sprintf("latency %d", r.IntN(3)), 1)
			strategy := strategies[r.IntN(len(strategies))]
			path := filepath.Join(t.TempDir(), "random.eqc")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			m, _, err := compound.Load(path, compound.Options{})
			if err != nil {
				t.Fatalf("a random config does not load: %v\n%s", err, text)
			}
			t.Logf("%s among %d sources (the destination draws one: %v), on nodes %v", strategy, g.sources, destDraws, g.nodeOf)
			mode := m.Configs[0].Resampling()
			ref := corpusRun(t, path, true)
			dec := corpusRun(t, path, false, "--compositing", strategy)
			for _, img := range pngs(t, ref) {
				d, err := imagecmp.CompareFiles(filepath.Join(dec, img), filepath.Join(ref, img), exactTolerance)
				if err != nil {
					t.Fatalf("%s: %v", img, err)
				}
				if !d.Matches(mode) {
					t.Errorf("%s (%s): %s", img, imagecmp.Allowance(mode), d)
				}
			}
			if t.Failed() {
				t.Logf("the whole config:\n%s", text)
			}
		})
	}
}

// Random trees of two destinations lose their render node (every
// source) after 6 frames: each destination stands in for the sources of
// its tree, the run goes on with at most the 2 frames in flight
// degraded, and every frame not named degraded matches the reference
// (the last two alone until 2026-12-05; seeds 3000 to 3099 of both
// kinds pass so). make test runs 2 plain and 1 assembling (pairKinds);
// with GOEQ_RANDOM_TREES=N, N/8 from seed GOEQ_RANDOM_TREES_FROM. A
// crash of the node in seed 2065 of
// TestRandomTreesOfTwoDestinationsShareTheirSources found the second
// destination waiting for its stand-in's part in the first's plan;
// seeds 3000 to 3119 pass since, and assembling ones 0 to 19. The run
// is long enough that its node dies well before its end, on a fast
// machine too.
func TestRandomTreesOfTwoDestinationsSurviveTheirNodesLoss(t *testing.T) {
	const frames = 30
	for _, kind := range pairKinds {
		for _, seed := range randomSeeds(max(2/kind.thinning, 1), 8) {
			t.Run(fmt.Sprintf("%sseed-%d", kind.prefix, seed), func(t *testing.T) {
				// the trees of TestRandomTreesOfTwoDestinationsShareTheirSources
				r := rand.New(rand.NewPCG(uint64(seed), kind.stream))
				path, text, _ := drawRandomConfig(t, func() (string, string) {
					text, _ := twoTrees(r, kind.assembling)
					return text, ""
				})
				m, _, err := compound.Load(path, compound.Options{})
				if err != nil {
					t.Fatal(err)
				}
				mode := m.Configs[0].Resampling()
				defer func() {
					if t.Failed() {
						t.Logf("the whole config:\n%s", text)
					}
				}()
				sp, sum, ref := runLosingNode(t, path, frames, "node1")
				if len(sum.LostNodes) != 1 || sum.Frames != frames || sum.Degraded > 2 {
					t.Errorf("summary: lost %v, %d frames, %d degraded (at most the 2 in flight)", sum.LostNodes, sum.Frames, sum.Degraded)
				}
				wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, mode, "with node1 lost")
			})
		}
	}
}

// wholeFramesMatch compares the images of every frame in dir but the
// degraded ones with the reference's, as mode allows, and says how many
// it compared; when says what the run went through. A loss may cost the
// frames it names degraded, and no other.
func wholeFramesMatch(t *testing.T, dir, ref string, degraded []int, mode, when string) int {
	t.Helper()
	compared := 0
	for _, name := range pngs(t, ref) {
		var f int
		if _, err := fmt.Sscanf(name[strings.LastIndex(name, "-")+1:], "%06d.png", &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if slices.Contains(degraded, f) {
			continue
		}
		d, err := imagecmp.CompareFiles(filepath.Join(dir, name), filepath.Join(ref, name), exactTolerance)
		if err != nil {
			t.Fatal(err)
		}
		if compared++; !d.Matches(mode) {
			t.Errorf("%s, not named degraded, %s (%s): %s", name, when, imagecmp.Allowance(mode), d)
		}
	}
	return compared
}

// randomSeeds are the seeds a test of random trees runs: count of them,
// or with GOEQ_RANDOM_TREES=N one per of N (at least one), from seed
// GOEQ_RANDOM_TREES_FROM.
func randomSeeds(count, per int) []int {
	if n, err := strconv.Atoi(os.Getenv("GOEQ_RANDOM_TREES")); err == nil && n > 0 {
		count = max(n/per, 1)
	}
	seeds := make([]int, count)
	for i := range seeds {
		seeds[i] = firstRandomSeed() + i
	}
	return seeds
}

// firstRandomSeed is GOEQ_RANDOM_TREES_FROM, or 0: seeds already run need
// not be drawn again to try new trees.
func firstRandomSeed() int {
	n, err := strconv.Atoi(os.Getenv("GOEQ_RANDOM_TREES_FROM"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// runRandomConfig runs a config drawn at random against its reference,
// drawn again while check warns that a part of it stays empty (up to 20
// times); it says whether the comparison told frame N from N+1.
func runRandomConfig(t *testing.T, draw func() (text, about string)) bool {
	t.Helper()
	path, text, about := drawRandomConfig(t, draw)
	t.Log(about)
	distinguished := matchesReference(t, path)
	if t.Failed() {
		t.Logf("the whole config, to run again (eqserver verify):\n%s", text)
	}
	return distinguished
}

// drawRandomConfig writes a config drawn at random into a file, drawn
// again while check warns that a part of it stays empty (up to 20 times).
func drawRandomConfig(t *testing.T, draw func() (text, about string)) (path, text, about string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "random.eqc")
	for attempt := 0; ; attempt++ {
		text, about = draw()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, res, err := compound.Load(path, compound.Options{})
		if err != nil {
			t.Fatalf("a random config does not load: %v\n%s", err, text)
		}
		if attempt >= 20 || !holes(res.Warnings) {
			return path, text, about
		}
	}
}

// holes reports whether check warned that a part of a tree stays empty,
// or that a compound's anaglyph masks leave colours of it out.
func holes(warnings []configparser.Diagnostic) bool {
	for _, w := range warnings {
		if strings.Contains(w.Msg, "its pixels stay empty") || strings.Contains(w.Msg, "shows the others as they were before") {
			return true
		}
	}
	return false
}

// Random trees in a stereo view shown as an anaglyph, with stereo
// attributes (stereo_mode ANAGLYPH, and masks of any colours half of the
// time) on the destination compound or, a third of the time, on a
// compound below it. Trees whose check warns that a compound below writes
// fewer colours of an eye than the destination shows are drawn again:
// as in Equalizer, their frames lack those colours (the first 150 found
// nine such trees, 18-40 dB off the reference, and no warning said so;
// see TestCheckWarnsAboutAnaglyphMasksBelowTheDestination). Trees with
// subpixel parts are mostly drawn again: they would loosen the
// tolerance. make test runs 2; GOEQ_RANDOM_TREES=N runs N, from seed
// GOEQ_RANDOM_TREES_FROM. Seeds 0 to 199 pass.
func TestRandomAnaglyphTreesMatchTheReference(t *testing.T) {
	masks := []string{"RED", "GREEN", "BLUE", "RED GREEN", "GREEN BLUE", "RED BLUE", "RED GREEN BLUE"}
	for _, seed := range randomSeeds(2, 1) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0xa7a))
			runRandomConfig(t, func() (string, string) {
				g, body := randomTreeOf(r, r.IntN(2) == 0)
				for strings.Contains(body, "subpixel") && r.IntN(4) != 0 {
					g, body = randomTreeOf(r, r.IntN(2) == 0)
				}
				g.stereo = true
				attr := "attributes { stereo_mode ANAGLYPH"
				if r.IntN(2) == 0 {
					attr += fmt.Sprintf(" stereo_anaglyph_left_mask [ %s ] stereo_anaglyph_right_mask [ %s ]", masks[r.IntN(len(masks))], masks[r.IntN(len(masks))])
				}
				attr += " }"
				if parts := strings.Split(body, "compound {"); len(parts) > 2 && r.IntN(3) == 0 {
					// on a compound below the destination
					i := 1 + r.IntN(len(parts)-1)
					parts[i] = " " + attr + parts[i]
					body = strings.Join(parts, "compound {")
				} else {
					body = attr + " " + body
				}
				return g.config(body), ""
			})
		})
	}
}

// randomTree draws a tree and the frame it runs in.
func randomTree(r *rand.Rand) (generated, string) {
	return randomTreeOf(r, false)
}

// randomTreeOf draws a tree and the frame it runs in; where assembling,
// a third of its inner compounds assemble their parts on a channel of
// their own (a new one, or their first source's) and send the result up
// in a frame, as hierarchical compositing does. Without it, it draws what
// it drew before assembling trees were added (the seeds run stay valid).
func randomTreeOf(r *rand.Rand, assembling bool) (generated, string) {
	sizes := [][2]int{{320, 200}, {256, 240}, {400, 150}, {200, 300}, {333, 297}, {257, 241}}
	size := sizes[r.IntN(len(sizes))]
	g := generated{w: size[0], h: size[1], stereo: r.IntN(4) == 0}
	destDraws := false
	assembled := 0
	// leaf is a part's compound and the frame it sends, if any
	leaf := func(part string) (string, []string) {
		if !destDraws && r.IntN(8) == 0 {
			// the destination draws a part: in place, or (as Equalizer's
			// 3-window.PIXEL) sending it to itself in a frame
			destDraws = true
			if r.IntN(2) == 0 {
				return "compound { " + part + ` outputframe { name "fd" } }`, []string{"fd"}
			}
			return "compound { " + part + " }", nil
		}
		g.sources++
		return source(g.sources-1, part), []string{fmt.Sprintf("f%d", g.sources-1)}
	}
	// cuts splits 0..1 into n parts at tenths
	cuts := func(n int) []float64 {
		at := r.Perm(9)[:n-1]
		xs := []float64{0, 1}
		for _, a := range at {
			xs = append(xs, float64(a+1)/10)
		}
		slices.Sort(xs)
		return xs
	}
	// node is a subtree's compound and the frames it sends up
	var node func(depth int, part string) (string, []string)
	node = func(depth int, part string) (string, []string) {
		left := 8 - g.sources
		if depth == 0 || left < 2 || r.IntN(10) < 3 {
			return leaf(part)
		}
		n := 2 + r.IntN(min(2, left-1))
		var kids, frames []string
		kid := func(text string, sent []string) {
			kids = append(kids, text)
			frames = append(frames, sent...)
		}
		first := g.sources
		extra := ""
		switch kind := r.IntN(10); kind {
		case 0, 1: // across, or in rows
			xs := cuts(n)
			for i := range n {
				vp := fmt.Sprintf("viewport [ %g 0 %g 1 ]", xs[i], xs[i+1]-xs[i])
				if kind == 1 {
					vp = fmt.Sprintf("viewport [ 0 %g 1 %g ]", xs[i], xs[i+1]-xs[i])
				}
				kid(node(depth-1, vp))
			}
		case 2:
			xs := cuts(n)
			for i := range n {
				kid(node(depth-1, fmt.Sprintf("range [ %g %g ]", xs[i], xs[i+1])))
			}
		case 3:
			across := r.IntN(2) == 0
			for i := range n {
				px := fmt.Sprintf("pixel [ 0 %d 1 %d ]", i, n)
				if across {
					px = fmt.Sprintf("pixel [ %d 0 %d 1 ]", i, n)
				}
				kid(node(depth-1, px))
			}
		case 4, 5:
			extra = "load_equalizer { mode " + []string{"2D", "VERTICAL", "HORIZONTAL", "DB"}[r.IntN(4)] + " }"
			for range n {
				kid(node(depth-1, ""))
			}
		case 6:
			for i := range n {
				kid(node(depth-1, fmt.Sprintf("period %d phase %d", n, i)))
			}
		case 7:
			extra = fmt.Sprintf("tile_equalizer { size [ %d %d ] }", []int{16, 33, 64}[r.IntN(3)], []int{8, 31, 64}[r.IntN(3)])
			for range n {
				kid(leaf(""))
			}
		case 9:
			for i := range n {
				kid(node(depth-1, fmt.Sprintf("subpixel [ %d %d ]", i, n)))
			}
		case 8:
			kid(node(depth-1, "eye [ LEFT ]"))
			kid(node(depth-1, "eye [ RIGHT ]"))
			if r.IntN(2) == 0 {
				kid(node(depth-1, "eye [ CYCLOP ]"))
			}
		}
		if assembling && len(frames) > 0 && r.IntN(3) == 0 {
			// assemble the parts here, on a channel of its own or on its
			// first source's, and send them up in one frame
			ch := first
			if first == g.sources || (g.sources < 8 && r.IntN(2) == 0) {
				ch = g.sources
				g.sources++
			}
			inputs := make([]string, len(frames))
			for i, f := range frames {
				inputs[i] = fmt.Sprintf(`inputframe { name %q }`, f)
			}
			name := fmt.Sprintf("a%d", assembled)
			assembled++
			return fmt.Sprintf("compound { channel \"src%d\" %s %s\n            %s\n            %s outputframe { name %q } }",
				ch, part, extra, strings.Join(kids, "\n            "), strings.Join(inputs, " "), name), []string{name}
		}
		return fmt.Sprintf("compound { %s %s\n            %s }", part, extra, strings.Join(kids, "\n            ")), frames
	}
	tree, frames := node(3, "")
	if g.sources == 0 {
		return randomTreeOf(r, assembling) // the destination draws it all: nothing to compare
	}
	if r.IntN(4) == 0 {
		// the sources in the destination's window, over its picture
		parts := [][4]float64{{0, 0, 1, 1}, {0, 0, 1, .5}, {0, .5, 1, .5}, {0, 0, .5, 1}, {.25, .25, .5, .5}}
		for range g.sources {
			g.inDestination = append(g.inDestination, parts[r.IntN(len(parts))])
		}
	}
	// the destination's own frame last, as the trees drew it before
	// assembling ones
	if i := slices.Index(frames, "fd"); i >= 0 {
		frames = append(slices.Delete(frames, i, i+1), "fd")
	}
	inputs := make([]string, len(frames))
	for i, f := range frames {
		inputs[i] = fmt.Sprintf(`inputframe { name %q }`, f)
	}
	return g, "task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]\n        " + tree + "\n        " + strings.Join(inputs, " ")
}

// Two destinations side by side on one canvas, each with a tree drawn at
// random over the same sources (every source renders for both), their
// windows apart or one window's two channels. Each image runs against its
// reference. make test runs 6 plain and 2 assembling (pairKinds);
// GOEQ_RANDOM_TREES=N runs N/2, from seed GOEQ_RANDOM_TREES_FROM. The
// first four hundred found a part of a DB split whose draws were all for
// eyes its parent left out (eyes-under-a-cyclop-part in
// TestGeneratedCompoundTreesMatchTheReference); seeds 1000 to 1199,
// subpixel decompositions in rows of pixel compounds of two sizes
// averaged as one (subpixels-in-pixel-rows-of-two-sizes there, seed
// 1022); both pass since. Assembling ones, 0 to 99, a channel's part for
// an assembly below the one it holds left in that picture
// (assembler-draws-below-another there, seed 90); 0 to 299 pass since.
func TestRandomTreesOfTwoDestinationsShareTheirSources(t *testing.T) {
	for _, kind := range pairKinds {
		for _, seed := range randomSeeds(max(6/kind.thinning, 1), 2) {
			t.Run(fmt.Sprintf("%sseed-%d", kind.prefix, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(seed), kind.stream))
				runRandomConfig(t, func() (string, string) {
					text, oneWindow := twoTrees(r, kind.assembling)
					return text, fmt.Sprintf("the destinations in one window: %v\n%s", oneWindow, text)
				})
			})
		}
	}
}

// pairKinds are the trees the tests of two destinations draw: plain
// ones, and assembling ones (randomTreeOf) from a stream of their own.
// By default a kind runs a test's count divided by its thinning (at least
// one), to keep make test short; GOEQ_RANDOM_TREES runs as many of each.
var pairKinds = []struct {
	prefix     string
	assembling bool
	stream     uint64
	thinning   int
}{{"", false, 0x7770, 1}, {"assembling-", true, 0x7771, 3}}

// twoTrees is a config of two destinations, the canvas' halves, with a
// random tree each over shared sources (assembling ones: randomTreeOf).
// A source that draws one destination's whole frame and, for another,
// part of an assembly it makes under a zoom, at another zoom or in tiles
// at full size: the assembly's clear covers its own picture alone, and
// the part, spared a clear of its own, drew over the first destination's
// picture, whose depth hid it (pairs of random trees with zoomed sources,
// seeds 38 and 136: 14-26 dB; reduced, 9-13 dB). A compound drawn off its
// home's picture now starts from the background where it starts without
// a clear.
func TestPartsOfASharedSourceUnderAZoomedAssembly(t *testing.T) {
	t.Setenv("GOEQ_PROBE_RENDERER", "synthetic")
	for _, c := range []struct{ name, tree string }{
		{"tiles at full size", `compound { zoom [ 0.5 0.5 ]
            compound { channel "src1" tile_equalizer { size [ 16 31 ] }
                compound { channel "src1" outputframe { name "t1" } }
                compound { channel "src2" outputframe { name "t2" } }
                inputframe { name "t1" } inputframe { name "t2" } outputframe { name "parts" } } }`},
		{"a range zoomed back up", `compound { channel "src1" zoom [ 0.5 0.5 ] buffer [ COLOR DEPTH ]
            compound { channel "src1" zoom [ 2 2 ] range [ 0 0.5 ] outputframe { name "r1" } }
            compound { channel "src2" range [ 0.5 1 ] outputframe { name "r2" } }
            inputframe { name "r1" } inputframe { name "r2" } outputframe { name "parts" } }`},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "-"), func(t *testing.T) {
			window := func(name string) string {
				return fmt.Sprintf(`window { name %q viewport [ 0 0 333 297 ] attributes { hint_drawable FBO } channel { name %q } }`, name, name)
			}
			text := `config {
    latency 1
    appNode { pipe { ` + window("dest") + " " + window("dest2") + ` } }
    node { host "localhost" pipe { ` + window("src1") + ` } pipe { ` + window("src2") + ` } }
    observer { }
    layout { name "L" view { mode MONO observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" viewport [ 0 0 0.5 1 ] } segment { channel "dest2" viewport [ 0.5 0 0.5 1 ] } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src1" outputframe { name "whole" } }
        inputframe { name "whole" }
    }
    compound { channel ( segment 1 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        ` + c.tree + `
        inputframe { name "parts" }
    }
}
`
			path := filepath.Join(t.TempDir(), "shared.eqc")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			matchesReference(t, path)
			if t.Failed() {
				t.Logf("the whole config:\n%s", text)
			}
		})
	}
}

func twoTrees(r *rand.Rand, assembling bool) (string, bool) {
	g1, left := randomTreeOf(r, assembling)
	g2, right := randomTreeOf(r, assembling)
	// its frames
	right = strings.ReplaceAll(strings.ReplaceAll(right, `name "f`, `name "g`), `name "a`, `name "b`)
	window := func(name string, w int, channels string) string {
		return fmt.Sprintf(`window { name %q viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } %s }`, name, w, g1.h, channels)
	}
	var pipes []string
	for i := range max(g1.sources, g2.sources) {
		name := fmt.Sprintf("src%d", i)
		pipes = append(pipes, "pipe { "+window(name, g1.w, fmt.Sprintf("channel { name %q }", name))+" }")
	}
	oneWindow := r.IntN(3) == 0
	dests := window("dest", g1.w, `channel { name "dest" }`) + " " + window("dest2", g1.w, `channel { name "dest2" }`)
	if oneWindow {
		dests = window("dests", 2*g1.w, `channel { name "dest" viewport [ 0 0 0.5 1 ] } channel { name "dest2" viewport [ 0.5 0 0.5 1 ] }`)
	}
	return fmt.Sprintf(`config {
    latency 1
    appNode { pipe { %s } }
    node { host "localhost" %s }
    observer { }
    layout { name "L" view { mode %s observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" viewport [ 0 0 0.5 1 ] } segment { channel "dest2" viewport [ 0.5 0 0.5 1 ] } }
    compound { channel ( segment 0 view 0 )
        %s
    }
    compound { channel ( segment 1 view 0 )
        %s
    }
}
`, dests, strings.Join(pipes, " "), g1.mode(), left, right), oneWindow
}
