package winsys

/*
#cgo LDFLAGS: -lGL -lX11
#include <GL/glx.h>
#include <X11/XKBlib.h>

// goeqFirstLayoutKeysym is the key symbol of X keycode unshifted in the
// keyboard's first layout (group 1), whichever layout is active.
static unsigned long goeqFirstLayoutKeysym(void *display, int keycode) {
	return XkbKeycodeToKeysym((Display *)display, keycode, 0, 0);
}

typedef const unsigned char *(*goeqGetStringFunc)(unsigned int);
static const char *goeqGLVersion(void *getString) {
	return (const char *)((goeqGetStringFunc)getString)(0x1F02); // GL_VERSION
}
static int goeqGLXDirect(void *display, void *context) {
	return glXIsDirect((Display *)display, (GLXContext)context);
}

// goeqBlackBackground gives a window a black background, which the X
// server paints where the window is uncovered, until it draws there.
static void goeqBlackBackground(void *display, unsigned long window) {
	Display *d = (Display *)display;
	XWindowAttributes a;
	if (XGetWindowAttributes(d, (Window)window, &a)) {
		XSetWindowBackground(d, (Window)window, BlackPixelOfScreen(a.screen));
	}
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// GLFW's initialisation, window creation and destruction, and event
// polling must run on the process's main thread; MakeCurrent may run on any
// locked thread. mainQueue carries those calls to the main thread, which
// the program hands over with RunMain.
var mainQueue = make(chan func())

func init() {
	// Keep the main goroutine on the main thread until RunMain serves it.
	runtime.LockOSThread()
}

// glfwReady is set on the main thread once GLFW is initialised.
var glfwReady bool

// glfwDestroyed marks the visible windows another X client destroys.
var glfwDestroyed destroyWatch

// pollEvery is how often windows' events are polled while no frame is
// presented (an application that renders on demand waits for them).
const pollEvery = 10 * time.Millisecond

// RunMain serves GLFW calls on the main thread until done is closed, and
// polls window events. A program that uses GLFW calls it from main (tests:
// from TestMain).
func RunMain(done <-chan struct{}) {
	poll := time.NewTicker(pollEvery)
	defer poll.Stop()
	for {
		select {
		case f := <-mainQueue:
			f()
		case <-poll.C:
			if glfwReady {
				glfw.PollEvents()
				glfwDestroyed.poll()
			}
		case <-done:
			return
		}
	}
}

func onMain(f func()) {
	ch := make(chan struct{})
	mainQueue <- func() { f(); close(ch) }
	<-ch
}

// GLFW is the on-screen window system.
type GLFW struct{}

var (
	glfwOnce sync.Once
	glfwErr  error
)

// OpenGLFW initialises GLFW once (on the main thread). An X server that
// is resetting (its last client just left) refuses connections for a
// moment, so a failed start is tried again a few times.
func OpenGLFW() (*GLFW, error) {
	keepMallocMemory()
	glfwOnce.Do(func() {
		for try := 0; try < 5; try++ {
			if try > 0 {
				time.Sleep(200 * time.Millisecond)
			}
			onMain(func() {
				glfwErr = initGLFW()
				glfwReady = glfwErr == nil
			})
			if glfwErr == nil {
				break
			}
		}
	})
	if glfwErr != nil {
		return nil, fmt.Errorf("winsys: GLFW: %w", glfwErr)
	}
	return &GLFW{}, nil
}

// initGLFW initialises GLFW and checks that it is: go-gl's Init reports
// some failures (an X display it cannot open) only to its log, after
// which every call panics.
func initGLFW() (err error) {
	if err := glfw.Init(); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("GLFW could not open X display %q (%v)", os.Getenv("DISPLAY"), r)
		}
	}()
	glfw.PollEvents() // panics when GLFW is not initialised
	return nil
}

// Name describes the window system.
func (*GLFW) Name() string { return "GLFW (X11)" }

type glfwContext struct {
	win    *glfw.Window
	window bool
	// size is the window's framebuffer size now (width<<32 | height):
	// written on the main thread, read by the pipe and the event handler
	size atomic.Int64
	// handler receives the window's events (set and called on the main
	// thread)
	handler func(Event)
	xid     uintptr     // the visible window's X window
	gone    atomic.Bool // another X client destroyed it
	// pointer is where the pointer was at the last event GLFW reported
	// (main thread): a button or wheel event is where the pointer was
	// then, not where it is by the time the events are polled
	pointer      [2]float64
	pointerKnown bool
}

// pointerAt is where the pointer was at the last event (where it is now,
// before any).
func (c *glfwContext) pointerAt() (x, y float64) {
	if !c.pointerKnown {
		return c.win.GetCursorPos()
	}
	return c.pointer[0], c.pointer[1]
}

// NewContext creates a hidden window with a core 3.3 context; the first
// context of a pipe is its window, shared ones are hidden helpers.
func (g *GLFW) NewContext(share Context) (Context, error) {
	return g.newWindow(share, WindowSpec{Title: "goeq", W: 64, H: 64}, false)
}

// WindowSpec is an on-screen window's place and look, as a config's
// window gives them.
type WindowSpec struct {
	Title string
	// X, Y place the window's top-left corner on the screen (from the
	// screen's top left, as X does); W, H are its size.
	X, Y, W, H int
	// Undecorated leaves out the title bar and border (hint_decoration
	// OFF), so that windows tile a wall exactly.
	Undecorated bool
	// Fullscreen covers the whole screen, undecorated, in place of X, Y,
	// W and H (hint_fullscreen ON), as Equalizer does.
	Fullscreen bool
}

// NewWindow creates a visible window.
func (g *GLFW) NewWindow(share Context, spec WindowSpec) (Context, error) {
	return g.newWindow(share, spec, true)
}

func (g *GLFW) newWindow(share Context, spec WindowSpec, visible bool) (Context, error) {
	c := &glfwContext{window: visible}
	var err error
	explained := false // err says where it comes from
	onMain(func() {
		if spec.Fullscreen {
			if m := glfw.GetPrimaryMonitor(); m != nil {
				if mode := m.GetVideoMode(); mode != nil {
					spec.X, spec.Y, spec.W, spec.H = 0, 0, mode.Width, mode.Height
				}
			}
			spec.Undecorated = true
		}
		glfw.DefaultWindowHints()
		glfw.WindowHint(glfw.ContextVersionMajor, 3)
		glfw.WindowHint(glfw.ContextVersionMinor, 3)
		glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
		glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
		// shown once placed: a window manager places a mapped window itself
		glfw.WindowHint(glfw.Visible, glfw.False)
		glfw.WindowHint(glfw.Decorated, map[bool]int{true: glfw.False, false: glfw.True}[spec.Undecorated])
		var sh *glfw.Window
		if s, ok := share.(*glfwContext); ok && s != nil {
			sh = s.win
		}
		if c.win, err = glfw.CreateWindow(spec.W, spec.H, spec.Title, nil, sh); err != nil {
			if ge := (*glfw.Error)(nil); errors.As(err, &ge) && ge.Code == glfw.VersionUnavailable {
				display := os.Getenv("DISPLAY")
				offered, indirect := glfwOfferedGL()
				forwarded := indirect || os.Getenv("LIBGL_ALWAYS_INDIRECT") != "" || remoteDisplay(display)
				err, explained = coreContextError("GLFW on X display "+display, err.Error(), offered, forwarded), true
			}
			return
		}
		if !visible {
			return
		}
		c.win.SetPos(spec.X, spec.Y)
		c.setSize(c.win.GetFramebufferSize())
		c.win.SetFramebufferSizeCallback(func(_ *glfw.Window, width, height int) {
			c.setSize(width, height)
			if c.handler != nil {
				c.handler(Event{Kind: Resize, W: width, H: height})
			}
		})
		c.xid = uintptr(c.win.GetX11Window())
		// GLFW's windows have no background: where one is uncovered, the
		// X server leaves what was there until the window draws again,
		// and a window that shows nothing (a layout does not use it)
		// does not draw again
		C.goeqBlackBackground(unsafe.Pointer(glfw.GetX11Display()), C.ulong(c.xid))
		c.win.Show()
		glfwDestroyed.watch(unsafe.Pointer(glfw.GetX11Display()), c.xid, func() {
			c.gone.Store(true)
			if c.handler != nil {
				c.handler(Event{Kind: Destroyed})
			}
		})
	})
	switch {
	case explained:
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("winsys: GLFW window: %w", err)
	}
	return c, nil
}

// glfwOfferedGL is the OpenGL version (GL_VERSION) the X display gives a
// window that asks for none, "" where it gives none, and whether that
// context renders indirectly (through the X server, as one forwarded over
// ssh does). It runs on the main thread.
func glfwOfferedGL() (offered string, indirect bool) {
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.Visible, glfw.False)
	w, err := glfw.CreateWindow(16, 16, "goeq: which OpenGL", nil, nil)
	if err != nil {
		return "", false
	}
	defer w.Destroy()
	previous := glfw.GetCurrentContext()
	w.MakeContextCurrent()
	defer func() {
		if previous != nil {
			previous.MakeContextCurrent()
		} else {
			glfw.DetachCurrentContext()
		}
	}()
	if getString := glfw.GetProcAddress("glGetString"); getString != nil {
		if v := C.goeqGLVersion(getString); v != nil {
			offered = C.GoString(v)
		}
	}
	indirect = C.goeqGLXDirect(unsafe.Pointer(glfw.GetX11Display()), unsafe.Pointer(w.GetGLXContext())) == 0
	return offered, indirect
}

func (c *glfwContext) setSize(w, h int) { c.size.Store(int64(w)<<32 | int64(uint32(h))) }

// FramebufferSize is the window's size in pixels now: a user may have
// resized it, and a fullscreen one has the screen's.
func (c *glfwContext) FramebufferSize() (w, h int) {
	v := c.size.Load()
	return int(v >> 32), int(uint32(v))
}

func (c *glfwContext) MakeCurrent() error {
	if c.window {
		if onMain(glfwDestroyed.sync); c.gone.Load() {
			return ErrDestroyed
		}
	}
	c.win.MakeContextCurrent()
	return nil
}
func (c *glfwContext) Release() { glfw.DetachCurrentContext() }
func (c *glfwContext) Swap() {
	if c.window {
		if onMain(glfwDestroyed.sync); c.gone.Load() {
			return
		}
	}
	c.win.SwapBuffers()
	onMain(glfw.PollEvents)
}
func (c *glfwContext) Destroy() {
	onMain(func() {
		glfwDestroyed.forget(c.xid)
		if !c.gone.Load() { // GLFW's destroy of a destroyed window is an X error, which ends the process
			c.win.Destroy()
		}
	})
}

// OnEvent delivers the window's key, pointer, wheel, resize, close,
// expose and destroyed events to handler (on the main thread, while events
// are polled).
func (c *glfwContext) OnEvent(handler func(Event)) {
	onMain(func() {
		w := c.win
		w.SetKeyCallback(func(_ *glfw.Window, key glfw.Key, scancode int, action glfw.Action, mods glfw.ModifierKey) {
			k := keyOf(key, keyName(key, scancode))
			switch {
			case k == 0:
			case action == glfw.Press || action == glfw.Repeat: // a held key repeats, as X repeats it for Equalizer
				handler(Event{Kind: KeyPress, Key: k, Mods: modsOf(mods)})
			case action == glfw.Release:
				handler(Event{Kind: KeyRelease, Key: k, Mods: modsOf(mods)})
			}
		})
		// GLFW gives a button or a wheel no place; asked, it gives where
		// the pointer is now, which after a quick drag polled at once is
		// where the drag ended, and the drag did nothing
		w.SetCursorPosCallback(func(w *glfw.Window, x, y float64) {
			c.pointer, c.pointerKnown = [2]float64{x, y}, true
			handler(Event{Kind: PointerMotion, X: x, Y: y, Mods: heldMods(w)})
		})
		w.SetCursorEnterCallback(func(w *glfw.Window, entered bool) {
			c.pointerKnown = false // it moved outside, unreported
		})
		w.SetMouseButtonCallback(func(w *glfw.Window, b glfw.MouseButton, action glfw.Action, mods glfw.ModifierKey) {
			x, y := c.pointerAt()
			button := map[glfw.MouseButton]int{glfw.MouseButtonLeft: 1, glfw.MouseButtonMiddle: 2, glfw.MouseButtonRight: 3}[b]
			kind := ButtonPress
			if action == glfw.Release {
				kind = ButtonRelease
			}
			handler(Event{Kind: kind, X: x, Y: y, Button: button, Mods: modsOf(mods)})
		})
		w.SetScrollCallback(func(w *glfw.Window, dx, dy float64) {
			x, y := c.pointerAt()
			handler(Event{Kind: Wheel, X: x, Y: y, DX: dx, DY: dy, Mods: heldMods(w)})
		})
		c.handler = handler // the framebuffer size callback passes resizes on
		w.SetCloseCallback(func(*glfw.Window) { handler(Event{Kind: Close}) })
		w.SetRefreshCallback(func(*glfw.Window) { handler(Event{Kind: Expose}) })
		if w.ShouldClose() {
			// asked to close between the window's creation and now: GLFW
			// only set the flag, no callback saw it
			handler(Event{Kind: Close})
		}
	})
}

// keyName is the character a key types unshifted in the keyboard's first
// layout, as Equalizer reads X's key symbols (the first group's): a
// keyboard set up as "us,ru" types eqPly's keys in Latin letters while
// Russian is active. Where the first layout's is no Latin-1 character (a
// keyboard set up as "ru,us"), it is the active layout's, as GLFW names
// it.
func keyName(key glfw.Key, scancode int) string {
	if d := glfw.GetX11Display(); d != nil && scancode > 0 {
		if sym := C.goeqFirstLayoutKeysym(unsafe.Pointer(d), C.int(scancode)); sym > 0x20 && sym < 0x7f || sym >= 0xa0 && sym <= 0xff {
			return string(rune(sym)) // Latin-1 key symbols are their character
		}
	}
	return glfw.GetKeyName(key, scancode)
}

// keyOf maps GLFW's key codes: characters (letters, digits, punctuation
// and the keypad's) to their rune, letters lower-case as without shift,
// named keys to ours, the rest to 0. A character key is the one the
// keyboard's layout puts there (name, keyName's), as
// Equalizer reads X's key symbols: GLFW numbers keys by their place on a
// US keyboard, and on a German one the key marked z came as y and + as ].
// The digit row types its digits on any layout, as the keypad does (a
// French keyboard's types & é " unshifted, and eqPly's 1 2 3 would want
// shift there).
func keyOf(k glfw.Key, name string) int {
	if k > glfw.KeySpace && k <= glfw.KeyGraveAccent && (k < glfw.Key0 || k > glfw.Key9) {
		if r, size := utf8.DecodeRuneInString(name); size > 0 && r != utf8.RuneError {
			return int(unicode.ToLower(r))
		}
	}
	switch {
	case k >= glfw.KeyA && k <= glfw.KeyZ:
		return int('a' + (k - glfw.KeyA))
	case k >= glfw.KeySpace && k <= glfw.KeyGraveAccent:
		return int(k) // GLFW numbers the printable keys by their US-layout ASCII
	case k >= glfw.KeyKP0 && k <= glfw.KeyKP9:
		return int('0' + (k - glfw.KeyKP0))
	case k >= glfw.KeyF1 && k <= glfw.KeyF12:
		return KeyF1 + int(k-glfw.KeyF1)
	}
	return namedKeys[k]
}

var namedKeys = map[glfw.Key]int{
	glfw.KeyEscape: KeyEscape, glfw.KeyEnter: KeyEnter, glfw.KeyKPEnter: KeyEnter, glfw.KeyTab: KeyTab, glfw.KeyBackspace: KeyBackspace,
	glfw.KeyLeft: KeyLeft, glfw.KeyRight: KeyRight, glfw.KeyUp: KeyUp, glfw.KeyDown: KeyDown,
	glfw.KeyPageUp: KeyPageUp, glfw.KeyPageDown: KeyPageDown, glfw.KeyHome: KeyHome, glfw.KeyEnd: KeyEnd,
	glfw.KeyInsert: KeyInsert, glfw.KeyDelete: KeyDelete,
	glfw.KeyKPDecimal: '.', glfw.KeyKPDivide: '/', glfw.KeyKPMultiply: '*', glfw.KeyKPSubtract: '-', glfw.KeyKPAdd: '+', glfw.KeyKPEqual: '=',
}

// heldMods are the modifier keys held now: GLFW gives the pointer's
// motion and the wheel none of their own.
func heldMods(w *glfw.Window) int {
	var m glfw.ModifierKey
	for _, k := range []struct {
		left, right glfw.Key
		mod         glfw.ModifierKey
	}{{glfw.KeyLeftShift, glfw.KeyRightShift, glfw.ModShift}, {glfw.KeyLeftControl, glfw.KeyRightControl, glfw.ModControl},
		{glfw.KeyLeftAlt, glfw.KeyRightAlt, glfw.ModAlt}, {glfw.KeyLeftSuper, glfw.KeyRightSuper, glfw.ModSuper}} {
		if w.GetKey(k.left) == glfw.Press || w.GetKey(k.right) == glfw.Press {
			m |= k.mod
		}
	}
	return modsOf(m)
}

// modsOf maps GLFW's modifier bits to ours.
func modsOf(m glfw.ModifierKey) int {
	out := 0
	for i, glfwMod := range []glfw.ModifierKey{glfw.ModShift, glfw.ModControl, glfw.ModAlt, glfw.ModSuper} {
		if m&glfwMod != 0 {
			out |= 1 << i // ModShift, ModControl, ModAlt, ModSuper
		}
	}
	return out
}

func (c *glfwContext) Window() bool { return c.window }
