package client

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/winsys"
)

// A headless pipe that names a device this machine lacks stays with the
// pipes on the node's display and says so at WARN; device 0 is the node's
// display. Those pipes take the software renderer's rasterizers in turn.
func TestPipeDeviceChoice(t *testing.T) {
	sys, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := winsys.Rasterizers()
	if err != nil {
		t.Fatal(err)
	}
	// the pipes that render on the node's display take its rasterizers in
	// turn
	nth := func(i int) winsys.System { return rs[i%len(rs)] }
	var log strings.Builder
	n := &node{log: slog.New(slog.NewTextHandler(&log, nil))}
	if got := n.pipeSystem(sys, &compound.Pipe{Name: "gpu0"}); got != winsys.System(sys) || log.Len() > 0 {
		t.Errorf("device 0: %s, logged %q", got.Name(), log.String())
	}
	_, count, _ := winsys.OpenEGLDevice(0)
	got := n.pipeSystem(sys, &compound.Pipe{Name: "gpu9", Device: count + 8})
	if got != nth(1) || !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), `pipe \"gpu9\" names device`) {
		t.Errorf("a device past the list: %s, logged %q", got.Name(), log.String())
	}
	log.Reset()
	if got := n.pipeSystem(sys, &compound.Pipe{Name: "gpu2"}); got != nth(2) {
		t.Errorf("the third pipe on the node's display: %s of %d rasterizers, logged %q", got.Name(), len(rs), log.String())
	}
	if count > 1 {
		log.Reset()
		if got := n.pipeSystem(sys, &compound.Pipe{Name: "gpu1", Device: 1}); !strings.Contains(got.Name(), "device 1") {
			t.Errorf("device 1 of %d: %s, logged %q", count, got.Name(), log.String())
		}
	}
}
