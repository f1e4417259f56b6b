package server

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/imagecmp"
)

// Configs in the shapes Equalizer's older example configs have, which the
// corpus lacks, run decomposed and match the reference. Each shape hid a
// fault found by running Equalizer's removed example configs:
//   - a destination whose only task is CLEAR: the reference drew the model;
//   - windows that each show a quarter of one wall through compounds under
//     a channel-less root (4-window): each drew its quarter into a quarter
//     of its window, and in anaglyph stereo, having no view;
//   - a load equalizer beside a tile equalizer (2-node.tiles): tiles were
//     drawn where the load equalizer's split put the source, some black;
//   - two sources over the whole of one offscreen window, one assembling
//     the other's part (2-window.2D.DFR): one drew over the other's part
//     before it was read back;
//   - a source channel with a framebuffer object of its own over its
//     destination's window (a sort-last demo): it drew into the window;
//   - an output frame that two compounds of one channel assemble (a
//     multi-level DB and 2D demo): the first took both copies and the
//     second waited until the frame timeout;
//   - one picture sent in halves to two windows by frames with viewports
//     (a display-wall demo): the decomposed run was right, but the
//     reference drew each window's own default wall;
//   - channels that are destinations and each other's sources (a
//     cross-balanced cave without canvases): a channel drew its part of a
//     later tree over its own picture;
//   - a part drawn on the segment channel that the destination's view
//     channel is cut from (Equalizer's configTool wrote its DB stream
//     configs so), or on another channel over the destination's pixels:
//     the destination's image was taken before it drew;
//   - a channel over a mosaic of others that only reads the window back
//     (a 5-sided cave unfolded in one window, dumped): the reference
//     showed the clear where the run shows the mosaic;
//   - a window's channel given "task []" under a swap barrier, its
//     window drawn by a view's channel (Equalizer's issue155): the
//     reference wrote a cleared image of it, which the run does not.
func TestOldConfigShapesMatchTheReference(t *testing.T) {
	const frames, k = 4, 3
	wall := `wall { bottom_left [ -.64 -.36 -1 ] bottom_right [ .64 -.36 -1 ] top_left [ -.64 .36 -1 ] }`
	cases := []struct{ name, nodes, compounds string }{
		{"a destination that only clears",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "clear" } }
                window { viewport [ 0 0 320 180 ] channel { name "drawn" } } } }`,
			`compound { task [ CLEAR ] channel "clear" ` + wall + ` }
            compound { channel "drawn" ` + wall + ` }`},
		{"a wall over four windows",
			`appNode { pipe {
                window { viewport [ 0 0 320 180 ] channel { name "tl" } } window { viewport [ 0 0 320 180 ] channel { name "tr" } }
                window { viewport [ 0 0 320 180 ] channel { name "bl" } } window { viewport [ 0 0 320 180 ] channel { name "br" } } } }`,
			`compound { ` + wall + `
                compound { channel "tl" viewport [ 0 .5 .5 .5 ] } compound { channel "tr" viewport [ .5 .5 .5 .5 ] }
                compound { channel "bl" viewport [ 0 0 .5 .5 ] } compound { channel "br" viewport [ .5 0 .5 .5 ] } }`},
		{"a load equalizer beside tiles",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "dest" } } } }
            node { pipe { window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src" } } } }`,
			`compound { channel "dest" ` + wall + ` tile_equalizer { size [ 32 32 ] } load_equalizer {}
                compound {} compound { channel "src" outputframe {} } inputframe { name "frame.src" } }`},
		{"two sources over one window",
			`appNode { pipe {
                window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src1" } channel { name "src2" } }
                window { viewport [ 0 0 320 180 ] channel { name "dest" } } } }`,
			`compound { channel "dest" ` + wall + `
                compound { viewport [ .6 0 .4 1 ] }
                compound { channel "src2" viewport [ 0 0 .6 1 ]
                    compound { viewport [ 0 0 .5 1 ] }
                    compound { channel "src1" viewport [ .5 0 .5 1 ] outputframe {} }
                    inputframe { name "frame.src1" } outputframe {} }
                inputframe { name "frame.src2" } }`},
		{"a source channel with a framebuffer of its own",
			`appNode { pipe { window { viewport [ 0 0 320 180 ]
                channel { name "buffer" drawable [ FBO_COLOR FBO_DEPTH ] } channel { name "dest" } } } }`,
			`compound { channel "dest" ` + wall + ` buffer [ COLOR DEPTH ]
                compound { range [ 0 .5 ] }
                compound { channel "buffer" range [ .5 1 ] outputframe {} }
                inputframe { name "frame.buffer" } }`},
		{"a frame two compounds of one channel assemble",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "dest" } }
                window { viewport [ 0 0 320 180 ] channel { name "src" } } } }`,
			`compound { channel "dest" task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ] ` + wall + `
                compound { range [ 0 .5 ]
                    compound { channel "src" viewport [ 0 0 .5 1 ] outputframe {} }
                    compound { viewport [ .5 0 .5 1 ] }
                    inputframe { name "frame.src" } }
                compound { range [ .5 1 ] }
                inputframe { name "frame.src" } }`},
		{"one picture in halves on two windows",
			`appNode { pipe { window { viewport [ 0 0 640 180 ] channel { name "buffer" } }
                window { viewport [ 0 0 320 180 ] channel { name "left" } } window { viewport [ 0 0 320 180 ] channel { name "right" } } } }`,
			`compound { compound { channel "buffer" ` + wall + `
                    outputframe { viewport [ 0 0 .5 1 ] name "left" } outputframe { viewport [ .5 0 .5 1 ] name "right" } }
                compound { channel "left" task [ CLEAR ASSEMBLE ] inputframe { name "left" } }
                compound { channel "right" task [ CLEAR ASSEMBLE ] inputframe { name "right" } } }`},
		{"destinations that are each other's sources",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } } }
                pipe { window { viewport [ 0 0 320 180 ] channel { name "b" } } } }`,
			`compound {
                compound { channel "a" ` + wall + ` compound { viewport [ 0 0 .5 1 ] }
                    compound { channel "b" viewport [ .5 0 .5 1 ] outputframe { name "b-for-a" } } inputframe { name "b-for-a" } }
                compound { channel "b" wall { bottom_left [ -.2 -.36 -1 ] bottom_right [ 1.08 -.36 -1 ] top_left [ -.2 .36 -1 ] }
                    compound { viewport [ .5 0 .5 1 ] }
                    compound { channel "a" viewport [ 0 0 .5 1 ] outputframe { name "a-for-b" } } inputframe { name "a-for-b" } } }`},
		{"a part on the segment's own channel",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "dest" } }
                window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src" } } } }
            observer {} layout { view { observer 0 } } canvas { layout 0 ` + wall + ` segment { channel "dest" } }`,
			`compound { channel ( canvas 0 segment 0 layout 0 view 0 ) buffer [ COLOR DEPTH ]
                compound { channel "src" range [ 0 .5 ] outputframe { name "frame.src" } }
                compound { channel "dest" range [ .5 1 ] inputframe { name "frame.src" } } }`},
		{"a channel that reads back a mosaic of others",
			`appNode { pipe { window { viewport [ 0 0 320 180 ]
                channel { name "left" viewport [ 0 0 .5 1 ] } channel { name "right" viewport [ .5 0 .5 1 ] } channel { name "all" } } } }`,
			`compound {
                compound { channel "left" wall { bottom_left [ -.64 -.36 -1 ] bottom_right [ 0 -.36 -1 ] top_left [ -.64 .36 -1 ] } }
                compound { channel "right" wall { bottom_left [ 0 -.36 -1 ] bottom_right [ .64 -.36 -1 ] top_left [ 0 .36 -1 ] } }
                compound { channel "all" task [ READBACK ] outputframe {} } }`},
		{"a channel with no task under a view's",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "raw" } } } }
            observer {} layout { view { observer 0 } } canvas { layout 0 ` + wall + ` segment { channel "raw" } }`,
			`compound { channel "raw" task [] swapbarrier {} }`},
		{"a part on another channel over the destination's pixels",
			`appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "dest" } channel { name "over" } }
                window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src" } } } }`,
			`compound { channel "dest" buffer [ COLOR DEPTH ] ` + wall + `
                compound { channel "src" range [ 0 .5 ] outputframe { name "frame.src" } }
                compound { channel "over" range [ .5 1 ] inputframe { name "frame.src" } } }`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "old.eqc")
			text := fmt.Sprintf("server { config {\n%s\n%s\n} }\n", c.nodes, c.compounds)
			if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(t, cfg, frames, "--renderer", "mesh")
			if r.err != nil || r.summary.Frames != frames || r.summary.Degraded != 0 {
				t.Fatalf("run: %v %+v\n%s", r.err, r.summary, r.stderr)
			}
			compareWithReference(t, r, cfg, frames, k, 2, "--renderer", "mesh")
		})
	}
}

