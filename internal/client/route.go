package client

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/goeq/goeq/internal/channel"
	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/procstat"
	"github.com/goeq/goeq/internal/transport"
)

// Send delivers an output frame to its consumer (channel.Sink): through
// memory when the consumer is on this node, else over the frame transport
// to the consumer's node, on that link's sender goroutine.
func (n *node) Send(f *channel.FrameData) {
	if n.drop[f.Name] {
		return // fault injection (GOEQ_DROP_FRAMES): the frame never comes
	}
	if p := n.byChan[f.Consumer]; p != nil {
		p.exec.Deliver(f)
		return
	}
	t := n.track(f.Frame)
	n.peersMu.Lock()
	addr := n.peers[f.Consumer]
	n.peersMu.Unlock()
	if addr == "" || t == nil {
		n.log.Warn(fmt.Sprintf("frame %d: no frame address for channel %s: %s dropped", f.Frame, f.Consumer, f.Name))
		return
	}
	t.sends.Add(1)
	if !n.sender(addr).enqueue(outgoing{f: f, track: t}) {
		// the peer left as the frame went out: its link is closed
		t.sends.Done()
		n.log.Warn(fmt.Sprintf("frame %d: channel %s's node at %s left: %s dropped", f.Frame, f.Consumer, addr, f.Name))
	}
}

// Pull asks the server for tiles (channel.Sink).
func (n *node) Pull(frame int, ch, queue string, max int) {
	if err := n.session.send(&control.ClientMsg{Pull: &control.Pull{Frame: frame, Channel: ch, Queue: queue, Max: max}}); err != nil {
		n.log.Warn(fmt.Sprintf("frame %d: asking for tiles: %v", frame, err))
	}
}

// arrive takes a frame from the network: its consumer's pipe uploads it.
func (n *node) arrive(f *transport.Frame) {
	p := n.byChan[f.Consumer]
	if p == nil {
		n.log.Warn(fmt.Sprintf("frame %d: %s for channel %s, which is not on this node: dropped", f.Frame, f.Name, f.Consumer))
		f.Release()
		return
	}
	p.exec.Deliver(&channel.FrameData{Frame: f.Frame, Eye: f.Eye, Name: f.Name, Producer: f.Producer, Consumer: f.Consumer,
		Share: f.Share, Extent: f.Extent, Range: f.Range, Pixel: f.Pixel, Subpixel: f.Subpixel, W: f.W, H: f.H, Tile: f.Tile, Tiles: f.Tiles,
		End: f.End, Color: f.Color, Depth: f.Depth, Release: f.Release})
}

type outgoing struct {
	f     *channel.FrameData
	track *frameTrack
}

// sender is one link to a peer node: frames go out in order on its own
// goroutine, so that encoding and the network never hold a pipe.
type sender struct {
	addr  string
	mu    sync.Mutex // guards closed, and queue's closing against sends
	queue chan outgoing
	done  chan struct{}
	load  linkLoad // the sender goroutine's own
	// closed: the link is closed, for the end of the run or because its
	// peer left (a lost node's client starts again at another address)
	closed bool
}

// linkLoad measures what the chooser weighs a link's crossing time by
// (compressor.Link): the raw bytes offered to the link per second, and
// whether this host's cores were all busy, over windows of loadWindow.
type linkLoad struct {
	start time.Time
	cpu   procstat.Machine
	raw   int
	link  compressor.Link // as of the last whole window
}

const (
	loadWindow = time.Second
	// coresFull is the share of the cores busy at which a host counts as
	// bound by its CPU (a host rendering with llvmpipe here: 2.07 of 2)
	coresFull = 0.9
)

func (l *linkLoad) offer(raw int, now time.Time) {
	if l.start.IsZero() {
		l.start, l.cpu = now, procstat.ReadMachine()
	}
	l.raw += raw
	if elapsed := now.Sub(l.start); elapsed >= loadWindow {
		m := procstat.ReadMachine()
		l.link.RawPerSecond = float64(l.raw) / elapsed.Seconds()
		l.link.CoresFull = m.CoresSince(l.cpu) >= coresFull*float64(runtime.NumCPU())
		l.start, l.cpu, l.raw = now, m, 0
	}
}

func (n *node) sender(addr string) *sender {
	n.sendersMu.Lock()
	defer n.sendersMu.Unlock()
	s := n.senders[addr]
	if s == nil {
		s = &sender{addr: addr, queue: make(chan outgoing, 64), done: make(chan struct{})}
		n.senders[addr] = s
		go n.runSender(s)
	}
	return s
}

// enqueue hands the link a frame to send, and is false when the link is
// closed.
func (s *sender) enqueue(o outgoing) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.queue <- o
	return true
}

// close closes the link once what it holds is sent (or has failed), and
// may be called more than once.
func (s *sender) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	<-s.done
}

// retireSenders closes the links to addresses that no peer has any more:
// each lost node that comes back (relaunched, or started again by hand)
// listens at a new address, and the link to its old one kept a goroutine
// and its queue for the rest of the run.
func (n *node) retireSenders(peers map[string]string) {
	live := make(map[string]bool, len(peers))
	for _, addr := range peers {
		live[addr] = true
	}
	n.sendersMu.Lock()
	defer n.sendersMu.Unlock()
	for addr, s := range n.senders {
		if !live[addr] {
			delete(n.senders, addr)
			go s.close()
		}
	}
}

