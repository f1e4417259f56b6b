// Command eqply is an interactive PLY viewer on goeq: the model (a PLY
// file, with its vertex or face colours if it has them, an STL or OBJ
// file, a VTK surface (.vtp, .pvtp or legacy .vtk), a glTF 2 model (.gltf
// or .glb), or a procedural one) is
// loaded on every render node, fitted into the same sphere about the
// origin (as eqPly fits its models, so that a model in any units and of
// any shape shows whole from the home camera), kd-ordered so that DB
// ranges are compact pieces of it, and drawn with the camera the
// application sends as frame data. Given several models (--model again,
// or a folder of them), the config's views show them in turn, view i the
// i-th round the models, as eqPly gives its models out to its views.
// eqPly's -m, -a, -n and -b are --model, --camera-path, --frames and
// --black-and-white (the models in the mesh's colour, not their own);
// its -s keeps the models in their own units and place, -z puts the
// camera at the origin, -p keeps it still, --immersive is -z -s -p, -d
// sends whole viewports; its -r, -w, -c, -g, -o and -i are taken and
// change nothing here (each says why). Its long names work too.
//
//	eqply [--config FILE] [--model FILE.ply|FILE.stl|FILE.obj|DIR]... [--frames N] [--out DIR] [--json]
//	      [--camera-path orbit|TRACE|PATH] [--camera YAW,PITCH,DISTANCE] [--trace FILE]
//	      [--overlay] [--ortho] [--refine=false] [--server HOST:PORT] [--http ADDR]
//	      [--frame-timeout D]
//
// In a window: left-drag turns the model, middle-drag, shift-left-drag or
// the wheel zooms, right-drag (or the wheel sideways) pans (eqPly's
// buttons), each in the view under the pointer (every view has
// its own camera once moved, as eqPly's). A turn or zoom let go while
// still moving goes on, as eqPly's model spins on, until a button is
// pressed or space. Its keys are eqPly's:
//   - s toggles the statistics overlay (per-channel times and the split);
//   - f freezes the load balancing and F lets it go again, t and T make
//     the tiles a pixel smaller and larger, and 4 and 5 the load
//     equalizers' resistance a pixel larger and smaller, each in the
//     view under the pointer (every view, under none), as eqPly's;
//   - g switches the views between mono and stereo (anaglyph);
//   - o switches between perspective and a parallel projection;
//   - d switches the colours between the models' own, each channel's
//     (which source drew which part) and the mesh's;
//   - w draws the triangles' edges only, and back (a pixel decomposition
//     draws them wider: each source draws them a pixel of its own wide,
//     which spans its step of the window's pixels; a subpixel one blurs
//     them; as Equalizer's do);
//   - i switches idle antialiasing off and on;
//   - m shows the next model in the view under the pointer;
//   - l shows the current canvas's next layout (on a wall with several;
//     its `layout OFF` too), shift-l the one before, as eqPly's; c makes
//     the next canvas current (the first is, at the start);
//   - the arrows, Page Up and Page Down move every observer's head, and
//     . , ; ' [ ] turn it (eqPly's head tracking emulation);
//   - z and Z narrow and widen the eyes (every observer's eye base), +
//     and - move the focus farther and closer, and 1, 2 and 3 make it
//     fixed, relative to the origin and relative to the observer;
//   - space resets the cameras and the head;
//   - p or F11 writes the picture shown into screenshots/ (refined, the
//     last refined frame);
//   - h or F1 prints the keys;
//   - q or Esc (or closing the window) quits.
//
// A resized window renders at its new size. It renders only when
// something changed (an exposed window too), and then, while nothing else
// does, refines the picture over 16 more frames that
// antialias it (as eqPly's idle antialiasing; --refine=false leaves it).
// Headless (or with --camera-path orbit, or where no window of the run
// shows on the display: a DISPLAY that did not open) the camera orbits
// for --frames frames; --camera-path with a trace (--trace) renders its
// frames again, as they were shown (cameras, projection, layout, view
// mode, head, eyes, focus, model units, colours); with an eqPly camera
// path (eqPly's -a, as its pathAround.txt) it flies that path as eqPly
// does, the model at eqPly's size, once (or for --frames frames, round
// and round). Ctrl-C
// (SIGINT, SIGTERM, or SIGHUP as its terminal closes) stops it as q does,
// and it exits with 130, 143 or 129; a second one ends it at once.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/examples/configs"
	"github.com/goeq/goeq/examples/flick"
	"github.com/goeq/goeq/examples/interrupt"
	"github.com/goeq/goeq/internal/bounded"
	"github.com/goeq/goeq/internal/render"
)

// initData goes to every render node once.
type initData struct {
	Models    []string // PLY files every node can read (absolute paths); none: procedural
	Triangles int      // of the procedural model
	NoColors  bool     // the models in the mesh's colour, their own left out (eqPly's -b)
	KeepUnits bool     // the models in their own units and place, not fitted (eqPly's -s)
	NoROI     bool     // every draw sends its whole viewport, not the region it drew (eqPly's -d)
}

// camera places the model: turned by Yaw then Pitch, Distance in front of
// the eye, moved by Pan; Look turns the camera itself about the eye (yaw,
// pitch), as eqPly's pilot mode turns it.
type camera struct {
	Yaw, Pitch, Distance float64
	Pan                  [2]float64
	Look                 [2]float64 `json:",omitzero"`
}

var homeCamera = camera{Pitch: 0.35, Distance: 2.2}

// check refuses a camera no viewer sets (a NaN, or a value past float32's
// range): its matrix would hide the model behind NaNs.
func (c camera) check() error {
	for _, v := range []float64{c.Yaw, c.Pitch, c.Distance, c.Pan[0], c.Pan[1], c.Look[0], c.Look[1]} {
		if math.IsNaN(v) || math.Abs(v) > math.MaxFloat32 {
			return fmt.Errorf("camera %+v: %v is NaN or past float32's range", c, v)
		}
	}
	return nil
}

// steppedLayouts are the layouts l and L step through on each canvas:
// those it lists but the ones refused (goeq.Canvas.Refused: their frames
// would wait in a circle, and check warns of them), which logf says.
func steppedLayouts(canvases []goeq.Canvas, names []string, logf func(string, ...any)) [][]int {
	var out [][]int
	for i, cv := range canvases {
		out = append(out, slices.DeleteFunc(slices.Clone(cv.Layouts), func(l int) bool { return cv.Refused[l] != "" }))
		for _, l := range slices.Sorted(maps.Keys(cv.Refused)) {
			logf("layout %q is left out of canvas %d's l: it would never complete a frame: %s", names[l], i, cv.Refused[l])
		}
	}
	return out
}

// screenshots is where p writes the frame shown (each destination's
// image), under the working directory.
const screenshots = "screenshots"

func (c camera) matrix() goeq.Mat4 {
	placed := goeq.Translate(c.Pan[0], c.Pan[1], -c.Distance).Mul(goeq.RotateX(c.Pitch)).Mul(goeq.RotateY(c.Yaw))
	if c.Look == [2]float64{} {
		return placed
	}
	return goeq.RotateX(c.Look[1]).Mul(goeq.RotateY(c.Look[0])).Mul(placed)
}

