// Package autoconfig writes the config of a run that names none, as
// Equalizer's server makes one for an application started without
// --eq-config: one node, a pipe per GPU of this machine, one window on the
// first, and a layout per way of splitting the frame over the GPUs
// ("Simple" alone on a machine of one GPU). It writes .eqc text, so that
// the config takes the same path as any other, and can be saved and edited.
package autoconfig

import (
	"fmt"
	"strings"
)

// Layout names, Equalizer's: an application that steps through its
// layouts, or names one (--eq-layout), finds the same ones.
const (
	Simple       = "Simple"
	Static2D     = "Static2D"
	Dynamic2D    = "Dynamic2D"
	StaticDB     = "StaticDB"
	DynamicDB    = "DynamicDB"
	DBDirectSend = "DBDirectSend"
	Subpixel     = "Subpixel"
	Tiles        = "Tiles"
	Chunks       = "Chunks"
	DPlex        = "DPlex"
)

// Layouts are the layouts of a machine with several GPUs, in the order
// Equalizer lists them (the first is the one a run starts in).
var Layouts = []string{Static2D, Dynamic2D, StaticDB, DynamicDB, DBDirectSend, Subpixel, Tiles, Chunks, DPlex}

// GPU is one pipe's graphics card: the X screen it shows (on a display) or
// the EGL device it renders on (headless), in the pipe's `device`.
type GPU struct {
	Device int
	// Unnamed leaves the pipe's device out: it renders where a pipe that
	// names none does (the node's display).
	Unnamed bool
}

// Machine is what the config is made for.
type Machine struct {
	// Name names the config and its window (the application's name).
	Name string
	// GPUs are the machine's graphics cards; none or one gives one pipe.
	GPUs []GPU
	// Size is the window's width and height asked for (Equalizer's
	// EQ_WINDOW_IATTR_HINT_WIDTH and _HEIGHT); 0 leaves one to Equalizer's
	// choice.
	Size [2]int
}

// window is where the window opens and how large it is: half a 1080-line
// screen's height, 16:10, where Equalizer places it on such a screen.
var window = [4]int{432, 216, 864, 540}

// screen is the size of the screen a window is placed on (the pipe's
// default, as compound.DefaultPipeViewport).
var screen = [2]int{1920, 1080}

// place is the window's viewport: window, or a window of the size asked
// for (half the screen's width or height where one is not), centred on
// the screen, as Equalizer places a window given a size hint.
func (m Machine) place() [4]int {
	w, h := m.Size[0], m.Size[1]
	if w <= 0 && h <= 0 {
		return window
	}
	if w <= 0 {
		w = screen[0] / 2
	}
	if h <= 0 {
		h = screen[1] / 2
	}
	return [4]int{max((screen[0]-w)/2, 0), max((screen[1]-h)/2, 0), w, h}
}

// Text is the config for the machine, in the .eqc language.
func Text(m Machine) string {
	gpus := m.GPUs
	if len(gpus) == 0 {
		gpus = []GPU{{Unnamed: true}}
	}
	name := m.Name
	if name == "" {
		name = "goeq"
	}
	w := &writer{}
	w.line("#Equalizer 1.2 ascii")
	w.line(fmt.Sprintf("# made by goeq's auto-configuration for a machine of %d GPU(s)", len(m.GPUs)))
	w.open("server")
	w.open("config")
	w.line("name " + quote(name))
	// a frame may start while the GPUs finish those before it, one per
	// source GPU, as Equalizer's auto-configuration sets
	w.line(fmt.Sprintf("latency %d", max(1, len(gpus)-1)))
	w.open("appNode")
	channels := make([]string, len(gpus))
	vp := m.place()
	for i, g := range gpus {
		pipe := "display"
		if len(gpus) > 1 || !g.Unnamed {
			pipe = fmt.Sprintf("GPU%d", i+1)
		}
		w.open("pipe")
		w.line("name " + quote(pipe))
		if !g.Unnamed {
			w.line(fmt.Sprintf("device %d", g.Device))
		}
		w.open("window")
		if i == 0 {
			w.line("name " + quote(name))
			w.line(fmt.Sprintf("viewport [ %d %d %d %d ]", vp[0], vp[1], vp[2], vp[3]))
			w.line("attributes { planes_stencil ON }")
			channels[i] = pipe + " channel"
		} else {
			w.line("name " + quote(pipe+" source window"))
			w.line(fmt.Sprintf("viewport [ 0 0 %d %d ]", vp[2], vp[3]))
			w.line("attributes { hint_drawable FBO }")
			channels[i] = pipe + " source channel"
		}
		w.line("channel { name " + quote(channels[i]) + " }")
		w.close()
		w.close()
	}
	w.close()
	w.line("observer {}")
	layouts := []string{Simple}
	if len(gpus) > 1 {
		layouts = Layouts
	}
	for _, l := range layouts {
		w.line("layout { name " + quote(l) + " view { observer 0 } }")
	}
	w.open("canvas")
	for _, l := range layouts {
		w.line("layout " + quote(l))
	}
	w.line("wall { bottom_left [ -.8 -.5 -1 ] bottom_right [ .8 -.5 -1 ] top_left [ -.8 .5 -1 ] }")
	w.line("segment { channel " + quote(channels[0]) + " }")
	w.close()
	for _, l := range layouts {
		w.open("compound")
		w.line("channel ( canvas 0 segment 0 layout " + quote(l) + " view 0 )")
		decomposition(w, l, channels)
		w.close()
	}
	w.close()
	w.close()
	return w.String()
}

