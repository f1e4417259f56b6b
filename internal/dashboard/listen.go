package dashboard

import (
	"net"

	"golang.org/x/net/netutil"
)

// maxConns bounds the dashboard's connections at once: viewers' streams
// (maxStreams), their pages and keep-alive connections, and scrapes of
// /metrics. A peer that connects and says nothing holds its connection
// for the header timeout; 15,000 of them had taken 114 MB of the server's
// memory and 14,000 of its files.
const maxConns = 4 * maxStreams

// Listen listens on addr for the dashboard, with at most maxConns
// connections open at once: past that, new ones wait in the kernel's
// backlog until one closes.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return netutil.LimitListener(ln, maxConns), nil
}
