// Package client is eqclient's runtime: it joins an eqserver, opens the
// pipes, windows and channels of its node, and executes each frame's
// tasks the server plans, sending output frames straight to the nodes that
// composite them and reporting statistics back.
package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"math"
	"net"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"goeq/channel"
	"goeq/compositor/gpu"
	"goeq/compound"
	"goeq/compressor"
	"goeq/configparser"
	"goeq/control"
	"goeq/planner"
	"goeq/render"
	"goeq/stats"
	"goeq/transport"
	"goeq/winsys"
)

// Options configure a client.
type Options struct {
	Server   string
	Node     string
	Token    string
	WinSys   winsys.Choice
	Drawable string // override of hint_drawable
	TLS      *tls.Config
	Log      *log.Logger
}

// Run joins the server and serves frames until the server stops the run
// or the connection breaks.
func Run(ctx context.Context, opt Options) error {
	if opt.Log == nil {
		opt.Log = log.New(os.Stderr, "eqclient "+opt.Node+": ", log.LstdFlags)
	}
	c := &client{opt: opt, inbox: newInbox(), senders: map[string]*transport.Sender{}}
	stream, err := control.Dial(ctx, opt.Server, opt.Token, opt.Node, opt.TLS)
	if err != nil {
		return err
	}
	defer stream.Close()
	c.stream = stream

	// Frames arrive on the listener; the advertised host is the address
	// this client reaches the server from.
	host := "127.0.0.1"
	if conn, err := net.Dial("tcp", opt.Server); err == nil {
		host, _, _ = net.SplitHostPort(conn.LocalAddr().String())
		conn.Close()
	}
	ln, err := transport.Listen(net.JoinHostPort(host, "0"), opt.Token, c.arrive, opt.Log)
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := stream.Send(&control.ClientMsg{Hello: &control.Hello{Node: opt.Node, FrameAddr: ln.Addr(), PID: os.Getpid()}}); err != nil {
		// a stream the server ended (refused) reports why on receive
		if _, rerr := stream.Recv(); rerr != nil {
			err = rerr
		}
		return fmt.Errorf("hello: %s", control.ErrorText(err))
	}
	first, err := stream.Recv()
	if err != nil {
		return fmt.Errorf("server refused or closed the session: %s", control.ErrorText(err))
	}
	if first.Setup == nil {
		return errors.New("server sent no setup")
	}
	if err := c.setup(first.Setup); err != nil {
		return err
	}
	defer c.shutdown()
	// frames for this node may arrive from now on
	if err := stream.Send(&control.ClientMsg{Ready: true}); err != nil {
		return fmt.Errorf("ready: %s", control.ErrorText(err))
	}

	// heartbeats let the server notice a dead client within a second
	hbDone := make(chan struct{})
	defer close(hbDone)
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				c.sendMu.Lock()
				err := stream.Send(&control.ClientMsg{Heartbeat: true})
				c.sendMu.Unlock()
				if err != nil {
					return
				}
			case <-hbDone:
				return
			}
		}
	}()

	c.swaps = make(chan int, 16)
	work := make(chan *control.FrameWork, 16)
	workErr := make(chan error, 1)
	go func() {
		for fw := range work {
			if err := c.frame(fw); err != nil {
				workErr <- err
				return
			}
		}
		workErr <- nil
	}()
	for {
		m, err := stream.Recv()
		if err != nil {
			close(work)
			<-workErr
			return fmt.Errorf("connection to the server lost: %s", control.ErrorText(err))
		}
		switch {
		case m.Stop:
			close(work)
			return <-workErr
		case m.Abandon != nil:
			c.inbox.abandon(m.Abandon.Frame, m.Abandon.Channels)
		case m.Swap != nil:
			c.swaps <- *m.Swap
		case m.Frame != nil:
			select {
			case work <- m.Frame:
			case err := <-workErr:
				return err
			}
		}
	}
}

