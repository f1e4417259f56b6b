package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/compressor"
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

// pipelineBench runs eqserver on the 4-source 2D config with the
// synthetic renderer and compares the frame time with the slowest
// source's draw time.
func pipelineBench(eqserver string, res *result) error {
	cfg := filepath.Join("examples", "configs", "2d-lb-4.eqc")
	cmd := exec.Command(eqserver, "run", "--local", "--json", "--frames", "120", "--renderer", "synthetic", "--iterations", "200",
		"--async-readback", cfg)
	cmd.Env = append(os.Environ(), "GOEQ_WINSYS=egl", "LP_NUM_THREADS=1")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("eqserver run: %v", err)
	}
	var sum struct {
		FPS      float64 `json:"fps"`
		Channels []struct {
			Channel string  `json:"channel"`
			Draw    float64 `json:"draw_ms"`
		} `json:"channels"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		return err
	}
	slowest := 0.0
	for _, c := range sum.Channels {
		slowest = max(slowest, c.Draw)
	}
	res.PipelineFrameMS = 1000 / sum.FPS
	res.PipelineSlowestMS = slowest
	res.PipelineOverhead = res.PipelineFrameMS / slowest
	return nil
}
