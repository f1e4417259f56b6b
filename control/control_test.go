package control

import (
	"context"
	"log"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// echo answers every hello with a setup naming the node.
type echo struct{}

func (echo) Session(stream grpc.ServerStream, node string) error {
	for {
		m := &ClientMsg{}
		if err := stream.RecvMsg(m); err != nil {
			return err
		}
		if m.Hello != nil {
			if err := stream.SendMsg(&ServerMsg{Setup: &Setup{Node: node}}); err != nil {
				return err
			}
		}
	}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func start(t *testing.T) (string, *lockedBuilder) {
	var logs lockedBuilder
	s := NewServer(echo{}, "secret", nil, log.New(&logs, "", 0))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	return ln.Addr().String(), &logs
}

func TestSessionWithToken(t *testing.T) {
	addr, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := Dial(ctx, addr, "secret", "render1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Send(&ClientMsg{Hello: &Hello{Node: "render1"}}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Recv()
	if err != nil || m.Setup == nil || m.Setup.Node != "render1" {
		t.Fatalf("%+v %v", m, err)
	}
}

func TestWrongTokenIsRefused(t *testing.T) {
	addr, logs := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, token := range []string{"guess", ""} {
		s, err := Dial(ctx, addr, token, "intruder", nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Send(&ClientMsg{Hello: &Hello{Node: "intruder"}})
		_, err = s.Recv()
		s.Close()
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("token %q: %v, want Unauthenticated", token, err)
		}
	}
	if !strings.Contains(logs.String(), "refused client") || !strings.Contains(logs.String(), `"intruder"`) {
		t.Errorf("no clear log line: %q", logs.String())
	}
}

// An oversized message (from a client that does not bound itself) ends
// that session with an error; the server goes on serving others.
func TestOversizedMessageIsRejected(t *testing.T) {
	addr, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.CallContentSubtype("json"), grpc.MaxCallSendMsgSize(4*MaxMessage)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cs, err := conn.NewStream(metadata.AppendToOutgoingContext(ctx, "token", "secret", "node", "big"), &serviceDesc.Streams[0], sessionPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.SendMsg(&ClientMsg{Hello: &Hello{Node: strings.Repeat("x", MaxMessage+1)}}); err != nil {
		t.Logf("send: %v", err)
	}
	err = cs.RecvMsg(&ServerMsg{})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("oversized message: %v, want ResourceExhausted", err)
	}
	TestSessionWithToken(t)
}
