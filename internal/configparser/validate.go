package configparser

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/goeq/goeq/internal/compositing"
)

// Keys of the global block, grouped by value type. They repeat the grammar's
// tags (struct tags must be literals); a test checks the two agree.
var (
	globalStringKeys = []string{"EQ_CONNECTION_SATTR_HOSTNAME", "EQ_CONNECTION_SATTR_FILENAME", "EQ_CONNECTION_SATTR_PIPE_FILENAME", "EQ_NODE_SATTR_LAUNCH_COMMAND", "EQ_CONNECTION_SATTR_LAUNCH_COMMAND", "EQ_CHANNEL_SATTR_DUMP_IMAGE", "EQ_VIEW_SATTR_DISPLAYCLUSTER", "EQ_VIEW_SATTR_DEFLECT_HOST"}
	globalUintKeys   = []string{"EQ_CONNECTION_IATTR_PORT", "EQ_CONNECTION_IATTR_TCPIP_PORT", "EQ_CONNECTION_IATTR_BANDWIDTH", "EQ_NODE_IATTR_LAUNCH_TIMEOUT", "EQ_CONNECTION_IATTR_LAUNCH_TIMEOUT"}
	globalFloatKeys  = []string{"EQ_CONFIG_FATTR_EYE_BASE", "EQ_CONFIG_FATTR_FOCUS_DISTANCE"}
	globalCharKeys   = []string{"EQ_NODE_CATTR_LAUNCH_COMMAND_QUOTE", "EQ_CONNECTION_CATTR_LAUNCH_COMMAND_QUOTE"}
	globalMaskKeys   = []string{"EQ_COMPOUND_IATTR_STEREO_ANAGLYPH_LEFT_MASK", "EQ_COMPOUND_IATTR_STEREO_ANAGLYPH_RIGHT_MASK"}
	globalIAttrKeys  = []string{"EQ_CONFIG_IATTR_ROBUSTNESS", "EQ_CONFIG_IATTR_FOCUS_MODE", "EQ_NODE_IATTR_THREAD_MODEL", "EQ_NODE_IATTR_HINT_AFFINITY", "EQ_NODE_IATTR_HINT_STATISTICS", "EQ_PIPE_IATTR_HINT_THREAD", "EQ_PIPE_IATTR_HINT_AFFINITY", "EQ_PIPE_IATTR_HINT_CUDA_GL_INTEROP", "EQ_WINDOW_IATTR_HINT_STEREO", "EQ_WINDOW_IATTR_HINT_DOUBLEBUFFER", "EQ_WINDOW_IATTR_HINT_FULLSCREEN", "EQ_WINDOW_IATTR_HINT_DECORATION", "EQ_WINDOW_IATTR_HINT_SWAPSYNC", "EQ_WINDOW_IATTR_HINT_DRAWABLE", "EQ_WINDOW_IATTR_HINT_STATISTICS", "EQ_WINDOW_IATTR_HINT_SCREENSAVER", "EQ_WINDOW_IATTR_HINT_GRAB_POINTER", "EQ_WINDOW_IATTR_HINT_WIDTH", "EQ_WINDOW_IATTR_HINT_HEIGHT", "EQ_WINDOW_IATTR_HINT_CORE_PROFILE", "EQ_WINDOW_IATTR_HINT_OPENGL_MAJOR", "EQ_WINDOW_IATTR_HINT_OPENGL_MINOR", "EQ_WINDOW_IATTR_PLANES_COLOR", "EQ_WINDOW_IATTR_PLANES_ALPHA", "EQ_WINDOW_IATTR_PLANES_DEPTH", "EQ_WINDOW_IATTR_PLANES_STENCIL", "EQ_WINDOW_IATTR_PLANES_ACCUM", "EQ_WINDOW_IATTR_PLANES_ACCUM_ALPHA", "EQ_WINDOW_IATTR_PLANES_SAMPLES", "EQ_CHANNEL_IATTR_HINT_STATISTICS", "EQ_CHANNEL_IATTR_HINT_SENDTOKEN", "EQ_COMPOUND_IATTR_STEREO_MODE", "EQ_COMPOUND_IATTR_UPDATE_FOV"}
)

