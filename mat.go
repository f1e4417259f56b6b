package goeq

import (
	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/glutil"
)

// Identity is the identity matrix.
var Identity = draw.Identity

// Translate is a translation (float64, as the rotations and Go's math
// take; the matrix holds float32, as GL does).
func Translate(x, y, z float64) Mat4 { return draw.Translate(x, y, z) }

// Scale scales by s in every direction.
func Scale(s float64) Mat4 { return draw.Scale(s) }

// RotateX is a rotation about the x axis by radians.
func RotateX(radians float64) Mat4 { return draw.RotateX(radians) }

// RotateY is a rotation about the y axis by radians.
func RotateY(radians float64) Mat4 { return draw.RotateY(radians) }

// RotateZ is a rotation about the z axis by radians.
func RotateZ(radians float64) Mat4 { return draw.RotateZ(radians) }

// Program compiles and links a GLSL program (OpenGL 3.3 core) in the
// current context, with the compiler's log in the error.
func Program(vertex, fragment string) (uint32, error) { return glutil.Program(vertex, fragment) }
