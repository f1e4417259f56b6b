package goeq

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/control"
)

// Application is what an application hands to goeq: the maker of its
// renderers. Its process is also every render client's (Init), so the same
// value makes the renderers there.
type Application interface {
	// NewRenderer makes the renderer of one pipe (one GPU) of a render
	// client. It runs on the pipe's goroutine with the pipe's GL context
	// current, so it may create GL objects. The pipes of a node call it
	// at the same time, each on its own goroutine; it may take as long as
	// loading the application's data does, within Options.InitTimeout.
	NewRenderer(p *Pipe) (Renderer, error)
}

// Pipe is what a renderer factory knows of where it runs.
type Pipe struct {
	Node   string // the config's node name
	Name   string // the pipe's name
	Device int    // the GPU, as the config's pipe says
	init   []byte
	send   func([]byte) error
}

// SendEvent sends v (any value encoding/json takes) to the application as
// a PipeEvent, as Equalizer's render nodes send config events: a pick's
// result, a load's progress, what a renderer found. Any goroutine may
// call it. Events of one pipe arrive in order; one is at most
// MaxEventData bytes encoded, and when too many wait to be sent it
// returns an error rather than drop one.
func (p *Pipe) SendEvent(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("goeq: pipe event: %w", err)
	}
	if p.send == nil {
		return errors.New("goeq: pipe event: this pipe sends to no application")
	}
	if err := p.send(b); err != nil {
		return fmt.Errorf("goeq: pipe event: %w", err)
	}
	return nil
}

// MaxEventData bounds a pipe event's data, encoded.
const MaxEventData = control.MaxEventData

// InitData decodes the application's init data (Options.InitData) into v,
// a pointer to the type the application gave.
func (p *Pipe) InitData(v any) error {
	if len(p.init) == 0 {
		return nil
	}
	return json.Unmarshal(p.init, v)
}

// What a renderer sees; package draw defines them (the runtime uses them
// too) and goeq names them for applications.
type (
	// Renderer draws one pipe's share of each frame (see draw.Renderer).
	Renderer = draw.Renderer
	// DrawContext is everything one draw needs (see draw.Context).
	DrawContext = draw.Context
	// Exiter is implemented by renderers that release GL objects when
	// their pipe stops.
	Exiter = draw.Exiter
	// ClearColorer is implemented by renderers with their own background.
	ClearColorer = draw.ClearColorer
	// RangeOrderer is implemented by renderers that know the order DB
	// ranges blend in.
	RangeOrderer = draw.RangeOrderer
	// Overlayer is implemented by renderers that draw over a destination's
	// finished image (a HUD).
	Overlayer = draw.Overlayer
	// Receiver is implemented by renderers that take the application's
	// cluster events (Config.Broadcast).
	Receiver = draw.Receiver
	// Message is one cluster event as a renderer receives it.
	Message = draw.Message
	// Reader is implemented by renderers that read their pixels back
	// themselves.
	Reader = draw.Reader
	// Assembler is implemented by renderers that composite input frames
	// themselves.
	Assembler = draw.Assembler
	// Image is an input frame as an Assembler gets it.
	Image    = draw.Image
	Eye      = draw.Eye
	Region   = draw.Region
	Viewport = draw.Viewport
	Range    = draw.Range
	Pixel    = draw.Pixel
	Subpixel = draw.Subpixel
	Mat4     = draw.Mat4
)

// The eyes.
const (
	Cyclop = draw.Cyclop
	Left   = draw.Left
	Right  = draw.Right
)

// Regions a renderer returns without computing one.
var (
	All     = draw.All
	Nothing = draw.Nothing
)
