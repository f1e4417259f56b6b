package netns

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// NewDelayed makes n hosts whose links add oneWay of latency to every
// packet, in each direction, as a longer or switched link does.
//
// tc's netem would add it in the kernel, but not every kernel has it (this
// project's machines have tbf, htb and pfifo only, and no fq for BPF
// departure times), so the hosts are joined by a delay line instead of the
// bridge: each host's eth0 is a tun device, and the test process forwards
// the packets between them, holding each one until oneWay after it left
// its host. The hosts' addresses, eth0 and Shape work as in New (tbf on a
// tun device shapes what the host sends), so a test or benchmark runs
// unchanged on either. The delay is at least oneWay, and more by the
// writer's lateness (see write); RoundTrip measures what it came to.
func NewDelayed(t testing.TB, n int, oneWay time.Duration) *Cluster {
	t.Helper()
	c := newCluster(t)
	if err := tunDevice(); err != nil {
		t.Skipf("a delayed cluster needs /dev/net/tun: %v", err)
	}
	line := &delayLine{delay: oneWay, byAddr: map[[4]byte]*port{}}
	c.line = line
	for i := 0; i < n; i++ {
		h := c.addHost(i)
		c.run(t, "netns", "add", h.Name)
		tun, err := openTun(h, "eth0")
		if err != nil {
			t.Fatalf("tun on %s: %v", h.Name, err)
		}
		p := &port{tun: tun, queue: make(chan packet, portQueue)}
		line.ports = append(line.ports, p)
		line.byAddr[ipv4(h.Addr)] = p
		// a large MTU: the tun device has no segmentation offload, and
		// a packet per 1500 bytes would make the forwarding, not the
		// shaping, the bound at 10 Gbit/s
		c.run(t, "-n", h.Name, "link", "set", "eth0", "mtu", "65000", "up")
		c.run(t, "-n", h.Name, "addr", "add", h.Addr+"/24", "dev", "eth0")
		c.run(t, "-n", h.Name, "link", "set", "lo", "up")
	}
	line.start()
	return c
}

// portQueue bounds the packets a port holds, as a switch port's buffer
// does: at 10 Gbit/s a millisecond is under 20 packets of 64 KB.
const portQueue = 512

// delayLine forwards IPv4 packets between the hosts' tun devices by their
// destination address, each held until delay after it was read.
type delayLine struct {
	delay   time.Duration
	ports   []*port
	byAddr  map[[4]byte]*port
	readers sync.WaitGroup
	writers sync.WaitGroup
}

// port is one host's tun device and the packets on their way to it.
type port struct {
	tun   *os.File
	queue chan packet
}

type packet struct {
	due  time.Time
	data []byte
}

func (l *delayLine) start() {
	for _, p := range l.ports {
		l.readers.Add(1)
		go l.read(p)
		l.writers.Add(1)
		go l.write(p)
	}
}

// read takes what a host sends and queues it for the host it is addressed
// to; packets to no host (IPv6 neighbour discovery and the like) and
// packets that find the queue full are dropped, as a switch would.
func (l *delayLine) read(from *port) {
	defer l.readers.Done()
	buf := make([]byte, 1<<16)
	for {
		n, err := from.tun.Read(buf)
		if err != nil {
			return
		}
		now := time.Now()
		if n < 20 || buf[0]>>4 != 4 {
			continue
		}
		to := l.byAddr[[4]byte(buf[16:20])]
		if to == nil {
			continue
		}
		select {
		case to.queue <- packet{due: now.Add(l.delay), data: append([]byte(nil), buf[:n]...)}:
		default:
		}
	}
}

// write hands each queued packet to its host once it is due, never
// before. Go's timers wake up to a millisecond late when the process is
// idle, so the writer sleeps with nanosleep on a thread of its own whose
// timer slack is a nanosecond, learns how late it wakes (about 40 µs
// here) to ask for that much less, and spins through what an early wake
// leaves.
func (l *delayLine) write(to *port) {
	defer l.writers.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	var late time.Duration // how late a sleep wakes, learnt
	for p := range to.queue {
		if wait := time.Until(p.due) - late; wait > 0 {
			ts := unix.NsecToTimespec(wait.Nanoseconds())
			unix.Nanosleep(&ts, nil)
			err := time.Since(p.due)
			late = min(max(late+err/8, 0), l.delay/2)
			for time.Now().Before(p.due) {
			}
		}
		to.tun.Write(p.data)
	}
}

// stop ends the forwarding and closes the tun devices (which removes them).
func (l *delayLine) stop() {
	for _, p := range l.ports {
		p.tun.Close()
	}
	l.readers.Wait()
	for _, p := range l.ports {
		close(p.queue)
	}
	l.writers.Wait()
}

// tunDevice makes sure /dev/net/tun exists, making the node where a
// minimal /dev lacks it (containers often do); the kernel must have tun.
func tunDevice() error {
	if _, err := os.Stat("/dev/net/tun"); err == nil {
		return nil
	}
	if err := os.MkdirAll("/dev/net", 0o755); err != nil {
		return err
	}
	if err := unix.Mknod("/dev/net/tun", unix.S_IFCHR|0o600, int(unix.Mkdev(10, 200))); err != nil {
		return fmt.Errorf("making /dev/net/tun: %w", err)
	}
	return nil
}

// openTun makes a tun device called name in h's namespace; its file is
// non-blocking, so a Close ends a Read.
func openTun(h Host, name string) (*os.File, error) {
	var f *os.File
	err := h.Do(func() error {
		// the device is made in the namespace of the thread that opens it
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			unix.Close(fd)
			return err
		}
		ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
		if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
			unix.Close(fd)
			return fmt.Errorf("TUNSETIFF: %w", err)
		}
		f = os.NewFile(uintptr(fd), "/dev/net/tun:"+name)
		return nil
	})
	return f, err
}

func ipv4(addr string) [4]byte {
	var b [4]byte
	fmt.Sscanf(addr, "%d.%d.%d.%d", &b[0], &b[1], &b[2], &b[3])
	return b
}
