package goeq

import (
	"github.com/goeq/goeq/internal/glutil"
	"github.com/goeq/goeq/internal/render"
)

// Identity is the identity matrix.
var Identity = Mat4(render.Identity)

// Mul returns m·n.
func (m Mat4) Mul(n Mat4) Mat4 { return Mat4(render.Mul(m, n)) }

// Translate is a translation.
func Translate(x, y, z float32) Mat4 { return Mat4(render.Translate(x, y, z)) }

// RotateX is a rotation about the x axis by radians.
func RotateX(radians float64) Mat4 { return Mat4(render.RotateX(radians)) }

// RotateY is a rotation about the y axis by radians.
func RotateY(radians float64) Mat4 { return Mat4(render.RotateY(radians)) }

// Program compiles and links a GLSL program (OpenGL 3.3 core) in the
// current context, with the compiler's log in the error.
func Program(vertex, fragment string) (uint32, error) { return glutil.Program(vertex, fragment) }
