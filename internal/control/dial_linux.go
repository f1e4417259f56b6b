package control

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// limitUnacknowledged makes the kernel give a connection up when data it
// sent stays unacknowledged for hostTimeout (TCP_USER_TIMEOUT): a server
// host that is gone, or a cut link. Otherwise retransmissions would keep
// it open for a quarter of an hour.
func limitUnacknowledged(c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(hostTimeout.Milliseconds()))
	})
	if err != nil {
		return err
	}
	return serr
}