// Flag words accepted inside brackets, by the field that holds them.
var flagWords = map[string][]string{
	"Task":      {"CLEAR", "DRAW", "ASSEMBLE", "READBACK"},
	"Eye":       {"CYCLOP", "LEFT", "RIGHT"},
	"Buffer":    {"COLOR", "DEPTH"},
	"Mask":      {"RED", "GREEN", "BLUE"},
	"LeftMask":  {"RED", "GREEN", "BLUE"},
	"RightMask": {"RED", "GREEN", "BLUE"},
	"Drawable":  {"FBO_COLOR", "FBO_DEPTH", "FBO_STENCIL"},
}

// SupportedVersions are the header versions goeq reads.
var SupportedVersions = []float64{1.0, 1.1, 1.2}

// validator checks what the grammar cannot: number ranges, string
// characters, the keys of attribute blocks and flag lists. It collects all
// errors rather than stopping at the first.
type validator struct {
	res  *Result
	errs ErrorList
}

func (v *validator) errorf(pos lexer.Position, format string, args ...any) {
	v.errs = append(v.errs, Diagnostic{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) warnf(pos lexer.Position, format string, args ...any) {
	v.res.Warnings = append(v.res.Warnings, Diagnostic{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) file(f *File) {
	if f.Header != nil {
		ver, _ := strconv.ParseFloat(strings.TrimSuffix(f.Header.Version.Raw, "f"), 64)
		ok := false
		for _, s := range SupportedVersions {
			if ver == s {
				ok = true
			}
		}
		if !ok {
			v.errorf(f.Header.Version.Pos, "unsupported format version %s (goeq reads versions 1.0, 1.1 and 1.2)", f.Header.Version.Raw)
		} else {
			v.res.Version = ver
		}
	}
	v.walk(reflect.ValueOf(f), "", "")
}

// walk visits every node; field is the name of the struct field holding the
// node and owner the type name of the struct that field belongs to.
func (v *validator) walk(val reflect.Value, owner, field string) {
	switch val.Kind() {
	case reflect.Pointer:
		if val.IsNil() {
			return
		}
		v.check(val.Interface(), owner, field)
		v.walk(val.Elem(), owner, field)
	case reflect.Slice:
		for i := 0; i < val.Len(); i++ {
			v.walk(val.Index(i), owner, field)
		}
	case reflect.Struct:
		t := val.Type()
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).Type == reflect.TypeOf(lexer.Position{}) {
				continue
			}
			v.walk(val.Field(i), t.Name(), t.Field(i).Name)
		}
	}
}

func (v *validator) check(node any, owner, field string) {
	switch n := node.(type) {
	case *Str:
		v.checkString(n)
	case *Float:
		v.checkNumberF(n.Pos, n.Raw)
	case *Uint:
		v.checkNumberF(n.Pos, n.Raw)
		if strings.HasPrefix(n.Raw, "-") {
			v.errorf(n.Pos, "expected an unsigned integer, found %s", n.Raw)
		} else if strings.Contains(n.Raw, ".") {
			v.errorf(n.Pos, "expected an unsigned integer, found %s", n.Raw)
		} else if _, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n.Raw, "+"), "f"), 10, 31); err != nil {
			v.errorf(n.Pos, "number %s is out of range (at most %d)", n.Raw, 1<<31-1)
		}
	case *Int:
		v.checkNumberF(n.Pos, n.Raw)
		if strings.Contains(n.Raw, ".") {
			v.errorf(n.Pos, "expected an integer, found %s", n.Raw)
		} else if _, err := strconv.ParseInt(strings.TrimSuffix(n.Raw, "f"), 10, 32); err != nil {
			v.errorf(n.Pos, "number %s is out of range", n.Raw)
		}
	case *Flags:
		v.checkFlags(n, field)
	case *KeyAttrs:
		block := "window attributes"
		if owner == "PipeField" {
			block = "pipe attributes"
		}
		for _, a := range n.Fields {
			if !contains(blockKeywords[block], a.Key) {
				v.errorf(a.Pos, "unknown attribute %q in %s%s (expected one of: %s)", a.Key, block, didYouMean(a.Key, blockKeywords[block]), strings.Join(blockKeywords[block], ", "))
			}
		}
	case *CompoundField:
		if n.LoadBalancer != nil {
			v.warnf(n.Pos, "'loadBalancer' is deprecated; read as the equalizer it names (fmt writes the new syntax)")
		}
		if n.TreeEqualizer != nil {
			for _, f := range n.TreeEqualizer.Fields {
				if f.AssembleOnlyLimit != nil {
					v.errorf(f.Pos, "tree_equalizer has no assemble_only_limit (only load_equalizer does)")
				}
			}
		}
	case *LoadEqualizerField:
		if n.Adaptive != nil && n.Adaptive.Word != "ON" && n.Adaptive.Word != "OFF" {
			v.errorf(n.Adaptive.Pos, "adaptive takes ON or OFF")
		}
	case *NodeAttr:
		if n.Key == "hint_statistics" {
			v.warnf(n.Pos, "node attribute hint_statistics is deprecated and ignored")
		}
	case *GlobalField:
		switch n.IKey {
		case "EQ_NODE_IATTR_HINT_STATISTICS":
			v.warnf(n.Pos, "EQ_NODE_IATTR_HINT_STATISTICS is deprecated and ignored")
		case "EQ_COMPOUND_IATTR_UPDATE_FOV":
			v.warnf(n.Pos, "EQ_COMPOUND_IATTR_UPDATE_FOV was removed from Equalizer and is ignored")
		}
	case *CompoundAttr:
		if n.Compositing != nil {
			if _, err := compositing.Parse(n.Compositing.Value); err != nil {
				v.errorf(n.Compositing.Pos, "compositing takes one of: %s", strings.Join(compositing.Words(), ", "))
			}
		}
		if n.UpdateFOV != nil {
			v.warnf(n.Pos, "compound attribute update_FOV was removed from Equalizer and is ignored")
		}
	}
}

