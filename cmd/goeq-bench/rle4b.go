package main

// rle4b is the reference run-length coder the codec ratio is measured
// against, written after the scheme Equalizer published for its RLE4B
// compressor: each of the four byte planes of the RGBA pixels is coded on
// its own; a run of three or more equal bytes, or any byte equal to the
// marker, is written as (marker, value, count); other bytes are written as
// they are. Runs are cut at 255.
func rle4b(pixels []byte) int {
	const marker = 0x42
	size := 0
	n := len(pixels) / 4
	for plane := 0; plane < 4; plane++ {
		for i := 0; i < n; {
			v := pixels[4*i+plane]
			j := i + 1
			for j < n && j-i < 255 && pixels[4*j+plane] == v {
				j++
			}
			run := j - i
			if run >= 3 || v == marker {
				size += 3
				i = j
				continue
			}
			size += run
			i = j
		}
	}
	return size
}
