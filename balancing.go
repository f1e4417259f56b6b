package goeq

import (
	"fmt"

	"github.com/goeq/goeq/internal/compound"
)

// Balancing is how one view's compounds are balanced: what an
// application may change of their equalizers while the config runs, as
// with Equalizer's View::getEqualizer (eqPly's f, t and 4 keys).
// Config.Balancing gives a view's, Config.SetBalancing changes it.
type Balancing struct {
	// Frozen load and tree equalizers keep the split they have, to watch
	// or measure one decomposition. A source that is lost or rejoins
	// still has the work shared out again.
	Frozen bool
	// Damping is the load, tree and DFR equalizers' weight of the past,
	// 0 to 1: 0 follows each frame's times at once.
	Damping float64
	// Boundary and BoundaryDB are where the load and tree equalizers may
	// split: a multiple of these pixels (2D), of this range fraction (DB).
	Boundary   [2]int
	BoundaryDB float64
	// Resistance and ResistanceDB are how far a split must want to move
	// before it moves: pixels (2D, 0 or more), a range fraction (DB).
	Resistance   [2]int
	ResistanceDB float64
	// TileSize is the tile equalizers' tile in pixels, 1 to 16384.
	TileSize [2]int
	// Framerate is the frame rate the DFR equalizers hold (frames a
	// second, above 0 and at most 1,000,000).
	Framerate float64
}

// Balancing is how a view's compounds are balanced, as last set (the
// config's settings until then: those of the first equalizer of each kind
// under a destination showing the view, and Equalizer's defaults for a
// kind it has none of).
func (c *Config) Balancing(view int) (Balancing, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if view < 0 || view >= len(c.balancing) {
		return Balancing{}, fmt.Errorf("goeq: no view %d: the config has %d", view, len(c.views))
	}
	return Balancing(c.balancing[view]), nil
}

// SetBalancing changes how a view's compounds are balanced from the next
// frame started on, as Equalizer's View::getEqualizer setters do: each
// field that differs from Balancing(view) goes to every equalizer under a
// destination showing the view that it applies to (Damping to the load,
// tree and DFR ones, TileSize to the tile ones, and so on); the fields
// left as they were stay as each equalizer has them. A changed field out
// of range is an error, and nothing changes.
func (c *Config) SetBalancing(view int, b Balancing) error {
	if view < 0 || view >= len(c.views) {
		return fmt.Errorf("goeq: no view %d: the config has %d", view, len(c.views))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.closedLocked(); err != nil {
		return err
	}
	if err := compound.Balancing(b).Diff(c.balancing[view]).Check(); err != nil {
		return fmt.Errorf("goeq: view %d: balancing: %w", view, err)
	}
	c.balancing[view] = compound.Balancing(b)
	return nil
}

// balancingChangesLocked takes what SetBalancing changed since the last
// frame started, for that frame.
func (c *Config) balancingChangesLocked() map[int]compound.BalancingChange {
	var out map[int]compound.BalancingChange
	for i, b := range c.balancing {
		if ch := b.Diff(c.balancingSent[i]); ch.Fields != 0 {
			if out == nil {
				out = map[int]compound.BalancingChange{}
			}
			out[i] = ch
			c.balancingSent[i] = b
		}
	}
	return out
}
