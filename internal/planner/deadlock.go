package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
)

// SortForRun puts a channel's tasks in the order its executor runs them:
// those for other windows' destinations first, which draw at its corner,
// then its own trees', which then stay as shown (a channel that is a
// destination and a source of other trees drew a later tree's part over
// its own picture). The sort is stable: plan order otherwise.
func SortForRun(tasks []Task) {
	slices.SortStableFunc(tasks, func(a, b Task) int {
		switch {
		case a.Home == b.Home:
			return 0
		case !a.Home:
			return -1
		}
		return 1
	})
}

// Link is one wait of a Deadlock: a channel's assemble of an input frame,
// which comes in its run order before a readback of a frame another link's
// assemble waits for.
type Link struct {
	Channel  *compound.Channel
	Assemble string // the assembling compound (a path)
	Frame    string // the input frame assembled
	// Before is the readback on the same channel that runs after the
	// assemble, and Sends the frame it reads back: the frame the previous
	// link waits for.
	Before string
	Sends  string
}

// Deadlock is a circle of waits in a frame's plan: each link's assemble
// waits for a frame its channel, or the next link's, reads back only
// after an assemble of its own. No executor can run it; a channel runs its
// tasks in order, as Equalizer's do.
type Deadlock []Link

// Deadlock finds a circle of waits among the plan's tasks, or nil. Only
// a channel's own order and its inputs' producers count: an executor may
// run a window's channels in any order that keeps each channel's.
func (fp *FramePlan) Deadlock() Deadlock {
	w := waits{plan: fp, ordered: make([][]Task, len(fp.Channels)), producers: map[sentFrame][]taskAt{}}
	for i, cp := range fp.Channels {
		w.ordered[i] = slices.Clone(cp.Tasks)
		SortForRun(w.ordered[i])
		for k, t := range w.ordered[i] {
			for _, o := range t.Outputs {
				for _, c := range o.Consumers {
					key := sentFrame{cp.Channel.ID, c, t.Eye, o.Name}
					w.producers[key] = append(w.producers[key], taskAt{i, k})
				}
			}
		}
		w.state = append(w.state, make([]walkState, len(cp.Tasks)))
	}
	for i := range w.ordered {
		for k := len(w.ordered[i]) - 1; k >= 0; k-- {
			if w.visit(taskAt{i, k}, "") {
				return w.links()
			}
		}
	}
	return nil
}

type taskAt struct{ plan, task int }

// sentFrame is a frame as an assemble waits for it.
type sentFrame struct {
	producer, consumer string
	eye                int
	name               string
}

type walkState uint8

const (
	unseen walkState = iota
	onPath
	finished
)

// waits walks depth first from each task to those it waits for; a wait
// back onto the walk's path closes a circle.
type waits struct {
	plan      *FramePlan
	ordered   [][]Task // each channel's tasks in run order
	producers map[sentFrame][]taskAt
	state     [][]walkState
	path      []waitStep
	circle    []waitStep
}

// waitStep is a task on the walk, and the frame by which the task before
// it waits for it ("": it runs before that task on their channel).
type waitStep struct {
	at    taskAt
	frame string
}

func (w *waits) visit(at taskAt, frame string) bool {
	switch w.state[at.plan][at.task] {
	case finished:
		return false
	case onPath:
		from := slices.IndexFunc(w.path, func(s waitStep) bool { return s.at == at })
		w.circle = append(slices.Clone(w.path[from:]), waitStep{at, frame})
		return true
	}
	w.state[at.plan][at.task] = onPath
	w.path = append(w.path, waitStep{at, frame})
	t := &w.ordered[at.plan][at.task]
	if t.Kind == Assemble {
		for _, in := range t.Inputs {
			for _, p := range in.Producers {
				for _, r := range w.producers[sentFrame{p, w.plan.Channels[at.plan].Channel.ID, t.Eye, in.Name}] {
					if w.visit(r, in.Name) {
						return true
					}
				}
			}
		}
	}
	if at.task > 0 && w.visit(taskAt{at.plan, at.task - 1}, "") {
		return true
	}
	w.path = w.path[:len(w.path)-1]
	w.state[at.plan][at.task] = finished
	return false
}

// links reads the circle's links: each wait by a frame starts one, at
// the assemble that waits.
func (w *waits) links() Deadlock {
	c := w.circle // its last step is its first again
	var d Deadlock
	for j := 0; j+1 < len(c); j++ {
		if c[j+1].frame == "" {
			continue
		}
		a := w.ordered[c[j].at.plan][c[j].at.task]
		d = append(d, Link{Channel: w.plan.Channels[c[j].at.plan].Channel, Assemble: a.Compound, Frame: c[j+1].frame})
	}
	// the readback a link's assemble waits for runs on the next link's
	// channel, after that link's assemble
	m := 0
	for j := 0; j+1 < len(c); j++ {
		if c[j+1].frame == "" {
			continue
		}
		next := &d[(m+1)%len(d)]
		next.Before, next.Sends = w.ordered[c[j+1].at.plan][c[j+1].at.task].Compound, c[j+1].frame
		m++
	}
	return d
}

// describe says what waits for what, link by link, and why.
func (d Deadlock) describe() string {
	if len(d) == 1 {
		l := d[0]
		return fmt.Sprintf("channel %s assembles it in compound %s before it reads it back in compound %s, and a channel runs its tasks in order (draw compound %s on a channel of its own, or before compound %s)",
			l.Channel.Label, l.Assemble, l.Before, l.Before, l.Assemble)
	}
	var parts []string
	for _, l := range d {
		parts = append(parts, fmt.Sprintf("channel %s assembles %q in compound %s before it reads back %q in compound %s", l.Channel.Label, l.Frame, l.Assemble, l.Sends, l.Before))
	}
	return strings.Join(parts, ", and ") + ": a channel runs its tasks in order, so each waits for the other"
}

