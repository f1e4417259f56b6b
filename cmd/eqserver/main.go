// Command eqserver is goeq's server. It reads Equalizer .eqc configurations:
//
//	eqserver check FILE...          validate; one file:line:col: message per error
//	eqserver fmt FILE               print the canonical form of FILE
//	eqserver explain [--json] FILE  print the resolved model
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"goeq/compound"
	"goeq/configparser"
)

const usage = `usage:
  eqserver check FILE...             exit 0 when every file is valid; otherwise print
                                     one file:line:col: message per error and exit 1
  eqserver fmt FILE                  print FILE in canonical form on stdout
  eqserver explain [--json] FILE     print the resolved model: every compound with its
                                     inherited values, frames and equalizers
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
	var list configparser.ErrorList
	if errors.As(err, &list) {
		for _, d := range list {
			fmt.Fprintln(stderr, d.String())
		}
		return
	}
	fmt.Fprintf(stderr, "eqserver: %v\n", err)
}

func warn(stderr io.Writer, res *configparser.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "%s:%d:%d: warning: %s\n", w.Pos.Filename, w.Pos.Line, w.Pos.Column, w.Msg)
	}
}

func check(files []string, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprint(stderr, "eqserver check: no files given\n"+usage)
		return 2
	}
	status := 0
	for _, f := range files {
		_, res, err := compound.Load(f, compound.Options{})
		warn(stderr, res)
		if err != nil {
			report(stderr, err)
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
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "eqserver %s: exactly one FILE expected\n%s", cmd, usage)
		return "", false
	}
	return fs.Arg(0), true
}

func format(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	file, ok := oneFile("fmt", fs, args, stderr)
	if !ok {
		return 2
	}
	res, err := configparser.ParseFile(file)
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
	m, res, err := compound.Load(file, compound.Options{})
	warn(stderr, res)
	if err != nil {
		report(stderr, err)
		return 1
	}
	e := compound.Explain(m)
	w := bufio.NewWriter(stdout)
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
