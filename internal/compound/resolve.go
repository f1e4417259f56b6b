package compound

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/configparser"
)

// Options tune resolution.
type Options struct {
	// Getenv reads EQ_* defaults from the environment; nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// BlendRanges resolves the config for renderers whose images are
	// translucent colour without depth (a volume), as Equalizer's eVolve
	// assembles any config: see blendRanges.
	BlendRanges bool
}

// Load parses and resolves a file.
func Load(filename string, opt Options) (*Model, *configparser.Result, error) {
	res, err := configparser.ParseFile(filename)
	if err != nil {
		return nil, nil, err
	}
	m, err := Resolve(res, opt)
	return m, res, err
}

// LoadText parses and resolves src, naming it name in positions.
func LoadText(name string, src []byte, opt Options) (*Model, *configparser.Result, error) {
	res, err := configparser.Parse(name, src)
	if err != nil {
		return nil, nil, err
	}
	m, err := Resolve(res, opt)
	return m, res, err
}

// DefaultPipeViewport is the pixel viewport of a pipe that names none.
var DefaultPipeViewport = PixelViewport{0, 0, 1920, 1080}

// DefaultWindowViewport is the pixel viewport of a window that names none.
var DefaultWindowViewport = PixelViewport{0, 0, 800, 600}

// Resolve turns a parsed file into the model. All reference errors are
// reported together, each at the position of the reference.
func Resolve(res *configparser.Result, opt Options) (*Model, error) {
	if opt.Getenv == nil {
		opt.Getenv = os.LookupEnv
	}
	r := &resolver{res: res, opt: opt, raw: map[*Compound]*compoundData{}, base: map[*Compound]frustumBase{}, segmentPos: map[*Segment]lexer.Position{}, merged: map[*Compound]*Channel{},
		channelPos: map[*Channel]lexer.Position{}}
	m := &Model{Version: res.Version}
	r.model = m
	m.Global = r.global(res.File.Global)
	var configs []*configparser.Config
	if s := res.File.Server; s != nil {
		for _, c := range s.Connections {
			m.Server = append(m.Server, r.connection(c, m.Global))
		}
		configs = s.Configs
	} else {
		configs = []*configparser.Config{res.File.Config}
	}
	for _, c := range configs {
		m.Configs = append(m.Configs, r.config(c))
	}
	if len(configs) > 1 {
		// an Equalizer server hands its configs to applications in turn;
		// a goeq run is one application's
		r.warnf(configs[1].Pos, "goeq runs the file's first config (%s) and not the other %d", configLabel(m.Configs[0]), len(configs)-1)
	}
	if len(r.errs) > 0 {
		r.errs.Sort()
		return nil, r.errs
	}
	return m, nil
}

// configLabel names a config in messages.
func configLabel(c *Config) string {
	if c == nil || c.Name == "" {
		return "unnamed"
	}
	return fmt.Sprintf("%q", c.Name)
}

type resolver struct {
	res   *configparser.Result
	opt   Options
	model *Model
	errs  configparser.ErrorList
	cfg   *Config
	// raw keeps what each compound sets itself until inheritance runs.
	raw  map[*Compound]*compoundData
	base map[*Compound]frustumBase
	// segmentPos is where each segment starts, for warnings about the
	// compounds goeq makes for segments.
	segmentPos map[*Segment]lexer.Position
	// merged holds the channel a compound named where it draws on its
	// destination's channel instead (sameAsDestination).
	merged map[*Compound]*Channel
	// channelPos is where each channel of a window starts, for warnings
	// about it and the destination channels cut from it.
	channelPos map[*Channel]lexer.Position
}

// frustumBase is the wall a compound's frustum is cut from, and the
// viewport (relative to the destination) that wall covers.
type frustumBase struct {
	wall  Wall
	vp    Viewport
	owner *Compound
}

// warnf records a warning in the parse result, next to the parser's.
func (r *resolver) warnf(pos lexer.Position, format string, args ...any) {
	r.res.Warnings = append(r.res.Warnings, configparser.Diagnostic{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (r *resolver) errorf(pos lexer.Position, format string, args ...any) {
	r.errs = append(r.errs, configparser.Diagnostic{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// check reports err, a value out of its range, at pos.
func (r *resolver) check(pos lexer.Position, err error) {
	if err != nil {
		r.errorf(pos, "%v", err)
	}
}

// ---- values ---------------------------------------------------------------

func num(raw string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(raw, "+"), "f"), 64)
	return v
}

func str(s *configparser.Str) string { return s.Raw[1 : len(s.Raw)-1] }

func floats(v []*configparser.Float) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = num(f.Raw)
	}
	return out
}

func uints(v []*configparser.Uint) []int {
	out := make([]int, len(v))
	for i, f := range v {
		out[i] = int(num(f.Raw))
	}
	return out
}

func vec3(v *configparser.Vec3) Vec3 {
	f := floats(v.V)
	return Vec3{f[0], f[1], f[2]}
}

func iattr(a *configparser.IAttr) string {
	switch {
	case a.Core != nil:
		return "CORE " + strconv.Itoa(int(num(a.Core.Raw)))
	case a.Socket != nil:
		return "SOCKET " + strconv.Itoa(int(num(a.Socket.Raw)))
	case a.Number != nil:
		return strconv.Itoa(int(num(a.Number.Raw)))
	}
	return configparser.CanonicalWord(a.Word)
}

// attrValue is iattr's value of attribute key (as an entity's attributes
// name it: iattrKey of a global), with a number that names a choice
// turned into that choice's word: Equalizer's grammar takes the number of
// an enum value (1 for ON, -12 for FBO), and its EQ_* environment
// variables are read as numbers only, so scripts set
// EQ_WINDOW_IATTR_HINT_FULLSCREEN=1. Attributes that count (planes,
// timeouts, ports) keep their numbers, but for the negative ones that
// name a choice (planes_color -13 is RGBA16F).
func attrValue(k, v string) string {
	n, err := strconv.Atoi(v)
	if err != nil || !choiceAttrs[k] && !(strings.HasPrefix(k, "planes_") && n < 0) {
		return v
	}
	if w, ok := choiceWords[n]; ok {
		return w
	}
	return v
}

// iattrKey is the attribute an EQ_*_IATTR_* global sets, as the entity's
// attributes name it ("" for other globals).
func iattrKey(global string) string {
	i := strings.Index(global, "_IATTR_")
	if i < 0 {
		return ""
	}
	return strings.ToLower(global[i+len("_IATTR_"):])
}

var (
	// choiceAttrs take one of Equalizer's named values.
	choiceAttrs = map[string]bool{
		"hint_stereo": true, "hint_doublebuffer": true, "hint_fullscreen": true, "hint_decoration": true,
		"hint_swapsync": true, "hint_drawable": true, "hint_statistics": true, "hint_screensaver": true,
		"hint_grab_pointer": true, "hint_core_profile": true, "hint_sendtoken": true,
		"thread_model": true, "stereo_mode": true, "robustness": true, "focus_mode": true,
	}
	// choiceWords are Equalizer's numbers of its named values
	// (eq::fabric::IAttribute; pbuffer's -8 from before 1.7), spelled as
	// goeq's grammar keeps them.
	choiceWords = map[int]string{
		-17: "relative_to_observer", -16: "relative_to_origin", -15: "fixed", -14: "RGBA32F", -13: "RGBA16F",
		-12: "FBO", -11: "LOCAL_SYNC", -10: "DRAW_SYNC", -9: "ASYNC", -8: "pbuffer", -7: "window",
		-6: "VERTICAL", -5: "QUAD", -4: "ANAGLYPH", -3: "PASSIVE", -2: "NICEST", -1: "AUTO", 0: "OFF", 1: "ON",
	}
)

func flagBits(f *configparser.Flags, bits map[string]int) int {
	out := 0
	for _, w := range f.Words {
		out |= bits[w.Value]
	}
	return out
}

var (
	eyeBits    = map[string]int{"CYCLOP": EyeCyclop, "LEFT": EyeLeft, "RIGHT": EyeRight}
	taskBits   = map[string]int{"CLEAR": TaskClear, "DRAW": TaskDraw, "ASSEMBLE": TaskAssemble, "READBACK": TaskReadback}
	bufferBits = map[string]int{"COLOR": BufferColor, "DEPTH": BufferDepth}
)

func maskWords(f *configparser.Flags) string {
	if len(f.Words) == 0 {
		return "[ ]"
	}
	var ws []string
	for _, c := range []string{"RED", "GREEN", "BLUE"} {
		for _, w := range f.Words {
			if w.Value == c {
				ws = append(ws, c)
				break
			}
		}
	}
	return "[ " + strings.Join(ws, " ") + " ]"
}

// viewport checks a fractional viewport and returns it.
func (r *resolver) fracViewport(v *configparser.Viewport, what string) Viewport {
	f := floats(v.V)
	vp := Viewport{f[0], f[1], f[2], f[3]}
	if vp.W <= 0 || vp.H <= 0 {
		r.errorf(v.Pos, "%s viewport [ %g %g %g %g ] has no area: width and height must be positive", what, f[0], f[1], f[2], f[3])
	} else if !withinUnit(vp) {
		r.errorf(v.Pos, "%s viewport [ %g %g %g %g ] is out of range: x+width and y+height must lie within [0,1]", what, f[0], f[1], f[2], f[3])
	}
	vp = vp.Intersect(FullViewport)
	return vp
}

// segmentViewport reads a segment's viewport on its canvas. One that
// reaches past the canvas is kept whole, as Equalizer keeps it (its
// demo-mode auto-configuration writes such segments for 2, 5, 6 and
// other GPU counts): its wall extends the canvas's, and the views cover
// only its part on the canvas.
func (r *resolver) segmentViewport(v *configparser.Viewport) Viewport {
	f := floats(v.V)
	vp := Viewport{f[0], f[1], f[2], f[3]}
	switch {
	case vp.W <= 0 || vp.H <= 0:
		return r.fracViewport(v, "segment") // the error
	case withinUnit(vp):
		return vp.Intersect(FullViewport)
	case !vp.Intersect(FullViewport).HasArea():
		r.warnf(v.Pos, "segment viewport [ %g %g %g %g ] lies outside its canvas: no view reaches it, so its channel shows nothing of the canvas", f[0], f[1], f[2], f[3])
	default:
		r.warnf(v.Pos, "segment viewport [ %g %g %g %g ] reaches past its canvas: its wall extends the canvas's, and its channel shows the views only where it overlaps the canvas", f[0], f[1], f[2], f[3])
	}
	return vp
}

// withinUnit says whether a fractional viewport lies within [0,1] both
// ways. Real files write thirds as .3334 and overshoot 1 by a rounding
// step: that much passes, and is clipped.
func withinUnit(vp Viewport) bool {
	const eps = 1e-3
	return vp.X >= -eps && vp.Y >= -eps && vp.X+vp.W <= 1+eps && vp.Y+vp.H <= 1+eps
}

// isPixelViewport says whether a window's or channel's viewport counts
// pixels rather than fractions: its size passes 1 either way.
func isPixelViewport(v *configparser.Viewport) bool {
	f := floats(v.V)
	return f[2] > 1 || f[3] > 1
}

// isFraction says whether a viewport's four values all lie in [0, 1].
func isFraction(v *configparser.Viewport) bool {
	return !slices.ContainsFunc(floats(v.V), func(x float64) bool { return x < 0 || x > 1 })
}

// windowViewport reads a window or channel viewport: fractional when both
// width and height are at most 1, pixels otherwise (as Equalizer).
func (r *resolver) windowViewport(v *configparser.Viewport, what string) (Viewport, *PixelViewport) {
	f := floats(v.V)
	if isPixelViewport(v) {
		// a size under a pixel counts as none: Equalizer takes whole pixels
		pvp := &PixelViewport{int(f[0]), int(f[1]), int(f[2]), int(f[3])}
		if pvp.W <= 0 || pvp.H <= 0 {
			r.errorf(v.Pos, "%s pixel viewport [ %g %g %g %g ] has no area (%dx%d whole pixels)", what, f[0], f[1], f[2], f[3], max(pvp.W, 0), max(pvp.H, 0))
		}
		return Viewport{}, pvp
	}
	if vp := (Viewport{f[0], f[1], f[2], f[3]}); what == "window" && !withinUnit(vp) && vp.Intersect(FullViewport).HasArea() {
		// Equalizer opens such a window partly off its pipe's screen, as
		// it does one whose pixel viewport reaches past the screen (one
		// wholly off it is refused: nothing of it would show)
		r.warnf(v.Pos, "window viewport [ %g %g %g %g ] reaches past its pipe's screen: the window opens partly off it, as Equalizer's does", f[0], f[1], f[2], f[3])
		return vp, nil
	}
	return r.fracViewport(v, what), nil
}

// wallSkew is how far from a right angle a wall's corners may be (in
// radians) before check says so: rounded corners in real configs are off
// by far less.
const wallSkew = 0.5 * math.Pi / 180

func (r *resolver) wall(w *configparser.Wall) *Wall {
	out := DefaultWall
	for _, f := range w.Fields {
		switch {
		case f.BottomLeft != nil:
			out.BottomLeft = vec3(f.BottomLeft)
		case f.BottomRight != nil:
			out.BottomRight = vec3(f.BottomRight)
		case f.TopLeft != nil:
			out.TopLeft = vec3(f.TopLeft)
		case f.Type != "":
			out.HMD = f.Type == "HMD"
		}
	}
	u := out.BottomRight.Sub(out.BottomLeft)
	v := out.TopLeft.Sub(out.BottomLeft)
	if u.Cross(v).Len() == 0 {
		r.errorf(w.Pos, "wall corners are degenerate: bottom_left, bottom_right and top_left must span a rectangle")
	} else if cos := u.Dot(v) / (u.Len() * v.Len()); math.Abs(cos) > math.Sin(wallSkew) {
		// the frustum projects onto the edges' directions as if they
		// were at right angles, so the wall's parts do not tile it
		square := out.BottomLeft.Add(v.Sub(u.Scale(u.Dot(v) / u.Dot(u))))
		r.warnf(w.Pos, "wall corners: the edges from bottom_left to bottom_right and to top_left meet at %.1f°, not at a right angle; Equalizer and goeq project as if they did, so the picture is distorted and parts of it drawn apart (segments, 2D parts, frames shown on other channels) do not line up (top_left [ %.4g %.4g %.4g ] makes it a rectangle)",
			math.Acos(cos)*180/math.Pi, square[0], square[1], square[2])
	}
	return &out
}

func (r *resolver) projection(p *configparser.Projection) *Wall {
	pr := Projection{Distance: 1, FOV: [2]float64{90, 90}}
	for _, f := range p.Fields {
		switch {
		case f.Origin != nil:
			pr.Origin = vec3(f.Origin)
		case f.Distance != nil:
			pr.Distance = num(f.Distance.Raw)
		case f.FOV != nil:
			v := floats(f.FOV.V)
			pr.FOV = [2]float64{v[0], v[1]}
		case f.HPR != nil:
			pr.HPR = vec3(f.HPR)
		}
	}
	if pr.FOV[0] <= 0 || pr.FOV[0] >= 180 || pr.FOV[1] <= 0 || pr.FOV[1] >= 180 || pr.Distance == 0 {
		r.errorf(p.Pos, "projection needs a field of view between 0 and 180 degrees and a non-zero distance")
	}
	w := pr.Wall()
	return &w
}

func (r *resolver) swapBarrier(s *configparser.SwapBarrier) *SwapBarrier {
	out := &SwapBarrier{Name: "barrier", NVGroup: "OFF", NVBarrier: "OFF"}
	for _, f := range s.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.NVGroup != nil:
			out.NVGroup = iattr(f.NVGroup)
			if out.NVGroup != "OFF" && out.NVGroup != "0" {
				r.warnf(f.NVGroup.Pos, "NV_group: goeq has no hardware swap barrier; the server's software barrier synchronises the swaps")
			}
		case f.NVBarrier != nil:
			out.NVBarrier = iattr(f.NVBarrier)
		}
	}
	return out
}

