package server

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/netns"
)

// TestRunsAcrossNamespacedHosts puts the application node and the two
// render nodes of the 2D and DB load-balanced configs on three hosts in
// network namespaces: the server runs on the first and starts the others
// through their launch_command, every address comes from the config or
// the route to the peer (none is loopback), and every frame equals the
// reference run's.
func TestRunsAcrossNamespacedHosts(t *testing.T) {
	c := netns.New(t, 3)
	bin := binaries(t)
	const frames = 6
	for _, tc := range []struct {
		name, cfg   string
		tol, maxBad int
	}{
		{"2D", "2d-lb-4.eqc", 1, 640 * 360 / 10000},
		{"DB", "db-lb-4.eqc", 0, 640 * 360 / 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(config(tc.cfg))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Replace(string(b), "appNode\n    {", fmt.Sprintf("appNode\n    {\n        host %q", c.Hosts[0].Addr), 1)
			for i, name := range []string{"render1", "render2"} {
				h := c.Hosts[i+1]
				text = strings.Replace(text, fmt.Sprintf("name %q\n        host \"localhost\"", name),
					fmt.Sprintf("name %q\n        host %q\n        attributes { launch_command \"%s %%c\" }", name, h.Addr, h.Exec()), 1)
			}
			dir := t.TempDir()
			cfg := filepath.Join(dir, tc.cfg)
			if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			runOn := func(out string, extra ...string) (Summary, string) {
				t.Helper()
				args := append([]string{"run", "--json", "--frames", fmt.Sprint(frames), "--out", out, "--dump-every", "1", "--triangles", "20000"}, extra...)
				cmd := c.Hosts[0].Command(filepath.Join(bin, "eqserver"), append(args, cfg)...)
				cmd.Env = testEnv()
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("eqserver on %s: %v\n%s", c.Hosts[0].Name, err, stderr.String())
				}
				var sum Summary
				if err := json.Unmarshal([]byte(stdout.String()), &sum); err != nil {
					t.Fatalf("summary: %v\n%s", err, stdout.String())
				}
				return sum, stderr.String()
			}
			got, log := runOn(filepath.Join(dir, "run"))
			_, _ = runOn(filepath.Join(dir, "ref"), "--reference")
			if got.Frames != frames || got.Degraded != 0 {
				t.Errorf("summary %+v", got)
			}
			// the render nodes took frames on their own hosts' addresses
			for i, name := range []string{"render1", "render2"} {
				if want := fmt.Sprintf("node %s joined (pid ", name); !strings.Contains(log, want) ||
					!strings.Contains(log, fmt.Sprintf("frames at %s:", c.Hosts[i+1].Addr)) {
					t.Errorf("%s did not join with frames at %s:\n%s", name, c.Hosts[i+1].Addr, log)
				}
			}
			if strings.Contains(log, "frames at 127.") {
				t.Errorf("a node advertised a loopback frame address:\n%s", log)
			}
			for f := 0; f < frames; f++ {
				name := fmt.Sprintf("dest-%06d.png", f)
				bad, worst := differing(loadPNG(t, filepath.Join(dir, "run", name)), loadPNG(t, filepath.Join(dir, "ref", name)), tc.tol)
				if bad > tc.maxBad {
					t.Errorf("frame %d: %d pixels differ by more than %d (worst %d); allowed %d", f, bad, tc.tol, worst, tc.maxBad)
				}
			}
			if out, _ := exec.Command("ip", "netns", "pids", c.Hosts[1].Name).Output(); len(strings.TrimSpace(string(out))) > 0 {
				t.Errorf("processes left on %s after the run: %s", c.Hosts[1].Name, out)
			}
		})
	}
}
