package server

import (
	"context"
	"log/slog"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/stats"
	"github.com/goeq/goeq/internal/winsys"
)

// oneWindow is a config of one window on the application's node.
const oneWindow = `server { config {
    appNode { pipe { window { viewport [ 0 0 320 200 ] channel { name "dest" } } } }
    compound { channel "dest" wall {} }
} }`

// A window whose size on screen is not the config's (fullscreen on a
// screen of another size) has it from the first frame: its client reports
// it with its readiness, and the server takes it before the node joins.
// Reported just after, it raced the first frames, which were planned at
// the config's size in a third of the runs.
func TestAWindowsSizeAtSetUpHoldsFromTheFirstFrame(t *testing.T) {
	var logs logging.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ran := runAsApp(t, ctx, Options{ConfigPath: "setup.eqc", ConfigText: oneWindow, NoLaunch: true, Token: "secret", Frames: 3,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}, &logs)
	const windowID = "n0.p0.w0"
	err := st.Send(&control.ClientMsg{Ready: true, Events: []control.WindowEvent{{Kind: int(winsys.Resize), WindowID: windowID, View: -1, W: 160, H: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		m, err := st.Recv()
		if err != nil {
			t.Fatalf("no first frame: %v\n%s", err, logs.String())
		}
		if m.Frame == nil {
			continue
		}
		for _, cw := range m.Frame.Channels {
			if cw.WindowSize != (compound.Size{W: 160, H: 100}) {
				t.Errorf("frame %d: channel %s's window is %dx%d, want 160x100 as the client opened it", m.Frame.Frame, cw.Channel, cw.WindowSize.W, cw.WindowSize.H)
			}
		}
		break
	}
	cancel()
	<-ran
}

// A client cannot pass itself off as the server: events of the server's
// own kinds (a node lost or joined) that a client sends, with its
// readiness or later, do not reach the application; its others do.
func TestAClientsEventsOfTheServersKindsAreDropped(t *testing.T) {
	var logs logging.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frames := make(chan AppFrame)
	got := make(chan control.WindowEvent, 16)
	app := &App{Frames: frames, Ready: func(RunInfo) {}, Completed: func(int, bool, []stats.Record) {},
		Input: func(node string, evs []control.WindowEvent) {
			for _, e := range evs {
				got <- e
			}
		}}
	st, ran := runAsApp(t, ctx, Options{ConfigPath: "events.eqc", ConfigText: oneWindow, NoLaunch: true, Token: "secret", App: app,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}, &logs)
	forged := func(key int) []control.WindowEvent {
		return []control.WindowEvent{{Kind: control.NodeLostKind, View: -1, Why: "forged"}, {Kind: int(winsys.KeyPress), Key: key, View: -1},
			{Kind: control.NodeJoinedKind, View: -1}}
	}
	if err := st.Send(&control.ClientMsg{Ready: true, Events: forged('a')}); err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&control.ClientMsg{Events: forged('b')}); err != nil {
		t.Fatal(err)
	}
	var keys []int
	for len(keys) < 2 {
		select {
		case e := <-got:
			if e.Kind != int(winsys.KeyPress) {
				t.Errorf("the application was given a client's event of kind %d (%q)", e.Kind, e.Why)
			}
			keys = append(keys, e.Key)
		case <-time.After(20 * time.Second):
			t.Fatalf("the keys did not reach the application (%v):\n%s", keys, logs.String())
		}
	}
	if keys[0] != 'a' || keys[1] != 'b' {
		t.Errorf("keys %c, want a then b", keys)
	}
	cancel()
	<-ran
}

// runAsApp runs opt (NoLaunch, its log into logs) and joins it as its
// node "app" by hand, up to the set-up: the stream, and the run's end.
func runAsApp(t *testing.T, ctx context.Context, opt Options, logs *logging.Buffer) (*control.Stream, <-chan error) {
	t.Helper()
	ran := make(chan error, 1)
	go func() {
		_, err := Run(ctx, opt)
		ran <- err
	}()
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := regexp.MustCompile(`control server on ([0-9.]+:[0-9]+)`).FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no control address logged:\n%s", logs.String())
	}
	st, err := control.Dial(ctx, addr, opt.Token, "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Send(&control.ClientMsg{Hello: &control.Hello{Node: "app", FrameAddr: "127.0.0.1:9", PID: os.Getpid(), Build: control.Build()}}); err != nil {
		t.Fatal(err)
	}
	if m, err := st.Recv(); err != nil || m.Setup == nil {
		t.Fatalf("no setup: %v", err)
	}
	return st, ran
}
