package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goeq/goeq"
)

// eqPly's camera paths (eqPly --cameraPath, as its pathAround.txt): the
// flight a user benchmarks a model with plays here frame for frame as
// eqPly plays it, and the model stands where eqPly stands it.

// pose places the model as eqPly's frame data does: turned by its
// rotation, moved to the camera's position, and seen turned by the
// camera's rotation; each rotation is about x, then y, then z, in radians.
type pose struct {
	Rotation, Position, Model [3]float64
}

func rotateXYZ(r [3]float64) goeq.Mat4 {
	return goeq.RotateX(r[0]).Mul(goeq.RotateY(r[1])).Mul(goeq.RotateZ(r[2]))
}

func (p pose) matrix() goeq.Mat4 {
	at := goeq.Translate(p.Position[0], p.Position[1], p.Position[2])
	return rotateXYZ(p.Rotation).Mul(at).Mul(rotateXYZ(p.Model))
}

// distance is how far the model's centre is from the eye.
func (p pose) distance() float64 {
	return math.Sqrt(p.Position[0]*p.Position[0] + p.Position[1]*p.Position[1] + p.Position[2]*p.Position[2])
}

// check refuses what no path file gives (a NaN, or a value past float32's
// range): a trace could carry it.
func (p pose) check() error {
	for _, v := range [][3]float64{p.Rotation, p.Position, p.Model} {
		for _, x := range v {
			if !finite32(x) {
				return fmt.Errorf("pose %+v: %v is NaN or past float32's range", p, x)
			}
		}
	}
	return nil
}

func finite32(x float64) bool { return !math.IsNaN(x) && math.Abs(x) <= math.MaxFloat32 }

// eqPlySize scales a model fitted to render.ViewRadius to eqPly's size
// for it: its largest side 2 units long (triply's VertexData::scale), so
// that a path's positions, made for eqPly, show it as eqPly did.
func eqPlySize(box [2][3]float32) float64 {
	side := max(box[1][0]-box[0][0], box[1][1]-box[0][1], box[1][2]-box[0][2])
	if !(side > 0) {
		return 1
	}
	return 2 / float64(side)
}

// cameraPath is an eqPly camera path: the model's rotation, and the poses
// the camera passes, each at its frame.
type cameraPath struct {
	model [3]float64
	steps []pathStep
}

type pathStep struct {
	frame              int // counted from 1 at the path's start
	position, rotation [3]float64
}

// readCameraPath reads an eqPly camera path as eqPly's CameraAnimation
// does. Numbers separated by white space: the model's rotation in degrees
// about x, y and z, then seven a step: the frames since the step before
// (at least one; the first step's count from the start), the camera's
// position, and its rotation in degrees: the first angle about y, the
// second about x negated, the third about z. eqPly drops a step cut
// short and loops on a word that is not a number; here both are errors.
func readCameraPath(r io.Reader) (*cameraPath, error) {
	var nums []float64
	var lines []int // of each number
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		for _, word := range strings.Fields(sc.Text()) {
			x, err := strconv.ParseFloat(word, 64)
			if err != nil || !finite32(x) {
				return nil, fmt.Errorf("line %d: %q is not a number within float32's range", line, word)
			}
			nums, lines = append(nums, x), append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	const degree = math.Pi / 180
	if len(nums) < 3+7 {
		return nil, errors.New("no step in it: want the model's rotation (3 angles), then 7 numbers a step")
	}
	if extra := (len(nums) - 3) % 7; extra != 0 {
		return nil, fmt.Errorf("line %d: its last step has %d numbers; want 7: frames, x y z, and 3 angles", lines[len(nums)-extra], extra)
	}
	p := &cameraPath{model: [3]float64{nums[0] * degree, nums[1] * degree, nums[2] * degree}}
	frame := 0
	for i, v := 0, nums[3:]; len(v) > 0; i, v = i+7, v[7:] {
		if v[0] > maxStepFrames {
			return nil, fmt.Errorf("line %d: a step of %g frames; want at most %d", lines[3+i], v[0], maxStepFrames)
		}
		frame += max(int(v[0]), 1)
		p.steps = append(p.steps, pathStep{frame: frame,
			position: [3]float64{v[1], v[2], v[3]},
			rotation: [3]float64{-v[5] * degree, v[4] * degree, v[6] * degree}})
	}
	return p, nil
}

// maxStepFrames bounds a step's frames (eqPly counts them in an int): a
// path's frame numbers stay far from overflowing.
const maxStepFrames = 1_000_000_000

// lap is how many frames the path takes before it starts again.
func (p *cameraPath) lap() int {
	first, last := p.steps[0].frame, p.steps[len(p.steps)-1].frame
	if len(p.steps) == 1 {
		return 1
	}
	if first == 1 {
		return last
	}
	return last - first // it starts just past the first step
}

// pathPlayer plays a path as eqPly does: each frame a pose between two
// steps, position and angles interpolated linearly, from its start to its
// last step, then from its start again.
type pathPlayer struct {
	path        *cameraPath
	step, frame int
}

func (pl *pathPlayer) next() pose {
	steps := pl.path.steps
	if len(steps) == 1 {
		return pose{Rotation: steps[0].rotation, Position: steps[0].position, Model: pl.path.model}
	}
	pl.frame++
	if pl.frame > steps[pl.step+1].frame {
		if pl.step == len(steps)-2 {
			pl.step, pl.frame = 0, 1
		} else {
			pl.step++
		}
	}
	from, to := steps[pl.step], steps[pl.step+1]
	if pl.frame < from.frame {
		pl.frame = from.frame + 1
	}
	interval := float64(to.frame - from.frame)
	b := float64(pl.frame-from.frame) / interval
	a := 1 - b
	mix := func(x, y [3]float64) [3]float64 {
		return [3]float64{a*x[0] + b*y[0], a*x[1] + b*y[1], a*x[2] + b*y[2]}
	}
	return pose{Rotation: mix(from.rotation, to.rotation), Position: mix(from.position, to.position), Model: pl.path.model}
}
