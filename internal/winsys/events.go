package winsys

import "errors"

// EventKind is what happened in an on-screen window.
type EventKind int

// The kinds of window events.
const (
	KeyPress EventKind = iota + 1
	KeyRelease
	PointerMotion
	ButtonPress
	ButtonRelease
	Wheel
	Resize
	Close
	Expose // the window's content was damaged (uncovered, mapped)
	// Destroyed: another X client destroyed the window (xdotool's
	// windowclose, or any XDestroyWindow where no window manager asks it to
	// close first); nothing drawn for it shows any more
	Destroyed
)

// Keys that are not characters; a character key is its lower-case rune.
const (
	KeyEscape = 0x10000 + iota
	KeyEnter
	KeyTab
	KeyBackspace
	KeyLeft
	KeyRight
	KeyUp
	KeyDown
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeyInsert
	KeyDelete
	KeyF1 // F2 to F12 follow
)

// Modifier keys held with a key or button, as a bit set.
const (
	ModShift = 1 << iota
	ModControl
	ModAlt
	ModSuper
)

// Event is an input event of an on-screen window. X and Y are the pointer
// in window pixels from the top-left corner, as the window system gives
// them; DX, DY the wheel's turn; W, H the new size of a resize.
type Event struct {
	Kind   EventKind
	X, Y   float64
	DX, DY float64
	Button int // 1 left, 2 middle, 3 right
	Key    int
	Mods   int // the modifiers held, on key and button events
	W, H   int
}

// EventSource is implemented by contexts with an on-screen window. The
// handler runs on the main thread while events are polled and must not
// block.
type EventSource interface {
	OnEvent(handler func(Event))
}

// Sizer is implemented by contexts with an on-screen window: its
// framebuffer's size now, which a user's resize or fullscreen can make
// other than the size it was opened with.
type Sizer interface {
	FramebufferSize() (w, h int)
}

// ErrDestroyed says that another X client destroyed a window (its
// Destroyed event); MakeCurrent on it returns it, since GL on it would be an
// X error that ends the process.
var ErrDestroyed = errors.New("another X client destroyed it (xdotool windowclose, say): nothing it draws can show any more")
