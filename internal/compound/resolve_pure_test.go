package compound

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goeq/goeq/internal/configparser"
	"github.com/goeq/goeq/internal/corpus"
)

// Resolving leaves the parsed file as it was (it adds its warnings to the
// Result only), so that a process serving many nodes of one config
// (eqclient --null) parses it once and resolves each node's model from a
// clone of the Result: every corpus and example config's parse, resolved
// twice so, equals a parse of its own that was never resolved.
func TestResolveLeavesItsParseUnchanged(t *testing.T) {
	for _, path := range corpus.Paths(t) {
		shared, err := configparser.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		untouched, err := configparser.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Getenv: func(string) (string, bool) { return "", false }}
		first, err := Resolve(shared.Clone(), opt)
		if err != nil {
			t.Fatal(err)
		}
		second, err := Resolve(shared.Clone(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(shared, untouched) {
			t.Fatalf("%s: resolving changed the parse", filepath.Base(path))
		}
		if first.Configs[0] == second.Configs[0] || len(first.Configs[0].Nodes) != len(second.Configs[0].Nodes) {
			t.Fatalf("%s: two resolves of one parse share a model or differ in nodes", filepath.Base(path))
		}
	}
}