// fly moves the camera by d along its own axes (x right, y up, z back
// toward the viewer), as eqPly's pilot mode moves it: where the camera
// looks turned (Look), the model's place before the turn moves by the
// turn undone.
func (c *camera) fly(d [3]float64) {
	// Look's turn undone: about x by -pitch, then about y by -yaw
	sp, cp := math.Sincos(-c.Look[1])
	d = [3]float64{d[0], d[1]*cp - d[2]*sp, d[1]*sp + d[2]*cp}
	sy, cy := math.Sincos(-c.Look[0])
	d = [3]float64{d[0]*cy + d[2]*sy, d[1], -d[0]*sy + d[2]*cy}
	c.Pan[0] += d[0]
	c.Pan[1] += d[1]
	c.Distance -= d[2]
}

// frameData is what changes from frame to frame: the camera, and the
// cameras of the views a user moved on their own (by view index).
type frameData struct {
	Camera camera
	Views  map[int]camera `json:",omitempty"`
	Ortho  bool           `json:",omitempty"` // a parallel projection
	Pose   *pose          `json:",omitempty"` // of an eqPly camera path: every view's, for the camera's
	// Model steps every view on from the model it shows first (view i
	// shows model i, round the models, as eqPly gives them out; a channel
	// of no view shows the first); Models are the models of the views a
	// user switched on their own (m), by view index.
	Model  int         `json:",omitempty"`
	Models map[int]int `json:",omitempty"`
	// Head is the observers' head (eqPly's emulated head tracking), for
	// a trace to replay; the draws take it from the frusta
	Head *goeq.Mat4 `json:",omitempty"`
	// EyeBase is the observers' eye base (z and Z change it; 0: the
	// config's), for a trace to replay
	EyeBase float64 `json:",omitempty"`
	// FocusDistance and FocusMode are the observers' focus (+ and -,
	// and 1 2 3 change them; 0: the config's), for a trace to replay
	FocusDistance float64        `json:",omitempty"`
	FocusMode     goeq.FocusMode `json:",omitempty"`
	// Units are the model units of the views y and Y changed, by view
	// index, for a trace to replay
	Units map[int]float64 `json:",omitempty"`
	// Colors is what colours the models are drawn in (d switches)
	Colors colorMode `json:",omitempty"`
	// Wireframe draws the triangles' edges only (w switches)
	Wireframe bool `json:",omitempty"`
	// Stereo is every view's mode as g last set it (false: mono, or the
	// config's while g was not pressed), and Layouts the layout each
	// canvas shows (goeq.Config.CanvasLayout), for a trace to replay
	Stereo  bool  `json:",omitempty"`
	Layouts []int `json:",omitempty"`
}

// colorMode is what colours the models are drawn in, as eqPly's d
// switches them.
type colorMode int

const (
	ownColors   colorMode = iota // the model's, or the mesh's colour without
	demoColors                   // each channel's own: whose part is whose
	plainColors                  // the mesh's colour (as -b)
	colorModes
)

// modelOf is the index of the model a draw for a view shows, of n.
func (f frameData) modelOf(view, n int) int {
	i, ok := f.Models[view]
	if !ok {
		i = max(view, 0) + f.Model
	}
	return (i%n + n) % n
}

// cameraOf is the camera a draw for a view shows.
func (f frameData) cameraOf(view int) camera {
	if c, ok := f.Views[view]; ok {
		return c
	}
	return f.Camera
}

type app struct{}

var (
	modelOnce sync.Once
	models    []*render.Model
	modelErr  error
	eqPlyFits []float64 // each model's scale at eqPly's size, for a pose
)

func (app) NewRenderer(p *goeq.Pipe) (goeq.Renderer, error) {
	var in initData
	if err := p.InitData(&in); err != nil {
		return nil, err
	}
	modelOnce.Do(func() { // once per process, shared by its pipes
		for _, name := range in.Models {
			m, err := render.LoadModel(name)
			if err != nil {
				modelErr = err
				return
			}
			if in.NoColors {
				m.Colors = nil
			}
			models = append(models, m)
		}
		if len(models) == 0 {
			rings := int(math.Sqrt(float64(max(in.Triangles, 2000)) / 4))
			models = append(models, render.Bumpy(max(rings, 4), max(2*rings, 8)))
		}
		for _, m := range models {
			if in.KeepUnits {
				eqPlyFits = append(eqPlyFits, 1) // as eqPly draws it unscaled
				continue
			}
			m.Normalize(render.ViewRadius) // whatever its units and place, the home view shows it whole
			box, _ := m.RangeBounds(0, m.TriangleCount())
			eqPlyFits = append(eqPlyFits, eqPlySize(box))
		}
	})
	if modelErr != nil {
		return nil, modelErr
	}
	v := &viewer{eqPlyFits: eqPlyFits, noROI: in.NoROI}
	for _, model := range models {
		m := render.NewMesh(model)
		if err := m.Init(); err != nil {
			v.Exit()
			return nil, err
		}
		v.meshes = append(v.meshes, m)
		v.color = m.Color
	}
	return v, nil
}

type viewer struct {
	meshes    []*render.Mesh // one a model
	eqPlyFits []float64
	noROI     bool
	color     [3]float32 // the mesh's own
}

func (v *viewer) Draw(dc *goeq.DrawContext) (goeq.Region, error) {
	drawn, err := v.draw(dc)
	if v.noROI {
		drawn = goeq.All
	}
	return drawn, err
}

func (v *viewer) draw(dc *goeq.DrawContext) (goeq.Region, error) {
	f := frameData{Camera: homeCamera}
	if err := dc.FrameData(&f); err != nil {
		return goeq.All, err
	}
	model := f.modelOf(dc.ViewIndex, len(v.meshes))
	mesh := v.meshes[model]
	mesh.PlainColor, mesh.Color, mesh.Wireframe = f.Colors != ownColors, v.color, f.Wireframe
	if f.Colors == demoColors {
		mesh.Color = dc.UniqueColor()
	}
	cam := f.cameraOf(dc.ViewIndex)
	mv, distance := cam.matrix(), cam.Distance
	if f.Pose != nil {
		mv, distance = f.Pose.matrix().Mul(goeq.Scale(v.eqPlyFits[model])), max(f.Pose.distance(), 1e-3)
	}
	if f.Ortho {
		// without perspective the distance no longer shrinks the model:
		// it is scaled to the size perspective shows it at, so that the
		// wheel still zooms; nearer than zooms go (the eye in the model,
		// or past it), as large as they show it
		return mesh.DrawProjected(dc, dc.Ortho, dc.OrthoView.Mul(goeq.Scale(1/max(distance, nearDistance))).Mul(mv))
	}
	return mesh.DrawPlaced(dc, dc.View.Mul(mv))
}

func (v *viewer) Exit() {
	for _, m := range v.meshes {
		m.Exit()
	}
}