// ---- global ---------------------------------------------------------------

// global returns the EQ_* attributes in effect: the file's, then the
// environment's for keys the file leaves out. Deprecated spellings map to
// their current key.
func (r *resolver) global(g *configparser.Global) map[string]string {
	out := map[string]string{}
	if g != nil {
		for _, f := range g.Fields {
			switch {
			case f.Str != nil:
				out[canonicalGlobalKey(f.StrKey)] = str(f.Str)
			case f.Uint != nil:
				out[canonicalGlobalKey(f.UintKey)] = strconv.Itoa(int(num(f.Uint.Raw)))
			case f.Float != nil:
				out[f.FloatKey] = strconv.FormatFloat(num(f.Float.Raw), 'f', -1, 64)
			case f.Char != nil:
				out[canonicalGlobalKey(f.CharKey)] = f.Char.Raw
			case f.Mask != nil:
				out[f.MaskKey] = maskWords(f.Mask)
			case f.TypeKey != "":
				out[f.TypeKey] = f.Type
				if f.Type != "TCPIP" {
					r.warnf(f.Pos, "connection type %s: goeq's nodes talk TCP (gRPC control, framed TCP pixels)", f.Type)
				}
			case f.IAttr != nil:
				key := iattrKey(f.IKey)
				out[f.IKey] = attrValue(key, iattr(f.IAttr))
				r.runtimeAttr(f.Pos, key, out[f.IKey])
				if f.IKey == "EQ_CONFIG_IATTR_FOCUS_MODE" {
					out[f.IKey] = r.focusMode(out[f.IKey], f.Pos)
				}
				if f.IKey == "EQ_COMPOUND_IATTR_STEREO_MODE" && out[f.IKey] == "QUAD" {
					r.warnf(f.Pos, "stereo_mode QUAD: goeq renders into framebuffer objects, which have no quad-buffered stereo; stereo destinations show anaglyph")
				}
			}
		}
	}
	for _, k := range configparser.GlobalKeys() {
		k = canonicalGlobalKey(k)
		if _, set := out[k]; set {
			continue
		}
		if v, ok := r.opt.Getenv(k); ok && v != "" {
			env := lexer.Position{Filename: "environment variable " + k, Line: 1, Column: 1}
			val, err := configparser.ParseGlobalValue(k, v)
			if err != nil {
				r.errorf(env, "%v", err)
				continue
			}
			val = attrValue(iattrKey(k), val)
			if k == "EQ_CONFIG_IATTR_FOCUS_MODE" {
				val = r.focusMode(val, env)
			}
			out[k] = val
		}
	}
	return out
}

func canonicalGlobalKey(k string) string {
	switch k {
	case "EQ_CONNECTION_IATTR_TCPIP_PORT":
		return "EQ_CONNECTION_IATTR_PORT"
	case "EQ_CONNECTION_SATTR_PIPE_FILENAME":
		return "EQ_CONNECTION_SATTR_FILENAME"
	case "EQ_CONNECTION_SATTR_LAUNCH_COMMAND":
		return "EQ_NODE_SATTR_LAUNCH_COMMAND"
	case "EQ_CONNECTION_CATTR_LAUNCH_COMMAND_QUOTE":
		return "EQ_NODE_CATTR_LAUNCH_COMMAND_QUOTE"
	case "EQ_CONNECTION_IATTR_LAUNCH_TIMEOUT":
		return "EQ_NODE_IATTR_LAUNCH_TIMEOUT"
	}
	return k
}

// globalDefaults returns the attributes an element of the given kind
// (NODE, PIPE, WINDOW, CHANNEL, COMPOUND) takes from the global block, keyed
// as the element's own attributes block spells them.
func globalDefaults(g map[string]string, kind string) map[string]string {
	out := map[string]string{}
	for k, v := range g {
		for _, t := range []string{"IATTR", "SATTR", "CATTR", "FATTR"} {
			prefix := "EQ_" + kind + "_" + t + "_"
			if strings.HasPrefix(k, prefix) {
				key := strings.ToLower(strings.TrimPrefix(k, prefix))
				if key == "hint_cuda_gl_interop" {
					key = "hint_cuda_GL_interop"
				}
				out[key] = v
			}
		}
	}
	return out
}

func (r *resolver) connection(c *configparser.Connection, g map[string]string) Connection {
	out := Connection{Type: "TCPIP", Pos: c.Pos}
	if v, ok := g["EQ_CONNECTION_IATTR_TYPE"]; ok {
		out.Type = v
	}
	out.Hostname = g["EQ_CONNECTION_SATTR_HOSTNAME"]
	out.Filename = g["EQ_CONNECTION_SATTR_FILENAME"]
	out.Port, _ = strconv.Atoi(g["EQ_CONNECTION_IATTR_PORT"])
	out.Bandwidth, _ = strconv.Atoi(g["EQ_CONNECTION_IATTR_BANDWIDTH"])
	for _, f := range c.Fields {
		switch {
		case f.Type != "":
			out.Type = f.Type
			if f.Type != "TCPIP" {
				r.warnf(f.Pos, "connection type %s: goeq's nodes talk TCP (gRPC control, framed TCP pixels)", f.Type)
			}
		case f.Hostname != nil:
			out.Hostname = str(f.Hostname)
		case f.Interface != nil:
			out.Interface = str(f.Interface)
		case f.Port != nil:
			out.Port = int(num(f.Port.Raw))
			if out.Port > 65535 {
				r.errorf(f.Port.Pos, "port %d is out of range (0-65535)", out.Port)
			}
		case f.Bandwidth != nil:
			out.Bandwidth = int(num(f.Bandwidth.Raw))
		case f.Filename != nil:
			out.Filename = str(f.Filename)
		}
	}
	return out
}

// ---- config ---------------------------------------------------------------

func (r *resolver) config(c *configparser.Config) *Config {
	cfg := &Config{Latency: 1, EyeBase: 0.05, Robustness: "ON"}
	r.cfg = cfg
	g := r.model.Global
	if v, ok := g["EQ_CONFIG_FATTR_EYE_BASE"]; ok {
		cfg.EyeBase, _ = strconv.ParseFloat(v, 64)
	}
	if v, ok := g["EQ_CONFIG_IATTR_ROBUSTNESS"]; ok {
		cfg.Robustness = v
	}
	var compounds []*configparser.Compound
	nodeCount := 0
	for _, f := range c.Fields {
		switch {
		case f.Name != nil:
			cfg.Name = str(f.Name)
		case f.Latency != nil:
			cfg.Latency = int(num(f.Latency.Raw))
		case f.Attributes != nil:
			for _, a := range f.Attributes.Fields {
				if a.EyeBase != nil {
					cfg.EyeBase = num(a.EyeBase.Raw)
				} else {
					cfg.Robustness = attrValue("robustness", iattr(a.Robustness))
				}
			}
		case f.Node != nil:
			nodeCount++
			cfg.Nodes = append(cfg.Nodes, r.node(f.Node))
		case f.Observer != nil:
			cfg.Observers = append(cfg.Observers, r.observer(f.Observer, cfg))
		case f.Layout != nil:
			cfg.Layouts = append(cfg.Layouts, r.layout(f.Layout, cfg))
		case f.Canvas != nil:
			cfg.Canvases = append(cfg.Canvases, r.canvas(f.Canvas, cfg))
		case f.Compound != nil:
			compounds = append(compounds, f.Compound)
		}
	}
	// Equalizer always has an application node.
	hasApp := false
	for _, n := range cfg.Nodes {
		hasApp = hasApp || n.App
	}
	if !hasApp {
		app := &Node{Name: "", App: true, Attributes: globalDefaults(g, "NODE")}
		cfg.Nodes = append([]*Node{app}, cfg.Nodes...)
	}
	// Version 1.2 moved the host name from the connection to the node;
	// Equalizer converts older files so, and at launch still takes a host
	// it lacks from its connections in any version (a 1.2 file that names
	// its hosts only in connections runs across them, not all here).
	for _, n := range cfg.Nodes {
		if n.Host == "" {
			for _, conn := range n.Connections {
				if conn.Hostname != "" {
					n.Host = conn.Hostname
					break
				}
			}
		}
	}
	r.destinationChannels(cfg)
	assignIdentities(cfg)
	for i, cc := range compounds {
		root := r.compound(cc, nil, cfg)
		root.Index = i
		cfg.Compounds = append(cfg.Compounds, root)
	}
	r.sameAsDestination(cfg)
	r.convert10(cfg)
	r.addOutputCompounds(cfg)
	for _, root := range cfg.Compounds {
		r.inherit(root)
	}
	r.frames(cfg)
	r.showOnOwnChannels(cfg)
	if r.opt.BlendRanges {
		blendRanges(cfg)
	}
	drawAside(cfg)
	r.shareDumps(cfg)
	cfg.CachePaths()
	r.checkShares(cfg)
	r.checkFramePorts(cfg)
	r.checkCompositing(cfg)
	r.checkSamples(cfg)
	r.checkDarkViews(cfg)
	r.checkDeadEnds(cfg)
	r.checkZoomedInterleaves(cfg)
	r.checkZoomedDestinations(cfg)
	r.checkFrameZooms(cfg)
	r.checkColourIntoDepth(cfg)
	r.checkAnaglyphMasks(cfg)
	r.checkMonitorInputs(cfg)
	r.checkTileCounts(cfg)
	if len(r.errs) == 0 {
		// a projection refused (a field of view of 180 degrees) leaves
		// a wall that an eye's check would warn of as well
		r.checkEyesOnWalls(cfg)
		r.checkCoverage(cfg) // it divides by what a bad file may have as 0
	}
	return cfg
}

// MaxSubpixel bounds a subpixel decomposition's samples: the assembly
// averages them in 16-bit sums (compositor.MaxAverage). Equalizer's
// configs use 2 to 16.
const MaxSubpixel = 256

// Tile queues: a tile or chunk is a task of its own, drawn, read back and
// sent alone, and the whole queue goes out with each frame's plan.
const (
	// maxChunks bounds a database chunk queue: each chunk draws the
	// whole view.
	maxChunks = 4096
	// manyTiles is where tiles a frame make the frame's time their
	// overhead: about 0.4 ms a tile on the 2-core test machine (the
	// corpus' 2-node.tile.eqc took 3.3 s a frame in 8160 tiles, and 40 s
	// in 518400). MaxTiles is where the queue would take the memory as
	// well: the planner makes larger tiles than that for a window resized
	// larger or tiles made smaller at run time.
	manyTiles = 8192
	MaxTiles  = 1 << 20
)

// checkTileCounts warns of a 2D tile queue that cuts its destination's
// pixels into so many tiles that their overhead is the frame, and refuses
// one whose tiles would not fit in memory (the channel's size as
// configured: a window resized larger makes more).
func (r *resolver) checkTileCounts(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		dest := c.Destination()
		if dest == nil || dest.Channel == nil || r.raw[c] == nil {
			return
		}
		for _, eq := range c.Equalizers {
			if eq.Kind != TileEqualizer || eq.ChunkDB > 0 || eq.TileSize[0] < 1 || eq.TileSize[1] < 1 {
				continue
			}
			share := destinationPixels(dest, c.Viewport)
			tiles := TileCount(share.W, share.H, eq.TileSize[0], eq.TileSize[1])
			msg := fmt.Sprintf("tile_equalizer %q cuts its %dx%d pixels of %q into %d tiles of [ %d %d ] a frame, each drawn, read back and sent on its own",
				eq.Name, share.W, share.H, dest.Channel.Label, tiles, eq.TileSize[0], eq.TileSize[1])
			switch {
			case tiles > MaxTiles:
				r.errorf(r.raw[c].pos, "%s: more than goeq takes (%d); give it larger tiles (Equalizer's default is [ 64 64 ])", msg, MaxTiles)
			case tiles > manyTiles:
				r.warnf(r.raw[c].pos, "%s: their overhead makes the frame's time; tiles of [ 64 64 ] (Equalizer's default) make %d", msg,
					TileCount(share.W, share.H, 64, 64))
			}
		}
	})
}

// TileCount is how many tiles of tw x th pixels cover w x h pixels.
func TileCount(w, h, tw, th int) int { return ((w + tw - 1) / tw) * ((h + th - 1) / th) }

// destinationPixels is the part vp (of dest's channel, as a compound under
// dest has it) in the pixels of dest's channel.
func destinationPixels(dest *Compound, vp Viewport) PixelViewport {
	return dest.Channel.PixelViewport.Apply(vp.RelativeTo(dest.Viewport))
}

