package server

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/transport"
)

// rss is a process's resident memory in bytes.
func rss(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmRSS for pid %d", pid)
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return kb << 10
}

// waitLog waits (bounded) for a log line matching re and returns its
// submatches.
func (sp *serverProcess) waitLog(t *testing.T, re *regexp.Regexp) []string {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(sp.log()); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no log line matching %s:\n%s", re, tailOf(sp.log(), 3000))
	return nil
}

// runLosingNode runs config for frames frames beside its reference, with
// victim's client killed once 6 frames are done (where victim names
// several nodes, space-separated, each right after the one before, or
// once N more frames are done where "+N" stands between them): the run
// must end well.
// It returns the run, its summary and the reference, for the caller's
// own checks. Both runs take the extra arguments too.
// GOEQ_PROBE_RENDERER runs both under another renderer (a probe of DFR
// walls that lose their sources wants the synthetic one, as
// TestRandomDFRWallsMatchTheReference does).
func runLosingNode(t *testing.T, config string, frames int, victim string, extra ...string) (*serverProcess, Summary, *serverProcess) {
	t.Helper()
	args := append([]string{"--spin", "0.02"}, extra...)
	if r := os.Getenv("GOEQ_PROBE_RENDERER"); r != "" {
		args = append(args, "--renderer", r)
	}
	ref := startServer(t, config, frames, append(args, "--reference")...)
	if err := ref.wait(t); err != nil {
		t.Fatalf("reference: %v", err)
	}
	sp := startServer(t, config, frames, args...)
	sp.waitFrames(t, 6)
	for _, node := range strings.Fields(victim) {
		if more, err := strconv.Atoi(strings.TrimPrefix(node, "+")); err == nil {
			sp.waitFrames(t, sp.framesDone()+more)
			continue
		}
		pid := sp.pid(node)
		if pid == 0 {
			t.Fatalf("no pid for %s: %v", node, sp.pids)
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := sp.wait(t); err != nil {
		t.Fatalf("the run failed after %s died: %v\n%s", victim, err, tailOf(sp.log(), 3000))
	}
	var sum Summary
	if err := json.Unmarshal([]byte(sp.stdout.String()), &sum); err != nil {
		t.Fatalf("summary: %v", err)
	}
	return sp, sum, ref
}

// Four connections to a client's frame port that each claim the largest
// payload before authenticating cost the client less than 64 MB.
func TestUnauthenticatedClaimsDoNotGrowAClient(t *testing.T) {
	sp := startServer(t, config("2d-lb-4.eqc"), 100000)
	m := sp.waitLog(t, regexp.MustCompile(`node app joined \(pid (\d+), frames at (\S+)\)`))
	pid, _ := strconv.Atoi(m[1])
	sp.waitFrames(t, 3)
	peak := func() int {
		most := 0
		for i := 0; i < 5; i++ {
			most = max(most, rss(t, pid))
			time.Sleep(50 * time.Millisecond)
		}
		return most
	}
	before := peak()
	for i := 0; i < 4; i++ {
		c, err := net.Dial("tcp", m[2])
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var p [12]byte
		copy(p[:], "GQ")
		p[2], p[3] = 1, byte(1+i%2) // authentication, then frame messages
		binary.LittleEndian.PutUint32(p[4:], 64)
		binary.LittleEndian.PutUint32(p[8:], transport.MaxPayload)
		c.Write(p[:])
		c.Write(make([]byte, 1<<20))
	}
	time.Sleep(time.Second)
	after := peak()
	if grew := after - before; grew > 64<<20 {
		t.Errorf("four unauthenticated claims of %d bytes grew the client by %d MB", transport.MaxPayload, grew>>20)
	}
	t.Logf("client resident memory %d MB before, %d MB after", before>>20, after>>20)
}

// A second client for a node that already has one, and one for a node
// the config lacks, are refused with a clear error, and the run goes on.
func TestDuplicateJoinIsRefused(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "duplicate-join-token")
	sp := startServer(t, config("2d-lb-4.eqc"), 100000)
	addr := sp.waitLog(t, regexp.MustCompile(`control server on (\S+);`))[1]
	sp.waitFrames(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "eqclient"), "--server", addr, "--node", "render1")
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a second client for render1 was accepted:\n%s", out)
	}
	// the refusal reads alike whether it ends the hello's send or comes
	// after it, without gRPC's code for a handler's error
	if !strings.Contains(string(out), "server refused or closed the session: node render1 already has a client") || strings.Contains(string(out), "Unknown") {
		t.Errorf("the refused client does not say why:\n%s", out)
	}
	cmd = exec.CommandContext(ctx, filepath.Join(binaries(t), "eqclient"), "--server", addr, "--node", "render9")
	cmd.Env = testEnv()
	if out, err = cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `server refused or closed the session: unknown node \"render9\" (nodes: app, render1, render2)`) || strings.Contains(string(out), "Unknown") {
		t.Errorf("a client for a node the config lacks: %v\n%s", err, out)
	}
	before := sp.framesDone()
	sp.waitFrames(t, before+3)
	if !strings.Contains(sp.log(), "refused a second client for node render1") {
		t.Errorf("no refusal in the server's log")
	}
}

