package compound

import (
	"errors"
	"fmt"
)

// Balancing is what an application may change of the equalizers that
// balance one view's compounds (Equalizer's View::getEqualizer, which
// eqPly's f, t and 4 keys change). A change goes to every equalizer of
// that kind under a destination compound showing the view.
type Balancing struct {
	// Frozen load and tree equalizers keep the split they have.
	Frozen bool
	// Damping is the load, tree and DFR equalizers' weight of the past, in
	// [0,1].
	Damping float64
	// Boundary and BoundaryDB are where the load and tree equalizers may
	// split: a multiple of these pixels (2D), of this range fraction (DB).
	Boundary   [2]int
	BoundaryDB float64
	// Resistance and ResistanceDB are how far a split must want to move
	// before it moves: pixels (2D), a range fraction (DB).
	Resistance   [2]int
	ResistanceDB float64
	// TileSize is the tile equalizers' tile, in pixels.
	TileSize [2]int
	// Framerate is the frame rate the DFR equalizers hold.
	Framerate float64
}

// BalancingFields says which fields of a Balancing a change sets, so that
// changing one leaves the others as each equalizer has them (two load
// equalizers of a view may damp differently).
type BalancingFields uint16

const (
	BalanceFrozen BalancingFields = 1 << iota
	BalanceDamping
	BalanceBoundary
	BalanceBoundaryDB
	BalanceResistance
	BalanceResistanceDB
	BalanceTileSize
	BalanceFramerate
)

// BalancingChange sets the Fields of Balancing.
type BalancingChange struct {
	Balancing Balancing
	Fields    BalancingFields
}

// Diff is the change that makes from into b.
func (b Balancing) Diff(from Balancing) BalancingChange {
	var f BalancingFields
	for _, d := range []struct {
		differs bool
		field   BalancingFields
	}{
		{b.Frozen != from.Frozen, BalanceFrozen},
		{b.Damping != from.Damping, BalanceDamping},
		{b.Boundary != from.Boundary, BalanceBoundary},
		{b.BoundaryDB != from.BoundaryDB, BalanceBoundaryDB},
		{b.Resistance != from.Resistance, BalanceResistance},
		{b.ResistanceDB != from.ResistanceDB, BalanceResistanceDB},
		{b.TileSize != from.TileSize, BalanceTileSize},
		{b.Framerate != from.Framerate, BalanceFramerate},
	} {
		if d.differs {
			f |= d.field
		}
	}
	return BalancingChange{Balancing: b, Fields: f}
}

// MaxTileSize bounds a tile's side: a tile is a unit of work pulled and
// read back on its own, and one larger than any framebuffer is a mistake.
const MaxTileSize = 16384

// Check says why ch cannot change a view's balancing, naming every field
// it sets out of range, as the config parser does for the same values.
// The fields it leaves are not checked: they stay as the config has them.
func (ch BalancingChange) Check() error {
	b, set := ch.Balancing, func(f BalancingFields) bool { return ch.Fields&f != 0 }
	var errs []error
	if set(BalanceDamping) && !(b.Damping >= 0 && b.Damping <= 1) {
		errs = append(errs, fmt.Errorf("damping %v: want 0 to 1", b.Damping))
	}
	if set(BalanceBoundary) && (b.Boundary[0] < 1 || b.Boundary[1] < 1) {
		errs = append(errs, fmt.Errorf("boundary %v: want at least 1 pixel in each direction", b.Boundary))
	}
	if set(BalanceBoundaryDB) && !(b.BoundaryDB > 0 && b.BoundaryDB <= 1) {
		errs = append(errs, fmt.Errorf("DB boundary %v: want a fraction in (0,1]", b.BoundaryDB))
	}
	if set(BalanceResistance) && (b.Resistance[0] < 0 || b.Resistance[1] < 0) {
		errs = append(errs, fmt.Errorf("resistance %v: want no fewer than 0 pixels", b.Resistance))
	}
	if set(BalanceResistanceDB) && !(b.ResistanceDB >= 0 && b.ResistanceDB <= 1) {
		errs = append(errs, fmt.Errorf("DB resistance %v: want a fraction in [0,1]", b.ResistanceDB))
	}
	if set(BalanceTileSize) && (b.TileSize[0] < 1 || b.TileSize[1] < 1 || b.TileSize[0] > MaxTileSize || b.TileSize[1] > MaxTileSize) {
		errs = append(errs, fmt.Errorf("tile size %v: want 1 to %d pixels in each direction", b.TileSize, MaxTileSize))
	}
	if set(BalanceFramerate) && !(b.Framerate > 0 && b.Framerate <= 1e6) {
		errs = append(errs, fmt.Errorf("frame rate %v: want above 0 frames a second", b.Framerate))
	}
	return errors.Join(errs...)
}

