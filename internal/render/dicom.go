package render

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A DICOM series is a folder of files, a slice each, as CT and MR
// scanners write them (DICOM Part 10: a preamble, "DICM", the file's meta
// group, then its data set), or one file of many frames (an enhanced
// image's placed, spaced and scaled by its functional groups). goeq reads
// the data sets uncompressed, in lossless JPEG, RLE or baseline JPEG
// (dicomcodec.go) and, of their elements, only what places the slices
// and scales their values.

// dicomTag is an element's group and element number, as one number.
type dicomTag uint32

const (
	tagTransferSyntax   dicomTag = 0x0002_0010
	tagSliceThickness   dicomTag = 0x0018_0050
	tagSliceSpacing     dicomTag = 0x0018_0088
	tagSeriesUID        dicomTag = 0x0020_000E
	tagInstanceNumber   dicomTag = 0x0020_0013
	tagPosition         dicomTag = 0x0020_0032
	tagOrientation      dicomTag = 0x0020_0037
	tagSamplesPerPixel  dicomTag = 0x0028_0002
	tagFrames           dicomTag = 0x0028_0008
	tagRows             dicomTag = 0x0028_0010
	tagColumns          dicomTag = 0x0028_0011
	tagPixelSpacing     dicomTag = 0x0028_0030
	tagBitsAllocated    dicomTag = 0x0028_0100
	tagBitsStored       dicomTag = 0x0028_0101
	tagPixelSign        dicomTag = 0x0028_0103
	tagRescaleIntercept dicomTag = 0x0028_1052
	tagRescaleSlope     dicomTag = 0x0028_1053
	tagPixelData        dicomTag = 0x7FE0_0010
	tagDirectoryRecords dicomTag = 0x0004_1220 // a DICOMDIR's records, an item each
	tagRecordType       dicomTag = 0x0004_1430
	tagReferencedFile   dicomTag = 0x0004_1500
	tagSharedGroups     dicomTag = 0x5200_9229 // an enhanced image's functional groups of every frame
	tagPerFrameGroups   dicomTag = 0x5200_9230 // and of each frame, an item a frame
	tagItem             dicomTag = 0xFFFE_E000
	tagItemEnd          dicomTag = 0xFFFE_E00D
	tagSequenceEnd      dicomTag = 0xFFFE_E0DD
)

// groupSequences are the sequences goeq reads into: an enhanced image's
// functional groups (it has no ImagePositionPatient, PixelSpacing or
// rescale of its own: its groups hold them), and in them the plane
// position, plane orientation, pixel measures and value transformation
// groups. Other sequences are read past.
var groupSequences = map[dicomTag]bool{
	tagDirectoryRecords: true,
	tagSharedGroups:     true, tagPerFrameGroups: true,
	0x0020_9113: true, 0x0020_9116: true, 0x0028_9110: true, 0x0028_9145: true,
}

// undefinedLength is the length of a sequence or item that ends with a
// delimiter.
const undefinedLength = 0xFFFF_FFFF

// maxDICOMHeader bounds the elements read before a file's pixels: a
// slice's are a few kilobytes (a scanner's private ones some hundreds).
const maxDICOMHeader = 16 << 20

// dicomSyntax is how a transfer syntax writes a data set.
type dicomSyntax struct {
	implicit bool // implicit VR
	order    binary.ByteOrder
	codec    dicomCodec
}

// dicomSyntaxes are the transfer syntaxes goeq reads: uncompressed, and
// the compressed ones PACS and scanners hand CT and MR out in most
// (lossless JPEG, RLE) and 8-bit baseline JPEG.
var dicomSyntaxes = map[string]dicomSyntax{
	"1.2.840.10008.1.2":      {true, binary.LittleEndian, codecNone},
	"1.2.840.10008.1.2.1":    {false, binary.LittleEndian, codecNone},
	"1.2.840.10008.1.2.2":    {false, binary.BigEndian, codecNone},
	"1.2.840.10008.1.2.4.57": {false, binary.LittleEndian, codecJPEGLossless},
	"1.2.840.10008.1.2.4.70": {false, binary.LittleEndian, codecJPEGLossless}, // its first predictor
	"1.2.840.10008.1.2.4.50": {false, binary.LittleEndian, codecJPEGBaseline},
	"1.2.840.10008.1.2.5":    {false, binary.LittleEndian, codecRLE},
}

