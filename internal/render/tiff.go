package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zlib"
	"golang.org/x/image/tiff/lzw"
)

// TIFF bounds: an IFD of more entries, or an array of more values than
// this, is no stack's (a page has a strip a row at most).
const (
	maxTIFFEntries = 1 << 12
	maxTIFFValues  = MaxVolumeSide * 4
)

// TIFF tags goeq reads.
const (
	tiffSubfileType     = 254
	tiffWidth           = 256
	tiffHeight          = 257
	tiffBitsPerSample   = 258
	tiffCompression     = 259
	tiffPhotometric     = 262
	tiffDescription     = 270
	tiffStripOffsets    = 273
	tiffSamplesPerPixel = 277
	tiffRowsPerStrip    = 278
	tiffStripByteCounts = 279
	tiffXResolution     = 282
	tiffYResolution     = 283
	tiffPredictor       = 317
	tiffTileWidth       = 322
	tiffSampleFormat    = 339
)

// TIFF compressions goeq decodes.
const (
	tiffUncompressed = 1
	tiffLZW          = 5
	tiffDeflate      = 8
	tiffOldDeflate   = 32946
	tiffPackBits     = 32773
)

// pngSlice marks a stack's slice that is a PNG file, not a TIFF's
// page: decoded whole.
const pngSlice = -1

// tiffCompressionNames names those it does not.
var tiffCompressionNames = map[int]string{
	2: "CCITT", 3: "CCITT T.4", 4: "CCITT T.6", 6: "old JPEG", 7: "JPEG", 34712: "JPEG 2000",
	34887: "LERC", 34925: "LZMA", 50000: "Zstandard", 50001: "WebP", 50002: "JPEG XL",
}

// isTIFFName says whether path is named as a TIFF is.
func isTIFFName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".tif" || ext == ".tiff"
}

// isSliceName says whether a folder's file is named as an image of a
// slice is: a TIFF or a PNG.
func isSliceName(path string) bool {
	return isTIFFName(path) || strings.EqualFold(filepath.Ext(path), ".png")
}

// holdsSlices says whether the folder dir holds images of slices (TIFF or
// PNG files), as CT reconstructions, microscopes, ImageJ's and 3D
// Slicer's image sequences write them.
func holdsSlices(dir string) bool {
	entries, _ := os.ReadDir(dir)
	return slices.ContainsFunc(entries, func(e os.DirEntry) bool { return !e.IsDir() && isSliceName(e.Name()) })
}

// tiffStack is a volume's slices as TIFF pages: a multi-page TIFF's
// (ImageJ's and Fiji's stacks, tifffile's, VTK's), or the one page of each
// file of a folder of slices (as CT reconstructions and microscopes write
// them).
type tiffStack struct {
	pages       []tiffPage
	width       int
	height      int
	kind        scalarKind
	compression int
	predictor   int
}

// tiffPage is where a page's strips are.
type tiffPage struct {
	path         string
	order        binary.ByteOrder
	offsets      []uint64
	counts       []uint64
	rowsPerStrip int
}

// tiffIFD is one image file directory's page and what else goeq reads of
// it.
type tiffIFD struct {
	page                 tiffPage
	width, height        int
	bits, format         int
	samples              int
	compression          int
	predictor            int
	photometric          int
	reduced              bool // a thumbnail or a pyramid's level
	tiled                bool
	xRes, yRes           float64
	description          string
	hasStrips, hasCounts bool
}

// statTIFF reads a TIFF stack's layout: a file of pages, or a folder of
// slices, TIFFs of a page each or PNGs, in their names' order (slice2 before slice10). Its
// pixels are spaced by the resolution (ImageJ's spacing between slices,
// or the pixels' width without one). Its rows are taken upwards and its
// pages backwards, as DICOM's are, so that the first page's picture shows
// upright and nearest, and the stack unmirrored.
func statTIFF(path string) (*VolumeData, voxelSource, error) {
	var (
		ifds []tiffIFD
		err  error
	)
	if st, statErr := os.Stat(path); statErr == nil && st.IsDir() {
		ifds, err = readSliceFolder(path)
	} else {
		ifds, err = readTIFF(path)
	}
	if err != nil {
		return nil, nil, err
	}
	stack, spacing, err := stackOf(ifds, path)
	if err != nil {
		return nil, nil, err
	}
	v, err := newVolume([3]int{stack.width, stack.height, len(stack.pages)}, spacing)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	voxels := voxelFile{path: path, kind: stack.kind, order: stack.pages[0].order, encoding: tiffVoxels, tiff: stack,
		reverseRuns: stack.width, source: "TIFF"}
	if ifds[0].photometric == 0 { // white is zero
		voxels.slope = -1
	}
	return v, voxels, nil
}