// controls turns window events into camera moves. Each view has a camera
// of its own once a user moves it, as eqPly's views do: a drag or a wheel
// in a view moves that view's.
type controls struct {
	cam      camera          // every view's until moved on its own
	views    map[int]*camera // by view index
	pose     *pose           // an eqPly camera path's, for every view's camera
	view     int             // the view the pointer was last in (-1: none)
	dragging int             // the button held, 0 for none
	last     [2]float64
	shifted  bool          // the drag's last move had shift held
	steps    flick.Tracker // the drag's last moves
	coast    momentum      // a drag let go while moving, going on (momentum.go)
	stats    bool
	quit     bool
	// canvas is the current canvas (c makes the next current), whose
	// layouts (of canvasLayouts, each canvas's: goeq.Config.Canvases) l
	// steps through; shown is the layout each canvas shows
	canvas        int
	canvasLayouts [][]int
	shown         []int
	// viewLayouts is each view's layout (goeq.Config.ViewLayout): v
	// makes the shown layout's views current in turn
	viewLayouts []int
	// balance holds the changes to the views' balancing f, F, t, T, 4
	// and 5 asked for since the last frame (goeq.Config.SetBalancing)
	balance []balanceChange
	stereo  bool // every view: g switches it
	// pilot: drags turn the camera about the eye and move it along
	// where it looks, as eqPly's pilot mode (n); off, they turn the
	// model and zoom toward it
	pilot bool
	ortho bool // o switches the projection
	shot  bool // p asks for a screenshot of the next frame
	// models is how many the run has; m shows the next in the view
	// pointed at (every view, pointed at none): model, viewModels
	models     int
	model      int
	viewModels map[int]int
	// head is every observer's head, moved by eqPly's head tracking
	// emulation keys (nil: where the config puts it)
	head *goeq.Mat4
	// eyeBase is every observer's eye base, as z and Z change it from
	// configEyeBase (0: the config's)
	eyeBase, configEyeBase float64
	// focusDistance and focusMode are every observer's focus, as + and -,
	// and 1 2 3 change them from configFocus (0, FocusUnchanged: the
	// config's)
	focusDistance, configFocus float64
	focusMode                  goeq.FocusMode
	colors                     colorMode // d switches
	wireframe                  bool      // w switches
	refine                     bool      // idle antialiasing: i switches
	// units are the model units y and Y gave the views, by view index;
	// the others keep the one they started with (startUnits, one per
	// view of the config)
	units      map[int]float64
	startUnits []float64
}

// keys is what h (or F1) prints: the keys eqply takes.
const keys = `eqply's keys (in the view under the pointer where it matters):
  left-drag turn, middle-drag, shift-left-drag or wheel zoom, right-drag pan
  (a turn or zoom let go while moving goes on, until a click or space)
  space    reset the cameras and the head, stop a turn going on
  s        statistics overlay          f, F  freeze the load balancing, let it go
  t, T     tiles a pixel smaller, larger   4, 5  the load balancing's resistance up, down
  g        mono or stereo (anaglyph)   o  perspective or parallel projection
  n        pilot mode: drags turn the camera and fly it where it looks, or turn the model
  d        colours: the models', each channel's, the mesh's
  w        wireframe                   i  idle antialiasing on or off
  m        the next model              l, shift-l  the canvas's next layout, the one before
  c        the next canvas (l switches its layouts)
  v        the canvas's next view is the one keys act in, then none (every view)
  arrows, Page Up, Page Down  move the head;  . , ; ' [ ]  turn it
  z, Z     the eyes closer, farther apart (eye base)
  y, Y     the model unit by 0.1, by 10 (stereo and parallel show the model larger, smaller)
  +, -     the focus farther, closer   1, 2, 3  focus fixed, relative to origin, to observer
  p, F11   screenshot into screenshots/
  h, F1    this help                   q, Esc  quit
  r, u, a, x, k  eqPly's, which change nothing here (each says why)`

// eqPlyKeysNotHere are eqPly's keys eqply takes and does nothing with,
// and why.
var eqPlyKeysNotHere = map[rune]string{
	'r': "its render modes (display lists, buffer objects, immediate) are one here: goeq draws from buffer objects",
	'u': "compression is each link's own here: it chooses its codec (eqserver run --codec sets one)",
	'a': "goeq's windows are the config's: it adds none while it runs",
	'x': "goeq's windows are the config's: it removes none while it runs",
	'k': "its random changes of layout, view, model and windows test Equalizer's admin interface, which goeq has not",
}

// headStep is how far a head tracking emulation key moves the head (units)
// or turns it (radians), as eqPly's.
const headStep = 0.1

// moveHead applies eqPly's head tracking emulation keys: the arrows move
// the head across, Page Up and Down along the view, '.' and ',' turn it
// about x, ';' and the apostrophe about y, '[' and ']' about z. It
// reports whether the key was one of them.
func (c *controls) moveHead(key goeq.Key) bool {
	h := goeq.Identity
	if c.head != nil {
		h = *c.head
	}
	switch key {
	case goeq.KeyUp:
		h[13] += headStep
	case goeq.KeyDown:
		h[13] -= headStep
	case goeq.KeyRight:
		h[12] += headStep
	case goeq.KeyLeft:
		h[12] -= headStep
	case goeq.KeyPageDown:
		h[14] += headStep
	case goeq.KeyPageUp:
		h[14] -= headStep
	case '.':
		h = goeq.RotateX(headStep).Mul(h)
	case ',':
		h = goeq.RotateX(-headStep).Mul(h)
	case ';':
		h = goeq.RotateY(headStep).Mul(h)
	case '\'':
		h = goeq.RotateY(-headStep).Mul(h)
	case '[':
		h = goeq.RotateZ(-headStep).Mul(h)
	case ']':
		h = goeq.RotateZ(headStep).Mul(h)
	default:
		return false
	}
	c.head = &h
	return true
}

// eyeBaseStep is how much z or Z changes the eye base: eqPly moves each
// eye by 0.1.
const eyeBaseStep = 0.2

// minEyeBase is the narrowest eye base z gives (eqPly's z goes on past
// zero, and swaps the eyes).
const minEyeBase = 0.001

// adjustEyeBase widens (Z) or narrows (z) every observer's eye base.
func (c *controls) adjustEyeBase(wider bool) {
	c.eyeBase = stepped(cmp.Or(c.eyeBase, c.configEyeBase, 0.05), eyeBaseStep, minEyeBase, wider)
	fmt.Fprintf(os.Stderr, "eye base %.3f\n", c.eyeBase)
}

// stepped is v a step up, or down to no less than least.
func stepped(v, step, least float64, up bool) float64 {
	if up {
		return v + step
	}
	return max(v-step, least)
}

// focusStep is how far + or - moves the focus, as eqPly's.
const focusStep = 0.1

// adjustFocus moves every observer's focus farther (+) or closer (-),
// from the config's, no closer than a step.
func (c *controls) adjustFocus(farther bool) {
	c.focusDistance = stepped(cmp.Or(c.focusDistance, c.configFocus, 1), focusStep, focusStep, farther)
	fmt.Fprintf(os.Stderr, "focus distance %.2f\n", c.focusDistance)
}

