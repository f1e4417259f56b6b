package transport

import (
	"errors"
	"io"
	"log"
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
	mu        sync.Mutex
	conn      net.Conn
	bandwidth atomic.Uint64 // float64 bits: measured goodput, bytes per second
}

// Bandwidth is the measured goodput to this peer (bytes per second; 0
// until measured), for choosing a codec.
func (s *Sender) Bandwidth() float64 { return math.Float64frombits(s.bandwidth.Load()) }

// Dial connects to a peer's frame listener and authenticates.
func Dial(addr, token, node string) (*Sender, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	s := &Sender{conn: c}
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
	if d := time.Since(start).Seconds(); d > 0 && len(f.Raw) > 64<<10 {
		bw, old := float64(len(f.Raw))/d, s.Bandwidth()
		if old != 0 {
			bw = old + 0.3*(bw-old)
		}
		s.bandwidth.Store(math.Float64bits(bw))
	}
	return nil
}

// Close closes the connection.
func (s *Sender) Close() error { return s.conn.Close() }

// Listener accepts authenticated peers and hands their frames to a
// handler.
type Listener struct {
	ln      net.Listener
	token   string
	handler func(*Frame)
	Log     *log.Logger
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]bool
	closing bool
}

// Listen listens on addr ("127.0.0.1:0" picks a port).
func Listen(addr, token string, handler func(*Frame), logger *log.Logger) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = log.Default()
	}
	l := &Listener{ln: ln, token: token, handler: handler, Log: logger, conns: map[net.Conn]bool{}}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

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

func (l *Listener) serve(c net.Conn) {
	defer l.wg.Done()
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		c.Close()
	}()
	// no read buffer: a frame is a prefix, a small header and a large payload
	// read straight into its buffer
	r := c
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	node, err := checkAuth(r, l.token)
	if err != nil {
		l.Log.Printf("frame transport: refused %s (node %q): %v", c.RemoteAddr(), node, err)
		return
	}
	c.SetReadDeadline(time.Time{})
	for {
		f, err := DecodeMessage(r)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				l.Log.Printf("frame transport: dropping connection from %s (node %q): %v", c.RemoteAddr(), node, err)
			}
			return
		}
		l.handler(f)
	}
}

// Close stops listening and closes every connection.
func (l *Listener) Close() error {
	l.mu.Lock()
	l.closing = true
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	err := l.ln.Close()
	l.wg.Wait()
	return err
}
