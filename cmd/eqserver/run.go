package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/goeq/goeq/internal/appconn"
	"github.com/goeq/goeq/internal/autoconfig"
	"github.com/goeq/goeq/internal/compositing"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/scheduler"
	"github.com/goeq/goeq/internal/server"
)

// maxTriangles bounds the procedural mesh (every render client builds
// it) as the largest PLY model read is bounded.
const maxTriangles = render.MaxPLYFaces

func runCmd(args []string, stdout, stderr io.Writer) int {
	// the log and the launched clients' output go to stderr from
	// goroutines of their own (a file takes that; a buffer does not)
	if _, ok := stderr.(*os.File); !ok {
		stderr = &lockedWriter{w: stderr}
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	local := fs.Bool("local", false, "start every node's eqclient on this machine")
	frames := fs.Int("frames", 100, "frames to render; 0: until SIGINT or SIGTERM")
	out := fs.String("out", "", "folder for the destination's PNGs")
	statsPath := fs.String("stats", "", "write per-channel statistics as JSON lines to this file")
	every := fs.Int("dump-every", 30, "write every N-th frame's PNG (with --out)")
	renderer := fs.String("renderer", "mesh", "mesh, volume or synthetic")
	triangles := fs.Int("triangles", 1_000_000, "triangles of the procedural mesh")
	spin := fs.Float64("spin", 0.02, "radians the model turns per frame")
	codec := fs.String("codec", "auto", "frame codec: auto (each link chooses), or one for every link: none, s2, zstd, planes-s2, rle, delta-s2 or plane-rle")
	async := fs.Bool("async-readback", true, "finish readbacks on the download goroutine")
	iterations := fs.Float64("iterations", 64, "synthetic renderer: loop length per pixel")
	listen := fs.String("listen", "", "control address (default: loopback when every node runs here, else the config's server connection or every interface)")
	tokenFile := fs.String("token-file", "", "shared token file (default: $GOEQ_TOKEN, or one made up for the run, in a file of its own that a lost node's warning names)")
	clientBin := fs.String("client", "", "eqclient binary (default: beside eqserver, then PATH)")
	drawable := fs.String("drawable", "", "override every window's hint_drawable: window or FBO")
	summaryJSON := fs.Bool("json", false, "print the summary as JSON")
	noLaunch := fs.Bool("no-launch", false, "start no clients: wait for eqclient --server to join for every node")
	tlsCert := fs.String("tls-cert", "", "TLS certificate for the control port (with --tls-key)")
	tlsKey := fs.String("tls-key", "", "TLS key for the control port")
	roi := fs.Bool("roi", true, "read back and send only the region each renderer drew")
	merge := fs.String("merge", "auto", "where destinations depth-merge sort-last inputs: auto (in memory, as cpu), gpu (a shader per input, 2D tiles too) or cpu")
	compositingFlag := fs.String("compositing", "", "how every sort-last compound composites, overriding the config: auto (chosen by the cost model), gather, direct_send, binary_swap or radix_k")
	ref := fs.Bool("reference", false, "every destination channel renders its whole frame itself (the oracle for decomposed runs)")
	layout := fs.String("layout", "", "make this layout the active one on the canvases that have it: its name, or its index in the config (for unnamed ones)")
	frameTimeout := fs.Duration("frame-timeout", 0, "a frame still incomplete this long once it is the oldest in flight fails the run (tiles its tile queues hand out start it again); 0: 10 s, or 3 times the slowest recent frame where frames are slower, and 1 minute before a frame has completed")
	initTimeout := fs.Duration("init-timeout", server.DefaultInitTimeout, "a node that has not set up (its pipes, windows and renderers) in this time after its client connected fails the run")
	liveness := fs.Duration("liveness", scheduler.DefaultLiveness, "the shortest silence after which a node is lost (it grows by itself with each node's heartbeat gaps)")
	relaunch := fs.Int("relaunch", 0, "start a lost node's client again, up to N times per node: it rejoins and gets work again")
	encrypt := fs.Bool("encrypt-frames", false, "encrypt the pixel links between nodes (TLS 1.3, keys made per run; implied by --tls-cert)")
	overlay := fs.Bool("overlay", false, "draw the statistics overlay (per-channel time bars, split outlines) over the destinations")
	logFormat := fs.String("log-format", "text", "log records as text or json (log/slog), also the clients'")
	level := logging.LevelFlag(fs) // the launched clients' too
	httpAddr := fs.String("http", "", "serve the run's live dashboard and Prometheus /metrics on this address (e.g. 127.0.0.1:8080)")
	appAddr := fs.String("app", "", "wait on this address for an application (goeq.Options.Server) to drive the run; its executable becomes the render clients")
	cpuProfile := fs.String("cpuprofile", "", "write the server's CPU profile to this file (go tool pprof)")
	nullClients := fs.Bool("null-clients", false, "launch render clients without GL (eqclient --null): they report fixed draw times and send empty frames, to measure the server on many nodes; those on this machine share a process per core")
	appTimeout := fs.Duration("app-timeout", 5*time.Minute, "with --app: give up when no application has connected in this time")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if lateFlag("run", fs, stderr) {
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprint(stderr, "eqserver run: one CONFIG at most expected\n"+usage)
		return 2
	}
	// values the run would otherwise put a default in place of, or clamp
	for _, c := range []struct {
		bad  bool
		flag string
		want string
	}{
		{*frames < 0, fmt.Sprintf("--frames %d", *frames), "0 (until a signal) or more"},
		{*every < 1, fmt.Sprintf("--dump-every %d", *every), "at least 1"},
		{*triangles < 1 || *triangles > maxTriangles, fmt.Sprintf("--triangles %d", *triangles), fmt.Sprintf("1 to %d (every render client builds the mesh)", maxTriangles)},
		{!(math.Abs(*spin) <= 2*math.Pi), fmt.Sprintf("--spin %g", *spin), "radians, at most a turn (6.283) either way"},
		{!(*iterations > 0 && *iterations <= render.MaxIterations), fmt.Sprintf("--iterations %g", *iterations), fmt.Sprintf("more than 0 and at most %g", float64(render.MaxIterations))},
		{*frameTimeout < 0, fmt.Sprintf("--frame-timeout %v", *frameTimeout), "0 (bounds that follow the frames' time) or more"},
		{*initTimeout <= 0, fmt.Sprintf("--init-timeout %v", *initTimeout), "more than 0"},
		{*liveness <= 0, fmt.Sprintf("--liveness %v", *liveness), "more than 0"},
		{*relaunch < 0, fmt.Sprintf("--relaunch %d", *relaunch), "0 or more"},
		{*appTimeout <= 0, fmt.Sprintf("--app-timeout %v", *appTimeout), "more than 0"},
	} {
		if c.bad {
			fmt.Fprintf(stderr, "eqserver run: %s: want %s\n", c.flag, c.want)
			return 2
		}
	}
	if err := compound.CheckDrawableOverride(*drawable); err != nil {
		fmt.Fprintf(stderr, "eqserver run: %v\n", err)
		return 2
	}
	if _, _, err := compressor.ParseChoice(*codec); err != nil {
		fmt.Fprintf(stderr, "eqserver run: --codec: %v\n", err)
		return 2
	}
	format, err := logging.ParseFormat(*logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "eqserver run: %v\n", err)
		return 2
	}
	if *compositingFlag != "" {
		if _, err := compositing.Parse(*compositingFlag); err != nil {
			fmt.Fprintf(stderr, "eqserver run: --compositing: %v\n", err)
			return 2
		}
	}
	if m := *merge; m != "auto" && m != "gpu" && m != "cpu" {
		fmt.Fprintf(stderr, "eqserver run: --merge %q: want auto, gpu or cpu\n", m)
		return 2
	}
	// launched clients log the same way
	os.Setenv(logging.EnvFormat, string(format))
	logger := logging.New(stderr, format, *level, "eqserver")
	token, tokenMadeUp := os.Getenv("GOEQ_TOKEN"), false
	if *tokenFile != "" {
		var err error
		if token, err = control.ReadTokenFile(*tokenFile); err != nil {
			logger.Error(fmt.Sprintf("--token-file: %v", err))
			return 1
		}
	}
	if token == "" && *appAddr != "" {
		logger.Error("--app needs the token the application will present: set GOEQ_TOKEN or --token-file")
		return 2
	}
	// a token made up here would be known to no client started by hand:
	// each would be refused, as the prompt to start them said nothing of it
	if token == "" && *noLaunch {
		logger.Error("--no-launch needs the token the clients you start will present: set GOEQ_TOKEN or --token-file, and the same for each eqclient")
		return 2
	}
	if token == "" {
		var b [16]byte
		rand.Read(b[:])
		token = hex.EncodeToString(b[:])
		tokenMadeUp = true
	}
	var tlsConfig *tls.Config
	if *tlsCert != "" || *tlsKey != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			logger.Error(fmt.Sprintf("TLS (--tls-cert, --tls-key): %v", err))
			return 1
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	var progress io.Writer
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			progress = f
		}
	}
	// SIGINT, SIGTERM or SIGHUP (the terminal or ssh session it ran in
	// closed) ends the run and its clients once the frames in flight are
	// done and written (a second one at once); the summary of the frames
	// done is printed and the exit status says which signal (128+n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	var caughtSignal atomic.Value
	caught := func() os.Signal { s, _ := caughtSignal.Load().(os.Signal); return s }
	// stopping ends what has no frames in flight (the wait for an
	// application) at once, and the run after its frames in flight
	stopping, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case sig := <-signals:
			caughtSignal.Store(sig)
			logger.Info(fmt.Sprintf("%v: finishing the frames in flight (again to stop at once)", sig))
			stop()
		case <-ctx.Done():
			return
		}
		select {
		case <-signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	// eqclient is an application like any other: the init data names its
	// renderer
	builtin := render.Builtin{Renderer: *renderer, Triangles: *triangles, Spin: *spin, Iterations: *iterations}
	if err := builtin.Check(); err != nil {
		logger.Error(err.Error())
		return 2
	}
	initData, _ := json.Marshal(builtin)
	if *frames == 0 {
		*frames = server.Forever
	}
	configPath, configText := fs.Arg(0), ""
	if configPath == "" || autoconfig.IsSession(configPath) {
		if configPath, configText, err = autoConfigure(configPath, server.ClientBinary(*clientBin), logger); err != nil {
			logger.Error(err.Error())
			return 1
		}
	}
	opt := server.Options{ConfigPath: configPath, ConfigText: configText, Frames: *frames, OutDir: *out, StatsPath: *statsPath,
		Local: *local, Listen: *listen, Token: token, TokenFile: *tokenFile, TokenMadeUp: tokenMadeUp, ClientBinary: *clientBin, ClientOutput: stderr, InitData: initData,
		DumpEvery: *every, Codec: *codec, Async: *async, Drawable: *drawable,
		Log: logger, Progress: progress, NoLaunch: *noLaunch, TLSConfig: tlsConfig, Reference: *ref, Layout: *layout, FullReadback: !*roi, Merge: *merge, Compositing: *compositingFlag,
		FrameTimeout: *frameTimeout, InitTimeout: *initTimeout, Stop: stopping.Done(), Liveness: *liveness, HTTP: *httpAddr, Overlay: *overlay, EncryptFrames: *encrypt, Relaunch: *relaunch,
		// a volume's parts are translucent: they blend in range order
		BlendRanges: *renderer == "volume"}
	if *nullClients {
		if *appAddr != "" {
			logger.Error("--null-clients launches eqclient; an application's executable (--app) renders for itself")
			return 2
		}
		if *out != "" || *ref {
			logger.Error("--null-clients render nothing: no images for --out or --reference")
			return 2
		}
		opt.NullClients = true
	}
	if path := *cpuProfile; path != "" {
		f, err := os.Create(path)
		if err != nil {
			logger.Error(fmt.Sprintf("--cpuprofile: %v", err))
			return 1
		}
		w := &profileWriter{w: f}
		if err := pprof.StartCPUProfile(w); err != nil {
			f.Close()
			logger.Error(fmt.Sprintf("--cpuprofile: %v", err))
			return 1
		}
		// the profile is written as the run goes, and a write that fails
		// (a full disk) would lose it without a word
		defer func() {
			pprof.StopCPUProfile()
			if err := errors.Join(w.err, f.Close()); err != nil {
				logger.Warn(fmt.Sprintf("--cpuprofile %s: the profile is incomplete: %v", path, err))
			}
		}()
	}
	var app *appconn.Session
	if *appAddr != "" {
		var err error
		var appPort io.Closer
		if app, appPort, err = acceptApp(stopping, *appAddr, token, *appTimeout, logger); err != nil {
			if caught() != nil {
				return 130
			}
			logger.Error(err.Error())
			return 1
		}
		// open for the run, to tell another application that comes why
		// it is refused
		defer appPort.Close()
		h := app.Hello
		// the application's executable renders, with its init data; the
		// frames are the ones it asks for
		opt.App, opt.ClientBinary, opt.ClientArgs, opt.InitData = app.App, h.Executable, h.ClientArgs, h.InitData
		opt.Reference, opt.BlendRanges = opt.Reference || h.Reference, h.BlendRanges
		opt.Overlay = opt.Overlay || h.Overlay
		if h.Layout != "" {
			opt.Layout = h.Layout
		}
		if h.OutDir != "" {
			opt.OutDir, opt.DumpEvery = h.OutDir, 1
		}
		if h.FrameTimeout > 0 {
			opt.FrameTimeout = h.FrameTimeout
		}
		if h.InitTimeout > 0 {
			opt.InitTimeout = h.InitTimeout
		}
		if h.Liveness > 0 {
			opt.Liveness = h.Liveness
		}
	}
	sum, err := server.Run(ctx, opt)
	if app != nil {
		if gone := app.Gone(); gone != nil && err == nil && caught() == nil {
			// the run ended as the application's exit would end it, but
			// whoever runs the server must learn that it did not exit
			err = fmt.Errorf("the application went away without exiting, after %d frames (%v): was it killed, or did it crash?", summaryFrames(sum), gone)
		}
		if why := app.Cancelled(); why != "" && err == nil && caught() == nil {
			// as deliberate an end as its exit: said, and no failure
			logger.Info(fmt.Sprintf("the application cancelled its run after %d frames (%s)", summaryFrames(sum), why))
		}
		app.End(sum, err)
	}
	cancel()
	code := 0
	switch {
	case caught() != nil:
		logger.Info(fmt.Sprintf("stopped by %v after %d frames", caught(), summaryFrames(sum)))
		code = 128 + int(caught().(syscall.Signal))
	case err != nil && format == logging.JSON:
		// every line of standard error a JSON record, as a log
		// collector reading it wants
		for _, line := range errorLines(err) {
			logger.Error(strings.TrimPrefix(line, "eqserver: "))
		}
		code = 1
	case err != nil:
		report(stderr, err)
		code = 1
	}
	if sum != nil && (err == nil || sum.Frames > 0) {
		printSummary(stdout, sum, *summaryJSON)
	}
	return code
}

