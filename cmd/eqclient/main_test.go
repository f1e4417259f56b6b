package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/gotool"
)

// A window system or drawable eqclient does not know is an error before
// it connects (an unknown drawable was taken for a window).
func TestBadFlagsAreRejected(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "eqclient")
	if err := gotool.Build(bin, "."); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--winsys", "wayland"}, `--winsys "wayland": want auto, egl or glfw`},
		{[]string{"--drawable", "pbuffer"}, `--drawable "pbuffer": want window or FBO`},
		// the last --server counts; gRPC said only "name resolver error"
		{[]string{"--server", "render1"}, `--server "render1": want HOST:PORT`},
		// flag stops at an argument: --wait went unread
		{[]string{"render1", "--wait", "5s"}, `"render1": it takes flags alone`},
	} {
		// a server nobody listens on: the flags are checked first
		args := append([]string{"--server", "127.0.0.1:1", "--node", "n"}, c.args...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v, output %q; want exit 2 and %q", c.args, err, out, c.want)
		}
	}
}
