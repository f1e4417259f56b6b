package control

import (
	"net"
	"sync"
	"time"
)

// A peer may connect to the control port and hold the connection without
// a word: gRPC gives each connection its goroutines and buffers (15,000
// such connections took 260 MB of the server's memory) for two minutes
// before the HTTP/2 preface, and for ever after it. So the server holds
// at most a bound of connections at once (Listen), closes one that has
// not sent the preface within handshakeTimeout, and one that has no
// session for idleTimeout (NewServer): a client's session is its
// connection's whole life.
var (
	handshakeTimeout = 10 * time.Second
	idleTimeout      = 30 * time.Second
)

// Listen listens on addr for the control plane, with at most maxConns
// connections open at once: past that, new ones wait in the kernel's
// backlog until one closes.
func Listen(addr string, maxConns int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &boundedListener{Listener: ln, slots: make(chan struct{}, maxConns), closed: make(chan struct{})}, nil
}

type boundedListener struct {
	net.Listener
	slots     chan struct{} // one per open connection
	closed    chan struct{}
	closeOnce sync.Once
}

func (l *boundedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	// what gRPC does on the connections it accepts, which it cannot do
	// on this one's wrapper: a client host that is gone fails the
	// server's sends within hostTimeout, not a quarter of an hour
	if tc, ok := c.(*net.TCPConn); ok {
		if raw, err := tc.SyscallConn(); err == nil {
			limitUnacknowledged(raw)
		}
	}
	return &slotConn{Conn: c, free: func() { <-l.slots }}, nil
}

func (l *boundedListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// slotConn gives its listener's slot back when it closes.
type slotConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
