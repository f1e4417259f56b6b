package goeq

import (
	"encoding/json"
	"fmt"

	"github.com/goeq/goeq/internal/channel"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/render"
)

// Application is what an application hands to goeq: the maker of its
// renderers. Its process is also every render client's (Init), so the same
// value makes the renderers there.
type Application interface {
	// NewRenderer makes the renderer of one pipe (one GPU) of a render
	// client. It runs on the pipe's goroutine with the pipe's GL context
	// current, so it may create GL objects.
	NewRenderer(p *Pipe) (Renderer, error)
}

// Pipe is what a renderer factory knows of where it runs.
type Pipe struct {
	Node   string // the config's node name
	Name   string // the pipe's name
	Device int    // the GPU, as the config's pipe says
	init   []byte
}

// InitData decodes the application's init data (Options.InitData) into v,
// a pointer to the type the application gave.
func (p *Pipe) InitData(v any) error {
	if len(p.init) == 0 {
		return nil
	}
	return json.Unmarshal(p.init, v)
}

// Renderer draws one pipe's share of each frame. Draw is called on the
// pipe's goroutine, with its GL context current and the target bound:
// viewport and scissor are set to the part to draw.
type Renderer interface {
	// Draw renders dc's part of the frame and returns the region it
	// actually drew, relative to its viewport (only that is read back and
	// sent); the zero Region means all of it.
	Draw(dc *DrawContext) (Region, error)
}

// Exiter is implemented by renderers that release GL objects when their
// pipe stops (called with the context current).
type Exiter interface {
	Exit()
}

// ClearColorer is implemented by renderers whose background is not
// goeq's default dark grey (a volume renderer clears to transparent for
// blending).
type ClearColorer interface {
	ClearColor() [4]float32
}

// Eye is the eye a draw renders.
type Eye int

// The eyes. A mono view renders Cyclop.
const (
	Cyclop Eye = compound.EyeCyclop
	Left   Eye = compound.EyeLeft
	Right  Eye = compound.EyeRight
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

// Pixel is a pixel decomposition: this draw renders every W-th pixel
// from X horizontally and every H-th from Y vertically.
type Pixel struct{ X, Y, W, H int }

// Subpixel is a subpixel decomposition: sample Index of Size.
type Subpixel struct{ Index, Size int }

// Mat4 is a 4x4 matrix, column-major as OpenGL takes it.
type Mat4 [16]float32

// DrawContext is everything one draw needs.
type DrawContext struct {
	Frame   int    // the frame number, counted from 0
	Channel string // the channel's identity (as in statistics and logs)
	Eye     Eye
	// X, Y, Width, Height is the viewport of the bound framebuffer to draw
	// into, in pixels.
	X, Y, Width, Height int
	// Viewport is the part of the destination this draw covers, Range the
	// part of the database, Pixel and Subpixel the decomposition.
	Viewport Viewport
	Range    Range
	Pixel    Pixel
	Subpixel Subpixel
	// Projection is the draw's projection: the wall's or projection's
	// frustum for this eye, already adjusted to the part drawn.
	Projection Mat4
	// View is the eye's view matrix: the observer's head and eye offset
	// (the model transform is the application's).
	View Mat4
	data []byte
}

// FrameData decodes the frame data the application gave StartFrame for
// this frame into v, a pointer to that type. The data is the frame's own,
// whatever the latency.
func (dc *DrawContext) FrameData(v any) error {
	if len(dc.data) == 0 {
		return nil
	}
	return json.Unmarshal(dc.data, v)
}

// pipeRenderer runs an application's renderer as the runtime's.
type pipeRenderer struct{ r Renderer }

func (p pipeRenderer) Init() error { return nil }

func (p pipeRenderer) Exit() {
	if e, ok := p.r.(Exiter); ok {
		e.Exit()
	}
}

func (p pipeRenderer) Draw(rp render.Params) (compound.PixelViewport, error) {
	dc := &DrawContext{Frame: rp.Frame, Channel: rp.Channel, Eye: Eye(rp.Eye), X: rp.X, Y: rp.Y, Width: rp.Width, Height: rp.Height,
		Viewport: Viewport(rp.Viewport), Range: Range(rp.Range), Pixel: Pixel(rp.Pixel), Subpixel: Subpixel(rp.Subpixel),
		Projection: Mat4(rp.Projection), View: Mat4(rp.View), data: rp.Data}
	roi, err := p.r.Draw(dc)
	if roi == (Region{}) {
		return compound.PixelViewport{}, err
	}
	return compound.PixelViewport{X: rp.X + roi.X, Y: rp.Y + roi.Y, W: roi.W, H: roi.H}, err
}

// clearColored is a pipeRenderer whose application renderer has its own
// background.
type clearColored struct {
	pipeRenderer
	c ClearColorer
}

func (c clearColored) ClearColor() [4]float32 { return c.c.ClearColor() }

var _ channel.ClearColorer = clearColored{}

// runtimeRenderer wraps r, keeping the optional interfaces it has.
func runtimeRenderer(r Renderer) render.Renderer {
	if c, ok := r.(ClearColorer); ok {
		return clearColored{pipeRenderer{r}, c}
	}
	return pipeRenderer{r}
}
