package server

import (
	"strings"
	"testing"
	"time"
)

// launchedAB watches nodes a and b, launched at t0 with 2 s to say hello
// and a minute to set up.
func launchedAB(t0 time.Time) *joinWatch {
	w := newJoinWatch(time.Minute)
	w.launched("a", t0, 2*time.Second)
	w.launched("b", t0, 2*time.Second)
	return w
}

// A node's way in has two bounds: its launch until it says hello, and its
// set-up after, for as long as its client keeps saying what it does.
func TestJoinWatchBoundsLaunchAndSetUpApart(t *testing.T) {
	t0 := time.Unix(1000, 0)
	none := func() string { return "; its client is still running" }
	w := launchedAB(t0)

	if why := w.overdue("a", t0.Add(time.Second), 2*time.Second, none); why != "" {
		t.Errorf("within its launch: %s", why)
	}
	if why := w.overdue("a", t0.Add(3*time.Second), 2*time.Second, none); why != "its client did not connect within 2s; its client is still running" {
		t.Errorf("past its launch: %q", why)
	}

	// b says hello in time, then sets up for longer than its launch bound
	at := t0.Add(time.Second)
	for i := 0; i < 100; i++ {
		w.settingUp("b", "running the renderer factory (NewRenderer) of pipe gpu1, for a while", at)
		if why := w.overdue("b", at, 2*time.Second, none); why != "" {
			t.Fatalf("setting up at %v, heard from: %s", at.Sub(t0), why)
		}
		at = at.Add(500 * time.Millisecond)
	}
	notes := w.stillSettingUp([]string{"a", "b"}, at)
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "node b is still setting up (50s of the init timeout, 1m0s): running the renderer factory") {
		t.Errorf("notes: %q", notes)
	}
	if again := w.stillSettingUp([]string{"a", "b"}, at.Add(time.Second)); len(again) != 0 {
		t.Errorf("noted again a second later: %q", again)
	}

	// silent for longer than setupSilence: frozen or cut off
	quiet := at.Add(-500 * time.Millisecond).Add(setupSilence + time.Second)
	if why := w.overdue("b", quiet, 2*time.Second, none); !strings.Contains(why, "stopped answering while it set up") || !strings.Contains(why, "NewRenderer") {
		t.Errorf("silent: %q", why)
	}

	// heard from, but past the init timeout
	w.settingUp("b", "opening window w1, for 1m", t0.Add(time.Minute+2*time.Second))
	if why := w.overdue("b", t0.Add(time.Minute+2*time.Second), 2*time.Second, none); !strings.Contains(why, "within the init timeout, 1m0s") || !strings.Contains(why, "opening window w1") {
		t.Errorf("past the init timeout: %q", why)
	}

	if w.allJoined() {
		t.Error("all joined before any did")
	}
	w.joined("a")
	w.joined("b")
	if !w.allJoined() || w.overdue("b", t0.Add(time.Hour), 2*time.Second, none) != "" {
		t.Error("joined nodes are still watched")
	}
	w.settingUp("b", "a rejoin's set-up", t0.Add(time.Hour))
	if !w.allJoined() {
		t.Error("a joined node's set-up message unjoined it")
	}
}

// The server standing still (stopped at a breakpoint, a machine paused
// or starved) moves a node's bounds on by as long: after the stall its
// client's heartbeats are still to be read, and its launch had no time
// to run either. Silence after the stall still counts.
func TestJoinWatchForgivesTheServerStandingStill(t *testing.T) {
	t0 := time.Unix(1000, 0)
	none := func() string { return "" }
	w := launchedAB(t0)
	w.forgiveStall(t0)
	w.settingUp("b", "taking the config", t0)
	at := t0.Add(50 * time.Millisecond)
	w.forgiveStall(at)
	at = at.Add(11 * time.Second) // the stall
	w.forgiveStall(at)
	for _, node := range []string{"a", "b"} {
		if why := w.overdue(node, at, 2*time.Second, none); why != "" {
			t.Errorf("node %s right after the server stood still for 11 s: %s", node, why)
		}
	}
	for at.Sub(t0) < 11*time.Second+setupSilence+2*time.Second {
		at = at.Add(50 * time.Millisecond)
		w.forgiveStall(at)
	}
	if why := w.overdue("a", at, 2*time.Second, none); !strings.Contains(why, "did not connect within 2s") {
		t.Errorf("a, not launched long after the stall: %q", why)
	}
	if why := w.overdue("b", at, 2*time.Second, none); !strings.Contains(why, "stopped answering while it set up") {
		t.Errorf("b, silent long after the stall: %q", why)
	}
}

func TestClipTextKeepsWholeCharacters(t *testing.T) {
	if got := clipText("grüße", 3); got != "gr…" {
		t.Errorf("clipText: %q", got)
	}
	if got := clipText("short", 10); got != "short" {
		t.Errorf("clipText: %q", got)
	}
}