// A client that cannot set up (a window larger than GL allows) makes the
// run fail at once with the client's own reason, not after the join
// timeout.
func TestSetupFailureIsReportedAtOnce(t *testing.T) {
	b, err := os.ReadFile(config("one-window.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "huge.eqc")
	os.WriteFile(cfg, regexp.MustCompile(`viewport \[ 0 0 \d+ \d+ \]`).ReplaceAll(b, []byte("viewport [ 0 0 16385 200 ]")), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "eqserver"), "run", "--local", "--frames", "3", cfg)
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a 16385-pixel window ran:\n%s", out)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the failure took %v to report; the join timeout is 30 s", took)
	}
	if !strings.Contains(string(out), "failed to set up") || !strings.Contains(string(out), "16385x200 pixels") {
		t.Errorf("the error does not carry the client's reason:\n%s", tailOf(string(out), 2000))
	}
}

// A node busy with long frames is not taken for dead (its heartbeats do
// not wait for rendering); a frozen one (SIGSTOP) is lost within the
// liveness timeout and the run goes on without it.
func TestBusyNodeLivesFrozenNodeIsLost(t *testing.T) {
	// frames of about three seconds each: longer than any liveness
	// floor, so only heartbeats keep the nodes in
	busy := startServer(t, config("2d-lb-4.eqc"), 3, "--renderer", "synthetic", "--iterations", "30000")
	if err := busy.wait(t); err != nil {
		t.Fatalf("the busy run failed: %v\n%s", err, tailOf(busy.log(), 3000))
	}
	if strings.Contains(busy.log(), " lost (") {
		t.Errorf("a busy node was taken for dead:\n%s", tailOf(busy.log(), 3000))
	}

	sp := startServer(t, config("2d-lb-4.eqc"), 100000)
	sp.waitFrames(t, 3)
	pid := sp.pid("render2")
	syscall.Kill(pid, syscall.SIGSTOP)
	defer syscall.Kill(pid, syscall.SIGKILL)
	stopped := time.Now()
	sp.waitLog(t, regexp.MustCompile(`node render2 lost \(no heartbeat`))
	if took := time.Since(stopped); took > 10*time.Second {
		t.Errorf("the frozen node was lost after %v", took)
	}
	before := sp.framesDone()
	sp.waitFrames(t, before+5)
}

