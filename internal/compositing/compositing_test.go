package compositing

import (
	"math/big"
	"slices"
	"testing"
)

func TestParseReadsConfigAndFlagSpellings(t *testing.T) {
	for _, w := range []string{"BINARY_SWAP", "binary_swap", "binary-swap"} {
		if s, err := Parse(w); err != nil || s != BinarySwap {
			t.Errorf("Parse(%q) = %v, %v", w, s, err)
		}
	}
	for _, s := range []Strategy{Auto, Gather, DirectSend, BinarySwap, RadixK} {
		if got, err := Parse(s.String()); err != nil || got != s {
			t.Errorf("Parse(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := Parse("tree"); err == nil {
		t.Error("Parse(tree) took an unknown word")
	}
}

func TestRounds(t *testing.T) {
	cases := []struct {
		s    Strategy
		n    int
		want []int
	}{
		{Gather, 8, nil},
		{DirectSend, 5, []int{5}},
		{BinarySwap, 8, []int{2, 2, 2}},
		{BinarySwap, 6, []int{2, 3}},
		{BinarySwap, 7, []int{7}},
		{RadixK, 4, []int{4}},
		{RadixK, 8, []int{4, 2}},
		{RadixK, 16, []int{4, 4}},
		{RadixK, 12, []int{4, 3}},
		{RadixK, 1, nil},
	}
	for _, c := range cases {
		if got := c.s.Rounds(c.n); !slices.Equal(got, c.want) {
			t.Errorf("%s.Rounds(%d) = %v, want %v", c.s, c.n, got, c.want)
		}
	}
	for n := 2; n <= 64; n++ {
		for _, s := range []Strategy{DirectSend, BinarySwap, RadixK} {
			p := 1
			for _, k := range s.Rounds(n) {
				if s == RadixK && k > RadixGroup && len(primeFactors(k)) > 1 {
					t.Errorf("%s.Rounds(%d) has a composite group %d larger than %d", s, n, k, RadixGroup)
				}
				p *= k
			}
			if p != n {
				t.Errorf("%s.Rounds(%d) = %v: product %d", s, n, s.Rounds(n), p)
			}
		}
	}
}

// TestScheduleMergesEverySourceOnce follows the contributions: each unit
// band of each source starts holding that source; a transfer adds what the
// sender holds of the band to the receiver. In the end the final bands
// tile the image and each holds every source, none twice.
func TestScheduleMergesEverySourceOnce(t *testing.T) {
	for n := 2; n <= 40; n++ {
		for _, s := range []Strategy{DirectSend, BinarySwap, RadixK} {
			ex, err := Schedule(n, s.Rounds(n))
			if err != nil {
				t.Fatal(err)
			}
			// held[i][u]: the sources source i holds merged in unit band u
			held := make([][]*big.Int, n)
			for i := range held {
				held[i] = make([]*big.Int, n)
				for u := range held[i] {
					held[i][u] = new(big.Int).SetBit(new(big.Int), i, 1)
				}
			}
			for r, round := range ex.Rounds {
				next := make([][]*big.Int, n)
				for i := range next {
					next[i] = make([]*big.Int, n)
					for u := range next[i] {
						next[i][u] = new(big.Int).Set(held[i][u])
					}
				}
				for _, tr := range round {
					for u := tr.Band.Lo; u < tr.Band.Hi; u++ {
						if new(big.Int).And(next[tr.To][u], held[tr.From][u]).Sign() != 0 {
							t.Fatalf("%s n=%d round %d: %d->%d merges a source twice in unit %d", s, n, r, tr.From, tr.To, u)
						}
						next[tr.To][u].Or(next[tr.To][u], held[tr.From][u])
					}
				}
				held = next
			}
			all := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n)), big.NewInt(1))
			covered := make([]int, n)
			for i, b := range ex.Final {
				for u := b.Lo; u < b.Hi; u++ {
					covered[u]++
					if held[i][u].Cmp(all) != 0 {
						t.Fatalf("%s n=%d: source %d's final unit %d holds %s", s, n, i, u, held[i][u].Text(2))
					}
				}
			}
			for u, c := range covered {
				if c != 1 {
					t.Fatalf("%s n=%d: unit %d is in %d final bands", s, n, u, c)
				}
			}
		}
	}
	if _, err := Schedule(6, []int{2, 2}); err == nil {
		t.Error("groups that do not make the count were taken")
	}
}

