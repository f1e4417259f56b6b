package winsys

/*
#cgo LDFLAGS: -lX11 -lEGL
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/keysym.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

// goeqX11Display is the EGL display of one X screen (EGL_KHR_platform_x11),
// initialised.
static EGLDisplay goeqX11Display(Display *x, int screen) {
	PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!getPlatformDisplay) return EGL_NO_DISPLAY;
	EGLint attribs[] = { EGL_PLATFORM_X11_SCREEN_EXT, screen, EGL_NONE };
	EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_X11_EXT, x, attribs);
	if (d == EGL_NO_DISPLAY || !eglInitialize(d, NULL, NULL)) return EGL_NO_DISPLAY;
	return d;
}

// goeqX11Config finds an RGBA8 window config with a depth buffer for
// OpenGL, and its X visual.
static int goeqX11Config(EGLDisplay d, EGLConfig *cfg, EGLint *visual) {
	EGLint attribs[] = {
		EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
		EGL_DEPTH_SIZE, 24, EGL_NONE };
	EGLint n = 0;
	if (!eglChooseConfig(d, attribs, cfg, 1, &n) || n < 1) return 0;
	return eglGetConfigAttrib(d, *cfg, EGL_NATIVE_VISUAL_ID, visual);
}

static EGLContext goeqX11Context(EGLDisplay d, EGLConfig cfg, EGLContext share) {
	EGLint attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
		EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_NONE };
	if (!eglBindAPI(EGL_OPENGL_API)) return EGL_NO_CONTEXT;
	return eglCreateContext(d, cfg, share, attribs);
}

static int goeqX11MakeCurrent(EGLDisplay d, EGLSurface s, EGLContext c) {
	return eglMakeCurrent(d, s, s, c);
}

static int goeqX11Release(EGLDisplay d) {
	return eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

// goeqX11Window creates and maps a window of the visual on the screen:
// placed where asked (the size hints say the user placed it, so that a
// window manager keeps it there), without decorations (Motif hints) or
// fullscreen (EWMH) when asked.
static Window goeqX11Window(Display *x, int screen, VisualID visualID, int px, int py, int w, int h,
		int undecorated, int fullscreen, const char *title, Atom deleteWindow) {
	XVisualInfo tmpl, *vi;
	int n = 0;
	tmpl.visualid = visualID;
	tmpl.screen = screen;
	vi = XGetVisualInfo(x, VisualIDMask | VisualScreenMask, &tmpl, &n);
	if (!vi || n < 1) return 0;
	Window root = RootWindow(x, screen);
	XSetWindowAttributes wa;
	memset(&wa, 0, sizeof wa);
	wa.colormap = XCreateColormap(x, root, vi->visual, AllocNone);
	wa.event_mask = KeyPressMask | KeyReleaseMask | ButtonPressMask | ButtonReleaseMask |
		PointerMotionMask | StructureNotifyMask | ExposureMask;
	// black where the window is uncovered, until it draws there
	wa.background_pixel = BlackPixel(x, screen);
	Window win = XCreateWindow(x, root, px, py, w, h, 0, vi->depth, InputOutput, vi->visual,
		CWColormap | CWEventMask | CWBorderPixel | CWBackPixel, &wa);
	XFree(vi);
	if (!win) return 0;
	XStoreName(x, win, title);
	XSetWMProtocols(x, win, &deleteWindow, 1);
	XSizeHints hints;
	memset(&hints, 0, sizeof hints);
	hints.flags = USPosition | USSize;
	hints.x = px; hints.y = py; hints.width = w; hints.height = h;
	XSetWMNormalHints(x, win, &hints);
	if (undecorated) {
		long motif[5] = { 2, 0, 0, 0, 0 }; // flags: decorations; decorations: none
		Atom a = XInternAtom(x, "_MOTIF_WM_HINTS", False);
		XChangeProperty(x, win, a, a, 32, PropModeReplace, (unsigned char *)motif, 5);
	}
	if (fullscreen) {
		Atom state = XInternAtom(x, "_NET_WM_STATE", False);
		Atom full = XInternAtom(x, "_NET_WM_STATE_FULLSCREEN", False);
		XChangeProperty(x, win, state, XA_ATOM, 32, PropModeReplace, (unsigned char *)&full, 1);
	}
	XMapWindow(x, win);
	XFlush(x);
	return win;
}

// goeqWatching is the connection goeqXWatch selects on, whose errors
// goeqWatchError takes while it does.
static Display *goeqWatching;
static XErrorHandler goeqPrevError;

static int goeqWatchError(Display *x, XErrorEvent *e) {
	if (x == goeqWatching) return 0; // the window went before it was watched
	return goeqPrevError ? goeqPrevError(x, e) : 0;
}

// goeqXWatch selects structure events on a window that another
// connection (owner, GLFW's) made, so that this connection learns when
// another client destroys it. The X server takes requests of different
// connections in any order: the owner's are synced first, or the
// selection could reach the server before the window's creation, a
// BadWindow that Xlib's default handler ended the process with (as it
// did under load). A window another client destroyed meanwhile is not
// watched, and its error is not the process's end either.
static void goeqXWatch(Display *x, Display *owner, Window w) {
	XSync(owner, False);
	goeqWatching = x;
	goeqPrevError = XSetErrorHandler(goeqWatchError);
	XSelectInput(x, w, StructureNotifyMask);
	XSync(x, False);
	XSetErrorHandler(goeqPrevError);
	goeqWatching = NULL;
}

// goeqXDestroyed reads the connection's events without waiting and
// returns the first window a DestroyNotify names, 0 when none did.
static Window goeqXDestroyed(Display *x) {
	while (XPending(x)) {
		XEvent e;
		XNextEvent(x, &e);
		if (e.type == DestroyNotify) return e.xdestroywindow.window;
	}
	return 0;
}

// goeqXEvent is the part of an X event a window's handler needs.
typedef struct {
	int type;
	Window window;
	int x, y, w, h;
	unsigned int button, state;
	KeySym key;
	KeySym shifted; // the key's symbol with shift
	int count;      // Expose: how many more follow
	Atom message;   // ClientMessage: the protocol asked for
} goeqXEvent;

// goeqXNext waits up to timeoutMS for the display's next event; it
// returns 0 when none came.
static int goeqXNext(Display *x, int timeoutMS, goeqXEvent *out) {
	if (!XPending(x)) {
		struct pollfd p = { ConnectionNumber(x), POLLIN, 0 };
		if (poll(&p, 1, timeoutMS) <= 0 || !XPending(x)) return 0;
	}
	XEvent e;
	XNextEvent(x, &e);
	memset(out, 0, sizeof *out);
	out->type = e.type;
	out->window = e.xany.window;
	switch (e.type) {
	case KeyPress: case KeyRelease:
		out->state = e.xkey.state;
		out->key = XLookupKeysym(&e.xkey, 0);
		out->shifted = XLookupKeysym(&e.xkey, 1);
		break;
	case ButtonPress: case ButtonRelease:
		out->x = e.xbutton.x; out->y = e.xbutton.y;
		out->button = e.xbutton.button; out->state = e.xbutton.state;
		break;
	case MotionNotify:
		out->x = e.xmotion.x; out->y = e.xmotion.y; out->state = e.xmotion.state;
		break;
	case ConfigureNotify:
		out->w = e.xconfigure.width; out->h = e.xconfigure.height;
		break;
	case Expose:
		out->count = e.xexpose.count;
		break;
	case ClientMessage:
		out->message = (Atom)e.xclient.data.l[0];
		break;
	}
	return 1;
}
*/
import "C"

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// X11 is one X screen's window system, for a pipe that names a screen
// (its `device`) or an X server (its `port`) other than the one the node's
// DISPLAY opens: windows made with Xlib on that screen, contexts from EGL
// on the X11 platform. GLFW opens a single display per process, so the
// node's other screens need their own connection, as Equalizer gives each
// pipe its `:port.device`. With Mesa each X11 system is also a rasterizer
// of its own.
type X11 struct {
	Display string // as XOpenDisplay takes it: host:display.screen
	x       *C.Display
	screen  C.int
	egl     C.EGLDisplay
	config  C.EGLConfig
	visual  C.EGLint
	delete  C.Atom // WM_DELETE_WINDOW

	mu      sync.Mutex
	windows map[C.Window]*x11Context
	stop    chan struct{} // Close asks the event goroutine to end
	stopped chan struct{}
}

