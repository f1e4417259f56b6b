package compound

import "github.com/goeq/goeq/internal/compositing"

// CompositingAttr is the compound attribute that names how a sort-last
// compound composites (a goeq extension: AUTO, GATHER, DIRECT_SEND,
// BINARY_SWAP or RADIX_K; see package compositing). Like every compound
// attribute it is inherited.
const CompositingAttr = "compositing"

// Compositing returns the strategy the compound's attributes name (Auto when
// none does).
func (c *Compound) Compositing() compositing.Strategy {
	s, _ := compositing.Parse(c.Attributes[CompositingAttr])
	return s
}

// SortLastSources returns the sources whose images c merges by depth when
// the planner may replace that merge with an exchange among them: two or
// more leaf children, each on a window of its own, each drawing a range of
// the data over all of c's region and sending colour and depth of all of it
// to c alone (or drawing it into c's image, on c's channel), where nothing
// uses c's merged depth afterwards. It returns nil for anything else (2D,
// pixel, eye, tile, zoomed or blended compounds, trees the config wires by
// hand, and compounds whose merged depth goes on), which composite as
// written. Config.SortLast also leaves out trees that cross.
func (c *Compound) SortLastSources() []*Compound {
	if len(c.Children) < 2 || c.Channel == nil || c.Buffers&BufferDepth == 0 || len(c.OutputTiles)+len(c.InputTiles) > 0 || c.mergedDepthUsed() {
		return nil
	}
	db := false
	for _, eq := range c.Equalizers {
		switch eq.Kind {
		case LoadEqualizer, TreeEqualizer:
			if eq.Mode != SplitDB {
				return nil
			}
			db = true
		case TileEqualizer, MonitorEqualizer, DFREqualizer:
			return nil
		}
	}
	windows := map[*Window]bool{}
	fed := map[string]bool{} // c's input frames
	for _, f := range c.InputFrames {
		fed[f.Name] = true
	}
	for _, ch := range c.Children {
		l := ch.Local
		inPlace := ch.Channel == c.Channel && len(ch.OutputFrames) == 0 // draws straight into c's image
		if !ch.IsLeaf() || ch.Channel == nil || ch.Tasks&TaskDraw == 0 || ch.Tasks&TaskReadback == 0 && !inPlace ||
			l.Viewport != FullViewport || l.Pixel != (Pixel{0, 0, 1, 1}) || l.Subpixel != (Subpixel{0, 1}) || l.Zoom != (Zoom{1, 1}) ||
			ch.Period != c.Period || ch.Phase != c.Phase || ch.Eyes != c.Eyes || len(ch.Equalizers) > 0 ||
			!db && l.Range == FullRange {
			return nil
		}
		if windows[ch.Channel.Window] || ch.Channel != c.Channel && ch.Channel.Window == c.Channel.Window {
			return nil
		}
		windows[ch.Channel.Window] = true
		if inPlace {
			continue
		}
		if len(ch.OutputFrames) != 1 {
			return nil
		}
		f := ch.OutputFrames[0]
		if f.Viewport != FullViewport || f.Buffers&BufferDepth == 0 || f.Zoom != (Zoom{1, 1}) ||
			len(f.Consumers) != 1 || f.Consumers[0] != c || !fed[f.Name] {
			return nil
		}
	}
	return c.Children
}

// mergedDepthUsed reports whether the depth of c's merged image is used
// after c composites: c sends it on (an output frame with depth, as a
// source that merges a neighbour's image before sending its own), or a
// compound around c on the same channel depth-merges more images into it.
// An exchange collects the merged bands' colour only.
func (c *Compound) mergedDepthUsed() bool {
	withDepth := func(frames []*Frame) bool {
		for _, f := range frames {
			if f.Buffers&BufferDepth != 0 {
				return true
			}
		}
		return false
	}
	if withDepth(c.OutputFrames) {
		return true
	}
	for a := c.Parent; a != nil && a.Channel == c.Channel; a = a.Parent {
		if withDepth(a.InputFrames) || withDepth(a.OutputFrames) {
			return true
		}
	}
	return false
}

// SortLast returns the compounds whose depth merge the planner may replace
// with an exchange, each with its sources (SortLastSources), less those
// whose sources' windows also serve a sort-last compound of another
// destination that may show in the same frame. A window runs the trees of
// other destinations before its own, so two trees exchanging over the same
// windows would each wait for a band from a window busy with the other
// tree's exchange: cross-balanced walls (2-window.wall.DB.lb.eqc)
// composite as written.
func (cfg *Config) SortLast() map[*Compound][]*Compound {
	all := map[*Compound][]*Compound{}
	var order []*Compound
	cfg.Walk(func(c *Compound) {
		if src := c.SortLastSources(); src != nil {
			all[c] = src
			order = append(order, c)
		}
	})
	crossed := map[*Compound]bool{}
	for i, a := range order {
		for _, b := range order[i+1:] {
			if a.Destination() != b.Destination() && showTogether(a.Destination(), b.Destination()) && shareWindows(all[a], all[b]) {
				crossed[a], crossed[b] = true, true
			}
		}
	}
	for c := range crossed {
		delete(all, c)
	}
	return all
}

// showTogether reports whether two destination compounds may run in the
// same frame: not when they show different layouts of one canvas.
func showTogether(a, b *Compound) bool {
	ca, cb := a.Channel, b.Channel
	if ca == nil || cb == nil || ca.View == nil || cb.View == nil || ca.Segment == nil || cb.Segment == nil {
		return true
	}
	return ca.Segment.Canvas != cb.Segment.Canvas || ca.View.Layout == cb.View.Layout
}

func shareWindows(a, b []*Compound) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Channel.Window == y.Channel.Window {
				return true
			}
		}
	}
	return false
}