// readSliceFolder reads the image of each slice in dir (a TIFF's one
// page, or a PNG), in their names' order.
func readSliceFolder(dir string) ([]tiffIFD, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	pngs := 0
	for _, e := range entries {
		if isSliceName(e.Name()) && !e.IsDir() {
			names = append(names, e.Name())
			if !isTIFFName(e.Name()) {
				pngs++
			}
		}
	}
	if pngs > 0 && pngs < len(names) {
		return nil, fmt.Errorf("%s holds TIFF and PNG slices: a stack's slices are alike (keep one kind in the folder)", dir)
	}
	slices.SortFunc(names, naturalCompare)
	if len(names) > MaxVolumeSide {
		return nil, fmt.Errorf("%s holds %d TIFF files: more slices than %d", dir, len(names), MaxVolumeSide)
	}
	var ifds []tiffIFD
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := regular(path); err != nil {
			return nil, err
		}
		if pngs > 0 {
			page, err := readPNGSlice(path)
			if err != nil {
				return nil, err
			}
			ifds = append(ifds, page)
			continue
		}
		pages, err := readTIFFPages(path, 2)
		if err != nil {
			return nil, err
		}
		if len(pages) > 1 {
			return nil, fmt.Errorf("%s holds several pages: a folder's TIFFs are a slice each (give a stack's file itself)", path)
		}
		ifds = append(ifds, pages...)
	}
	return ifds, nil
}

// readTIFF reads a TIFF's pages.
func readTIFF(path string) ([]tiffIFD, error) {
	ifds, err := readTIFFPages(path, MaxVolumeSide+1)
	if err != nil {
		return nil, err
	}
	if len(ifds) > MaxVolumeSide {
		return nil, fmt.Errorf("%s: more pages than %d", path, MaxVolumeSide)
	}
	return ifds, nil
}

// readTIFFPages reads up to most of a TIFF's image file directories, in
// their chain's order, leaving out reduced images (thumbnails).
func readTIFFPages(path string, most int) ([]tiffIFD, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := tiffReader{r: f, size: st.Size()}
	var head [16]byte
	if _, err := f.ReadAt(head[:], 0); err != nil && !(err == io.EOF && st.Size() >= 8) {
		return nil, fmt.Errorf("%s: not a TIFF file (it ends before its header's 8 bytes)", path)
	}
	switch string(head[:2]) {
	case "II":
		r.order = binary.LittleEndian
	case "MM":
		r.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("%s: not a TIFF file (it begins %q, not II or MM)", path, head[:2])
	}
	var next uint64
	switch version := r.order.Uint16(head[2:]); version {
	case 42:
		next = uint64(r.order.Uint32(head[4:]))
	case 43:
		r.big = true
		next = r.order.Uint64(head[8:])
	default:
		return nil, fmt.Errorf("%s: TIFF version %d; want 42, or BigTIFF's 43", path, version)
	}
	var ifds []tiffIFD
	seen := map[uint64]bool{}
	for next != 0 && len(ifds) < most {
		if seen[next] {
			return nil, fmt.Errorf("%s: its image file directories loop back to the one at byte %d", path, next)
		}
		seen[next] = true
		ifd, after, err := r.ifd(next)
		if err != nil {
			return nil, fmt.Errorf("%s: image file directory at byte %d: %w", path, next, err)
		}
		ifd.page.path = path
		if !ifd.reduced {
			ifds = append(ifds, ifd)
		}
		next = after
	}
	if len(ifds) == 0 {
		return nil, fmt.Errorf("%s: a TIFF of no image", path)
	}
	return ifds, nil
}