var (
	x11Mu      sync.Mutex
	x11Screens = map[string]*X11{}
)

// ScreenDisplay is the X display of screen on the X server that display
// (as DISPLAY gives it: [host]:number[.screen]) names.
func ScreenDisplay(display string, screen int) (string, error) {
	return XDisplay(display, -1, screen)
}

// XDisplay is the X display host:number.screen, its host that of display
// (as DISPLAY gives it: [host]:number[.screen]), and its number display's
// where number is negative.
func XDisplay(display string, number, screen int) (string, error) {
	colon := strings.LastIndex(display, ":")
	if colon < 0 {
		return "", fmt.Errorf("winsys: X display %q has no display number", display)
	}
	own := display[colon+1:]
	if dot := strings.Index(own, "."); dot >= 0 {
		own = own[:dot]
	}
	n, err := strconv.Atoi(own)
	if err != nil {
		return "", fmt.Errorf("winsys: X display %q has no display number", display)
	}
	if number >= 0 {
		n = number
	}
	return fmt.Sprintf("%s:%d.%d", display[:colon], n, screen), nil
}

// DisplayScreen is the screen a DISPLAY value opens by default.
func DisplayScreen(display string) int {
	colon := strings.LastIndex(display, ":")
	if dot := strings.LastIndex(display, "."); colon >= 0 && dot > colon {
		if n, err := strconv.Atoi(display[dot+1:]); err == nil {
			return n
		}
	}
	return 0
}

