package compound

import (
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/configparser"
)

// planes_samples multisamples a window's draws, except draws of a part of
// the data or of every nth pixel; a render of a destination's whole image
// antialiases as its tree and the trees it takes frames from do; check
// warns where a multisampled window draws single-sampled.
func TestDrawSamples(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] attributes { planes_samples 4 } channel { name "a" } }
        window { viewport [ 0 0 320 240 ] attributes { planes_samples 8 } channel { name "b" } }
        window { viewport [ 0 0 320 240 ] attributes { planes_samples OFF } channel { name "c" } }
        window { viewport [ 0 0 320 240 ] attributes { planes_samples 2 } channel { name "d" } }
        window { viewport [ 0 0 320 240 ] channel { name "e" } }
    } }
    compound { channel "dest" task [ CLEAR ASSEMBLE ]
        compound { channel "a" viewport [ 0 0 .5 1 ] outputframe { name "f2d" } }
        compound { channel "c" viewport [ .5 0 .5 1 ] outputframe { name "g2d" } }
        inputframe { name "f2d" } inputframe { name "g2d" } }
    compound { channel "b" task [ CLEAR ASSEMBLE ] load_equalizer { mode DB }
        compound { channel "a" outputframe { name "fdb" } }
        compound { channel "d" outputframe { name "gdb" } }
        inputframe { name "fdb" } inputframe { name "gdb" } }
    compound {
        compound { channel "c" task [ CLEAR ASSEMBLE READBACK ]
            compound { channel "b" pixel [ 0 0 2 1 ] outputframe { name "fpx" } }
            compound { channel "d" outputframe { name "fwhole" } }
            inputframe { name "fpx" } inputframe { name "fwhole" } outputframe { name "shown" } }
        compound { channel "e" task [ CLEAR ASSEMBLE ] inputframe { name "shown" } }
    }
}`
	res, err := configparser.Parse("samples.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(res, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Configs[0].Compounds
	twoD, db, pixel, monitor := cs[0], cs[1], cs[2].Children[0], cs[2].Children[1]
	for _, c := range []struct {
		what string
		c    *Compound
		want int
	}{
		{"2D source on 4 samples", twoD.Children[0], 4},
		{"2D source on OFF", twoD.Children[1], 0},
		{"DB source on 4 samples", db.Children[0], 0},
		{"pixel source on 8 samples", pixel.Children[0], 0},
		{"whole-image source on 2 samples", pixel.Children[1], 2},
	} {
		if got := c.c.DrawSamples(); got != c.want {
			t.Errorf("%s: %d samples, want %d", c.what, got, c.want)
		}
	}
	for _, c := range []struct {
		what string
		c    *Compound
		want int
	}{
		{"2D tree", twoD, 4},
		{"DB tree", db, 0},
		{"pixel tree", pixel, 2},
		{"tree fed by the pixel tree's destination", monitor, 2},
	} {
		if got := c.c.TreeSamples(); got != c.want {
			t.Errorf("%s: %d samples, want %d", c.what, got, c.want)
		}
	}
	var warned []string
	for _, w := range res.Warnings {
		if strings.Contains(w.String(), "single-sampled") {
			warned = append(warned, w.String())
		}
	}
	want := []string{`samples.eqc:15:20: channel "a" draws a part`, `samples.eqc:16:20: channel "d" draws a part`, `samples.eqc:20:24: channel "b" draws a part`}
	if len(warned) != len(want) {
		t.Fatalf("warnings of single-sampled draws:\n%s\nwant one each for a and d (DB) and b (pixel)", strings.Join(warned, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(warned[i], w) {
			t.Errorf("warning %q, want %q...", warned[i], w)
		}
	}
}
