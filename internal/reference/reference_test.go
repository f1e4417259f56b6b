package reference

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
)

// loadText loads a config written here, naming it name in its errors.
func loadText(t *testing.T, name, text string) *compound.Config {
	t.Helper()
	m, _, err := compound.LoadText(name, []byte(text), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

// A destination whose compound only clears (Equalizer's 1-window.mixed
// clears a quarter of its window so) shows the clear: the reference must
// not draw the model there, or every decomposed frame of it "differs".
func TestADestinationThatOnlyClearsShowsTheClear(t *testing.T) {
	const text = `server { config {
    appNode { pipe { window { viewport [ 0 0 400 200 ]
        channel { name "clear" viewport [ 0 0 .5 1 ] }
        channel { name "drawn" viewport [ .5 0 .5 1 ] }
        channel { name "assembled" viewport [ .5 0 .5 1 ] }
        channel { name "source" viewport [ .5 0 .5 1 ] } } } }
    compound { task [ CLEAR ] channel "clear" wall {} }
    compound { channel "drawn" wall {} }
    compound { task [ CLEAR ASSEMBLE ] channel "assembled" wall {}
        compound { channel "source" outputframe { name "f" } }
        inputframe { name "f" } }
} }`
	plan := New(loadText(t, "clear.eqc", text)).Plan(0)
	drawsOn := map[string]bool{}
	for _, cp := range plan.Channels {
		for _, task := range cp.Tasks {
			drawsOn[cp.Channel.Name] = drawsOn[cp.Channel.Name] || task.Kind == planner.Draw
		}
	}
	want := map[string]bool{"clear": false, "drawn": true, "assembled": true}
	for name, w := range want {
		if drawsOn[name] != w {
			t.Errorf("channel %q: the reference draws %v, want %v", name, drawsOn[name], w)
		}
	}
}

// A destination that interleaves its eyes is drawn whole for each eye,
// each draw changing only its eye's pattern of pixels, after one clear:
// the reference cleared before each eye and drew it over every pixel, so
// it showed the last eye alone.
func TestInterleavedEyesDrawEachEyeOnItsPattern(t *testing.T) {
	const text = `server { config {
    appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "dest" } }
        window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src" } } } }
    compound { channel "dest" eye [ LEFT RIGHT ] attributes { stereo_mode PASSIVE } wall {}
        compound { eye [ RIGHT ] pixel [ 0 0 1 2 ] outputframe { name "r" } }
        compound { eye [ LEFT ] channel "src" pixel [ 0 1 1 2 ] outputframe { name "l" } }
        inputframe { name "r" } inputframe { name "l" } }
} }`
	plan := New(loadText(t, "interleaved.eqc", text)).Plan(0)
	if len(plan.Channels) != 1 {
		t.Fatalf("%d channels plan, want the destination's alone", len(plan.Channels))
	}
	var got []string
	for _, task := range plan.Channels[0].Tasks {
		got = append(got, fmt.Sprintf("%v %d %v %v", task.Kind, task.Eye, task.Interleave, task.Region))
	}
	want := []string{
		fmt.Sprintf("clear %d {0 0 0 0} {0 0 320 180}", compound.EyeLeft),
		fmt.Sprintf("draw %d {0 1 1 2} {0 0 320 180}", compound.EyeLeft),
		fmt.Sprintf("draw %d {0 0 1 2} {0 0 320 180}", compound.EyeRight),
	}
	if !slices.Equal(got, want) {
		t.Errorf("the destination's tasks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A channel whose compounds have no task (Equalizer's issue155 config:
// "task []" under a swap barrier, with a view's channel drawing the same
// window) does nothing, and the run writes no image of it: the reference
// wrote a cleared one, so its images differed in name from the run's.
func TestAChannelWithNoTaskShowsNothingOfItsOwn(t *testing.T) {
	const text = `server { config {
    appNode { pipe { window { viewport [ 0 0 400 200 ]
        channel { name "idle" }
        channel { name "drawn" } } } }
    compound { channel "idle" task [] swapbarrier {} wall {} }
    compound { channel "drawn" swapbarrier {} wall {} }
} }`
	plan := New(loadText(t, "idle.eqc", text)).Plan(0)
	var names []string
	for _, cp := range plan.Channels {
		names = append(names, cp.Channel.Name)
	}
	if !slices.Equal(names, []string{"drawn"}) {
		t.Errorf("the reference plans channels %v, want [drawn]", names)
	}
}
