package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exitCode is a finished command's exit status (-1 when it did not exit
// normally).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// gone reports whether a process no longer exists (or is a zombie of a
// parent that is gone too, which init reaps).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || strings.Contains(string(b), ") Z ")
}

// SIGTERM, SIGINT or SIGHUP (its terminal or ssh session closed: it
// ended at once, its frames in flight unwritten and no summary) to
// eqserver run --frames 0 (until a signal): the
// frames in flight finish and are written (every frame the summary counts
// has its image, and no node reports a frame it could not send), then the
// run and every client it started end; the exit status says which signal,
// and the summary of the frames done is printed.
func TestSignalsEndTheRunAndItsClients(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			sp := startServer(t, config("2d-lb-4.eqc"), 0) // until a signal
			sp.waitFrames(t, 3)
			pids := sp.clientPIDs(t)
			sp.cmd.Process.Signal(c.sig)
			var err error
			select {
			case err = <-sp.done:
			case <-time.After(15 * time.Second):
				// a frame in flight that does not finish fails the run
				// after --frame-timeout (10 s)
				t.Fatalf("eqserver still running 15 s after %v\n%s", c.sig, sp.log())
			}
			if code := exitCode(err); code != c.code {
				t.Errorf("exit status %d after %v, want %d", code, c.sig, c.code)
			}
			for node, pid := range pids {
				if !gone(pid) {
					t.Errorf("client %s (pid %d) outlived the server", node, pid)
				}
			}
			var sum Summary
			if err := json.Unmarshal([]byte(sp.stdout.String()), &sum); err != nil {
				t.Fatalf("no summary after %v: %v\n%s", c.sig, err, sp.stdout.String())
			}
			if sum.Frames < 3 || !sum.Interrupted {
				t.Errorf("summary after %v: %d frames, interrupted %v", c.sig, sum.Frames, sum.Interrupted)
			}
			images, _ := filepath.Glob(filepath.Join(sp.out, "dest-*.png"))
			if len(images) != sum.Frames || len(sum.Written) != sum.Frames {
				t.Errorf("%d frames done, %d images in the folder, %d in the summary", sum.Frames, len(images), len(sum.Written))
			}
			log := sp.log()
			if !strings.Contains(log, "stopped by "+c.sig.String()) {
				t.Errorf("no log line about the signal:\n%s", tailOf(log, 2000))
			}
			if strings.Contains(log, "level=WARN") || strings.Contains(log, "level=ERROR") {
				t.Errorf("a fault on the way out:\n%s", tailOf(log, 2000))
			}
		})
	}
}

// A client whose session has ended after the stop is leaving as told,
// even while its process is not gone yet: a launcher (ssh) that closes
// after the client it ran, or the kernel reclaiming a render client's
// memory on a loaded machine (4 s under eight busy loops on two cores).
// The run waits for it, without a warning and without killing it. Before,
// it was killed after a second, with a warning that a draw may not have
// returned.
func TestAClientThatLeftIsNotKilledWhileItsProcessEnds(t *testing.T) {
	launcher := filepath.Join(t.TempDir(), "launch.sh")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\n\"$@\"\nsleep 2.5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := render1On(t, "render-slow", `launch_command "`+launcher+` %c"`, "")
	start := time.Now()
	cmd := exec.Command(filepath.Join(binaries(t), "eqserver"), "run", "--json", "--frames", "5", "--triangles", "2000", "--listen", "127.0.0.1:0", cfg)
	sum, log := runSummary(t, cmd, "the run with a launcher that outlives its client")
	if sum.Frames != 5 || len(sum.LostNodes) != 0 {
		t.Errorf("summary: %d frames, lost %v; want 5 and none lost", sum.Frames, sum.LostNodes)
	}
	if strings.Contains(log, "had not ended") || strings.Contains(log, "level=WARN") {
		t.Errorf("a warning about a client that left as told:\n%s", tailOf(log, 2000))
	}
	if took := time.Since(start); took < 2500*time.Millisecond {
		t.Errorf("the run ended %v after it started: it did not wait for the launcher's 2.5 s", took)
	}
}

