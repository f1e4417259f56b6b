// Package gotool finds the go command for tests that build binaries.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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
