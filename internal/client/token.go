package client

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ReadToken reads the token a launcher writes on a client's standard
// input: its first line, within timeout. The token then appears on no
// command line and in no environment.
func ReadToken(r io.Reader, timeout time.Duration) (string, error) {
	type result struct {
		line string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		line, err := bufio.NewReaderSize(io.LimitReader(r, 4096), 4096).ReadString('\n')
		got <- result{line, err}
	}()
	select {
	case res := <-got:
		token := strings.TrimSpace(res.line)
		if token == "" {
			if res.err != nil {
				return "", fmt.Errorf("no token on standard input: %w", res.err)
			}
			return "", errors.New("an empty token on standard input")
		}
		return token, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("no token on standard input within %v", timeout)
	}
}
