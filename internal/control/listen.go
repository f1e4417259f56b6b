package control

import (
	"net"
	"time"

	"golang.org/x/net/netutil"
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
	return netutil.LimitListener(hostBoundListener{ln}, maxConns), nil
}

// hostBoundListener does what gRPC does on the connections it accepts,
// which it cannot do on the bound's wrappers: a client host that is gone
// fails the server's sends within hostTimeout, not a quarter of an hour.
type hostBoundListener struct{ net.Listener }

func (l hostBoundListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		if raw, err := tc.SyscallConn(); err == nil {
			limitUnacknowledged(raw)
		}
	}
	return c, err
}
