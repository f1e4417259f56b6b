// Command volume is an interactive volume renderer on goeq: a volume
// ray-cast on every pipe, a procedural scalar field or an eVolve volume
// (--model FILE.raw, with its header FILE.raw.vhf beside it, as
// Equalizer's eVolve reads them: its voxels, their scale and its transfer
// function, shaded by the voxels' gradient), a NRRD volume (FILE.nrrd or
// FILE.nhdr), a MetaImage (FILE.mha or FILE.mhd), a VTK image (FILE.vti,
// or a legacy FILE.vtk), a NIfTI volume (FILE.nii, FILE.nii.gz, or
// FILE.hdr and FILE.img), a TIFF stack (FILE.tif of a page a slice, or
// a folder of TIFF or PNG slices), a DICOM series (its folder, or one of its
// files), or a volume named as the Open SciVis datasets are,
// NAME_WxHxD_TYPE.raw, which needs no header.
// DB ranges are slabs of the volume, blended back to front for the eye;
// 2D splits share the screen.
//
//	volume [--config FILE] [--model FILE] [--transfer FILE] [--frames N] [--out DIR] [--json]
//	       [--camera-path orbit] [--density D] [--brightness B] [--precision P] [--ortho]
//	       [--colors own|demo|half] [--background black|white|channel]
//	       [--server HOST:PORT] [--http ADDR]
//	       [--local] [--reference] [--frame-timeout D]
//
// In a window: left-drag turns the volume, middle-drag or the wheel zooms,
// right-drag pans (eVolve's buttons); a turn let go while still moving
// spins on, as eVolve's, until a click or space;
// + and - make it denser or thinner on every node at once (a cluster
// event), s switches the statistics overlay, o between perspective and a
// parallel projection, d between the volume's colours, each channel's
// and half of each (eVolve's demo colours, which show what part each
// channel draws; --colors starts in them), b between a black, a white
// and each channel's own background (--background starts so), l shows the config's next
// layout and shift-l the one before, space or r resets the view, h or F1
// prints the keys, q or Esc (or closing the window) quits (as eVolve's
// keys, q aside).
// It renders only when something changed. Headless (or with
// --camera-path orbit, or where no window of the run shows on the
// display) the camera orbits for --frames frames. eVolve's
// -m, -n and -a (its alpha attenuation) are --model, --frames and
// --density, its -b and -p are --brightness (the transfer function's
// colours scaled, up to white) and --precision (samples along a ray: 2 is
// the default, 4 twice as many), its -o is --ortho (a parallel
// projection), and its long names work too; its -r and -w are taken and
// change nothing here (each says why). Ctrl-C (SIGINT, SIGTERM, or SIGHUP
// as its terminal closes) stops it as q does: the frames in flight are
// finished and written, the summary is printed, and it exits with 128 +
// the signal; a second one ends it at once.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/examples/configs"
	"github.com/goeq/goeq/examples/flick"
	"github.com/goeq/goeq/examples/interrupt"
	"github.com/goeq/goeq/internal/bounded"
	"github.com/goeq/goeq/internal/render"
)

// view places the volume: turned by Yaw then Pitch, Distance in front of
// the eye and moved across by Pan. It is the frame data.
type view struct {
	Yaw, Pitch, Distance float64
	Pan                  [2]float64 `json:",omitempty"`
	Ortho                bool       `json:",omitempty"` // a parallel projection (eVolve's o)
	Colors               colorMode  `json:",omitempty"` // eVolve's d
	Background           background `json:",omitempty"` // eVolve's b
	// Gradients is the neighbours the shading's gradients take (eVolve's
	// n switches them)
	Gradients render.Gradient `json:",omitempty"`
}

// colorMode is what colours the volume is drawn in, as eVolve's d
// switches them: its own, each channel's own (which part is whose), or
// half of each.
type colorMode int

const (
	ownColors colorMode = iota
	demoColors
	halfDemoColors
	colorModes
)

// colorNames are the colour modes as --colors names them, and
// tintWeights how much of each channel's own colour each mixes in.
var (
	colorNames  = [colorModes]string{"own", "demo", "half"}
	tintWeights = [colorModes]float32{0, 1, 0.5}
)

// background is what the volume is shown over, as eVolve's b switches
// it: black, white, or each destination channel's own colour.
type background int

