package configparser

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusFiles returns the shared Equalizer corpus, skipping the test when
// the folder is not beside the checkout.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "eqc-corpus")
	files, _ := filepath.Glob(filepath.Join(dir, "*.eqc"))
	if len(files) == 0 {
		t.Skipf("no corpus in %s", dir)
	}
	return files
}

func TestCorpusParses(t *testing.T) {
	files := corpusFiles(t)
	if len(files) != 80 {
		t.Errorf("corpus has %d files, want 80", len(files))
	}
	for _, f := range files {
		if _, err := ParseFile(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestCorpusQuirksWarn(t *testing.T) {
	files := corpusFiles(t)
	want := map[string]string{"stress.2D.eqc": "trailing 'f'"}
	for _, f := range files {
		r, err := ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sub, ok := want[filepath.Base(f)]
		if !ok {
			continue
		}
		found := false
		for _, w := range r.Warnings {
			found = found || strings.Contains(w.Msg, sub)
		}
		if !found {
			t.Errorf("%s: no warning containing %s; got %v", f, sub, r.Warnings)
		}
	}
}

func TestFormatFixedPoint(t *testing.T) {
	for _, f := range corpusFiles(t) {
		r, err := ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		once := Format(r)
		r2, err := Parse(f+" (formatted)", once)
		if err != nil {
			t.Errorf("%s: formatted output does not parse: %v", f, err)
			continue
		}
		twice := Format(r2)
		if !bytes.Equal(once, twice) {
			t.Errorf("%s: fmt is not a fixed point:\n%s", f, firstDiff(once, twice))
		}
		if len(r2.Warnings) != 0 {
			t.Errorf("%s: formatted output still has warnings: %v", f, r2.Warnings)
		}
	}
}

func TestFormatKeepsComments(t *testing.T) {
	src := "#Equalizer 1.1 ascii\n# top\nserver\n{\n    config\n    {\n        # inside\n        latency 1 // trailing\n        # before close\n    }\n}\n# end\n"
	r, err := Parse("c.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := string(Format(r))
	for _, c := range []string{"# top", "# inside", "// trailing", "# before close", "# end"} {
		if !strings.Contains(out, c) {
			t.Errorf("comment %q lost:\n%s", c, out)
		}
	}
	if strings.Index(out, "# before close") > strings.Index(out, "    }\n}") {
		t.Errorf("comment before '}' moved out of its block:\n%s", out)
	}
}

func TestGlobalKeyListsMatchGrammar(t *testing.T) {
	for _, k := range blockKeywords["global"] {
		sh, words := fieldShape("global", k)
		val := map[shape]string{shapeString: `"x"`, shapeUint: "1", shapeFloat: "1.5", shapeChar: `'"'`, shapeFlags: "[ RED ]", shapeIAttr: "ON"}[sh]
		if sh == shapeWords {
			val = words[0]
		}
		src := "global { " + k + " " + val + " } config { }"
		if _, err := Parse("g.eqc", []byte(src)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			other := "<eof>"
			if i < len(bl) {
				other = bl[i]
			}
			return fmt.Sprintf("line %d: %s | %s", i+1, al[i], other)
		}
	}
	return "second is longer"
}

// corpusFilesOrNone is corpusFiles for fuzz seeding: no skip when absent.
func corpusFilesOrNone() []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "*.eqc"))
	return files
}

func TestNestingIsBounded(t *testing.T) {
	src := strings.Repeat("compound { ", MaxNesting+10)
	_, err := Parse("deep.eqc", []byte("config { "+src))
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("want a nesting error, got %v", err)
	}
}

