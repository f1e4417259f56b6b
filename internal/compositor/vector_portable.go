//go:build !(goexperiment.simd && amd64)

package compositor

// Without GOEXPERIMENT=simd (or off amd64) the scalar loops do all the
// work; vector_simd.go has the vector kernels.

// VectorKernels names the instruction set of the vector kernels that the
// depth merge and the blends use ("AVX2"), or "" where the portable loops
// run (a build without GOEXPERIMENT=simd, or a CPU without AVX2).
func VectorKernels() string { return "" }

func mergeNearestFloatVector(dd, sd []float32, dc, sc []uint32) int { return 0 }

func mergeNearestUintVector(dd, sd []uint32, dc, sc []uint32) int { return 0 }

func blendVector(dc, sc []uint32, srcInFront bool) int { return 0 }