// checkNumberF warns about the `1.f` quirk.
func (v *validator) checkNumberF(pos lexer.Position, raw string) {
	if strings.HasSuffix(raw, "f") {
		v.warnf(pos, "number %s has a trailing 'f'; read as %s", raw, strings.TrimSuffix(raw, "f"))
	}
}

// isStringChar is the character set of Equalizer's string token.
func isStringChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune(`-\., _%&@<>:! /`, r)
}

func (v *validator) checkString(s *Str) {
	body := s.Raw[1 : len(s.Raw)-1]
	col := s.Pos.Column + 1
	for i, r := range body {
		if !isStringChar(r) {
			p := s.Pos
			p.Column = col
			p.Offset += 1 + i
			v.errorf(p, "character %q is not allowed in a string (allowed, as by Equalizer's loader: a-z, A-Z, 0-9, space and - \\ . , _ %% & @ < > : ! /)", r)
			return
		}
		col++
	}
}

func (v *validator) checkFlags(f *Flags, field string) {
	allowed, ok := flagWords[field]
	if !ok {
		return
	}
	for _, w := range f.Words {
		if !contains(allowed, w.Value) {
			v.errorf(w.Pos, "unknown value %q in %s list%s (expected any of: %s)", w.Value, strings.ToLower(field), didYouMean(w.Value, allowed), strings.Join(allowed, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// GlobalKeys lists every EQ_* key the global block accepts.
func GlobalKeys() []string { return blockKeywords["global"] }

// ParseGlobalValue reads the value of global attribute key given as text
// (from an environment variable) and returns it in canonical form. As
// Equalizer reads its variables, a string attribute's text is the string
// and a character attribute's first character is the character, quoted
// or not (Livre's job scripts export EQ_CHANNEL_SATTR_DUMP_IMAGE=path);
// other values are read as the config language writes them.
func ParseGlobalValue(key, text string) (string, error) {
	switch {
	case contains(globalStringKeys, key):
		if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
			text = text[1 : len(text)-1]
		}
		return text, nil
	case contains(globalCharKeys, key):
		if len(text) == 3 && text[0] == '\'' && text[2] == '\'' {
			return text, nil
		}
		r, _ := utf8.DecodeRuneInString(text)
		return "'" + string(r) + "'", nil
	}
	src := "global { " + key + " " + text + " } config { }"
	res, err := Parse(key, []byte(src))
	if err != nil {
		return "", fmt.Errorf("value %q is not valid for %s", text, key)
	}
	f := res.File.Global.Fields
	if len(f) != 1 {
		return "", fmt.Errorf("value %q is not valid for %s", text, key)
	}
	var b strings.Builder
	p := &printer{}
	p.globalField(f[0])
	b.Write(p.buf.Bytes())
	out := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(b.String()), key))
	if len(out) >= 2 && out[0] == '"' {
		out = out[1 : len(out)-1]
	}
	return out, nil
}
