package goeq_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/gotool"
	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/procstat"
	"github.com/goeq/goeq/internal/race"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/xtest"
)

// The test binary is the application: the render clients Start launches
// are this binary again, and Init makes them serve.
func TestMain(m *testing.M) {
	goeq.Init(turningSquare{})
	// clients render headless through EGL: the window path is tested in
	// internal/channel; here the application API is under test
	os.Setenv("GOEQ_WINSYS", "egl")
	code := m.Run()
	gotool.RemoveBinaries()
	os.Exit(code)
}

// camera is the test's frame data: the frame it is meant for, and the
// angle the square turns to.
type camera struct {
	Frame int
	Angle float64
}

// squareInit is the test's init data: the square's size, and where a
// renderer records what it received and drew ("" for nowhere).
type squareInit struct {
	Scale  float64
	Record string
	// Hooks: the renderer reads back and assembles itself
	Hooks bool
	// BadReadAt: the hooked renderer's readbacks of this frame return
	// 3 bytes, or an error with BadReadError (when above zero)
	BadReadAt    int
	BadReadError bool
	// BadAssembleAt: the hooked renderer's assemblies of this frame fail
	// (when above zero)
	BadAssembleAt int
	// Report: each draw of this frame sends the application a drawReport
	// (when above zero)
	Report int
	// Ortho draws through DrawContext.Ortho and OrthoView; Depth is the
	// square's distance ahead (2 when zero)
	Ortho bool
	Depth float64
	// Refined: frames may draw an earlier frame's data (Config.Refine)
	Refined bool
	// DepthTest draws with the depth test, writing depth
	DepthTest bool
	// Stencil marks the square in the stencil buffer, then paints what
	// is marked red over the whole viewport
	Stencil bool
	// PanicAt: the draws of this frame panic (when above zero)
	PanicAt int
	// GLError: every draw leaves a GL error (an enum no GL has), unchecked
	GLError bool
	// PanicInExit: the renderer's Exit panics
	PanicInExit bool
	// ExitDelay: the renderer's Exit takes this long, as one that frees
	// much or writes files would, and records that it ended
	ExitDelay time.Duration
	// StallAt: the draws of this frame take 5 s more (when above zero)
	StallAt int
	// SlowPipe: every draw of the pipes of these names (space-separated)
	// takes SlowDraw more, as a slower GPU's would; only those of frame
	// SlowAt where it is above zero
	SlowPipe string
	SlowDraw time.Duration
	SlowAt   int
	// HeavyAt: the draws of this frame return at once, leaving the GL
	// seconds of work on a software rasterizer (when above zero)
	HeavyAt int
	// StopAt: the first draw of this frame on node StopNode stops its
	// process for 3 s (SIGSTOP, then SIGCONT from a shell it started), as
	// a debugger's breakpoint would (when above zero)
	StopAt   int
	StopNode string
	// KillAt: the first draw of this frame on node KillNode kills its
	// process (SIGKILL, as a crash would; when above zero)
	KillAt   int
	KillNode string
	// SetupDelay: NewRenderer takes this long, as one loading the
	// application's data would, and records when it ran
	SetupDelay time.Duration
	// FailPipe: the factory of the pipe of this name fails at once
	FailPipe string
	// SetupGarbage: NewRenderer allocates this many MiB and drops them,
	// as one parsing a model file would, and each draw records its
	// process's resident memory
	SetupGarbage int
	// Untidy: each draw sets the GL state it needs and leaves behind
	// state an application need not restore (see leaveState)
	Untidy bool
	// BadOrder: the renderer is a RangeOrderer whose BackToFront names
	// the first range for every one
	BadOrder bool
	// Overlay: the renderer is an Overlayer that paints a white box at
	// the bottom left of every destination
	Overlay bool
	// Slices: a draw of a database range draws that part of the square
	// (from the left edge), as a renderer of a model split by range would
	Slices bool
	// Assembles: the renderer composites its input frames with a shader
	// of its own: depth, pixel and subpixel decompositions included
	Assembles bool
}

// stopOnce stops a render process once, however many of its channels
// draw the frame it stops at.
var stopOnce sync.Once

// drawReport is what a draw sends the application (Pipe.SendEvent).
type drawReport struct {
	Frame   int
	Channel string
	// BigRefused: an event past MaxEventData was refused with an error
	BigRefused bool
}

// tint is the test's cluster event: the frame it is broadcast with, and
// the colour the square takes from then on.
type tint struct {
	Frame int
	Name  string
	RGB   [3]float32
}

// drawn is what a draw records: its frame and matrices.
type drawn struct {
	Frame            int
	Projection, View goeq.Mat4
	ViewIndex        int
}

type turningSquare struct{}

func (turningSquare) NewRenderer(p *goeq.Pipe) (goeq.Renderer, error) {
	var init squareInit
	if err := p.InitData(&init); err != nil {
		return nil, err
	}
	if init.Scale == 0 {
		return nil, errors.New("no init data")
	}
	if init.FailPipe != "" && p.Name == init.FailPipe {
		return nil, fmt.Errorf("the test refuses pipe %s", p.Name)
	}
	if init.SetupDelay > 0 {
		began := time.Now()
		time.Sleep(init.SetupDelay)
		rec := &square{record: init.Record}
		if err := rec.note("setup-"+p.Node+"-"+p.Name, fmt.Sprintf("%d %d\n", began.UnixNano(), time.Now().UnixNano())); err != nil {
			return nil, err
		}
	}
	if init.SetupGarbage > 0 {
		junk := make([][]byte, init.SetupGarbage)
		for i := range junk {
			junk[i] = make([]byte, 1<<20)
			for k := 0; k < len(junk[i]); k += 4096 {
				junk[i][k] = 1 // the page is resident
			}
		}
		runtime.KeepAlive(junk)
	}
	prog, err := goeq.Program(`#version 330 core
uniform mat4 mvp; out vec2 uv;
void main() {
	vec2 c = vec2(gl_VertexID & 1, (gl_VertexID >> 1) & 1); // a strip of 4
	uv = c;
	gl_Position = mvp * vec4(c - 0.5, 0, 1);
}`, `#version 330 core
in vec2 uv; out vec4 frag; uniform vec3 tint; uniform int spin; uniform vec2 slice;
void main() {
	if (slice.x > 0.0 && uv.x < slice.x || slice.y < 1.0 && uv.x >= slice.y) discard;
	frag = vec4(vec3(uv, 1.0 - uv.x * uv.y) * tint, 1);
	float a = uv.x;
	for (int i = 0; i < spin; i++) a = fract(sin(a * 12.9898 + float(i)) * 43758.5453);
	if (a > 2.0) frag = vec4(0); // never: the loop's work is kept
}`)
	var vao uint32
	gl.GenVertexArrays(1, &vao)
	sq := &square{prog: prog, vao: vao, scale: float32(init.Scale), tint: [3]float32{1, 1, 1}, ortho: init.Ortho, depth: cmp.Or(init.Depth, 2), refined: init.Refined, depthTest: init.DepthTest, slices: init.Slices, stencil: init.Stencil, panicAt: init.PanicAt, stallAt: init.StallAt, heavyAt: init.HeavyAt, untidy: init.Untidy, glError: init.GLError, panicInExit: init.PanicInExit, exitDelay: init.ExitDelay,
		record: init.Record, pipe: p.Node + "-" + p.Name, report: init.Report, send: p.SendEvent, noteMemory: init.SetupGarbage > 0}
	if init.StopAt > 0 && p.Node == init.StopNode {
		sq.stopAt = init.StopAt
	}
	if init.KillAt > 0 && p.Node == init.KillNode {
		sq.killAt = init.KillAt
	}
	if slices.Contains(strings.Fields(init.SlowPipe), p.Name) {
		sq.slowDraw, sq.slowAt = init.SlowDraw, init.SlowAt
	}
	if init.BadOrder {
		return badOrder{sq}, err
	}
	if init.Overlay {
		return overlaidSquare{sq}, err
	}
	if init.Assembles {
		return newAssemblingSquare(sq)
	}
	if init.Hooks {
		h := &hookedSquare{square: sq, badReadAt: init.BadReadAt, badReadError: init.BadReadError, badAssembleAt: init.BadAssembleAt}
		gl.GenFramebuffers(1, &h.readFBO)
		return h, err
	}
	return sq, err
}

// hookedSquare reads its pixels back and assembles its input frames
// itself, with plain GL (glReadPixels, and a framebuffer blit per input):
// a different path from goeq's asynchronous readback and shaders.
type hookedSquare struct {
	*square
	readFBO       uint32
	badReadAt     int
	badReadError  bool
	badAssembleAt int
}

func (h *hookedSquare) ReadBack(dc *goeq.DrawContext, r goeq.Region, depth bool) ([]byte, []float32, error) {
	switch {
	case h.badReadAt == 0 || dc.Frame != h.badReadAt:
	case h.badReadError:
		return nil, nil, errors.New("the post-process failed")
	default:
		return make([]byte, 3), nil, nil
	}
	color, z := readPixels(r, depth)
	return color, z, h.note("readback-"+url.PathEscape(dc.Channel), fmt.Sprintf("%d %dx%d\n", dc.Frame, r.W, r.H))
}

// readPixels reads region r of the bound framebuffer with glReadPixels:
// its colour, and its depth when asked.
func readPixels(r goeq.Region, depth bool) (color []byte, z []float32) {
	color = make([]byte, 4*r.W*r.H)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(int32(r.X), int32(r.Y), int32(r.W), int32(r.H), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(color))
	if depth {
		z = make([]float32, r.W*r.H)
		gl.ReadPixels(int32(r.X), int32(r.Y), int32(r.W), int32(r.H), gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(z))
	}
	return color, z
}

func (h *hookedSquare) Assemble(dc *goeq.DrawContext, images []goeq.Image) error {
	if h.badAssembleAt > 0 && dc.Frame == h.badAssembleAt {
		return errors.New("the border would not draw")
	}
	var prev int32
	gl.GetIntegerv(gl.READ_FRAMEBUFFER_BINDING, &prev)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, h.readFBO)
	for _, im := range images {
		gl.FramebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, im.Color, 0)
		gl.BlitFramebuffer(0, 0, int32(im.Width), int32(im.Height), int32(im.At.X), int32(im.At.Y),
			int32(im.At.X+im.At.W), int32(im.At.Y+im.At.H), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	}
	gl.FramebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, 0, 0)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, uint32(prev))
	return h.note("assemble-"+url.PathEscape(dc.Channel), fmt.Sprintf("%d %d\n", dc.Frame, len(images)))
}

// overlaidSquare paints a white box over each destination's finished
// image, in the corner overlayBox gives.
type overlaidSquare struct{ *square }

// overlayBox is the box overlaidSquare paints, from its viewport's
// bottom left.
var overlayBox = image.Rect(4, 4, 20, 20)

func (overlaidSquare) DrawOverlay(dc *goeq.DrawContext) error {
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(dc.X+overlayBox.Min.X), int32(dc.Y+overlayBox.Min.Y), int32(overlayBox.Dx()), int32(overlayBox.Dy()))
	gl.ClearColor(1, 1, 1, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	return nil
}

// badOrder orders database ranges as no order can be: every index is 0.
type badOrder struct{ *square }

func (badOrder) BackToFront(_ *goeq.DrawContext, ranges []goeq.Range) []int {
	return make([]int, len(ranges))
}

type square struct {
	prog, vao uint32
	scale     float32
	tint      [3]float32
	record    string // a directory, or ""
	pipe      string
	report    int // the frame whose draws send a drawReport
	send      func(any) error
	ortho     bool
	depth     float64
	refined   bool
	depthTest bool
	slices    bool
	stencil   bool
	panicAt   int
	stallAt   int
	slowDraw  time.Duration
	slowAt    int
	heavyAt   int
	stopAt    int
	killAt    int
	untidy    bool
	glError   bool
	// panicInExit: Exit panics
	panicInExit bool
	exitDelay   time.Duration
	// noteMemory: each draw records its process's resident memory
	noteMemory bool
	// the untidy draw's own objects, which it leaves bound
	ownFBO, ownBuffer, ownSampler uint32
}

// Exit is draw.Exiter's: the square's GL objects go with the pipe.
func (s *square) Exit() {
	if s.panicInExit {
		panic("the square would not let go")
	}
	if s.exitDelay > 0 {
		time.Sleep(s.exitDelay)
		if err := s.note("exit-"+s.pipe, "ended\n"); err != nil {
			panic(err)
		}
	}
	gl.DeleteProgram(s.prog)
	gl.DeleteVertexArrays(1, &s.vao)
}

// Receive takes the broadcast tints: each must arrive in its own frame.
func (s *square) Receive(frame int, msgs []goeq.Message) error {
	for _, m := range msgs {
		var c tint
		if err := m.Decode(&c); err != nil {
			return err
		}
		if c.Frame != frame {
			return fmt.Errorf("tint %q of frame %d arrived in frame %d", c.Name, c.Frame, frame)
		}
		s.tint = c.RGB
		if err := s.note("recv-"+s.pipe, fmt.Sprintf("%d %s\n", frame, c.Name)); err != nil {
			return err
		}
	}
	return nil
}

// note appends a line to a record file.
func (s *square) note(name, line string) error {
	if s.record == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(s.record, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *square) Draw(dc *goeq.DrawContext) (goeq.Region, error) {
	var cam camera
	if err := dc.FrameData(&cam); err != nil {
		return goeq.Region{}, err
	}
	if cam.Frame > dc.Frame || cam.Frame != dc.Frame && !s.refined {
		return goeq.Region{}, fmt.Errorf("frame %d drew with the data of frame %d", dc.Frame, cam.Frame)
	}
	if s.panicAt > 0 && dc.Frame == s.panicAt {
		panic("the square came apart")
	}
	if s.stallAt > 0 && dc.Frame == s.stallAt {
		time.Sleep(5 * time.Second)
	}
	if s.slowAt == 0 || dc.Frame == s.slowAt {
		time.Sleep(s.slowDraw)
	}
	if s.stopAt > 0 && dc.Frame == s.stopAt {
		stopOnce.Do(func() {
			pid := os.Getpid()
			if err := exec.Command("sh", "-c", fmt.Sprintf("sleep 3; kill -CONT %d", pid)).Start(); err == nil {
				syscall.Kill(pid, syscall.SIGSTOP)
			}
		})
	}
	if s.killAt > 0 && dc.Frame == s.killAt {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if s.noteMemory {
		if err := s.note("rss-"+s.pipe, fmt.Sprintf("%d\n", procstat.Self().RSS)); err != nil {
			return goeq.Region{}, err
		}
	}
	if s.untidy {
		s.setOwnState()
	}
	if s.glError {
		gl.Enable(0x1234) // GL_INVALID_ENUM
	}
	model := goeq.Translate(0, 0, -s.depth).Mul(goeq.RotateY(cam.Angle)).Mul(goeq.RotateX(0.3 * cam.Angle))
	model[0], model[5] = model[0]*s.scale, model[5]*s.scale
	mvp := dc.Projection.Mul(dc.View).Mul(model)
	if s.ortho {
		mvp = dc.Ortho.Mul(dc.OrthoView).Mul(model)
	}
	if s.record != "" {
		line, _ := json.Marshal(drawn{dc.Frame, dc.Projection, dc.View, dc.ViewIndex})
		if err := s.note("draw-"+url.PathEscape(dc.Channel), string(line)+"\n"); err != nil {
			return goeq.Region{}, err
		}
	}
	if s.report > 0 && dc.Frame == s.report {
		big := s.send(strings.Repeat("x", goeq.MaxEventData)) != nil
		if err := s.send(drawReport{Frame: dc.Frame, Channel: dc.Channel, BigRefused: big}); err != nil {
			return goeq.Region{}, err
		}
	}
	if s.depthTest {
		gl.Enable(gl.DEPTH_TEST)
		gl.DepthFunc(gl.LESS)
	}
	gl.UseProgram(s.prog)
	spin := int32(0)
	if s.heavyAt > 0 && dc.Frame == s.heavyAt {
		spin = 1 << 20
	}
	gl.Uniform1i(gl.GetUniformLocation(s.prog, gl.Str("spin\x00")), spin)
	slice := goeq.Range{Start: 0, End: 1}
	if s.slices {
		slice = dc.Range
	}
	gl.Uniform2f(gl.GetUniformLocation(s.prog, gl.Str("slice\x00")), float32(slice.Start), float32(slice.End))
	gl.Uniform3f(gl.GetUniformLocation(s.prog, gl.Str("tint\x00")), s.tint[0], s.tint[1], s.tint[2])
	gl.UniformMatrix4fv(gl.GetUniformLocation(s.prog, gl.Str("mvp\x00")), 1, false, &mvp[0])
	gl.BindVertexArray(s.vao)
	if s.stencil {
		gl.Enable(gl.STENCIL_TEST)
		gl.StencilMask(0xff)
		gl.StencilFunc(gl.ALWAYS, 1, 0xff)
		gl.StencilOp(gl.KEEP, gl.KEEP, gl.REPLACE)
	}
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	if s.stencil {
		// the whole destination (this part of it), where the square
		// marked the stencil
		whole := dc.Adjust.Mul(goeq.Scale(2))
		gl.StencilFunc(gl.EQUAL, 1, 0xff)
		gl.StencilOp(gl.KEEP, gl.KEEP, gl.KEEP)
		gl.Disable(gl.DEPTH_TEST)
		gl.Uniform3f(gl.GetUniformLocation(s.prog, gl.Str("tint\x00")), 1, 0, 0)
		gl.UniformMatrix4fv(gl.GetUniformLocation(s.prog, gl.Str("mvp\x00")), 1, false, &whole[0])
		gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		gl.Disable(gl.STENCIL_TEST)
	}
	if s.untidy {
		s.leaveState()
	}
	return goeq.Region{}, nil
}

// setOwnState sets what the untidy square's draw relies on, as an
// application that sets its state but does not restore it would (goeq
// sets the framebuffer, viewport, scissor and colour mask of each draw).
func (s *square) setOwnState() {
	gl.Disable(gl.RASTERIZER_DISCARD)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.Disable(gl.FRAMEBUFFER_SRGB)
	gl.Disable(gl.COLOR_LOGIC_OP)
	gl.Disable(gl.SAMPLE_ALPHA_TO_COVERAGE)
	gl.Disable(gl.POLYGON_OFFSET_FILL)
	gl.Disable(gl.CLIP_DISTANCE0)
	gl.Disable(gl.DEPTH_CLAMP)
	gl.Disable(gl.BLEND)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.STENCIL_TEST)
	gl.Disable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.DepthMask(true)
	gl.StencilMask(0xff)
	gl.DepthRange(0, 1)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.ActiveTexture(gl.TEXTURE0)
}

// leaveState leaves behind what an application's draw may leave in any
// GL program: its own framebuffer and pixel buffers bound, pixel store
// settings, capabilities, a polygon mode, samplers, masks, a scissor box
// of a pixel, and the draw and read buffers of goeq's framebuffer set to
// none.
func (s *square) leaveState() {
	if s.ownFBO == 0 {
		var goeqs int32
		gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &goeqs)
		var tex uint32
		gl.GenTextures(1, &tex)
		gl.BindTexture(gl.TEXTURE_2D, tex)
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 64, 64, 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
		gl.GenFramebuffers(1, &s.ownFBO)
		gl.GenBuffers(1, &s.ownBuffer)
		gl.BindBuffer(gl.PIXEL_PACK_BUFFER, s.ownBuffer)
		gl.BufferData(gl.PIXEL_PACK_BUFFER, 64, nil, gl.STREAM_READ)
		gl.GenSamplers(1, &s.ownSampler)
		gl.SamplerParameteri(s.ownSampler, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
		gl.SamplerParameterf(s.ownSampler, gl.TEXTURE_MIN_LOD, 5)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, s.ownFBO)
		gl.FramebufferTexture2D(gl.DRAW_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(goeqs))
	}
	gl.DrawBuffer(gl.NONE) // goeq's framebuffer, still bound
	gl.ReadBuffer(gl.NONE)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, s.ownFBO)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, s.ownBuffer)
	gl.BindBuffer(gl.PIXEL_UNPACK_BUFFER, s.ownBuffer)
	for _, p := range [][2]uint32{{gl.PACK_ALIGNMENT, 8}, {gl.PACK_ROW_LENGTH, 3}, {gl.PACK_SKIP_PIXELS, 2},
		{gl.UNPACK_ALIGNMENT, 8}, {gl.UNPACK_ROW_LENGTH, 3}, {gl.UNPACK_SKIP_ROWS, 2}} {
		gl.PixelStorei(p[0], int32(p[1]))
	}
	for _, c := range []uint32{gl.RASTERIZER_DISCARD, gl.FRAMEBUFFER_SRGB, gl.COLOR_LOGIC_OP, gl.SAMPLE_ALPHA_TO_COVERAGE,
		gl.POLYGON_OFFSET_FILL, gl.CLIP_DISTANCE0, gl.DEPTH_CLAMP, gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.STENCIL_TEST, gl.SCISSOR_TEST} {
		gl.Enable(c)
	}
	gl.LogicOp(gl.XOR)
	gl.PolygonOffset(4, 4)
	gl.BlendFunc(gl.ONE, gl.ONE)
	gl.BlendEquation(gl.FUNC_REVERSE_SUBTRACT)
	gl.CullFace(gl.FRONT_AND_BACK)
	gl.DepthFunc(gl.NEVER)
	gl.StencilFunc(gl.NEVER, 1, 0xff)
	gl.DepthRange(0.5, 0.5)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	gl.ColorMask(false, true, true, true)
	gl.DepthMask(false)
	gl.StencilMask(0)
	gl.Viewport(0, 0, 1, 1)
	gl.Scissor(0, 0, 1, 1)
	gl.ClearColor(1, 0, 0, 1)
	gl.ActiveTexture(gl.TEXTURE5)
	for unit := uint32(0); unit < 8; unit++ {
		gl.BindSampler(unit, s.ownSampler)
	}
}

func examples(name string) string { return filepath.Join("examples", "configs", name) }

