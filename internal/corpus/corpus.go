// Package corpus finds the configs that tests run every change on: the 80
// real Equalizer configs in ../shared/eqc-corpus beside the checkout, and
// goeq's examples.
package corpus

import (
	"path/filepath"
	"runtime"
	"testing"
)

// Paths returns the paths of every corpus and example config. The test
// fails when the corpus is not beside the checkout: a check that ran on
// the examples alone would pass where real configs fail.
func Paths(t testing.TB) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "eqc-corpus")
	real, _ := filepath.Glob(filepath.Join(dir, "*.eqc"))
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "configs", "*.eqc"))
	if len(real) < 80 || len(examples) == 0 {
		t.Fatalf("%d corpus configs (in %s) and %d examples: the tests need all", len(real), dir, len(examples))
	}
	return append(real, examples...)
}
