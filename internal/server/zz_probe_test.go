package server

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestZZProbeRepairs(t *testing.T) {
	const frames = 20
	tally := map[string]int{}
	for _, seed := range randomSeeds(1, 1) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
			path, text, victim, mode := randomSpreadTree(t, r, func() bool { return r.IntN(2) == 0 })
			latency := 1 + r.IntN(4)
			path = withLatency(t, path, latency)
			sp, sum, ref := runLosingNode(t, path, frames, victim)
			t.Logf("latency %d: repaired %v degraded %v", latency, sum.RepairedFrames, sum.DegradedFrames)
			tally["runs"]++
			tally["repaired"] += len(sum.RepairedFrames)
			tally["degraded"] += len(sum.DegradedFrames)
			if len(sum.DegradedFrames) <= 2 {
				tally["at most 2"]++
			}
			if len(sum.DegradedFrames) == 0 {
				tally["none"]++
			}
			if !slices.Equal(sum.LostNodes, []string{victim}) || sum.Frames != frames || sum.Degraded > latency+1 {
				t.Errorf("summary: lost %v, %d frames, %d degraded", sum.LostNodes, sum.Frames, sum.Degraded)
			}
			wholeFramesMatch(t, sp.out, ref.out, sum.DegradedFrames, mode, "with "+victim+" lost")
			if t.Failed() {
				t.Logf("the whole config (%s killed):\n%s", victim, text)
			}
		})
	}
	t.Logf("tally %v", tally)
}
