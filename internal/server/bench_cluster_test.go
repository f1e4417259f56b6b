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
	"github.com/goeq/goeq/internal/procstat"
)

// BenchmarkClusterCodecs (make bench-cluster) renders the 2D load-balanced
// config at 1920x1080 across three namespaced hosts whose links are shaped
// with tc's token bucket to 1 Gbit/s and 10 Gbit/s, with each frame codec
// and with the per-link chooser (auto), and reports ms per frame. With
// GOEQ_BENCH_MD set to a markdown file, it rewrites that file's
// bench-cluster section with the table.
func BenchmarkClusterCodecs(b *testing.B) {
	bridged := netns.New(b, 3)
	bin := binaries(b)
	links := []clusterLink{
		{name: "100 Mbit/s", rate: "100mbit", bits: 100e6},
		{name: "1 Gbit/s", rate: "1gbit", bits: 1e9},
		{name: "10 Gbit/s", rate: "10gbit", bits: 10e9},
		{name: "10 Gbit/s, 0.2 ms each way", rate: "10gbit-0.2ms", bits: 10e9, oneWay: 200 * time.Microsecond},
	}
	codecs := []string{"auto", "none", "s2", "zstd"}
	const rounds = 5
	results := map[string]map[string]*codecRuns{}
	for i := range links {
		l := &links[i]
		c := bridged
		if l.oneWay > 0 {
			c = netns.NewDelayed(b, 3, l.oneWay)
		}
		path := bigConfig(b, c)
		for _, h := range c.Hosts {
			// every host's egress, so each link is shaped both ways
			if err := h.Shape(l.bits); err != nil {
				b.Fatal(err)
			}
		}
		// what the link came to: render host to destination and back,
		// and what one stream gets through it
		var err error
		if l.rtt, err = netns.RoundTrip(c.Hosts[1], c.Hosts[0]); err != nil {
			b.Fatal(err)
		}
		if l.stream, err = netns.Throughput(c.Hosts[1], c.Hosts[0], time.Second); err != nil {
			b.Fatal(err)
		}
		results[l.name] = map[string]*codecRuns{}
		for _, codec := range codecs {
			results[l.name][codec] = &codecRuns{bytes: map[string]int64{}}
		}
		// rounds interleave the codecs, each round in another order, so a
		// slow spell of the machine does not land on one codec
		for round := 0; round < rounds; round++ {
			for i := range codecs {
				codec := codecs[(i+round)%len(codecs)]
				cmd := c.Hosts[0].Command(filepath.Join(bin, "eqserver"), "run", "--json", "--frames", "60", "--triangles", "20000",
					"--codec", codec, path)
				cmd.Env = testEnv()
				before := procstat.ReadMachine().Busy
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("eqserver: %v", err)
				}
				cpu := procstat.ReadMachine().Busy - before
				var sum Summary
				if err := json.Unmarshal(out, &sum); err != nil || sum.FPS == 0 {
					b.Fatalf("summary %q: %v", out, err)
				}
				r := results[l.name][codec]
				r.ms = append(r.ms, 1000/sum.FPS)
				r.cpuMs = append(r.cpuMs, cpu.Seconds()*1000/float64(sum.Frames))
				for k, v := range sum.CodecBytes {
					r.bytes[k] += v
				}
			}
		}
		for _, codec := range codecs {
			b.ReportMetric(results[l.name][codec].median(), l.rate+"/"+codec+"-ms/frame")
		}
	}
	if md := os.Getenv("GOEQ_BENCH_MD"); md != "" {
		if err := writeClusterSection(md, links, codecs, results); err != nil {
			b.Fatal(err)
		}
	}
}

// clusterLink is a link the cluster benchmark shapes, and what it measured
// the shaped link to be.
type clusterLink struct {
	name, rate string
	bits       float64
	oneWay     time.Duration // added latency each way (netns.NewDelayed)
	rtt        time.Duration
	stream     float64 // bytes per second of one TCP stream
}

