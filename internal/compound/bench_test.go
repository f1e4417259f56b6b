package compound

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/configparser"
)

// BenchmarkParseResolveLargest parses and resolves the largest corpus file,
// 4-window.all.eqc (143 compounds). BenchmarkLexOnly is the baseline measured
// in the same run: the lexer alone over the same bytes.
func BenchmarkParseResolveLargest(b *testing.B) {
	src := largest(b)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		res, err := configparser.Parse("4-window.all.eqc", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Resolve(res, noEnv); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveOnlyLargest(b *testing.B) {
	src := largest(b)
	res, err := configparser.Parse("4-window.all.eqc", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Resolve(res, noEnv); err != nil {
			b.Fatal(err)
		}
	}
}

func largest(b *testing.B) []byte {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "4-window.all.eqc"))
	if err != nil {
		b.Skip("corpus not present")
	}
	return src
}

func TestLargestHas143Compounds(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "4-window.all.eqc"))
	if err != nil {
		t.Skip("corpus not present")
	}
	res, err := configparser.Parse("4-window.all.eqc", src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(res, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	m.Configs[0].Walk(func(c *Compound) {
		if !c.Generated {
			n++
		}
	})
	if n != 143 {
		t.Errorf("4-window.all.eqc has %d compounds, want 143", n)
	}
}
