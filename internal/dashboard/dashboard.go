// Package dashboard is a run's live view (`--http ADDR`): a web page
// (embedded, no network needed) that shows the latest destination frames
// with the current split drawn over them, per-channel task timing as a
// Gantt chart, frame-rate and imbalance plots, node status, links and
// codecs, and the balancing policy; and Prometheus metrics at /metrics.
//
// The run feeds it (Frame, Preview, Nodes); it never blocks the run: each
// call takes a lock, updates the state and returns. Browsers poll nothing:
// /events streams the state as server-sent events, at most ten per
// second, only when it changed.
package dashboard

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/stats"
)

//go:embed web
var web embed.FS

// history is how many frames the plots show.
const history = 200

// Info is what a run is, as the dashboard shows it.
type Info struct {
	Config       string
	Destinations []Destination
	Channels     []ChannelInfo
	Policies     []Policy
	Compounds    []CompoundInfo
}

// CompoundInfo is a compound of the tree, in depth-first order.
type CompoundInfo struct {
	Path    string `json:"path"`
	Depth   int    `json:"depth"`
	Channel string `json:"channel,omitempty"` // ID
	Label   string `json:"label,omitempty"`
	What    string `json:"what"` // its tasks and equalizers, in words
	// Destination is the ID of the destination channel it draws for
	Destination string `json:"destination,omitempty"`
}

// Destination is a destination channel: the frames shown.
type Destination struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Canvas is the index in the config of the canvas it shows a part of
	// (-1 for a destination of no canvas), CanvasName that canvas's name,
	// and Area where on the canvas it lies (x, y, width, height, fractions
	// from the bottom left): the page puts a wall's segments together as
	// the wall shows them, not each in a row of its own.
	Canvas     int        `json:"canvas"`
	CanvasName string     `json:"canvas_name,omitempty"`
	Area       [4]float64 `json:"area"`
	// Eyes are the eyes its segment shows, where not all: a passive
	// stereo wall's projectors of one eye each cover the same area.
	Eyes []string `json:"eyes,omitempty"`
}

// ChannelInfo names a channel and says which destination its compounds
// render for (a source of two destinations appears once per destination).
type ChannelInfo struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Destination string `json:"destination"`
	Color       string `json:"color"`
}

// Policy is the balancing of one load or tree equalizer.
type Policy struct {
	Compound string `json:"compound"`
	Kind     string `json:"kind"`   // load, tree, ...
	Policy   string `json:"policy"` // equalizer (Equalizer's) or adaptive (goeq's)
	// Destination is the ID of the destination channel it balances for
	Destination string `json:"destination,omitempty"`
}

// Link is the traffic of one node-to-node link with one codec.
type Link struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Codec string `json:"codec"`
	Bytes int64  `json:"bytes"`
}

// NodeStatus is a node as the dashboard shows it.
type NodeStatus struct {
	Node   string `json:"node"`
	Status string `json:"status"` // joining, alive, lost, rejoined
	// SettingUp is what a joining node's client says its set-up is doing
	// (a renderer factory loading the application's data, for how long)
	SettingUp string `json:"setting_up,omitempty"`
	// Lacks are the pipes a node alive could not set up, each with why:
	// the run goes on without them, as the config's robustness lets it
	Lacks      []string `json:"lacks,omitempty"`
	Heartbeat  float64  `json:"heartbeat_age_ms"`
	Goroutines int64    `json:"goroutines"`
	RSS        int64    `json:"rss_bytes"`
}

// part is one channel's work on the destination of one frame.
type part struct {
	Compound    string             `json:"compound"`
	Channel     string             `json:"channel"`
	Destination string             `json:"destination"`
	Viewport    [4]float64         `json:"viewport"` // of the destination: x, y, w, h
	Range       [2]float64         `json:"range"`
	Times       map[string]float64 `json:"times"` // milliseconds by task
	// Tiles is how many items of a tile queue it drew: a source the
	// others outpace draws none (scheduler's share)
	Tiles int `json:"tiles,omitempty"`
}

