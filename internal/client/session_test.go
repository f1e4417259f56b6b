package client

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/goeq/goeq/internal/control"
)

// sessionWith is a client's session with a control server whose sessions
// h handles, and the context of its stream; both end with the test.
func sessionWith(t *testing.T, h control.Handler) (*session, context.Context, context.CancelFunc) {
	t.Helper()
	srv := control.NewServer(h, "secret", nil, slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stream, err := control.Dial(ctx, ln.Addr().String(), "secret", "n1", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &session{stream: stream}, ctx, cancel
}

// stalled takes a session and reads nothing from it until released.
type stalled struct{ release chan struct{} }

func (h stalled) Session(grpc.ServerStream, string) error {
	<-h.release
	return nil
}

// A session closes between sends (gRPC's CloseSend raced the heartbeats'
// SendMsg as a client left: go test -race and eqclient built with -race
// reported it on 5 of 11 corpus configs), and also while a send is held
// by a server that reads nothing; a send after it is refused.
func TestSessionClosesBetweenSends(t *testing.T) {
	h := stalled{release: make(chan struct{})}
	defer close(h.release)
	s, _, cancel := sessionWith(t, h)
	// events fill the flow-control window of a server that reads nothing
	big := &control.ClientMsg{Failed: strings.Repeat("x", 1<<20)}
	sending := make(chan error, 1)
	go func() {
		for {
			if err := s.send(big); err != nil {
				sending <- err
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // until a send is held
	closed := make(chan struct{})
	go func() {
		s.close(cancel)
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not close while a send was held")
	}
	if err := <-sending; err == nil {
		t.Error("the held send returned no error")
	}
	if err := s.send(&control.ClientMsg{Ready: true}); !errors.Is(err, errSessionClosed) {
		t.Errorf("a send after close: %v", err)
	}
}

// slowReader takes a session's messages only after a while, as a busy
// server does, and says what its first one was.
type slowReader struct{ got chan string }

func (h slowReader) Session(stream grpc.ServerStream, _ string) error {
	time.Sleep(300 * time.Millisecond)
	m := &control.ClientMsg{}
	if err := stream.RecvMsg(m); err != nil {
		h.got <- "error: " + control.ErrorText(err)
		return nil
	}
	h.got <- "failed: " + m.Failed
	return nil
}

// A client whose set-up fails says why, and the server takes it however
// late it reads: closing the connection at once, as the client did, could
// drop the message gRPC still held, and the server logged only that the
// session was cancelled (a make test run on CI).
func TestAFailureReachesAServerThatReadsLate(t *testing.T) {
	h := slowReader{got: make(chan string, 1)}
	s, ctx, cancel := sessionWith(t, h)
	s.fail(ctx, errors.New(`pipe "gpu2": no GPU`))
	s.close(cancel)
	select {
	case got := <-h.got:
		if want := `failed: pipe "gpu2": no GPU`; got != want {
			t.Errorf("the server read %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server read nothing")
	}
}
