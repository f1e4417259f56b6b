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
// from measured codec speeds and ratios, refreshed as measurements come in
// (an exponentially weighted mean, so a change of content or of CPU load
// moves the choice within a few frames). Calibration on a sample only
// starts it: the frames a run sends compress and encode differently (mostly
// background, cores shared with the renderer), so senders report each real
// encode (ObserveEncode) and Pick now and then sends with another codec
// that could win, to keep its figures real too. Lossless codecs only: depth
// and colour must arrive bit-exact.
type Chooser struct {
	mu    sync.Mutex
	stats map[Format]map[Codec]*codecStats
	picks map[Format]int
	// Weight of a new measurement in the running means.
	Weight float64
	// ProbeEvery: every ProbeEvery-th Pick of a format tries, in turn, a
	// codec predicted to cost at most ProbeWithin times the cheapest, or
	// (but None) not yet tried on a frame sent (0: never probe).
	ProbeEvery  int
	ProbeWithin float64
}

type codecStats struct {
	encodeSecPerByte float64
	decodeSecPerByte float64
	ratio            float64 // compressed / raw
	samples          int
	framesSent       int // of the samples, real frames (ObserveEncode)
	framesDecoded    int // real frames decoded (ObserveDecode)
}

// decodeEvery is how often, in frames sent, WantsDecode asks for a decode
// to be measured again: a decoder's speed moves slowly with the content.
const decodeEvery = 64

// NewChooser returns a chooser with no measurements; Calibrate or Observe
// before Choose.
func NewChooser() *Chooser {
	return &Chooser{stats: map[Format]map[Codec]*codecStats{}, picks: map[Format]int{}, Weight: 0.3, ProbeEvery: 16, ProbeWithin: 2}
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
	m := c.format(f)
	s := m[codec]
	e, d, r := encode.Seconds()/float64(raw), decode.Seconds()/float64(raw), float64(encoded)/float64(raw)
	if s == nil {
		m[codec] = &codecStats{encodeSecPerByte: e, decodeSecPerByte: d, ratio: r, samples: 1}
		return
	}
	w := c.Weight
	s.encodeSecPerByte += w * (e - s.encodeSecPerByte)
	s.decodeSecPerByte += w * (d - s.decodeSecPerByte)
	s.ratio += w * (r - s.ratio)
	s.samples++
}

// format is the figures of a format's codecs (c.mu held).
func (c *Chooser) format(f Format) map[Codec]*codecStats {
	m := c.stats[f]
	if m == nil {
		m = map[Codec]*codecStats{}
		c.stats[f] = m
	}
	return m
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
	m := c.format(f)
	e, r := encode.Seconds()/float64(raw), float64(encoded)/float64(raw)
	s := m[codec]
	switch {
	case s == nil:
		s = &codecStats{encodeSecPerByte: e, decodeSecPerByte: e, ratio: r}
		m[codec] = s
	case s.framesSent == 0:
		// the first real frame replaces what calibration guessed
		s.encodeSecPerByte, s.ratio = e, r
	default:
		s.encodeSecPerByte += c.Weight * (e - s.encodeSecPerByte)
		s.ratio += c.Weight * (r - s.ratio)
	}
	s.samples++
	s.framesSent++
}

// WantsDecode says whether the sender should decode the frame it just
// encoded with codec and report the time (ObserveDecode): for the first
// frame a codec encodes, and then now and then.
func (c *Chooser) WantsDecode(f Format, codec Codec) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	return s != nil && s.framesSent > 0 && (s.framesDecoded == 0 || s.framesSent%decodeEvery == 0)
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
		s.decodeSecPerByte = d
	} else {
		s.decodeSecPerByte += c.Weight * (d - s.decodeSecPerByte)
	}
	s.framesDecoded++
}

// Calibrate measures every candidate codec on a sample frame, taking the
// fastest of three encodes and decodes (a process that is starting has
// other things on its cores).
func (c *Chooser) Calibrate(f Format, width, height int, pixels []byte) error {
	for _, codec := range Candidates(f) {
		var encode, decode time.Duration
		var size int
		for i := 0; i < 3; i++ {
			start := time.Now()
			enc, err := Encode(nil, codec, f, width, height, 0, pixels)
			if err != nil {
				return err
			}
			mid := time.Now()
			if _, _, err := Decode(nil, enc); err != nil {
				return err
			}
			e, d := mid.Sub(start), time.Since(mid)
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

// Cost predicts the time to move raw bytes of format f with codec over a
// link of the given bandwidth (bytes per second); +Inf when unmeasured.
func (c *Chooser) Cost(f Format, codec Codec, raw int, bandwidth float64) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	if s == nil || bandwidth <= 0 {
		return time.Duration(math.MaxInt64)
	}
	sec := float64(raw) * (s.encodeSecPerByte + s.decodeSecPerByte + s.ratio/bandwidth)
	return time.Duration(sec * 1e9)
}

// Choose returns the cheapest measured codec for the link; None when
// nothing is measured yet.
func (c *Chooser) Choose(f Format, raw int, bandwidth float64) Codec {
	best, _ := c.cheapest(f, raw, bandwidth)
	return best
}

func (c *Chooser) cheapest(f Format, raw int, bandwidth float64) (Codec, time.Duration) {
	best, bestCost := None, time.Duration(math.MaxInt64)
	for _, codec := range Candidates(f) {
		if cost := c.Cost(f, codec, raw, bandwidth); cost < bestCost {
			best, bestCost = codec, cost
		}
	}
	return best, bestCost
}

// Pick is Choose for a frame about to be sent, which the sender then
// reports with ObserveEncode: now and then (ProbeEvery) it returns instead
// another codec that could win: one predicted within ProbeWithin of the
// cheapest, or one known only from calibration, except None, whose size is
// known and which would cost a slow link dearly.
func (c *Chooser) Pick(f Format, raw int, bandwidth float64) Codec {
	best, bestCost := c.cheapest(f, raw, bandwidth)
	c.mu.Lock()
	n := c.picks[f]
	c.picks[f]++
	c.mu.Unlock()
	if c.ProbeEvery <= 0 || n%c.ProbeEvery != c.ProbeEvery-1 || bestCost == time.Duration(math.MaxInt64) {
		return best
	}
	var rivals []Codec
	for _, other := range Candidates(f) {
		if other == best {
			continue
		}
		untried := other != None && !c.triedOnFrames(f, other)
		if untried || float64(c.Cost(f, other, raw, bandwidth)) <= c.ProbeWithin*float64(bestCost) {
			rivals = append(rivals, other)
		}
	}
	if len(rivals) == 0 {
		return best
	}
	return rivals[(n/c.ProbeEvery)%len(rivals)]
}

func (c *Chooser) triedOnFrames(f Format, codec Codec) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[f][codec]
	return s != nil && s.framesSent > 0
}
