package dashboard

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// openStream opens /events and reads its first event, which says what
// the viewer sees.
func openStream(t *testing.T, ctx context.Context, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp, ""
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return resp, line
}

// Viewers share one encoding of each version of the state, and a
// dashboard streams to maxStreams of them at once: one more is refused
// with 503 until a stream ends. Each viewer encoding the state for itself
// ten times a second, under the lock the run's calls take, starved the
// run: 2000 streams let eqserver make 5 frames in 15 s where it made 120.
func TestStreamsAreBoundedAndShareOneEncoding(t *testing.T) {
	d := New(Info{Config: "wall.eqc"})
	first, v := d.snapshot()
	again, w := d.snapshot()
	if v != w || &first[0] != &again[0] {
		t.Errorf("the same version was encoded twice")
	}
	d.Nodes([]NodeStatus{{Node: "render1", Status: "alive"}})
	if changed, _ := d.snapshot(); !strings.Contains(string(changed), `"render1"`) {
		t.Errorf("a new version was not encoded: %s", changed)
	}
	d.Links([]Link{{From: "render1", To: "app", Codec: "s2", Bytes: 4096}})
	if changed, _ := d.snapshot(); !strings.Contains(string(changed), `"codec":"s2"`) {
		t.Errorf("the links' bytes are not in the state: %s", changed)
	}

	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var open []context.CancelFunc
	for i := 0; i < maxStreams; i++ {
		sctx, scancel := context.WithCancel(ctx)
		open = append(open, scancel)
		resp, line := openStream(t, sctx, srv.URL)
		if resp.StatusCode != http.StatusOK || !strings.Contains(line, `"render1"`) {
			t.Fatalf("stream %d: %s %q", i, resp.Status, line)
		}
	}
	resp, _ := openStream(t, ctx, srv.URL)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("stream %d of at most %d: %s", maxStreams+1, maxStreams, resp.Status)
	}
	open[0]() // a viewer leaves: its place is free again
	for deadline := time.Now().Add(5 * time.Second); ; {
		resp, _ := openStream(t, ctx, srv.URL)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream ended, and another is still refused: %s", resp.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
