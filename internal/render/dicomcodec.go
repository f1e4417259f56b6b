package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"os"
)

// dicomCodec is how a transfer syntax holds a slice's pixels.
type dicomCodec int

const (
	codecNone         dicomCodec = iota // uncompressed
	codecJPEGLossless                   // lossless JPEG (process 14)
	codecJPEGBaseline                   // 8-bit lossy JPEG (process 1)
	codecRLE                            // DICOM's RLE (PackBits in byte planes)
)

// maxFragments bounds an encapsulated pixel data's items.
const maxFragments = 1 << 20

// fragment is an encapsulated pixel data's item: where its bytes lie in
// the file, and where its item begins after the first fragment's (as the
// basic offset table counts).
type fragment struct {
	at, size int64
	item     int64
}

// readFragments reads an encapsulated pixel data's items from at (just
// after its element's header) in f: the basic offset table, then the
// fragments, up to the sequence's delimiter.
func readFragments(f *os.File, at, size int64) (offsets []uint32, frags []fragment, err error) {
	var first int64 = -1
	for i := 0; ; i++ {
		var head [8]byte
		if _, err := f.ReadAt(head[:], at); err != nil {
			return nil, nil, errors.New("its compressed pixel data ends early")
		}
		tag := dicomTag(uint32(binary.LittleEndian.Uint16(head[0:]))<<16 | uint32(binary.LittleEndian.Uint16(head[2:])))
		length := int64(binary.LittleEndian.Uint32(head[4:]))
		switch {
		case tag == tagSequenceEnd:
			if len(frags) == 0 {
				return nil, nil, errors.New("its compressed pixel data holds no fragment")
			}
			return offsets, frags, nil
		case tag != tagItem:
			return nil, nil, fmt.Errorf("(%04X,%04X) in its compressed pixel data, where a fragment belongs", uint32(tag)>>16, uint32(tag)&0xFFFF)
		case length == undefinedLength || length > size-at-8:
			return nil, nil, fmt.Errorf("a fragment of %d bytes, past the file's end", length)
		case i > maxFragments:
			return nil, nil, fmt.Errorf("more than %d fragments of compressed pixel data", maxFragments)
		}
		if i == 0 { // the basic offset table: where each frame's first fragment begins
			if length%4 != 0 || length/4 > MaxVolumeSide {
				return nil, nil, fmt.Errorf("a basic offset table of %d bytes", length)
			}
			table := make([]byte, length)
			if _, err := f.ReadAt(table, at+8); err != nil {
				return nil, nil, errors.New("its compressed pixel data ends early")
			}
			for k := 0; k < len(table); k += 4 {
				offsets = append(offsets, binary.LittleEndian.Uint32(table[k:]))
			}
		} else {
			if first < 0 {
				first = at
			}
			frags = append(frags, fragment{at: at + 8, size: length, item: at - first})
		}
		at += 8 + length
	}
}

// frameFragments are the fragments of each of the slice's frames: by its
// basic offset table, or one a frame, or all of them a single frame's.
// Where neither fits, JPEG frames are told apart by their ends (nil: by
// their data, see splitJPEG).
func (s *dicomSlice) frameFragments() ([][]fragment, error) {
	switch {
	case s.frames == 1:
		return [][]fragment{s.fragments}, nil
	case len(s.offsets) == s.frames:
		frames := make([][]fragment, s.frames)
		k := 0
		for f := range frames {
			end := int64(-1)
			if f+1 < s.frames {
				end = int64(s.offsets[f+1])
			}
			for ; k < len(s.fragments) && (end < 0 || s.fragments[k].item < end); k++ {
				frames[f] = append(frames[f], s.fragments[k])
			}
			if len(frames[f]) == 0 {
				return nil, fmt.Errorf("frame %d has no fragment by the basic offset table", f+1)
			}
		}
		return frames, nil
	case len(s.fragments) == s.frames:
		frames := make([][]fragment, s.frames)
		for f := range frames {
			frames[f] = s.fragments[f : f+1]
		}
		return frames, nil
	case s.codec == codecRLE:
		return nil, fmt.Errorf("%d RLE fragments for %d frames, and no basic offset table to tell them apart", len(s.fragments), s.frames)
	}
	return nil, nil
}

// decodedFrames reads a compressed slice's pixels, frame after frame,
// decoded to its uncompressed bytes (little endian).
type decodedFrames struct {
	s      *dicomSlice
	f      *os.File
	frames [][]fragment // nil: JPEG frames, told apart by their data
	next   int
	joined [][]byte // the JPEG frames of a file whose fragments do not say
	cur    bytes.Reader
}

func (d *decodedFrames) Read(p []byte) (int, error) {
	for d.cur.Len() == 0 {
		if d.next >= d.s.frames {
			return 0, io.EOF
		}
		data, err := d.frame(d.next)
		if err != nil {
			return 0, fmt.Errorf("frame %d: %w", d.next+1, err)
		}
		d.next++
		d.cur.Reset(data)
	}
	return d.cur.Read(p)
}

