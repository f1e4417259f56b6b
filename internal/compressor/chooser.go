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
// moves the choice within a few frames). Lossless codecs only: depth and
// colour must arrive bit-exact.
type Chooser struct {
	mu    sync.Mutex
	stats map[Format]map[Codec]*codecStats
	// Weight of a new measurement in the running means.
	Weight float64
}

type codecStats struct {
	encodeSecPerByte float64
	decodeSecPerByte float64
	ratio            float64 // compressed / raw
	samples          int
}

// NewChooser returns a chooser with no measurements; Calibrate or Observe
// before Choose.
func NewChooser() *Chooser {
	return &Chooser{stats: map[Format]map[Codec]*codecStats{}, Weight: 0.3}
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
	m := c.stats[f]
	if m == nil {
		m = map[Codec]*codecStats{}
		c.stats[f] = m
	}
	s := m[codec]
	e, d, r := encode.Seconds()/float64(raw), decode.Seconds()/float64(raw), float64(encoded)/float64(raw)
	if s == nil {
		m[codec] = &codecStats{e, d, r, 1}
		return
	}
	w := c.Weight
	s.encodeSecPerByte += w * (e - s.encodeSecPerByte)
	s.decodeSecPerByte += w * (d - s.decodeSecPerByte)
	s.ratio += w * (r - s.ratio)
	s.samples++
}

// Calibrate measures every candidate codec on a sample frame.
func (c *Chooser) Calibrate(f Format, width, height int, pixels []byte) error {
	for _, codec := range Candidates(f) {
		start := time.Now()
		enc, err := Encode(nil, codec, f, width, height, 0, pixels)
		if err != nil {
			return err
		}
		mid := time.Now()
		if _, _, err := Decode(nil, enc); err != nil {
			return err
		}
		c.Observe(f, codec, len(pixels), len(enc), mid.Sub(start), time.Since(mid))
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
	best, bestCost := None, time.Duration(math.MaxInt64)
	for _, codec := range Candidates(f) {
		if cost := c.Cost(f, codec, raw, bandwidth); cost < bestCost {
			best, bestCost = codec, cost
		}
	}
	return best
}
