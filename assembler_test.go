package goeq_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/internal/compound"
)

// TestAnApplicationsReadbackAndAssemblyMatchTheReference: a renderer that
// reads back and composites itself, taking only what draw.Image says of
// each frame, makes the reference's frames on pixel, subpixel, database
// (by depth, its sources each drawing their range's part), zoomed and
// stereo compounds. (A subpixel sample differs from the average only on
// the square's edges, within what the reference comparison allows of a
// resampling config: there, the test checks where the samples land.)
// The renderer must have read back and assembled once a frame at least
// where a destination the config starts with assembles input frames for
// an eye its view shows. GOEQ_ASSEMBLY=all runs every
// corpus config (all 80 pass).
func TestAnApplicationsReadbackAndAssemblyMatchTheReference(t *testing.T) {
	const frames = 8
	for _, cc := range corpusConfigs(t, "GOEQ_ASSEMBLY", "3-window.PIXEL.eqc", "3-window.SUBPIXEL.eqc", "4-window.DB.bs.eqc",
		"7-window.DB.PIXEL.eqc", "2-window.ZOOM.eqc", "3-window.EYE.anaglyph.eqc") {
		t.Run(cc.name, func(t *testing.T) {
			init := squareInit{Scale: 1.4, DepthTest: true, Slices: true}
			own := init
			own.Assembles, own.Record = true, t.TempDir()
			got := runScript(t, goeq.Options{Config: cc.path, Local: true}, frames, own, nil)
			want := runScript(t, goeq.Options{Config: cc.path, Local: true, Reference: true}, frames, init, nil)
			framesMatch(t, "the renderer's readback and assembly", frames, imagesByFrame(t, got), filepath.Dir(got[0]), imagesByFrame(t, want), filepath.Dir(want[0]),
				func(int) string { return cc.cfg.Resampling() })
			assembles := false
			cc.cfg.Walk(func(c *compound.Compound) {
				d := c.Destination()
				assembles = assembles || len(c.InputFrames) > 0 && d != nil && d.Channel.Showing() && c.Eyes&d.DestinationEyes() != 0
			})
			for _, hook := range []string{"readback", "assemble"} {
				files, _ := filepath.Glob(filepath.Join(own.Record, hook+"-*"))
				lines := 0
				for _, f := range files {
					b, _ := os.ReadFile(f)
					lines += strings.Count(string(b), "\n")
				}
				if assembles && lines < frames {
					t.Errorf("the renderer's %s ran %d times in %d frames, want once a frame at least", hook, lines, frames)
				}
			}
		})
	}
}

// assemblingSquare composites its input frames itself, as an application
// reading draw.Image's contract would: each frame's pixels land at At
// (scaled where At's size is not the frame's), every Pixel.W-th pixel
// from Pixel.X where a pixel decomposition sampled them, nearer depth
// wins where a frame has depth, and subpixel samples are averaged with
// what the framebuffer holds.
type assemblingSquare struct {
	*square
	prog, vao uint32
	linear    uint32 // a sampler
}

