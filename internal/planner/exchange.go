package planner

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
)

// exchange is one sort-last compound's compositing by exchange in one frame
// and eye: the sources that render send bands of their image to each other
// round by round, each merges one band, and the compound collects the bands'
// colour (package compositing).
type exchange struct {
	parent   *compound.Compound
	strategy compositing.Strategy
	sources  []*compound.Compound
	sched    compositing.Exchange
	eye      int
	// sent and received index each round's transfers by their sender and
	// receiver, named once: a direct send of n sources has n(n-1)
	// transfers, and looking through them for each source made planning
	// one frame of 256 sources take 70 ms
	sent, received [][][]namedTransfer
}

type namedTransfer struct {
	compositing.Transfer
	name string
}

// Exchanged is what the planner decided for one sort-last compound in a
// frame, for reports.
type Exchanged struct {
	Compound string               `json:"compound"`
	Strategy compositing.Strategy `json:"strategy"`
	Sources  int                  `json:"sources"`
}

// exchangeFor decides how compound c composites this frame and eye: nil
// when its sources' images go to it whole (as written in the config).
// Sources that render nothing this frame (an empty range, a lost node) take
// no part; the strategy is the compound's, or the cost model's choice for
// the sources that remain and the size of its share.
func (p *Planner) exchangeFor(c *compound.Compound, eye int, states map[string]CompoundState) *exchange {
	all := p.sortLast[c]
	ps := states[c.Path()]
	if all == nil || !ps.Active || ps.Share.W <= 0 || ps.Share.H <= 0 || p.standIns[c] != nil {
		return nil
	}
	var sources []*compound.Compound
	renders := false
	for _, ch := range all {
		if p.standIns[ch] != nil {
			return nil // a stand-in draws a lost source's part: it is gathered
		}
		if s := states[ch.Path()]; s.Active && !s.Skip && s.Eyes&eye != 0 {
			sources = append(sources, ch)
			renders = renders || ch.Channel == c.Channel
		}
	}
	if len(sources) < 2 {
		return nil
	}
	strategy := c.Compositing()
	if strategy == compositing.Auto {
		shape := compositing.Shape{Sources: len(sources), Pixels: float64(ps.Share.W) * float64(ps.Share.H),
			DestinationRenders: renders, Draw: p.slowestDraw(sources), Pipelined: p.cfg.Latency > 0}
		strategy = p.Rates.Choose(shape)
		// a change must pay: the last frame's strategy stays while it is
		// within 5% of the new choice (draw times jitter from frame to frame)
		if last, ok := p.chosen[c]; ok && last != strategy && p.Rates.Time(last, shape) <= 1.05*p.Rates.Time(strategy, shape) {
			strategy = last
		}
		p.chosen[c] = strategy
	}
	groups := strategy.Rounds(len(sources))
	if len(groups) == 0 {
		return nil
	}
	sched, err := compositing.Schedule(len(sources), groups)
	if err != nil {
		return nil // not reached: Rounds always multiplies to the count; gather
	}
	x := &exchange{parent: c, strategy: strategy, sources: sources, sched: sched, eye: eye}
	for r, round := range sched.Rounds {
		sent, received := make([][]namedTransfer, len(sources)), make([][]namedTransfer, len(sources))
		for _, t := range round {
			nt := namedTransfer{t, x.name(r, t.From, t.To)}
			sent[t.From] = append(sent[t.From], nt)
			received[t.To] = append(received[t.To], nt)
		}
		x.sent, x.received = append(x.sent, sent), append(x.received, received)
	}
	return x
}

// slowestDraw is the longest draw of the sources in the newest statistics
// (seconds).
func (p *Planner) slowestDraw(sources []*compound.Compound) float64 {
	if p.latest == nil {
		return 0
	}
	slowest := 0.0
	for _, r := range p.latest.Records {
		for _, src := range sources {
			if r.Compound == src.Path() {
				slowest = max(slowest, r.Times.Draw.Seconds())
			}
		}
	}
	return slowest
}

