package procstat

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// CPUTime runs fn on one OS thread and returns the CPU time the thread
// spent on it: unlike the wall time, it does not grow while the thread
// waits for a core that others (a renderer) hold, so it is what fn costs
// the machine. Where the thread's clock cannot be read it is the wall time.
func CPUTime(fn func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var from, to unix.Timespec
	wall := time.Now()
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &from) != nil {
		fn()
		return time.Since(wall)
	}
	fn()
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &to) != nil {
		return time.Since(wall)
	}
	return time.Duration(to.Nano() - from.Nano())
}
