package goeq_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq"
)

// twoLoadViews is a layout of two views side by side, each load-balanced
// over two sources of its own (on one render node).
const twoLoadViews = `config {
  latency 1
  appNode { pipe { window { name "dest" viewport [ 0 0 640 360 ] channel { name "dest" } } } }
  node { name "render" host "localhost" pipe { window { viewport [ 0 0 640 360 ] attributes { hint_drawable FBO }
    channel { name "a1" } channel { name "a2" } channel { name "b1" } channel { name "b2" } } } }
  observer { }
  layout { view { observer 0 viewport [ 0 0 .5 1 ] } view { observer 0 viewport [ .5 0 .5 1 ] } }
  canvas { layout 0 wall { } segment { channel "dest" } }
  compound { channel ( segment 0 view 0 ) load_equalizer { damping .3 }
    compound { channel "a1" outputframe { name "a1" } } compound { channel "a2" outputframe { name "a2" } }
    inputframe { name "a1" } inputframe { name "a2" } }
  compound { channel ( segment 0 view 1 ) load_equalizer { }
    compound { channel "b1" outputframe { name "b1" } } compound { channel "b2" outputframe { name "b2" } }
    inputframe { name "b1" } inputframe { name "b2" } }
}`

// SetBalancing freezes one view's load equalizer from the next frame on
// (eqPly's f on the current view), in process and on a running eqserver:
// that view's sources draw the same parts in every frozen frame. Balancing
// reads the config's settings and then what was set; a setting out of
// range or a view the config lacks is refused, and changes nothing.
func TestSetBalancingFreezesOneView(t *testing.T) {
	const frames, freezeAt = 8, 3
	path := filepath.Join(t.TempDir(), "two-views.eqc")
	if err := os.WriteFile(path, []byte(twoLoadViews), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(opt goeq.Options) {
		opt.OutDir, opt.InitData = t.TempDir(), squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cfg.Balancing(0)
		if err != nil || b.Damping != .3 || b.Frozen || b.Boundary != [2]int{1, 1} {
			t.Errorf("view 0's balancing %+v, %v: want the config's damping .3, not frozen", b, err)
		}
		if b1, err := cfg.Balancing(1); err != nil || b1.Damping != .5 {
			t.Errorf("view 1's balancing %+v, %v: want Equalizer's damping .5", b1, err)
		}
		if _, err := cfg.Balancing(2); err == nil {
			t.Error("Balancing took view 2 of 2")
		}
		bad := b
		bad.Damping, bad.TileSize = 2, [2]int{0, 8}
		if err := cfg.SetBalancing(0, bad); err == nil || !strings.Contains(err.Error(), "damping 2") || !strings.Contains(err.Error(), "tile size [ 0 8 ]") {
			t.Errorf("out of range: %v", err)
		}
		if err := cfg.SetBalancing(2, b); err == nil {
			t.Error("SetBalancing took view 2 of 2")
		}
		if got, _ := cfg.Balancing(0); got != b {
			t.Errorf("refused settings changed view 0's balancing to %+v", got)
		}
		split := map[int]map[string]goeq.Viewport{} // by frame, view 0's sources
		for i := 0; i < frames && err == nil; i++ {
			if i == freezeAt {
				b.Frozen = true
				err = cfg.SetBalancing(0, b)
			}
			if err == nil {
				_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
			}
			if err == nil {
				err = cfg.FinishAllFrames()
			}
			fs := cfg.LastFrameStats()
			split[fs.Frame] = map[string]goeq.Viewport{}
			for _, ch := range fs.Channels {
				if ch.Channel == "n1.p0.w0.c0" || ch.Channel == "n1.p0.w0.c1" { // a1 and a2
					split[fs.Frame][ch.Channel] = ch.Viewport
				}
			}
		}
		if got, _ := cfg.Balancing(0); !got.Frozen {
			t.Errorf("view 0's balancing after SetBalancing: %+v", got)
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		if len(split[freezeAt-1]) != 2 {
			t.Fatalf("frame %d: view 0's sources drew %v, want a1 and a2", freezeAt-1, split[freezeAt-1])
		}
		for f := freezeAt; f < frames; f++ {
			if !maps.Equal(split[f], split[freezeAt-1]) {
				t.Errorf("frozen from frame %d, frame %d drew %v; frame %d drew %v", freezeAt, f, split[f], freezeAt-1, split[freezeAt-1])
			}
		}
	}
	run(goeq.Options{Config: path})
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	run(goeq.Options{Server: startAppServer(t, path).addr})
}

// Tiles of another size, set from a frame on (eqPly's t and T), make the
// same picture: every frame equals the reference's.
func TestSetBalancingTileSizeKeepsThePicture(t *testing.T) {
	const frames = 5
	run := func(opt goeq.Options) string {
		out := t.TempDir()
		opt.OutDir, opt.InitData = out, squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < frames && err == nil; i++ {
			if i == 2 && !opt.Reference {
				var b goeq.Balancing
				if b, err = cfg.Balancing(0); err == nil && b.TileSize != [2]int{64, 64} {
					t.Errorf("tile size %v, want the config's 64x64", b.TileSize)
				}
				b.TileSize = [2]int{100, 37}
				err = cfg.SetBalancing(0, b)
			}
			if err == nil {
				_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
			}
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return out
	}
	path := examples("tile-4.eqc")
	want, got := run(goeq.Options{Config: path, Reference: true}), run(goeq.Options{Config: path})
	sameFrames(t, got, want, "dest", frames)
}
