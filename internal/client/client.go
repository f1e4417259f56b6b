// Package client is eqclient's runtime: it joins an eqserver, opens the
// pipes, windows and channels of its node, hands each frame's tasks to the
// pipes' executors (package channel), carries output frames to the
// channels that composite them (through memory on this node, over the
// frame transport elsewhere) and reports statistics back. It is I/O
// around the executors: no GL here.
package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/procstat"
	"github.com/goeq/goeq/internal/transport"
	"github.com/goeq/goeq/internal/winsys"
)

// Options configure a client.
type Options struct {
	Server   string
	Node     string
	Token    string
	WinSys   winsys.Choice
	Drawable string // override of hint_drawable
	TLS      *tls.Config
	Log      *slog.Logger
	// NewRenderer makes each pipe's renderer (the application's), on the
	// pipe's goroutine with its context current.
	NewRenderer func(PipeInfo) (draw.Renderer, error)
	// WaitServer is how long the client tries again to reach a server
	// that does not listen yet (a client started before its server, as
	// a cluster's render nodes may be); 0 gives up at once.
	WaitServer time.Duration
	// Null runs the node without GL or windows: draws report a fixed
	// time and readbacks send empty frames, so that one machine can stand
	// in for many render nodes when the server's cost is measured.
	Null bool
}

// PipeInfo is what a renderer factory knows of its pipe.
type PipeInfo struct {
	Node, Pipe string
	Device     int
	InitData   []byte // the application's init data
	// SendEvent sends an event to the application (any goroutine): at
	// most control.MaxEventData bytes, and an error when the node's queue
	// of events is full rather than a silent loss.
	SendEvent func(data []byte) error
}

// heartbeatEvery is how often a client tells the server it is alive (and
// what its channels wait for).
const heartbeatEvery = 200 * time.Millisecond

// dialServer opens the session with the server, trying again while
// nothing listens at its address for up to opt.WaitServer.
func dialServer(ctx context.Context, opt Options) (*control.Stream, error) {
	giveUp := time.Now().Add(opt.WaitServer)
	pause := 100 * time.Millisecond
	var said time.Time // when the log last said it waits
	for {
		stream, err := control.Dial(ctx, opt.Server, opt.Token, opt.Node, opt.TLS)
		if err == nil {
			return stream, nil
		}
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "while dialing") {
			return nil, errors.New(control.ExplainConnect(err, opt.TLS != nil)) // reached, and refused
		}
		if !time.Now().Before(giveUp) {
			hint := "start it first, or give eqclient --wait"
			if opt.WaitServer > 0 {
				hint = fmt.Sprintf("waited %v", opt.WaitServer)
			}
			return nil, fmt.Errorf("no eqserver answers at %s (%s): %s", opt.Server, dialFailure(err), hint)
		}
		if time.Since(said) >= 15*time.Second {
			opt.Log.Info(fmt.Sprintf("waiting for an eqserver at %s until %s (%s)", opt.Server, giveUp.Format(time.TimeOnly), dialFailure(err)))
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(pause, time.Until(giveUp))):
		}
		pause = min(2*pause, time.Second)
	}
}

// dialFailure is the dial's own error inside gRPC's status for it.
func dialFailure(err error) string {
	text := status.Convert(err).Message()
	if _, after, ok := strings.Cut(text, "while dialing: "); ok {
		return strings.TrimSuffix(after, `"`)
	}
	return text
}

// ErrStopped is returned when the server ended the run normally.
var errStopped = errors.New("stopped by the server")

