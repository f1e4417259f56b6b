package server

import "testing"

// A client's frame address goes to every peer that sends it frames: one
// that is no host and port is refused at its join.
func TestFrameAddressesAreHostAndPort(t *testing.T) {
	for addr, want := range map[string]bool{
		"10.0.0.2:24711": true,
		"[::1]:4242":     true,
		"node1:1":        true,
		"":               false,
		"10.0.0.2":       false,
		":4242":          false,
		"10.0.0.2:0":     false,
		"10.0.0.2:65536": false,
		"10.0.0.2:http":  false,
		"a:b:c":          false,
	} {
		if got := validFrameAddr(addr); got != want {
			t.Errorf("%q: valid %v, want %v", addr, got, want)
		}
	}
}
