package procstat

import (
	"runtime"
	"testing"
	"time"
)

// Sleeping costs no CPU; spinning costs about its wall time.
func TestCPUTimeCountsWorkNotWaiting(t *testing.T) {
	if d := CPUTime(func() { time.Sleep(50 * time.Millisecond) }); d > 10*time.Millisecond {
		t.Errorf("a 50 ms sleep cost %v of CPU", d)
	}
	var x uint64
	d := CPUTime(func() {
		for end := time.Now().Add(30 * time.Millisecond); time.Now().Before(end); {
			x++
		}
	})
	if d < 5*time.Millisecond {
		t.Errorf("30 ms of spinning cost %v of CPU (%d turns)", d, x)
	}
}

// The machine's busy time grows while a core spins, and never past the
// total time.
func TestMachineCountsBusyCores(t *testing.T) {
	before := ReadMachine()
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	after := ReadMachine()
	if after.Busy <= before.Busy || after.Busy-before.Busy > after.Total-before.Total {
		t.Errorf("busy %v of %v over 100 ms of spinning", after.Busy-before.Busy, after.Total-before.Total)
	}
	if c := after.CoresSince(before); c <= 0 || c > float64(runtime.NumCPU())+1e-9 {
		t.Errorf("cores busy %v", c)
	}
}