// withLatency writes a copy of an example config with another latency.
func withLatency(t *testing.T, name string, latency int) string {
	b, err := os.ReadFile(examples(name))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "latency 1", fmt.Sprintf("latency %d", latency), 1)
	if text == string(b) {
		t.Fatalf("%s has no latency 1", name)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runSquare runs frames of the turning square, the camera changing every
// frame, and returns the images written.
func runSquare(t *testing.T, cfgPath string, frames int, reference bool) []string {
	return runScript(t, goeq.Options{Config: cfgPath, Reference: reference}, frames, squareInit{Scale: 1.4}, nil)
}

// runScript runs frames of the turning square; before each frame starts,
// script (when given) may broadcast or move heads.
func runScript(t *testing.T, opt goeq.Options, frames int, init squareInit, script func(*goeq.Config, int) error) []string {
	t.Helper()
	opt.OutDir, opt.InitData = t.TempDir(), init
	cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < frames && err == nil; i++ {
		if script != nil {
			if err = script(cfg, i); err != nil {
				break
			}
		}
		var n int
		if n, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)}); err == nil && n != i {
			err = fmt.Errorf("StartFrame numbered frame %d as %d", i, n)
		}
		if err == nil && i%4 == 3 {
			// the application runs ahead in bursts of four: frames wait
			// for the latency, and their data must wait with them
			err = cfg.FinishFrame()
		}
	}
	if err == nil {
		// past the bound: a clear error, and the run goes on
		if _, berr := cfg.StartFrame(make([]byte, goeq.MaxFrameData)); berr == nil || !strings.Contains(berr.Error(), "more than the") {
			t.Errorf("frame data past the bound: got %v", berr)
		}
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v", err, exitErr)
	}
	if sum.Frames != frames || len(sum.Written)%frames != 0 || len(sum.Written) == 0 {
		t.Fatalf("%d frames, %d images; want %d frames and as many images per frame", sum.Frames, len(sum.Written), frames)
	}
	return sum.Written
}

// compareRuns checks every image against the reference of the same frame,
// and that the comparison tells consecutive frames apart.
func compareRuns(t *testing.T, got, want []string) {
	t.Helper()
	for i := range got {
		if filepath.Base(got[i]) != filepath.Base(want[i]) {
			t.Fatalf("image %d: %s against %s", i, got[i], want[i])
		}
		d, err := imagecmp.CompareFiles(got[i], want[i], 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("%s: %s", filepath.Base(got[i]), d)
		}
		if i+1 < len(want) {
			if d, err := imagecmp.CompareFiles(got[i], want[i+1], 2); err == nil && d.BadFraction() <= 0.0002 {
				t.Errorf("%s also matches the next frame's reference: the comparison cannot tell frames apart", filepath.Base(got[i]))
			}
		}
	}
}

func TestFrameDataReachesItsOwnFrameAtLatency2(t *testing.T) {
	cfg := withLatency(t, "2d-lb-4.eqc", 2)
	got := runSquare(t, cfg, 12, false)
	want := runSquare(t, cfg, 12, true)
	compareRuns(t, got, want)
}

// TestHelloAsAnotherModule builds examples/hello as an application outside
// this module would (its own go.mod, goeq replaced by this checkout), runs
// it on the four-source config (three render-client processes) and on one
// window, and compares every frame.
func TestHelloAsAnotherModule(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("examples", "hello", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	// this module's requirements, so that the build needs nothing new
	reqs := string(goMod[strings.Index(string(goMod), "require"):])
	mod := "module example.com/hello\n\ngo 1.26.0\n\nrequire github.com/goeq/goeq v0.0.0\n\nreplace github.com/goeq/goeq => " + root + "\n\n" + reqs
	for name, data := range map[string][]byte{"main.go": src, "go.mod": []byte(mod), "go.sum": goSum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "hello")
	build := exec.Command(gotool.Path(), "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building hello as another module: %v\n%s", err, out)
	}
	// hello runs 20 frames in the folder dir ("": this one)
	hello := func(dir string, args ...string) []string {
		out := t.TempDir()
		cmd := exec.Command(bin, append(args, "--frames", "20", "--out", out)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hello %v in %q: %v\n%s", args, dir, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != 20 {
			t.Fatalf("hello %v in %q wrote %d images, want 20", args, dir, len(files))
		}
		return files
	}
	run := func(cfg string) []string { return hello("", "--config", examples(cfg)) }
	compareRuns(t, run("2d-lb-4.eqc"), run("one-window.eqc"))

	// without a config, in a folder of its own (hello's default was a
	// file under this repository: "open examples/configs/2d-lb-4.eqc: no
	// such file or directory" anywhere else), it runs on the config made
	// for this machine, which it writes to hello.auto.eqc; that file, given
	// back, renders the same frames, and once the user changed it, a run
	// without a config leaves it as they wrote it
	home := t.TempDir()
	auto := func(args ...string) []string { return hello(home, args...) }
	made := auto()
	saved := filepath.Join(home, "hello.auto.eqc")
	text, err := os.ReadFile(saved)
	if err != nil {
		t.Fatalf("the config made for this machine was not saved: %v", err)
	}
	compareRuns(t, made, auto("--config", saved))
	edited := append([]byte("# the user's own\n"), text...)
	if err := os.WriteFile(saved, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	compareRuns(t, auto(), made)
	if now, _ := os.ReadFile(saved); !bytes.Equal(now, edited) {
		t.Errorf("a run without a config replaced the user's hello.auto.eqc")
	}
	// a config that is no file and not named .eqc is a session, as
	// Equalizer takes eqPly --eq-config local: the same config, saved
	// under the session's name
	compareRuns(t, auto("--eq-config", "local"), made)
	if _, err := os.Stat(filepath.Join(home, "local.auto.eqc")); err != nil {
		t.Errorf("the session's config was not saved: %v", err)
	}
	// Equalizer's window size hints size the window it configures
	t.Setenv("EQ_WINDOW_IATTR_HINT_WIDTH", "320")
	t.Setenv("EQ_WINDOW_IATTR_HINT_HEIGHT", "200")
	if w, h := pngSize(t, auto("--eq-config", "hinted")[0]); w != 320 || h != 200 {
		t.Errorf("with window size hints 320x200, the frames are %dx%d", w, h)
	}

	// the same program with its goeq.Init forgotten: each render client
	// it launched ran main again, which parsed its flags, printed its
	// usage and exited, and the run's error gave the usage's last line
	// ("node app did not join: eqclient exited (exit status 2): a running
	// eqserver's application address ..."). Now it names the flag and
	// Init. (A main that parses no flags would have run Start again, in
	// every client: TestStartRefusesInARenderClient.)
	forgot := strings.Replace(string(src), "goeq.Init(app{})", "_ = app{}", 1)
	if forgot == string(src) {
		t.Fatal("hello's main changed: the test cannot take its Init out")
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(forgot), 0o644); err != nil {
		t.Fatal(err)
	}
	build = exec.Command(gotool.Path(), "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building hello without Init: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--config", examples("2d-lb-4.eqc"), "--frames", "20", "--out", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "flag provided but not defined: -goeq-client: the application's main parsed its flags before calling goeq.Init(app)") {
		t.Errorf("hello without Init: %v, want it to fail naming Init\n%s", err, out[max(0, len(out)-3000):])
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left := clientProcessesOf(bin)
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d render clients of hello without Init left 5 s after it exited", left)
		}
	}
}

// TestBroadcastReachesEveryPipeInItsFrame broadcasts tints on the
// four-source config with one more node that renders nothing: every pipe
// of every node takes each tint before drawing the frame it was sent with
// (the renderer fails the run otherwise), in order, and the images equal
// the reference run's, which took the same tints.
func TestBroadcastReachesEveryPipeInItsFrame(t *testing.T) {
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	idle := `    latency 1
    node
    {
        name "idle"
        host "localhost"
        pipe { name "spare" window { name "wi" viewport [ 0 0 64 64 ] attributes { hint_drawable FBO } channel { name "unused" } } }
    }
`
	withIdle := strings.Replace(string(text), "    latency 1\n", idle, 1)
	if withIdle == string(text) {
		t.Fatal("2d-lb-4.eqc has no latency line to add a node after")
	}
	cfgPath := filepath.Join(t.TempDir(), "2d-lb-4-idle.eqc")
	if err := os.WriteFile(cfgPath, []byte(withIdle), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func(cfg *goeq.Config, frame int) error {
		switch frame {
		case 2:
			return cfg.Broadcast(tint{Frame: 2, Name: "red", RGB: [3]float32{1, 0.3, 0.3}})
		case 5:
			if err := cfg.Broadcast(tint{Frame: 5, Name: "green", RGB: [3]float32{0.3, 1, 0.3}}); err != nil {
				return err
			}
			return cfg.Broadcast(tint{Frame: 5, Name: "blue", RGB: [3]float32{0.3, 0.3, 1}})
		}
		return nil
	}
	record := t.TempDir()
	got := runScript(t, goeq.Options{Config: cfgPath}, 8, squareInit{Scale: 1.4, Record: record}, script)
	want := runScript(t, goeq.Options{Config: cfgPath, Reference: true}, 8, squareInit{Scale: 1.4}, script)
	compareRuns(t, got, want)
	// six pipes: the application node's, four sources' on two nodes, and
	// the idle node's, which draws nothing
	files, _ := filepath.Glob(filepath.Join(record, "recv-*"))
	if len(files) != 6 {
		t.Errorf("%d pipes took broadcasts, want 6: %v", len(files), files)
	}
	idleSeen := false
	for _, f := range files {
		idleSeen = idleSeen || strings.HasSuffix(f, "recv-idle-spare")
		if b, err := os.ReadFile(f); err != nil || string(b) != "2 red\n5 green\n5 blue\n" {
			t.Errorf("%s took %q (%v), want red in frame 2, green then blue in frame 5", filepath.Base(f), b, err)
		}
	}
	if !idleSeen {
		t.Errorf("the node with nothing to draw took no broadcast")
	}
}

// TestTrackedHeadMovesTheDrawnFrustum moves the observer's head in the
// 3-sided CAVE of the corpus from frame 2 on: the front wall's draw gets
// the off-axis projection and the view computed here by hand, with the
// model unit of 2 the run starts with (Options.ModelUnit), and from frame
// 3 on with 1 (Config.SetModelUnit).
func TestTrackedHeadMovesTheDrawnFrustum(t *testing.T) {
	cave := filepath.Join("..", "shared", "eqc-corpus", "3-channel.cave.eqc")
	record := t.TempDir()
	script := func(cfg *goeq.Config, frame int) error {
		if frame == 0 {
			if n := len(cfg.Observers()); n != 1 {
				return fmt.Errorf("%d observers, want 1", n)
			}
			if b := cfg.EyeBase(0); math.Abs(b-0.05) > 1e-9 || cfg.EyeBase(1) != 0 {
				return fmt.Errorf("eye bases %v and %v (of no observer), want Equalizer's default 0.05 and 0", b, cfg.EyeBase(1))
			}
			if d, m := cfg.Focus(0); d != 1 || m != goeq.FocusFixed {
				return fmt.Errorf("focus %v, mode %d; want Equalizer's default 1, fixed", d, m)
			}
			if cfg.SetFocus(0, 2, goeq.FocusMode(9)) == nil || cfg.SetFocus(0, math.Inf(1), goeq.FocusUnchanged) == nil || cfg.SetFocus(1, 2, goeq.FocusFixed) == nil {
				return errors.New("SetFocus took a mode, a distance or an observer there is not")
			}
			if err := cfg.SetHead(1, goeq.Identity, 0); err == nil {
				return errors.New("SetHead accepted observer 1 of 1")
			}
			views := len(cfg.Views())
			if u := cfg.ModelUnit(0); u != 2 || cfg.ModelUnit(views) != 0 {
				return fmt.Errorf("model units %v and %v (of no view); want Options.ModelUnit's 2 and 0", u, cfg.ModelUnit(views))
			}
			if cfg.SetModelUnit(0, 0) == nil || cfg.SetModelUnit(0, math.NaN()) == nil || cfg.SetModelUnit(views, 1) == nil {
				return errors.New("SetModelUnit took a unit or a view there is not")
			}
		}
		switch frame {
		case 2:
			return cfg.SetHead(0, goeq.Translate(0.5, 0, 0.2), 0)
		case 3:
			for v := range cfg.Views() {
				if err := cfg.SetModelUnit(v, 1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: cave, ModelUnit: -1}); err == nil || !strings.Contains(err.Error(), "goeq: ModelUnit: model unit -1: want") {
		t.Errorf("Options.ModelUnit -1: %v", err)
	}
	runScript(t, goeq.Options{Config: cave, ModelUnit: 2}, 4, squareInit{Scale: 1.4, Record: record}, script)
	// channel-middle: the window's second channel, showing view 0 of
	// layout 0 on canvas 0 through segment 1
	f, err := os.Open(filepath.Join(record, "draw-"+url.PathEscape("n0.p0.w0.c1/v0.0s0.1")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// glFrustum's matrix, near 0.1 and far 100 as the planner sets them
	frustum := func(l, r, b, tp float64) goeq.Mat4 {
		const n, fa = 0.1, 100.0
		return goeq.Mat4{float32(2 * n / (r - l)), 0, 0, 0, 0, float32(2 * n / (tp - b)), 0, 0,
			float32((r + l) / (r - l)), float32((tp + b) / (tp - b)), float32(-(fa + n) / (fa - n)), -1,
			0, 0, float32(-2 * fa * n / (fa - n)), 0}
	}
	centred := frustum(-0.1, 0.1, -0.1, 0.1)
	// the eye at (0.5, 0, 0.2) sees the front wall (z = -1, x and y from
	// -1 to 1) 1.2 m away: x from -1.5 to 0.5 and y from -1 to 1, at the
	// near plane scaled by 0.1/1.2. Model unit 2 takes eye and wall twice
	// as far: the same frustum, the eye at (1, 0, 0.4)
	moved := frustum(-1.5/12, 0.5/12, -1.0/12, 1.0/12)
	frames := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var d drawn
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		frames++
		wantP, wantView := centred, goeq.Identity
		switch d.Frame {
		case 2:
			wantP, wantView = moved, goeq.Translate(-1, 0, -0.4)
		case 3:
			wantP, wantView = moved, goeq.Translate(-0.5, 0, -0.2)
		}
		if !closeMat(d.Projection, wantP) || !closeMat(d.View, wantView) {
			t.Errorf("frame %d: projection %v view %v; want %v and %v", d.Frame, d.Projection, d.View, wantP, wantView)
		}
	}
	if frames != 4 {
		t.Errorf("the front wall drew %d frames, want 4", frames)
	}
}

func closeMat(a, b goeq.Mat4) bool {
	for i := range a {
		if d := a[i] - b[i]; d > 1e-5 || d < -1e-5 {
			return false
		}
	}
	return true
}

// TestRunOnARunningEqserver starts eqserver on its own, waiting for an
// application; this test's binary connects to it (Options.Server), the
// server starts it again as the render clients, and the frames equal an
// in-process reference run's. A wrong token is refused, saying so.
func TestRunOnARunningEqserver(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	cfgPath := withLatency(t, "2d-lb-4.eqc", 2)
	srv := startAppServer(t, cfgPath)
	t.Setenv("GOEQ_TOKEN", "a-guess")
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Server: srv.addr, InitData: squareInit{Scale: 1.4}}); err == nil || !strings.Contains(err.Error(), "token does not match") {
		t.Errorf("a wrong token: got %v, want a refusal that names the token", err)
	}
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	got := runScript(t, goeq.Options{Server: srv.addr}, 12, squareInit{Scale: 1.4}, nil)
	srv.endsWithTheRun(t)
	if !strings.Contains(srv.stdout.String(), "12 frames") {
		t.Errorf("eqserver's summary: %q", srv.stdout.String())
	}
	compareRuns(t, got, runSquare(t, cfgPath, 12, true))
}

// appServer is an eqserver run --app waiting for an application.
type appServer struct {
	cmd         *exec.Cmd
	addr        string
	exited      chan error // its exit, put back once read
	log, stdout strings.Builder
}

func startAppServer(t *testing.T, cfgPath string, flags ...string) *appServer {
	t.Helper()
	// built once for the tests that run one (each link took seconds,
	// fifteen times)
	bin := gotool.Binary(t, "eqserver", "./cmd/eqserver")
	args := append([]string{"run", "--app", "127.0.0.1:0", "--local", "--frame-timeout", "20s"}, flags...)
	srv := &appServer{cmd: exec.Command(bin, append(args, cfgPath)...), exited: make(chan error, 1)}
	stderr, err := srv.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv.cmd.Stdout = &srv.stdout
	if err := srv.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.cmd.Process.Kill()
		<-srv.exited
	})
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			srv.log.WriteString(line + "\n")
			if m := regexp.MustCompile(`waiting for an application on ([0-9.]+:[0-9]+)`).FindStringSubmatch(line); m != nil {
				addrs <- m[1]
			}
		}
		srv.exited <- srv.cmd.Wait()
	}()
	select {
	case srv.addr = <-addrs:
	case err := <-srv.exited:
		srv.exited <- err
		t.Fatalf("eqserver ended before it waited for an application: %v", err)
	}
	return srv
}

// endsWithTheRun checks that the eqserver ends well once the
// application's run has.
func (srv *appServer) endsWithTheRun(t *testing.T) {
	t.Helper()
	select {
	case err := <-srv.exited:
		srv.exited <- err
		if err != nil {
			t.Errorf("eqserver: %v\n%s", err, srv.log.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("eqserver did not end with the application's run")
	}
}

// A signal to the eqserver an application drives: the frames in flight
// finish, and the application's next call says the server was stopped,
// not only that the run ended; eqserver exits 130. A second application
// that comes during the run is refused, and told why.
func TestAnApplicationLearnsItsServerWasStopped(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	srv := startAppServer(t, examples("2d-lb-4.eqc"))
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Server: srv.addr, InitData: squareInit{Scale: 1.4}})
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for ; err == nil && frames < 10000; frames++ {
		if frames == 2 {
			// a second application is told why the server refuses it,
			// where the port closed once the first came
			second, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Server: srv.addr, InitData: squareInit{Scale: 1.4}})
			if err == nil {
				second.Exit()
				t.Error("a second application on the server was not refused")
			} else if !strings.Contains(err.Error(), "it is running another application's frames") {
				t.Errorf("a second application on the server: %v", err)
			}
		}
		if frames == 3 {
			srv.cmd.Process.Signal(os.Interrupt)
		}
		if _, err = cfg.StartFrame(camera{Frame: frames, Angle: 0.35 * float64(frames)}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "server was stopped (a signal)") {
		t.Errorf("after %d frames: %v, want the server's stop", frames, err)
	}
	if _, exitErr := cfg.Exit(); exitErr == nil {
		t.Errorf("Exit after the server was stopped: no error")
	}
	select {
	case err := <-srv.exited:
		srv.exited <- err
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("eqserver: %v, want exit status 130\n%s", err, srv.log.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("eqserver still running 20 s after SIGINT")
	}
}

// An application that cancels its run (its Start's context) ends the
// eqserver it drives as its exit would: the server says why, and exits
// 0 (it said the application had gone without exiting, and exited 1).
func TestAnApplicationThatCancelsItsRunEndsItsServerWell(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	srv := startAppServer(t, examples("2d-lb-4.eqc"))
	ctx, cancel := context.WithCancelCause(context.Background())
	cfg, err := goeq.Start(ctx, turningSquare{}, goeq.Options{Server: srv.addr, InitData: squareInit{Scale: 1.4}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := cfg.StartFrame(camera{Frame: i}); err != nil {
			t.Fatal(err)
		}
		if err := cfg.FinishFrame(); err != nil {
			t.Fatal(err)
		}
	}
	cancel(errors.New("the user closed the window"))
	if _, err := cfg.Exit(); !errors.Is(err, context.Canceled) {
		t.Errorf("Exit after the cancel: %v, want context.Canceled", err)
	}
	srv.endsWithTheRun(t)
	if want := "the application cancelled its run after"; !strings.Contains(srv.log.String(), want) || !strings.Contains(srv.log.String(), "(the user closed the window)") {
		t.Errorf("eqserver's log does not say %q with the cause:\n%s", want, srv.log.String())
	}
}

// TestReadbackAndAssemblyByTheRenderer: a renderer that reads back
// (Reader) and composites (Assembler) itself, with plain GL, makes the
// same frames as the reference; goeq called it for every source's
// readback and every assembly.
func TestReadbackAndAssemblyByTheRenderer(t *testing.T) {
	record := t.TempDir()
	cfgPath := examples("2d-lb-4.eqc")
	got := runScript(t, goeq.Options{Config: cfgPath}, 6, squareInit{Scale: 1.4, Record: record, Hooks: true}, nil)
	compareRuns(t, got, runSquare(t, cfgPath, 6, true))
	// four sources read back every frame; the destination assembled their
	// four frames every frame
	reads, _ := filepath.Glob(filepath.Join(record, "readback-*"))
	asms, _ := filepath.Glob(filepath.Join(record, "assemble-*"))
	if len(reads) != 4 || len(asms) != 1 {
		t.Fatalf("the renderer read back on %d channels and assembled on %d, want 4 and 1", len(reads), len(asms))
	}
	for _, f := range reads {
		b, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, l := range lines {
			if !strings.HasPrefix(l, fmt.Sprintf("%d ", i)) {
				t.Errorf("%s: line %d is %q", filepath.Base(f), i, l)
			}
		}
		if len(lines) != 6 {
			t.Errorf("%s: %d readbacks, want 6", filepath.Base(f), len(lines))
		}
	}
	if b, _ := os.ReadFile(asms[0]); string(b) != "0 4\n1 4\n2 4\n3 4\n4 4\n5 4\n" {
		t.Errorf("assemblies (frame, images): %q", b)
	}
}

// TestLaunchCommandStartsThisExecutable gives a node another host and a
// launch_command: the server starts this executable through it (%c is the
// executable with goeq's client arguments, %h the host), and the frames
// equal the reference.
func TestLaunchCommandStartsThisExecutable(t *testing.T) {
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	launched := filepath.Join(dir, "launched")
	far := fmt.Sprintf(`name "render1"
        host "render-far"
        attributes { launch_command "echo %%h >> %s && exec %%c" }`, launched)
	changed := strings.Replace(string(text), "name \"render1\"\n        host \"localhost\"", far, 1)
	if changed == string(text) {
		t.Fatal("2d-lb-4.eqc has no render1 on localhost to move")
	}
	cfgPath := filepath.Join(dir, "2d-lb-4-far.eqc")
	if err := os.WriteFile(cfgPath, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runScript(t, goeq.Options{Config: cfgPath}, 6, squareInit{Scale: 1.4}, nil)
	compareRuns(t, got, runSquare(t, cfgPath, 6, true))
	if b, err := os.ReadFile(launched); err != nil || string(b) != "render-far\n" {
		t.Errorf("the launch command ran for %q (%v), want once for render-far", b, err)
	}
}

// TestSlowRenderersSetUpTogether gives every render node a launch_timeout
// of 3 s and NewRenderer 4.5 s, as an application loading its data
// would take: a launch is bounded until the client connects, its set-up
// by the init timeout, so the run starts. The two pipes of a node run
// their factories at the same time, as Equalizer's pipe threads do.
func TestSlowRenderersSetUpTogether(t *testing.T) {
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.ReplaceAll(string(text), "host \"localhost\"", "host \"localhost\"\n        attributes { launch_timeout 3000 }")
	if strings.Count(changed, "launch_timeout") != 2 {
		t.Fatal("2d-lb-4.eqc does not have two render nodes on localhost")
	}
	record := t.TempDir()
	runScript(t, goeq.Options{ConfigText: changed}, 4, squareInit{Scale: 1.4, Record: record, SetupDelay: 4500 * time.Millisecond}, nil)
	for _, node := range []string{"render1", "render2"} {
		var spans [][2]int64
		files, _ := filepath.Glob(filepath.Join(record, "setup-"+node+"-*"))
		for _, f := range files {
			var span [2]int64
			b, err := os.ReadFile(f)
			if _, serr := fmt.Sscan(string(b), &span[0], &span[1]); err != nil || serr != nil {
				t.Fatalf("%s: %q (%v, %v)", f, b, err, serr)
			}
			spans = append(spans, span)
		}
		if len(spans) != 2 {
			t.Fatalf("%s: %d renderer factories ran, want 2 (%v)", node, len(spans), files)
		}
		if a, b := spans[0], spans[1]; a[0] >= b[1] || b[0] >= a[1] {
			t.Errorf("%s: the factories of its two pipes ran one after the other (%v, %v), not together", node, a, b)
		}
	}
}

// TestMemoryASetUpDroppedIsGivenBack: what a renderer factory allocates
// and drops while it sets up (a model file parsed, a mesh ordered: five
// times the model a large PLY kept) is given back to the system before
// the frames start, rather than held by the Go heap for the whole run. A
// client that loaded a 5-million-triangle mesh held 734 MB where 460 MB
// remain in use.
func TestMemoryASetUpDroppedIsGivenBack(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's shadow memory doubles what the client holds")
	}
	const garbage = 512 // MiB
	record := t.TempDir()
	runScript(t, goeq.Options{Config: examples("one-window.eqc")}, 4, squareInit{Scale: 1.4, Record: record, SetupGarbage: garbage}, nil)
	files, _ := filepath.Glob(filepath.Join(record, "rss-*"))
	if len(files) != 1 {
		t.Fatalf("%d pipes recorded their memory, want 1: %v", len(files), files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(b))
	if len(lines) != 4 {
		t.Fatalf("%s: %q, want 4 draws' resident memory", files[0], b)
	}
	for i, l := range lines {
		rss, err := strconv.ParseInt(l, 10, 64)
		if err != nil || rss <= 0 {
			t.Fatalf("%s: %q", files[0], b)
		}
		if rss > garbage/2<<20 {
			t.Errorf("frame %d: the render client holds %d MiB, where its factory dropped %d MiB and a client needs far less than half of that", i, rss>>20, garbage)
		}
	}
}

// TestDashboardShowsWhatASettingUpNodeDoes: while renderer factories
// load data, the dashboard's nodes say which step each client is in.
func TestDashboardShowsWhatASettingUpNodeDoes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	started := make(chan error, 1)
	go func() {
		cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), HTTP: addr,
			InitData: squareInit{Scale: 1, SetupDelay: 4 * time.Second}})
		if err == nil {
			_, err = cfg.Exit()
		}
		started <- err
	}()
	var seen string
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && seen == ""; time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/state")
		if err != nil {
			continue
		}
		var st struct {
			Nodes []struct {
				Node, Status string
				SettingUp    string `json:"setting_up"`
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		for _, n := range st.Nodes {
			if err == nil && n.Status == "joining" && strings.Contains(n.SettingUp, "running the renderer factory (NewRenderer)") {
				seen = n.Node + ": " + n.SettingUp
			}
		}
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if seen == "" {
		t.Error("the dashboard never showed a node running its renderer factory")
	}
	t.Log(seen)
}

// TestSetUpPastTheInitTimeoutSaysWhere: a renderer factory that does not
// end within Options.InitTimeout fails Start, naming the node, the
// timeout and the step its client was in, and leaves no client running.
func TestSetUpPastTheInitTimeoutSaysWhere(t *testing.T) {
	before := clientProcesses()
	// long enough to reach the factory on a loaded machine
	_, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), InitTimeout: 5 * time.Second,
		InitData: squareInit{Scale: 1.4, SetupDelay: time.Minute}})
	if err == nil {
		t.Fatal("a set-up past the init timeout started")
	}
	for _, want := range []string{"did not finish setting up within the init timeout, 5s", "Options.InitTimeout", "running the renderer factory (NewRenderer) of pipe"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	clientsEnd(t, before)
}