// shareDumps marks the destination channels whose dump_image prefix
// another one that can show in the same frame has (SharedDump), and warns
// once a prefix: one file a frame would keep the last channel's picture
// alone, as Equalizer's did (a prefix set by EQ_CHANNEL_SATTR_DUMP_IMAGE
// reaches every channel). Views of two layouts of one canvas never show
// together, so the destination channels cut from one channel keep the
// prefix's plain names.
func (r *resolver) shareDumps(cfg *Config) {
	byPrefix := map[string][]*Channel{}
	var prefixes []string
	seen := map[*Channel]bool{}
	cfg.Walk(func(c *Compound) {
		if c.Channel == nil || c.Destination() != c || seen[c.Channel] {
			return
		}
		seen[c.Channel] = true
		if p := c.Channel.Attributes["dump_image"]; p != "" {
			if byPrefix[p] == nil {
				prefixes = append(prefixes, p)
			}
			byPrefix[p] = append(byPrefix[p], c.Channel)
		}
	})
	together := func(a, b *Channel) bool {
		return a.View == nil || b.View == nil || a.Segment == nil || b.Segment == nil ||
			a.Segment.Canvas != b.Segment.Canvas || a.View.Layout == b.View.Layout
	}
	for _, p := range prefixes {
		chs := byPrefix[p]
		shared := 0
		for i, a := range chs {
			for _, b := range chs[i+1:] {
				if together(a, b) {
					a.SharedDump, b.SharedDump = true, true
				}
			}
		}
		var first *Channel
		for _, ch := range chs {
			if ch.SharedDump {
				shared++
				first = cmp.Or(first, ch)
			}
		}
		if shared > 0 {
			pos := r.channelPos[first]
			if first.Source != nil {
				pos = r.channelPos[first.Source]
			}
			r.warnf(pos, "dump_image %q is the prefix of %d channels that each show in a frame with another: each writes %s<channel>-NNNNNN.png (one file a frame would keep only the last one's picture)", p, shared, p)
		}
	}
}

// monoHole names the decomposition ("pixel", "subpixel" or "zoom") that
// c is a part of where c has parts for the stereo eyes alone and its
// destination shows a mono view that the rest of its tree draws: c's
// pixels stay empty (the planner fills such parts of a 2D or DB split
// only, where the compound holding its parent's picture can draw them in
// place, and a part that holds a picture of its own draws it whole:
// Compound.HoldsPicture). A part may be one
// of its parent's region, samples or phases (a time multiplex's phase
// leaves them empty in its frames). It is "" where c is no such part, or
// the topmost one is above it; a load-balanced split gives such a part
// no share. phase says that c is a phase.
func monoHole(c *Compound) (kind string, phase bool) {
	dest := c.Destination()
	if !c.PartOfHeldPicture() || dest.DestinationEyes()&EyeCyclop == 0 {
		return "", false
	}
	phase = c.Period != c.Parent.Period || c.Phase != c.Parent.Phase
	if !c.Local.splits() && !phase || c.DrawsFor(EyeCyclop) || eyesDrawn(c) == 0 || !c.Parent.DrawsFor(EyeCyclop) {
		return "", false // an eye's part of its parent's region, or one that draws
	}
	for _, eq := range c.Parent.Equalizers {
		if eq.Kind.Splits() {
			return "", false
		}
	}
	if kind = c.resampledPart(); kind == "" {
		return "", false
	}
	return kind, phase
}

// unreachedPart names the decomposition ("pixel", "subpixel" or "zoom")
// that c is a part of where c has draws but none for an eye that reaches
// it (eye [ LEFT ] compounds under an eye [ CYCLOP ] one): its pixels
// stay empty. It is "" otherwise, or where a part above it is such a part.
func unreachedPart(c *Compound) string {
	if !c.PartOfHeldPicture() || !c.Local.splits() {
		return ""
	}
	if !c.HasDraws() || !c.Parent.drawsAnEye() || c.drawsAnEye() {
		return ""
	}
	return c.resampledPart()
}

// resampledPart names the decomposition ("pixel", "subpixel" or "zoom")
// whose part c's own values make it, where its destination cannot draw
// the part in place; "" for none. A DFR equalizer above it zooms it in
// the frames it chooses to.
func (c *Compound) resampledPart() string {
	switch {
	case c.Pixel.W > 1 || c.Pixel.H > 1:
		return "pixel"
	case c.Subpixel.Size > 1:
		return "subpixel"
	case c.Zoom.Scales() || zoomedByDFR(c):
		return "zoom"
	}
	return ""
}

// drawsAnEye reports whether c draws for some eye that reaches it.
func (c *Compound) drawsAnEye() bool {
	return slices.ContainsFunc(Eyes[:], c.DrawsFor)
}

// splits reports whether a compound's own values make it a part of its
// parent's region or samples (not all of it, as an eye's part is).
func (l Local) splits() bool {
	return l.Viewport != FullViewport || l.Range != FullRange || l.Pixel.W > 1 || l.Pixel.H > 1 || l.Subpixel.Size > 1 ||
		l.Zoom.Scales()
}

// eyesDrawn are the stereo eyes c's tree draws.
func eyesDrawn(c *Compound) int {
	eyes := 0
	for _, e := range []int{EyeLeft, EyeRight} {
		if c.DrawsFor(e) {
			eyes |= e
		}
	}
	return eyes
}

// checkZoomedInterleaves warns where a compound assembles the parts of a
// pixel decomposition at a zoom, its own or one a DFR equalizer above it
// chooses, and cannot place their samples on its zoomed pixels: it is a
// part of a pixel or subpixel decomposition itself, or the parts' kernel
// lies under another zoom or a 2D split below it (PixelGrid). Its
// picture comes out wrong (a limit of goeq: zoomed random assembling
// trees found it). A zoomed assembly of a pixel decomposition below it
// places them (render.Sub's GridZoom), and zooming the parts works.
func (r *resolver) checkZoomedInterleaves(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		zoomed := c.Zoom.Scales()
		if c.Channel == nil || !zoomed && !zoomedByDFR(c) || drawsTiles(c) || c.Tasks&TaskAssemble == 0 {
			return
		}
		zoom := fmt.Sprintf("a zoom of [ %g %g ]", c.Zoom.X, c.Zoom.Y)
		if !zoomed {
			zoom = "the zoom a DFR equalizer chooses"
		}
		for _, f := range c.InputFrames {
			for _, p := range f.Producers {
				if p.Pixel.W <= 1 && p.Pixel.H <= 1 {
					continue
				}
				if g := PixelGrid(p, c); c.Interleaves() || g == nil || g.Zoom != c.Zoom {
					r.warnf(r.raw[c].pos, "this compound assembles the parts of a pixel decomposition at %s, but is a part of a pixel or subpixel decomposition itself, or their kernel lies under another zoom or a 2D split below it: goeq places their samples as if it were not zoomed, so its picture comes out wrong; zoom the assembly alone above the pixel compound, or the parts", zoom)
					return
				}
			}
		}
	})
}

// checkZoomedDestinations warns where a destination compound is zoomed,
// by a zoom of its own (or above it) or by a DFR equalizer: it draws its
// picture scaled from its channel's corner, and nothing scales it back
// (as in Equalizer). The zoom belongs on a compound below it that sends
// its frame up, as Equalizer's DFR examples have it.
func (r *resolver) checkZoomedDestinations(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		if c.Channel == nil || c.Destination() != c || r.raw[c] == nil || zoomIgnored(c) {
			return
		}
		zoom := ""
		switch {
		case c.Zoom.Scales():
			zoom = fmt.Sprintf("zoom [ %g %g ]", c.Zoom.X, c.Zoom.Y)
		case zoomedByDFR(c):
			zoom = "the zoom its DFR equalizer chooses"
		default:
			return
		}
		r.warnf(r.raw[c].pos, "this destination compound draws its picture scaled by %s, from its channel's corner, and nothing scales it back (as in Equalizer); zoom a compound below it that sends its frame up instead, as Equalizer's DFR examples do", zoom)
	})
}

// checkFrameZooms warns of output and input frame zooms with an effect a
// user may not expect: a frame that lands scaled rather than at its share
// (its zooms do not cancel out: Equalizer scales it so, from the corner of
// the consumer's channel; or an output frame's zoom under a DFR equalizer
// takes the place of the one that undoes the DFR's), and zooms that goeq
// ignores: on the frames of
// a pixel or subpixel decomposition or a tile queue (they land sample by
// sample, or tile by tile, at their share) and on a monitor's (it places
// and scales them itself).
func (r *resolver) checkFrameZooms(cfg *Config) {
	type once struct {
		f   *Frame
		why string
	}
	warned := map[once]bool{}
	warn := func(f *Frame, format string, args ...any) {
		if !warned[once{f, format}] {
			warned[once{f, format}] = true
			r.warnf(f.ZoomPos, format, args...)
		}
	}
	tiled := func(c *Compound) bool {
		return c.Parent != nil && slices.ContainsFunc(c.Parent.Equalizers, func(eq *Equalizer) bool { return eq.Kind == TileEqualizer })
	}
	cfg.Walk(func(c *Compound) {
		for _, in := range c.InputFrames {
			for _, p := range in.Producers {
				out := p.OutputFrame(in.Name)
				if out == nil || !out.Zoom.Scales() && !in.Zoom.Scales() {
					continue
				}
				zoomed := out
				if !out.Zoom.Scales() {
					zoomed = in
				}
				switch {
				case p.Interleaves() || c.Interleaves() || tiled(p):
					warn(zoomed, "frame zoom on the frames of a pixel or subpixel decomposition or of a tile queue has no effect: they land at their share")
				case slices.ContainsFunc(c.Equalizers, func(eq *Equalizer) bool { return eq.Kind == MonitorEqualizer }):
					// an output frame's zoom below 1 still reads it smaller
					if in.Zoom.Scales() {
						zoomed = in
					}
					if in.Zoom.Scales() || out.Zoom.X > 1 || out.Zoom.Y > 1 {
						warn(zoomed, "frame zoom on a monitor's frame has no effect but to read it back smaller (an output frame's zoom below 1): the monitor equalizer places and scales it")
					}
				case out.Zoom.Scales() && zoomedByDFR(p) && !zoomedByDFR(c):
					warn(out, "frame %q has a zoom of its own from under a DFR equalizer: it takes the place of the one that undoes the DFR's zoom, so the frame lands scaled by the zoom the DFR chooses, from the corner of its consumer's channel (as in Equalizer); leave the output frame's zoom unset", out.Name)
				default:
					if s := LandingScale(out, in, p.Zoom, c.Zoom); s != (Zoom{1, 1}) {
						warn(zoomed, "frame %q lands scaled by [ %g %g ] from the corner of its consumer's channel, its output frame's zoom times its input frame's (as in Equalizer); zooms that cancel out, as [ 0.5 0.5 ] on the output frame and [ 2 2 ] on the input frame, send it at a lower resolution and show it at its place", in.Name, s.X, s.Y)
					}
				}
			}
		}
	})
}

// checkColourIntoDepth warns of a frame of colour alone that a compound
// assembles into a picture it sends on with depth: where the frame lands,
// the depth stays as the clear left it, the farthest, so the depth merge
// further up drops its pixels (as in Equalizer; a random tree with such a
// frame found it).
func (r *resolver) checkColourIntoDepth(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		i := slices.IndexFunc(c.OutputFrames, func(f *Frame) bool { return f.Buffers&BufferDepth != 0 && f.Pos.Line > 0 })
		if i < 0 {
			return
		}
		sent := c.OutputFrames[i]
		warned := map[*Frame]bool{}
		for _, in := range c.InputFrames {
			for _, p := range in.Producers {
				out := p.OutputFrame(in.Name)
				if out == nil || out.Buffers&BufferDepth != 0 || out.Buffers == 0 || out.Pos.Line == 0 || warned[out] {
					continue
				}
				warned[out] = true
				r.warnf(out.Pos, "frame %q carries colour alone, but the compound that assembles it sends its picture on with depth (frame %q): where this frame lands that depth is the clear's, the farthest, so the depth merge further up drops its pixels (as in Equalizer); give it DEPTH too, or send %q without", out.Name, sent.Name, sent.Name)
			}
		}
	})
}

// checkAnaglyphMasks warns where a compound's own stereo attributes make
// it write fewer colours of an eye than its destination shows of that
// eye: as in Equalizer, each compound's draws and assemblies write the
// colours its own masks name, so the frames it sends carry only those,
// and the destination shows the others as its channel held them before
// (the background).
func (r *resolver) checkAnaglyphMasks(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		d, dest := r.raw[c], c.Destination()
		if d == nil || d.stereoPos.Line == 0 || dest == nil || dest == c || dest.DestinationEyes()&(EyeLeft|EyeRight) != EyeLeft|EyeRight {
			return
		}
		var lost []string
		for _, eye := range []int{EyeLeft, EyeRight} {
			if c.Eyes&eye == 0 {
				continue
			}
			want, got := anaglyphColours(dest, eye), anaglyphColours(c, eye)
			var missing []string
			for _, colour := range want {
				if !slices.Contains(got, colour) {
					missing = append(missing, colour)
				}
			}
			if len(missing) > 0 {
				lost = append(lost, fmt.Sprintf("the %s eye without %s", strings.ToLower(bitNames(eye, eyeNames)[0]), strings.Join(missing, " ")))
			}
		}
		if len(lost) > 0 {
			r.warnf(d.stereoPos, "these stereo attributes make this compound write %s, which destination %q shows of it: as in Equalizer, a compound's draws and assemblies write only its own masks' colours, and the destination shows the others as they were before (the background); set the masks on the destination compound", strings.Join(lost, " and "), dest.Channel.Name)
		}
	})
}

// checkMonitorInputs warns where a monitor takes no frame, or one from a
// part of the canvas it does not show: the frame lands at its place on
// the canvas, beside the monitor's channel, and is not seen there.
func (r *resolver) checkMonitorInputs(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		dest := c.Destination()
		if dest == nil || !slices.ContainsFunc(c.Equalizers, func(e *Equalizer) bool { return e.Kind == MonitorEqualizer }) {
			return
		}
		if len(c.InputFrames) == 0 && !c.HasDraws() {
			r.warnf(r.raw[c].pos, "this monitor takes no input frame and draws nothing: its channel shows the background alone; give it the output frames of the destinations it shows")
			return
		}
		shows := dest.Channel.CanvasArea()
		for _, in := range c.InputFrames {
			for _, prod := range in.Producers {
				src := prod.Destination()
				if src == nil || src == dest || src.Channel.CanvasArea().Intersect(shows).HasArea() {
					continue
				}
				r.warnf(in.Pos, "input frame %q comes from a part of the canvas this monitor does not show (%s): the monitor places each frame where it is on the canvas, so this one lands outside its channel; give this monitor the frames of its own view", in.Name, canvasPart(src.Channel))
				break
			}
		}
	})
}

