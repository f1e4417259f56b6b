package goeq

import (
	"slices"
	"strings"
	"testing"
)

// Equalizer's options come out of a command line, with their values in
// either form, and leave the application's own as they were; those goeq
// has no use for go with a warning; a bad one is an error.
func TestEqualizerOptionsAreTakenFromTheCommandLine(t *testing.T) {
	rest, found, help, warnings, err := takeEqualizerArgs(strings.Fields(
		"-m model.ply --eq-config wall.eqc --frames 3 --eq-layout=Simple --eq-config-flags multiprocess multipipe --eq-modelunit 0.001 --eq-logfile run.log -- --eq-server x"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Fields("-m model.ply --frames 3 -- --eq-server x"); !slices.Equal(rest, want) {
		t.Errorf("left %q; want %q", rest, want)
	}
	if want := (equalizerArgs{config: "wall.eqc", layout: "Simple", logfile: "run.log", modelUnit: 0.001}); found != want || help {
		t.Errorf("found %+v (help %v); want %+v", found, help, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "--eq-config-flags is Equalizer's and goeq has no use for it: ignored") {
		t.Errorf("warnings %q", warnings)
	}
	if _, _, help, _, err := takeEqualizerArgs([]string{"--eq-help"}); !help || err != nil {
		t.Errorf("--eq-help: help %v, %v", help, err)
	}
	for _, c := range []struct{ args, want string }{
		{"--eq-config", "--eq-config needs a value"},
		{"--eq-config=", "--eq-config needs a value"},
		{"--eq-gpufilter", "--eq-gpufilter needs a value"},
		{"--eq-layout a --eq-layout b", `--eq-layout given twice ("a" and "b"): goeq takes one`},
		{"--eq-configfile x", "unknown Equalizer option --eq-configfile (--eq-help lists them)"},
		{"--eq-modelunit mm", `--eq-modelunit "mm": want a number`},
		{"--eq-modelunit -1", `--eq-modelunit "-1": model unit -1: want 1e-12 to 1e+12`},
		{"--eq-modelunit 1000 --eq-modelunit=1", "--eq-modelunit given twice (1000 and 1): goeq takes one"},
	} {
		if _, _, _, _, err := takeEqualizerArgs(strings.Fields(c.args)); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v; want %q", c.args, err, c.want)
		}
	}
}

// What the command line names goes over the application's Options.
func TestEqualizerOptionsGoOverTheApplications(t *testing.T) {
	opt, err := equalizerArgs{config: "wall.eqc", layout: "Simple", server: "host:4242", modelUnit: 1000}.apply(Options{Config: "built-in.eqc", ConfigText: "server {}", Layout: "Other", ModelUnit: 2})
	if err != nil || opt.Config != "wall.eqc" || opt.ConfigText != "" || opt.Layout != "Simple" || opt.Server != "host:4242" || opt.ModelUnit != 1000 {
		t.Errorf("%+v, %v", opt, err)
	}
	if _, err := (equalizerArgs{logfile: t.TempDir() + "/no/such/folder/run.log"}).apply(Options{}); err == nil || !strings.Contains(err.Error(), "goeq: --eq-logfile: open") {
		t.Errorf("a log file that cannot be made: %v", err)
	}
}
