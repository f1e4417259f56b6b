package channel

import "github.com/goeq/goeq/internal/compound"

// heldRange says which part of the data a rectangle of a framebuffer
// holds, drawn or blended there, for a renderer whose database ranges
// blend (draw.RangeOrderer). An assembly that blends parts over pixels
// holding one orders that one with them, as Equalizer's eVolve orders
// the image drawn in place: a binary swap's or a stream's compounds
// composite other parts into the part their channel drew.
type heldRange struct {
	at  compound.PixelViewport
	eye int // anyEye: every eye's
	// rng is empty where the pixels hold nothing to order: a clear, or a
	// render that is not a range of the data
	rng compound.Range
}

// anyEye marks a held range that stands for every eye (a clear).
const anyEye = -1

// heldRanges lists what a framebuffer holds, oldest first: a newer entry
// hides what an older one says where they overlap. A frame starts it
// empty, with the framebuffer cleared.
type heldRanges []heldRange

// hold records that at holds rng for eye from now on.
func (h *heldRanges) hold(at compound.PixelViewport, eye int, rng compound.Range) {
	if at.W <= 0 || at.H <= 0 {
		return
	}
	kept := (*h)[:0]
	for _, e := range *h {
		if !contains(at, e.at) || e.eye != eye && eye != anyEye {
			kept = append(kept, e)
		}
	}
	*h = append(kept, heldRange{at: at, eye: eye, rng: rng})
}

// pieces splits at into the rectangles that hold parts of the data for
// eye, each with its range; the rest of at holds nothing to order.
func (h heldRanges) pieces(at compound.PixelViewport, eye int) []heldRange {
	var out []heldRange
	open := []compound.PixelViewport{at}
	for i := len(h) - 1; i >= 0 && len(open) > 0; i-- {
		e := h[i]
		if e.eye != eye && e.eye != anyEye {
			continue
		}
		var rest []compound.PixelViewport
		for _, o := range open {
			in := intersect(o, e.at)
			if in.W <= 0 || in.H <= 0 {
				rest = append(rest, o)
				continue
			}
			if e.rng.End > e.rng.Start {
				out = append(out, heldRange{at: in, eye: eye, rng: e.rng})
			}
			rest = append(rest, subtract(o, in)...)
		}
		open = rest
	}
	return out
}

// rangeAt is the part of the data at holds for eye where all of it that
// holds one holds the same, or else def.
func (h heldRanges) rangeAt(at compound.PixelViewport, eye int, def compound.Range) compound.Range {
	ps := h.pieces(at, eye)
	if len(ps) == 0 {
		return def
	}
	for _, p := range ps[1:] {
		if p.rng != ps[0].rng {
			return def
		}
	}
	return ps[0].rng
}

// subtract is a minus b, which lies inside it, as up to four rectangles.
func subtract(a, b compound.PixelViewport) []compound.PixelViewport {
	var out []compound.PixelViewport
	add := func(r compound.PixelViewport) {
		if r.W > 0 && r.H > 0 {
			out = append(out, r)
		}
	}
	add(compound.PixelViewport{X: a.X, Y: a.Y, W: a.W, H: b.Y - a.Y})                   // below
	add(compound.PixelViewport{X: a.X, Y: b.Y + b.H, W: a.W, H: a.Y + a.H - b.Y - b.H}) // above
	add(compound.PixelViewport{X: a.X, Y: b.Y, W: b.X - a.X, H: b.H})                   // left
	add(compound.PixelViewport{X: b.X + b.W, Y: b.Y, W: a.X + a.W - b.X - b.W, H: b.H}) // right
	return out
}

// spanning is the smallest range that holds all of rs.
func spanning(rs []compound.Range) compound.Range {
	out := rs[0]
	for _, r := range rs[1:] {
		out.Start, out.End = min(out.Start, r.Start), max(out.End, r.End)
	}
	return out
}
