package planner

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/corpus"
)

// sortLastOnTwoPipes is the corpus's 2-pipe.DB.ds with the inner
// compound's channel given by %s: on "channel2" it draws on a pipe of its
// own; left out, it draws on the destination's channel, which then
// assembles "stripe2.c1" before drawing it (Equalizer waits for ever).
const sortLastOnTwoPipes = `server
{
    config
    {
        appNode
        {
            pipe { window { viewport [ 0 0 400 300 ] channel { name "channel1" } } }
            pipe { window { viewport [ 0 0 400 300 ] channel { name "channel2" } } }
        }
        observer {}
        layout { view { observer 0 } }
        canvas { layout 0 wall {} segment { channel "channel1" } }
        compound
        {
            channel ( segment 0 view 0 )
            buffer [ COLOR DEPTH ]
            compound
            {
                %s
                compound
                {
                    range [ 0 .5 ]
                    outputframe { name "stripe1.c2" viewport [ 0 0 1 .5 ] }
                }
                inputframe { name "stripe2.c1" }
                outputframe { name "half" buffer [ COLOR ] viewport [ 0 .5 1 .5 ] }
            }
            compound
            {
                %s
                range [ .5 1 ]
                outputframe { name "stripe2.c1" viewport [ 0 .5 1 .5 ] }
            }
            inputframe { name "stripe1.c2" }
            inputframe { name "half" }
        }
    }
}
`

// at is the position of the first line holding s in text, as name:line:col.
func at(name, text, s string) string {
	for i, line := range strings.Split(text, "\n") {
		if c := strings.Index(line, s); c >= 0 {
			return fmt.Sprintf("%s:%d:%d", name, i+1, c+1)
		}
	}
	return "nowhere"
}

func TestAFrameAssembledBeforeItsChannelReadsItBackIsRefused(t *testing.T) {
	for _, c := range []struct {
		name, inner, second string
		want                []string // in the error; none: the config runs
	}{
		{"own pipe", `channel "channel2"`, "", nil},
		{"destination's channel", "", "", []string{`input frame "stripe2.c1" is never assembled: channel channel1 assembles it in compound 0.0 before it reads it back in compound 0.1`,
			"draw compound 0.1 on a channel of its own, or before compound 0.0"}},
		// a compound of period 2 draws the frame from frame 1 only
		{"every other frame", "", "period 2 phase 1", []string{`input frame "stripe2.c1" is never assembled`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := fmt.Sprintf(sortLastOnTwoPipes, c.inner, c.second)
			_, err := CheckOrder(loadText(t, "db.eqc", text))
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("refused nothing")
			}
			if pos := at("db.eqc", text, `inputframe { name "stripe2.c1" }`) + ": "; !strings.HasPrefix(err.Error(), pos) {
				t.Errorf("error %q: want it at %s", err, pos)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q: want %q", err, w)
				}
			}
		})
	}
}

func TestChannelsWaitingForEachOthersFramesAreRefused(t *testing.T) {
	const text = `server
{
    config
    {
        appNode
        {
            pipe
            {
                window { viewport [ 0 0 400 300 ] channel { name "dest" } }
                window { viewport [ 0 0 400 300 ] channel { name "c1" } }
            }
            pipe { window { viewport [ 0 0 400 300 ] channel { name "c2" } } }
        }
        compound
        {
            channel "dest"
            wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
            compound
            {
                channel "c1"
                viewport [ 0 0 .5 1 ]
                inputframe { name "right" }
                outputframe { name "left" }
            }
            compound
            {
                channel "c2"
                viewport [ .5 0 .5 1 ]
                %s
                outputframe { name "right" }
            }
            inputframe { name "left" }
            inputframe { name "right" }
        }
    }
}
`
	if _, err := CheckOrder(loadText(t, "x.eqc", fmt.Sprintf(text, ""))); err != nil {
		t.Fatalf("c1 waiting for c2 alone: %v", err)
	}
	circle := fmt.Sprintf(text, `inputframe { name "left" }`)
	_, err := CheckOrder(loadText(t, "x.eqc", circle))
	if err == nil {
		t.Fatal("refused nothing")
	}
	for _, w := range []string{at("x.eqc", circle, `inputframe { name "right" }`) + ": ",
		`channel c1 assembles "right" in compound 0.0 before it reads back "left" in compound 0.0, and channel c2 assembles "left" in compound 0.1 before it reads back "right" in compound 0.1`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q: want %q", err, w)
		}
	}
}

// A circle in a layout other than the first, or in a view's other mode,
// is a warning (a run that never switches there is not hurt; an
// application is refused the switch), and the check leaves the layouts
// and modes as they were. With that layout chosen to start with, it is an
// error.
func TestCirclesOnlyASwitchReachesAreWarnings(t *testing.T) {
	path := filepath.Join("testdata", "stuck-switches.eqc")
	m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Configs[0]
	stuck, err := CheckOrder(cfg)
	if err != nil || len(stuck) != 2 {
		t.Fatalf("%+v, %v: want two switches", stuck, err)
	}
	for i, want := range []struct {
		canvas, layout, view int
		warning              string
	}{
		{0, 1, -1, path + `:28:42: input frame "right" is never assembled in layout "split" of canvas 0: channel wall.split.view0 assembles it in compound 1.0 before it reads it back in compound 1.1`},
		{-1, 0, 0, path + `:20:46: input frame "r" is never assembled when view 0 shows stereo: channel wall.plain.view0 assembles it in compound 0.0.0 before it reads it back in compound 0.0.1`},
	} {
		got := stuck[i]
		if got.Canvas != want.canvas || got.Layout != want.layout || got.View != want.view || !strings.HasPrefix(got.Warning.String(), want.warning) ||
			!strings.Contains(got.Warning.Msg, "; an application is refused the switch (") || !strings.Contains(got.Why, "is never assembled: ") {
			t.Errorf("%+v: want canvas %d, layout %d, view %d, warned %q", got, want.canvas, want.layout, want.view, want.warning)
		}
	}
	if cfg.Canvases[0].ActiveLayout != 0 || cfg.Layouts[0].Views[0].Stereo {
		t.Errorf("the check left layout %d and stereo %v", cfg.Canvases[0].ActiveLayout, cfg.Layouts[0].Views[0].Stereo)
	}
	if err := cfg.ActivateLayout("split"); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckOrder(cfg); err == nil || !strings.Contains(err.Error(), `:28:42: input frame "right" is never assembled: `) {
		t.Errorf("starting in layout split: error %v", err)
	}
}

// Every real and example config runs without a circle of waits, in every
// layout.
func TestNoCorpusConfigWaitsInACircle(t *testing.T) {
	for _, path := range corpus.Paths(t) {
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		if stuck, err := CheckOrder(m.Configs[0]); err != nil || len(stuck) > 0 {
			t.Errorf("%s: %v %v", filepath.Base(path), stuck, err)
		}
	}
}
