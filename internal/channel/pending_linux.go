package channel

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// createUnnamed opens a file in dir that has no name yet (O_TMPFILE): if
// the process dies before nameUnnamed, the kernel frees it. Filesystems
// without it (and kernels before 3.11) answer EOPNOTSUPP or EISDIR.
func createUnnamed(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, unix.O_TMPFILE|os.O_WRONLY, 0o644)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		return nil, errors.ErrUnsupported
	}
	return f, err
}

// nameUnnamed gives a whole unnamed file its name. A link cannot replace
// a file, so an image written before is replaced by a rename from a
// hidden link: the only moment a kill leaves a hidden file behind is
// between those two calls.
func nameUnnamed(f *os.File, path string) error {
	fd := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	err := unix.Linkat(unix.AT_FDCWD, fd, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if !errors.Is(err, unix.EEXIST) {
		return wrapLink(err, path)
	}
	for {
		hidden := hiddenName(path)
		err = unix.Linkat(unix.AT_FDCWD, fd, unix.AT_FDCWD, hidden, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return wrapLink(err, path)
		}
		if err := os.Rename(hidden, path); err != nil {
			os.Remove(hidden)
			return err
		}
		return nil
	}
}

func wrapLink(err error, path string) error {
	if err == nil {
		return nil
	}
	return &os.LinkError{Op: "link", Old: "(unnamed)", New: path, Err: err}
}