// acceptApp waits for the application that drives the run, at most
// timeout. Its port stays open until the caller closes it, refusing the
// applications that come after it.
func acceptApp(ctx context.Context, addr, token string, timeout time.Duration, logger *slog.Logger) (*appconn.Session, io.Closer, error) {
	if timeout <= 0 {
		return nil, nil, fmt.Errorf("--app-timeout must be positive, not %v", timeout)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--app: %w", err)
	}
	logging.Prompt(logger, fmt.Sprintf("waiting for an application on %s (at most %v)", ln.Addr(), timeout))
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := appconn.Accept(wait, ln, token, func(peer string, err error) {
		logger.Warn(fmt.Sprintf("refused an application from %s: %v", peer, err))
	})
	if err != nil {
		ln.Close()
	}
	if err != nil && ctx.Err() == nil && wait.Err() != nil {
		return nil, nil, fmt.Errorf("no application connected to %s within %v (--app-timeout)", ln.Addr(), timeout)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("waiting for an application: %w", err)
	}
	logger.Info(fmt.Sprintf("application %s connected", s.Hello.Executable))
	return s, ln, nil
}

func summaryFrames(s *server.Summary) int {
	if s == nil {
		return 0
	}
	return s.Frames
}

func printSummary(stdout io.Writer, sum *server.Summary, asJSON bool) {
	if asJSON {
		jsonEncoder(stdout).Encode(sum)
		return
	}
	fmt.Fprintf(stdout, "%d frames in %.1f s: %.1f fps; %d degraded frames", sum.Frames, sum.Seconds, sum.FPS, sum.Degraded)
	if len(sum.LostNodes) > 0 {
		fmt.Fprintf(stdout, "; lost nodes %v", sum.LostNodes)
	}
	if len(sum.LostPipes) > 0 {
		fmt.Fprintf(stdout, "; lost pipes %s", strings.Join(sum.LostPipes, ", "))
	}
	if len(sum.RepairedFrames) > 0 {
		fmt.Fprintf(stdout, "; %d frames whole with a lost node's parts drawn by their consumers", len(sum.RepairedFrames))
	}
	if len(sum.RejoinedNodes) > 0 {
		fmt.Fprintf(stdout, "; rejoined %v", sum.RejoinedNodes)
	}
	if sum.Interrupted {
		fmt.Fprint(stdout, "; interrupted")
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "server: %.2f ms per frame in its loop, %.2f ms CPU\n", sum.ControlMsPerFrame, sum.ServerCPUMsPerFrame)
	fmt.Fprintf(stdout, "%-12s %9s %9s %9s %9s %9s\n", "channel", "draw ms", "readback", "transmit", "assemble", "wait")
	for _, c := range sum.Channels {
		fmt.Fprintf(stdout, "%-12s %9.2f %9.2f %9.2f %9.2f %9.2f\n", c.Channel, c.Draw, c.Readback, c.Transmit, c.Assemble, c.Wait)
	}
	for _, name := range sortedKeysOf(sum.FinalSplit) {
		fmt.Fprintf(stdout, "final split %-8s %s\n", name, sum.FinalSplit[name])
	}
	if len(sum.Written) > 0 {
		if n := len(sum.Written); n == 1 {
			fmt.Fprintf(stdout, "wrote 1 image, %s\n", sum.Written[0])
		} else {
			fmt.Fprintf(stdout, "wrote %d images, the last %s\n", n, sum.Written[n-1])
		}
	}
}

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}