const (
	blackBackground background = iota
	whiteBackground
	channelBackground
	backgrounds
)

var backgroundNames = [backgrounds]string{"black", "white", "channel"}

var home = view{Pitch: 0.3, Distance: 2.4}

// density is the cluster event that changes the transfer function's
// opacity on every pipe in the same frame.
type density struct{ Scale float64 }

// initData goes to every render node once.
type initData struct {
	Model      string  // a volume file (eVolve's, NRRD, MetaImage, VTK, NIfTI, TIFF, DICOM, or named with its size) every node can read (an absolute path); empty: procedural
	Brightness float64 // the transfer function's colour scale (eVolve's -b; 0: 1)
	Precision  float64 // samples along a ray, as eVolve's -p (0: its default, 2)
	// Transfer, when set, is the transfer function the volume is shown
	// in, in place of its own (--transfer)
	Transfer *[256][4]uint8 `json:",omitempty"`
}

type app struct{}

var (
	dataOnce sync.Once
	data     *render.VolumeData
	dataErr  error
)

func (app) NewRenderer(p *goeq.Pipe) (goeq.Renderer, error) {
	var in initData
	if err := p.InitData(&in); err != nil {
		return nil, err
	}
	if in.Model != "" {
		dataOnce.Do(func() { // once per process, shared by its pipes
			if data, dataErr = render.LoadVolume(in.Model); dataErr == nil && in.Transfer != nil {
				data.Transfer = *in.Transfer
			}
		})
		if dataErr != nil {
			return nil, dataErr
		}
	}
	v := render.NewVolume()
	v.Data = data
	if in.Brightness > 0 {
		v.Brightness = in.Brightness
	}
	if in.Precision > 0 {
		v.Step = render.DefaultStep * 2 / in.Precision // eVolve's default precision is 2
	}
	v.Place = func(c *goeq.DrawContext) (goeq.Mat4, bool) {
		at := viewOf(c)
		m := goeq.Translate(at.Pan[0], at.Pan[1], -at.Distance).Mul(goeq.RotateX(at.Pitch)).Mul(goeq.RotateY(at.Yaw))
		if at.Ortho {
			// without perspective the distance no longer shrinks the
			// volume: it is scaled to the size perspective shows it at
			m = goeq.Scale(1 / max(at.Distance, 1e-3)).Mul(m)
		}
		return m, at.Ortho
	}
	v.Tint = func(c *goeq.DrawContext) ([3]float32, float32) {
		at := viewOf(c)
		if at.Colors < ownColors || at.Colors >= colorModes {
			return [3]float32{}, 0
		}
		return c.UniqueColor(), tintWeights[at.Colors]
	}
	v.Gradients = func(c *goeq.DrawContext) render.Gradient { return viewOf(c).Gradients }
	v.Background = func(c *goeq.DrawContext) [3]float32 {
		switch viewOf(c).Background {
		case whiteBackground:
			return [3]float32{1, 1, 1}
		case channelBackground:
			return c.UniqueColor()
		}
		return [3]float32{}
	}
	if err := v.Init(); err != nil {
		return nil, err
	}
	return &volume{v}, nil
}

// readTransfer reads a transfer function: an eVolve header's (FILE.vhf),
// or a colour map preset as ParaView exports one.
func readTransfer(path string) ([256][4]uint8, error) {
	b, err := bounded.ReadFile(path, render.MaxTransferFile)
	if err != nil {
		return [256][4]uint8{}, err
	}
	if strings.EqualFold(filepath.Ext(path), ".vhf") {
		v, err := render.ReadVolumeHeader(bytes.NewReader(b))
		if err != nil {
			return [256][4]uint8{}, err
		}
		return v.Transfer, nil
	}
	return render.ReadParaViewTransfer(bytes.NewReader(b))
}

// viewOf is a draw's view: its frame's data (undecodable data keeps the
// home view).
func viewOf(c *goeq.DrawContext) view {
	at := home
	c.FrameData(&at)
	return at
}

// volume is render.Volume (draw, exit, the blending order of slabs, a
// transparent background, the background drawn under the destination's
// image) that also takes density changes.
type volume struct{ *render.Volume }

