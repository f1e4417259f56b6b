package simulate

import (
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

func loadConfig(t testing.TB, name string) *compound.Config {
	t.Helper()
	m, _, err := compound.Load(filepath.Join("..", "..", "examples", "configs", name), compound.Options{Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return m.Configs[0]
}

func run(t testing.TB, config, scenario, policy string) *Summary {
	t.Helper()
	s, err := Run(loadConfig(t, config), config, Options{Scenario: scenario, Policy: policy, Frames: 300})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The simulations are deterministic (seeded), so the goals of the adaptive
// policy are asserted; docs/balance.md tabulates every figure.

func TestStepConvergesWithin5Frames(t *testing.T) {
	if s := run(t, "2d-lb-4.eqc", "step", "adaptive"); s.ConvergeFrames < 0 || s.ConvergeFrames > 5 {
		t.Errorf("adaptive step converged after %d frames, want <= 5", s.ConvergeFrames)
	}
}

func TestJitterOnStaticLoads(t *testing.T) {
	for _, sc := range []string{"uniform", "hotspot"} {
		if s := run(t, "2d-lb-4.eqc", sc, "adaptive"); s.JitterPct > 0.5 {
			t.Errorf("%s: jitter %.3f%%, want <= 0.5%%", sc, s.JitterPct)
		}
	}
}

func TestOscillatingEfficiency(t *testing.T) {
	eq, ad := run(t, "2d-lb-4.eqc", "oscillating", "equalizer"), run(t, "2d-lb-4.eqc", "oscillating", "adaptive")
	if ad.Efficiency-eq.Efficiency < 0.10 {
		t.Errorf("oscillating efficiency: adaptive %.3f, equalizer %.3f; want 10 points more", ad.Efficiency, eq.Efficiency)
	}
}

func TestDBStepMovesLessData(t *testing.T) {
	eq, ad := run(t, "db-lb-4.eqc", "db-step", "equalizer"), run(t, "db-lb-4.eqc", "db-step", "adaptive")
	if ad.DataMoved > eq.DataMoved/2 {
		t.Errorf("db-step data moved: adaptive %.4f, equalizer %.4f; want at most half", ad.DataMoved, eq.DataMoved)
	}
}

func TestSessionsP99(t *testing.T) {
	rr, ll := run(t, "2d-lb-4.eqc", "sessions", "equalizer"), run(t, "2d-lb-4.eqc", "sessions", "adaptive")
	if ll.FrameTimeP99 >= rr.FrameTimeP99 {
		t.Errorf("sessions p99: least-loaded %.4f, round-robin %.4f", ll.FrameTimeP99, rr.FrameTimeP99)
	}
}

func TestEveryScenarioRunsOnBothConfigs(t *testing.T) {
	for _, cfg := range []string{"2d-lb-4.eqc", "db-lb-4.eqc"} {
		for _, sc := range ScenarioNames() {
			for _, pol := range []string{"equalizer", "adaptive"} {
				s := run(t, cfg, sc, pol)
				if s.Frames != 300 || s.FrameTimeMean <= 0 || s.Efficiency <= 0 || s.Efficiency > 1.0001 || s.ImbalanceMean < 1 {
					t.Errorf("%s %s %s: implausible summary %+v", cfg, sc, pol, s)
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b := run(t, "2d-lb-4.eqc", "noisy", "adaptive"), run(t, "2d-lb-4.eqc", "noisy", "adaptive")
	if a.FrameTimeMean != b.FrameTimeMean || a.JitterPct != b.JitterPct {
		t.Error("the same seed gave different runs")
	}
}

func TestUnknownScenarioAndPolicy(t *testing.T) {
	cfg := loadConfig(t, "2d-lb-4.eqc")
	if _, err := Run(cfg, "x", Options{Scenario: "nope"}); err == nil {
		t.Error("unknown scenario accepted")
	}
	if _, err := Run(cfg, "x", Options{Scenario: "uniform", Policy: "magic"}); err == nil {
		t.Error("unknown policy accepted")
	}
	if _, err := Run(loadConfig(t, "one-window.eqc"), "x", Options{Scenario: "uniform"}); err == nil {
		t.Error("a config without load equalizer accepted")
	}
}