// tiffReader reads a TIFF's directories and values.
type tiffReader struct {
	r     io.ReaderAt
	size  int64
	order binary.ByteOrder
	big   bool // BigTIFF: 8-byte counts and offsets
}

// at reads n bytes at off, refusing what lies past the file's end.
func (r tiffReader) at(off, n uint64) ([]byte, error) {
	if off > uint64(r.size) || n > uint64(r.size)-off {
		return nil, fmt.Errorf("%d bytes at byte %d lie past the file's end (%d bytes)", n, off, r.size)
	}
	b := make([]byte, n)
	_, err := r.r.ReadAt(b, int64(off))
	return b, err
}

// tiffTypeSizes are the sizes of TIFF's field types.
var tiffTypeSizes = map[uint16]uint64{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8}

// ifd reads the directory at off, and the offset of the next.
func (r tiffReader) ifd(off uint64) (tiffIFD, uint64, error) {
	countSize, entrySize, offsetSize := uint64(2), uint64(12), uint64(4)
	if r.big {
		countSize, entrySize, offsetSize = 8, 20, 8
	}
	b, err := r.at(off, countSize)
	if err != nil {
		return tiffIFD{}, 0, err
	}
	n := uint64(r.order.Uint16(b))
	if r.big {
		n = r.order.Uint64(b)
	}
	if n > maxTIFFEntries {
		return tiffIFD{}, 0, fmt.Errorf("%d entries; a page has a few dozen", n)
	}
	b, err = r.at(off+countSize, n*entrySize+offsetSize)
	if err != nil {
		return tiffIFD{}, 0, err
	}
	ifd := tiffIFD{bits: 1, format: 1, samples: 1, compression: tiffUncompressed, predictor: 1, photometric: 1}
	ifd.page.order = r.order
	for e := range n {
		entry := b[e*entrySize:]
		tag, typ := r.order.Uint16(entry), r.order.Uint16(entry[2:])
		count := uint64(r.order.Uint32(entry[4:]))
		value := entry[8:12]
		if r.big {
			count, value = r.order.Uint64(entry[4:]), entry[12:20]
		}
		if err := r.take(&ifd, tag, typ, count, value); err != nil {
			return tiffIFD{}, 0, fmt.Errorf("tag %d: %w", tag, err)
		}
	}
	next := b[n*entrySize:]
	if r.big {
		return ifd, r.order.Uint64(next), nil
	}
	return ifd, uint64(r.order.Uint32(next)), nil
}

// take reads one entry into ifd.
func (r tiffReader) take(ifd *tiffIFD, tag, typ uint16, count uint64, inline []byte) error {
	switch tag {
	case tiffSubfileType, tiffWidth, tiffHeight, tiffBitsPerSample, tiffCompression, tiffPhotometric, tiffDescription, tiffStripOffsets,
		tiffSamplesPerPixel, tiffRowsPerStrip, tiffStripByteCounts, tiffXResolution, tiffYResolution, tiffPredictor, tiffTileWidth, tiffSampleFormat:
	default:
		return nil
	}
	size, ok := tiffTypeSizes[typ]
	if !ok {
		return fmt.Errorf("field type %d is not TIFF's", typ)
	}
	limit := uint64(maxTIFFValues)
	if tag == tiffDescription {
		limit = maxVolumeHeader
	}
	if count == 0 || count > limit {
		return fmt.Errorf("%d values", count)
	}
	raw := inline
	if count*size > uint64(len(inline)) {
		off := uint64(r.order.Uint32(inline))
		if r.big {
			off = r.order.Uint64(inline)
		}
		var err error
		if raw, err = r.at(off, count*size); err != nil {
			return err
		}
	}
	if tag == tiffDescription {
		ifd.description = string(bytes.TrimRight(raw[:count], "\x00"))
		return nil
	}
	values := make([]float64, count)
	for i := range values {
		v := raw[uint64(i)*size:]
		switch typ {
		case 1, 7:
			values[i] = float64(v[0])
		case 3:
			values[i] = float64(r.order.Uint16(v))
		case 4, 13:
			values[i] = float64(r.order.Uint32(v))
		case 5:
			values[i] = float64(r.order.Uint32(v)) / float64(r.order.Uint32(v[4:]))
		case 16, 18:
			values[i] = float64(r.order.Uint64(v))
		default:
			return fmt.Errorf("field type %d for a number goeq reads", typ)
		}
	}
	whole := func() int {
		if x := values[0]; x >= 0 && x <= math.MaxInt32 && x == math.Trunc(x) {
			return int(x)
		}
		return -1
	}
	switch tag {
	case tiffSubfileType:
		ifd.reduced = uint64(values[0])&1 != 0
	case tiffWidth:
		ifd.width = whole()
	case tiffHeight:
		ifd.height = whole()
	case tiffBitsPerSample:
		ifd.bits = whole()
	case tiffCompression:
		ifd.compression = whole()
	case tiffPhotometric:
		ifd.photometric = whole()
	case tiffSamplesPerPixel:
		ifd.samples = whole()
	case tiffRowsPerStrip:
		ifd.page.rowsPerStrip = int(min(values[0], math.MaxInt32))
	case tiffXResolution:
		ifd.xRes = values[0]
	case tiffYResolution:
		ifd.yRes = values[0]
	case tiffPredictor:
		ifd.predictor = whole()
	case tiffTileWidth:
		ifd.tiled = true
	case tiffSampleFormat:
		ifd.format = whole()
	case tiffStripOffsets, tiffStripByteCounts:
		u := make([]uint64, len(values))
		for i, x := range values {
			u[i] = uint64(x)
		}
		if tag == tiffStripOffsets {
			ifd.page.offsets, ifd.hasStrips = u, true
		} else {
			ifd.page.counts, ifd.hasCounts = u, true
		}
	}
	return nil
}

