// Package configparser reads Equalizer .eqc configuration files into an AST
// and prints an AST back as canonical .eqc text.
//
// The grammar accepts everything Equalizer's own loader accepts (versions
// 1.0, 1.1 and 1.2), including two quirks that real files rely on; those load
// with a warning. Every error carries the file, line and column where the
// problem is, and names what was expected and what was found.
package configparser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/goeq/goeq/internal/bounded"
)

// Diagnostic is one error or warning at a position in a file.
type Diagnostic struct {
	Pos lexer.Position
	Msg string
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", d.Pos.Filename, d.Pos.Line, d.Pos.Column, d.Msg)
}

// ErrorList is the set of errors found in one or more files, sorted by
// position. Its Error string has one `file:line:col: message` line each.
type ErrorList []Diagnostic

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, d := range l {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the list by file and position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Errorf returns an ErrorList holding one error at pos.
func Errorf(pos lexer.Position, format string, args ...any) ErrorList {
	return ErrorList{{Pos: pos, Msg: fmt.Sprintf(format, args...)}}
}

// Result is a parsed file with the warnings found while reading it.
type Result struct {
	File     *File
	Warnings []Diagnostic
	// Comments are the file's comments in order; fmt puts them back.
	Comments []lexer.Token
	// Version is the header's version; a file without header is read as
	// the current version, 1.2.
	Version float64
	// HasHeader is true when the file starts with `#Equalizer <v> ascii`:
	// it was written for Equalizer, and goeq keeps Equalizer's tolerance
	// where Equalizer silently ignored a mistake.
	HasHeader bool
}

// Clone is a copy of r for a resolve of its own: it shares the parsed
// file, which resolving only reads, and adds its warnings to a list of
// its own.
func (r *Result) Clone() *Result {
	c := *r
	c.Warnings = slices.Clip(r.Warnings)
	return &c
}

var eqcParser = participle.MustBuild[File](
	participle.Lexer(eqcLexer),
	participle.Elide("Whitespace", "Comment"),
)

// MaxFileSize bounds what ReadFile reads: the largest real config is 40 kB.
const MaxFileSize = 16 << 20

// ParseFile reads and parses the named file.
func ParseFile(filename string) (*Result, error) {
	src, err := ReadFile(filename)
	if err != nil {
		return nil, err
	}
	return Parse(filename, src)
}

// ReadFile reads the named config file, refusing one larger than
// MaxFileSize: a device or a pipe (/dev/zero) whose size its metadata do
// not give is read only that far.
func ReadFile(filename string) ([]byte, error) {
	src, err := bounded.ReadFile(filename, MaxFileSize)
	if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
		return nil, tooLarge(filename, tl.Size)
	}
	return src, err
}

// Read reads a config from r (standard input, say), naming it name in
// messages, and refuses one larger than MaxFileSize.
func Read(name string, r io.Reader) ([]byte, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err == nil && len(src) > MaxFileSize {
		return nil, tooLarge(name, -1)
	}
	return src, err
}

// tooLarge refuses a config of size bytes (-1: more than MaxFileSize).
func tooLarge(name string, size int64) error {
	text := fmt.Sprintf("more than %d", MaxFileSize)
	if size >= 0 {
		text = strconv.FormatInt(size, 10)
	}
	return Errorf(lexer.Position{Filename: name, Line: 1, Column: 1},
		"file is %s bytes; configurations larger than %d bytes are refused", text, MaxFileSize)
}

