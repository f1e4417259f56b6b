package transport

import (
	"runtime"
	"testing"
)

// A buffer given back is taken again after garbage collections (which
// emptied the sync.Pool used before), the smallest that fits first; what
// would pass keepBytes is not kept.
func TestPlanesKeepBuffersAcrossCollections(t *testing.T) {
	var p planes[float32]
	big, _ := p.take(1000)
	small, _ := p.take(100)
	p.give(big)
	p.give(small)
	runtime.GC()
	runtime.GC()
	if got := p.reuse(50); got != small {
		t.Errorf("a 50-value plane came from a buffer of %d values, want the 100-value one", cap(*got))
	}
	if got := p.reuse(500); got != big {
		t.Error("the 1000-value buffer was not kept across two collections")
	}
	if got := p.reuse(1); got != nil {
		t.Error("a buffer taken twice")
	}
	if p.bytes != 0 {
		t.Errorf("%d bytes held with nothing kept", p.bytes)
	}
	huge := make([]float32, keepBytes/4+1)
	p.give(&huge)
	if p.bytes != 0 || len(p.free) != 0 {
		t.Errorf("a buffer of more than keepBytes was kept")
	}
}
