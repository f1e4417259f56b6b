// Package compositing plans how the sources of a sort-last (DB) compound
// combine their images: all at the destination (gather), or by exchanging
// bands of the image among themselves first (direct send, binary swap,
// radix-k) so that each source merges one band and the destination only
// collects finished colour. A cost model picks one by image size and source
// count. It is pure: the compound package turns a schedule into compounds
// and frames, as an Equalizer user would write them by hand.
package compositing

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Strategy is how a sort-last compound composites.
type Strategy uint8

// Strategies. Auto lets the cost model choose.
const (
	Auto Strategy = iota
	// Gather: every source sends its whole image (colour and depth) to the
	// destination, which merges them all.
	Gather
	// DirectSend: one round in which every source sends band j of its
	// image to source j; each then sends its merged band's colour to the
	// destination (Equalizer's 4-node.DB.ds.eqc).
	DirectSend
	// BinarySwap: rounds of pairs, each keeping half of what it holds and
	// sending the other half to its partner (Equalizer's 4-node.DB.bs.eqc).
	// Counts that are not a power of two swap in groups of their prime
	// factors (2-3 swap).
	BinarySwap
	// RadixK: rounds of groups of up to RadixGroup sources doing a direct
	// send among themselves (IceT's radix-k): fewer rounds than binary swap,
	// fewer messages than direct send.
	RadixK
)

// RadixGroup is the largest group radix-k exchanges in: IceT's default is 8;
// 4 keeps a 16-source exchange at two rounds of three messages per source.
const RadixGroup = 4

var words = [...]string{Auto: "AUTO", Gather: "GATHER", DirectSend: "DIRECT_SEND", BinarySwap: "BINARY_SWAP", RadixK: "RADIX_K"}

// Words lists the strategies as a config names them.
func Words() []string { return words[:] }

func (s Strategy) String() string {
	if int(s) < len(words) {
		return words[s]
	}
	return fmt.Sprintf("strategy(%d)", uint8(s))
}

// Parse reads a strategy as a config or command line names it
// (BINARY_SWAP, binary_swap or binary-swap).
func Parse(word string) (Strategy, error) {
	w := strings.ToUpper(strings.ReplaceAll(word, "-", "_"))
	for i, n := range words {
		if n == w {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown compositing %q (expected one of: %s)", word, strings.Join(words[:], ", "))
}

// Rounds returns the group size of each exchange round for n sources; their
// product is n. Gather (and any n < 2) exchanges nothing.
func (s Strategy) Rounds(n int) []int {
	if n < 2 {
		return nil
	}
	switch s {
	case DirectSend:
		return []int{n}
	case BinarySwap:
		return primeFactors(n)
	case RadixK:
		return radixFactors(n, RadixGroup)
	}
	return nil
}

func primeFactors(n int) []int {
	var out []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			out = append(out, p)
			n /= p
		}
	}
	if n > 1 {
		out = append(out, n)
	}
	return out
}

// radixFactors splits n into as few rounds as groups of at most k allow,
// each as close to the others as n's divisors permit; a prime larger than k
// is one round of its own.
func radixFactors(n, k int) []int {
	primes := primeFactors(n)
	// pack the primes, largest first, into the fewest groups of product <= k
	slices.Reverse(primes)
	var groups []int
	for _, p := range primes {
		best := -1
		for i, g := range groups {
			if g*p <= k && (best < 0 || g < groups[best]) {
				best = i
			}
		}
		if best < 0 {
			groups = append(groups, p)
		} else {
			groups[best] *= p
		}
	}
	slices.SortFunc(groups, func(a, b int) int { return b - a })
	return groups
}

// Band is a horizontal band of the image in units of 1/Of of its height,
// from the bottom: rows [Lo, Hi) of Of.
type Band struct{ Lo, Hi, Of int }

// Transfer is one part of the image a source sends to another in a round.
type Transfer struct {
	From, To int
	Band     Band
}

// Exchange is a complete schedule for n sources: the transfers of each
// round, and the band each source holds merged at the end.
type Exchange struct {
	Sources int
	Rounds  [][]Transfer
	Final   []Band
}

