package glutil

import (
	"strings"
	"testing"
)

// A read into a buffer too small for the rows it spans is refused before
// the GL is called: glReadPixels writes wherever it is told, and a read
// of a region at (x, y) into a buffer the region's size corrupted the
// heap (a crash far from it, later).
func TestReadsIntoTooSmallBuffersAreRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		read func()
	}{
		{"colour", func() { ReadInto(10, 20, 30, 40, 30, make([]byte, 4*30*40), nil) }},
		{"depth", func() { ReadInto(0, 0, 30, 40, 30, make([]byte, 4*30*40), make([]float32, 30*40-1)) }},
		{"rows narrower than the region", func() { ReadInto(0, 0, 30, 1, 20, make([]byte, 4*30), nil) }},
		{"stencil", func() { ReadStencilInto(10, 20, 30, 40, 30, make([]byte, 30*40)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "glutil: read") {
					t.Errorf("recovered %v, want the read refused", r)
				}
			}()
			c.read()
		})
	}
}
