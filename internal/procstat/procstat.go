// Package procstat reads a process's health for the soak, the dashboard
// and the tests (its goroutines, resident memory and open files), what a
// piece of work costs in CPU time, and how busy the machine's cores are.
package procstat

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Health is a process's goroutines and resident bytes.
type Health struct {
	Goroutines int
	RSS        int64
}

// Self is this process's health (RSS 0 where /proc is not there to say).
func Self() Health {
	h := Health{Goroutines: runtime.NumGoroutine()}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 2 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			h.RSS = pages * int64(os.Getpagesize())
		}
	}
	return h
}

// OpenFiles is how many files this process has open (sockets included),
// or -1 where /proc is not there to say.
func OpenFiles() int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(fds)
}
