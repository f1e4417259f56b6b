package interrupt

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal that comes after goeq.Start returned but before Started ended
// the run (Start's context) all the same: Started ends the process as for
// a signal while the nodes set up, with 128 + the signal, instead of
// letting the loop find a run already ended. One that comes after Started
// ends the loop alone.
func TestASignalJustAfterTheStartEndsAsDuringIt(t *testing.T) {
	if os.Getenv("INTERRUPT_TEST_CHILD") != "" {
		w := New()
		if os.Getenv("INTERRUPT_TEST_CHILD") == "after" {
			w.Started(nil)
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case <-w.Loop.Done():
		case <-time.After(10 * time.Second):
			os.Exit(3)
		}
		w.Started(nil) // a second time where Started came first: nothing
		if w.Start.Err() != nil {
			os.Exit(4) // the run's context ended after Started
		}
		os.Exit(0)
	}
	for _, c := range []struct {
		when string
		code int
		log  string
	}{
		{"before", 128 + int(syscall.SIGTERM), "stopped by terminated while the nodes set up (context canceled)"},
		{"after", 0, ""},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestASignalJustAfterTheStartEndsAsDuringIt$")
		cmd.Env = append(os.Environ(), "INTERRUPT_TEST_CHILD="+c.when)
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(string(out), c.log) {
			t.Errorf("a signal %s Started: exit %d, %q; want %d, %q", c.when, code, out, c.code, c.log)
		}
	}
}
