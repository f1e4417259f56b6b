package channel

import (
	"slices"
	"sync"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
)

// FrameData is one output frame's pixels on their way from the channel
// that rendered them to the channel that composites them (Equalizer's
// frame data). Channels are named by ID.
type FrameData struct {
	Frame    int
	Eye      int
	Name     string // the output frame's name
	Producer string
	Consumer string
	Compound string // the producing compound (statistics)
	// Share is where the pixels go in destination pixels; W x H pixels
	// cover it.
	Share compound.PixelViewport
	// Extent is the whole output frame in the same coordinates (Share is
	// cut to what was drawn): frames between destinations land relative
	// to its corner, and placed frames (monitor) map it onto their place.
	Extent   compound.PixelViewport
	Range    compound.Range
	Pixel    compound.Pixel
	Subpixel compound.Subpixel
	W, H     int
	// Tile is 1 + the tile's index in its queue (0: not a tile). End marks
	// the end of a producer's tile stream: Tiles tiles were sent.
	Tile  int
	Tiles int
	End   bool
	Color []byte
	Depth []float32
	// Release, when set, gives the pixel memory back (the receive buffer)
	// once nothing reads it.
	Release func()
	// repaired: from a part drawn here again for a lost one to another
	// drawn with it (Executor.Repair), never through the sink: the
	// channel it goes to may be this pipe's own, which waits for the
	// frame of that name from the live producer
	repaired bool
}

func (f *FrameData) release() {
	if f.Release != nil {
		f.Release()
		f.Release = nil
	}
}

// inputKey names what an assemble waits for: one producer's frame of a
// name, for one eye of one frame.
type inputKey struct {
	frame    int
	eye      int
	name     string
	producer string
	consumer string
	repaired bool // between parts drawn again (FrameData.repaired)
}

// arrival is an input frame (or one tile of it) with its upload under way.
type arrival struct {
	data   *FrameData // its pixels handed to upload
	upload *Upload
	depth  bool // it has depth
}

type grantKey struct {
	frame   int
	channel string
	queue   string
	// repaired: a channel's items for its parts drawn again that read
	// them, which each such part reads (grantsFrom) and none takes
	repaired bool
}

// Grant is a batch of tile queue items for a channel.
type Grant struct {
	Frame   int
	Channel string
	Queue   string
	First   int
	Tiles   []compound.PixelViewport
	Ranges  []compound.Range
	Done    bool
	// Repaired: for the parts of repairs that read the channel's items
	// (Executor.Repair's feeders and reading) rather than pull them
	Repaired bool
}

// inbox holds what arrives for a pipe while its executor runs: input
// frames (uploading as they come), tile stream ends, abandoned producers
// and tile grants. changed wakes the executor.
type inbox struct {
	mu        sync.Mutex
	changed   chan struct{}
	arrivals  map[inputKey][]*arrival
	ends      map[inputKey]int
	abandoned map[int]map[string]bool // frame -> producer IDs
	grants    map[grantKey][]Grant
	// repairs are lost channels' parts of a frame this pipe draws in
	// their stead (Executor.Repair)
	repairs map[int][]repair
	// through is the last frame the executor finished: later arrivals
	// for it or earlier ones are dropped at once
	through int
}

func newInbox() *inbox {
	return &inbox{changed: make(chan struct{}, 1), arrivals: map[inputKey][]*arrival{}, ends: map[inputKey]int{},
		abandoned: map[int]map[string]bool{}, grants: map[grantKey][]Grant{}, repairs: map[int][]repair{}, through: -1}
}

func (b *inbox) wake() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

func keyOf(f *FrameData) inputKey {
	return inputKey{frame: f.Frame, eye: f.Eye, name: f.Name, producer: f.Producer, consumer: f.Consumer, repaired: f.repaired}
}

// take removes the arrivals of key: all of them (a frame's tiles), or
// the first alone (a frame that two compounds of the consuming channel
// assemble comes once for each).
func (b *inbox) take(k inputKey, all bool) []*arrival {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.arrivals[k]
	if !all && len(a) > 1 {
		b.arrivals[k] = a[1:]
		return a[:1]
	}
	delete(b.arrivals, k)
	return a
}

// end reports the tile count a producer announced, if it did.
func (b *inbox) end(k inputKey) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, ok := b.ends[k]
	return n, ok
}

func (b *inbox) isAbandoned(frame int, producer string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.abandoned[frame][producer]
}

func (b *inbox) abandon(frame int, producers []string) {
	b.mu.Lock()
	if frame > b.through {
		if b.abandoned[frame] == nil {
			b.abandoned[frame] = map[string]bool{}
		}
		for _, p := range producers {
			b.abandoned[frame][p] = true
		}
	}
	b.mu.Unlock()
	b.wake()
}

// repair is lost channels' parts drawn here for some of this pipe's
// channels (Executor.Repair).
type repair struct {
	to            []string
	lost, feeders []*planner.ChannelPlan
	reading       []string
}

func (b *inbox) repair(frame int, r repair) {
	b.mu.Lock()
	if frame > b.through {
		b.repairs[frame] = append(b.repairs[frame], r)
	}
	b.mu.Unlock()
	b.wake()
}

func (b *inbox) takeRepairs(frame int) []repair {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.repairs[frame]
	delete(b.repairs, frame)
	return r
}

func (b *inbox) grant(g Grant) {
	b.mu.Lock()
	if g.Frame > b.through {
		k := grantKey{g.Frame, g.Channel, g.Queue, g.Repaired}
		b.grants[k] = append(b.grants[k], g)
	}
	b.mu.Unlock()
	b.wake()
}

func (b *inbox) takeGrants(k grantKey) []Grant {
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.grants[k]
	delete(b.grants, k)
	return g
}

// grantsFrom are the grants of a key from the nth on, left in place: a
// channel drawn again twice this frame (a feeder of two repairs) draws
// the same items in each.
func (b *inbox) grantsFrom(k grantKey, n int) []Grant {
	b.mu.Lock()
	defer b.mu.Unlock()
	if g := b.grants[k]; n < len(g) {
		return slices.Clone(g[n:])
	}
	return nil
}

// forget drops what is left of frames up to f: arrivals nobody assembled
// (their producers were abandoned late, or the frame failed). Their
// uploads are handed back on the render goroutine.
func (b *inbox) forget(f int) []*arrival {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.through = max(b.through, f)
	var left []*arrival
	for k, as := range b.arrivals {
		if k.frame <= f {
			left = append(left, as...)
			delete(b.arrivals, k)
		}
	}
	for k := range b.ends {
		if k.frame <= f {
			delete(b.ends, k)
		}
	}
	for fr := range b.abandoned {
		if fr <= f {
			delete(b.abandoned, fr)
		}
	}
	for k := range b.grants {
		if k.frame <= f {
			delete(b.grants, k)
		}
	}
	for fr := range b.repairs {
		if fr <= f {
			delete(b.repairs, fr)
		}
	}
	return left
}
