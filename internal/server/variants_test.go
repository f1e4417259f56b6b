package server

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/imagecmp"
)

// variant is a config generated from sizes, a source count, a
// decomposition and a view mode that no example or corpus file has.
type variant struct {
	w, h, sources int
	mode          string // 2d, 2d-lb, db, db-lb, pixel-x, pixel-y, subpixel, tile
	stereo        bool
	samples       int // planes_samples of every window; 0: none
}

func (v variant) String() string {
	eyes := "mono"
	if v.stereo {
		eyes = "stereo"
	}
	name := fmt.Sprintf("%dx%d-%d-%s-%s", v.w, v.h, v.sources, v.mode, eyes)
	if v.samples > 1 {
		name += fmt.Sprintf("-%dsamples", v.samples)
	}
	return name
}

// config writes the variant: a destination that clears and assembles, on
// the application node, and its sources, each a pipe of one render node.
func (v variant) config() string {
	var children []string
	for i := range v.sources {
		n := float64(v.sources)
		switch v.mode {
		case "2d":
			children = append(children, source(i, fmt.Sprintf("viewport [ %g 0 %g 1 ]", float64(i)/n, 1/n)))
		case "db":
			children = append(children, source(i, fmt.Sprintf("range [ %g %g ]", float64(i)/n, float64(i+1)/n)))
		case "pixel-x":
			children = append(children, source(i, fmt.Sprintf("pixel [ %d 0 %d 1 ]", i, v.sources)))
		case "pixel-y":
			children = append(children, source(i, fmt.Sprintf("pixel [ 0 %d 1 %d ]", i, v.sources)))
		case "subpixel":
			children = append(children, source(i, fmt.Sprintf("subpixel [ %d %d ]", i, v.sources)))
		default:
			children = append(children, source(i, ""))
		}
	}
	extra := []string{"task [ CLEAR ASSEMBLE ]"}
	switch v.mode {
	case "2d-lb":
		extra = append(extra, "load_equalizer { }")
	case "db-lb":
		extra = append(extra, "load_equalizer { mode DB }")
	case "tile":
		extra = append(extra, "tile_equalizer { size [ 32 16 ] }")
	}
	if strings.HasPrefix(v.mode, "db") {
		extra = append(extra, "buffer [ COLOR DEPTH ]")
	}
	return generated{w: v.w, h: v.h, sources: v.sources, stereo: v.stereo, samples: v.samples}.config(
		strings.Join(extra, " ") + "\n        " + strings.Join(children, "\n        ") + "\n        " + inputFrames(v.sources))
}

// generated is the frame of a generated config: a destination window on
// the application node and sources src0, src1, ... on one render node,
// each on a pipe of its own or all channels of one window.
type generated struct {
	w, h, sources int
	stereo        bool
	samples       int  // planes_samples of every window; 0: none
	oneWindow     bool // the sources are channels side by side in one window
	// inDestination puts the sources in the destination's window instead,
	// each a channel over the part of it given (x, y, w, h), where they
	// render over the picture it shows
	inDestination [][4]float64
	// nodeOf is the render node of each source's pipe (0 to n-1, named
	// node1 to noden when launched); nil puts them all on one
	nodeOf []int
}

// config writes it with body inside the destination's compound.
func (g generated) config(body string) string {
	window := func(name string, w int, channels string) string {
		return fmt.Sprintf(`window { name %q viewport [ 0 0 %d %d ] attributes { hint_drawable FBO planes_samples %d } %s }`, name, w, g.h, g.samples, channels)
	}
	var pipes []string
	dest := `channel { name "dest" }`
	if g.inDestination != nil {
		for i, vp := range g.inDestination {
			dest += fmt.Sprintf(` channel { name "src%d" viewport [ %g %g %g %g ] }`, i, vp[0], vp[1], vp[2], vp[3])
		}
	} else if g.oneWindow {
		var channels []string
		for i := range g.sources {
			channels = append(channels, fmt.Sprintf(`channel { name "src%d" viewport [ %g 0 %g 1 ] }`, i, float64(i)/float64(g.sources), 1/float64(g.sources)))
		}
		pipes = append(pipes, "pipe { "+window("sources", g.w*g.sources, strings.Join(channels, " "))+" }")
	} else {
		for i := range g.sources {
			name := fmt.Sprintf("src%d", i)
			pipes = append(pipes, "pipe { "+window(name, g.w, fmt.Sprintf("channel { name %q }", name))+" }")
		}
	}
	renderNode := ""
	if g.nodeOf != nil && len(pipes) == g.sources {
		byNode := map[int][]string{}
		for i, p := range pipes {
			byNode[g.nodeOf[i]] = append(byNode[g.nodeOf[i]], p)
		}
		var nodes []string
		for n := range slices.Max(g.nodeOf) + 1 {
			nodes = append(nodes, `node { host "localhost" `+strings.Join(byNode[n], " ")+" }")
		}
		renderNode = strings.Join(nodes, "\n    ")
	} else if len(pipes) > 0 {
		renderNode = `node { host "localhost" ` + strings.Join(pipes, " ") + " }"
	}
	return fmt.Sprintf(`config {
    latency 1
    appNode { pipe { %s } }
    %s
    observer { }
    layout { name "L" view { mode %s observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 )
        %s
    }
}
`, window("dest", g.w, dest), renderNode, g.mode(), body)
}

// mode is its view's mode.
func (g generated) mode() string {
	if g.stereo {
		return "STEREO"
	}
	return "MONO"
}

// source is source i's compound, drawing part and sending frame fi.
func source(i int, part string) string {
	return fmt.Sprintf(`compound { channel "src%d" %s outputframe { name "f%d" } }`, i, part, i)
}

