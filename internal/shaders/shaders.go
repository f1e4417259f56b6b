// Package shaders embeds goeq's GLSL sources (OpenGL 3.3 core): the
// built-in renderers' and the GPU compositor's.
package shaders

import (
	"embed"
	"fmt"
)

//go:embed *.vert *.frag
var files embed.FS

// Source returns the GLSL source of the named shader file.
func Source(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("shaders: %w", err)
	}
	return string(b), nil
}

// MustSource is Source for the shaders compiled into goeq.
func MustSource(name string) string {
	s, err := Source(name)
	if err != nil {
		panic(err)
	}
	return s
}