// unitOf is view v's model unit now.
func (c *controls) unitOf(v int) float64 {
	if u, ok := c.units[v]; ok {
		return u
	}
	return c.startUnits[v]
}

// scaleModel multiplies the model unit by 0.1 (y) or 10 (Y), as eqPly's,
// in the view pointed at, or in every view, pointed at none. A unit past
// the range stays where it is.
func (c *controls) scaleModel(up bool) {
	factor := 0.1
	if up {
		factor = 10
	}
	for _, v := range viewsAt(c.view, len(c.startUnits)) {
		u := c.unitOf(v) * factor
		if u < goeq.MinModelUnit || u > goeq.MaxModelUnit {
			continue
		}
		if c.units == nil {
			c.units = map[int]float64{}
		}
		c.units[v] = u
		fmt.Fprintf(os.Stderr, "view %d: model unit %g\n", v, u)
	}
}

// viewsAt is the view a key acts in: the one pointed at, or (pointed at
// none) every one of n.
func viewsAt(view, n int) []int {
	if view >= 0 && view < n {
		return []int{view}
	}
	views := make([]int, n)
	for v := range views {
		views[v] = v
	}
	return views
}

// balanceChange is a key that changes the balancing of a view (-1:
// every view), as eqPly's f, F, t, T, 4 and 5.
type balanceChange struct {
	key  rune
	view int
}

// apply changes the balancing on cfg; a change past a setting's range
// (a tile under a pixel) is said and left.
func (b balanceChange) apply(cfg *goeq.Config) {
	for _, v := range viewsAt(b.view, len(cfg.Views())) {
		s, err := cfg.Balancing(v)
		if err != nil {
			continue
		}
		s, said := b.change(s)
		if err := cfg.SetBalancing(v, s); err != nil {
			fmt.Fprintf(os.Stderr, "%v\n", err)
			continue
		}
		fmt.Fprintf(os.Stderr, "view %d: load balancing %s\n", v, said)
	}
}

// change is s as the key changes it, and what it says of that.
func (b balanceChange) change(s goeq.Balancing) (goeq.Balancing, string) {
	switch b.key {
	case 'f', 'F':
		s.Frozen = b.key == 'f'
		return s, fmt.Sprintf("frozen %v", s.Frozen)
	case 't', 'T':
		d := 1
		if b.key == 't' {
			d = -1
		}
		s.TileSize = [2]int{s.TileSize[0] + d, s.TileSize[1] + d}
		return s, fmt.Sprintf("tiles %dx%d", s.TileSize[0], s.TileSize[1])
	case '4', '5':
		d := 1
		if b.key == '5' {
			d = -1
		}
		s.Resistance = [2]int{max(s.Resistance[0]+d, 0), max(s.Resistance[1]+d, 0)}
		return s, fmt.Sprintf("resistance %v", s.Resistance)
	}
	return s, "unchanged"
}

// focusModeNames are the focus modes as eqPly names them.
var focusModeNames = map[goeq.FocusMode]string{goeq.FocusUnchanged: "as the config's", goeq.FocusFixed: "fixed",
	goeq.FocusRelativeToOrigin: "relative to origin", goeq.FocusRelativeToObserver: "relative to observer"}

// camera is the camera of the view the pointer was last in.
func (c *controls) camera() *camera { return c.cameraOf(c.view) }

// cameraOf is view's camera (-1: every view's that has none of its own).
func (c *controls) cameraOf(view int) *camera {
	if view < 0 {
		return &c.cam
	}
	if c.views == nil {
		c.views = map[int]*camera{}
	}
	if c.views[view] == nil {
		own := c.cam
		c.views[view] = &own
	}
	return c.views[view]
}

// frame is the frame data of the cameras now.
func (c *controls) frame() frameData {
	f := frameData{Camera: c.cam, Ortho: c.ortho, Pose: c.pose, Model: c.model, Models: maps.Clone(c.viewModels), Head: c.head, EyeBase: c.eyeBase,
		FocusDistance: c.focusDistance, FocusMode: c.focusMode, Colors: c.colors, Wireframe: c.wireframe, Units: maps.Clone(c.units),
		Stereo: c.stereo, Layouts: slices.Clone(c.shown)}
	for v, cam := range c.views {
		if f.Views == nil {
			f.Views = map[int]camera{}
		}
		f.Views[v] = *cam
	}
	return f
}

