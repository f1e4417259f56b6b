package winsys

/*
#cgo LDFLAGS: -lEGL
#include <stdlib.h>
#include <string.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

// goeqDevices lists EGL's devices (16 at most) into devices and says how
// many there are: 0 where EGL cannot list them.
static EGLint goeqDevices(EGLDeviceEXT devices[16]) {
	PFNEGLQUERYDEVICESEXTPROC queryDevices =
		(PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
	EGLint n = 0;
	if (!queryDevices || !queryDevices(16, devices, &n)) return 0;
	return n;
}

// goeqDeviceIsSoftware is whether device is Mesa's software renderer: its
// extensions name EGL_MESA_device_software.
static int goeqDeviceIsSoftware(EGLDeviceEXT device) {
	PFNEGLQUERYDEVICESTRINGEXTPROC queryDevice =
		(PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
	const char *ext = queryDevice ? queryDevice(device, EGL_EXTENSIONS) : NULL;
	return ext && strstr(ext, "EGL_MESA_device_software") != NULL;
}

// goeqHardwareDevices lists the indices of EGL's devices that are not a
// software renderer into out (16 at most) and says how many there are.
static int goeqHardwareDevices(int out[16]) {
	EGLDeviceEXT devices[16];
	EGLint n = goeqDevices(devices);
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!goeqDeviceIsSoftware(devices[i])) out[k++] = i;
	}
	return k;
}

// goeqDeviceDisplay is the EGL device platform's display of device index
// (in eglQueryDevicesEXT's order), initialised; count is how many devices
// there are.
static EGLDisplay goeqDeviceDisplay(int index, int *count) {
	PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	EGLDeviceEXT devices[16];
	*count = getPlatformDisplay ? goeqDevices(devices) : 0;
	if (index < 0 || index >= *count) return EGL_NO_DISPLAY;
	EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[index], NULL);
	if (d == EGL_NO_DISPLAY || !eglInitialize(d, NULL, NULL)) return EGL_NO_DISPLAY;
	return d;
}

// The surfaceless platform (Mesa) renders without any window system; the
// device platform (the first device that initialises) is how NVIDIA's
// driver does the same on GPU servers.
static EGLDisplay goeqDisplay(int *platform) {
	PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (getPlatformDisplay) {
		EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
		if (d != EGL_NO_DISPLAY && eglInitialize(d, NULL, NULL)) { *platform = 1; return d; }
	}
	int count = 1;
	for (int i = 0; i < count; i++) {
		EGLDisplay d = goeqDeviceDisplay(i, &count);
		if (d != EGL_NO_DISPLAY) { *platform = 2; return d; }
	}
	EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
	if (d != EGL_NO_DISPLAY && eglInitialize(d, NULL, NULL)) { *platform = 3; return d; }
	return EGL_NO_DISPLAY;
}
// goeqConfig is d's RGBA8 config for OpenGL contexts; 0 (contexts without
// one) where a surfaceless display offers none.
static EGLConfig goeqConfig(EGLDisplay d) {
	EGLint cfgAttribs[] = {
		EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
		EGL_NONE };
	EGLConfig cfg;
	EGLint n = 0;
	if (!eglChooseConfig(d, cfgAttribs, &cfg, 1, &n) || n < 1) return (EGLConfig)0;
	return cfg;
}

static EGLContext goeqContext(EGLDisplay d, EGLContext share, int major, int minor) {
	if (!eglBindAPI(EGL_OPENGL_API)) return EGL_NO_CONTEXT;
	EGLConfig cfg = goeqConfig(d);
	EGLint ctxAttribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
		EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_NONE };
	return eglCreateContext(d, cfg, share, ctxAttribs);
}

// goeqSoftware is whether d renders on Mesa's software rasterizer.
static int goeqSoftware(EGLDisplay d) {
	PFNEGLQUERYDISPLAYATTRIBEXTPROC queryDisplay =
		(PFNEGLQUERYDISPLAYATTRIBEXTPROC)eglGetProcAddress("eglQueryDisplayAttribEXT");
	EGLAttrib device = 0;
	if (!queryDisplay || !queryDisplay(d, EGL_DEVICE_EXT, &device) || !device) return 0;
	return goeqDeviceIsSoftware((EGLDeviceEXT)device);
}

// goeqSoftwareDevice is the index of Mesa's software device in
// eglQueryDevicesEXT's order, or -1.
static int goeqSoftwareDevice(void) {
	EGLDeviceEXT devices[16];
	EGLint n = goeqDevices(devices);
	for (int i = 0; i < n; i++) {
		if (goeqDeviceIsSoftware(devices[i])) return i;
	}
	return -1;
}

// goeqOfferedGL writes into out (n bytes) the GL_VERSION of a context
// made as EGL makes one when no version is asked, on d with cfg, and says
// whether it could. It
// restores whatever was current on the thread.
static int goeqOfferedGL(EGLDisplay d, EGLConfig cfg, char *out, int n) {
	typedef const unsigned char *(*getStringFunc)(unsigned int);
	EGLDisplay prevDisplay = eglGetCurrentDisplay();
	EGLContext prevContext = eglGetCurrentContext();
	EGLSurface prevDraw = eglGetCurrentSurface(EGL_DRAW), prevRead = eglGetCurrentSurface(EGL_READ);
	if (!eglBindAPI(EGL_OPENGL_API)) return 0;
	EGLContext c = eglCreateContext(d, cfg, EGL_NO_CONTEXT, NULL);
	if (c == EGL_NO_CONTEXT) return 0;
	int ok = 0;
	if (eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
		getStringFunc getString = (getStringFunc)eglGetProcAddress("glGetString");
		const unsigned char *v = getString ? getString(0x1F02) : NULL; // GL_VERSION
		if (v) {
			strncpy(out, (const char *)v, n - 1);
			out[n - 1] = 0;
			ok = 1;
		}
	}
	if (prevContext != EGL_NO_CONTEXT) eglMakeCurrent(prevDisplay, prevDraw, prevRead, prevContext);
	else eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(d, c);
	return ok;
}

static int goeqMakeCurrent(EGLDisplay d, EGLContext c) {
	return eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c);
}
static int goeqRelease(EGLDisplay d) {
	return eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}
*/
import "C"

