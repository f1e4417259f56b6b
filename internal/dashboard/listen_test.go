package dashboard

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/procstat"
)

// Peers that connect to the dashboard and say nothing hold at most
// maxConns of the server's connections; once they go, a viewer's request
// is served.
func TestSilentPeersHoldABoundOfConnections(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: New(Info{Config: "bounded.eqc"}).Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	before := procstat.OpenFiles()
	if before < 0 {
		t.Fatal("no /proc/self/fd to count open files in")
	}
	const silent = maxConns + 100
	peers := make([]net.Conn, silent)
	for i := range peers {
		if peers[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // the server accepts what it may
	if opened := procstat.OpenFiles() - before; opened > silent+maxConns+8 {
		t.Errorf("%d silent peers opened %d files here, %d of them the server's; want at most %d", silent, opened, opened-silent, maxConns)
	}
	for _, p := range peers {
		p.Close()
	}
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("a viewer after the silent peers: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a viewer after the silent peers: %s", resp.Status)
	}
}
