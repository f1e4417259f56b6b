package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

func float32bits(f float32) uint32     { return math.Float32bits(f) }
func float32frombits(b uint32) float32 { return math.Float32frombits(b) }

// Sender sends frames to one peer over one TCP connection.
type Sender struct {
	mu   sync.Mutex
	conn net.Conn
	tcp  *net.TCPConn // under conn (TLS or not): the kernel counts its progress
	// the kernel's counts where the current measurement began
	ackedFrom, busyFrom uint64
	measured            bool
	bandwidth           atomic.Uint64 // float64 bits: bytes per second
}

// busyWindow is how long the connection must have been busy for a
// measurement of its bandwidth: the kernel counts busy time in ticks of a
// few milliseconds.
const busyWindow = 50_000 // µs

// Bandwidth is the measured bandwidth to this peer (bytes per second; 0
// until measured), for choosing a codec: bytes delivered per second of the
// connection being busy, from the kernel's counts where it keeps them
// (Linux), else the rate of the last large writes. Timing writes alone is
// wrong when the socket buffer takes a whole frame at memory speed, as it
// does on a slow link that is not busy all the time.
func (s *Sender) Bandwidth() float64 { return math.Float64frombits(s.bandwidth.Load()) }

// Dial connects to a peer's frame listener and authenticates; with a
// TLS configuration (RunTLS's dial one) the link is encrypted.
func Dial(addr, token, node string, tlsConfig *tls.Config) (*Sender, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	tcp, _ := c.(*net.TCPConn)
	if tcp != nil {
		tcp.SetNoDelay(true)
	}
	if tlsConfig != nil {
		tc := tls.Client(c, tlsConfig)
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			c.Close()
			return nil, fmt.Errorf("TLS with the frame listener at %s: %w", addr, err)
		}
		tc.SetDeadline(time.Time{})
		c = tc
	}
	s := &Sender{conn: c, tcp: tcp}
	if err := writeMessage(c, kindAuth, auth{Token: token, Node: node}, nil); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// Send writes one frame (its Raw encoding) and updates the bandwidth
// estimate.
func (s *Sender) Send(f *Frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	if err := EncodeMessage(s.conn, f); err != nil {
		return err
	}
	if acked, busy, ok := tcpProgress(s.tcp); ok {
		s.measure(acked, busy)
	} else if d := time.Since(start).Seconds(); d > 0 && len(f.Raw) > 64<<10 {
		s.blend(float64(len(f.Raw)) / d)
	}
	return nil
}

// measure takes the kernel's counts after a send: once the connection has
// been busy for a window since the last measurement, its rate over that
// window; until the first window, the rate so far.
func (s *Sender) measure(acked, busy uint64) {
	window := busy - s.busyFrom
	switch {
	case window >= busyWindow:
		rate := float64(acked-s.ackedFrom) / (float64(window) / 1e6)
		if s.measured {
			s.blend(rate)
		} else {
			s.bandwidth.Store(math.Float64bits(rate))
		}
		s.ackedFrom, s.busyFrom, s.measured = acked, busy, true
	case !s.measured && busy > 0:
		s.bandwidth.Store(math.Float64bits(float64(acked) / (float64(busy) / 1e6)))
	}
}

// blend moves the bandwidth a part of the way to a new measurement.
func (s *Sender) blend(rate float64) {
	if old := s.Bandwidth(); old != 0 {
		rate = old + 0.3*(rate-old)
	}
	s.bandwidth.Store(math.Float64bits(rate))
}

// Close closes the connection.
func (s *Sender) Close() error { return s.conn.Close() }

// Listener accepts authenticated peers and hands their frames to a
// handler.
type Listener struct {
	ln      net.Listener
	token   string
	handler func(*Frame)
	limits  Limits
	Log     *slog.Logger
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]bool
	closing bool
	// from counts the open connections each peer node authenticated on;
	// drained are closed once a node's count is 0 (Drained)
	from    map[string]int
	drained map[string][]chan struct{}
	// unauthenticated counts connections that have not authenticated yet
	unauthenticated atomic.Int32
	refused         atomic.Int64
	tls             atomic.Pointer[tls.Config]
	// maxPixels is the bound on a frame's pixels (0: none); grown is
	// closed, and replaced, when it changes, and closed when the listener
	// closes
	boundMu   sync.Mutex
	maxPixels int
	grown     chan struct{}
	closed    chan struct{}
}

// Limits bound what peers can make a listener hold.
type Limits struct {
	// MaxPixels bounds a frame's width x height (0: the protocol's limit):
	// no frame is larger than the receiver's largest framebuffer.
	MaxPixels int
	// MessageTimeout bounds how long a message may take to arrive once
	// its prefix came (default 30 s); a peer may stay idle between them.
	MessageTimeout time.Duration
	// MaxUnauthenticated bounds connections waiting to authenticate
	// (default 16); more are closed at once.
	MaxUnauthenticated int
	// AuthTimeout bounds the time to authenticate (default 5 s).
	AuthTimeout time.Duration
}

// Listen listens on addr ("127.0.0.1:0" picks a port) with default
// limits.
func Listen(addr, token string, handler func(*Frame), logger *slog.Logger) (*Listener, error) {
	return ListenLimited(addr, token, handler, logger, Limits{})
}

