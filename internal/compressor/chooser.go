package compressor

import (
	"math"
	"sync"
	"time"
)

// Chooser picks a codec per link: the one that minimises
//
//	encode time + compressed size / link bandwidth + decode time
//
// (less where the sending host's cores are all busy: see Link) from
// measured codec speeds and ratios, refreshed as measurements come in
// (see recent for the times; sizes are a weighted mean), so a change of
// content moves the choice within a few frames. Calibration on a sample
// only starts it: the frames a run sends compress and encode differently
// (mostly background, cores shared with the renderer), so senders report
// each real encode (ObserveEncode) and Pick now and then sends with
// another codec that could win, to keep its figures real too. Lossless
// codecs only: depth and colour must arrive bit-exact.
type Chooser struct {
	mu    sync.Mutex
	stats map[Format]map[Codec]*codecStats
	picks map[Format]int
	// sampleTaken: a real frame of the format has been sampled (see
	// WantsSample)
	sampleTaken map[Format]bool
	// Weight of a new size in the running mean of a codec's ratio.
	Weight float64
	// ProbeEvery: every ProbeEvery-th Pick of a format tries, in turn, a
	// codec predicted to cost at most ProbeWithin times the cheapest; four
	// times as often one not yet sent on framesJudged frames, but None
	// (0: never probe). See Pick.
	ProbeEvery  int
	ProbeWithin float64
}

type codecStats struct {
	encode, decode recent  // seconds per raw byte
	ratio          float64 // compressed / raw
	framesSent     int     // real frames encoded (ObserveEncode)
	framesDecoded  int     // real frames decoded (ObserveDecode)
	probedAt       int     // the pick that last sent it to be judged (see leastMeasured)
	// sampled: the figures are from a sample of a real frame
	// (ObserveSample), its ratio the content's
	sampled bool
}

// recent holds the last few measured times of a codec; its value is the
// least of them. Whatever else a process does while it codes (a garbage
// collector's assist, page faults in a fresh buffer) only adds CPU time,
// and on a virtual machine so does the host running something else,
// which the thread's clock counts as its own, for stretches of up to
// tens of milliseconds: single decodes measured 20-30 times their cost,
// and a codec in use 7 times its cost on several frames in a row. As a running mean's
// first figure one such measurement kept a codec from being chosen, or
// probed, for the next 64 frames. The least of eight follows a real rise
// of cost within eight frames; a codec is judged once it has
// framesJudged of them.
type recent struct {
	v [8]float64
	n int
}

const framesJudged = 3

func (r *recent) add(x float64) {
	r.v[r.n%len(r.v)] = x
	r.n++
}

// replace forgets what was measured before (calibration's guesses).
func (r *recent) replace(x float64) {
	*r = recent{}
	r.add(x)
}

func (r *recent) value() float64 {
	least := r.v[0]
	for _, x := range r.v[1:min(r.n, len(r.v))] {
		least = math.Min(least, x)
	}
	return least
}

// decodeEvery is how often, in frames sent, WantsDecode asks for a decode
// to be measured again: a decoder's speed moves slowly with the content.
// The first framesJudged frames a codec sends are all measured, so that
// its figure does not rest on one measurement (see recent).
const decodeEvery = 64

// NewChooser returns a chooser with no measurements; Calibrate or Observe
// before Choose.
func NewChooser() *Chooser {
	return &Chooser{stats: map[Format]map[Codec]*codecStats{}, picks: map[Format]int{}, sampleTaken: map[Format]bool{},
		Weight: 0.3, ProbeEvery: 16, ProbeWithin: 2}
}

// Candidates are the codecs worth considering for a format.
func Candidates(f Format) []Codec {
	if f == RGBA8 {
		return []Codec{None, S2, Zstd, Planes, RLE, PlaneRLE}
	}
	return []Codec{None, S2, Zstd, Planes, Delta, PlaneRLE}
}