// On a wall whose nodes keep talking (heartbeats from many clients, whose
// phases differ), the run loop never idles long enough for its timer to
// tick: a frozen node is still lost for its silence, within the bound a
// node that shows a destination has (5 s), and not left to the frame
// timeout.
func TestFrozenNodeIsLostWhileOthersTalk(t *testing.T) {
	const nodes = 24
	bin, dir := binaries(t), t.TempDir()
	cfg := filepath.Join(dir, "wall.eqc")
	if err := os.WriteFile(cfg, []byte(simulate.Wall(nodes)), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeLoopbackAddr(t)
	env := append(testEnv(), "GOEQ_TOKEN=frozen-wall-token")
	sp := &serverProcess{cmd: exec.Command(filepath.Join(bin, "eqserver"), "run", "--no-launch", "--listen", addr, "--null-clients",
		"--frames", "100000", "--frame-timeout", "60s", "--liveness", "1s", "--stats", filepath.Join(dir, "stats.jsonl"), cfg),
		out: dir, pids: map[string]int{}, done: make(chan error, 1)}
	sp.cmd.Env = env
	pipe, _ := sp.cmd.StderrPipe()
	if err := sp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go sp.scan(pipe)
	t.Cleanup(sp.kill)
	sp.waitLog(t, regexp.MustCompile(`control server on`))
	// every node but the last, over eight processes started apart (their
	// heartbeats interleave); the last node in a process of its own
	var clients []*exec.Cmd
	client := func(names ...string) *exec.Cmd {
		args := []string{"--null", "--server", addr}
		for _, n := range names {
			args = append(args, "--node", n)
		}
		c := exec.Command(filepath.Join(bin, "eqclient"), args...)
		c.Env = env
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		return c
	}
	t.Cleanup(func() {
		for _, c := range clients {
			c.Process.Kill()
			c.Wait()
		}
	})
	groups := make([][]string, 8)
	groups[0] = []string{"app"}
	for i := 0; i < nodes-1; i++ {
		groups[i%8] = append(groups[i%8], fmt.Sprintf("n%d", i))
	}
	for _, g := range groups {
		client(g...)
		time.Sleep(25 * time.Millisecond)
	}
	last := client(fmt.Sprintf("n%d", nodes-1))
	sp.waitFrames(t, 5)
	syscall.Kill(last.Process.Pid, syscall.SIGSTOP)
	stopped := time.Now()
	sp.waitLog(t, regexp.MustCompile(fmt.Sprintf(`node n%d lost \(no heartbeat`, nodes-1)))
	if took := time.Since(stopped); took > 15*time.Second {
		t.Errorf("the frozen node was lost after %v (liveness 1 s, frame timeout 60 s)", took)
	}
	// it showed a part of the wall: the run fails, saying so
	if err := sp.wait(t); err == nil || !strings.Contains(sp.log(), "which shows the destination, died") {
		t.Errorf("the run's end: %v\n%s", err, tailOf(sp.log(), 2000))
	}
}

// An unknown codec is an error before anything starts: a client sent raw
// frames for any name it did not know.
func TestRunRejectsAnUnknownCodec(t *testing.T) {
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	_, err := Run(context.Background(), Options{ConfigPath: cfg, Token: "t", Codec: "zstd2", Local: true})
	if err == nil || !strings.Contains(err.Error(), `unknown codec "zstd2"`) {
		t.Fatalf("err %v, want unknown codec", err)
	}
}

// An address the control server cannot listen on is named with where it
// came from: --listen, or the config's server connection (which a user
// given --listen was told of before).
func TestRunSaysWhoseAddressCannotBeListenedOn(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cfg := filepath.Join("..", "..", "examples", "configs", "one-window.eqc")
	_, err = Run(context.Background(), Options{ConfigPath: cfg, Token: "t", Listen: busy.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+busy.Addr().String()+" (--listen)") {
		t.Errorf("--listen on a port in use: %v", err)
	}
	port := busy.Addr().(*net.TCPAddr).Port
	text := fmt.Sprintf("server { connection { hostname \"127.0.0.1\" port %d } config { appNode { pipe { window { viewport [ 0 0 64 64 ] channel { name \"c\" } } } } compound { channel \"c\" } } }", port)
	_, err = Run(context.Background(), Options{ConfigPath: configFile(t, "busy.eqc", text), Token: "t"})
	if err == nil || !strings.Contains(err.Error(), "the config's server connection") {
		t.Errorf("the config's connection on a port in use: %v", err)
	}
}

// A node lost from a decomposition that no equalizer shares out (a static
// 2D, DB or time-multiplex compound, or a direct send written in the
// config) still has its part drawn: its destination's channel stands in
// for it, so that after the frames in flight at the loss every frame is
// complete and equals the reference. Before, frames went on without the
// part for the rest of the run, and only the 2 frames in flight counted
// as degraded.
func TestALostNodesPartIsDrawnByItsDestination(t *testing.T) {
	const frames = 24
	// a load-balanced and a tiled part, each of two sources on one node,
	// and a static part on another: all of the node's sources lost, no
	// one is left to share their part out to (it was not drawn at all);
	// the zoomed source is not the one that takes the balanced part over
	// (it would draw all of it coarser)
	window := func(name string) string {
		return fmt.Sprintf(`window { viewport [ 0 0 300 200 ] attributes { hint_drawable FBO } channel { name %q } }`, name)
	}
	balancedOnOneNode := fmt.Sprintf(`config {
    appNode { pipe { %s } }
    node { name "node1" pipe { %s } pipe { %s } pipe { %s } pipe { %s } }
    node { name "node2" pipe { %s } }
    compound { channel "dest" task [ CLEAR ASSEMBLE ] wall { }
        compound { pixel [ 0 0 3 1 ] load_equalizer { mode 2D }
            compound { channel "src0" zoom [ 0.5 0.5 ] outputframe { name "f0" } } compound { channel "src1" outputframe { name "f1" } } }
        compound { pixel [ 1 0 3 1 ] tile_equalizer { size [ 33 29 ] }
            compound { channel "src2" outputframe { name "f2" } } compound { channel "src3" outputframe { name "f3" } } }
        compound { channel "src4" pixel [ 2 0 3 1 ] outputframe { name "f4" } }
        inputframe { name "f0" } inputframe { name "f1" } inputframe { name "f2" } inputframe { name "f3" } inputframe { name "f4" }
    }
}
`, window("dest"), window("src0"), window("src1"), window("src2"), window("src3"), window("src4"))
	generated := filepath.Join(t.TempDir(), "balanced-on-one-node.eqc")
	if err := os.WriteFile(generated, []byte(balancedOnOneNode), 0o644); err != nil {
		t.Fatal(err)
	}
	// a source of two destinations, each of which stands in for it: the
	// second destination's part went to the first one's stand-in plan,
	// and the second waited for it until the frame timed out (random
	// trees of two destinations, seed 2065, whose source node crashed)
	sharedByTwo := fmt.Sprintf(`config {
    appNode { pipe { %s %s } }
    node { name "node1" pipe { %s } pipe { %s } }
    observer { }
    layout { name "L" view { observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" viewport [ 0 0 0.5 1 ] } segment { channel "dest2" viewport [ 0.5 0 0.5 1 ] } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { tile_equalizer { size [ 64 64 ] }
            compound { channel "src0" outputframe { name "f0" } } compound { channel "src1" outputframe { name "f1" } } }
        inputframe { name "f0" } inputframe { name "f1" } }
    compound { channel ( segment 1 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0" outputframe { name "g0" } }
        inputframe { name "g0" } }
}
`, window("dest"), window("dest2"), window("src0"), window("src1"))
	twoDestinations := filepath.Join(t.TempDir(), "a-source-of-two-destinations.eqc")
	if err := os.WriteFile(twoDestinations, []byte(sharedByTwo), 0o644); err != nil {
		t.Fatal(err)
	}
	// a part of a mono view drawn by eyes alone (eye [ LEFT ] and eye
	// [ RIGHT ] under a DB range), which the assembly holding its parent's
	// picture draws in place: lost with the assembly's node, that draw
	// went to the lost channel's plan, not its stand-in's, and the range
	// was missing from every frame after (random walls losing their
	// sources, seeds 40 and 53: 17-29 dB)
	eyePartsHeld := fmt.Sprintf(`config {
    appNode { pipe { %s } }
    node { name "node1" pipe { %s } pipe { %s } pipe { %s } }
    observer { }
    layout { name "L" view { mode MONO observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src1"
            compound { range [ 0 0.6 ]
                compound { channel "src1" eye [ LEFT ] outputframe { name "left" } }
                compound { channel "src2" eye [ RIGHT ] outputframe { name "right" } } }
            compound { channel "src0" range [ 0.6 1 ] outputframe { name "far" } }
            inputframe { name "left" } inputframe { name "right" } inputframe { name "far" } outputframe { name "parts" } }
        inputframe { name "parts" } }
}
`, window("dest"), window("src0"), window("src1"), window("src2"))
	eyePartsOfALostAssembly := filepath.Join(t.TempDir(), "eye-parts-of-a-lost-assembly.eqc")
	if err := os.WriteFile(eyePartsOfALostAssembly, []byte(eyePartsHeld), 0o644); err != nil {
		t.Fatal(err)
	}
	// a load-balanced part whose first source is an eye decomposition, in
	// a mono view: the equalizer gives all of it to the second, and once
	// both are lost the first took the part over and drew nothing there
	// (random walls losing their sources, seed 6004: 20 dB)
	eyesFirst := fmt.Sprintf(`config {
    appNode { pipe { %s } }
    node { name "node1" pipe { %s } pipe { %s } pipe { %s } pipe { %s } }
    observer { }
    layout { name "L" view { mode MONO observer 0 } }
    canvas { layout "L" wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        compound { channel "src0"
            compound { channel "src0" viewport [ 0 0 1 0.5 ] outputframe { name "bottom" } }
            compound { viewport [ 0 0.5 1 0.5 ] load_equalizer { mode DB }
                compound { channel "src1"
                    compound { channel "src1" eye [ LEFT ] outputframe { name "left" } }
                    compound { channel "src2" eye [ RIGHT ] outputframe { name "right" } }
                    inputframe { name "left" } inputframe { name "right" } outputframe { name "eyes" } }
                compound { channel "src3" outputframe { name "top" } } }
            inputframe { name "bottom" } inputframe { name "eyes" } inputframe { name "top" } outputframe { name "parts" } }
        inputframe { name "parts" } }
}
`, window("dest"), window("src0"), window("src1"), window("src2"), window("src3"))
	eyesFirstInALostEqualizer := filepath.Join(t.TempDir(), "eyes-first-in-a-lost-equalizer.eqc")
	if err := os.WriteFile(eyesFirstInALostEqualizer, []byte(eyesFirst), 0o644); err != nil {
		t.Fatal(err)
	}
	// the same with the eye decomposition's node left: it draws nothing
	// in the mono view, so it cannot take the lost source's part over
	eyesLeft := strings.Replace(eyesFirst, " pipe { "+window("src3")+" } }", " }\n    node { name \"node2\" pipe { "+window("src3")+" } }", 1)
	if eyesLeft == eyesFirst {
		t.Fatal("src3 is not node1's last pipe")
	}
	eyesLeftInAnEqualizer := filepath.Join(t.TempDir(), "eyes-left-in-an-equalizer.eqc")
	if err := os.WriteFile(eyesLeftInAnEqualizer, []byte(eyesLeft), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ config, victim string }{
		{"2-node.2D", "node1"},    // static 2D (its first layout)
		{"2-node.DB", "node1"},    // static DB, depth-merged
		{"2-node.DPlex", "node1"}, // time-multiplex: every other frame
		{"3-node.DB.ds", "node2"}, // a direct send tree: the part assembles others' frames
		{generated, "node1"},
		{twoDestinations, "node1"},
		{eyePartsOfALostAssembly, "node1"},
		{eyesFirstInALostEqualizer, "node1"},
		{eyesLeftInAnEqualizer, "node2"},
	} {
		t.Run(filepath.Base(tc.config), func(t *testing.T) {
			cfg := filepath.Join(corpusDir(), tc.config+".eqc")
			if filepath.IsAbs(tc.config) {
				cfg = tc.config
			}
			sp, sum, ref := runLosingNode(t, cfg, frames, tc.victim)
			if len(sum.LostNodes) != 1 || sum.LostNodes[0] != tc.victim || sum.Frames != frames {
				t.Errorf("summary: lost %v, %d frames", sum.LostNodes, sum.Frames)
			}
			if sum.Degraded > 2 {
				t.Errorf("%d degraded frames, want at most the 2 in flight", sum.Degraded)
			}
			// each named, in the summary and the log, past the 6 frames done
			// before the kill
			if len(sum.DegradedFrames) != sum.Degraded || slices.ContainsFunc(sum.DegradedFrames, func(f int) bool { return f < 6 }) {
				t.Errorf("degraded frames %v, %d of them", sum.DegradedFrames, sum.Degraded)
			}
			for _, f := range sum.DegradedFrames {
				if want := fmt.Sprintf("frame %d is shown without the part of a node lost", f); !strings.Contains(sp.log(), want) {
					t.Errorf("the log does not say %q", want)
				}
			}
			// every frame not named degraded as the config resamples, and
			// the last ones, with the zoomed source lost, exactly
			m, _, err := compound.Load(cfg, compound.Options{})
			if err != nil {
				t.Fatal(err)
			}
			wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, m.Configs[0].Resampling(), "with "+tc.victim+" lost")
			for f := frames - 4; f < frames; f++ {
				for _, name := range pngs(t, ref.out) {
					if !strings.HasSuffix(name, fmt.Sprintf("-%06d.png", f)) {
						continue
					}
					d, err := imagecmp.CompareFiles(filepath.Join(sp.out, name), filepath.Join(ref.out, name), exactTolerance)
					if err != nil {
						t.Fatal(err)
					}
					if d.BadFraction() > exactBadMax {
						t.Errorf("%s after the loss: %s", name, d)
					}
				}
			}
		})
	}
}

// A node lost at latencies of 2 to 10 costs no frame: the frames in
// flight it had not sent its part of are repaired by the channels they go
// to (a tile queue's part with the tiles it was handed; another node's
// frame it assembles with it, and what that frame assembled first, tiles
// it pulled too; a sort-last exchange's bands, in every round; a part it
// drew aside; a part that pulls tiles for two pipes, on both), and every
// frame equals the reference; so do two nodes lost one after the other
// (the first one's parts the second drew again, drawn again in turn).
// Before repairs,
// stress.2D at latency 10 named 1 to 11 frames, by how far ahead its node
// was when it was killed.
func TestALostNodesFramesInFlightAreRepaired(t *testing.T) {
	const frames = 24
	for _, tc := range []struct {
		config, victim string
		latency        int // 0: the config's own
	}{
		{"stress.2D", "node1", 0},
		{"2-node.DPlex", "node1", 0}, // latency 3, a time multiplex
		{"2-node.DB", "node1", 4},
		// render2's pipes composite among themselves before they send
		{"node-local-assembly", "render2", 3},
		{"2-node.tile", "node1", 3}, // the tiles it was handed too
		// render2's pipes share a tile queue, and one assembles both's tiles
		{"node-local-tiles", "render2", 3},
		// render2's channel is a source of two destinations
		{"two-destinations", "render2", 3},
		// a direct send written out in frames: node2's part, and the
		// stripes the others sent it, drawn again
		{"3-node.DB.ds", "node2", 2},
		// the direct send goeq chose for the DB compound: node2's bands for
		// the others, and its own band with theirs merged, drawn again
		{"3-node.DB", "node2", 2},
		// render2 assembles a frame of render1's, which went to it: drawn
		// again with its part
		{"cross-node-assembly", "render2", 3},
		// render2's src4 feeds render1's src1, which feeds render2's src3:
		// both drawn again with src1's part, whether or not render1 had
		// finished the frame
		{"fed-through-a-live-node", "render2", 3},
		// a binary swap: render2's two sources, and the live sources'
		// rounds that fed them (each merging its round 1 half), drawn again
		{"binary-swap", "render2", 3},
		// a radix-k: render2's sources in two groups of its first round,
		// fed by the same live rounds, drawn again in one repair a pipe
		{"radix-k", "render2", 3},
		// a stereo binary swap whose destination draws: its range drawn
		// again for each eye, after its compound's clear for that eye
		{"stereo-binary-swap", "render2", 2},
		// render2 assembles the tiles render1 pulled, which went to it:
		// src1 draws them again for the stand-in, the same tiles, those it
		// pulls after the loss too
		{"cross-node-tiles", "render2", 3},
		// render2's src3 draws a column of its pixel decomposition aside
		{"drawn-aside", "render2", 3},
		// render2's src3 assembles the tiles it and src4 pull for dest,
		// and those of another queue for dest2: drawn again on both
		// destinations' pipes, each handed all the tiles
		{"tiles-for-two-destinations", "render2", 2},
		// render1 pulls the tiles render2 assembles, and both are lost,
		// either first: render2's stand-ins of render1's parts are lost
		// with it and drawn again by dest, and dest's copies of render1's
		// parts (drawn for render2's) are handed the tiles none pulls
		{"tiles-assembled-on-another-node", "render1 render2", 2},
		{"tiles-assembled-on-another-node", "render2 render1", 2},
		// render1's samples are drawn by dest in two plans aside, one
		// assembling the other's, for render2's src0: then render2 is
		// lost, and src0's part is drawn again fed by those plans
		{"samples-drawn-by-a-stand-in", "render1 +2 render2", 2},
		// every render node lost: render3, whose part render2 draws
		// again, then a frame later render2 and render1 at once; the
		// destination draws render3's part, though its first stand-in
		// was lost before (it waited for it until the frame timeout)
		{"assemblies-nested-over-three-nodes", "render3 +1 render2 render1", 2},
	} {
		name := tc.config
		if tc.latency > 0 {
			name += fmt.Sprintf("-at-latency-%d", tc.latency)
		}
		victims := slices.DeleteFunc(strings.Fields(tc.victim), func(v string) bool { return strings.HasPrefix(v, "+") })
		if len(victims) > 1 {
			name += "-losing-" + strings.Join(victims, "-then-")
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(corpusDir(), tc.config+".eqc")
			own := filepath.Join("..", "scheduler", "testdata", tc.config+".eqc")
			if _, err := os.Stat(own); err == nil {
				path = own // goeq's own; a missing corpus config is named by its own path
			}
			if tc.latency > 0 {
				path = withLatency(t, path, tc.latency)
			}
			m, _, err := compound.Load(path, compound.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := m.Configs[0]
			if tc.latency > 0 && cfg.Latency != tc.latency {
				t.Fatalf("the config loads with latency %d, not %d", cfg.Latency, tc.latency)
			}
			sp, sum, ref := runLosingNode(t, path, frames, tc.victim)
			t.Logf("latency %d: frames %v repaired, %v degraded", cfg.Latency, sum.RepairedFrames, sum.DegradedFrames)
			if !slices.Equal(slices.Sorted(slices.Values(sum.LostNodes)), slices.Sorted(slices.Values(victims))) || sum.Frames != frames {
				t.Errorf("summary: lost %v, %d frames", sum.LostNodes, sum.Frames)
			}
			if sum.Degraded > 0 {
				t.Errorf("frames %v degraded; every part of this config can be drawn by its consumer", sum.DegradedFrames)
			}
			compared := wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, cfg.Resampling(), "with "+tc.victim+" lost")
			if compared < frames-cfg.Latency-1 {
				t.Errorf("%d pictures compared", compared)
			}
		})
	}
}