// tiffKinds are the number types of TIFF's samples: by SampleFormat
// (1 unsigned, 2 signed, 3 floating point) and bits.
var tiffKinds = map[[2]int]scalarKind{
	{1, 8}: scalarUint8, {1, 16}: scalarUint16, {1, 32}: scalarUint32, {1, 64}: scalarUint64,
	{2, 8}: scalarInt8, {2, 16}: scalarInt16, {2, 32}: scalarInt32, {2, 64}: scalarInt64,
	{3, 32}: scalarFloat32, {3, 64}: scalarFloat64,
}

// stackOf checks that the pages make a stack goeq reads (alike, of one
// number a pixel, in strips compressed as it decodes) and finds their
// spacing; path names the stack in errors.
func stackOf(ifds []tiffIFD, path string) (*tiffStack, [3]float64, error) {
	first := ifds[0]
	fail := func(format string, args ...any) (*tiffStack, [3]float64, error) {
		return nil, [3]float64{}, fmt.Errorf("%s: "+format, append([]any{path}, args...)...)
	}
	ij := imageJDescription(first.description)
	if n := ij["channels"]; n > 1 {
		return fail("an ImageJ hyperstack of %d channels: goeq reads one (split them in Fiji: Image > Color > Split Channels)", int(n))
	}
	if n := ij["frames"]; n > 1 {
		return fail("an ImageJ hyperstack of %d time points: goeq reads one volume (Image > Duplicate... a frame in Fiji)", int(n))
	}
	if n := int(ij["images"]); len(ifds) == 1 && n > 1 && n <= MaxVolumeSide && first.compression == tiffUncompressed && len(first.page.offsets) > 0 {
		// ImageJ writes one directory for a stack past 4 GB, its
		// images one after another
		page := first.page
		bytesPer := uint64(first.width) * uint64(first.height) * uint64(max(first.bits, 8)/8)
		at := page.offsets[0]
		for k := 1; k < n; k++ {
			ifds = append(ifds, tiffIFD{page: tiffPage{path: page.path, order: page.order, offsets: []uint64{at + uint64(k)*bytesPer},
				counts: []uint64{bytesPer}, rowsPerStrip: first.height}, width: first.width, height: first.height, bits: first.bits,
				format: first.format, samples: 1, compression: tiffUncompressed, predictor: 1, photometric: first.photometric, hasStrips: true, hasCounts: true})
		}
		ifds[0].page = tiffPage{path: page.path, order: page.order, offsets: []uint64{at}, counts: []uint64{bytesPer}, rowsPerStrip: first.height}
		first = ifds[0]
	}
	if len(ifds) == 1 {
		return fail("a TIFF of one page: a stack has a page a slice (a folder of TIFF slices loads as one stack, given as the folder)")
	}
	if first.samples != 1 {
		return fail("%d samples a pixel (colour): goeq's volumes hold one number a voxel", first.samples)
	}
	if first.photometric > 1 {
		return fail("photometric interpretation %d (colour or a palette): goeq reads grey pages", first.photometric)
	}
	kind, ok := tiffKinds[[2]int{first.format, first.bits}]
	if !ok {
		return fail("%d-bit samples of format %d; want 8, 16, 32 or 64 bits, unsigned, signed or floating point", first.bits, first.format)
	}
	if name, named := tiffCompressionNames[first.compression]; named {
		return fail("compression %d (%s): goeq decodes TIFFs uncompressed, LZW, Deflate or PackBits", first.compression, name)
	}
	switch first.compression {
	case tiffUncompressed, tiffLZW, tiffDeflate, tiffOldDeflate, tiffPackBits, pngSlice:
	default:
		return fail("compression %d: goeq decodes TIFFs uncompressed, LZW, Deflate or PackBits", first.compression)
	}
	switch {
	case first.predictor == 2 && first.format == 3:
		return fail("a horizontal predictor on floating-point samples: not TIFF's")
	case first.predictor == 3:
		return fail("the floating-point predictor (3): goeq decodes TIFFs of no predictor or the horizontal one")
	case first.predictor != 1 && first.predictor != 2:
		return fail("predictor %d: goeq decodes TIFFs of no predictor or the horizontal one", first.predictor)
	}
	for i, ifd := range ifds {
		name := fmt.Sprintf("page %d", i+1)
		if ifd.page.path != path {
			name = filepath.Base(ifd.page.path)
		}
		if ifd.tiled {
			return fail("%s is tiled: goeq reads TIFFs in strips (as ImageJ, Fiji, tifffile and microscopes write stacks)", name)
		}
		if ifd.width != first.width || ifd.height != first.height || ifd.bits != first.bits || ifd.format != first.format ||
			ifd.samples != first.samples || ifd.compression != first.compression || ifd.predictor != first.predictor || ifd.photometric != first.photometric {
			return fail("%s is %d×%d of %d-bit samples (compression %d), page 1 %d×%d of %d-bit samples (compression %d): a stack's pages are alike",
				name, ifd.width, ifd.height, ifd.bits, ifd.compression, first.width, first.height, first.bits, first.compression)
		}
		if ifd.width < 1 || ifd.height < 1 || ifd.width > MaxVolumeSide || ifd.height > MaxVolumeSide {
			return fail("%s is %d×%d pixels; want sides from 1 to %d", name, ifd.width, ifd.height, MaxVolumeSide)
		}
		p := &ifds[i].page
		if p.rowsPerStrip < 1 || p.rowsPerStrip > ifd.height {
			p.rowsPerStrip = ifd.height
		}
		strips := (ifd.height + p.rowsPerStrip - 1) / p.rowsPerStrip
		if !ifd.hasStrips || len(p.offsets) != strips || ifd.hasCounts && len(p.counts) != strips {
			return fail("%s has %d strip offsets and %d byte counts; its %d rows of %d a strip make %d strips", name, len(p.offsets), len(p.counts), ifd.height, p.rowsPerStrip, strips)
		}
		if !ifd.hasCounts {
			if ifd.compression != tiffUncompressed {
				return fail("%s gives no strip byte counts", name)
			}
			p.counts = make([]uint64, strips) // each strip's rows, as they are
			for s := range p.counts {
				p.counts[s] = uint64(min(p.rowsPerStrip, ifd.height-s*p.rowsPerStrip)*ifd.width) * uint64(ifd.bits/8)
			}
		}
	}
	spacing := [3]float64{1, 1, 1}
	if first.xRes > 0 && first.yRes > 0 && !math.IsInf(first.xRes, 0) && !math.IsInf(first.yRes, 0) {
		spacing = [3]float64{1 / first.xRes, 1 / first.yRes, 1 / first.xRes}
	}
	if z := ij["spacing"]; z > 0 && !math.IsInf(z, 0) {
		spacing[2] = z
	}
	if err := checkSpacing(spacing); err != nil {
		return fail("resolution %g×%g, slices %g apart: %v", first.xRes, first.yRes, spacing[2], err)
	}
	pages := make([]tiffPage, len(ifds))
	for i, ifd := range ifds {
		pages[i] = ifd.page
	}
	return &tiffStack{pages: pages, width: first.width, height: first.height, kind: kind, compression: first.compression, predictor: first.predictor}, spacing, nil
}