type point struct {
	Frame     int     `json:"frame"`
	Seconds   float64 `json:"seconds"`
	Imbalance float64 `json:"imbalance"`
}

type preview struct {
	frame int
	jpeg  []byte
}

// state is what /events sends.
type state struct {
	Version      int            `json:"version"`
	Config       string         `json:"config"`
	Destinations []Destination  `json:"destinations"`
	Channels     []ChannelInfo  `json:"channels"`
	Policies     []Policy       `json:"policies"`
	Compounds    []CompoundInfo `json:"compounds"`
	Frame        int            `json:"frame"` // the last frame completed, -1 before any
	Degraded     int            `json:"degraded_frames"`
	FPS          float64        `json:"fps"`
	// Parts and History are lists from the start, empty before the first
	// frame: the page iterates them (and threw on null before).
	Parts    []part         `json:"parts"`
	History  []point        `json:"history"`
	Nodes    []NodeStatus   `json:"nodes"`
	Links    []Link         `json:"links"`
	Previews map[string]int `json:"previews"` // destination -> frame of its latest image
	// Shown lists the destinations the recent frames drew, in the order of
	// Destinations: those of a layout not shown draw nothing. It is null
	// before the first frame.
	Shown []string `json:"shown"`
	// Ended says how the run ended, once it has; the page then stops
	// listening and says so, where it showed the last state as if the run
	// went on.
	Ended string `json:"ended,omitempty"`
}

// Dashboard is a run's live view.
type Dashboard struct {
	mu       sync.Mutex
	st       state
	previews map[string]preview
	links    map[[3]string]int64
	channels map[string]ChannelInfo
	// drawn is the last frame each destination drew (Shown)
	drawn map[string]int

	reg       *prometheus.Registry
	frames    prometheus.Counter
	degraded  prometheus.Counter
	frameSecs prometheus.Histogram
	taskSecs  *prometheus.HistogramVec
	linkBytes *prometheus.CounterVec
	alive     prometheus.Gauge
	pipesLost prometheus.Gauge
	procGo    *prometheus.GaugeVec
	procRSS   *prometheus.GaugeVec
	health    map[string][2]int64 // process -> goroutines, resident bytes

	// encoded is the state as /events and /state send it, encoded once a
	// version however many watch: each of them encoding it ten times a
	// second, under the lock the run's calls take, starved the run (2000
	// streams: 5 frames in 15 s where it made 120)
	encoded        []byte
	encodedVersion int
	// endedVersion is the state's version once the run ended (End), 0
	// while it runs: a stream that has sent it is done
	endedVersion int
	// streams bounds the /events streams served at once
	streams chan struct{}
}

// maxStreams is how many /events streams a dashboard serves at once: a
// wall's operators and a few monitors; more are refused with 503.
const maxStreams = 64

// streamWriteTimeout drops a stream whose viewer stopped reading: its
// event waits no longer than this to be written.
const streamWriteTimeout = 10 * time.Second

// shownFor is how many frames a destination stays shown after the last
// one it drew: a destination compound drawn in some frames only (a period
// of its own) does not blink, and one whose layout was switched off goes
// within a second.
const shownFor = 8

