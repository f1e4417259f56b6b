// Package shaders will embed goeq's GLSL sources (go:embed) for GPU
// compositing: 2D assembly, depth compositing, blending and interleaving.
package shaders