// dicomSlice is what goeq takes of one file of a series.
type dicomSlice struct {
	path             string
	series           string
	instance         int
	rows, columns    int
	frames           int
	samples          int
	bits, stored     int
	signed           bool
	order            binary.ByteOrder
	position         []float64   // ImagePositionPatient, or nil
	framePositions   [][]float64 // each frame's, of an enhanced image's per-frame groups (nil: none)
	orientation      []float64   // ImageOrientationPatient, or nil
	pixelSpacing     []float64   // rows apart, columns apart
	thickness        float64
	spacing          float64 // SpacingBetweenSlices
	slope, intercept float64
	pixels           int64 // the pixel data's offset in the file
	pixelBytes       int64
	codec            dicomCodec
	offsets          []uint32   // a compressed pixel data's basic offset table
	fragments        []fragment // and its fragments
}

// isDICOM reports whether the file at path begins as a DICOM file does.
func isDICOM(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [132]byte
	_, err = io.ReadFull(f, head[:])
	return err == nil && string(head[128:]) == "DICM"
}

// errNotDICOM is readDICOMSlice's error for a file without DICOM's mark.
var errNotDICOM = errors.New("not a DICOM file (no DICM after its 128-byte preamble)")

// errDICOMDIR is readDICOMSlice's error for a DICOMDIR: an index, of no
// pixels.
var errDICOMDIR = errors.New("a DICOMDIR: the index of a disc's files, not a slice")

// openDICOM opens a DICOM file and reads its meta group: r reads its data
// set next, in the transfer syntax ts.
func openDICOM(path string) (_ *os.File, r *dicomReader, ts dicomSyntax, err error) {
	// not a named result: each error's return sets that to nil before a
	// deferred close of it runs, and the file was left open
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, ts, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, ts, err
	}
	r = &dicomReader{r: bufio.NewReader(io.LimitReader(f, maxDICOMHeader)), size: st.Size(), order: binary.LittleEndian}
	var head [132]byte
	if _, err := io.ReadFull(r.r, head[:]); err != nil || string(head[128:]) != "DICM" {
		return nil, nil, ts, errNotDICOM
	}
	r.at = 132
	// the meta group: explicit VR, little endian, whatever follows
	syntax := ""
	for {
		next, err := r.r.Peek(2)
		if err != nil || binary.LittleEndian.Uint16(next) != 0x0002 {
			break
		}
		tag, value, err := r.element(false)
		if err == nil && r.sequence {
			err = r.group(false, tag, -1, nil)
		}
		if err != nil {
			return nil, nil, ts, fmt.Errorf("its meta group: %w", err)
		}
		if tag == tagTransferSyntax {
			syntax = strings.TrimRight(string(value), "\x00 ")
		}
	}
	ts, ok := dicomSyntaxes[syntax]
	switch {
	case syntax == "":
		return nil, nil, ts, errors.New("its meta group names no transfer syntax")
	case !ok:
		return nil, nil, ts, fmt.Errorf("transfer syntax %s: %s; goeq reads uncompressed DICOM, lossless JPEG, 8-bit baseline JPEG and RLE (decompress it first: gdcmconv --raw, or DCMTK's dcmdjpeg or dcmdjpls)", syntax, dicomSyntaxName(syntax))
	}
	r.order = ts.order
	return f, r, ts, nil
}

