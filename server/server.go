// Package server is `eqserver run`: it loads a config, launches a render
// client per node (or lets them join), plans every frame with the planner
// and equalizers, sends each node its tasks, keeps `latency` frames in
// flight, collects statistics, survives render clients that die, and stops
// cleanly.
package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"goeq/client"
	"goeq/compound"
	"goeq/configparser"
	"goeq/control"
	"goeq/planner"
	"goeq/stats"
)

// Options configure a run.
type Options struct {
	ConfigPath   string
	Frames       int
	OutDir       string
	StatsPath    string
	Local        bool
	NoLaunch     bool // wait for clients started by hand (eqclient --server)
	TLSConfig    *tls.Config
	Listen       string // control address; default 127.0.0.1:0
	Token        string
	ClientBinary string // eqclient; default: beside this executable, then PATH
	Renderer     string
	Triangles    int
	Spin         float64
	DumpEvery    int
	Codec        string
	Async        bool
	Iterations   float64
	Drawable     string
	JoinTimeout  time.Duration
	Log          *log.Logger
	Progress     io.Writer // one-line progress (a terminal), or nil
}

// Summary is what a run reports at the end.
type Summary struct {
	Frames     int               `json:"frames"`
	Seconds    float64           `json:"seconds"`
	FPS        float64           `json:"fps"`
	Degraded   int               `json:"degraded_frames"`
	LostNodes  []string          `json:"lost_nodes,omitempty"`
	Channels   []ChannelSummary  `json:"channels"`
	FinalSplit map[string]string `json:"final_split"`
	Written    []string          `json:"written"`
}

// ChannelSummary is a channel's mean times over the run (milliseconds).
type ChannelSummary struct {
	Channel  string  `json:"channel"`
	Draw     float64 `json:"draw_ms"`
	Readback float64 `json:"readback_ms"`
	Transmit float64 `json:"transmit_ms"`
	Assemble float64 `json:"assemble_ms"`
	Wait     float64 `json:"wait_ms"`
}

type nodeState struct {
	name      string
	model     *compound.Node
	channels  []*compound.Channel
	hasDest   bool
	frameAddr string
	stream    grpc.ServerStream
	sendMu    sync.Mutex
	lastSeen  time.Time
	alive     bool
	joined    chan struct{}
	cmd       *exec.Cmd
	exited    chan struct{}
}

type event struct {
	node      string
	done      *control.FrameDone
	lost      error
	assembled *int
}

type server struct {
	opt     Options
	cfg     *compound.Config
	text    string
	nodes   map[string]*nodeState
	order   []string
	mu      sync.Mutex
	events  chan event
	destIDs map[string]bool
}

// Run performs a run.
func Run(ctx context.Context, opt Options) (*Summary, error) {
	if opt.Log == nil {
		opt.Log = log.New(os.Stderr, "eqserver: ", log.LstdFlags)
	}
	if opt.Frames <= 0 {
		opt.Frames = 100
	}
	if opt.JoinTimeout == 0 {
		opt.JoinTimeout = 30 * time.Second
	}
	if opt.Token == "" {
		return nil, errors.New("no token: set GOEQ_TOKEN or --token-file")
	}
	text, err := os.ReadFile(opt.ConfigPath)
	if err != nil {
		return nil, err
	}
	res, err := configparser.Parse(opt.ConfigPath, text)
	if err != nil {
		return nil, err
	}
	m, err := compound.Resolve(res, compound.Options{})
	if err != nil {
		return nil, err
	}
	s := &server{opt: opt, cfg: m.Configs[0], text: string(text), nodes: map[string]*nodeState{}, events: make(chan event, 256), destIDs: map[string]bool{}}
	s.cfg.Walk(func(c *compound.Compound) {
		if c.IsDestination() {
			s.destIDs[s.cfg.ChannelID(c.Channel)] = true
		}
	})
	for i, n := range s.cfg.Nodes {
		name := client.NodeName(n, i)
		ns := &nodeState{name: name, model: n, joined: make(chan struct{})}
		for _, ch := range s.cfg.Channels {
			if ch.Window.Pipe.Node == n {
				ns.channels = append(ns.channels, ch)
				ns.hasDest = ns.hasDest || s.destIDs[s.cfg.ChannelID(ch)]
			}
		}
		if len(n.Pipes) == 0 {
			continue // a node without pipes has nothing to render
		}
		s.nodes[name] = ns
		s.order = append(s.order, name)
	}
	if opt.OutDir != "" {
		if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
			return nil, err
		}
	}

	addr := opt.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	gs := control.NewServer(s, opt.Token, opt.TLSConfig, opt.Log)
	go gs.Serve(ln)
	defer gs.Stop()
	opt.Log.Printf("control server on %s; config %s: %d nodes", ln.Addr(), opt.ConfigPath, len(s.order))

	defer s.stopClients()
	if opt.NoLaunch {
		opt.Log.Printf("waiting for nodes %s to join: eqclient --server %s --node NAME", strings.Join(s.order, ", "), ln.Addr())
	} else if err := s.launch(ln.Addr().String()); err != nil {
		return nil, err
	}
	if err := s.awaitJoin(ctx); err != nil {
		return nil, err
	}
	return s.loop(ctx)
}