// decomposition writes the compound of layout l over the channels, the
// destination's first, inside the destination's compound.
func decomposition(w *writer, l string, channels []string) {
	n := len(channels)
	switch l {
	case Simple:
		return
	case Static2D, Dynamic2D:
		w.open("compound")
		w.line("name " + quote(l))
		if l == Dynamic2D {
			w.line("load_equalizer { mode 2D }")
		}
		sources(w, l, channels, true, func(i int) {
			w.line("viewport " + part(i, n, true))
		})
		w.close()
	case StaticDB, DynamicDB:
		w.open("compound")
		w.line("name " + quote(l))
		w.line("buffers [ COLOR DEPTH ]")
		if l == DynamicDB {
			w.line("load_equalizer { mode DB }")
		}
		sources(w, l, channels, true, func(i int) {
			w.line("range " + rangeOf(i, n))
		})
		w.close()
	case DBDirectSend:
		directSend(w, channels)
	case Subpixel:
		w.open("compound")
		w.line("name " + quote(l))
		sources(w, l, channels, true, func(i int) {
			w.line(fmt.Sprintf("subpixel [ %d %d ]", i, n))
		})
		w.close()
	case Tiles, Chunks:
		w.open("compound")
		w.line("name " + quote(l))
		if l == Chunks {
			w.line("buffers [ COLOR DEPTH ]")
			w.line("tile_equalizer { size 0.01 }")
		} else {
			w.line("tile_equalizer {}")
		}
		sources(w, l, channels, true, nil)
		w.close()
	case DPlex:
		// the destination shows the frames the others draw in turn
		w.open("compound")
		w.line("name " + quote(l))
		sources(w, l, channels[1:], false, func(i int) {
			w.line(fmt.Sprintf("period %d phase %d", n-1, i))
		})
		w.close()
	}
}

// sources writes a child compound per channel, each given its part by
// child; withDestination says that channels[0] is the destination, which
// draws its part in place.
func sources(w *writer, l string, channels []string, withDestination bool, child func(i int)) {
	var frames []string
	for i, c := range channels {
		w.open("compound")
		if withDestination && i == 0 {
			if child != nil {
				child(i)
			}
			w.close()
			continue
		}
		w.line("channel " + quote(c))
		if child != nil {
			child(i)
		}
		frame := fmt.Sprintf("frame.%s.%d", l, i)
		w.line("outputframe { name " + quote(frame) + " }")
		frames = append(frames, frame)
		w.close()
	}
	for _, f := range frames {
		w.line("inputframe { name " + quote(f) + " }")
	}
}

// directSend writes Equalizer's DB direct send: each channel draws a range
// and takes a horizontal band of the picture to depth-merge, sends every
// other band to the channel that merges it, and its merged band to the
// destination.
func directSend(w *writer, channels []string) {
	n := len(channels)
	w.open("compound")
	w.line("name " + quote(DBDirectSend))
	var merged []string
	for i, c := range channels {
		w.open("compound")
		if i > 0 {
			w.line("channel " + quote(c))
		}
		w.open("compound")
		w.line("range " + rangeOf(i, n))
		for j := range channels {
			if j != i {
				w.line(fmt.Sprintf("outputframe { name \"tile%d.channel%d\" viewport %s buffers [ COLOR DEPTH ] }", j, i, part(j, n, false)))
			}
		}
		w.close()
		for j := range channels {
			if j != i {
				w.line(fmt.Sprintf("inputframe { name \"tile%d.channel%d\" }", i, j))
			}
		}
		if i > 0 {
			frame := fmt.Sprintf("band%d", i)
			w.line(fmt.Sprintf("outputframe { name %s viewport %s buffers [ COLOR ] }", quote(frame), part(i, n, false)))
			merged = append(merged, frame)
		}
		w.close()
	}
	for _, f := range merged {
		w.line("inputframe { name " + quote(f) + " }")
	}
	w.close()
}

// part is the i-th of n equal parts of the picture: columns (across) or
// bands, the last one taking what rounding leaves.
func part(i, n int, across bool) string {
	start, size := share(i, n)
	if across {
		return fmt.Sprintf("[ %s 0 %s 1 ]", start, size)
	}
	return fmt.Sprintf("[ 0 %s 1 %s ]", start, size)
}

// rangeOf is the i-th of n equal parts of the data.
func rangeOf(i, n int) string {
	start, _ := share(i, n)
	end := "1"
	if i+1 < n {
		end, _ = share(i+1, n)
	}
	return fmt.Sprintf("[ %s %s ]", start, end)
}

// share is where the i-th of n parts starts and how large it is, in five
// decimals (as Equalizer's 1/100000 steps); the last takes the rest.
func share(i, n int) (start, size string) {
	step := 100000 / n
	s, z := i*step, step
	if i == n-1 {
		z = 100000 - s
	}
	return fmt.Sprintf("%.5g", float64(s)/100000), fmt.Sprintf("%.5g", float64(z)/100000)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// writer indents blocks.
type writer struct {
	strings.Builder
	depth int
}

func (w *writer) line(s string) {
	w.WriteString(strings.Repeat("    ", w.depth))
	w.WriteString(s)
	w.WriteByte('\n')
}

func (w *writer) open(block string) {
	w.line(block)
	w.line("{")
	w.depth++
}

func (w *writer) close() {
	w.depth--
	w.line("}")
}
