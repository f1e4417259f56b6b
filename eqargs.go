package goeq

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/logging"
)

// Equalizer's library options: Equalizer takes them from the command
// line of every application (eqPly --eq-config wall.eqc --eq-layout
// Simple), and users' scripts pass them so. A goeq application takes them
// too: Init takes them out of os.Args, so that the application's own
// flags parse without them, and Start applies them over its Options.
type equalizerArgs struct {
	config, layout, server, logfile string
	modelUnit                       float64
}

// eqArgs are those Init found.
var eqArgs equalizerArgs

// equalizerHelp is what --eq-help prints.
const equalizerHelp = `Equalizer's options, which a goeq application takes as well:
  --eq-config FILE       the configuration (.eqc), over the one the application chooses;
                         a name that is no file and not a .eqc (eqPly --eq-config local)
                         is a session, as Equalizer takes it: a config made for this
                         machine, saved as NAME.auto.eqc
  --eq-layout NAME       the layout to start with on the canvases that have it:
                         its name, or its index in the config for an unnamed one
  --eq-server HOST:PORT  the application address of a running eqserver
                         (eqserver run --app HOST:PORT): it runs its own config
  --eq-logfile FILE      append the run's log to FILE (render clients log to
                         standard error)
  --eq-modelunit UNIT    every view's model unit: how many of the model's units
                         make a metre of the display (1000 for millimetres)
  --eq-help              this help
Equalizer's --eq-config-flags, --eq-config-prefixes, --eq-render-client,
--eq-gpufilter and --eq-client are taken and ignored, with a warning.
`

// ignoredEqualizerArgs are Equalizer's options goeq has no use for, with
// how many values each takes (-1: all up to the next option).
var ignoredEqualizerArgs = map[string]int{
	"eq-config-flags": -1, "eq-config-prefixes": -1,
	"eq-render-client": 1, "eq-gpufilter": 1, "eq-client": 0,
}

// takeEqualizerArgs returns args (a command line after the program's
// name) without Equalizer's options, and the options: --eq-NAME VALUE or
// --eq-NAME=VALUE, up to a "--". help is whether --eq-help was there.
func takeEqualizerArgs(args []string) (rest []string, found equalizerArgs, help bool, warnings []string, err error) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(rest, args[i:]...), found, help, warnings, nil
		}
		if !strings.HasPrefix(arg, "--eq-") {
			rest = append(rest, arg)
			continue
		}
		name, value, inline := strings.Cut(arg[2:], "=")
		// next takes the option's value: after '=', or the next argument
		next := func() (string, error) {
			if inline {
				return value, nil
			}
			if i+1 == len(args) {
				return "", fmt.Errorf("--%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var at *string
		switch name {
		case "eq-config":
			at = &found.config
		case "eq-layout":
			at = &found.layout
		case "eq-server":
			at = &found.server
		case "eq-logfile":
			at = &found.logfile
		case "eq-help":
			help = true
			continue
		case "eq-modelunit":
			v, err := next()
			if err != nil {
				return nil, found, help, warnings, err
			}
			unit, err := strconv.ParseFloat(v, 64)
			if err == nil {
				err = compound.CheckModelUnit(unit)
			} else {
				err = errors.New("want a number")
			}
			if err != nil {
				return nil, found, help, warnings, fmt.Errorf("--eq-modelunit %q: %w", v, err)
			}
			if found.modelUnit != 0 && found.modelUnit != unit {
				return nil, found, help, warnings, fmt.Errorf("--eq-modelunit given twice (%v and %v): goeq takes one", found.modelUnit, unit)
			}
			found.modelUnit = unit
			continue
		default:
			n, ok := ignoredEqualizerArgs[name]
			if !ok {
				return nil, found, help, warnings, fmt.Errorf("unknown Equalizer option --%s (--eq-help lists them)", name)
			}
			warnings = append(warnings, fmt.Sprintf("--%s is Equalizer's and goeq has no use for it: ignored", name))
			switch {
			case n == 1:
				if _, err := next(); err != nil {
					return nil, found, help, warnings, err
				}
			case n < 0 && !inline:
				for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
				}
			}
			continue
		}
		v, err := next()
		if err != nil {
			return nil, found, help, warnings, err
		}
		if v == "" {
			return nil, found, help, warnings, fmt.Errorf("--%s needs a value", name)
		}
		if *at != "" && *at != v {
			// Equalizer starts each canvas in the layout named for it;
			// goeq starts every canvas in one
			return nil, found, help, warnings, fmt.Errorf("--%s given twice (%q and %q): goeq takes one", name, *at, v)
		}
		*at = v
	}
	return rest, found, help, warnings, nil
}

// takeEqualizerArgsFromCommandLine is Init's part: it takes Equalizer's
// options out of os.Args for Start, or ends the process as the flag
// package does on a bad one (and after --eq-help).
func takeEqualizerArgsFromCommandLine() {
	if len(os.Args) < 2 {
		return
	}
	rest, found, help, warnings, err := takeEqualizerArgs(os.Args[1:])
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "goeq:", w)
	}
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "goeq:", err)
		os.Exit(2)
	case help:
		fmt.Print(equalizerHelp)
		os.Exit(0)
	}
	os.Args = append(os.Args[:1:1], rest...)
	eqArgs = found
}

// apply sets what the command line named over opt.
func (a equalizerArgs) apply(opt Options) (Options, error) {
	if a.config != "" {
		opt.Config, opt.ConfigText = a.config, ""
	}
	if a.layout != "" {
		opt.Layout = a.layout
	}
	if a.server != "" {
		opt.Server = a.server
	}
	if a.modelUnit != 0 {
		opt.ModelUnit = a.modelUnit
	}
	if a.logfile != "" && opt.Log == nil {
		f, err := os.OpenFile(a.logfile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return opt, fmt.Errorf("goeq: --eq-logfile: %w", err)
		}
		// open for the process's life, as Equalizer's log file
		opt.Log = logging.New(f, logging.FromEnv(), slog.LevelInfo, "goeq")
	}
	return opt, nil
}