// The model prefers gathering where images are small and exchanging where
// many sources would queue at the destination or its link.
func TestChooseBySizeAndCount(t *testing.T) {
	r := DefaultRates
	if s := r.Choose(Shape{Sources: 4, Pixels: 64 * 36}); s != Gather {
		t.Errorf("4 sources of 64x36: %s, want GATHER", s)
	}
	if s := r.Choose(Shape{Sources: 16, Pixels: 3840 * 2160}); s == Gather {
		t.Error("16 sources at 4K: GATHER")
	}
	slow := r
	slow.LinkBytes = 125e6 // 1 Gbit/s
	if s := slow.Choose(Shape{Sources: 8, Pixels: 1920 * 1080}); s == Gather {
		t.Error("8 sources at 1080p on 1 Gbit/s: GATHER")
	}
	for _, s := range Candidates {
		if a, b := r.Time(s, Shape{Sources: 8, Pixels: 1920 * 1080}), r.Time(s, Shape{Sources: 8, Pixels: 3840 * 2160}); !(b > a) {
			t.Errorf("%s: 4K (%.4f s) not slower than 1080p (%.4f s)", s, b, a)
		}
	}
}

// Where the destination's collecting sets the time, every exchange ties on
// it, and the one that costs the nodes the least work is taken: not
// direct send's n(n-1) messages a frame. Where direct send is as fast and
// costs about as much, it is still taken, as the simplest exchange.
func TestTiedExchangesGoByTheirWork(t *testing.T) {
	r := DefaultRates
	sh := Shape{Sources: 256, Pixels: 1920 * 1080, Draw: 0.01, Pipelined: true}
	ds, bs := r.Time(DirectSend, sh), r.Time(BinarySwap, sh)
	if ds > 1.01*bs {
		t.Fatalf("no tie to break: direct send %.4f s, binary swap %.4f s", ds, bs)
	}
	if s := r.Choose(sh); s != BinarySwap && s != RadixK {
		t.Errorf("256 sources collected at 1080p: %s, want BINARY_SWAP or RADIX_K", s)
	}
	if s := r.Choose(Shape{Sources: 4, Pixels: 1920 * 1080, Draw: 0.01, Pipelined: true}); s != DirectSend {
		t.Errorf("4 sources at 1080p: %s, want DIRECT_SEND", s)
	}
}

// A destination that does not draw merges one frame while the sources draw
// the next: behind a long draw a gather costs nothing more, where an
// exchange keeps the sources from drawing.
func TestLongDrawsHideTheGather(t *testing.T) {
	r := DefaultRates
	sh := Shape{Sources: 8, Pixels: 1920 * 1080, Pipelined: true}
	if s := r.Choose(sh); s == Gather {
		t.Errorf("no draw time: %s", s)
	}
	sh.Draw = 0.2
	if s := r.Choose(sh); s != Gather {
		t.Errorf("200 ms draws, pipelined: %s, want GATHER", s)
	}
	sh.Pipelined = false
	if s := r.Choose(sh); s == Gather {
		t.Errorf("200 ms draws, not pipelined: %s", s)
	}
}

// On cores all nodes share, the destination's merge takes the draws'
// cores: long draws do not make gathering free.
func TestSharedCoresHideNothing(t *testing.T) {
	r := DefaultRates
	sh := Shape{Sources: 4, Pixels: 1920 * 1080, Pipelined: true, Draw: 0.2}
	r.Cores = 2
	if s := r.Choose(sh); s == Gather {
		t.Errorf("4 sources on 2 shared cores, long draws: %s", s)
	}
}
