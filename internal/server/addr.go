package server

import (
	"net"
	"os"
	"strconv"

	"github.com/goeq/goeq/internal/compound"
)

// allLocal reports whether every node of cfg runs on this machine.
func allLocal(cfg *compound.Config) bool {
	for _, n := range cfg.Nodes {
		if !isLocal(n.Host) {
			return false
		}
	}
	return true
}

// runsHere is whether a node on host has its client on this machine:
// under --local every node does.
func (s *server) runsHere(host string) bool { return s.opt.Local || isLocal(host) }

// isLocal reports whether a node runs on this machine: no host, a
// loopback name or address, this machine's name, or an address of one of
// its interfaces.
func isLocal(host string) bool {
	switch host {
	case "", "localhost":
		return true
	}
	if h, _ := os.Hostname(); h == host {
		return true
	}
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		addrs, err := net.LookupHost(host)
		if err != nil {
			return false
		}
		ips = ips[:0]
		for _, a := range addrs {
			ips = append(ips, net.ParseIP(a))
		}
	}
	own, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip == nil {
			continue
		}
		if ip.IsLoopback() {
			return true
		}
		for _, a := range own {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// listenAddr is where the control server listens when --listen does not
// say: loopback when every node runs here (--local, or hosts of this
// machine); else the config's server connection when it names one;
// otherwise every interface (clients on other hosts must reach it, and
// each is told the address that routes to it).
func (s *server) listenAddr(conns []compound.Connection) string {
	if s.opt.Local {
		return "127.0.0.1:0"
	}
	for _, c := range conns {
		if c.Hostname != "" && c.TCP() {
			return net.JoinHostPort(c.Hostname, strconv.Itoa(c.Port))
		}
	}
	if s.opt.NoLaunch {
		return "127.0.0.1:0"
	}
	for _, id := range s.order {
		if !isLocal(s.nodes[id].model.Host) {
			return ":0"
		}
	}
	return "127.0.0.1:0"
}

// addrFor is the control address a node's client is told: the listening
// address, or when that is every interface, an address of this machine
// the node's peers reach too, for its client advertises its frame address
// on the interface it reaches the server through. That is, for a node
// here, its configured host (when that names this machine other than by
// loopback) or the route to a node elsewhere; for a node elsewhere, the
// route to it.
func (s *server) addrFor(nc *nodeConn, listening net.Addr) string {
	host, port, err := net.SplitHostPort(listening.String())
	if err != nil {
		return listening.String()
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
		return listening.String()
	}
	if !s.runsHere(nc.model.Host) {
		if a := routeTo(nc.model.Host); a != "" {
			return net.JoinHostPort(a, port)
		}
		// a host only its launcher resolves (an ssh alias): this
		// machine's name is the best guess
		if h, err := os.Hostname(); err == nil {
			if _, err := net.LookupHost(h); err == nil {
				return net.JoinHostPort(h, port)
			}
		}
		return listening.String()
	}
	if h := nc.model.Host; h != "" && !isLoopback(h) {
		return net.JoinHostPort(h, port)
	}
	for _, id := range s.order {
		if other := s.nodes[id].model.Host; !s.runsHere(other) {
			if a := routeTo(other); a != "" {
				return net.JoinHostPort(a, port)
			}
		}
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// routeTo is this machine's address on the route to host ("" when there
// is none). A UDP "connection" sends nothing: it only picks the route.
func routeTo(host string) string {
	c, err := net.Dial("udp", net.JoinHostPort(host, "9"))
	if err != nil {
		return ""
	}
	defer c.Close()
	if a, ok := c.LocalAddr().(*net.UDPAddr); ok {
		return a.IP.String()
	}
	return ""
}

// isLoopback reports whether host is a loopback name or address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// frameConnection is where a node takes frames, as its config says: its
// frame connection's hostname and port, for a node on another host (its
// data network, and the port a firewall there opens to the others, as for
// Equalizer's node listeners). For a node on this machine it is "" and 0:
// any free port on the interface that reaches the server, where nodes
// naming one port would take it from each other; so is the port of nodes
// that share a host and name one port (check warns of them).
func (s *server) frameConnection(n *compound.Node) (host string, port int) {
	c := n.FrameConnection()
	if c == nil || s.runsHere(n.Host) {
		return "", 0
	}
	if s.cfg.SharesFramePort(n) != nil {
		return c.Hostname, 0
	}
	return c.Hostname, c.Port
}

// validFrameAddr reports whether a client's frame address is a host and
// a port its peers can dial.
func validFrameAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || len(addr) > 300 {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n <= 65535
}
