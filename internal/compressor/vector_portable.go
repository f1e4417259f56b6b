//go:build !(goexperiment.simd && amd64)

package compressor

// Without GOEXPERIMENT=simd (or off amd64) the scalar loops do all the
// work; vector_simd.go has the vector kernels.

// VectorKernels names the instruction set of the codecs' vector kernels
// ("AVX2"), or "" where the portable loops run (a build without
// GOEXPERIMENT=simd, or a CPU without AVX2).
func VectorKernels() string { return "" }

func planesVector(planes, src []byte) int { return 0 }

func interleaveVector(dst, planes []byte) int { return 0 }

func pixelRunVector(src []byte, i, j, limit int) (int, bool) { return j, false }

func pixelPairVector(src []byte, k, n int) (int, bool) { return k, false }

func byteRunVector(p []byte, i, j, limit int) (int, bool) { return j, false }

func byteTripleVector(p []byte, k, n int) (int, bool) { return k, false }

func deltasVector(d, src []byte) int { return 0 }