// isLocal reports whether a node runs on this machine.
func isLocal(host string) bool {
	switch host {
	case "", "localhost", "127.0.0.1", "::1":
		return true
	}
	if h, _ := os.Hostname(); h == host {
		return true
	}
	return strings.HasPrefix(host, "127.")
}

func (s *server) clientBinary() string {
	if s.opt.ClientBinary != "" {
		return s.opt.ClientBinary
	}
	if exe, err := os.Executable(); err == nil {
		sib := strings.TrimSuffix(exe, "eqserver") + "eqclient"
		if _, err := os.Stat(sib); err == nil && sib != exe {
			return sib
		}
	}
	if p, err := exec.LookPath("eqclient"); err == nil {
		return p
	}
	return "eqclient"
}

// launch starts a client per node: here for local nodes (and with
// --local), otherwise through the node's launch_command.
func (s *server) launch(addr string) error {
	bin := s.clientBinary()
	for _, name := range s.order {
		ns := s.nodes[name]
		args := []string{"--server", addr, "--node", name}
		var cmd *exec.Cmd
		if s.opt.Local || isLocal(ns.model.Host) {
			cmd = exec.Command(bin, args...)
		} else {
			launch := ns.model.Attributes["launch_command"]
			if launch == "" {
				launch = "ssh -n %h %c"
			}
			clientCmd := bin + " " + strings.Join(args, " ")
			line := strings.ReplaceAll(strings.ReplaceAll(launch, "%h", ns.model.Host), "%c", clientCmd)
			cmd = exec.Command("sh", "-c", line)
		}
		cmd.Env = append(os.Environ(), "GOEQ_TOKEN="+s.opt.Token)
		cmd.Stdout = os.Stderr
		cmd.Stderr = os.Stderr
		// a client dies with the server, whatever ends the server
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("launching node %s (%s): %w", name, bin, err)
		}
		ns.cmd = cmd
		s.opt.Log.Printf("node %s: eqclient pid %d", name, cmd.Process.Pid)
		ns.exited = make(chan struct{})
		go func() { cmd.Wait(); close(ns.exited) }()
	}
	return nil
}

