// Package compositor will assemble frames: 2D tiles, depth-merged DB ranges,
// ordered alpha blending, pixel and subpixel interleaving, on the GPU (with
// the shaders in package shaders) and on the CPU, giving the same image.
package compositor