// New makes the dashboard of a run.
func New(info Info) *Dashboard {
	d := &Dashboard{previews: map[string]preview{}, links: map[[3]string]int64{}, channels: map[string]ChannelInfo{}, drawn: map[string]int{},
		reg: prometheus.NewRegistry(), encodedVersion: -1, streams: make(chan struct{}, maxStreams)}
	d.st = state{Config: info.Config, Destinations: info.Destinations, Channels: info.Channels, Policies: info.Policies, Compounds: info.Compounds,
		Frame: -1, Previews: map[string]int{}, Parts: []part{}, History: []point{}}
	for _, c := range info.Channels {
		d.channels[c.ID+"|"+c.Destination] = c
	}
	d.frames = prometheus.NewCounter(prometheus.CounterOpts{Name: "goeq_frames_total", Help: "Frames completed."})
	d.degraded = prometheus.NewCounter(prometheus.CounterOpts{Name: "goeq_degraded_frames_total", Help: "Frames completed without some input (a lost producer)."})
	d.frameSecs = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "goeq_frame_seconds", Help: "Time from a frame's start to its completion.",
		Buckets: prometheus.ExponentialBuckets(0.002, 1.6, 16)})
	d.taskSecs = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "goeq_task_seconds", Help: "Time of one task of one channel in one frame.",
		Buckets: prometheus.ExponentialBuckets(0.0002, 1.8, 16)}, []string{"channel", "label", "task"})
	d.linkBytes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goeq_link_bytes_total", Help: "Encoded pixel bytes sent from node to node."},
		[]string{"from", "to", "codec"})
	d.alive = prometheus.NewGauge(prometheus.GaugeOpts{Name: "goeq_nodes_alive", Help: "Render nodes alive."})
	d.pipesLost = prometheus.NewGauge(prometheus.GaugeOpts{Name: "goeq_pipes_lost", Help: "Pipes the nodes alive could not set up, which the run goes on without."})
	d.procGo = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "goeq_process_goroutines", Help: "Goroutines of the server and of each node's client."}, []string{"process"})
	d.procRSS = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "goeq_process_resident_bytes", Help: "Resident memory of the server and of each node's client."}, []string{"process"})
	d.reg.MustRegister(d.frames, d.degraded, d.frameSecs, d.taskSecs, d.linkBytes, d.alive, d.pipesLost, d.procGo, d.procRSS)
	d.health = map[string][2]int64{}
	return d
}

// colour is the i-th channel's colour (as the statistics overlay draws
// it).
func colour(i int) string {
	c := control.Palette[i%len(control.Palette)]
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// ColourIndexes numbers each channel of each destination in the order the
// dashboard lists them (InfoOf): by channel ID and destination channel ID.
func ColourIndexes(cfg *compound.Config) map[[2]string]int {
	out := map[[2]string]int{}
	cfg.Walk(func(c *compound.Compound) {
		if d := c.Destination(); c.Channel != nil && d != nil && d.Channel != nil {
			k := [2]string{c.Channel.ID, d.Channel.ID}
			if _, ok := out[k]; !ok {
				out[k] = len(out)
			}
		}
	})
	return out
}

// Frame records a completed frame: how long it took, whether it was
// degraded, and its statistics (destOf names each record's destination).
func (d *Dashboard) Frame(frame int, seconds float64, degraded bool, records []stats.Record, destOf func(compoundPath string) string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.frames.Inc()
	d.frameSecs.Observe(seconds)
	if degraded {
		d.degraded.Inc()
		d.st.Degraded++
	}
	parts := make([]part, 0, len(records)) // a list, never null: the page iterates it
	busiest, total, n := 0.0, 0.0, 0
	for _, r := range records {
		t := r.Times
		times := map[string]float64{"clear": ms(t.Clear), "draw": ms(t.Draw), "readback": ms(t.ReadbackSync + t.ReadbackAsync),
			"compress": ms(t.Compress), "transmit": ms(t.Transmit), "wait": ms(t.Wait), "assemble": ms(t.Assemble)}
		dest := destOf(r.Compound)
		// the ID is the channel's identity; its label is the name a user
		// gave it ("src1"), what a query filters by
		label := cmp.Or(d.channels[r.Channel+"|"+dest].Label, r.Channel)
		for task, v := range times {
			if v > 0 {
				d.taskSecs.WithLabelValues(r.Channel, label, task).Observe(v / 1000)
			}
		}
		d.drawn[dest] = frame
		parts = append(parts, part{Compound: r.Compound, Channel: r.Channel, Destination: dest,
			Viewport: [4]float64{r.Viewport.X, r.Viewport.Y, r.Viewport.W, r.Viewport.H},
			Range:    [2]float64{r.Range.Start, r.Range.End}, Times: times, Tiles: r.Tiles})
		if busy := t.Busy().Seconds(); t.Draw > 0 {
			busiest, total, n = max(busiest, busy), total+busy, n+1
		}
	}
	imbalance := 0.0
	if n > 0 && total > 0 {
		imbalance = busiest/(total/float64(n)) - 1
	}
	d.st.Frame = frame
	d.st.Parts = parts
	d.st.Shown = []string{}
	for _, dst := range d.st.Destinations {
		if last, ok := d.drawn[dst.ID]; ok && frame-last < shownFor {
			d.st.Shown = append(d.st.Shown, dst.ID)
		}
	}
	d.st.History = append(d.st.History, point{frame, seconds, imbalance})
	if len(d.st.History) > history {
		d.st.History = d.st.History[len(d.st.History)-history:]
	}
	if h := d.st.History; len(h) > 1 {
		span := 0.0
		for _, p := range h[1:] {
			span += p.Seconds
		}
		if span > 0 {
			d.st.FPS = float64(len(h)-1) / span
		}
	}
	d.st.Version++
}

// Links counts what nodes sent each other.
func (d *Dashboard) Links(links []Link) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range links {
		d.links[[3]string{l.From, l.To, l.Codec}] += l.Bytes
		d.linkBytes.WithLabelValues(l.From, l.To, l.Codec).Add(float64(l.Bytes))
	}
	if len(links) > 0 {
		d.st.Version++
	}
}