// Observe records one measured encode/decode of raw bytes to encoded bytes.
func (c *Chooser) Observe(f Format, codec Codec, raw, encoded int, encode, decode time.Duration) {
	if raw <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, fresh := c.entry(f, codec)
	e, d, r := encode.Seconds()/float64(raw), decode.Seconds()/float64(raw), float64(encoded)/float64(raw)
	if fresh {
		s.ratio = r
	} else {
		s.ratio += c.Weight * (r - s.ratio)
	}
	s.encode.add(e)
	s.decode.add(d)
}

// entry is a codec's figures for a format, made empty (fresh) if it had
// none (c.mu held).
func (c *Chooser) entry(f Format, codec Codec) (s *codecStats, fresh bool) {
	m := c.stats[f]
	if m == nil {
		m = map[Codec]*codecStats{}
		c.stats[f] = m
	}
	if s = m[codec]; s == nil {
		s = &codecStats{}
		m[codec] = s
		fresh = true
	}
	return s, fresh
}

// ObserveEncode records a real frame's encode, raw bytes to encoded bytes.
// Its decode happens on the receiver and is not measured there: the decode
// figures are those of calibration until the sender measures one
// (WantsDecode, ObserveDecode), or the encode's until there are any.
func (c *Chooser) ObserveEncode(f Format, codec Codec, raw, encoded int, encode time.Duration) {
	if raw <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, fresh := c.entry(f, codec)
	e, r := encode.Seconds()/float64(raw), float64(encoded)/float64(raw)
	switch {
	case fresh:
		s.ratio = r
		s.encode.add(e)
		s.decode.add(e)
	case s.framesSent == 0:
		// the first real frame replaces what calibration guessed
		s.encode.replace(e)
		s.ratio = r
	default:
		s.encode.add(e)
		s.ratio += c.Weight * (r - s.ratio)
	}
	s.framesSent++
}

// WantsDecode says whether the sender should decode the frame it just
// encoded with codec and report the time (ObserveDecode): for the first
// frames a codec encodes (framesJudged), and then now and then.
func (c *Chooser) WantsDecode(f Format, codec Codec) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	return s != nil && s.framesSent > 0 && (s.framesDecoded < framesJudged || s.framesSent%decodeEvery == 0)
}

// ObserveDecode records the decode of a real frame of raw bytes.
func (c *Chooser) ObserveDecode(f Format, codec Codec, raw int, decode time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	if s == nil || raw <= 0 {
		return
	}
	d := decode.Seconds() / float64(raw)
	if s.framesDecoded == 0 {
		s.decode.replace(d)
	} else {
		s.decode.add(d)
	}
	s.framesDecoded++
}

// Calibrate measures every candidate codec on a sample frame, taking the
// least CPU time of three encodes and decodes (a process that is starting
// has other things on its cores).
func (c *Chooser) Calibrate(f Format, width, height int, pixels []byte) error {
	for _, codec := range Candidates(f) {
		var encode, decode time.Duration
		var size int
		for i := 0; i < 3; i++ {
			var enc []byte
			var err error
			e := MeasureCPU(func(cpu *CPU) { enc, err = EncodeCPU(cpu, nil, codec, f, width, height, 0, pixels) })
			if err != nil {
				return err
			}
			d := MeasureCPU(func(cpu *CPU) {
				_, _, err = DecodeExpect(nil, enc, Expect{Width: width, Height: height, Format: f, CPU: cpu})
			})
			if err != nil {
				return err
			}
			if i == 0 || e < encode {
				encode = e
			}
			if i == 0 || d < decode {
				decode = d
			}
			size = len(enc)
		}
		c.Observe(f, codec, len(pixels), size, encode, decode)
	}
	return nil
}

// WantsSample says, once per format, that the sender should measure every
// candidate codec on a sample of the frame it is about to send and report
// each with ObserveSample.
func (c *Chooser) WantsSample(f Format) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	wants := !c.sampleTaken[f]
	c.sampleTaken[f] = true
	return wants
}