// readDICOMSlice reads a file's elements up to its pixel data.
func readDICOMSlice(path string) (dicomSlice, error) {
	s := dicomSlice{path: path, frames: 1, samples: 1, slope: 1}
	f, r, ts, err := openDICOM(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	s.order, s.codec = ts.order, ts.codec
	for {
		tag, value, err := r.element(ts.implicit)
		if errors.Is(err, io.EOF) {
			return s, errors.New("no pixel data")
		}
		if tag == tagDirectoryRecords {
			return s, errDICOMDIR
		}
		if err != nil {
			return s, err
		}
		if tag == tagPixelData {
			switch {
			case s.codec != codecNone && r.length != undefinedLength:
				return s, errors.New("its pixel data is not encapsulated, under a compressed transfer syntax")
			case s.codec != codecNone:
				if s.offsets, s.fragments, err = readFragments(f, r.at, r.size); err != nil {
					return s, err
				}
				return s, s.check()
			case r.length == undefinedLength:
				return s, errors.New("its pixel data is encapsulated (compressed) under an uncompressed transfer syntax")
			}
			s.pixels, s.pixelBytes = r.at, int64(r.length)
			if left := r.size - r.at; left < s.pixelBytes {
				return s, fmt.Errorf("its pixel data ends early: the file holds %d bytes of the %d its element says (cut short)", left, s.pixelBytes)
			}
			err := s.check()
			return s, err
		}
		if r.sequence {
			if err := r.group(ts.implicit, tag, -1, s.takeGrouped); err != nil {
				return s, err
			}
			continue
		}
		if err := s.take(tag, value, r.order); err != nil {
			return s, fmt.Errorf("element (%04X,%04X): %w", uint32(tag)>>16, uint32(tag)&0xFFFF, err)
		}
	}
}

// take keeps an element's value where it is one goeq reads. An empty one
// (DICOM's type 2 elements may be) is as absent.
func (s *dicomSlice) take(tag dicomTag, value []byte, order binary.ByteOrder) error {
	text := strings.TrimRight(string(value), "\x00 ") // for the text VRs (DS, IS, UI)
	numbers := func(dst *[]float64) error {
		if text == "" {
			return nil
		}
		var xs []float64
		for _, f := range strings.Split(text, `\`) {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%q is no number", quoteShort(f))
			}
			xs = append(xs, x)
		}
		*dst = xs
		return nil
	}
	number := func(dst *float64) error {
		var xs []float64
		err := numbers(&xs)
		if len(xs) > 0 {
			*dst = xs[0]
		}
		return err
	}
	whole := func(dst *int) error {
		x := float64(*dst)
		err := number(&x)
		*dst = int(max(min(x, math.MaxInt32), math.MinInt32))
		return err
	}
	short := func(dst *int) error {
		switch len(value) {
		case 0:
			return nil
		case 2:
			*dst = int(order.Uint16(value))
			return nil
		}
		return fmt.Errorf("%d bytes; want 2 (US)", len(value))
	}
	switch tag {
	case tagSeriesUID:
		s.series = text
	case tagInstanceNumber:
		return whole(&s.instance)
	case tagFrames:
		return whole(&s.frames)
	case tagPosition:
		return numbers(&s.position)
	case tagOrientation:
		return numbers(&s.orientation)
	case tagPixelSpacing:
		return numbers(&s.pixelSpacing)
	case tagSliceThickness:
		return number(&s.thickness)
	case tagSliceSpacing:
		return number(&s.spacing)
	case tagRescaleSlope:
		return number(&s.slope)
	case tagRescaleIntercept:
		return number(&s.intercept)
	case tagSamplesPerPixel:
		return short(&s.samples)
	case tagRows:
		return short(&s.rows)
	case tagColumns:
		return short(&s.columns)
	case tagBitsAllocated:
		return short(&s.bits)
	case tagBitsStored:
		return short(&s.stored)
	case tagPixelSign:
		sign := 0
		err := short(&sign)
		s.signed = sign == 1
		return err
	}
	return nil
}

// takeGrouped keeps what an enhanced image's functional groups say of
// frame (-1: of every frame, the shared groups): a frame's position, and
// the rest as the image's own where the shared groups or the first
// frame's say it (goeq takes one spacing, orientation and rescale for all
// frames).
func (s *dicomSlice) takeGrouped(frame int, tag dicomTag, value []byte) error {
	if frame >= 0 && tag == tagPosition {
		if frame >= MaxVolumeSide {
			return fmt.Errorf("per-frame functional groups of more than %d frames", MaxVolumeSide)
		}
		var at dicomSlice
		if err := at.take(tag, value, s.order); err != nil {
			return fmt.Errorf("frame %d's position: %w", frame+1, err)
		}
		for len(s.framePositions) <= frame {
			s.framePositions = append(s.framePositions, nil)
		}
		s.framePositions[frame] = at.position
		return nil
	}
	if frame > 0 {
		return nil
	}
	if err := s.take(tag, value, s.order); err != nil {
		return fmt.Errorf("element (%04X,%04X) of its functional groups: %w", uint32(tag)>>16, uint32(tag)&0xFFFF, err)
	}
	return nil
}

// check refuses a slice goeq cannot take as a volume's.
func (s *dicomSlice) check() error {
	switch {
	case s.samples != 1:
		return fmt.Errorf("%d samples a pixel (colour): goeq's volumes have one value a voxel", s.samples)
	case s.bits != 8 && s.bits != 16 && s.bits != 32:
		return fmt.Errorf("%d bits allocated a pixel; want 8, 16 or 32", s.bits)
	case s.rows < 1 || s.columns < 1 || s.rows > MaxVolumeSide || s.columns > MaxVolumeSide:
		return fmt.Errorf("%d×%d pixels: want sides from 1 to %d", s.columns, s.rows, MaxVolumeSide)
	case s.frames < 1 || s.frames > MaxVolumeSide:
		return fmt.Errorf("%d frames: want 1 to %d", s.frames, MaxVolumeSide)
	case s.position != nil && len(s.position) != 3, s.orientation != nil && len(s.orientation) != 6, s.pixelSpacing != nil && len(s.pixelSpacing) != 2:
		return errors.New("a position of other than 3 numbers, an orientation of other than 6, or a pixel spacing of other than 2")
	case s.slope == 0:
		return errors.New("a rescale slope of 0")
	}
	if s.stored < 1 || s.stored > s.bits {
		s.stored = s.bits
	}
	// frames' positions place the frames only where every frame has one
	if len(s.framePositions) != s.frames || slices.ContainsFunc(s.framePositions, func(p []float64) bool { return len(p) != 3 }) {
		s.framePositions = nil
	}
	if s.codec != codecNone {
		if s.codec != codecRLE && s.bits == 32 {
			return errors.New("32 bits allocated a pixel, in JPEG: it holds 16 at most")
		}
		// no codec packs more than 256 bytes into one (baseline JPEG's
		// blocks of one value come nearest): a small file that claims
		// great sides is refused before anything is made for them
		var packed int64
		for _, f := range s.fragments {
			packed += f.size
		}
		if need := int64(s.rows) * int64(s.columns) * int64(s.frames) * int64(s.bits/8); need > 256*packed+1<<20 {
			return fmt.Errorf("%d bytes of compressed pixel data for %d×%d pixels of %d bits (%d frames): more than any codec packs them", packed, s.columns, s.rows, s.bits, s.frames)
		}
		_, err := s.frameFragments()
		return err
	}
	if need := int64(s.rows) * int64(s.columns) * int64(s.frames) * int64(s.bits/8); s.pixelBytes < need {
		return fmt.Errorf("its pixel data holds %d bytes; its %d×%d pixels of %d bits (%d frames) need %d", s.pixelBytes, s.columns, s.rows, s.bits, s.frames, need)
	}
	return nil
}

// raw is the pixel at b's front, as stored.
func (s *dicomSlice) raw(b []byte) uint32 {
	switch s.bits {
	case 8:
		return uint32(b[0])
	case 16:
		return uint32(s.order.Uint16(b))
	}
	return s.order.Uint32(b)
}

// value is a stored pixel as its rescale makes it.
func (s *dicomSlice) value(raw uint32) float64 {
	// only the stored bits count; a signed value's sign is the highest
	raw &= uint32(1)<<s.stored - 1
	x := float64(raw)
	if s.signed && raw&(uint32(1)<<(s.stored-1)) != 0 {
		x -= float64(uint64(1) << s.stored)
	}
	return x*s.slope + s.intercept
}

// dicomReader reads a data set's elements.
type dicomReader struct {
	r      *bufio.Reader
	at     int64 // bytes read from the file
	size   int64 // the file's size
	order  binary.ByteOrder
	length uint32 // the last element's length as written
	depth  int    // sequences entered
	// sequence: the last element is one of groupSequences, its items
	// still to read (group reads them)
	sequence bool
}

// longVRs are the explicit VRs whose length takes four bytes after two
// reserved ones.
var longVRs = map[string]bool{"OB": true, "OD": true, "OF": true, "OL": true, "OV": true, "OW": true, "SQ": true, "SV": true, "UC": true, "UN": true, "UR": true, "UT": true, "UV": true}

// head reads the next element's tag, VR ("" where implicit) and length
// (d.length), and not its value.
func (d *dicomReader) head(implicit bool) (dicomTag, string, error) {
	var head [8]byte
	if _, err := io.ReadFull(d.r, head[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, "", errors.New("an element cut short")
		}
		return 0, "", err
	}
	d.at += 8
	tag := dicomTag(uint32(d.order.Uint16(head[0:]))<<16 | uint32(d.order.Uint16(head[2:])))
	vr := string(head[4:6])
	switch {
	case tag>>16 == 0xFFFE: // an item or delimiter: its length follows
		d.length = d.order.Uint32(head[4:])
		vr = ""
	case implicit:
		d.length = d.order.Uint32(head[4:])
		vr = ""
	case longVRs[vr]:
		var l [4]byte
		if _, err := io.ReadFull(d.r, l[:]); err != nil {
			return 0, "", errors.New("an element cut short")
		}
		d.at += 4
		d.length = d.order.Uint32(l[:])
	default:
		d.length = uint32(d.order.Uint16(head[6:]))
	}
	return tag, vr, nil
}

// element reads the next element: its tag and its value, or for a
// sequence (and the pixel data) nothing, the sequence's items read past
// but for groupSequences' (d.sequence), which group reads.
func (d *dicomReader) element(implicit bool) (dicomTag, []byte, error) {
	d.sequence = false
	tag, vr, err := d.head(implicit)
	if err != nil {
		return 0, nil, err
	}
	if tag == tagPixelData {
		return tag, nil, nil
	}
	if groupSequences[tag] && (vr == "SQ" || vr == "") {
		d.sequence = true
		return tag, nil, nil
	}
	if d.length == undefinedLength {
		if tag>>16 == 0xFFFE {
			return tag, nil, nil // an item: its elements follow
		}
		// a sequence (implicit VR says so only thus), read to its end
		return tag, nil, d.skipSequence(implicit)
	}
	if int64(d.length) > d.size-d.at {
		return 0, nil, fmt.Errorf("element (%04X,%04X) of %d bytes, past the file's end", uint32(tag)>>16, uint32(tag)&0xFFFF, d.length)
	}
	if vr == "SQ" || tag>>16 == 0xFFFE || d.length > 1<<16 {
		// nothing goeq reads is long: skip what is
		n, err := d.r.Discard(int(d.length))
		d.at += int64(n)
		if err != nil {
			return 0, nil, errors.New("an element cut short")
		}
		return tag, nil, nil
	}
	value := make([]byte, d.length)
	if _, err := io.ReadFull(d.r, value); err != nil {
		return 0, nil, errors.New("an element cut short")
	}
	d.at += int64(len(value))
	return tag, value, nil
}

// skipSequence reads past a sequence of undefined length: its items,
// each of a length or of elements up to its delimiter, up to the
// sequence's delimiter.
func (d *dicomReader) skipSequence(implicit bool) error {
	if d.depth++; d.depth > 32 {
		return errors.New("sequences nested more than 32 deep")
	}
	defer func() { d.depth-- }()
	for {
		tag, _, err := d.element(implicit)
		if err != nil {
			return err
		}
		switch tag {
		case tagSequenceEnd:
			return nil
		case tagItem:
			if d.length != undefinedLength {
				continue // its elements were skipped with it
			}
			for {
				tag, _, err := d.element(implicit)
				if err == nil && d.sequence {
					err = d.group(implicit, tag, -1, nil)
				}
				if err != nil {
					return err
				}
				if tag == tagItemEnd {
					break
				}
			}
		default:
			return fmt.Errorf("(%04X,%04X) in a sequence, where an item belongs", uint32(tag)>>16, uint32(tag)&0xFFFF)
		}
	}
}

// group reads the items of the groupSequences element just read (seq):
// each item's elements go to take with the frame they are of, the item's
// index in the per-frame groups, in groups within them the item's around
// them (-1: every frame's, the shared groups'). The groups in the items
// are read into too; a nil take reads past them all.
func (d *dicomReader) group(implicit bool, seq dicomTag, frame int, take func(frame int, tag dicomTag, value []byte) error) error {
	if d.depth++; d.depth > 32 {
		return errors.New("sequences nested more than 32 deep")
	}
	defer func() { d.depth-- }()
	end := int64(-1) // where a sequence of a length ends
	if d.length != undefinedLength {
		end = d.at + int64(d.length)
	}
	for item := 0; end < 0 || d.at < end; item++ {
		tag, _, err := d.head(implicit)
		if err != nil {
			return err
		}
		if tag == tagSequenceEnd && end < 0 {
			return nil
		}
		if tag != tagItem {
			return fmt.Errorf("(%04X,%04X) in a sequence, where an item belongs", uint32(tag)>>16, uint32(tag)&0xFFFF)
		}
		if seq == tagPerFrameGroups || seq == tagDirectoryRecords {
			frame = item
		}
		itemEnd := int64(-1)
		if d.length != undefinedLength {
			itemEnd = d.at + int64(d.length)
		}
		for itemEnd < 0 || d.at < itemEnd {
			tag, value, err := d.element(implicit)
			switch {
			case err != nil:
			case tag == tagItemEnd && itemEnd < 0:
			case d.sequence:
				err = d.group(implicit, tag, frame, take)
			case take != nil:
				err = take(frame, tag, value)
			}
			if err != nil {
				return err
			}
			if tag == tagItemEnd && itemEnd < 0 {
				break
			}
		}
	}
	return nil
}

// dicomSyntaxName names the compressed transfer syntaxes users meet.
func dicomSyntaxName(uid string) string {
	switch {
	case uid == "1.2.840.10008.1.2.1.99":
		return "deflated"
	case uid == "1.2.840.10008.1.2.5":
		return "RLE compressed"
	case strings.HasPrefix(uid, "1.2.840.10008.1.2.4.5"), strings.HasPrefix(uid, "1.2.840.10008.1.2.4.7"):
		return "JPEG compressed"
	case strings.HasPrefix(uid, "1.2.840.10008.1.2.4.8"):
		return "JPEG-LS compressed"
	case strings.HasPrefix(uid, "1.2.840.10008.1.2.4.9"):
		return "JPEG 2000 compressed"
	}
	return "compressed, or not one goeq knows"
}

// dicomSeries is a series' slices in order along the slices' normal.
type dicomSeries struct {
	slices []dicomSlice
	// frameAt is each frame's place along the normal, by its order in
	// the file, for one file of frames its functional groups place (nil:
	// the frames lie in the file's order)
	frameAt []int
}

// statDICOM reads a DICOM series: the folder's files of path's series
// where path is a file, or the folder's one series where it is a folder.
// A DICOMDIR (a disc's index), or a folder that holds one, is read as the
// one series of the images it lists.
func statDICOM(path string) (*VolumeData, voxelSource, error) {
	dir, only := path, ""
	var given dicomSlice // path's, read once, where path is a file
	var listed []string  // a DICOMDIR's images (nil: the folder's files)
	index := ""          // the DICOMDIR
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		dir = filepath.Dir(path)
		if given, err = readDICOMSlice(path); errors.Is(err, errDICOMDIR) {
			index, given = path, dicomSlice{}
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		only = given.series
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if st.IsDir() && strings.EqualFold(e.Name(), "DICOMDIR") {
			index = filepath.Join(dir, e.Name())
		}
		listed = append(listed, filepath.Join(dir, e.Name()))
	}
	if index != "" {
		if listed, err = readDICOMDIR(index); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", index, err)
		}
	}
	bySeries := map[string][]dicomSlice{}
	for _, p := range listed {
		if st, err := os.Stat(p); index == "" && (err != nil || !st.Mode().IsRegular()) {
			continue
		}
		s := given
		if given.path == "" || p != given.path {
			var err error
			if s, err = readDICOMSlice(p); index == "" && (errors.Is(err, errNotDICOM) || errors.Is(err, errDICOMDIR)) {
				continue // a DICOMDIR and its neighbours: thumbnails, notes
			} else if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p, err)
			}
		}
		if only == "" || s.series == only {
			bySeries[s.series] = append(bySeries[s.series], s)
		}
		if len(bySeries[s.series]) > MaxVolumeSide {
			return nil, nil, fmt.Errorf("%s: more than %d slices in a series", dir, MaxVolumeSide)
		}
	}
	switch len(bySeries) {
	case 0:
		return nil, nil, fmt.Errorf("%s: a folder is read as a DICOM series, and it holds no DICOM files (a file with DICM after its 128-byte preamble)", dir)
	case 1:
	default:
		var names []string
		for uid, ss := range bySeries {
			at, _ := filepath.Rel(dir, ss[0].path)
			names = append(names, fmt.Sprintf("%s (%d files, %s among them)", uid, len(ss), at))
		}
		slices.Sort(names)
		what := dir + " holds"
		if index != "" {
			what = index + " lists"
		}
		return nil, nil, fmt.Errorf("%s %d DICOM series: %s; give one of the series' files", what, len(bySeries), strings.Join(names, ", "))
	}
	var series dicomSeries
	for _, ss := range bySeries {
		series.slices = ss
	}
	v, err := series.place()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return v, series, nil
}

// maxDICOMDIR bounds a DICOMDIR's size: a disc of a hundred thousand
// images lists them in some tens of megabytes.
const maxDICOMDIR = 256 << 20

// readDICOMDIR reads a DICOMDIR's records: the paths of the image files
// it lists (each a record of type IMAGE, its file named by components
// under the DICOMDIR's folder).
func readDICOMDIR(path string) ([]string, error) {
	f, r, ts, err := openDICOM(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r.r.Reset(io.LimitReader(io.NewSectionReader(f, r.at, maxDICOMDIR), maxDICOMDIR))
	type record struct{ kind, file string }
	var records []record
	for {
		tag, _, err := r.element(ts.implicit)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !r.sequence {
			continue
		}
		var take func(int, dicomTag, []byte) error
		if tag == tagDirectoryRecords {
			take = func(item int, tag dicomTag, value []byte) error {
				for len(records) <= item {
					records = append(records, record{})
				}
				text := strings.TrimRight(string(value), "\x00 ")
				switch tag {
				case tagRecordType:
					records[item].kind = text
				case tagReferencedFile:
					records[item].file = text
				}
				return nil
			}
		}
		if err := r.group(ts.implicit, tag, -1, take); err != nil {
			return nil, err
		}
	}
	var files []string
	for _, rec := range records {
		if rec.kind != "IMAGE" || rec.file == "" {
			continue
		}
		parts := []string{filepath.Dir(path)}
		for _, c := range strings.Split(rec.file, `\`) {
			if c = strings.TrimSpace(c); c == "" || c == "." || c == ".." || strings.ContainsAny(c, "/\x00") {
				return nil, fmt.Errorf("a record names the file %q: a path outside the DICOMDIR's folder, or none", rec.file)
			}
			parts = append(parts, c)
		}
		files = append(files, filepath.Join(parts...))
	}
	if len(files) == 0 {
		return nil, errors.New("a DICOMDIR that lists no image")
	}
	return files, nil
}

// place orders the slices along their normal (by instance number where
// they have no position) and makes the volume of them: columns along x,
// rows up y (a slice's first row is its top), slices down z (the last
// along the normal first), spaced as the series says. With the rows
// turned up, the slices taken down keep the patient unmirrored (the
// patient's axes are right-handed): as VTK's DICOM reader, and so
// ParaView, places them.
func (s *dicomSeries) place() (*VolumeData, error) {
	first := s.slices[0]
	for _, sl := range s.slices[1:] {
		if sl.rows != first.rows || sl.columns != first.columns || sl.bits != first.bits || sl.frames != first.frames {
			return nil, fmt.Errorf("%s is %d×%d of %d bits (%d frames), %s %d×%d of %d bits (%d frames): a series' slices are alike",
				filepath.Base(first.path), first.columns, first.rows, first.bits, first.frames, filepath.Base(sl.path), sl.columns, sl.rows, sl.bits, sl.frames)
		}
	}
	if first.frames > 1 && len(s.slices) > 1 {
		// as a file and its compressed copy side by side are, which keep
		// their series
		return nil, fmt.Errorf("%s and %s (of %d files) are of one series and of %d frames each: goeq reads a series of single slices, or one file of many frames (give it a folder of its own)",
			filepath.Base(s.slices[0].path), filepath.Base(s.slices[1].path), len(s.slices), first.frames)
	}
	var normal [3]float64 // of the slices, where they have an orientation
	if o := first.orientation; o != nil {
		normal = [3]float64{o[1]*o[5] - o[2]*o[4], o[2]*o[3] - o[0]*o[5], o[0]*o[4] - o[1]*o[3]}
	}
	along := func(p []float64) float64 { return p[0]*normal[0] + p[1]*normal[1] + p[2]*normal[2] }
	depth := func(sl dicomSlice) float64 { return float64(sl.instance) }
	positioned := !slices.ContainsFunc(s.slices, func(sl dicomSlice) bool { return sl.position == nil || sl.orientation == nil })
	if positioned {
		depth = func(sl dicomSlice) float64 { return along(sl.position) }
	}
	slices.SortStableFunc(s.slices, func(a, b dicomSlice) int { return cmp.Compare(depth(a), depth(b)) })
	// the slices' spacing: their positions' (the first to the last, over
	// the gaps), else what the series says
	between := first.spacing
	if between <= 0 {
		between = first.thickness
	}
	if positioned && len(s.slices) > 1 {
		depths := make([]float64, len(s.slices))
		for i, sl := range s.slices {
			depths[i] = depth(sl)
		}
		var same int
		if between, same = evenlyApart(depths); same > 0 {
			return nil, fmt.Errorf("%s and %s lie at the same place: two series, or a series taken twice", filepath.Base(s.slices[same-1].path), filepath.Base(s.slices[same].path))
		}
	}
	// an enhanced image's frames, placed by their functional groups: in
	// their order along the normal, which need not be the file's
	if len(s.slices) == 1 && first.framePositions != nil && first.orientation != nil {
		order := make([]int, first.frames) // the file's frames, along the normal
		for f := range order {
			order[f] = f
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Compare(along(first.framePositions[a]), along(first.framePositions[b]))
		})
		depths := make([]float64, len(order))
		s.frameAt = make([]int, len(order))
		for z, f := range order {
			depths[z] = along(first.framePositions[f])
			s.frameAt[f] = z
		}
		if len(order) > 1 {
			var same int
			if between, same = evenlyApart(depths); same > 0 {
				return nil, fmt.Errorf("frames %d and %d lie at the same place: a file of several stacks or times, and goeq reads one volume", order[same-1]+1, order[same]+1)
			}
		}
	}
	if between <= 0 {
		between = 1
	}
	pixel := [2]float64{1, 1}
	if first.pixelSpacing != nil && first.pixelSpacing[0] > 0 && first.pixelSpacing[1] > 0 {
		pixel = [2]float64{first.pixelSpacing[0], first.pixelSpacing[1]}
	}
	spacing := [3]float64{pixel[1], pixel[0], between}
	if err := checkSpacing(spacing); err != nil {
		return nil, err
	}
	return newVolume([3]int{first.columns, first.rows, len(s.slices) * first.frames}, spacing)
}

// evenlyApart is the spacing of two or more slices at depths, in order
// along their normal: from the first to the last over the gaps; same is
// the first slice at the place of the one before it (0: none is).
func evenlyApart(depths []float64) (between float64, same int) {
	between = (depths[len(depths)-1] - depths[0]) / float64(len(depths)-1)
	for i := 1; i < len(depths); i++ {
		if depths[i]-depths[i-1] <= between*0.01 {
			return between, i
		}
	}
	return between, 0
}

// read reads the series' values: its pixels rescaled, from the least to
// the greatest onto the volume's values. Pixels of 16 bits or fewer are
// read once, kept as stored and rescaled in place once their range is
// known (a compressed series decodes once); wider ones in two passes.
func (s dicomSeries) read(n int) ([]uint16, error) {
	first := s.slices[0]
	w, h, d := first.columns, first.rows, n/(first.columns*first.rows)
	place := func(x, row, z int) int { return ((d-1-z)*h+h-1-row)*w + x }
	lo, hi := math.Inf(1), math.Inf(-1)
	values := make([]uint16, n)
	if first.bits <= 16 {
		of := make([]*dicomSlice, d) // each slice's (its rescale)
		err := s.pass(func(x, row, z int, raw uint32, sl *dicomSlice) {
			v := sl.value(raw)
			lo, hi = min(lo, v), max(hi, v)
			values[place(x, row, z)] = uint16(raw)
			of[z] = sl
		})
		if err != nil {
			return nil, err
		}
		scale := valueScale(lo, hi)
		for z, sl := range of {
			for i := place(0, h-1, z); i < place(0, h-1, z)+w*h; i++ {
				values[i] = scaledValue(sl.value(uint32(values[i])), lo, scale)
			}
		}
		return values, nil
	}
	err := s.pass(func(_, _, _ int, raw uint32, sl *dicomSlice) {
		v := sl.value(raw)
		lo, hi = min(lo, v), max(hi, v)
	})
	if err != nil {
		return nil, err
	}
	scale := valueScale(lo, hi)
	return values, s.pass(func(x, row, z int, raw uint32, sl *dicomSlice) {
		values[place(x, row, z)] = scaledValue(sl.value(raw), lo, scale)
	})
}

// pass reads every pixel, in order: use its place (column, row from the
// top, slice), its value as stored and its slice.
func (s dicomSeries) pass(use func(x, row, z int, raw uint32, sl *dicomSlice)) error {
	z := 0
	for _, sl := range s.slices {
		f, err := os.Open(sl.path)
		if err != nil {
			return err
		}
		size := sl.bits / 8
		plane := sl.rows * sl.columns
		var pixels io.Reader = io.NewSectionReader(f, sl.pixels, int64(plane*sl.frames*size))
		if sl.codec != codecNone {
			frames, err := sl.frameFragments()
			if err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", sl.path, err)
			}
			pixels = &decodedFrames{s: &sl, f: f, frames: frames}
		}
		r := bufio.NewReaderSize(pixels, 1<<16)
		err = eachRun(r, size, plane*sl.frames, func(at int, run []byte) {
			for i := 0; i < len(run); i += size {
				p := at + i/size
				frame := p / plane
				if s.frameAt != nil {
					frame = s.frameAt[frame]
				}
				use(p%sl.columns, p%plane/sl.columns, z+frame, sl.raw(run[i:]), &sl)
			}
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", sl.path, endedEarly(err))
		}
		z += sl.frames
	}
	return nil
}