type client struct {
	opt     Options
	stream  *control.Stream
	sendMu  sync.Mutex
	setupM  *control.Setup
	cfg     *compound.Config
	node    *compound.Node
	sys     winsys.System
	pipes   map[*compound.Pipe]*pipeState
	windows map[*compound.Window]*channel.Window
	byID    map[string]*compound.Channel
	inbox   *inbox
	chooser *compressor.Chooser

	sendersMu sync.Mutex
	senders   map[string]*transport.Sender
	peers     map[string]string // channel name -> frame address (latest)
	peersMu   sync.Mutex
	swaps     chan int // swap barrier releases from the server
	// recMu guards statistics records, which readback and send goroutines
	// add to while the render goroutine goes on.
	recMu sync.Mutex
}

type pipeState struct {
	pipe     *channel.Pipe
	renderer render.Renderer
	comp     *gpu.Compositor
}

func (c *client) setup(s *control.Setup) error {
	c.setupM = s
	res, err := configparser.Parse(s.ConfigName, []byte(s.ConfigText))
	if err != nil {
		return err
	}
	m, err := compound.Resolve(res, compound.Options{})
	if err != nil {
		return err
	}
	c.cfg = m.Configs[0]
	for i, n := range c.cfg.Nodes {
		if NodeName(n, i) == c.opt.Node {
			c.node = n
		}
	}
	if c.node == nil {
		return fmt.Errorf("config %s has no node %q", s.ConfigName, c.opt.Node)
	}
	c.byID = map[string]*compound.Channel{}
	for _, ch := range c.cfg.Channels {
		c.byID[c.cfg.ChannelID(ch)] = ch
	}
	sys, why, err := winsys.Open(c.opt.WinSys)
	if err != nil {
		return err
	}
	c.sys = sys
	c.opt.Log.Printf("window system: %s (%s)", sys.Name(), why)
	c.chooser = compressor.NewChooser()
	sample := make([]byte, 4*256*64)
	for i := range sample {
		sample[i] = byte(i / 4 / 64)
	}
	c.chooser.Calibrate(compressor.RGBA8, 256, 64, sample)
	c.pipes = map[*compound.Pipe]*pipeState{}
	c.windows = map[*compound.Window]*channel.Window{}
	for _, p := range c.node.Pipes {
		cp, err := channel.StartPipe(p.Name, sys)
		if err != nil {
			return err
		}
		ps := &pipeState{pipe: cp, renderer: c.newRenderer()}
		if err := cp.Do(func() error {
			if err := ps.renderer.Init(); err != nil {
				return err
			}
			comp, err := gpu.New()
			ps.comp = comp
			return err
		}); err != nil {
			return err
		}
		c.pipes[p] = ps
		for _, w := range p.Windows {
			d, why := channel.ChooseDrawable(w, sys, s.Drawable)
			cw, err := cp.OpenWindow(w, d)
			if err != nil {
				return err
			}
			c.opt.Log.Printf("window %q: %s (%s)", w.Name, d, why)
			c.windows[w] = cw
		}
	}
	return nil
}

var (
	modelOnce  sync.Once
	modelCache *render.Model
)

func (c *client) newRenderer() render.Renderer {
	switch c.setupM.Renderer {
	case "volume":
		v := render.NewVolume()
		v.Spin = c.setupM.Spin
		return v
	case "synthetic":
		// the destination size is set per draw from the task
		return render.NewSynthetic(1, 1, c.setupM.Iterations)
	}
	modelOnce.Do(func() {
		n := max(c.setupM.Triangles, 2000)
		rings := int(math.Sqrt(float64(n) / 4))
		modelCache = render.Bumpy(max(rings, 4), max(2*rings, 8))
	})
	m := render.NewMesh(modelCache)
	m.Spin = c.setupM.Spin
	return m
}

func (c *client) shutdown() {
	for w, cw := range c.windows {
		cw.Close()
		delete(c.windows, w)
	}
	for _, ps := range c.pipes {
		ps.pipe.Do(func() error { ps.renderer.Exit(); ps.comp.Delete(); return nil })
		ps.pipe.Stop()
	}
	c.sendersMu.Lock()
	for _, s := range c.senders {
		s.Close()
	}
	c.sendersMu.Unlock()
}

// NodeName is how the runtime names config nodes: their name, or "app"
// and "node<i>" when unnamed.
func NodeName(n *compound.Node, index int) string {
	if n.Name != "" {
		return n.Name
	}
	if n.App {
		return "app"
	}
	return fmt.Sprintf("node%d", index)
}