// canvasPart names the part of its canvas a channel shows, for messages.
func canvasPart(ch *Channel) string {
	a := ch.CanvasArea()
	return fmt.Sprintf("viewport [ %g %g %g %g ]", a.X, a.Y, a.W, a.H)
}

// anaglyphColours are the colours c's tasks for eye write.
func anaglyphColours(c *Compound, eye int) []string {
	if words := strings.Fields(strings.Trim(c.AnaglyphMask(eye), "[] ")); len(words) > 0 {
		return words
	}
	return []string{"RED", "GREEN", "BLUE"}
}

// checkDarkViews warns of a view that no segment shows in the view's mode:
// each segment it falls on shows only eyes the mode has not. One segment
// dark in one mode is how passive stereo is set up (a projector per eye,
// a monitor for the cyclop eye); a whole view dark is a mistake.
func (r *resolver) checkDarkViews(cfg *Config) {
	lit := map[*View]bool{}
	var dark []*Compound // the first destination of each dark view, in the config's order
	cfg.Walk(func(c *Compound) {
		ch := c.Channel
		if ch == nil || ch.View == nil || ch.Segment == nil || c.Destination() != c {
			return
		}
		_, seen := lit[ch.View]
		if c.DestinationEyes() != 0 {
			lit[ch.View] = true
		} else if !seen {
			lit[ch.View] = false
			dark = append(dark, c)
		}
	})
	for _, c := range dark {
		if lit[c.Channel.View] || r.eyeListOf(c) != nil { // an eye list gets its own warning
			continue
		}
		seg, v := c.Channel.Segment, c.Channel.View
		r.warnf(r.segmentPos[seg], "this segment shows eye [ %s ] alone, which the %s view %s of %s has not, and no other segment shows that view: it shows nowhere until its mode changes (an application's Config.SetViewMode), as in Equalizer",
			strings.Join(bitNames(seg.Eyes, eyeNames), " "), v.ModeName(), v.label(), r.cfg.LayoutLabel(v.Layout))
	}
}

// checkDeadEnds warns where a compound's own eye or task list keeps what
// it would draw or pass on from ever reaching a destination: the run
// goes on, with those pixels missing, as the file says.
func (r *resolver) checkDeadEnds(cfg *Config) {
	shown := map[*Channel]int{} // the eyes some destination compound draws on a view's channel
	cfg.Walk(func(c *Compound) {
		if c.Channel != nil && c.Destination() == c {
			shown[c.Channel] |= c.Eyes & c.DestinationEyes()
		}
	})
	for _, root := range cfg.Compounds {
		root.Walk(func(c *Compound) {
			d := r.raw[c]
			if d.eyes == 0 {
				r.warnf(d.eyePos, "eye [ ]: this compound renders no eye, so neither it nor its children draw anything")
			} else if from := r.eyeListOf(c); from != nil && r.raw[from].eyes > 0 && c.Channel != nil && c.Channel.View != nil && c.Destination() == c && shown[c.Channel] == 0 {
				// another compound for the view's other mode is fine
				// (a 2D compound for the cyclop eye beside the stereo ones)
				_, view := channelLabel(c.Channel)
				mode := c.Channel.View.ModeName()
				which, renders := "this destination", "this compound"
				if from != c {
					// the eye list of a group of destinations above it
					which, renders = fmt.Sprintf("the destination at line %d, which takes them,", r.raw[c].pos.Line), "it"
				}
				shows := fmt.Sprintf("it shows eye [ %s ], which %s does not render", strings.Join(bitNames(c.DestinationEyes(), eyeNames), " "), renders)
				if c.DestinationEyes() == 0 {
					shows = fmt.Sprintf("its segment shows eye [ %s ] alone, which a %s view has not", strings.Join(bitNames(c.Channel.Segment.Eyes, eyeNames), " "), mode)
				}
				r.warnf(r.raw[from].eyePos, "eye [ %s ]: the view %s shows (%s) is %s: %s, so it draws nothing until the view's mode changes (an application's Config.SetViewMode)",
					strings.Join(bitNames(c.Eyes, eyeNames), " "), which, view, mode, shows)
			}
			if d.eyes > 0 && c.Parent != nil && c.Parent.Destination() == c.Destination() && c.Eyes&c.Parent.Eyes == 0 {
				r.warnf(d.eyePos, "eye [ %s ]: its parent renders eye [ %s ] alone, so this compound never draws (an eye reaches a compound only through compounds that render it, as in Equalizer)",
					strings.Join(bitNames(c.Eyes, eyeNames), " "), strings.Join(bitNames(c.Parent.Eyes, eyeNames), " "))
			}
			if kind := unreachedPart(c); kind != "" {
				r.warnf(r.raw[c].pos, "this part of a %s decomposition draws only eyes that its ancestors leave out: its pixels stay empty in every frame (a destination draws such parts of a 2D or DB split itself)", kind)
			}
			if kind, phase := monoHole(c); kind != "" {
				frames := ""
				if phase {
					frames = " in the frames of its phase"
				}
				r.warnf(r.raw[c].pos, "this part of a %s decomposition draws eye [ %s ] alone, and the view it shows is MONO: while it is, its pixels stay empty%s, as in Equalizer (a destination draws such parts of a 2D or DB split itself, and the whole view where no part draws the cyclop eye)",
					kind, strings.Join(bitNames(eyesDrawn(c), eyeNames), " "), frames)
			}
			if dest := c.Destination(); c.IsLeaf() && c.Tasks&TaskDraw != 0 && dest != nil {
				pos := d.channelPos
				if pos.Line == 0 {
					pos = d.pos
				}
				switch {
				case c.Channel == dest.Channel || drawsInPlace(c.Channel, dest.Channel): // the destination's own pixels: no frame needed, but where one paints over them
					if lost := overpainted(c); lost > coverageEps {
						r.warnf(pos, "channel %q draws here on destination %q's own pixels, but colour-only input frames assembled there paint over %.3g%% of what it draws, and no output frame takes that part to be composited into them: it is missing from %q's images (direct send sends each stripe of a draw to the channel that composites it)",
							c.Channel.Name, dest.Channel.Name, 100*lost, dest.Channel.Name)
					}
				case !sendsOn(c, dest.Channel):
					r.warnf(pos, "channel %q draws here for destination %q, but no output frame carries its pixels there: they show on %q's own pixels alone (as Equalizer configs before canvases drove a second display), and that part is missing from %q's images", c.Channel.Name, dest.Channel.Name, c.Channel.Name, dest.Channel.Name)
				default:
					if left := unsent(c); left > coverageEps {
						r.warnf(pos, "channel %q draws here for destination %q, but the output frames read back on it carry %.3g%% of what it draws: the rest is missing from %q's images (an output frame's viewport is a part of its compound's)",
							c.Channel.Name, dest.Channel.Name, 100*(1-left), dest.Channel.Name)
					} else if ok, end := reaches(c.Channel, dest.Channel, dest); !ok && end != nil {
						// (frames no compound assembles are warned of as such)
						r.warnf(pos, "channel %q draws here for destination %q, but its frames end on channel %q, which sends none on: what it draws shows there alone, and that part is missing from %q's images",
							c.Channel.Name, dest.Channel.Name, end.Name, dest.Channel.Name)
					}
				}
			}
			for _, in := range c.InputFrames {
				if drawn, renders := eyesNotBrought(c, in); drawn != 0 {
					r.warnf(in.Pos, "input frame %q: this compound renders eye [ %s ] of those %q shows, and its producers draw eye [ %s ] for it: nothing comes to assemble here (is the frame named in the wrong eye's compound?)",
						in.Name, strings.Join(bitNames(renders, eyeNames), " "), c.Destination().Channel.Name, strings.Join(bitNames(drawn, eyeNames), " "))
				}
			}
			for _, f := range c.OutputFrames {
				if lost, took := eyesNotAssembled(c, f); lost != 0 {
					r.warnf(f.Pos, "output frame %q: its compound draws eye [ %s ] for it, which %q shows, but the compounds that assemble it render eye [ %s ]: what it draws for that eye shows nowhere",
						f.Name, strings.Join(bitNames(lost, eyeNames), " "), c.Destination().Channel.Name, strings.Join(bitNames(took, eyeNames), " "))
				}
				if len(f.Consumers) == 0 || f.Consumers[0].Channel == nil {
					continue
				}
				if part := overreach(c, f); part > coverageEps {
					r.warnf(f.Pos, "output frame %q: %.3g%% of what it carries lies where its compound composited nothing and channel %q holds part of range [ %g %g ] alone, beside a part that holds all of it; colour without depth, it paints that part over %q's pixels (an output frame's viewport is the part its compound composited)",
						f.Name, 100*part, c.Channel.Name, c.Range.Start, c.Range.End, f.Consumers[0].Channel.Name)
				} else if part, missing := unbrought(c, f); part > coverageEps {
					r.warnf(f.Pos, "output frame %q: %.3g%% of what it carries lacks range [ %.4g %.4g ] of the data: channel %q does not draw it, and no input frame assembled there brings it; colour without depth, the frame paints over %q's pixels without it (is an input frame named in the wrong compound?)",
						f.Name, 100*part, missing.Start, missing.End, c.Channel.Name, f.Consumers[0].Channel.Name)
				}
			}
			if deep, flats, part := depthUnderColour(c); part > coverageEps {
				names := fmt.Sprintf("colour-only frame %q", flats[0].Name)
				if len(flats) > 1 {
					names = fmt.Sprintf("colour-only frames %q and %d more", flats[0].Name, len(flats)-1)
				}
				r.warnf(deep.Pos, "output frame %q: %.3g%% of what it carries lands where %q assembles %s too; a depth merge cannot see what a colour-only frame painted, so whichever comes last shows there (an output frame's viewport is the part its compound composited)",
					deep.Name, 100*part, c.Channel.Name, names)
			}
			if d.tasks < 0 {
				return
			}
			if len(c.OutputFrames) > 0 && d.tasks&TaskReadback == 0 {
				r.warnf(d.taskPos, "task without READBACK: output frame %q is never read back, so what this compound draws does not reach its input frames", c.OutputFrames[0].Name)
			}
			if len(c.InputFrames) > 0 && d.tasks&TaskAssemble == 0 {
				r.warnf(d.taskPos, "task without ASSEMBLE: input frame %q is never assembled, so what its sources draw does not show here", c.InputFrames[0].Name)
			}
			if c.Channel != nil && c.Destination() == c && d.tasks&TaskClear == 0 && d.tasks&TaskDraw != 0 {
				r.warnf(d.taskPos, "task without CLEAR on a destination that draws: nothing clears its pixels, so each frame draws over the last unless the application's Draw clears (generated configs, such as omegalib's, leave the clear to their application)")
			}
		})
	}
}

// sendsOn reports whether c's pixels reach channel to: c draws on to's
// pixels of its window, or an output frame of c or of a compound above it
// on c's channel reads them back.
func sendsOn(c *Compound, to *Channel) bool {
	ch := c.Channel
	if drawsInPlace(ch, to) {
		return true
	}
	for x := c; x != nil && x.Channel == ch; x = x.Parent {
		if len(x.OutputFrames) > 0 || len(x.OutputTiles) > 0 {
			return true
		}
	}
	return false
}

// reaches reports whether what channel ch holds in the destination tree
// under root reaches channel to's pixels: there, or through the output
// frames of a compound on ch in the tree, assembled by compounds whose
// channels it reaches in turn, each in its own destination's tree (a tile
// queue is taken to). Any compound on a channel counts, which finds every
// path and may find one the frames' viewports do not take (unsent warns
// of those). Otherwise end is a channel the frames reach that sends none
// on, if there is one (nil where the frames reach no compound, or only
// channels that send them on elsewhere).
func reaches(ch, to *Channel, root *Compound) (ok bool, end *Channel) {
	seen := map[*Channel]bool{}
	var from func(ch *Channel, root *Compound) bool
	from = func(ch *Channel, root *Compound) bool {
		if ch == to || drawsInPlace(ch, to) {
			return true
		}
		if seen[ch] {
			return false
		}
		seen[ch] = true
		sends, found := false, false
		root.Walk(func(x *Compound) {
			if found || x.Channel != ch {
				return
			}
			if len(x.OutputTiles) > 0 {
				found = true
				return
			}
			for _, f := range x.OutputFrames {
				sends = true
				for _, k := range f.Consumers {
					if !found && k.Channel != nil && from(k.Channel, k.Destination()) {
						found = true
					}
				}
			}
		})
		if !sends && end == nil {
			end = ch
		}
		return found
	}
	ok = from(ch, root)
	return ok, end
}

// drawsInPlace reports whether channel ch draws on to's pixels of its
// window, where to shows them without a frame.
func drawsInPlace(ch, to *Channel) bool {
	return ch.Window == to.Window && ch.PixelViewport == to.PixelViewport && !ch.OwnFramebuffer()
}

// unsent is the part of what c draws, on a channel of its own, that no
// output frame read back on that channel takes: any frame of the
// compounds on that channel around c (its ancestors on it, and their
// other compounds on it, which read back what c left, as binary swap's
// do), each a part of its compound's viewport. 0 where tiles go out in a
// queue.
func unsent(c *Compound) float64 {
	_, parts, tiles := sentParts(c)
	if tiles || len(parts) == 0 {
		return 0 // none at all: warned about as such
	}
	left := 0.0
	forEachCell(parts, func(area float64, over []int) {
		if len(over) == 0 {
			left += area
		}
	})
	return left
}

// topOnChannel is the topmost of c and its ancestors on c's channel: the
// compounds on the channel under it all leave their pixels there before
// it reads back.
func topOnChannel(c *Compound) *Compound {
	top := c
	for top.Parent != nil && top.Parent.Channel == c.Channel {
		top = top.Parent
	}
	return top
}

// sentParts are the parts of what c draws that output frames read back on
// its channel take (relative to c's viewport): any frame of the compounds
// on that channel around c, below top, the topmost of c's ancestors on
// it. tiles says that tiles go out in a queue there.
func sentParts(c *Compound) (top *Compound, parts []Viewport, tiles bool) {
	top = topOnChannel(c)
	top.Walk(func(x *Compound) {
		if x.Channel != c.Channel {
			return
		}
		tiles = tiles || len(x.OutputTiles) > 0
		for _, f := range x.OutputFrames {
			parts = append(parts, x.Viewport.Apply(f.Viewport).RelativeTo(c.Viewport))
		}
	})
	return top, parts, tiles
}

