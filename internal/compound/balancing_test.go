package compound

import (
	"strings"
	"testing"
)

// Check names every field a change sets out of range, takes what the
// config parser takes, and leaves the fields it does not set.
func TestBalancingCheckNamesEachBadField(t *testing.T) {
	good := Balancing{Damping: .5, Boundary: [2]int{1, 1}, BoundaryDB: 1e-6, TileSize: [2]int{64, 64}, Framerate: 10}
	if err := good.Diff(Balancing{}).Check(); err != nil {
		t.Fatalf("Equalizer's defaults: %v", err)
	}
	bad := Balancing{Damping: 1.5, Boundary: [2]int{0, 1}, BoundaryDB: 0, Resistance: [2]int{-1, 0}, ResistanceDB: 2, TileSize: [2]int{0, MaxTileSize + 1}, Framerate: 0}
	if err := bad.Diff(bad).Check(); err != nil {
		t.Errorf("nothing changed, yet: %v", err)
	}
	err := (BalancingChange{Balancing: bad, Fields: ^BalancingFields(0)}).Check()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"damping 1.5", "boundary [ 0 1 ]", "boundary 0 is out of range", "resistance [ -1 0 ]", "resistance 2 is out of range", "tile size [ 0 16385 ]", "framerate 0 is out of range"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
}

// Diff sets the fields that differ, and only those.
func TestBalancingDiffSetsWhatDiffers(t *testing.T) {
	a := Balancing{Damping: .5, Boundary: [2]int{1, 1}, TileSize: [2]int{64, 64}, Framerate: 10}
	b := a
	if d := b.Diff(a); d.Fields != 0 {
		t.Errorf("no change: fields %b", d.Fields)
	}
	b.Frozen, b.TileSize = true, [2]int{32, 64}
	if d := b.Diff(a); d.Fields != BalanceFrozen|BalanceTileSize || d.Balancing != b {
		t.Errorf("frozen and tile size: %+v", d)
	}
}
