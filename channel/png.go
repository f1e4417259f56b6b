package channel

import (
	"bytes"
	"image"
	"image/png"
	"os"
)

// EncodePNG encodes w x h RGBA8 pixels stored bottom-up (GL order) as PNG.
func EncodePNG(color []byte, w, h int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	stride := 4 * w
	for y := 0; y < h; y++ {
		copy(img.Pix[y*stride:(y+1)*stride], color[(h-1-y)*stride:(h-y)*stride])
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WritePNG writes pixels (bottom-up RGBA8) to a PNG file.
func WritePNG(path string, color []byte, w, h int) error {
	b, err := EncodePNG(color, w, h)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