// overpainted is the part of what c draws in place, on its destination's
// own pixels, that colour-only input frames assembled there paint over
// (direct send's stripes come back composited so) where no output frame
// read back on c's channel takes it to be composited: c's range is lost
// there. Only frames of producers that composite c's range without
// drawing it count: one that draws it paints the same data (a 2D tile over
// the destination's whole draw), one whose range leaves it out is blended
// over c's pixels (volume slabs), one of another eye or of a pixel,
// subpixel or zoom part fills pixels of its own, and an equalizer's split
// is not known before the run.
func overpainted(c *Compound) float64 {
	top, sent, tiles := sentParts(c)
	if tiles || c.resampledPart() != "" {
		return 0
	}
	for x := c; x != nil; x = x.Parent {
		if len(x.Equalizers) > 0 {
			return 0
		}
	}
	var painted []Viewport
	top.Walk(func(x *Compound) {
		if x.Channel != c.Channel {
			return
		}
		for _, in := range x.InputFrames {
			for _, p := range in.Producers {
				if p.Channel == c.Channel || p.Eyes != c.Eyes || p.resampledPart() != "" || !p.Range.covers(c.Range) || drawsRange(p, c.Range) {
					continue
				}
				for _, f := range p.OutputFrames {
					// (a frame that carries more than its compound
					// composited is warned of as such)
					if f.Name == in.Name && f.Buffers&in.Buffers&BufferDepth == 0 && overreach(p, f) <= coverageEps {
						painted = append(painted, p.Viewport.Apply(f.Viewport).RelativeTo(c.Viewport))
					}
				}
			}
		}
	})
	lost := 0.0
	forEachCell(append(sent, painted...), func(area float64, over []int) {
		if len(over) > 0 && over[0] >= len(sent) { // painted over, and taken by no frame
			lost += area
		}
	})
	return lost
}

// holding is what lies on a channel where a colour-only output frame is
// read back: draws and input frames, each over its part of the frame's
// area with the range of the data it brings.
type holding struct {
	parts  []Viewport
	ranges []Range
	how    []heldBy
	// cTakesIn says the frame's compound assembles an input itself
	cTakesIn bool
}

// heldBy is how something came to lie on a frame's channel.
type heldBy uint8

const (
	heldDraw     heldBy = iota // drawn there
	heldInput                  // an input frame a compound below the frame's assembles
	heldInputOfC               // an input frame the frame's own compound assembles
)

// holdings collects what lies on c's channel under colour-only output
// frame f: every compound on the channel under its topmost compound on
// it counts, draws with their ranges, and input frames with their
// producers'. ok is false where equalizers, resampling, tiles or time
// multiplexes make the ranges a frame's own.
func holdings(c *Compound, f *Frame) (h holding, ok bool) {
	if c.Channel == nil || f.Buffers&BufferDepth != 0 || f.Zoom.Scales() || c.DrawsAside {
		return h, false
	}
	top := topOnChannel(c)
	for x := top; x != nil; x = x.Parent {
		if len(x.Equalizers) > 0 || x.resampledPart() != "" {
			return h, false
		}
	}
	area := c.Viewport.Apply(f.Viewport)
	if !area.HasArea() {
		return h, false
	}
	plain := true
	add := func(v Viewport, r Range, how heldBy) {
		h.parts, h.ranges, h.how = append(h.parts, v.RelativeTo(area)), append(h.ranges, r), append(h.how, how)
	}
	top.Walk(func(x *Compound) {
		if x.Channel != c.Channel || x.Eyes&c.Eyes == 0 {
			return
		}
		plain = plain && len(x.Equalizers) == 0 && x.resampledPart() == "" && x.Period <= 1 && len(x.InputTiles) == 0 && len(x.OutputTiles) == 0
		if x.Tasks&TaskDraw != 0 && x.IsLeaf() {
			add(x.Viewport, x.Range, heldDraw)
		}
		for _, in := range x.InputFrames {
			for _, p := range in.Producers {
				plain = plain && p.resampledPart() == "" && p.Period <= 1
				for _, out := range p.OutputFrames {
					if out.Name == in.Name && p.Eyes&c.Eyes != 0 {
						how := heldInput
						if x == c {
							how, h.cTakesIn = heldInputOfC, true
						}
						add(p.Viewport.Apply(out.Viewport), p.Range, how)
					}
				}
			}
		}
	})
	return h, plain
}

// gaps are the parts of whole that rs leave out.
func gaps(whole Range, rs []Range) []Range {
	ends := []float64{whole.Start, whole.End}
	for _, r := range rs {
		ends = append(ends, max(whole.Start, min(whole.End, r.Start)), max(whole.Start, min(whole.End, r.End)))
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	var out []Range
	for i := 0; i+1 < len(ends); i++ {
		mid := (ends[i] + ends[i+1]) / 2
		if !slices.ContainsFunc(rs, func(r Range) bool { return mid > r.Start && mid < r.End }) && ends[i+1]-ends[i] > coverageEps {
			if n := len(out); n > 0 && out[n-1].End == ends[i] {
				out[n-1].End = ends[i+1]
			} else {
				out = append(out, Range{ends[i], ends[i+1]})
			}
		}
	}
	return out
}

// overreach is the part of colour-only output frame f of compound c where
// its channel holds only part of c's range and c composited nothing (no
// input frame c assembles lies there, or where c assembles none, no input
// frame at all), while another part of f holds all of the range: f
// carries pixels beyond those c composited, and without depth they paint
// over the whole data at the consumer.
func overreach(c *Compound, f *Frame) float64 {
	h, ok := holdings(c, f)
	if !ok {
		return 0
	}
	whole, beyond := false, 0.0
	forEachCell(h.parts, func(cell float64, over []int) {
		held, composited := make([]Range, 0, len(over)), false
		for _, k := range over {
			held = append(held, h.ranges[k])
			composited = composited || h.how[k] == heldInputOfC || !h.cTakesIn && h.how[k] == heldInput
		}
		switch {
		case len(gaps(c.Range, held)) == 0:
			whole = true
		case len(over) > 0 && !composited:
			beyond += cell
		}
	})
	if !whole {
		return 0
	}
	return beyond
}

// unbrought is the part of colour-only output frame f of compound c that
// lacks a part of c's range, missing, that nothing on its channel draws
// and no input frame assembled there brings into f's area: an input frame
// named in the wrong compound (4-node.DB.ds with two stripes' names
// swapped) leaves its stripe without that data. A range some input brings
// into part of the area is a frame cut short, which unsent warns of at
// its source.
func unbrought(c *Compound, f *Frame) (part float64, missing Range) {
	h, ok := holdings(c, f)
	if !ok || len(h.parts) == 0 {
		return 0, Range{}
	}
	brought := func(g Range) bool {
		for k, r := range h.ranges {
			if h.how[k] != heldDraw && r.Start < g.End && r.End > g.Start && h.parts[k].Intersect(FullViewport).HasArea() {
				return true
			}
		}
		return false
	}
	forEachCell(h.parts, func(cell float64, over []int) {
		if len(over) == 0 {
			return
		}
		held := make([]Range, 0, len(over))
		for _, k := range over {
			held = append(held, h.ranges[k])
		}
		for _, g := range gaps(c.Range, held) {
			if !brought(g) {
				if part == 0 {
					missing = g
				}
				part += cell
				break
			}
		}
	})
	return part, missing
}

// eyesNotAssembled are the eyes the destination of c shows that c draws
// for output frame f and that no compound assembling f renders, and took
// the eyes those do render. 0 where f has no consumer (warned of as such).
func eyesNotAssembled(c *Compound, f *Frame) (lost, took int) {
	dest := c.Destination()
	if len(f.Consumers) == 0 || dest == nil || dest.Channel == nil {
		return 0, 0
	}
	for _, eye := range Eyes {
		if dest.DestinationEyes()&eye == 0 || !c.DrawsFor(eye) {
			continue
		}
		assembled := false
		for _, k := range f.Consumers {
			if k.rendersEye(eye) {
				assembled = true
			}
		}
		if !assembled {
			lost |= eye
		}
	}
	for _, k := range f.Consumers {
		took |= k.Eyes
	}
	return lost, took
}

// eyesNotBrought reports, for input frame in of compound c, the eyes the
// destination shows that in's producers draw for it, drawn, and those c
// renders, renders, where they share none: nothing comes for c to
// assemble (7-window.EYE.PIXEL with two frames' names swapped between
// the eyes' compounds). Both are 0 where the producers draw no eye shown
// (a part's eyes are warned of as such).
func eyesNotBrought(c *Compound, in *Frame) (drawn, renders int) {
	dest := c.Destination()
	if dest == nil || dest.Channel == nil {
		return 0, 0
	}
	for _, eye := range Eyes {
		if dest.DestinationEyes()&eye == 0 {
			continue
		}
		if slices.ContainsFunc(in.Producers, func(p *Compound) bool { return p.DrawsFor(eye) }) {
			drawn |= eye
		}
		if c.rendersEye(eye) {
			renders |= eye
		}
	}
	if drawn == 0 || drawn&renders != 0 {
		return 0, 0
	}
	for _, p := range in.Producers {
		for _, out := range p.OutputFrames {
			if lost, _ := eyesNotAssembled(p, out); out.Name == in.Name && lost != 0 {
				return 0, 0 // no compound assembles it for those eyes: warned of at the output frame
			}
		}
	}
	return drawn, renders
}

// depthUnderColour finds an output frame with depth, deep, that compound c
// assembles over pixels where it assembles colour-only frames, flats, too,
// and the part of deep's pixels they cover where c's own draws and the
// frames with depth do not hold c's whole range: one merged by depth and
// the others painted, the picture there depends on which comes last.
// Frames of equalized, resampled or time-multiplexed parts are left out.
func depthUnderColour(c *Compound) (deep *Frame, flats []*Frame, part float64) {
	if c.Channel == nil {
		return nil, nil, 0
	}
	for x := c; x != nil; x = x.Parent {
		if len(x.Equalizers) > 0 {
			return nil, nil, 0
		}
	}
	type landing struct {
		out   *Frame
		area  Viewport
		shows []Range
	}
	var deeps, colours, own []landing
	c.Walk(func(x *Compound) {
		if x.Channel == c.Channel && x.IsLeaf() && x.Tasks&TaskDraw != 0 && x.Eyes&c.Eyes != 0 {
			own = append(own, landing{nil, x.Viewport, []Range{x.Range}})
		}
	})
	for _, in := range c.InputFrames {
		for _, p := range in.Producers {
			if p.resampledPart() != "" || p.Period > 1 || len(p.Equalizers) > 0 || p.Eyes&c.Eyes == 0 {
				continue
			}
			for _, out := range p.OutputFrames {
				if out.Name != in.Name || out.Zoom.Scales() {
					continue
				}
				l := landing{out, p.Viewport.Apply(out.Viewport), heldRanges(p)}
				if out.Buffers&in.Buffers&BufferDepth != 0 {
					deeps = append(deeps, l)
				} else {
					colours = append(colours, l)
				}
			}
		}
	}
	for _, d := range deeps {
		if !d.area.HasArea() {
			continue
		}
		// cells: the colour-only frames' part of d's pixels first, then
		// what the depth merges hold there (c's own draws and the frames
		// with depth), with their ranges
		var cells []Viewport
		var shows [][]Range
		var over []*Frame
		for _, f := range colours {
			if shared := d.area.Intersect(f.area); shared.HasArea() {
				cells, over = append(cells, shared.RelativeTo(d.area)), append(over, f.out)
			}
		}
		painted := len(cells)
		for _, l := range append(own, deeps...) {
			cells, shows = append(cells, l.area.RelativeTo(d.area)), append(shows, l.shows)
		}
		s := 0.0
		forEachCell(cells, func(area float64, in []int) {
			if len(in) == 0 || in[0] >= painted {
				return
			}
			// where depth merges bring the whole range too, either order
			// shows it whole
			held := []Range{{0, c.Range.Start}, {c.Range.End, 1}}
			for _, k := range in {
				if k >= painted {
					held = append(held, shows[k-painted]...)
				}
			}
			if undrawn, _ := rangeGaps(held); undrawn > coverageEps {
				s += area
			}
		})
		if s > part {
			deep, flats, part = d.out, over, s
		}
	}
	return deep, flats, part
}

// heldRanges are the ranges of the data compound p's channel may hold when
// p reads a frame back: those drawn on it under p's topmost compound on
// it, and those of the frames p assembles (a binary swap's stage holds
// its draw and its partner's, not the whole range it inherits).
func heldRanges(p *Compound) []Range {
	var held []Range
	topOnChannel(p).Walk(func(x *Compound) {
		if x.Channel == p.Channel && x.IsLeaf() && x.Tasks&TaskDraw != 0 {
			held = append(held, x.Range)
		}
	})
	for _, in := range p.InputFrames {
		for _, q := range in.Producers {
			held = append(held, q.Range)
		}
	}
	return held
}

// drawsRange reports whether a compound of c's tree draws all of range r.
func drawsRange(c *Compound, r Range) bool {
	draws := false
	c.Walk(func(x *Compound) {
		draws = draws || x.IsLeaf() && x.Tasks&TaskDraw != 0 && x.Range.covers(r)
	})
	return draws
}

// checkSamples warns, once a window, where a multisampled window draws
// parts that render single-sampled (Compound.DrawSamples says why).
func (r *resolver) checkSamples(cfg *Config) {
	warned := map[*Window]bool{}
	cfg.Walk(func(c *Compound) {
		d := r.raw[c]
		if d == nil || c.Channel == nil || c.Tasks&TaskDraw == 0 || warned[c.Channel.Window] {
			return
		}
		if n := c.Channel.Window.Samples(); n > 1 && c.DrawSamples() == 0 {
			warned[c.Channel.Window] = true
			pos := d.channelPos
			if pos.Line == 0 {
				pos = d.pos
			}
			r.warnf(pos, "channel %q draws a part of the data or of the pixels here: that draw renders single-sampled, not with its window's %d samples (antialiased edges of a part would leave seams where the parts are merged)", c.Channel.Name, n)
		}
	})
}

// checkCompositing warns where a config names a compositing strategy that
// no compound below can use.
func (r *resolver) checkCompositing(cfg *Config) {
	exchanging := cfg.SortLast()
	cfg.Walk(func(c *Compound) {
		d := r.raw[c]
		if d == nil || d.compositingPos.Line == 0 || c.Compositing() == compositing.Auto {
			return
		}
		usable, shared := false, false
		c.Walk(func(x *Compound) {
			usable = usable || exchanging[x] != nil
			shared = shared || exchanging[x] == nil && x.SortLastSources() != nil
		})
		switch {
		case usable:
		case shared:
			r.warnf(d.compositingPos, "compositing %s: the sort-last sources here draw on windows that also draw sort-last sources for another destination, and two trees exchanging over the same windows in different orders would wait for each other; they composite as written", c.Compositing())
		default:
			r.warnf(d.compositingPos, "compositing %s: no compound here merges sort-last sources that could exchange bands (each a leaf on a window of its own, drawing a range over the whole region and sending colour and depth to its parent alone); they composite as written", c.Compositing())
		}
	})
}

// MaxFramebuffer is the framebuffer size (pixels a side) common GL
// implementations allow (Mesa's llvmpipe, NVIDIA).
const MaxFramebuffer = 16384

// checkShares warns where a source channel is smaller than the share of
// its destination it may render: Equalizer renders a source's share one
// pixel per destination pixel at the channel's corner and loses what falls
// outside its window; goeq renders it offscreen at full size. A pixel
// part renders every few pixels of its share, and a compound that only
// clears (over parts drawn on its channel) renders nothing to lose: the
// warnings about them named a loss no run has (16 on the corpus).
func (r *resolver) checkShares(cfg *Config) {
	cfg.Walk(func(c *Compound) {
		d := r.raw[c]
		dest := c.Destination()
		if d == nil || d.channelPos.Line == 0 || dest == nil || dest == c || c.Channel == dest.Channel || c.Tasks&(TaskDraw|TaskAssemble) == 0 {
			return
		}
		share := destinationPixels(dest, c.Viewport)
		zoom := c.Zoom
		if c.Parent != nil && drawsTiles(c.Parent) {
			// its tiles, drawn at full size, lie anywhere in its parent's share
			share, zoom = destinationPixels(dest, c.Parent.Viewport), Zoom{1, 1}
		}
		w, h := int(float64(share.W)*zoom.X+0.5), int(float64(share.H)*zoom.Y+0.5)
		if c.Parent != nil && hasLoadEqualizer(c.Parent) {
			// a load equalizer may give the source all of its parent's share
			p := destinationPixels(dest, c.Parent.Viewport)
			w, h = max(w, int(float64(p.W)*zoom.X+0.5)), max(h, int(float64(p.H)*zoom.Y+0.5))
		}
		pw, ph := max(c.Pixel.W, 1), max(c.Pixel.H, 1)
		w, h = (w+pw-1)/pw, (h+ph-1)/ph
		own := c.Channel.PixelViewport
		limit := ""
		if w > MaxFramebuffer || h > MaxFramebuffer {
			limit = fmt.Sprintf("; that is beyond the %d-pixel framebuffer limit of common GL implementations, and a render client whose GL allows less fails the frame", MaxFramebuffer)
		}
		if own.W < w || own.H < h {
			r.warnf(d.channelPos, "channel %q (%dx%d) renders up to %dx%d pixels of destination %q: larger than its window's channel, so goeq renders it offscreen at full size (Equalizer would lose what falls outside)%s",
				c.Channel.Name, own.W, own.H, w, h, dest.Channel.Name, limit)
		}
	})
}

// checkFramePorts warns where two nodes on one host name one port for
// frames: a port serves one process, so they take any free port there.
func (r *resolver) checkFramePorts(cfg *Config) {
	for i, n := range cfg.Nodes {
		if o := cfg.SharesFramePort(n); o != nil && slices.Index(cfg.Nodes, o) < i {
			r.warnf(n.FrameConnection().Pos, "node %s names port %d for frames, as node %s on the same host %q does: a port serves one process, so both take any free port there",
				n.ID, n.FrameConnection().Port, o.ID, n.Host)
		}
	}
}

func hasLoadEqualizer(c *Compound) bool {
	for _, eq := range c.Equalizers {
		if eq.Kind.Splits() {
			return true
		}
	}
	return false
}

func (r *resolver) node(n *configparser.Node) *Node {
	out := &Node{App: n.Kind == "appNode", Attributes: globalDefaults(r.model.Global, "NODE")}
	for _, f := range n.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.Host != nil:
			out.Host = str(f.Host)
		case f.Connection != nil:
			out.Connections = append(out.Connections, r.connection(f.Connection, r.model.Global))
		case f.Pipe != nil:
			out.Pipes = append(out.Pipes, r.pipe(f.Pipe, out))
		case f.Attributes != nil:
			for _, a := range f.Attributes.Fields {
				switch {
				case a.LaunchCommand != nil:
					out.Attributes["launch_command"] = str(a.LaunchCommand)
				case a.LaunchCommandQuote != nil:
					out.Attributes["launch_command_quote"] = a.LaunchCommandQuote.Raw
				case a.Key == "hint_statistics":
					// deprecated and ignored, as in Equalizer
				default:
					out.Attributes[a.Key] = attrValue(a.Key, iattr(a.Value))
				}
			}
		}
	}
	delete(out.Attributes, "hint_statistics")
	return out
}