func (v *volume) Receive(frame int, msgs []goeq.Message) error {
	for _, m := range msgs {
		var d density
		if err := m.Decode(&d); err != nil {
			return err
		}
		v.Density = d.Scale
	}
	return nil
}

func main() {
	goeq.Init(app{}) // a render client never returns from here
	config := flag.String("config", "", "the configuration (default: examples/configs/2d-lb-4.eqc, built in; a name that is no file, as local, runs on a config made for this machine's GPUs, saved as local.auto.eqc)")
	frames := flag.Int("frames", 0, "frames to render, one after another, then end (0: with a window, until quit, a frame whenever the picture changes; headless: 100)")
	flag.IntVar(frames, "n", 0, "eVolve's -n: --frames")
	out := flag.String("out", "", "write every frame's destination PNG here")
	asJSON := flag.Bool("json", false, "print the run's summary as JSON")
	httpAddr := flag.String("http", "", "serve the run's live dashboard and Prometheus /metrics on this address")
	statsPath := flag.String("stats", "", "write the run's per-channel statistics to this file, as JSON lines (eqserver replay balances the run again from them)")
	server := flag.String("server", "", "a running eqserver's application address (eqserver run --app ADDR); default: the server runs in this process")
	path := flag.String("camera-path", "", "orbit: turn the camera around the volume (the default headless)")
	dens := flag.Float64("density", 1, "the transfer function's opacity scale")
	flag.Float64Var(dens, "a", 1, "eVolve's -a (alpha attenuation): --density")
	model := flag.String("model", "", "an eVolve volume (FILE.raw, its header FILE.raw.vhf beside it), a NRRD volume (FILE.nrrd, or a detached header FILE.nhdr), a MetaImage (FILE.mha, or FILE.mhd), a VTK image (FILE.vti, a parallel one's FILE.pvti, or a legacy FILE.vtk), a NIfTI volume (FILE.nii, FILE.nii.gz, or a pair's FILE.hdr and FILE.img, Analyze's too), a TIFF stack (FILE.tif, as ImageJ and Fiji save one, or a folder of TIFF or PNG slices), a DICOM series (its folder, one of its files, or a disc's DICOMDIR), or one named with its size and type as the Open SciVis datasets are (NAME_WxHxD_uint8.raw, uint16, float32...), read by every node; default: a procedural one")
	flag.StringVar(model, "m", "", "eVolve's -m: --model")
	brightness := flag.Float64("brightness", 1, "the transfer function's colour scale, up to white")
	precision := flag.Float64("precision", 2, "samples along each ray, as eVolve's precision: 2 is the default, 4 twice as many")
	for name, alias := range map[string]string{"b": "brightness", "p": "precision", "numFrames": "frames", "alpha": "density"} {
		dash := "--"
		if len(name) == 1 {
			dash = "-"
		}
		flag.Var(flag.Lookup(alias).Value, name, fmt.Sprintf("eVolve's %s%s: --%s", dash, name, alias))
	}
	takeUnused("r", "resident", "goeq's render clients end with the run; keep the application running instead", true)
	takeUnused("w", "windowSystem", "goeq takes GLFW on a display and EGL headless (GOEQ_WINSYS=glfw or egl chooses)", false)
	ortho := flag.Bool("ortho", false, "start with a parallel (orthographic) projection (o switches it)")
	flag.BoolVar(ortho, "o", false, "eVolve's -o: --ortho")
	bg := flag.String("background", "black", "start over this background (b switches it, as eVolve's): black, white, or channel, each destination channel's own colour")
	transfer := flag.String("transfer", "", "the transfer function to show the --model volume in: a colour map preset as ParaView exports one (JSON), or an eVolve header's (FILE.vhf); default: the volume's own, or a grey ramp")
	gradients := flag.Int("gradients", 6, "the neighbours of a sample its shading's gradient takes (n switches them, as eVolve's normals quality): 6, across faces; 18, and edges; 26, and corners, smoother on noisy data and slower")
	colors := flag.String("colors", "own", "start in these colours (d switches them): own, the volume's; demo, each channel's, which shows what part each draws; half, half of each")
	frameTimeout := flag.Duration("frame-timeout", 0, "a frame still incomplete this long fails the run; 0: 10 s, or 3 times the slowest recent frame where frames are slower (a large volume a software GL casts for seconds), and 1 minute before a frame has completed")
	reference := flag.Bool("reference", false, "every destination channel draws its whole frame itself, undecomposed: the picture a decomposed run must match")
	relaunch := flag.Int("relaunch", 0, "start a lost render node's client again, up to N times per node: it rejoins, takes the density set before, and draws again")
	local := flag.Bool("local", false, "start every node's render client on this machine, whatever host the config names (try a cluster config here)")
	flag.Parse()
	switch {
	case flag.NArg() > 0: // flag stops at it: the flags after it would go unread
		log.Fatalf("%q: volume takes flags alone (a volume is --model FILE.raw, a config --config FILE), and none after it was read", flag.Arg(0))
	case *frames < 0:
		log.Fatalf("--frames %d: want 0 (until quit) or more", *frames)
	case *path != "" && *path != "orbit":
		log.Fatalf("--camera-path %q: want orbit", *path)
	case !(*dens > 0) || math.IsInf(*dens, 0):
		log.Fatalf("--density %g: want a number more than 0", *dens)
	case *frameTimeout < 0:
		log.Fatalf("--frame-timeout %v: want 0 (bounds that follow the frames' time) or more", *frameTimeout)
	case *relaunch < 0:
		log.Fatalf("--relaunch %d: want 0 (a lost node stays out) or more", *relaunch)
	case !(*brightness > 0) || math.IsInf(*brightness, 0):
		log.Fatalf("--brightness %g: want a number more than 0", *brightness)
	case !(*precision >= 1) || *precision > 64:
		log.Fatalf("--precision %g: want 1 to 64", *precision)
	case *gradients != 6 && *gradients != 18 && *gradients != 26:
		log.Fatalf("--gradients %d: want 6, 18 or 26", *gradients)
	case !slices.Contains(colorNames[:], *colors):
		log.Fatalf("--colors %q: want own, demo or half", *colors)
	case !slices.Contains(backgroundNames[:], *bg):
		log.Fatalf("--background %q: want black, white or channel", *bg)
	}
	for _, u := range unusedGiven {
		log.Printf("eVolve's %s changes nothing here: %s", u.name, u.why)
	}

	interactive := os.Getenv("DISPLAY") != "" && *path == ""
	if !interactive && *frames == 0 {
		*frames = 100
	}
	if *model != "" {
		// the nodes read it from this folder's view of it, wherever a
		// launcher (ssh) starts them; a bad file ends the run here, not
		// on every node
		abs, err := filepath.Abs(*model)
		if err == nil {
			err = render.CheckVolume(abs)
		}
		if err != nil {
			log.Fatalf("--model %q: %v", *model, err)
		}
		*model = abs
	}
	var tf *[256][4]uint8
	if *transfer != "" {
		if *model == "" {
			log.Fatalf("--transfer %s: it colours a volume file (--model); the procedural volume has its own", *transfer)
		}
		t, err := readTransfer(*transfer)
		if err != nil {
			log.Fatalf("--transfer %s: %v", *transfer, err)
		}
		tf = &t
	}
	stop := interrupt.New()
	configName, configText := configs.Pick(*config)
	cfg, err := goeq.Start(stop.Start, app{}, goeq.Options{Config: configName, ConfigText: configText, Server: *server, HTTP: *httpAddr, Stats: *statsPath, OutDir: *out, Local: *local, Reference: *reference, FrameTimeout: *frameTimeout, Relaunch: *relaunch,
		InitData: initData{Model: *model, Brightness: *brightness, Precision: *precision, Transfer: tf}, BlendRanges: true})
	stop.Started(err)
	if err != nil {
		log.Fatal(err)
	}
	if interactive && cfg.OnScreen() == 0 {
		// no window opened on the display: no key can end the session
		interactive = false
		if *frames == 0 {
			*frames = 100
		}
		log.Printf("no window of the run shows on the display (DISPLAY=%s): rendering %d frames offscreen, as headless", os.Getenv("DISPLAY"), *frames)
	}
	start := home
	start.Ortho = *ortho
	start.Colors = colorMode(slices.Index(colorNames[:], *colors))
	start.Background = background(slices.Index(backgroundNames[:], *bg))
	start.Gradients = render.Gradient(map[int]int{6: 0, 18: 1, 26: 2}[*gradients])
	c := &controls{at: start, density: *dens, layouts: len(cfg.Layouts()), layout: cfg.Layout()}
	sent := controls{density: 1, layout: c.layout} // what the run was told
	// apply tells the run what the controls changed
	apply := func() error {
		if c.density != sent.density {
			if err := cfg.Broadcast(density{c.density}); err != nil {
				return err
			}
		}
		if c.overlay != sent.overlay {
			cfg.SetOverlay(c.overlay)
		}
		if c.layout != sent.layout {
			if err := cfg.UseLayoutIndex(c.layout); err != nil {
				return err
			}
		}
		sent = *c
		return nil
	}
	ctx := stop.Loop
	for n := 0; err == nil && !c.quit && ctx.Err() == nil && (*frames == 0 || n < *frames); n++ {
		if !interactive {
			c.at.Yaw = start.Yaw + 2*math.Pi*float64(n)/float64(*frames)
		}
		c.spinTo(time.Now())
		if err = apply(); err != nil {
			break
		}
		if _, err = cfg.StartFrame(c.at); err == nil {
			err = cfg.FinishFrame()
		}
		// spinning, or with --frames N (its frames one after another, then
		// the end), the events so far and the next frame
		if c.spinning || *frames > 0 {
			for _, ev := range cfg.PendingEvents() {
				c.handle(ev)
			}
			continue
		}
		// on demand: the next frame only when an event changed the picture
		for changed := !interactive; !changed && !c.quit && err == nil && ctx.Err() == nil; {
			var evs []goeq.Event
			if err = cfg.FinishAllFrames(); err == nil {
				evs, err = cfg.WaitEvents(ctx)
			}
			for _, ev := range evs {
				changed = c.handle(ev) || changed
			}
		}
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = nil // the wait for events ended by the signal
	}
	sum, exitErr := cfg.Exit()
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
	} else if sum != nil {
		log.Printf("%d frames in %.1f s (%.1f fps), %d degraded, %d images written", sum.Frames, sum.Seconds, sum.FPS, sum.Degraded, len(sum.Written))
	}
	if err := cmp.Or(err, exitErr); err != nil {
		log.Fatal(err) // the run's error, or what ended it
	}
	stop.Exit()
}