// ObserveSample records a codec's encode and decode of a sample of a
// real frame (rows spread over it), raw bytes to encoded bytes, in place
// of calibration's. Unlike calibration's, its ratio is near the
// content's, so Pick does not send to be judged a codec whose sampled
// bytes alone clearly cost more than the cheapest in all (see
// cannotWin): on a 100 Mbit/s link the first frame of rle and of
// plane-rle took two or three frames' time each, to show what a sample
// shows. It does not count as a frame sent with the codec, which judges
// it: an LZ codec's ratio on the sample was up to 35% above the whole
// frame's (its matches reach across the frame), and choosing by it sent
// s2 where zstd was faster. A codec already sent keeps what its frames
// measured.
func (c *Chooser) ObserveSample(f Format, codec Codec, raw, encoded int, encode, decode time.Duration) {
	if raw <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, _ := c.entry(f, codec)
	if s.framesSent > 0 {
		return
	}
	s.encode.replace(encode.Seconds() / float64(raw))
	s.decode.replace(decode.Seconds() / float64(raw))
	s.ratio = float64(encoded) / float64(raw)
	s.sampled = true
}

// Link is what the chooser knows of a link and of the host sending on it.
type Link struct {
	// Bandwidth is in bytes per second; 0 until measured, when Pick
	// assumes assumedBandwidth but does not send None, whose cost is all
	// the link's (on a slow link a raw frame takes many frames' time).
	Bandwidth float64
	// RawPerSecond is the raw bytes offered to the link per second (0:
	// not measured yet), and CoresFull says the sending host's cores are
	// all busy. With both, frames are pipelined and bound by the CPU: a
	// codec's coding time is taken from rendering, while a link busy for
	// a fraction u of the time adds to the frame period only about as
	// much as u of the bytes' crossing time (make bench-cluster: on a
	// 10 Gbit/s link carrying a tenth of its rate from hosts whose cores
	// were full, raw frames took 4% less time than s2's, which the
	// crossing time alone ranks first).
	RawPerSecond float64
	CoresFull    bool
}

// Cost predicts the time raw bytes of format f with codec add to a frame
// on link; +Inf when unmeasured.
func (c *Chooser) Cost(f Format, codec Codec, raw int, link Link) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	if s == nil || link.Bandwidth <= 0 {
		return time.Duration(math.MaxInt64)
	}
	sec := float64(raw)*(s.encode.value()+s.decode.value()) + link.crossing(raw, s.ratio)
	return time.Duration(sec * 1e9)
}

// crossing is how many seconds raw bytes coded at ratio add to a frame by
// crossing the link: all of their crossing time, but on a pipelined host
// whose cores are full, where it counts times the link's busy fraction
// with that codec.
func (l Link) crossing(raw int, ratio float64) float64 {
	share := 1.0
	if l.CoresFull && l.RawPerSecond > 0 {
		share = math.Min(1, l.RawPerSecond*ratio/l.Bandwidth)
	}
	return share * float64(raw) * ratio / l.Bandwidth
}

// Choose returns the cheapest measured codec for the link; None when
// nothing is measured yet.
func (c *Chooser) Choose(f Format, raw int, link Link) Codec {
	best, _ := c.cheapest(f, raw, link, true)
	return best
}

func (c *Chooser) cheapest(f Format, raw int, link Link, withNone bool) (Codec, time.Duration) {
	best, bestCost := None, time.Duration(math.MaxInt64)
	for _, codec := range Candidates(f) {
		if codec == None && !withNone {
			continue
		}
		if cost := c.Cost(f, codec, raw, link); cost < bestCost {
			best, bestCost = codec, cost
		}
	}
	return best, bestCost
}

