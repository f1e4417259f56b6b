// Package draw is what a renderer sees of a frame: the Renderer interface
// an application implements and the Context of one draw. Package goeq
// re-exports it; the runtime and the built-in renderers use it directly.
package draw

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
)

// Renderer draws one pipe's share of each frame. Draw is called on the
// pipe's goroutine, with its GL context current and the target bound:
// viewport and scissor are set to the part to draw. The target is
// multisampled when the window asks for it (planes_samples), and holds
// what the part held before the draw. Draw sets the GL state it needs and
// need not restore it: goeq puts back what its own passes rely on. It
// must not change the colour mask, which is the eye's in anaglyph stereo.
type Renderer interface {
	// Draw renders c's part of the frame and returns the region it
	// actually drew, relative to its viewport (only that is read back and
	// sent); All means all of it.
	Draw(c *Context) (Region, error)
}

// All is the region a renderer returns when it does not know better: the
// whole viewport. Nothing says it drew nothing (any region without area
// but All does).
var (
	All     = Region{}
	Nothing = Region{X: -1, Y: -1}
)

// Exiter is implemented by renderers that release GL objects when their
// pipe stops (called with the context current). The run's end waits for
// every pipe's Exit, up to 30 seconds; a render client still in one then
// is killed, with a warning.
type Exiter interface {
	Exit()
}

// ClearColorer is implemented by renderers whose background is not the
// default dark grey (a volume renderer clears to transparent for
// blending).
type ClearColorer interface {
	ClearColor() [4]float32
}

// RangeOrderer is implemented by renderers that know in which order
// database ranges are blended (back to front for the eye): it returns the
// indexes of ranges in that order. It runs where the ranges are assembled,
// which need not be where they were drawn: c carries the frame, eye, view
// (View, and OrthoView for a parallel projection) and frame data, not a
// viewport to draw into.
type RangeOrderer interface {
	BackToFront(c *Context, ranges []Range) []int
}

// Overlayer is implemented by renderers that draw over a destination's
// finished image (a HUD): DrawOverlay runs once per destination channel
// and frame after assembly, before the image is shown or written, with
// the channel's whole pixel viewport.
type Overlayer interface {
	DrawOverlay(c *Context) error
}

// Reader is implemented by renderers that read their pixels back
// themselves (Equalizer's frameReadback): after a post-process, or from a
// framebuffer of their own. ReadBack runs on the pipe's goroutine, with
// the channel's framebuffer bound, once for each output frame of a draw
// (c's X, Y, Width, Height is region): it returns region's pixels as
// RGBA8, 4 bytes per pixel in rows from the bottom, and their depth (0 to
// 1, a float per pixel) when depth is true. Sizes other than those fail
// the frame. goeq's own readback is asynchronous; a Reader's is not.
type Reader interface {
	ReadBack(c *Context, region Region, depth bool) (color []byte, depthValues []float32, err error)
}

// Image is an input frame of an assembly, uploaded: its textures hold
// Width x Height pixels (from the bottom-left corner of textures of
// TexWidth x TexHeight: pooled textures may be larger, and what lies
// beyond the frame is an earlier frame's; a linear filter reaches it at
// the frame's top and right edges unless its coordinates stop at the
// last texel's centre, (Width-0.5)/TexWidth and (Height-0.5)/TexHeight).
type Image struct {
	Color, Depth        uint32 // GL textures; Depth is 0 when the frame has none
	Width, Height       int
	TexWidth, TexHeight int
	// At is where goeq would put it, in pixels of the bound framebuffer
	// (a frame of a zoomed source is scaled to it).
	At       Region
	Producer string // the channel that drew it
	Viewport Viewport
	Range    Range
	Pixel    Pixel
	Subpixel Subpixel
}

// Assembler is implemented by renderers that composite a channel's input
// frames themselves (Equalizer's frameAssemble): their own blending, a
// border around each part. Assemble runs on the pipe's goroutine with the
// channel's framebuffer bound and c's X, Y, Width, Height set to the
// assembly's region, once per assembly when every input has arrived
// (goeq's own compositing starts with the first arrival). The textures
// are goeq's, valid during the call only. Inputs from sources that drew
// nothing are left out. In anaglyph stereo the colour mask is the eye's:
// glBlitFramebuffer and texture uploads ignore it (goeq's own assembly
// reads the other channels back first), so an assembler of stereo frames
// draws its inputs.
type Assembler interface {
	Assemble(c *Context, images []Image) error
}

// Message is one of the application's cluster events (goeq's
// Config.Broadcast): encoded once on the application's node, the same bytes
// on every node.
type Message []byte

// Decode decodes the message into v, a pointer to the type the
// application sent.
func (m Message) Decode(v any) error { return json.Unmarshal(m, v) }

// Receiver is implemented by renderers that take the application's
// cluster events. Receive runs on every pipe of every node, on the pipe's
// goroutine with its context current, before anything of frame is drawn,
// whether or not the pipe draws in that frame; the messages come in the
// order they were sent. A renderer set up mid-run (its node rejoined)
// first takes the messages of the frames before its first, each frame's
// in a call of its own. An error fails the frame.
type Receiver interface {
	Receive(frame int, msgs []Message) error
}

