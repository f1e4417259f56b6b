package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/procstat"
)

// A file that fails to load leaves no file open, whatever its format and
// wherever it breaks: a viewer that tries one bad file after another
// would otherwise run out of descriptors (the DICOM reader kept every
// file that was not DICOM, or whose header it refused, open). Every test
// file is loaded whole and cut short at several places, as a model and
// as a volume.
func TestFilesThatFailToLoadAreClosed(t *testing.T) {
	var files []string
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "fuzz":
			return filepath.SkipDir
		case d.IsDir() || strings.HasSuffix(path, ".py"):
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() <= 1<<20 {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := procstat.OpenFiles()
	if before < 0 {
		t.Fatal("no /proc/self/fd to count open files in")
	}
	failed := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{len(b), len(b) * 9 / 10, len(b) / 2, len(b) / 7, 140, 3} {
			n = min(n, len(b))
			// a folder of its own: a DICOM slice loads its whole folder
			dir := t.TempDir()
			cut := filepath.Join(dir, filepath.Base(path))
			if err := os.WriteFile(cut, b[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadModel(cut); err != nil {
				failed++
			}
			if _, err := LoadVolume(cut); err != nil {
				failed++
			}
			if open := procstat.OpenFiles(); open != before {
				t.Fatalf("%s cut to %d of its %d bytes: %d files open after loading it, %d before", path, n, len(b), open, before)
			}
		}
	}
	if failed < len(files) {
		t.Errorf("only %d loads of %d files failed: the cuts do not break them", failed, len(files))
	}
}
