package configparser

import (
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The .eqc token grammar, in precedence order (as Equalizer's scanner):
//
//	Header       #Equalizer (not followed by a word character)
//	Comment      # or // to the end of the line
//	String       "..." on one line
//	Unterminated "... running into the end of the line
//	Char         'x'
//	NumberF      a number directly followed by f: `damping 1.f`; Equalizer's
//	             scanner echoed the stray f and went on, and real files rely on it
//	Float        [+-] digits . digits, either side may be empty (`.5`, `1.`)
//	DigitWord    a word starting with digits (`2D`)
//	Int          [+-] digits
//	Ident        a word
//	Punct        ( ) { } [ ]
//	Whitespace
//	Stray        any other character, so that every byte lexes and the
//	             parser can say which character is wrong
//
// The lexer is hand-written because participle's regular-expression lexer
// spends 18 ms on the largest real config; lexer_regexp_test.go keeps the
// regular-expression form as the reference the tests compare against.
var tokenNames = []string{"EOF", "Header", "Comment", "String", "Unterminated", "Char", "NumberF", "Float", "DigitWord", "Int", "Ident", "Punct", "Whitespace", "Stray"}

type eqcDefinition struct{ symbols map[string]lexer.TokenType }

var eqcLexer = newDefinition()

func newDefinition() *eqcDefinition {
	d := &eqcDefinition{symbols: map[string]lexer.TokenType{}}
	for i, n := range tokenNames {
		d.symbols[n] = lexer.TokenType(-1 - i)
	}
	return d
}

func (d *eqcDefinition) Symbols() map[string]lexer.TokenType { return d.symbols }

func (d *eqcDefinition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (d *eqcDefinition) LexBytes(filename string, b []byte) (lexer.Lexer, error) {
	return d.LexString(filename, string(b))
}

func (d *eqcDefinition) LexString(filename string, s string) (lexer.Lexer, error) {
	return &eqcScanner{def: d, src: s, pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}, nil
}

type eqcScanner struct {
	def *eqcDefinition
	src string
	pos lexer.Position
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isWordStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isWordChar(c byte) bool  { return isWordStart(c) || isDigit(c) }

func (s *eqcScanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// Next returns the next token; it never fails.
func (s *eqcScanner) Next() (lexer.Token, error) {
	o := s.pos.Offset
	if o >= len(s.src) {
		return lexer.Token{Type: lexer.EOF, Pos: s.pos}, nil
	}
	kind, n := s.match(o)
	t := lexer.Token{Type: s.def.symbols[kind], Value: s.src[o : o+n], Pos: s.pos}
	s.advance(n)
	return t, nil
}

func (s *eqcScanner) match(o int) (string, int) {
	src := s.src
	c := src[o]
	switch {
	case c == '#':
		const h = "#Equalizer"
		if len(src)-o >= len(h) && src[o:o+len(h)] == h && !isWordChar(s.at(o+len(h))) {
			return "Header", len(h)
		}
		return "Comment", lineEnd(src, o) - o
	case c == '/' && s.at(o+1) == '/':
		return "Comment", lineEnd(src, o) - o
	case c == '"':
		for i := o + 1; i < len(src); i++ {
			switch src[i] {
			case '"':
				return "String", i + 1 - o
			case '\n':
				return "Unterminated", i - o
			}
		}
		return "Unterminated", len(src) - o
	case c == '\'':
		if o+2 < len(src) {
			_, w := utf8.DecodeRuneInString(src[o+1:])
			if src[o+1] != '\n' && s.at(o+1+w) == '\'' {
				return "Char", w + 2
			}
		}
	case isDigit(c) || c == '.' || ((c == '+' || c == '-') && (isDigit(s.at(o+1)) || (s.at(o+1) == '.' && isDigit(s.at(o+2))))):
		if kind, n := s.number(o); n > 0 {
			return kind, n
		}
	case isWordStart(c):
		i := o + 1
		for i < len(src) && isWordChar(src[i]) {
			i++
		}
		return "Ident", i - o
	case c == '(' || c == ')' || c == '{' || c == '}' || c == '[' || c == ']':
		return "Punct", 1
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		i := o + 1
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n') {
			i++
		}
		return "Whitespace", i - o
	}
	if c == '\n' {
		return "Whitespace", 1
	}
	_, w := utf8.DecodeRuneInString(src[o:])
	return "Stray", w
}

// number reads a number at o; n is 0 when there is none (a lone '.').
func (s *eqcScanner) number(o int) (string, int) {
	i := o
	signed := s.src[i] == '+' || s.src[i] == '-'
	if signed {
		i++
	}
	start := i
	for i < len(s.src) && isDigit(s.src[i]) {
		i++
	}
	intDigits := i - start
	dot, frac := false, 0
	if s.at(i) == '.' {
		j := i + 1
		for j < len(s.src) && isDigit(s.src[j]) {
			j++
		}
		frac = j - i - 1
		if intDigits > 0 || frac > 0 {
			dot, i = true, j
		}
	}
	if intDigits == 0 && frac == 0 {
		return "", 0
	}
	if s.at(i) == 'f' && !isWordChar(s.at(i+1)) {
		return "NumberF", i + 1 - o
	}
	if dot {
		return "Float", i - o
	}
	if !signed && isWordStart(s.at(i)) {
		for i < len(s.src) && isWordChar(s.src[i]) {
			i++
		}
		return "DigitWord", i - o
	}
	return "Int", i - o
}

func lineEnd(src string, o int) int {
	for i := o; i < len(src); i++ {
		if src[i] == '\n' {
			return i
		}
	}
	return len(src)
}

func (s *eqcScanner) advance(n int) {
	for _, r := range s.src[s.pos.Offset : s.pos.Offset+n] {
		if r == '\n' {
			s.pos.Line++
			s.pos.Column = 1
		} else {
			s.pos.Column++
		}
	}
	s.pos.Offset += n
}
