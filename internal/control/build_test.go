package control

import (
	"runtime/debug"
	"testing"
)

// A build is named by goeq's module version, where the executable's
// build information has one: goeq's own commands, or an application that
// requires a goeq release or commit.
func TestBuildNamesGoeqsSource(t *testing.T) {
	dep := func(m *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/viewer", Version: "v1.2.0"}, Deps: []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.30.0"}, m}}
	}
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"a goeq command of a release", &debug.BuildInfo{Main: debug.Module{Path: goeqModule, Version: "v0.4.0"}}, "v0.4.0"},
		{"a goeq command built in a checkout", &debug.BuildInfo{Main: debug.Module{Path: goeqModule, Version: "v0.0.0-20261129224919-81b48a42b77d+dirty"}}, "v0.0.0-20261129224919-81b48a42b77d+dirty"},
		{"a goeq command built without VCS stamps", &debug.BuildInfo{Main: debug.Module{Path: goeqModule, Version: "(devel)"}}, ""},
		{"an application on a goeq release", dep(&debug.Module{Path: goeqModule, Version: "v0.4.0"}), "v0.4.0"},
		{"an application on goeq in a directory", dep(&debug.Module{Path: goeqModule, Version: "v0.4.0", Replace: &debug.Module{Path: "../goeq"}}), ""},
		{"an application on a fork", dep(&debug.Module{Path: goeqModule, Version: "v0.4.0", Replace: &debug.Module{Path: "example.com/goeq", Version: "v0.4.1"}}), "example.com/goeq@v0.4.1"},
		{"not goeq at all", &debug.BuildInfo{Main: debug.Module{Path: "example.com/other", Version: "v1.0.0"}}, ""},
	} {
		if got := buildOf(c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Peers of another known build are refused, naming both; where either
// build is unknown, they are let in.
func TestSameBuild(t *testing.T) {
	defer func(b string) { buildOverride = b }(buildOverride)
	buildOverride = "v0.4.0"
	if err := SameBuild("node n1's client", "v0.3.9"); err == nil || err.Error() != "node n1's client was built from goeq v0.3.9 and this server from goeq v0.4.0: every process of a run needs the same goeq" {
		t.Errorf("another build: %v", err)
	}
	for _, theirs := range []string{"v0.4.0", ""} {
		if err := SameBuild("node n1's client", theirs); err != nil {
			t.Errorf("build %q: %v", theirs, err)
		}
	}
	buildOverride = ""
	if Build() == "" {
		if err := SameBuild("node n1's client", "v0.3.9"); err != nil {
			t.Errorf("a server of unknown build: %v", err)
		}
	}
}