// bigConfig is the 2D load-balanced config on c's hosts, at 1920x1080.
func bigConfig(b *testing.B, c *netns.Cluster) string {
	path := namespacedConfig(b, c, "2d-lb-4.eqc", nil)
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	big := strings.ReplaceAll(string(text), "viewport [ 0 0 640 360 ]", "viewport [ 0 0 1920 1080 ]")
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// codecRuns is one codec's runs on one link: ms per frame of each run and
// the bytes each codec carried over all of them.
type codecRuns struct {
	ms    []float64
	cpuMs []float64 // the machine's CPU time per frame (all processes, all cores)
	bytes map[string]int64
}

func (r *codecRuns) sorted() []float64 {
	s := append([]float64(nil), r.ms...)
	sort.Float64s(s)
	return s
}

func (r *codecRuns) median() float64 { return r.sorted()[len(r.ms)/2] }

func (r *codecRuns) spread() string {
	s := r.sorted()
	return fmt.Sprintf("%.1f (%.1f-%.1f)", s[len(s)/2], s[0], s[len(s)-1])
}

// picked says which codecs carried the bytes, largest share first.
func (r *codecRuns) picked() string {
	var total int64
	names := make([]string, 0, len(r.bytes))
	for k, v := range r.bytes {
		total += v
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return r.bytes[names[i]] > r.bytes[names[j]] })
	var parts []string
	for _, k := range names {
		if share := float64(r.bytes[k]) / float64(total); share >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", k, 100*share))
		}
	}
	return strings.Join(parts, ", ")
}

// writeClusterSection puts the table into its section of a markdown file.
func writeClusterSection(path string, links []clusterLink, codecs []string, r map[string]map[string]*codecRuns) error {
	var s strings.Builder
	s.WriteString("## Frame codecs on shaped links\n\n")
	fmt.Fprintf(&s, "Command: `make bench-cluster` (%s). The 2D load-balanced config at 1920x1080 (four sources on two render hosts, the destination on a third), 60 frames of a 20k-triangle mesh, hosts in network namespaces whose links tc's token bucket shapes (a burst of a millisecond's worth passes at full speed). Median ms per frame of %d runs (min-max), the codecs interleaved; `auto` is the per-link chooser, and \"auto sent\" the share of the bytes each codec carried under it; \"cores busy\" is the machine's CPU time per frame over the frame time, the median of all runs on the link (2 on this machine: every core busy, so the frame is bound by CPU, not by the link). \"Round trip\" is the median of 200 one-byte TCP exchanges between a render host and the destination, \"one stream\" what a single TCP stream got through the shaped link in a second.\n\n", time.Now().UTC().Format("2006-01-02"), len(r[links[0].name]["auto"].ms))
	s.WriteString("The link with latency: this machine's kernel has no netem (tc's delay), so its hosts are joined by a delay line (`netns.NewDelayed`) instead of a bridge: each host's eth0 is a tun device, shaped with tbf like the others, and the benchmark process forwards the packets between them, holding each one 0.2 ms. The forwarding takes CPU from the same two cores (it is in \"cores busy\"), and it caps one stream at what \"one stream\" shows, more than the frames need here.\n\n")
	s.WriteString("| link | round trip | one stream |")
	for _, c := range codecs {
		fmt.Fprintf(&s, " %s |", c)
	}
	s.WriteString(" auto sent | fastest fixed codec | auto vs fastest | cores busy |\n|---|---|---|")
	for range codecs {
		s.WriteString("---|")
	}
	s.WriteString("---|---|---|---|\n")
	for _, link := range links {
		row := r[link.name]
		fmt.Fprintf(&s, "| %s | %.2f ms | %.0f MB/s |", link.name, link.rtt.Seconds()*1000, link.stream/1e6)
		for _, c := range codecs {
			fmt.Fprintf(&s, " %s |", row[c].spread())
		}
		fixed := append([]string(nil), codecs[1:]...)
		sort.Slice(fixed, func(i, j int) bool { return row[fixed[i]].median() < row[fixed[j]].median() })
		var busy []float64
		for _, c := range codecs {
			for i, ms := range row[c].ms {
				busy = append(busy, row[c].cpuMs[i]/ms)
			}
		}
		sort.Float64s(busy)
		fmt.Fprintf(&s, " %s | %s | %.2f | %.2f |\n", row["auto"].picked(), fixed[0], row["auto"].median()/row[fixed[0]].median(), busy[len(busy)/2])
	}
	return benchdoc.Marks("bench-cluster", "make bench-cluster").Write(path, s.String())
}
