package transport

import (
	"net"

	"golang.org/x/sys/unix"
)

// tcpProgress is what the kernel counts of a connection: bytes the peer
// acknowledged, and microseconds the connection had data in flight without
// waiting for the receiver's window (a receiver slow to read is not the
// link). Their ratio over a while is the rate the link delivers while
// there is something to send, whatever the gaps between frames.
func tcpProgress(c *net.TCPConn) (acked, busyMicros uint64, ok bool) {
	if c == nil {
		return 0, 0, false
	}
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	raw.Control(func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			acked, busyMicros, ok = info.Bytes_acked, info.Busy_time-info.Rwnd_limited, true
		}
	})
	return acked, busyMicros, ok
}