// A compound that renders zoomed and assembles its sources' parts (an old
// 2D and DFR demo: a 2048x2048 buffer channel at zoom 0.5 over two
// sources) shows what a zoomed leaf shows: its parts are placed at its
// zoom, where they were placed at full size and the destination showed
// a quarter of the picture, magnified.
func TestAZoomedCompoundAssemblesItsPartsZoomed(t *testing.T) {
	const frames, k = 3, 2
	nodes := `appNode {
        pipe { window { viewport [ 0 0 320 180 ] channel { name "buffer" } channel { name "dest" } } }
        pipe { window { viewport [ 0 0 320 180 ] attributes { hint_drawable FBO } channel { name "src1" } channel { name "src2" } } } }`
	wall := `wall { bottom_left [ -.64 -.36 -1 ] bottom_right [ .64 -.36 -1 ] top_left [ -.64 .36 -1 ] }`
	write := func(name, buffer string) string {
		path := filepath.Join(t.TempDir(), name)
		text := fmt.Sprintf("server { config {\n%s\ncompound { channel \"dest\" %s\n%s\ninputframe { name \"frame.buffer\" } } } }\n", nodes, wall, buffer)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	parts := write("parts.eqc", `compound { channel "buffer" zoom [ .5 .5 ]
        compound { channel "src1" viewport [ 0 0 .5 1 ] outputframe {} }
        compound { channel "src2" viewport [ .5 0 .5 1 ] outputframe {} }
        inputframe { name "frame.src1" } inputframe { name "frame.src2" } outputframe {} }`)
	leaf := write("leaf.eqc", `compound { channel "buffer" zoom [ .5 .5 ] outputframe {} }`)
	var out [2]string
	for i, cfg := range []string{parts, leaf} {
		r := run(t, cfg, frames, "--renderer", "mesh")
		if r.err != nil || r.summary.Frames != frames || r.summary.Degraded != 0 {
			t.Fatalf("%s: %v %+v\n%s", cfg, r.err, r.summary, r.stderr)
		}
		out[i] = r.out
	}
	name := fmt.Sprintf("dest-%06d.png", k)
	if bad, worst := differing(loadPNG(t, filepath.Join(out[0], name)), loadPNG(t, filepath.Join(out[1], name)), 2); bad > 0 {
		t.Errorf("%s: %d pixels differ from the zoomed leaf's (worst %d)", name, bad, worst)
	}
}

// A channel that a pre-canvas compound draws on, which no frame carries to
// its destination, shows what it draws, and its images are written: the
// two channels of passive stereo show each eye in full colour as a mono
// destination of that eye does (they showed an anaglyph eye each, and the
// right eye was missing from the images), and a mosaic of channels over
// one window shows the parts that a wall over those channels does.
func TestPreCanvasChannelsShowWhatTheyDraw(t *testing.T) {
	const frames, k = 3, 2
	wall := `wall { bottom_left [ -.64 -.36 -1 ] bottom_right [ .64 -.36 -1 ] top_left [ -.64 .36 -1 ] }`
	cases := []struct{ name, nodes, old, plain string }{
		{"passive stereo",
			`appNode { pipe { window { viewport [ 0 0 640 180 ]
                channel { name "left" viewport [ 0 0 .5 1 ] } channel { name "right" viewport [ .5 0 .5 1 ] } } } }`,
			`compound { channel "left" ` + wall + ` compound { eye [ LEFT ] } compound { channel "right" eye [ RIGHT ] } }`,
			`compound { channel "left" eye [ LEFT ] ` + wall + ` } compound { channel "right" eye [ RIGHT ] ` + wall + ` }`},
		{"a mosaic of channels",
			`appNode { pipe { window { viewport [ 0 0 480 180 ] channel { name "all" }
                channel { name "c1" viewport [ .5 0 .5 1 ] } channel { name "c2" viewport [ 0 0 .5 1 ] } } } }`,
			`compound { channel "all" ` + wall + ` compound { channel "c1" viewport [ .5 0 .5 1 ] } compound { channel "c2" viewport [ 0 0 .5 1 ] } }`,
			`compound { ` + wall + ` compound { channel "c1" viewport [ .5 0 .5 1 ] } compound { channel "c2" viewport [ 0 0 .5 1 ] } }`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out [2]string
			for i, compounds := range []string{c.old, c.plain} {
				cfg := filepath.Join(t.TempDir(), "shown.eqc")
				text := fmt.Sprintf("server { config {\n%s\n%s\n} }\n", c.nodes, compounds)
				if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				r := run(t, cfg, frames, "--renderer", "mesh")
				if r.err != nil || r.summary.Frames != frames || r.summary.Degraded != 0 {
					t.Fatalf("%s: %v %+v\n%s", compounds, r.err, r.summary, r.stderr)
				}
				out[i] = r.out
			}
			if n := matchImages(t, out[0], out[1], k, 2); n != 2 {
				t.Fatalf("the plain config wrote %d images of frame %d, want 2", n, k)
			}
		})
	}
}

