package compound

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/goeq/goeq/internal/configparser"
)

var noEnv = Options{Getenv: func(string) (string, bool) { return "", false }}

func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "eqc-corpus")
	files, _ := filepath.Glob(filepath.Join(dir, "*.eqc"))
	if len(files) == 0 {
		t.Fatalf("no corpus in %s: the tests need it beside the checkout", dir)
	}
	return files
}

func explainBytes(t testing.TB, res *configparser.Result) []byte {
	t.Helper()
	m, err := Resolve(res, noEnv)
	if err != nil {
		t.Fatalf("%v", err)
	}
	var b bytes.Buffer
	if err := Explain(m).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCorpusResolves checks that every corpus file resolves and that fmt
// preserves meaning: explain(fmt(x)) == explain(x).
func TestCorpusResolves(t *testing.T) {
	for _, f := range corpusFiles(t) {
		res, err := configparser.ParseFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		before := explainBytes(t, res)
		formatted, err := configparser.Parse(f, configparser.Format(res))
		if err != nil {
			t.Errorf("%s: formatted file does not parse: %v", f, err)
			continue
		}
		after := explainBytes(t, formatted)
		if !bytes.Equal(before, after) {
			t.Errorf("%s: explain(fmt(x)) differs from explain(x)", f)
		}
	}
}