// A disk that fills up fails the run with what could not be written, and
// leaves no truncated file that looks like a frame or a whole statistics
// file. The processes run under a file size limit (prlimit --fsize, the
// limit every file they write meets, as a full disk is), smaller than a
// frame's PNG in the first case and than the statistics of the run in
// the second.
func TestAFullDiskFailsTheRunAndLeavesNoPartialFrame(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatal("prlimit (util-linux) is missing")
	}
	bin := binaries(t)
	for _, c := range []struct {
		name, fsize string
		args        func(dir string) []string
		want        string
	}{
		{"frames", "40000", func(dir string) []string { return []string{"--out", dir, "--dump-every", "1"} },
			`frame \d+ failed on node app: channel dest: writing \S+/dest-\d{6}\.png: file too large`},
		{"statistics", "20000", func(dir string) []string { return []string{"--stats", filepath.Join(dir, "stats.jsonl")} },
			`writing the statistics \(--stats \S+stats\.jsonl\) of frame \d+: write \S+: file too large`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--fsize=" + c.fsize, filepath.Join(bin, "eqserver"), "run", "--local", "--frames", "200",
				"--triangles", "20000"}, c.args(dir)...)
			cmd := exec.Command("prlimit", append(args, config("2d-lb-4.eqc"))...)
			cmd.Env = testEnv()
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the run succeeded on a full disk:\n%s", tailOf(string(out), 3000))
			}
			if !regexp.MustCompile(`(?m)^eqserver: ` + c.want).Match(out) {
				t.Errorf("no error naming what could not be written (%s):\n%s", c.want, tailOf(string(out), 3000))
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("a partial file is left: %s", e.Name())
					continue
				}
				if !strings.HasSuffix(e.Name(), ".png") {
					continue
				}
				f, err := os.Open(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.Decode(f); err != nil {
					t.Errorf("%s is not a whole image: %v", e.Name(), err)
				}
				f.Close()
			}
		})
	}
}