// Eye is the eye a draw renders.
type Eye int

// The eyes. A mono view renders Cyclop.
const (
	Cyclop Eye = 1 << iota
	Left
	Right
)

func (e Eye) String() string {
	switch e {
	case Cyclop:
		return "cyclop"
	case Left:
		return "left"
	case Right:
		return "right"
	}
	return fmt.Sprintf("eye(%d)", int(e))
}

// Region is a rectangle of pixels.
type Region struct{ X, Y, W, H int }

// Viewport is a fraction of a destination (0 to 1 on each axis).
type Viewport struct{ X, Y, W, H float64 }

// Range is a fraction of the database [Start, End).
type Range struct{ Start, End float64 }

// Pixel is a pixel decomposition: the draw renders every W-th pixel from
// X horizontally and every H-th from Y vertically.
type Pixel struct{ X, Y, W, H int }

// Subpixel is a subpixel decomposition: sample Index of Size.
type Subpixel struct{ Index, Size int }

// Context is everything one draw needs.
type Context struct {
	Frame int // the frame number, counted from 0
	// Channel is the channel's identity (as in statistics and logs): the
	// one drawn for. It may be another node's, lost in a frame in flight,
	// whose part this pipe draws in its place, at that channel's region
	// and projection.
	Channel string
	Eye     Eye
	// ViewIndex is the config's view this is for: the one its destination
	// shows, as an index into goeq's Config.Views (-1 when it shows none).
	// An application with a camera or model per view picks it by this.
	ViewIndex int
	// X, Y, Width, Height is the viewport of the bound framebuffer to draw
	// into, in pixels.
	X, Y, Width, Height int
	// Viewport is the part of the destination this draw covers, Range the
	// part of the database, Pixel and Subpixel the decomposition.
	Viewport Viewport
	Range    Range
	Pixel    Pixel
	Subpixel Subpixel
	// DestWidth x DestHeight is the destination channel's size, and Share
	// the destination pixels this draw covers (Width x Height covers
	// Share: fewer pixels under a pixel decomposition or a zoom).
	DestWidth, DestHeight int
	Share                 Region
	// Projection is the draw's projection: the wall's or projection's
	// frustum for this eye, already adjusted to the part drawn. Adjust is
	// that adjustment alone, for renderers that cast rays.
	Projection Mat4
	Adjust     Mat4
	// View is the eye's view matrix: the observer's head and eye offset
	// (the model transform is the application's).
	View Mat4
	// Ortho and OrthoView are the parallel projection of the same wall,
	// for an application that offers one (eqPly's o): the wall's own
	// extent around the cyclop eye, adjusted to the part drawn as
	// Projection is, and the eye's view sheared so that the stereo eyes
	// agree on the wall's plane. Use them together in place of
	// Projection and View.
	Ortho, OrthoView Mat4
	// Data is the application's frame data of this frame, as encoded.
	Data []byte
}

// FrameData decodes the frame data the application gave for this frame
// into v, a pointer to its type. The data is the frame's own, whatever
// the latency. No data leaves v as it is.
func (c *Context) FrameData(v any) error {
	if len(c.Data) == 0 {
		return nil
	}
	return json.Unmarshal(c.Data, v)
}

// UniqueColor is a colour of the channel's own, the same on every node
// and in every run, as Equalizer's Channel::getUniqueColor: eqPly and
// eVolve draw in it to show which channel drew which part of a
// decomposition. Channels' colours lie apart in hue.
func (c *Context) UniqueColor() [3]float32 {
	h := fnv.New32a()
	h.Write([]byte(c.Channel))
	hue := math.Mod(float64(h.Sum32())*0.618033988749895, 1) * 6 // the golden ratio spreads nearby sums
	x := float32(1 - math.Abs(math.Mod(hue, 2)-1))
	rgb := [6][3]float32{{1, x, 0}, {x, 1, 0}, {0, 1, x}, {0, x, 1}, {x, 0, 1}, {1, 0, x}}[int(hue)%6]
	for i := range rgb {
		rgb[i] = 0.2 + 0.75*rgb[i]
	}
	return rgb
}

// Mat4 is a 4x4 matrix, column-major as OpenGL takes it.
type Mat4 [16]float32

// Identity is the identity matrix.
var Identity = Mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}

// Mul returns m·n.
func (m Mat4) Mul(n Mat4) Mat4 {
	var out Mat4
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			var s float32
			for k := 0; k < 4; k++ {
				s += m[k*4+r] * n[c*4+k]
			}
			out[c*4+r] = s
		}
	}
	return out
}

// Translate is a translation. Like the rotations it takes float64, Go's
// math's type, and stores float32, GL's.
func Translate(x, y, z float64) Mat4 {
	m := Identity
	m[12], m[13], m[14] = float32(x), float32(y), float32(z)
	return m
}

// Scale scales by s in every direction.
func Scale(s float64) Mat4 {
	f := float32(s)
	return Mat4{f, 0, 0, 0, 0, f, 0, 0, 0, 0, f, 0, 0, 0, 0, 1}
}

