// Package appconn connects an application to an eqserver that runs on its
// own (`eqserver run --app ADDR`): the application's frames (data, cluster
// events, heads) go to the server, and the run's progress (ready,
// completed frames, window events, the end) comes back. The server then
// starts the application's executable as its render clients, as the
// in-process server does.
//
// The wire is TCP: each message a 4-byte big-endian length and JSON. The
// first message is the token alone and may be at most 4 KiB, read within
// 10 s: an unauthenticated peer gets nothing bigger buffered. The server
// answers it (welcome, or why not) before the application says more.
package appconn

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/server"
	"github.com/goeq/goeq/internal/stats"
)

// authTimeout bounds the token's exchange, both ways (a variable for the
// tests).
var authTimeout = 10 * time.Second

// Bounds on what a peer may send.
const (
	maxAuth    = 4 << 10
	maxMessage = 8 << 20 // a frame's data and messages are 1 MiB each at most
	// sendQueue bounds what waits for a slow peer; past it the peer is
	// dropped rather than holding the run.
	sendQueue = 4096
	// maxHandshakes bounds the peers presenting a token at once.
	maxHandshakes = 16
	// endWait bounds End's waits: for the application to take what was
	// sent to it, and then to close its end.
	endWait = 5 * time.Second
)

// Hello is what an application tells the server after the token.
type Hello struct {
	Executable   string   // the application's executable: the render clients
	ClientArgs   []string // its client flag
	InitData     []byte
	OutDir       string // where every frame's destination PNGs go ("" for none)
	Reference    bool
	FrameTimeout time.Duration
	Liveness     time.Duration // the shortest silence that loses a node (0: the server's)
	InitTimeout  time.Duration // bounds each node's set-up (0: the server's)
	Overlay      bool          // the statistics overlay from the start
	Layout       string        // the layout to start with ("": each canvas's first)
	BlendRanges  bool          // its renderers blend database ranges (goeq.Options.BlendRanges)
	Build        string        // the goeq source the application was built from (control.Build)
}

type auth struct {
	Token string `json:"token"`
}

type toServer struct {
	Hello *Hello           `json:"hello,omitempty"`
	Frame *server.AppFrame `json:"frame,omitempty"`
	Exit  bool             `json:"exit,omitempty"` // no more frames
	// Cancel: the application cancelled its run (Start's context ended),
	// and why; it sends nothing after it
	Cancel string `json:"cancel,omitempty"`
}

type toApp struct {
	Refused   string          `json:"refused,omitempty"`
	Welcome   bool            `json:"welcome,omitempty"` // the token matched
	Ready     *server.RunInfo `json:"ready,omitempty"`
	Completed *completed      `json:"completed,omitempty"`
	Input     *input          `json:"input,omitempty"`
	End       *end            `json:"end,omitempty"`
}

type completed struct {
	Frame    int            `json:"frame"`
	Degraded bool           `json:"degraded,omitempty"`
	Records  []stats.Record `json:"records,omitempty"`
}

type input struct {
	Node   string                `json:"node"`
	Events []control.WindowEvent `json:"events"`
}

type end struct {
	Summary *server.Summary `json:"summary,omitempty"`
	Err     string          `json:"err,omitempty"`
}

