package server

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/netns"
)

// TestRunsAcrossNamespacedHosts puts the application node and the two
// render nodes of the 2D and DB load-balanced configs on three hosts in
// network namespaces (2D also on links with latency): the server runs on
// the first and starts the others through their launch_command, every
// address comes from the config or the route to the peer (none is
// loopback), and every frame equals the reference run's.
func TestRunsAcrossNamespacedHosts(t *testing.T) {
	bridged := netns.New(t, 3)
	bin := binaries(t)
	const frames = 6
	for _, tc := range []struct {
		name, cfg   string
		tol, maxBad int
		oneWay      time.Duration // links with latency (netns.NewDelayed)
		port        int           // render1's connection port: it takes frames there
	}{
		{"2D", "2d-lb-4.eqc", 1, 640 * 360 / 10000, 0, 24711},
		{"DB", "db-lb-4.eqc", 0, 640 * 360 / 1000, 0, 0},
		{"2D with 0.2 ms each way", "2d-lb-4.eqc", 1, 640 * 360 / 10000, 200 * time.Microsecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := bridged
			if tc.oneWay > 0 {
				c = netns.NewDelayed(t, 3, tc.oneWay)
			}
			dir := t.TempDir()
			cfg := namespacedConfig(t, c, tc.cfg, nil)
			if tc.port != 0 {
				withConnection(t, cfg, "render1", fmt.Sprintf("port %d", tc.port))
			}
			runOn := func(out string, extra ...string) (Summary, string) {
				t.Helper()
				args := append([]string{"run", "--json", "--frames", fmt.Sprint(frames), "--out", out, "--dump-every", "1", "--triangles", "20000"}, extra...)
				cmd := c.Hosts[0].Command(filepath.Join(bin, "eqserver"), append(args, cfg)...)
				return runSummary(t, cmd, "eqserver on "+c.Hosts[0].Name)
			}
			got, log := runOn(filepath.Join(dir, "run"))
			_, _ = runOn(filepath.Join(dir, "ref"), "--reference")
			if got.Frames != frames || got.Degraded != 0 {
				t.Errorf("summary %+v", got)
			}
			var sent int64
			for _, b := range got.CodecBytes {
				sent += b
			}
			if sent == 0 {
				t.Errorf("no bytes counted over the frame links: codec_bytes %v", got.CodecBytes)
			}
			// the render nodes took frames on their own hosts' addresses
			for i, name := range []string{"render1", "render2"} {
				if want := fmt.Sprintf("node %s joined (pid ", name); !strings.Contains(log, want) ||
					!strings.Contains(log, fmt.Sprintf("frames at %s:", c.Hosts[i+1].Addr)) {
					t.Errorf("%s did not join with frames at %s:\n%s", name, c.Hosts[i+1].Addr, log)
				}
			}
			if want := fmt.Sprintf("frames at %s:%d)", c.Hosts[1].Addr, tc.port); tc.port != 0 && !strings.Contains(log, want) {
				t.Errorf("render1 did not take frames on its connection's port, %q:\n%s", want, log)
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

// On links shaped to 100 Mbit/s, where a raw 640x360 frame takes longer
// to cross than to render, the per-link chooser sends compressed frames:
// what crosses the links under auto is at most half the raw bytes that
// --codec none sends (about a fifth here: the first frames go out before
// the link is measured, and the chooser probes other codecs). Unshaped, the
// same run matches the reference with auto (TestRunsAcrossNamespacedHosts).
func TestCodecsOnAShapedNamespacedLink(t *testing.T) {
	c := netns.New(t, 3)
	for _, h := range c.Hosts {
		if err := h.Shape(100e6); err != nil {
			t.Fatal(err)
		}
	}
	bin := binaries(t)
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", nil)
	const frames = 20
	sent := map[string]int64{}
	for _, codec := range []string{"none", "auto"} {
		cmd := c.Hosts[0].Command(filepath.Join(bin, "eqserver"), "run", "--json", "--frames", fmt.Sprint(frames), "--triangles", "20000", "--codec", codec, cfg)
		sum, _ := runSummary(t, cmd, "--codec "+codec)
		if sum.Frames != frames || sum.Degraded != 0 {
			t.Errorf("--codec %s: summary %+v", codec, sum)
		}
		for _, b := range sum.CodecBytes {
			sent[codec] += b
		}
		t.Logf("--codec %s: %.1f fps, sent %v", codec, sum.FPS, sum.CodecBytes)
	}
	if sent["none"] == 0 || float64(sent["auto"]) > 0.5*float64(sent["none"]) {
		t.Errorf("on 100 Mbit/s links auto sent %d bytes, raw frames %d: want at most half", sent["auto"], sent["none"])
	}
}

// sshHosts runs an sshd on each host but the first, with a host key and a
// client key of the test's own, and returns an ssh config that logs in
// with them.
func sshHosts(t *testing.T, c *netns.Cluster) string {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, err = os.Stat("/usr/sbin/sshd"); err != nil {
			t.Fatal("sshd is needed (make test installs openssh-server)")
		}
		sshd = "/usr/sbin/sshd"
	}
	dir := t.TempDir()
	for _, key := range []string{"hostkey", "userkey"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, key)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "userkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	for i, h := range c.Hosts[1:] {
		cfg := filepath.Join(dir, fmt.Sprintf("sshd_config.%d", i))
		os.WriteFile(cfg, []byte(fmt.Sprintf(`Port 22
ListenAddress %s
HostKey %s/hostkey
PidFile %s/sshd.%d.pid
AuthorizedKeysFile %s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
`, h.Addr, dir, dir, i, dir)), 0o600)
		cmd := h.Command(sshd, "-D", "-e", "-f", cfg)
		var log strings.Builder
		cmd.Stderr = &log
		if err := cmd.Start(); err != nil {
			t.Fatalf("sshd on %s: %v", h.Name, err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	client := filepath.Join(dir, "ssh_config")
	os.WriteFile(client, []byte(fmt.Sprintf(`Host *
  User root
  IdentityFile %s/userkey
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
  ConnectTimeout 5
`, dir)), 0o600)
	// sshd listens once it has started: wait for its port on each host
	for _, h := range c.Hosts[1:] {
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, _ := c.Hosts[0].Command("ssh", "-F", client, h.Addr, "true").CombinedOutput()
			if len(out) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no ssh login to %s: %s", h.Addr, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return client
}

// TestSSHLaunch launches the render nodes of the 2D config over ssh (key
// login to an sshd on each namespaced host, launch_command with %h, %n
// and %c): the token reaches them on stdin, so no process's command line
// and no client's environment holds it; the run renders; a client stopped
// on its host is lost; a signal to the server ends it and every remote
// client, the stopped one included.
func TestSSHLaunch(t *testing.T) {
	c := netns.New(t, 3)
	sshConfig := sshHosts(t, c)
	launched := filepath.Join(t.TempDir(), "launched")
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", func(netns.Host) string {
		return fmt.Sprintf("echo %%n >> %s && ssh -F %s %%h %%c", launched, sshConfig)
	})
	const token = "a-token-nobody-may-see-8d1c"
	srv := startServerOn(t, c.Hosts[0], append(testEnv(), "GOEQ_TOKEN="+token), "run", "--json", "--frames", "100000", "--triangles", "20000", cfg)
	srv.logged(t, "node render1 joined", 60*time.Second)
	srv.logged(t, "node render2 joined", 60*time.Second)
	time.Sleep(time.Second) // frames flow
	// the token is on no command line here, and in no render client's
	// environment
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if b, err := os.ReadFile(filepath.Join(p, "cmdline")); err == nil && strings.Contains(string(b), token) {
			t.Errorf("process %s has the token on its command line: %q", filepath.Base(p), b)
		}
	}
	clients := 0
	for _, h := range c.Hosts[1:] {
		out, _ := exec.Command("ip", "netns", "pids", h.Name).Output()
		for _, pid := range strings.Fields(string(out)) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
			if !strings.Contains(string(cmdline), "eqclient") {
				continue
			}
			clients++
			if env, err := os.ReadFile(filepath.Join("/proc", pid, "environ")); err == nil && strings.Contains(string(env), token) {
				t.Errorf("the client %s on %s has the token in its environment", pid, h.Name)
			}
		}
	}
	if clients != 2 {
		t.Errorf("%d render clients run on the ssh hosts, want 2", clients)
	}
	if b, _ := os.ReadFile(launched); string(b) != "render1\nrender2\n" && string(b) != "render2\nrender1\n" {
		t.Errorf("%%n expanded to %q", b)
	}
	// a client stopped on its host (SIGSTOP: it takes no signal but
	// SIGKILL) is lost, and was left there stopped for ever once the run
	// ended; it now ends with its ssh session
	frozen := clientPID(c.Hosts[1], "render1")
	syscall.Kill(frozen, syscall.SIGSTOP)
	srv.logged(t, "node render1 lost", 10*time.Second)
	if sum := srv.stop(t); sum.Frames < 5 {
		t.Errorf("summary %+v: want frames rendered over ssh", sum)
	}
	// every remote client ends with the server
	noClientsLeft(t, c.Hosts[1:], []string{"render1", "render2"}, 10*time.Second)
}

// unlaunchable writes 2d-lb-4 with render1 given a launch_command that
// never starts its client and a launch_timeout of 1.5 s, and the config's
// robustness set ("" leaves the default); it returns the config and the
// launcher's command, a sleep no other process on the machine runs.
func unlaunchable(t *testing.T, robustness string) (cfg, sleep string) {
	sleep = fmt.Sprintf("sleep 59.%d", os.Getpid())
	return render1On(t, "render-nowhere", `launch_command "`+sleep+`" launch_timeout 1500`, robustness), sleep
}

// render1On is 2d-lb-4.eqc with node render1 on host, with attributes,
// and the config's robustness set when given.
func render1On(t *testing.T, host, attributes, robustness string) (cfg string) {
	t.Helper()
	b, err := os.ReadFile(config("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "name \"render1\"\n        host \"localhost\"",
		"name \"render1\"\n        host \""+host+"\"\n        attributes { "+attributes+" }", 1)
	if text == string(b) {
		t.Fatal("2d-lb-4.eqc has no render1 on localhost")
	}
	if robustness != "" {
		text = strings.Replace(text, "latency 1", "latency 1\n    attributes { robustness "+robustness+" }", 1)
	}
	cfg = filepath.Join(t.TempDir(), "2d-lb-4.eqc")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestLaunchTimeout gives a node a launch_command that never starts its
// client and a launch_timeout of 1.5 s, in a config whose robustness is
// OFF: the run fails soon after, naming the node and its launch_timeout.
func TestLaunchTimeout(t *testing.T) {
	cfg, sleep := unlaunchable(t, "OFF")
	bin := binaries(t)
	start := time.Now()
	cmd := exec.Command(filepath.Join(bin, "eqserver"), "run", "--frames", "5", "--triangles", "2000", cfg)
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err == nil {
		t.Fatalf("the run succeeded without render1:\n%s", out)
	}
	want := fmt.Sprintf("node render1 did not join: its client did not connect within 1.5s, its launch_timeout; its launch_command %q for host render-nowhere is still running and has printed nothing", sleep)
	if !strings.Contains(string(out), want) {
		t.Errorf("the error does not name render1's launch_timeout and hanging launcher (want %q):\n%s", want, out)
	}
	if took > 6*time.Second {
		t.Errorf("the run took %v to give up on a 1.5 s launch_timeout", took)
	}
	if out, _ := exec.Command("pgrep", "-f", sleep).Output(); len(out) > 0 {
		t.Errorf("the launcher's sleep outlived the run: pids %s", out)
	}
}

// A launcher that fails (ssh that cannot resolve the host) is named with
// the host it launched on: an unnamed node's name does not say it (the
// sixth node of hactar.rc, node6, runs on host node1), and the failure
// read "node node6 did not join: eqclient exited (exit status 255): ssh:
// Could not resolve hostname node1".
func TestAFailedLaunchNamesItsHost(t *testing.T) {
	cfg, _ := unlaunchable(t, "OFF")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	launcher := filepath.Join(t.TempDir(), "launch.sh")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\necho cannot reach $1\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`launch_command "[^"]*"`).ReplaceAllString(string(b), `launch_command "`+launcher+` %h"`)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binaries(t), "eqserver"), "run", "--frames", "5", "--triangles", "2000", cfg)
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	want := "node render1 did not join: eqclient launched on host render-nowhere exited (exit status 255): cannot reach render-nowhere"
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("%v; want the error %q:\n%s", err, want, out)
	}
}

