package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goeq/goeq/internal/control"
)

// maxBroadcastHistory bounds the application's cluster events the server
// keeps for nodes that join mid-run (a node started again, or late):
// past it the oldest go, and such a node is said to lack them.
const maxBroadcastHistory = 32 << 20

// maxEarlierBatch bounds the events one control message replays (base64
// in JSON: a third more, well within control.MaxMessage). A frame's own
// events, which fitted its frame's message, go whole.
const maxEarlierBatch = 2 << 20

// broadcastHistory is the run's cluster events so far, frame by frame in
// frame order. A node's renderers are new when its session starts: they
// take all of them before their first frame, as the others took them.
type broadcastHistory struct {
	limit  int // bytes kept at most
	frames []control.FrameMessages
	bytes  int
	// dropped frames' events, the last of them in frame droppedThrough
	dropped, droppedThrough int
}

func (h *broadcastHistory) add(frame int, msgs [][]byte) {
	fm := control.FrameMessages{Frame: frame, Messages: msgs}
	h.frames = append(h.frames, fm)
	h.bytes += fm.Size()
	for h.bytes > h.limit && len(h.frames) > 0 {
		h.bytes -= h.frames[0].Size()
		h.dropped, h.droppedThrough = h.dropped+1, h.frames[0].Frame
		h.frames[0] = control.FrameMessages{}
		h.frames = h.frames[1:]
	}
}

// before is the events of the frames before frame, in batches of about
// maxEarlierBatch bytes, and how many frames' events before it were
// dropped (the last of them in frame droppedThrough).
func (h *broadcastHistory) before(frame int) (batches [][]control.FrameMessages, dropped, droppedThrough int) {
	if h.dropped > 0 && h.droppedThrough < frame {
		dropped, droppedThrough = h.dropped, h.droppedThrough
	}
	size := 0
	for _, fm := range h.frames {
		if fm.Frame >= frame {
			break
		}
		n := fm.Size()
		if len(batches) == 0 || size+n > maxEarlierBatch {
			batches, size = append(batches, nil), 0
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], fm)
		size += n
	}
	return batches, dropped, droppedThrough
}

// frameList names frames for the log: the first few, and how many more.
func frameList(frames []int) string {
	const named = 6
	var b strings.Builder
	for i, f := range frames[:min(len(frames), named)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(f))
	}
	if len(frames) > named {
		fmt.Fprintf(&b, " and %d more", len(frames)-named)
	}
	return b.String()
}