func (r *resolver) keyAttrs(dst map[string]string, a *configparser.KeyAttrs) {
	for _, f := range a.Fields {
		dst[f.Key] = attrValue(f.Key, iattr(f.Value))
		r.runtimeAttr(f.Pos, f.Key, dst[f.Key])
	}
}

// runtimeAttr warns about a window or pipe attribute whose effect goeq's
// runtime does not have (see docs/config-language.md, "What runs").
func (r *resolver) runtimeAttr(pos lexer.Position, key, value string) {
	switch key {
	case "hint_stereo":
		if value == "ON" {
			r.warnf(pos, "hint_stereo ON: goeq renders into framebuffer objects, which have no quad-buffered stereo; stereo destinations show anaglyph")
		}
	case "hint_cuda_gl_interop":
		if value == "ON" {
			r.warnf(pos, "hint_cuda_gl_interop: goeq does not set up CUDA interoperation")
		}
	case "planes_accum", "planes_accum_alpha":
		if bits, err := strconv.Atoi(value); value == "ON" || err == nil && bits > 0 {
			r.warnf(pos, "%s %s: OpenGL 3.3 core has no accumulation buffer; goeq's Config.Refine averages refined frames in a float framebuffer of its own", key, value)
		}
	case "planes_color":
		// Equalizer gives float or deeper colour framebuffers; goeq's
		// framebuffers, frames and compositing are 8 bits a channel
		if bits, err := strconv.Atoi(value); value == "RGBA16F" || value == "RGBA32F" || err == nil && bits > 8 {
			r.warnf(pos, "planes_color %s: goeq renders, sends and composites colour at 8 bits a channel (RGBA8), so finer colour (HDR values, precise blending of DB slabs) is rounded to it", value)
		}
	}
}

func (r *resolver) pipe(p *configparser.Pipe, node *Node) *Pipe {
	out := &Pipe{Node: node, PixelViewport: DefaultPipeViewport, Attributes: globalDefaults(r.model.Global, "PIPE")}
	var windows []*configparser.Window
	for _, f := range p.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.Port != nil:
			out.Port, out.PortSet = int(num(f.Port.Raw)), true
		case f.Device != nil:
			out.Device = int(num(f.Device.Raw))
		case f.Viewport != nil:
			v := floats(f.Viewport.V)
			if v[2] <= 0 || v[3] <= 0 {
				r.errorf(f.Viewport.Pos, "pipe viewport is in pixels and needs a positive width and height")
			}
			out.PixelViewport = PixelViewport{int(v[0]), int(v[1]), int(v[2]), int(v[3])}
		case f.Attributes != nil:
			r.keyAttrs(out.Attributes, f.Attributes)
		case f.Window != nil:
			windows = append(windows, f.Window)
		}
	}
	for _, w := range windows {
		out.Windows = append(out.Windows, r.window(w, out))
	}
	return out
}

// lastViewport warns about each viewport but the last of an entity (a
// generated config's window has a zero-area one, then its real one):
// Equalizer takes the last. A pixel viewport beside a fraction is how
// Equalizer writes the configs it saves (its .auto.eqc files), so that
// pair passes quietly.
func (r *resolver) lastViewport(vps []*configparser.Viewport, what string) *configparser.Viewport {
	if len(vps) == 0 {
		return nil
	}
	last := vps[len(vps)-1]
	if len(vps) == 2 && (isPixelViewport(vps[0]) && isFraction(vps[1]) || isFraction(vps[0]) && isPixelViewport(vps[1])) {
		return last
	}
	for _, v := range vps[:len(vps)-1] {
		r.warnf(v.Pos, "%s viewport given again at line %d: the last one is used, as in Equalizer", what, last.Pos.Line)
	}
	return last
}

func (r *resolver) window(w *configparser.Window, pipe *Pipe) *Window {
	out := &Window{Pipe: pipe, PixelViewport: DefaultWindowViewport, Attributes: globalDefaults(r.model.Global, "WINDOW")}
	var channels []*configparser.Channel
	var vps []*configparser.Viewport
	for _, f := range w.Fields {
		if f.Viewport != nil {
			vps = append(vps, f.Viewport)
		}
	}
	last := r.lastViewport(vps, "window")
	var fraction *configparser.Viewport // the viewport, when a fraction of the pipe's
	for _, f := range w.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.Viewport != nil && f.Viewport == last:
			refused := len(r.errs)
			vp, pvp := r.windowViewport(f.Viewport, "window")
			if pvp != nil {
				out.PixelViewport = *pvp
			} else {
				out.PixelViewport = pipe.PixelViewport.Apply(vp)
				if len(r.errs) == refused { // else its error says enough
					fraction = f.Viewport
				}
			}
			if w, h := out.PixelViewport.W, out.PixelViewport.H; w > MaxFramebuffer || h > MaxFramebuffer {
				r.warnf(f.Viewport.Pos, "window of %dx%d pixels: beyond the %d-pixel framebuffer limit of common GL implementations; a render client whose GL allows less refuses it", w, h, MaxFramebuffer)
			}
		case f.Attributes != nil:
			r.keyAttrs(out.Attributes, f.Attributes)
		case f.Channel != nil:
			channels = append(channels, f.Channel)
		}
	}
	if strings.EqualFold(out.Attributes["hint_fullscreen"], "ON") && out.OnScreen() {
		// Equalizer's window takes its screen's size when it opens: the
		// pipe's viewport stands for the screen here
		out.PixelViewport = PixelViewport{W: pipe.PixelViewport.W, H: pipe.PixelViewport.H}
	} else if pv := out.PixelViewport; fraction != nil && (pv.W <= 0 || pv.H <= 0) {
		f := floats(fraction.V)
		r.errorf(fraction.Pos, "window viewport [ %g %g %g %g ] of its pipe's %dx%d pixels is %dx%d pixels: a window needs at least one pixel each way",
			f[0], f[1], f[2], f[3], pipe.PixelViewport.W, pipe.PixelViewport.H, max(pv.W, 0), max(pv.H, 0))
	}
	for _, c := range channels {
		out.Channels = append(out.Channels, r.channel(c, out))
	}
	return out
}

func (r *resolver) channel(c *configparser.Channel, win *Window) *Channel {
	full := PixelViewport{0, 0, win.PixelViewport.W, win.PixelViewport.H}
	out := &Channel{Window: win, Viewport: FullViewport, PixelViewport: full, Attributes: globalDefaults(r.model.Global, "CHANNEL")}
	var vps []*configparser.Viewport
	for _, f := range c.Fields {
		if f.Viewport != nil {
			vps = append(vps, f.Viewport)
		}
	}
	last := r.lastViewport(vps, "channel")
	for _, f := range c.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.Viewport != nil && f.Viewport == last:
			vp, pvp := r.windowViewport(f.Viewport, "channel")
			if pvp != nil {
				out.PixelViewport = *pvp
				out.Viewport = Viewport{float64(pvp.X) / float64(full.W), float64(pvp.Y) / float64(full.H),
					float64(pvp.W) / float64(full.W), float64(pvp.H) / float64(full.H)}
			} else {
				out.Viewport = vp
				out.PixelViewport = full.Apply(vp)
			}
			if pv := out.PixelViewport; pv.W <= 0 || pv.H <= 0 {
				r.warnf(f.Viewport.Pos, "channel viewport of %dx%d pixels in its %dx%d window: the channel has none, so as a destination it shows nothing and no image of it is written", pv.W, pv.H, full.W, full.H)
			}
		case f.Drawable != nil:
			for _, w := range f.Drawable.Words {
				out.Drawable = append(out.Drawable, w.Value)
			}
		case f.Attributes != nil:
			for _, a := range f.Attributes.Fields {
				if a.DumpImage != nil {
					out.Attributes["dump_image"] = str(a.DumpImage)
				} else {
					out.Attributes[a.Key] = attrValue(a.Key, iattr(a.Value))
				}
			}
		}
	}
	r.channelPos[out] = c.Pos
	r.cfg.Channels = append(r.cfg.Channels, out)
	return out
}

func (r *resolver) observer(o *configparser.Observer, cfg *Config) *Observer {
	half := cfg.EyeBase / 2
	out := &Observer{EyeLeft: Vec3{-half, 0, 0}, EyeRight: Vec3{half, 0, 0}, FocusDistance: 1, FocusMode: FocusFixed}
	// Equalizer 1.1 and 1.2 set every observer's focus with globals
	if v, ok := r.model.Global["EQ_CONFIG_FATTR_FOCUS_DISTANCE"]; ok {
		out.FocusDistance, _ = strconv.ParseFloat(v, 64)
	}
	if v, ok := r.model.Global["EQ_CONFIG_IATTR_FOCUS_MODE"]; ok {
		out.FocusMode = v // read by focusMode
	}
	for _, f := range o.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.EyeBase != nil:
			h := num(f.EyeBase.Raw) / 2
			out.EyeLeft, out.EyeCyclop, out.EyeRight = Vec3{-h, 0, 0}, Vec3{}, Vec3{h, 0, 0}
		case f.EyeLeft != nil:
			out.EyeLeft = vec3(f.EyeLeft)
		case f.EyeCyclop != nil:
			out.EyeCyclop = vec3(f.EyeCyclop)
		case f.EyeRight != nil:
			out.EyeRight = vec3(f.EyeRight)
		case f.FocusDistance != nil:
			out.FocusDistance = num(f.FocusDistance.Raw)
		case f.OpenCVCamera != nil:
			// OFF is what Equalizer writes for every observer of the
			// configs it saves: nothing is lost
			if v := attrValue("opencv_camera", iattr(f.OpenCVCamera)); v != "OFF" {
				r.warnf(f.Pos, "opencv_camera %s: goeq does not track the observer", v)
			}
		case f.FocusMode != nil:
			out.FocusMode = r.focusMode(attrValue("focus_mode", iattr(f.FocusMode)), f.Pos)
		}
	}
	return out
}

