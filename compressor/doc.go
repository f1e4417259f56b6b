// Package compressor will hold the pixel codecs frames travel with (RGBA8
// colour and depth; none, s2, zstd, byte planes, pixel run-length) and the
// per-link choice among them by measured bandwidth and codec speed.
package compressor
