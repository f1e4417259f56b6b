package appconn

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/nettest"
	"github.com/goeq/goeq/internal/server"
)

// A peer that claims a big first message, or presents another token, is
// refused with the reason and dropped; the application with the token is
// then accepted, and what it says arrives.
func TestAcceptRefusesUntilTheTokenComes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var refusals []string
	got := make(chan *Session, 1)
	go func() {
		s, err := Accept(context.Background(), ln, "secret", func(peer string, err error) {
			mu.Lock()
			refusals = append(refusals, err.Error())
			mu.Unlock()
		})
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	refusedWith := func(send func(net.Conn)) string {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		send(c)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var m toApp
		if err := read(c, maxAuth, &m); err != nil {
			t.Fatalf("no answer: %v", err)
		}
		return m.Refused
	}
	// 512 MiB claimed before authenticating: refused on the length alone
	if r := refusedWith(func(c net.Conn) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], 512<<20)
		c.Write(n[:])
	}); !strings.Contains(r, "more than the 4096 allowed") {
		t.Errorf("a 512 MiB first message: refused with %q", r)
	}
	// an eqclient given the application's port: its gRPC preface is text
	if r := refusedWith(func(c net.Conn) { c.Write([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")) }); !strings.Contains(r, `it sent "PRI ", which is no goeq application message`) {
		t.Errorf("a gRPC preface: refused with %q", r)
	}
	if r := refusedWith(func(c net.Conn) { write(c, auth{"guess"}) }); !strings.Contains(r, "token does not match") {
		t.Errorf("a wrong token: refused with %q", r)
	}
	// the application: Run drives it; the session sees its hello and frame
	frames := make(chan server.AppFrame, 1)
	frames <- server.AppFrame{Data: []byte(`{"a":1}`)}
	close(frames)
	ran := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), ln.Addr().String(), "secret", Hello{Executable: "/bin/app", ClientArgs: []string{"--c"}},
			&server.App{Frames: frames})
		ran <- err
	}()
	s := <-got
	if s == nil {
		t.FailNow()
	}
	if s.Hello.Executable != "/bin/app" || len(s.Hello.ClientArgs) != 1 {
		t.Errorf("hello %+v", s.Hello)
	}
	f, ok := <-s.App.Frames
	if !ok || string(f.Data) != `{"a":1}` {
		t.Errorf("frame %q (%v)", f.Data, ok)
	}
	if _, ok := <-s.App.Frames; ok {
		t.Errorf("the application's exit did not end its frames")
	}
	if err := s.Gone(); err != nil {
		t.Errorf("an application that exited is said to be gone: %v", err)
	}
	s.End(&server.Summary{Frames: 1}, nil)
	if err := s.Gone(); err != nil {
		t.Errorf("the server's end of the connection is said to be the application gone: %v", err)
	}
	if err := <-ran; err != nil {
		t.Errorf("the application's run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refusals) != 3 {
		t.Errorf("refusals logged: %q", refusals)
	}
}

// An application whose server never answers its token (another program
// on the port, a stopped process) gives up with an error that says so:
// it waited two minutes, until TCP gave up.
func TestRunGivesUpOnASilentServer(t *testing.T) {
	defer func(was time.Duration) { authTimeout = was }(authTimeout)
	authTimeout = 200 * time.Millisecond
	_, err := Run(context.Background(), nettest.Peer(t, ""), "token", Hello{Executable: "app"}, &server.App{})
	if err == nil || !strings.Contains(err.Error(), "did not answer the token within") {
		t.Errorf("a silent server: %v", err)
	}
}