// A renderer factory's error names its node and pipe, and comes at once:
// the pipes of a node make their renderers together, and one that fails
// does not wait for its neighbours' loads (here a minute's, beyond the
// init timeout: waiting, the run would fail on that instead).
func TestAFactoryErrorNamesItsPipeAtOnce(t *testing.T) {
	_, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc")})
	if err == nil || !regexp.MustCompile(`node \S+ did not join: it failed to set up: pipe [^:]+: no init data`).MatchString(err.Error()) {
		t.Errorf("a factory's error: %v", err)
	}
	before := clientProcesses()
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	strict := strings.Replace(string(text), "latency 1", "latency 1 attributes { robustness OFF }", 1)
	_, err = goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: strict, InitTimeout: 20 * time.Second,
		InitData: squareInit{Scale: 1, FailPipe: "gpu2", SetupDelay: time.Minute}})
	if want := `node render1 did not join: it failed to set up: pipe "gpu2": the test refuses pipe gpu2`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a factory that fails beside one that loads: %v, want %q", err, want)
	}
	clientsEnd(t, before)
}

// threePipes has three pipes on the application's node, the destination on
// the first and two sources sharing its picture by a load equalizer, as
// Equalizer's reliability test sourceFail.eqc has them.
const threePipes = `config { latency 1
    appNode {
        pipe { name "display" window { viewport [ 0 0 320 200 ] channel { name "dest" } } }
        pipe { name "gpu1" window { viewport [ 0 0 320 200 ] attributes { hint_drawable FBO } channel { name "src1" } } }
        pipe { name "gpu2" window { viewport [ 0 0 320 200 ] attributes { hint_drawable FBO } channel { name "src2" } } } }
    compound { channel "dest" wall { bottom_left [ -.32 -.2 -.75 ] bottom_right [ .32 -.2 -.75 ] top_left [ -.32 .2 -.75 ] }
        load_equalizer {}
        compound {}
        compound { channel "src1" outputframe {} }
        compound { channel "src2" outputframe {} }
        inputframe { name "frame.src1" } inputframe { name "frame.src2" } } }`

// With the config's robustness ON (its default, as Equalizer's), a pipe
// whose renderer factory fails goes out of the run, as Equalizer's config
// init drops it, and the others draw its part: every frame is whole. A
// render node whose only pipe fails goes out with it; a pipe beside
// others goes alone, also beside the destination's.
func TestAPipeThatFailsToSetUpLeavesTheRun(t *testing.T) {
	run := func(opt goeq.Options) (*goeq.Summary, string) {
		var log logging.Buffer
		opt.OutDir, opt.Log = t.TempDir(), slog.New(slog.NewTextHandler(&log, nil))
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatalf("Start (reference %v): %v", opt.Reference, err)
		}
		err = startAndFinish(cfg, 4)
		sum, exitErr := cfg.Exit()
		if err != nil || exitErr != nil {
			t.Fatalf("run (reference %v): %v; exit: %v", opt.Reference, err, exitErr)
		}
		return sum, log.String()
	}
	for _, tc := range []struct {
		name                 string
		opt                  goeq.Options
		lostNodes, lostPipes string
		said                 string
	}{
		{"a render node's only", goeq.Options{ConfigText: strings.Replace(threePipes, `pipe { name "gpu2"`, `} node { name "render1" pipe { name "gpu2"`, 1)}, "render1", "",
			`node render1 did not join (it failed to set up: pipe \"gpu2\": the test refuses pipe gpu2): the run goes on without it`},
		{"one of a render node's two", goeq.Options{Config: examples("2d-lb-4.eqc")}, "", `render1: pipe "gpu2"`,
			`node render1: pipe \"gpu2\" could not be set up (pipe \"gpu2\": the test refuses pipe gpu2): the run goes on without it`},
		{"one beside the destination's", goeq.Options{ConfigText: threePipes}, "", `app: pipe "gpu2"`,
			`node app: pipe \"gpu2\" could not be set up (pipe \"gpu2\": the test refuses pipe gpu2): the run goes on without it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.InitData = squareInit{Scale: 1, FailPipe: "gpu2"}
			sum, log := run(opt)
			lostNodes, lostPipes := strings.Join(sum.LostNodes, " "), strings.Join(sum.LostPipes, " ")
			if lostNodes != tc.lostNodes || lostPipes != tc.lostPipes || sum.Degraded != 0 || sum.Frames != 4 {
				t.Errorf("lost nodes %q and pipes %q, %d of %d frames degraded; want %q and %q, and 4 whole frames",
					lostNodes, lostPipes, sum.Degraded, sum.Frames, tc.lostNodes, tc.lostPipes)
			}
			if !strings.Contains(log, tc.said) {
				t.Errorf("the log does not say %q:\n%s", tc.said, log)
			}
			opt.Reference, opt.InitData = true, squareInit{Scale: 1}
			ref, _ := run(opt)
			if len(sum.Written) != 4 {
				t.Fatalf("%d images; want 4", len(sum.Written))
			}
			writtenMatch(t, sum.Written, ref.Written)
		})
	}
}

// writtenMatch compares a run's images with a reference run's, in order.
func writtenMatch(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d images, and %d of the reference", len(got), len(want))
	}
	for i := range got {
		d, err := imagecmp.CompareFiles(got[i], want[i], 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("%s: %s", filepath.Base(got[i]), d)
		}
	}
}

// A pipe that fails to set up, whose destination is only in a layout not
// shown, leaves the run as a render pipe does: the frames of the layout
// shown go on, whole; the first frame that shows its destination ends
// the run with an error that names the pipe, why and the layout. A source
// pipe that fails is left out of every layout: switched away from the
// layout it draws for, it is not there to blank.
func TestAPipeOfALayoutNotShownFailsOnlyWhenItShows(t *testing.T) {
	const halves = `config { latency 1
    appNode {
        pipe { name "left" window { name "left" viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "left" } } }
        pipe { name "right" window { name "right" viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "right" } } }
        pipe { name "aux" window { name "aux" viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "aux" } } } }
    observer {}
    layout { name "both" view { observer 0 } }
    layout { name "leftonly" view { observer 0 viewport [ 0 0 .5 1 ] } }
    canvas { layout "both" layout "leftonly" wall {} segment { viewport [ 0 0 .5 1 ] channel "left" } segment { viewport [ .5 0 .5 1 ] channel "right" } }
    compound { channel ( segment 0 layout "both" view 0 ) }
    compound { channel ( segment 1 layout "both" view 0 ) }
    compound { channel ( segment 0 layout "leftonly" view 0 )
        compound { viewport [ 0 0 .5 1 ] }
        compound { channel "aux" viewport [ .5 0 .5 1 ] outputframe { name "half" } }
        inputframe { name "half" } } }`
	// run shows each layout of the schedule for its frames, in turn
	type shown struct {
		layout string
		frames int
	}
	run := func(init squareInit, reference bool, schedule ...shown) (*goeq.Summary, error) {
		cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: halves, OutDir: t.TempDir(), InitData: init, Reference: reference})
		if err != nil {
			return nil, err
		}
		frame := 0
		for _, s := range schedule {
			err = cfg.UseLayout(s.layout)
			for end := frame + s.frames; err == nil && frame < end; frame++ {
				if _, err = cfg.StartFrame(camera{Frame: frame}); err == nil {
					err = cfg.FinishFrame()
				}
			}
			if err != nil {
				break
			}
		}
		sum, exitErr := cfg.Exit()
		return sum, errors.Join(err, exitErr)
	}
	matches := func(sum *goeq.Summary, schedule ...shown) {
		t.Helper()
		ref, err := run(squareInit{Scale: 1}, true, schedule...)
		if err != nil {
			t.Fatal(err)
		}
		writtenMatch(t, sum.Written, ref.Written)
	}

	const frames = 4
	sum, err := run(squareInit{Scale: 1, FailPipe: "right"}, false, shown{"leftonly", frames}, shown{"both", 1})
	if want := `node app: pipe "right" could not be set up (pipe "right": the test refuses pipe right), and channel "right" in layout "both", a destination of the layouts shown from frame 4, is on it`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("layout \"both\" shown without the right pipe: %v; want %q", err, want)
	}
	if sum == nil || sum.Frames != frames || sum.Degraded != 0 || len(sum.Written) != frames || strings.Join(sum.LostPipes, " ") != `app: pipe "right"` {
		t.Fatalf("summary %+v; want %d whole frames, each written, and the right pipe lost", sum, frames)
	}
	matches(sum, shown{"leftonly", frames})

	switching := []shown{{"leftonly", 2}, {"both", 2}, {"leftonly", 2}}
	sum, err = run(squareInit{Scale: 1, FailPipe: "aux"}, false, switching...)
	if err != nil {
		t.Fatalf("without the aux pipe, layouts switched: %v", err)
	}
	if sum.Frames != 6 || sum.Degraded != 0 || strings.Join(sum.LostPipes, " ") != `app: pipe "aux"` {
		t.Fatalf("summary %+v; want 6 whole frames, and the aux pipe lost", sum)
	}
	matches(sum, switching...)
}

// A window that cannot open fails the run before the renderer factories
// load anything: the windows open first (here a minute's load, beyond the
// init timeout: opened after it, the run would fail on the timeout).
func TestAWindowThatCannotOpenFailsBeforeTheLoad(t *testing.T) {
	text, err := os.ReadFile(examples("one-window.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	huge := regexp.MustCompile(`viewport \[ 0 0 \d+ \d+ \]`).ReplaceAllString(string(text), "viewport [ 0 0 16385 200 ]")
	_, err = goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: huge, InitTimeout: 20 * time.Second,
		InitData: squareInit{Scale: 1, SetupDelay: time.Minute}})
	if want := "16385x200 pixels: larger than this GL's framebuffer limit"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a window too large to open: %v, want %q", err, want)
	}
}

// A frame that does not complete within the frame timeout because a draw
// does not return says so: which channels' draws run, for how long, and
// how to give frames longer.
func TestAFrameTimeoutNamesTheDrawThatDidNotReturn(t *testing.T) {
	// past the first frames, which compile and allocate
	err := frameTimeoutOf(t, squareInit{Scale: 1, StallAt: 3})
	for _, want := range []string{"frame 3: ", "on node render1: waiting for its renderer's Draw to return (running for ",
		"(incomplete after 2s, the frame timeout: --frame-timeout, an application's Options.FrameTimeout)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}

// A draw that returns at once but leaves the GL seconds of work (a
// software rasterizer runs it when goeq next waits for the GL) is named
// too, as the task its pipe is busy with; before, its node "reported no
// wait".
func TestAFrameTimeoutNamesTheTaskAPipeIsBusyWith(t *testing.T) {
	err := frameTimeoutOf(t, squareInit{Scale: 1, HeavyAt: 3})
	if want := regexp.MustCompile(`frame 3: .*channel src\d on node render\d: waiting for its \w+ of compound 0\.\d to finish \(running for `); !want.MatchString(err.Error()) || strings.Contains(err.Error(), "reported no wait") {
		t.Errorf("the error does not name the task a busy pipe runs:\n%v", err)
	}
}

// frameTimeoutOf runs the turning square on 2d-lb-4 under a frame timeout
// of 2 s, where one of its first 20 frames takes longer, and returns the
// error that frame failed with.
func frameTimeoutOf(t *testing.T, init squareInit) error {
	t.Helper()
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), FrameTimeout: 2 * time.Second, InitData: init})
	if err != nil {
		t.Fatal(err)
	}
	err = startAndFinish(cfg, 20)
	cfg.Exit()
	if err == nil {
		t.Fatalf("a frame of %+v passed a frame timeout of 2 s", init)
	}
	return err
}

// startAndFinish starts and finishes frames 0 to n-1 of the turning
// square one at a time, until one fails.
func startAndFinish(cfg *goeq.Config, n int) error {
	for i := range n {
		if _, err := cfg.StartFrame(camera{Frame: i}); err != nil {
			return err
		}
		if err := cfg.FinishFrame(); err != nil {
			return err
		}
	}
	return nil
}

// A renderer's BackToFront that does not order its ranges (an index
// twice, one missing) fails the frame with an error that says so, not a
// panic or a picture with a part missing.
func TestABadRangeOrderFailsTheFrame(t *testing.T) {
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("db-volume-4.eqc"), BlendRanges: true,
		InitData: squareInit{Scale: 1, BadOrder: true}})
	if err != nil {
		t.Fatal(err)
	}
	err = startAndFinish(cfg, 3)
	cfg.Exit()
	if err == nil || !strings.Contains(err.Error(), "the renderer's BackToFront ordered 4 ranges as [0 0 0 0], not each index once") {
		t.Errorf("a bad order: %v", err)
	}
}

// A render client stopped for 3 s (as at a debugger's breakpoint in a
// Draw) is lost by default, and the summary names it; the frame it stopped
// in has its part drawn by the destination (repaired), and no frame is
// shown without it, as each frame's statistics say too. With Liveness and
// FrameTimeout set long, as for debugging a renderer, the run waits for
// it and loses nothing.
func TestLivenessLetsARendererBeDebugged(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  goeq.Options
		lost string
	}{
		{"default", goeq.Options{}, "render1"},
		{"long", goeq.Options{Liveness: time.Minute, FrameTimeout: time.Minute}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Config, opt.InitData = examples("2d-lb-4.eqc"), squareInit{Scale: 1, StopAt: 20, StopNode: "render1"}
			cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
			if err != nil {
				t.Fatal(err)
			}
			var degraded []int // as each frame's statistics said
			for i := 0; i < 30 && err == nil; i++ {
				if _, err = cfg.StartFrame(camera{Frame: i}); err == nil {
					err = cfg.FinishAllFrames()
				}
				if fs := cfg.LastFrameStats(); fs.Degraded {
					degraded = append(degraded, fs.Frame)
				}
			}
			sum, exitErr := cfg.Exit()
			if err != nil || exitErr != nil {
				t.Fatalf("run: %v; exit: %v", err, exitErr)
			}
			if lost := strings.Join(sum.LostNodes, " "); lost != tc.lost {
				t.Errorf("lost nodes %q, want %q", lost, tc.lost)
			}
			if tc.lost == "" && sum.Degraded != 0 {
				t.Errorf("%d degraded frames, want none", sum.Degraded)
			}
			// one frame in flight at a time: the one it stopped in
			if want := map[bool][]int{true: {20}, false: nil}[tc.lost != ""]; !slices.Equal(sum.RepairedFrames, want) {
				t.Errorf("repaired frames %v; want %v", sum.RepairedFrames, want)
			}
			if len(sum.DegradedFrames) != 0 || len(degraded) != 0 || sum.Degraded != 0 {
				t.Errorf("degraded frames %v (%d), by their statistics %v; want none", sum.DegradedFrames, sum.Degraded, degraded)
			}
		})
	}
}

// TestALostNodeIsStartedAgain: with Options.Relaunch, a render node whose
// process dies mid-run (SIGKILL, as in a crash) is started again: it sets
// up its renderers anew, with the same init data, takes the messages
// broadcast before it came back, in order, and draws again. The frames in
// flight when it died are repaired, none is degraded, and every frame
// matches the reference. The application is told of the loss and of the
// return as events; also from a running eqserver that relaunches. (Applications had no way to ask for this: only
// eqserver run --relaunch had it; and a node started again drew without
// the messages broadcast before, in the tint it started with.)
func TestALostNodeIsStartedAgain(t *testing.T) {
	const killAt, after = 10, 6
	// tints before render1 is killed, and one it may not have taken
	script := func(cfg *goeq.Config, frame int) error {
		switch frame {
		case 3:
			if err := cfg.Broadcast(tint{Frame: 3, Name: "green", RGB: [3]float32{0.3, 1, 0.3}}); err != nil {
				return err
			}
			return cfg.Broadcast(tint{Frame: 3, Name: "blue", RGB: [3]float32{0.3, 0.3, 1}})
		case killAt + 1:
			return cfg.Broadcast(tint{Frame: killAt + 1, Name: "red", RGB: [3]float32{1, 0.3, 0.3}})
		}
		return nil
	}
	const took = "3 green\n3 blue\n11 red\n"
	for _, c := range []struct {
		name     string
		onServer bool // an eqserver run --app --relaunch 1 relaunches
	}{{"2d-lb-4.eqc", false}, {"db-lb-4.eqc", false}, {"2d-lb-4.eqc", true}} {
		where := map[bool]string{false: "in process", true: "on a running eqserver"}[c.onServer]
		t.Run(c.name+"/"+where, func(t *testing.T) {
			init := squareInit{Scale: 1.4, DepthTest: true}
			record := t.TempDir()
			opt := goeq.Options{Config: examples(c.name), OutDir: t.TempDir(), Relaunch: 1}
			var srv *appServer
			if c.onServer {
				t.Setenv("GOEQ_TOKEN", "the-shared-token")
				srv = startAppServer(t, examples(c.name), "--relaunch", "1")
				opt.Server, opt.Relaunch = srv.addr, 0
			}
			killing := init
			killing.KillAt, killing.KillNode, killing.Record = killAt, "render1", record
			opt.InitData = killing
			cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
			if err != nil {
				t.Fatal(err)
			}
			// once render1 draws again after killAt, it has rejoined
			// (bounded: it takes a second or so)
			frames, drewAgain := 0, -1
			var told []string // the node events, as kind node reason
			tell := func() {
				for _, ev := range cfg.PendingEvents() {
					if ev.Kind == goeq.NodeLost || ev.Kind == goeq.NodeJoined {
						told = append(told, strings.TrimSpace(fmt.Sprint(ev.Kind, " ", ev.Node, " ", ev.Reason)))
					}
				}
			}
			for ; err == nil && frames < 1000 && (drewAgain < 0 || frames < drewAgain+after); frames++ {
				tell()
				if err = script(cfg, frames); err != nil {
					break
				}
				if _, err = cfg.StartFrame(camera{Frame: frames, Angle: 0.35 * float64(frames)}); err == nil {
					err = cfg.FinishFrame()
				}
				fs := cfg.LastFrameStats()
				if drewAgain < 0 && fs.Frame > killAt && slices.ContainsFunc(fs.Channels, func(c goeq.ChannelStats) bool { return c.Node == "render1" && c.Draw > 0 }) {
					drewAgain = fs.Frame
				}
			}
			sum, exitErr := cfg.Exit()
			if err != nil || exitErr != nil {
				t.Fatalf("run: %v; exit: %v", err, exitErr)
			}
			tell()
			// the reason names the render clients' executable: this one
			exe, _ := os.Executable()
			if want := "node lost render1 " + filepath.Base(exe) + " exited (signal: killed)|node joined render1"; strings.Join(told, "|") != want {
				t.Errorf("the application was told %q, want %q", told, want)
			}
			if drewAgain < 0 {
				t.Fatalf("render1 did not draw again in %d frames after it was killed in frame %d; lost %v, rejoined %v", frames-killAt, killAt, sum.LostNodes, sum.RejoinedNodes)
			}
			if lost, rejoined := strings.Join(sum.LostNodes, " "), strings.Join(sum.RejoinedNodes, " "); lost != "render1" || rejoined != "render1" {
				t.Errorf("lost %q and rejoined %q; want render1 both", lost, rejoined)
			}
			if sum.Degraded != 0 || len(sum.RepairedFrames) == 0 {
				t.Errorf("degraded frames %v, repaired %v; want none degraded, and the frame it died in repaired", sum.DegradedFrames, sum.RepairedFrames)
			}
			if sum.Frames != frames {
				t.Fatalf("%d frames done of %d", sum.Frames, frames)
			}
			t.Logf("killed in frame %d, drew again in frame %d; repaired %v", killAt, drewAgain, sum.RepairedFrames)
			// render1's pipes, started again, took every tint again
			for _, pipe := range []string{"app-display", "render1-gpu1", "render1-gpu2", "render2-gpu3", "render2-gpu4"} {
				b, err := os.ReadFile(filepath.Join(record, "recv-"+pipe))
				if got := string(b); err != nil || !strings.HasPrefix(pipe, "render1") && got != took || !strings.HasSuffix(got, took) {
					t.Errorf("pipe %s took %q (%v); want %q, last", pipe, got, err, took)
				}
			}
			if srv != nil {
				srv.endsWithTheRun(t)
			}
			opt.Reference, opt.Relaunch, opt.Server = true, 0, ""
			compareRuns(t, sum.Written, runScript(t, opt, frames, init, script))
		})
	}
}

// A node whose destination is in a layout not shown now is lost as a
// render node is: the wall goes on showing the layout that leaves its
// segment out (its part there is drawn again by the destination), the
// node is started again, and once it has rejoined, its layout shows again.
// Every frame matches a reference run of the same layouts. Before, the
// loss ended the run, though nothing shown was on the node.
func TestALostNodeOfALayoutNotShownRejoinsBeforeItShows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "halves.eqc")
	if err := os.WriteFile(path, []byte(`#Equalizer 1.2 ascii
config
{
    latency 1
    appNode { pipe { window { name "left" viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "left" } } } }
    node { name "right" host "localhost" pipe { window { name "right" viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "right" } } } }
    observer {}
    layout { name "both" view { observer 0 } }
    layout { name "leftonly" view { observer 0 viewport [ 0 0 .5 1 ] } }
    canvas { layout "both" layout "leftonly" wall {} segment { viewport [ 0 0 .5 1 ] channel "left" } segment { viewport [ .5 0 .5 1 ] channel "right" } }
    compound { channel ( segment 0 layout "both" view 0 ) }
    compound { channel ( segment 1 layout "both" view 0 ) }
    compound
    {
        channel ( segment 0 layout "leftonly" view 0 )
        compound { viewport [ 0 0 .5 1 ] }
        compound { channel "right" viewport [ .5 0 .5 1 ] outputframe { name "half" } }
        inputframe { name "half" }
    }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	const killAt, back = 5, 4 // frames of "both" after the rejoin
	init := squareInit{Scale: 1.4}
	killing := init
	killing.KillAt, killing.KillNode = killAt, "right"
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: path, OutDir: t.TempDir(), InitData: killing, Relaunch: 1})
	if err != nil {
		t.Fatal(err)
	}
	// "leftonly" from frame 2 until the node has rejoined, then "both"
	// again
	frames, shownAgain := 0, -1
	step := func(cfg *goeq.Config, frame int) error {
		var err error
		switch frame {
		case 2:
			err = cfg.UseLayout("leftonly")
		case shownAgain:
			err = cfg.UseLayout("both")
		}
		if err == nil {
			if _, err = cfg.StartFrame(camera{Frame: frame, Angle: 0.35 * float64(frame)}); err == nil {
				err = cfg.FinishFrame()
			}
		}
		return err
	}
	// frames go on without the node after the one it died in (each
	// finished before the next), then wait for it to come back: it
	// takes a second or so (bounded)
	waitForRejoin := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for {
			evs, err := cfg.WaitEvents(ctx)
			if err != nil {
				return fmt.Errorf("waiting for the right node to rejoin: %w", err)
			}
			if slices.ContainsFunc(evs, func(ev goeq.Event) bool { return ev.Kind == goeq.NodeJoined }) {
				return nil
			}
		}
	}
	for ; err == nil && (shownAgain < 0 || frames < shownAgain+back); frames++ {
		if frames == killAt+3 {
			if err = waitForRejoin(); err != nil {
				break
			}
			shownAgain = frames
		}
		err = step(cfg, frames)
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v", err, exitErr)
	}
	if lost, rejoined := strings.Join(sum.LostNodes, " "), strings.Join(sum.RejoinedNodes, " "); lost != "right" || rejoined != "right" || sum.Frames != frames {
		t.Errorf("lost %q, rejoined %q, %d frames of %d; want right both, every frame", lost, rejoined, sum.Frames, frames)
	}
	ref, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: path, OutDir: t.TempDir(), InitData: init, Reference: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < frames && err == nil; i++ {
		err = step(ref, i)
	}
	want, exitErr := ref.Exit()
	if err != nil || exitErr != nil {
		t.Fatalf("reference run: %v; exit: %v", err, exitErr)
	}
	if both := 2*(2+frames-shownAgain) + shownAgain - 2; len(sum.Written) != both || len(want.Written) != both {
		t.Fatalf("%d images, and %d in the reference; want %d: both segments in %d frames, the left one in %d", len(sum.Written), len(want.Written), both, 2+frames-shownAgain, shownAgain-2)
	}
	compareRuns(t, sum.Written, want.Written)
}