// ViewBalancing is how v's compounds are balanced as the run starts: the
// settings of the first load or tree, tile and DFR equalizer under a
// destination showing v, in the config's order, and Equalizer's defaults
// for a kind it has none of.
func (c *Config) ViewBalancing(v *View) Balancing {
	b := Balancing{Damping: 0.5, Boundary: [2]int{1, 1}, BoundaryDB: 1.0 / (1 << 23), TileSize: [2]int{64, 64}, Framerate: 10, Frozen: v.BalanceFrozen}
	var load, tile, dfr bool
	c.viewEqualizers(v, func(eq *Equalizer) {
		switch {
		case eq.Kind.Splits() && !load:
			load = true
			b.Damping, b.Boundary, b.BoundaryDB, b.Resistance, b.ResistanceDB = eq.Damping, eq.Boundary2D, eq.BoundaryDB, eq.Resistance2D, eq.ResistanceDB
		case eq.Kind == TileEqualizer && eq.ChunkDB == 0 && !tile:
			tile = true
			b.TileSize = eq.TileSize
		case eq.Kind == DFREqualizer && !dfr:
			dfr = true
			b.Framerate = eq.Framerate
			if !load {
				b.Damping = eq.Damping
			}
		}
	})
	return b
}

// viewEqualizers calls fn with every equalizer of the compounds whose
// destination shows v.
func (c *Config) viewEqualizers(v *View, fn func(*Equalizer)) {
	c.Walk(func(x *Compound) {
		if len(x.Equalizers) == 0 || ViewOf(x) != v {
			return
		}
		for _, eq := range x.Equalizers {
			fn(eq)
		}
	})
}

// SetBalancing changes how v's compounds are balanced from frame on: the
// fields ch sets go to every equalizer they apply to.
func (c *Changes) SetBalancing(frame int, cfg *Config, v *View, ch BalancingChange) {
	c.edits.Set(frame, func() {
		b := ch.Balancing
		if ch.Fields&BalanceFrozen != 0 {
			v.BalanceFrozen = b.Frozen
		}
		cfg.viewEqualizers(v, func(eq *Equalizer) {
			switch eq.Kind {
			case LoadEqualizer, TreeEqualizer:
				setIf(&eq.Damping, b.Damping, ch.Fields&BalanceDamping)
				setIf(&eq.Boundary2D, b.Boundary, ch.Fields&BalanceBoundary)
				setIf(&eq.BoundaryDB, b.BoundaryDB, ch.Fields&BalanceBoundaryDB)
				setIf(&eq.Resistance2D, b.Resistance, ch.Fields&BalanceResistance)
				setIf(&eq.ResistanceDB, b.ResistanceDB, ch.Fields&BalanceResistanceDB)
			case TileEqualizer:
				if eq.ChunkDB == 0 { // a DB tile equalizer's chunks are no tiles
					setIf(&eq.TileSize, b.TileSize, ch.Fields&BalanceTileSize)
				}
			case DFREqualizer:
				setIf(&eq.Damping, b.Damping, ch.Fields&BalanceDamping)
				setIf(&eq.Framerate, b.Framerate, ch.Fields&BalanceFramerate)
			}
		})
	})
}

func setIf[T any](field *T, v T, changed BalancingFields) {
	if changed != 0 {
		*field = v
	}
}
