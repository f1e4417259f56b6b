package render

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Lossless JPEG (ITU T.81's process 14, Huffman coded), as DICOM's JPEG
// lossless transfer syntaxes hold CT and MR slices: each sample is
// predicted from its neighbours, and the difference is Huffman coded.
// goeq decodes one-component (grey) images of 2 to 16 bits.

// jpegHuffman is a Huffman table: the codes of each length, in order,
// and the value each stands for.
type jpegHuffman struct {
	// maxCode[l] is the greatest code of length l (-1: none), and
	// firstValue[l] the index in values of the first one; firstCode[l]
	// its code
	maxCode    [17]int32
	firstCode  [17]int32
	firstValue [17]int32
	values     []byte
}

func newJPEGHuffman(counts [16]byte, values []byte) (*jpegHuffman, error) {
	h := &jpegHuffman{values: values}
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		h.firstCode[l], h.firstValue[l] = code, k
		if n == 0 {
			h.maxCode[l] = -1
		} else {
			h.maxCode[l] = code + n - 1
		}
		code, k = (code+n)<<1, k+n
		if code > 1<<(l+1) {
			return nil, errors.New("a Huffman table of more codes than its lengths hold")
		}
	}
	if int(k) != len(values) {
		return nil, errors.New("a Huffman table whose counts are not its values'")
	}
	return h, nil
}

// jpegBits reads the entropy-coded data: bits from the most significant,
// a stuffed 0 after each FF dropped; a marker ends them. acc holds the
// next bits from its top; past the data's end it fills with zeros, which
// over counts, and a read into them is the data ending early.
type jpegBits struct {
	data   []byte
	at     int
	acc    uint64
	n      int  // bits in acc
	over   int  // of them, zeros past the data's end
	marker bool // a marker came: only zeros follow
}

// fill tops acc up to more than 56 bits.
func (b *jpegBits) fill() {
	for b.n <= 56 {
		var c byte
		switch {
		case b.marker || b.at >= len(b.data):
			b.over += 8
		case b.data[b.at] != 0xFF:
			c = b.data[b.at]
			b.at++
		case b.at+1 < len(b.data) && b.data[b.at+1] == 0: // a stuffed FF
			c = 0xFF
			b.at += 2
		default: // a marker: the data end here
			b.marker = true
			b.over += 8
		}
		b.acc |= uint64(c) << (56 - b.n)
		b.n += 8
	}
}

// take reads k bits (at most 16).
func (b *jpegBits) take(k int) (uint32, error) {
	if k == 0 {
		return 0, nil
	}
	b.fill()
	v := uint32(b.acc >> (64 - k))
	b.acc <<= k
	b.n -= k
	if b.n < b.over {
		return 0, errors.New("the compressed data ends early")
	}
	return v, nil
}

func (b *jpegBits) decode(h *jpegHuffman) (byte, error) {
	b.fill()
	for l := 1; l <= 16; l++ {
		code := int32(b.acc >> (64 - l))
		if code <= h.maxCode[l] {
			b.acc <<= l
			b.n -= l
			if b.n < b.over {
				return 0, errors.New("the compressed data ends early")
			}
			return h.values[h.firstValue[l]+code-h.firstCode[l]], nil
		}
	}
	return 0, errors.New("a code no Huffman table holds")
}

// restart moves past a restart marker (RSTn), the bits before it left.
func (b *jpegBits) restart() error {
	b.acc, b.n, b.over, b.marker = 0, 0, 0, false
	if b.at+1 < len(b.data) && b.data[b.at] == 0xFF && b.data[b.at+1]&0xF8 == 0xD0 {
		b.at += 2
		return nil
	}
	return errors.New("a restart marker missing")
}