// focusMode reads a focus mode's word.
func (r *resolver) focusMode(word string, pos lexer.Position) string {
	switch mode := strings.ToLower(word); mode {
	case FocusFixed, FocusRelativeToOrigin, FocusRelativeToObserver:
		return mode
	}
	r.warnf(pos, "focus_mode %s: not fixed, relative_to_origin or relative_to_observer; the focus is fixed", word)
	return FocusFixed
}

func (r *resolver) findObserver(ref *configparser.Ref, cfg *Config) *Observer {
	if ref.Name != nil {
		name := str(ref.Name)
		for _, o := range cfg.Observers {
			if o.Name == name {
				return o
			}
		}
		r.errorf(ref.Pos, "no observer named %q (observers must be defined before they are used)", name)
		return nil
	}
	i := int(num(ref.Index.Raw))
	if i < len(cfg.Observers) {
		return cfg.Observers[i]
	}
	r.errorf(ref.Pos, "no observer with index %d (%d defined before this point)", i, len(cfg.Observers))
	return nil
}

func (r *resolver) layout(l *configparser.Layout, cfg *Config) *Layout {
	out := &Layout{}
	for _, f := range l.Fields {
		if f.Name != nil {
			out.Name = str(f.Name)
			continue
		}
		v := &View{Layout: out, Viewport: FullViewport, ModelUnit: 1}
		for _, vf := range f.View.Fields {
			switch {
			case vf.DisplayCluster != nil:
				r.warnf(vf.Pos, "DisplayCluster: goeq does not stream views")
			case vf.Attributes != nil:
				for _, a := range vf.Attributes.Fields {
					r.warnf(a.Pos, "view streaming (DisplayCluster, deflect): goeq does not stream views")
				}
			case vf.Name != nil:
				v.Name = str(vf.Name)
			case vf.Mode != "":
				v.Stereo = vf.Mode == "STEREO"
			case vf.Viewport != nil:
				v.Viewport = r.fracViewport(vf.Viewport, "view")
			case vf.Wall != nil:
				v.Frustum = r.wall(vf.Wall)
			case vf.Projection != nil:
				v.Frustum = r.projection(vf.Projection)
			case vf.Observer != nil:
				v.Observer = r.findObserver(vf.Observer, cfg)
			}
		}
		out.Views = append(out.Views, v)
	}
	return out
}

func (r *resolver) findLayout(ref *configparser.Ref, cfg *Config) *Layout {
	if ref.Name != nil {
		name := str(ref.Name)
		for _, l := range cfg.Layouts {
			if l.Name == name {
				return l
			}
		}
		r.errorf(ref.Pos, "no layout named %q (layouts must be defined before the canvas that uses them)", name)
		return nil
	}
	i := int(num(ref.Index.Raw))
	if i < len(cfg.Layouts) {
		return cfg.Layouts[i]
	}
	r.errorf(ref.Pos, "no layout with index %d (%d defined before this point)", i, len(cfg.Layouts))
	return nil
}

func (r *resolver) findChannelByName(s *configparser.Str, cfg *Config) *Channel {
	name := str(s)
	var named []*Channel // declared in windows; a canvas's channels share their segment channel's name
	for _, c := range cfg.Channels {
		if c.Name == name && c.Segment == nil {
			named = append(named, c)
		}
	}
	switch {
	case len(named) == 0:
		r.errorf(s.Pos, "no channel named %q (channels are declared in windows before they are used)", name)
		return nil
	case len(named) > 1:
		// as Equalizer's find, the first; but the user surely meant
		// them apart
		r.warnf(s.Pos, "%d channels are named %q (in %s and %s): this is the first of them; name them apart", len(named), name, named[0].Window.Label(), named[1].Window.Label())
	}
	return named[0]
}

func (r *resolver) canvas(c *configparser.Canvas, cfg *Config) *Canvas {
	out := &Canvas{}
	var segments []*configparser.Segment
	for _, f := range c.Fields {
		switch {
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.Layout != nil:
			if f.Layout.Off {
				out.Layouts = append(out.Layouts, nil)
			} else if l := r.findLayout(f.Layout.Ref, cfg); l != nil {
				out.Layouts = append(out.Layouts, l)
			}
		case f.SwapBarrier != nil:
			out.SwapBarrier = r.swapBarrier(f.SwapBarrier)
		case f.Wall != nil:
			out.Frustum = r.wall(f.Wall)
		case f.Projection != nil:
			out.Frustum = r.projection(f.Projection)
		case f.Segment != nil:
			segments = append(segments, f.Segment)
		}
	}
	for _, s := range segments {
		seg := &Segment{Canvas: out, Eyes: EyesAll, Viewport: FullViewport, SwapBarrier: out.SwapBarrier}
		r.segmentPos[seg] = s.Pos
		eyesSet, named := false, false
		for _, f := range s.Fields {
			switch {
			case f.Name != nil:
				seg.Name = str(f.Name)
			case f.Channel != nil:
				seg.Channel = r.findChannelByName(f.Channel, cfg)
				named = true
			case f.Eye != nil:
				seg.Eyes = flagBits(f.Eye, eyeBits)
				eyesSet = true
			case f.Viewport != nil:
				seg.Viewport = r.segmentViewport(f.Viewport)
			case f.SwapBarrier != nil:
				seg.SwapBarrier = r.swapBarrier(f.SwapBarrier)
			case f.Wall != nil:
				seg.Frustum = r.wall(f.Wall)
			case f.Projection != nil:
				seg.Frustum = r.projection(f.Projection)
			}
		}
		if !named {
			r.errorf(s.Pos, "segment has no channel: add 'channel \"name\"' naming the channel that shows it")
		}
		if eyesSet && seg.Eyes == 0 {
			seg.Eyes = EyesAll
		}
		if seg.Frustum == nil {
			base := DefaultWall
			if out.Frustum != nil {
				base = *out.Frustum
			}
			w := base.Sub(seg.Viewport)
			seg.Frustum = &w
		}
		out.Segments = append(out.Segments, seg)
	}
	return out
}

// destinationChannels creates, for every canvas, layout, view and segment
// that overlap, the channel that shows that part of the view on that
// segment (Equalizer's canvas activation).
func (r *resolver) destinationChannels(cfg *Config) {
	for _, cv := range cfg.Canvases {
		for _, l := range cv.Layouts {
			if l == nil {
				continue
			}
			for _, v := range l.Views {
				for _, s := range cv.Segments {
					if s.Channel == nil {
						continue
					}
					area := s.Viewport.Intersect(v.Viewport)
					if !area.HasArea() {
						continue
					}
					src := s.Channel
					inSegment := area.RelativeTo(s.Viewport)
					vp := src.Viewport.Apply(inSegment)
					full := PixelViewport{0, 0, src.Window.PixelViewport.W, src.Window.PixelViewport.H}
					var wall Wall
					if v.Frustum != nil {
						wall = v.Frustum.Sub(area.RelativeTo(v.Viewport))
					} else {
						wall = s.Frustum.Sub(inSegment)
					}
					ch := &Channel{
						Name: src.Name, Window: src.Window, Viewport: vp, PixelViewport: full.Apply(vp),
						Attributes: src.Attributes, Drawable: src.Drawable,
						View: v, Segment: s, Source: src, Frustum: &wall,
					}
					cfg.Channels = append(cfg.Channels, ch)
				}
			}
		}
	}
}

func (r *resolver) destinationChannel(seg *Segment, view *View, cfg *Config) *Channel {
	for _, c := range cfg.Channels {
		if c.Segment == seg && c.View == view {
			return c
		}
	}
	return nil
}

// viewSegmentRef resolves `( canvas .. segment .. layout .. view .. )`
// with Equalizer's defaults: the first segment and the first view.
func (r *resolver) viewSegmentRef(ref *configparser.ChannelRef, cfg *Config) *Channel {
	var canvas *Canvas
	var layout *Layout
	var segment *Segment
	var view *View
	if len(cfg.Canvases) > 0 && len(cfg.Canvases[0].Segments) > 0 {
		segment = cfg.Canvases[0].Segments[0]
	}
	if len(cfg.Layouts) > 0 && len(cfg.Layouts[0].Views) > 0 {
		view = cfg.Layouts[0].Views[0]
	}
	for _, f := range ref.Fields {
		name, idx := "", -1
		if f.Ref.Name != nil {
			name = str(f.Ref.Name)
		} else {
			idx = int(num(f.Ref.Index.Raw))
		}
		switch f.Kind {
		case "canvas":
			canvas = nil
			for i, c := range cfg.Canvases {
				if (idx < 0 && c.Name == name) || i == idx {
					canvas = c
					break
				}
			}
			if canvas == nil {
				r.errorf(f.Ref.Pos, "no canvas %s", refText(name, idx))
				return nil
			}
			segment = nil
			if len(canvas.Segments) > 0 {
				segment = canvas.Segments[0]
			}
		case "segment":
			segs := []*Segment{}
			if canvas != nil {
				segs = canvas.Segments
			} else if idx >= 0 && len(cfg.Canvases) > 0 {
				segs = cfg.Canvases[0].Segments
			} else {
				for _, c := range cfg.Canvases {
					segs = append(segs, c.Segments...)
				}
			}
			segment = nil
			for i, s := range segs {
				if (idx < 0 && s.Name == name) || i == idx {
					segment = s
					break
				}
			}
			if segment == nil {
				r.errorf(f.Ref.Pos, "no segment %s", refText(name, idx))
				return nil
			}
		case "layout":
			layout = nil
			for i, l := range cfg.Layouts {
				if (idx < 0 && l.Name == name) || i == idx {
					layout = l
					break
				}
			}
			if layout == nil {
				r.errorf(f.Ref.Pos, "no layout %s", refText(name, idx))
				return nil
			}
			view = nil
			if len(layout.Views) > 0 {
				view = layout.Views[0]
			}
		case "view":
			views := []*View{}
			if layout != nil {
				views = layout.Views
			} else if idx >= 0 && len(cfg.Layouts) > 0 {
				views = cfg.Layouts[0].Views
			} else {
				for _, l := range cfg.Layouts {
					views = append(views, l.Views...)
				}
			}
			view = nil
			for i, v := range views {
				if (idx < 0 && v.Name == name) || i == idx {
					view = v
					break
				}
			}
			if view == nil {
				r.errorf(f.Ref.Pos, "no view %s", refText(name, idx))
				return nil
			}
		}
	}
	if segment == nil || view == nil {
		r.errorf(ref.Pos, "incomplete channel reference: the config has no segment or no view to show")
		return nil
	}
	ch := r.destinationChannel(segment, view, cfg)
	if ch == nil {
		r.errorf(ref.Pos, "no destination channel for this segment and view: they do not overlap, or no canvas uses the view's layout")
	}
	return ch
}

func refText(name string, idx int) string {
	if idx >= 0 {
		return fmt.Sprintf("with index %d", idx)
	}
	return fmt.Sprintf("named %q", name)
}

// ---- compounds ------------------------------------------------------------

// compoundData is what a compound sets itself, before inheritance.
type compoundData struct {
	tasks, eyes, buffers   int // -1: not set
	viewport               Viewport
	rng                    Range
	pixel                  Pixel
	subpixel               Subpixel
	zoom                   Zoom
	zoomPos                lexer.Position
	period, phase          int // -1: not set
	frustum                *Wall
	outputFrames, inFrames []*configparser.Frame
	outPos, inPos          []lexer.Position
	pos                    lexer.Position // where the compound starts
	channelPos             lexer.Position // where the compound names its channel
	compositingPos         lexer.Position // where it names its compositing
	stereoPos              lexer.Position // where it first sets a stereo attribute
	taskPos, eyePos        lexer.Position // where it sets its tasks and eyes
}

