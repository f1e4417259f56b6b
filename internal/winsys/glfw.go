package winsys

import (
	"fmt"
	"runtime"
	"sync"

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

// RunMain serves GLFW calls on the main thread until done is closed. A
// program that uses GLFW calls it from main (tests: from TestMain).
func RunMain(done <-chan struct{}) {
	for {
		select {
		case f := <-mainQueue:
			f()
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

// OpenGLFW initialises GLFW once (on the main thread).
func OpenGLFW() (*GLFW, error) {
	glfwOnce.Do(func() {
		onMain(func() { glfwErr = glfw.Init() })
	})
	if glfwErr != nil {
		return nil, fmt.Errorf("winsys: GLFW: %w", glfwErr)
	}
	return &GLFW{}, nil
}

// Name describes the window system.
func (*GLFW) Name() string { return "GLFW (X11)" }

type glfwContext struct {
	win    *glfw.Window
	window bool
}

// NewContext creates a hidden window with a core 3.3 context; the first
// context of a pipe is its window, shared ones are hidden helpers.
func (g *GLFW) NewContext(share Context) (Context, error) {
	return g.newWindow(share, 64, 64, false, "goeq")
}

// NewWindow creates a visible window of the given size.
func (g *GLFW) NewWindow(share Context, w, h int, title string) (Context, error) {
	return g.newWindow(share, w, h, true, title)
}

func (g *GLFW) newWindow(share Context, w, h int, visible bool, title string) (Context, error) {
	var win *glfw.Window
	var err error
	onMain(func() {
		glfw.DefaultWindowHints()
		glfw.WindowHint(glfw.ContextVersionMajor, 3)
		glfw.WindowHint(glfw.ContextVersionMinor, 3)
		glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
		glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
		glfw.WindowHint(glfw.Visible, map[bool]int{true: glfw.True, false: glfw.False}[visible])
		var sh *glfw.Window
		if s, ok := share.(*glfwContext); ok && s != nil {
			sh = s.win
		}
		win, err = glfw.CreateWindow(w, h, title, nil, sh)
	})
	if err != nil {
		return nil, fmt.Errorf("winsys: GLFW window: %w", err)
	}
	return &glfwContext{win: win, window: visible}, nil
}

func (c *glfwContext) MakeCurrent() error { c.win.MakeContextCurrent(); return nil }
func (c *glfwContext) Release()           { glfw.DetachCurrentContext() }
func (c *glfwContext) Swap() {
	c.win.SwapBuffers()
	onMain(glfw.PollEvents)
}
func (c *glfwContext) Destroy()     { onMain(c.win.Destroy) }
func (c *glfwContext) Window() bool { return c.window }
