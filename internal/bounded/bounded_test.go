package bounded

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line of max bytes and its end is read whole, one byte more is refused,
// and a last line without its end comes with io.EOF; a reader's buffer
// smaller than the line does not cut it.
func TestReadLine(t *testing.T) {
	const max = 20
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("a", max)+"\n"+strings.Repeat("b", max+1)+"\n"), 16)
	if line, err := ReadLine(r, max); err != nil || string(line) != strings.Repeat("a", max)+"\n" {
		t.Errorf("a line of %d bytes: %q, %v", max, line, err)
	}
	var tl *TooLarge
	if _, err := ReadLine(r, max); !errors.As(err, &tl) {
		t.Errorf("a line of %d bytes: %v, want TooLarge", max+1, err)
	}
	if line, err := ReadLine(bufio.NewReader(strings.NewReader("last")), max); err != io.EOF || string(line) != "last" {
		t.Errorf("a last line without its end: %q, %v", line, err)
	}
}

// A file is read to its bound: a regular one past it says its size, a
// device that never ends (/dev/zero) that it is more.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 5); err != nil || string(b) != "12345" {
		t.Errorf("a file at its bound: %q, %v", b, err)
	}
	if _, err := ReadFile(path, 4); err == nil || err.Error() != "5 bytes, more than 4" {
		t.Errorf("a file past its bound: %v", err)
	}
	if _, err := ReadFile("/dev/zero", 4); err == nil || err.Error() != "more than 4 bytes" {
		t.Errorf("/dev/zero: %v", err)
	}
}
