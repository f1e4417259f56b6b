package channel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"

	"github.com/goeq/goeq/internal/compound"
)

// EncodePNG encodes w x h RGBA8 pixels stored bottom-up (GL order) as PNG:
// RGB (a window shows colour; its alpha, left behind by anaglyph masks and
// blending, would only make the file look transparent), every row with
// the Sub filter, deflated at klauspost's fastest level. With dump_image
// every frame is written: for a rendered 1920x1080 frame image/png took
// 151 ms at its default level and 106 at BestSpeed, and this takes 29
// (BenchmarkEncodePNG), for a file 7-27% larger than the default's
// (docs/runtime.md, "Images").
func EncodePNG(color []byte, w, h int) ([]byte, error) {
	if w <= 0 || h <= 0 || len(color) < 4*w*h {
		return nil, fmt.Errorf("png: %d bytes of pixels for %dx%d", len(color), w, h)
	}
	var b bytes.Buffer
	b.Grow(w * h / 2)
	b.WriteString("\x89PNG\r\n\x1a\n")
	var header [13]byte
	binary.BigEndian.PutUint32(header[0:], uint32(w))
	binary.BigEndian.PutUint32(header[4:], uint32(h))
	header[8], header[9] = 8, 2 // 8 bits, RGB; deflate, adaptive filters, no interlace
	writeChunk(&b, "IHDR", header[:])
	idat := bufio.NewWriterSize(chunkWriter{&b, "IDAT"}, 64<<10)
	z, err := zlib.NewWriterLevel(idat, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	row := make([]byte, 1+3*w)
	row[0] = 1 // Sub: each byte less the same channel's of the pixel to its left
	for y := h - 1; y >= 0; y-- {
		src := color[4*w*y : 4*w*(y+1)]
		var left [3]byte
		for x := 0; x < w; x++ {
			p, d := src[4*x:4*x+3:4*x+3], row[1+3*x:4+3*x:4+3*x]
			d[0], d[1], d[2] = p[0]-left[0], p[1]-left[1], p[2]-left[2]
			left = [3]byte{p[0], p[1], p[2]}
		}
		if _, err := z.Write(row); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	if err := idat.Flush(); err != nil {
		return nil, err
	}
	writeChunk(&b, "IEND", nil)
	return b.Bytes(), nil
}

// writeChunk appends a PNG chunk: length, type, data and CRC.
func writeChunk(b *bytes.Buffer, kind string, data []byte) {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], kind)
	crc := crc32.Update(crc32.ChecksumIEEE(head[4:]), crc32.IEEETable, data)
	b.Write(head[:])
	b.Write(data)
	b.Write(binary.BigEndian.AppendUint32(nil, crc))
}

// chunkWriter makes each write a chunk of its kind (the deflated stream
// goes out in IDAT chunks of the buffer's size).
type chunkWriter struct {
	b    *bytes.Buffer
	kind string
}

func (c chunkWriter) Write(p []byte) (int, error) {
	writeChunk(c.b, c.kind, p)
	return len(p), nil
}

// WritePNG writes pixels (bottom-up RGBA8) to a PNG file. The file
// appears whole or not at all. Where the kernel can (Linux's O_TMPFILE),
// it is written with no name and named once whole, so even a process
// killed mid-write (a client stopped past the server's grace) leaves
// nothing behind; elsewhere it is written into a hidden file beside its
// name and renamed.
func WritePNG(path string, color []byte, w, h int) error {
	b, err := EncodePNG(color, w, h)
	if err != nil {
		return err
	}
	f, named, err := createPending(path)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil && !named {
		err = nameUnnamed(f, path)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && named {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		if named {
			os.Remove(f.Name())
		}
		// the pending file's name would only confuse: say the image's
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return err
	}
	return nil
}

// pendingFiles numbers the hidden files WritePNG writes into.
var pendingFiles atomic.Int64

// createPending opens the file an image is written into before it is
// named path: an unnamed one where the kernel makes them (named false),
// or else a new hidden one in path's folder. Both get os.WriteFile's
// permissions, 0644 less the umask (os.CreateTemp's are 0600 whatever
// the umask). A folder that is not there yet is made, as --out's is: a
// dump_image prefix names one (a job script's folder for the frames).
func createPending(path string) (f *os.File, named bool, err error) {
	f, named, err = openPending(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, false, err
		}
		f, named, err = openPending(path)
	}
	return f, named, err
}

func openPending(path string) (f *os.File, named bool, err error) {
	if f, err := createUnnamed(filepath.Dir(path)); err == nil {
		return f, false, nil
	} else if !errors.Is(err, errors.ErrUnsupported) {
		return nil, false, err
	}
	f, err = createHidden(path)
	return f, true, err
}

// createHidden creates a new hidden file in path's folder.
func createHidden(path string) (*os.File, error) {
	for {
		name := hiddenName(path)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

func hiddenName(path string) string {
	return filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.%d", filepath.Base(path), os.Getpid(), pendingFiles.Add(1)))
}

// DumpPath is where a channel's frame is written: the channel's dump_image
// attribute is a path prefix ("dump" writes dump000042.png, or
// dump<label>-000042.png where channels that show together share the
// prefix; a relative prefix goes under outDir when there is one);
// otherwise outDir (if set) gets <label>-<frame>.png. Empty means no file.
func DumpPath(ch *compound.Channel, outDir string, frame int) string {
	if prefix := ch.Attributes["dump_image"]; prefix != "" {
		if outDir != "" && !filepath.IsAbs(prefix) {
			prefix = filepath.Join(outDir, prefix)
		}
		if ch.SharedDump {
			return fmt.Sprintf("%s%s-%06d.png", prefix, ch.Label, frame)
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
