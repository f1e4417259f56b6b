// Command eqserver is goeq's server. It reads Equalizer .eqc configurations:
//
//	eqserver check FILE...          validate; one file:line:col: message per error
//	eqserver fmt FILE               print the canonical form of FILE
//	eqserver explain [--json] FILE  print the resolved model
//
// Each reads standard input for the FILE "-".
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/simulate"
)

const usage = `usage:
  eqserver check FILE...             exit 0 when every file is valid; otherwise print
                                     one file:line:col: message per error and exit 1
  eqserver fmt FILE                  print FILE in canonical form on stdout
  eqserver explain [--json] FILE     print the resolved model: every compound with its
                                     inherited values, frames and equalizers
                                     (check, fmt and explain read standard input for -)
  eqserver simulate --config FILE --scenario NAME [--frames N] [--policy equalizer|adaptive] [--layout L] [--json]
                                     run the planner and equalizers on a synthetic workload
  eqserver run [--local] [--frames N] [--out DIR] [--stats FILE] [--renderer mesh|volume|synthetic] [CONFIG]
  eqserver run --app ADDR [--local] [--stats FILE] [CONFIG]   (an application drives the run)
                                     render CONFIG across eqclient processes; without
                                     CONFIG, or with a name that is no file and not a
                                     .eqc (a session), on a config made for this
                                     machine's GPUs, saved as SESSION.auto.eqc
                                     (local.auto.eqc)
  eqserver verify [--frames N] [--layout L] [--keep DIR] CONFIG
                                     run CONFIG decomposed and as its reference (each
                                     destination renders its whole frame) and compare
                                     every picture: exit 1, saying where, when any differs
  eqserver simulate --report DIR [--configs DIR]
                                     every scenario, both policies: DIR/balance.md and plots
  eqserver replay --config FILE [--policy equalizer|adaptive] [--compound PATH] [--json] STATS.jsonl
                                     how each policy would have balanced a recorded run
                                     (run --stats) of FILE
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "check":
		return check(args[1:], stderr)
	case "fmt":
		return format(args[1:], stdout, stderr)
	case "explain":
		return explain(args[1:], stdout, stderr)
	case "simulate":
		return simulateCmd(args[1:], stdout, stderr)
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "replay":
		return replayCmd(args[1:], stdout, stderr)
	case "verify":
		return verifyCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "eqserver: unknown command %q\n%s", args[0], usage)
	return 2
}

// report prints an error: a config error as file:line:col lines, anything
// else (a missing file) as one line.
func report(stderr io.Writer, err error) {
	for _, line := range errorLines(err) {
		fmt.Fprintln(stderr, line)
	}
}

// errorLines is what err says: a file:line:col line for each of a
// config's errors, else one line.
func errorLines(err error) []string {
	var list configparser.ErrorList
	if !errors.As(err, &list) {
		return []string{"eqserver: " + err.Error()}
	}
	lines := make([]string, len(list))
	for i, d := range list {
		lines[i] = d.String()
	}
	return lines
}

func warn(stderr io.Writer, res *configparser.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "%s:%d:%d: warning: %s\n", w.Pos.Filename, w.Pos.Line, w.Pos.Column, w.Msg)
	}
}

// stdin is what the FILE "-" reads (a test sets it).
var stdin io.Reader = os.Stdin

// stdinName names standard input, the FILE "-", in messages.
const stdinName = "<stdin>"

// readConfig reads the text of a config FILE as check, fmt and explain
// take it: standard input where it is "-" (eqserver fmt - < x.eqc), as
// gofmt's. name is what messages call it.
func readConfig(file string) (name string, src []byte, err error) {
	if file == "-" {
		src, err = configparser.Read(stdinName, stdin)
		return stdinName, src, err
	}
	src, err = configparser.ReadFile(file)
	return file, src, err
}

// load reads a config, printing its warnings, and its errors as
// file:line:col lines; nil when it has errors.
func load(file string, stderr io.Writer) *compound.Model {
	name, src, err := readConfig(file)
	if err != nil {
		report(stderr, err)
		return nil
	}
	m, res, err := compound.LoadText(name, src, compound.Options{})
	if err == nil {
		var stuck []planner.Switch
		stuck, err = planner.CheckOrder(m.Configs[0])
		for _, s := range stuck {
			res.Warnings = append(res.Warnings, s.Warning)
		}
	}
	warn(stderr, res)
	if err != nil {
		report(stderr, err)
		return nil
	}
	return m
}

func check(files []string, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprint(stderr, "eqserver check: no files given\n"+usage)
		return 2
	}
	for _, f := range files {
		if isFlag(f) {
			fmt.Fprintf(stderr, "eqserver check: %s: check takes no flags, only files (- for standard input)\n", f)
			return 2
		}
	}
	status := 0
	for _, f := range files {
		if load(f, stderr) == nil {
			status = 1
		}
	}
	return status
}

func oneFile(cmd string, fs *flag.FlagSet, args []string, stderr io.Writer) (string, bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return "", false
	}
	if lateFlag(cmd, fs, stderr) {
		return "", false
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "eqserver %s: exactly one FILE expected\n%s", cmd, usage)
		return "", false
	}
	return fs.Arg(0), true
}

// isFlag reports whether an argument is a flag: "-" alone is standard
// input.
func isFlag(arg string) bool { return strings.HasPrefix(arg, "-") && arg != "-" }

// lateFlag says so where a flag follows the arguments: flag parsing stops
// at the first argument, and the flags after it would go unread.
func lateFlag(cmd string, fs *flag.FlagSet, stderr io.Writer) bool {
	for _, a := range fs.Args()[min(1, fs.NArg()):] {
		if isFlag(a) {
			fmt.Fprintf(stderr, "eqserver %s: %s after %s: flags go before the arguments\n", cmd, a, fs.Arg(0))
			return true
		}
	}
	return false
}

func format(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	file, ok := oneFile("fmt", fs, args, stderr)
	if !ok {
		return 2
	}
	name, src, err := readConfig(file)
	if err != nil {
		report(stderr, err)
		return 1
	}
	res, err := configparser.Parse(name, src)
	if err != nil {
		report(stderr, err)
		return 1
	}
	warn(stderr, res)
	w := bufio.NewWriter(stdout)
	w.Write(configparser.Format(res))
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "eqserver fmt: %v\n", err)
		return 1
	}
	return 0
}

func explain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	file, ok := oneFile("explain", fs, args, stderr)
	if !ok {
		return 2
	}
	m := load(file, stderr)
	if m == nil {
		return 1
	}
	e := compound.Explain(m)
	w := bufio.NewWriter(stdout)
	var err error
	if *asJSON {
		err = e.WriteJSON(w)
	} else {
		err = e.WriteText(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "eqserver explain: %v\n", err)
		return 1
	}
	return 0
}

func simulateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "the .eqc config to balance")
	scenario := fs.String("scenario", "", "workload: "+strings.Join(simulate.ScenarioNames(), ", "))
	frames := fs.Int("frames", 300, "frames to simulate")
	policy := fs.String("policy", "equalizer", "equalizer (Equalizer's) or adaptive (goeq's)")
	layout := fs.String("layout", "", "the layout to show, by name or index: its load-balanced compound is balanced (default: the first load-balanced compound the config shows as it starts, else the first in any layout)")
	asJSON := fs.Bool("json", false, "print one JSON summary")
	reportDir := fs.String("report", "", "write balance.md and plots for every scenario into this folder")
	configs := fs.String("configs", "examples/configs", "with --report: the folder of goeq's example configs, which the report runs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eqserver simulate: %q: it takes flags alone (a config is --config FILE), and none after it was read\n", fs.Arg(0))
		return 2
	}
	// the simulator's live heap is a few MB of plans; collecting it at
	// four times that, not twice, spent 15% less CPU on the report
	debug.SetGCPercent(400)
	if *frames < 1 || *frames > simulate.MaxFrames {
		fmt.Fprintf(stderr, "eqserver simulate: --frames %d: want 1 to %d\n", *frames, simulate.MaxFrames)
		return 2
	}
	load := func(path string) (*compound.Config, error) {
		m, res, err := compound.Load(path, compound.Options{})
		warn(stderr, res)
		if err != nil {
			return nil, err
		}
		return m.Configs[0], nil
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *reportDir != "" {
		for _, name := range []string{"config", "scenario", "policy", "json", "layout"} {
			if set[name] {
				fmt.Fprintf(stderr, "eqserver simulate: --%s goes without --report, which runs every scenario and policy on the configs in --configs\n", name)
				return 2
			}
		}
		for _, name := range simulate.ReportConfigs {
			if _, err := os.Stat(filepath.Join(*configs, name)); err != nil {
				fmt.Fprintf(stderr, "eqserver simulate: --report runs goeq's example configs (examples/configs in its source): --configs %s: %v\n", *configs, err)
				return 1
			}
		}
		if err := os.MkdirAll(*reportDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "eqserver simulate: %v\n", err)
			return 1
		}
		if err := simulate.Report(*configs, *reportDir, *frames, load); err != nil {
			report(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*reportDir, "balance.md"))
		return 0
	}
	if set["configs"] {
		fmt.Fprint(stderr, "eqserver simulate: --configs goes with --report\n")
		return 2
	}
	if *config == "" || *scenario == "" {
		fmt.Fprint(stderr, "eqserver simulate: --config and --scenario are required\n"+usage)
		return 2
	}
	cfg, err := load(*config)
	if err != nil {
		report(stderr, err)
		return 1
	}
	sum, err := simulate.Run(cfg, filepath.Base(*config), simulate.Options{Scenario: *scenario, Frames: *frames, Policy: *policy, Layout: *layout})
	if err != nil {
		fmt.Fprintf(stderr, "eqserver simulate: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s, scenario %s, policy %s, %d frames\n", sum.Config, sum.Scenario, sum.Policy, sum.Frames)
	fmt.Fprintf(stdout, "frame time  mean %.2f ms  p95 %.2f ms  p99 %.2f ms\n", 1000*sum.FrameTimeMean, 1000*sum.FrameTimeP95, 1000*sum.FrameTimeP99)
	fmt.Fprintf(stdout, "imbalance   %.3f (max/mean source time)   efficiency %.3f\n", sum.ImbalanceMean, sum.Efficiency)
	fmt.Fprintf(stdout, "converge    %d frames   jitter %.3f%%   data moved %.4f per frame\n", sum.ConvergeFrames, sum.JitterPct, sum.DataMoved)
	return 0
}

func replayCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "the .eqc config the run was recorded with")
	policy := fs.String("policy", "", "equalizer (Equalizer's) or adaptive (goeq's); default both")
	compoundPath := fs.String("compound", "", "the load-balanced compound to replay, by its path (as explain prints it); default the one the statistics have most records of")
	asJSON := fs.Bool("json", false, "print the summaries as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if lateFlag("replay", fs, stderr) {
		return 2
	}
	if *config == "" || fs.NArg() != 1 {
		fmt.Fprint(stderr, "eqserver replay: --config and one STATS.jsonl are required\n"+usage)
		return 2
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "eqserver replay: %v\n", err)
		return 1
	}
	recorded, cut, err := simulate.ReadStats(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "eqserver replay: %s: %v\n", fs.Arg(0), err)
		return 1
	}
	if cut != "" {
		fmt.Fprintf(stderr, "eqserver replay: %s: warning: %s\n", fs.Arg(0), cut)
	}
	policies := []string{"equalizer", "adaptive"}
	if *policy != "" {
		policies = []string{*policy}
	}
	var sums []*simulate.Summary
	for i, pol := range policies {
		// a model per policy (the replay sets its equalizers' policy),
		// its warnings said once
		warnings := stderr
		if i > 0 {
			warnings = io.Discard
		}
		m := load(*config, warnings)
		if m == nil {
			return 1
		}
		sum, _, err := simulate.ReplayCompound(m.Configs[0], filepath.Base(*config), recorded, pol, *compoundPath)
		if err != nil {
			fmt.Fprintf(stderr, "eqserver replay: %v\n", err)
			return 1
		}
		sums = append(sums, sum)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sums); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s: %d recorded frames of %s's compound %s replayed\n", fs.Arg(0), sums[0].Frames, filepath.Base(*config), sums[0].Compound)
	for _, other := range sums[0].AlsoRecorded {
		fmt.Fprintf(stdout, "(the statistics also have compound %s: --compound %s replays it)\n", other, other)
	}
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, simulate.TableHeader)
	for _, s := range sums {
		fmt.Fprint(stdout, s.TableRow())
	}
	return 0
}
