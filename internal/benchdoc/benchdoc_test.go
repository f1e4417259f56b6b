package benchdoc

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMergeJSONKeepsOtherCommandsKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(path, []byte(`{"a": 1, "peer": {"x": [1, 2]}, "b": "old"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		B string  `json:"b"`
		C float64 `json:"c"`
	}
	if err := MergeJSON(path, result{B: "new", C: 2.5}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "{\n  \"b\": \"new\",\n  \"c\": 2.5,\n  \"a\": 1,\n  \"peer\": {\n    \"x\": [\n      1,\n      2\n    ]\n  }\n}\n"
	if string(got) != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
	if err := os.WriteFile(path, []byte(`[1]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MergeJSON(path, result{}); err == nil {
		t.Fatal("merged into a file that is not a JSON object")
	}
}

func TestSectionReplacesOnlyItsPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.md")
	s := Marks("peer", "make peer")
	if err := os.WriteFile(path, []byte("# Title\n\nprose\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(path, "first"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(must(os.ReadFile(path)), "\nafter\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(path, "second\n"); err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nprose\n\n<!-- peer:begin (written by make peer) -->\nsecond\n\n<!-- peer:end -->\n\nafter\n"
	if got := string(must(os.ReadFile(path))); got != want {
		t.Fatalf("got:\n%q\nwant:\n%q", got, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
