//go:build !linux

package control

import "syscall"

// limitUnacknowledged: only Linux has TCP_USER_TIMEOUT; elsewhere the
// keep-alive probes find a host that is gone once the link is quiet.
func limitUnacknowledged(syscall.RawConn) error { return nil }
