// goeq-balancelive runs the live balance experiments of `make
// balance-live`: real `eqserver run` renders of the load-balanced example
// configs under Equalizer's and goeq's adaptive policy, with competing load
// switched on and off the way Siegell and Steenkiste's study adds it: a CPU
// hog of its own pinned to one render node's core. Both policies run the
// same schedules; the recorded statistics are also replayed through both
// policies. It writes docs/balance-live.md and its plots; with -repeat N
// it runs N rounds of both policies on each schedule instead, and prints
// how they compare (see runRounds), with the hog on the first render
// node's core in every other round where -alternate-hog asks.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/stats"
)

// experiment is one config rendered one way.
type experiment struct {
	Label    string
	Config   string // path below the repository
	Renderer string
	Args     []string // more eqserver run flags
}

var experiments = []experiment{
	// 256 iterations per pixel: frames of ~80 ms here, long enough that
	// the operating system's scheduling is not most of a source's time
	{"2D, synthetic renderer", "examples/configs/2d-lb-4.eqc", "synthetic", []string{"--iterations", "256"}},
	{"2D, mesh", "examples/configs/2d-lb-4.eqc", "mesh", nil},
	{"DB, mesh", "examples/configs/db-lb-4.eqc", "mesh", nil},
}

// schedule switches the competing load: on for Period seconds, off for
// Period seconds, and so on (a step: off until Step, then on to the end).
type schedule struct {
	Name     string
	Period   float64
	Step     float64
	Duration float64
}

func (s schedule) on(t float64) bool {
	if s.Step > 0 {
		return t >= s.Step
	}
	return int(t/s.Period)%2 == 1
}

// changes are the times the load switches.
func (s schedule) changes() []float64 {
	if s.Step > 0 {
		return []float64{s.Step}
	}
	if s.Period <= 0 {
		return nil // no competing load
	}
	var out []float64
	for t := s.Period; t < s.Duration; t += s.Period {
		out = append(out, t)
	}
	return out
}

var schedules = []schedule{
	{Name: "every 2 s", Period: 2, Duration: 20},
	{Name: "every 10 s", Period: 10, Duration: 40},
	{Name: "every 30 s", Period: 30, Duration: 90},
	{Name: "step at 10 s", Step: 10, Duration: 40},
}

func main() {
	docs := flag.String("docs", "docs", "where balance-live.md and its plots go")
	quick := flag.Float64("scale", 1, "scale every schedule's times (a smaller value for a quick look)")
	only := flag.String("only", "", "run only the experiments whose label contains this")
	keep := flag.String("keep", "", "keep every run's config, log and statistics in this folder")
	hog := flag.Bool("hog", false, "be the CPU hog: spin until killed")
	repeat := flag.Int("repeat", 0, "run this many rounds of both policies on each schedule and print their comparison, instead of the report")
	onlySchedule := flag.String("schedule", "", "run only the schedules whose name contains this (with -repeat)")
	against := flag.String("against", "", "with -repeat: a folder with another build's eqserver and eqclient (a change's baseline), whose adaptive policy runs in every round too and is compared with this build's")
	alternate := flag.Bool("alternate-hog", false, "with -repeat: put the hog on the first render node's core in every other round (the last one's in the others): the two nodes do not share the machine alike, and a comparison should not rest on one")
	flag.Parse()
	if *hog {
		spin()
	}
	for i := range schedules {
		schedules[i].Period *= *quick
		schedules[i].Step *= *quick
		schedules[i].Duration *= *quick
	}
	if *only != "" {
		var kept []experiment
		for _, e := range experiments {
			if strings.Contains(e.Label, *only) {
				kept = append(kept, e)
			}
		}
		experiments = kept
	}
	if *onlySchedule != "" {
		if *repeat <= 0 {
			fmt.Fprintln(os.Stderr, "goeq-balancelive: -schedule is for -repeat: the report runs every schedule")
			os.Exit(2)
		}
		var kept []schedule
		for _, sc := range schedules {
			if strings.Contains(sc.Name, *onlySchedule) {
				kept = append(kept, sc)
			}
		}
		schedules = kept
	}
	if (*against != "" || *alternate) && *repeat <= 0 {
		fmt.Fprintln(os.Stderr, "goeq-balancelive: -against and -alternate-hog are for -repeat")
		os.Exit(2)
	}
	if len(experiments) == 0 || len(schedules) == 0 {
		fmt.Fprintln(os.Stderr, "goeq-balancelive: -only or -schedule leaves nothing to run")
		os.Exit(2)
	}
	if err := run(*docs, *quick, *keep, *repeat, *against, *alternate); err != nil {
		fmt.Fprintf(os.Stderr, "goeq-balancelive: %v\n", err)
		os.Exit(1)
	}
}