func (x *exchange) name(round, from, to int) string {
	return x.parent.Path() + "/" + x.strategy.String() + "/" + strconv.Itoa(round) + "/" + strconv.Itoa(x.sources[from].Index) +
		">" + strconv.Itoa(x.sources[to].Index) + "/" + strconv.Itoa(x.eye)
}

func (x *exchange) finalName(i int) string {
	return fmt.Sprintf("%s/%s/final/%d/%d", x.parent.Path(), x.strategy, x.sources[i].Index, x.eye)
}

func bandViewport(b compositing.Band) compound.Viewport {
	return compound.Viewport{X: 0, Y: float64(b.Lo) / float64(b.Of), W: 1, H: float64(b.Hi-b.Lo) / float64(b.Of)}
}

// sends lists what source i sends in a round.
func (x *exchange) sends(round, i int) []Output {
	var outs []Output
	for _, t := range x.sent[round][i] {
		to := x.sources[t.To]
		outs = append(outs, Output{Name: t.name, Viewport: bandViewport(t.Band),
			Buffers: compound.BufferColor | compound.BufferDepth, Consumers: []string{to.Channel.ID}, ROI: clears(to)})
	}
	return outs
}

// receives lists what source i merges after a round.
func (x *exchange) receives(round, i int) []Input {
	var ins []Input
	for _, t := range x.received[round][i] {
		ins = append(ins, Input{Name: t.name, Producers: []string{x.sources[t.From].Channel.ID}, Depth: true})
	}
	return ins
}

// allIn reports whether every one of cs is in set.
func allIn(cs, set []*compound.Compound) bool {
	for _, c := range cs {
		if !slices.Contains(set, c) {
			return false
		}
	}
	return len(cs) > 0
}

// rounds emits, after the sources' draws, each source's merges of the
// rounds and the readbacks of what it sends next, ending with its merged
// band's colour sent to the compound (kept in place when the source is
// the compound's own channel).
func (p *Planner) rounds(x *exchange, states map[string]CompoundState, byChannel map[*compound.Channel]*ChannelPlan) {
	last := len(x.sched.Rounds) - 1
	for r := 0; r <= last; r++ {
		for i, src := range x.sources {
			cp := byChannel[src.Channel]
			base := p.task(src, x.eye, states)
			asm := p.numbered(base, Assemble)
			asm.Inputs = x.receives(r, i)
			asm.Exchange = ExchangeMerge
			if r == last && src.Channel == x.parent.Channel {
				keep := bandViewport(x.sched.Final[i])
				asm.Exchange, asm.Band = ExchangeShow, &keep
			}
			cp.Tasks = append(cp.Tasks, asm)
			rb := p.numbered(base, Readback)
			rb.Exchange = ExchangeSend
			if r < last {
				rb.Outputs = x.sends(r+1, i)
			} else if src.Channel != x.parent.Channel {
				// the merged band holds every source's range, so it lands
				// as a tile; with the source's own range it would be taken
				// for a slab to blend in depth order
				rb.Range = compound.FullRange
				rb.Outputs = []Output{{Name: x.finalName(i), Viewport: bandViewport(x.sched.Final[i]), Buffers: compound.BufferColor,
					Consumers: []string{x.parent.Channel.ID}, ROI: clears(x.parent)}}
			}
			if len(rb.Outputs) > 0 {
				cp.Tasks = append(cp.Tasks, rb)
			}
		}
	}
}

// collected is what the compound assembles in place of its sources' whole
// images: each merged band but its own channel's.
func (x *exchange) collected() []Input {
	var ins []Input
	for i, src := range x.sources {
		if src.Channel != x.parent.Channel {
			ins = append(ins, Input{Name: x.finalName(i), Producers: []string{src.Channel.ID}})
		}
	}
	sort.Slice(ins, func(a, b int) bool { return ins[a].Name < ins[b].Name })
	return ins
}
