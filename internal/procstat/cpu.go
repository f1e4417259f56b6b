package procstat

import (
	"os"
	"runtime"
	"strconv"
	"strings"
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

// Machine is the time all the machine's cores have spent busy and in all
// since boot, from /proc/stat (zero where it cannot be read).
type Machine struct{ Busy, Total time.Duration }

// ReadMachine reads the machine's CPU times now.
func ReadMachine() Machine {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Machine{}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	var busy, total int64
	for i, v := range strings.Fields(line)[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	const tick = time.Second / 100 // USER_HZ
	return Machine{Busy: time.Duration(busy) * tick, Total: time.Duration(total) * tick}
}

// CoresSince is how many of the machine's cores were busy on average since
// prev.
func (m Machine) CoresSince(prev Machine) float64 {
	if m.Total <= prev.Total {
		return 0
	}
	return float64(m.Busy-prev.Busy) / float64(m.Total-prev.Total) * float64(runtime.NumCPU())
}
