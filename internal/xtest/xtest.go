// Package xtest gives tests a private X display and synthesized input.
package xtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Display starts a private Xvfb for the test and returns its display.
// Tests that synthesize input with xdotool need one of their own: on a
// display shared with other packages' tests (make test runs them in
// parallel under one) their windows took the pointer, and a drag never
// reached its window. Xvfb picks a free display number itself and writes
// it to the pipe (-displayfd).
func Display(t *testing.T, width, height int) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", width, height),
		"-nolisten", "tcp", "-noreset")
	x.ExtraFiles = []*os.File{w}
	err = x.Start()
	w.Close()
	if err != nil {
		t.Fatalf("Xvfb does not start (make test installs it): %v", err)
	}
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	number := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		number <- strings.TrimSpace(line)
	}()
	select {
	case n := <-number:
		if n == "" {
			t.Fatal("Xvfb ended without a display")
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not come up within 30 s")
	}
	return ""
}

// Xdotool runs xdotool on the display and returns what it printed.
func Xdotool(t *testing.T, display string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatal("xdotool is needed (make test installs it)")
	}
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// FindWindow waits up to timeout for a window titled exactly title and
// returns its X id.
func FindWindow(t *testing.T, display, title string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		cmd := exec.Command("xdotool", "search", "--name", "^"+title+"$")
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, _ := cmd.Output()
		if id := strings.TrimSpace(strings.Split(string(out), "\n")[0]); id != "" {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window %q on %s within %v", title, display, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
