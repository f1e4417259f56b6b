package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/benchdoc"
	"github.com/goeq/goeq/internal/netns"
)

// BenchmarkClusterCodecs (make bench-cluster) renders the 2D load-balanced
// config at 1920x1080 across three namespaced hosts whose links are shaped
// with tc's token bucket to 1 Gbit/s and 10 Gbit/s, with each frame codec
// and with the per-link chooser (auto), and reports ms per frame. With
// GOEQ_BENCH_MD set to a markdown file, it rewrites that file's
// bench-cluster section with the table.
func BenchmarkClusterCodecs(b *testing.B) {
	c := netns.New(b, 3)
	path := namespacedConfig(b, c, "2d-lb-4.eqc", nil)
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	big := strings.ReplaceAll(string(text), "viewport [ 0 0 640 360 ]", "viewport [ 0 0 1920 1080 ]")
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := binaries(b)
	links := []struct{ name, rate string }{{"1 Gbit/s", "1gbit"}, {"10 Gbit/s", "10gbit"}}
	codecs := []string{"auto", "none", "s2", "zstd"}
	results := map[string]map[string]float64{}
	for _, l := range links {
		for _, h := range c.Hosts {
			// every host's egress, so each link is shaped both ways
			if out, err := h.Command("tc", "qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", l.rate, "burst", "1mb", "latency", "50ms").CombinedOutput(); err != nil {
				b.Fatalf("tc on %s: %v: %s", h.Name, err, out)
			}
		}
		results[l.name] = map[string]float64{}
		for _, codec := range codecs {
			b.Run(l.rate+"/"+codec, func(b *testing.B) {
				var msPerFrame float64
				for i := 0; i < b.N; i++ {
					cmd := c.Hosts[0].Command(filepath.Join(bin, "eqserver"), "run", "--json", "--frames", "40", "--triangles", "20000",
						"--codec", codec, path)
					cmd.Env = testEnv()
					out, err := cmd.Output()
					if err != nil {
						b.Fatalf("eqserver: %v", err)
					}
					var sum Summary
					if err := json.Unmarshal(out, &sum); err != nil || sum.FPS == 0 {
						b.Fatalf("summary %q: %v", out, err)
					}
					msPerFrame = 1000 / sum.FPS
				}
				b.ReportMetric(msPerFrame, "ms/frame")
				results[l.name][codec] = msPerFrame
			})
		}
	}
	if md := os.Getenv("GOEQ_BENCH_MD"); md != "" {
		if err := writeClusterSection(md, links[0].name, links[1].name, codecs, results); err != nil {
			b.Fatal(err)
		}
	}
}

// writeClusterSection puts the table into its section of a markdown file.
func writeClusterSection(path, slow, fast string, codecs []string, r map[string]map[string]float64) error {
	var s strings.Builder
	s.WriteString("## Frame codecs on shaped links\n\n")
	fmt.Fprintf(&s, "Command: `make bench-cluster` (%s). The 2D load-balanced config at 1920x1080 (four sources on two render hosts, the destination on a third), 40 frames of a 20k-triangle mesh, hosts in network namespaces whose links tc's token bucket shapes. ms per frame; `auto` is the per-link chooser. tc's netem (added delay) is not available on this machine type, so the 10 Gbit/s link has no added latency.\n\n", time.Now().UTC().Format("2006-01-02"))
	s.WriteString("| link |")
	for _, c := range codecs {
		fmt.Fprintf(&s, " %s |", c)
	}
	s.WriteString(" fastest fixed codec | auto vs fastest |\n|---|")
	for range codecs {
		s.WriteString("---|")
	}
	s.WriteString("---|---|\n")
	for _, link := range []string{slow, fast} {
		row := r[link]
		fmt.Fprintf(&s, "| %s |", link)
		for _, c := range codecs {
			fmt.Fprintf(&s, " %.1f |", row[c])
		}
		fixed := append([]string(nil), codecs[1:]...)
		sort.Slice(fixed, func(i, j int) bool { return row[fixed[i]] < row[fixed[j]] })
		fmt.Fprintf(&s, " %s | %.2f |\n", fixed[0], row["auto"]/row[fixed[0]])
	}
	return benchdoc.Marks("bench-cluster", "make bench-cluster").Write(path, s.String())
}