// spin is the competing load: a busy loop of the project's own.
func spin() {
	x := 1.0
	for {
		for i := 0; i < 1e7; i++ {
			x = x*1.0000001 + 1e-9
		}
		if x < 0 {
			fmt.Println(x)
		}
	}
}

func run(docs string, scale float64, keep string, repeat int, against string, alternate bool) error {
	bin, err := binDir()
	if err != nil {
		return err
	}
	if against != "" {
		if err := hasBinaries(against); err != nil {
			return fmt.Errorf("-against: %w", err)
		}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return errors.New("taskset (util-linux) is needed to pin the render clients and the hog to cores")
	}
	if runtime.NumCPU() < 2 {
		return errors.New("needs at least 2 cores: one render node and the hog share one, the other node has the other")
	}
	work := keep
	if work == "" {
		if work, err = os.MkdirTemp("", "goeq-balancelive-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if repeat > 0 {
		if err := runRounds(bin, against, work, repeat, alternate, os.Stdout); err != nil {
			return err
		}
		if keep != "" {
			return nil
		}
		return os.RemoveAll(work)
	}
	var results []*caseResult
	for _, ex := range experiments {
		cr := &caseResult{Experiment: ex}
		for _, sc := range schedules {
			// Equalizer's policy runs again after goeq's: the two runs of
			// one policy show how far identical runs differ on this
			// machine, which a difference between the policies must exceed
			for i, pol := range append(simulate.Policies, "equalizer") {
				fmt.Fprintf(os.Stderr, "%s, %s, %s ...\n", ex.Label, sc.Name, pol)
				r, err := runOnce(bin, work, ex, sc, pol, false)
				if err != nil {
					// the logs stay for a look
					return fmt.Errorf("%s, %s, %s: %w", ex.Label, sc.Name, pol, err)
				}
				r.Again = i >= len(simulate.Policies)
				cr.Runs = append(cr.Runs, r)
			}
		}
		results = append(results, cr)
	}
	if err := writeReport(docs, scale, results); err != nil {
		return err
	}
	if keep != "" {
		return nil
	}
	return os.RemoveAll(work)
}

func binDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(exe)
	if err := hasBinaries(dir); err != nil {
		return "", fmt.Errorf("%w (make build)", err)
	}
	return dir, nil
}

// hasBinaries tells whether dir holds the server and client a run starts.
func hasBinaries(dir string) error {
	for _, b := range []string{"eqserver", "eqclient"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return fmt.Errorf("no %s in %s", b, dir)
		}
	}
	return nil
}

// withPolicy is the config's text with the load equalizer under a policy.
var loadEqualizer = regexp.MustCompile(`(load_equalizer\s*\{)`)

func withPolicy(text, policy string) string {
	if policy != "adaptive" {
		return text
	}
	return loadEqualizer.ReplaceAllString(text, "$1 adaptive ON")
}

// frame is one completed frame of a live run.
type frame struct {
	Completed float64 // seconds since the first frame started
	Busy      []float64
	// Node is each source's render node, pinned to a core of its own
	// that its sources share
	Node []string
	// Share is each source's part of the frame: its viewport's area times
	// its range
	Share   []float64
	Balance []planner.BalanceState
	Loaded  bool // the hog ran when the frame completed
	// Started is when the frame's tasks were sent, and Done when each
	// source's node reported it done (seconds since the first frame
	// started)
	Started float64
	Done    []float64
}

// renderers are the busy times of what ran in parallel: a node's sources
// share its core, and count as one (see stats.ByRenderer); their
// statistics name a software rasterizer each.
func (f frame) renderers() []float64 { return stats.ByRenderer(f.Node, f.Busy) }

