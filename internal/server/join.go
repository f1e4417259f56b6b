package server

import (
	"fmt"
	"strings"
	"time"
)

// DefaultInitTimeout bounds a node's set-up when Options.InitTimeout is 0.
// Set-up runs the application's renderer factories, which load its data:
// minutes for a large model on a shared file system.
const DefaultInitTimeout = 5 * time.Minute

// setupSilence is how long a client that is setting up may send nothing
// before it counts as frozen or cut off: it reports every heartbeat
// (200 ms) from a goroutine of its own, whatever its set-up is doing.
const setupSilence = 10 * time.Second

// joinWatch bounds each node's way into the run, in its two parts:
// launching, until its client says hello (launch_timeout, else the run's
// join timeout), and setting up, while its client opens its pipes and
// windows and makes its renderers (the init timeout). A client setting up
// says what it is doing with each heartbeat, so a slow set-up is told from
// a frozen one, and an error says which step did not end. A node leaves
// the watch when it joins, and comes back to it when the server starts
// its client again after a loss.
type joinWatch struct {
	initTimeout time.Duration
	nodes       map[string]*joinState
	checked     time.Time // the last forgiveStall
}

type joinState struct {
	launchBy time.Time
	// zero until the client said hello
	settingUpSince, heard time.Time
	doing                 string    // what its client last said it was doing
	told                  time.Time // when the log last said it is still setting up (or set-up began)
}

// settingUpNote is how often the log says that a node is still setting
// up: a user waiting on a long set-up learns which step it is in.
const settingUpNote = 15 * time.Second

func newJoinWatch(initTimeout time.Duration) *joinWatch {
	if initTimeout <= 0 {
		initTimeout = DefaultInitTimeout
	}
	return &joinWatch{initTimeout: initTimeout, nodes: map[string]*joinState{}}
}

// launched starts a node's launch at now, to say hello within timeout.
func (w *joinWatch) launched(node string, now time.Time, timeout time.Duration) {
	w.nodes[node] = &joinState{launchBy: now.Add(timeout)}
}

// settingUp records what a node's client said it is doing.
func (w *joinWatch) settingUp(node, doing string, now time.Time) {
	st := w.nodes[node]
	if st == nil {
		return // joined, or a lost node's client started by hand: not watched
	}
	if st.settingUpSince.IsZero() {
		st.settingUpSince, st.told = now, now
	}
	st.heard, st.doing = now, doing
}

// doing is what a node's client last said its set-up is doing, "" once
// it joined or before its hello.
func (w *joinWatch) doing(node string) string {
	if st := w.nodes[node]; st != nil {
		return st.doing
	}
	return ""
}

// joinStall is the least gap between two passes of the server's loop
// (it passes every 50 ms at the most while nodes join) that counts as the
// server standing still.
const joinStall = time.Second

// forgiveStall moves every node's bounds on by the time the server stood
// still since the last pass: a server stopped at a debugger's breakpoint
// or by SIGSTOP, or a machine paused or starved for seconds, is not a
// client that fell silent: the heartbeats its clients sent meanwhile are
// still to be read. An eqserver stopped for 12 s while its nodes set up
// failed them as "stopped answering". The scheduler forgives such stalls
// its frames and the nodes' silence alike.
func (w *joinWatch) forgiveStall(now time.Time) {
	gap := now.Sub(w.checked)
	first := w.checked.IsZero()
	w.checked = now
	if first || gap <= joinStall {
		return
	}
	for _, st := range w.nodes {
		st.launchBy = st.launchBy.Add(gap)
		if !st.settingUpSince.IsZero() {
			st.settingUpSince, st.heard = st.settingUpSince.Add(gap), st.heard.Add(gap)
		}
	}
}

// joined ends the watch of a node: it joined, or the run gave up on it.
func (w *joinWatch) joined(node string) { delete(w.nodes, node) }

// allJoined reports whether every node has joined.
func (w *joinWatch) allJoined() bool { return len(w.nodes) == 0 }

// stillSettingUp says, for each node whose set-up has lasted another
// settingUpNote since the log last said so, what it is doing.
func (w *joinWatch) stillSettingUp(order []string, now time.Time) []string {
	var notes []string
	for _, node := range order {
		st := w.nodes[node]
		if st == nil || st.settingUpSince.IsZero() {
			continue
		}
		if now.Sub(st.told) >= settingUpNote {
			st.told = now
			notes = append(notes, fmt.Sprintf("node %s is still setting up (%v of the init timeout, %v): %s", node, now.Sub(st.settingUpSince).Round(time.Second), w.initTimeout, st.doing))
		}
	}
	return notes
}

// overdue says why node has not joined in time at now, or "" while it
// still may. launchNote adds what its launcher is doing.
func (w *joinWatch) overdue(node string, now time.Time, launchTimeout time.Duration, launchNote func() string) string {
	st := w.nodes[node]
	switch {
	case st == nil:
		return ""
	case st.settingUpSince.IsZero():
		if now.After(st.launchBy) {
			return fmt.Sprintf("its client did not connect within %v%s", launchTimeout, launchNote())
		}
	case now.Sub(st.heard) > setupSilence:
		return fmt.Sprintf("its client stopped answering while it set up, %v after it last said: %s", now.Sub(st.heard).Round(time.Second), st.doing)
	case now.Sub(st.settingUpSince) > w.initTimeout:
		return fmt.Sprintf("its client did not finish setting up within the init timeout, %v (--init-timeout; an application's Options.InitTimeout); it is %s", w.initTimeout, st.doing)
	}
	return ""
}

// maxSettingUp bounds what a client says it is doing: it goes into the
// log and into errors.
const maxSettingUp = 300

// clipText cuts s to at most n bytes, on a character boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
