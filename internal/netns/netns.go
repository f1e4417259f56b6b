// Package netns makes test clusters: hosts in Linux network namespaces on
// one private bridge, with addresses the test picked, removed again when
// the test ends (its processes killed), even when it fails. It needs root
// and iproute2; tests that use it skip, saying why, without them.
//
// Traffic between the hosts stays on the bridge: nothing is routed to or
// from the machine's own network.
package netns

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Host is one namespaced host.
type Host struct {
	Name string // the namespace
	Addr string // its IPv4 address on the cluster's bridge
}

// Cluster is the hosts of a test.
type Cluster struct {
	Hosts  []Host
	bridge string
}

// New makes n hosts on a bridge of their own, or skips the test when
// this machine cannot (not root, no ip, no namespaces).
func New(t testing.TB, n int) *Cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the namespace cluster needs root (CI runs tests as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the namespace cluster needs iproute2's ip")
	}
	var b [3]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:2])
	// a /24 of 10.0.0.0/8 picked at random, so that parallel runs differ
	subnet := fmt.Sprintf("10.%d.%d", 100+int(b[0])%100, b[2])
	c := &Cluster{bridge: "gqb" + id}
	t.Cleanup(c.remove)
	if out, err := exec.Command("ip", "netns", "add", "goeq-probe-"+id).CombinedOutput(); err != nil {
		t.Skipf("network namespaces are not available here: %v: %s", err, out)
	}
	exec.Command("ip", "netns", "del", "goeq-probe-"+id).Run()
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	run("link", "add", c.bridge, "type", "bridge")
	run("link", "set", c.bridge, "up")
	for i := 0; i < n; i++ {
		h := Host{Name: fmt.Sprintf("goeq-%s-h%d", id, i), Addr: fmt.Sprintf("%s.%d", subnet, 10+i)}
		c.Hosts = append(c.Hosts, h)
		veth := fmt.Sprintf("gq%sh%d", id, i)
		run("netns", "add", h.Name)
		run("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", h.Name)
		run("link", "set", veth, "master", c.bridge, "up")
		run("-n", h.Name, "addr", "add", h.Addr+"/24", "dev", "eth0")
		run("-n", h.Name, "link", "set", "eth0", "up")
		run("-n", h.Name, "link", "set", "lo", "up")
	}
	return c
}

// Command is a command run on host h.
func (h Host) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", h.Name, name}, args...)...)
}

// Exec is the command prefix that runs something on h (for a
// launch_command: Exec() + " %c").
func (h Host) Exec() string { return "ip netns exec " + h.Name }

// Shape limits what h sends to the others to bitsPerSecond with tc's
// token bucket, which lets a burst of a millisecond's worth (at least
// 16 KiB) through at full speed, as a switch port's buffer would.
func (h Host) Shape(bitsPerSecond float64) error {
	burst := max(int(bitsPerSecond/8/1000), 16<<10)
	out, err := h.Command("tc", "qdisc", "replace", "dev", "eth0", "root", "tbf",
		"rate", fmt.Sprintf("%.0fbit", bitsPerSecond), "burst", strconv.Itoa(burst), "latency", "50ms").CombinedOutput()
	if err != nil {
		return fmt.Errorf("tc on %s: %v: %s", h.Name, err, out)
	}
	return nil
}

// Do calls fn with the calling goroutine's thread in h's network
// namespace, so that the sockets fn opens (net.Listen, net.Dial) are h's;
// they stay h's after Do returns. fn must not leave its goroutine to open
// them.
func (h Host) Do(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	own, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return err
	}
	defer own.Close()
	target, err := os.Open("/var/run/netns/" + h.Name)
	if err != nil {
		return err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("entering %s: %w", h.Name, err)
	}
	defer func() {
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) != nil {
			// a thread left in another namespace must not run
			// anything else: keep it locked, so it exits with the
			// goroutine
			runtime.LockOSThread()
		}
	}()
	return fn()
}

// remove kills what runs on the hosts and deletes them and the bridge.
func (c *Cluster) remove() {
	for _, h := range c.Hosts {
		if out, err := exec.Command("ip", "netns", "pids", h.Name).Output(); err == nil {
			for _, f := range strings.Fields(string(out)) {
				if pid, err := strconv.Atoi(f); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		exec.Command("ip", "netns", "del", h.Name).Run()
	}
	exec.Command("ip", "link", "del", c.bridge).Run()
}
