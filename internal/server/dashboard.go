package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/dashboard"
	"github.com/goeq/goeq/internal/procstat"
	"github.com/goeq/goeq/internal/scheduler"
)

// previewEvery is how often each destination sends the dashboard its
// image: five a second.
const previewEvery = 200 * time.Millisecond

// live is a run's dashboard and what feeds it.
type live struct {
	dash      *dashboard.Dashboard
	http      *http.Server
	destOf    map[string]string // compound path -> its destination channel
	lastNodes time.Time
}

// startDashboard serves the run's dashboard on addr.
func (s *server) startDashboard(addr string) (*live, error) {
	ln, err := dashboard.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	policyOf := func(c *compound.Compound) string {
		if s.plan != nil {
			if l := s.plan.Load(c); l != nil && l.Adaptive != nil {
				return "adaptive"
			}
		}
		return "equalizer"
	}
	name := s.cfg.Name
	if name == "" {
		name = s.opt.ConfigPath
	}
	lv := &live{dash: dashboard.New(dashboard.InfoOf(s.cfg, name, policyOf)), destOf: map[string]string{}}
	s.cfg.Walk(func(c *compound.Compound) {
		if d := c.Destination(); d != nil && d.Channel != nil {
			lv.destOf[c.Path()] = d.Channel.ID
		}
	})
	lv.http = &http.Server{Handler: lv.dash.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		if err := lv.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opt.Log.Error(fmt.Sprintf("dashboard: %v", err))
		}
	}()
	s.opt.Log.Info(fmt.Sprintf("dashboard on http://%s/", ln.Addr()))
	return lv, nil
}

// stop tells the page how the run ended (howItEnded) and stops serving it.
func (lv *live) stop(how string) {
	lv.dash.End(how)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	lv.http.Shutdown(ctx)
	lv.http.Close() // event streams do not end on their own
}

// howItEnded says how a run with this outcome ended, as the dashboard
// shows it after "The run".
func howItEnded(sum *Summary, err error) string {
	frames := 0
	if sum != nil {
		frames = sum.Frames
	}
	switch {
	case err != nil:
		return fmt.Sprintf("failed after %d frames: %v", frames, err)
	case sum != nil && sum.Interrupted:
		return fmt.Sprintf("was stopped after %d frames", frames)
	default:
		return fmt.Sprintf("ended after %d frames", frames)
	}
}

// completed takes a completed frame.
func (lv *live) completed(c scheduler.Completed) {
	lv.dash.Frame(c.Frame, c.Finished.Sub(c.Started).Seconds(), c.Degraded, c.Records, func(path string) string { return lv.destOf[path] })
}

// links takes what a node sent for a frame.
func (lv *live) links(from string, links []control.LinkBytes, nodeOf func(channel string) string) {
	out := make([]dashboard.Link, 0, len(links))
	for _, l := range links {
		out = append(out, dashboard.Link{From: from, To: nodeOf(l.To), Codec: l.Codec, Bytes: int64(l.Bytes)})
	}
	lv.dash.Links(out)
}

// nodes refreshes the nodes' status, at most five times a second;
// settingUp says what a joining node's client is doing.
func (lv *live) nodes(now time.Time, st []scheduler.NodeStatus, force bool, settingUp func(node string) string) {
	if !force && now.Sub(lv.lastNodes) < previewEvery {
		return
	}
	lv.lastNodes = now
	out := make([]dashboard.NodeStatus, 0, len(st))
	for _, n := range st {
		status := "joining"
		switch {
		case n.Alive && n.Joins > 1:
			status = "rejoined"
		case n.Alive:
			status = "alive"
		case n.Joins > 0 || n.NeverCame:
			status = "lost"
		}
		age := 0.0
		if !n.LastSeen.IsZero() {
			age = float64(now.Sub(n.LastSeen)) / float64(time.Millisecond)
		}
		ns := dashboard.NodeStatus{Node: n.Node, Status: status, Heartbeat: age, Lacks: n.Lacks}
		if status == "joining" {
			ns.SettingUp = settingUp(n.Node)
		}
		out = append(out, ns)
	}
	lv.dash.Nodes(out)
	self := procstat.Self()
	lv.dash.Process("server", self.Goroutines, self.RSS) // eqserver's, or the application's that runs it
}
