package compound

import "testing"

// A layout chosen for a frame shows from that frame on, not before; the
// last choice for a frame wins.
func TestLayoutSwitchesHoldFromTheirFrame(t *testing.T) {
	a, b := &Layout{Name: "a"}, &Layout{Name: "b"}
	cv := &Canvas{Layouts: []*Layout{a, nil, b}}
	cfg := &Config{Canvases: []*Canvas{cv}}
	if got := cfg.LayoutIndexes("b"); len(got) != 1 || got[cv] != 2 {
		t.Errorf("LayoutIndexes(b) = %v", got)
	}
	if got := cfg.LayoutIndexes("c"); len(got) != 0 {
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
