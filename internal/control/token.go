package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goeq/goeq/internal/bounded"
)

// maxTokenFile bounds a token file: a token is one short line.
const maxTokenFile = 4 << 10

// ReadTokenFile reads the shared token from a file (--token-file): its
// text, trimmed. A file larger than a token (a device such as /dev/zero
// given by mistake) is refused rather than read without end.
func ReadTokenFile(path string) (string, error) {
	b, err := bounded.ReadFile(path, maxTokenFile)
	if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
		return "", fmt.Errorf("%s: %v: a token file holds the token alone", path, err)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteTokenFile puts a run's token into a file of its own, readable by
// its owner alone, for clients started by hand (--token-file); remove
// takes it away with its folder.
func WriteTokenFile(token string) (path string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "goeq-run-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, "token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return path, func() { os.RemoveAll(dir) }, nil
}
