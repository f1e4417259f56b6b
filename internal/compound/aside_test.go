package compound

import "testing"

// A part of a pixel, subpixel or zoom decomposition that the destination's
// channel draws itself sends a frame to the assembly above it and draws
// aside, clearing first; a part it draws one to one (2D, DB) stays in
// place, as does one with a frame of its own.
func TestPartsDrawnInPlaceUnderAPixelDecompositionDrawAside(t *testing.T) {
	m := mustResolve(t, cfgWith(`compound { channel "dest" task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { pixel [ 0 0 2 1 ] }
        compound { channel "src" pixel [ 1 0 2 1 ] outputframe { name "f" } }
        compound { range [ 0 0.5 ] }
        compound { zoom [ 0.5 0.5 ] outputframe { name "own" } }
        inputframe { name "f" } inputframe { name "own" }
    }`), Options{})
	root := m.Configs[0].Compounds[0]
	aside, src, inPlace, own := root.Children[0], root.Children[1], root.Children[2], root.Children[3]
	if !aside.DrawsAside || len(aside.OutputFrames) != 1 || aside.Tasks&(TaskClear|TaskDraw|TaskReadback) != TaskClear|TaskDraw|TaskReadback {
		t.Fatalf("the destination's pixel part: aside %v, output frames %d, tasks %b", aside.DrawsAside, len(aside.OutputFrames), aside.Tasks)
	}
	name := aside.OutputFrames[0].Name
	var in *Frame
	for _, f := range root.InputFrames {
		if f.Name == name {
			in = f
		}
	}
	if in == nil || len(in.Producers) != 1 || in.Producers[0] != aside || aside.OutputFrames[0].Consumers[0] != root {
		t.Fatalf("the aside frame %q does not go from the part to the destination: %+v", name, in)
	}
	for _, c := range []*Compound{src, inPlace, own} {
		if c.DrawsAside {
			t.Errorf("compound %s draws aside", c.Path())
		}
	}
	if len(inPlace.OutputFrames) != 0 || len(root.InputFrames) != 3 {
		t.Errorf("%d output frames in place, %d input frames at the destination", len(inPlace.OutputFrames), len(root.InputFrames))
	}
}