// handle applies one event; it reports whether the picture changes.
func (c *controls) handle(ev goeq.Event) bool {
	if ev.Channel != "" && (ev.Kind == goeq.ButtonPress || ev.Kind == goeq.Wheel || ev.Kind == goeq.PointerMotion && c.dragging == 0) {
		c.view = ev.ViewIndex
	}
	cam := c.camera()
	switch ev.Kind {
	case goeq.ButtonPress: // stops a drag going on, as eqPly's click does
		c.dragging, c.last, c.coast = ev.Button, [2]float64{ev.X, ev.Y}, momentum{}
		c.steps.Track(ev)
	case goeq.ButtonRelease:
		c.letGo(ev, time.Now())
		c.dragging = 0
		return c.coasting()
	case goeq.PointerMotion:
		if c.dragging == 0 || ev.Channel == "" {
			return false
		}
		dx, dy := ev.X-c.last[0], ev.Y-c.last[1]
		c.last = [2]float64{ev.X, ev.Y}
		c.shifted = ev.Modifiers&goeq.ModShift != 0
		c.steps.Track(ev)
		moveCamera(cam, c.dragging, c.shifted, c.pilot, dx, dy)
		return true
	case goeq.Wheel: // as eqPly's: up and down zoom, sideways (a touchpad's) pans
		if c.pilot || cam.Distance < nearDistance { // along the camera's own axes, at a pace of its own
			cam.fly([3]float64{-0.05 * ev.DX * homeCamera.Distance, 0, 0.1 * ev.DY * homeCamera.Distance})
		} else {
			cam.Distance = max(cam.Distance*math.Pow(0.9, ev.DY), nearDistance)
			cam.Pan[0] -= 0.05 * ev.DX * cam.Distance
		}
		return ev.DX != 0 || ev.DY != 0
	case goeq.KeyPress:
		switch ev.Key {
		case 's':
			c.stats = !c.stats
			return true
		case ' ': // every view's camera, and the head; a drag going on stops
			c.cam, c.views, c.head, c.coast = homeCamera, nil, nil, momentum{}
			return true
		case 'f', 'F', 't', 'T', '4', '5': // with the next frame: the picture stays
			key := ev.Key
			if ev.Modifiers&goeq.ModShift != 0 && key >= 'a' && key <= 'z' {
				key -= 'a' - 'A'
			}
			c.balance = append(c.balance, balanceChange{key: rune(key), view: c.view})
		case 'g':
			c.stereo = !c.stereo
			return true
		case 'n': // pilot mode, as eqPly's n: the picture stays
			c.pilot = !c.pilot
			if c.pilot {
				fmt.Fprintln(os.Stderr, "pilot mode: left-drag turns the camera, zooms and pans fly along where it looks")
			} else {
				fmt.Fprintln(os.Stderr, "model mode: left-drag turns the model")
			}
		case 'z', 'Z': // the eyes closer, or (shifted) farther apart, as eqPly's
			c.adjustEyeBase(ev.Key == 'Z' || ev.Modifiers&goeq.ModShift != 0)
			return true
		case 'y', 'Y': // the model unit by 0.1, or (shifted) by 10, as eqPly's
			c.scaleModel(ev.Key == 'Y' || ev.Modifiers&goeq.ModShift != 0)
			return true
		case '+', '=', '-': // the focus farther, or closer (= is the + key, unshifted)
			c.adjustFocus(ev.Key != '-')
			return true
		case '1', '2', '3': // the focus mode, as eqPly's
			c.focusMode = goeq.FocusFixed + goeq.FocusMode(ev.Key-'1')
			fmt.Fprintf(os.Stderr, "focus mode %s\n", focusModeNames[c.focusMode])
			return true
		case 'd': // the models' colours, each channel's, the mesh's (as eqPly's d)
			c.colors = (c.colors + 1) % colorModes
			return true
		case 'w': // the triangles' edges only (as eqPly's w)
			c.wireframe = !c.wireframe
			return true
		case 'i': // idle antialiasing (as eqPly's i); the picture stays
			c.refine = !c.refine
		case 'h', goeq.KeyF(1):
			fmt.Fprintln(os.Stderr, keys)
		case 'r', 'u', 'a', 'x', 'k': // eqPly's, which change nothing here: said, as its options are
			fmt.Fprintf(os.Stderr, "eqPly's %c changes nothing here: %s\n", rune(ev.Key), eqPlyKeysNotHere[rune(ev.Key)])
		case 'o':
			c.ortho = !c.ortho
			return true
		case 'm': // the next model, as eqPly's m
			if c.models > 1 {
				c.nextModel()
				return true
			}
		case 'p', goeq.KeyF(11):
			c.shot = true
			return true
		case 'l': // the canvas's next layout; with shift the one before, as eqPly's L
			if c.canvas < len(c.canvasLayouts) && len(c.canvasLayouts[c.canvas]) > 1 {
				layouts := c.canvasLayouts[c.canvas]
				step := 1
				if ev.Modifiers&goeq.ModShift != 0 {
					step = len(layouts) - 1
				}
				at := max(slices.Index(layouts, c.shown[c.canvas]), 0)
				c.shown[c.canvas] = layouts[(at+step)%len(layouts)]
				c.coast = momentum{} // its view is another layout's: not shown now
				return true
			}
		case 'v': // the canvas's next view is current, then none, as eqPly's
			c.view = c.nextView()
			if c.view < 0 {
				fmt.Fprintln(os.Stderr, "no current view: keys act in every view")
			} else {
				fmt.Fprintf(os.Stderr, "view %d is current\n", c.view)
			}
		case 'c': // the next canvas is current, as eqPly's
			if len(c.canvasLayouts) > 1 {
				c.canvas = (c.canvas + 1) % len(c.canvasLayouts)
				fmt.Fprintf(os.Stderr, "canvas %d of %d\n", c.canvas, len(c.canvasLayouts))
			}
		case 'q', goeq.KeyEscape:
			c.quit = true
		default:
			return c.moveHead(ev.Key)
		}
	case goeq.Resize:
		return true // the next frame renders at the window's new size
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

// nextView is the view after the current one among those of the layout
// the current canvas shows (the first where none is current), or -1
// after the last: keys act in every view then.
func (c *controls) nextView() int {
	if c.canvas >= len(c.shown) {
		return -1
	}
	var views []int
	for v, l := range c.viewLayouts {
		if l == c.shown[c.canvas] {
			views = append(views, v)
		}
	}
	if i := slices.Index(views, c.view); i+1 < len(views) {
		return views[i+1]
	}
	return -1
}

// nextModel shows the next model in the view pointed at, or in every
// view that shows its own first.
func (c *controls) nextModel() {
	if c.view < 0 {
		c.model = (c.model + 1) % c.models
		return
	}
	if c.viewModels == nil {
		c.viewModels = map[int]int{}
	}
	c.viewModels[c.view] = (c.frame().modelOf(c.view, c.models) + 1) % c.models
}

// replay takes the cameras, projection and models of a frame of a trace.
func (c *controls) replay(f frameData) {
	c.cam, c.ortho, c.views, c.pose = f.Camera, f.Ortho, nil, f.Pose
	c.model, c.viewModels, c.head, c.eyeBase, c.colors, c.wireframe = f.Model, f.Models, f.Head, f.EyeBase, f.Colors, f.Wireframe
	c.focusDistance, c.focusMode, c.units = f.FocusDistance, f.FocusMode, maps.Clone(f.Units)
	c.stereo = f.Stereo
	if f.Layouts != nil {
		c.shown = slices.Clone(f.Layouts)
	}
	for v, cam := range f.Views {
		if c.views == nil {
			c.views = map[int]*camera{}
		}
		c.views[v] = &cam
	}
}

// listModels are the model files the --model arguments name, as absolute
// paths, in order: a folder's, found in it and the folders in it, by
// name (files and links to files: not named pipes or devices). A folder
// without one is an error, as a file that is not there.
func listModels(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return nil, fmt.Errorf("--model %q: %w", arg, err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("--model: %w", err)
		}
		if !info.IsDir() {
			if kind := bounded.Special(info.Mode()); kind != "" {
				// every node would wait on a named pipe for a writer
				return nil, fmt.Errorf("--model %s: a %s, not a file: every node reads the model from a file", arg, kind)
			}
			files = append(files, abs)
			continue
		}
		found := len(files)
		err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err == nil && regularFile(path, d) && render.IsModelName(path) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("--model: %w", err)
		}
		// a parallel surface's pieces are parts of it, not models
		parts := map[string]bool{}
		for _, file := range files[found:] {
			pieces, err := render.ModelParts(file)
			if err != nil {
				return nil, fmt.Errorf("--model: %w", err)
			}
			for _, p := range pieces {
				parts[filepath.Clean(p)] = true
			}
		}
		files = slices.DeleteFunc(files, func(f string) bool { return parts[filepath.Clean(f)] })
		if len(files) == found {
			return nil, fmt.Errorf("--model %s: no model (*.ply, *.ply.gz, *.stl, *.obj, *.vtp, *.pvtp, *.vtk, *.gltf, *.glb) in it", arg)
		}
	}
	return files, nil
}

// regularFile reports whether a folder's entry is a file, or a link to
// one: a named pipe or a device there would block or never end the read
// of every node.
func regularFile(path string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink != 0 {
		info, err := os.Stat(path)
		return err == nil && info.Mode().IsRegular()
	}
	return d.Type().IsRegular()
}

// loadCameraPath reads a trace (JSON lines, eqply --trace) or an eqPly
// camera path (numbers), whichever the file holds.
func loadCameraPath(name string) ([]frameData, *cameraPath, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head, _ := r.Peek(4096)
	if bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{")) {
		frames, err := decodeTrace(r)
		return frames, nil, err
	}
	p, err := readCameraPath(r)
	return nil, p, err
}

