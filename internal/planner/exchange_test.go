package planner_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/simulate"
)

// dataflow runs a frame plan on rows instead of pixels: every row of a
// channel holds the set of sources whose geometry it shows. Draws add the
// drawing compound's bit to the rows of their region, readbacks copy rows
// out, assembles merge them in (colour-only frames overwrite), and each
// channel runs its tasks in order, waiting for the frames it assembles. It
// fails on a wait that can never end. It returns the destination's rows.
func dataflow(t *testing.T, plan *planner.FramePlan, bits map[string]uint64, dest string) []uint64 {
	t.Helper()
	rows := map[string][]uint64{}
	type key struct{ name, producer, consumer string }
	type frame struct {
		at    int // first row, relative to the producer's region
		rows  []uint64
		depth bool
	}
	sent := map[key]frame{}
	next := map[string]int{}
	for _, cp := range plan.Channels {
		h := cp.Channel.PixelViewport.H
		for _, task := range cp.Tasks {
			h = max(h, task.Region.Y+task.Region.H)
		}
		rows[cp.Channel.ID] = make([]uint64, h)
	}
	for progressed := true; progressed; {
		progressed = false
		for _, cp := range plan.Channels {
			id := cp.Channel.ID
			for next[id] < len(cp.Tasks) {
				task := cp.Tasks[next[id]]
				r := task.Region
				fb := rows[id]
				ok := true
				switch task.Kind {
				case planner.Clear:
					for y := r.Y; y < r.Y+r.H; y++ {
						fb[y] = 0
					}
				case planner.Draw:
					for y := r.Y; y < r.Y+r.H; y++ {
						fb[y] |= bits[task.Compound]
					}
				case planner.Readback:
					for _, out := range task.Outputs {
						part := r.Apply(out.Viewport)
						f := frame{at: part.Y - r.Y, rows: append([]uint64(nil), fb[part.Y:part.Y+part.H]...), depth: out.Buffers&compound.BufferDepth != 0}
						for _, c := range out.Consumers {
							sent[key{out.Name, id, c}] = f
						}
					}
				case planner.Assemble:
					for _, in := range task.Inputs {
						for _, p := range in.Producers {
							if _, there := sent[key{in.Name, p, id}]; !there {
								ok = false
							}
						}
					}
					if !ok {
						break
					}
					for _, in := range task.Inputs {
						for _, p := range in.Producers {
							f := sent[key{in.Name, p, id}]
							for i, v := range f.rows {
								if f.depth {
									fb[r.Y+f.at+i] |= v
								} else {
									fb[r.Y+f.at+i] = v
								}
							}
						}
					}
				}
				if !ok {
					break
				}
				next[id]++
				progressed = true
			}
		}
	}
	for _, cp := range plan.Channels {
		if next[cp.Channel.ID] < len(cp.Tasks) {
			t.Fatalf("channel %s waits forever at task %d (%s)", cp.Channel.Name, next[cp.Channel.ID], cp.Tasks[next[cp.Channel.ID]].Kind)
		}
	}
	for _, cp := range plan.Channels {
		if cp.Channel.Name == dest {
			return rows[cp.Channel.ID]
		}
	}
	t.Fatalf("no destination %s in the plan", dest)
	return nil
}

// sortLastParent returns the config's compound whose sources may exchange.
func sortLastParent(t *testing.T, cfg *compound.Config) *compound.Compound {
	var found *compound.Compound
	cfg.Walk(func(c *compound.Compound) {
		if found == nil && c.SortLastSources() != nil {
			found = c
		}
	})
	if found == nil {
		t.Fatal("no sort-last compound")
	}
	return found
}

