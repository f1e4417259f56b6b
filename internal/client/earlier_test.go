package client

import (
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/control"
)

// Earlier messages from the server are held in frame order and within a
// bound, counting what each frame costs beside its bytes: a server that
// sent a flood of empty frames would otherwise grow the client without
// end.
func TestEarlierMessagesAreCheckedAndBounded(t *testing.T) {
	fm := func(frame int, msgs ...string) control.FrameMessages {
		out := control.FrameMessages{Frame: frame}
		for _, m := range msgs {
			out.Messages = append(out.Messages, []byte(m))
		}
		return out
	}
	n := &node{}
	if err := n.takeEarlier([]control.FrameMessages{fm(2, "a"), fm(5, "b", "c")}); err != nil || len(n.earlier) != 2 {
		t.Fatalf("two frames in order: %v, %d held", err, len(n.earlier))
	}
	for _, bad := range [][]control.FrameMessages{{fm(5, "d")}, {fm(3, "d")}, {fm(-1)}} {
		n := &node{earlier: []control.FrameMessages{fm(5)}}
		if bad[0].Frame < 0 {
			n = &node{}
		}
		if err := n.takeEarlier(bad); err == nil || !strings.Contains(err.Error(), "out of order") {
			t.Errorf("frame %d after %v: %v; want it refused", bad[0].Frame, n.earlier, err)
		}
	}
	n = &node{}
	var err error
	for f := 0; err == nil && f < 10_000_000; f += 1000 {
		batch := make([]control.FrameMessages, 1000)
		for i := range batch {
			batch[i] = fm(f + i)
		}
		err = n.takeEarlier(batch)
	}
	if err == nil || !strings.Contains(err.Error(), "MiB of earlier messages") {
		t.Errorf("ten million empty frames: %v; want them refused past the bound", err)
	}
}