func sortedKeysOf(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// profileWriter keeps the first error writing the CPU profile, which
// runtime/pprof drops.
type profileWriter struct {
	w   io.Writer
	err error
}

func (p *profileWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.w.Write(b)
	p.err = err
	return n, err
}

// autoConfigure makes the config of a run that names none, or names a
// session (a name that is no file and not a .eqc, as Equalizer's server
// takes one): this machine's GPUs, as the eqclient the run starts finds
// them (this binary links no GL), a pipe each, saved to
// <session>.auto.eqc ("local" without one) as goeq.Start saves an
// application's.
func autoConfigure(session, client string, logger *slog.Logger) (name, text string, err error) {
	given := "no config given"
	if session != "" {
		given = fmt.Sprintf("config %q is no file and not a .eqc name: a session", session)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gpuCountTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, client, "--gpus").Output()
	var found struct{ GPUs *[]int }
	if err == nil {
		err = json.Unmarshal(out, &found)
	}
	if err == nil && found.GPUs == nil {
		err = errors.New("it printed no GPU list")
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", "", fmt.Errorf("%s, and this machine's GPUs could not be counted (%s --gpus: %v): name a config", given, client, err)
	}
	name, text, how := autoconfig.Save(autoconfig.Here(cmp.Or(session, "local"), *found.GPUs), "to eqserver run")
	logger.Info(given + ": " + how)
	return name, text, nil
}

// gpuCountTimeout bounds eqclient --gpus, which opens the window system
// (an X display that does not answer is given 3 s).
const gpuCountTimeout = 20 * time.Second

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