// checkExchange plans frames of cfg with strategy s and checks that every
// row of the destination shows every source, that each source sends no
// more than the schedule says, and what the plan reports.
func checkExchange(t *testing.T, cfg *compound.Config, s compositing.Strategy, frames int) {
	t.Helper()
	parent := sortLastParent(t, cfg)
	parent.Attributes[compound.CompositingAttr] = s.String()
	p := planner.New(cfg)
	for f := 0; f < frames; f++ {
		plan := p.Plan(f)
		bits := map[string]uint64{}
		var want uint64
		for i, c := range parent.SortLastSources() {
			if st := plan.Compounds[c.Path()]; st.Active && !st.Skip {
				bits[c.Path()] = 1 << i
				want |= 1 << i
			}
		}
		got := dataflow(t, plan, bits, parent.Channel.Name)
		share := plan.Compounds[parent.Path()].Share
		region := share
		if parent.Destination() != parent {
			region = compound.PixelViewport{W: share.W, H: share.H}
		}
		for y := region.Y; y < region.Y+region.H; y++ {
			if got[y] != want {
				t.Fatalf("frame %d, %s: destination row %d shows sources %b, want %b", f, s, y, got[y], want)
			}
		}
		// the merged bands reach the parent as tiles: a colour-only frame
		// of a part of the range is a slab, which its consumer blends in
		// depth order (a shader pass more under a software GL)
		for _, cp := range plan.Channels {
			for _, task := range cp.Tasks {
				for _, out := range task.Outputs {
					if task.Kind == planner.Readback && out.Buffers&compound.BufferDepth == 0 && task.Range != compound.FullRange &&
						slices.Contains(out.Consumers, parent.Channel.ID) {
						t.Fatalf("frame %d, %s: %s sends %s to %s as a slab of range %v", f, s, cp.Channel.Name, out.Name, parent.Channel.Name, task.Range)
					}
				}
			}
		}
		n := len(bits)
		rounds := s.Rounds(n)
		if s == compositing.Gather {
			rounds = nil
		}
		if len(rounds) == 0 {
			if len(plan.Exchanges) != 0 {
				t.Fatalf("frame %d: %s exchanges %+v", f, s, plan.Exchanges)
			}
			continue
		}
		if len(plan.Exchanges) == 0 {
			t.Fatalf("frame %d: no exchange, want %s among %d", f, s, n)
		}
		eyes := 0
		for _, x := range plan.Exchanges {
			if x.Compound == parent.Path() {
				eyes++
				if x.Strategy != s || x.Sources != n {
					t.Fatalf("frame %d: exchanges %+v, want %s among %d", f, plan.Exchanges, s, n)
				}
			}
		}
		// what one source sends: k-1 parts a round, then its band
		want1 := 1
		for _, k := range rounds {
			want1 += k - 1
		}
		sources := map[*compound.Channel]bool{}
		for _, c := range parent.SortLastSources() {
			sources[c.Channel] = true
		}
		for _, cp := range plan.Channels {
			if !sources[cp.Channel] {
				continue
			}
			sends := 0
			for _, task := range cp.Tasks {
				if task.Kind == planner.Readback {
					sends += len(task.Outputs)
				}
			}
			if cp.Channel != parent.Channel && sends != eyes*want1 {
				t.Fatalf("frame %d, %s: channel %s sends %d frames, want %d", f, s, cp.Channel.Name, sends, eyes*want1)
			}
		}
	}
}

// Every strategy at several source counts and heights: 297 rows split in
// 6 bands put band edges on half rows (247.5), which two sums of the
// band's fractions once rounded apart, leaving a row to no band.
func TestExchangesMergeEverySourceIntoEveryRow(t *testing.T) {
	for _, h := range []int{239, 297, 1081} {
		for _, n := range []int{2, 3, 4, 5, 6, 8, 12, 16} {
			for _, s := range []compositing.Strategy{compositing.Gather, compositing.DirectSend, compositing.BinarySwap, compositing.RadixK} {
				t.Run(fmt.Sprintf("%d rows/%d/%s", h, n, s), func(t *testing.T) {
					cfg, err := simulate.Generated{Mode: compound.SplitDB, Sources: n, W: 320, H: h}.Config()
					if err != nil {
						t.Fatal(err)
					}
					checkExchange(t, cfg, s, 3)
				})
			}
		}
	}
}

// Real configs: the destination draws a range itself (its band stays in
// place), fixed ranges, a DB compound inside a 2D one, and load-balanced
// walls. A cross-balanced wall (2-window.wall.DB.lb.eqc) composites as
// written: exchanges in its two trees would wait for each other
// (compound.Config.SortLast).
func TestExchangesOnCorpusConfigs(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "eqc-corpus")
	t.Run("2-window.wall.DB.lb.eqc", func(t *testing.T) {
		m, _, err := compound.Load(filepath.Join(dir, "2-window.wall.DB.lb.eqc"), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		cfg := m.Configs[0]
		cfg.Walk(func(c *compound.Compound) {
			if c.SortLastSources() != nil {
				c.Attributes[compound.CompositingAttr] = compositing.BinarySwap.String()
			}
		})
		if plan := planner.New(cfg).Plan(0); len(plan.Exchanges) != 0 {
			t.Errorf("crossed trees exchange: %+v", plan.Exchanges)
		}
	})
	for _, name := range []string{"3-node.DB.eqc", "5-node.DB.eqc", "2-node.DB.eqc", "4-window.DB.eqc", "2-pipe.all.eqc", "8-node.layout.DB.eqc", "hactar.DB.eqc"} {
		for _, s := range []compositing.Strategy{compositing.DirectSend, compositing.BinarySwap, compositing.RadixK} {
			t.Run(name+"/"+s.String(), func(t *testing.T) {
				m, _, err := compound.Load(filepath.Join(dir, name), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
				if err != nil {
					t.Fatal(err)
				}
				checkExchange(t, m.Configs[0], s, 2)
			})
		}
	}
}
