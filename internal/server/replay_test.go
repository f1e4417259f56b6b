package server

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/stats"
)

// TestReplayReproducesTheRecordedSplits records live runs (2D and DB,
// Equalizer's policy) and replays their statistics under the same policy:
// the replay plans every frame's split exactly as the live run did.
func TestReplayReproducesTheRecordedSplits(t *testing.T) {
	for _, name := range []string{"2d-lb-4.eqc", "db-lb-4.eqc"} {
		t.Run(name, func(t *testing.T) {
			r := run(t, config(name), 40)
			if r.err != nil {
				t.Fatalf("run: %v\n%s", r.err, r.stderr)
			}
			f, err := os.Open(filepath.Join(r.out, "stats.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			recorded, _, err := simulate.ReadStats(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := compound.Load(config(name), compound.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// the statistics name each channel's renderer, the same in
			// every frame: here each render node's two pipes name no GPU,
			// so they share its GPU, or have a software rasterizer each
			// (winsys.Rasterizers)
			pipeOf := map[string]*compound.Pipe{}
			for _, ch := range m.Configs[0].Channels {
				pipeOf[ch.ID] = ch.Window.Pipe
			}
			rendererOf := map[*compound.Pipe]string{}
			for _, rec := range recorded {
				p := pipeOf[rec.Channel]
				if p.Node.ID == "app" {
					continue
				}
				if !strings.HasPrefix(rec.Renderer, p.Node.ID+" ") {
					t.Fatalf("channel %s on node %s: renderer %q", rec.Channel, p.Node.ID, rec.Renderer)
				}
				if prev, ok := rendererOf[p]; ok && prev != rec.Renderer {
					t.Fatalf("%s: renderers %q and %q", p.Label(), prev, rec.Renderer)
				}
				rendererOf[p] = rec.Renderer
			}
			byNode := map[string]map[string]bool{}
			for p, r := range rendererOf {
				if byNode[p.Node.ID] == nil {
					byNode[p.Node.ID] = map[string]bool{}
				}
				byNode[p.Node.ID][r] = true
			}
			if len(rendererOf) != 4 || len(byNode) != 2 {
				t.Errorf("renderers of %d pipes on %d render nodes named, want 4 on 2: %v", len(rendererOf), len(byNode), rendererOf)
			}
			for node, rs := range byNode {
				software := false
				for r := range rs {
					software = software || strings.Contains(r, " software")
				}
				if want := map[bool]int{true: 2, false: 1}[software]; len(rs) != want {
					t.Errorf("node %s names %d renderers, want %d: %v", node, len(rs), want, rs)
				}
			}
			sum, replayed, err := simulate.Replay(m.Configs[0], name, recorded, "equalizer")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Frames != 40 {
				t.Fatalf("replayed %d frames, want 40", sum.Frames)
			}
			type key struct {
				frame    int
				compound string
			}
			want := map[key]compound.Viewport{}
			wantRange := map[key]compound.Range{}
			for _, rec := range recorded {
				want[key{rec.Frame, rec.Compound}] = rec.Viewport
				wantRange[key{rec.Frame, rec.Compound}] = rec.Range
			}
			moved := false
			for _, rec := range replayed {
				k := key{rec.Frame, rec.Compound}
				if rec.Viewport != want[k] || rec.Range != wantRange[k] {
					t.Errorf("frame %d, compound %s: replay planned %v %v, the run %v %v", rec.Frame, rec.Compound, rec.Viewport, rec.Range, want[k], wantRange[k])
				}
				moved = moved || rec.Frame > 0 && (rec.Viewport != want[key{0, rec.Compound}] || rec.Range != wantRange[key{0, rec.Compound}])
			}
			if len(replayed) < 4*40 {
				t.Errorf("the replay gave %d statistics, want 4 sources x 40 frames", len(replayed))
			}
			if !moved {
				t.Errorf("the split never moved in the recorded run: the comparison proves nothing")
			}
			// the command reports both policies in balance.md's table
			out, err := exec.Command(filepath.Join(binaries(t), "eqserver"), "replay", "--config", config(name), filepath.Join(r.out, "stats.jsonl")).CombinedOutput()
			if err != nil {
				t.Fatalf("eqserver replay: %v\n%s", err, out)
			}
			text := string(out)
			if !strings.Contains(text, simulate.TableHeader) || !strings.Contains(text, "| replay | equalizer | ") || !strings.Contains(text, "| replay | adaptive | ") {
				t.Errorf("eqserver replay printed:\n%s", text)
			}
			// against a config it was not recorded with, the replay
			// refuses: the other split of the same tree (whose compound
			// paths and channels the recording has), and another tree
			// whose compound paths it shares
			other := map[string]string{"2d-lb-4.eqc": "db-lb-4.eqc", "db-lb-4.eqc": "2d-lb-4.eqc"}[name]
			for _, wrong := range []string{config(other), filepath.Join(corpusDir(), "2-window.2D.lb.eqc")} {
				out, err := exec.Command(filepath.Join(binaries(t), "eqserver"), "replay", "--config", wrong, filepath.Join(r.out, "stats.jsonl")).CombinedOutput()
				if err == nil || !strings.Contains(string(out), "recorded with another config") {
					t.Errorf("replayed against %s: %v\n%s", filepath.Base(wrong), err, out)
				}
			}
		})
	}
}

// TestAStatisticsFileReplansItsRunExactly records a live run under the
// adaptive policy, which follows when frames were sent and completed and
// when each node was done, and feeds its statistics file to a new planner
// as the scheduler fed the run's: each frame planned from the frames that
// had completed when its tasks were sent. Every frame's split and
// decision come out as the run's: the file holds what the planner saw, so
// a recorded run can be studied decision by decision. (Its completions
// were once stamped when the report got to them, up to a millisecond
// after the next frame was planned, and its balance state was the one
// when the frame completed.)
func TestAStatisticsFileReplansItsRunExactly(t *testing.T) {
	const frames = 80
	cfgPath := adaptiveExample(t, "2d-lb-4.eqc")
	r := run(t, cfgPath, frames, "--renderer", "synthetic")
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(r.out, "stats.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	epoch := time.Unix(0, 0)
	at := func(s float64) time.Time { return epoch.Add(time.Duration(s * 1e9)) }
	recorded := map[int]*stats.Frame{}
	balance := map[int]planner.BalanceState{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec stats.Record
		var times struct {
			Started   float64 `json:"started_s"`
			Completed float64 `json:"completed_s"`
			Done      float64 `json:"done_s"`
			Balance   []planner.BalanceState
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(line), &times); err != nil {
			t.Fatal(err)
		}
		rec.Finished = at(times.Done)
		f := recorded[rec.Frame]
		if f == nil {
			f = &stats.Frame{Frame: rec.Frame, Started: at(times.Started), Completed: at(times.Completed)}
			recorded[rec.Frame] = f
		}
		f.Records = append(f.Records, rec)
		if len(times.Balance) > 0 {
			balance[rec.Frame] = times.Balance[0]
		}
	}
	if len(recorded) != frames {
		t.Fatalf("statistics of %d frames, want %d", len(recorded), frames)
	}
	m, _, err := compound.Load(cfgPath, compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := planner.New(m.Configs[0])
	fed, moves := 0, 0
	for n := 0; n < frames; n++ {
		for fed < n && !recorded[fed].Completed.After(recorded[n].Started) {
			p.Feed(*recorded[fed])
			fed++
		}
		// the overhead the run had measured when it planned the frame
		want, ok := balance[n]
		if !ok {
			t.Fatalf("frame %d: no balance state recorded", n)
		}
		p.Overhead = want.OverheadMs / 1000
		plan := p.Plan(n)
		for _, rec := range recorded[n].Records {
			if got := plan.Compounds[rec.Compound].Viewport; got != rec.Viewport {
				t.Fatalf("frame %d, compound %s: re-planned %v, the run planned %v", n, rec.Compound, got, rec.Viewport)
			}
			if prev := recorded[n-1]; prev != nil {
				if before := prev.ByCompound(rec.Compound); len(before) > 0 && before[0].Viewport != rec.Viewport {
					moves++
				}
			}
		}
		if bs := p.Balance(); len(bs) == 0 || bs[0] != want {
			t.Fatalf("frame %d: re-planned %+v, the run %+v", n, bs, want)
		}
	}
	if moves < 10 {
		t.Errorf("the split moved %d times in %d frames: the comparison proves little", moves, frames)
	}
}

// adaptiveExample writes an example config with its load equalizer under
// the adaptive policy, and returns its path.
func adaptiveExample(t *testing.T, name string) string {
	t.Helper()
	text, err := os.ReadFile(config(name))
	if err != nil {
		t.Fatal(err)
	}
	adaptive := strings.Replace(string(text), "load_equalizer\n        {", "load_equalizer\n        { adaptive ON", 1)
	if adaptive == string(text) {
		t.Fatalf("%s's load_equalizer is not where the test expects it", name)
	}
	path := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".eqc")+"-adaptive.eqc")
	if err := os.WriteFile(path, []byte(adaptive), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A run that went on without a pipe (render1's second window is past the
// GL's framebuffer limit) planned every frame without its channel, and
// its statistics file says so on each frame's first line (`down`). The
// replay plans without it too, so that under Equalizer's policy it plans
// the recorded splits. Before, it planned the pipe a part the run never
// gave it, and every split differed.
func TestAReplayGoesWithoutThePipeTheRunWentWithout(t *testing.T) {
	const frames = 30
	text, err := os.ReadFile(config("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(text), `name "w2"`)
	wide := string(text[:at]) + strings.Replace(string(text[at:]), "viewport [ 0 0 640 360 ]", "viewport [ 0 0 16385 360 ]", 1)
	cfg := filepath.Join(t.TempDir(), "2d-lb-4-w2-too-wide.eqc")
	if err := os.WriteFile(cfg, []byte(wide), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, cfg, frames)
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.stderr)
	}
	m, _, err := compound.Load(cfg, compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(m.Configs[0].Channels, func(ch *compound.Channel) bool { return ch.Name == "src2" })
	if i < 0 {
		t.Fatal("no channel src2")
	}
	src2 := m.Configs[0].Channels[i]
	data, err := os.ReadFile(filepath.Join(r.out, "stats.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec stats.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Channel == src2.ID {
			t.Fatalf("frame %d has a record of src2, which was never set up", rec.Frame)
		}
		if !seen[rec.Frame] {
			seen[rec.Frame] = true
			if len(rec.Down) != 1 || rec.Down[0] != src2.ID {
				t.Errorf("frame %d's first line gives down %v, want [%s]", rec.Frame, rec.Down, src2.ID)
			}
		} else if len(rec.Down) > 0 {
			t.Errorf("frame %d gives down on a line after its first", rec.Frame)
		}
	}
	recorded, _, err := simulate.ReadStats(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, replayed, err := simulate.Replay(m.Configs[0], "2d-lb-4-w2-too-wide.eqc", recorded, "equalizer")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		frame    int
		compound string
	}
	want := map[key]compound.Viewport{}
	for _, rec := range recorded {
		want[key{rec.Frame, rec.Compound}] = rec.Viewport
	}
	for _, rec := range replayed {
		if got, ok := want[key{rec.Frame, rec.Compound}]; !ok || got != rec.Viewport {
			t.Errorf("frame %d, compound %s (%s): the replay planned %v, the run %v (recorded: %v)", rec.Frame, rec.Compound, rec.Channel, rec.Viewport, got, ok)
		}
	}
	if len(replayed) != 3*frames {
		t.Errorf("the replay gave %d statistics, want 3 sources x %d frames", len(replayed), frames)
	}
}
