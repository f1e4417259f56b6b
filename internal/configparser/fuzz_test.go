package configparser

import (
	"os"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser and the printer: neither may
// panic or hang, and whatever parses must format to text that parses again.
// Run with `make fuzz` (60 s); the corpus seeds it when present.
func FuzzParse(f *testing.F) {
	for _, name := range corpusFilesOrNone() {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("config { compound { channel \"c\" viewport [ .5 0 .5 1 ] } }"))
	f.Add([]byte("#Equalizer 1.1 ascii\nglobal { EQ_WINDOW_IATTR_HINT_FULLSCREEN ON }\nserver { config { } }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := Parse("fuzz.eqc", src)
		if err != nil {
			if _, ok := err.(ErrorList); !ok {
				t.Fatalf("error is not a positioned ErrorList: %T %v", err, err)
			}
			return
		}
		out := Format(res)
		if _, err := Parse("fuzz-formatted.eqc", out); err != nil {
			t.Fatalf("formatted output does not parse: %v\n--- input\n%q\n--- output\n%s", err, src, out)
		}
	})
}
