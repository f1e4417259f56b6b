package netns

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"testing"
	"time"
)

// A delayed cluster's links add their latency both ways: a TCP exchange
// takes at least twice the one-way delay (the line holds every packet
// that long, so it cannot take less), while on the bridge it takes far
// less. Bulk data crosses a delayed link shaped with tbf intact.
func TestDelayedLinkAddsItsLatency(t *testing.T) {
	const oneWay = 200 * time.Microsecond
	bridged := New(t, 2)
	fast, err := RoundTrip(bridged.Hosts[0], bridged.Hosts[1])
	if err != nil {
		t.Fatal(err)
	}
	c := NewDelayed(t, 3, oneWay)
	for _, pair := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
		a, b := c.Hosts[pair[0]], c.Hosts[pair[1]]
		rtt, err := RoundTrip(a, b)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s -> %s: round trip %v (bridge: %v)", a.Addr, b.Addr, rtt, fast)
		if rtt < 2*oneWay {
			t.Errorf("%s -> %s: round trip %v, less than twice the one-way delay %v", a.Addr, b.Addr, rtt, oneWay)
		}
		if fast >= 2*oneWay {
			t.Errorf("the bridge's round trip %v is not below the delay line's %v: the test cannot tell them apart", fast, 2*oneWay)
		}
	}

	for _, h := range c.Hosts {
		if err := h.Shape(1e9); err != nil {
			t.Fatal(err)
		}
	}
	data := make([]byte, 16<<20)
	rand.Read(data)
	from, to, err := Connect(c.Hosts[2], c.Hosts[1])
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan [32]byte, 1)
	go func() {
		defer to.Close()
		h := sha256.New()
		io.Copy(h, to)
		got <- [32]byte(h.Sum(nil))
	}()
	start := time.Now()
	from.SetDeadline(start.Add(30 * time.Second))
	_, err = io.Copy(from, bytes.NewReader(data))
	from.Close()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case sum := <-got:
		if sum != sha256.Sum256(data) {
			t.Fatalf("16 MiB across the delayed, shaped link arrived changed")
		}
		t.Logf("16 MiB at 1 Gbit/s with %v each way: %.0f MB/s", oneWay, float64(len(data))/time.Since(start).Seconds()/1e6)
	case <-time.After(30 * time.Second):
		t.Fatal("16 MiB across the delayed, shaped link did not arrive within 30 s")
	}
}
