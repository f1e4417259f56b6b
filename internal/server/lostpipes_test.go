package server

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
)

// The pipes a client says it could not set up are checked: the run goes
// on without one only under the config's robustness (and while the
// layouts shown have no destination on it, which the scheduler judges);
// a pipe the node does not have, or one named twice, fails the node's
// set-up instead of taking channels out.
func TestLostPipesAreChecked(t *testing.T) {
	const text = `server { config { %s
    appNode {
        pipe { name "display" window { viewport [ 0 0 320 200 ] channel { name "dest" } } }
        pipe { name "gpu1" window { attributes { hint_drawable FBO } channel { name "src1" } } } }
    compound { channel "dest" wall {} compound {} compound { channel "src1" outputframe {} } inputframe { name "frame.src1" } } } }`
	for _, tc := range []struct {
		robustness string
		lost       []control.LostPipe
		down, why  string
	}{
		{"", []control.LostPipe{{Pipe: 1, Reason: "no GPU"}}, "src1", ""},
		{"", []control.LostPipe{{Pipe: 0, Reason: "no GPU"}}, "dest", ""},
		{"attributes { robustness OFF }", []control.LostPipe{{Pipe: 1, Reason: "no GPU"}}, "", `pipe "gpu1": no GPU`},
		{"", []control.LostPipe{{Pipe: 2, Reason: "no GPU"}}, "", "pipe 2 lost, which the node does not have"},
		{"", []control.LostPipe{{Pipe: 1, Reason: "a"}, {Pipe: 1, Reason: "b"}}, "", "or twice"},
		{"", []control.LostPipe{{Pipe: 1, Reason: strings.Repeat("x", 10000)}}, "src1", ""},
	} {
		m, _, err := compound.LoadText("lost.eqc", []byte(strings.Replace(text, "%s", tc.robustness, 1)), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		s := &server{cfg: m.Configs[0], opt: Options{Log: slog.New(slog.NewTextHandler(&log, nil))}}
		ids, why := s.lostPipes(s.cfg.Nodes[0], tc.lost)
		var down []string
		for _, ch := range s.cfg.Channels {
			if reason, ok := ids[ch.ID]; ok {
				down = append(down, ch.Label)
				if reason != clipText(tc.lost[0].Reason, maxSettingUp) {
					t.Errorf("%v: channel %s down for %q", tc.lost, ch.Label, reason)
				}
			}
		}
		if strings.Join(down, " ") != tc.down || !strings.Contains(why, tc.why) || (tc.why == "") != (why == "") {
			t.Errorf("%s %v: channels %v down, why %q; want %q and %q", tc.robustness, tc.lost[0].Pipe, down, why, tc.down, tc.why)
		}
		if tc.why != "" && strings.Contains(log.String(), "could not be set up") {
			t.Errorf("%v: a node whose report fails logged a pipe the run goes on without:\n%s", tc.lost, log.String())
		}
		// the destination's pipe is lost for as long as no layout shown
		// has the destination: the warning says so, a source's does not
		if while := strings.Contains(log.String(), "while the layouts shown have no destination on it"); while != (tc.down == "dest") {
			t.Errorf("%v: the warning says %v that the run goes on only while no destination is shown:\n%s", tc.lost, while, log.String())
		}
		if len(log.String()) > 2000 {
			t.Errorf("a long reason went into the log whole: %d bytes", len(log.String()))
		}
	}
}
