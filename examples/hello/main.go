// Command hello is the shortest complete goeq application: a cube that
// turns by the angle each frame's data carries, on any configuration.
//
//	hello [--config FILE] [--frames N] [--out DIR] [--json] [--server HOST:PORT]
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq"
)

type frameData struct{ Angle float64 } // what changes each frame

type app struct{}

func (app) NewRenderer(*goeq.Pipe) (goeq.Renderer, error) {
	prog, err := goeq.Program(`#version 330 core
uniform mat4 mvp; out vec3 color;
const int corner[6] = int[6](0, 1, 2, 2, 1, 3);
const vec3 colors[6] = vec3[6](vec3(1, .3, .3), vec3(.3, 1, .3), vec3(.3, .3, 1), vec3(1, 1, .3), vec3(.3, 1, 1), vec3(1, .3, 1));
void main() { // the cube's 12 triangles from the vertex number: no buffers
	int f = gl_VertexID / 6, k = corner[gl_VertexID % 6];
	vec3 p = vec3((k & 1) * 2 - 1, (k >> 1) * 2 - 1, 1);
	p = f == 0 ? p : f == 1 ? -p.yxz : f == 2 ? p.zxy : f == 3 ? -p.xzy : f == 4 ? p.yzx : -p.zyx;
	color = colors[f];
	gl_Position = mvp * vec4(0.5 * p, 1);
}`, `#version 330 core
in vec3 color; out vec4 frag;
void main() { frag = vec4(color, 1); }`)
	var vao uint32
	gl.GenVertexArrays(1, &vao)
	return &cube{prog: prog, vao: vao}, err
}

type cube struct{ prog, vao uint32 }

func (c *cube) Draw(dc *goeq.DrawContext) (goeq.Region, error) {
	var f frameData
	if err := dc.FrameData(&f); err != nil {
		return goeq.Region{}, err
	}
	mvp := dc.Projection.Mul(dc.View).Mul(goeq.Translate(0, 0, -3)).Mul(goeq.RotateX(0.5)).Mul(goeq.RotateY(f.Angle))
	gl.Enable(gl.DEPTH_TEST)
	gl.UseProgram(c.prog)
	gl.UniformMatrix4fv(gl.GetUniformLocation(c.prog, gl.Str("mvp\x00")), 1, false, &mvp[0])
	gl.BindVertexArray(c.vao)
	gl.DrawArrays(gl.TRIANGLES, 0, 36)
	return goeq.Region{}, nil
}

func main() {
	goeq.Init(app{}) // a render client started by Start never returns from here
	config := flag.String("config", "", "the configuration (default: made for this machine, as Equalizer's auto-configuration: a window, a pipe per GPU)")
	frames := flag.Int("frames", 100, "frames to render")
	out := flag.String("out", "", "write every frame's destination PNG here")
	asJSON := flag.Bool("json", false, "print the run's summary as JSON")
	server := flag.String("server", "", "a running eqserver's application address (eqserver run --app ADDR); default: the server runs in this process")
	flag.Parse()
	switch {
	case flag.NArg() > 0: // flag stops at it: the flags after it would go unread
		log.Fatalf("%q: hello takes flags alone (a config is --config FILE), and none after it was read", flag.Arg(0))
	case *frames < 1:
		log.Fatalf("--frames %d: want at least 1", *frames)
	}
	cfg, err := goeq.Start(context.Background(), app{}, goeq.Options{Config: *config, Server: *server, OutDir: *out})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < *frames && err == nil; i++ {
		if _, err = cfg.StartFrame(frameData{Angle: 0.05 * float64(i)}); err == nil {
			err = cfg.FinishFrame()
		}
	}
	sum, exitErr := cfg.Exit()
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
	}
	if err := cmp.Or(err, exitErr); err != nil {
		log.Fatal(err) // the run's error, or what ended it
	}
}