// Switch is a layout or view mode switch after which a config's frames
// wait in a circle (CheckOrder), and the warning that says so.
type Switch struct {
	// Canvas (an index in the config's Canvases) shows Layout (an index in
	// its Layouts), or, where Canvas is -1, View (an index among the
	// config's views, layout by layout) shows its other mode.
	Canvas, Layout, View int
	Warning              configparser.Diagnostic
	// Why says it to an application refused the switch.
	Why string
}

// CheckOrder plans a config's first frames (every compound's period) as
// it starts, then with each canvas in each other layout of its own and
// each view in its other mode (mono, stereo), and finds the circles of
// waits (FramePlan.Deadlock), reported at the input frame that starts
// each: a run of the config would wait for ever there, as Equalizer's
// does. A circle as the config starts is an error; the switches that lead
// to one are returned, each with its warning: a run that never switches
// there is not hurt, and an application is refused the switch. It leaves
// the config's layouts and view modes as they were.
func CheckOrder(cfg *compound.Config) (stuck []Switch, err error) {
	const most = 64 // frames planned in each setting
	frames := 1
	cfg.Walk(func(c *compound.Compound) {
		if c.Period > 1 && frames < most {
			frames = min(most, frames*c.Period/gcd(frames, c.Period))
		}
	})
	views := cfg.Views()
	settings := []Switch{{Canvas: -1, View: -1}} // as the config starts
	for ci, cv := range cfg.Canvases {
		for i := range cv.Layouts {
			if i != cv.ActiveLayout {
				settings = append(settings, Switch{Canvas: ci, Layout: i, View: -1})
			}
		}
	}
	for i := range views {
		settings = append(settings, Switch{Canvas: -1, View: i})
	}
	active := make([]int, len(cfg.Canvases))
	for i, cv := range cfg.Canvases {
		active[i] = cv.ActiveLayout
	}
	stereo := make([]bool, len(views))
	for i, v := range views {
		stereo[i] = v.Stereo
	}
	defer func() {
		for i, cv := range cfg.Canvases {
			cv.ActiveLayout = active[i]
		}
		for i, v := range views {
			v.Stereo = stereo[i]
		}
	}()
	var errs configparser.ErrorList
	p := New(cfg)
	frame := 0
	for _, s := range settings {
		if s.Canvas >= 0 {
			p.Changes.SetLayout(frame, cfg.Canvases[s.Canvas], s.Layout)
		}
		if s.View >= 0 {
			p.Changes.SetViewMode(frame, views[s.View], !stereo[s.View])
		}
		for range frames {
			d := p.Plan(frame).Deadlock()
			frame++
			if d == nil {
				continue
			}
			in := inputFrame(cfg, d[0].Assemble, d[0].Frame)
			if in == nil {
				continue
			}
			s.Why = fmt.Sprintf("%s: input frame %q is never assembled: %s", in.Pos, d[0].Frame, d.describe())
			switch {
			case s.Canvas >= 0:
				cv := cfg.Canvases[s.Canvas]
				s.Warning = configparser.Diagnostic{Pos: in.Pos, Msg: fmt.Sprintf("input frame %q is never assembled in layout %s of canvas %s: %s; an application is refused the switch (UseLayout, eqply's l)",
					d[0].Frame, layoutLabel(cv, s.Layout), canvasLabel(cfg, cv), d.describe())}
				stuck = append(stuck, s)
			case s.View >= 0:
				mode := "stereo"
				if stereo[s.View] {
					mode = "mono"
				}
				s.Warning = configparser.Diagnostic{Pos: in.Pos, Msg: fmt.Sprintf("input frame %q is never assembled when view %s shows %s: %s; an application is refused the switch (SetViewMode, eqply's g)",
					d[0].Frame, viewLabel(views, s.View), mode, d.describe())}
				stuck = append(stuck, s)
			default:
				errs = append(errs, configparser.Diagnostic{Pos: in.Pos, Msg: fmt.Sprintf("input frame %q is never assembled: %s", d[0].Frame, d.describe())})
			}
			break // the first frame with a circle says it
		}
		if s.Canvas >= 0 {
			p.Changes.SetLayout(frame, cfg.Canvases[s.Canvas], active[s.Canvas])
		}
		if s.View >= 0 {
			p.Changes.SetViewMode(frame, views[s.View], stereo[s.View])
		}
	}
	if len(errs) == 0 {
		return stuck, nil
	}
	errs.Sort()
	return stuck, errs
}

// inputFrame finds the input frame named name of the compound at path.
func inputFrame(cfg *compound.Config, path, name string) *compound.Frame {
	var found *compound.Frame
	cfg.Walk(func(c *compound.Compound) {
		if found == nil && c.Path() == path {
			for _, f := range c.InputFrames {
				if f.Name == name {
					found = f
				}
			}
		}
	})
	return found
}

func layoutLabel(cv *compound.Canvas, i int) string {
	if l := cv.Layouts[i]; l != nil && l.Name != "" {
		return fmt.Sprintf("%q", l.Name)
	}
	return fmt.Sprint(i)
}

func canvasLabel(cfg *compound.Config, cv *compound.Canvas) string {
	if cv.Name != "" {
		return fmt.Sprintf("%q", cv.Name)
	}
	return fmt.Sprint(slices.Index(cfg.Canvases, cv))
}

func viewLabel(views []*compound.View, i int) string {
	if views[i].Name != "" {
		return fmt.Sprintf("%q", views[i].Name)
	}
	return fmt.Sprint(i)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
