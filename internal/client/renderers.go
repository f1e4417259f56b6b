package client

import (
	"fmt"
	"math"
	"sync"

	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/render"
)

var (
	modelOnce  sync.Once
	modelCache *render.Model
)

// newRenderer makes one of the built-in renderers the setup names (one per
// pipe; the procedural mesh is generated once per process).
func newRenderer(s *control.Setup) (render.Renderer, error) {
	switch s.Renderer {
	case "volume":
		v := render.NewVolume()
		v.Spin = s.Spin
		return v, nil
	case "synthetic":
		// the destination size comes with each draw
		return render.NewSynthetic(1, 1, s.Iterations), nil
	case "", "mesh":
		modelOnce.Do(func() {
			n := max(s.Triangles, 2000)
			rings := int(math.Sqrt(float64(n) / 4))
			modelCache = render.Bumpy(max(rings, 4), max(2*rings, 8))
		})
		m := render.NewMesh(modelCache)
		m.Spin = s.Spin
		return m, nil
	}
	return nil, fmt.Errorf("unknown renderer %q (mesh, volume or synthetic)", s.Renderer)
}