import (
	"fmt"
	"sync"
)

// EGL is the headless window system: contexts without surfaces that render
// into framebuffer objects, through Mesa's surfaceless platform or a GPU's
// EGL device. It has no main-thread rule.
type EGL struct {
	display  C.EGLDisplay
	Platform string
}

var (
	eglOnce sync.Once
	eglSys  *EGL
	eglErr  error
)

// OpenEGL initialises EGL once per process.
func OpenEGL() (*EGL, error) {
	keepMallocMemory()
	eglOnce.Do(func() {
		var platform C.int
		d := C.goeqDisplay(&platform)
		if d == C.EGLDisplay(C.EGL_NO_DISPLAY) {
			eglErr = fmt.Errorf("winsys: no EGL display (surfaceless, device or default): %s", eglError(C.eglGetError()))
			return
		}
		eglSys = &EGL{display: d, Platform: map[C.int]string{1: "surfaceless", 2: "device", 3: "default"}[platform]}
	})
	return eglSys, eglErr
}

var (
	devicesMu   sync.Mutex
	devices     = map[int]*EGL{}
	deviceCount int // how many devices EGL listed when one was opened
)

// OpenEGLDevice opens GPU index of the EGL device platform (in the order
// eglQueryDevicesEXT lists them), once per process: where a pipe that
// names its `device` renders. count is how many devices EGL lists.
func OpenEGLDevice(index int) (sys *EGL, count int, err error) {
	keepMallocMemory()
	devicesMu.Lock()
	defer devicesMu.Unlock()
	if sys = devices[index]; sys != nil {
		return sys, deviceCount, nil
	}
	var n C.int
	d := C.goeqDeviceDisplay(C.int(index), &n)
	if d == C.EGLDisplay(C.EGL_NO_DISPLAY) {
		if int(n) <= index {
			return nil, int(n), fmt.Errorf("winsys: no EGL device %d: EGL lists %d", index, int(n))
		}
		return nil, int(n), fmt.Errorf("winsys: EGL device %d: %s", index, eglError(C.eglGetError()))
	}
	sys = &EGL{display: d, Platform: fmt.Sprintf("device %d", index)}
	devices[index], deviceCount = sys, int(n)
	return sys, int(n), nil
}

// hardwareDevices are the indices of EGL's devices (as a pipe's `device`
// names them headless) that are GPUs, not Mesa's software renderer.
func hardwareDevices() []int {
	var out [16]C.int
	n := int(C.goeqHardwareDevices(&out[0]))
	devices := make([]int, n)
	for i := range devices {
		devices[i] = int(out[i])
	}
	return devices
}

