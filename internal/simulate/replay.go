package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/goeq/goeq/internal/bounded"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// maxStatsLine bounds a statistics file's line: a record is a few hundred
// bytes.
const maxStatsLine = 1 << 24

// ReadStats reads a statistics file (`eqserver run --stats`): a JSON
// record per line. A last line without its line end that is no record is
// one the run was writing when it stopped (killed, its disk full): the
// records before it are read, and cut says so.
func ReadStats(r io.Reader) (recs []stats.Record, cut string, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		text, err := bounded.ReadLine(br, maxStatsLine)
		if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
			return nil, "", fmt.Errorf("line %d: longer than %d bytes: a statistics file has a JSON record per line (eqserver run --stats)", line, maxStatsLine)
		}
		if err != nil && err != io.EOF {
			return nil, "", err
		}
		ended := len(text) > 0 && text[len(text)-1] == '\n'
		if body := bytes.TrimSpace(text); len(body) > 0 {
			var rec stats.Record
			perr := json.Unmarshal(body, &rec)
			if perr == nil {
				perr = rec.Check()
			}
			switch {
			case perr != nil && !ended:
				cut = fmt.Sprintf("line %d, the last, has no line end and is no record (%v): the run stopped while writing it, and it is left out", line, perr)
			case perr != nil:
				return nil, "", fmt.Errorf("line %d: %w", line, perr)
			default:
				recs = append(recs, rec)
			}
		}
		if err == io.EOF {
			break
		}
	}
	if len(recs) == 0 {
		return nil, "", errors.New("no records: a statistics file has a JSON record per line (eqserver run --stats)")
	}
	return recs, cut, nil
}

// Replay feeds a recorded run's costs through the live scheduler and
// equalizers under a policy, frame for frame: a source's draw time for
// what the replay plans it is the recorded cost of that region in the
// same frame (each recorded part's draw time spread evenly over the part
// of the screen or database it drew), and its other times are its own
// recorded ones. A source planned exactly what it drew in the recording
// gets its recorded statistics unchanged, so a replay under Equalizer's
// policy, recorded under it, plans the recorded splits (the adaptive
// policy also follows when each node finished its frames, which the
// replay times as the simulator does). It returns the summary and the
// statistics it gave, whose viewports and ranges are its decisions.
//
// It replays the load-balanced compound whose sources the statistics
// have most records of; ReplayCompound replays another.
func Replay(cfg *compound.Config, configName string, recorded []stats.Record, policy string) (*Summary, []stats.Record, error) {
	return ReplayCompound(cfg, configName, recorded, policy, "")
}

// ReplayCompound is Replay of the load-balanced compound at path (""
// for the one recorded most): a layout that balances several (a wall's
// segments, each eye's channel) records them all.
func ReplayCompound(cfg *compound.Config, configName string, recorded []stats.Record, policy, path string) (*Summary, []stats.Record, error) {
	if policy != "equalizer" && policy != "adaptive" {
		return nil, nil, fmt.Errorf("unknown policy %q (equalizer or adaptive)", policy)
	}
	balanced, byFrame, also, err := recordedBalanced(cfg, configName, recorded, path)
	if err != nil {
		return nil, nil, err
	}
	sources := balanced.Children
	show(cfg, balanced)
	recorded2D, recordedDB := false, false
	for _, recs := range byFrame {
		for _, r := range recs {
			recorded2D = recorded2D || r.Viewport != compound.FullViewport
			recordedDB = recordedDB || r.Range != compound.FullRange
		}
	}
	frames := make([]int, 0, len(byFrame))
	for f := range byFrame {
		frames = append(frames, f)
	}
	sort.Ints(frames)
	// replayed frame f is the f-th recorded one: a run that showed the
	// compound's layout for a while (eqply's l) recorded it in some of
	// its frames only
	setPolicy(balanced, policy)
	p := planner.New(cfg)
	mode := p.Load(balanced).Params.Mode
	db := mode == compound.SplitDB
	switch {
	case db && recorded2D && !recordedDB:
		return nil, nil, fmt.Errorf("the statistics' sources drew parts of the viewport (a 2D split), but %s's compound %s balances DB (recorded with another config?)", configName, balanced.Path())
	case !db && recordedDB && !recorded2D:
		return nil, nil, fmt.Errorf("the statistics' sources drew depth ranges (a DB split), but %s's compound %s balances %s (recorded with another config?)", configName, balanced.Path(), mode)
	}
	work := func(f, i int, src *compound.Compound, state planner.CompoundState) stats.Record {
		recs := byFrame[frames[f]]
		var own *stats.Record
		for k := range recs {
			if recs[k].Compound == src.Path() {
				own = &recs[k]
			}
		}
		// A replayed source's time is its own regions' recorded costs,
		// independent of the others': where sources shared a renderer,
		// their recorded costs hold its turns already, and the replay
		// does not take them again, so it does not name the renderer
		// either (the adaptive policy would balance them as taking turns).
		if own != nil && own.Viewport == state.Viewport && own.Range == state.Range {
			r := *own
			r.Frame, r.Renderer = f, ""
			return r
		}
		r := stats.Record{Frame: f, Compound: src.Path(), Channel: src.Channel.ID, Viewport: state.Viewport, Range: state.Range}
		if own != nil {
			r.Times = own.Times
		}
		draw := 0.0
		for _, x := range recs {
			draw += x.Times.Draw.Seconds() * share(x, state, db)
		}
		r.Times.Draw = dur(draw)
		return r
	}
	sum := &Summary{Config: configName, Scenario: "replay", Policy: policy, Frames: len(frames), Compound: balanced.Path(), AlsoRecorded: also}
	downAt := recordedDown(cfg, recorded)
	down := func(f int) map[*compound.Channel]bool { return downAt[frames[f]] }
	given, err := drive(cfg, p, balanced, sources, db, len(frames), sum, work, down, true)
	if err != nil {
		return nil, nil, err
	}
	return sum, given, nil
}

