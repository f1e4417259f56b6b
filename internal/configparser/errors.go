package configparser

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// blockKeywords lists, for each block, the keywords that may start a field.
// It drives the "unknown keyword" message and the check of attribute keys.
var blockKeywords = map[string][]string{
	"file":                {"#Equalizer", "global", "server", "config"},
	"global":              nil, // filled from the grammar's EQ_* names in init
	"server":              {"connection", "config"},
	"connection":          {"type", "hostname", "interface", "port", "bandwidth", "filename"},
	"config":              {"name", "latency", "attributes", "appNode", "node", "observer", "layout", "canvas", "compound"},
	"config attributes":   {"eye_base", "robustness"},
	"appNode":             {"name", "host", "connection", "attributes", "pipe"},
	"node":                {"name", "host", "connection", "attributes", "pipe"},
	"appNode attributes":  {"launch_command", "launch_command_quote", "thread_model", "launch_timeout", "hint_affinity", "hint_statistics"},
	"node attributes":     {"launch_command", "launch_command_quote", "thread_model", "launch_timeout", "hint_affinity", "hint_statistics"},
	"pipe":                {"name", "port", "device", "viewport", "attributes", "window"},
	"pipe attributes":     {"hint_thread", "hint_affinity", "hint_cuda_GL_interop"},
	"window":              {"name", "viewport", "attributes", "channel"},
	"window attributes":   {"hint_stereo", "hint_doublebuffer", "hint_fullscreen", "hint_decoration", "hint_swapsync", "hint_drawable", "hint_statistics", "hint_screensaver", "hint_grab_pointer", "hint_core_profile", "hint_opengl_major", "hint_opengl_minor", "planes_color", "planes_alpha", "planes_depth", "planes_stencil", "planes_accum", "planes_accum_alpha", "planes_samples"},
	"channel":             {"name", "viewport", "attributes", "drawable"},
	"channel attributes":  {"hint_statistics", "hint_sendtoken", "dump_image"},
	"observer":            {"name", "eye_base", "eye_left", "eye_cyclop", "eye_right", "focus_distance", "focus_mode", "opencv_camera", "vrpn_tracker"},
	"layout":              {"name", "view"},
	"view":                {"name", "mode", "viewport", "observer", "wall", "projection", "attributes"},
	"view attributes":     {"DisplayCluster"},
	"canvas":              {"name", "layout", "segment", "wall", "projection", "swapbarrier"},
	"segment":             {"name", "channel", "eye", "viewport", "wall", "projection", "swapbarrier"},
	"wall":                {"bottom_left", "bottom_right", "top_left", "type"},
	"projection":          {"origin", "distance", "fov", "hpr"},
	"swapbarrier":         {"name", "NV_group", "NV_barrier"},
	"compound":            {"name", "channel", "task", "eye", "buffer", "viewport", "range", "period", "phase", "zoom", "pixel", "subpixel", "wall", "projection", "swapbarrier", "outputframe", "inputframe", "outputtiles", "inputtiles", "attributes", "compound", "load_equalizer", "tree_equalizer", "DFR_equalizer", "framerate_equalizer", "monitor_equalizer", "view_equalizer", "tile_equalizer"},
	"compound attributes": {"stereo_mode", "stereo_anaglyph_left_mask", "stereo_anaglyph_right_mask", "compositing"},
	"load_equalizer":      {"mode", "damping", "boundary", "resistance", "assemble_only_limit", "adaptive"},
	"tree_equalizer":      {"mode", "damping", "boundary", "resistance", "adaptive"},
	"DFR_equalizer":       {"damping", "framerate"},
	"framerate_equalizer": {},
	"monitor_equalizer":   {},
	"view_equalizer":      {},
	"tile_equalizer":      {"name", "size"},
	"loadBalancer":        {"mode", "damping", "boundary", "resistance", "assemble_only_limit", "framerate"},
	"outputframe":         {"name", "type", "viewport", "buffer", "zoom"},
	"inputframe":          {"name", "type", "viewport", "buffer", "zoom"},
	"outputtiles":         {"name", "size"},
	"inputtiles":          {"name", "size"},
}

func init() {
	for _, g := range [][]string{globalStringKeys, globalUintKeys, globalFloatKeys, globalCharKeys, globalMaskKeys, globalIAttrKeys, {"EQ_CONNECTION_IATTR_TYPE"}} {
		blockKeywords["global"] = append(blockKeywords["global"], g...)
	}
}

// legacyKeywords are words of the pre-1.0 format that Equalizer 1.x no
// longer reads; a file using them gets a message naming the replacement.
var legacyKeywords = map[string]string{
	"hints":         "the pre-1.0 'hints { ... }' block is not supported; use 'attributes { hint_* ... }'",
	"eyeBase":       "the pre-1.0 'eyeBase' keyword is not supported; use 'attributes { eye_base ... }' in the config or 'eye_base' in an observer",
	"launchCommand": "the pre-1.0 'launchCommand' keyword is not supported; use 'attributes { launch_command ... }' in the node",
	"launchTimeout": "the pre-1.0 'launchTimeout' keyword is not supported; use 'attributes { launch_timeout ... }' in the node",
	"TCPIPPort":     "the pre-1.0 'TCPIPPort' keyword is not supported; use 'port' in the connection",
	"wallCompound":  "the pre-1.0 'wallCompound' keyword is not supported; use a canvas with segments",
	"syncFrame":     "the pre-1.0 'syncFrame' keyword is not supported; use 'swapbarrier { }'",
	"swapBarrier":   "the pre-1.0 'swapBarrier' keyword is not supported; use 'swapbarrier { }'",
	"frame":         "'frame' is not a keyword; use 'outputframe { }' or 'inputframe { }'",
}