// OpenX11Screen opens the X screen that display names
// (host:number.screen), once per process.
func OpenX11Screen(display string) (*X11, error) {
	x11Mu.Lock()
	defer x11Mu.Unlock()
	if s := x11Screens[display]; s != nil {
		return s, nil
	}
	if err := displayAnswers(display); err != nil {
		return nil, err
	}
	keepMallocMemory()
	C.XInitThreads()
	// the screen is the connection's default one, which Mesa's EGL takes
	name := C.CString(display)
	defer C.free(unsafe.Pointer(name))
	screen := C.int(DisplayScreen(display))
	x := C.XOpenDisplay(name)
	if x == nil {
		return nil, fmt.Errorf("winsys: cannot open X display %s%s", display, screenCount(display))
	}
	s := &X11{Display: display, x: x, screen: screen, windows: map[C.Window]*x11Context{},
		stop: make(chan struct{}), stopped: make(chan struct{})}
	if s.egl = C.goeqX11Display(x, screen); s.egl == C.EGLDisplay(C.EGL_NO_DISPLAY) {
		C.XCloseDisplay(x)
		return nil, fmt.Errorf("winsys: X display %s: no EGL display on the X11 platform: %s", display, eglError(C.eglGetError()))
	}
	ext := C.GoString(C.eglQueryString(s.egl, C.EGL_EXTENSIONS))
	if !strings.Contains(ext, "EGL_KHR_surfaceless_context") {
		// a pipe's own context and its helpers have no window
		C.eglTerminate(s.egl)
		C.XCloseDisplay(x)
		return nil, fmt.Errorf("winsys: X display %s: EGL lacks EGL_KHR_surfaceless_context", display)
	}
	if C.goeqX11Config(s.egl, &s.config, &s.visual) == 0 {
		C.eglTerminate(s.egl)
		C.XCloseDisplay(x)
		return nil, fmt.Errorf("winsys: X display %s: no RGBA8 window config for OpenGL", display)
	}
	wmDelete := C.CString("WM_DELETE_WINDOW")
	s.delete = C.XInternAtom(x, wmDelete, C.False)
	C.free(unsafe.Pointer(wmDelete))
	go s.pollEvents()
	x11Screens[display] = s
	return s, nil
}

// screenCount says how many screens the X server of display has, where
// Xlib refuses a screen number it lacks without saying why.
func screenCount(display string) string {
	server, err := ScreenDisplay(display, 0)
	if err != nil {
		return ""
	}
	n := screens(server)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(": the server has %d screens", n)
}

