package client

import (
	"testing"
	"time"
)

// A link's load is the raw bytes offered per second over whole windows:
// nothing is known until the first window ends, and each window's rate
// replaces the last one's.
func TestLinkLoadMeasuresTheRawRatePerWindow(t *testing.T) {
	var l linkLoad
	start := time.Unix(1000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	frame := 4 << 20
	// a frame every 30 ms: the first window ends with the 35th, at 1.02 s
	for i := 0; i < 35; i++ {
		if l.link.RawPerSecond != 0 {
			t.Fatalf("frame %d: a rate (%.0f B/s) before the first window ended", i, l.link.RawPerSecond)
		}
		l.offer(frame, at(30*i))
	}
	if got, want := l.link.RawPerSecond, 35*float64(frame)/1.02; got < 0.999*want || got > 1.001*want {
		t.Errorf("first window: %.0f B/s, want %.0f (35 frames in 1.02 s)", got, want)
	}
	// then a frame every 250 ms: the next window ends at 2.02 s with 4
	// frames, the one after at 3.02 s with 4
	for ms := 1270; ms <= 3020; ms += 250 {
		l.offer(frame, at(ms))
	}
	if got, want := l.link.RawPerSecond, 4*float64(frame); got < 0.999*want || got > 1.001*want {
		t.Errorf("after the rate fell: %.0f B/s, want %.0f", got, want)
	}
}