// imageJDescription is the numbers of an ImageJ image description's
// "key=value" lines (images, channels, slices, frames, spacing); none for
// another description.
func imageJDescription(s string) map[string]float64 {
	fields := map[string]float64{}
	if !strings.HasPrefix(s, "ImageJ=") {
		return fields
	}
	for line := range strings.SplitSeq(s, "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if x, err := strconv.ParseFloat(value, 64); ok && err == nil && !math.IsNaN(x) {
			fields[key] = x
		}
	}
	return fields
}

// naturalCompare orders names as people number slices: digits by their
// number (slice2 before slice10), the rest as text.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitsAtStart(a), digitsAtStart(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitsAtStart(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// open reads the stack's samples, page by page, decoded: its bytes as
// they would lie in an uncompressed file.
func (s *tiffStack) open() (io.Reader, func(), error) {
	r := &tiffSamples{stack: s}
	return bufio.NewReaderSize(r, 1<<20), r.close, nil
}

// tiffSamples reads a stack's decoded samples a strip at a time.
type tiffSamples struct {
	stack       *tiffStack
	page, strip int
	file        *os.File
	filePath    string
	buf         []byte // the strip's decoded samples not yet read
}

func (t *tiffSamples) close() {
	if t.file != nil {
		t.file.Close()
	}
}