// BenchmarkLex is the baseline for BenchmarkParseResolveLargest: the lexer
// alone over the same file.
func BenchmarkLex(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "eqc-corpus", "4-window.all.eqc"))
	if err != nil {
		b.Skip("corpus not present")
	}
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		if _, err := lexAll("x", src); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLoadBalancerIsConverted(t *testing.T) {
	for src, want := range map[string]string{
		"loadBalancer { mode DB damping 0.3 boundary 0.1 }": "load_equalizer\n{\n    mode DB\n    damping 0.3\n    boundary 0.1\n}",
		"loadBalancer { mode DFR framerate 20 }":            "DFR_equalizer\n{\n    framerate 20\n}",
		"loadBalancer { mode DPLEX }":                       "framerate_equalizer {}",
	} {
		r, err := Parse("lb.eqc", []byte("config { compound { "+src+" } }"))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Warnings) == 0 {
			t.Errorf("%s: no deprecation warning", src)
		}
		out := strings.ReplaceAll(string(Format(r)), "        ", "")
		if !strings.Contains(out, want) {
			t.Errorf("%s formatted as\n%s\nwant\n%s", src, out, want)
		}
	}
}

// Equalizer's lexer skipped characters it had no rule for; old files rely
// on it (3-node.DB.pbuffer.eqc begins with `!#Equalizer`). They load, with a
// warning naming each skipped character's position.
func TestStrayCharactersAreSkippedWithAWarning(t *testing.T) {
	src := "!#Equalizer 1.1 ascii\nconfig\n{\n    latency 2 $\n}\n"
	r, err := Parse("old.eqc", []byte(src))
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	var got []string
	for _, w := range r.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		`old.eqc:1:1: unexpected character "!" skipped (as Equalizer's loader skipped it)`,
		`old.eqc:4:15: unexpected character "$" skipped (as Equalizer's loader skipped it)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !r.HasHeader || r.Version != 1.1 {
		t.Errorf("header not read after the skipped character: header %v version %v", r.HasHeader, r.Version)
	}
}

// compositing takes any strategy word, AUTO included (a keyword elsewhere).
func TestCompositingWords(t *testing.T) {
	for _, w := range []string{"AUTO", "GATHER", "DIRECT_SEND", "BINARY_SWAP", "RADIX_K", "radix_k"} {
		src := "config { compound { attributes { compositing " + w + " } } }"
		if _, err := Parse("c.eqc", []byte(src)); err != nil {
			t.Errorf("compositing %s: %v", w, err)
		}
	}
}

// A config that is no file of known size (a device, a pipe) is read only
// as far as the bound: /dev/zero was read until memory ran out.
func TestAFileOfNoKnownSizeIsReadOnlyToTheBound(t *testing.T) {
	_, err := ParseFile("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero:1:1: file is more than") {
		t.Errorf("/dev/zero: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.eqc")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFile(big); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("file is %d bytes", MaxFileSize+1)) {
		t.Errorf("a file past the bound: %v", err)
	}
}

// A config saved as UTF-16 or compressed, or a binary passed by mistake,
// is refused as what it is, not at some stray letter read as a keyword.
func TestFilesThatAreNotTextSayWhatTheyAre(t *testing.T) {
	text := "server {\n  config { latency 1 }\n}\n"
	utf16 := func(bigEndian, mark bool) []byte {
		var out []byte
		if mark {
			out = append(out, 0xff, 0xfe)
			if bigEndian {
				out[0], out[1] = 0xfe, 0xff
			}
		}
		for _, c := range []byte(text) {
			if bigEndian {
				out = append(out, 0, c)
			} else {
				out = append(out, c, 0)
			}
		}
		return out
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	for _, tc := range []struct {
		name string
		src  []byte
		want string
	}{
		{"utf16le-bom", utf16(false, true), "x.eqc:1:1: file is UTF-16 text"},
		{"utf16be-bom", utf16(true, true), "x.eqc:1:1: file is UTF-16 text"},
		{"utf16le", utf16(false, false), "x.eqc:1:2: file looks like UTF-16 text"},
		{"utf16be", utf16(true, false), "x.eqc:1:1: file looks like UTF-16 text"},
		{"gzip", gz.Bytes(), "x.eqc:1:1: file is gzip-compressed"},
		{"nul", []byte("server {\n  config \x00 {}\n}\n"), "x.eqc:2:10: file holds a NUL byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.eqc", tc.src)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %q...", err, tc.want)
			}
		})
	}
	if _, err := Parse("x.eqc", []byte(text)); err != nil {
		t.Errorf("the same text as UTF-8 refused: %v", err)
	}
}