// A render node that shows a segment of the wall ends the run when lost,
// --relaunch or not, and is not started again: a new client joined just
// to be stopped, and the stop then warned that it had "not ended" and
// killed it (random walls whose segments' node was killed).
func TestALostDestinationsNodeIsNotRelaunched(t *testing.T) {
	window := func(name string) string {
		return fmt.Sprintf(`window { viewport [ 0 0 200 150 ] attributes { hint_drawable FBO } channel { name %q } }`, name)
	}
	text := fmt.Sprintf(`config {
    appNode { pipe { %s } }
    node { name "node1" pipe { %s } }
    observer { }
    layout { name "L" view { observer 0 } }
    canvas { layout "L" wall { } segment { channel "left" viewport [ 0 0 0.5 1 ] } segment { channel "right" viewport [ 0.5 0 0.5 1 ] } }
    compound { channel ( segment 0 view 0 ) }
    compound { channel ( segment 1 view 0 ) }
}
`, window("left"), window("right"))
	path := filepath.Join(t.TempDir(), "wall.eqc")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := startServer(t, path, 0, "--spin", "0.02", "--relaunch", "1")
	sp.waitFrames(t, 4)
	pid := sp.pid("node1")
	if pid == 0 {
		t.Fatalf("no pid for node1: %v", sp.pids)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if err := sp.wait(t); err == nil || !strings.Contains(sp.log(), "node node1, which shows the destination, died") {
		t.Fatalf("the run's end: %v\n%s", err, tailOf(sp.log(), 2000))
	}
	// the user who asked for relaunches is told why there is none
	if !strings.Contains(sp.log(), "its client is not started again, as the run ends (--relaunch 1 starts again only") {
		t.Errorf("the log does not say why node1 is not started again:\n%s", tailOf(sp.log(), 2000))
	}
	// nor how to start it again by hand, in a run that ends with it
	for _, said := range []string{"starting its client again", "had not ended", "started again by hand", "leave the compounds"} {
		if strings.Contains(sp.log(), said) {
			t.Errorf("the log says %q:\n%s", said, tailOf(sp.log(), 2000))
		}
	}
}

// A client started again for a lost node that ends before it joins (it
// crashed while it set up), or that does not join in time (stopped
// before it connected, under a launch_timeout of 1.5 s), is started again
// while --relaunch allows, and the log says so; once the relaunches are
// spent, the log says that the node stays lost. The scheduler had lost
// the node already: the second end was dropped without a word, and no
// client was started again. The lost client's own end, which comes after
// the loss (a frozen one is killed then), is no such client.
func TestAClientStartedAgainThatDoesNotJoinIsStartedAgain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		relaunch int
		stop     bool // SIGSTOP the client started again, rather than kill it
		said     string
	}{
		{"killed", 3, false, "node render1 did not rejoin: "},
		{"stopped", 3, true, "node render1 did not rejoin: its client "},
		{"killed-with-no-relaunch-left", 1, false, "; its client is not started again (--relaunch 1, all taken)"},
		{"stopped-with-no-relaunch-left", 1, true, "; its client is not started again (--relaunch 1, all taken)"},
		{"frozen-without-relaunch", 0, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rejoins := tc.relaunch > 1
			sp := startServer(t, render1On(t, "localhost", "launch_timeout 1500", ""), 0, "--spin", "0.02", "--relaunch", strconv.Itoa(tc.relaunch))
			sp.waitFrames(t, 4)
			first := sp.pid("render1")
			if first == 0 {
				t.Fatalf("no pid for render1: %v", sp.pids)
			}
			if tc.relaunch == 0 {
				syscall.Kill(first, syscall.SIGSTOP)
				defer syscall.Kill(first, syscall.SIGKILL)
				sp.waitLog(t, regexp.MustCompile(`node render1 lost`))
				sp.waitFrames(t, sp.framesDone()+8)
				sp.cmd.Process.Signal(os.Interrupt)
				if err := sp.wait(t); err != nil && sp.cmd.ProcessState.ExitCode() != 130 {
					t.Fatalf("the run failed: %v\n%s", err, tailOf(sp.log(), 3000))
				}
				if strings.Contains(sp.log(), "did not") || strings.Contains(sp.log(), "again (") {
					t.Errorf("the log takes the lost client's end for a client started again:\n%s", tailOf(sp.log(), 3000))
				}
				if !strings.Contains(sp.log(), "started again by hand, its client rejoins") {
					t.Errorf("no relaunch, and the loss does not say how to start the client by hand:\n%s", tailOf(sp.log(), 3000))
				}
				return
			}
			syscall.Kill(first, syscall.SIGKILL)
			// the client started again is killed or stopped before it can
			// join (it takes 100 ms and more): stopped before it connects,
			// it does not within the launch_timeout; after, it stops
			// answering as it sets up
			again := 0
			for deadline := time.Now().Add(20 * time.Second); again == 0 || again == first; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("render1's client was not started again:\n%s", tailOf(sp.log(), 3000))
				}
				again = sp.pid("render1")
			}
			if tc.stop {
				syscall.Kill(again, syscall.SIGSTOP)
				defer syscall.Kill(again, syscall.SIGKILL)
			} else {
				syscall.Kill(again, syscall.SIGKILL)
			}
			sp.waitLog(t, regexp.MustCompile(`node render1 did not rejoin: `))
			if rejoins {
				sp.waitLog(t, regexp.MustCompile(`node render1 rejoined`))
			}
			sp.waitFrames(t, sp.framesDone()+8)
			sp.cmd.Process.Signal(os.Interrupt)
			if err := sp.wait(t); err != nil && sp.cmd.ProcessState.ExitCode() != 130 {
				t.Fatalf("the run failed: %v\n%s", err, tailOf(sp.log(), 3000))
			}
			if !strings.Contains(sp.log(), tc.said) || rejoins != strings.Contains(sp.log(), "node render1: starting its client again (2 of 3)") {
				t.Errorf("the log does not say %q, or says render1 is started again when it is not:\n%s", tc.said, tailOf(sp.log(), 3000))
			}
			// the server starts the client again: the loss gives no hint
			// to start it by hand, which would race that client
			if !strings.Contains(sp.log(), "node render1 lost (eqclient exited (signal: killed)): its channels src1, src2 leave the compounds; its client is started again") ||
				strings.Contains(sp.log(), "started again by hand") {
				t.Errorf("the loss does not say that the client is started again, or tells how to start it by hand:\n%s", tailOf(sp.log(), 3000))
			}
			if n := strings.Count(sp.log(), "did not rejoin"); n != 1 {
				t.Errorf("the log says %d times that render1 did not rejoin, not once:\n%s", n, tailOf(sp.log(), 3000))
			}
			var sum Summary
			if err := json.Unmarshal([]byte(sp.stdout.String()), &sum); err != nil {
				t.Fatalf("summary: %v", err)
			}
			want := []string(nil)
			if rejoins {
				want = []string{"render1"}
			}
			if !slices.Equal(sum.LostNodes, []string{"render1"}) || !slices.Equal(sum.RejoinedNodes, want) || sum.Degraded > 2 {
				t.Errorf("summary: lost %v, rejoined %v, %d degraded (want render1 lost, rejoined %v, at most 2 degraded)", sum.LostNodes, sum.RejoinedNodes, sum.Degraded, want)
			}
		})
	}
}

