package configparser

import (
	"fmt"
	"slices"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// participle backtracks out of a field whose value is wrong and reports the
// failure at the field's keyword or further out. To name the exact token and
// what should have been there, diagnose re-reads the innermost open block
// field by field against the shape each keyword takes.

type shape int

const (
	shapeBlock shape = iota // keyword '{' ... '}'
	shapeString
	shapeUint
	shapeInt
	shapeFloat
	shapeChar
	shapeIAttr
	shapeViewport
	shapeVec2
	shapeVec3
	shapeUint2
	shapeUint4
	shapeFlags
	shapeBoundary  // [ u u ] or a number
	shapeRef       // "name" or index
	shapeLayoutRef // "name", index or OFF
	shapeChannel   // "name" or ( ... )
	shapeWords     // one of a fixed set of words
	shapeEmpty     // keyword '{' '}'
	shapeHeader
)

var shapeNames = map[shape]string{
	shapeString: "a quoted string", shapeUint: "an unsigned integer", shapeInt: "an integer",
	shapeFloat: "a number", shapeChar: "a quoted character like '\"'",
	shapeIAttr:    "an attribute value (ON, OFF, AUTO, NICEST, FASTEST, a number, ...)",
	shapeViewport: "'[ x y width height ]'", shapeVec2: "'[ a b ]'", shapeVec3: "'[ x y z ]'",
	shapeUint2: "'[ a b ]' of unsigned integers", shapeUint4: "'[ a b c d ]' of unsigned integers",
	shapeBoundary: "'[ x y ]' or a number", shapeRef: "a quoted name or an index",
	shapeLayoutRef: "a quoted layout name, an index or OFF",
	shapeChannel:   "a quoted channel name or '( canvas .. segment .. layout .. view .. )'",
}

var iattrWords = []string{"ON", "OFF", "AUTO", "FASTEST", "NICEST", "HORIZONTAL", "VERTICAL", "QUAD", "ANAGLYPH", "anaglyph", "PASSIVE", "window", "FBO", "pbuffer", "ASYNC", "async", "DRAW_SYNC", "draw_sync", "LOCAL_SYNC", "local_sync", "RGBA16F", "RGBA32F", "fixed", "relative_to_origin", "relative_to_observer"}

// fieldShape says what follows keyword kw inside block, and for shapeWords
// the words allowed.
func fieldShape(block, kw string) (shape, []string) {
	if block == "global" {
		switch {
		case contains(globalStringKeys, kw):
			return shapeString, nil
		case contains(globalUintKeys, kw):
			return shapeUint, nil
		case contains(globalFloatKeys, kw):
			return shapeFloat, nil
		case contains(globalCharKeys, kw):
			return shapeChar, nil
		case contains(globalMaskKeys, kw):
			return shapeFlags, nil
		case kw == "EQ_CONNECTION_IATTR_TYPE":
			return shapeWords, connectionTypes
		}
		return shapeIAttr, nil
	}
	switch kw {
	case "#Equalizer":
		return shapeHeader, nil
	case "name", "host", "hostname", "interface", "filename", "launch_command", "dump_image", "vrpn_tracker", "DisplayCluster", "deflect_host", "deflect_id":
		return shapeString, nil
	case "latency", "period", "phase", "port", "device", "bandwidth":
		return shapeUint, nil
	case "damping", "framerate", "assemble_only_limit", "eye_base", "distance", "focus_distance":
		return shapeFloat, nil
	case "launch_command_quote":
		return shapeChar, nil
	case "viewport":
		return shapeViewport, nil
	case "range", "zoom", "fov":
		return shapeVec2, nil
	case "bottom_left", "bottom_right", "top_left", "origin", "hpr", "eye_left", "eye_right", "eye_cyclop":
		return shapeVec3, nil
	case "pixel":
		return shapeUint4, nil
	case "subpixel":
		return shapeUint2, nil
	case "task", "eye", "buffer", "drawable", "stereo_anaglyph_left_mask", "stereo_anaglyph_right_mask":
		return shapeFlags, nil
	case "boundary", "resistance":
		return shapeBoundary, nil
	case "size":
		if block == "tile_equalizer" {
			return shapeBoundary, nil
		}
		return shapeUint2, nil
	case "observer":
		if block == "view" {
			return shapeRef, nil
		}
	case "layout":
		if block == "canvas" {
			return shapeLayoutRef, nil
		}
	case "channel":
		if block == "segment" {
			return shapeString, nil
		}
		if block == "compound" {
			return shapeChannel, nil
		}
	case "mode":
		switch block {
		case "view":
			return shapeWords, []string{"MONO", "STEREO"}
		case "loadBalancer":
			return shapeWords, []string{"2D", "DB", "HORIZONTAL", "VERTICAL", "DPLEX", "DFR", "DDS"}
		}
		return shapeWords, []string{"2D", "DB", "HORIZONTAL", "VERTICAL"}
	case "type":
		switch block {
		case "wall":
			return shapeWords, []string{"fixed", "HMD"}
		case "outputframe", "inputframe":
			return shapeWords, []string{"texture", "memory"}
		}
		return shapeWords, connectionTypes
	case "framerate_equalizer", "monitor_equalizer", "view_equalizer":
		return shapeEmpty, nil
	}
	if strings.HasSuffix(block, "attributes") {
		return shapeIAttr, nil
	}
	if kw == "NV_group" || kw == "NV_barrier" || kw == "adaptive" || kw == "robustness" ||
		kw == "thread_model" || kw == "launch_timeout" || kw == "hint_affinity" || kw == "hint_statistics" ||
		kw == "focus_mode" || kw == "opencv_camera" || kw == "stereo_mode" {
		return shapeIAttr, nil
	}
	return shapeBlock, nil
}

var connectionTypes = []string{"TCPIP", "SDP", "PIPE", "RSP", "RDMA", "UDT"}

// scanner walks the significant tokens.
type scanner struct {
	toks []lexer.Token
	i    int
}

func (s *scanner) peek() lexer.Token { return s.toks[s.i] }
func (s *scanner) next() lexer.Token {
	t := s.toks[s.i]
	if !t.EOF() {
		s.i++
	}
	return t
}

func significant(tokens []lexer.Token) []lexer.Token {
	var out []lexer.Token
	for _, t := range tokens {
		if t.Type == eqcSymbols["Whitespace"] || t.Type == eqcSymbols["Comment"] {
			continue
		}
		out = append(out, t)
	}
	return out
}

func isNumber(t lexer.Token) bool {
	return t.Type == eqcSymbols["Float"] || t.Type == eqcSymbols["Int"] || t.Type == eqcSymbols["NumberF"]
}

func isInteger(t lexer.Token) bool {
	return t.Type == eqcSymbols["Int"] || (t.Type == eqcSymbols["NumberF"] && !strings.Contains(t.Value, "."))
}

// mismatch is a diagnosis: the token at fault and the message.
type mismatch struct {
	tok lexer.Token
	msg string
}

func expected(t lexer.Token, what string) *mismatch {
	return &mismatch{tok: t, msg: fmt.Sprintf("expected %s, found %s", what, describeToken(t))}
}

// diagnose re-reads the block whose '{' is at open (an index into the
// significant tokens; -1 for the top level) up to limit and returns the
// first field that does not have the shape its keyword takes.
func diagnose(toks []lexer.Token, open int, kind string, limit int) *mismatch {
	s := &scanner{toks: toks, i: open + 1}
	kws := blockKeywords[kind]
	if open < 0 {
		kws = blockKeywords["file"]
	}
	sawConfig := false
	for s.i <= limit {
		t := s.next()
		if t.EOF() {
			return nil
		}
		if t.Value == "}" && open >= 0 {
			if kind == "server" && !sawConfig {
				return &mismatch{tok: t, msg: "a server block needs at least one config { ... }"}
			}
			return nil
		}
		if t.Type == eqcSymbols["Stray"] {
			return &mismatch{tok: t, msg: fmt.Sprintf("unexpected character %q", t.Value)}
		}
		if t.Value == "}" {
			return &mismatch{tok: t, msg: "unexpected '}': no block is open here (one '}' too many?)"}
		}
		sawConfig = sawConfig || t.Value == "config"
		if !isWord(t) || !contains(kws, t.Value) {
			if msg, ok := legacyKeywords[t.Value]; ok {
				return &mismatch{tok: t, msg: msg}
			}
			where := kind + " block"
			if open < 0 {
				return &mismatch{tok: t, msg: fmt.Sprintf("unknown keyword %s at top level%s (expected '#Equalizer <version> ascii', 'global', 'server' or 'config')", describeToken(t), didYouMean(t.Value, kws))}
			}
			if !isWord(t) {
				return &mismatch{tok: t, msg: fmt.Sprintf("expected a keyword of the %s or '}', found %s", where, describeToken(t))}
			}
			return &mismatch{tok: t, msg: fmt.Sprintf("unknown keyword %s in %s%s (expected one of: %s, or '}' to close the block opened at line %d)",
				describeToken(t), where, didYouMean(t.Value, kws), strings.Join(kws, ", "), toks[open].Pos.Line)}
		}
		sh, words := fieldShape(kind, t.Value)
		if m := s.value(sh, words, t.Value); m != nil {
			return m
		}
	}
	return nil
}

// value checks one value of the given shape; blocks are skipped whole.
func (s *scanner) value(sh shape, words []string, kw string) *mismatch {
	t := s.peek()
	switch sh {
	case shapeHeader:
		if !isNumber(s.next()) {
			return expected(t, "a version number after #Equalizer")
		}
		if a := s.next(); a.Value != "ascii" {
			return expected(a, "'ascii'")
		}
	case shapeString:
		if t.Type == eqcSymbols["Unterminated"] {
			return &mismatch{tok: t, msg: fmt.Sprintf("string %s is not closed: a string ends with \" on the same line", t.Value)}
		}
		if t.Type != eqcSymbols["String"] {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeUint, shapeInt:
		if !isInteger(t) {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeFloat:
		if !isNumber(t) {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeChar:
		if t.Type != eqcSymbols["Char"] {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeIAttr:
		switch {
		case t.Value == "CORE" || t.Value == "SOCKET":
			s.next()
			if n := s.peek(); !isInteger(n) {
				return expected(n, "an integer after "+t.Value)
			}
			s.next()
		case isInteger(t) || contains(iattrWords, t.Value):
			s.next()
		default:
			m := expected(t, shapeNames[sh])
			m.msg += didYouMean(t.Value, slices.Concat(iattrWords, []string{"CORE", "SOCKET"}))
			return m
		}
	case shapeViewport, shapeVec2, shapeVec3, shapeUint2, shapeUint4:
		n := map[shape]int{shapeViewport: 4, shapeVec2: 2, shapeVec3: 3, shapeUint2: 2, shapeUint4: 4}[sh]
		return s.numbers(n, sh == shapeUint2 || sh == shapeUint4, shapeNames[sh])
	case shapeBoundary:
		if t.Value == "[" {
			return s.numbers(2, true, shapeNames[shapeUint2])
		}
		if !isNumber(t) {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeFlags:
		if t.Value != "[" {
			return expected(t, "'[' to start the "+kw+" list")
		}
		s.next()
		for {
			w := s.next()
			if w.Value == "]" {
				return nil
			}
			if w.Type != eqcSymbols["Ident"] {
				return expected(w, "a keyword or ']' in the "+kw+" list")
			}
		}
	case shapeRef:
		if t.Type != eqcSymbols["String"] && !isInteger(t) {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeLayoutRef:
		if t.Type != eqcSymbols["String"] && !isInteger(t) && t.Value != "OFF" {
			return expected(t, shapeNames[sh])
		}
		s.next()
	case shapeChannel:
		if t.Type == eqcSymbols["String"] {
			s.next()
			return nil
		}
		if t.Value != "(" {
			return expected(t, shapeNames[sh])
		}
		s.next()
		for {
			w := s.next()
			if w.Value == ")" {
				return nil
			}
			if !contains([]string{"canvas", "segment", "layout", "view"}, w.Value) {
				return expected(w, "canvas, segment, layout, view or ')' in the channel reference")
			}
			if r := s.peek(); r.Type != eqcSymbols["String"] && !isInteger(r) {
				return expected(r, "a quoted name or an index after "+w.Value)
			}
			s.next()
		}
	case shapeWords:
		if !contains(words, t.Value) {
			m := expected(t, "one of "+strings.Join(words, ", "))
			m.msg += didYouMean(t.Value, words)
			return m
		}
		s.next()
	case shapeEmpty:
		if t.Value != "{" {
			return expected(t, "'{ }'")
		}
		s.next()
		if c := s.next(); c.Value != "}" {
			return expected(c, "'}': "+kw+" takes no fields")
		}
	case shapeBlock:
		if t.Value != "{" {
			return expected(t, "'{' to open the "+kw+" block")
		}
		s.skipBlock()
	}
	return nil
}

func (s *scanner) numbers(n int, unsigned bool, what string) *mismatch {
	if t := s.next(); t.Value != "[" {
		return expected(t, what)
	}
	for k := 0; k < n; k++ {
		t := s.next()
		if unsigned && !isInteger(t) || !unsigned && !isNumber(t) {
			if t.Value == "]" {
				return &mismatch{tok: t, msg: fmt.Sprintf("expected %d numbers in %s, found only %d", n, what, k)}
			}
			kind := "a number"
			if unsigned {
				kind = "an unsigned integer"
			}
			return expected(t, kind)
		}
	}
	if t := s.next(); t.Value != "]" {
		return &mismatch{tok: t, msg: fmt.Sprintf("expected ']' after %d numbers in %s, found %s", n, what, describeToken(t))}
	}
	return nil
}

func (s *scanner) skipBlock() {
	depth := 0
	for {
		t := s.next()
		if t.EOF() {
			return
		}
		switch t.Value {
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return
			}
		}
	}
}
