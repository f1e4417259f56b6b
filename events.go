package goeq

import (
	"context"
	"encoding/json"
	"time"

	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/winsys"
)

// EventKind is what happened.
type EventKind int

// The kinds of events a destination window delivers.
const (
	KeyPress      = EventKind(winsys.KeyPress)
	KeyRelease    = EventKind(winsys.KeyRelease)
	PointerMotion = EventKind(winsys.PointerMotion)
	ButtonPress   = EventKind(winsys.ButtonPress)
	ButtonRelease = EventKind(winsys.ButtonRelease)
	Wheel         = EventKind(winsys.Wheel)
	Resize        = EventKind(winsys.Resize)
	// WindowClose: the user asked to close a window (goeq leaves it open;
	// the application decides).
	WindowClose = EventKind(winsys.Close)
	// Expose: a window's content was damaged (uncovered, mapped again), as
	// Equalizer's window expose: an application that renders on demand
	// renders a frame.
	Expose = EventKind(winsys.Expose)
	// PipeEvent is a renderer's event (Pipe.SendEvent), as Equalizer's
	// render nodes send config events: its Node and Pipe, and its Data.
	PipeEvent = EventKind(control.PipeEventKind)
	// NodeLost: the run lost a render node (Node), and goes on without
	// it; Reason says why (its process ended, it fell silent).
	NodeLost = EventKind(control.NodeLostKind)
	// NodeJoined: a render node (Node) joined mid-run, started again
	// after it was lost (Options.Relaunch, or by hand) or late; it draws
	// again from a later frame on.
	NodeJoined = EventKind(control.NodeJoinedKind)
)

func (k EventKind) String() string {
	switch k {
	case KeyPress:
		return "key press"
	case KeyRelease:
		return "key release"
	case PointerMotion:
		return "pointer motion"
	case ButtonPress:
		return "button press"
	case ButtonRelease:
		return "button release"
	case Wheel:
		return "wheel"
	case Resize:
		return "resize"
	case WindowClose:
		return "window close"
	case Expose:
		return "expose"
	case PipeEvent:
		return "pipe event"
	case NodeLost:
		return "node lost"
	case NodeJoined:
		return "node joined"
	}
	return "event"
}

// Key is a key: a character key is its rune as typed without shift on
// the keyboard's layout ('q', ' ', '+' on the keypad, '=' beside + on a
// US keyboard; a German keyboard's z key is 'z'; of several layouts the
// first, as Equalizer reads X's first group), the digit row its digit on
// any layout; other keys are the constants and KeyF.
type Key int

// Keys that are not characters.
const (
	KeyEscape    = Key(winsys.KeyEscape)
	KeyEnter     = Key(winsys.KeyEnter)
	KeyTab       = Key(winsys.KeyTab)
	KeyBackspace = Key(winsys.KeyBackspace)
	KeyLeft      = Key(winsys.KeyLeft)
	KeyRight     = Key(winsys.KeyRight)
	KeyUp        = Key(winsys.KeyUp)
	KeyDown      = Key(winsys.KeyDown)
	KeyPageUp    = Key(winsys.KeyPageUp)
	KeyPageDown  = Key(winsys.KeyPageDown)
	KeyHome      = Key(winsys.KeyHome)
	KeyEnd       = Key(winsys.KeyEnd)
	KeyInsert    = Key(winsys.KeyInsert)
	KeyDelete    = Key(winsys.KeyDelete)
)

// KeyF is function key n, from 1 to 12 (KeyF(11) is F11).
func KeyF(n int) Key { return Key(winsys.KeyF1 + n - 1) }

// Modifiers are the modifier keys held with a key or a button, as a bit
// set.
type Modifiers int

// The modifier keys.
const (
	ModShift   = Modifiers(winsys.ModShift)
	ModControl = Modifiers(winsys.ModControl)
	ModAlt     = Modifiers(winsys.ModAlt)
	ModSuper   = Modifiers(winsys.ModSuper)
)

// Buttons of a pointer.
const (
	ButtonLeft   = 1
	ButtonMiddle = 2
	ButtonRight  = 3
)

// Event is an input event of a destination window, delivered to the
// application process in the order the window saw it, a renderer's
// event (PipeEvent), in the order its pipe sent it, or the server's word
// that a node was lost or joined (NodeLost, NodeJoined).
type Event struct {
	Kind    EventKind
	Node    string // the node whose window it is
	Window  string // the window's name
	Channel string // the channel under the pointer (its identity), if any
	// ViewIndex is the config's view that channel shows (an index into
	// Config.Views; -1 when none): an application with a camera per view
	// moves that view's.
	ViewIndex int
	// X, Y is the pointer in the normalised coordinates of the view the
	// channel shows: 0 to 1 from its bottom-left corner (the last
	// position, for keys).
	X, Y   float64
	DX, DY float64 // a wheel's turn
	Button int     // ButtonLeft, ButtonMiddle or ButtonRight
	Key    Key
	// Modifiers are the modifier keys held, on key, button, pointer
	// motion and wheel events (as Equalizer's pointer events carry them:
	// eqPly zooms on a shifted drag): a shifted letter is its lower-case
	// Key with ModShift.
	Modifiers Modifiers
	// Width x Height is a resized window's new size in pixels.
	Width, Height int
	// Pipe and Data are a PipeEvent's: the pipe whose renderer sent it,
	// and what it sent, encoded (Decode).
	Pipe string
	Data []byte
	// Reason is why a NodeLost node was lost.
	Reason string
	// Time is when the window's node saw the event (when the renderer
	// sent a PipeEvent), on that machine's clock, as Equalizer's events
	// carry theirs. Events arrive in batches, a frame's at a time; Time
	// says how far apart they were: whether a drag was still moving when
	// its button was let go, say.
	Time time.Time
}

// Decode decodes a PipeEvent's data into v, a pointer to the type the
// renderer sent.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Data, v) }

func eventOf(node string, e control.WindowEvent) Event {
	return Event{Kind: EventKind(e.Kind), Node: node, Window: e.Window, Channel: e.Channel, ViewIndex: e.View, X: e.X, Y: e.Y, DX: e.DX, DY: e.DY,
		Button: e.Button, Key: Key(e.Key), Modifiers: Modifiers(e.Mods), Width: e.W, Height: e.H,
		Pipe: e.Pipe, Data: e.Data, Reason: e.Why, Time: eventTime(e.Time)}
}

// eventTime is a control.WindowEvent's time; the zero Time where it has
// none.
func eventTime(unixNano int64) time.Time {
	if unixNano == 0 {
		return time.Time{}
	}
	return time.Unix(0, unixNano)
}

// PendingEvents takes the events that arrived since the last call, in
// order, without waiting (none in a headless run).
func (c *Config) PendingEvents() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	evs := c.events
	c.events = nil
	return evs
}

// WaitEvents waits until an event arrives and takes every pending one:
// an application that redraws on demand renders no frame while it waits.
// It returns early with ctx's error, or the run's when the run ends (after
// Exit, an error that says so).
func (c *Config) WaitEvents(ctx context.Context) ([]Event, error) {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.events) == 0 && !c.ended && ctx.Err() == nil {
		c.changed.Wait()
	}
	evs := c.events
	c.events = nil
	switch {
	case len(evs) > 0:
		return evs, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case c.err == nil:
		return nil, errExited // ended cleanly: the application called Exit
	}
	return nil, c.err
}
