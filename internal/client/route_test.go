package client

import (
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/testframes"
	"github.com/goeq/goeq/internal/transport"
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

// The sample a node's first frame gives the chooser holds the frame's
// content: each codec's ratio on it is near its ratio on the whole frame
// (where calibration's gradient puts zstd's at a twentieth), for colour
// alone and with depth. A frame without all its pixels is not sampled.
func TestSampleCodecsMeasuresTheFrame(t *testing.T) {
	for _, f := range []*transport.Frame{{}, {W: 4, H: 4, Color: make([]byte, 60)}, {W: 4, H: 4, Color: make([]byte, 64), Depth: make([]float32, 15)}} {
		if sampleable(f) {
			t.Errorf("a %dx%d frame of %d colour bytes and %d depths is taken for a sample", f.W, f.H, len(f.Color), len(f.Depth))
		}
	}
	for _, stored := range testframes.Stored {
		tf, err := testframes.Read("../compressor/testdata", stored.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, depth := range []bool{false, true} {
			f := &transport.Frame{W: tf.W, H: tf.H, Color: tf.Color}
			raw := 4 * f.W * f.H
			if depth {
				f.Depth, raw = tf.Depth, 2*raw
			}
			ch := compressor.NewChooser()
			sampleCodecs(ch, f)
			slow := compressor.Link{Bandwidth: 1} // a byte a second: the cost is the size
			for _, codec := range compressor.Candidates(compressor.RGBA8) {
				if err := f.Encode(codec); err != nil {
					t.Fatal(err)
				}
				whole := float64(len(f.Raw)) / float64(raw)
				sampled := ch.Cost(compressor.RGBA8, codec, raw, slow).Seconds() / float64(raw)
				t.Logf("%s depth %v %s: whole frame %.3f, sample %.3f", stored.Name, depth, codec, whole, sampled)
				if sampled < whole/1.5 || sampled > whole*1.5 {
					t.Errorf("%s (depth %v), %s: ratio %.3f on the sample, %.3f on the whole frame", stored.Name, depth, codec, sampled, whole)
				}
			}
		}
	}
}

// A link to an address no peer has any more (a lost node that came back
// listens at a new one) is closed and forgotten when the peers change,
// and a frame handed to it after that is refused rather than sent on a
// closed queue; links to addresses still in use stay.
func TestLinksToAddressesNoPeerHasAreClosed(t *testing.T) {
	n := &node{senders: map[string]*sender{}}
	kept, old := n.sender("127.0.0.1:1001"), n.sender("127.0.0.1:1002")
	n.retireSenders(map[string]string{"c1": "127.0.0.1:1001", "c2": "127.0.0.1:1003"})
	select {
	case <-old.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the link to the address no peer has is still running")
	}
	if old.enqueue(outgoing{}) {
		t.Error("a closed link took a frame")
	}
	n.sendersMu.Lock()
	_, stays := n.senders["127.0.0.1:1001"]
	_, gone := n.senders["127.0.0.1:1002"]
	n.sendersMu.Unlock()
	if !stays || gone {
		t.Errorf("links after the peers changed: kept %v, old %v", stays, gone)
	}
	select {
	case <-kept.done:
		t.Error("the link to an address still in use was closed")
	default:
	}
	kept.close()
	kept.close() // the run's end closes every link, retired or not
}
