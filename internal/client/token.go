package client

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/goeq/goeq/internal/control"
)

// maxLaunchInput bounds what a launcher writes on a client's stdin.
const maxLaunchInput = 64 << 10

// ReadLaunchSecrets reads what eqserver writes on a launched client's
// standard input: the token on the first line, within timeout, then,
// when the control port uses TLS, its certificate (PEM) to trust, up to
// the end of the input. The token thus appears on no command line and in
// no environment, and the client needs no CA file.
func ReadLaunchSecrets(r io.Reader, timeout time.Duration) (token string, certPEM []byte, err error) {
	lines := make(chan string, 1)
	rest := make(chan []byte, 1)
	go func() {
		br := bufio.NewReader(io.LimitReader(r, maxLaunchInput))
		line, _ := br.ReadString('\n')
		lines <- line
		b, _ := io.ReadAll(br)
		rest <- b
	}()
	select {
	case line := <-lines:
		if token = strings.TrimSpace(line); token == "" {
			return "", nil, errors.New("no token on standard input")
		}
	case <-time.After(timeout):
		return "", nil, fmt.Errorf("no token on standard input within %v", timeout)
	}
	// a launcher closes stdin after the certificate; one started by hand
	// with only a token may leave it open
	select {
	case b := <-rest:
		if strings.Contains(string(b), "-----BEGIN CERTIFICATE-----") {
			certPEM = b
		}
	case <-time.After(2 * time.Second):
	}
	return token, certPEM, nil
}

// Credentials are the token and the TLS configuration a client joins
// with: GOEQ_TOKEN's token, or, when fromStdin, what a launcher wrote on
// standard input (ReadLaunchSecrets), whose certificate, if any, is then
// the only one the client trusts. A nil configuration means plaintext.
func Credentials(fromStdin bool) (token string, tlsConfig *tls.Config, err error) {
	token = os.Getenv("GOEQ_TOKEN")
	if !fromStdin {
		return token, nil, nil
	}
	token, certPEM, err := ReadLaunchSecrets(os.Stdin, 10*time.Second)
	if err != nil || certPEM == nil {
		return token, nil, err
	}
	tlsConfig, err = control.PinnedTLS(certPEM)
	return token, tlsConfig, err
}