// explainSyntaxError turns participle's error into a Diagnostic that points
// at the token at fault and says what the block expected there.
func explainSyntaxError(filename string, tokens []lexer.Token, err error) error {
	var uerr *participle.UnexpectedTokenError
	var perr participle.Error
	if !errors.As(err, &uerr) {
		if errors.As(err, &perr) {
			return Errorf(fixPos(filename, perr.Position()), "%s", perr.Message())
		}
		return err
	}
	sig := significant(tokens)
	at := len(sig) - 1
	for i, t := range sig {
		if t.Pos.Offset >= uerr.Unexpected.Pos.Offset || t.EOF() {
			at = i
			break
		}
	}
	stack := openBlocks(sig, at)
	open, kind := -1, "file"
	if len(stack) > 0 {
		open, kind = stack[len(stack)-1].index, stack[len(stack)-1].kind
	}
	// Re-read the innermost block and, failing that, each enclosing one:
	// participle may have backed out further than the real fault.
	for level := len(stack); level >= 0; level-- {
		o, k := -1, "file"
		if level > 0 {
			o, k = stack[level-1].index, stack[level-1].kind
		}
		if m := diagnose(sig, o, k, at); m != nil {
			return Errorf(fixPos(filename, m.tok.Pos), "%s", m.msg)
		}
	}
	tok := sig[at]
	pos := fixPos(filename, tok.Pos)
	switch tok.Type {
	case eqcSymbols["Unterminated"]:
		return Errorf(pos, "string %s is not closed: a string ends with \" on the same line", tok.Value)
	case eqcSymbols["Stray"]:
		return Errorf(pos, "unexpected character %q", tok.Value)
	case lexer.EOF:
		if open >= 0 {
			return Errorf(pos, "unexpected end of file: the %s block opened at line %d, column %d is missing its closing '}'",
				kind, sig[open].Pos.Line, sig[open].Pos.Column)
		}
		if uerr.Expect == "" {
			// nothing but a header or comments, or nothing at all
			return Errorf(pos, "unexpected end of file: the file has no server { config { ... } } or config { ... } block")
		}
		return Errorf(pos, "unexpected end of file (expected %s)", describeExpect(uerr.Expect))
	}
	if uerr.Expect == "" {
		return Errorf(pos, "unexpected %s", describeToken(tok))
	}
	return Errorf(pos, "expected %s, found %s", describeExpect(uerr.Expect), describeToken(tok))
}

// fixPos makes sure a position names the file (participle leaves the name
// empty for some errors).
func fixPos(filename string, p lexer.Position) lexer.Position {
	if p.Filename == "" {
		p.Filename = filename
	}
	if p.Line == 0 {
		p.Line, p.Column = 1, 1
	}
	return p
}

func isWord(t lexer.Token) bool {
	return t.Type == eqcSymbols["Ident"] || t.Type == eqcSymbols["DigitWord"] || t.Type == eqcSymbols["Header"]
}

func describeToken(t lexer.Token) string {
	switch t.Type {
	case eqcSymbols["String"]:
		return "string " + t.Value
	case eqcSymbols["Float"], eqcSymbols["Int"], eqcSymbols["NumberF"]:
		return "number " + t.Value
	case lexer.EOF:
		return "end of file"
	}
	if exponent.MatchString(t.Value) {
		written := ""
		if v, err := strconv.ParseFloat(t.Value, 64); err == nil {
			written = ": write it " + strconv.FormatFloat(v, 'f', -1, 64)
		}
		return fmt.Sprintf("%q (Equalizer's format writes numbers without an exponent%s)", t.Value, written)
	}
	return fmt.Sprintf("%q", t.Value)
}

// exponent matches what is left of a number written with an exponent
// (1e6, or the e3 after .5): the format's scanner has no exponents, so it
// reads a word there.
var exponent = regexp.MustCompile(`^([0-9]+[eE][+-]?[0-9]*|[eE][+-]?[0-9]+)$`)

// describeExpect rewrites participle's grammar notation into words.
func describeExpect(e string) string {
	r := strings.NewReplacer(
		"<float>", "a number", "<int>", "an integer", "<numberf>", "a number",
		"<string>", "a quoted string", "<char>", "a quoted character",
		"<ident>", "a keyword", "<eof>", "end of file",
	)
	return r.Replace(e)
}

type openBlock struct {
	kind  string
	index int
}

// openBlocks returns the blocks still open before token index at, innermost
// last. A block's kind is the keyword before its '{'; an attributes block is
// named after its owner ("window attributes"), a frame or tile queue body
// after its keyword.
func openBlocks(sig []lexer.Token, at int) []openBlock {
	var stack []openBlock
	for i := 0; i < at && i < len(sig); i++ {
		switch sig[i].Value {
		case "{":
			kind := ""
			if i > 0 {
				kind = sig[i-1].Value
			}
			if kind == "attributes" && len(stack) > 0 {
				kind = stack[len(stack)-1].kind + " attributes"
			}
			stack = append(stack, openBlock{kind: kind, index: i})
		case "}":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return stack
}
