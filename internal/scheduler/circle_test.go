package scheduler

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/configparser"
	corpuspkg "github.com/goeq/goeq/internal/corpus"
	"github.com/goeq/goeq/internal/planner"
)

// The corpus's configs with one compound's channel left out (it draws on
// its parent's then) or taken from the next compound that names one: the
// check refuses those whose frames wait in a circle
// (planner.CheckOrder: an error in the layouts the config starts in, a
// warning in others), and exactly those hang on nodes that run their
// tasks in memory, in some layout of theirs. Of 731 such configs, 64 hang;
// a fake node that ran its tasks in plan order rather than the
// executor's ran two that the executor did not.
func TestTheCheckRefusesExactlyTheConfigsThatHang(t *testing.T) {
	channelLine := regexp.MustCompile(`(?m)^\s*channel\s+("[^"]*"|\([^)]*\))\s*$`)
	getenv := compound.Options{Getenv: func(string) (string, bool) { return "", false }}
	mutants, refused := 0, 0
	for _, path := range corpuspkg.Paths(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := channelLine.FindAllIndex(src, -1)
		for i, l := range lines {
			texts := []string{string(src[:l[0]]) + string(src[l[1]:])}
			if i+1 < len(lines) {
				next := strings.TrimSpace(string(src[lines[i+1][0]:lines[i+1][1]]))
				texts = append(texts, string(src[:l[0]])+"\n"+next+string(src[l[1]:]))
			}
			for _, text := range texts {
				res, err := configparser.Parse("mutant.eqc", []byte(text))
				if err != nil {
					continue
				}
				m, err := compound.Resolve(res, getenv)
				if err != nil {
					continue
				}
				mutants++
				stuck, checked := planner.CheckOrder(m.Configs[0])
				for _, s := range stuck {
					if s.Canvas >= 0 && checked == nil { // the fake nodes run each layout as it starts, not modes
						checked = configparser.ErrorList{s.Warning}
					}
				}
				if checked != nil {
					refused++
				}
				hung := ""
				for _, layouts := range layoutSettings(m.Configs[0]) {
					m, _ := compound.Resolve(res, getenv)
					cfg := m.Configs[0]
					for ci, li := range layouts {
						cfg.Canvases[ci].ActiveLayout = li
					}
					c := newCluster(t, cfg, Options{Frames: 3})
					c.run(20000)
					if !c.finished || c.failure != "" {
						hung = c.failure
						break
					}
				}
				if (checked != nil) != (hung != "") {
					t.Errorf("%s, line %d changed: the check says %v, and the run hung: %q", filepath.Base(path),
						strings.Count(string(src[:l[0]]), "\n")+1, checked, hung)
				}
			}
		}
	}
	if mutants < 700 || refused < 50 {
		t.Errorf("%d configs, %d refused: the mutations no longer reach circles", mutants, refused)
	}
}

// layoutSettings is each canvas' active layout as configured, then each
// other layout of one canvas at a time.
func layoutSettings(cfg *compound.Config) [][]int {
	base := make([]int, len(cfg.Canvases))
	for i, cv := range cfg.Canvases {
		base[i] = cv.ActiveLayout
	}
	out := [][]int{base}
	for i, cv := range cfg.Canvases {
		for l := range cv.Layouts {
			if l != cv.ActiveLayout {
				s := append([]int(nil), base...)
				s[i] = l
				out = append(out, s)
			}
		}
	}
	return out
}