// Preview takes a destination's latest image (JPEG).
func (d *Dashboard) Preview(destination string, frame int, jpeg []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.previews[destination]; ok && p.frame > frame {
		return
	}
	d.previews[destination] = preview{frame, jpeg}
	d.st.Previews[destination] = frame
	d.st.Version++
}

// Process takes a process's health: the server's ("server": eqserver, or
// the application that runs it) or a node's client's (by node).
func (d *Dashboard) Process(name string, goroutines int, rss int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.procGo.WithLabelValues(name).Set(float64(goroutines))
	d.procRSS.WithLabelValues(name).Set(float64(rss))
	d.health[name] = [2]int64{int64(goroutines), rss}
}

// End takes how the run ended (why: "ended after 300 frames"). The event
// streams send it and end; the page says it.
func (d *Dashboard) End(why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.endedVersion != 0 {
		return
	}
	d.st.Ended = why
	d.st.Version++
	d.endedVersion = d.st.Version
}

// endedBy says whether the state at version v says that the run ended.
func (d *Dashboard) endedBy(v int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.endedVersion != 0 && v >= d.endedVersion
}

// Nodes takes the nodes' status.
func (d *Dashboard) Nodes(nodes []NodeStatus) {
	d.mu.Lock()
	defer d.mu.Unlock()
	alive, pipesLost := 0, 0
	for _, n := range nodes {
		if n.Status == "alive" || n.Status == "rejoined" {
			alive++
			pipesLost += len(n.Lacks)
		}
	}
	d.alive.Set(float64(alive))
	d.pipesLost.Set(float64(pipesLost))
	for i := range nodes {
		h := d.health[nodes[i].Node]
		nodes[i].Goroutines, nodes[i].RSS = h[0], h[1]
	}
	d.st.Nodes = nodes
	d.st.Version++
}

func ms(t time.Duration) float64 { return float64(t) / float64(time.Millisecond) }

// snapshot is the state as JSON, and its version.
func (d *Dashboard) snapshot() ([]byte, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.encodedVersion == d.st.Version {
		return d.encoded, d.st.Version
	}
	d.st.Links = d.st.Links[:0]
	for k, b := range d.links {
		d.st.Links = append(d.st.Links, Link{From: k[0], To: k[1], Codec: k[2], Bytes: b})
	}
	sort.Slice(d.st.Links, func(i, j int) bool {
		a, b := d.st.Links[i], d.st.Links[j]
		return a.From+a.To+a.Codec < b.From+b.To+b.Codec
	})
	d.encoded, _ = json.Marshal(&d.st)
	d.encodedVersion = d.st.Version
	return d.encoded, d.st.Version
}