// decodeTrace reads the frames of a trace (--trace) in order, the frame
// data each started with; refined frames repeat the one before, and are
// left out.
func decodeTrace(r io.Reader) ([]frameData, error) {
	var frames []frameData
	dec := json.NewDecoder(r)
	for line := 1; ; line++ {
		var l struct {
			Frame   *int
			Refined bool
			Data    *frameData
		}
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if l.Frame != nil && !l.Refined {
			if l.Data == nil {
				return nil, fmt.Errorf("line %d: frame %d without its data (a trace of an older eqply)", line, *l.Frame)
			}
			for _, cam := range append([]camera{l.Data.Camera}, slices.Collect(maps.Values(l.Data.Views))...) {
				if err := cam.check(); err != nil {
					return nil, fmt.Errorf("line %d: %w", line, err)
				}
			}
			if l.Data.Pose != nil {
				if err := l.Data.Pose.check(); err != nil {
					return nil, fmt.Errorf("line %d: %w", line, err)
				}
			}
			if h := l.Data.Head; h != nil && slices.ContainsFunc(h[:], func(v float32) bool { return v != v || math.IsInf(float64(v), 0) }) {
				return nil, fmt.Errorf("line %d: head %v: a value is not a number", line, *h)
			}
			if b := l.Data.EyeBase; b != b || math.IsInf(b, 0) || b < 0 {
				return nil, fmt.Errorf("line %d: eye base %v: want a number of zero or more", line, b)
			}
			if d := l.Data.FocusDistance; d != d || math.IsInf(d, 0) || d < 0 {
				return nil, fmt.Errorf("line %d: focus distance %v: want a number of zero or more", line, d)
			}
			if m := l.Data.FocusMode; m < goeq.FocusUnchanged || m > goeq.FocusRelativeToObserver {
				return nil, fmt.Errorf("line %d: focus mode %d: want %d to %d", line, m, goeq.FocusUnchanged, goeq.FocusRelativeToObserver)
			}
			for v, u := range l.Data.Units {
				if !(u >= goeq.MinModelUnit && u <= goeq.MaxModelUnit) {
					return nil, fmt.Errorf("line %d: view %d's model unit %v: want %g to %g", line, v, u, goeq.MinModelUnit, goeq.MaxModelUnit)
				}
			}
			for cv, layout := range l.Data.Layouts {
				if layout < goeq.LayoutOff {
					return nil, fmt.Errorf("line %d: canvas %d's layout %d: want an index, 0 or more, or %d (OFF)", line, cv, layout, goeq.LayoutOff)
				}
			}
			if l.Data.Colors < ownColors || l.Data.Colors >= colorModes {
				return nil, fmt.Errorf("line %d: colours %d: want 0 to %d", line, l.Data.Colors, colorModes-1)
			}
			frames = append(frames, *l.Data)
		}
	}
	if len(frames) == 0 {
		return nil, errors.New("no frames in it")
	}
	return frames, nil
}

// tracer writes what the viewer did as JSON lines: each event handled with
// the camera after it, and each frame started with its camera and data.
// err is its first failed write, which ends the run: a trace that stops
// part way would replay as a shorter one.
type tracer struct {
	enc  *json.Encoder
	path string
	err  error
}

func (t *tracer) write(v any) {
	if t.enc != nil && t.err == nil {
		if err := t.enc.Encode(v); err != nil {
			t.err = fmt.Errorf("--trace %s: %w", t.path, err)
		}
	}
}

// frame notes a frame started (refined: by Config.Refine) with the
// camera of the view last pointed at and the frame's data.
func (t *tracer) frame(f int, c *controls, refined bool) {
	t.write(map[string]any{"frame": f, "camera": *c.camera(), "ortho": c.ortho, "data": c.frame(), "refined": refined})
}

func (t *tracer) event(ev goeq.Event, cam camera) {
	t.write(map[string]any{"event": ev.Kind.String(), "x": ev.X, "y": ev.Y, "button": ev.Button, "key": ev.Key, "mods": ev.Modifiers,
		"camera": cam})
}