// A Config's methods may be called from several goroutines: here two
// frame loops and an event loop that changes what the next frames show.
// Every frame started gets a number of its own, in the order the run
// takes them, and the run ends cleanly (go test -race finds no race).
func TestConfigIsSafeForConcurrentUse(t *testing.T) {
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"),
		InitData: squareInit{Scale: 1, Refined: true}})
	if err != nil {
		t.Fatal(err)
	}
	const loops, frames = 2, 15
	numbers := make(chan int, loops*frames)
	errs := make(chan error, loops+1)
	var frameLoops, eventLoop sync.WaitGroup
	for range loops {
		frameLoops.Go(func() {
			for i := range frames {
				n, err := cfg.StartFrame(camera{Angle: 0.35 * float64(i)})
				if err != nil {
					errs <- err
					return
				}
				numbers <- n
			}
		})
	}
	stop := make(chan struct{})
	eventLoop.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			cfg.SetOverlay(i%2 == 0)
			cfg.FreezeBalancing(i%3 == 0)
			b, err := cfg.Balancing(0)
			if err == nil {
				b.Frozen, b.Damping = i%5 == 0, float64(i%10)/10
				err = cfg.SetBalancing(0, b)
			}
			if err != nil {
				errs <- err
				return
			}
			if err := cfg.UseLayoutIndex(0); err != nil {
				errs <- err
				return
			}
			cfg.PendingEvents()
			cfg.LastFrameStats()
			if _, _, err := cfg.Refine(); err != nil {
				errs <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	frameLoops.Wait()
	close(stop)
	eventLoop.Wait()
	sum, err := cfg.Exit()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if err != nil {
		t.Fatal(err)
	}
	close(numbers)
	seen := map[int]bool{}
	for n := range numbers {
		if seen[n] {
			t.Errorf("frame %d was numbered twice", n)
		}
		seen[n] = true
	}
	if len(seen) != loops*frames || sum.Frames < loops*frames {
		t.Errorf("%d frame numbers from StartFrame, %d frames done; want %d of each at least", len(seen), sum.Frames, loops*frames)
	}
}

// Start in a process launched as a render client (its main did not call
// Init first) refuses, rather than start a run of its own that would
// launch clients of its own, each doing the same.
func TestStartRefusesInARenderClient(t *testing.T) {
	defer func(args []string) { os.Args = args }(os.Args)
	os.Args = []string{os.Args[0], "--goeq-client", "--server", "127.0.0.1:1", "--node", "app"}
	before := clientProcesses()
	_, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), InitData: squareInit{Scale: 1}})
	if err == nil || !strings.Contains(err.Error(), "called Start without calling goeq.Init(app) first") {
		t.Errorf("Start in a render client: %v", err)
	}
	if n := clientProcesses(); n > before {
		t.Errorf("Start in a render client launched %d clients", n-before)
	}
}

// clientsEnd fails t unless the render clients beyond the before that
// clientProcesses counted end within 5 s of a failed Start.
func clientsEnd(t *testing.T, before int) {
	t.Helper()
	for range 50 {
		if clientProcesses() <= before {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%d render clients still run 5 s after Start failed", clientProcesses()-before)
}

// clientProcesses counts the live processes this test binary started as
// render clients.
func clientProcesses() int {
	exe, _ := os.Executable()
	return clientProcessesOf(exe)
}

// clientProcessesOf counts the live render clients of executable exe.
func clientProcessesOf(exe string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		stat, _ := os.ReadFile(filepath.Join(p, "stat"))
		zombie := strings.Contains(string(stat), ") Z ")
		if !zombie && strings.HasPrefix(string(cmdline), exe+"\x00") && strings.Contains(string(cmdline), "--goeq-client") {
			n++
		}
	}
	return n
}

// An Overlayer draws over every destination's finished image with all of
// its colours, in anaglyph stereo too: a white box in its corner is white
// on every frame, mono and stereo, on the 2D, tile and wall configs (the
// wall's four destinations each). The overlay was drawn under the colour
// mask the last eye's assembly left (cyan: the box had no red).
func TestAnOverlayDrawsInEveryColour(t *testing.T) {
	stereoFrom1 := func(cfg *goeq.Config, i int) error {
		if i == 1 {
			return cfg.SetViewMode(0, goeq.Stereo)
		}
		return nil
	}
	var written []string
	for _, config := range []string{"2d-lb-4.eqc", "tile-4.eqc", "wall-2x2-views.eqc"} {
		written = append(written, runScript(t, goeq.Options{Config: examples(config)}, 3, squareInit{Scale: 1.4, Overlay: true}, stereoFrom1)...)
	}
	for _, path := range written {
		img := loadPNG(t, path)
		h := img.Rect.Dy()
		in := img.NRGBAAt(overlayBox.Min.X+8, h-1-(overlayBox.Min.Y+8)) // PNG rows run down
		out := img.NRGBAAt(overlayBox.Max.X+8, h-1-(overlayBox.Min.Y+8))
		if in != (color.NRGBA{255, 255, 255, 255}) || out == in {
			t.Errorf("%s: the overlay's box is %v, beside it %v; want white, and not white", filepath.Base(path), in, out)
		}
	}
}

// TestStateADrawLeavesIsNotGoeqs: a renderer that sets the GL state its
// draws need and restores none of it (its framebuffer and a pixel pack
// buffer bound, a pack row length, rasterizer discard, the draw buffer set
// to none, a colour mask, ...) renders the same frames as a tidy one, in
// every decomposition: goeq's readback, clears and compositing put back
// what they rely on. Before, a pack buffer or row length left bound made
// every frame wrong without an error.
func TestStateADrawLeavesIsNotGoeqs(t *testing.T) {
	ms := filepath.Join(t.TempDir(), "ms.eqc")
	if err := os.WriteFile(ms, []byte(multisampleConfig(320, 200, "planes_samples 4")), 0o644); err != nil {
		t.Fatal(err)
	}
	stereoFrom1 := func(cfg *goeq.Config, i int) error {
		if i == 1 {
			return cfg.SetViewMode(0, goeq.Stereo) // anaglyph: a colour mask per eye
		}
		return nil
	}
	for _, c := range []struct {
		config string
		hooks  bool
		script func(*goeq.Config, int) error
	}{
		{examples("2d-lb-4.eqc"), false, stereoFrom1},
		{examples("2d-lb-4.eqc"), true, nil},
		{examples("db-lb-4.eqc"), false, nil},
		{examples("pixel-2x2.eqc"), false, nil},
		{examples("tile-4.eqc"), false, stereoFrom1},
		{ms, false, nil},
	} {
		t.Run(fmt.Sprintf("%s-hooks=%v", filepath.Base(c.config), c.hooks), func(t *testing.T) {
			got := runScript(t, goeq.Options{Config: c.config}, 4, squareInit{Scale: 1.4, Hooks: c.hooks, Untidy: true}, c.script)
			// the multisampled config against its tidy run: the reference
			// renders it with other samples at the edges
			want := runScript(t, goeq.Options{Config: c.config, Reference: c.config != ms}, 4, squareInit{Scale: 1.4, Hooks: c.hooks}, c.script)
			compareRuns(t, got, want)
		})
	}
}

// A config given as text (made in code, or built in), with no file named,
// runs as its file does, and its errors name it with line and column.
func TestConfigText(t *testing.T) {
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	got := runScript(t, goeq.Options{ConfigText: string(text)}, 6, squareInit{Scale: 1.4}, nil)
	want := runSquare(t, examples("2d-lb-4.eqc"), 6, true)
	compareRuns(t, got, want)

	_, err = goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: "wall.eqc", ConfigText: "config {\n  node { pipe { wndow {} } }\n}\n"})
	if err == nil || !strings.HasPrefix(err.Error(), "wall.eqc:2:") {
		t.Errorf("a bad config text: %v, want an error at wall.eqc:2:...", err)
	}
	_, err = goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: "config { oops }"})
	if err == nil || !strings.HasPrefix(err.Error(), "ConfigText:1:") {
		t.Errorf("a bad config text without a name: %v, want an error at ConfigText:1:...", err)
	}
}

// An application switches the canvas' layout from a frame on
// (two-layouts.eqc: one view, then two, the left one decomposed): from
// then the new layout's views render and the old one's stop, frame for
// frame as the reference renders them; also when the application drives
// a running eqserver.
func TestUseLayoutSwitchesFromAFrameOn(t *testing.T) {
	layoutOf := map[int]string{2: "halves", 4: "whole"} // switches, by frame
	use := func(cfg *goeq.Config, frame int) error {
		if name, ok := layoutOf[frame]; ok {
			return cfg.UseLayout(name)
		}
		return nil
	}
	check := func(cfg *goeq.Config) {
		if got := cfg.Layouts(); !slices.Equal(got, []string{"whole", "halves"}) {
			t.Errorf("layouts %q", got)
		}
		if err := cfg.UseLayout("quarters"); err == nil || !strings.Contains(err.Error(), `"whole", "halves"`) {
			t.Errorf("an unknown layout: %v", err)
		}
	}
	path := examples("two-layouts.eqc")
	want, wantDir := runLayoutSwitches(t, goeq.Options{Config: path, Reference: true}, check, use)
	inProcess, inProcessDir := runLayoutSwitches(t, goeq.Options{Config: path}, check, use)
	compareLayoutRuns(t, layoutFrames, inProcess, inProcessDir, want, wantDir)

	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	onServer, onServerDir := runLayoutSwitches(t, goeq.Options{Server: startAppServer(t, path).addr}, check, use)
	compareLayoutRuns(t, layoutFrames, onServer, onServerDir, want, wantDir)
}

// Options.Layout starts the run with that layout, by name or by index,
// in this process and on a running eqserver (Equalizer's --eq-layout):
// two-layouts.eqc's canvas shows its halves from the first frame, where it
// starts with the whole view otherwise. A layout the config lacks is
// refused, naming the layouts it has.
func TestOptionsLayoutStartsTheRunInIt(t *testing.T) {
	path := examples("two-layouts.eqc")
	stay := func(*goeq.Config, int) error { return nil }
	halves := func(name string, byFrame map[int][]string) {
		t.Helper()
		for f := range layoutFrames {
			if len(byFrame[f]) != 2 || !strings.HasPrefix(byFrame[f][0], "dest.halves.") || !strings.HasPrefix(byFrame[f][1], "dest.halves.") {
				t.Errorf("Layout %q: frame %d wrote %q, want the two halves", name, f, byFrame[f])
			}
		}
	}
	// the application learns which it is: eqply's l steps on from it
	second := func(cfg *goeq.Config) {
		if got := cfg.Layout(); got != 1 {
			t.Errorf("Layout() %d at the start; want 1, halves", got)
		}
	}
	got, _ := runLayoutSwitches(t, goeq.Options{Config: path, Layout: "halves"}, second, stay)
	halves("halves", got)
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: path, Layout: "quarters"}); err == nil ||
		!strings.Contains(err.Error(), `no layout "quarters": the config has "whole", "halves"`) {
		t.Errorf("an unknown layout: %v", err)
	}
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	got, _ = runLayoutSwitches(t, goeq.Options{Server: startAppServer(t, path).addr, Layout: "1"}, second, stay)
	halves("1", got)
}

