package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/transport"
)

// transportBench sends 8 MiB frames through the frame transport, through
// its encrypted links (TLS 1.3, a run's keys) and the same bytes over a
// plain TCP connection (GB/s each).
func transportBench() (plain, encrypted, tcp float64) {
	const w, h = 2048, 1024
	const n = 4 * w * h
	frames := func(encrypt bool) float64 {
		done := make(chan struct{}, 1)
		l, err := transport.Listen("127.0.0.1:0", "bench", func(f *transport.Frame) { f.Release(); done <- struct{}{} }, nil)
		if err != nil {
			fail(err)
		}
		defer l.Close()
		var dialTLS *tls.Config
		if encrypt {
			cert, key, err := transport.NewRunKeys()
			if err != nil {
				fail(err)
			}
			var listenTLS *tls.Config
			if listenTLS, dialTLS, err = transport.RunTLS(cert, key); err != nil {
				fail(err)
			}
			l.SetTLS(listenTLS)
		}
		s, err := transport.Dial(l.Addr(), "bench", "bench", dialTLS)
		if err != nil {
			fail(err)
		}
		defer s.Close()
		f := &transport.Frame{W: w, H: h, Color: make([]byte, n)}
		f.Encode(compressor.None)
		return gbps(n, testing.Benchmark(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := s.Send(f); err != nil {
					b.Fatal(err)
				}
				<-done
			}
		}))
	}
	plain, encrypted = frames(false), frames(true)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer ln.Close()
	got := make(chan struct{}, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, n)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			got <- struct{}{}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		fail(err)
	}
	defer c.Close()
	data := make([]byte, n)
	raw := testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := c.Write(data); err != nil {
				b.Fatal(err)
			}
			<-got
		}
	})
	return plain, encrypted, gbps(n, raw)
}

// pipelineBench runs eqserver on cfg with the synthetic renderer and
// compares the frame time with the slowest source's draw time. cores is
// how many cores eqserver and its clients kept busy on average (their CPU
// time over the run's wall time, set-up included).
func pipelineBench(eqserver, cfg string) (frameMS, slowestMS, cores float64, err error) {
	cmd := exec.Command(eqserver, "run", "--local", "--json", "--frames", "120", "--renderer", "synthetic", "--iterations", "200",
		"--async-readback", cfg)
	cmd.Env = append(os.Environ(), "GOEQ_WINSYS=egl", "LP_NUM_THREADS=1")
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("eqserver run: %v", err)
	}
	// eqserver waits for the clients it launched, so its usage holds theirs
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	cores = cpu.Seconds() / time.Since(start).Seconds()
	var sum struct {
		FPS      float64 `json:"fps"`
		Channels []struct {
			Channel string  `json:"channel"`
			Draw    float64 `json:"draw_ms"`
		} `json:"channels"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		return 0, 0, 0, err
	}
	for _, c := range sum.Channels {
		slowestMS = max(slowestMS, c.Draw)
	}
	if sum.FPS <= 0 || slowestMS <= 0 {
		return 0, 0, 0, fmt.Errorf("eqserver run: no frames timed")
	}
	return 1000 / sum.FPS, slowestMS, cores, nil
}

// writeGenerated writes a generated config into dir: one source on a
// node of its own beside a destination that only assembles is the
// pipeline with a core for each render process; four such sources, the
// four-source pipeline without pipes that share a process.
func writeGenerated(dir string, g simulate.Generated) (string, error) {
	path := filepath.Join(dir, g.Name())
	return path, os.WriteFile(path, []byte(g.EQC()), 0o644)
}

// controlBench runs walls of n null render nodes (eqclient --null: no GL,
// fixed draw times, empty frames) with a swap barrier across all of them,
// and reports the server's time per frame: its loop's (planning, dispatch,
// statistics) and its process's CPU (with the control streams' encoding).
// Every node keeps its own connection, heartbeats and protocol, but a few
// eqclient processes serve them all (eqclient --null takes --node once
// per node): a process per node left a 2-core machine busy switching
// between hundreds of processes. The server has core 0 to itself (see
// pinned), the clients the others.
func controlBench(eqserver string, n int) (loopMS, cpuMS float64, err error) {
	dir, err := os.MkdirTemp("", "goeq-control")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, fmt.Sprintf("wall-%d.eqc", n))
	if err := os.WriteFile(cfg, []byte(simulate.Wall(n)), 0o644); err != nil {
		return 0, 0, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	addr := l.Addr().String()
	l.Close()
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return 0, 0, err
	}
	env := append(os.Environ(), "DISPLAY=", "GOEQ_TOKEN="+hex.EncodeToString(tok))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// generous bounds for the first frame and for silence (a node missing
	// a frame is lost only when nothing is heard from it for 10 s)
	server := pinned(ctx, "0", eqserver, "run", "--no-launch", "--listen", addr, "--null-clients", "--json", "--frames", "200",
		"--frame-timeout", "120s", "--liveness", "10s", cfg)
	var out, serverLog bytes.Buffer
	server.Env, server.Stdout, server.Stderr = env, &out, &serverLog
	if err := server.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- server.Wait() }()
	for up := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(up) {
			server.Process.Kill()
			<-done
			return 0, 0, fmt.Errorf("%d null nodes: the server did not listen on %s within 30 s: %s", n, addr, tail(serverLog.String()))
		}
	}
	nodes := []string{"app"}
	for i := 0; i < n; i++ {
		nodes = append(nodes, fmt.Sprintf("n%d", i))
	}
	const processes = 4
	eqclient := filepath.Join(filepath.Dir(eqserver), "eqclient")
	var clients []*exec.Cmd
	for p := 0; p < processes; p++ {
		args := []string{"--null", "--server", addr}
		for i := p; i < len(nodes); i += processes {
			args = append(args, "--node", nodes[i])
		}
		c := pinned(ctx, fmt.Sprintf("1-%d", max(1, runtime.NumCPU()-1)), eqclient, args...)
		c.Env = env
		if err := c.Start(); err != nil {
			server.Process.Kill()
			<-done
			return 0, 0, err
		}
		clients = append(clients, c)
	}
	serverErr := <-done
	for _, c := range clients {
		c.Process.Kill()
		c.Wait()
	}
	if serverErr != nil {
		return 0, 0, fmt.Errorf("eqserver run of %d null nodes: %v: %s", n, serverErr, tail(serverLog.String()))
	}
	var sum struct {
		Frames int      `json:"frames"`
		LoopMS float64  `json:"control_ms_per_frame"`
		CPUMS  float64  `json:"server_cpu_ms_per_frame"`
		Lost   []string `json:"lost_nodes"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		return 0, 0, err
	}
	if sum.Frames != 200 || len(sum.Lost) > 0 {
		return 0, 0, fmt.Errorf("%d null nodes: %d frames, lost %v", n, sum.Frames, sum.Lost)
	}
	return sum.LoopMS, sum.CPUMS, nil
}

// pinned runs a command on the given cores (taskset -c) where there are
// two or more and taskset is installed: the control-plane bench gives the
// server a core of its own, as on a cluster whose render nodes are other
// machines (unpinned, the loop's time per frame at 256 nodes doubled,
// waiting for a core).
func pinned(ctx context.Context, cores, name string, args ...string) *exec.Cmd {
	if ts, err := exec.LookPath("taskset"); err == nil && runtime.NumCPU() >= 2 {
		return exec.CommandContext(ctx, ts, append([]string{"-c", cores, name}, args...)...)
	}
	return exec.CommandContext(ctx, name, args...)
}

// tail is the end of a log, for an error message.
func tail(s string) string {
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