// A lost node's client started again by hand, as the server's warning
// says, rejoins a run whose token the server made up (no GOEQ_TOKEN set):
// the token is in a file of the run's own, which goes with the run.
// Before, a client started by hand had no way to the token and was
// refused, so the README's "start its client again by hand" could not
// be done on such a run.
func TestALostNodeStartedAgainByHandRejoinsARunWithoutAToken(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "")
	sp := startServer(t, config("2d-lb-4.eqc"), 0, "--renderer", "synthetic")
	sp.waitFrames(t, 5)
	syscall.Kill(sp.pid("render2"), syscall.SIGKILL)
	m := sp.waitLog(t, regexp.MustCompile(`started again by hand, its client rejoins: eqclient (--server \S+ --node render2 --token-file (\S+?))"`))
	tokenFile := m[2]
	client := exec.Command(filepath.Join(binaries(t), "eqclient"), strings.Fields(m[1])...)
	client.Env = testEnv()
	var clientLog strings.Builder
	client.Stdout, client.Stderr = &clientLog, &clientLog
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		client.Process.Kill()
		client.Wait()
		if t.Failed() {
			t.Logf("the client started by hand:\n%s", clientLog.String())
		}
	}()
	sp.waitLog(t, regexp.MustCompile(`node render2 rejoined`))
	sp.cmd.Process.Signal(syscall.SIGTERM)
	if err := sp.wait(t); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Errorf("eqserver ended with %v, want exit status 143 on SIGTERM", err)
		}
	}
	if _, err := os.Stat(tokenFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run's token file %s is still there once it ended (%v)", tokenFile, err)
	}
}

// A node lost under the adaptive policy, once it plans from its own
// model: the remaining sources take the lost part over in the next frame
// planned, and every frame not named degraded equals the reference.
// Before, the policy kept the others' regions for its balancing period,
// and the lost node's half of 2d-lb-4 was black in two frames that the
// run did not call degraded.
func TestALostNodesPartIsTakenOverUnderTheAdaptivePolicy(t *testing.T) {
	cfg := adaptiveExample(t, "2d-lb-4.eqc")
	// past the policy's first plans (Equalizer's) before the loss
	sp, sum, ref := runLosingNode(t, cfg, 30, "+8 render2")
	if len(sum.LostNodes) != 1 || sum.LostNodes[0] != "render2" || sum.Frames != 30 {
		t.Fatalf("summary: lost %v, %d frames", sum.LostNodes, sum.Frames)
	}
	// the frames in flight at the loss are repaired: none is degraded
	if sum.Degraded != 0 {
		t.Errorf("frames %v degraded:\n%s", sum.DegradedFrames, tailOf(sp.log(), 2000))
	}
	if n := wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, "", "with render2 lost"); n < 28 {
		t.Errorf("%d frames compared", n)
	}
}
