package control

import (
	"fmt"
	"runtime/debug"
)

// goeqModule is goeq's module path: its version in an executable's build
// information names the source the executable was built from.
const goeqModule = "github.com/goeq/goeq"

// buildOverride, set with -ldflags -X, stands in for the build
// information: how a test makes executables of two builds from one
// source.
var buildOverride string

// Build names the goeq source this executable was built from: goeq's
// module version, a release or a pseudo-version that names a commit (with
// +dirty for a checkout that had changes), as `go version -m` shows it.
// It is "" where the build information does not say: built with
// -buildvcs=false in a checkout, a go test binary, or goeq replaced by a
// directory.
func Build() string {
	if buildOverride != "" {
		return buildOverride
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return buildOf(info)
}

func buildOf(info *debug.BuildInfo) string {
	known := func(v string) string {
		if v == "(devel)" {
			return ""
		}
		return v
	}
	if info.Main.Path == goeqModule {
		return known(info.Main.Version)
	}
	for _, d := range info.Deps {
		if d.Path != goeqModule {
			continue
		}
		if r := d.Replace; r != nil {
			if r.Version == "" {
				return "" // a directory, whatever its state
			}
			return r.Path + "@" + r.Version
		}
		return known(d.Version)
	}
	return ""
}

// SameBuild says why a peer built from goeq source theirs cannot take
// part, or nil: executables of two goeq builds may disagree on the
// messages and on how a config resolves, which shows as wrong pictures
// rather than errors. Where either build is unknown it lets the peer in.
func SameBuild(peer, theirs string) error {
	ours := Build()
	if ours == "" || theirs == "" || ours == theirs {
		return nil
	}
	return fmt.Errorf("%s was built from goeq %s and this server from goeq %s: every process of a run needs the same goeq", peer, theirs, ours)
}