// controls turn window events into the view and the run's settings, as
// eVolve's keys do.
type controls struct {
	at       view
	density  float64 // the transfer function's opacity scale: + and -
	overlay  bool    // the statistics overlay: s
	layout   int     // of layouts, the config's: l and shift-l
	layouts  int
	quit     bool
	dragging int // the button held, 0 for none
	last     [2]float64
	// a left drag let go while still moving turns on, as eVolve's spins
	// on after a flick, until a button is pressed or the view reset: at
	// spin's speed (views a second), on when spinning
	steps    flick.Tracker
	spinning bool
	spin     [2]float64
	clock    flick.Clock
}

// spinTo turns the view a flick turns on to now.
func (c *controls) spinTo(now time.Time) {
	if c.spinning {
		dt := c.clock.Step(now)
		c.at.Yaw = math.Remainder(c.at.Yaw+math.Pi*c.spin[0]*dt, 2*math.Pi)
		c.at.Pitch = math.Remainder(c.at.Pitch-math.Pi*c.spin[1]*dt, 2*math.Pi)
	}
}

// volumeKeys is what h (or F1) prints.
const volumeKeys = `volume's keys: left-drag turn, middle-drag or wheel zoom, right-drag pan
  (a turn let go while moving spins on, until a click or space)
  + -      denser, thinner (on every node at once)
  s        statistics overlay
  o        perspective or parallel projection
  d        colours: the volume's, each channel's, half of each
  b        background: black, white, each channel's colour
  n        the shading's gradients: of 26, 18 or 6 neighbours
  l, shift-l  the next layout, the one before
  space, r reset the view
  h, F1    this help          q, Esc  quit`

