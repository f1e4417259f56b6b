// Package winsys hides the window systems goeq renders with behind one
// small interface: EGL for headless nodes (no X at all: Mesa's surfaceless
// platform, or the EGL device platform on GPU servers), GLFW for
// on-screen windows on the node's X display, and X11 for a pipe that
// names another X screen or server. Every context is OpenGL 3.3 core or
// newer; objects (textures, buffers, fences) are shared between a pipe's
// contexts, containers (VAOs, FBOs) are not.
package winsys

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Context is one OpenGL context. A context is current on at most one
// OS thread; callers lock their goroutine to a thread first.
type Context interface {
	MakeCurrent() error
	Release()
	// Swap presents the window's back buffer (no-op for headless).
	Swap()
	Destroy()
	// Window reports whether the context has an on-screen window.
	Window() bool
}

// System creates contexts.
type System interface {
	Name() string
	// NewContext creates a context sharing objects with share (nil: none).
	NewContext(share Context) (Context, error)
}

// Windows is a System that also opens on-screen windows: GLFW on the
// node's X display, or X11 on another X screen or server.
type Windows interface {
	System
	NewWindow(share Context, spec WindowSpec) (Context, error)
}

// Choice names the window system: "egl", "glfw" or "auto".
type Choice string

// Why says why Open chose its window system, for the log.
type Why struct {
	Text string
	// DisplayUnusable is set when the node has windows to show and an X
	// display is set that GLFW could not use: they are offscreen instead.
	DisplayUnusable bool
}

func (w Why) String() string { return w.Text }

// Open returns the window system asked for. "auto" (and the empty choice)
// takes GLFW when an X display is set and the node has a window to show
// (onScreen), and EGL otherwise: a node whose windows are all offscreen
// renders without X even on a machine with a display. The environment
// variable GOEQ_WINSYS overrides the choice.
func Open(choice Choice, onScreen bool) (System, Why, error) {
	if env := os.Getenv("GOEQ_WINSYS"); env != "" {
		choice = Choice(strings.ToLower(env))
	}
	switch choice {
	case "egl":
		s, err := OpenEGL()
		if err != nil {
			return nil, Why{}, err
		}
		return s, Why{Text: "EGL as asked"}, nil
	case "glfw":
		if err := displayAnswers(os.Getenv("DISPLAY")); err != nil {
			return nil, Why{}, err
		}
		s, err := OpenGLFW()
		if err != nil {
			return nil, Why{}, err
		}
		return s, Why{Text: "GLFW as asked"}, nil
	case "", "auto":
		display := os.Getenv("DISPLAY")
		var xErr error // why the X display could not be used
		if display != "" && onScreen {
			xErr = displayAnswers(display)
			if xErr == nil {
				s, err := OpenGLFW()
				if err == nil {
					return s, Why{Text: "GLFW on X display " + display}, nil
				}
				xErr = err
			}
		}
		s, err := OpenEGL()
		if err != nil {
			if display != "" && xErr == nil {
				if g, gerr := OpenGLFW(); gerr == nil {
					return g, Why{Text: "GLFW on X display " + display + " (no EGL: " + err.Error() + ")"}, nil
				}
			}
			return nil, Why{}, err
		}
		switch {
		case xErr != nil:
			return s, Why{Text: "every window offscreen, on EGL: " + xErr.Error(), DisplayUnusable: true}, nil
		case display != "":
			return s, Why{Text: "every window of this node is offscreen: EGL"}, nil
		}
		if onScreen && os.Getenv("WAYLAND_DISPLAY") != "" {
			// A Wayland session without XWayland: the user expects windows.
			return s, Why{Text: "every window offscreen, on EGL: no X display, and WAYLAND_DISPLAY is set; goeq's windows are X windows (GLFW on X11), so run where DISPLAY names an X server (a Wayland desktop's XWayland)", DisplayUnusable: true}, nil
		}
		return s, Why{Text: "no X display: headless EGL"}, nil
	}
	return nil, Why{}, fmt.Errorf("winsys: unknown window system %q (egl, glfw or auto)", choice)
}