// Run joins the server and serves frames until the server stops the run,
// the connection breaks or ctx ends (SIGTERM: a clean stop).
func Run(ctx context.Context, opt Options) error {
	if opt.Log == nil {
		opt.Log = logging.New(os.Stderr, logging.Text, slog.LevelInfo, "eqclient "+opt.Node)
	}
	if opt.NewRenderer == nil {
		return errors.New("client: no renderer factory")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := dialServer(ctx, opt)
	if err != nil {
		return err
	}
	s := &session{stream: stream}
	defer s.close(cancel)

	// Frames arrive on the listener; the advertised host is the address
	// this client reaches the server from.
	host := "127.0.0.1"
	if conn, err := net.DialTimeout("tcp", opt.Server, 5*time.Second); err == nil {
		host, _, _ = net.SplitHostPort(conn.LocalAddr().String())
		conn.Close()
	}
	n := &node{log: opt.Log, token: opt.Token, name: opt.Node, session: s, senders: map[string]*sender{}, windowGone: make(chan error, 1)}
	ln, err := transport.Listen(net.JoinHostPort(host, "0"), opt.Token, n.arrive, opt.Log)
	if err != nil {
		return err
	}
	defer func() { ln.Close() }() // the listener it ends with
	if err := s.send(&control.ClientMsg{Hello: &control.Hello{Node: opt.Node, FrameAddr: ln.Addr(), PID: os.Getpid(), Build: control.Build()}}); err != nil {
		return fmt.Errorf("server refused or closed the session: %s", control.ExplainConnect(errors.New(s.refusal(err)), opt.TLS != nil))
	}
	// a refusal comes here or as the hello's send fails, as the stream
	// happens to close: both say it alike
	first, err := s.recv(ctx, 30*time.Second)
	if err != nil {
		return fmt.Errorf("server refused or closed the session: %s", control.ExplainConnect(err, opt.TLS != nil))
	}
	if first.Setup == nil {
		return errors.New("server sent no setup")
	}
	stopSetupHeartbeats := s.setupHeartbeats(&n.step)
	err = n.setup(first.Setup, opt)
	movedTo := ""
	if err == nil {
		if frameHost := configuredFrameHost(first.Setup.FrameHost, host, opt.Log); frameHost != host || first.Setup.FramePort > 0 {
			// no peer knows the first listener yet: the server tells
			// them the node's address once it is ready
			var moved *transport.Listener
			if moved, err = listenOnPort(ctx, frameHost, first.Setup.FramePort, opt, n.arrive); err == nil {
				ln.Close()
				ln, movedTo = moved, moved.Addr()
			} else {
				err = fmt.Errorf("taking frames on %s, its connection's in the config: %w", net.JoinHostPort(frameHost, strconv.Itoa(first.Setup.FramePort)), err)
			}
		}
	}
	if err == nil && first.Setup.FrameCert != nil {
		// the run's pixel links are encrypted with its keys
		var listen *tls.Config
		if listen, n.frameTLS, err = transport.RunTLS(first.Setup.FrameCert, first.Setup.FrameKey); err == nil {
			ln.SetTLS(listen)
			opt.Log.Info("frame links: TLS 1.3 with this run's keys")
		} else {
			err = fmt.Errorf("the run's frame-link keys: %w", err)
		}
	}
	if err == nil {
		n.frameBound.bound(ln, n.cfg)
		n.listener = ln
	}
	stopSetupHeartbeats()
	if err != nil {
		// say why before leaving, so the server need not wait for a join
		s.fail(ctx, err)
		n.logPanic(err)
		return err
	}
	defer n.shutdown()
	// the events of the set-up go with it: a fullscreen window's size on
	// its screen must reach the server before it plans the first frames
	if err := s.send(&control.ClientMsg{Ready: true, LostPipes: n.lostPipes, FrameAddr: movedTo, OnScreen: n.onScreen(), Events: n.takeQueued(nil)}); err != nil {
		return fmt.Errorf("the session ended as this client became ready: %s", s.refusal(err))
	}
	go s.heartbeats(ctx, n)
	go n.forwardEvents(ctx, s)
	err = n.serve(ctx, s)
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// configuredFrameHost is the address the node takes frames on: its config
// connection's hostname, where that names an address of this machine that
// is no loopback one (a cluster's data network), else reached, the
// address this client reaches the server from. A hostname that resolves
// to loopback (Debian's /etc/hosts gives the machine's own name 127.0.1.1)
// reaches no peer and is passed over; one that resolves to no address of
// this machine is passed over with a warning.
func configuredFrameHost(hostname, reached string, log *slog.Logger) string {
	if hostname == "" {
		return reached
	}
	lookup, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(lookup, hostname)
	if err != nil {
		log.Warn(fmt.Sprintf("connection hostname %q (%v): frames come on %s, the address that reaches the server", hostname, err, reached))
		return reached
	}
	own, _ := net.InterfaceAddrs()
	loopbackOnly := true
	for _, a := range addrs {
		ip := net.ParseIP(a)
		if ip == nil || ip.IsLoopback() {
			continue
		}
		loopbackOnly = false
		for _, o := range own {
			if n, ok := o.(*net.IPNet); ok && n.IP.Equal(ip) {
				return ip.String()
			}
		}
	}
	if !loopbackOnly {
		log.Warn(fmt.Sprintf("connection hostname %q is %v, no address of this machine: frames come on %s, the address that reaches the server", hostname, addrs, reached))
	}
	return reached
}

// portWait bounds the wait for a frame port in use: the node's client
// before this one (lost while frozen, or ending on another host) frees it
// once it notices.
const portWait = 10 * time.Second

// listenOnPort listens for frames on host:port, waiting up to portWait
// while another process holds the port.
func listenOnPort(ctx context.Context, host string, port int, opt Options, arrive func(*transport.Frame)) (*transport.Listener, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(portWait)
	for {
		ln, err := transport.Listen(addr, opt.Token, arrive, opt.Log)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return ln, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// session is the control stream: sends are serialised, receives happen on
// one goroutine.
type session struct {
	stream *control.Stream
	sendMu sync.Mutex
	closed bool // under sendMu
}

var errSessionClosed = errors.New("the session with the server is closed")

func (s *session) send(m *control.ClientMsg) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if s.closed {
		return errSessionClosed
	}
	return s.stream.Send(m)
}

// close ends the session between sends: gRPC's CloseSend may not run
// beside SendMsg (the heartbeats and events still send as Run returns).
// A send under way is ended by cancelling the stream's context, as flow
// control may hold it for as long as the server does not read.
func (s *session) close(cancel context.CancelFunc) {
	if !s.sendMu.TryLock() {
		cancel()
		s.sendMu.Lock()
	}
	defer s.sendMu.Unlock()
	s.closed = true
	s.stream.Close()
}

// failWait bounds the wait for the server to take a client's failure.
const failWait = 5 * time.Second

// fail tells the server why this client leaves during its set-up, and
// waits, bounded, for the server to end the stream: closing the connection
// at once can drop the message gRPC still holds queued, and the server
// would say only that the session ended.
func (s *session) fail(ctx context.Context, why error) {
	if s.send(&control.ClientMsg{Failed: why.Error()}) != nil {
		return
	}
	s.sendMu.Lock()
	s.stream.CloseSend()
	s.sendMu.Unlock()
	deadline := time.Now().Add(failWait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		if _, err := s.recv(ctx, left); err != nil {
			return
		}
	}
}

// refusal reads why a server ended the stream (a refusal arrives on
// receive).
func (s *session) refusal(err error) string {
	if _, rerr := s.stream.Recv(); rerr != nil {
		err = rerr
	}
	return control.ErrorText(err)
}

// recv receives one message, bounded by timeout (0: by ctx only).
func (s *session) recv(ctx context.Context, timeout time.Duration) (*control.ServerMsg, error) {
	type result struct {
		m   *control.ServerMsg
		err error
	}
	ch := make(chan result, 1)
	go func() {
		m, err := s.stream.Recv()
		ch <- result{m, err}
	}()
	var limit <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		limit = t.C
	}
	select {
	case r := <-ch:
		return r.m, r.err
	case <-limit:
		return nil, fmt.Errorf("no message from the server for %v", timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// setupStep is the step a client's set-up is in, and since when.
type setupStep struct {
	mu    sync.Mutex
	what  string
	since time.Time
}

func (st *setupStep) enter(what string) {
	st.mu.Lock()
	st.what, st.since = what, time.Now()
	st.mu.Unlock()
}

// String says the step and how long it has taken so far.
func (st *setupStep) String() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.what == "" {
		return "starting"
	}
	return fmt.Sprintf("%s, for %v", st.what, time.Since(st.since).Round(time.Second))
}

// setupHeartbeats tells the server, every heartbeat until stopped, that
// set-up goes on and which step it is in: a renderer factory may load the
// application's data for minutes, and the server tells that from a
// client that froze. stop returns once they have ended: called before
// the client says it is ready, nothing of set-up comes after.
func (s *session) setupHeartbeats(step *setupStep) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if err := s.send(&control.ClientMsg{Heartbeat: &control.Heartbeat{SettingUp: step.String()}}); err != nil {
					return
				}
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

func (s *session) heartbeats(ctx context.Context, n *node) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			h := procstat.Self()
			hb := &control.Heartbeat{Waits: n.waits(), Goroutines: h.Goroutines, RSS: h.RSS, Exiting: n.exiting.Load()}
			if err := s.send(&control.ClientMsg{Heartbeat: hb}); err != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
