// Package goeq is a parallel rendering framework: an application writes
// how to draw one part of a frame, and goeq splits every frame over the
// GPUs and hosts an Equalizer configuration (.eqc) describes, balances the
// split from measured times, composites the parts and shows the result on
// the destination windows (or writes it as PNG).
//
// # An application
//
// An application is three things:
//
//   - an [Application], which makes a [Renderer] for each pipe (GPU);
//   - a Renderer, whose Draw renders the part of a frame a [DrawContext]
//     describes (viewport, database range, eye, projection, view) with
//     OpenGL 3.3 core;
//   - a main that drives frames through a [Config].
//
// The smallest complete one is examples/hello:
//
//	func main() {
//		goeq.Init(app{}) // in a render client, this serves and exits
//		flag.Parse()
//		cfg, err := goeq.Start(ctx, app{}, goeq.Options{Config: "wall.eqc"})
//		...
//		for i := 0; i < frames; i++ {
//			cfg.StartFrame(frameData{Angle: 0.05 * float64(i)})
//			cfg.FinishFrame()
//		}
//		summary, err := cfg.Exit()
//	}
//
// # Processes and goroutines
//
// One executable is both the application and its render clients.
//
//   - The application process calls [Init] first (it returns at once
//     there), then [Start]. Start runs goeq's server on a goroutine of this
//     process, launches a render client for every node of the config (this
//     executable again, with goeq's client flag) and returns once all have
//     joined. Under the config's robustness (ON unless the config says
//     OFF, as in Equalizer) a render node or pipe that fails to come is
//     left out instead, and the others take its part; one that shows a
//     destination must come. The application's goroutine then calls
//     StartFrame, FinishFrame and at last Exit.
//   - A render-client process enters main, and [Init] never returns: it
//     joins the server, opens its node's pipes, windows and channels, and
//     renders until the server stops it. Each pipe has its own goroutine,
//     locked to an OS thread that owns the pipe's GL context; the
//     Application's NewRenderer and every Draw run there, with the context
//     current; the pipes of a node make their renderers at the same time.
//     A client has its node's launch_timeout (30 s) to connect and
//     [Options].InitTimeout (5 minutes) to set up, however long its
//     renderer factories take to load the application's data. Init keeps
//     main's goroutine for the window system (GLFW must run on the main
//     thread).
//
// # Frame data and init data
//
// Init data ([Options].InitData) is any value encoding/json takes; every
// renderer factory reads it with [Pipe.InitData]. Frame data is given to
// StartFrame each frame and read in Draw with [DrawContext.FrameData]:
// each draw sees exactly its own frame's data, however many frames are in
// flight (the config's latency). Data is encoded once per frame, and only
// a change travels to the clients; more than [MaxFrameData] bytes is an
// error.
//
// # Latency
//
// FinishFrame waits until the frame started latency frames ago is
// complete, so up to latency+1 frames are in flight, as in Equalizer.
// FinishAllFrames waits for all of them. StartFrame waits only where an
// application has not called FinishFrame: it keeps to the same latency+1
// frames rather than queue frames without bound.
//
// # Events
//
// On-screen destination windows deliver key, pointer, wheel, resize and
// close events to the application process, in order, placed in the view
// of the channel under the pointer. Take them with [Config.PendingEvents]
// each frame, or wait for them with [Config.WaitEvents] to render only on
// demand; while none comes, [Config.Refine] refines the picture shown
// (idle antialiasing, as eqPly's). [Config.LastFrameStats] gives the last
// frame's per-channel times and split, and whether it was shown without
// the part of a node lost while it was in flight;
// [Config.SetBalancing] changes how a view is balanced (frozen, damping,
// tile size, as Equalizer's View::getEqualizer). [NodeLost] and
// [NodeJoined] events say that the run lost a render node and goes on
// without it, or that one came back ([Options.Relaunch] starts a lost
// node's client again).
//
// [Config.Broadcast] sends the application's own events to every node
// with the next frame: every pipe's [Receiver] takes them before drawing
// that frame, and a node that comes back takes those sent before first. [Config.SetHead] moves a tracked observer: the frusta of
// the walls it watches follow.
//
// # Optional interfaces
//
// A Renderer may also implement [Exiter] (release GL objects when its pipe
// stops), [ClearColorer] (a background other than goeq's dark grey),
// [RangeOrderer] (the order DB ranges blend in), [Overlayer] (a HUD over
// the destination's finished image), [Receiver] (cluster events),
// [Reader] (its own readback) and [Assembler] (its own compositing); goeq
// finds them by type assertion.
package goeq