func (t *tiffSamples) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		if t.page == len(t.stack.pages) {
			return 0, io.EOF
		}
		if err := t.decodeStrip(); err != nil {
			return 0, err
		}
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}

// decodeStrip decodes the next strip into buf.
func (t *tiffSamples) decodeStrip() error {
	s := t.stack
	page := s.pages[t.page]
	if t.filePath != page.path {
		t.close()
		f, err := os.Open(page.path)
		if err != nil {
			return err
		}
		t.file, t.filePath = f, page.path
	}
	var err error
	rows := min(page.rowsPerStrip, s.height-t.strip*page.rowsPerStrip)
	sample := s.kind.size()
	want := rows * s.width * sample
	fail := func(err error) error {
		return fmt.Errorf("%s: page %d, strip %d: %w", page.path, t.page+1, t.strip+1, err)
	}
	if s.compression == pngSlice {
		if t.buf, err = decodePNGSlice(t.file, page.path, s.width, s.height, sample, page.order, t.buf); err != nil {
			return err
		}
		t.page++
		return nil
	}
	var in io.Reader = io.NewSectionReader(t.file, int64(min(page.offsets[t.strip], math.MaxInt64)), int64(min(page.counts[t.strip], math.MaxInt64)))
	switch s.compression {
	case tiffLZW:
		in = lzw.NewReader(in, lzw.MSB, 8)
	case tiffDeflate, tiffOldDeflate:
		z, err := zlib.NewReader(in)
		if err != nil {
			return fail(err)
		}
		in = z
	case tiffPackBits:
		in = &packBits{r: bufio.NewReader(in)}
	}
	if cap(t.buf) < want {
		t.buf = make([]byte, want)
	}
	t.buf = t.buf[:want]
	if _, err := io.ReadFull(in, t.buf); err != nil {
		return fail(endedEarly(err))
	}
	if s.predictor == 2 {
		undoDifferences(t.buf, s.width, sample, page.order)
	}
	if t.strip++; t.strip*page.rowsPerStrip >= s.height {
		t.page, t.strip = t.page+1, 0
	}
	return nil
}

