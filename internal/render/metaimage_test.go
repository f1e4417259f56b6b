package render

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// MetaImage volumes load with the values, size and spacing their header
// gives: headers as VTK's vtkMetaImageWriter writes them (the data beside
// in a .raw or a zlib .zraw, or after the header in a .mha) and as ITK's
// do (big-endian, HeaderSize -1, ElementSize, a MET_FLOAT). What goeq
// cannot read is refused, saying what it is.
func TestMetaImageVolumes(t *testing.T) {
	dir := t.TempDir()
	const w, h, d = 6, 5, 4
	shorts, _ := rampOfShorts(w * h * d)
	var packed bytes.Buffer
	zw := zlib.NewWriter(&packed)
	zw.Write(shorts)
	zw.Close()
	bigEndian := make([]byte, len(shorts))
	for i := 0; i < len(shorts); i += 2 {
		bigEndian[i], bigEndian[i+1] = shorts[i+1], shorts[i]
	}
	var floats []byte
	for i := 0; i < len(shorts); i += 2 {
		floats = binary.LittleEndian.AppendUint32(floats, math.Float32bits(float32(int16(binary.LittleEndian.Uint16(shorts[i:])))))
	}
	// VTK 9's header, in its order, and its data
	vtkHeader := func(compressed bool, data string) string {
		c := "CompressedData = False\n"
		if compressed {
			c = "CompressedData = True\nCompressedDataSize = " + strconv.Itoa(packed.Len()) + "\n"
		}
		return "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n" + c +
			"TransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = 0 0 0\nCenterOfRotation = 0 0 0\nElementSpacing = 1 1 2\n" +
			"DimSize = 6 5 4\nAnatomicalOrientation = ???\nElementType = MET_SHORT\nElementDataFile = " + data + "\n"
	}
	itkHeader := func(extra, data string) string {
		return "ObjectType = Image\nNDims = 3\n" + extra + "ElementSize = 1 1 2\nDimSize = 6 5 4\nElementDataFile = " + data + "\n"
	}
	files := map[string][]byte{
		"plain.mhd":   []byte(vtkHeader(false, "plain.raw")),
		"plain.raw":   shorts,
		"packed.mhd":  []byte(vtkHeader(true, "packed.zraw")),
		"packed.zraw": packed.Bytes(),
		"local.mha":   append([]byte(vtkHeader(false, "LOCAL")), shorts...),
		"zlocal.mha":  append([]byte(vtkHeader(true, "LOCAL")), packed.Bytes()...),
		"big.mha":     append([]byte(itkHeader("ElementByteOrderMSB = True\nElementType = MET_SHORT\n", "LOCAL")), bigEndian...),
		"tail.mhd":    []byte(itkHeader("HeaderSize = -1\nElementType = MET_SHORT\n", "tail.raw")),
		"tail.raw":    append([]byte("some other header"), shorts...),
		"float.mha":   append([]byte(itkHeader("ElementType = MET_FLOAT\nElementNumberOfChannels = 1\n", "LOCAL")), floats...),
		// refused
		"rgb.mha":     append([]byte(itkHeader("ElementType = MET_UCHAR\nElementNumberOfChannels = 3\n", "LOCAL")), make3(w*h*d)...),
		"flat.mha":    []byte("ObjectType = Image\nNDims = 2\nDimSize = 6 5\nElementType = MET_SHORT\nElementDataFile = LOCAL\n"),
		"short.mha":   append([]byte(vtkHeader(false, "LOCAL")), shorts[:100]...),
		"cut.mha":     append([]byte(vtkHeader(true, "LOCAL")), packed.Bytes()[:packed.Len()/2]...),
		"list.mhd":    []byte(itkHeader("ElementType = MET_SHORT\n", "LIST")),
		"noend.mhd":   []byte("ObjectType = Image\nNDims = 3\n"),
		"notmeta.mha": []byte("P5\n6 5\n255\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"plain.mhd", "packed.mhd", "local.mha", "zlocal.mha", "big.mha", "tail.mhd", "float.mha"} {
		loadsAsRamp(t, filepath.Join(dir, name))
	}
	for name, want := range map[string]string{
		"rgb.mha":     "ElementNumberOfChannels 3: goeq's volumes hold one value a voxel",
		"flat.mha":    `NDims "2", DimSize "6 5": goeq's volumes have three axes`,
		"short.mha":   "its header's 6×5×4 voxels of 2 byte(s) need 240 after the",
		"cut.mha":     "the voxels' data ends early",
		"list.mhd":    `ElementDataFile "LIST": goeq reads a volume's data from one file`,
		"noend.mhd":   "the header ends with no ElementDataFile",
		"notmeta.mha": `line 1: "P5"; want "Key = Value" (a MetaImage header)`,
	} {
		if _, err := LoadVolume(filepath.Join(dir, name)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
}