// A destination whose eyes are interleaved, each eye a pixel part of it
// on its own rows or columns (omegalib wrote row-interleaved passive
// stereo walls so), shows each eye on its rows: those of a plain
// destination of that eye. Equalizer's clear for each eye wiped the rows
// of the eyes before the last, and the parts drawn in place left their
// renders in them; the reference drew the last eye whole. Both a part on
// the destination's channel and one on another channel are tried, and the
// reference must match too.
func TestInterleavedEyesShowEachEyeOnItsRows(t *testing.T) {
	const frames, k, w, h = 3, 2, 320, 180
	wall := `wall { bottom_left [ -.64 -.36 -1 ] bottom_right [ .64 -.36 -1 ] top_left [ -.64 .36 -1 ] }`
	nodes := fmt.Sprintf(`appNode { pipe { window { viewport [ 0 0 %d %d ] channel { name "dest" } }
        window { viewport [ 0 0 %d %d ] attributes { hint_drawable FBO } channel { name "src" } }
        window { viewport [ 0 0 %d %d ] channel { name "left" } } window { viewport [ 0 0 %d %d ] channel { name "right" } } } }`, w, h, w, h, w, h, w, h)
	plain := `compound { channel "left" eye [ LEFT ] attributes { stereo_mode PASSIVE } ` + wall + ` }
        compound { channel "right" eye [ RIGHT ] attributes { stereo_mode PASSIVE } ` + wall + ` }`
	interleaved := func(rightChannel string, pixel [2]string) string {
		return `compound { channel "dest" eye [ LEFT RIGHT ] attributes { stereo_mode PASSIVE } ` + wall + `
            compound { eye [ RIGHT ] channel "` + rightChannel + `" pixel ` + pixel[0] + ` outputframe { name "r" } }
            compound { eye [ LEFT ] channel "dest" pixel ` + pixel[1] + ` outputframe { name "l" } }
            inputframe { name "r" } inputframe { name "l" } }`
	}
	write := func(compounds string) string {
		cfg := filepath.Join(t.TempDir(), "eyes.eqc")
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf("server { config {\n%s\n%s\n} }\n", nodes, compounds)), 0o644); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	runOK := func(cfg string, args ...string) string {
		r := run(t, cfg, frames, append(args, "--renderer", "mesh")...)
		if r.err != nil || r.summary.Frames != frames || r.summary.Degraded != 0 {
			t.Fatalf("%v %+v\n%s", r.err, r.summary, r.stderr)
		}
		return r.out
	}
	name := fmt.Sprintf("-%06d.png", k)
	eyes := runOK(write(plain))
	left, right := loadPNG(t, filepath.Join(eyes, "left"+name)), loadPNG(t, filepath.Join(eyes, "right"+name))
	if bad, _ := differing(left, right, 2); bad == 0 {
		t.Fatal("the plain left and right eyes are the same picture: the test could not tell them apart")
	}
	cases := []struct {
		name, right string
		pixel       [2]string
		// rightEye says whether the right eye's part covers the pixel
		// at x, y counted from the bottom left, as GL counts
		rightEye func(x, y int) bool
	}{
		{"rows, both parts on the destination's channel", "dest", [2]string{"[ 0 0 1 2 ]", "[ 0 1 1 2 ]"}, func(x, y int) bool { return y%2 == 0 }},
		{"columns, the right eye's part on another channel", "src", [2]string{"[ 1 0 2 1 ]", "[ 0 0 2 1 ]"}, func(x, y int) bool { return x%2 == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := write(interleaved(c.right, c.pixel))
			got := loadPNG(t, filepath.Join(runOK(cfg), "dest"+name))
			want := image.NewNRGBA(got.Rect)
			for y := range h {
				for x := range w {
					from := left
					if c.rightEye(x, h-1-y) {
						from = right
					}
					want.SetNRGBA(x, y, from.NRGBAAt(x, y))
				}
			}
			if d, err := imagecmp.Compare(got, want, exactTolerance); err != nil || !d.Matches("") {
				t.Errorf("the interleaved eyes differ from the plain eyes' pixels: %v %v", d, err)
			}
			ref := loadPNG(t, filepath.Join(runOK(cfg, "--reference"), "dest"+name))
			if d, err := imagecmp.Compare(ref, want, exactTolerance); err != nil || !d.Matches("") {
				t.Errorf("the reference differs from the plain eyes' pixels: %v %v", d, err)
			}
		})
	}
}
