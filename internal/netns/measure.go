package netns

import (
	"io"
	"net"
	"slices"
	"time"
)

// Connect opens a TCP connection from host a to a listener on host b and
// returns both ends.
func Connect(a, b Host) (from, to net.Conn, err error) {
	var l net.Listener
	if err := b.Do(func() (err error) {
		l, err = net.Listen("tcp", b.Addr+":0")
		return err
	}); err != nil {
		return nil, nil, err
	}
	defer l.Close()
	if err := a.Do(func() (err error) {
		from, err = net.DialTimeout("tcp", l.Addr().String(), 5*time.Second)
		return err
	}); err != nil {
		return nil, nil, err
	}
	l.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	if to, err = l.Accept(); err != nil {
		from.Close()
		return nil, nil, err
	}
	return from, to, nil
}

// RoundTrip is the median time of a one-byte TCP exchange from host a to
// host b and back, over 200 exchanges on a connection opened for them.
func RoundTrip(a, b Host) (time.Duration, error) {
	from, to, err := Connect(a, b)
	if err != nil {
		return 0, err
	}
	defer from.Close()
	defer to.Close()
	go io.Copy(to, to)
	from.SetDeadline(time.Now().Add(30 * time.Second))
	const exchanges = 200
	times := make([]time.Duration, 0, exchanges)
	one := []byte{1}
	for range exchanges {
		start := time.Now()
		if _, err := from.Write(one); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(from, one); err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// Throughput is what one TCP stream from host a to host b carries in
// about d, in bytes per second.
func Throughput(a, b Host, d time.Duration) (float64, error) {
	from, to, err := Connect(a, b)
	if err != nil {
		return 0, err
	}
	defer to.Close()
	received := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, to)
		received <- n
	}()
	buf := make([]byte, 1<<20)
	start := time.Now()
	from.SetDeadline(start.Add(d + 10*time.Second))
	for time.Since(start) < d {
		if _, err := from.Write(buf); err != nil {
			from.Close()
			return 0, err
		}
	}
	from.Close()
	n := <-received
	return float64(n) / time.Since(start).Seconds(), nil
}
