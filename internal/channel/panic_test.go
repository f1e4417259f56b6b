package channel

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A panic recovered on a pipe names the code that panicked, past the
// runtime's frames that raised it (a nil map's assignment), with the
// stack that led there.
func TestPanicErrorSaysWhereItHappened(t *testing.T) {
	var err *PanicError
	var line int
	func() {
		defer func() { err = newPanicError("pipe 1", recover()) }()
		var m map[string]int
		_, _, line, _ = runtime.Caller(0)
		m["x"] = 1 // the line after Caller's
	}()
	want := "pipe 1: panic: assignment to entry in nil map (in github.com/goeq/goeq/internal/channel.TestPanicErrorSaysWhereItHappened.func1 at "
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), fmt.Sprintf("panic_test.go:%d)", line+1)) {
		t.Errorf("%q; want %q...panic_test.go:%d)", err, want, line+1)
	}
	if !strings.Contains(string(err.Stack), "TestPanicErrorSaysWhereItHappened") {
		t.Errorf("the stack does not hold the test:\n%s", err.Stack)
	}
}