// Layouts without a name (as in the corpus' hactar.eqc) are chosen by
// their index, in the config's order, as Equalizer's canvases take them.
func TestUseLayoutIndexChoosesUnnamedLayouts(t *testing.T) {
	text, err := os.ReadFile(examples("two-layouts.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	unnamed := strings.NewReplacer(`name "whole"`, "", `name "halves"`, "", `layout "whole"`, "layout 0", `layout "halves"`, "layout 1").Replace(string(text))
	use := func(cfg *goeq.Config, frame int) error {
		switch frame {
		case 2:
			err := cfg.UseLayoutIndex(1)
			if got := cfg.Layout(); got != 1 {
				t.Errorf("Layout() %d after UseLayoutIndex(1)", got)
			}
			return err
		case 4:
			return cfg.UseLayoutIndex(0)
		}
		return nil
	}
	check := func(cfg *goeq.Config) {
		if got := cfg.Layouts(); !slices.Equal(got, []string{"", ""}) {
			t.Errorf("layouts %q", got)
		}
		for _, err := range []error{cfg.UseLayout(""), cfg.UseLayoutIndex(2), cfg.UseLayoutIndex(-1)} {
			if err == nil || !strings.Contains(err.Error(), "0 (unnamed), 1 (unnamed)") {
				t.Errorf("an unknown layout: %v", err)
			}
		}
		if got := cfg.Layout(); got != 0 {
			t.Errorf("Layout() %d at the start; want 0", got)
		}
	}
	opt := goeq.Options{Config: "unnamed.eqc", ConfigText: unnamed}
	opt.Reference = true
	want, wantDir := runLayoutSwitches(t, opt, check, use)
	opt.Reference = false
	got, gotDir := runLayoutSwitches(t, opt, check, use)
	compareLayoutRuns(t, layoutFrames, got, gotDir, want, wantDir)
}

// An application switches one canvas alone (Equalizer's
// Canvas::useLayout): a wall of two layouts and `layout OFF` beside an
// operator's screen that lists only the whole view. The wall shows its
// halves while the operator's screen keeps the whole view, then goes
// dark, then UseLayout shows the whole view on both: frame for frame as
// the reference renders them, in this process and on a running eqserver.
func TestUseCanvasLayoutSwitchesOneCanvas(t *testing.T) {
	text, err := os.ReadFile(examples("two-layouts.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	operator := strings.NewReplacer(
		"        pipe\n        {\n            window\n            {\n                name \"dest\"", `        pipe
        {
            window { name "operator" viewport [ 660 0 320 180 ] channel { name "operator" } }
            window
            {
                name "dest"`,
		"        layout \"halves\"\n", "        layout \"halves\"\n        layout OFF\n",
		"\n    canvas\n    {\n", "\n    canvas\n    {\n        name \"wall\"\n",
		"\n    compound\n", "\n    canvas { name \"operator\" layout \"whole\" wall {} segment { channel \"operator\" } }\n    compound\n",
	).Replace(string(text))
	const wall, screen = 0, 1
	// by frame: what each canvas shows
	shows := map[int][2]int{0: {0, 0}, 1: {0, 0}, 2: {1, 0}, 3: {goeq.LayoutOff, 0}, 4: {0, 0}, 5: {0, 0}}
	use := func(cfg *goeq.Config, frame int) error {
		var err error
		switch frame {
		case 2:
			err = cfg.UseCanvasLayout(wall, 1)
		case 3:
			err = cfg.UseCanvasLayout(wall, goeq.LayoutOff)
		case 4:
			err = cfg.UseLayout("whole")
		}
		for cv, want := range shows[frame] {
			if got, cerr := cfg.CanvasLayout(cv); got != want || cerr != nil {
				t.Errorf("frame %d: canvas %d shows %d (%v); want %d", frame, cv, got, cerr, want)
			}
		}
		return err
	}
	check := func(cfg *goeq.Config) {
		want := []goeq.Canvas{{Name: "wall", Layouts: []int{0, 1, goeq.LayoutOff}}, {Name: "operator", Layouts: []int{0}}}
		if got := cfg.Canvases(); !reflect.DeepEqual(got, want) {
			t.Errorf("canvases %+v; want %+v", got, want)
		}
		for _, c := range []struct {
			err  error
			want string
		}{
			{cfg.UseCanvasLayout(screen, 1), `goeq: canvas "operator" does not list layout "halves"; it lists "whole"`},
			{cfg.UseCanvasLayout(screen, goeq.LayoutOff), `goeq: canvas "operator" does not list layout OFF; it lists "whole"`},
			{cfg.UseCanvasLayout(2, 0), "goeq: no canvas 2: the config has 2"},
			{cfg.UseCanvasLayout(wall, 2), `goeq: no layout 2: the config has "whole", "halves"`},
		} {
			if c.err == nil || c.err.Error() != c.want {
				t.Errorf("%v; want %s", c.err, c.want)
			}
		}
		if _, err := cfg.CanvasLayout(-1); err == nil {
			t.Error("CanvasLayout(-1): no error")
		}
		// the views are the layouts' in turn: "whole"'s one, "halves"'s two
		for v, want := range []int{0, 1, 1} {
			if got, err := cfg.ViewLayout(v); got != want || err != nil {
				t.Errorf("view %d (%s) is of layout %d (%v); want %d", v, cfg.Views()[v], got, err, want)
			}
		}
		if _, err := cfg.ViewLayout(3); err == nil || err.Error() != "goeq: no view 3: the config has 3" {
			t.Errorf("ViewLayout(3): %v", err)
		}
	}
	written := func(name string, byFrame map[int][]string) {
		t.Helper()
		for f, s := range shows {
			want := []string{fmt.Sprintf("operator-%06d.png", f)} // its one layout: no layout and view in the name
			switch s[wall] {
			case 0:
				want = append(want, fmt.Sprintf("dest.whole.view0-%06d.png", f))
			case 1:
				want = append(want, fmt.Sprintf("dest.halves.left-%06d.png", f), fmt.Sprintf("dest.halves.right-%06d.png", f))
			}
			slices.Sort(want)
			if got := slices.Sorted(slices.Values(byFrame[f])); !slices.Equal(got, want) {
				t.Errorf("%s: frame %d wrote %q; want %q", name, f, got, want)
			}
		}
	}
	opt := goeq.Options{Config: "operator.eqc", ConfigText: operator, Reference: true}
	want, wantDir := runLayoutSwitches(t, opt, check, use)
	written("the reference", want)
	opt.Reference = false
	got, gotDir := runLayoutSwitches(t, opt, check, use)
	written("in this process", got)
	sameImages(t, got, gotDir, want, wantDir)

	path := filepath.Join(t.TempDir(), "operator.eqc")
	if err := os.WriteFile(path, []byte(operator), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	onServer, onServerDir := runLayoutSwitches(t, goeq.Options{Server: startAppServer(t, path).addr}, check, use)
	written("on a running eqserver", onServer)
	sameImages(t, onServer, onServerDir, want, wantDir)
}

// sameImages compares the images of two runs, frame by frame, within
// the corpus' tolerance.
func sameImages(t *testing.T, got map[int][]string, gotDir string, want map[int][]string, wantDir string) {
	t.Helper()
	for f, names := range got {
		for _, name := range names {
			if !slices.Contains(want[f], name) {
				continue // written() says so
			}
			d, err := imagecmp.CompareFiles(filepath.Join(gotDir, name), filepath.Join(wantDir, name), 2)
			if err != nil {
				t.Fatal(err)
			}
			if d.BadFraction() > 0.0002 {
				t.Errorf("%s: %s", name, d)
			}
		}
	}
}

const layoutFrames = 6

// runLayoutSwitches runs layoutFrames frames of the turning square,
// calling use before each frame starts (check once at the start), and
// returns the images each frame wrote and where.
func runLayoutSwitches(t *testing.T, opt goeq.Options, check func(*goeq.Config), use func(*goeq.Config, int) error) (map[int][]string, string) {
	t.Helper()
	out := t.TempDir()
	opt.OutDir, opt.InitData = out, squareInit{Scale: 1.4}
	cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	check(cfg)
	for i := 0; i < layoutFrames && err == nil; i++ {
		if err = use(cfg, i); err == nil {
			_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
		}
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v", err, exitErr)
	}
	return imagesByFrame(t, sum.Written), out
}

// imagesByFrame groups a run's images (Summary.Written) by the frame
// number that ends their names.
func imagesByFrame(t *testing.T, written []string) map[int][]string {
	t.Helper()
	byFrame := map[int][]string{}
	for _, w := range written {
		var f int
		base := filepath.Base(w)
		if _, err := fmt.Sscanf(base[max(0, len(base)-len("000000.png")):], "%06d.png", &f); err != nil {
			t.Fatalf("image %s: %v", base, err)
		}
		byFrame[f] = append(byFrame[f], base)
	}
	return byFrame
}

// compareLayoutRuns checks a run of TestUseLayoutSwitchesFromAFrameOn
// against the reference: the images each frame wrote, and their pixels.
func compareLayoutRuns(t *testing.T, frames int, got map[int][]string, gotDir string, want map[int][]string, wantDir string) {
	t.Helper()
	for f := 0; f < frames; f++ {
		slices.Sort(got[f])
		slices.Sort(want[f])
		views := 1
		if f == 2 || f == 3 {
			views = 2
		}
		if len(got[f]) != views || !slices.Equal(got[f], want[f]) {
			t.Errorf("frame %d wrote %q, the reference %q; want %d images", f, got[f], want[f], views)
			continue
		}
		for _, name := range got[f] {
			d, err := imagecmp.CompareFiles(filepath.Join(gotDir, name), filepath.Join(wantDir, name), 2)
			if err != nil {
				t.Fatal(err)
			}
			if d.BadFraction() > 0.0002 {
				t.Errorf("%s: %s", name, d)
			}
		}
	}
	if len(got[1]) == 1 && len(got[4]) == 1 && got[1][0][:strings.LastIndex(got[1][0], "-")] != got[4][0][:strings.LastIndex(got[4][0], "-")] {
		t.Errorf("switched back, frame 4 wrote %s where frame 1 wrote %s", got[4][0], got[1][0])
	}
}

// An X server that hangs under a run (stopped: SIGSTOP) holds its
// windows' buffer swaps: the frame timeout names that wait, where it said
// only that the node "reported no wait".
func TestAHungXServerIsNamedByTheFrameTimeout(t *testing.T) {
	disp, server := xtest.Server(t, 1280, 720)
	t.Setenv("DISPLAY", disp)
	t.Setenv("GOEQ_WINSYS", "auto") // the destination's window on screen
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), FrameTimeout: 3 * time.Second, InitData: squareInit{Scale: 1.4}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OnScreen() == 0 {
		t.Fatal("no window on the display: the test would prove nothing")
	}
	for i := 0; i < 2 && err == nil; i++ {
		if _, err = cfg.StartFrame(camera{Frame: i}); err == nil {
			err = cfg.FinishAllFrames()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	server.Signal(syscall.SIGSTOP)
	defer server.Signal(syscall.SIGCONT)
	for i := 2; i < 40 && err == nil; i++ {
		if _, err = cfg.StartFrame(camera{Frame: i}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	server.Signal(syscall.SIGCONT)
	cfg.Exit()
	if want := "waiting for its window's buffer swap to return"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the run under a hung X server ended with %v; want the frame timeout saying %q", err, want)
	}
}

// A destination window the user resizes renders at its new size from the
// next frame started on, as Equalizer's does: the decomposition covers
// the new size, and the wall widens with the aspect so the picture is not
// stretched. Checked frame for frame against the reference planner
// resized alike, and against the reference of a config that gives the
// window that size and the widened wall from the start.
func TestResizedWindowRendersAtItsNewSize(t *testing.T) {
	disp := xtest.Display(t, 1280, 720)
	t.Setenv("DISPLAY", disp)
	t.Setenv("GOEQ_WINSYS", "auto") // the destination's window on screen
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	resized := strings.Replace(string(text), "viewport [ 0 0 640 360 ]", "viewport [ 0 0 960 360 ]", 1)
	resized = strings.Replace(resized, "wall {}", "wall { bottom_left [ -1.2 -0.5 -1 ] bottom_right [ 1.2 -0.5 -1 ] top_left [ -1.2 0.5 -1 ] }", 1)
	if resized == string(text) {
		t.Fatal("2d-lb-4.eqc changed: the test's edits of it do not apply")
	}
	const frames = 5
	run := func(opt goeq.Options, resize bool) string {
		out := t.TempDir()
		opt.OutDir, opt.InitData = out, squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < frames && err == nil; i++ {
			if i == 2 && resize {
				err = resizeAndWait(t, cfg, disp)
			}
			if err == nil {
				_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
			}
			if err == nil && i == 1 {
				err = cfg.FinishAllFrames()
			}
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return out
	}
	got := run(goeq.Options{ConfigText: string(text)}, true)
	want := run(goeq.Options{ConfigText: string(text), Reference: true}, true)
	configured := run(goeq.Options{ConfigText: resized, Reference: true}, false)
	for f := 0; f < frames; f++ {
		name := fmt.Sprintf("dest-%06d.png", f)
		size := [2]int{640, 360}
		if f >= 2 {
			size = [2]int{960, 360}
		}
		if w, h := pngSize(t, filepath.Join(got, name)); [2]int{w, h} != size {
			t.Errorf("frame %d is %dx%d, want %dx%d", f, w, h, size[0], size[1])
			continue
		}
		refs := []string{want}
		if f >= 2 {
			refs = append(refs, configured)
		}
		for _, ref := range refs {
			d, err := imagecmp.CompareFiles(filepath.Join(got, name), filepath.Join(ref, name), 2)
			if err != nil {
				t.Fatal(err)
			}
			if d.BadFraction() > 0.0002 {
				t.Errorf("frame %d against %s: %s", f, ref, d)
			}
		}
	}
}

// resizeAndWait resizes the destination's window on screen to 960x360 and
// waits for the application to hear of it.
func resizeAndWait(t *testing.T, cfg *goeq.Config, disp string) error {
	win := xtest.FindWindow(t, disp, "goeq dest", 30*time.Second)
	xtest.Xdotool(t, disp, "windowsize", "--sync", win, "960", "360")
	return waitForResize(cfg, 960, 360)
}

// waitForResize waits up to 30 s for the application to hear that a
// window is w x h.
func waitForResize(cfg *goeq.Config, w, h int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		evs, err := cfg.WaitEvents(ctx)
		if err != nil {
			return fmt.Errorf("waiting for the resize event: %w", err)
		}
		for _, ev := range evs {
			if ev.Kind == goeq.Resize && ev.Width == w && ev.Height == h {
				return nil
			}
		}
	}
}

// pngSize is an image file's size.
func pngSize(t *testing.T, path string) (w, h int) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c.Width, c.Height
}

// A fullscreen window on a screen unlike its pipe's viewport (which
// stands for the screen in the config: 1920x1080 here) renders at the
// screen's size, as Equalizer's does: its client reports the size it
// opened at as a resize.
func TestFullscreenWindowRendersAtTheScreensSize(t *testing.T) {
	disp := xtest.Display(t, 1280, 720)
	t.Setenv("DISPLAY", disp)
	t.Setenv("GOEQ_WINSYS", "auto")
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	fullscreen := strings.Replace(string(text), "viewport [ 0 0 640 360 ]", "attributes { hint_fullscreen ON }", 1)
	run := func(opt goeq.Options) string {
		out := t.TempDir()
		opt.ConfigText, opt.OutDir, opt.InitData = fullscreen, out, squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		// no wait for the window's resize: the first frame has the
		// screen's size (it raced the resize, and lost in a third of the
		// runs on a screen of another size)
		for i := 0; i < 3 && err == nil; i++ {
			_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return out
	}
	got, want := run(goeq.Options{}), run(goeq.Options{Reference: true})
	for f := 0; f < 3; f++ {
		name := fmt.Sprintf("dest-%06d.png", f)
		if w, h := pngSize(t, filepath.Join(got, name)); w != 1280 || h != 720 {
			t.Errorf("frame %d is %dx%d, want the screen's 1280x720", f, w, h)
			continue
		}
		d, err := imagecmp.CompareFiles(filepath.Join(got, name), filepath.Join(want, name), 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("frame %d: %s", f, d)
		}
	}
}

// FreezeBalancing keeps the load equalizer's split from the next frame
// on, in process and on a running eqserver: every source draws the same
// part of the destination in every frozen frame, while the timings it
// would balance by go on changing. The statistics name each channel and
// its node, as the config does.
func TestFreezeBalancingKeepsTheSplit(t *testing.T) {
	const frames, freezeAt = 10, 3
	run := func(opt goeq.Options) {
		opt.OutDir, opt.InitData = t.TempDir(), squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		split := map[int]map[string]goeq.Viewport{} // by frame, by channel
		var named []string                          // node/name of each channel in the frame before the freeze
		for i := 0; i < frames && err == nil; i++ {
			if i == freezeAt {
				cfg.FreezeBalancing(true)
			}
			if _, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)}); err == nil {
				err = cfg.FinishAllFrames()
			}
			fs := cfg.LastFrameStats()
			split[fs.Frame] = map[string]goeq.Viewport{}
			for _, ch := range fs.Channels {
				split[fs.Frame][ch.Channel] = ch.Viewport
				if fs.Frame == freezeAt-1 {
					named = append(named, ch.Node+"/"+ch.Name)
				}
			}
		}
		slices.Sort(named)
		if want := []string{"app/dest", "render1/src1", "render1/src2", "render2/src3", "render2/src4"}; !slices.Equal(named, want) {
			t.Errorf("the statistics name the channels %q, want %q", named, want)
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		if len(split[freezeAt-1]) != 5 {
			t.Fatalf("frame %d: %d channels worked, want the 4 sources and the destination: %v", freezeAt-1, len(split[freezeAt-1]), split[freezeAt-1])
		}
		for f := freezeAt; f < frames; f++ {
			if !maps.Equal(split[f], split[freezeAt-1]) {
				t.Errorf("frozen from frame %d, frame %d drew %v; frame %d drew %v", freezeAt, f, split[f], freezeAt-1, split[freezeAt-1])
			}
		}
	}
	path := examples("2d-lb-4.eqc")
	run(goeq.Options{Config: path})
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	run(goeq.Options{Server: startAppServer(t, path).addr})
}

// An application switches a view to stereo from a frame on and back to
// mono (as eqPly's g): from then its destinations show both eyes, as
// anaglyph, frame for frame as the reference renders them with the same
// switches, and as the reference of a config whose view is stereo from
// the start renders them; also when the application drives a running
// eqserver.
func TestSetViewModeSwitchesFromAFrameOn(t *testing.T) {
	const frames = 6
	stereoFrame := func(f int) bool { return f == 2 || f == 3 }
	text, err := os.ReadFile(examples("2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	stereo := strings.Replace(string(text), "observer 0", "observer 0\n            mode STEREO", 1)
	if stereo == string(text) {
		t.Fatal("2d-lb-4.eqc changed: the test's edit of it does not apply")
	}
	run := func(opt goeq.Options, switches bool) string {
		out := t.TempDir()
		opt.OutDir, opt.InitData = out, squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if switches {
			if got := cfg.Views(); len(got) != 1 {
				t.Fatalf("views %q, want one", got)
			}
			if err := cfg.SetViewMode(1, goeq.Stereo); err == nil {
				t.Error("SetViewMode took view 1 of 1")
			}
		}
		for i := 0; i < frames && err == nil; i++ {
			switch {
			case switches && i == 2:
				err = cfg.SetViewMode(0, goeq.Stereo)
			case switches && i == 4:
				err = cfg.SetViewMode(0, goeq.Mono)
			}
			if err == nil {
				_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
			}
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return out
	}
	compare := func(got, want string, f int) {
		t.Helper()
		name := fmt.Sprintf("dest-%06d.png", f)
		d, err := imagecmp.CompareFiles(filepath.Join(got, name), filepath.Join(want, name), 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("frame %d against %s: %s", f, want, d)
		}
	}
	path := examples("2d-lb-4.eqc")
	want := run(goeq.Options{Config: path, Reference: true}, true)
	configured := run(goeq.Options{ConfigText: stereo, Reference: true}, false)
	got := run(goeq.Options{Config: path}, true)
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	onServer := run(goeq.Options{Server: startAppServer(t, path).addr}, true)
	for f := 0; f < frames; f++ {
		compare(got, want, f)
		compare(onServer, want, f)
		if stereoFrame(f) {
			compare(got, configured, f)
		}
	}
}

// A renderer's readback (Reader) that fails, or gives back pixels of
// another size, ends the run with an error that says so, at once. Before,
// the source's frame finished without its error, and the destination
// waited for the part until the frame timeout, whose error named only
// the wait. So does an assembly (Assembler) that fails, its frame and
// channel said once.
func TestAFailedReadbackOrAssemblyEndsTheRunWithItsError(t *testing.T) {
	for _, c := range []struct {
		init squareInit
		want string
	}{
		{squareInit{Scale: 1, Hooks: true, BadReadAt: 2}, "the renderer read back 3 bytes of colour for"},
		{squareInit{Scale: 1, Hooks: true, BadReadAt: 2, BadReadError: true}, "the renderer's readback: the post-process failed"},
		{squareInit{Scale: 1, Hooks: true, BadAssembleAt: 2}, "frame 2: channel dest: assemble of compound 0: the renderer's assembly: the border would not draw"},
	} {
		// a frame timeout the run must not reach: the error is the
		// renderer's, not the wait's
		cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), InitData: c.init, FrameTimeout: 90 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 50 && err == nil; i++ {
			if _, err = cfg.StartFrame(camera{Frame: i}); err == nil {
				err = cfg.FinishFrame()
			}
		}
		_, xerr := cfg.Exit()
		if err == nil || !strings.Contains(err.Error(), "frame 2: channel ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("a renderer's bad readback or assembly: %v (exit: %v); want it to say %q", err, xerr, c.want)
		}
	}
}

// An application that calls the API out of turn gets errors, not a
// panic or a dead run: a frame started after Exit (it panicked, sending on
// the closed frame channel), and a head with a value that is not a number
// (it reached the frusta, whose encoding then failed and ended the run as
// if the destination's node had died), and events waited for after Exit
// (nothing and no error, at once: an event loop spun). A renderer that
// panics ends the run with an error that names its pipe.
func TestCallsOutOfTurnAreRefused(t *testing.T) {
	// a negative timeout was taken for the default
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), FrameTimeout: -time.Second}); err == nil || !strings.Contains(err.Error(), "FrameTimeout -1s") {
		t.Errorf("a negative frame timeout: %v", err)
	}
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), InitTimeout: -time.Second}); err == nil || !strings.Contains(err.Error(), "InitTimeout -1s") {
		t.Errorf("a negative init timeout: %v", err)
	}
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), Liveness: -time.Second}); err == nil || !strings.Contains(err.Error(), "Liveness -1s") {
		t.Errorf("a negative liveness: %v", err)
	}
	if _, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), Relaunch: -1}); err == nil || !strings.Contains(err.Error(), "Relaunch -1") {
		t.Errorf("negative relaunches: %v", err)
	}
	// a renderer that panics ends the run with an error naming its pipe
	// (an unnamed pipe was "pipe :")
	panics, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("one-window.eqc"), InitData: squareInit{Scale: 1, PanicAt: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// the failure comes back a frame or more later, as the frames in
	// flight finish: three frames were not always enough
	for i := 0; i < 50 && err == nil; i++ {
		if _, err = panics.StartFrame(camera{Frame: i}); err == nil {
			err = panics.FinishFrame()
		}
	}
	// and says where the panic happened, which its value does not
	panicked := regexp.MustCompile(`pipe 1 of node app: panic: the square came apart \(in github\.com/goeq/goeq_test\.\(\*square\)\.Draw at \S+/goeq_test\.go:\d+\)`)
	// a setting for a next frame that will not come is refused, with why
	// (they were taken, and nothing came of them)
	if berr := panics.Broadcast(1); berr == nil || !panicked.MatchString(berr.Error()) {
		t.Errorf("Broadcast after the run failed: %v", berr)
	}
	if _, xerr := panics.Exit(); err == nil || xerr == nil || !panicked.MatchString(err.Error()) {
		t.Errorf("a renderer's panic: %v (exit: %v); want it to match %s", err, xerr, panicked)
	}
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), InitData: squareInit{Scale: 1}})
	if err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	for _, head := range []goeq.Mat4{{0: nan, 5: 1, 10: 1, 15: 1}, {0: 1, 5: 1, 10: 1, 12: float32(math.Inf(1)), 15: 1}} {
		if err := cfg.SetHead(0, head, 0); err == nil || !strings.Contains(err.Error(), "matrix has") {
			t.Errorf("SetHead(%v): %v", head, err)
		}
	}
	if err := cfg.SetHead(0, goeq.Identity, math.NaN()); err == nil {
		t.Error("SetHead took an eye base of NaN")
	}
	for i := 0; i < 3; i++ {
		if _, err := cfg.StartFrame(camera{Frame: i}); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	if sum, err := cfg.Exit(); err != nil || sum.Frames != 3 {
		t.Fatalf("exit: %v, %+v", err, sum)
	}
	if _, err := cfg.StartFrame(camera{Frame: 3}); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("a frame after Exit: %v", err)
	}
	if _, _, err := cfg.Refine(); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("a refined frame after Exit: %v", err)
	}
	if sum, err := cfg.Exit(); err != nil || sum.Frames != 3 {
		t.Errorf("Exit again: %v, %+v", err, sum)
	}
	shots := t.TempDir() + "/shots"
	for what, err := range map[string]error{
		"Screenshot":     cfg.Screenshot(shots),
		"Broadcast":      cfg.Broadcast("late"),
		"UseLayoutIndex": cfg.UseLayoutIndex(0),
		"SetViewMode":    cfg.SetViewMode(0, goeq.Stereo),
		"SetHead":        cfg.SetHead(0, goeq.Identity, 0),
	} {
		if err == nil || !strings.Contains(err.Error(), "exited") {
			t.Errorf("%s after Exit: %v; want it refused", what, err)
		}
	}
	if _, err := os.Stat(shots); !os.IsNotExist(err) {
		t.Errorf("a refused screenshot made its folder: %v", err)
	}
	// an event loop learns the run is over rather than spin on nothing
	if evs, err := cfg.WaitEvents(context.Background()); err == nil || len(evs) > 0 {
		t.Errorf("WaitEvents after Exit: %v, %v", evs, err)
	}
}

// StartFrame waits as FinishFrame does: an application that never calls
// FinishFrame has at most the config's latency of frames ahead of the one
// it starts, where before every frame it started queued (with its data)
// without bound, hundreds of thousands in a few seconds.
func TestStartFrameHoldsAnApplicationToTheFramesPace(t *testing.T) {
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), InitData: squareInit{Scale: 1}})
	if err != nil {
		t.Fatal(err)
	}
	latency := cfg.Latency()
	for i := 0; i < 12; i++ {
		f, err := cfg.StartFrame(camera{Frame: i})
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if done := cfg.LastFrameStats().Frame; f > latency && done < f-latency-1 {
			t.Errorf("frame %d started with frame %d the last complete: more than the latency (%d) ahead", f, done, latency)
		}
	}
	if _, err := cfg.Exit(); err != nil {
		t.Fatal(err)
	}
}

