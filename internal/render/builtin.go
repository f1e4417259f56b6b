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

// MaxIterations bounds the synthetic renderer's loop length per pixel:
// the shader counts the loop in 32-bit ints, and the hotspot costs ten
// times as much (beyond it the count wrapped, and frames cost nothing).
const MaxIterations = 1e8

// Check reports an unknown renderer name and parameters out of range: a
// render client takes them from the server, and builds the mesh they
// size before it draws.
func (b Builtin) Check() error {
	switch b.Renderer {
	case "", "mesh", "volume", "synthetic":
	default:
		return fmt.Errorf("unknown renderer %q (mesh, volume or synthetic)", b.Renderer)
	}
	switch {
	case b.Triangles < 0 || b.Triangles > MaxPLYFaces:
		return fmt.Errorf("mesh of %d triangles: want 0 to %d", b.Triangles, MaxPLYFaces)
	case math.IsNaN(b.Spin) || math.IsInf(b.Spin, 0):
		return fmt.Errorf("spin %g: want a finite number of radians", b.Spin)
	case !(b.Iterations >= 0 && b.Iterations <= MaxIterations):
		return fmt.Errorf("synthetic renderer: %g iterations: want 0 to %g", b.Iterations, float64(MaxIterations))
	}
	return nil
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
		// its place in the destination comes with each draw
		return NewSynthetic(b.Iterations), nil
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
