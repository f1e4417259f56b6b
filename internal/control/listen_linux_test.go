package control

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// The control listener's connections give up on a client host that is
// gone as gRPC's own would (TCP_USER_TIMEOUT), which gRPC cannot set on
// the bound's wrappers.
func TestAcceptedConnectionsGiveUpOnAGoneHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	accepted, err := hostBoundListener{ln}.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	raw, err := accepted.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ms int
	var serr error
	raw.Control(func(fd uintptr) { ms, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT) })
	if serr != nil || ms != int(hostTimeout.Milliseconds()) {
		t.Errorf("TCP_USER_TIMEOUT %d ms (%v), want %d", ms, serr, hostTimeout.Milliseconds())
	}
}