// recordedDown are the channels each recorded frame was planned without
// (stats.Record.Down), by frame: a run that went on without a pipe or a
// node is replayed without it too. IDs cfg does not have are left out.
func recordedDown(cfg *compound.Config, recorded []stats.Record) map[int]map[*compound.Channel]bool {
	byID := map[string]*compound.Channel{}
	for _, ch := range cfg.Channels {
		byID[ch.ID] = ch
	}
	out := map[int]map[*compound.Channel]bool{}
	for _, r := range recorded {
		for _, id := range r.Down {
			if ch := byID[id]; ch != nil {
				if out[r.Frame] == nil {
					out[r.Frame] = map[*compound.Channel]bool{}
				}
				out[r.Frame][ch] = true
			}
		}
	}
	return out
}

// recordedBalanced is the load-balanced compound of cfg at path, or
// where path is "" the one whose sources the statistics have most records
// of; those records by frame; and the other balanced compounds the
// statistics have sources of. A source is known by its compound and its
// channel: compound paths alone are positions, which another config's
// tree may share. A run records the compounds of the layout it showed,
// which may be another than the one the config starts in.
func recordedBalanced(cfg *compound.Config, configName string, recorded []stats.Record, path string) (*compound.Compound, map[int][]stats.Record, []string, error) {
	all := balancedCompounds(cfg)
	if len(all) == 0 {
		return nil, nil, nil, nothingToBalance(cfg, configName)
	}
	var chosen *compound.Compound
	var chosenFrames map[int][]stats.Record
	counts := map[*compound.Compound]int{}
	for _, c := range all {
		sourceChannel := map[string]string{}
		for _, s := range c.Children {
			if s.Channel != nil {
				sourceChannel[s.Path()] = s.Channel.ID
			}
		}
		byFrame := map[int][]stats.Record{}
		for _, r := range recorded {
			if ch, ok := sourceChannel[r.Compound]; ok && ch == r.Channel {
				byFrame[r.Frame] = append(byFrame[r.Frame], r)
				counts[c]++
			}
		}
		if path == c.Path() || path == "" && counts[c] > counts[chosen] {
			chosen, chosenFrames = c, byFrame
		}
	}
	switch {
	case path != "" && chosen == nil:
		return nil, nil, nil, fmt.Errorf("%s has no load-balanced compound %s that draws: it balances %s", configName, path, byLayout(cfg, all, "eqserver run"))
	case chosen == nil || counts[chosen] == 0:
		what := "a load-balanced compound"
		if path != "" {
			what = "compound " + path
		}
		return nil, nil, nil, fmt.Errorf("the statistics have no source of %s of %s: record a run that shows %s; or they were recorded with another config", what, configName, byLayout(cfg, all, "eqserver run"))
	}
	var also []string
	for _, c := range all {
		if c != chosen && counts[c] > 0 {
			also = append(also, c.Path())
		}
	}
	return chosen, chosenFrames, also, nil
}

// byLayout names compounds by the layout that shows them, in config
// order, as command is told to show it.
func byLayout(cfg *compound.Config, compounds []*compound.Compound, command string) string {
	var layouts []string
	paths := map[string][]string{}
	for _, c := range compounds {
		l := layoutOf(cfg, c)
		if _, ok := paths[l]; !ok {
			layouts = append(layouts, l)
		}
		paths[l] = append(paths[l], c.Path())
	}
	var which []string
	for _, l := range layouts {
		w := "compound " + paths[l][0]
		if len(paths[l]) > 1 {
			w = "compounds " + strings.Join(paths[l], ", ")
		}
		if l != "" {
			w += fmt.Sprintf(" (%s --layout %q)", command, l)
		}
		which = append(which, w)
	}
	return strings.Join(which, " or ")
}

// share is the fraction of recorded part x that state covers: of its
// range (DB), or of its viewport's area (2D).
func share(x stats.Record, state planner.CompoundState, db bool) float64 {
	if db {
		if w := x.Range.End - x.Range.Start; w > 0 {
			return overlap(x.Range, state.Range) / w
		}
		return 0
	}
	a, b := x.Viewport, state.Viewport
	if a.W <= 0 || a.H <= 0 {
		return 0
	}
	w := math.Max(0, math.Min(a.X+a.W, b.X+b.W)-math.Max(a.X, b.X))
	h := math.Max(0, math.Min(a.Y+a.H, b.Y+b.H)-math.Max(a.Y, b.Y))
	return w * h / (a.W * a.H)
}
