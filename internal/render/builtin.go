package render

import (
	"fmt"
	"math"
	"sync"

	"github.com/goeq/goeq/draw"
)

// Builtin names a built-in renderer and its parameters: the init data
// eqserver run gives eqclient, which is an application like any other.
type Builtin struct {
	Renderer   string  `json:"renderer"` // mesh (default), volume or synthetic
	Triangles  int     `json:"triangles,omitempty"`
	Spin       float64 `json:"spin,omitempty"`       // radians per frame
	Iterations float64 `json:"iterations,omitempty"` // synthetic: cost per pixel
}

// Check reports an unknown renderer name.
func (b Builtin) Check() error {
	switch b.Renderer {
	case "", "mesh", "volume", "synthetic":
		return nil
	}
	return fmt.Errorf("unknown renderer %q (mesh, volume or synthetic)", b.Renderer)
}

var (
	modelOnce  sync.Once
	modelCache *Model
)

// New makes the renderer of one pipe; the procedural mesh is generated
// once per process.
func (b Builtin) New() (draw.Renderer, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	switch b.Renderer {
	case "volume":
		v := NewVolume()
		v.Spin = b.Spin
		return v, nil
	case "synthetic":
		// the destination size comes with each draw
		return NewSynthetic(1, 1, b.Iterations), nil
	}
	modelOnce.Do(func() {
		n := max(b.Triangles, 2000)
		rings := int(math.Sqrt(float64(n) / 4))
		modelCache = Bumpy(max(rings, 4), max(2*rings, 8))
	})
	m := NewMesh(modelCache)
	m.Spin = b.Spin
	return m, nil
}
