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

// MaxFramerate bounds the frame rate a DFR equalizer holds: past it, the
// equalizer only ever asks for its smallest zoom.
const MaxFramerate = 1e6

// Check says why ch cannot change a view's balancing, naming every field
// it sets out of range. The fields it leaves are not checked: they stay as
// the config has them.
func (ch BalancingChange) Check() error {
	b, set := ch.Balancing, func(f BalancingFields) bool { return ch.Fields&f != 0 }
	var errs []error // errors.Join leaves out the nil ones
	if set(BalanceDamping) {
		errs = append(errs, checkDamping(b.Damping))
	}
	if set(BalanceBoundary) {
		errs = append(errs, checkBoundary(b.Boundary))
	}
	if set(BalanceBoundaryDB) {
		errs = append(errs, checkBoundaryDB(b.BoundaryDB))
	}
	if set(BalanceResistance) {
		errs = append(errs, checkResistance(b.Resistance))
	}
	if set(BalanceResistanceDB) {
		errs = append(errs, checkResistanceDB(b.ResistanceDB))
	}
	if set(BalanceTileSize) {
		errs = append(errs, checkTileSize(b.TileSize))
	}
	if set(BalanceFramerate) {
		errs = append(errs, checkFramerate(b.Framerate))
	}
	return errors.Join(errs...)
}

// The ranges of the values both a config and an application's change set:
// the resolver and Check use these, so the two take the same values.

func checkDamping(d float64) error {
	if !(d >= 0 && d <= 1) {
		return fmt.Errorf("damping %g is out of range: it must lie in [0,1]", d)
	}
	return nil
}

func checkBoundary(b [2]int) error {
	if b[0] < 1 || b[1] < 1 {
		return fmt.Errorf("boundary [ %d %d ] must be at least 1 pixel in each direction", b[0], b[1])
	}
	return nil
}

func checkBoundaryDB(f float64) error {
	if !(f > 0 && f <= 1) {
		return fmt.Errorf("boundary %g is out of range: a DB boundary is a fraction in (0,1]", f)
	}
	return nil
}

func checkResistance(r [2]int) error {
	if r[0] < 0 || r[1] < 0 {
		return fmt.Errorf("resistance [ %d %d ] must be no fewer than 0 pixels", r[0], r[1])
	}
	return nil
}

func checkResistanceDB(f float64) error {
	if !(f >= 0 && f <= 1) {
		return fmt.Errorf("resistance %g is out of range: a DB resistance is a fraction in [0,1]", f)
	}
	return nil
}

func checkTileSize(s [2]int) error {
	if s[0] < 1 || s[1] < 1 || s[0] > MaxTileSize || s[1] > MaxTileSize {
		return fmt.Errorf("tile size [ %d %d ] must be 1 to %d pixels in each direction", s[0], s[1], MaxTileSize)
	}
	return nil
}

func checkFramerate(f float64) error {
	if !(f > 0 && f <= MaxFramerate) {
		return fmt.Errorf("framerate %g is out of range: the frames a second a DFR equalizer keeps to lie in (0,%g]", f, MaxFramerate)
	}
	return nil
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