// slowest and total are the largest and summed busy times.
func slowest(busy []float64) float64 {
	worst := 0.0
	for _, b := range busy {
		worst = math.Max(worst, b)
	}
	return worst
}

func total(busy []float64) float64 {
	sum := 0.0
	for _, b := range busy {
		sum += b
	}
	return sum
}

// imbalance is the slowest busy time over the mean (1 when nothing was
// measured).
func imbalance(busy []float64) float64 {
	if sum := total(busy); sum > 0 {
		return slowest(busy) / (sum / float64(len(busy)))
	}
	return 1
}

type runResult struct {
	Schedule schedule
	Policy   string
	Again    bool // the policy's second run on the schedule
	Frames   []frame
	Spans    [][2]float64 // hog on, in the frames' time
	Hogged   []bool       // of each source: on the render node whose core the hog shares
	Records  []stats.Record
	Config   *compound.Config
	Name     string
}

type caseResult struct {
	Experiment experiment
	Runs       []*runResult
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// runOnce runs one policy on a schedule; the hog shares the core of the
// last render node pinned, or of the first with hogFirst.
func runOnce(bin, work string, ex experiment, sc schedule, policy string, hogFirst bool) (*runResult, error) {
	text, err := os.ReadFile(ex.Config)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(work, fmt.Sprintf("%s-%s-%s-", strings.Fields(ex.Label)[0], strings.ReplaceAll(sc.Name, " ", ""), policy))
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, filepath.Base(ex.Config))
	if err := os.WriteFile(cfgPath, []byte(withPolicy(string(text), policy)), 0o644); err != nil {
		return nil, err
	}
	model, _, err := compound.Load(cfgPath, compound.Options{})
	if err != nil {
		return nil, err
	}
	cfg := model.Configs[0]
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	tok := make([]byte, 16)
	rand.Read(tok)
	env := append(withoutDisplay(os.Environ()), "GOEQ_TOKEN="+hex.EncodeToString(tok))
	statsPath := filepath.Join(dir, "stats.jsonl")
	logFile, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := append([]string{"run", "--no-launch", "--listen", addr, "--renderer", ex.Renderer, "--frames", "1000000", "--stats", statsPath}, ex.Args...)
	server := exec.Command(filepath.Join(bin, "eqserver"), append(args, cfgPath)...)
	server.Env, server.Stdout, server.Stderr = env, logFile, logFile
	if err := server.Start(); err != nil {
		return nil, err
	}
	serverDone := make(chan error, 1)
	go func() { serverDone <- server.Wait() }()
	// clients give up on a refused connection: wait for the control port
	for up := time.Now().Add(30 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(up) {
			server.Process.Kill()
			return nil, fmt.Errorf("the server did not listen on %s within 30 s; see %s", addr, logFile.Name())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var procs []*exec.Cmd
	stopAll := func() {
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	}
	defer stopAll()
	// render nodes on alternate cores; the application node (destination)
	// and the server where the kernel puts them
	core, hogCore := 0, 0
	var hoggedNode string
	for _, n := range cfg.Nodes {
		args := []string{filepath.Join(bin, "eqclient"), "--server", addr, "--node", n.ID}
		if !n.App {
			args = append([]string{"taskset", "-c", fmt.Sprint(core % 2)}, args...)
			if hoggedNode == "" || !hogFirst {
				hoggedNode, hogCore = n.ID, core%2
			}
			core++
		}
		c := exec.Command(args[0], args[1:]...)
		c.Env, c.Stdout, c.Stderr = env, logFile, logFile
		if err := c.Start(); err != nil {
			return nil, err
		}
		procs = append(procs, c)
	}
	// the schedule starts with the first frame
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fi, err := os.Stat(statsPath); err == nil && fi.Size() > 0 {
			break
		}
		select {
		case err := <-serverDone:
			return nil, fmt.Errorf("the server ended before the first frame (%v); see %s", err, logFile.Name())
		default:
		}
		if time.Now().After(deadline) {
			server.Process.Kill()
			return nil, fmt.Errorf("no frame within 60 s; see %s", logFile.Name())
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	hog := exec.Command("taskset", "-c", fmt.Sprint(hogCore), self, "-hog")
	if err := hog.Start(); err != nil {
		return nil, err
	}
	hog.Process.Signal(syscall.SIGSTOP)
	procs = append(procs, hog)
	var spans [][2]float64
	on := false
	for {
		t := time.Since(start).Seconds()
		if t >= sc.Duration {
			break
		}
		if want := sc.on(t); want != on {
			on = want
			if on {
				hog.Process.Signal(syscall.SIGCONT)
				spans = append(spans, [2]float64{t, sc.Duration})
			} else {
				hog.Process.Signal(syscall.SIGSTOP)
				spans[len(spans)-1][1] = t
			}
		}
		select {
		case err := <-serverDone:
			return nil, fmt.Errorf("the server ended during the run (%v); see %s", err, logFile.Name())
		case <-time.After(20 * time.Millisecond):
		}
	}
	hog.Process.Kill()
	server.Process.Signal(syscall.SIGTERM)
	select {
	case <-serverDone:
	case <-time.After(15 * time.Second):
		server.Process.Kill()
		<-serverDone
	}
	frames, records, err := readRun(statsPath, cfg)
	if err != nil {
		return nil, err
	}
	if len(frames) < 10 {
		return nil, fmt.Errorf("only %d frames; see %s", len(frames), logFile.Name())
	}
	// the schedule's clock started when the first frame was seen
	offset := frames[0].Completed
	for i := range spans {
		spans[i][0] += offset
		spans[i][1] += offset
	}
	for i := range frames {
		for _, s := range spans {
			if frames[i].Completed >= s[0] && frames[i].Completed < s[1] {
				frames[i].Loaded = true
			}
		}
	}
	_, children := simulate.Balanced(cfg)
	hogged := make([]bool, len(children))
	for i, ch := range children {
		hogged[i] = ch.Channel != nil && ch.Channel.Window.Pipe.Node.ID == hoggedNode
	}
	return &runResult{Schedule: sc, Policy: policy, Frames: frames, Spans: spans, Hogged: hogged, Records: records, Config: cfg, Name: filepath.Base(ex.Config)}, nil
}

func withoutDisplay(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "DISPLAY=") && !strings.HasPrefix(e, "GOEQ_TOKEN=") {
			out = append(out, e)
		}
	}
	return out
}

// line is a statistics line as eqserver writes it.
type line struct {
	stats.Record
	Completed float64                `json:"completed_s"`
	Started   float64                `json:"started_s"`
	Done      float64                `json:"done_s"`
	Balance   []planner.BalanceState `json:"balance"`
}

// readRun reads the statistics: the sources' busy times per frame, in
// frame order.
func readRun(path string, cfg *compound.Config) ([]frame, []stats.Record, error) {
	sources := map[string]int{}
	_, children := simulate.Balanced(cfg)
	nodes := make([]string, len(children))
	for i, ch := range children {
		sources[ch.Path()] = i
		if ch.Channel != nil {
			nodes[i] = ch.Channel.Window.Pipe.Node.ID
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	byFrame := map[int]*frame{}
	var records []stats.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, nil, err
		}
		records = append(records, l.Record)
		fr := byFrame[l.Frame]
		if fr == nil {
			fr = &frame{Busy: make([]float64, len(sources)), Node: make([]string, len(sources)), Share: make([]float64, len(sources)),
				Done: make([]float64, len(sources))}
			byFrame[l.Frame] = fr
		}
		fr.Completed = math.Max(fr.Completed, l.Completed)
		fr.Started = l.Started
		if l.Balance != nil {
			fr.Balance = l.Balance
		}
		if i, ok := sources[l.Compound]; ok {
			fr.Busy[i] += l.Times.Busy().Seconds()
			fr.Node[i] = nodes[i]
			fr.Share[i] = l.Viewport.W * l.Viewport.H * (l.Range.End - l.Range.Start)
			fr.Done[i] = l.Done
		}
	}
	var nums []int
	for n := range byFrame {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	out := make([]frame, 0, len(nums))
	for _, n := range nums {
		out = append(out, *byFrame[n])
	}
	return out, records, sc.Err()
}