// Handler serves the page, its assets, /events, /state, /frame?id=ID (a
// destination's latest image) and /metrics.
func (d *Dashboard) Handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(web, "web")
	mux.Handle("GET /", http.FileServerFS(assets))
	mux.HandleFunc("GET /events", d.events)
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) {
		b, _ := d.snapshot()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	mux.HandleFunc("GET /frame", d.frame)
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.reg, promhttp.HandlerOpts{}))
	return mux
}

// events streams the state as server-sent events while it changes.
func (d *Dashboard) events(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	select {
	case d.streams <- struct{}{}:
		defer func() { <-d.streams }()
	default:
		http.Error(w, fmt.Sprintf("this dashboard already streams to %d viewers", maxStreams), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	sent := -1
	for {
		if b, v := d.snapshot(); v != sent {
			sent = v
			rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
			if rc.Flush() != nil || d.endedBy(v) {
				return
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// frame serves a destination's latest image.
func (d *Dashboard) frame(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	d.mu.Lock()
	p, ok := d.previews[id]
	d.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Goeq-Frame", fmt.Sprint(p.frame))
	w.Write(p.jpeg)
}

// InfoOf describes a config's destinations, channels and policies;
// policyOf names the policy of a load or tree equalizer's compound.
func InfoOf(cfg *compound.Config, name string, policyOf func(*compound.Compound) string) Info {
	info := Info{Config: name}
	seen := map[string]bool{}
	cfg.Walk(func(c *compound.Compound) {
		ci := CompoundInfo{Path: c.Path(), Depth: strings.Count(c.Path(), ".")}
		if c.Channel != nil {
			ci.Channel, ci.Label = c.Channel.ID, c.Channel.Label
		}
		var what []string
		for _, eq := range c.Equalizers {
			what = append(what, eq.Kind.String()+" equalizer")
		}
		if len(c.Children) > 0 {
			what = append(what, fmt.Sprintf("%d children", len(c.Children)))
		}
		ci.What = strings.Join(what, ", ")
		dest := c.Destination()
		if dest != nil && dest.Channel != nil {
			ci.Destination = dest.Channel.ID
		}
		info.Compounds = append(info.Compounds, ci)
		if c.Channel == nil || dest == nil || dest.Channel == nil {
			return
		}
		if dest == c && !seen["dest|"+c.Channel.ID] {
			seen["dest|"+c.Channel.ID] = true
			info.Destinations = append(info.Destinations, destinationOf(cfg, c.Channel))
		}
		key := c.Channel.ID + "|" + dest.Channel.ID
		if !seen[key] {
			seen[key] = true
			info.Channels = append(info.Channels, ChannelInfo{ID: c.Channel.ID, Label: c.Channel.Label, Destination: dest.Channel.ID,
				Color: colour(len(info.Channels))})
		}
		for _, eq := range c.Equalizers {
			if eq.Kind.Splits() {
				info.Policies = append(info.Policies, Policy{Compound: c.Path(), Kind: eq.Kind.String(), Policy: policyOf(c), Destination: dest.Channel.ID})
			}
		}
	})
	return info
}

// destinationOf describes a destination channel and its place on the
// wall.
func destinationOf(cfg *compound.Config, ch *compound.Channel) Destination {
	area := ch.CanvasArea()
	d := Destination{ID: ch.ID, Label: ch.Label, Width: ch.PixelViewport.W, Height: ch.PixelViewport.H,
		Canvas: -1, Area: [4]float64{area.X, area.Y, area.W, area.H}}
	if ch.Segment == nil {
		return d
	}
	d.Canvas = slices.Index(cfg.Canvases, ch.Segment.Canvas)
	if d.Canvas >= 0 {
		d.CanvasName = ch.Segment.Canvas.Name
	}
	if eyes := ch.Segment.Eyes; eyes != 0 && eyes&compound.EyesAll != compound.EyesAll {
		for i, e := range compound.Eyes {
			if eyes&e != 0 {
				d.Eyes = append(d.Eyes, [...]string{"cyclop", "left", "right"}[i])
			}
		}
	}
	return d
}