// screens is how many screens the X server of display has (0: it cannot
// be opened).
func screens(display string) int {
	name := C.CString(display)
	defer C.free(unsafe.Pointer(name))
	x := C.XOpenDisplay(name)
	if x == nil {
		return 0
	}
	defer C.XCloseDisplay(x)
	return int(C.XScreenCount(x))
}

// Close stops reading the screen's events and closes its connection, its
// contexts destroyed first. Xlib ends the process when the X server goes
// away under an open connection (as it does for GLFW's): a program that
// outlives its X server closes the screen first.
func (s *X11) Close() {
	x11Mu.Lock()
	delete(x11Screens, s.Display)
	x11Mu.Unlock()
	close(s.stop)
	<-s.stopped
	C.eglTerminate(s.egl)
	C.XCloseDisplay(s.x)
}

// Name describes the window system.
func (s *X11) Name() string { return "X11 screen " + s.Display + " (EGL)" }

type x11Context struct {
	sys     *X11
	ctx     C.EGLContext
	surface C.EGLSurface // EGL_NO_SURFACE for contexts without a window
	win     C.Window
	size    atomic.Int64 // width<<32 | height, as for GLFW's
	handler atomic.Pointer[func(Event)]
	gone    atomic.Bool // another X client destroyed the window
}

func (s *X11) context(share Context) (*x11Context, error) {
	sh := C.EGLContext(C.EGL_NO_CONTEXT)
	if c, ok := share.(*x11Context); ok && c != nil {
		sh = c.ctx
	}
	ctx := C.goeqX11Context(s.egl, s.config, sh)
	if ctx == C.EGLContext(C.EGL_NO_CONTEXT) {
		code := C.eglGetError()
		return nil, coreContextError("EGL on X display "+s.Display, eglError(code), offeredGL(s.egl, s.config), false)
	}
	return &x11Context{sys: s, ctx: ctx, surface: C.EGLSurface(C.EGL_NO_SURFACE)}, nil
}

// NewContext creates an OpenGL 3.3 core context without a window, sharing
// objects with share (nil for none).
func (s *X11) NewContext(share Context) (Context, error) { return s.context(share) }

// NewWindow creates a visible window on the screen with a context of its
// own that shares objects with share.
func (s *X11) NewWindow(share Context, spec WindowSpec) (Context, error) {
	c, err := s.context(share)
	if err != nil {
		return nil, err
	}
	if spec.Fullscreen {
		spec.X, spec.Y = 0, 0
		spec.W, spec.H = int(C.XDisplayWidth(s.x, s.screen)), int(C.XDisplayHeight(s.x, s.screen))
		spec.Undecorated = true
	}
	title := C.CString(spec.Title)
	defer C.free(unsafe.Pointer(title))
	s.mu.Lock() // the window is known before its first event is read
	defer s.mu.Unlock()
	c.win = C.goeqX11Window(s.x, s.screen, C.VisualID(s.visual), C.int(spec.X), C.int(spec.Y), C.int(spec.W), C.int(spec.H),
		cBool(spec.Undecorated), cBool(spec.Fullscreen), title, s.delete)
	if c.win == 0 {
		C.eglDestroyContext(s.egl, c.ctx)
		return nil, fmt.Errorf("winsys: %s: cannot create a window", s.Display)
	}
	c.surface = C.eglCreateWindowSurface(s.egl, s.config, C.EGLNativeWindowType(c.win), nil)
	if c.surface == C.EGLSurface(C.EGL_NO_SURFACE) {
		C.XDestroyWindow(s.x, c.win)
		C.eglDestroyContext(s.egl, c.ctx)
		return nil, fmt.Errorf("winsys: %s: eglCreateWindowSurface failed: %s", s.Display, eglError(C.eglGetError()))
	}
	c.setSize(spec.W, spec.H)
	s.windows[c.win] = c
	return c, nil
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func (c *x11Context) setSize(w, h int) { c.size.Store(int64(w)<<32 | int64(uint32(h))) }

// FramebufferSize is the window's size now.
func (c *x11Context) FramebufferSize() (w, h int) {
	v := c.size.Load()
	return int(v >> 32), int(uint32(v))
}

func (c *x11Context) MakeCurrent() error {
	if c.gone.Load() {
		return ErrDestroyed
	}
	if C.goeqX11MakeCurrent(c.sys.egl, c.surface, c.ctx) == 0 {
		return fmt.Errorf("winsys: %s: eglMakeCurrent failed: %s", c.sys.Display, eglError(C.eglGetError()))
	}
	return nil
}

func (c *x11Context) Release() { C.goeqX11Release(c.sys.egl) }

func (c *x11Context) Swap() {
	if c.win != 0 && !c.gone.Load() {
		C.eglSwapBuffers(c.sys.egl, c.surface)
	}
}

func (c *x11Context) Destroy() {
	s := c.sys
	if c.win != 0 {
		s.mu.Lock()
		delete(s.windows, c.win)
		s.mu.Unlock()
		C.eglDestroySurface(s.egl, c.surface)
		if !c.gone.Load() { // a window destroyed twice is an X error, which ends the process
			C.XDestroyWindow(s.x, c.win)
		}
		C.XFlush(s.x)
	}
	C.eglDestroyContext(s.egl, c.ctx)
}

func (c *x11Context) Window() bool { return c.win != 0 }

// OnEvent delivers the window's events to handler, on the screen's event
// goroutine.
func (c *x11Context) OnEvent(handler func(Event)) { c.handler.Store(&handler) }

// pollEvents reads the screen's events until Close and hands each to its
// window's handler.
func (s *X11) pollEvents() {
	defer close(s.stopped)
	var e C.goeqXEvent
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		if C.goeqXNext(s.x, C.int(pollEvery.Milliseconds()), &e) == 0 {
			continue
		}
		s.mu.Lock()
		c := s.windows[e.window]
		s.mu.Unlock()
		if c == nil {
			continue
		}
		if ev, ok := c.translate(&e); ok {
			if h := c.handler.Load(); h != nil {
				(*h)(ev)
			}
		}
	}
}