func write(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func read(r io.Reader, limit int, v any) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > uint32(limit) {
		if printable(n[:]) {
			// text where a length belongs: another protocol's greeting or
			// request (an SSH banner, HTTP, an eqclient's gRPC preface)
			return fmt.Errorf("it sent %q, which is no goeq application message (another program's protocol)", n[:])
		}
		return fmt.Errorf("a message of %d bytes, more than the %d allowed", size, limit)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// printable reports whether b is ASCII text a person can read.
func printable(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// Session is an application connected to this server.
type Session struct {
	Hello Hello
	// App drives the run (server.Options.App).
	App   *server.App
	conn  net.Conn
	out   chan toApp
	done  chan struct{} // the writer has stopped
	read  chan struct{} // the reader has stopped
	once  sync.Once
	mu    sync.Mutex
	gone  error // why the application's frames ended without its exit
	ended bool  // End closed the connection
	// cancelled: why the application cancelled its run ("" if it did not)
	cancelled string
}

// lost records the first reason the application went, unless the run
// closed the connection itself or the application cancelled its run
// (its connection closes right after).
func (s *Session) lost(err error) {
	s.mu.Lock()
	if s.gone == nil && !s.ended && s.cancelled == "" {
		s.gone = err
	}
	s.mu.Unlock()
}

// Cancelled says why the application cancelled its run (its Start's
// context ended), and is "" when it did not. Its frames end as they end
// on its exit.
func (s *Session) Cancelled() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// Gone says why the application's frames ended when it went away without
// exiting (killed, crashed, its connection lost, or it stopped reading),
// and is nil when it exited or is still there. The run ends either way,
// as Exit would end it.
func (s *Session) Gone() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

// Accept waits on ln for an application with the token, until ctx ends.
// Peers that fail to authenticate are told so, logged through refused and
// dropped. Peers present their token side by side, at most maxHandshakes
// at once: one that connects and says nothing holds its own handshake,
// not the application's, which gave up behind three such peers.
//
// Once it has returned the application, ln goes on answering until the
// caller closes it: a second application that presents the token is told
// that the server drives another's run, where a port closed after the
// first would have told it only that its connection was refused.
func Accept(ctx context.Context, ln net.Listener, token string, refused func(peer string, err error)) (*Session, error) {
	if refused == nil {
		refused = func(string, error) {}
	}
	d := &door{ln: ln, token: token, refused: refused, pending: map[net.Conn]bool{}, won: make(chan *Session, 1)}
	served := make(chan error, 1)
	go func() { served <- d.serve() }()
	var err error
	select {
	case s := <-d.won:
		return s, nil
	case err = <-served:
	case <-ctx.Done():
		ln.Close()
		<-served
		err = ctx.Err()
	}
	select {
	case s := <-d.won: // won as ln closed or ctx ended
		s.conn.Close()
	default:
	}
	return nil, err
}

// door answers the peers of an application's port: the first with the
// token becomes the application, and the ones after it are refused.
type door struct {
	ln      net.Listener
	token   string
	refused func(peer string, err error)
	won     chan *Session

	mu      sync.Mutex
	pending map[net.Conn]bool // handshakes under way
	app     *Session          // the application, once a handshake won
	since   time.Time         // when it won
	wg      sync.WaitGroup
}

// serve answers peers until ln is closed.
func (d *door) serve() error {
	defer func() {
		// the handshakes still under way are not the application's
		d.mu.Lock()
		for conn := range d.pending {
			conn.Close()
		}
		d.pending = nil
		d.mu.Unlock()
		d.wg.Wait()
	}()
	for {
		conn, err := d.ln.Accept()
		if err != nil {
			return err
		}
		d.mu.Lock()
		full := len(d.pending) >= maxHandshakes
		if !full {
			d.pending[conn] = true
		}
		d.mu.Unlock()
		if full {
			d.refuse(conn, fmt.Errorf("%d peers are presenting their token already", maxHandshakes))
			continue
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			s, err := handshake(conn, d.token, d.busy)
			d.mu.Lock()
			ours := d.pending[conn] // not closed by serve's return
			delete(d.pending, conn)
			first := ours && err == nil && d.app == nil
			if first {
				d.app, d.since = s, time.Now()
			}
			d.mu.Unlock()
			switch {
			case first:
				d.won <- s
			case !ours:
			case err != nil:
				d.refuse(conn, err)
			default: // welcomed as another handshake won
				d.refuse(conn, d.busy())
			}
		}()
	}
}

// busy is why a peer with the token is refused once the application has
// come (nil before).
func (d *door) busy() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.app == nil {
		return nil
	}
	return fmt.Errorf("it is running another application's frames (%s, connected at %s); an eqserver run --app serves one application, and ends with it",
		d.app.Hello.Executable, d.since.Format(time.TimeOnly))
}

// refuse logs a refusal before the peer hears it, so that a peer that has
// been told has been logged too.
func (d *door) refuse(conn net.Conn, err error) {
	d.refused(conn.RemoteAddr().String(), err)
	conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	write(conn, toApp{Refused: err.Error()})
	conn.Close()
}

// handshake reads the peer's token and hello, unless busy says why the
// server takes no application now.
func handshake(conn net.Conn, token string, busy func() error) (*Session, error) {
	conn.SetReadDeadline(time.Now().Add(authTimeout))
	var a auth
	if err := read(conn, maxAuth, &a); err != nil {
		return nil, fmt.Errorf("no token: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(a.Token), []byte(token)) != 1 {
		return nil, errors.New("the token does not match the server's")
	}
	if err := busy(); err != nil {
		return nil, err
	}
	conn.SetWriteDeadline(time.Now().Add(authTimeout))
	if err := write(conn, toApp{Welcome: true}); err != nil {
		return nil, err
	}
	conn.SetWriteDeadline(time.Time{})
	var m toServer
	if err := read(conn, maxMessage, &m); err != nil || m.Hello == nil {
		return nil, fmt.Errorf("no hello after the token (%v)", err)
	}
	if m.Hello.Executable == "" {
		return nil, errors.New("the hello names no executable for the render clients")
	}
	if err := control.SameBuild("the application", m.Hello.Build); err != nil {
		return nil, err
	}
	conn.SetReadDeadline(time.Time{})
	frames := make(chan server.AppFrame)
	s := &Session{Hello: *m.Hello, conn: conn, out: make(chan toApp, sendQueue), done: make(chan struct{}), read: make(chan struct{})}
	s.App = &server.App{
		Frames: frames,
		Ready:  func(info server.RunInfo) { s.send(toApp{Ready: &info}) },
		Completed: func(frame int, degraded bool, records []stats.Record) {
			s.send(toApp{Completed: &completed{frame, degraded, records}})
		},
		Input: func(node string, evs []control.WindowEvent) { s.send(toApp{Input: &input{node, evs}}) },
	}
	go s.writeLoop()
	go func() {
		// the application's frames, until it exits or goes: a lost
		// application ends the run as Exit would. Once the run has ended
		// (the writer stopped) they are read and dropped, so that End
		// closes a socket that holds none unread.
		defer close(s.read)
		defer close(frames)
		taking := true
		for {
			var m toServer
			err := read(conn, maxMessage, &m)
			if err != nil {
				s.lost(err)
				return
			}
			if m.Exit {
				return
			}
			if m.Cancel != "" {
				s.mu.Lock()
				if s.gone == nil {
					s.cancelled = m.Cancel
				}
				s.mu.Unlock()
				return
			}
			if m.Frame != nil && taking {
				select {
				case frames <- *m.Frame:
				case <-s.done:
					taking = false
				}
			}
		}
	}()
	return s, nil
}

// send queues a message for the application without blocking the run.
func (s *Session) send(m toApp) {
	select {
	case s.out <- m:
	default:
		s.lost(fmt.Errorf("it stopped reading (%d messages waited for it)", sendQueue))
		s.conn.Close()
	}
}

func (s *Session) writeLoop() {
	defer close(s.done)
	for m := range s.out {
		if err := write(s.conn, m); err != nil {
			s.lost(err)
			s.conn.Close()
			for range s.out {
			}
			return
		}
	}
}

// End tells the application how the run ended and closes the connection.
func (s *Session) End(sum *server.Summary, err error) {
	s.once.Do(func() {
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		e := &end{Summary: sum}
		if err != nil {
			e.Err = err.Error()
		}
		select {
		case s.out <- toApp{End: e}:
		default:
		}
		close(s.out)
		select {
		case <-s.done:
			s.closeGently()
		case <-time.After(endWait):
		}
		s.conn.Close()
	})
}

// closeGently half-closes the connection and reads what the application
// still sends until it closes its end, at most endWait: a socket closed
// with bytes unread resets the connection, and the reset discards what
// the application has not yet received, the run's end with it.
func (s *Session) closeGently() {
	half, ok := s.conn.(interface{ CloseWrite() error })
	if !ok || half.CloseWrite() != nil {
		return
	}
	s.conn.SetReadDeadline(time.Now().Add(endWait))
	<-s.read
}

// Run connects to the server at addr as an application and drives the run
// through hooks until it ends: it returns the run's summary and error as
// the server reports them.
func Run(ctx context.Context, addr, token string, hello Hello, hooks *server.App) (*server.Summary, error) {
	conn, err := control.DialHost(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to eqserver at %s: %w", addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	// a server answers the token at once: what does not (another program
	// on that port, a stopped process) is given up on
	conn.SetDeadline(time.Now().Add(authTimeout))
	if err := write(conn, auth{token}); err != nil {
		return nil, err
	}
	var w toApp
	if err := read(conn, maxAuth, &w); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("eqserver at %s did not answer the token within %v: is it an eqserver run --app?", addr, authTimeout)
		}
		return nil, fmt.Errorf("eqserver at %s did not answer the token: %w", addr, err)
	}
	conn.SetDeadline(time.Time{})
	if !w.Welcome {
		return nil, fmt.Errorf("eqserver at %s refused the application: %s", addr, w.Refused)
	}
	hello.Build = control.Build()
	if err := write(conn, toServer{Hello: &hello}); err != nil {
		return nil, err
	}
	// from here a cancelled run says so before the connection closes: the
	// server then ends the run as on the application's exit, where it
	// would otherwise report an application that crashed
	if !stop() {
		return nil, ctx.Err()
	}
	var sending sync.Mutex
	send := func(m toServer) error {
		sending.Lock()
		defer sending.Unlock()
		return write(conn, m)
	}
	stopCancel := context.AfterFunc(ctx, func() {
		conn.SetWriteDeadline(time.Now().Add(time.Second)) // a send held by flow control ends too
		send(toServer{Cancel: context.Cause(ctx).Error()})
		conn.Close()
	})
	defer stopCancel()
	// frames go out on their own goroutine; this one reads the run
	finished := make(chan struct{})
	defer close(finished)
	watchdog := &watch{}
	go func() {
		for {
			select {
			case f, ok := <-hooks.Frames:
				if !ok {
					// an exit after a cancel (Config.Exit once Start's
					// context ended) is the cancel, which says why: sent
					// as its own, it raced the cancel's message
					if ctx.Err() == nil {
						send(toServer{Exit: true})
					}
					return
				}
				watchdog.sending()
				if send(toServer{Frame: &f}) != nil {
					return
				}
			case <-finished:
				return
			}
		}
	}()
	go watchdog.run(conn, finished)
	for {
		var m toApp
		if err := read(conn, maxMessage, &m); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if silence, frameTimeout := watchdog.gaveUp(); silence > 0 {
				return nil, fmt.Errorf("eqserver at %s sent nothing for %v while frames were due (it fails a frame after %v): is it stopped, or its host gone?",
					addr, silence.Round(time.Second), frameTimeout)
			}
			return nil, fmt.Errorf("the connection to eqserver at %s ended: %w", addr, err)
		}
		watchdog.heard(m.Completed != nil)
		switch {
		case m.Refused != "":
			return nil, fmt.Errorf("eqserver at %s refused the application: %s", addr, m.Refused)
		case m.Ready != nil:
			watchdog.ready(m.Ready.FrameTimeout)
			if hooks.Ready != nil {
				hooks.Ready(*m.Ready)
			}
		case m.Completed != nil && hooks.Completed != nil:
			hooks.Completed(m.Completed.Frame, m.Completed.Degraded, m.Completed.Records)
		case m.Input != nil && hooks.Input != nil:
			hooks.Input(m.Input.Node, m.Input.Events)
		case m.End != nil:
			if m.End.Err != "" {
				return m.End.Summary, errors.New(m.End.Err)
			}
			return m.End.Summary, nil
		}
	}
}

// watch gives up on a server that says nothing while frames are due: a
// stopped process would otherwise hold the application's FinishFrame for
// ever. The server completes or fails every frame within its frame
// timeout, so once the run is ready, silence of twice that and
// watchSlack with frames sent and not completed is a server that does
// not go on.
type watch struct {
	mu           sync.Mutex
	frameTimeout time.Duration // 0 until the run is ready
	sent, done   int
	last         time.Time // the last frame sent or message heard
	silence      time.Duration
}

func (w *watch) ready(frameTimeout time.Duration) {
	w.mu.Lock()
	w.frameTimeout, w.last = frameTimeout, time.Now()
	w.mu.Unlock()
}

func (w *watch) sending() {
	w.mu.Lock()
	w.sent++
	w.last = time.Now()
	w.mu.Unlock()
}

func (w *watch) heard(completed bool) {
	w.mu.Lock()
	if completed {
		w.done++
	}
	w.last = time.Now()
	w.mu.Unlock()
}

// gaveUp is how long the server had been silent when the watch closed
// the connection (0 when it did not), and the server's frame timeout.
func (w *watch) gaveUp() (silence, frameTimeout time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.silence, w.frameTimeout
}

func (w *watch) run(conn net.Conn, finished <-chan struct{}) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-finished:
			return
		case now := <-t.C:
			w.mu.Lock()
			bound := 2*w.frameTimeout + watchSlack
			quiet := now.Sub(w.last)
			over := w.frameTimeout > 0 && w.sent > w.done && quiet > bound
			if over {
				w.silence = quiet
			}
			w.mu.Unlock()
			if over {
				conn.Close()
				return
			}
		}
	}
}

// How often the watch looks, and the silence it allows beyond twice the
// frame timeout (variables for the tests): as long as a render client
// waits on its server, since an eqserver that stopped on a live host (a
// debugger, SIGSTOP) goes on where it stopped. A host gone, or a cut
// link, ends the connection sooner (control.DialHost).
var (
	watchEvery = time.Second
	watchSlack = control.ServerWait()
)