// An application given the port of another program that speaks first (an
// sshd's banner) says what it got, at once: it said "a message of
// 1397966893 bytes, more than the 4096 allowed".
func TestRunSaysWhatAnotherProgramSent(t *testing.T) {
	sshd := nettest.Peer(t, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
	_, err := Run(context.Background(), sshd, "token", Hello{Executable: "app"}, &server.App{})
	if err == nil || !strings.Contains(err.Error(), `did not answer the token: it sent "SSH-", which is no goeq application message`) {
		t.Errorf("an sshd: %v", err)
	}
}

// An application whose connection ends without its exit (killed, crashed)
// ends its frames, as an exit would, and the session says why: eqserver
// then reports it and exits 1 rather than 0.
func TestAnApplicationThatGoesWithoutExitingIsGone(t *testing.T) {
	ln, got := acceptSecret(t)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	write(c, auth{"secret"})
	var welcome toApp
	if err := read(c, maxAuth, &welcome); err != nil || !welcome.Welcome {
		t.Fatalf("no welcome: %+v, %v", welcome, err)
	}
	write(c, toServer{Hello: &Hello{Executable: "/bin/app"}})
	write(c, toServer{Frame: &server.AppFrame{Data: []byte("1")}})
	s := <-got
	if s == nil {
		t.FailNow()
	}
	if f, ok := <-s.App.Frames; !ok || string(f.Data) != "1" {
		t.Fatalf("frame %q (%v)", f.Data, ok)
	}
	if err := s.Gone(); err != nil {
		t.Errorf("an application still connected is said to be gone: %v", err)
	}
	c.Close() // as a killed process's connection closes
	select {
	case _, ok := <-s.App.Frames:
		if ok {
			t.Errorf("a frame after the connection closed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frames did not end when the application's connection closed")
	}
	if err := s.Gone(); err == nil {
		t.Errorf("an application whose connection closed without its exit is not said to be gone")
	}
	s.End(&server.Summary{Frames: 1}, nil)
}

// The run's end reaches an application that reads late while frames it
// sent wait unread in the session: closing a socket that holds unread
// bytes resets the connection, and the reset threw away what the
// application had not yet received, the end with it, so that it reported
// "connection reset by peer" rather than how the run ended.
func TestTheRunsEndReachesAnApplicationThatReadsLate(t *testing.T) {
	ln, got := acceptSecret(t)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	write(c, auth{"secret"})
	var welcome toApp
	if err := read(c, maxAuth, &welcome); err != nil || !welcome.Welcome {
		t.Fatalf("no welcome: %+v, %v", welcome, err)
	}
	write(c, toServer{Hello: &Hello{Executable: "/bin/app"}})
	// frames the run does not take: the first waits in the session, the
	// rest on its socket
	go func() {
		for range 64 {
			if write(c, toServer{Frame: &server.AppFrame{Data: make([]byte, 1024)}}) != nil {
				return
			}
		}
	}()
	s := <-got
	if s == nil {
		t.FailNow()
	}
	// the application reads after a while, up to the end, and closes its
	// connection, as Run does
	ended := make(chan string, 1)
	go func() {
		defer c.Close()
		time.Sleep(300 * time.Millisecond)
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			var m toApp
			if err := read(c, maxMessage, &m); err != nil {
				ended <- "no end, but " + err.Error()
				return
			}
			if m.End != nil {
				ended <- m.End.Err
				return
			}
		}
	}()
	// more input than the sockets' buffers hold, so that some of it and
	// the end wait in the server's when the session closes
	events := make([]control.WindowEvent, 64)
	for i := range events {
		events[i] = control.WindowEvent{Kind: 1, Window: "a window of the wall", X: float64(i), Y: float64(i)}
	}
	for range 1000 {
		s.App.Input("node1", events)
	}
	s.End(nil, errors.New("node node1, which shows the destination, died"))
	if got := <-ended; got != "node node1, which shows the destination, died" {
		t.Errorf("the application read %q", got)
	}
}

// An application on a server that stops answering while frames are due (a
// stopped process: its socket stays open) gives up with an error that
// says so, after twice the server's frame timeout and some slack; a
// server silent while no frame is due (an application that draws nothing
// for a while) is waited for.
func TestAnApplicationGivesUpOnAServerSilentWhileFramesAreDue(t *testing.T) {
	defer func(every, slack time.Duration) { watchEvery, watchSlack = every, slack }(watchEvery, watchSlack)
	watchEvery, watchSlack = 20*time.Millisecond, 100*time.Millisecond
	const frameTimeout = 100 * time.Millisecond // the bound: 300 ms
	for _, completes := range []bool{true, false} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		// the server: welcomes, is ready, takes one frame and completes
		// it or not, then says nothing for a second, then ends the run
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			var a auth
			read(c, maxAuth, &a)
			write(c, toApp{Welcome: true})
			var hello, frame toServer
			read(c, maxMessage, &hello)
			write(c, toApp{Ready: &server.RunInfo{FrameTimeout: frameTimeout}})
			read(c, maxMessage, &frame)
			if completes {
				write(c, toApp{Completed: &completed{Frame: 0}})
			}
			time.Sleep(time.Second)
			write(c, toApp{End: &end{Summary: &server.Summary{Frames: 1}}})
		}()
		frames := make(chan server.AppFrame, 1)
		frames <- server.AppFrame{Data: []byte("1")}
		// (had it waited, the server's end would come as no error)
		_, err = Run(context.Background(), ln.Addr().String(), "", Hello{Executable: "/bin/app"}, &server.App{Frames: frames})
		ln.Close()
		if completes {
			if err != nil {
				t.Errorf("a server silent with no frame due: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "sent nothing for") || !strings.Contains(err.Error(), "while frames were due") {
			t.Errorf("a server silent with a frame due: %v, want it given up on", err)
		}
	}
}

// Peers that connect and say nothing hold their own handshakes, not the
// application's: behind three of them, the application's token went
// unanswered for the whole token timeout, and it gave up. More than
// maxHandshakes at once are refused, saying why.
func TestSilentPeersDoNotHoldTheApplicationBack(t *testing.T) {
	defer func(was time.Duration) { authTimeout = was }(authTimeout)
	authTimeout = 3 * time.Second
	ln, got := acceptSecret(t)
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	frames := make(chan server.AppFrame)
	close(frames)
	ran := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), ln.Addr().String(), "secret", Hello{Executable: "/bin/app"}, &server.App{Frames: frames})
		ran <- err
	}()
	var s *Session
	select {
	case s = <-got:
	case err := <-ran:
		t.Fatalf("the application behind three silent peers: %v", err)
	}
	if s == nil {
		t.FailNow()
	}
	s.End(&server.Summary{}, nil)
	if err := <-ran; err != nil {
		t.Errorf("the application behind three silent peers: %v", err)
	}

	// a listener whose handshakes are all taken
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	accepted := make(chan error, 1)
	go func() {
		_, err := Accept(ctx, ln, "secret", nil)
		accepted <- err
	}()
	for i := 0; i < maxHandshakes; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(authTimeout / 2))
	var m toApp
	if err := read(c, maxAuth, &m); err != nil || !strings.Contains(m.Refused, "16 peers are presenting their token already") {
		t.Errorf("a peer beyond %d at once: %+v, %v", maxHandshakes, m, err)
	}
	cancel()
	if err := <-accepted; err == nil {
		t.Error("Accept returned no error when its context ended")
	}
}

