// Package nettest makes the programs that tests meet at the other end of
// a connection.
package nettest

import (
	"net"
	"sync"
	"testing"
)

// Serve listens on loopback for the rest of the test, calls handle with
// each connection it accepts (on its accepting goroutine: handle starts
// its own for long work), and returns its address. Connections are closed
// when the test ends, those accepted as it ended too: one registered then
// with t.Cleanup was never closed, and a client waiting on it (Xlib,
// holding its process-wide lock) held up the package's later tests.
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	ended := false
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		ended = true
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if ended {
				c.Close()
			} else {
				conns = append(conns, c)
			}
			mu.Unlock()
			handle(c)
		}
	}()
	return ln.Addr().String()
}

// Peer is a program that writes greeting to each connection (none: one
// that never answers, a hung server) and then holds it open, unanswered,
// until the test ends. It returns its address.
func Peer(t testing.TB, greeting string) string {
	t.Helper()
	return Serve(t, func(c net.Conn) {
		if greeting != "" {
			c.Write([]byte(greeting))
		}
	})
}
