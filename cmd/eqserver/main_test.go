package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/autoconfig"
	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/gotool"
)

func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func examples(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "configs", "*.eqc"))
	if len(files) < 7 {
		t.Fatalf("examples/configs has %d configs, want at least 7", len(files))
	}
	return files
}

func TestCheckExamples(t *testing.T) {
	code, _, stderr := runArgs(append([]string{"check"}, examples(t)...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("check of examples: exit %d, stderr:\n%s", code, stderr)
	}
}

// The examples are kept in canonical form: fmt leaves them unchanged.
func TestExamplesAreFormatted(t *testing.T) {
	for _, f := range examples(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runArgs("fmt", f)
		if code != 0 {
			t.Fatalf("fmt %s: exit %d: %s", f, code, stderr)
		}
		if out != string(src) {
			t.Errorf("%s is not in canonical form; run: bin/eqserver fmt %s", f, f)
		}
	}
}

func TestCheckReportsErrorsAndExit1(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.eqc")
	os.WriteFile(bad, []byte("config\n{\n    compound { channel \"missing\" }\n}\n"), 0o644)
	good := filepath.Join(dir, "good.eqc")
	os.WriteFile(good, []byte("config { appNode { pipe { window { channel { name \"c\" } } } } compound { channel \"c\" } }\n"), 0o644)
	code, _, stderr := runArgs("check", good, bad)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	want := bad + ":3:24: no channel named \"missing\""
	if !strings.HasPrefix(stderr, want) {
		t.Fatalf("stderr %q, want it to start with %q", stderr, want)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
		t.Errorf("want one error line, got %d:\n%s", n+1, stderr)
	}
	if code, _, _ := runArgs("check", good); code != 0 {
		t.Errorf("good file: exit %d", code)
	}
	if code, _, stderr := runArgs("check", filepath.Join(dir, "absent.eqc")); code != 1 || !strings.Contains(stderr, "no such file") {
		t.Errorf("absent file: exit %d, %q", code, stderr)
	}
}

func TestExplainJSON(t *testing.T) {
	code, out, stderr := runArgs("explain", "--json", filepath.Join("..", "..", "examples", "configs", "2d-lb-4.eqc"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m struct {
		Configs []struct {
			Compounds []struct {
				Equalizers []struct {
					Kind     string `json:"kind"`
					Mode     string `json:"mode"`
					Boundary string `json:"boundary"`
				} `json:"equalizers"`
				Children []struct {
					Channel string   `json:"channel"`
					Tasks   []string `json:"tasks"`
				} `json:"children"`
			} `json:"compounds"`
		} `json:"configs"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("explain --json is not JSON: %v", err)
	}
	root := m.Configs[0].Compounds[0]
	if len(root.Equalizers) != 1 || root.Equalizers[0].Kind != "load" || root.Equalizers[0].Mode != "2D" || root.Equalizers[0].Boundary != "[ 1 1 ]" {
		t.Errorf("equalizer %+v", root.Equalizers)
	}
	if len(root.Children) != 4 || root.Children[0].Channel != "src1" ||
		strings.Join(root.Children[0].Tasks, " ") != "CLEAR DRAW READBACK" {
		t.Errorf("children %+v", root.Children)
	}
}

func TestUsage(t *testing.T) {
	if code, _, stderr := runArgs(); code != 2 || !strings.Contains(stderr, "usage") {
		t.Errorf("no args: exit %d %q", code, stderr)
	}
	if code, _, stderr := runArgs("frobnicate"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Errorf("unknown command: exit %d %q", code, stderr)
	}
	if code, _, _ := runArgs("fmt"); code != 2 {
		t.Errorf("fmt without file: exit %d", code)
	}
}

// eqserver run --app waits for its application a bounded time, and says
// so; an application that connects but never presents the token does not
// extend the wait.
func TestAppWaitIsBounded(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "test-token")
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	go func() {
		for i := 0; i < 50; i++ { // a silent peer, once the port is open
			if c, err := net.Dial("tcp", addr); err == nil {
				defer c.Close()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	start := time.Now()
	code, _, stderr := runArgs("run", "--app", addr, "--app-timeout", "1500ms", cfg)
	took := time.Since(start)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if want := "no application connected to " + addr + " within 1.5s (--app-timeout)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if took > 15*time.Second {
		t.Errorf("gave up after %v on a 1.5 s --app-timeout", took)
	}
}

// A server that launches no clients needs a token the clients started by
// hand can present. Without one it made one up that it never told, and
// every client started as its prompt said was refused ("wrong or missing
// token").
func TestNoLaunchNeedsAToken(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "")
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	code, _, stderr := runArgs("run", "--no-launch", "--listen", "127.0.0.1:0", cfg)
	if want := "--no-launch needs the token the clients you start will present: set GOEQ_TOKEN or --token-file"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
}

// eqserver run rejects flag values it would otherwise replace by a
// default or clamp (--frames 0 rendered 100 frames, where it now renders
// until a signal; --codec with a typo sent raw frames), before it starts
// anything.
func TestRunRejectsValuesItWouldReplace(t *testing.T) {
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--frames", "-3"}, "--frames -3: want 0 (until a signal) or more"},
		{[]string{"--dump-every", "0"}, "--dump-every 0: want at least 1"},
		{[]string{"--triangles", "0"}, "--triangles 0: want 1 to 100000000"},
		{[]string{"--triangles", "2000000000"}, "--triangles 2000000000: want 1 to 100000000"}, // nodes never joined
		{[]string{"--spin", "NaN"}, "--spin NaN: want radians, at most a turn"},                // blank frames
		{[]string{"--spin", "Inf"}, "--spin +Inf: want radians, at most a turn"},
		{[]string{"--spin", "-1e308"}, "--spin -1e+308: want radians, at most a turn"}, // the angle overflows by the second frame
		{[]string{"--iterations", "-5"}, "--iterations -5: want more than 0"},
		{[]string{"--iterations", "NaN"}, "--iterations NaN: want more than 0"},
		{[]string{"--iterations", "1e12"}, "--iterations 1e+12: want more than 0 and at most 1e+08"},
		{[]string{"--frame-timeout", "-1s"}, "--frame-timeout -1s: want 0 (bounds that follow the frames' time) or more"},
		{[]string{"--init-timeout", "0s"}, "--init-timeout 0s: want more than 0"},
		{[]string{"--liveness", "-1s"}, "--liveness -1s: want more than 0"},
		{[]string{"--relaunch", "-1"}, "--relaunch -1: want 0 or more"},
		{[]string{"--app-timeout", "0s"}, "--app-timeout 0s: want more than 0"},
		{[]string{"--drawable", "pbuffer"}, `--drawable "pbuffer": want window or FBO`},
		{[]string{"--codec", "zstd2"}, `--codec: unknown codec "zstd2": want auto or one of none, s2, zstd, planes-s2, rle, delta-s2, plane-rle`},
	} {
		code, _, stderr := runArgs(append(append([]string{"run"}, c.args...), cfg)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// a simulation keeps every frame's summary: two billion frames grew by
	// 45 MB a second until the machine ran out of memory
	for _, n := range []string{"0", "2000000000"} {
		if code, _, stderr := runArgs("simulate", "--config", cfg, "--scenario", "uniform", "--frames", n); code != 2 || !strings.Contains(stderr, "--frames "+n+": want 1 to 1000000") {
			t.Errorf("simulate --frames %s: exit %d, stderr %q", n, code, stderr)
		}
	}
}

// Where the statistics, the images or the profile cannot go, or a token
// file or certificate cannot be read, fails the run before any client
// starts, naming the flag: a --stats path in a missing folder failed it
// only once every node had set up. (The client binary is
// missing: a run that went on to launch would say so.)
// A config whose channel would assemble a frame before it draws it is
// refused by check and by run, before any client starts, where the run
// waited out its frame timeout (and Equalizer's for ever).
func TestAConfigThatWouldWaitForEverIsRefused(t *testing.T) {
	config := filepath.Join(t.TempDir(), "circle.eqc")
	text := `server { config {
    appNode { pipe { window { viewport [ 0 0 400 300 ] channel { name "c" } } } }
    compound
    {
        channel "c"
        wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
        compound { viewport [ 0 0 .5 1 ] inputframe { name "right" } outputframe { name "left" } }
        compound { viewport [ .5 0 .5 1 ] outputframe { name "right" } }
        inputframe { name "left" }
    }
} }
`
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := config + `:7:42: input frame "right" is never assembled: channel c assembles it in compound 0.0 before it reads it back in compound 0.1`
	if code, _, stderr := runArgs("check", config); code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("check: exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
	missing := filepath.Join(t.TempDir(), "no-eqclient")
	if code, _, stderr := runArgs("run", "--local", "--frames", "1", "--client", missing, config); code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "no-eqclient") {
		t.Errorf("run: exit %d, stderr %q; want exit 1 and %q, before the launch", code, stderr, want)
	}
}

func TestOutputsThatCannotBeWrittenFailBeforeTheLaunch(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-eqclient")
	config := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stats", filepath.Join(t.TempDir(), "no-folder", "stats.jsonl")}, "the statistics file (--stats): open "},
		{[]string{"--out", filepath.Join(file, "images")}, "the folder for the images (--out): mkdir "},
		{[]string{"--cpuprofile", filepath.Join(t.TempDir(), "no-folder", "cpu.pprof")}, "--cpuprofile: open "},
		{[]string{"--token-file", filepath.Join(t.TempDir(), "no-token")}, "--token-file: open "},
		{[]string{"--tls-cert", file, "--tls-key", file}, "TLS (--tls-cert, --tls-key): "},
	} {
		code, _, stderr := runArgs(append(append([]string{"run", "--local", "--frames", "1", "--client", missing}, c.args...), config)...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "no-eqclient") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q, before the launch", c.args, code, stderr, c.want)
		}
	}
}

// With --log-format json every line eqserver run writes to standard
// error is a JSON record, the error that ends the run and a config's
// file:line:col errors included (they were plain lines among the
// records).
func TestJSONLogsEndInJSON(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.eqc")
	if err := os.WriteFile(broken, []byte("config {\n  node { pipe { wndow {} } }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-eqclient")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{broken}, broken + ":2:"},
		{[]string{"--stats", filepath.Join(dir, "no-folder", "stats.jsonl"), filepath.Join("..", "..", "examples", "configs", "one-window.eqc")}, "the statistics file (--stats)"},
	} {
		code, _, stderr := runArgs(append([]string{"run", "--log-format", "json", "--local", "--frames", "1", "--client", missing}, c.args...)...)
		found := false
		for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
			var rec struct{ Level, Msg string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("%v: a line that is no JSON record: %q", c.args, line)
				continue
			}
			found = found || rec.Level == "ERROR" && strings.HasPrefix(rec.Msg, c.want)
		}
		if code != 1 || !found {
			t.Errorf("%v: exit %d, no ERROR record starting %q:\n%s", c.args, code, c.want, stderr)
		}
	}
}

// A CPU profile that cannot be written is reported: runtime/pprof drops
// its write errors, and the run said nothing of a profile it lost.
func TestALostCPUProfileIsReported(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-eqclient")
	config := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	_, _, stderr := runArgs("run", "--local", "--frames", "1", "--client", missing, "--cpuprofile", "/dev/full", config)
	if !strings.Contains(stderr, "--cpuprofile /dev/full: the profile is incomplete: write /dev/full: no space left on device") {
		t.Errorf("a profile written to a full device was lost without a word:\n%s", stderr)
	}
	kept := filepath.Join(t.TempDir(), "cpu.prof")
	_, _, stderr = runArgs("run", "--local", "--frames", "1", "--client", missing, "--cpuprofile", kept, config)
	if fi, err := os.Stat(kept); err != nil || fi.Size() == 0 || strings.Contains(stderr, "incomplete") {
		t.Errorf("a profile that could be written: %v\n%s", err, stderr)
	}
}

// Processes built from two goeq sources are refused a run together, each
// error naming both builds: a render client of another build joined and
// drew as its own build did. eqserver, its clients and an application
// here are built from one source, given two build names.
func TestProcessesOfAnotherGoeqBuildAreRefused(t *testing.T) {
	dir := t.TempDir()
	name := func(build string) string {
		return "-ldflags=-X github.com/goeq/goeq/internal/control.buildOverride=" + build
	}
	server, client, app := filepath.Join(dir, "eqserver"), filepath.Join(dir, "eqclient"), filepath.Join(dir, "hello")
	for _, b := range []struct{ out, build, pkg string }{
		{server, "v0.4.0", "github.com/goeq/goeq/cmd/eqserver"},
		{client, "v0.3.9", "github.com/goeq/goeq/cmd/eqclient"},
		{app, "v0.3.9", "github.com/goeq/goeq/examples/hello"},
	} {
		if err := gotool.Build(b.out, name(b.build), b.pkg); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, server, "run", "--local", "--frames", "1", "--client", client, cfg).CombinedOutput()
	want := "node app's client was built from goeq v0.3.9 and this server from goeq v0.4.0: every process of a run needs the same goeq"
	if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "did not join") {
		t.Errorf("a client of another build: %v; want a run that fails saying %q\n%s", err, want, out)
	}

	t.Setenv("GOEQ_TOKEN", "test-token")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.CommandContext(ctx, server, "run", "--app", addr, "--app-timeout", "30s", cfg)
	var srvLog strings.Builder
	srv.Stdout, srv.Stderr = &srvLog, &srvLog
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	var appOut []byte
	for i := 0; i < 100; i++ { // until the server listens
		if appOut, err = exec.CommandContext(ctx, app, "--server", addr, "--frames", "1").CombinedOutput(); err == nil || !strings.Contains(string(appOut), "connection refused") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	want = "refused the application: the application was built from goeq v0.3.9 and this server from goeq v0.4.0"
	if err == nil || !strings.Contains(string(appOut), want) {
		t.Errorf("an application of another build: %v; want it refused with %q\n%s", err, want, appOut)
	}
}

// eqserver run without a config, or with a session's name (no file, not
// a .eqc), runs on a config made for this machine, as Equalizer's server
// does: the GPUs eqclient --gpus finds, a pipe each, saved to
// <session>.auto.eqc ("local" without one). A client that cannot count
// them ends the run with why, before anything starts.
func TestRunWithoutAConfigConfiguresThisMachine(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "eqclient")
	if err := gotool.Build(client, "github.com/goeq/goeq/cmd/eqclient"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("DISPLAY", "") // headless: EGL's devices
	out, err := exec.Command(client, "--gpus").Output()
	var found struct{ GPUs []int }
	if err != nil || json.Unmarshal(out, &found) != nil {
		t.Fatalf("eqclient --gpus: %q, %v", out, err)
	}
	for _, session := range []string{"", "wall"} {
		images := filepath.Join(dir, "out"+session)
		args := []string{"run", "--local", "--frames", "2", "--out", images, "--dump-every", "1", "--triangles", "8000", "--client", client}
		if session != "" {
			args = append(args, session)
		}
		code, _, stderr := runArgs(args...)
		if code != 0 {
			t.Fatalf("session %q: exit %d:\n%s", session, code, stderr)
		}
		file := cmp.Or(session, "local") + ".auto.eqc"
		saved, err := os.ReadFile(file)
		if err != nil || string(saved) != autoconfig.Text(autoconfig.Here(cmp.Or(session, "local"), found.GPUs)) {
			t.Errorf("session %q: %s is not the config of this machine's GPUs %v (%v):\n%s", session, file, found.GPUs, err, saved)
		}
		if !strings.Contains(stderr, "auto-configured for this machine") || !strings.Contains(stderr, "config "+file) {
			t.Errorf("session %q: the log does not say it ran on %s:\n%s", session, file, stderr)
		}
		if names, _ := filepath.Glob(filepath.Join(images, "*.png")); len(names) != 2 {
			t.Errorf("session %q: %d images, want 2", session, len(names))
		}
	}
	code, _, stderr := runArgs("run", "--local", "--frames", "1", "--client", "/bin/false")
	if want := "no config given, and this machine's GPUs could not be counted (/bin/false --gpus: exit status 1): name a config"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("a client that cannot count the GPUs: exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
}

// A run that ends while its launched clients still start (an init
// timeout far too short) kills them a second after its stop, and says
// they were still starting: it said "silent for 498936h", the time since
// the zero time, for a client never heard from, and "not heard from since
// it was launched" for one that had said which step of its set-up it was
// in (it now says that step).
func TestClientsStillStartingAtTheStopAreSaidToBe(t *testing.T) {
	client := filepath.Join(t.TempDir(), "eqclient")
	if err := gotool.Build(client, "github.com/goeq/goeq/cmd/eqclient"); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join("..", "..", "examples", "configs", "2d-lb-4.eqc")
	code, _, stderr := runArgs("run", "--local", "--frames", "1", "--drawable", "FBO", "--init-timeout", "1ms", "--client", client, cfg)
	if code != 1 || !strings.Contains(stderr, "did not join") {
		t.Fatalf("exit %d, want 1 and a node that did not join:\n%s", code, stderr)
	}
	killed := 0
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, "had not ended") {
			continue
		}
		killed++
		// one that joined in the second after the stop has a silence
		if _, after, ok := strings.Cut(line, "silent for "); ok {
			d, err := time.ParseDuration(strings.Fields(strings.TrimRight(after, ")\"'"))[0])
			if err != nil || d > time.Minute {
				t.Errorf("a client's silence said as %q: %s", after, line)
			}
		} else if !strings.Contains(line, "still starting") && !strings.Contains(line, "still setting up, last ") {
			t.Errorf("a client killed while it started, said otherwise: %s", line)
		}
	}
	t.Logf("%d clients killed while they started", killed)
}

// simulate's --report runs goeq's example configs: run where they are not
// (outside goeq's source) it says so, rather than that one file is
// missing, and the flags of a single simulation are refused beside it
// (they were ignored), as --configs is without it.
func TestSimulateSaysWhatTheReportRuns(t *testing.T) {
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	out := filepath.Join(t.TempDir(), "report")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--report", out, "--configs", t.TempDir()}, 1, "--report runs goeq's example configs (examples/configs in its source): --configs "},
		{[]string{"--report", out, "--scenario", "uniform"}, 2, "--scenario goes without --report"},
		{[]string{"--report", out, "--config", cfg}, 2, "--config goes without --report"},
		{[]string{"--configs", t.TempDir(), "--config", cfg, "--scenario", "uniform"}, 2, "--configs goes with --report"},
	} {
		code, _, stderr := runArgs(append([]string{"simulate"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a report that did not run made its folder")
	}
}

// check, fmt and explain read standard input for the FILE "-", as gofmt
// does, naming it <stdin> in messages; a config past the size bound is
// refused there too. They said "open -: no such file or directory".
func TestDashReadsStandardInput(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "configs", "2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	from := func(text string, args ...string) (int, string, string) {
		t.Helper()
		defer func(was io.Reader) { stdin = was }(stdin)
		stdin = strings.NewReader(text)
		return runArgs(args...)
	}
	_, formatted, _ := runArgs("fmt", filepath.Join("..", "..", "examples", "configs", "2d-lb-4.eqc"))
	if code, out, errs := from(string(src), "fmt", "-"); code != 0 || out != formatted {
		t.Errorf("fmt -: exit %d, %s; the output differs from fmt FILE's: %v", code, errs, out != formatted)
	}
	if code, _, errs := from(string(src), "check", "-"); code != 0 || errs != "" {
		t.Errorf("check - of a valid config: exit %d, %s", code, errs)
	}
	if code, out, errs := from(string(src), "explain", "-"); code != 0 || !strings.Contains(out, "src1") {
		t.Errorf("explain -: exit %d, %s\n%s", code, errs, out)
	}
	bad := strings.Replace(string(src), "channel", "chanel", 1)
	if code, _, errs := from(bad, "check", "-"); code != 1 || !strings.HasPrefix(errs, "<stdin>:") {
		t.Errorf("check - of a broken config: exit %d, %q; want <stdin>:line:col: messages", code, errs)
	}
	if code, _, errs := from(strings.Repeat("#", configparser.MaxFileSize+1), "fmt", "-"); code != 1 || !strings.Contains(errs, "<stdin>:1:1:") || !strings.Contains(errs, "refused") {
		t.Errorf("fmt - of an oversized config: exit %d, %q", code, errs)
	}
	if code, _, errs := from(string(src), "verify", "-"); code != 2 || !strings.Contains(errs, "give a file") {
		t.Errorf("verify -: exit %d, %q", code, errs)
	}
}

// A flag after the arguments is refused, saying so: flag parsing stops at
// the first argument, and explain FILE --json had said "exactly one FILE
// expected", run CONFIG --frames 3 "one CONFIG at most expected", and
// check FILE --json "open --json: no such file or directory"; simulate
// with an argument ran without it.
func TestFlagsAfterTheArgumentsAreRefused(t *testing.T) {
	config := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", config, "--json"}, "eqserver explain: --json after " + config + ": flags go before the arguments"},
		{[]string{"fmt", config, "-x"}, "eqserver fmt: -x after " + config + ": flags go before the arguments"},
		{[]string{"run", config, "--frames", "3"}, "eqserver run: --frames after " + config + ": flags go before the arguments"},
		{[]string{"replay", "--config", config, "stats.jsonl", "--json"}, "eqserver replay: --json after stats.jsonl: flags go before the arguments"},
		{[]string{"check", config, "--json"}, "eqserver check: --json: check takes no flags"},
		{[]string{"simulate", config, "--scenario", "step"}, `eqserver simulate: "` + config + `": it takes flags alone`},
	} {
		code, _, stderr := runArgs(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
