package compound

import (
	"fmt"
	"math"
)

// Head is where a tracked observer's head is: Matrix takes head space to
// world space (column-major, as OpenGL's), and EyeBase, when above zero,
// puts the eyes that far apart along the head's x axis (otherwise the
// observer's configured eyes are used). FocusDistance (when above zero)
// and FocusMode (when set) replace the observer's, as an application's
// Observer::setFocusDistance and setFocusMode do in Equalizer.
type Head struct {
	Matrix        [16]float64
	EyeBase       float64
	FocusDistance float64
	FocusMode     string
}

// Check says what makes h unusable: a value that is not a finite number
// (a frustum of NaN cannot be drawn, nor sent), or a negative eye base.
func (h Head) Check() error {
	for i, v := range h.Matrix {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("its matrix has %v at index %d", v, i)
		}
	}
	if math.IsNaN(h.EyeBase) || math.IsInf(h.EyeBase, 0) || h.EyeBase < 0 {
		return fmt.Errorf("its eye base %v is not a finite number of zero or more", h.EyeBase)
	}
	if math.IsNaN(h.FocusDistance) || math.IsInf(h.FocusDistance, 0) || h.FocusDistance < 0 {
		return fmt.Errorf("its focus distance %v is not a finite number of zero or more", h.FocusDistance)
	}
	switch h.FocusMode {
	case "", FocusFixed, FocusRelativeToOrigin, FocusRelativeToObserver:
	default:
		return fmt.Errorf("its focus mode %.40q is none of %s, %s and %s", h.FocusMode, FocusFixed, FocusRelativeToOrigin, FocusRelativeToObserver)
	}
	return nil
}

// IdentityHead is an untracked head: at the origin, looking down -z.
var IdentityHead = Head{Matrix: [16]float64{0: 1, 5: 1, 10: 1, 15: 1}}

// Point maps a point of head space to world space.
func (h Head) Point(v Vec3) Vec3 {
	m := h.Matrix
	return Vec3{
		m[0]*v[0] + m[4]*v[1] + m[8]*v[2] + m[12],
		m[1]*v[0] + m[5]*v[1] + m[9]*v[2] + m[13],
		m[2]*v[0] + m[6]*v[1] + m[10]*v[2] + m[14],
	}
}

// Tracking is the observers' heads frame by frame: a head set for frame N
// holds from frame N on. Planning reads it; it has no clock of its own.
type Tracking struct {
	heads   map[*Observer]Head
	pending FromFrame[headChange]
}

type headChange struct {
	observer *Observer
	head     Head
}

// Set places observer o's head from frame on.
func (t *Tracking) Set(frame int, o *Observer, h Head) { t.pending.Set(frame, headChange{o, h}) }

// Advance applies the heads set for frames up to frame: call it before
// planning frame. It reports whether a head was set.
func (t *Tracking) Advance(frame int) bool {
	return t.pending.Advance(frame, func(c headChange) {
		if t.heads == nil {
			t.heads = map[*Observer]Head{}
		}
		t.heads[c.observer] = c.head
	})
}

// FromFrame holds changes that take effect from a frame on, until
// planning reaches that frame: planners have no clock of their own.
type FromFrame[T any] struct {
	pending []frameChange[T]
}

type frameChange[T any] struct {
	frame  int
	change T
}

// Set holds change for frame.
func (f *FromFrame[T]) Set(frame int, change T) {
	f.pending = append(f.pending, frameChange[T]{frame, change})
}

// Advance applies, in the order they were set, the changes for frames up
// to frame, and keeps the later ones. It reports whether it applied any.
func (f *FromFrame[T]) Advance(frame int, apply func(T)) (applied bool) {
	kept := f.pending[:0]
	for _, c := range f.pending {
		if c.frame > frame {
			kept = append(kept, c)
			continue
		}
		apply(c.change)
		applied = true
	}
	f.pending = kept
	return applied
}

// Eye returns the wall compound c renders as eye sees it, and where that
// eye is, both in world space: the observer watching c, moved by its
// tracked head. An HMD wall moves with the head; a fixed wall stays.
func (t *Tracking) Eye(cfg *Config, c *Compound, wall Wall, eye int) (Wall, Vec3) {
	obs := cfg.ObserverOf(c)
	h, tracked := Head{}, false
	if obs != nil && t != nil {
		h, tracked = t.heads[obs]
	}
	if obs == nil {
		half := cfg.EyeBase / 2
		obs = &Observer{EyeLeft: Vec3{-half, 0, 0}, EyeRight: Vec3{half, 0, 0}}
	}
	offset := obs.EyeCyclop
	switch eye {
	case EyeLeft:
		offset = obs.EyeLeft
	case EyeRight:
		offset = obs.EyeRight
	}
	if !tracked {
		return wall, offset
	}
	if h.EyeBase > 0 {
		switch eye {
		case EyeLeft:
			offset = Vec3{-h.EyeBase / 2, 0, 0}
		case EyeRight:
			offset = Vec3{h.EyeBase / 2, 0, 0}
		default:
			offset = Vec3{}
		}
	}
	if wall.HMD {
		wall.BottomLeft, wall.BottomRight, wall.TopLeft = h.Point(wall.BottomLeft), h.Point(wall.BottomRight), h.Point(wall.TopLeft)
	}
	return wall, h.Point(offset)
}
