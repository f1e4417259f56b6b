package winsys

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/xtest"
)

// A GL older than the OpenGL 3.3 core goeq renders with says so, and what
// it offers, on each window system, where it once said "eglCreateContext
// failed: 0x3009" or "GLXBadFBConfig". A GL that goes through the X server
// (indirect, as over ssh -X) says that too. Mesa reads its overrides as
// it starts, so each case runs in a child process of this test.
func TestAnOlderGLSaysWhatItOffers(t *testing.T) {
	if os.Getenv("WINSYS_TEST_CHILD") == "1" {
		var errs []error
		if sys, err := OpenEGL(); err != nil {
			t.Fatal(err)
		} else if _, err := sys.NewContext(nil); err != nil {
			errs = append(errs, err)
		}
		if sys, err := OpenX11Screen(os.Getenv("DISPLAY")); err != nil {
			t.Fatal(err)
		} else if _, err := sys.NewWindow(nil, WindowSpec{Title: "goeq version test", W: 32, H: 32}); err != nil {
			errs = append(errs, err)
		}
		if sys, err := OpenGLFW(); err != nil {
			t.Fatal(err)
		} else if _, err := sys.NewWindow(nil, WindowSpec{Title: "goeq version test", W: 32, H: 32}); err != nil {
			errs = append(errs, err)
		}
		for _, err := range errs {
			t.Logf("ERROR %v", err)
		}
		return
	}
	display := xtest.Display(t, 320, 240)
	for _, c := range []struct {
		env    string
		errors int      // the window systems that fail
		want   []string // in each error
	}{
		{"MESA_GL_VERSION_OVERRIDE=2.1", 3, []string{"offers OpenGL 2.1", "not 3.3 core", "goeq renders with OpenGL 3.3 core", "MESA_GL_VERSION_OVERRIDE"}},
		// only GLFW's GLX renders indirectly; the EGL ones make contexts
		{"LIBGL_ALWAYS_INDIRECT=1", 1, []string{"GLFW on X display " + display, "goeq renders with OpenGL 3.3 core", "ssh -X", "GOEQ_WINSYS=egl"}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAnOlderGLSaysWhatItOffers$", "-test.v")
		cmd.Env = append(os.Environ(), "WINSYS_TEST_CHILD=1", "DISPLAY="+display, "GOEQ_WINSYS=", c.env)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("%s: %v\n%s", c.env, err, out)
		}
		var errs []string
		for _, line := range strings.Split(string(out), "\n") {
			if _, e, ok := strings.Cut(line, "ERROR "); ok {
				errs = append(errs, e)
			}
		}
		if len(errs) != c.errors {
			t.Errorf("%s: %d window systems failed, want %d:\n%s", c.env, len(errs), c.errors, out)
		}
		for _, e := range errs {
			for _, w := range c.want {
				if !strings.Contains(e, w) {
					t.Errorf("%s: %q does not say %q", c.env, e, w)
				}
			}
			if strings.Count(e, "winsys:") != 1 {
				t.Errorf("%s: %q says where it comes from more than once", c.env, e)
			}
		}
	}
}

func TestRemoteDisplays(t *testing.T) {
	for display, remote := range map[string]bool{":0": false, ":0.1": false, "unix:0": false, "/tmp/.X11-unix/X0": false,
		"localhost:10.0": true, "wall1:0": true, "[::1]:4": true} {
		if remoteDisplay(display) != remote {
			t.Errorf("remoteDisplay(%q) = %v", display, !remote)
		}
	}
}
