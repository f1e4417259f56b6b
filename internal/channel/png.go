package channel

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/goeq/goeq/internal/compound"
)

// EncodePNG encodes w x h RGBA8 pixels stored bottom-up (GL order) as PNG.
func EncodePNG(color []byte, w, h int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	stride := 4 * w
	for y := 0; y < h; y++ {
		copy(img.Pix[y*stride:(y+1)*stride], color[(h-1-y)*stride:(h-y)*stride])
	}
	// a window shows colour; its alpha (left behind by anaglyph masks and
	// blending) would only make the file look transparent
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WritePNG writes pixels (bottom-up RGBA8) to a PNG file. The file
// appears whole or not at all: it is written beside its name and renamed,
// so a full disk or a crash leaves no truncated image that looks like a
// frame.
func WritePNG(path string, color []byte, w, h int) error {
	b, err := EncodePNG(color, w, h)
	if err != nil {
		return err
	}
	f, err := createBeside(path)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// pendingFiles numbers the hidden files WritePNG writes into.
var pendingFiles atomic.Int64

// createBeside creates a new hidden file in path's folder with
// os.WriteFile's permissions, 0644 less the umask (os.CreateTemp's are
// 0600 whatever the umask).
func createBeside(path string) (*os.File, error) {
	for {
		name := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.%d", filepath.Base(path), os.Getpid(), pendingFiles.Add(1)))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// DumpPath is where a channel's frame is written: the channel's dump_image
// attribute is a path prefix ("dump" writes dump000042.png; a relative
// prefix goes under outDir when there is one); otherwise outDir (if set)
// gets <label>-<frame>.png. Empty means no file.
func DumpPath(ch *compound.Channel, outDir string, frame int) string {
	if prefix := ch.Attributes["dump_image"]; prefix != "" {
		if outDir != "" && !filepath.IsAbs(prefix) {
			prefix = filepath.Join(outDir, prefix)
		}
		return fmt.Sprintf("%s%06d.png", prefix, frame)
	}
	if outDir == "" {
		return ""
	}
	return LabelPath(ch, outDir, frame)
}

// LabelPath is <dir>/<label>-<frame>.png: a channel's image of a frame
// named by the channel.
func LabelPath(ch *compound.Channel, dir string, frame int) string {
	name := ch.Label
	if name == "" {
		name = ch.Name
	}
	if name == "" {
		name = "channel"
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%06d.png", name, frame))
}
