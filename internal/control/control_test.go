package control

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/nettest"
	"github.com/goeq/goeq/internal/procstat"
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

// warnings are the messages of the JSON log records at level WARN: a
// refusal is a fault a filter on the level must find.
func warnings(t *testing.T, logs string) []string {
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Level == "WARN" {
			msgs = append(msgs, rec.Msg)
		}
	}
	return msgs
}

func start(t *testing.T) (string, *logging.Buffer) {
	var logs logging.Buffer
	s := NewServer(echo{}, "secret", nil, slog.New(slog.NewJSONHandler(&logs, nil)))
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
	if !slices.ContainsFunc(warnings(t, logs.String()), func(m string) bool {
		return strings.Contains(m, "refused client") && strings.Contains(m, `"intruder"`)
	}) {
		t.Errorf("no clear warning: %q", logs.String())
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

// With a certificate the control port speaks TLS; a client that trusts
// the certificate connects, a plaintext client does not.
func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	var logs logging.Buffer
	s := NewServer(echo{}, "secret", &tls.Config{Certificates: []tls.Certificate{cert}}, slog.New(slog.NewJSONHandler(&logs, nil)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := Dial(ctx, ln.Addr().String(), "secret", "n", &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&ClientMsg{Hello: &Hello{Node: "n"}})
	if m, err := st.Recv(); err != nil || m.Setup == nil {
		t.Fatalf("TLS session: %v", err)
	}
	st.Close()
	err = helloError(ctx, ln.Addr().String())
	if err == nil {
		t.Fatal("a plaintext client talked to the TLS server")
	}
	if text := ExplainConnect(err, false); !strings.Contains(text, "TLS") {
		t.Errorf("a plaintext client at a TLS port is told %q, which does not name TLS", text)
	}
}

// helloError is what a plaintext client meets at addr, dialling and
// saying hello.
func helloError(ctx context.Context, addr string) error {
	st, err := Dial(ctx, addr, "secret", "n", nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Send(&ClientMsg{Hello: &Hello{Node: "n"}}); err != nil {
		return err
	}
	_, err = st.Recv()
	return err
}

// A client given the port of a program that speaks first in another
// protocol (an sshd's banner) is told so, not that the port may be TLS.
func TestAnotherProgramsPortIsSaidToBeOne(t *testing.T) {
	sshd := nettest.Peer(t, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := helloError(ctx, sshd)
	if err == nil {
		t.Fatal("a client talked to an sshd")
	}
	if text := ExplainConnect(err, false); !strings.Contains(text, "another protocol answers at this address") || strings.Contains(text, "may be TLS") {
		t.Errorf("a client at an sshd's port is told %q", text)
	}
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "goeq test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// relay forwards TCP connections to a server until frozen: then it
// forwards nothing more but keeps the connections open, as a stopped
// server process or a host gone without a word does.
type relay struct {
	addr   string
	frozen chan struct{}
}

func newRelay(t *testing.T, to string) *relay {
	r := &relay{frozen: make(chan struct{})}
	r.addr = nettest.Serve(t, func(c net.Conn) {
		s, err := net.Dial("tcp", to)
		if err != nil {
			c.Close()
			return
		}
		t.Cleanup(func() { s.Close() })
		go r.pipe(s, c)
		go r.pipe(c, s)
	})
	return r
}

func (r *relay) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		select {
		case <-r.frozen:
			<-make(chan struct{}) // hold the connection, forward nothing
		default:
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// A client whose server stops answering, with the connection left open,
// gives its session up once a ping goes unanswered: it does not wait for
// work for ever. A quiet server that answers pings keeps its clients.
func TestAClientGivesUpOnAServerThatStoppedAnswering(t *testing.T) {
	defer func(every, timeout time.Duration) { pingEvery, pingTimeout = every, timeout }(pingEvery, pingTimeout)
	pingTimeout = time.Second // gRPC pings every 10 s at the most
	addr, _ := start(t)
	r := newRelay(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Dial(ctx, r.addr, "secret", "render1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Send(&ClientMsg{Hello: &Hello{Node: "render1"}}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Recv(); err != nil || m.Setup == nil {
		t.Fatalf("%+v %v", m, err)
	}
	// quiet past a ping: the session holds
	got := make(chan error, 1)
	go func() {
		_, err := s.Recv()
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a quiet server that answers pings lost its client: %v", err)
	case <-time.After(pingEvery + 2*pingTimeout):
	}
	close(r.frozen)
	select {
	case err := <-got:
		if err == nil {
			t.Errorf("a message from a frozen server")
		}
		t.Logf("the session ended: %v", err)
	case <-ctx.Done():
		t.Fatal("the client still waits for a server that stopped answering a minute ago")
	}
}

// Peers that connect to the control port and say nothing are held to a
// bound: at most the listener's connections are open on the server at
// once, each is closed once it has not begun HTTP/2 within the handshake
// timeout, and a client that comes after them gets its session.
func TestSilentPeersAreBounded(t *testing.T) {
	defer func(was time.Duration) { handshakeTimeout = was }(handshakeTimeout)
	handshakeTimeout = 300 * time.Millisecond
	const maxConns = 4
	ln, err := Listen("127.0.0.1:0", maxConns)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(echo{}, "secret", nil, slog.New(slog.DiscardHandler))
	go s.Serve(ln)
	defer s.Stop()
	before := procstat.OpenFiles()
	if before < 0 {
		t.Fatal("no /proc/self/fd to count open files in")
	}
	const silent = 12
	peers := make([]net.Conn, silent)
	for i := range peers {
		if peers[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		defer peers[i].Close()
	}
	time.Sleep(100 * time.Millisecond) // the server accepts what it may
	if opened := procstat.OpenFiles() - before; opened > silent+maxConns {
		t.Errorf("%d silent peers opened %d files here, %d of them the server's; want at most %d", silent, opened, opened-silent, maxConns)
	}
	// the first ones are closed by the server once their handshake time is up
	peers[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, peers[0]); err != nil { // until the server closes it
		t.Errorf("a silent peer's connection was not closed by the server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, ln.Addr().String(), "secret", "render1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send(&ClientMsg{Hello: &Hello{Node: "render1"}}); err != nil {
		t.Fatal(err)
	}
	if m, err := c.Recv(); err != nil || m.Setup == nil {
		t.Errorf("a client after the silent peers: %+v, %v", m, err)
	}
}
