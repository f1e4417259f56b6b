package compound

import (
	"strings"
	"testing"
)

// A layout chosen for a frame shows from that frame on, not before; the
// last choice for a frame wins.
func TestLayoutSwitchesHoldFromTheirFrame(t *testing.T) {
	a, b, c := &Layout{Name: "a"}, &Layout{Name: "b"}, &Layout{Name: "c"}
	cv := &Canvas{Layouts: []*Layout{a, nil, b}}
	cfg := &Config{Canvases: []*Canvas{cv}, Layouts: []*Layout{a, b, c}}
	if got := cfg.LayoutIndexes(b); len(got) != 1 || got[cv] != 2 {
		t.Errorf("LayoutIndexes(b) = %v", got)
	}
	if got := cfg.LayoutIndexes(c); len(got) != 0 {
		t.Errorf("LayoutIndexes(c) = %v", got)
	}
	var s Changes
	s.SetLayout(3, cv, 2)
	s.SetLayout(5, cv, 0)
	s.SetLayout(5, cv, 1)
	for frame, want := range []int{0, 0, 0, 2, 2, 1, 1} {
		s.Advance(frame)
		if cv.ActiveLayout != want {
			t.Errorf("frame %d: layout %d, want %d", frame, cv.ActiveLayout, want)
		}
	}
}

// Layouts are found by name, and by their index in the config where they
// have none (as the config language refers to them), and a miss names
// what there is.
func TestFindLayoutByNameOrIndex(t *testing.T) {
	named, unnamed, digits := &Layout{Name: "wall"}, &Layout{}, &Layout{Name: "0"}
	cfg := &Config{Layouts: []*Layout{named, unnamed, digits}}
	for name, want := range map[string]*Layout{"wall": named, "1": unnamed, "0": digits, "2": digits} {
		if got, err := cfg.FindLayout(name); err != nil || got != want {
			t.Errorf("FindLayout(%q) = %v, %v", name, got, err)
		}
	}
	for _, name := range []string{"", "3", "-1", "tiles"} {
		_, err := cfg.FindLayout(name)
		if err == nil || !strings.Contains(err.Error(), `"wall", 1 (unnamed), "0"`) {
			t.Errorf("FindLayout(%q): %v", name, err)
		}
	}
}
