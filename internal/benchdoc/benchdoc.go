// Package benchdoc writes benchmark results where several commands share
// them: docs/bench.json, whose keys come from make bench and make
// bench-peer, and generated sections of docs/benchmarks.md.
package benchdoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// MergeJSON writes v (a struct or map that marshals to a JSON object) to
// path, keeping the keys of the file already there that v does not set:
// each command owns its keys and leaves the others' results alone. v's
// keys come first, in its order, then the kept ones in theirs.
func MergeJSON(path string, v any) error {
	fresh, err := json.Marshal(v)
	if err != nil {
		return err
	}
	keys, values, err := objectFields(fresh)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil {
		oldKeys, oldValues, err := objectFields(old)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, k := range oldKeys {
			if _, ok := values[k]; !ok {
				keys = append(keys, k)
				values[k] = oldValues[k]
			}
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(k)
		fmt.Fprintf(&b, "%s:%s", name, values[k])
	}
	b.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// objectFields splits a JSON object into its keys, in order, and their
// raw values.
func objectFields(data []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	values := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		if _, dup := values[k]; !dup {
			keys = append(keys, k)
		}
		values[k] = raw
	}
	return keys, values, nil
}

// Machine names this machine for a results table: its CPU model and how
// many cores it has.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores", model, runtime.NumCPU())
}

// Section is a generated part of a markdown file between two marker
// comments, which the command that writes it names.
type Section struct {
	Begin, End string
}

// Marks is the section of the command cmd: "<!-- NAME:begin (written by
// CMD) -->" ... "<!-- NAME:end -->".
func Marks(name, cmd string) Section {
	return Section{Begin: fmt.Sprintf("<!-- %s:begin (written by %s) -->", name, cmd), End: fmt.Sprintf("<!-- %s:end -->", name)}
}

// Write puts body between the section's markers in the file at path,
// replacing what was there, or appends the section when the file has none.
func (s Section) Write(path, body string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	block := s.Begin + "\n" + strings.TrimRight(body, "\n") + "\n\n" + s.End
	text := string(old)
	if i, j := strings.Index(text, s.Begin), strings.Index(text, s.End); i >= 0 && j > i {
		text = text[:i] + block + text[j+len(s.End):]
	} else {
		text = strings.TrimRight(text, "\n") + "\n\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