// frame decodes frame k.
func (d *decodedFrames) frame(k int) ([]byte, error) {
	var data []byte
	if d.frames == nil {
		if d.joined == nil {
			all, err := d.read(d.s.fragments)
			if err != nil {
				return nil, err
			}
			if d.joined = splitJPEG(all); len(d.joined) != d.s.frames {
				return nil, fmt.Errorf("%d JPEG images in the pixel data of %d frames", len(d.joined), d.s.frames)
			}
		}
		data = d.joined[k]
	} else {
		var err error
		if data, err = d.read(d.frames[k]); err != nil {
			return nil, err
		}
	}
	s := d.s
	size := s.bits / 8
	out := make([]byte, s.rows*s.columns*size)
	switch s.codec {
	case codecRLE:
		return out, decodeDICOMRLE(data, out, size)
	case codecJPEGBaseline:
		if size != 1 {
			return nil, fmt.Errorf("a JPEG baseline image of %d bits allocated; it holds 8", s.bits)
		}
		// its header's sides first: the image is made for them
		if c, err := jpeg.DecodeConfig(bytes.NewReader(data)); err != nil {
			return nil, err
		} else if c.Width != s.columns || c.Height != s.rows {
			return nil, fmt.Errorf("a JPEG image of %d×%d, in a slice of %d×%d", c.Width, c.Height, s.columns, s.rows)
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		g, ok := img.(*image.Gray)
		if !ok || g.Rect.Dx() != s.columns || g.Rect.Dy() != s.rows {
			return nil, fmt.Errorf("a JPEG image of %v (%T), not %d×%d grey", img.Bounds().Size(), img, s.columns, s.rows)
		}
		for y := range s.rows {
			copy(out[y*s.columns:], g.Pix[y*g.Stride:y*g.Stride+s.columns])
		}
		return out, nil
	}
	samples, precision, err := decodeLosslessJPEG(data, s.columns, s.rows)
	switch {
	case err != nil:
		return nil, err
	case precision > s.bits || size > 2:
		return nil, fmt.Errorf("a JPEG image of %d bits, in %d bits allocated", precision, s.bits)
	}
	for i, v := range samples {
		if size == 1 {
			out[i] = byte(v)
		} else {
			binary.LittleEndian.PutUint16(out[2*i:], v)
		}
	}
	return out, nil
}

// read reads fragments' bytes, one after another.
func (d *decodedFrames) read(frags []fragment) ([]byte, error) {
	var n int64
	for _, f := range frags {
		n += f.size
	}
	if n > maxCompressedFrame {
		return nil, fmt.Errorf("%d bytes of compressed data for a frame: more than %d", n, maxCompressedFrame)
	}
	data := make([]byte, 0, n)
	for _, f := range frags {
		start := len(data)
		data = data[:start+int(f.size)]
		if _, err := d.f.ReadAt(data[start:], f.at); err != nil {
			return nil, endedEarly(err)
		}
	}
	return data, nil
}

// maxCompressedFrame bounds a frame's compressed bytes: a 65536² slice of
// 32 bits, uncompressed, and room for its coding.
const maxCompressedFrame = 1 << 35

// splitJPEG tells JPEG images apart where they follow one another: each
// ends with its EOI (FFD9), which its coded data cannot hold (an FF there
// is followed by 00 or a restart's D0-D7).
func splitJPEG(data []byte) [][]byte {
	var images [][]byte
	start := 0
	for i := 0; i+1 < len(data); i++ {
		if data[i] == 0xFF && data[i+1] == 0xD9 {
			images = append(images, data[start:i+2])
			start = i + 2
			for start < len(data) && data[start] != 0xFF { // a fragment's padding
				start++
			}
			i = start - 1
		}
	}
	return images
}

// decodeDICOMRLE decodes an RLE frame (DICOM PS3.5 annex G) into out,
// samples of size bytes, little endian: its header's segments hold the
// samples' bytes, most significant first, each PackBits coded.
func decodeDICOMRLE(data, out []byte, size int) error {
	if len(data) < 64 {
		return errors.New("an RLE frame shorter than its header")
	}
	segments := int(binary.LittleEndian.Uint32(data))
	if segments != size {
		return fmt.Errorf("an RLE frame of %d segments, for samples of %d bytes", segments, size)
	}
	n := len(out) / size
	plane := make([]byte, n)
	for k := range segments {
		start := int64(binary.LittleEndian.Uint32(data[4+4*k:]))
		end := int64(len(data))
		if k+1 < segments {
			end = int64(binary.LittleEndian.Uint32(data[8+4*k:]))
		}
		if start < 64 || start > end || end > int64(len(data)) {
			return fmt.Errorf("RLE segment %d at bytes %d to %d of %d", k+1, start, end, len(data))
		}
		if err := unpackBits(data[start:end], plane); err != nil {
			return fmt.Errorf("RLE segment %d: %w", k+1, err)
		}
		b := size - 1 - k // the segments go from the most significant byte
		for i, v := range plane {
			out[i*size+b] = v
		}
	}
	return nil
}

// unpackBits decodes PackBits into out, filling it.
func unpackBits(in, out []byte) error {
	at := 0
	for i := 0; at < len(out); {
		if i >= len(in) {
			return fmt.Errorf("it decodes to %d bytes of %d", at, len(out))
		}
		n := int(int8(in[i]))
		i++
		switch {
		case n >= 0: // n+1 bytes as they are
			if i+n+1 > len(in) || at+n+1 > len(out) {
				return errors.New("a literal run past its end")
			}
			at += copy(out[at:], in[i:i+n+1])
			i += n + 1
		case n == -128:
		default: // the next byte, 1-n times
			if i >= len(in) || at+1-n > len(out) {
				return errors.New("a repeat run past its end")
			}
			for range 1 - n {
				out[at] = in[i]
				at++
			}
			i++
		}
	}
	return nil
}