// handle applies one event; it reports whether the picture changes.
func (c *controls) handle(ev goeq.Event) bool {
	switch ev.Kind {
	case goeq.ButtonPress: // stops a spin, as eVolve's click does
		c.dragging, c.last, c.spinning = ev.Button, [2]float64{ev.X, ev.Y}, false
		c.steps.Track(ev)
	case goeq.ButtonRelease:
		vx, vy, moving := c.steps.LetGo(ev)
		if c.spinning = moving && c.dragging == goeq.ButtonLeft; c.spinning {
			c.spin = [2]float64{vx, vy}
			c.clock.Start(time.Now())
		}
		c.dragging = 0
		return c.spinning
	case goeq.PointerMotion:
		if c.dragging == 0 || ev.Channel == "" {
			return false
		}
		c.steps.Track(ev)
		dx, dy := ev.X-c.last[0], ev.Y-c.last[1]
		c.last = [2]float64{ev.X, ev.Y}
		// eVolve's buttons: the left turns, the middle zooms, the right pans
		switch c.dragging {
		case goeq.ButtonLeft:
			c.at.Yaw += math.Pi * dx
			c.at.Pitch -= math.Pi * dy
		case goeq.ButtonMiddle:
			c.at.Distance *= math.Exp(-2 * dy)
		case goeq.ButtonRight:
			c.at.Pan[0] += dx * c.at.Distance
			c.at.Pan[1] += dy * c.at.Distance
		}
		return true
	case goeq.Wheel:
		c.at.Distance *= math.Pow(0.9, ev.DY)
		return true
	case goeq.KeyPress:
		switch ev.Key {
		case '+', '=':
			c.density *= 1.5
			return true
		case '-':
			c.density /= 1.5
			return true
		case 's': // as eVolve's s
			c.overlay = !c.overlay
			return true
		case 'o': // as eVolve's o
			c.at.Ortho = !c.at.Ortho
			return true
		case 'd': // as eVolve's d: its own colours, each channel's, half of each
			c.at.Colors = (c.at.Colors + 1) % colorModes
			return true
		case 'n': // as eVolve's n: the gradients' neighbours, the most first (26, 18, 6)
			c.at.Gradients = (c.at.Gradients + render.GradientCorners) % (render.GradientCorners + 1)
			fmt.Fprintf(os.Stderr, "gradients of %d neighbours\n", c.at.Gradients.Neighbours())
			return true
		case 'b': // as eVolve's b: black, white, each channel's colour
			c.at.Background = (c.at.Background + 1) % backgrounds
			return true
		case 'l': // the next layout; with shift the one before, as eVolve's L
			if c.layouts > 1 {
				step := 1
				if ev.Modifiers&goeq.ModShift != 0 {
					step = c.layouts - 1
				}
				c.layout = (c.layout + step) % c.layouts
				return true
			}
		case ' ', 'r': // as eVolve's space and r; the projection, colours, background and gradients stay, a spin stops
			c.at = view{Yaw: home.Yaw, Pitch: home.Pitch, Distance: home.Distance, Ortho: c.at.Ortho, Colors: c.at.Colors, Background: c.at.Background, Gradients: c.at.Gradients}
			c.spinning = false
			return true
		case 'h', goeq.KeyF(1):
			fmt.Fprintln(os.Stderr, volumeKeys)
		case 'q', goeq.KeyEscape:
			c.quit = true
		}
	case goeq.Expose:
		return true // the window shows the frame again
	case goeq.NodeLost:
		// a frame in flight may have been shown without the node's part:
		// drawn again, the picture is whole without it
		return true
	case goeq.WindowClose:
		c.quit = true
	}
	return false
}

// unusedOption is an eVolve option that changes nothing in goeq: taken,
// so that an eVolve script runs, and said so.
type unusedOption struct {
	name, why string
	boolean   bool
}

var unusedGiven []*unusedOption

// takeUnused takes an eVolve option under its short and long names.
func takeUnused(short, long, why string, boolean bool) {
	o := &unusedOption{name: "-" + short, why: why, boolean: boolean}
	help := fmt.Sprintf("eVolve's -%s (--%s), taken: %s", short, long, why)
	flag.Var(o, short, help)
	flag.Var(o, long, help)
}

func (o *unusedOption) String() string   { return "" }
func (o *unusedOption) IsBoolFlag() bool { return o.boolean }
func (o *unusedOption) Set(string) error {
	if !slices.Contains(unusedGiven, o) {
		unusedGiven = append(unusedGiven, o)
	}
	return nil
}