// clearColor is the renderer's background: opaque dark for meshes,
// transparent for volumes (slabs blend over it).
func (c *client) clearColor() [4]float32 {
	if c.setupM.Renderer == "volume" {
		return [4]float32{0, 0, 0, 0}
	}
	return [4]float32{0.1, 0.1, 0.15, 1}
}

// frame executes one frame's work: each pipe runs its channels' tasks in
// order; pipes run in parallel.
func (c *client) frame(fw *control.FrameWork) error {
	c.peersMu.Lock()
	c.peers = fw.Peers
	c.peersMu.Unlock()
	byPipe := map[*compound.Pipe][]control.ChannelWork{}
	for _, cw := range fw.Channels {
		ch := c.byID[cw.Channel]
		if ch == nil {
			return fmt.Errorf("frame %d: unknown channel %s", fw.Frame, cw.Channel)
		}
		byPipe[ch.Window.Pipe] = append(byPipe[ch.Window.Pipe], cw)
	}
	var mu sync.Mutex
	var records []*stats.Record
	var written, degraded []string
	var presents []*channel.Window
	var firstErr error
	var wg sync.WaitGroup
	// sends finish in the background: the next frame may start drawing
	// while this frame's pixels are still read back, packed and sent
	sends := &sync.WaitGroup{}
	for p, works := range byPipe {
		ps := c.pipes[p]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, w := range works {
				recs, files, deg, win, err := c.runChannel(ps, fw.Frame, w, sends)
				mu.Lock()
				if win != nil {
					presents = append(presents, win)
				}
				records = append(records, recs...)
				written = append(written, files...)
				degraded = append(degraded, deg...)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	c.inbox.forget(fw.Frame)
	if len(presents) > 0 && c.setupM.SwapBarrier && firstErr == nil {
		// wait until every destination node has the frame, then show it
		c.sendMu.Lock()
		f := fw.Frame
		err := c.stream.Send(&control.ClientMsg{Assembled: &f})
		c.sendMu.Unlock()
		if err != nil {
			return err
		}
		for released := range c.swaps {
			if released >= fw.Frame {
				break
			}
		}
	}
	for _, win := range presents {
		if err := win.Pipe.Do(win.Present); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	report := func() error {
		sends.Wait()
		done := &control.FrameDone{Frame: fw.Frame, Written: written, Degraded: degraded}
		for _, r := range records {
			done.Records = append(done.Records, *r)
		}
		if firstErr != nil {
			done.Error = firstErr.Error()
		}
		c.sendMu.Lock()
		defer c.sendMu.Unlock()
		return c.stream.Send(&control.ClientMsg{Done: done})
	}
	if firstErr != nil {
		return report()
	}
	go func() {
		if err := report(); err != nil {
			c.opt.Log.Printf("frame %d: reporting: %v", fw.Frame, err)
		}
	}()
	return nil
}

// runChannel executes one channel's tasks on its pipe.
func (c *client) runChannel(ps *pipeState, frame int, w control.ChannelWork, sends *sync.WaitGroup) ([]*stats.Record, []string, []string, *channel.Window, error) {
	ch := c.byID[w.Channel]
	win := c.windows[ch.Window]
	recs := map[string]*stats.Record{}
	// record updates on the render goroutine take recMu too: this frame's
	// readbacks update the same records from their goroutines
	add := func(d *time.Duration, v time.Duration) {
		c.recMu.Lock()
		*d += v
		c.recMu.Unlock()
	}
	rec := func(t planner.Task) *stats.Record {
		key := fmt.Sprintf("%s/%d", t.Compound, t.Eye)
		r := recs[key]
		if r == nil {
			r = &stats.Record{Frame: frame, Compound: t.Compound, Channel: ch.Name, Eye: t.Eye, Viewport: t.Viewport, Range: t.Range}
			recs[key] = r
		}
		return r
	}
	var degraded []string
	isDest := false
	err := ps.pipe.Do(func() error {
		for _, t := range w.Tasks {
			r := rec(t)
			start := time.Now()
			region := compound.PixelViewport{X: ch.PixelViewport.X + t.PixelViewport.X, Y: ch.PixelViewport.Y + t.PixelViewport.Y, W: t.PixelViewport.W, H: t.PixelViewport.H}
			win.Target.Bind()
			switch t.Kind {
			case planner.Clear:
				cc := c.clearColor()
				gl.Enable(gl.SCISSOR_TEST)
				gl.Scissor(int32(region.X), int32(region.Y), int32(region.W), int32(region.H))
				gl.ClearColor(cc[0], cc[1], cc[2], cc[3])
				gl.ClearDepth(1)
				gl.DepthMask(true)
				gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
				gl.Disable(gl.SCISSOR_TEST)
				add(&r.Times.Clear, time.Since(start))
			case planner.Draw:
				if err := c.draw(ps, frame, t, region); err != nil {
					return err
				}
				gl.Finish() // draw time is what the equalizers balance
				add(&r.Times.Draw, time.Since(start))
			case planner.Readback:
				c.readback(ps, frame, ch, t, region, r, sends)
			case planner.Assemble:
				isDest = true
				deg, err := c.assemble(ps, frame, t, region, r)
				if err != nil {
					return err
				}
				degraded = append(degraded, deg...)
				c.recMu.Lock()
				r.Times.Assemble += time.Since(start) - r.Times.Wait
				c.recMu.Unlock()
			}
		}
		return nil
	})
	var files []string
	var present *channel.Window
	if err == nil && (isDest || w.Destination) {
		files, err = c.output(ps, win, ch, frame)
		present = win
	}
	var out []*stats.Record
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, recs[k])
	}
	return out, files, degraded, present, err
}

// draw renders the task's part of the destination into region.
func (c *client) draw(ps *pipeState, frame int, t planner.Task, region compound.PixelViewport) error {
	w, h := render.Size(region.W, region.H, t.Pixel)
	sub := render.Sub{DestW: t.Dest.W, DestH: t.Dest.H, X: t.Offset.X, Y: t.Offset.Y, W: w, H: h, Pixel: t.Pixel,
		Jitter: render.SubpixelJitter(t.Subpixel.Index, t.Subpixel.Size)}
	if sub.DestW == 0 || sub.DestH == 0 {
		sub.DestW, sub.DestH = region.W, region.H
	}
	adj := sub.Matrix()
	f := t.DestFrustum
	if f.Near == 0 {
		f = t.Frustum
	}
	var view [16]float32
	for i, v := range t.ViewMatrix {
		view[i] = float32(v)
	}
	if syn, ok := ps.renderer.(*render.Synthetic); ok {
		syn.DestW, syn.DestH = sub.DestW, sub.DestH
	}
	gl.Viewport(int32(region.X), int32(region.Y), int32(w), int32(h))
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(region.X), int32(region.Y), int32(w), int32(h))
	_, err := ps.renderer.Draw(render.Params{Frame: frame, Eye: t.Eye, Width: w, Height: h, X: region.X, Y: region.Y,
		Viewport: t.Viewport, Range: t.Range, Pixel: t.Pixel, Subpixel: t.Subpixel,
		Projection: render.Mul(adj, render.Frustum(f)), View: view, Adjust: adj})
	gl.Disable(gl.SCISSOR_TEST)
	return err
}

