package configparser

import "github.com/alecthomas/participle/v2/lexer"

// referenceLexer is the token grammar written as ordered regular
// expressions. The hand-written lexer in lexer.go must produce exactly the
// same tokens; FuzzLexer and TestLexerMatchesReference check that.
//
// It follows the lexical rules of Equalizer's loader: `#Equalizer` is a
// token while any other `#` or `//` starts a comment; numbers may start with
// a dot (`.5`) or end with one (`1.`); words may start with a digit (`2D`).
//
// Go's regexp alternation is leftmost-first, so the rule order below is the
// precedence order. Rules that the grammar never uses (Unterminated, Stray)
// exist so that every byte lexes and the parser can report a precise error.
var referenceLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Header", Pattern: `#Equalizer\b`},
	{Name: "Comment", Pattern: `(?:#|//)[^\n]*`},
	{Name: "String", Pattern: `"[^"\n]*"`},
	{Name: "Unterminated", Pattern: `"[^"\n]*`},
	{Name: "Char", Pattern: `'.'`},
	// A number directly followed by `f` (`damping 1.f`): Equalizer's scanner
	// echoed the stray `f` and went on, and real files rely on it.
	{Name: "NumberF", Pattern: `[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)f\b`},
	{Name: "Float", Pattern: `[+-]?(?:[0-9]+\.[0-9]*|[0-9]*\.[0-9]+)`},
	{Name: "DigitWord", Pattern: `[0-9]+[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Int", Pattern: `[+-]?[0-9]+`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Punct", Pattern: `[(){}\[\]]`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
	{Name: "Stray", Pattern: `.`},
})