// Parse parses src, naming it filename in positions. A syntax error stops
// parsing; semantic checks of the parsed text (numbers, strings, keyword
// lists) are all reported together.
func Parse(filename string, src []byte) (*Result, error) {
	if len(src) > MaxFileSize {
		return nil, Errorf(lexer.Position{Filename: filename, Line: 1, Column: 1},
			"input is %d bytes; configurations larger than %d bytes are refused", len(src), MaxFileSize)
	}
	if err := notText(filename, src); err != nil {
		return nil, err
	}
	tokens, err := lexAll(filename, src)
	if err != nil {
		return nil, err
	}
	// Equalizer's lexer skipped characters it had no rule for (old files
	// begin with `!#Equalizer`): skip them too, with a warning at each.
	var skipped []Diagnostic
	if stray := eqcSymbols["Stray"]; hasType(tokens, stray) {
		clean := []byte(string(src))
		for _, t := range tokens {
			if t.Type != stray {
				continue
			}
			skipped = append(skipped, Diagnostic{Pos: t.Pos, Msg: fmt.Sprintf("unexpected character %q skipped (as Equalizer's loader skipped it)", t.Value)})
			for i := 0; i < len(t.Value); i++ {
				clean[t.Pos.Offset+i] = ' '
			}
		}
		src = clean
		if tokens, err = lexAll(filename, src); err != nil {
			return nil, err
		}
	}
	if err := checkNesting(tokens); err != nil {
		return nil, err
	}
	file, perr := eqcParser.ParseBytes(filename, src)
	if perr != nil {
		return nil, explainSyntaxError(filename, tokens, perr)
	}
	res := &Result{File: file, Version: 1.2, HasHeader: file.Header != nil, Warnings: skipped}
	for _, t := range tokens {
		if t.Type == eqcSymbols["Comment"] {
			res.Comments = append(res.Comments, t)
		}
	}
	v := &validator{res: res}
	v.file(file)
	if len(v.errs) > 0 {
		v.errs.Sort()
		return nil, v.errs
	}
	return res, nil
}

var eqcSymbols = eqcLexer.Symbols()

// notText refuses input that is no config text at all, naming what it
// looks like: read as bytes, a file saved as UTF-16 or compressed would
// otherwise fail at some stray letter with a message about keywords.
func notText(filename string, src []byte) error {
	first := lexer.Position{Filename: filename, Line: 1, Column: 1}
	switch {
	case bytes.HasPrefix(src, []byte{0xff, 0xfe}), bytes.HasPrefix(src, []byte{0xfe, 0xff}):
		return Errorf(first, "file is UTF-16 text (it begins with a UTF-16 byte order mark); save it as UTF-8 or ASCII")
	case bytes.HasPrefix(src, []byte{0x1f, 0x8b}):
		return Errorf(first, "file is gzip-compressed; uncompress it first (gunzip)")
	}
	nul := bytes.IndexByte(src, 0)
	if nul < 0 {
		return nil
	}
	pos := first
	pos.Offset = nul
	pos.Line += bytes.Count(src[:nul], []byte{'\n'})
	pos.Column = nul - (bytes.LastIndexByte(src[:nul], '\n') + 1) + 1
	if looksUTF16(src) {
		return Errorf(pos, "file looks like UTF-16 text (every other byte is 0); save it as UTF-8 or ASCII")
	}
	return Errorf(pos, "file holds a NUL byte: it is binary, not a config")
}

// looksUTF16 is true when most of the first bytes alternate with NULs, as
// ASCII text saved as UTF-16 without a byte order mark does.
func looksUTF16(src []byte) bool {
	n := min(len(src), 512) &^ 1
	var even, odd int
	for i := 0; i < n; i += 2 {
		if src[i] == 0 {
			even++
		}
		if src[i+1] == 0 {
			odd++
		}
	}
	return n > 0 && max(even, odd) > n*2/5
}

// MaxNesting bounds how deep blocks and brackets may nest; real configs stay
// under 12, and the recursive parser must not be driven into huge stacks.
const MaxNesting = 256

func checkNesting(tokens []lexer.Token) error {
	depth := 0
	for _, t := range tokens {
		switch t.Value {
		case "{", "[", "(":
			if t.Type != eqcSymbols["Punct"] {
				continue
			}
			depth++
			if depth > MaxNesting {
				return Errorf(t.Pos, "blocks are nested more than %d deep", MaxNesting)
			}
		case "}", "]", ")":
			if t.Type == eqcSymbols["Punct"] && depth > 0 {
				depth--
			}
		}
	}
	return nil
}

func hasType(tokens []lexer.Token, t lexer.TokenType) bool {
	for _, x := range tokens {
		if x.Type == t {
			return true
		}
	}
	return false
}

// lexAll tokenizes the whole input; the lexer has a rule for every byte, so
// it only fails on invalid UTF-8 or similar reader errors.
func lexAll(filename string, src []byte) ([]lexer.Token, error) {
	lx, err := eqcLexer.LexString(filename, string(src))
	if err != nil {
		return nil, err
	}
	var out []lexer.Token
	for {
		t, err := lx.Next()
		if err != nil {
			var perr participle.Error
			if errors.As(err, &perr) {
				return nil, Errorf(perr.Position(), "%s", perr.Message())
			}
			return nil, err
		}
		if t.EOF() {
			out = append(out, t)
			return out, nil
		}
		out = append(out, t)
	}
}