// RotateX is a rotation about the x axis by radians.
func RotateX(radians float64) Mat4 {
	c, s := float32(math.Cos(radians)), float32(math.Sin(radians))
	return Mat4{1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1}
}

// RotateY is a rotation about the y axis by radians.
func RotateY(radians float64) Mat4 {
	c, s := float32(math.Cos(radians)), float32(math.Sin(radians))
	return Mat4{c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1}
}

// RotateZ is a rotation about the z axis by radians.
func RotateZ(radians float64) Mat4 {
	c, s := float32(math.Cos(radians)), float32(math.Sin(radians))
	return Mat4{c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
}

// Inverse returns m's inverse (zero if m is singular).
func (m Mat4) Inverse() Mat4 {
	var a [16]float64
	for i, v := range m {
		a[i] = float64(v)
	}
	var inv [16]float64
	inv[0] = a[5]*a[10]*a[15] - a[5]*a[11]*a[14] - a[9]*a[6]*a[15] + a[9]*a[7]*a[14] + a[13]*a[6]*a[11] - a[13]*a[7]*a[10]
	inv[4] = -a[4]*a[10]*a[15] + a[4]*a[11]*a[14] + a[8]*a[6]*a[15] - a[8]*a[7]*a[14] - a[12]*a[6]*a[11] + a[12]*a[7]*a[10]
	inv[8] = a[4]*a[9]*a[15] - a[4]*a[11]*a[13] - a[8]*a[5]*a[15] + a[8]*a[7]*a[13] + a[12]*a[5]*a[11] - a[12]*a[7]*a[9]
	inv[12] = -a[4]*a[9]*a[14] + a[4]*a[10]*a[13] + a[8]*a[5]*a[14] - a[8]*a[6]*a[13] - a[12]*a[5]*a[10] + a[12]*a[6]*a[9]
	inv[1] = -a[1]*a[10]*a[15] + a[1]*a[11]*a[14] + a[9]*a[2]*a[15] - a[9]*a[3]*a[14] - a[13]*a[2]*a[11] + a[13]*a[3]*a[10]
	inv[5] = a[0]*a[10]*a[15] - a[0]*a[11]*a[14] - a[8]*a[2]*a[15] + a[8]*a[3]*a[14] + a[12]*a[2]*a[11] - a[12]*a[3]*a[10]
	inv[9] = -a[0]*a[9]*a[15] + a[0]*a[11]*a[13] + a[8]*a[1]*a[15] - a[8]*a[3]*a[13] - a[12]*a[1]*a[11] + a[12]*a[3]*a[9]
	inv[13] = a[0]*a[9]*a[14] - a[0]*a[10]*a[13] - a[8]*a[1]*a[14] + a[8]*a[2]*a[13] + a[12]*a[1]*a[10] - a[12]*a[2]*a[9]
	inv[2] = a[1]*a[6]*a[15] - a[1]*a[7]*a[14] - a[5]*a[2]*a[15] + a[5]*a[3]*a[14] + a[13]*a[2]*a[7] - a[13]*a[3]*a[6]
	inv[6] = -a[0]*a[6]*a[15] + a[0]*a[7]*a[14] + a[4]*a[2]*a[15] - a[4]*a[3]*a[14] - a[12]*a[2]*a[7] + a[12]*a[3]*a[6]
	inv[10] = a[0]*a[5]*a[15] - a[0]*a[7]*a[13] - a[4]*a[1]*a[15] + a[4]*a[3]*a[13] + a[12]*a[1]*a[7] - a[12]*a[3]*a[5]
	inv[14] = -a[0]*a[5]*a[14] + a[0]*a[6]*a[13] + a[4]*a[1]*a[14] - a[4]*a[2]*a[13] - a[12]*a[1]*a[6] + a[12]*a[2]*a[5]
	inv[3] = -a[1]*a[6]*a[11] + a[1]*a[7]*a[10] + a[5]*a[2]*a[11] - a[5]*a[3]*a[10] - a[9]*a[2]*a[7] + a[9]*a[3]*a[6]
	inv[7] = a[0]*a[6]*a[11] - a[0]*a[7]*a[10] - a[4]*a[2]*a[11] + a[4]*a[3]*a[10] + a[8]*a[2]*a[7] - a[8]*a[3]*a[6]
	inv[11] = -a[0]*a[5]*a[11] + a[0]*a[7]*a[9] + a[4]*a[1]*a[11] - a[4]*a[3]*a[9] - a[8]*a[1]*a[7] + a[8]*a[3]*a[5]
	inv[15] = a[0]*a[5]*a[10] - a[0]*a[6]*a[9] - a[4]*a[1]*a[10] + a[4]*a[2]*a[9] + a[8]*a[1]*a[6] - a[8]*a[2]*a[5]
	det := a[0]*inv[0] + a[1]*inv[4] + a[2]*inv[8] + a[3]*inv[12]
	var out Mat4
	if det == 0 {
		return out
	}
	for i := range inv {
		out[i] = float32(inv[i] / det)
	}
	return out
}