// An eye decomposition shown mono (the corpus' 3-window.EYE.anaglyph.eqc,
// whose compounds draw only the left and the right eye) shows the mono
// picture, drawn by its destination, not an empty window: frame for frame
// as the reference draws it, and back to the eyes once stereo again.
func TestAnEyeDecompositionShownMonoIsDrawn(t *testing.T) {
	const frames = 6
	run := func(opt goeq.Options) string {
		out := t.TempDir()
		opt.OutDir, opt.InitData, opt.Local = out, squareInit{Scale: 1.4}, true
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < frames && err == nil; i++ {
			switch i {
			case 2:
				err = cfg.SetViewMode(0, goeq.Mono)
			case 4:
				err = cfg.SetViewMode(0, goeq.Stereo)
			}
			if err == nil {
				_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
			}
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return out
	}
	path := filepath.Join("..", "shared", "eqc-corpus", "3-window.EYE.anaglyph.eqc")
	want := run(goeq.Options{Config: path, Reference: true})
	got := run(goeq.Options{Config: path})
	sameFrames(t, got, want, "destination", frames)
}

// A destination that draws but never clears (omegalib's generated
// configs leave the clear to their application) shows its two eyes drawn
// over each other in passive stereo on a window without stereo buffers:
// the reference cleared before each eye and showed the right eye alone.
func TestAnUnclearedDestinationMatchesItsReference(t *testing.T) {
	const frames = 4
	const text = `server { config {
    appNode { pipe { window { viewport [ 0 0 240 160 ] attributes { hint_drawable FBO } channel { name "tile" } } } }
    layout { view { mode STEREO } }
    canvas { layout 0 wall {} segment { channel "tile" } }
    compound { channel ( view 0 segment 0 ) task [ DRAW ] eye [ LEFT RIGHT ] attributes { stereo_mode PASSIVE } }
} }`
	run := func(reference bool) string {
		out := t.TempDir()
		cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: text, OutDir: out, Reference: reference,
			InitData: squareInit{Scale: 0.8}, Local: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < frames && err == nil; i++ {
			_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return out
	}
	sameFrames(t, run(false), run(true), "tile", frames)
}

// sameFrames requires the first frames images of channel in folder got to
// equal those in want, within the exact tolerance.
func sameFrames(t *testing.T, got, want, channel string, frames int) {
	t.Helper()
	for f := 0; f < frames; f++ {
		name := fmt.Sprintf("%s-%06d.png", channel, f)
		d, err := imagecmp.CompareFiles(filepath.Join(got, name), filepath.Join(want, name), 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("frame %d: %s", f, d)
		}
	}
}

// Every draw knows the config's view it is for (the one its destination
// shows): on two-layouts.eqc's halves, the two sources of the left view
// draw for view 1, the destination's own draw of the right view for view
// 2, and nothing draws for the whole view (0), which is not shown.
func TestDrawsKnowTheirView(t *testing.T) {
	record := t.TempDir()
	script := func(cfg *goeq.Config, frame int) error {
		if frame == 0 {
			if got := cfg.Views(); !slices.Equal(got, []string{"", "left", "right"}) {
				return fmt.Errorf("views %q", got)
			}
			return cfg.UseLayout("halves")
		}
		return nil
	}
	runScript(t, goeq.Options{Config: examples("two-layouts.eqc")}, 3, squareInit{Scale: 1.4, Record: record}, script)
	want := map[string]int{"n1.p0.w0.c0": 1, "n1.p1.w0.c0": 1, "n0.p0.w0.c0/v1.1s0.0": 2}
	files, err := filepath.Glob(filepath.Join(record, "draw-*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		channel, err := url.PathUnescape(strings.TrimPrefix(filepath.Base(f), "draw-"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var d drawn
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatal(err)
			}
			if v, ok := want[channel]; !ok || d.ViewIndex != v {
				t.Errorf("channel %s drew frame %d for view %d; want %v (known: %v)", channel, d.Frame, d.ViewIndex, v, ok)
			}
		}
		seen[channel] = true
	}
	for channel := range want {
		if !seen[channel] {
			t.Errorf("channel %s drew nothing", channel)
		}
	}
}

// Screenshot writes the next frame's destination image into a folder,
// in a run that writes no other image and beside one that does, in
// process and on a running eqserver; it is the frame the reference
// renders.
func TestScreenshotWritesTheNextFrame(t *testing.T) {
	const frames, shotAt = 5, 2
	path := examples("2d-lb-4.eqc")
	run := func(opt goeq.Options) string {
		shots := filepath.Join(t.TempDir(), "shots")
		opt.InitData = squareInit{Scale: 1.4}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Screenshot(""); err == nil {
			t.Error("a screenshot into no folder was taken")
		}
		for i := 0; i < frames && err == nil; i++ {
			if i == shotAt {
				err = cfg.Screenshot(shots)
			}
			if err == nil {
				_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
			}
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return shots
	}
	ref := t.TempDir()
	run(goeq.Options{Config: path, Reference: true, OutDir: ref})
	out := t.TempDir()
	alone := run(goeq.Options{Config: path})
	beside := run(goeq.Options{Config: path, OutDir: out})
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	onServer := run(goeq.Options{Server: startAppServer(t, path).addr})
	name := fmt.Sprintf("dest-%06d.png", shotAt)
	for _, shots := range []string{alone, beside, onServer} {
		files, _ := filepath.Glob(filepath.Join(shots, "*"))
		if len(files) != 1 || filepath.Base(files[0]) != name {
			t.Errorf("%s holds %q, want %s alone", shots, files, name)
			continue
		}
		d, err := imagecmp.CompareFiles(files[0], filepath.Join(ref, name), 2)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > 0.0002 {
			t.Errorf("%s: %s", files[0], d)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*.png")); len(files) != frames {
		t.Errorf("with OutDir too, %d images there, want every frame's %d", len(files), frames)
	}
}

// A screenshot that cannot be written (here a folder stands where its
// file goes; a full disk does the same) is reported, and the session goes
// on, where it used to fail the frame and end the run: the frames a run
// writes into OutDir must all be written, but a screenshot is the user's
// to take again.
func TestAScreenshotThatCannotBeWrittenLeavesTheRunGoing(t *testing.T) {
	const frames, shotAt = 5, 2
	shots := filepath.Join(t.TempDir(), "shots")
	blocked := filepath.Join(shots, fmt.Sprintf("dest-%06d.png", shotAt))
	if err := os.MkdirAll(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	var log logging.Buffer
	out := t.TempDir()
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), OutDir: out,
		InitData: squareInit{Scale: 1.4}, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < frames && err == nil; i++ {
		if i == shotAt {
			err = cfg.Screenshot(shots)
		}
		if err == nil {
			_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
		}
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil || sum.Frames != frames {
		t.Fatalf("run: %v; exit: %v; %+v frames done, want %d", err, exitErr, sum, frames)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*.png")); len(files) != frames || len(sum.Written) != frames {
		t.Errorf("%d images in OutDir, %d listed written, want every frame's %d", len(files), len(sum.Written), frames)
	}
	text := log.String()
	if !strings.Contains(text, "level=WARN") || !strings.Contains(text, "no screenshot: writing "+blocked) {
		t.Errorf("the log says nothing of the screenshot not written:\n%s", text)
	}
}

// An application whose logger leaves out INFO is not shown its render
// clients' INFO either: they are launched to write from the lowest level
// that logger writes (eqserver's --log-level does the same, and
// TestLogLevelReachesTheClients shows what is left out).
func TestAQuietLogQuietsTheClients(t *testing.T) {
	var log logging.Buffer
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"),
		InitData: squareInit{Scale: 1}, Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	// this run's clients are the only ones told so (another test's may
	// still be ending)
	exe, _ := os.Executable()
	quiet := 0
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if strings.HasPrefix(string(cmdline), exe+"\x00") && strings.Contains(string(cmdline), "--goeq-client") &&
			strings.Contains(string(cmdline), "\x00--log-level\x00WARN") {
			quiet++
		}
	}
	if _, err = cfg.StartFrame(camera{Frame: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Exit(); err != nil {
		t.Fatal(err)
	}
	if quiet != 3 {
		t.Errorf("%d render clients told to log from WARN, want the run's 3", quiet)
	}
	if strings.Contains(log.String(), "level=INFO") {
		t.Errorf("INFO records in a WARN logger:\n%s", log.String())
	}
}

// Renderers send the application events (as Equalizer's render nodes send
// config events): every draw of frame 2 reports itself, from the node and
// pipe it runs on, in process and on a running eqserver, with the time it
// was sent; an event past the bound is refused with an error.
func TestRenderersSendTheApplicationEvents(t *testing.T) {
	const frames, report = 4, 2
	path := examples("2d-lb-4.eqc")
	// 2d-lb-4's sources: node render1 has gpu1 and gpu2, render2 gpu3 and gpu4
	want := map[string]string{"n1.p0.w0.c0": "render1/gpu1", "n1.p1.w0.c0": "render1/gpu2", "n2.p0.w0.c0": "render2/gpu3", "n2.p1.w0.c0": "render2/gpu4"}
	run := func(opt goeq.Options) {
		opt.OutDir, opt.InitData = t.TempDir(), squareInit{Scale: 1.4, Report: report}
		started := time.Now()
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < frames && err == nil; i++ {
			_, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)})
		}
		got := map[string]string{}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for err == nil && len(got) < len(want) {
			var evs []goeq.Event
			if evs, err = cfg.WaitEvents(ctx); err != nil {
				break
			}
			for _, ev := range evs {
				var r drawReport
				if ev.Kind != goeq.PipeEvent {
					continue
				}
				if err := ev.Decode(&r); err != nil {
					t.Fatal(err)
				}
				if r.Frame != report || !r.BigRefused {
					t.Errorf("%s/%s reported %+v; want frame %d, the big event refused", ev.Node, ev.Pipe, r, report)
				}
				// when it was sent, on this machine's clock
				if ev.Time.Before(started) || ev.Time.After(time.Now()) {
					t.Errorf("%s/%s's event has the time %v, not during the run (from %v)", ev.Node, ev.Pipe, ev.Time, started)
				}
				got[r.Channel] = ev.Node + "/" + ev.Pipe
			}
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v (events so far: %v)", err, exitErr, got)
		}
		if !maps.Equal(got, want) {
			t.Errorf("reports by channel %v, want %v", got, want)
		}
	}
	run(goeq.Options{Config: path})
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	run(goeq.Options{Server: startAppServer(t, path).addr})
}

// multisampleConfig is a 2D load-balanced config of a destination and two
// sources on other nodes, every window w x h with the attribute line
// attrs (planes_samples, or nothing).
func multisampleConfig(w, h int, attrs string) string {
	window := func(name string) string {
		return fmt.Sprintf("window { name %q viewport [ 0 0 %d %d ] attributes { hint_drawable FBO %s } channel { name %q } }", name, w, h, attrs, name)
	}
	return fmt.Sprintf(`config {
    latency 1
    appNode { pipe { %s } }
    node { host "localhost" pipe { %s } }
    node { host "localhost" pipe { %s } }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "dest" } }
    compound {
        channel ( segment 0 view 0 )
        load_equalizer {}
        compound { }
        compound { channel "src1" outputframe {} }
        compound { channel "src2" outputframe {} }
        inputframe { name "frame.src1" }
        inputframe { name "frame.src2" }
    }
}
`, window("dest"), window("src1"), window("src2"))
}

// A window's planes_samples antialiases its draws, as Equalizer's
// multisampled windows do: the turning square, decomposed over a
// destination and two sources, matches the reference (rendered whole,
// multisampled alike); and where the multisampled frames differ from the
// single-sampled ones (the edges), they lie much nearer to the same frames
// rendered at twice the size and averaged down on the CPU (supersampling,
// a different path).
func TestMultisampledWindowsAntialias(t *testing.T) {
	const w, h, frames = 320, 240, 4
	run := func(text string, reference bool) []string {
		return runScript(t, goeq.Options{ConfigText: text, Reference: reference}, frames, squareInit{Scale: 1.4}, nil)
	}
	multi := run(multisampleConfig(w, h, "planes_samples 4"), false)
	compareRuns(t, multi, run(multisampleConfig(w, h, "planes_samples 4"), true))
	single := run(multisampleConfig(w, h, ""), false)
	super := run(multisampleConfig(2*w, 2*h, ""), false)
	edged := 0
	for i := range multi {
		m, s, sup := loadPNG(t, multi[i]), loadPNG(t, single[i]), loadPNG(t, super[i])
		want := imagecmp.Halve(sup)
		errMulti, errSingle, edges := 0, 0, 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if m.NRGBAAt(x, y) == s.NRGBAAt(x, y) {
					continue
				}
				edges++
				errMulti += difference(m.NRGBAAt(x, y), want.NRGBAAt(x, y))
				errSingle += difference(s.NRGBAAt(x, y), want.NRGBAAt(x, y))
			}
		}
		t.Logf("%s: %d pixels antialiased; their difference from the supersampled frame: %d multisampled, %d single-sampled", filepath.Base(multi[i]), edges, errMulti, errSingle)
		if edges == 0 {
			continue // edges on pixel borders
		}
		edged++
		if 10*errMulti > 6*errSingle {
			t.Errorf("%s: %d pixels antialiased, but their difference from the supersampled frame is %d multisampled against %d single-sampled", filepath.Base(multi[i]), edges, errMulti, errSingle)
		}
	}
	if edged < frames-1 {
		t.Errorf("%d of %d frames antialiased", edged, frames)
	}
}

func loadPNG(t *testing.T, path string) *image.NRGBA {
	t.Helper()
	im, err := imagecmp.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if im.Bounds().Min != (image.Point{}) {
		t.Fatalf("%s starts at %v", path, im.Bounds().Min)
	}
	return im
}

// difference is the sum of the absolute differences of two colours'
// channels.
func difference(a, b color.NRGBA) int {
	return abs(int(a.R)-int(b.R)) + abs(int(a.G)-int(b.G)) + abs(int(a.B)-int(b.B))
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// An application's parallel projection (DrawContext.Ortho and OrthoView,
// eqPly's o) decomposes as the perspective one does, shows the square at
// its size on the wall whatever its distance, and puts the stereo eyes'
// pictures together on the wall's plane and apart off it.
func TestOrthoProjection(t *testing.T) {
	path := examples("2d-lb-4.eqc") // 640x360 on the default wall, 1.6 m by 1 m, 1 m ahead
	// frame 3 of the square (unturned), scaled to 0.5 m: the load
	// equalizer has split the frame by then
	const frames = 4
	run := func(init squareInit, stereo, reference bool) *image.NRGBA {
		t.Helper()
		init.Scale = 0.5
		out := t.TempDir()
		cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: path, Reference: reference, OutDir: out, InitData: init})
		if err != nil {
			t.Fatal(err)
		}
		if stereo {
			err = cfg.SetViewMode(0, goeq.Stereo)
		}
		for i := 0; i < frames && err == nil; i++ {
			_, err = cfg.StartFrame(camera{Frame: i})
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return loadPNG(t, filepath.Join(out, fmt.Sprintf("dest-%06d.png", frames-1)))
	}
	same := func(a, b *image.NRGBA) bool {
		d, err := imagecmp.Compare(a, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		return d.BadFraction() <= 0.0002
	}
	// width is how many pixels of the middle row differ from the corner's
	width := func(im *image.NRGBA) int {
		bg, n := im.NRGBAAt(0, 0), 0
		for x := 0; x < im.Bounds().Dx(); x++ {
			if im.NRGBAAt(x, im.Bounds().Dy()/2) != bg {
				n++
			}
		}
		return n
	}

	ortho := run(squareInit{Ortho: true}, false, false)
	if ref := run(squareInit{Ortho: true}, false, true); !same(ortho, ref) {
		t.Error("the decomposed ortho frame differs from its reference")
	}
	perspective := run(squareInit{}, false, false)
	if same(ortho, perspective) {
		t.Fatal("the ortho frame is the perspective one")
	}
	// 0.5 m of the wall's 1.6 m over 640 pixels, at 2 m as at 4 m
	if w := width(ortho); w < 198 || w > 202 {
		t.Errorf("ortho square %d pixels wide, want 200", w)
	}
	if far := run(squareInit{Ortho: true, Depth: 4}, false, false); !same(ortho, far) {
		t.Error("ortho: the square 4 m away differs from the square 2 m away")
	}
	if w := width(perspective); w < 98 || w > 102 {
		t.Errorf("perspective square %d pixels wide, want 100 (half, at twice the wall's distance)", w)
	}

	// stereo (anaglyph: red from the left eye, the rest from the right):
	// on the wall's plane both eyes see the mono picture; 2 m away each
	// sees it shifted by half the eye base over its depth past the wall
	onWall := run(squareInit{Ortho: true, Depth: 1}, false, false)
	if st := run(squareInit{Ortho: true, Depth: 1}, true, false); !same(st, onWall) {
		t.Error("ortho stereo on the wall's plane differs from mono")
	}
	st := run(squareInit{Ortho: true}, true, false)
	if same(st, ortho) {
		t.Error("ortho stereo 2 m away has no parallax")
	}
	if ref := run(squareInit{Ortho: true}, true, true); !same(st, ref) {
		t.Error("the decomposed ortho stereo frame differs from its reference")
	}
	// the left eye's square, in red, ends 0.025 m (10 pixels) left of
	// the mono one: behind the wall, x' = x + (1 - depth) * 0.025 (the
	// right edge, where the square is reddest)
	row := st.Bounds().Dy() / 2
	redTo, monoTo := -1, -1
	for x := 0; x < st.Bounds().Dx(); x++ {
		if st.NRGBAAt(x, row).R != st.NRGBAAt(0, row).R {
			redTo = x
		}
		if ortho.NRGBAAt(x, row) != ortho.NRGBAAt(0, row) {
			monoTo = x
		}
	}
	if shift := redTo - monoTo; shift < -11 || shift > -9 {
		t.Errorf("the left eye's square ends %d pixels from the mono one's, want -10", shift)
	}
}

// Refine refines the last frame while the application is idle (eqPly's
// idle antialiasing): MaxRefineSamples frames of the same data, each
// offset by a subpixel sample, every destination showing their average.
// Decomposed, each refined frame matches the reference's (rendered whole,
// refined alike); the last is much nearer to the frame rendered at four
// times the size and averaged down on the CPU (supersampling, another
// path) than the unrefined frame is; and a changed head starts the
// average over.
func TestRefineAntialiasesWhileIdle(t *testing.T) {
	const w, h = 320, 240
	view := camera{Frame: 0, Angle: 0.7} // edges at an angle to the pixels
	// run starts the view, refines it the given times (all of them when
	// below zero), then calls then
	run := func(opt goeq.Options, refine int, then func(*goeq.Config) error) []string {
		t.Helper()
		opt.OutDir, opt.InitData = t.TempDir(), squareInit{Scale: 1.4, Refined: true}
		cfg, err := goeq.Start(context.Background(), turningSquare{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := cfg.Refine(); ok || err != nil {
			t.Errorf("Refine before any frame: %v, %v; want nothing started", ok, err)
		}
		_, err = cfg.StartFrame(view)
		for i := 0; i != refine && err == nil; i++ {
			var ok bool
			var frame int
			if frame, ok, err = cfg.Refine(); !ok {
				if i != goeq.MaxRefineSamples {
					t.Errorf("Refine stopped after %d frames, want %d", i, goeq.MaxRefineSamples)
				}
				break
			} else if frame != i+1 {
				t.Errorf("refined frame %d numbered %d", i+1, frame)
			}
		}
		if err == nil && then != nil {
			err = then(cfg)
		}
		sum, exitErr := cfg.Exit()
		if err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		return sum.Written
	}
	text := multisampleConfig(w, h, "")
	refined := run(goeq.Options{ConfigText: text}, -1, nil)
	want := run(goeq.Options{ConfigText: text, Reference: true}, -1, nil)
	if len(refined) != 1+goeq.MaxRefineSamples || len(want) != len(refined) {
		t.Fatalf("%d and %d images (decomposed, reference), want %d", len(refined), len(want), 1+goeq.MaxRefineSamples)
	}
	for i := range refined {
		if d, err := imagecmp.CompareFiles(refined[i], want[i], 2); err != nil || d.BadFraction() > 0.0002 {
			t.Errorf("%s against the reference: %v %v", filepath.Base(refined[i]), d, err)
		}
	}
	// an application driving a running eqserver refines alike
	path := filepath.Join(t.TempDir(), "refine.eqc")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	srv := startAppServer(t, path)
	onServer := run(goeq.Options{Server: srv.addr}, -1, nil)
	srv.endsWithTheRun(t)
	for i := range onServer {
		if d, err := imagecmp.CompareFiles(onServer[i], refined[i], 2); err != nil || d.BadFraction() > 0.0002 {
			t.Errorf("%s through eqserver against the run in process: %v %v", filepath.Base(onServer[i]), d, err)
		}
	}
	super := imagecmp.Halve(imagecmp.Halve(loadPNG(t, run(goeq.Options{ConfigText: multisampleConfig(4*w, 4*h, "")}, 0, nil)[0])))
	single, last := loadPNG(t, refined[0]), loadPNG(t, refined[len(refined)-1])
	errLast, errSingle, edges := 0, 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if d := difference(single.NRGBAAt(x, y), super.NRGBAAt(x, y)); d > 6 {
				edges++
				errSingle += d
				errLast += difference(last.NRGBAAt(x, y), super.NRGBAAt(x, y))
			}
		}
	}
	t.Logf("%d pixels off the supersampled frame by more than 6: %d in all unrefined, %d refined", edges, errSingle, errLast)
	if edges < 100 || 10*errLast > 3*errSingle {
		t.Errorf("%d pixels off the supersampled frame: their difference is %d refined against %d unrefined", edges, errLast, errSingle)
	}

	// a head moved after the refinement starts it over: the next refined
	// frame is the first sample of the moved view, as when the head moved
	// before the frame
	moved := goeq.Translate(0.3, 0, 0)
	refineMoved := func(cfg *goeq.Config) error {
		if err := cfg.SetHead(0, moved, 0); err != nil {
			return err
		}
		if _, ok, err := cfg.Refine(); !ok || err != nil {
			return fmt.Errorf("Refine after a moved head: %v, %v", ok, err)
		}
		return nil
	}
	after := run(goeq.Options{ConfigText: text}, -1, refineMoved)
	fresh := run(goeq.Options{ConfigText: text}, 0, refineMoved)
	if d, err := imagecmp.CompareFiles(after[len(after)-1], fresh[len(fresh)-1], 2); err != nil || d.BadFraction() > 0.0002 {
		t.Errorf("the refined frame after a moved head is not the moved view's first sample: %v %v", d, err)
	}
	if d, err := imagecmp.CompareFiles(after[len(after)-1], refined[len(refined)-1], 2); err == nil && d.BadFraction() <= 0.0002 {
		t.Error("the moved head does not show: the test cannot tell")
	}
}

// A renderer that draws without depth into frames merged by depth (a DB
// compound) loses its whole picture in the merge. Its node says so, once
// for each channel, naming the cause; drawing with depth, it says nothing
// and the frames match the reference. Through a running eqserver, whose
// output the render clients share.
func TestDrawingWithoutDepthIntoADepthMergeIsReported(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	path := examples("db-lb-4.eqc") // four sources; the destination draws nothing itself
	const warning = "has colour drawn but no depth"
	run := func(depthTest bool) ([]string, string) {
		srv := startAppServer(t, path)
		images := runScript(t, goeq.Options{Server: srv.addr}, 4, squareInit{Scale: 1.4, DepthTest: depthTest}, nil)
		srv.endsWithTheRun(t)
		return images, srv.log.String()
	}
	_, log := run(false)
	for _, src := range []string{"src1", "src2", "src3", "src4"} {
		n := 0
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, warning) && strings.Contains(line, src) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d warnings for %s drawing without depth, want 1:\n%s", n, src, log)
		}
	}
	images, log := run(true)
	if strings.Contains(log, warning) {
		t.Errorf("a warning for a renderer that draws with depth:\n%s", log)
	}
	compareRuns(t, images, runScript(t, goeq.Options{Config: path, Reference: true}, 4, squareInit{Scale: 1.4, DepthTest: true}, nil))
}

