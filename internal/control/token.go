package control

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// maxTokenFile bounds a token file: a token is one short line.
const maxTokenFile = 4 << 10

// ReadTokenFile reads the shared token from a file (--token-file): its
// text, trimmed. A file larger than a token (a device such as /dev/zero
// given by mistake) is refused rather than read without end.
func ReadTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%s: more than %d bytes: a token file holds the token alone", path, maxTokenFile)
	}
	return strings.TrimSpace(string(b)), nil
}