func main() {
	goeq.Init(app{}) // a render client never returns from here
	config := flag.String("config", "", "the configuration (default: examples/configs/2d-lb-4.eqc, built in; a name that is no file, as local, runs on a config made for this machine's GPUs, saved as local.auto.eqc)")
	var modelArgs []string
	addModel := func(name string) error { modelArgs = append(modelArgs, name); return nil }
	flag.Func("model", "a model: PLY (ASCII or binary, gzipped or not), STL, Wavefront OBJ, a VTK surface (ParaView's .vtp, a parallel one's .pvtp, or a legacy .vtk of POLYDATA), or glTF 2 (.gltf or .glb); or a folder of them, read by every node; again for more models, which the views show in turn (m switches); default: a procedural one", addModel)
	flag.Func("m", "eqPly's -m: --model", addModel)
	noColors := flag.Bool("black-and-white", false, "draw the models in the mesh's colour, not their own (as eqPly's -b)")
	flag.BoolVar(noColors, "b", false, "eqPly's -b: --black-and-white")
	flag.BoolVar(noColors, "blackAndWhite", false, "eqPly's --blackAndWhite: --black-and-white")
	triangles := flag.Int("triangles", 200_000, "triangles of the procedural model")
	frames := flag.Int("frames", 0, "frames to render, one after another, then end (0: with a window, until quit, a frame whenever the picture changes; headless: 100)")
	flag.IntVar(frames, "n", 0, "eqPly's -n: --frames")
	flag.IntVar(frames, "numFrames", 0, "eqPly's --numFrames: --frames")
	out := flag.String("out", "", "write every frame's destination PNG here")
	asJSON := flag.Bool("json", false, "print the run's summary as JSON")
	httpAddr := flag.String("http", "", "serve the run's live dashboard and Prometheus /metrics on this address")
	statsPath := flag.String("stats", "", "write the run's per-channel statistics to this file, as JSON lines (eqserver replay balances the run again from them)")
	server := flag.String("server", "", "a running eqserver's application address (eqserver run --app ADDR); default: the server runs in this process")
	path := flag.String("camera-path", "", "orbit: turn the camera around the model (the default headless); a trace (--trace) to render its frames again; or an eqPly camera path (eqPly's -a) to fly")
	flag.StringVar(path, "a", "", "eqPly's -a: --camera-path")
	flag.StringVar(path, "cameraPath", "", "eqPly's --cameraPath: --camera-path")
	start := flag.String("camera", "", "the camera to start from: YAW,PITCH,DISTANCE (radians, units)")
	overlay := flag.Bool("overlay", false, "start with the statistics overlay on (s toggles it)")
	ortho := flag.Bool("ortho", false, "start with a parallel (orthographic) projection (o toggles it)")
	refine := flag.Bool("refine", true, "while nothing changes, refine the picture shown: up to 16 frames that antialias it (as eqPly's idle antialiasing)")
	tracePath := flag.String("trace", "", "write each event handled and each frame's camera as JSON lines here")
	frameTimeout := flag.Duration("frame-timeout", 0, "a frame still incomplete this long fails the run; 0: 10 s, or 3 times the slowest recent frame where frames are slower (a model a software GL draws for seconds), and 1 minute before a frame has completed")
	local := flag.Bool("local", false, "start every node's render client on this machine, whatever host the config names (try a cluster config here)")
	reference := flag.Bool("reference", false, "every destination channel draws its whole frame itself, undecomposed: the picture a decomposed run must match")
	relaunch := flag.Int("relaunch", 0, "start a lost render node's client again, up to N times per node: it rejoins and draws again")
	layout := flag.String("layout", "", "the layout to start with on the canvases that list it: its name, or its index in the config for an unnamed one (l steps on from it)")
	eqPly := eqPlyFlags()
	flag.Parse()
	eqPly.tell()

	switch {
	case flag.NArg() > 0: // flag stops at it: the flags after it would go unread
		log.Fatalf("%q: eqply takes flags alone (a model is --model FILE, a config --config FILE), and none after it was read", flag.Arg(0))
	case *frames < 0:
		log.Fatalf("--frames %d: want 0 (until quit) or more", *frames)
	case *triangles < 1 || *triangles > render.MaxPLYFaces:
		log.Fatalf("--triangles %d: want 1 to %d", *triangles, render.MaxPLYFaces)
	case *frameTimeout < 0:
		log.Fatalf("--frame-timeout %v: want 0 (bounds that follow the frames' time) or more", *frameTimeout)
	case *relaunch < 0:
		log.Fatalf("--relaunch %d: want 0 (a lost node stays out) or more", *relaunch)
	}
	// the nodes read them from this folder's view of them, wherever a
	// launcher (ssh) starts them
	modelFiles, err := listModels(modelArgs)
	if err != nil {
		log.Fatal(err)
	}
	var replay []frameData // the frames of a trace, to render again
	var flight *pathPlayer // or an eqPly camera path
	if *path != "" && *path != "orbit" {
		trace, eqPlyPath, err := loadCameraPath(*path)
		if err != nil {
			log.Fatalf("--camera-path %q: want orbit, a trace (eqply --trace) or an eqPly camera path: %v", *path, err)
		}
		switch {
		case trace != nil:
			replay = trace
			if *frames == 0 || *frames > len(replay) {
				*frames = len(replay)
			}
		default:
			flight = &pathPlayer{path: eqPlyPath}
			if *frames == 0 {
				*frames = eqPlyPath.lap()
			}
		}
	}
	c := &controls{cam: homeCamera, view: -1, stats: *overlay, ortho: *ortho, models: max(len(modelFiles), 1)}
	if *start != "" {
		if _, err := fmt.Sscanf(*start, "%g,%g,%g", &c.cam.Yaw, &c.cam.Pitch, &c.cam.Distance); err != nil || c.cam.check() != nil {
			log.Fatalf("--camera %q: want YAW,PITCH,DISTANCE, numbers within float32's range", *start)
		}
	}
	if eqPly.centerCamera {
		c.cam.Distance = 0 // the eye at the origin, as eqPly's -z puts it
	}
	var tr tracer
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			log.Fatalf("--trace: %v", err)
		}
		defer f.Close()
		tr.enc, tr.path = json.NewEncoder(f), *tracePath
	}
	interactive := os.Getenv("DISPLAY") != "" && *path == ""
	c.refine = *refine
	refining := func() bool { return c.refine && interactive }
	if !interactive && *frames == 0 {
		*frames = 100
	}
	stop := interrupt.New()
	configName, configText := configs.Pick(*config)
	cfg, err := goeq.Start(stop.Start, app{}, goeq.Options{Config: configName, ConfigText: configText, Server: *server, HTTP: *httpAddr, Stats: *statsPath, OutDir: *out, Overlay: *overlay, Local: *local, Reference: *reference, FrameTimeout: *frameTimeout, Relaunch: *relaunch,
		Layout: *layout, InitData: initData{Models: modelFiles, Triangles: *triangles, NoColors: *noColors,
			KeepUnits: eqPly.keepUnits, NoROI: eqPly.noROI}})
	stop.Started(err)
	if err != nil {
		log.Fatal(err)
	}
	if interactive && cfg.OnScreen() == 0 {
		// no window opened on the display (a DISPLAY that did not open,
		// or hint_drawable FBO everywhere): no key can end the session
		interactive = false
		if *frames == 0 {
			*frames = 100
		}
		log.Printf("no window of the run shows on the display (DISPLAY=%s): rendering %d frames offscreen, as headless", os.Getenv("DISPLAY"), *frames)
	}
	home := c.cam
	n := 0
	shown := *overlay // what the overlay is set to
	c.canvasLayouts = steppedLayouts(cfg.Canvases(), cfg.Layouts(), log.Printf)
	for i := range cfg.Canvases() {
		shows, err := cfg.CanvasLayout(i)
		if err != nil {
			log.Fatal(err)
		}
		c.shown = append(c.shown, shows)
	}
	for v := range cfg.Views() {
		l, err := cfg.ViewLayout(v)
		if err != nil {
			log.Fatal(err)
		}
		c.viewLayouts = append(c.viewLayouts, l)
	}
	used := slices.Clone(c.shown) // the layouts showing
	stereo := false               // the views, as last asked for
	var head *goeq.Mat4           // the observers' head, as last set
	eyeBase := 0.0                // and their eye base
	focus, focusMode := 0.0, goeq.FocusUnchanged
	c.configEyeBase = cfg.EyeBase(0)
	c.configFocus, _ = cfg.Focus(0)
	for v := range cfg.Views() {
		c.startUnits = append(c.startUnits, cfg.ModelUnit(v))
	}
	// a screenshot whose folder cannot be made (a read-only working
	// folder) is the user's to learn of, not the end of the session
	screenshot := func() bool {
		if err := cfg.Screenshot(screenshots); err != nil {
			log.Printf("no screenshot: %v", err)
			c.shot = false
			return false
		}
		return true
	}
	frame := func() error {
		switch {
		case replay != nil:
			c.replay(replay[n])
		case flight != nil:
			p := flight.next()
			c.pose = &p
		case !interactive && !eqPly.still:
			c.cam.Yaw = home.Yaw + 2*math.Pi*float64(n)/float64(*frames)
		default:
			c.coastTo(time.Now())
		}
		if c.stats != shown {
			cfg.SetOverlay(c.stats)
			shown = c.stats
		}
		for _, ch := range c.balance {
			ch.apply(cfg)
		}
		c.balance = nil
		if c.stereo != stereo {
			mode := goeq.Mono
			if c.stereo {
				mode = goeq.Stereo
			}
			for i := range cfg.Views() {
				err := cfg.SetViewMode(i, mode)
				if errors.Is(err, goeq.ErrNeverCompletes) {
					// g again switches the others back
					log.Printf("g: %v", err)
					continue
				}
				if err != nil {
					return err
				}
			}
			stereo = c.stereo
		}
		if c.head != head || c.eyeBase != eyeBase {
			h := goeq.Identity
			if c.head != nil {
				h = *c.head
			}
			for i := range cfg.Observers() {
				if err := cfg.SetHead(i, h, c.eyeBase); err != nil {
					return err
				}
			}
			head, eyeBase = c.head, c.eyeBase
		}
		if c.focusDistance != focus || c.focusMode != focusMode {
			for i := range cfg.Observers() {
				if err := cfg.SetFocus(i, c.focusDistance, c.focusMode); err != nil {
					return err
				}
			}
			focus, focusMode = c.focusDistance, c.focusMode
		}
		for v := range c.units {
			if v < 0 || v >= len(c.startUnits) {
				return fmt.Errorf("frame %d gives view %d a model unit: the config has %d views", n, v, len(c.startUnits))
			}
		}
		for v := range c.startUnits {
			if u := c.unitOf(v); u != cfg.ModelUnit(v) {
				if err := cfg.SetModelUnit(v, u); err != nil {
					return err
				}
			}
		}
		if len(c.shown) != len(used) {
			return fmt.Errorf("frame %d shows layouts on %d canvases: the config has %d", n, len(c.shown), len(used))
		}
		for cv, layout := range c.shown {
			if layout != used[cv] {
				if err := cfg.UseCanvasLayout(cv, layout); err != nil {
					return fmt.Errorf("frame %d: %w", n, err)
				}
				used[cv] = layout
			}
		}
		// refining, the screenshot waits for the last refined frame
		shoot := c.shot && (!refining() || c.stats) && screenshot()
		f, err := cfg.StartFrame(c.frame())
		if err != nil {
			return err
		}
		if shoot {
			log.Printf("frame %d: a screenshot into %s", f, screenshots)
			c.shot = false
		}
		tr.frame(f, c, false)
		n++
		return cmp.Or(cfg.FinishFrame(), tr.err)
	}
	ctx := stop.Loop
	for err == nil && !c.quit && ctx.Err() == nil && (*frames == 0 || n < *frames) {
		if err = frame(); err != nil || !interactive {
			continue
		}
		// on demand: the next frame only when an event changed the picture
		// (while the statistics show, every frame changes them, and a
		// drag let go while moving goes on); --frames N renders its frames
		// one after another, as headless, and ends
		changed := c.stats || c.coasting() || *frames > 0
		for samples := 0; !changed && !c.quit && err == nil; {
			var evs []goeq.Event
			refined := false
			if refining() && ctx.Err() == nil {
				// idle: the picture shown gets smoother, a refined frame
				// at a time, until an event changes it; a screenshot asked
				// for takes the last
				last := c.shot && samples == goeq.MaxRefineSamples-1 && screenshot()
				var f int
				f, refined, err = cfg.Refine()
				if refined {
					samples++
					if last {
						log.Printf("frame %d: a screenshot into %s", f, screenshots)
						c.shot = false
					}
					tr.frame(f, c, true)
					err = cmp.Or(err, cfg.FinishFrame())
					evs = cfg.PendingEvents()
				}
			}
			if !refined && err == nil {
				if err = cfg.FinishAllFrames(); err == nil {
					evs, err = cfg.WaitEvents(ctx)
				}
			}
			for _, ev := range evs {
				if c.handle(ev) {
					changed = true
				}
				tr.event(ev, *c.camera())
			}
			err = cmp.Or(err, tr.err)
		}
		for _, ev := range cfg.PendingEvents() {
			c.handle(ev)
			tr.event(ev, *c.camera())
		}
		err = cmp.Or(err, tr.err)
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = nil // the wait for events ended by the signal
	}
	sum, exitErr := cfg.Exit()
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
	} else if sum != nil {
		log.Printf("%d frames in %.1f s (%.1f fps), %d degraded, %d images written", sum.Frames, sum.Seconds, sum.FPS, sum.Degraded, len(sum.Written))
		if len(sum.DegradedFrames) > 0 {
			log.Printf("frames %v were shown without the part of a lost node", sum.DegradedFrames)
		}
	}
	if err := cmp.Or(err, exitErr); err != nil {
		log.Fatal(err) // the run's error, or what ended it
	}
	stop.Exit()
}

