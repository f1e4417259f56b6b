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
	"github.com/goeq/goeq/internal/winsys"
)

// A window whose size on screen is not the config's (fullscreen on a
// screen of another size) has it from the first frame: its client reports
// it with its readiness, and the server takes it before the node joins.
// Reported just after, it raced the first frames, which were planned at
// the config's size in a third of the runs.
func TestAWindowsSizeAtSetUpHoldsFromTheFirstFrame(t *testing.T) {
	const text = `server { config {
    appNode { pipe { window { viewport [ 0 0 320 200 ] channel { name "dest" } } } }
    compound { channel "dest" wall {} }
} }`
	var logs logging.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{ConfigPath: "setup.eqc", ConfigText: text, NoLaunch: true, Token: "secret", Frames: 3,
			Log: slog.New(slog.NewTextHandler(&logs, nil))})
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
	st, err := control.Dial(ctx, addr, "secret", "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Send(&control.ClientMsg{Hello: &control.Hello{Node: "app", FrameAddr: "127.0.0.1:9", PID: os.Getpid(), Build: control.Build()}}); err != nil {
		t.Fatal(err)
	}
	if m, err := st.Recv(); err != nil || m.Setup == nil {
		t.Fatalf("no setup: %v", err)
	}
	const windowID = "n0.p0.w0"
	err = st.Send(&control.ClientMsg{Ready: true, Events: []control.WindowEvent{{Kind: int(winsys.Resize), WindowID: windowID, View: -1, W: 160, H: 100}}})
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
