// Package bounded reads what a user names (a config, a model, a token, a
// statistics file) only as far as a bound: a device such as /dev/zero, a
// pipe or a binary file given by mistake must not be read until memory
// runs out.
package bounded

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// TooLarge is the error of a file or a line past its bound.
type TooLarge struct {
	Size int64 // the file's size, where its metadata give it; -1 otherwise
	Max  int
}

func (e *TooLarge) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("more than %d bytes", e.Max)
	}
	return fmt.Sprintf("%d bytes, more than %d", e.Size, e.Max)
}

// ReadFile reads the named file, at most max bytes.
func ReadFile(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > int64(max) {
		return nil, &TooLarge{Size: st.Size(), Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, &TooLarge{Size: -1, Max: max}
	}
	return b, nil
}

// ReadLine reads a line from r with its line end (none at the end of the
// input: then io.EOF comes with what there was), at most max bytes before
// the line end.
func ReadLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > max+1 || len(line) == max+1 && line[max] != '\n' {
			return nil, &TooLarge{Size: -1, Max: max}
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// Special names what a file mode that is no regular file or folder is (a
// named pipe, a device, a socket), or "" for one that is: data every node
// reads must come from a file, where a pipe would keep each waiting for
// a writer.
func Special(m fs.FileMode) string {
	switch {
	case m.IsRegular(), m.IsDir():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}