// Rasterizers are the displays on which pipes of this process that have no
// GPU of their own render side by side, OpenEGL's first. Mesa's software
// renderer (llvmpipe) runs one rasterizer per EGL display, and the scenes
// of every context on a display queue on it, where GPUs give each pipe a
// queue of its own. Headless, Mesa 22.3 has two displays of its software
// renderer: the surfaceless platform's and its software device's; it
// returns the same one again for every other call. A GPU gives OpenEGL's
// display alone.
func Rasterizers() ([]*EGL, error) {
	main, err := OpenEGL()
	if err != nil {
		return nil, err
	}
	rasterizersOnce.Do(func() {
		rasterizers = []*EGL{main}
		if main.Platform != "surfaceless" || C.goeqSoftware(main.display) == 0 {
			return
		}
		if i := int(C.goeqSoftwareDevice()); i >= 0 {
			if dev, _, err := OpenEGLDevice(i); err == nil && dev.display != main.display {
				rasterizers = append(rasterizers, dev)
			}
		}
	})
	return rasterizers, nil
}

var (
	rasterizersOnce sync.Once
	rasterizers     []*EGL
)

// Name describes the window system.
func (e *EGL) Name() string { return "EGL (" + e.Platform + ")" }

type eglContext struct {
	sys *EGL
	ctx C.EGLContext
}

// NewContext creates an OpenGL 3.3 core context sharing objects with share
// (nil for none). It is not current anywhere yet.
func (e *EGL) NewContext(share Context) (Context, error) {
	var sh C.EGLContext = C.EGLContext(C.EGL_NO_CONTEXT)
	if s, ok := share.(*eglContext); ok && s != nil {
		sh = s.ctx
	}
	c := C.goeqContext(e.display, sh, 3, 3)
	if c == C.EGLContext(C.EGL_NO_CONTEXT) {
		code := C.eglGetError()
		return nil, coreContextError(e.Name(), eglError(code), offeredGL(e.display, C.goeqConfig(e.display)), false)
	}
	return &eglContext{sys: e, ctx: c}, nil
}

func (c *eglContext) MakeCurrent() error {
	if C.goeqMakeCurrent(c.sys.display, c.ctx) == 0 {
		return fmt.Errorf("winsys: eglMakeCurrent failed: %s", eglError(C.eglGetError()))
	}
	return nil
}

func (c *eglContext) Release() { C.goeqRelease(c.sys.display) }

func (c *eglContext) Destroy() {
	C.eglDestroyContext(c.sys.display, c.ctx)
}

// Swap does nothing: EGL contexts here have no surface.
func (c *eglContext) Swap() {}

func (c *eglContext) Window() bool { return false }

// offeredGL is the OpenGL version d gives a context that asks for none
// (GL_VERSION), or "" where it gives none at all.
func offeredGL(d C.EGLDisplay, cfg C.EGLConfig) string {
	var buf [128]C.char
	if C.goeqOfferedGL(d, cfg, &buf[0], C.int(len(buf))) == 0 {
		return ""
	}
	return C.GoString(&buf[0])
}

// eglErrors name EGL's error codes, which say little as numbers.
var eglErrors = map[C.EGLint]string{
	C.EGL_NOT_INITIALIZED: "EGL_NOT_INITIALIZED", C.EGL_BAD_ACCESS: "EGL_BAD_ACCESS", C.EGL_BAD_ALLOC: "EGL_BAD_ALLOC",
	C.EGL_BAD_ATTRIBUTE: "EGL_BAD_ATTRIBUTE", C.EGL_BAD_CONFIG: "EGL_BAD_CONFIG", C.EGL_BAD_CONTEXT: "EGL_BAD_CONTEXT",
	C.EGL_BAD_CURRENT_SURFACE: "EGL_BAD_CURRENT_SURFACE", C.EGL_BAD_DISPLAY: "EGL_BAD_DISPLAY", C.EGL_BAD_MATCH: "EGL_BAD_MATCH",
	C.EGL_BAD_NATIVE_PIXMAP: "EGL_BAD_NATIVE_PIXMAP", C.EGL_BAD_NATIVE_WINDOW: "EGL_BAD_NATIVE_WINDOW",
	C.EGL_BAD_PARAMETER: "EGL_BAD_PARAMETER", C.EGL_BAD_SURFACE: "EGL_BAD_SURFACE", C.EGL_CONTEXT_LOST: "EGL_CONTEXT_LOST",
}

// eglError is code by name and number.
func eglError(code C.EGLint) string {
	if name, ok := eglErrors[code]; ok {
		return fmt.Sprintf("%s (0x%x)", name, uint32(code))
	}
	return fmt.Sprintf("EGL error 0x%x", uint32(code))
}
