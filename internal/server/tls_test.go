package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "goeq test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(k)
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, key
}

// TestTLSWithLaunchedClients: with a TLS control port, the clients the
// server launches trust its certificate (handed to them on stdin with the
// token) and their pixel links are encrypted too; a client started by
// hand without the CA is told TLS is the likely problem.
func TestTLSWithLaunchedClients(t *testing.T) {
	cert, key := selfSigned(t, t.TempDir())
	r := run(t, config("2d-lb-4.eqc"), 4, "--tls-cert", cert, "--tls-key", key)
	if r.err != nil {
		t.Fatalf("a TLS run with launched clients: %v\n%s", r.err, r.stderr)
	}
	if r.summary.Frames != 4 {
		t.Errorf("summary %+v", r.summary)
	}
	if n := strings.Count(r.stderr, "frame links: TLS 1.3"); n != 3 {
		t.Errorf("%d of 3 nodes encrypted their frame links:\n%s", n, r.stderr)
	}

	t.Setenv("GOEQ_TOKEN", "whatever")
	sp := startServer(t, config("2d-lb-4.eqc"), 4, "--no-launch", "--tls-cert", cert, "--tls-key", key)
	defer sp.cmd.Process.Kill()
	cmd := exec.Command(filepath.Join(binaries(t), "eqclient"), "--server", sp.controlAddr(t), "--node", "render1")
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a plaintext client joined a TLS control port:\n%s", out)
	}
	if !strings.Contains(string(out), "TLS") {
		t.Errorf("the plaintext client's error does not name TLS:\n%s", out)
	}
}