func (s *server) awaitJoin(ctx context.Context) error {
	deadline := time.After(s.opt.JoinTimeout)
	for _, name := range s.order {
		select {
		case <-s.nodes[name].joined:
		case <-deadline:
			return fmt.Errorf("node %s did not join within %v", name, s.opt.JoinTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Session serves one client's control stream.
func (s *server) Session(stream grpc.ServerStream, node string) error {
	s.mu.Lock()
	ns := s.nodes[node]
	s.mu.Unlock()
	if ns == nil {
		s.opt.Log.Printf("refused a client for unknown node %q", node)
		return fmt.Errorf("unknown node %q", node)
	}
	hello := &control.ClientMsg{}
	if err := stream.RecvMsg(hello); err != nil || hello.Hello == nil {
		return fmt.Errorf("node %s sent no hello", node)
	}
	setup := &control.Setup{ConfigName: s.opt.ConfigPath, ConfigText: s.text, Node: node, Renderer: s.opt.Renderer,
		Triangles: s.opt.Triangles, Spin: s.opt.Spin, OutDir: s.opt.OutDir, DumpEvery: s.opt.DumpEvery, Codec: s.opt.Codec,
		Drawable: s.opt.Drawable, Iterations: s.opt.Iterations, AsyncReadback: s.opt.Async, SwapBarrier: s.destNodes() > 1}
	if err := stream.SendMsg(&control.ServerMsg{Setup: setup}); err != nil {
		return err
	}
	// the node is part of the run once it has opened its pipes, windows
	// and channels: frames sent to it earlier would find nothing to land in
	for {
		m := &control.ClientMsg{}
		if err := stream.RecvMsg(m); err != nil {
			return fmt.Errorf("node %s failed to set up: %s", node, control.ErrorText(err))
		}
		if m.Ready {
			break
		}
	}
	s.mu.Lock()
	ns.stream, ns.frameAddr, ns.alive, ns.lastSeen = stream, hello.Hello.FrameAddr, true, time.Now()
	s.mu.Unlock()
	close(ns.joined)
	s.opt.Log.Printf("node %s joined (pid %d, frames at %s)", node, hello.Hello.PID, hello.Hello.FrameAddr)
	for {
		m := &control.ClientMsg{}
		if err := stream.RecvMsg(m); err != nil {
			s.events <- event{node: node, lost: fmt.Errorf("control stream ended: %s", control.ErrorText(err))}
			return nil
		}
		s.mu.Lock()
		ns.lastSeen = time.Now()
		s.mu.Unlock()
		if m.Done != nil {
			s.events <- event{node: node, done: m.Done}
		}
		if m.Assembled != nil {
			s.events <- event{node: node, assembled: m.Assembled}
		}
	}
}

func (s *server) send(ns *nodeState, m *control.ServerMsg) error {
	ns.sendMu.Lock()
	defer ns.sendMu.Unlock()
	if ns.stream == nil {
		return errors.New("not joined")
	}
	return ns.stream.SendMsg(m)
}

// frameTrack is a frame in flight: the nodes it waits for and what came
// back.
type frameTrack struct {
	pending  map[string]bool
	records  []stats.Record
	degraded bool
	written  []string
	errs     []string
}

// heartbeatTimeout is how long a silent client is given before its node
// is treated as dead (clients send heartbeats every 200 ms).
const heartbeatTimeout = time.Second

func (s *server) loop(ctx context.Context) (*Summary, error) {
	plan := planner.New(s.cfg)
	latency := s.cfg.Latency
	var statsOut *json.Encoder
	if s.opt.StatsPath != "" {
		f, err := os.Create(s.opt.StatsPath)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		statsOut = json.NewEncoder(f)
	}
	sum := &Summary{FinalSplit: map[string]string{}}
	inflight := map[int]*frameTrack{}
	chanTotals := map[string]*ChannelSummary{}
	chanCounts := map[string]int{}
	start := time.Now()
	lastDone := -1
	var lastPlan *planner.FramePlan
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()

	complete := func(f int) {
		tr := inflight[f]
		delete(inflight, f)
		if tr.degraded {
			sum.Degraded++
		}
		sum.Written = append(sum.Written, tr.written...)
		plan.Feed(stats.Frame{Frame: f, Records: tr.records})
		worst, total, n, slowest := 0.0, 0.0, 0, ""
		for _, r := range tr.records {
			if statsOut != nil {
				statsOut.Encode(r)
			}
			cs := chanTotals[r.Channel]
			if cs == nil {
				cs = &ChannelSummary{Channel: r.Channel}
				chanTotals[r.Channel] = cs
			}
			cs.Draw += ms(r.Times.Draw)
			cs.Readback += ms(r.Times.ReadbackSync + r.Times.ReadbackAsync)
			cs.Transmit += ms(r.Times.Transmit)
			cs.Assemble += ms(r.Times.Assemble)
			cs.Wait += ms(r.Times.Wait)
			chanCounts[r.Channel]++
			if d := r.Times.Draw.Seconds(); d > 0 {
				total += d
				n++
				if d > worst {
					worst, slowest = d, r.Channel
				}
			}
		}
		lastDone = f
		if s.opt.Progress != nil {
			el := time.Since(start).Seconds()
			imb := 1.0
			if n > 0 && total > 0 {
				imb = worst / (total / float64(n))
			}
			fmt.Fprintf(s.opt.Progress, "\rframe %d/%d  %.1f fps  imbalance %.2f  slowest %-12s", f+1, s.opt.Frames, float64(f+1)/el, imb, slowest)
		}
		for _, e := range tr.errs {
			s.opt.Log.Printf("frame %d: %s", f, e)
		}
	}

	barrier := map[int]map[string]bool{} // frame -> destination nodes at the barrier
	handle := func(ev event) error {
		ns := s.nodes[ev.node]
		if ev.assembled != nil {
			f := *ev.assembled
			if barrier[f] == nil {
				barrier[f] = map[string]bool{}
			}
			barrier[f][ev.node] = true
			if len(barrier[f]) == s.destNodes() {
				delete(barrier, f)
				for _, name := range s.order {
					if d := s.nodes[name]; d.hasDest && d.alive {
						s.send(d, &control.ServerMsg{Swap: &f})
					}
				}
			}
			return nil
		}
		if ev.lost != nil {
			if !ns.alive {
				return nil
			}
			ns.alive = false
			if ns.hasDest {
				return fmt.Errorf("node %s, which shows the destination, died: %v", ev.node, ev.lost)
			}
			s.opt.Log.Printf("node %s lost (%v): its channels leave the compounds", ev.node, ev.lost)
			sum.LostNodes = append(sum.LostNodes, ev.node)
			var names []string
			for _, ch := range ns.channels {
				plan.SetChannelDown(ch, true)
				names = append(names, ch.Name)
			}
			if ns.cmd != nil && ns.cmd.Process != nil {
				ns.cmd.Process.Kill()
			}
			frames := make([]int, 0, len(inflight))
			for f := range inflight {
				frames = append(frames, f)
			}
			sort.Ints(frames)
			for _, f := range frames {
				tr := inflight[f]
				delete(tr.pending, ev.node)
				tr.degraded = true
				for _, other := range s.order {
					if o := s.nodes[other]; o.alive {
						s.send(o, &control.ServerMsg{Abandon: &control.Abandon{Frame: f, Channels: names}})
					}
				}
			}
		} else if d := ev.done; d != nil {
			tr := inflight[d.Frame]
			if tr == nil {
				return nil
			}
			delete(tr.pending, ev.node)
			tr.records = append(tr.records, d.Records...)
			tr.written = append(tr.written, d.Written...)
			if len(d.Degraded) > 0 {
				tr.degraded = true
			}
			if d.Error != "" {
				tr.errs = append(tr.errs, ev.node+": "+d.Error)
				if ns.hasDest {
					return fmt.Errorf("frame %d failed on node %s: %s", d.Frame, ev.node, d.Error)
				}
			}
		}
		// frames complete in order
		for {
			f := lastDone + 1
			tr, ok := inflight[f]
			if !ok || len(tr.pending) > 0 {
				break
			}
			complete(f)
		}
		return nil
	}

	wait := func(until func() bool) error {
		for !until() {
			select {
			case ev := <-s.events:
				if err := handle(ev); err != nil {
					return err
				}
			case <-ticker.C:
				s.mu.Lock()
				var silent []string
				for _, name := range s.order {
					ns := s.nodes[name]
					if ns.alive && time.Since(ns.lastSeen) > heartbeatTimeout {
						silent = append(silent, name)
					}
				}
				s.mu.Unlock()
				for _, name := range silent {
					if err := handle(event{node: name, lost: fmt.Errorf("no heartbeat for %v", heartbeatTimeout)}); err != nil {
						return err
					}
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}

	for f := 0; f < s.opt.Frames; f++ {
		if err := wait(func() bool { return lastDone >= f-latency-1 }); err != nil {
			return sum, err
		}
		p := plan.Plan(f)
		lastPlan = p
		peers := map[string]string{}
		for _, name := range s.order {
			if ns := s.nodes[name]; ns.alive {
				for _, ch := range ns.channels {
					peers[ch.Name] = ns.frameAddr
				}
			}
		}
		work := map[string]*control.FrameWork{}
		for _, cp := range p.Channels {
			node := s.nodeOf(cp.Channel)
			if node == nil || !node.alive {
				continue
			}
			fw := work[node.name]
			if fw == nil {
				fw = &control.FrameWork{Frame: f, Peers: peers}
				work[node.name] = fw
			}
			id := s.cfg.ChannelID(cp.Channel)
			fw.Channels = append(fw.Channels, control.ChannelWork{Channel: id, Tasks: cp.Tasks, Destination: s.destIDs[id]})
		}
		tr := &frameTrack{pending: map[string]bool{}}
		inflight[f] = tr
		for _, name := range s.order {
			ns := s.nodes[name]
			if !ns.alive {
				continue
			}
			fw := work[name]
			if fw == nil {
				fw = &control.FrameWork{Frame: f, Peers: peers}
			}
			tr.pending[name] = true
			if err := s.send(ns, &control.ServerMsg{Frame: fw}); err != nil {
				if herr := handle(event{node: name, lost: err}); herr != nil {
					return sum, herr
				}
			}
		}
	}
	if err := wait(func() bool { return lastDone >= s.opt.Frames-1 }); err != nil {
		return sum, err
	}
	if s.opt.Progress != nil {
		fmt.Fprintln(s.opt.Progress)
	}
	sum.Frames = s.opt.Frames
	sum.Seconds = time.Since(start).Seconds()
	sum.FPS = float64(sum.Frames) / sum.Seconds
	for name, cs := range chanTotals {
		n := float64(chanCounts[name])
		sum.Channels = append(sum.Channels, ChannelSummary{Channel: name, Draw: cs.Draw / n, Readback: cs.Readback / n,
			Transmit: cs.Transmit / n, Assemble: cs.Assemble / n, Wait: cs.Wait / n})
	}
	sort.Slice(sum.Channels, func(i, j int) bool { return sum.Channels[i].Channel < sum.Channels[j].Channel })
	if lastPlan != nil {
		s.cfg.Walk(func(c *compound.Compound) {
			if plan.Load(c) == nil {
				return
			}
			for _, ch := range c.Children {
				st := lastPlan.Compounds[ch.Path()]
				name := ch.Path()
				if ch.Channel != nil {
					name = ch.Channel.Name
				}
				switch {
				case !st.Active || st.Skip:
					sum.FinalSplit[name] = "nothing"
				case plan.Load(c).Params.Mode == "DB":
					sum.FinalSplit[name] = fmt.Sprintf("range [%.3f %.3f)", st.Local.Range.Start, st.Local.Range.End)
				default:
					v := st.Local.Viewport
					sum.FinalSplit[name] = fmt.Sprintf("viewport [%.3f %.3f %.3f %.3f]", v.X, v.Y, v.W, v.H)
				}
			}
		})
	}
	return sum, nil
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// destNodes counts the nodes showing destination channels: with more than
// one, their swaps are released together.
func (s *server) destNodes() int {
	n := 0
	for _, name := range s.order {
		if s.nodes[name].hasDest {
			n++
		}
	}
	return n
}

func (s *server) nodeOf(ch *compound.Channel) *nodeState {
	for _, name := range s.order {
		if s.nodes[name].model == ch.Window.Pipe.Node {
			return s.nodes[name]
		}
	}
	return nil
}

// stopClients tells every client to stop and waits a little for them to
// exit; stragglers are killed (no orphans).
func (s *server) stopClients() {
	for _, name := range s.order {
		if ns := s.nodes[name]; ns.alive {
			s.send(ns, &control.ServerMsg{Stop: true})
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, name := range s.order {
		ns := s.nodes[name]
		if ns.cmd == nil {
			continue
		}
		select {
		case <-ns.exited:
		case <-time.After(time.Until(deadline)):
			ns.cmd.Process.Kill()
			<-ns.exited
		}
	}
}
