package procstat

import (
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