// eqPlyOptions are eqPly's options beyond those goeq's own flags take,
// under both of eqPly's names, so that a script written for eqPly runs:
// those with a meaning here take it, the others are taken with a word on
// why they change nothing.
type eqPlyOptions struct {
	keepUnits    bool // -s: the models in their own units and place
	centerCamera bool // -z: the eye at the origin
	still        bool // -p: headless, the camera stays (eqPly's models spin)
	noROI        bool // -d: draws send their whole viewport
	immersive    bool // -o -z -s -p
	unused       []*unusedOption
}

// unusedOption is an eqPly option that changes nothing in goeq.
type unusedOption struct {
	name, long, why string
	boolean         bool
	given           bool
}

func (o *unusedOption) String() string   { return "" }
func (o *unusedOption) IsBoolFlag() bool { return o.boolean }
func (o *unusedOption) Set(string) error { o.given = true; return nil }

func eqPlyFlags() *eqPlyOptions {
	e := &eqPlyOptions{}
	for _, b := range []struct {
		v           *bool
		short, long string
		help        string
	}{
		{&e.keepUnits, "s", "disableRescaling", "eqPly's -s: the models in their own units and place, not fitted into the home view"},
		{&e.centerCamera, "z", "centerCamera", "eqPly's -z: the camera at the origin"},
		{&e.still, "p", "disableAnimation", "eqPly's -p: the camera stays where it starts (headless, it orbits)"},
		{&e.noROI, "d", "disableROI", "eqPly's -d: every draw sends its whole viewport, not the region the model covers"},
	} {
		flag.BoolVar(b.v, b.short, false, b.help)
		flag.BoolVar(b.v, b.long, false, b.help)
	}
	flag.BoolVar(&e.immersive, "immersive", false, "eqPly's --immersive: -o -z -s -p")
	for _, u := range []*unusedOption{
		{name: "r", long: "resident", why: "goeq's render clients end with the run; keep the application running instead", boolean: true},
		{name: "w", long: "windowSystem", why: "goeq takes GLFW on a display and EGL headless (GOEQ_WINSYS=glfw or egl chooses)"},
		{name: "c", long: "renderMode", why: "goeq draws from buffer objects"},
		{name: "g", long: "glsl", why: "goeq always draws with GLSL shaders", boolean: true},
		{name: "o", long: "noOverlay", why: "goeq draws no logo", boolean: true},
		{name: "i", long: "invertFaces", why: "goeq lights both sides of every face, so a model whose faces wind inwards shows as one whose faces wind outwards", boolean: true},
	} {
		help := fmt.Sprintf("eqPly's -%s (--%s), taken: %s", u.name, u.long, u.why)
		flag.Var(u, u.name, help)
		flag.Var(u, u.long, help)
		e.unused = append(e.unused, u)
	}
	return e
}

// tell applies --immersive and says which options given change nothing.
func (e *eqPlyOptions) tell() {
	if e.immersive {
		e.centerCamera, e.keepUnits, e.still = true, true, true
	}
	for _, u := range e.unused {
		if u.given {
			log.Printf("eqPly's -%s changes nothing here: %s", u.name, u.why)
		}
	}
}