// A GL error the application's Draw leaves (here an enum no GL has,
// never checked) is reported once, naming the channel and the call, and
// cleared. It used to stay pending until goeq's next check and fail one
// of goeq's own passes in goeq's name: a refined frame's accumulation
// ended the run with "glutil: GL error 0x500".
func TestAGLErrorADrawLeavesIsReportedNotGoeqs(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	srv := startAppServer(t, examples("one-window.eqc"))
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Server: srv.addr, OutDir: t.TempDir(),
		InitData: squareInit{Scale: 1.4, Refined: true, GLError: true}})
	if err != nil {
		t.Fatal(err)
	}
	const refined = 4
	_, err = cfg.StartFrame(camera{Frame: 0, Angle: 0.7})
	for i := 0; i < refined && err == nil; i++ {
		_, _, err = cfg.Refine()
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil || sum.Frames != 1+refined {
		t.Fatalf("run: %v; exit: %v; %d frames, want %d", err, exitErr, sum.Frames, 1+refined)
	}
	srv.endsWithTheRun(t)
	log := srv.log.String()
	if n := strings.Count(log, "left GL_INVALID_ENUM pending"); n != 1 || !strings.Contains(log, "the renderer's Draw (frame 0) left GL_INVALID_ENUM pending") {
		t.Errorf("%d reports of the Draw's GL error, want 1 naming it:\n%s", n, log)
	}
}

