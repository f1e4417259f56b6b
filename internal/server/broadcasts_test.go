package server

import (
	"bytes"
	"testing"

	"github.com/goeq/goeq/internal/control"
)

// The history gives a node that joins mid-run the messages of the frames
// before its first, in order, in batches that fit a control message;
// past its bound the oldest go, and it says how many a node lacks.
func TestBroadcastHistory(t *testing.T) {
	msg := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	size := func(m []byte) int { return control.FrameMessages{Messages: [][]byte{m}}.Size() }
	h := broadcastHistory{limit: 3*maxEarlierBatch + 2048}
	h.add(2, [][]byte{msg(10, 'a'), msg(20, 'b')})
	h.add(5, [][]byte{msg(30, 'c')})
	h.add(9, [][]byte{msg(maxEarlierBatch, 'd')})
	batches, dropped, _ := h.before(9)
	if dropped != 0 || len(batches) != 1 || len(batches[0]) != 2 || batches[0][0].Frame != 2 || batches[0][1].Frame != 5 || string(batches[0][1].Messages[0]) != string(msg(30, 'c')) {
		t.Errorf("before frame 9: %d batches %v, %d dropped; want frames 2 and 5 in one", len(batches), batches, dropped)
	}
	// a batch past the bound starts another; a frame's messages stay whole
	batches, _, _ = h.before(10)
	if len(batches) != 2 || len(batches[1]) != 1 || batches[1][0].Frame != 9 {
		t.Errorf("before frame 10: %d batches; want frames 2 and 5, then 9 alone", len(batches))
	}
	if batches, _, _ := h.before(2); len(batches) != 0 {
		t.Errorf("before frame 2: %d batches; want none", len(batches))
	}
	// past the bound: frames 2 and 5 go, then 9
	h.add(12, [][]byte{msg(2*maxEarlierBatch+1800, 'e')})
	batches, dropped, through := h.before(13)
	if dropped != 2 || through != 5 || len(batches) != 2 || batches[0][0].Frame != 9 || batches[1][0].Frame != 12 {
		t.Errorf("past the bound: %d dropped through frame %d, %d batches; want 2 through 5, then frames 9 and 12", dropped, through, len(batches))
	}
	h.add(14, [][]byte{msg(100, 'f')})
	if _, dropped, through := h.before(15); dropped != 3 || through != 9 || h.bytes != size(msg(2*maxEarlierBatch+1800, 'e'))+size(msg(100, 'f')) {
		t.Errorf("%d dropped through frame %d, %d bytes kept; want 3 through 9, and frames 12 and 14", dropped, through, h.bytes)
	}
	// tiny messages count what each costs beside its bytes
	tiny := broadcastHistory{limit: 100 * size([]byte{'x'})}
	for f := range 1000 {
		tiny.add(f, [][]byte{{'x'}})
	}
	if len(tiny.frames) != 100 || tiny.dropped != 900 {
		t.Errorf("%d frames of one byte kept, %d dropped; want 100 and 900", len(tiny.frames), tiny.dropped)
	}
	// a node whose first frame is before every dropped one lacks none
	if _, dropped, _ := h.before(1); dropped != 0 {
		t.Errorf("before frame 1: %d dropped; want none", dropped)
	}
}

func TestFrameList(t *testing.T) {
	for _, c := range []struct {
		frames []int
		want   string
	}{
		{[]int{7}, "7"},
		{[]int{2, 5, 9}, "2, 5, 9"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8}, "1, 2, 3, 4, 5, 6 and 2 more"},
	} {
		if got := frameList(c.frames); got != c.want {
			t.Errorf("frameList(%v) = %q, want %q", c.frames, got, c.want)
		}
	}
}