// decodeLosslessJPEG decodes a lossless JPEG image of one component,
// w×h samples (its frame header's sides must be these), into its samples,
// row by row, and its precision (bits).
func decodeLosslessJPEG(data []byte, w, h int) (samples []uint16, precision int, err error) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return nil, 0, errors.New("no JPEG start (FFD8)")
	}
	sized := false
	tables := map[int]*jpegHuffman{}
	restartInterval := 0
	at := 2
	for {
		// a marker: FF (fill FFs) and its code
		for at < len(data) && data[at] == 0xFF && at+1 < len(data) && data[at+1] == 0xFF {
			at++
		}
		if at+4 > len(data) || data[at] != 0xFF {
			return nil, 0, errors.New("the JPEG data ends before its scan")
		}
		marker := data[at+1]
		length := int(binary.BigEndian.Uint16(data[at+2:]))
		if length < 2 || at+2+length > len(data) {
			return nil, 0, fmt.Errorf("JPEG segment FF%02X of %d bytes, past the data's end", marker, length)
		}
		seg := data[at+4 : at+2+length]
		at += 2 + length
		switch {
		case marker == 0xC3: // SOF3: lossless, Huffman coded
			if len(seg) < 6 {
				return nil, 0, errors.New("a short frame header")
			}
			precision = int(seg[0])
			fh, fw := int(binary.BigEndian.Uint16(seg[1:])), int(binary.BigEndian.Uint16(seg[3:]))
			switch {
			case seg[5] != 1:
				return nil, 0, fmt.Errorf("a lossless JPEG of %d components: goeq reads grey ones", seg[5])
			case fw != w || fh != h:
				return nil, 0, fmt.Errorf("a JPEG image of %d×%d, in a slice of %d×%d", fw, fh, w, h)
			case precision < 2 || precision > 16:
				return nil, 0, fmt.Errorf("a lossless JPEG of %d bits", precision)
			}
			sized = true
		case marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
			return nil, 0, fmt.Errorf("JPEG frame FF%02X: goeq decodes lossless JPEG (FFC3)", marker)
		case marker == 0xC4: // DHT
			for len(seg) > 0 {
				if len(seg) < 17 {
					return nil, 0, errors.New("a short Huffman table")
				}
				var counts [16]byte
				copy(counts[:], seg[1:17])
				n := 0
				for _, c := range counts {
					n += int(c)
				}
				if len(seg) < 17+n {
					return nil, 0, errors.New("a short Huffman table")
				}
				t, err := newJPEGHuffman(counts, seg[17:17+n])
				if err != nil {
					return nil, 0, err
				}
				tables[int(seg[0])] = t
				seg = seg[17+n:]
			}
		case marker == 0xDD: // DRI
			if len(seg) < 2 {
				return nil, 0, errors.New("a short restart interval")
			}
			restartInterval = int(binary.BigEndian.Uint16(seg))
		case marker == 0xDA: // SOS: the scan, then its data
			if !sized {
				return nil, 0, errors.New("a JPEG scan before its frame header")
			}
			if len(seg) < 6 || seg[0] != 1 {
				return nil, 0, errors.New("a JPEG scan of other than one component")
			}
			table := tables[int(seg[2]>>4)] // a DC table (class 0)
			if table == nil {
				return nil, 0, errors.New("a JPEG scan's Huffman table missing")
			}
			predictor, transform := int(seg[3]), int(seg[5]&0x0F)
			if predictor < 1 || predictor > 7 || transform >= precision {
				return nil, 0, fmt.Errorf("a lossless JPEG of predictor %d, point transform %d", predictor, transform)
			}
			samples, err := losslessScan(&jpegBits{data: data[at:]}, table, w, h, precision, predictor, transform, restartInterval)
			return samples, precision, err
		case marker == 0xD9:
			return nil, 0, errors.New("the JPEG data ends before its scan")
		}
	}
}

// losslessScan decodes a scan's samples: each predicted from its left
// (a), upper (b) and upper left (c) neighbours by predictor (1 to 7), the
// first row's from the left and the first column's from above; the first
// sample of the image and of each restart interval from half the range.
func losslessScan(b *jpegBits, table *jpegHuffman, w, h, precision, predictor, transform, restart int) ([]uint16, error) {
	out := make([]uint16, w*h)
	mask := int32(1)<<(precision-transform) - 1
	half := int32(1) << (precision - transform - 1)
	firstRow := true // the row after a restart is predicted as the first
	for i := range out {
		x := i % w
		restarted := restart > 0 && i > 0 && i%restart == 0
		if restarted {
			if err := b.restart(); err != nil {
				return nil, err
			}
		}
		if i == 0 || restarted {
			firstRow = true
		} else if x == 0 {
			firstRow = false
		}
		var p int32
		switch {
		case i == 0 || restarted:
			p = half
		case firstRow:
			p = int32(out[i-1])
		case x == 0:
			p = int32(out[i-w])
		default:
			a, bb, c := int32(out[i-1]), int32(out[i-w]), int32(out[i-w-1])
			switch predictor {
			case 1:
				p = a
			case 2:
				p = bb
			case 3:
				p = c
			case 4:
				p = a + bb - c
			case 5:
				p = a + (bb-c)>>1
			case 6:
				p = bb + (a-c)>>1
			default:
				p = (a + bb) >> 1
			}
		}
		s, err := b.decode(table)
		if err != nil {
			return nil, err
		}
		var diff int32
		switch {
		case s == 0:
		case s == 16:
			diff = 32768
		case s > 16:
			return nil, fmt.Errorf("a difference of %d bits", s)
		default:
			v, err := b.take(int(s))
			if err != nil {
				return nil, err
			}
			diff = int32(v)
			if v < 1<<(s-1) { // the negative half
				diff -= 1<<s - 1
			}
		}
		out[i] = uint16((p + diff) & mask)
	}
	if transform > 0 {
		for i := range out {
			out[i] <<= transform
		}
	}
	return out, nil
}
