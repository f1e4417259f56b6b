//go:build race

// Package race says whether the race detector is built in, as the
// standard library's internal/race does: tests of memory use leave it
// out, since its shadow memory grows with the memory the process touches.
package race

// Enabled: built with -race.
const Enabled = true