// Schedule lays out the rounds for n sources exchanging in groups of the
// given sizes (their product must be n). Source i's digit in round j is
// (i / (k0*...*k(j-1))) mod kj; its group in that round is the sources that
// differ from it in that digit only, which hold the same band: it splits
// that band into kj parts, keeps the part of its digit and sends part p to
// the member whose digit is p.
func Schedule(n int, groups []int) (Exchange, error) {
	prod := 1
	for _, k := range groups {
		if k < 2 {
			return Exchange{}, fmt.Errorf("compositing: group of %d sources", k)
		}
		prod *= k
	}
	if n < 2 || prod != n {
		return Exchange{}, fmt.Errorf("compositing: groups %v do not make %d sources", groups, n)
	}
	held := make([]Band, n)
	for i := range held {
		held[i] = Band{0, n, n}
	}
	ex := Exchange{Sources: n}
	stride := 1
	for _, k := range groups {
		var round []Transfer
		next := make([]Band, n)
		for i := 0; i < n; i++ {
			digit := i / stride % k
			base := i - digit*stride
			b := held[i]
			size := (b.Hi - b.Lo) / k
			for p := 0; p < k; p++ {
				part := Band{b.Lo + p*size, b.Lo + (p+1)*size, n}
				if p == digit {
					next[i] = part
					continue
				}
				round = append(round, Transfer{From: i, To: base + p*stride, Band: part})
			}
		}
		ex.Rounds = append(ex.Rounds, round)
		held = next
		stride *= k
	}
	ex.Final = held
	return ex, nil
}

// Shape is what a compound's compositing cost depends on.
type Shape struct {
	Sources int
	Pixels  float64 // of the destination's share
	// DestinationRenders: the destination's channel is one of the
	// sources, so its own band stays where it is.
	DestinationRenders bool
	// Draw is the slowest source's draw (seconds; 0 when not known yet).
	// Pipelined: frames overlap (latency 1 or more), so a destination that
	// does not render merges one frame while the sources draw the next.
	// Gathering hides its merge behind the draws that way; an exchange
	// keeps the sources busy until it ends.
	Draw      float64
	Pipelined bool
}

// Rates are the measured costs a schedule's time is made of. Times are
// those of one node; nodes work in parallel unless Cores bounds them.
type Rates struct {
	// MergePixels: pixels per second of one input merged into a channel:
	// receive, decode, depth test and write.
	MergePixels float64 `json:"merge_pixels_per_s"`
	// ReadbackPixels: pixels per second read back and encoded.
	ReadbackPixels float64 `json:"readback_pixels_per_s"`
	// UploadPixels: pixels per second of a merged band made visible to
	// the GL once its inputs are in (under a software GL the merge runs
	// in memory and the band is uploaded; on a GPU it is nearly free).
	UploadPixels float64 `json:"upload_pixels_per_s"`
	// LinkBytes: bytes per second one node sends and receives (each way).
	LinkBytes float64 `json:"link_bytes_per_s"`
	// Bytes per pixel as sent: colour and depth, colour alone (after
	// compression).
	DepthBytes float64 `json:"depth_bytes_per_pixel"`
	ColorBytes float64 `json:"color_bytes_per_pixel"`
	// PerMessage: fixed seconds of one frame sent, received and assembled.
	PerMessage float64 `json:"per_message_s"`
	// PerRound: seconds a round adds by waiting for its slowest partner.
	PerRound float64 `json:"per_round_s"`
	// Cores: when nonzero, all nodes share that many cores, and the time is
	// at least the work of all nodes divided by them.
	Cores float64 `json:"cores"`
	// BandsInMemory: exchanging sources keep their band in memory between
	// rounds (under a software GL): each reads its whole image once, and
	// only the bands shown are uploaded.
	BandsInMemory bool `json:"bands_in_memory"`
}

// Time models a frame's seconds: the sources' draw, then the compositing
// until the destination's image is finished, less what pipelining hides.
func (r Rates) Time(s Strategy, sh Shape) float64 {
	return r.timeOf(r.cost(s, sh))
}

// timeOf is the modelled time of a critical path and its nodes' total
// work: where the nodes share cores, the work may take longer.
func (r Rates) timeOf(path, work float64) float64 {
	if r.Cores > 0 {
		return math.Max(path, work/r.Cores)
	}
	return path
}