// inputFrames takes frames f0 to fn-1.
func inputFrames(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf(`inputframe { name "f%d" }`, i))
	}
	return strings.Join(s, " ")
}

// Configs that no example or corpus file has, generated as a user would
// write them (odd and extreme sizes and aspects, other source counts, each
// decomposition, mono and stereo), run and match their reference. One
// such variant found that a tile equalizer's right eye drew nothing. (An
// odd width puts a column of pixel centres on the model's plane of
// symmetry, where at frame 0 vertices lie exactly on sample points and a
// pixel decomposition's projection, rounded otherwise, may cover them
// differently: the widths here are even where the decomposition is.)
func TestGeneratedVariantsMatchTheReference(t *testing.T) {
	variants := []variant{
		{641, 359, 3, "2d", false, 0},
		{97, 61, 5, "2d-lb", true, 0},
		{1000, 7, 2, "db", false, 0},
		{61, 97, 3, "db-lb", true, 0},
		{320, 240, 3, "pixel-x", false, 0},
		{8, 1000, 3, "pixel-y", false, 0},
		{320, 240, 5, "pixel-x", true, 0},
		// more samples than one average pass of the GPU path takes
		{96, 60, 10, "subpixel", false, 0},
		{641, 359, 3, "subpixel", true, 0},
		{97, 61, 3, "tile", true, 0},
		{333, 111, 2, "tile", false, 0},
		// thousands of tiles a frame: uploads and compositing take turns
		// under llvmpipe, which crashed otherwise (Pipe.lockShared)
		{1920, 1080, 1, "tile", false, 0},
		// multisampled: 2D parts antialias as the whole does; DB parts
		// render single-sampled, as does the reference of their tree
		{641, 359, 3, "2d-lb", true, 4},
		{320, 240, 2, "db-lb", false, 4},
	}
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), v.String()+".eqc")
			if err := os.WriteFile(path, []byte(v.config()), 0o644); err != nil {
				t.Fatal(err)
			}
			if !matchesReference(t, path) {
				t.Errorf("the comparison did not tell a frame from the next one's reference")
			}
		})
	}
}

