// Package netns makes test clusters: hosts in Linux network namespaces on
// one private bridge (or a delay line: NewDelayed), with addresses the
// test picked, removed again when the test ends (its processes killed),
// even when it fails. It needs root and iproute2; tests that use it skip,
// saying why, without them.
//
// Traffic between the hosts stays on the bridge or the delay line: nothing
// is routed to or from the machine's own network.
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
	id     string
	subnet string     // the hosts' /24, as "10.x.y"
	bridge string     // the bridge that joins the hosts (New)
	line   *delayLine // or the delay line (NewDelayed)
}

// New makes n hosts on a bridge of their own, or skips the test when
// this machine cannot (not root, no ip, no namespaces).
func New(t testing.TB, n int) *Cluster {
	t.Helper()
	c := newCluster(t)
	c.bridge = "gqb" + c.id
	c.run(t, "link", "add", c.bridge, "type", "bridge")
	c.run(t, "link", "set", c.bridge, "up")
	for i := 0; i < n; i++ {
		h := c.addHost(i)
		veth := fmt.Sprintf("gq%sh%d", c.id, i)
		c.run(t, "netns", "add", h.Name)
		c.run(t, "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", h.Name)
		c.run(t, "link", "set", veth, "master", c.bridge, "up")
		c.run(t, "-n", h.Name, "addr", "add", h.Addr+"/24", "dev", "eth0")
		c.run(t, "-n", h.Name, "link", "set", "eth0", "up")
		c.run(t, "-n", h.Name, "link", "set", "lo", "up")
	}
	return c
}

// newCluster checks that this machine can make namespaced hosts (it skips
// the test if not), picks the cluster's names and subnet, and arranges
// for everything made to be removed when the test ends.
func newCluster(t testing.TB) *Cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the namespace cluster needs root (CI runs tests as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the namespace cluster needs iproute2's ip")
	}
	var b [3]byte
	rand.Read(b[:])
	// a /24 of 10.0.0.0/8 picked at random, so that parallel runs differ
	c := &Cluster{id: hex.EncodeToString(b[:2]), subnet: fmt.Sprintf("10.%d.%d", 100+int(b[0])%100, b[2])}
	t.Cleanup(c.remove)
	probe := "goeq-probe-" + c.id
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("network namespaces are not available here: %v: %s", err, out)
	}
	exec.Command("ip", "netns", "del", probe).Run()
	return c
}

// addHost names host i and gives it its address.
func (c *Cluster) addHost(i int) Host {
	h := Host{Name: fmt.Sprintf("goeq-%s-h%d", c.id, i), Addr: fmt.Sprintf("%s.%d", c.subnet, 10+i)}
	c.Hosts = append(c.Hosts, h)
	return h
}

// run runs ip with args and fails the test if it fails.
func (c *Cluster) run(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
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

// remove kills what runs on the hosts and deletes them and the bridge or
// the delay line.
func (c *Cluster) remove() {
	if c.line != nil {
		c.line.stop()
	}
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
	if c.bridge != "" {
		exec.Command("ip", "link", "del", c.bridge).Run()
	}
}