func (n *node) runSender(s *sender) {
	defer close(s.done)
	var conn *transport.Sender
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	// the encoding of one frame after another: a new 16 MB buffer per
	// 1080p frame cost its page faults every time
	var raw []byte
	for o := range s.queue {
		if conn == nil {
			var err error
			if conn, err = transport.Dial(s.addr, n.token, n.name, n.frameTLS); err != nil {
				n.log.Warn(fmt.Sprintf("frame %d: %s to channel %s: %v", o.f.Frame, o.f.Name, o.f.Consumer, err))
				conn = nil
				o.track.sends.Done()
				continue
			}
		}
		f := o.f
		tf := &transport.Frame{Frame: f.Frame, Eye: f.Eye, Name: f.Name, Producer: f.Producer, Consumer: f.Consumer, Share: f.Share, Extent: f.Extent,
			Range: f.Range, Pixel: f.Pixel, Subpixel: f.Subpixel, W: f.W, H: f.H, Tile: f.Tile, Tiles: f.Tiles, End: f.End,
			Color: f.Color, Depth: f.Depth, Raw: raw[:0]}
		size := 4 * f.W * f.H
		if f.Depth != nil {
			size *= 2
		}
		start := time.Now()
		s.load.offer(size, start)
		codec, chosen := n.codecFor(conn, tf, size, s.load.link)
		// the CPU time is measured only for the chooser: it locks each
		// chunk's goroutine to its thread
		var cpu time.Duration
		var err error
		if chosen {
			cpu, err = tf.EncodeCPU(codec)
		} else {
			err = tf.Encode(codec)
		}
		compress := time.Since(start)
		if chosen && err == nil {
			// the CPU time, not the wall time: on cores the renderer
			// shares, the wall time is mostly waiting, and varies
			// with it
			n.chooser.ObserveEncode(compressor.RGBA8, codec, size, len(tf.Raw), cpu)
			if n.chooser.WantsDecode(compressor.RGBA8, codec) {
				// the receiver's decode, measured here on the same
				// bytes: decoders differ by content as well
				if decode, err := tf.Redecode(); err == nil {
					n.chooser.ObserveDecode(compressor.RGBA8, codec, size, decode)
				}
			}
		}
		if err == nil {
			start = time.Now()
			err = conn.Send(tf)
		}
		transmit := time.Since(start)
		o.track.mu.Lock()
		k := recordKey(f.Producer, f.Compound, f.Eye)
		x := o.track.extra[k]
		if x == nil {
			x = &sent{}
			o.track.extra[k] = x
		}
		x.compress += compress
		x.transmit += transmit
		x.bytes += len(tf.Raw)
		o.track.links[[2]string{f.Consumer, codec.String()}] += len(tf.Raw)
		o.track.mu.Unlock()
		raw = tf.Raw // sent: the next frame encodes into it
		if err != nil {
			n.log.Warn(fmt.Sprintf("frame %d: sending %s to channel %s: %v", f.Frame, f.Name, f.Consumer, err))
			conn.Close()
			conn = nil
		}
		o.track.sends.Done()
	}
}

// codecFor is the codec for frame f of raw bytes on a link under load,
// and whether the per-link chooser picked it (--codec auto), which then
// learns from the frame's encode. The node's first such frame is sampled
// for the chooser first.
func (n *node) codecFor(s *transport.Sender, f *transport.Frame, raw int, load compressor.Link) (compressor.Codec, bool) {
	// the server checked the choice (an unknown one sends raw frames)
	fixed, auto, _ := compressor.ParseChoice(n.setupM.Codec)
	if !auto {
		return fixed, false
	}
	if sampleable(f) && n.chooser.WantsSample(compressor.RGBA8) {
		sampleCodecs(n.chooser, f)
	}
	load.Bandwidth = s.Bandwidth() // 0 until measured
	return n.chooser.Pick(compressor.RGBA8, raw, load), true
}

// sampleBands and sampleShare: a frame is sampled in bands of rows
// spread over it, a sixteenth of its rows in all, so that background and
// model both are in the sample as they are in the frame.
const sampleBands, sampleShare = 8, 16

// sampleable says that frame f has pixels to sample (an empty region's
// frame has none, and the node's next frame is sampled instead).
func sampleable(f *transport.Frame) bool {
	return f.W > 0 && f.H > 0 && len(f.Color) >= 4*f.W*f.H && (f.Depth == nil || len(f.Depth) >= f.W*f.H)
}

// sampleCodecs measures every candidate codec on a sample of f's rows,
// coded and decoded as f would be (colour, and depth where f has it), and
// reports them to the chooser (compressor.Chooser.ObserveSample).
func sampleCodecs(ch *compressor.Chooser, f *transport.Frame) {
	if !sampleable(f) {
		return
	}
	sample := &transport.Frame{W: f.W}
	rows := max(f.H/(sampleBands*sampleShare), 1)
	end := 0 // of the band before
	for b := range sampleBands {
		y := b*f.H/sampleBands + (f.H/sampleBands-rows)/2
		if y < end || y+rows > f.H {
			continue // a frame of few rows: its bands would overlap
		}
		end = y + rows
		sample.Color = append(sample.Color, f.Color[4*f.W*y:4*f.W*(y+rows)]...)
		if f.Depth != nil {
			sample.Depth = append(sample.Depth, f.Depth[f.W*y:f.W*(y+rows)]...)
		}
		sample.H += rows
	}
	raw := 4 * sample.W * sample.H
	if sample.Depth != nil {
		raw *= 2
	}
	for _, codec := range compressor.Candidates(compressor.RGBA8) {
		encode, err := sample.EncodeCPU(codec)
		if err != nil {
			return
		}
		decode, err := sample.Redecode()
		if err != nil {
			return
		}
		ch.ObserveSample(compressor.RGBA8, codec, raw, len(sample.Raw), encode, decode)
	}
}

func replaceAll(s, old, new string) string { return strings.ReplaceAll(s, old, new) }

var _ channel.Sink = (*node)(nil)