// readPNGSlice reads a PNG slice's size and depth as a page's.
func readPNGSlice(path string) (tiffIFD, error) {
	f, err := os.Open(path)
	if err != nil {
		return tiffIFD{}, err
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		return tiffIFD{}, fmt.Errorf("%s: %w", path, err)
	}
	bits := 8
	switch cfg.ColorModel {
	case color.Gray16Model, color.RGBA64Model, color.NRGBA64Model:
		bits = 16
	}
	return tiffIFD{page: tiffPage{path: path, order: binary.LittleEndian, offsets: []uint64{0}, counts: []uint64{0}, rowsPerStrip: cfg.Height},
		width: cfg.Width, height: cfg.Height, bits: bits, format: 1, samples: 1, compression: pngSlice, predictor: 1, photometric: 1,
		hasStrips: true, hasCounts: true}, nil
}

// decodePNGSlice decodes a PNG slice of width×height into buf: its grey
// samples of size bytes (1 or 2) in order. A colour PNG whose pixels are
// all grey (as image sequences are often saved) is read as grey; one in
// colour is refused.
func decodePNGSlice(f *os.File, path string, width, height, size int, order binary.ByteOrder, buf []byte) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, err := png.Decode(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := img.Bounds()
	if b.Dx() != width || b.Dy() != height {
		return nil, fmt.Errorf("%s is %d×%d, the stack's first slice %d×%d", path, b.Dx(), b.Dy(), width, height)
	}
	buf = slices.Grow(buf[:0], width*height*size)[:width*height*size]
	for y := range height {
		for x := range width {
			var v uint16
			switch img := img.(type) {
			case *image.Gray:
				v = uint16(img.Pix[y*img.Stride+x])
			case *image.Gray16:
				v = binary.BigEndian.Uint16(img.Pix[y*img.Stride+2*x:])
			default:
				r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				if r != g || g != bl {
					return nil, fmt.Errorf("%s is in colour (its pixel at %d,%d): goeq reads grey slices", path, x, y)
				}
				v = uint16(r)
				if size == 1 {
					v >>= 8
				}
			}
			at := (y*width + x) * size
			if size == 1 {
				buf[at] = byte(v)
			} else {
				order.PutUint16(buf[at:], v)
			}
		}
	}
	return buf, nil
}

// undoDifferences undoes TIFF's horizontal predictor: each sample of a row
// was stored as its difference from the one before.
func undoDifferences(b []byte, width, size int, order binary.ByteOrder) {
	row := width * size
	for r := 0; r+row <= len(b); r += row {
		for i := r + size; i < r+row; i += size {
			switch size {
			case 1:
				b[i] += b[i-1]
			case 2:
				order.PutUint16(b[i:], order.Uint16(b[i:])+order.Uint16(b[i-2:]))
			case 4:
				order.PutUint32(b[i:], order.Uint32(b[i:])+order.Uint32(b[i-4:]))
			case 8:
				order.PutUint64(b[i:], order.Uint64(b[i:])+order.Uint64(b[i-8:]))
			}
		}
	}
}

// packBits decodes PackBits, TIFF's run-length encoding: a count n, then
// n+1 bytes as they are (n from 0 to 127), or one byte 1-n times (n from
// -127 to -1); -128 is nothing.
type packBits struct {
	r      *bufio.Reader
	run    int  // bytes of the current run left
	repeat bool // the run repeats b
	b      byte
}

func (p *packBits) Read(out []byte) (int, error) {
	n := 0
	for n < len(out) {
		if p.run == 0 {
			c, err := p.r.ReadByte()
			if err != nil {
				if n > 0 && err == io.EOF {
					return n, nil
				}
				return n, err
			}
			switch h := int8(c); {
			case h >= 0:
				p.run, p.repeat = int(h)+1, false
			case h > -128:
				if p.b, err = p.r.ReadByte(); err != nil {
					return n, endedEarly(err)
				}
				p.run, p.repeat = 1-int(h), true
			}
			continue
		}
		if p.repeat {
			k := min(p.run, len(out)-n)
			for i := range k {
				out[n+i] = p.b
			}
			n, p.run = n+k, p.run-k
			continue
		}
		k, err := p.r.Read(out[n:min(len(out), n+p.run)])
		n, p.run = n+k, p.run-k
		if err != nil {
			if err == io.EOF {
				err = errors.New("a PackBits run ends early")
			}
			return n, err
		}
	}
	return n, nil
}
