// Package nettest makes the programs that tests meet at the other end of
// a connection.
package nettest

import (
	"net"
	"testing"
)

// Serve listens on loopback for the rest of the test, calls handle with
// each connection it accepts (on its accepting goroutine: handle starts
// its own for long work), and returns its address. Connections are closed
// when the test ends.
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
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
