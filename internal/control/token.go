package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

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

// tokenDirPrefix names the folders WriteTokenFile makes in the temporary
// folder.
const tokenDirPrefix = "goeq-run-"

// WriteTokenFile puts a run's token into a file of its own, readable by
// its owner alone, for clients started by hand (--token-file); remove
// takes it away with its folder. The folder also holds the server's
// process ID, so that a later run takes away the folders of servers that
// were killed without a chance to (SIGKILL).
func WriteTokenFile(token string) (path string, remove func(), err error) {
	removeOrphanedTokenDirs(os.TempDir())
	dir, err := os.MkdirTemp("", tokenDirPrefix)
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, "token")
	// the process ID goes first: a folder with a token has its owner named
	err = os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	if err == nil {
		err = os.WriteFile(path, []byte(token+"\n"), 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return path, func() { os.RemoveAll(dir) }, nil
}

// removeOrphanedTokenDirs takes away this user's token folders in tmp
// whose server process is gone. A folder without a process ID (one being
// made, or made by an older goeq), one whose process runs, and anything
// that is not a folder of this user's stays.
func removeOrphanedTokenDirs(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, tokenDirPrefix+"*"))
	for _, dir := range dirs {
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		b, err := bounded.ReadFile(filepath.Join(dir, "pid"), 32)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(dir)
		}
	}
}
