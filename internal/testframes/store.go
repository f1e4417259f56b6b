package testframes

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Stored frames, written by `go run ./cmd/goeq-testframes` into
// compressor/testdata and read by the codec tests.
var Stored = []struct {
	Name     string
	W, H     int
	Textured bool
}{
	{"spheres", 960, 540, false},
	{"spheres-textured", 960, 540, true},
}

// Write stores f as NAME.png (colour) and NAME.depth.gz (gzip'd
// little-endian float32 depth) in dir.
func Write(dir, name string, f *Frame) error {
	img := &image.NRGBA{Pix: flipRows(f.Color, 4*f.W), Stride: 4 * f.W, Rect: image.Rect(0, 0, f.W, f.H)}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o644); err != nil {
		return err
	}
	b.Reset()
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	z.Write(f.DepthBytes())
	z.Close()
	return os.WriteFile(filepath.Join(dir, name+".depth.gz"), b.Bytes(), 0o644)
}

// Read loads a stored frame.
func Read(dir, name string) (*Frame, error) {
	pf, err := os.Open(filepath.Join(dir, name+".png"))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		return nil, err
	}
	// The encoder stores opaque frames as RGB; normalise to RGBA8.
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	n := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(n, n.Rect, img, img.Bounds().Min, draw.Src)
	f := &Frame{W: w, H: h, Color: flipRows(n.Pix, 4*w), Depth: make([]float32, w*h)}
	df, err := os.Open(filepath.Join(dir, name+".depth.gz"))
	if err != nil {
		return nil, err
	}
	defer df.Close()
	z, err := gzip.NewReader(df)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(z, int64(4*w*h+1)))
	if err != nil {
		return nil, err
	}
	if len(raw) != 4*w*h {
		return nil, fmt.Errorf("%s.depth.gz: %d bytes, want %d", name, len(raw), 4*w*h)
	}
	for i := range f.Depth {
		f.Depth[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return f, nil
}

// flipRows converts between the frame's bottom-up rows and PNG's top-down.
func flipRows(pix []byte, stride int) []byte {
	out := make([]byte, len(pix))
	rows := len(pix) / stride
	for r := 0; r < rows; r++ {
		copy(out[r*stride:(r+1)*stride], pix[(rows-1-r)*stride:(rows-r)*stride])
	}
	return out
}