// readback reads each output frame's part of the task's region (only
// what a pixel source rendered) with its buffers, and sends it to its
// consumers.
func (c *client) readback(ps *pipeState, frame int, ch *compound.Channel, t planner.Task, region compound.PixelViewport, r *stats.Record, sends *sync.WaitGroup) {
	w, h := render.Size(region.W, region.H, t.Pixel)
	rendered := compound.PixelViewport{X: region.X, Y: region.Y, W: w, H: h}
	for _, out := range t.Outputs {
		vp := out.Viewport
		if !vp.HasArea() {
			vp = compound.FullViewport
		}
		read := rendered.Apply(vp)
		offset := t.Offset
		if t.Pixel.W <= 1 && t.Pixel.H <= 1 {
			offset = t.Offset.Apply(vp)
		}
		depth := out.Buffers&compound.BufferDepth != 0
		start := time.Now()
		var px *channel.Pixels
		var rb *channel.Readback
		if c.setupM.AsyncReadback {
			rb = ps.pipe.StartReadback(frame, read, depth)
		} else {
			px = channel.ReadSync(frame, read, depth)
			c.recMu.Lock()
			r.Times.ReadbackSync += time.Since(start)
			c.recMu.Unlock()
		}
		sends.Add(1)
		go func() {
			defer sends.Done()
			if rb != nil {
				var err error
				px, err = rb.Wait()
				if err != nil {
					c.opt.Log.Printf("frame %d: readback: %v", frame, err)
					return
				}
				c.recMu.Lock()
				r.Times.ReadbackAsync += time.Since(start)
				c.recMu.Unlock()
			}
			for _, consumer := range out.Peers {
				f := &transport.Frame{Frame: frame, Name: out.Name, Producer: ch.Name, Consumer: consumer, Offset: offset,
					Range: t.Range, Pixel: t.Pixel, Subpixel: t.Subpixel, W: read.W, H: read.H, Color: px.Color, Depth: px.Depth}
				if err := c.send(f, r); err != nil {
					c.opt.Log.Printf("frame %d: sending %s to %s: %v", frame, out.Name, consumer, err)
				}
			}
		}()
	}
}

