package configparser

import (
	"os"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
)

func lexWith(t testing.TB, def lexer.StringDefinition, src string) []lexer.Token {
	lx, err := def.LexString("x.eqc", src)
	if err != nil {
		t.Fatal(err)
	}
	var out []lexer.Token
	for {
		tok, err := lx.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok)
		if tok.EOF() {
			return out
		}
	}
}

// sameTokens compares token streams by type name, value and position.
func sameTokens(t testing.TB, src string) {
	t.Helper()
	ref := referenceLexer.Symbols()
	refNames := map[lexer.TokenType]string{}
	for n, ty := range ref {
		refNames[ty] = n
	}
	names := map[lexer.TokenType]string{}
	for n, ty := range eqcLexer.Symbols() {
		names[ty] = n
	}
	a, b := lexWith(t, eqcLexer, src), lexWith(t, referenceLexer, src)
	for i := 0; i < len(a) && i < len(b); i++ {
		if names[a[i].Type] != refNames[b[i].Type] || a[i].Value != b[i].Value ||
			a[i].Pos.Line != b[i].Pos.Line || a[i].Pos.Column != b[i].Pos.Column {
			t.Fatalf("token %d differs for %q: got %s %q %d:%d, reference %s %q %d:%d", i, src,
				names[a[i].Type], a[i].Value, a[i].Pos.Line, a[i].Pos.Column,
				refNames[b[i].Type], b[i].Value, b[i].Pos.Line, b[i].Pos.Column)
		}
	}
	if len(a) != len(b) {
		t.Fatalf("%d tokens, reference %d, for %q", len(a), len(b), src)
	}
}

func TestLexerMatchesReference(t *testing.T) {
	for _, src := range []string{
		"#Equalizer 1.1 ascii\n# c\n// c\nx", "#Equalizerx", "1.f 1.5f 2f 2fx 2D -2D .5 1. -.5 +3 . + - 1.2.3",
		`"a b" "open` + "\n" + `'"' 'x 'ab'`, "a_b9 _x ( ) { } [ ] $ é \t\r\n", "-3f -1.f +.5f 12ab",
	} {
		sameTokens(t, src)
	}
	for _, f := range corpusFilesOrNone() {
		b, _ := os.ReadFile(f)
		sameTokens(t, string(b))
	}
}

// FuzzLexer checks the hand-written lexer against the regular-expression
// reference on arbitrary input.
func FuzzLexer(f *testing.F) {
	f.Add("config { latency 1.f viewport [ .5 0 1. 1 ] 2D \"s\" 'c' }")
	f.Fuzz(func(t *testing.T, src string) {
		sameTokens(t, src)
	})
}
