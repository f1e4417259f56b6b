// Package gotool finds the go command for tests that build binaries.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Path is the go command that runs this test (make test may have
// installed it outside PATH), else the one on PATH.
func Path() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		return "go"
	}
	return p
}

// Build builds pkgs (import paths, or "." for the package in the working
// directory) into out, a file for one command or a folder for several;
// the error holds the compiler's output.
func Build(out string, pkgs ...string) error {
	args := append([]string{"build", "-o", out}, pkgs...)
	if b, err := exec.Command(Path(), args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, b)
	}
	return nil
}

// Binary is pkg built into a command called name, once per process
// however many tests ask (a link takes seconds), in a folder of its own
// that RemoveBinaries removes: a package's TestMain calls it. A build that
// fails fails t.
func Binary(t testing.TB, name, pkg string) string {
	t.Helper()
	binariesMu.Lock()
	b := binaries[name+" "+pkg]
	if b == nil {
		b = &binary{}
		binaries[name+" "+pkg] = b
	}
	binariesMu.Unlock()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "goeq-"+name); b.err == nil {
			b.err = Build(filepath.Join(b.dir, name), pkg)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return filepath.Join(b.dir, name)
}

// RemoveBinaries removes what Binary built.
func RemoveBinaries() {
	binariesMu.Lock()
	defer binariesMu.Unlock()
	for _, b := range binaries {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
}

type binary struct {
	once sync.Once
	dir  string
	err  error
}

var (
	binariesMu sync.Mutex
	binaries   = map[string]*binary{}
)
