package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token file is read trimmed; one larger than a token (a device given
// by mistake: /dev/zero was read until memory ran out) is refused.
func TestReadTokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("  s3cret \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if token, err := ReadTokenFile(path); err != nil || token != "s3cret" {
		t.Errorf("a token file: %q, %v", token, err)
	}
	if _, err := ReadTokenFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "a token file holds the token alone") {
		t.Errorf("/dev/zero: %v", err)
	}
}