// translate turns an X event into the window's event; ok is false for
// events the window does not pass on.
func (c *x11Context) translate(e *C.goeqXEvent) (Event, bool) {
	switch e._type {
	case C.KeyPress, C.KeyRelease:
		k := x11Key(C.KeySym(e.key), C.KeySym(e.shifted))
		if k == 0 {
			return Event{}, false
		}
		kind := KeyPress
		if e._type == C.KeyRelease {
			kind = KeyRelease
		}
		return Event{Kind: kind, Key: k, Mods: x11Mods(uint(e.state))}, true
	case C.ButtonPress, C.ButtonRelease:
		x, y := float64(e.x), float64(e.y)
		switch b := int(e.button); {
		case b >= 4 && b <= 7: // the wheel: a press per notch
			if e._type == C.ButtonRelease {
				return Event{}, false
			}
			var dx, dy float64
			switch b {
			case 4:
				dy = 1
			case 5:
				dy = -1
			case 6:
				dx = 1
			case 7:
				dx = -1
			}
			return Event{Kind: Wheel, X: x, Y: y, DX: dx, DY: dy, Mods: x11Mods(uint(e.state))}, true
		case b >= 1 && b <= 3:
			kind := ButtonPress
			if e._type == C.ButtonRelease {
				kind = ButtonRelease
			}
			return Event{Kind: kind, X: x, Y: y, Button: b, Mods: x11Mods(uint(e.state))}, true
		}
	case C.MotionNotify:
		return Event{Kind: PointerMotion, X: float64(e.x), Y: float64(e.y), Mods: x11Mods(uint(e.state))}, true
	case C.ConfigureNotify:
		w, h := int(e.w), int(e.h)
		if ow, oh := c.FramebufferSize(); ow == w && oh == h {
			return Event{}, false
		}
		c.setSize(w, h)
		return Event{Kind: Resize, W: w, H: h}, true
	case C.Expose:
		if e.count == 0 {
			return Event{Kind: Expose}, true
		}
	case C.ClientMessage:
		if e.message == c.sys.delete {
			return Event{Kind: Close}, true
		}
	case C.DestroyNotify:
		// Destroy forgets the window before it destroys it, so another
		// client did
		c.gone.Store(true)
		return Event{Kind: Destroyed}, true
	}
	return Event{}, false
}