// A render node that does not come goes out of the run when the config's
// robustness is ON (its default), as Equalizer's config init drops it:
// the others take its part, every frame is whole and equals the
// reference's, the summary lists it lost, and its launcher is stopped.
// Before, any node that did not join failed the run.
func TestARunGoesOnWithoutARenderNodeThatDoesNotCome(t *testing.T) {
	const frames = 5
	cfg, sleep := unlaunchable(t, "")
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(binaries(t), "eqserver"), "run", "--json", "--frames", fmt.Sprint(frames), "--triangles", "20000",
		"--out", dir, "--dump-every", "1", cfg)
	sum, log := runSummary(t, cmd, "the run did not go on without render1")
	if sum.Frames != frames || sum.Degraded != 0 || len(sum.LostNodes) != 1 || sum.LostNodes[0] != "render1" {
		t.Errorf("summary: %d frames, %d degraded, lost %v; want %d whole frames and render1 lost", sum.Frames, sum.Degraded, sum.LostNodes, frames)
	}
	if want := "node render1 did not join (its client did not connect within 1.5s, its launch_timeout"; !strings.Contains(log, want) ||
		!strings.Contains(log, "the run goes on without it") {
		t.Errorf("the log does not say that the run goes on without render1 (want %q):\n%s", want, log)
	}
	if out, _ := exec.Command("pgrep", "-f", sleep).Output(); len(out) > 0 {
		t.Errorf("the launcher's sleep outlived the run: pids %s", out)
	}
	compareWithReference(t, runResult{out: dir}, cfg, frames, frames-1, 2)
}