// Compound trees no example or corpus file has at these sizes: a
// decomposition inside another (a 2D split under a pixel compound left
// every other column of its odd-placed part empty; tiles there drew every
// pixel of theirs into a render of every other one), parts for the stereo
// eyes alone in a mono view, a source that merges a neighbour's frame
// before sending its own (a compositing tree), a destination that draws
// a part itself, eye and time multiplexing, and sources that are channels
// of one window. Each matches its reference.
func TestGeneratedCompoundTreesMatchTheReference(t *testing.T) {
	// antialiased parts whose frames carry depth: a multisampled depth
	// was resolved by a blit, which keeps one sample, and where that
	// sample missed an edge the destination's depth merge kept its clear
	// over the edge's antialiased colour (a single source at 4 samples:
	// 0.3% of the pixels, up to 88 levels off); the nearest sample now
	// (gpu.Compositor.NearestDepth). llvmpipe makes 2 samples 4.
	antialiased2DWithDepth := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        ` + source(0, "viewport [ 0 0 0.4 1 ]") + source(1, "viewport [ 0.4 0 0.6 0.5 ]") + source(2, "viewport [ 0.4 0.5 0.6 0.5 ]") + `
        ` + inputFrames(3)
	antialiasedTilesWithDepth := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { tile_equalizer { size [ 33 64 ] } ` + source(0, "") + source(1, "") + ` }
        ` + inputFrames(2)
	dbIn2D := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 0.5 1 ] ` + source(0, "range [ 0 0.5 ]") + source(1, "range [ 0.5 1 ]") + ` }
        compound { viewport [ 0.5 0 0.5 1 ] ` + source(2, "range [ 0 0.5 ]") + source(3, "range [ 0.5 1 ]") + ` }
        ` + inputFrames(4)
	balanced2DInDB := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { range [ 0 0.5 ] load_equalizer { mode 2D } ` + source(0, "") + source(1, "") + ` }
        compound { range [ 0.5 1 ] load_equalizer { mode 2D } ` + source(2, "") + source(3, "") + ` }
        ` + inputFrames(4)
	mergingSources := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" buffer [ COLOR DEPTH ]
            compound { range [ 0 0.25 ] }
            ` + source(1, "range [ 0.25 0.5 ]") + `
            inputframe { name "f1" } outputframe { name "f01" } }
        compound { channel "src2" buffer [ COLOR DEPTH ]
            compound { range [ 0.5 0.75 ] }
            ` + source(3, "range [ 0.75 1 ]") + `
            inputframe { name "f3" } outputframe { name "f23" } }
        inputframe { name "f01" } inputframe { name "f23" }`
	dbInPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 2 1 ] ` + source(0, "range [ 0 0.5 ]") + source(1, "range [ 0.5 1 ]") + ` }
        compound { pixel [ 1 0 2 1 ] ` + source(2, "range [ 0 0.5 ]") + source(3, "range [ 0.5 1 ]") + ` }
        ` + inputFrames(4)
	// a 2D split under a pixel compound, its second part starting at an
	// odd column (59 of 118) and its second row at an odd row
	twoDInPixels := `task [ CLEAR ASSEMBLE ]
        ` + source(0, "pixel [ 0 0 2 1 ]") + `
        compound { pixel [ 1 0 2 1 ] ` + source(1, "viewport [ 0 0 0.5 1 ]") + source(2, "viewport [ 0.5 0 0.5 0.5 ]") + source(3, "viewport [ 0.5 0.5 0.5 0.5 ]") + ` }
        ` + inputFrames(4)
	// tiles of odd sizes under a pixel compound (each tile drew its
	// share's every pixel into a render of every other one)
	tilesInPixels := `task [ CLEAR ASSEMBLE ]
        ` + source(0, "pixel [ 0 0 2 1 ]") + `
        compound { pixel [ 1 0 2 1 ] tile_equalizer { size [ 9 55 ] } ` + source(1, "") + source(2, "") + ` }
        ` + inputFrames(3)
	// two subpixel decompositions, each a part of a balanced 2D split
	// (all samples were averaged into the first part's place)
	subpixelParts := `task [ CLEAR ASSEMBLE ] load_equalizer { mode 2D }
        compound { ` + source(0, "subpixel [ 0 2 ]") + source(1, "subpixel [ 1 2 ]") + ` }
        compound { ` + source(2, "subpixel [ 0 2 ]") + source(3, "subpixel [ 1 2 ]") + ` }
        ` + source(4, "") + `
        ` + inputFrames(5)
	// subpixel samples made of several frames: each sample's frames are
	// composited before the samples are averaged (every frame was
	// averaged as a sample of its own)
	dbInSubpixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { subpixel [ 0 2 ] ` + source(0, "range [ 0 0.5 ]") + source(1, "range [ 0.5 1 ]") + ` }
        compound { subpixel [ 1 2 ] ` + source(2, "range [ 0 0.5 ]") + source(3, "range [ 0.5 1 ]") + ` }
        ` + inputFrames(4)
	subpixelsInDB := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { range [ 0 0.3 ] ` + source(0, "subpixel [ 0 3 ]") + source(1, "subpixel [ 1 3 ]") + source(2, "subpixel [ 2 3 ]") + ` }
        ` + source(3, "range [ 0.3 1 ]") + `
        ` + inputFrames(4)
	dbInSubpixelsOfA2DPart := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        ` + source(0, "viewport [ 0 0 1 0.4 ]") + `
        compound { viewport [ 0 0.4 1 0.6 ]
            compound { subpixel [ 0 2 ] ` + source(1, "range [ 0 0.5 ]") + source(2, "range [ 0.5 1 ]") + ` }
            compound { subpixel [ 1 2 ] ` + source(3, "range [ 0 0.5 ]") + source(4, "range [ 0.5 1 ]") + ` } }
        ` + inputFrames(5)
	// zoomed parts of a pixel or subpixel decomposition: the pixel
	// sources drew the bottom left quarter of the view, placed unscaled
	// (the rest empty), and the subpixel samples averaged into a quarter
	zoomedPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 0.6 1 ] zoom [ 0.5 0.5 ] ` + source(0, "pixel [ 0 0 2 1 ]") + source(1, "pixel [ 1 0 2 1 ]") + ` }
        ` + source(2, "viewport [ 0.6 0 0.4 1 ]") + `
        ` + inputFrames(3)
	zoomedColourPixels := `task [ CLEAR ASSEMBLE ]
        compound { zoom [ 0.5 0.5 ] ` + source(0, "pixel [ 0 0 1 3 ]") + source(1, "pixel [ 0 1 1 3 ]") + source(2, "pixel [ 0 2 1 3 ]") + ` }
        ` + inputFrames(3)
	zoomedSubpixels := `task [ CLEAR ASSEMBLE ]
        compound { viewport [ 0 0 0.5 1 ] zoom [ 0.5 0.5 ] ` + source(0, "subpixel [ 0 2 ]") + source(1, "subpixel [ 1 2 ]") + ` }
        ` + source(2, "viewport [ 0.5 0 0.5 1 ]") + `
        ` + inputFrames(3)
	// a subpixel compound nested in a sample of another: its samples are
	// finer samples of that one (each was averaged as one of the whole)
	nestedSubpixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { subpixel [ 0 2 ] ` + source(0, "viewport [ 0 0 1 0.6 ]") + `
            compound { viewport [ 0 0.6 1 0.4 ] ` + source(1, "subpixel [ 0 3 ]") + source(2, "subpixel [ 1 3 ]") + source(3, "subpixel [ 2 3 ]") + ` } }
        ` + source(4, "subpixel [ 1 2 ]") + `
        ` + inputFrames(5)
	// parts of a pixel, subpixel or zoom decomposition that the
	// destination draws itself: drawn in place, each stayed a render of
	// fewer pixels at its share's corner (as in Equalizer)
	destinationDrawsPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 3 1 ] }
        ` + source(0, "pixel [ 1 0 3 1 ]") + source(1, "pixel [ 2 0 3 1 ]") + `
        ` + inputFrames(2)
	destinationDrawsASample := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { subpixel [ 0 2 ] range [ 0 0.5 ] }
        ` + source(0, "subpixel [ 0 2 ] range [ 0.5 1 ]") + source(1, "subpixel [ 1 2 ]") + `
        ` + inputFrames(2)
	destinationDrawsZoomed := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 0.5 1 ] zoom [ 0.5 0.5 ] }
        ` + source(0, "viewport [ 0.5 0 0.5 1 ]") + `
        ` + inputFrames(1)
	// the destination's own part read back into a frame and assembled
	// with the others, as Equalizer's 3-window.PIXEL writes it: drawn at
	// the corner and smaller (or shifted), that draw stayed in the
	// picture and won the depth test over the parts where nearer
	sent := func(part, sources string, n int) string {
		return `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { ` + part + ` outputframe { name "fd" } }
        ` + sources + `
        ` + inputFrames(n) + ` inputframe { name "fd" }`
	}
	destinationSendsPixels := sent("pixel [ 0 0 2 1 ]", source(0, "pixel [ 1 0 2 1 ]"), 1)
	destinationSendsASample := sent("subpixel [ 0 2 ]", source(0, "subpixel [ 1 2 ]"), 1)
	destinationSendsARange := sent("range [ 0 0.4 ]", source(0, "range [ 0.4 0.7 ]")+source(1, "range [ 0.7 1 ]"), 2)
	destinationSendsZoomed := sent("viewport [ 0 0 0.5 1 ] zoom [ 0.5 0.5 ]", source(0, "viewport [ 0.5 0 0.5 1 ]"), 1)
	// a source on the destination's pixels is the destination's channel,
	// and keeps its clear: that cleared its region of the destination,
	// where the destination had drawn another range in place
	sourceOnTheDestinationsPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { range [ 0 0.5 ] }
        ` + source(0, "viewport [ 0 0 1 0.5 ] range [ 0.5 1 ]") + source(1, "viewport [ 0 0.5 1 0.5 ] range [ 0.5 1 ]") + `
        ` + inputFrames(2)
	// a part of a DB split whose draws are all for eyes its parent leaves
	// out never draws: its range was missing from every frame
	eyesUnderACyclopPart := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { eye [ CYCLOP ] ` + source(0, "range [ 0 0.9 ]") + `
            compound { range [ 0.9 1 ] ` + source(1, "eye [ LEFT ]") + source(2, "eye [ RIGHT ]") + ` } }
        ` + inputFrames(3)
	// two compounds of the destination's channel pull tiles of one queue
	// (one sends them to itself, the other draws in place, aside under
	// the subpixel part): each took the other's grants and waited on
	destinationPullsTilesTwice := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { subpixel [ 0 2 ] tile_equalizer { size [ 64 31 ] }
            compound { outputframe { name "fd" } } compound { } }
        ` + source(0, "subpixel [ 1 2 ]") + `
        ` + inputFrames(1) + ` inputframe { name "fd" }`
	destinationPullsTiles := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 2 1 ] tile_equalizer { size [ 32 16 ] }
            compound { outputframe { name "fd" } } ` + source(0, "") + ` }
        ` + source(1, "pixel [ 1 0 2 1 ]") + `
        ` + inputFrames(2) + ` inputframe { name "fd" }`
	// subpixel decompositions in the rows of a pixel compound, one in a
	// part of a balanced split of its row (whose rows count from the
	// part's corner): they were taken for one decomposition and each
	// row's samples averaged with the other's
	subpixelsInPixelRows := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 1 3 ] load_equalizer { mode HORIZONTAL } ` + source(0, "") + `
            compound { ` + source(1, "subpixel [ 0 2 ]") + source(2, "subpixel [ 1 2 ]") + ` } }
        compound { pixel [ 0 1 1 3 ] ` + source(3, "subpixel [ 0 3 ]") + source(4, "subpixel [ 1 3 ]") + source(5, "subpixel [ 2 3 ]") + ` }
        ` + source(6, "pixel [ 0 2 1 3 ]") + `
        ` + inputFrames(7)
	// subpixel decompositions in rows of pixel compounds of two sizes,
	// rows 3k and rows 6k+1, with 3 and 2 samples: they were taken for
	// one decomposition, and each row averaged with the other's samples
	// as well as its own
	subpixelsInPixelRowsOfTwoSizes := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 1 3 ] ` + source(0, "subpixel [ 0 3 ]") + source(1, "subpixel [ 1 3 ]") + source(2, "subpixel [ 2 3 ]") + ` }
        compound { pixel [ 0 1 1 3 ]
            compound { pixel [ 0 0 1 2 ] ` + source(3, "subpixel [ 0 2 ]") + source(4, "subpixel [ 1 2 ]") + ` }
            ` + source(5, "pixel [ 0 1 1 2 ]") + ` }
        ` + source(6, "pixel [ 0 2 1 3 ]") + `
        ` + inputFrames(7)
	// subpixel decompositions of two sizes in two ranges of a DB split:
	// the 5 samples were averaged as one decomposition's, each with one
	// range alone, so each range weighed 2 or 3 fifths
	subpixelsOfTwoSizesInDB := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { range [ 0 0.5 ] ` + source(0, "subpixel [ 0 2 ]") + source(1, "subpixel [ 1 2 ]") + ` }
        compound { range [ 0.5 1 ] ` + source(2, "subpixel [ 0 3 ]") + source(3, "subpixel [ 1 3 ]") + source(4, "subpixel [ 2 3 ]") + ` }
        ` + inputFrames(5)
	balanced2DInSubpixels := `task [ CLEAR ASSEMBLE ]
        compound { subpixel [ 0 2 ] load_equalizer { mode 2D } ` + source(0, "") + source(1, "") + source(2, "") + ` }
        compound { subpixel [ 1 2 ] ` + source(3, "") + ` }
        ` + inputFrames(4)
	// a mono view of trees with parts for the stereo eyes alone: a time
	// multiplex whose one phase is an eye decomposition, a balanced 2D
	// split with such a child and a DB split with such a range (their
	// frames, and the parts, were left empty)
	eyePhase := `task [ CLEAR ASSEMBLE ]
        compound { period 3 phase 0 ` + source(0, "eye [ LEFT ]") + source(1, "eye [ RIGHT ]") + ` }
        ` + source(2, "period 3 phase 1") + source(3, "period 3 phase 2") + `
        ` + inputFrames(4)
	eyePartOfBalanced := `task [ CLEAR ASSEMBLE ] load_equalizer { mode 2D }
        ` + source(0, "") + `
        compound { ` + source(1, "eye [ LEFT ]") + source(2, "eye [ RIGHT ]") + ` }
        ` + source(3, "") + `
        ` + inputFrames(4)
	eyePartOfDB := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        ` + source(0, "range [ 0 0.4 ]") + `
        compound { range [ 0.4 0.8 ] ` + source(1, "eye [ LEFT ]") + source(2, "eye [ RIGHT ]") + ` }
        ` + source(3, "range [ 0.8 1 ]") + `
        ` + inputFrames(4)
	// a cyclop part under a compound of a stereo eye, in a 2D part of a
	// mono view: it never draws, as in Equalizer, so the part has nothing
	// for the view's eye and its destination draws it (it was taken for
	// a part that draws, and stayed empty)
	cyclopUnderAnEye := `task [ CLEAR ASSEMBLE ]
        compound { viewport [ 0 0 0.5 1 ] compound { eye [ LEFT ] ` + source(0, "eye [ CYCLOP ]") + source(1, "eye [ LEFT ]") + ` } }
        ` + source(2, "viewport [ 0.5 0 0.5 1 ]") + `
        ` + inputFrames(3)
	// an eye under a compound of another eye: not drawn (the
	// destination waited for ever for its frame)
	eyeUnderOtherEye := `task [ CLEAR ASSEMBLE ]
        compound { eye [ LEFT ] ` + source(0, "eye [ LEFT ]") + source(1, "eye [ RIGHT ]") + ` }
        ` + source(2, "eye [ RIGHT ]") + `
        ` + inputFrames(3)
	eyes := `task [ CLEAR ASSEMBLE ]
        compound { eye [ LEFT ] ` + source(0, "viewport [ 0 0 0.5 1 ]") + source(1, "viewport [ 0.5 0 0.5 1 ]") + ` }
        compound { eye [ RIGHT ] ` + source(2, "viewport [ 0 0 0.5 1 ]") + source(3, "viewport [ 0.5 0 0.5 1 ]") + ` }
        ` + inputFrames(4)
	alternating := `task [ CLEAR ASSEMBLE ]
        ` + source(0, "period 2 phase 0") + source(1, "period 2 phase 1") + `
        ` + inputFrames(2)
	destinationDraws := `buffer [ COLOR DEPTH ] compound { range [ 0 0.3 ] }
        ` + source(0, "range [ 0.3 0.6 ]") + source(1, "range [ 0.6 1 ]") + `
        ` + inputFrames(2)
	balancedDBIn2D := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ] load_equalizer { mode 2D }
        compound { load_equalizer { mode DB } ` + source(0, "") + source(1, "") + ` }
        compound { load_equalizer { mode DB } ` + source(2, "") + source(3, "") + ` }
        ` + inputFrames(4)
	// tiles taken by zoomed sources, which draw them at full size: the
	// sources cleared their zoomed region alone, and a stereo pair's
	// second eye drew its tiles outside it over the first eye's (zoom
	// on random trees, seed 40)
	zoomedTiles := `task [ CLEAR ASSEMBLE ]
        compound { tile_equalizer { size [ 64 64 ] } ` + source(0, "zoom [ 0.5 0.5 ]") + source(1, "zoom [ 2 1 ]") + ` }
        ` + inputFrames(2)
	// compounds assembling their parts on a source's channel and sending
	// the result up (hierarchical compositing; random assembling trees,
	// seeds 0 to 39): the assembly's channel drawing a pixel part off its
	// place, sent to itself or drawn in place, left that render in its
	// picture; a part drawn in place there was drawn at the channel's
	// corner; an assembly under a pixel compound placed its parts by the
	// destination's columns, off its region (and a part of it assembling
	// in place at its place in full pixels); subpixel samples averaged
	// there lost their depth, and the destination's depth merge dropped
	// them; and eye parts of a mono view under it stayed empty, where the
	// destination draws them for its own parts
	assemblyDrawsPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" ` + source(0, "pixel [ 0 0 2 1 ]") + source(1, "pixel [ 1 0 2 1 ]") + `
            ` + inputFrames(2) + ` outputframe { name "a0" } }
        inputframe { name "a0" }`
	assemblyDrawsPixelsInPlace := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" range [ 0 0.5 ] compound { channel "src0" pixel [ 0 0 2 1 ] } ` + source(1, "pixel [ 1 0 2 1 ]") + `
            inputframe { name "f1" } outputframe { name "a0" } }
        ` + source(2, "range [ 0.5 1 ]") + `
        inputframe { name "a0" } inputframe { name "f2" }`
	assemblyDrawsAPartInPlace := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" range [ 0 0.5 ] ` + source(1, "viewport [ 0 0 0.5 1 ]") + ` compound { channel "src0" viewport [ 0.5 0 0.5 1 ] }
            inputframe { name "f1" } outputframe { name "a0" } }
        ` + source(2, "range [ 0.5 1 ]") + `
        inputframe { name "a0" } inputframe { name "f2" }`
	assemblyInPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 1 1 2 ] compound { channel "src2" ` + source(0, "viewport [ 0 0 0.5 1 ]") + source(1, "viewport [ 0.5 0 0.5 1 ]") + `
            ` + inputFrames(2) + ` outputframe { name "a0" } } }
        compound { pixel [ 0 0 1 2 ] }
        inputframe { name "a0" }`
	assemblyInPixelsOfAPartInPlace := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 1 1 2 ] compound { channel "src2" ` + source(3, "viewport [ 0 0 1 0.5 ]") + `
            compound { channel "src2" viewport [ 0 0.5 1 0.5 ] ` + source(0, "viewport [ 0 0 0.5 1 ]") + source(1, "viewport [ 0.5 0 0.5 1 ]") + ` ` + inputFrames(2) + ` }
            inputframe { name "f3" } outputframe { name "a0" } } }
        compound { pixel [ 0 0 1 2 ] }
        inputframe { name "a0" }`
	assemblyOfSamples := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src2" ` + source(0, "subpixel [ 0 2 ]") + source(1, "subpixel [ 1 2 ]") + `
            ` + inputFrames(2) + ` outputframe { name "a0" } }
        inputframe { name "a0" }`
	assemblyOfEyePartsShownMono := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" viewport [ 0 0 0.6 1 ]
            compound { viewport [ 0 0 0.5 1 ] ` + source(1, "eye [ LEFT ]") + source(2, "eye [ RIGHT ]") + ` }
            ` + source(3, "viewport [ 0.5 0 0.5 1 ]") + `
            inputframe { name "f1" } inputframe { name "f2" } inputframe { name "f3" } outputframe { name "a0" } }
        compound { channel "src1" viewport [ 0.6 0 0.4 1 ] outputframe { name "g1" } }
        inputframe { name "a0" } inputframe { name "g1" }`
	assemblyOfAPixelPartsEyesShownMono := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0"
            compound { channel "src3" pixel [ 0 0 2 1 ] ` + source(1, "eye [ LEFT ]") + source(2, "eye [ RIGHT ]") + `
                inputframe { name "f1" } inputframe { name "f2" } outputframe { name "p0" } }
            compound { channel "src3" pixel [ 1 0 2 1 ] outputframe { name "f3" } }
            inputframe { name "p0" } inputframe { name "f3" } outputframe { name "a0" } }
        inputframe { name "a0" }`
	// a 2D part of a mono view whose parts draw a stereo eye alone, and
	// that sends its picture in a frame: the destination drew it in
	// place and waited for its frame until the frame timeout (random
	// assembling trees, seed 86; on the destination's channel too)
	eyePartAssembling := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src2" viewport [ 0 0 0.5 1 ] compound { eye [ LEFT ] ` + source(0, "") + ` } inputframe { name "f0" } outputframe { name "a0" } }
        ` + source(1, "viewport [ 0.5 0 0.5 1 ]") + `
        inputframe { name "a0" } inputframe { name "f1" }`
	// an assembly of eye parts on a source's channel, in a 2D part of no
	// channel of its own, shown mono: the destination drew the part in
	// place, and waited for the assembly's frame, which nothing drew
	// (random assembling trees of package scheduler, 19 of 4000)
	wrappedAssemblyOfEyeParts := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 0.5 1 ] compound { channel "src3" ` + source(0, "eye [ LEFT ]") + source(1, "eye [ RIGHT ]") + `
            inputframe { name "f0" } inputframe { name "f1" } outputframe { name "a0" } } }
        ` + source(2, "viewport [ 0.5 0 0.5 1 ]") + `
        inputframe { name "a0" } inputframe { name "f2" }`
	eyePartSendingToTheDestination := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 0.5 1 ] compound { eye [ LEFT ] ` + source(0, "") + ` } inputframe { name "f0" } outputframe { name "a0" } }
        ` + source(1, "viewport [ 0.5 0 0.5 1 ]") + `
        inputframe { name "a0" } inputframe { name "f1" }`
	// a channel that assembles at the top and draws a part for another
	// channel's assembly below: the part's draw, at the channel's corner,
	// stayed in the top assembly's picture and won its depth merge where
	// nearer (pairs of assembling trees, seed 90)
	assemblerDrawsBelowAnother := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0"
            compound { channel "src1" pixel [ 0 0 3 1 ] ` + source(0, "viewport [ 0 0 0.7 1 ]") + source(2, "viewport [ 0.7 0 0.3 1 ]") + `
                inputframe { name "f0" } inputframe { name "f2" } outputframe { name "a0" } }
            ` + source(3, "pixel [ 1 0 3 1 ]") + source(4, "pixel [ 2 0 3 1 ]") + `
            inputframe { name "a0" } inputframe { name "f3" } inputframe { name "f4" } outputframe { name "a1" } }
        inputframe { name "a1" }`
	// a zoomed part under an assembly of a pixel compound: its frame
	// was taken for as many samples as it drew (zoomed random assembling
	// trees, seed 10); and a zoomed assembly of tiles, whose zoom check
	// says has no effect, assembled the full-size tiles scaled down
	// (seed 60)
	zoomedPartOfAnAssemblyInPixels := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" pixel [ 0 0 2 1 ] ` + source(1, "zoom [ 0.5 0.5 ]") + ` inputframe { name "f1" } outputframe { name "a0" } }
        ` + source(2, "pixel [ 1 0 2 1 ]") + `
        inputframe { name "a0" } inputframe { name "f2" }`
	zoomedAssemblyOfTiles := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" zoom [ 0.33 0.67 ] tile_equalizer { size [ 33 64 ] } compound { } ` + source(1, "") + `
            inputframe { name "f1" } outputframe { name "a0" } }
        inputframe { name "a0" }`
	// zoomed twice, up, and sent between render nodes: the receiving
	// node refused a frame 16 times its largest window (it allowed 4, one
	// zoom of 2), dropped the link, and the frame timed out (a random
	// zoomed assembling tree over nodes)
	nestedZoomsAcrossNodes := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" zoom [ 2 2 ] ` + source(1, "zoom [ 2 2 ]") + ` inputframe { name "f1" } outputframe { name "a0" } }
        inputframe { name "a0" }`
	// a zoomed assembly whose part on its own channel pulls 2D tiles,
	// which its sources draw at full size: those of the channel's own
	// source were drawn over the assembly's smaller picture there, which
	// was sent on as it was (18-21 dB; a random zoomed assembling tree,
	// seed 153, 12 dB under the synthetic renderer)
	tilesUnderAZoomedAssembly := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" zoom [ 0.5 0.5 ]
            compound { channel "src0" tile_equalizer { size [ 64 31 ] } ` + source(0, "") + source(1, "") + `
                inputframe { name "f0" } inputframe { name "f1" } outputframe { name "a0" } }
            inputframe { name "a0" } outputframe { name "a1" } }
        inputframe { name "a1" }`
	for _, c := range []struct {
		name string
		g    generated
		body string
	}{
		{"tiles-under-a-zoomed-assembly-320x200", generated{w: 320, h: 200, sources: 2}, tilesUnderAZoomedAssembly},
		{"nested-zooms-across-nodes-200x300", generated{w: 200, h: 300, sources: 2, nodeOf: []int{0, 1}}, nestedZoomsAcrossNodes},
		{"zoomed-part-of-an-assembly-in-pixels-333x297", generated{w: 333, h: 297, sources: 3}, zoomedPartOfAnAssemblyInPixels},
		{"zoomed-assembly-of-tiles-333x297", generated{w: 333, h: 297, sources: 2}, zoomedAssemblyOfTiles},
		{"assembler-draws-below-another-333x297", generated{w: 333, h: 297, sources: 5}, assemblerDrawsBelowAnother},
		{"eye-part-assembling-shown-mono-333x297", generated{w: 333, h: 297, sources: 3}, eyePartAssembling},
		{"eye-part-sending-to-the-destination-shown-mono-333x297", generated{w: 333, h: 297, sources: 2}, eyePartSendingToTheDestination},
		{"wrapped-assembly-of-eye-parts-shown-mono-333x297", generated{w: 333, h: 297, sources: 4}, wrappedAssemblyOfEyeParts},
		{"assembly-draws-pixels-333x297", generated{w: 333, h: 297, sources: 2}, assemblyDrawsPixels},
		{"assembly-draws-pixels-in-place-333x297", generated{w: 333, h: 297, sources: 3}, assemblyDrawsPixelsInPlace},
		{"assembly-draws-a-part-in-place-333x297", generated{w: 333, h: 297, sources: 3}, assemblyDrawsAPartInPlace},
		{"assembly-in-pixels-200x300", generated{w: 200, h: 300, sources: 3}, assemblyInPixels},
		{"assembly-in-pixels-of-a-part-in-place-333x297", generated{w: 333, h: 297, sources: 4}, assemblyInPixelsOfAPartInPlace},
		{"assembly-of-samples-333x297", generated{w: 333, h: 297, sources: 3}, assemblyOfSamples},
		{"assembly-of-eye-parts-shown-mono-333x297", generated{w: 333, h: 297, sources: 4}, assemblyOfEyePartsShownMono},
		{"assembly-of-a-pixel-parts-eyes-shown-mono-333x297", generated{w: 333, h: 297, sources: 4}, assemblyOfAPixelPartsEyesShownMono},
		{"antialiased-2d-with-depth-333x297-2samples", generated{w: 333, h: 297, sources: 3, samples: 2}, antialiased2DWithDepth},
		{"antialiased-tiles-with-depth-200x300-8samples", generated{w: 200, h: 300, sources: 2, samples: 8}, antialiasedTilesWithDepth},
		{"db-in-2d-333x177", generated{w: 333, h: 177, sources: 4}, dbIn2D},
		{"db-in-2d-1001x33-stereo", generated{w: 1001, h: 33, sources: 4, stereo: true}, dbIn2D},
		{"balanced-2d-in-db-64x700-stereo", generated{w: 64, h: 700, sources: 4, stereo: true}, balanced2DInDB},
		{"merging-sources-333x177", generated{w: 333, h: 177, sources: 4}, mergingSources},
		{"merging-sources-640x480-stereo", generated{w: 640, h: 480, sources: 4, stereo: true}, mergingSources},
		{"db-in-pixels-334x178", generated{w: 334, h: 178, sources: 4}, dbInPixels},
		{"2d-in-pixels-118x230", generated{w: 118, h: 230, sources: 4}, twoDInPixels},
		{"subpixel-parts-of-balanced-2d-512x96", generated{w: 512, h: 96, sources: 5}, subpixelParts},
		{"db-in-subpixels-300x200", generated{w: 300, h: 200, sources: 4}, dbInSubpixels},
		{"subpixels-in-db-stereo-300x200", generated{w: 300, h: 200, sources: 4, stereo: true}, subpixelsInDB},
		{"db-in-subpixels-of-a-2d-part-stereo-250x226", generated{w: 250, h: 226, sources: 5, stereo: true}, dbInSubpixelsOfA2DPart},
		{"zoomed-pixels-364x352", generated{w: 364, h: 352, sources: 3}, zoomedPixels},
		{"zoomed-colour-pixels-stereo-420x300", generated{w: 420, h: 300, sources: 3, stereo: true}, zoomedColourPixels},
		{"zoomed-subpixels-364x352", generated{w: 364, h: 352, sources: 3}, zoomedSubpixels},
		{"nested-subpixels-368x290", generated{w: 368, h: 290, sources: 5}, nestedSubpixels},
		{"destination-draws-pixels-stereo-494x200", generated{w: 494, h: 200, sources: 2, stereo: true}, destinationDrawsPixels},
		{"destination-draws-a-sample-300x300", generated{w: 300, h: 300, sources: 2}, destinationDrawsASample},
		{"destination-draws-zoomed-400x240", generated{w: 400, h: 240, sources: 1}, destinationDrawsZoomed},
		{"destination-sends-its-pixels-300x200", generated{w: 300, h: 200, sources: 1}, destinationSendsPixels},
		{"destination-sends-a-sample-300x200", generated{w: 300, h: 200, sources: 1}, destinationSendsASample},
		{"destination-sends-a-range-300x200", generated{w: 300, h: 200, sources: 2}, destinationSendsARange},
		{"destination-sends-its-zoomed-part-400x240", generated{w: 400, h: 240, sources: 1}, destinationSendsZoomed},
		{"eyes-under-a-cyclop-part-300x200", generated{w: 300, h: 200, sources: 3}, eyesUnderACyclopPart},
		{"source-on-the-destinations-pixels-300x200", generated{w: 300, h: 200, sources: 2, inDestination: [][4]float64{{0, 0, 1, 1}, {0, 0, 1, 0.5}}}, sourceOnTheDestinationsPixels},
		{"destination-pulls-tiles-of-a-pixel-part-300x200", generated{w: 300, h: 200, sources: 2}, destinationPullsTiles},
		{"destination-pulls-tiles-twice-300x200", generated{w: 300, h: 200, sources: 1}, destinationPullsTilesTwice},
		{"subpixels-in-pixel-rows-80x182", generated{w: 80, h: 182, sources: 7}, subpixelsInPixelRows},
		{"subpixels-in-pixel-rows-of-two-sizes-257x241", generated{w: 257, h: 241, sources: 7}, subpixelsInPixelRowsOfTwoSizes},
		{"subpixels-of-two-sizes-in-db-256x240", generated{w: 256, h: 240, sources: 5}, subpixelsOfTwoSizesInDB},
		{"balanced-2d-in-subpixels-301x157", generated{w: 301, h: 157, sources: 4}, balanced2DInSubpixels},
		{"tiles-in-pixels-stereo-80x125", generated{w: 80, h: 125, sources: 3, stereo: true}, tilesInPixels},
		{"zoomed-tiles-stereo-256x240", generated{w: 256, h: 240, sources: 2, stereo: true}, zoomedTiles},
		{"eyes-333x177", generated{w: 333, h: 177, sources: 4, stereo: true}, eyes},
		{"alternating-333x177", generated{w: 333, h: 177, sources: 2}, alternating},
		{"eye-phase-shown-mono-265x181", generated{w: 265, h: 181, sources: 4}, eyePhase},
		{"eye-part-of-balanced-2d-shown-mono-265x181", generated{w: 265, h: 181, sources: 4}, eyePartOfBalanced},
		{"eye-part-of-db-shown-mono-265x181", generated{w: 265, h: 181, sources: 4}, eyePartOfDB},
		{"cyclop-under-an-eye-shown-mono-300x200", generated{w: 300, h: 200, sources: 3}, cyclopUnderAnEye},
		{"eye-under-other-eye-stereo-one-window-200x150", generated{w: 200, h: 150, sources: 3, stereo: true, oneWindow: true}, eyeUnderOtherEye},
		{"destination-draws-333x177-stereo", generated{w: 333, h: 177, sources: 2, stereo: true}, destinationDraws},
		{"balanced-db-in-2d-500x300-stereo", generated{w: 500, h: 300, sources: 4, stereo: true}, balancedDBIn2D},
		{"one-window-balanced-2d-in-db-200x300", generated{w: 200, h: 300, sources: 4, oneWindow: true}, balanced2DInDB},
		// two channels over the destination's pixels (they draw on its
		// channel): one assembles a tile queue that it draws in place
		// and the other draws for, whose clear and readback wiped those
		// tiles and the region its assembly read back (the picture was
		// empty: random assembling trees, seed 522)
		{"tiles-assembled-on-the-destinations-pixels-257x241", generated{w: 257, h: 241, sources: 2, inDestination: [][4]float64{{0, 0, 1, 1}, {0, 0, 1, 1}}}, `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" tile_equalizer { size [ 16 31 ] }
            compound { }
            ` + source(1, "") + `
            inputframe { name "f1" } outputframe { name "a0" } }
        inputframe { name "a0" }`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".eqc")
			text := c.g.config(c.body)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if !matchesReference(t, path) {
				t.Errorf("the comparison did not tell a frame from the next one's reference")
			}
			if t.Failed() {
				t.Logf("the whole config, to run again (eqserver verify):\n%s", text)
			}
		})
	}
}

// A volume's DB range drawn as subpixel samples blends in range order with
// the range blended before it. Averaged straight into place, as a
// decomposition of one full frame per sample is, the samples covered that
// range (a random tree under GOEQ_PROBE_RENDERER=volume, seed 2134: 19 dB,
// the range behind dimmed, 10% of the pixels off by up to 174).
func TestVolumeSubpixelSlabsBlendInOrder(t *testing.T) {
	const tolerance = 4 // the samples' mean rounds, and each slab to 8 bits
	g := generated{w: 256, h: 240, sources: 3}
	body := `task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { range [ 0 0.5 ] ` + source(0, "subpixel [ 0 2 ]") + source(1, "subpixel [ 1 2 ]") + ` }
        ` + source(2, "range [ 0.5 1 ]") + `
        ` + inputFrames(3)
	path := filepath.Join(t.TempDir(), "volume-subpixel.eqc")
	if err := os.WriteFile(path, []byte(g.config(body)), 0o644); err != nil {
		t.Fatal(err)
	}
	dec, ref := corpusRun(t, path, false, "--renderer", "volume"), corpusRun(t, path, true, "--renderer", "volume")
	names := pngs(t, dec)
	if len(names) != corpusFrames {
		t.Fatalf("%d images, want %d", len(names), corpusFrames)
	}
	for _, img := range names {
		d, err := imagecmp.CompareFiles(filepath.Join(dec, img), filepath.Join(ref, img), tolerance)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Matches("") {
			t.Errorf("%s (within %d but for edge pixels): %s", img, tolerance, d)
		}
	}
}