// Pick is Choose for a frame about to be sent, which the sender then
// reports with ObserveEncode. Now and then it returns instead another
// codec that could win. A codec is judged on the least of its last
// measurements (see recent) once it has framesJudged of them, so one
// sent on fewer frames is tried first, four times per ProbeEvery picks,
// however much calibration predicts it to cost (a codec probed once, in
// a slow moment, was never tried again), and one never sent at once,
// unless its size shows that it cannot win or the frames it was sent on
// that it is unlikely to (see leastMeasured). Then every ProbeEvery-th
// pick tries, in turn, one predicted within ProbeWithin of the cheapest.
func (c *Chooser) Pick(f Format, raw int, link Link) Codec {
	measured := link.Bandwidth > 0
	if !measured {
		link.Bandwidth = assumedBandwidth
	}
	best, bestCost := c.cheapest(f, raw, link, measured)
	c.mu.Lock()
	n := c.picks[f]
	c.picks[f]++
	c.mu.Unlock()
	if c.ProbeEvery <= 0 || bestCost == time.Duration(math.MaxInt64) {
		return best
	}
	// a codec never sent is tried at once: until it is, best may rest on
	// calibration's guesses alone
	every := max(c.ProbeEvery/4, 1)
	if codec, sent, ok := c.leastMeasured(f, n, best, bestCost, raw, link, measured); ok && (sent == 0 || n%every == every-1) {
		c.mu.Lock()
		if s := c.stats[f][codec]; s != nil {
			s.probedAt = n
		}
		c.mu.Unlock()
		return codec
	}
	if n%c.ProbeEvery != c.ProbeEvery-1 {
		return best
	}
	var rivals []Codec
	for _, other := range Candidates(f) {
		if other != best && (other != None || measured) && float64(c.Cost(f, other, raw, link)) <= c.ProbeWithin*float64(bestCost) {
			rivals = append(rivals, other)
		}
	}
	if len(rivals) == 0 {
		return best
	}
	return rivals[(n/c.ProbeEvery)%len(rivals)]
}

// leastMeasured is the codec, but best, sent on the fewest frames if
// that is fewer than it is judged on, the cheapest of those; not one
// that cannotWin (on a 100 Mbit/s link, probing rle and plane-rle three
// times each cost 60-frame runs 10% of their frame time), nor None on a
// link not measured yet. One whose frames so far cost more than best waits
// deferProbe picks before it is tried again: a measured cost is too high
// only where the host ran something else meanwhile (see recent), which
// a codec's next frames rarely share, so one that lost on its first
// frame most likely loses; judging each on framesJudged frames at once
// took every fourth frame of a 60-frame run. It is tried again, not
// dropped, for the frame that was measured too high, and those within
// ProbeWithin of best are tried anyway now and then (see Pick).
func (c *Chooser) leastMeasured(f Format, pick int, best Codec, bestCost time.Duration, raw int, link Link, measured bool) (Codec, int, bool) {
	found, ok, fewest, cost := None, false, framesJudged, time.Duration(0)
	for _, codec := range Candidates(f) {
		if codec == best || codec == None && !measured {
			continue
		}
		c.mu.Lock()
		s := c.stats[f][codec]
		var sent, probedAt int
		if s != nil {
			sent, probedAt = s.framesSent, s.probedAt
		}
		c.mu.Unlock()
		if s == nil {
			continue // not even calibrated
		}
		if sent >= framesJudged || c.cannotWin(f, codec, raw, link, bestCost) {
			continue
		}
		cc := c.Cost(f, codec, raw, link)
		if sent > 0 && cc > bestCost && pick-probedAt < deferProbe {
			continue
		}
		if sent < fewest || sent == fewest && cc < cost {
			found, ok, fewest, cost = codec, true, sent, cc
		}
	}
	return found, fewest, ok
}

// cannotWin says that a codec's bytes alone take longer to cross the link
// than best takes in all, however fast it codes; only where its size is
// known: from frames sent, and None's always; or from a sample, with a
// margin for its error (see ObserveSample).
func (c *Chooser) cannotWin(f Format, codec Codec, raw int, link Link, bestCost time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	switch {
	case s == nil:
		return false
	case s.framesSent > 0 || codec == None:
		return link.crossing(raw, s.ratio) >= bestCost.Seconds()
	case s.sampled:
		return link.crossing(raw, s.ratio) >= sampleMargin*bestCost.Seconds()
	}
	return false
}

// sampleMargin is how much more than the cheapest codec's cost a codec's
// sampled bytes must take to cross before it is ruled out unsent: its
// ratio on a sample was up to 35% off the whole frame's.
const sampleMargin = 1.5

// assumedBandwidth is what Pick takes a link whose bandwidth is not
// measured yet to carry: 10 Gbit/s.
const assumedBandwidth = 1.25e9

// deferProbe is how many picks a codec whose first frames cost more than
// the cheapest waits before it is judged further.
const deferProbe = 128