// namespacedConfig puts a config's application node on the cluster's
// first host and render1 and render2 on the others, started by the
// launch_command launch gives for their host (nil: run in the host's
// namespace).
func namespacedConfig(t testing.TB, c *netns.Cluster, name string, launch func(netns.Host) string) string {
	t.Helper()
	b, err := os.ReadFile(config(name))
	if err != nil {
		t.Fatal(err)
	}
	if launch == nil {
		launch = func(h netns.Host) string { return h.Exec() + " %c" }
	}
	text := strings.Replace(string(b), "appNode\n    {", fmt.Sprintf("appNode\n    {\n        host %q", c.Hosts[0].Addr), 1)
	for i, node := range []string{"render1", "render2"} {
		h := c.Hosts[i+1]
		text = strings.Replace(text, fmt.Sprintf("name %q\n        host \"localhost\"", node),
			fmt.Sprintf("name %q\n        host %q\n        attributes { launch_command %q }", node, h.Addr, launch(h)), 1)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// withConnection gives node a connection block (its inside, as
// `port 4242`) in the config at path.
func withConnection(t testing.TB, path, node, connection string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("name %q", node)
	if !strings.Contains(string(text), name) {
		t.Fatalf("%s has no node %s", path, node)
	}
	withIt := strings.Replace(string(text), name, fmt.Sprintf("%s\n        connection { %s }", name, connection), 1)
	if err := os.WriteFile(path, []byte(withIt), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A node takes frames on its connection's hostname where that is an
// address of its own (a cluster's data network: here a second address
// on render1's link), on its port. A hostname that is no address of the
// node's (render2's names the server's host) is passed over with a
// warning, for the address that reaches the server.
func TestANodeTakesFramesOnItsConnectionsHostname(t *testing.T) {
	c := netns.New(t, 3)
	data := c.Hosts[1].Addr[:strings.LastIndex(c.Hosts[1].Addr, ".")] + ".111"
	if out, err := exec.Command("ip", "-n", c.Hosts[1].Name, "addr", "add", data+"/24", "dev", "eth0").CombinedOutput(); err != nil {
		t.Fatalf("a second address on %s: %v: %s", c.Hosts[1].Name, err, out)
	}
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", nil)
	withConnection(t, cfg, "render1", fmt.Sprintf("hostname %q port 24714", data))
	withConnection(t, cfg, "render2", fmt.Sprintf("hostname %q", c.Hosts[0].Addr))
	cmd := c.Hosts[0].Command(filepath.Join(binaries(t), "eqserver"), "run", "--json", "--frames", "3", "--triangles", "20000", cfg)
	sum, log := runSummary(t, cmd, "eqserver on "+c.Hosts[0].Name)
	if sum.Frames != 3 || len(sum.LostNodes) != 0 {
		t.Errorf("summary %+v", sum)
	}
	for _, want := range []string{
		"node render1 joined (pid ", fmt.Sprintf("frames at %s:24714)", data),
		fmt.Sprintf("frames at %s:", c.Hosts[2].Addr),
		fmt.Sprintf("is [%s], no address of this machine: frames come on %s", c.Hosts[0].Addr, c.Hosts[2].Addr),
	} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in the log:\n%s", want, log)
		}
	}
}

// Two nodes on one host that name one port for frames (check warns of
// them) each take a free port there and run: neither waits for the other
// to let the port go.
func TestTwoNodesOfAHostNamingOnePortTakeFreeOnes(t *testing.T) {
	c := netns.New(t, 3)
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", nil)
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// render2 on render1's host
	oneHost := strings.NewReplacer(fmt.Sprintf("host %q", c.Hosts[2].Addr), fmt.Sprintf("host %q", c.Hosts[1].Addr),
		c.Hosts[2].Exec(), c.Hosts[1].Exec()).Replace(string(text))
	if err := os.WriteFile(cfg, []byte(oneHost), 0o644); err != nil {
		t.Fatal(err)
	}
	withConnection(t, cfg, "render1", "port 24715")
	withConnection(t, cfg, "render2", "port 24715")
	cmd := c.Hosts[0].Command(filepath.Join(binaries(t), "eqserver"), "run", "--json", "--frames", "3", "--triangles", "20000", cfg)
	sum, log := runSummary(t, cmd, "eqserver on "+c.Hosts[0].Name)
	if sum.Frames != 3 || len(sum.LostNodes) != 0 || strings.Contains(log, ":24715)") ||
		strings.Count(log, fmt.Sprintf("frames at %s:", c.Hosts[1].Addr)) != 2 || !strings.Contains(log, "a port serves one process") {
		t.Errorf("summary %+v, want both nodes on %s on free ports, warned of:\n%s", sum, c.Hosts[1].Addr, log)
	}
}

// A node's frame port that another process holds a while (the node's
// client before, lost while frozen and not yet gone) is waited for: the
// node joins on it once it is free. Without the wait it failed its join
// at once, and the run went on without it.
func TestAFramePortHeldAWhileIsWaitedFor(t *testing.T) {
	c := netns.New(t, 3)
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", nil)
	const port = 24713
	withConnection(t, cfg, "render1", fmt.Sprintf("port %d", port))
	var held net.Listener
	if err := c.Hosts[1].Do(func() (err error) { held, err = net.Listen("tcp", fmt.Sprintf(":%d", port)); return err }); err != nil {
		t.Fatal(err)
	}
	release := time.AfterFunc(5*time.Second, func() { held.Close() }) // well after the client sets up
	defer release.Stop()
	defer held.Close()
	cmd := c.Hosts[0].Command(filepath.Join(binaries(t), "eqserver"), "run", "--json", "--frames", "3", "--triangles", "20000", cfg)
	sum, log := runSummary(t, cmd, "eqserver on "+c.Hosts[0].Name)
	if !strings.Contains(log, "node render1 joined (pid ") || !strings.Contains(log, fmt.Sprintf("frames at %s:%d)", c.Hosts[1].Addr, port)) {
		t.Errorf("render1 did not join on its port %d once it was free:\n%s", port, log)
	}
	if sum.Frames != 3 || len(sum.LostNodes) != 0 {
		t.Errorf("summary %+v", sum)
	}
}

// bgServer is an eqserver running in the background on a namespaced host;
// the test's cleanup kills it if it still runs.
type bgServer struct {
	cmd    *exec.Cmd
	stdout strings.Builder
	log    logging.Buffer
	exited chan error
}

// startServerOn starts eqserver with args on host h.
func startServerOn(t testing.TB, h netns.Host, env []string, args ...string) *bgServer {
	t.Helper()
	return startBackground(t, h.Command(filepath.Join(binaries(t), "eqserver"), args...), env)
}

// startTimedServerOn starts eqserver with args on host h, it and the
// clients it launches (which inherit it) at a raised priority. The tests
// that time how soon a fault is noticed use it: the namespaced hosts share
// this machine's cores with the other test packages, where real hosts have
// their own, and the 1 s bound holds on a quiet cluster (on a loaded one it
// grows with the heartbeats' gaps and the frames' times). In CI, with the
// other packages rendering beside it, a node whose link was cut was lost
// for a silence of 1.004 s: four times a gap or a frame of 251 ms.
func startTimedServerOn(t testing.TB, h netns.Host, env []string, args ...string) *bgServer {
	t.Helper()
	return startBackground(t, h.Command("nice", append([]string{"-n", "-10", filepath.Join(binaries(t), "eqserver")}, args...)...), env)
}

func startBackground(t testing.TB, cmd *exec.Cmd, env []string) *bgServer {
	t.Helper()
	s := &bgServer{cmd: cmd, exited: make(chan error, 1)}
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if ended, _ := s.ended(); !ended {
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
	return s
}

// ended reports whether eqserver has exited, and how.
func (s *bgServer) ended() (bool, error) {
	select {
	case err := <-s.exited:
		s.exited <- err
		return true, err
	default:
		return false, nil
	}
}

// waitFor polls ok until it holds and returns how long that took; it fails
// the test when eqserver ends first or bound passes.
func (s *bgServer) waitFor(t testing.TB, what string, bound time.Duration, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !ok() {
		if ended, err := s.ended(); ended {
			t.Fatalf("eqserver ended while waiting for %s: %v\n%s", what, err, s.log.String())
		}
		if time.Since(start) > bound {
			t.Fatalf("no %s within %v:\n%s", what, bound, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// logged waits for a line of eqserver's log.
func (s *bgServer) logged(t testing.TB, text string, bound time.Duration) time.Duration {
	t.Helper()
	return s.waitFor(t, fmt.Sprintf("%q in the log", text), bound, func() bool { return strings.Contains(s.log.String(), text) })
}

// exit waits for eqserver to end by itself, and returns how.
func (s *bgServer) exit(t testing.TB, bound time.Duration) error {
	t.Helper()
	select {
	case err := <-s.exited:
		s.exited <- err
		return err
	case <-time.After(bound):
		t.Fatalf("eqserver did not end within %v:\n%s", bound, s.log.String())
		return nil
	}
}

// stop ends the run with SIGTERM and returns its summary (run --json).
func (s *bgServer) stop(t testing.TB) Summary {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.exit(t, 15*time.Second)
	var sum Summary
	if err := json.Unmarshal([]byte(s.stdout.String()), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, s.stdout.String())
	}
	return sum
}

// recorded reads a statistics file: how many frames it has, the last, and
// the last that a channel whose ID starts with prefix drew in.
func recorded(path, prefix string) (frames, last, lastDrawnBy int) {
	b, _ := os.ReadFile(path)
	seen := map[int]bool{}
	last, lastDrawnBy = -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		var r struct {
			Frame   int
			Channel string
			Times   struct{ Draw int64 }
		}
		if line == "" || json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		seen[r.Frame] = true
		last = max(last, r.Frame)
		if prefix != "" && strings.HasPrefix(r.Channel, prefix) && r.Times.Draw > 0 {
			lastDrawnBy = max(lastDrawnBy, r.Frame)
		}
	}
	return len(seen), last, lastDrawnBy
}

// noClientsLeft checks that no client of the nodes runs on the hosts once
// bound has passed.
func noClientsLeft(t testing.TB, hosts []netns.Host, nodes []string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for _, h := range hosts {
		for _, node := range nodes {
			for clientPID(h, node) != 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if p := clientPID(h, node); p != 0 {
				t.Errorf("%s's client %d is left on %s", node, p, h.Name)
			}
		}
	}
}

// clientPID is the pid of a node's render client on a host, 0 if none.
func clientPID(h netns.Host, node string) int {
	out, _ := exec.Command("ip", "netns", "pids", h.Name).Output()
	for _, f := range strings.Fields(string(out)) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", f, "cmdline"))
		if strings.Contains(string(cmdline), "eqclient") && strings.Contains(string(cmdline), "--node\x00"+node+"\x00") {
			var pid int
			fmt.Sscan(f, &pid)
			return pid
		}
	}
	return 0
}

// byHand starts eqserver --no-launch on the first host, listening on its
// address (the config's server connection), and returns it with a
// function that starts a node's client by hand on a host.
func byHand(t *testing.T, c *netns.Cluster, args ...string) (*bgServer, func(h netns.Host, node string) *exec.Cmd) {
	t.Helper()
	b, err := os.ReadFile(config("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("server\n{\n    connection { hostname %q }\n%s\n}\n", c.Hosts[0].Addr, b)
	cfg := filepath.Join(t.TempDir(), "2d-lb-4.eqc")
	os.WriteFile(cfg, []byte(text), 0o644)
	env := append(testEnv(), "GOEQ_TOKEN=by-hand")
	srv := startServerOn(t, c.Hosts[0], env, append(append([]string{"run", "--no-launch", "--json"}, args...), cfg)...)
	var addr string
	srv.waitFor(t, "the control address", 20*time.Second, func() bool {
		if m := regexp.MustCompile(`control server on ([0-9.]+:[0-9]+)`).FindStringSubmatch(srv.log.String()); m != nil {
			addr = m[1]
		}
		return addr != ""
	})
	if !strings.HasPrefix(addr, c.Hosts[0].Addr+":") {
		t.Fatalf("the server listens on %s, not on the config's server connection %s", addr, c.Hosts[0].Addr)
	}
	bin := binaries(t)
	return srv, func(h netns.Host, node string) *exec.Cmd {
		cmd := h.Command(filepath.Join(bin, "eqclient"), "--server", addr, "--node", node)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &srv.log, &srv.log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
}

// TestClientsWaitOnAStoppedServerNotOnAGoneOne stops the server's process
// (SIGSTOP, as a debugger's breakpoint does) for longer than a client
// once waited on a silent server: its clients keep their work, and the run
// goes on when it is continued, losing no node. Then the server's host
// drops off the network (its link cut): every client, each on a host of
// its own, gives the server up within the kernel's bound and exits.
//
// It waits most of its 45 s, so it runs beside the corpus test (both
// parallel, after the package's other tests).
func TestClientsWaitOnAStoppedServerNotOnAGoneOne(t *testing.T) {
	t.Parallel()
	c := netns.New(t, 3)
	statsPath := filepath.Join(t.TempDir(), "stats.jsonl")
	srv, start := byHand(t, c, "--frames", "100000", "--triangles", "20000", "--stats", statsPath)
	clients := []*exec.Cmd{start(c.Hosts[1], "app"), start(c.Hosts[1], "render1"), start(c.Hosts[2], "render2")}
	last := func() int { _, l, _ := recorded(statsPath, ""); return l }
	srv.waitFor(t, "frames", 60*time.Second, func() bool { return last() >= 10 })

	syscall.Kill(srv.cmd.Process.Pid, syscall.SIGSTOP)
	time.Sleep(2 * time.Second)
	stoppedAt := last()
	time.Sleep(23 * time.Second)
	if at := last(); at != stoppedAt {
		t.Fatalf("frames went on from %d to %d while the server was stopped: not a test", stoppedAt, at)
	}
	syscall.Kill(srv.cmd.Process.Pid, syscall.SIGCONT)
	at := last()
	srv.waitFor(t, "frames after the server was continued", 20*time.Second, func() bool { return last() >= at+10 })
	if strings.Contains(srv.log.String(), " lost") || strings.Contains(srv.log.String(), "level=ERROR") {
		t.Fatalf("a stopped and continued server lost its clients:\n%s", srv.log.String())
	}

	t.Cleanup(func() { c.Hosts[0].Command("ip", "link", "set", "eth0", "up").Run() })
	if err := c.Hosts[0].Command("ip", "link", "set", "eth0", "down").Run(); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	for i, cmd := range clients {
		ended := make(chan error, 1)
		go func() { ended <- cmd.Wait() }()
		select {
		case err := <-ended:
			if err == nil {
				t.Errorf("client %d exited 0 without its server", i)
			}
		case <-time.After(40*time.Second - time.Since(cut)):
			t.Fatalf("client %d still runs %v after its server's host dropped off the network:\n%s", i, time.Since(cut).Round(time.Second), srv.log.String())
		}
	}
	t.Logf("the clients gave the server up %v after its link was cut", time.Since(cut).Round(100*time.Millisecond))
	if !strings.Contains(srv.log.String(), "connection to the server lost") {
		t.Errorf("no client said it lost the server:\n%s", srv.log.String())
	}
}

// TestKilledNodeRejoins kills render1's client (kill -9) while frames
// flow across the namespaced hosts: the server notices within a second,
// goes on with render2's sources, starts render1's client again
// (--relaunch 1), and render1 draws again soon after it rejoins; the
// summary lists it as lost and rejoined, with no degraded frame: the
// destination draws render1's parts of the frames in flight (repaired).
func TestKilledNodeRejoins(t *testing.T) {
	c := netns.New(t, 3)
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", nil)
	statsPath := filepath.Join(t.TempDir(), "stats.jsonl")
	srv := startTimedServerOn(t, c.Hosts[0], testEnv(), "run", "--json", "--frames", "100000", "--triangles", "20000",
		"--relaunch", "1", "--stats", statsPath, cfg)
	// render1's channels are n1.*: the last frame they drew in
	render1Drew := func() int { _, _, last := recorded(statsPath, "n1."); return last }
	framesSeen := func() int { n, _, _ := recorded(statsPath, ""); return n }
	srv.waitFor(t, "frames from both render nodes", 60*time.Second, func() bool { return render1Drew() >= 10 })
	pid := clientPID(c.Hosts[1], "render1")
	if pid == 0 {
		t.Fatalf("no render1 client on %s", c.Hosts[1].Name)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if took := srv.logged(t, "node render1 lost", 10*time.Second); took > time.Second {
		t.Errorf("the loss was noticed after %v, want within 1 s", took)
	}
	before := framesSeen()
	srv.logged(t, "node render1 rejoined", 30*time.Second)
	// frames went on without render1; it draws again after rejoining
	atRejoin := framesSeen()
	if atRejoin <= before {
		t.Logf("no frame completed while render1 was away (%d then %d)", before, atRejoin)
	}
	if took := srv.waitFor(t, "render1 drawing again", 10*time.Second, func() bool { return render1Drew() >= atRejoin }); took > 2*time.Second {
		t.Errorf("render1 got work again %v after it rejoined, want within 2 s", took)
	}
	if p := clientPID(c.Hosts[1], "render1"); p == 0 || p == pid {
		t.Errorf("render1's client after the relaunch: pid %d (the killed one was %d)", p, pid)
	}
	sum := srv.stop(t)
	if len(sum.LostNodes) != 1 || sum.LostNodes[0] != "render1" || len(sum.RejoinedNodes) != 1 || sum.RejoinedNodes[0] != "render1" {
		t.Errorf("lost %v, rejoined %v; want render1 in both", sum.LostNodes, sum.RejoinedNodes)
	}
	t.Logf("summary: %d frames, %d degraded, %v repaired, lost %v, rejoined %v", sum.Frames, sum.Degraded, sum.RepairedFrames, sum.LostNodes, sum.RejoinedNodes)
	if sum.Degraded != 0 {
		t.Errorf("frames %v degraded, want none: render1's parts of the frames in flight are drawn again", sum.DegradedFrames)
	}
	noClientsLeft(t, c.Hosts[1:], []string{"render1", "render2"}, 5*time.Second)
}

// TestFrozenAndCutNodes freezes render1's client (SIGSTOP) in one run and
// cuts render2's link (ip link set down) in another while frames flow
// across the namespaced hosts: each is lost within a second (four missed
// heartbeats), the run goes on with the other render node, and its
// summary lists the node as lost.
func TestFrozenAndCutNodes(t *testing.T) {
	c := netns.New(t, 3)
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", nil)
	for _, tc := range []struct {
		name, node string
		host       netns.Host
		fault      func(pid int) error
	}{
		{"frozen", "render1", c.Hosts[1], func(pid int) error { return syscall.Kill(pid, syscall.SIGSTOP) }},
		{"link down", "render2", c.Hosts[2], func(int) error {
			return c.Hosts[2].Command("ip", "link", "set", "eth0", "down").Run()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// the frozen client is killed by the server; a cut link comes
			// back for the next test
			t.Cleanup(func() { tc.host.Command("ip", "link", "set", "eth0", "up").Run() })
			statsPath := filepath.Join(t.TempDir(), "stats.jsonl")
			srv := startTimedServerOn(t, c.Hosts[0], testEnv(), "run", "--json", "--frames", "100000", "--triangles", "20000",
				"--stats", statsPath, cfg)
			last := func() int { _, l, _ := recorded(statsPath, ""); return l }
			srv.waitFor(t, "frames", 60*time.Second, func() bool { return last() >= 10 })
			pid := clientPID(tc.host, tc.node)
			if pid == 0 {
				t.Fatalf("no %s client", tc.node)
			}
			if err := tc.fault(pid); err != nil {
				t.Fatal(err)
			}
			took := srv.logged(t, "node "+tc.node+" lost", 10*time.Second)
			m := regexp.MustCompile(`node ` + tc.node + ` lost \(no heartbeat for ([0-9.]+m?s)[^)]*\)`).FindStringSubmatch(srv.log.String())
			if m == nil {
				t.Fatalf("%s was not lost for silence:\n%s", tc.node, srv.log.String())
			}
			// a fault the run survives is a warning, which a filter on
			// the level finds
			if !strings.Contains(srv.log.String(), `level=WARN msg="node `+tc.node+` lost`) {
				t.Errorf("the loss of %s is not logged as a warning:\n%s", tc.node, srv.log.String())
			}
			// the bound adapts to the gaps between a node's heartbeats: on
			// a quiet link it is four heartbeats (800 ms)
			limit, _ := time.ParseDuration(m[1])
			if limit > time.Second || took > limit+500*time.Millisecond {
				t.Errorf("%s was lost %v after the fault (%s); want within 1 s", tc.node, took, m[0])
			}
			// frames go on without it
			at := last()
			srv.waitFor(t, "frames after "+tc.node+" was lost", 10*time.Second, func() bool { return last() >= at+5 })
			sum := srv.stop(t)
			if len(sum.LostNodes) != 1 || sum.LostNodes[0] != tc.node {
				t.Errorf("lost nodes %v, want [%s]", sum.LostNodes, tc.node)
			}
			// frames wait for the silent node until it is lost; those in
			// flight then (latency 1: two) have its parts drawn by the
			// destination, and none comes out without them
			if sum.Degraded != 0 {
				t.Errorf("frames %v degraded (%v repaired), want none", sum.DegradedFrames, sum.RepairedFrames)
			}
		})
	}
}

// TestDestinationLossOverSSH kills the destination's client while the
// render nodes run over ssh: the run fails saying so, and no client is
// left on any host, the ssh-launched ones included.
func TestDestinationLossOverSSH(t *testing.T) {
	c := netns.New(t, 3)
	sshConfig := sshHosts(t, c)
	cfg := namespacedConfig(t, c, "2d-lb-4.eqc", func(netns.Host) string { return "ssh -F " + sshConfig + " %h %c" })
	srv := startServerOn(t, c.Hosts[0], testEnv(), "run", "--frames", "100000", "--triangles", "20000", cfg)
	for _, node := range []string{"app", "render1", "render2"} {
		srv.logged(t, "node "+node+" joined", 60*time.Second)
	}
	time.Sleep(500 * time.Millisecond)
	app := clientPID(c.Hosts[0], "app")
	if app == 0 {
		t.Fatal("no app client")
	}
	syscall.Kill(app, syscall.SIGKILL)
	if err := srv.exit(t, 20*time.Second); err == nil {
		t.Fatal("the run succeeded without its destination")
	}
	if !strings.Contains(srv.log.String(), "shows the destination") {
		t.Errorf("the error does not say the destination's node was lost:\n%s", srv.log.String())
	}
	noClientsLeft(t, c.Hosts, []string{"app", "render1", "render2"}, 10*time.Second)
}

// TestRejoinByHand runs with --no-launch and clients started by hand on
// the namespaced hosts; render2's client is killed and started again by
// hand, and render2 rejoins and draws again. Then render1's client is
// stopped (SIGSTOP) until it is lost and continued: the server tells it
// the run went on without it, it ends saying so (it used to wait for
// work for ever), and started again by hand it rejoins too.
func TestRejoinByHand(t *testing.T) {
	c := netns.New(t, 3)
	srv, start := byHand(t, c, "--frames", "100000", "--triangles", "20000")
	start(c.Hosts[0], "app")
	render1 := start(c.Hosts[1], "render1")
	render2 := start(c.Hosts[2], "render2")
	srv.logged(t, "node render2 joined", 30*time.Second)
	time.Sleep(time.Second)
	// ip netns exec runs the client in its place: kill it, not the
	// wrapper only
	if pid := clientPID(c.Hosts[2], "render2"); pid != 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	render2.Wait()
	srv.logged(t, "node render2 lost", 30*time.Second)
	start(c.Hosts[2], "render2")
	srv.logged(t, "node render2 rejoined", 30*time.Second)
	time.Sleep(time.Second)
	pid := clientPID(c.Hosts[1], "render1")
	if pid == 0 {
		t.Fatal("no client process for render1")
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	srv.logged(t, "node render1 lost", 30*time.Second)
	syscall.Kill(pid, syscall.SIGCONT)
	ended := make(chan error, 1)
	go func() { ended <- render1.Wait() }()
	select {
	case err := <-ended:
		if err == nil {
			t.Errorf("render1's client, dropped, exited 0")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("render1's client, stopped until lost and continued, still runs 30 s later")
	}
	srv.logged(t, "the server went on without this node", 10*time.Second)
	start(c.Hosts[1], "render1")
	srv.logged(t, "node render1 rejoined", 30*time.Second)
	time.Sleep(time.Second)
	sum := srv.stop(t)
	if strings.Join(sum.RejoinedNodes, " ") != "render2 render1" {
		t.Errorf("rejoined %v, want [render2 render1]", sum.RejoinedNodes)
	}
	// render2's sources drew in the last frames
	drew := false
	for _, ch := range sum.Channels {
		if (ch.Channel == "src3" || ch.Channel == "src4") && ch.Draw > 0 {
			drew = true
		}
	}
	if !drew {
		t.Errorf("render2's channels never drew: %+v", sum.Channels)
	}
}