// cost returns the critical path and the total work of all nodes.
func (r Rates) cost(s Strategy, sh Shape) (path, work float64) {
	n, px := sh.Sources, sh.Pixels
	collected := n // inputs the destination assembles at the end
	if sh.DestinationRenders {
		collected--
	}
	in := func(pixels, bytesPerPixel float64) float64 {
		return r.PerMessage + pixels*bytesPerPixel/r.LinkBytes + pixels/r.MergePixels
	}
	groups := s.Rounds(n)
	upload := func(pixels float64) float64 {
		if r.UploadPixels <= 0 {
			return 0
		}
		return pixels / r.UploadPixels
	}
	// frame is the critical path: the sources' part (their draw and what
	// they composite) and the destination's, one after the other, or side
	// by side when the frames are pipelined and the destination does not
	// draw
	frame := func(sources, destination float64) float64 {
		if sh.Pipelined && !sh.DestinationRenders && r.Cores == 0 {
			return math.Max(sh.Draw+sources, destination)
		}
		// (on shared cores the destination's work takes the draws' cores:
		// it does not hide)
		return sh.Draw + sources + destination
	}
	if len(groups) == 0 {
		// each source reads its image back; the destination takes them in turn
		merge := float64(collected)*in(px, r.DepthBytes) + upload(px)
		path = frame(px/r.ReadbackPixels+r.PerRound, merge)
		work = float64(n)*px/r.ReadbackPixels + merge
		return path, work
	}
	exchange := 0.0
	held := px
	for j, k := range groups {
		part := held / float64(k)
		others := float64(k - 1)
		step := others * (part/r.ReadbackPixels + in(part, r.DepthBytes))
		switch {
		case !r.BandsInMemory:
			step += upload(part) // the merged band goes back to the GL
		case j == 0:
			step += part / r.ReadbackPixels // the part kept is read as well
		}
		exchange += r.PerRound + step
		work += float64(n) * step
		held = part
	}
	// the merged bands travel as colour to the destination, which takes
	// them in turn and shows them
	collect := float64(collected)*in(held, r.ColorBytes) + upload(float64(collected)*held)
	path = frame(exchange+r.PerRound+held/r.ReadbackPixels, collect)
	work += float64(n)*held/r.ReadbackPixels + collect
	return path, work
}

// Candidates are the strategies Auto chooses among, simplest first.
var Candidates = []Strategy{Gather, DirectSend, BinarySwap, RadixK}

// Choose returns the simplest strategy (first in Candidates) whose
// modelled time is within 5% of the shortest, the model's error, and whose
// work, all nodes' together, is within 5% of the least of those. Where a
// destination's collecting sets the time, the exchanges tie on it however
// many messages they send: 256 sources took direct send's 65,280 a frame
// over binary swap's 2,048 for 0.4% of modelled time, and the messages'
// cost on a real network (switch contention) is what the model leaves out.
func (r Rates) Choose(sh Shape) Strategy {
	times, works := make([]float64, len(Candidates)), make([]float64, len(Candidates))
	fastest := math.Inf(1)
	for i, s := range Candidates {
		path, work := r.cost(s, sh)
		times[i], works[i] = r.timeOf(path, work), work
		fastest = math.Min(fastest, times[i])
	}
	least := math.Inf(1)
	for i := range Candidates {
		if times[i] <= fastest*1.05 {
			least = math.Min(least, works[i])
		}
	}
	for i, s := range Candidates {
		if times[i] <= fastest*1.05 && works[i] <= least*1.05 {
			return s
		}
	}
	return Gather
}

// DefaultRates are the costs measured on this project's reference machine
// type, llvmpipe on a 2-core AMD EPYC (docs/benchmarks.md, "Sort-last
// compositing"): readback and merge from the sources' and destination's
// per-frame times of 1080p runs, the upload from the GPU-merge benchmark
// (26 ms a 1080p frame), a 10 Gbit/s link, and bands kept in memory, as
// the executor does under a software GL. Compressed rendered frames
// are taken at 1 byte a pixel with depth, 0.3 without.
var DefaultRates = Rates{
	MergePixels:    150e6,
	ReadbackPixels: 150e6,
	UploadPixels:   80e6,
	LinkBytes:      1.25e9,
	DepthBytes:     1,
	ColorBytes:     0.3,
	PerMessage:     0.5e-3,
	PerRound:       1e-3,
	BandsInMemory:  true,
}
