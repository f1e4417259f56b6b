package control

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// A server killed with SIGKILL cannot take away its token folder; the
// next run that writes one takes away those whose server is gone, and
// leaves those of running servers, those still being made, and a link
// that looks like one.
func TestWriteTokenFileTakesAwayKilledServersFolders(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	killed := exec.Command("sleep", "60")
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	killed.Process.Kill()
	killed.Wait()
	folder := func(name, pid string) string {
		dir := filepath.Join(tmp, "goeq-run-"+name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if pid != "" {
			if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(pid+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "token"), []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	orphan := folder("killed", strconv.Itoa(killed.Process.Pid))
	running := folder("running", strconv.Itoa(os.Getpid()))
	beingMade := folder("new", "")
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "pid"), []byte(strconv.Itoa(killed.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "goeq-run-link")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}

	path, remove, err := WriteTokenFile("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if token, err := ReadTokenFile(path); err != nil || token != "s3cret" {
		t.Errorf("the new token file: %q, %v", token, err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the killed server's folder is still there: %v", err)
	}
	for _, dir := range []string{running, beingMade, link, filepath.Join(elsewhere, "pid")} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was taken away: %v", dir, err)
		}
	}
	remove()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("remove left the folder: %v", err)
	}
}