// ListenLimited is Listen with limits.
func ListenLimited(addr, token string, handler func(*Frame), logger *slog.Logger, limits Limits) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	if limits.MessageTimeout <= 0 {
		limits.MessageTimeout = 30 * time.Second
	}
	if limits.MaxUnauthenticated <= 0 {
		limits.MaxUnauthenticated = 16
	}
	if limits.AuthTimeout <= 0 {
		limits.AuthTimeout = 5 * time.Second
	}
	l := &Listener{ln: ln, token: token, handler: handler, limits: limits, Log: logger, conns: map[net.Conn]bool{},
		from: map[string]int{}, drained: map[string][]chan struct{}{},
		maxPixels: limits.MaxPixels, grown: make(chan struct{}), closed: make(chan struct{})}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// SetMaxPixels bounds the frames accepted from now on (width x height;
// 0: the protocol's limit): a receiver knows its largest framebuffer once
// it has its config.
func (l *Listener) SetMaxPixels(n int) {
	l.boundMu.Lock()
	defer l.boundMu.Unlock()
	l.maxPixels = n
	close(l.grown)
	l.grown = make(chan struct{})
}

// admit says whether a frame of w x h pixels is within the bound. One
// past it waits for the bound to grow, up to the message timeout: a peer
// may send its part of a window that grew on another node before this
// node has read the frame's plan, which grows the bound here.
func (l *Listener) admit(w, h int) error {
	var wait <-chan time.Time
	for {
		l.boundMu.Lock()
		bound, grown := l.maxPixels, l.grown
		l.boundMu.Unlock()
		if bound <= 0 || w*h <= bound {
			return nil
		}
		if wait == nil {
			t := time.NewTimer(l.limits.MessageTimeout)
			defer t.Stop()
			wait = t.C
		}
		select {
		case <-grown:
		case <-wait:
			return malformed("frame %dx%d is larger than any framebuffer here (%d pixels), and stayed so for %v", w, h, bound, l.limits.MessageTimeout)
		case <-l.closed:
			return net.ErrClosed
		}
	}
}

// SetTLS encrypts the connections accepted from now on (RunTLS's listen
// configuration): a client learns the run's keys with its setup, after it
// listens and before any peer sends it a frame.
func (l *Listener) SetTLS(c *tls.Config) { l.tls.Store(c) }

// Refused counts connections closed for exceeding the unauthenticated
// limit.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Addr is the listening address.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		if l.closing {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.conns[c] = true
		l.mu.Unlock()
		l.wg.Add(1)
		go l.serve(c)
	}
}

func (l *Listener) serve(raw net.Conn) {
	defer l.wg.Done()
	defer func() {
		l.mu.Lock()
		delete(l.conns, raw)
		l.mu.Unlock()
		raw.Close()
	}()
	c := raw // or its TLS session
	if int(l.unauthenticated.Add(1)) > l.limits.MaxUnauthenticated {
		l.unauthenticated.Add(-1)
		if l.refused.Add(1)%100 == 1 {
			l.Log.Warn(fmt.Sprintf("frame transport: refused %s: %d connections are already waiting to authenticate", c.RemoteAddr(), l.limits.MaxUnauthenticated))
		}
		return
	}
	// no read buffer: a frame is a prefix, a small header and a large
	// payload read straight into its buffer
	c.SetReadDeadline(time.Now().Add(l.limits.AuthTimeout))
	if cfg := l.tls.Load(); cfg != nil {
		tc := tls.Server(c, cfg)
		c.SetWriteDeadline(time.Now().Add(l.limits.AuthTimeout))
		if err := tc.Handshake(); err != nil {
			l.unauthenticated.Add(-1)
			l.Log.Warn(fmt.Sprintf("frame transport: refused %s: TLS: %v", c.RemoteAddr(), err))
			return
		}
		c.SetWriteDeadline(time.Time{})
		c = tc
	}
	node, err := checkAuth(c, l.token)
	l.unauthenticated.Add(-1)
	if err != nil {
		l.Log.Warn(fmt.Sprintf("frame transport: refused %s (node %q): %v", c.RemoteAddr(), node, err))
		return
	}
	l.mu.Lock()
	l.from[node]++
	l.mu.Unlock()
	defer l.left(node) // after every frame read is handed on
	for {
		c.SetReadDeadline(time.Time{}) // idle between frames is fine
		kind, hl, pl, err := readPrefix(c)
		if err == nil {
			// once a message starts, all of it must come in time
			c.SetReadDeadline(time.Now().Add(l.limits.MessageTimeout))
			var f *Frame
			if f, err = decodeFrame(c, kind, hl, pl, l.admit); err == nil {
				l.handler(f)
				continue
			}
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
			l.Log.Warn(fmt.Sprintf("frame transport: dropping connection from %s (node %q): %v", c.RemoteAddr(), node, err))
		}
		return
	}
}

// Drained returns a channel closed once no connection from a peer node
// (as it authenticated) is open: every frame it sent that came has been
// handed on. A peer that dies closes its connections at once, after what
// it wrote; one that froze or lost its link keeps them open.
func (l *Listener) Drained(node string) <-chan struct{} {
	ch := make(chan struct{})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.from[node] == 0 {
		close(ch)
	} else {
		l.drained[node] = append(l.drained[node], ch)
	}
	return ch
}

// left counts a node's connection closed.
func (l *Listener) left(node string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.from[node]--; l.from[node] > 0 {
		return
	}
	delete(l.from, node)
	for _, ch := range l.drained[node] {
		close(ch)
	}
	delete(l.drained, node)
}

// Close stops listening and closes every connection.
func (l *Listener) Close() error {
	l.mu.Lock()
	if !l.closing {
		close(l.closed) // a frame waiting for the bound to grow waits no more
	}
	l.closing = true
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	err := l.ln.Close()
	l.wg.Wait()
	return err
}
