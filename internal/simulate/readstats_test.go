package simulate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/stats"
)

// A statistics file that no run could have written (edited, cut in a
// line, or made by another program) is refused with the line and what is wrong with
// it, rather than replayed into a report of zeros or a simulation of
// hours.
func TestReadStatsRefusesRecordsNoRunWrites(t *testing.T) {
	good := stats.Record{Frame: 3, Compound: "0.1", Channel: "n1.p0.w0.c0", Viewport: compound.Viewport{X: 0.5, W: 0.5, H: 1},
		Range: compound.FullRange, Times: stats.Times{Draw: 12 * time.Millisecond, Assemble: time.Millisecond}, Bytes: 4096}
	line := func(r stats.Record) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	recs, cut, err := ReadStats(strings.NewReader(line(good) + "\n\n" + line(good) + "\n"))
	if err != nil || len(recs) != 2 || cut != "" {
		t.Fatalf("a good file: %d records, %v (%s)", len(recs), err, cut)
	}
	for _, c := range []struct {
		name string
		bad  func(r *stats.Record)
		want string
	}{
		{"a negative frame", func(r *stats.Record) { r.Frame = -1 }, "frame -1 is negative"},
		{"a negative draw", func(r *stats.Record) { r.Times.Draw = -time.Second }, "draw time -1s is not between 0 and 1h0m0s"},
		{"a draw of years", func(r *stats.Record) { r.Times.Wait = 9e18 }, "wait time 2500000h0m0s is not between 0 and 1h0m0s"},
		{"an endless viewport", func(r *stats.Record) { r.Viewport.W = 1e300 }, "viewport {0.5 0 1e+300 1} is not a finite one"},
		{"a negative size", func(r *stats.Record) { r.Drawn.H = -0.5 }, "drawn region {0 0 0 -0.5} has a negative size"},
		{"a range backwards", func(r *stats.Record) { r.Range = compound.Range{Start: 0.75, End: 0.25} }, "range [0.75 0.25] ends before it starts"},
		{"negative bytes", func(r *stats.Record) { r.Bytes = -5 }, "bytes -5 or tiles 0 are negative"},
	} {
		r := good
		c.bad(&r)
		_, _, err := ReadStats(strings.NewReader(line(good) + "\n" + line(r) + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want line 2: ...%s", c.name, err, c.want)
		}
	}
	if _, _, err := ReadStats(strings.NewReader("\n")); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("an empty file: %v", err)
	}
	long := line(good) + "\n" + strings.Repeat("a", maxStatsLine+1) + "\n"
	if _, _, err := ReadStats(strings.NewReader(long)); err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Errorf("a line too long: %v, want line 2: longer than ...", err)
	}
}

// A run stopped while it wrote a record (killed, its disk full) leaves
// its last line cut: the records before it are replayed, and the cut
// said, where the whole file was refused. A cut line with its line end
// is refused: no run wrote it.
func TestReadStatsLeavesOutALastRecordCutShort(t *testing.T) {
	b, err := json.Marshal(stats.Record{Frame: 3, Compound: "0.1", Channel: "n1.p0.w0.c0", Viewport: compound.Viewport{W: 1, H: 1},
		Range: compound.FullRange, Times: stats.Times{Draw: 12 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	whole := string(b) + "\n"
	recs, cut, err := ReadStats(strings.NewReader(whole + whole + whole[:len(whole)/2]))
	if err != nil || len(recs) != 2 || !strings.Contains(cut, "line 3, the last, has no line end") {
		t.Errorf("a file cut in its last record: %d records, %v, %q", len(recs), err, cut)
	}
	if _, _, err := ReadStats(strings.NewReader(whole + whole[:len(whole)/2] + "\n" + whole)); err == nil || !strings.Contains(err.Error(), "line 2: ") {
		t.Errorf("a record cut in the middle of the file: %v", err)
	}
}
