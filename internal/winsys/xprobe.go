package winsys

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// xAnswers reports whether the X server of display answers within bound:
// it connects as Xlib does (a local display's socket, abstract first; a
// host's TCP port 6000 plus the display number) and sends the connection
// set-up without authorisation. Any reply (accepted, refused, asked to
// authenticate) or the server closing the connection is an answer; a
// display nobody listens on is one too, left to Xlib to say what is wrong.
//
// It uses no Xlib: XOpenDisplay holds Xlib's lock of the whole process
// while it waits for the server, so one left waiting on a server that
// never answers held up every display the process opened after it (a
// pipe's X screen on another, healthy server waited out its bound too).
func xAnswers(display string, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	conn, err := dialX(display, bound)
	if err != nil {
		return !isTimeout(err)
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	// byte order 'l' (little-endian), protocol 11.0, no authorisation
	setup := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := conn.Write(setup); err != nil {
		return !isTimeout(err)
	}
	var b [1]byte
	_, err = conn.Read(b[:])
	return !isTimeout(err)
}

func isTimeout(err error) bool {
	var timeout net.Error
	return errors.As(err, &timeout) && timeout.Timeout()
}

// dialX connects to the X server of display ([protocol/][host]:number
// [.screen]), as Xlib's XCB does.
func dialX(display string, bound time.Duration) (net.Conn, error) {
	colon := strings.LastIndex(display, ":")
	if colon < 0 {
		return nil, os.ErrNotExist
	}
	host, number := display[:colon], display[colon+1:]
	if dot := strings.Index(number, "."); dot >= 0 {
		number = number[:dot]
	}
	n, err := strconv.Atoi(number)
	if err != nil || n < 0 {
		return nil, os.ErrNotExist
	}
	protocol := ""
	if slash := strings.Index(host, "/"); slash >= 0 && !strings.HasPrefix(host, "/") {
		protocol, host = host[:slash], host[slash+1:]
	}
	d := net.Dialer{Timeout: bound}
	switch {
	case strings.HasPrefix(host, "/"): // a socket's path, as launchd gives it
		return d.Dial("unix", display[:colon])
	case host == "" || host == "unix" || protocol == "unix":
		path := "/tmp/.X11-unix/X" + strconv.Itoa(n)
		if c, err := d.Dial("unix", "@"+path); err == nil {
			return c, nil
		}
		return d.Dial("unix", path)
	}
	return d.Dial("tcp", net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(6000+n)))
}