// destroyWatch learns which of GLFW's windows another X client destroyed,
// on a connection of its own to GLFW's display: GLFW drops DestroyNotify,
// and a run whose window was gone went on as if it showed. Used on the
// main thread only.
type destroyWatch struct {
	x       *C.Display // nil until the first window; nil too when it cannot open
	opened  bool
	windows map[C.Window]func()
}

// watch calls destroyed (on the main thread) once another client destroys
// window, which the connection owner made.
func (w *destroyWatch) watch(owner unsafe.Pointer, window uintptr, destroyed func()) {
	if !w.opened {
		w.opened = true
		w.x = C.XOpenDisplay(nil) // the DISPLAY GLFW opened
		w.windows = map[C.Window]func(){}
	}
	if w.x == nil || owner == nil || window == 0 {
		return
	}
	w.windows[C.Window(window)] = destroyed
	C.goeqXWatch(w.x, (*C.Display)(owner), C.Window(window))
}

// forget stops watching window, before its owner destroys it.
func (w *destroyWatch) forget(window uintptr) { delete(w.windows, C.Window(window)) }

// sync reads every destruction the X server made before now: a swap
// into a destroyed window is an X error that ends the process (Mesa
// asks for the window's geometry), before the run could say why.
func (w *destroyWatch) sync() {
	if w.x != nil && len(w.windows) > 0 {
		C.XSync(w.x, C.False)
		w.poll()
	}
}

// poll reads the destructions reported so far.
func (w *destroyWatch) poll() {
	if w.x == nil {
		return
	}
	for {
		win := C.goeqXDestroyed(w.x)
		if win == 0 {
			return
		}
		if destroyed := w.windows[win]; destroyed != nil {
			delete(w.windows, win)
			destroyed()
		}
	}
}

// x11Key maps an X key symbol (of the unshifted key, and shifted the key's
// symbol with shift): characters to their lower-case rune, named keys to
// ours, the rest to 0. A key that types a digit with shift types it here
// without, as GLFW's windows' digit row does on any layout: a French
// keyboard's types & é " unshifted, and eqPly's 1 2 3 would want shift.
func x11Key(k, shifted C.KeySym) int {
	switch {
	case shifted >= C.XK_0 && shifted <= C.XK_9 && !(k >= C.XK_0 && k <= C.XK_9):
		return '0' + int(shifted-C.XK_0)
	case k >= C.XK_a && k <= C.XK_z, k >= C.XK_space && k <= C.XK_asciitilde:
		r := int(k)
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	case k >= C.XK_KP_0 && k <= C.XK_KP_9:
		return '0' + int(k-C.XK_KP_0)
	case k >= C.XK_F1 && k <= C.XK_F12:
		return KeyF1 + int(k-C.XK_F1)
	}
	return x11NamedKeys[k]
}

var x11NamedKeys = map[C.KeySym]int{
	C.XK_Escape: KeyEscape, C.XK_Return: KeyEnter, C.XK_KP_Enter: KeyEnter, C.XK_Tab: KeyTab, C.XK_BackSpace: KeyBackspace,
	C.XK_Left: KeyLeft, C.XK_Right: KeyRight, C.XK_Up: KeyUp, C.XK_Down: KeyDown,
	C.XK_Page_Up: KeyPageUp, C.XK_Page_Down: KeyPageDown, C.XK_Home: KeyHome, C.XK_End: KeyEnd,
	C.XK_Insert: KeyInsert, C.XK_Delete: KeyDelete,
	C.XK_KP_Decimal: '.', C.XK_KP_Divide: '/', C.XK_KP_Multiply: '*', C.XK_KP_Subtract: '-', C.XK_KP_Add: '+', C.XK_KP_Equal: '=',
}

// x11Mods maps X's modifier state to ours (Mod1 is Alt, Mod4 Super, as
// X servers map them by default).
func x11Mods(state uint) int {
	out := 0
	for i, m := range []uint{C.ShiftMask, C.ControlMask, C.Mod1Mask, C.Mod4Mask} {
		if state&m != 0 {
			out |= 1 << i
		}
	}
	return out
}