func newAssemblingSquare(sq *square) (goeq.Renderer, error) {
	prog, err := goeq.Program(`#version 330 core
void main() {
	vec2 c = vec2(gl_VertexID & 1, gl_VertexID >> 1);
	gl_Position = vec4(c * 2.0 - 1.0, 0, 1);
}`, `#version 330 core
uniform sampler2D color;
uniform sampler2D depth;
uniform int hasDepth;
uniform ivec2 at, atSize, size, texSize, first, step;
uniform float alpha;
out vec4 frag;
void main() {
	ivec2 p = ivec2(gl_FragCoord.xy);
	ivec2 tc;
	if (step.x > 1 || step.y > 1) {
		ivec2 q = p - first;
		if (q.x < 0 || q.y < 0 || q.x % step.x != 0 || q.y % step.y != 0) discard;
		tc = q / step;
	} else if (atSize != size) {
		// scaled, linearly, up to the last texel's centre
		vec2 t = clamp((vec2(p - at) + 0.5) * vec2(size) / vec2(atSize), vec2(0.5), vec2(size) - 0.5);
		frag = vec4(texture(color, t / vec2(texSize)).rgb, alpha);
		gl_FragDepth = hasDepth == 1 ? texture(depth, t / vec2(texSize)).r : 0.0;
		return;
	} else {
		tc = p - at;
	}
	if (tc.x >= size.x || tc.y >= size.y) discard;
	frag = vec4(texelFetch(color, tc, 0).rgb, alpha);
	gl_FragDepth = hasDepth == 1 ? texelFetch(depth, tc, 0).r : 0.0;
}`)
	if err != nil {
		return nil, err
	}
	a := &assemblingSquare{square: sq, prog: prog}
	gl.GenVertexArrays(1, &a.vao)
	gl.GenSamplers(1, &a.linear)
	for _, p := range []uint32{gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER} {
		gl.SamplerParameteri(a.linear, p, gl.LINEAR)
	}
	gl.SamplerParameteri(a.linear, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.SamplerParameteri(a.linear, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	return a, nil
}

// ReadBack reads region with glReadPixels.
func (a *assemblingSquare) ReadBack(dc *goeq.DrawContext, r goeq.Region, depth bool) ([]byte, []float32, error) {
	color, z := readPixels(r, depth)
	return color, z, a.note("readback-"+url.PathEscape(dc.Channel), fmt.Sprintf("%d\n", dc.Frame))
}

func (a *assemblingSquare) Assemble(dc *goeq.DrawContext, images []goeq.Image) error {
	gl.UseProgram(a.prog)
	gl.BindVertexArray(a.vao)
	gl.Uniform1i(gl.GetUniformLocation(a.prog, gl.Str("color\x00")), 0)
	gl.Uniform1i(gl.GetUniformLocation(a.prog, gl.Str("depth\x00")), 1)
	samples := 0
	for _, im := range images {
		if im.Subpixel.Size > 1 {
			samples++
		}
	}
	averaged := 0
	for _, im := range images {
		if im.Subpixel.Size > 1 && averaged == 0 {
			// the framebuffer holds the samples the assembly's own
			// channel drew
			averaged = im.Subpixel.Size - samples
		}
		alpha := float32(1)
		gl.Disable(gl.BLEND)
		if im.Subpixel.Size > 1 {
			alpha = 1 / float32(averaged+1)
			averaged++
			gl.Enable(gl.BLEND)
			gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE)
		}
		if im.Depth != 0 {
			gl.Enable(gl.DEPTH_TEST)
			gl.DepthFunc(gl.LESS)
			gl.DepthMask(true)
		} else {
			gl.Disable(gl.DEPTH_TEST)
		}
		gl.ActiveTexture(gl.TEXTURE0)
		gl.BindTexture(gl.TEXTURE_2D, im.Color)
		gl.BindSampler(0, a.linear)
		gl.ActiveTexture(gl.TEXTURE1)
		gl.BindTexture(gl.TEXTURE_2D, im.Depth)
		gl.BindSampler(1, a.linear)
		gl.ActiveTexture(gl.TEXTURE0)
		set2 := func(name string, x, y int) {
			gl.Uniform2i(gl.GetUniformLocation(a.prog, gl.Str(name+"\x00")), int32(x), int32(y))
		}
		set2("at", im.At.X, im.At.Y)
		set2("atSize", im.At.W, im.At.H)
		set2("size", im.Width, im.Height)
		set2("texSize", im.TexWidth, im.TexHeight)
		set2("first", im.At.X+im.Pixel.X, im.At.Y+im.Pixel.Y)
		set2("step", max(im.Pixel.W, 1), max(im.Pixel.H, 1))
		hasDepth := int32(0)
		if im.Depth != 0 {
			hasDepth = 1
		}
		gl.Uniform1i(gl.GetUniformLocation(a.prog, gl.Str("hasDepth\x00")), hasDepth)
		gl.Uniform1f(gl.GetUniformLocation(a.prog, gl.Str("alpha\x00")), alpha)
		gl.Viewport(int32(im.At.X), int32(im.At.Y), int32(im.At.W), int32(im.At.H))
		gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	}
	gl.Disable(gl.BLEND)
	gl.Disable(gl.DEPTH_TEST)
	gl.BindSampler(0, 0)
	gl.BindSampler(1, 0)
	return a.note("assemble-"+url.PathEscape(dc.Channel), fmt.Sprintf("%d %d\n", dc.Frame, len(images)))
}