// send delivers a frame: locally when the consumer is on this node,
// otherwise encoded with the link's codec over the frame transport.
func (c *client) send(f *transport.Frame, r *stats.Record) error {
	for _, ch := range c.byID {
		if ch.Name == f.Consumer && ch.Window.Pipe.Node == c.node {
			c.arrive(f)
			return nil
		}
	}
	c.peersMu.Lock()
	addr := c.peers[f.Consumer]
	c.peersMu.Unlock()
	if addr == "" {
		return fmt.Errorf("no frame address for channel %q", f.Consumer)
	}
	c.sendersMu.Lock()
	s := c.senders[addr]
	if s == nil {
		var err error
		s, err = transport.Dial(addr, c.opt.Token, c.opt.Node)
		if err != nil {
			c.sendersMu.Unlock()
			return err
		}
		c.senders[addr] = s
	}
	c.sendersMu.Unlock()
	codec := c.codecFor(s, 4*f.W*f.H)
	start := time.Now()
	if err := f.Encode(codec); err != nil {
		return err
	}
	compress := time.Since(start)
	start = time.Now()
	err := s.Send(f)
	c.recMu.Lock()
	r.Times.Compress += compress
	r.Times.Transmit += time.Since(start)
	r.Bytes += len(f.Raw)
	c.recMu.Unlock()
	return err
}

func (c *client) codecFor(s *transport.Sender, raw int) compressor.Codec {
	switch c.setupM.Codec {
	case "", "auto":
		bw := s.Bandwidth()
		if bw == 0 {
			bw = 1.25e9 // until measured: assume 10 GbE
		}
		return c.chooser.Choose(compressor.RGBA8, raw, bw)
	case "none":
		return compressor.None
	case "s2":
		return compressor.S2
	case "zstd":
		return compressor.Zstd
	case "rle":
		return compressor.RLE
	}
	return compressor.None
}

// arrive takes a frame from the network (or from this node): its upload
// starts at once on the consuming channel's pipe.
func (c *client) arrive(f *transport.Frame) {
	var ps *pipeState
	for _, ch := range c.byID {
		if ch.Name == f.Consumer && ch.Window.Pipe.Node == c.node {
			ps = c.pipes[ch.Window.Pipe]
			break
		}
	}
	if ps == nil {
		c.opt.Log.Printf("frame %d: %s for unknown channel %q dropped", f.Frame, f.Name, f.Consumer)
		f.Release()
		return
	}
	up := ps.pipe.StartUpload(&channel.Pixels{Frame: f.Frame, PixelViewport: compound.PixelViewport{W: f.W, H: f.H}, Color: f.Color, Depth: f.Depth})
	c.inbox.put(f, up)
}