// A second signal ends the run at once, without waiting for the frames in
// flight: here a frame of the synthetic renderer that takes seconds.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	sp := startServer(t, config("2d-lb-4.eqc"), 100000, "--renderer", "synthetic", "--iterations", "40000", "--frame-timeout", "60s")
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(sp.log(), " joined (pid") < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the nodes did not join within 60 s:\n%s", sp.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	pids := sp.clientPIDs(t)
	sp.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	if sp.framesDone() > 0 {
		t.Fatalf("the first frame took less than 0.3 s; this test needs it to take seconds")
	}
	sent := time.Now()
	sp.cmd.Process.Signal(syscall.SIGINT)
	var err error
	select {
	case err = <-sp.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("eqserver still running 10 s after a second SIGINT\n%s", sp.log())
	}
	if took := time.Since(sent); took > 2*time.Second {
		t.Errorf("eqserver took %v to end after a second SIGINT (bound 2 s)", took)
	}
	if code := exitCode(err); code != 130 {
		t.Errorf("exit status %d, want 130", code)
	}
	for node, pid := range pids {
		if !gone(pid) {
			t.Errorf("client %s (pid %d) outlived the server", node, pid)
		}
	}
}

// clientPIDs is the launched clients' process ids, by node.
func (sp *serverProcess) clientPIDs(t *testing.T) map[string]int {
	t.Helper()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	pids := map[string]int{}
	for k, v := range sp.pids {
		pids[k] = v
	}
	if len(pids) != 3 {
		t.Fatalf("client pids %v", pids)
	}
	return pids
}

// A client started by hand (eqserver --no-launch) stops cleanly on
// SIGTERM: exit status 0, within 2 s; the server takes its node out and
// finishes the run.
func TestHandStartedClientStopsOnSIGTERM(t *testing.T) {
	bin := binaries(t)
	dir := t.TempDir()
	server := exec.Command(filepath.Join(bin, "eqserver"), "run", "--no-launch", "--json", "--frames", "100000", "--triangles", "8000",
		"--out", dir, "--dump-every", "1000", config("2d-lb-4.eqc"))
	server.Env = append(testEnv(), "GOEQ_TOKEN=hand-token")
	sp := &serverProcess{cmd: server, out: dir, pids: map[string]int{}, done: make(chan error, 1)}
	pipe, _ := server.StderrPipe()
	server.Stdout = &sp.stdout
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill() })
	go sp.scan(pipe)
	var addr string
	deadline := time.Now().Add(30 * time.Second)
	for addr == "" && time.Now().Before(deadline) {
		if m := regexp.MustCompile(`control server on (\S+);`).FindStringSubmatch(sp.log()); m != nil {
			addr = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("no control address:\n%s", sp.log())
	}
	clients := map[string]*exec.Cmd{}
	for _, node := range []string{"app", "render1", "render2"} {
		c := exec.Command(filepath.Join(bin, "eqclient"), "--server", addr, "--node", node)
		c.Env = append(testEnv(), "GOEQ_TOKEN=hand-token")
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		clients[node] = c
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	// frames flow once all joined
	for !strings.Contains(sp.log(), "node render2 joined") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	c := clients["render2"]
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	sent := time.Now()
	c.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the client exited with %v after SIGTERM, want status 0", err)
		}
		if took := time.Since(sent); took > 2*time.Second {
			t.Errorf("the client took %v to stop (bound 2 s)", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not stop within 10 s of SIGTERM")
	}
	// the run goes on without render2
	deadline = time.Now().Add(20 * time.Second)
	for !strings.Contains(sp.log(), "node render2 lost") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(sp.log(), "node render2 lost") {
		t.Errorf("the server did not take render2 out:\n%s", tailOf(sp.log(), 3000))
	}
	server.Process.Signal(syscall.SIGTERM)
	select {
	case <-sp.done:
	case <-time.After(10 * time.Second):
		t.Fatal("eqserver did not stop")
	}
}

// A frame that can never complete (a source never sends its frame) fails
// the run within the frame timeout, saying which channel waits for what.
func TestFrameThatNeverCompletesFails(t *testing.T) {
	bin := binaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "eqserver"), "run", "--local", "--frames", "50", "--triangles", "8000",
		"--frame-timeout", "2s", config("2d-lb-4.eqc"))
	cmd.Env = append(testEnv(), "GOEQ_DROP_FRAMES=f3")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end:\n%s", tailOf(string(out), 3000))
	}
	if exitCode(err) != 1 {
		t.Errorf("exit status %d, want 1", exitCode(err))
	}
	want := "frame 0: channel dest on node app: waiting for f3 from channel src3 on node render2 (incomplete after 2s, the frame timeout: --frame-timeout, an application's Options.FrameTimeout)"
	if !strings.Contains(string(out), want) {
		t.Errorf("no clear error; want %q in:\n%s", want, tailOf(string(out), 3000))
	}
}
