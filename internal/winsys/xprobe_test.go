package winsys

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/nettest"
	"github.com/goeq/goeq/internal/xtest"
)

// silentDisplay is an X display on a TCP peer that takes the connection
// and never answers: a hung server.
func silentDisplay(t *testing.T) string {
	_, portText, _ := net.SplitHostPort(nettest.Peer(t, ""))
	port, _ := strconv.Atoi(portText)
	return fmt.Sprintf("127.0.0.1:%d", port-6000)
}

// A display whose server never answers does not hold up another's: a
// pipe's X screen on a healthy server opens after one on a hung server was
// given up. XOpenDisplay holds Xlib's lock of the whole process while it
// waits for a server, and the healthy display waited out its bound behind
// the hung one's, said not to answer either.
func TestAHungDisplayDoesNotHoldUpAnother(t *testing.T) {
	healthy := xtest.Display(t, 320, 240)
	hung := silentDisplay(t)
	defer func(was time.Duration) { displayAnswerBound = was }(displayAnswerBound)
	displayAnswerBound = 2 * time.Second
	if _, err := OpenX11Screen(hung + ".0"); err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("a pipe on the hung display: %v; want it said not to answer", err)
	}
	if n, _ := screensWithin(hung, time.Second); n != 0 {
		t.Fatalf("the hung display counts %d screens", n)
	}
	sys, err := OpenX11Screen(healthy + ".0")
	if err != nil {
		t.Fatalf("a pipe on the healthy display, after the hung one: %v", err)
	}
	sys.Close()
}

// The probe reaches a server as Xlib does, by each spelling of a local
// display (its abstract socket, the socket's file), and counts a display
// nobody serves, or a server that closes the connection, as answering:
// Xlib says what is wrong with those. Only silence is not an answer.
func TestTheProbeTellsSilenceFromAnAnswer(t *testing.T) {
	display := xtest.Display(t, 320, 240)
	n := strings.TrimPrefix(display, ":")
	closing := nettest.Serve(t, func(c net.Conn) { c.Close() })
	_, closingPort, _ := net.SplitHostPort(closing)
	port, _ := strconv.Atoi(closingPort)
	for _, c := range []struct {
		display string
		want    bool
	}{
		{display, true},
		{display + ".0", true},
		{"unix:" + n + ".0", true},
		{"unix/:" + n, true},
		{"/tmp/.X11-unix/X" + n + ":" + n, true},
		{":" + strconv.Itoa(6000-1), true},                 // nobody serves it
		{fmt.Sprintf("127.0.0.1:%d", port-6000), true},     // closes at once
		{fmt.Sprintf("[127.0.0.1]:%d.1", port-6000), true}, // bracketed host
		{silentDisplay(t), false},
	} {
		if got := xAnswers(c.display, 500*time.Millisecond); got != c.want {
			t.Errorf("%s: answers %v, want %v", c.display, got, c.want)
		}
	}
}