func (r *resolver) compound(c *configparser.Compound, parent *Compound, cfg *Config) *Compound {
	out := &Compound{Parent: parent, Attributes: map[string]string{}}
	d := newCompoundData()
	d.pos = c.Pos
	var children []*configparser.Compound
	var splitAt lexer.Position // a load or tree equalizer's
	tiled := false
	for _, f := range c.Fields {
		switch {
		case f.Child != nil:
			children = append(children, f.Child)
		case f.Name != nil:
			out.Name = str(f.Name)
		case f.Channel != nil:
			prev, prevPos := out.Channel, d.channelPos
			d.channelPos = f.Pos
			if f.Channel.Name != nil {
				out.Channel = r.findChannelByName(f.Channel.Name, cfg)
			} else {
				out.Channel = r.viewSegmentRef(f.Channel, cfg)
			}
			if prev != nil && out.Channel != nil && prev != out.Channel {
				r.warnf(f.Pos, "a compound has one channel: this one replaces %q (line %d), as in Equalizer; remove the one not meant", prev.Name, prevPos.Line)
			}
		case f.Task != nil:
			d.tasks, d.taskPos = flagBits(f.Task, taskBits), f.Task.Pos
		case f.Eye != nil:
			d.eyes, d.eyePos = flagBits(f.Eye, eyeBits), f.Eye.Pos
		case f.Buffer != nil:
			d.buffers = flagBits(f.Buffer, bufferBits)
		case f.Viewport != nil:
			d.viewport = r.fracViewport(f.Viewport, "compound")
		case f.Range != nil:
			v := floats(f.Range.V)
			d.rng = Range{v[0], v[1]}
			if v[0] < 0 || v[1] > 1 || v[0] >= v[1] {
				r.errorf(f.Range.Pos, "range [ %g %g ] is invalid: it needs 0 <= start < end <= 1", v[0], v[1])
			}
		case f.Period != nil:
			d.period = int(num(f.Period.Raw))
			if d.period == 0 {
				r.errorf(f.Period.Pos, "period must be at least 1")
			}
		case f.Phase != nil:
			d.phase = int(num(f.Phase.Raw))
		case f.Zoom != nil:
			v := floats(f.Zoom.V)
			d.zoom, d.zoomPos = Zoom{v[0], v[1]}, f.Pos
			if v[0] <= 0 || v[1] <= 0 || v[0] > MaxFramebuffer || v[1] > MaxFramebuffer {
				// a pixel zoomed by more is wider than any framebuffer
				r.errorf(f.Zoom.Pos, "zoom [ %g %g ] must be positive and at most %d", v[0], v[1], MaxFramebuffer)
			}
		case f.Pixel != nil:
			v := uints(f.Pixel.V)
			d.pixel = Pixel{v[0], v[1], v[2], v[3]}
			if v[2] == 0 || v[3] == 0 || v[0] >= v[2] || v[1] >= v[3] {
				r.errorf(f.Pixel.Pos, "pixel [ %d %d %d %d ] is invalid: it needs x < width and y < height, width and height at least 1", v[0], v[1], v[2], v[3])
			}
		case f.Subpixel != nil:
			v := uints(f.Subpixel.V)
			d.subpixel = Subpixel{v[0], v[1]}
			switch {
			case v[1] == 0 || v[0] >= v[1]:
				r.errorf(f.Subpixel.Pos, "subpixel [ %d %d ] is invalid: it needs index < size", v[0], v[1])
			case v[1] > MaxSubpixel:
				r.errorf(f.Subpixel.Pos, "subpixel [ %d %d ]: goeq averages at most %d samples a pixel", v[0], v[1], MaxSubpixel)
			}
		case f.Wall != nil:
			d.frustum = r.wall(f.Wall)
		case f.Projection != nil:
			d.frustum = r.projection(f.Projection)
		case f.SwapBarrier != nil:
			out.SwapBarrier = r.swapBarrier(f.SwapBarrier)
		case f.LoadBalancer != nil:
			if eq := r.loadBalancer(f.LoadBalancer); eq != nil {
				out.Equalizers = append(out.Equalizers, eq)
				if eq.Kind.Splits() {
					splitAt = f.Pos
				}
			}
		case f.LoadEqualizer != nil:
			out.Equalizers = append(out.Equalizers, r.loadEqualizer(LoadEqualizer, f.LoadEqualizer))
			splitAt = f.Pos
		case f.TreeEqualizer != nil:
			out.Equalizers = append(out.Equalizers, r.loadEqualizer(TreeEqualizer, f.TreeEqualizer))
			splitAt = f.Pos
		case f.DFREqualizer != nil:
			out.Equalizers = append(out.Equalizers, r.dfrEqualizer(f.DFREqualizer))
		case f.FramerateEqualizer:
			out.Equalizers = append(out.Equalizers, &Equalizer{Kind: FramerateEqualizer})
		case f.MonitorEqualizer:
			out.Equalizers = append(out.Equalizers, &Equalizer{Kind: MonitorEqualizer})
		case f.ViewEqualizer:
			out.Equalizers = append(out.Equalizers, &Equalizer{Kind: ViewEqualizer})
		case f.TileEqualizer != nil:
			tiled = true
			eq := &Equalizer{Kind: TileEqualizer, Name: "tiles", TileSize: [2]int{64, 64}}
			for _, tf := range f.TileEqualizer.Fields {
				if tf.Name != nil {
					eq.Name = str(tf.Name)
				} else if tf.Size.Pair != nil {
					v := uints(tf.Size.Pair.V)
					eq.TileSize = [2]int{v[0], v[1]}
					r.check(tf.Size.Pos, checkTileSize(eq.TileSize))
				} else {
					eq.ChunkDB = num(tf.Size.Value.Raw)
					eq.TileSize = [2]int{}
					switch {
					case eq.ChunkDB <= 0 || eq.ChunkDB > 1:
						r.errorf(tf.Size.Pos, "size %g is out of range: a database chunk is a fraction in (0,1]", eq.ChunkDB)
					case 1/eq.ChunkDB > maxChunks:
						r.errorf(tf.Size.Pos, "size %g makes %.0f database chunks a frame, each a draw of the whole view read back with depth; goeq takes chunks of at least 1/%d",
							eq.ChunkDB, math.Ceil(1/eq.ChunkDB), maxChunks)
					}
				}
			}
			out.Equalizers = append(out.Equalizers, eq)
		case f.OutputFrame != nil:
			d.outputFrames = append(d.outputFrames, f.OutputFrame)
			d.outPos = append(d.outPos, f.Pos)
		case f.InputFrame != nil:
			d.inFrames = append(d.inFrames, f.InputFrame)
			d.inPos = append(d.inPos, f.Pos)
		case f.OutputTiles != nil:
			out.OutputTiles = append(out.OutputTiles, r.tileQueue(f.OutputTiles, out))
		case f.InputTiles != nil:
			out.InputTiles = append(out.InputTiles, r.tileQueue(f.InputTiles, out))
		case f.Attributes != nil:
			for _, a := range f.Attributes.Fields {
				if (a.StereoMode != nil || a.LeftMask != nil || a.RightMask != nil) && d.stereoPos.Line == 0 {
					d.stereoPos = a.Pos
				}
				switch {
				case a.StereoMode != nil:
					out.Attributes["stereo_mode"] = attrValue("stereo_mode", iattr(a.StereoMode))
					if out.Attributes["stereo_mode"] == "QUAD" {
						r.warnf(a.StereoMode.Pos, "stereo_mode QUAD: goeq renders into framebuffer objects, which have no quad-buffered stereo; stereo destinations show anaglyph")
					}
				case a.LeftMask != nil:
					out.Attributes["stereo_anaglyph_left_mask"] = maskWords(a.LeftMask)
				case a.RightMask != nil:
					out.Attributes["stereo_anaglyph_right_mask"] = maskWords(a.RightMask)
				case a.Compositing != nil:
					s, _ := compositing.Parse(a.Compositing.Value) // the parser checked the word
					out.Attributes[CompositingAttr] = s.String()
					d.compositingPos = a.Compositing.Pos
				}
			}
		}
	}
	if d.zoom != (Zoom{1, 1}) && zoomIgnored(out) {
		r.warnf(d.zoomPos, "zoom beside or under a tile_equalizer has no effect: the sources draw the tiles they take at full size")
	}
	if tiled && splitAt.Line > 0 {
		r.warnf(splitAt, "a load or tree equalizer beside a tile_equalizer has no effect: the sources draw the tiles they take from the queue, whatever part it gives them (as in Equalizer)")
	}
	r.raw[out] = d
	for i, ch := range children {
		child := r.compound(ch, out, cfg)
		child.Index = i
		out.Children = append(out.Children, child)
	}
	return out
}

func (r *resolver) tileQueue(t *configparser.TileQueue, c *Compound) *TileQueue {
	q := &TileQueue{Size: [2]int{64, 64}, Compound: c}
	for _, f := range t.Fields {
		if f.Name != nil {
			q.Name = str(f.Name)
		} else {
			v := uints(f.Size.V)
			q.Size = [2]int{v[0], v[1]}
		}
	}
	return q
}

// loadEqualizer fills in Equalizer's defaults: mode 2D, damping 0.5,
// boundary 1x1 pixels or the smallest float step, no resistance, no
// assemble-only limit.
func (r *resolver) loadEqualizer(kind EqualizerKind, l *configparser.LoadEqualizer) *Equalizer {
	eq := &Equalizer{Kind: kind, Mode: Split2D, Damping: 0.5, Boundary2D: [2]int{1, 1}, BoundaryDB: 1.0 / (1 << 23)} // float32 epsilon, as Equalizer
	for _, f := range l.Fields {
		switch {
		case f.Mode != "":
			eq.Mode = splitModeOf(f.Mode)
		case f.Damping != nil:
			eq.Damping = r.damping(f.Damping)
		case f.Boundary != nil:
			if f.Boundary.Pair != nil {
				v := uints(f.Boundary.Pair.V)
				eq.Boundary2D = [2]int{v[0], v[1]}
				r.check(f.Boundary.Pos, checkBoundary(eq.Boundary2D))
			} else {
				eq.BoundaryDB = num(f.Boundary.Value.Raw)
				r.check(f.Boundary.Pos, checkBoundaryDB(eq.BoundaryDB))
			}
		case f.Resistance != nil:
			if f.Resistance.Pair != nil {
				v := uints(f.Resistance.Pair.V)
				eq.Resistance2D = [2]int{v[0], v[1]}
				r.check(f.Resistance.Pos, checkResistance(eq.Resistance2D))
			} else {
				eq.ResistanceDB = num(f.Resistance.Value.Raw)
				r.check(f.Resistance.Pos, checkResistanceDB(eq.ResistanceDB))
			}
		case f.AssembleOnlyLimit != nil:
			v := num(f.AssembleOnlyLimit.Raw)
			eq.AssembleOnlyLimit = &v
		case f.Adaptive != nil:
			eq.Adaptive = f.Adaptive.Word == "ON"
		}
	}
	return eq
}

// damping reads a load, tree or DFR equalizer's damping, a fraction.
func (r *resolver) damping(f *configparser.Float) float64 {
	d := num(f.Raw)
	r.check(f.Pos, checkDamping(d))
	return d
}

func (r *resolver) loadBalancer(lb *configparser.LoadBalancer) *Equalizer {
	switch kind, load, dfr := lb.Convert(); kind {
	case "framerate":
		return &Equalizer{Kind: FramerateEqualizer}
	case "monitor":
		return &Equalizer{Kind: MonitorEqualizer}
	case "DFR":
		return r.dfrEqualizer(dfr)
	default:
		return r.loadEqualizer(LoadEqualizer, load)
	}
}

func (r *resolver) dfrEqualizer(d *configparser.DFREqualizer) *Equalizer {
	eq := &Equalizer{Kind: DFREqualizer, Damping: 0.5, Framerate: 10}
	for _, f := range d.Fields {
		if f.Damping != nil {
			eq.Damping = r.damping(f.Damping)
		} else {
			eq.Framerate = num(f.Framerate.Raw)
			r.check(f.Framerate.Pos, checkFramerate(eq.Framerate))
		}
	}
	return eq
}

// assignIdentities gives every channel its ID and a unique label. The ID
// is structural ("n1.p0.w0.c2": third channel of the first window of the
// first pipe of the second node; a destination channel made from a canvas
// adds "/v<layout>.<view>s<canvas>.<segment>"), so every process that
// resolves the same file agrees on it. Labels are the config's names,
// made unique where canvases give several channels one name.
func assignIdentities(cfg *Config) {
	seen := map[string]bool{}
	for i, n := range cfg.Nodes {
		id := n.Name
		switch {
		case id == "" && n.App:
			id = "app"
		case id == "":
			id = fmt.Sprintf("node%d", i)
		}
		if seen[id] {
			id = fmt.Sprintf("%s.%d", id, i)
		}
		seen[id] = true
		n.ID = id
	}
	for ni, n := range cfg.Nodes {
		for pi, p := range n.Pipes {
			for wi, w := range p.Windows {
				w.ID = fmt.Sprintf("n%d.p%d.w%d", ni, pi, wi)
				for ci, ch := range w.Channels {
					ch.ID = fmt.Sprintf("%s.c%d", w.ID, ci)
				}
			}
		}
	}
	for _, ch := range cfg.Channels {
		if ch.View == nil || ch.Source == nil {
			continue
		}
		li, vi := viewIndex(cfg, ch.View)
		ki, si := segmentIndex(cfg, ch.Segment)
		ch.ID = fmt.Sprintf("%s/v%d.%ds%d.%d", ch.Source.ID, li, vi, ki, si)
	}
	// destination channels (what shows, what is written as images) take
	// plain names first; window channels that share one get their ID
	count := map[string]int{}
	for _, ch := range cfg.Channels {
		if ch.View != nil {
			count[labelBase(ch)]++
		}
	}
	taken := map[string]bool{}
	for _, dest := range []bool{true, false} {
		for _, ch := range cfg.Channels {
			if (ch.View != nil) != dest {
				continue
			}
			label := labelBase(ch)
			if dest && count[label] > 1 {
				li, vi := viewIndex(cfg, ch.View)
				layout := fileSafe(ch.View.Layout.Name)
				if layout == "" {
					layout = fmt.Sprintf("layout%d", li)
				}
				view := fileSafe(ch.View.Name)
				if view == "" {
					view = fmt.Sprintf("view%d", vi)
				}
				label += "." + layout + "." + view
			}
			label = fileLength(label)
			if taken[label] {
				label = fileLength(label + "." + fileSafe(ch.ID))
			}
			taken[label] = true
			ch.Label = label
		}
	}
}

func labelBase(ch *Channel) string {
	if name := fileSafe(ch.Name); name != "" {
		return name
	}
	return "channel"
}

// maxLabel bounds a label, which names image files: a file name holds
// 255 bytes, and the frame number and a hidden file's suffix go with it.
const maxLabel = 200

// fileLength cuts a label longer than maxLabel, ending it with a hash of
// the whole so that labels that differ only past the cut stay apart.
func fileLength(label string) string {
	if len(label) <= maxLabel {
		return label
	}
	h := fnv.New32a()
	h.Write([]byte(label))
	return fmt.Sprintf("%s~%08x", label[:maxLabel-9], h.Sum32())
}

// fileSafe keeps letters, digits and "-_." and replaces the rest by "_".
func fileSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

func viewIndex(cfg *Config, v *View) (int, int) {
	for li, l := range cfg.Layouts {
		for vi, x := range l.Views {
			if x == v {
				return li, vi
			}
		}
	}
	return -1, -1
}

func segmentIndex(cfg *Config, s *Segment) (int, int) {
	for ki, cv := range cfg.Canvases {
		for si, x := range cv.Segments {
			if x == s {
				return ki, si
			}
		}
	}
	return -1, -1
}

// EnvironmentDefaults are the EQ_* variables of this process's
// environment: the defaults a config takes where it sets none. A server
// hands its own to every render client, so that all resolve one model
// (ssh does not forward the environment).
func EnvironmentDefaults() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "EQ_") {
			out[k] = v
		}
	}
	return out
}

// Defaults reads EQ_* defaults from a map (Options.Getenv).
func Defaults(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}