// An application that cancels its run (Start's context) tells the server
// why before its connection closes: the server ends the run as on its
// exit, where it said before that the application went away without
// exiting and asked whether it had crashed.
func TestAnApplicationThatCancelsItsRunIsNotGone(t *testing.T) {
	ln, got := acceptSecret(t)
	defer ln.Close()
	s, _, cancel, ran := runOneFrame(t, ln, got)
	cancel(errors.New("the user closed the window"))
	select {
	case _, ok := <-s.App.Frames:
		if ok {
			t.Errorf("a frame after the application cancelled its run")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the frames did not end when the application cancelled its run")
	}
	if err := <-ran; !errors.Is(err, context.Canceled) {
		t.Errorf("Run of a cancelled context: %v, want context.Canceled", err)
	}
	s.End(&server.Summary{Frames: 1}, nil)
	if err := s.Gone(); err != nil {
		t.Errorf("an application that cancelled its run is said to be gone: %v", err)
	}
	if why := s.Cancelled(); why != "the user closed the window" {
		t.Errorf("Cancelled() = %q, want the cancel's cause", why)
	}
}

// An application that cancels its run and then exits (Config.Exit after
// the cancel, which ends its frames) has cancelled it: the server says
// so. The frames' end raced the cancel, and the server took an exit in
// one run in ten under load.
func TestACancelThenAnExitIsACancel(t *testing.T) {
	for round := range 20 {
		ln, got := acceptSecret(t)
		s, frames, cancel, ran := runOneFrame(t, ln, got)
		cancel(errors.New("the user closed the window"))
		close(frames)
		for range s.App.Frames {
		}
		<-ran
		s.End(&server.Summary{}, nil)
		ln.Close()
		if why := s.Cancelled(); why != "the user closed the window" {
			t.Fatalf("round %d: Cancelled() = %q after a cancel and an exit; want the cancel's cause", round, why)
		}
	}
}

// A second application that comes while the first runs is told that the
// server is running another's frames, and whose: the port closed once the
// first came, and the second heard only that its connection was refused,
// as if no server were there. The first runs on.
func TestASecondApplicationIsToldTheServerIsBusy(t *testing.T) {
	ln, got := acceptSecret(t)
	s, frames, _, ran := runOneFrame(t, ln, got)
	second := func(token string) error {
		t.Helper()
		_, err := Run(context.Background(), ln.Addr().String(), token, Hello{Executable: "/bin/second"}, &server.App{Frames: make(chan server.AppFrame)})
		if err == nil {
			t.Fatalf("a second application with the token %q was not refused", token)
		}
		return err
	}
	if err := second("secret"); !strings.Contains(err.Error(), "refused the application: it is running another application's frames (/bin/app, connected at ") {
		t.Errorf("a second application: %v", err)
	}
	if err := second("guess"); !strings.Contains(err.Error(), "token does not match") {
		t.Errorf("a second peer with another token: %v", err)
	}
	frames <- server.AppFrame{Data: []byte("2")}
	if f, ok := <-s.App.Frames; !ok || string(f.Data) != "2" {
		t.Errorf("the first application's next frame: %q (%v)", f.Data, ok)
	}
	close(frames)
	for range s.App.Frames {
	}
	s.End(&server.Summary{Frames: 2}, nil)
	if err := <-ran; err != nil {
		t.Errorf("the first application's run: %v", err)
	}
}

// runOneFrame runs an application with the token "secret" on ln, whose
// session comes on got, until the server has its first frame: the
// application then runs its frames (sent on frames) until cancel; ran
// says how Run ended.
func runOneFrame(t *testing.T, ln net.Listener, got <-chan *Session) (s *Session, frames chan server.AppFrame, cancel context.CancelCauseFunc, ran chan error) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	frames = make(chan server.AppFrame, 1)
	frames <- server.AppFrame{Data: []byte("1")}
	ran = make(chan error, 1)
	go func() {
		_, err := Run(ctx, ln.Addr().String(), "secret", Hello{Executable: "/bin/app"}, &server.App{Frames: frames})
		ran <- err
	}()
	if s = <-got; s == nil {
		t.FailNow()
	}
	if f, ok := <-s.App.Frames; !ok || string(f.Data) != "1" {
		t.Fatalf("frame %q (%v)", f.Data, ok)
	}
	return s, frames, cancel, ran
}

// acceptSecret accepts, on a loopback port of its own, the application
// with the token "secret": the session comes on got (nil where Accept
// failed, which fails the test). The port closes as the test ends.
func acceptSecret(t *testing.T) (ln net.Listener, got <-chan *Session) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	sessions := make(chan *Session, 1)
	go func() {
		s, err := Accept(context.Background(), ln, "secret", nil)
		if err != nil {
			t.Error(err)
		}
		sessions <- s
	}()
	return ln, sessions
}