// assemble composites the task's input frames into its region: depth
// frames are merged, pixel frames interleaved, subpixel frames averaged,
// color-only range frames blended in the renderer's order, others copied
// to their place.
func (c *client) assemble(ps *pipeState, frame int, t planner.Task, region compound.PixelViewport, r *stats.Record) ([]string, error) {
	var arrived []*arrival
	var degraded []string
	waitStart := time.Now()
	for _, in := range t.Inputs {
		a, ok := c.inbox.wait(frame, in.Name, in.Peers)
		if !ok {
			degraded = append(degraded, in.Name)
			continue
		}
		arrived = append(arrived, a)
	}
	c.recMu.Lock()
	r.Times.Wait += time.Since(waitStart)
	c.recMu.Unlock()
	var blend, average []*arrival
	for _, a := range arrived {
		if err := a.upload.Use(); err != nil {
			return degraded, err
		}
		f := a.frame
		// offsets are in destination pixels; this task's region starts at
		// its own offset there
		at := compound.PixelViewport{X: region.X + f.Offset.X - t.Offset.X, Y: region.Y + f.Offset.Y - t.Offset.Y, W: f.W, H: f.H}
		var err error
		switch {
		case f.Subpixel.Size > 1:
			average = append(average, a)
			continue
		case f.Pixel.W > 1 || f.Pixel.H > 1:
			err = c.interleave(ps, a, region)
		case f.Depth != nil:
			err = ps.comp.DepthMerge(a.upload.Color, a.upload.Depth, at.X, at.Y, at.W, at.H)
		case f.Range != compound.FullRange && f.Range.End > f.Range.Start:
			blend = append(blend, a)
			continue
		default:
			err = ps.comp.Assemble(a.upload.Color, at.X, at.Y, at.W, at.H)
		}
		if err != nil {
			return degraded, err
		}
	}
	if len(blend) > 0 {
		order := make([]int, len(blend))
		for i := range order {
			order[i] = i
		}
		if v, ok := ps.renderer.(*render.Volume); ok {
			var ranges []compound.Range
			for _, a := range blend {
				ranges = append(ranges, a.frame.Range)
			}
			var view [16]float32
			for i, x := range t.ViewMatrix {
				view[i] = float32(x)
			}
			order = v.SlabsBackToFront(view, frame, ranges)
		}
		for _, i := range order {
			f := blend[i].frame
			if err := ps.comp.BlendOver(blend[i].upload.Color, region.X+f.Offset.X-t.Offset.X, region.Y+f.Offset.Y-t.Offset.Y, f.W, f.H); err != nil {
				return degraded, err
			}
		}
	}
	if len(average) > 0 {
		var texs []uint32
		for _, a := range average {
			texs = append(texs, a.upload.Color)
		}
		gl.Viewport(int32(region.X), int32(region.Y), int32(region.W), int32(region.H))
		if err := ps.comp.Average(texs, region.W, region.H); err != nil {
			return degraded, err
		}
	}
	for _, a := range arrived {
		a.upload.Release()
		a.frame.Release()
	}
	return degraded, nil
}

func (c *client) interleave(ps *pipeState, a *arrival, region compound.PixelViewport) error {
	f := a.frame
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(region.X), int32(region.Y), int32(region.W), int32(region.H))
	defer gl.Disable(gl.SCISSOR_TEST)
	return ps.comp.Interleave(a.upload.Color, region.X+f.Offset.X+f.Pixel.X, region.Y+f.Offset.Y+f.Pixel.Y, max(f.Pixel.W, 1), max(f.Pixel.H, 1),
		region.X+region.W, region.Y+region.H)
}

// output writes the frame's PNG when asked (dump_image, or every
// DumpEvery-th frame into OutDir); the window is presented after the swap
// barrier.
func (c *client) output(ps *pipeState, win *channel.Window, ch *compound.Channel, frame int) ([]string, error) {
	var files []string
	err := ps.pipe.Do(func() error {
		every := max(c.setupM.DumpEvery, 1)
		if frame%every != 0 && ch.Attributes["dump_image"] == "" {
			return nil
		}
		path := channel.DumpPath(ch, c.setupM.OutDir, frame)
		if path == "" {
			return nil
		}
		win.Target.Bind()
		px := channel.ReadSync(frame, ch.PixelViewport, false)
		if err := channel.WritePNG(path, px.Color, ch.PixelViewport.W, ch.PixelViewport.H); err != nil {
			return err
		}
		files = append(files, path)
		return nil
	})
	return files, err
}
