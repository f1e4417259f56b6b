// Package gotool finds the go command for tests that build binaries.
package gotool

import (
	"os"
	"path/filepath"
	"runtime"
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
