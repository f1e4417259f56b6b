package channel

import (
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

// What a binary swap's channel holds (4-window.DB.bs.eqc): its range drawn
// over the whole window, the half it keeps blended with the other's range,
// then a quarter of that with the other pair's. Each rectangle asked for
// splits into what the newest entries say, for the eye asked, and a clear
// leaves nothing to order.
func TestHeldRangesSplitWhatAFramebufferHolds(t *testing.T) {
	whole := compound.PixelViewport{W: 100, H: 80}
	top := compound.PixelViewport{Y: 40, W: 100, H: 40}
	quarter := compound.PixelViewport{Y: 60, W: 100, H: 20}
	drawn, swapped, all := compound.Range{End: 0.25}, compound.Range{End: 0.5}, compound.FullRange
	var h heldRanges
	h.hold(whole, 1, drawn)
	h.hold(top, 1, swapped)
	h.hold(quarter, 1, all)

	area := func(ps []heldRange) (n int) {
		for _, p := range ps {
			n += p.at.W * p.at.H
		}
		return n
	}
	ps := h.pieces(whole, 1)
	if area(ps) != whole.W*whole.H || len(ps) != 3 {
		t.Fatalf("the whole window splits into %v; want three pieces covering it", ps)
	}
	for _, p := range ps {
		want := drawn
		switch {
		case contains(quarter, p.at):
			want = all
		case contains(top, p.at):
			want = swapped
		}
		if p.rng != want {
			t.Errorf("%v holds %v; want %v", p.at, p.rng, want)
		}
		for _, q := range ps {
			if p != q && overlaps(p.at, q.at) {
				t.Errorf("pieces %v and %v overlap", p.at, q.at)
			}
		}
	}
	def := compound.Range{Start: 0.1, End: 0.2}
	if got := h.rangeAt(compound.PixelViewport{Y: 40, W: 50, H: 10}, 1, def); got != swapped {
		t.Errorf("the kept half holds %v; want %v", got, swapped)
	}
	if got := h.rangeAt(whole, 1, def); got != def {
		t.Errorf("the whole window, which holds three ranges, says %v; want the default %v", got, def)
	}
	if ps := h.pieces(whole, 2); len(ps) != 0 {
		t.Errorf("the other eye sees %v", ps)
	}

	h.hold(compound.PixelViewport{W: 100, H: 50}, anyEye, compound.Range{})
	ps = h.pieces(whole, 1)
	if area(ps) != 100*30 {
		t.Errorf("after clearing the lower 50 rows, %v holds ranges; want the upper 30 rows", ps)
	}
	for _, p := range ps {
		if p.at.Y < 50 {
			t.Errorf("the cleared rows still hold %v at %v", p.rng, p.at)
		}
	}
}

// A newer entry that covers an older one drops it: a frame's list stays
// as short as the rectangles it holds.
func TestHeldRangesForgetWhatIsCovered(t *testing.T) {
	var h heldRanges
	r := compound.PixelViewport{W: 10, H: 10}
	for i := range 100 {
		h.hold(r, 1, compound.Range{Start: float64(i) / 100, End: 1})
	}
	if len(h) != 1 {
		t.Errorf("%d entries for one rectangle held 100 times", len(h))
	}
}