// A renderer's Exit that takes seconds (freeing much, writing files)
// runs to its end on every pipe before the run's Exit returns: the render
// clients' processes were killed a second after the run's stop, and the
// application's code with them. One that does not return is cut off
// after a bound, with a warning (probed by hand: 30 s).
func TestARenderersSlowExitRunsToItsEnd(t *testing.T) {
	record := t.TempDir()
	runScript(t, goeq.Options{Config: examples("2d-lb-4.eqc")}, 2, squareInit{Scale: 1.4, Record: record, ExitDelay: 2500 * time.Millisecond}, nil)
	ended, _ := filepath.Glob(filepath.Join(record, "exit-*"))
	if len(ended) != 5 {
		t.Errorf("%d of the 5 pipes' renderers ended their Exit: %v", len(ended), ended)
	}

	// a run whose context the application cancels stops at once: its
	// clients get the second they had, not the renderers' Exit
	record = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cfg, err := goeq.Start(ctx, turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"),
		InitData: squareInit{Scale: 1.4, Record: record, ExitDelay: 8 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.StartFrame(camera{}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.FinishAllFrames(); err != nil {
		t.Fatal(err)
	}
	cancel()
	cfg.Exit()
	if ended, _ := filepath.Glob(filepath.Join(record, "exit-*")); len(ended) != 0 {
		t.Errorf("a cancelled run waited for its renderers' Exit of 8 s: %v", ended)
	}
}

// A run that fails mid-frame (a renderer panicked in a draw of frame 2)
// stops clients still in a draw (of frame 1, on one slow pipe): they end
// it and run their renderers' Exit. They were killed a second after the
// stop, said to be in "a draw that did not return" (the corpus'
// stress.eqc with a destination's node killed: its 4 other render
// processes on 2 cores took 1.1 to 1.5 s to end).
func TestAFailedRunLetsADrawInProgressEnd(t *testing.T) {
	record := t.TempDir()
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"),
		InitData: squareInit{Scale: 1.4, Record: record, ExitDelay: time.Millisecond, SlowPipe: "gpu1", SlowDraw: 1500 * time.Millisecond, SlowAt: 1, PanicAt: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20 && err == nil; i++ {
		if _, err = cfg.StartFrame(camera{Frame: i}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	if _, exitErr := cfg.Exit(); err == nil || !strings.Contains(err.Error(), "panic: the square came apart") {
		t.Fatalf("the run's end: %v (exit: %v)", err, exitErr)
	}
	if _, err := os.Stat(filepath.Join(record, "exit-render1-gpu1")); err != nil {
		t.Errorf("the renderer in a draw as the run failed did not run its Exit: %v", err)
	}
}

// A renderer's Exit that panics is said in the log, naming where, and
// the pipe's GL objects go all the same. It was swallowed.
func TestAPanicInTheRenderersExitIsSaid(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	srv := startAppServer(t, examples("one-window.eqc"))
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Server: srv.addr, InitData: squareInit{Scale: 1.4, PanicInExit: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.StartFrame(camera{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Exit(); err != nil {
		t.Fatal(err)
	}
	srv.endsWithTheRun(t)
	said := regexp.MustCompile(`pipe 1 of node app: panic: the square would not let go \(in github\.com/goeq/goeq_test\.\(\*square\)\.Exit at \S+/goeq_test\.go:\d+\)`)
	if log := srv.log.String(); !said.MatchString(log) {
		t.Errorf("the log does not say the renderer's Exit panicked (%s):\n%s", said, log)
	}
}

// A window with planes_stencil ON has a stencil buffer, as Equalizer's:
// the square marks it and a pass over the whole viewport paints only what
// is marked, decomposed as in the reference, multisampled too. Without
// the attribute there is none (the pass paints everything), which is
// what tells the test's two cases apart.
func TestStencilPlanes(t *testing.T) {
	const w, h = 320, 240
	run := func(attrs string, reference bool) *image.NRGBA {
		t.Helper()
		images := runScript(t, goeq.Options{ConfigText: multisampleConfig(w, h, attrs), Reference: reference}, 2, squareInit{Scale: 1.4, Stencil: true}, nil)
		return loadPNG(t, images[len(images)-1])
	}
	red := func(c color.NRGBA) bool { return c.G == 0 && c.B == 0 }
	for _, attrs := range []string{"planes_stencil ON", "planes_stencil ON planes_samples 4"} {
		got, want := run(attrs, false), run(attrs, true)
		if d, err := imagecmp.Compare(got, want, 2); err != nil || d.BadFraction() > 0.0002 {
			t.Errorf("%s: against the reference: %v %v", attrs, d, err)
		}
		if corner, centre := got.NRGBAAt(2, 2), got.NRGBAAt(w/2, h/2); red(corner) || !red(centre) {
			t.Errorf("%s: corner %v and centre %v; want the background and the square painted red", attrs, corner, centre)
		}
	}
	if corner := run("", false).NRGBAAt(2, 2); !red(corner) {
		t.Errorf("without planes_stencil the corner is %v: a stencil buffer kept the pass off it", corner)
	}
}

// OnScreen counts the windows that show on a display: 2d-lb-4's
// destination window (its sources draw offscreen, by hint_drawable) on a
// display, none without one, and none where DISPLAY names a display that
// does not open and goeq goes on offscreen with EGL (an interactive
// application then waited for keys no window could take).
func TestOnScreenCountsTheWindowsOnADisplay(t *testing.T) {
	count := func(display string) int {
		t.Helper()
		t.Setenv("DISPLAY", display)
		t.Setenv("GOEQ_WINSYS", "auto")
		cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"), InitData: squareInit{Scale: 1}})
		if err != nil {
			t.Fatal(err)
		}
		n := cfg.OnScreen()
		if _, err = cfg.StartFrame(camera{}); err == nil {
			err = cfg.FinishFrame()
		}
		if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
			t.Fatalf("DISPLAY=%q: run: %v; exit: %v", display, err, exitErr)
		}
		return n
	}
	if n := count(xtest.Display(t, 1280, 720)); n != 1 {
		t.Errorf("on a display: %d windows on screen, want 1 (the destination's)", n)
	}
	if n := count(""); n != 0 {
		t.Errorf("headless: %d windows on screen, want 0", n)
	}
	if n := count(":1023"); n != 0 {
		t.Errorf("a DISPLAY that does not open: %d windows on screen, want 0", n)
	}
}

// Options.Stats writes the run's statistics as eqserver run --stats does:
// a record per channel and frame, which eqserver replay reads. With a
// running eqserver, Stats and HTTP are refused, saying that the server
// has its own (HTTP was left unserved without a word).
func TestStatsGoToTheFileReplayReads(t *testing.T) {
	const frames = 4
	path := filepath.Join(t.TempDir(), "stats.jsonl")
	runScript(t, goeq.Options{Config: examples("2d-lb-4.eqc"), Stats: path}, frames, squareInit{Scale: 1.4}, nil)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, cut, err := simulate.ReadStats(f)
	if err != nil || cut != "" {
		t.Fatalf("the statistics do not read as eqserver replay reads them: %v %s", err, cut)
	}
	got := map[string]int{} // frames per channel
	for _, r := range recs {
		got[r.Channel]++
	}
	if len(got) != 5 || slices.ContainsFunc(slices.Collect(maps.Values(got)), func(n int) bool { return n != frames }) {
		t.Errorf("records per channel %v; want %d for each of the config's 5", got, frames)
	}
	for _, opt := range []goeq.Options{{Server: "127.0.0.1:1", Stats: path}, {Server: "127.0.0.1:1", HTTP: "127.0.0.1:0"}, {Server: "127.0.0.1:1", Relaunch: 2}} {
		t.Setenv("GOEQ_TOKEN", "the-shared-token")
		if _, err := goeq.Start(context.Background(), turningSquare{}, opt); err == nil || !strings.Contains(err.Error(), "goes with the server in this process") {
			t.Errorf("%+v: %v; want it refused", opt, err)
		}
	}
}

// Destination windows of corpus configs resized on screen between frames
// (pixel, DB with binary swap, eye and 2D trees; wider and lower, then
// narrower and higher): each frame matches the reference resized alike.
// Probed so on 23 corpus configs with on-screen windows (DB streams and
// ranges, DPlex, monitor, subpixel, walls, caves): all matched.
func TestResizedCorpusWindowsMatchTheReference(t *testing.T) {
	disp := xtest.Display(t, 1600, 1000)
	t.Setenv("DISPLAY", disp)
	t.Setenv("GOEQ_WINSYS", "auto") // the windows on screen
	const frames = 5
	for i, name := range []string{"3-window.PIXEL.eqc", "4-window.DB.bs.eqc", "4-window.EYE.2D.eqc"} {
		path := filepath.Join("..", "shared", "eqc-corpus", name)
		m, _, err := compound.Load(path, compound.Options{Getenv: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		cfg := m.Configs[0]
		dest := cfg.Compounds[0].Channel.Window
		w, h := dest.PixelViewport.W*3/2, dest.PixelViewport.H
		if i%2 == 1 {
			w, h = dest.PixelViewport.W*2/3, dest.PixelViewport.H*5/4
		}
		t.Run(fmt.Sprintf("%s/%dx%d", name, w, h), func(t *testing.T) {
			run := func(reference bool) string {
				out := t.TempDir()
				c, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: path, Local: true, Reference: reference, OutDir: out,
					InitData: squareInit{Scale: 1.4, DepthTest: true}})
				if err != nil {
					t.Fatal(err)
				}
				for f := 0; f < frames && err == nil; f++ {
					if f == 2 {
						win := xtest.FindWindow(t, disp, "goeq "+cmp.Or(dest.Name, dest.Label()), 30*time.Second)
						xtest.Xdotool(t, disp, "windowsize", "--sync", win, fmt.Sprint(w), fmt.Sprint(h))
						err = waitForResize(c, w, h)
					}
					if err == nil {
						_, err = c.StartFrame(camera{Frame: f, Angle: 0.35 * float64(f)})
					}
					if err == nil && f == 1 {
						err = c.FinishAllFrames()
					}
				}
				if _, exitErr := c.Exit(); err != nil || exitErr != nil {
					t.Fatalf("run: %v; exit: %v", err, exitErr)
				}
				return out
			}
			got, want := run(false), run(true)
			files, _ := filepath.Glob(filepath.Join(got, "*.png"))
			resized := 0
			for _, f := range files {
				if gw, gh := pngSize(t, f); gw == w && gh == h {
					resized++
				}
				d, err := imagecmp.CompareFiles(f, filepath.Join(want, filepath.Base(f)), imagecmp.Tolerance)
				if err != nil {
					t.Fatal(err)
				}
				if !d.Matches("") {
					t.Errorf("%s: %s", filepath.Base(f), d)
				}
			}
			if resized != frames-2 {
				t.Errorf("%d of %d images are %dx%d; want the last %d", resized, len(files), w, h, frames-2)
			}
		})
	}
}

// A destination resized to far more pixels than any window of the config
// (16 times; a user maximizing a small window) gets its frames at its new
// size: from a source on another node that assembles the part of a third.
// The frames were refused as larger than any framebuffer of the config
// (4 times the largest window was allowed), on the destination's node
// and on the assembling one, the links dropped, and the run ended at the
// frame timeout.
func TestAWindowResizedFarLargerGetsItsSourcesFrames(t *testing.T) {
	disp := xtest.Display(t, 2000, 1200)
	t.Setenv("DISPLAY", disp)
	t.Setenv("GOEQ_WINSYS", "auto") // the destination's window on screen
	const text = `server { config {
    appNode { pipe { window { name "dest" viewport [ 0 0 400 300 ] channel { name "dest" } } } }
    node { connection { hostname "localhost" } pipe { window { name "src0" viewport [ 0 0 400 300 ] attributes { hint_drawable FBO } channel { name "src0" } } } }
    node { connection { hostname "localhost" } pipe { window { name "src1" viewport [ 0 0 400 300 ] attributes { hint_drawable FBO } channel { name "src1" } } } }
    layout { view { } } canvas { layout 0 wall {} segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) task [ CLEAR ASSEMBLE ]
        compound { channel "src0" task [ CLEAR ASSEMBLE READBACK ]
            compound { channel "src1" outputframe { name "f1" } } inputframe { name "f1" } outputframe { name "a0" } }
        inputframe { name "a0" } } } }`
	const frames, w, h = 4, 1800, 1100
	run := func(reference bool) string {
		out := t.TempDir()
		c, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: text, Local: true, Reference: reference, OutDir: out,
			InitData: squareInit{Scale: 1.4}, FrameTimeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for f := 0; f < frames && err == nil; f++ {
			if f == 1 {
				xtest.Xdotool(t, disp, "windowsize", "--sync", xtest.FindWindow(t, disp, "goeq dest", 30*time.Second), fmt.Sprint(w), fmt.Sprint(h))
				err = waitForResize(c, w, h)
			}
			if err == nil {
				_, err = c.StartFrame(camera{Frame: f, Angle: 0.35 * float64(f)})
			}
			if err == nil && f == 0 {
				err = c.FinishAllFrames()
			}
		}
		sum, exitErr := c.Exit()
		if err != nil || exitErr != nil {
			t.Fatalf("run: %v; exit: %v", err, exitErr)
		}
		if sum.Degraded != 0 {
			t.Errorf("%d degraded frames", sum.Degraded)
		}
		return out
	}
	got, want := run(false), run(true)
	for f := 1; f < frames; f++ {
		name := fmt.Sprintf("dest-%06d.png", f)
		if gw, gh := pngSize(t, filepath.Join(got, name)); gw != w || gh != h {
			t.Errorf("frame %d is %dx%d; want %dx%d", f, gw, gh, w, h)
		}
		d, err := imagecmp.CompareFiles(filepath.Join(got, name), filepath.Join(want, name), imagecmp.Tolerance)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Matches("") {
			t.Errorf("frame %d: %s", f, d)
		}
	}
}

// projectorsOfOneNode is a wall of two projectors side by side, each
// driven by a pipe (a GPU) of one node, as display walls are built, with
// a swap barrier across them.
const projectorsOfOneNode = `#Equalizer 1.2 ascii
config
{
    appNode
    {
        pipe { name "left" window { name "left" viewport [ 0 0 200 150 ] channel { name "left" } } }
        pipe { name "right" window { name "right" viewport [ 220 0 200 150 ] channel { name "right" } } }
    }
    observer {}
    layout { name "wall" view { observer 0 } }
    canvas
    {
        layout "wall"
        wall {}
        swapbarrier {}
        segment { channel "left" viewport [ 0 0 0.5 1 ] }
        segment { channel "right" viewport [ 0.5 0 0.5 1 ] }
    }
    compound { channel ( canvas 0 segment 0 layout 0 view 0 ) }
    compound { channel ( canvas 0 segment 1 layout 0 view 0 ) }
}
`

// The projectors of one node show each frame together: the right pipe's
// draws take 300 ms longer, and pictures of the X server's screen taken
// through the run (its framebuffer, read without GL) show both halves of
// the wall at the same frame but for the moment between the two pipes'
// swaps. Each half is told by the frame's picture written with --out.
// Before, the swap barrier held the nodes of a frame's destinations, not
// the pipes of one node: each pipe showed a frame as soon as it had it,
// and the left half showed a frame two ahead of the right's in every
// picture of the screen. The same wall with the right projector on a node
// of its own holds the server's barrier to the same (with that barrier
// off, the halves were apart in every picture too).
func TestProjectorsOfOneNodeShowEachFrameTogether(t *testing.T) {
	t.Run("two pipes of one node", func(t *testing.T) { projectorsShowFramesTogether(t, projectorsOfOneNode) })
	// the same wall with the right projector on a node of its own: the
	// server's barrier across nodes, as the screen shows it
	twoNodes := strings.Replace(projectorsOfOneNode, `
        pipe { name "right"`, `
    }
    node
    {
        name "render"
        host "localhost"
        pipe { name "right"`, 1)
	if twoNodes == projectorsOfOneNode {
		t.Fatal("the two-node edit of the wall does not apply")
	}
	t.Run("two nodes", func(t *testing.T) { projectorsShowFramesTogether(t, twoNodes) })
}

// projectorsShowFramesTogether runs a wall of two projectors, "left" and
// "right", and checks that pictures of the screen show both at one frame.
func projectorsShowFramesTogether(t *testing.T, config string) {
	cfg, fbdir, out := startOnScreen(t, config, image.Pt(440, 170), 2, squareInit{Scale: 1.4, SlowPipe: "right", SlowDraw: 300 * time.Millisecond})
	var err error
	halves := map[string]image.Rectangle{"left": image.Rect(0, 0, 200, 150), "right": image.Rect(220, 0, 420, 150)}
	stop := screenShots(fbdir, 15*time.Millisecond, halves)
	const frames = 12
	for i := 0; i < frames && err == nil; i++ {
		if _, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	shots := stop()
	if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v", err, exitErr)
	}
	frameOf := map[string]map[string]int{}
	for name := range halves {
		frameOf[name] = framesByPicture(t, out, name, frames)
	}
	together, apart := 0, []string{}
	for _, s := range shots {
		l, lok := frameOf["left"][string(s.pix["left"])]
		r, rok := frameOf["right"][string(s.pix["right"])]
		switch {
		case !lok || !rok: // before the first frame, or a window half drawn
		case l == r:
			together++
		default:
			apart = append(apart, fmt.Sprintf("%d/%d", l, r))
		}
	}
	if together+len(apart) < 20 {
		t.Fatalf("%d pictures of the screen showed known frames on both halves, of %d taken: too few to judge", together+len(apart), len(shots))
	}
	// the moment between two swaps is a few milliseconds of a frame's 300
	if share := float64(len(apart)) / float64(together+len(apart)); share > 0.15 {
		t.Errorf("the halves showed different frames (left/right) in %d of %d pictures: %v", len(apart), together+len(apart), apart)
	}
	t.Logf("%d pictures with both halves at one frame, %d apart", together, len(apart))
}

// startOnScreen starts a run of config with its windows on a private X
// screen of that size (xtest.Screens; fbdir has its framebuffer) and every
// frame written into out, and checks that that many of its windows are on
// screen. The caller exits the run.
func startOnScreen(t *testing.T, config string, screen image.Point, windows int, init squareInit) (cfg *goeq.Config, fbdir, out string) {
	t.Helper()
	fbdir, out = t.TempDir(), t.TempDir()
	t.Setenv("DISPLAY", xtest.Screens(t, fbdir, screen))
	t.Setenv("GOEQ_WINSYS", "auto") // the windows on screen
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: config, OutDir: out, InitData: init})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OnScreen() != windows {
		cfg.Exit()
		t.Fatalf("%d windows on screen, want %d", cfg.OnScreen(), windows)
	}
	return cfg, fbdir, out
}

// screenShot is a picture of parts of an X screen, by name, and when it
// was taken.
type screenShot struct {
	at  time.Time
	pix map[string][]byte
}

// screenShots takes pictures of the parts of screen 0 of an Xvfb whose
// framebuffer is in fbdir (xtest.Screens), one every so often, until stop
// is called, which returns them.
func screenShots(fbdir string, every time.Duration, parts map[string]image.Rectangle) (stop func() []screenShot) {
	var shots []screenShot
	stopping, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stopping:
				return
			case <-time.After(every):
			}
			screen, err := xtest.ScreenImage(fbdir, 0)
			if err != nil {
				continue
			}
			s := screenShot{at: time.Now(), pix: map[string][]byte{}}
			for name, r := range parts {
				s.pix[name] = imagecmp.Crop(screen, r).Pix
			}
			shots = append(shots, s)
		}
	}()
	return func() []screenShot {
		close(stopping)
		<-stopped
		return shots
	}
}

// framesByPicture maps each of a channel's pictures of frames 0 to
// frames-1, as written into out, to its frame.
func framesByPicture(t *testing.T, out, label string, frames int) map[string]int {
	t.Helper()
	frameOf := map[string]int{}
	for f := range frames {
		img, err := imagecmp.Load(filepath.Join(out, fmt.Sprintf("%s-%06d.png", label, f)))
		if err != nil {
			t.Fatal(err)
		}
		frameOf[string(img.Pix)] = f
	}
	if len(frameOf) != frames {
		t.Fatalf("%s: %d distinct pictures of %d frames: the test cannot tell the frames apart", label, len(frameOf), frames)
	}
	return frameOf
}

// timeMultiplex is a time-multiplexed (DPlex) compound: two sources of
// one node draw every other frame each, and the destination shows them in
// turn, smoothed by the framerate equalizer.
const timeMultiplex = `#Equalizer 1.2 ascii
config
{
    latency 3
    appNode
    {
        pipe { name "dest" window { name "dest" viewport [ 0 0 160 120 ] channel { name "dest" } } }
        pipe { name "even" window { viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "even" } } }
        pipe { name "odd" window { viewport [ 0 0 160 120 ] attributes { hint_drawable FBO } channel { name "odd" } } }
    }
    observer {}
    layout { view { observer 0 } }
    canvas { layout 0 wall {} segment { channel "dest" } }
    compound
    {
        channel ( segment 0 view 0 )
        framerate_equalizer {}
        compound { channel "even" phase 0 period 2 outputframe { name "frame.DPlex" } }
        compound { channel "odd" phase 1 period 2 outputframe { name "frame.DPlex" } }
        inputframe { name "frame.DPlex" }
    }
}
`

// A time multiplex shows its frames evenly spaced: two sources that take
// 120 ms a frame, each drawing every other frame, keep up with a frame
// every 60 ms, and pictures of the X server's screen taken through the
// run show each frame for about that long. Before, the framerate
// equalizer spaced the frames' starts, which cannot space their ends once
// the sources have frames queued (the application asks for frames as fast
// as the latency lets it): both sources finished a frame at the same
// moment, and the destination showed frames in pairs, the first of each
// pair for a few milliseconds (in 10 of 20 frames), as a stutter at half
// the frame rate. Equalizer's framerate equalizer throttles the
// destination window's swaps, as goeq's destination pipes now do.
func TestATimeMultiplexShowsItsFramesEvenlySpaced(t *testing.T) {
	const draw = 120 * time.Millisecond
	cfg, fbdir, out := startOnScreen(t, timeMultiplex, image.Pt(160, 120), 1, squareInit{Scale: 1.4, SlowPipe: "even odd", SlowDraw: draw})
	var err error
	stop := screenShots(fbdir, 2*time.Millisecond, map[string]image.Rectangle{"dest": image.Rect(0, 0, 160, 120)})
	const frames = 30
	for i := 0; i < frames && err == nil; i++ {
		if _, err = cfg.StartFrame(camera{Frame: i, Angle: 0.35 * float64(i)}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	if err == nil {
		err = cfg.FinishAllFrames()
	}
	shots := stop()
	if _, exitErr := cfg.Exit(); err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v", err, exitErr)
	}
	frameOf := framesByPicture(t, out, "dest", frames)
	// when each frame was first seen on the screen
	seen := map[int]time.Time{}
	for _, s := range shots {
		if f, ok := frameOf[string(s.pix["dest"])]; ok && seen[f].IsZero() {
			seen[f] = s.at
		}
	}
	// from frame 8 on, the framerate equalizer has measured the sources;
	// a frame is shown too briefly where it was not seen, or the next
	// one came within half the 60 ms
	const from, to = 8, frames - 2
	var brief, gaps []string
	for f := from; f <= to; f++ {
		next := seen[f+1]
		if !seen[f].IsZero() && !next.IsZero() {
			gaps = append(gaps, fmt.Sprint(next.Sub(seen[f]).Milliseconds()))
		}
		switch {
		case seen[f].IsZero():
			brief = append(brief, fmt.Sprintf("%d: not seen", f))
		case !next.IsZero() && next.Sub(seen[f]) < draw/4:
			brief = append(brief, fmt.Sprintf("%d: %d ms", f, next.Sub(seen[f]).Milliseconds()))
		}
	}
	t.Logf("%d pictures of the screen; ms from frame to frame: %s; frames %d to %d shown too briefly: %v", len(shots), strings.Join(gaps, " "), from, to, brief)
	if len(brief) > (to-from+1)*15/100 {
		t.Errorf("%d of frames %d to %d were shown for less than %v, or not seen: %v", len(brief), from, to, draw/4, brief)
	}
}

// aWallOfTwoLayouts is two projectors side by side, on one pipe, and two
// layouts: one view on the whole wall, and one on its left half only; and
// OFF.
const aWallOfTwoLayouts = `#Equalizer 1.2 ascii
config
{
    appNode
    {
        pipe
        {
            window { name "left" viewport [ 0 0 200 150 ] channel { name "left" } }
            window { name "right" viewport [ 220 0 200 150 ] channel { name "right" } }
        }
    }
    observer {}
    layout { name "whole" view { observer 0 } }
    layout { name "left" view { observer 0 viewport [ 0 0 0.5 1 ] } }
    canvas
    {
        layout "whole"
        layout "left"
        layout OFF
        wall {}
        segment { channel "left" viewport [ 0 0 0.5 1 ] }
        segment { channel "right" viewport [ 0.5 0 0.5 1 ] }
    }
}
`

// A window the active layout does not use goes black: the wall above
// switched to its left half's layout blanks the right projector, and
// switched back, the right one shows the frames again. Before, the right
// projector went on showing the last frame of the layout before, for as
// long as the other was used. The same holds with the right projector on
// a node of its own, which the new layout gives no work at all (the
// server sends it the frame to blank it). A click on the black projector
// is on no view, and moved half off the screen and back, it is black
// where it was uncovered. A wall whose layout is OFF goes dark on every projector.
func TestAWindowTheLayoutDoesNotUseGoesBlack(t *testing.T) {
	t.Run("one node", func(t *testing.T) { windowOutOfTheLayoutGoesBlack(t, aWallOfTwoLayouts) })
	ownNode := strings.Replace(aWallOfTwoLayouts, `
            window { name "right"`, `
        }
    }
    node
    {
        name "render"
        host "localhost"
        pipe
        {
            window { name "right"`, 1)
	if ownNode == aWallOfTwoLayouts {
		t.Fatal("the own-node edit of the wall does not apply")
	}
	t.Run("its own node", func(t *testing.T) { windowOutOfTheLayoutGoesBlack(t, ownNode) })
}

func windowOutOfTheLayoutGoesBlack(t *testing.T, config string) {
	cfg, fbdir, out := startOnScreen(t, config, image.Pt(440, 170), 2, squareInit{Scale: 1.4})
	defer cfg.Exit()
	right := image.Rect(220, 0, 420, 150)
	rightShows := func(want func(pix []byte) bool) ([]byte, bool) { return screenShows(fbdir, right, want) }
	black := isBlack
	frames := func(from, to int, layout string) {
		t.Helper()
		if err := cfg.UseLayout(layout); err != nil {
			t.Fatal(err)
		}
		if err := turnFrames(cfg, from, to); err != nil {
			t.Fatal(err)
		}
	}
	written := func(f int) []byte { return writtenPicture(t, out, "right*", f) }
	frames(0, 3, "whole")
	if pix, ok := rightShows(func(pix []byte) bool { return bytes.Equal(pix, written(3)) }); !ok || black(pix) {
		t.Fatalf("the right projector does not show frame 3 of the whole wall's layout")
	}
	frames(4, 7, "left")
	if _, ok := rightShows(black); !ok {
		t.Errorf("the right projector, which the left half's layout does not use, is not black")
	}
	// moved half off the screen and back, the half uncovered is black
	// too: the X server paints the window's background there
	id := xtest.FindWindow(t, os.Getenv("DISPLAY"), "goeq right", 10*time.Second)
	xtest.Xdotool(t, os.Getenv("DISPLAY"), "windowmove", "--sync", id, "340", "0")
	xtest.Xdotool(t, os.Getenv("DISPLAY"), "windowmove", "--sync", id, "220", "0")
	if _, ok := rightShows(black); !ok {
		t.Errorf("the black right projector, moved half off the screen and back, is not black")
	}
	// a click on it is on no view: it shows none
	xtest.Xdotool(t, os.Getenv("DISPLAY"), "mousemove", "--sync", "320", "75", "click", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for clicked := false; !clicked; {
		evs, err := cfg.WaitEvents(ctx)
		if err != nil {
			t.Fatalf("waiting for the click: %v", err)
		}
		for _, ev := range evs {
			if ev.Kind == goeq.ButtonPress {
				clicked = true
				if ev.Window != "right" || ev.ViewIndex != -1 || ev.Channel != "" {
					t.Errorf("a click on the black right projector: window %q, view %d, channel %q; want right, -1 and none", ev.Window, ev.ViewIndex, ev.Channel)
				}
			}
		}
	}
	frames(8, 9, "whole")
	if _, ok := rightShows(func(pix []byte) bool { return bytes.Equal(pix, written(9)) }); !ok {
		t.Errorf("switched back to the whole wall, the right projector does not show frame 9")
	}
	// the wall turned off: both go dark
	if err := cfg.UseCanvasLayout(0, goeq.LayoutOff); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.StartFrame(camera{Frame: 10, Angle: 3.5}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.FinishAllFrames(); err != nil {
		t.Fatal(err)
	}
	right = image.Rect(0, 0, 200, 150) // the left projector
	if _, ok := rightShows(black); !ok {
		t.Errorf("the wall's layout is OFF, and its left projector is not black")
	}
}

// A source's window on screen shows what its channel drew, as
// Equalizer's source windows do: the time multiplex above with its
// sources' windows on screen beside the destination's, where each shows
// the last frame it drew, which the destination showed as it is. Before,
// they stayed black.
func TestASourcesWindowOnScreenShowsWhatItDrew(t *testing.T) {
	config := strings.NewReplacer(`name "even" window { viewport [ 0 0 160 120 ] attributes { hint_drawable FBO }`, `name "even" window { viewport [ 180 0 160 120 ]`,
		`name "odd" window { viewport [ 0 0 160 120 ] attributes { hint_drawable FBO }`, `name "odd" window { viewport [ 360 0 160 120 ]`).Replace(timeMultiplex)
	if strings.Count(config, "hint_drawable") != 0 {
		t.Fatal("the edit of the time multiplex does not apply")
	}
	cfg, fbdir, out := startOnScreen(t, config, image.Pt(520, 120), 3, squareInit{Scale: 1.4})
	defer cfg.Exit()
	const frames = 6
	if err := turnFrames(cfg, 0, frames-1); err != nil {
		t.Fatal(err)
	}
	frameOf := framesByPicture(t, out, "dest", frames)
	for _, w := range []struct {
		name string
		at   image.Rectangle
		last int // the last frame it drew
	}{{"dest", image.Rect(0, 0, 160, 120), 5}, {"even", image.Rect(180, 0, 340, 120), 4}, {"odd", image.Rect(360, 0, 520, 120), 5}} {
		shown := -1
		for deadline := time.Now().Add(5 * time.Second); shown != w.last && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if screen, err := xtest.ScreenImage(fbdir, 0); err == nil {
				f, ok := frameOf[string(imagecmp.Crop(screen, w.at).Pix)]
				shown = map[bool]int{true: f, false: -1}[ok]
			}
		}
		if shown != w.last {
			t.Errorf("the %s window shows frame %d (-1: none), not frame %d", w.name, shown, w.last)
		}
	}
}

// A source's window whose channel only clears for the pixel parts drawn
// on it and on another window shows the part it drew, as Equalizer's
// does: 4-window.EYE.PIXEL's right eye, a compound on "right-buffer-1"
// that sends no frame, over its part of every other column. The window's
// green and blue (the anaglyph's right eye) are those of columns 0, 2,
// 4, ... of the destination in the reference render, which draws the
// whole view in one. Before, the part was drawn as scratch over the
// compound's picture, which went back to the clear after the readback:
// the window showed nothing.
func TestAPixelPartOnAWindowThatOnlyClearsShowsThere(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "shared", "eqc-corpus", "4-window.EYE.PIXEL.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	const frames = 3
	run := func(cfg *goeq.Config) {
		t.Helper()
		if err := turnFrames(cfg, 0, frames-1); err != nil {
			cfg.Exit()
			t.Fatal(err)
		}
	}
	refDir := t.TempDir()
	ref, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: string(text), OutDir: refDir, Reference: true, InitData: squareInit{Scale: 1.4}})
	if err != nil {
		t.Fatal(err)
	}
	run(ref)
	if _, err := ref.Exit(); err != nil {
		t.Fatal(err)
	}
	want, err := imagecmp.Load(filepath.Join(refDir, fmt.Sprintf("destination-%06d.png", frames-1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg, fbdir, _ := startOnScreen(t, string(text), image.Pt(820, 660), 4, squareInit{Scale: 1.4})
	defer cfg.Exit()
	run(cfg)
	// "right eye 1" is 200x250 at 350, 400 from the screen's top left
	at := image.Rect(350, 400, 550, 650)
	differ := func(shown *image.NRGBA) int {
		bad := 0
		for y := range at.Dy() {
			for x := range at.Dx() {
				got, w := shown.NRGBAAt(at.Min.X+x, at.Min.Y+y), want.NRGBAAt(2*x, y)
				if absDiff(got.G, w.G) > 2 || absDiff(got.B, w.B) > 2 {
					bad++
				}
			}
		}
		return bad
	}
	limit, bad := at.Dx()*at.Dy()/500, -1
	for deadline := time.Now().Add(5 * time.Second); (bad < 0 || bad > limit) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if screen, err := xtest.ScreenImage(fbdir, 0); err == nil {
			bad = differ(screen)
		}
	}
	t.Logf("%d pixels differ", bad)
	if bad < 0 || bad > limit {
		t.Errorf("the right eye 1 window differs from the reference's right eye in %d of %d pixels (allowed %d)", bad, at.Dx()*at.Dy(), limit)
	}
}

func absDiff(a, b uint8) uint8 { return max(a, b) - min(a, b) }

// turnFrames starts frames from to to of the turning square, each turned
// by its number, and waits until all of them are done.
func turnFrames(cfg *goeq.Config, from, to int) error {
	for f := from; f <= to; f++ {
		if _, err := cfg.StartFrame(camera{Frame: f, Angle: 0.35 * float64(f)}); err != nil {
			return err
		}
	}
	return cfg.FinishAllFrames()
}

// A window is black from when it opens until its first frame, as
// Equalizer clears and swaps a window as it sets it up: here for the 2 s
// its renderer factory takes (an application loading its data), on an X
// screen whose root is white. Before, the window showed what was behind
// it (the root, or another application's window) until the first frame.
func TestAWindowIsBlackUntilItsFirstFrame(t *testing.T) {
	fbdir := t.TempDir()
	t.Setenv("DISPLAY", xtest.Screens(t, fbdir, image.Pt(440, 170)))
	t.Setenv("GOEQ_WINSYS", "auto") // the windows on screen
	// both projectors' centres, once the windows opened
	centres := make(chan [2]color.NRGBA, 1)
	go func() {
		var last [2]color.NRGBA
		defer func() { centres <- last }()
		for deadline := time.Now().Add(1500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			screen, err := xtest.ScreenImage(fbdir, 0)
			if err != nil {
				continue
			}
			last = [2]color.NRGBA{screen.NRGBAAt(100, 75), screen.NRGBAAt(320, 75)}
			if last[0] == (color.NRGBA{A: 255}) && last[1] == last[0] {
				return
			}
		}
	}()
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{ConfigText: projectorsOfOneNode,
		InitData: squareInit{Scale: 1.4, SetupDelay: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Exit()
	if got := <-centres; got[0] != (color.NRGBA{A: 255}) || got[1] != got[0] {
		t.Errorf("while the renderers set up, the projectors' centres are %v and %v, not black", got[0], got[1])
	}
}

// screenShows waits up to 5 s for a part of screen 0 of an Xvfb whose
// framebuffer is in fbdir (xtest.Screens) to be what want says, and
// returns its last picture.
func screenShows(fbdir string, part image.Rectangle, want func(pix []byte) bool) ([]byte, bool) {
	var pix []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		screen, err := xtest.ScreenImage(fbdir, 0)
		if err != nil {
			continue
		}
		if pix = imagecmp.Crop(screen, part).Pix; want(pix) {
			return pix, true
		}
	}
	return pix, false
}

// isBlack reports whether RGBA pixels are all black.
func isBlack(pix []byte) bool {
	return !slices.ContainsFunc(slices.Collect(slices.Chunk(pix, 4)), func(p []byte) bool { return p[0]|p[1]|p[2] != 0 })
}

// writtenPicture is the one picture of a frame written into out whose
// label matches pattern.
func writtenPicture(t *testing.T, out, pattern string, frame int) []byte {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(out, fmt.Sprintf("%s-%06d.png", pattern, frame)))
	if len(found) != 1 {
		t.Fatalf("frame %d: pictures %v of %s", frame, found, pattern)
	}
	img, err := imagecmp.Load(found[0])
	if err != nil {
		t.Fatal(err)
	}
	return img.Pix
}

// A passive stereo wall's right-eye projector, whose segment shows the
// right eye alone, goes black while its view is mono, and shows the right
// eye again once it is stereo (as Passive.stereo.powerwall's does, whose
// left-eye projector shows the mono frames). Before, it went on showing
// the last stereo frame's right eye.
func TestAPassiveStereoWallsRightEyeIsBlackInMono(t *testing.T) {
	config := strings.NewReplacer(`layout { name "wall" view { observer 0 } }`, `layout { name "wall" view { observer 0 mode STEREO } }`,
		`segment { channel "left" viewport [ 0 0 0.5 1 ] }`, `segment { channel "left" eye [ LEFT CYCLOP ] }`,
		`segment { channel "right" viewport [ 0.5 0 0.5 1 ] }`, `segment { channel "right" eye [ RIGHT ] }`,
		"swapbarrier {}", "").Replace(projectorsOfOneNode)
	if strings.Count(config, "eye [") != 2 || !strings.Contains(config, "STEREO") {
		t.Fatal("the passive stereo edit of the projectors does not apply")
	}
	cfg, fbdir, out := startOnScreen(t, config, image.Pt(440, 170), 2, squareInit{Scale: 1.4})
	defer cfg.Exit()
	left, right := image.Rect(0, 0, 200, 150), image.Rect(220, 0, 420, 150)
	frames := func(from, to int, mode goeq.ViewMode) {
		t.Helper()
		if err := cfg.SetViewMode(0, mode); err != nil {
			t.Fatal(err)
		}
		if err := turnFrames(cfg, from, to); err != nil {
			t.Fatal(err)
		}
	}
	shows := func(part image.Rectangle, label string, frame int) bool {
		_, ok := screenShows(fbdir, part, func(pix []byte) bool { return bytes.Equal(pix, writtenPicture(t, out, label, frame)) })
		return ok
	}
	frames(0, 3, goeq.Stereo)
	if !shows(right, "right", 3) {
		t.Fatal("in stereo, the right projector does not show frame 3's right eye")
	}
	frames(4, 7, goeq.Mono)
	if _, ok := screenShows(fbdir, right, isBlack); !ok {
		t.Error("in mono, the right-eye projector is not black")
	}
	if !shows(left, "left", 7) {
		t.Error("in mono, the left projector does not show frame 7")
	}
	frames(8, 9, goeq.Stereo)
	if !shows(right, "right", 9) {
		t.Error("back in stereo, the right projector does not show frame 9's right eye")
	}
}

// An application's lost node, its client started again by hand as the
// run's warning says, rejoins a run whose token goeq made up (no
// GOEQ_TOKEN set): the token is in a file of the run's own, which the
// application's client reads with --token-file and which goes with the
// run. Before, such a client had no way to the token and was refused.
func TestALostNodeOfAnApplicationStartedAgainByHandRejoins(t *testing.T) {
	t.Setenv("GOEQ_TOKEN", "")
	var log logging.Buffer
	init := squareInit{Scale: 1.4, KillAt: 3, KillNode: "render1"}
	cfg, err := goeq.Start(context.Background(), turningSquare{}, goeq.Options{Config: examples("2d-lb-4.eqc"),
		InitData: init, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	again := regexp.MustCompile(`started again by hand, its client rejoins: (\S+) (--goeq-client --server \S+ --node render1 --token-file (\S+?))"`)
	var hand *exec.Cmd
	var tokenFile string
	joined := false
	for frame := 0; err == nil && frame < 400 && !joined; frame++ {
		if hand == nil {
			if m := again.FindStringSubmatch(log.String()); m != nil {
				tokenFile = m[3]
				hand = exec.Command(m[1], strings.Fields(m[2])...)
				hand.Stdout, hand.Stderr = os.Stderr, os.Stderr
				if err := hand.Start(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					hand.Process.Kill()
					hand.Wait()
				}()
			}
		}
		for _, ev := range cfg.PendingEvents() {
			joined = joined || ev.Kind == goeq.NodeJoined && ev.Node == "render1"
		}
		if _, err = cfg.StartFrame(camera{Frame: frame}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	sum, exitErr := cfg.Exit()
	if err != nil || exitErr != nil {
		t.Fatalf("run: %v; exit: %v\n%s", err, exitErr, log.String())
	}
	if hand == nil {
		t.Fatalf("no warning said how to start render1's client again by hand:\n%s", log.String())
	}
	if !joined || strings.Join(sum.RejoinedNodes, " ") != "render1" {
		t.Errorf("render1 started again by hand did not rejoin (rejoined %v):\n%s", sum.RejoinedNodes, log.String())
	}
	if _, err := os.Stat(tokenFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run's token file %s is still there once it ended (%v)", tokenFile, err)
	}
}

// A layout or view mode whose frames would wait in a circle (check warns
// of it: planner.CheckOrder) is refused with why, where the switch made
// the run wait out its frame timeout and fail; the run goes on in the
// layouts and modes that work, in this process and on a running eqserver.
func TestASwitchWhoseFramesWouldNeverCompleteIsRefused(t *testing.T) {
	config := filepath.Join("internal", "planner", "testdata", "stuck-switches.eqc")
	refused := func(cfg *goeq.Config) {
		split := `stuck-switches.eqc:28:42: input frame "right" is never assembled: channel wall.split.view0 assembles it in compound 1.0 before it reads it back in compound 1.1`
		for _, c := range []struct {
			err       error
			want, why string
		}{
			{cfg.UseLayout("split"), `goeq: layout "split" on canvas 0 would never complete a frame: `, split},
			{cfg.UseLayoutIndex(1), `goeq: layout "split" on canvas 0 would never complete a frame: `, split},
			{cfg.UseCanvasLayout(0, 1), `goeq: layout "split" on canvas 0 would never complete a frame: `, split},
			{cfg.SetViewMode(0, goeq.Stereo), `goeq: view 0 in stereo would never complete a frame: `, `stuck-switches.eqc:20:46: input frame "r" is never assembled: `},
		} {
			if !errors.Is(c.err, goeq.ErrNeverCompletes) || !strings.HasPrefix(c.err.Error(), c.want) || !strings.Contains(c.err.Error(), c.why) {
				t.Errorf("%v: want ErrNeverCompletes, %q, then %q", c.err, c.want, c.why)
			}
		}
		if refused := cfg.Canvases()[0].Refused; len(refused) != 1 || !strings.Contains(refused[1], split) {
			t.Errorf("Canvas.Refused %v: want layout 1's reason", refused)
		}
		if got := cfg.Layout(); got != 0 {
			t.Errorf("Layout() %d after the refusals", got)
		}
	}
	use := func(cfg *goeq.Config, frame int) error {
		if frame == 2 {
			refused(cfg)
			return cfg.SetViewMode(0, goeq.Mono)
		}
		return nil
	}
	opt := goeq.Options{Config: config, FrameTimeout: 5 * time.Second}
	if frames, _ := runLayoutSwitches(t, opt, refused, use); len(frames) != layoutFrames {
		t.Errorf("%d frames written, want %d", len(frames), layoutFrames)
	}
	t.Setenv("GOEQ_TOKEN", "the-shared-token")
	if frames, _ := runLayoutSwitches(t, goeq.Options{Server: startAppServer(t, config).addr}, refused, use); len(frames) != layoutFrames {
		t.Errorf("on a running eqserver: %d frames written, want %d", len(frames), layoutFrames)
	}
}
