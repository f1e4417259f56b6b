package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/imagecmp"
)

// A compound zoomed by 2 that assembles the parts of a pixel decomposition
// on a channel of its own interleaves their samples on its zoomed pixels,
// each part sampling those (render.Sub's GridZoom), and sends the result
// up, where it lands at its share: the picture is the view rendered at
// twice the size (--reference) and halved on the CPU. Columns, rows, three
// columns and a 2x2 kernel, and an odd size. Before, the samples landed
// as if the assembly were not zoomed (14 dB; check warned), and with the
// samples placed on the zoomed pixels but drawn where they lie on the
// unzoomed ones, its edges came to 44 dB.
func TestAZoomedAssemblyInterleavesItsPixelPartsOnItsZoomedPixels(t *testing.T) {
	for _, c := range []struct{ w, h, pw, ph int }{
		{320, 200, 2, 1}, {321, 201, 2, 1}, {320, 200, 1, 2}, {300, 200, 3, 1}, {320, 200, 2, 2},
	} {
		t.Run(fmt.Sprintf("%dx%d-pixel-%dx%d", c.w, c.h, c.pw, c.ph), func(t *testing.T) {
			var wins, parts, ins []string
			for i := range c.pw * c.ph {
				wins = append(wins, fmt.Sprintf(`window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "p%d" } }`, 2*c.w, 2*c.h, i))
				parts = append(parts, fmt.Sprintf(`compound { channel "p%d" pixel [ %d %d %d %d ] outputframe { name "p%d" } }`, i, i%c.pw, i/c.pw, c.pw, c.ph, i))
				ins = append(ins, fmt.Sprintf(`inputframe { name "p%d" }`, i))
			}
			dest := func(w, h int) string {
				return fmt.Sprintf(`viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "dest" }`, w, h)
			}
			text := fmt.Sprintf(`config {
    appNode { pipe { window { %s } } }
    node { host "localhost" pipe {
        window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "asm" } }
        %s } }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "dest" } }
    compound { channel ( segment 0 view 0 )
        compound { channel "asm" zoom [ 2 2 ]
            %s
            %s
            outputframe { name "asm" } }
        inputframe { name "asm" }
    }
}
`, dest(c.w, c.h), 2*c.w, 2*c.h, strings.Join(wins, "\n"), strings.Join(parts, "\n"), strings.Join(ins, " "))
			r := run(t, configFile(t, "zoomed.eqc", text), 2)
			ref := run(t, configFile(t, "twice.eqc", strings.Replace(text, dest(c.w, c.h), dest(2*c.w, 2*c.h), 1)), 2, "--reference")
			for _, x := range []runResult{r, ref} {
				if x.err != nil {
					t.Fatalf("run failed: %v\n%s", x.err, tailOf(x.stderr, 2000))
				}
			}
			for f := range 2 {
				name := filepathFrame("dest", f)
				matchesOracle(t, fmt.Sprintf("frame %d", f), loadPNG(t, filepath.Join(r.out, name)), imagecmp.Halve(loadPNG(t, filepath.Join(ref.out, name))),
					"the view at twice the size, halved")
			}
		})
	}
}
