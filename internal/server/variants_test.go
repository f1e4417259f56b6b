package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// variant is a config generated from sizes, a source count, a
// decomposition and a view mode that no example or corpus file has.
type variant struct {
	w, h, sources int
	mode          string // 2d, 2d-lb, db, db-lb, pixel-x, pixel-y, tile
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
	window := func(name string) string {
		return fmt.Sprintf(`window { name %q viewport [ 0 0 %d %d ] attributes { hint_drawable FBO planes_samples %d } channel { name %q } }`, name, v.w, v.h, v.samples, name)
	}
	var pipes, children, inputs []string
	for i := range v.sources {
		name := fmt.Sprintf("src%d", i)
		pipes = append(pipes, "pipe { "+window(name)+" }")
		part := ""
		n := float64(v.sources)
		switch v.mode {
		case "2d":
			part = fmt.Sprintf("viewport [ %g 0 %g 1 ]", float64(i)/n, 1/n)
		case "db":
			part = fmt.Sprintf("range [ %g %g ]", float64(i)/n, float64(i+1)/n)
		case "pixel-x":
			part = fmt.Sprintf("pixel [ %d 0 %d 1 ]", i, v.sources)
		case "pixel-y":
			part = fmt.Sprintf("pixel [ 0 %d 1 %d ]", i, v.sources)
		}
		children = append(children, fmt.Sprintf("compound { channel %q %s outputframe { name \"f%d\" } }", name, part, i))
		inputs = append(inputs, fmt.Sprintf("inputframe { name \"f%d\" }", i))
	}
	var extra []string
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
	mode := "MONO"
	if v.stereo {
		mode = "STEREO"
	}
	return fmt.Sprintf(`config {
    latency 1
    appNode { pipe { %s } }
    node { host "localhost" %s }
    observer { }
    layout { name "L" view { mode %s observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] %s
        %s
        %s
    }
}
`, window("dest"), strings.Join(pipes, " "), mode, strings.Join(extra, " "), strings.Join(children, "\n        "), strings.Join(inputs, " "))
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