// GPUs are this machine's graphics cards, as a pipe's `device` names them:
// where windows show on the X display (onScreen, and DISPLAY set), the
// screens of its server (each a GPU, as Equalizer's GLX discovery counts
// them); headless, the EGL devices that are not a software renderer. It
// decides as Open does, GOEQ_WINSYS included.
func GPUs(onScreen bool) []int {
	choice := Choice(strings.ToLower(os.Getenv("GOEQ_WINSYS")))
	display := os.Getenv("DISPLAY")
	if choice == "glfw" || (choice == "" || choice == "auto") && display != "" && onScreen {
		if server, err := ScreenDisplay(display, 0); err == nil {
			if n, _ := screensWithin(server, screensBound); n > 0 {
				list := make([]int, n)
				for i := range list {
					list[i] = i
				}
				return list
			}
		}
	}
	return hardwareDevices()
}

// screensBound bounds the wait for an X server to say how many screens it
// has: Xlib waits without end for one that takes the connection and never
// answers (a hung server, a forwarded display whose far end is gone).
const screensBound = 3 * time.Second

// screensWithin is screens(display), and whether the server answered
// within bound: 0 and false when it has not. Xlib is asked only once the
// server has answered xAnswers; should it hang in between, the query is
// left to end on its own.
func screensWithin(display string, bound time.Duration) (n int, answered bool) {
	if !xAnswers(display, bound) {
		return 0, false
	}
	got := make(chan int, 1)
	go func() { got <- screens(display) }()
	select {
	case n := <-got:
		return n, true
	case <-time.After(bound):
		return 0, false
	}
}

// displayAnswerBound bounds the wait for the X server before GLFW opens
// the display: a server answers a connection in milliseconds, across a
// forwarded link in a round trip.
var displayAnswerBound = 10 * time.Second

// displayAnswers refuses a display whose X server takes the connection
// and says nothing (a hung server, a forwarded display whose far end is
// gone): Xlib, under GLFW, waits for it without end, and a node showing a
// window waited out its init timeout, saying only that it was opening the
// window system. A display that cannot be opened at all is left to GLFW
// to say so.
func displayAnswers(display string) error {
	server, err := ScreenDisplay(display, 0)
	if err != nil {
		return nil
	}
	if _, answered := screensWithin(server, displayAnswerBound); !answered {
		return fmt.Errorf("winsys: X display %s does not answer (it took the connection and said nothing for %v): a hung X server, or a forwarded display whose far end is gone; render offscreen with GOEQ_WINSYS=egl", display, displayAnswerBound)
	}
	return nil
}

// coreContextError is the error of a window system (sys) that could not
// make the OpenGL 3.3 core context goeq renders with, for cause, saying
// what it offers instead: offered is the GL_VERSION of a context that asks
// for none ("" where there is none at all). forwarded is whether the GL
// goes through the X server (indirect rendering, or a display reached over
// the network, as ssh -X forwards one), which is then the likely cause.
func coreContextError(sys, cause, offered string, forwarded bool) error {
	const want = "goeq renders with OpenGL 3.3 core"
	var err error
	if offered == "" {
		err = fmt.Errorf("winsys: %s makes no OpenGL context (%s); %s", sys, cause, want)
	} else {
		err = fmt.Errorf("winsys: %s offers OpenGL %s, not 3.3 core (%s); %s", sys, offered, cause, want)
	}
	if forwarded {
		return fmt.Errorf("%w. Its GL goes through the X server, as over ssh -X, where it stops at OpenGL 1.4 or fails: "+
			"show the windows on the machine's own display, or render offscreen (GOEQ_WINSYS=egl)", err)
	}
	if offered != "" {
		return fmt.Errorf("%w: update the graphics driver, or see whether MESA_GL_VERSION_OVERRIDE is set", err)
	}
	return err
}

// remoteDisplay is whether the X display name reaches its server over the
// network (host:display, as ssh -X sets localhost:10.0), not a local
// socket.
func remoteDisplay(display string) bool {
	host, _, found := strings.Cut(display, ":")
	return found && host != "" && host != "unix" && !strings.HasPrefix(host, "/")
}
