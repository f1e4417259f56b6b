package goeq

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/client"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/winsys"
)

// Init must be the first thing main does, before parsing flags. In a
// process that Start launched as a render client (this executable with
// goeq's client flag) it serves the run with app's renderers and exits the
// process. Anywhere else it takes Equalizer's options (--eq-config FILE,
// --eq-layout NAME, --eq-server ADDR, --eq-logfile FILE; --eq-help lists
// them) out of os.Args, for Start to apply over its Options, and returns.
//
// GLFW must run on the main thread, so call it from main's goroutine.
func Init(app Application) {
	if len(os.Args) < 2 || os.Args[1] != clientFlag {
		takeEqualizerArgsFromCommandLine()
		return
	}
	os.Exit(serveClient(app, os.Args[2:]))
}

// serveClient is a render client's whole life: join, render, stop.
func serveClient(app Application, args []string) int {
	fs := flag.NewFlagSet("goeq client", flag.ContinueOnError)
	server := fs.String("server", "", "the server's control address")
	node := fs.String("node", "", "the config node this client renders")
	ws := fs.String("winsys", "auto", "window system: auto, egl or glfw")
	tokenStdin := fs.Bool("token-stdin", false, "read the token from standard input's first line")
	tokenFile := fs.String("token-file", "", "read the token from this file (the run's own, which a lost node's warning names)")
	launched := fs.Bool("launched", false, "started by the server: end with the process that started this client")
	level := logging.LevelFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := logging.New(os.Stderr, logging.FromEnv(), *level, "goeq client "+*node)
	if *server == "" || *node == "" {
		logger.Error("--server and --node are required")
		return 2
	}
	if *launched {
		if err := client.EndWithLauncher(); err != nil {
			logger.Error(err.Error())
			return 1
		}
	}
	token, tlsConfig, err := client.Credentials(*tokenStdin)
	if err == nil && *tokenFile != "" {
		token, err = control.ReadTokenFile(*tokenFile)
	}
	if err != nil {
		logger.Error(err.Error())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	newRenderer := func(pi client.PipeInfo) (draw.Renderer, error) {
		r, err := app.NewRenderer(&Pipe{Node: pi.Node, Name: pi.Pipe, Device: pi.Device, init: pi.InitData, send: pi.SendEvent})
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, errors.New("NewRenderer returned no renderer and no error")
		}
		return r, nil
	}
	done := make(chan struct{})
	code := 0
	go func() {
		defer close(done)
		err := client.Run(ctx, client.Options{Server: *server, Node: *node, Token: token, TLS: tlsConfig,
			WinSys: winsys.Choice(*ws), Log: logger, NewRenderer: newRenderer})
		switch {
		case ctx.Err() != nil:
			logger.Info("stopped by a signal")
		case err != nil:
			logger.Error(err.Error())
			code = 1
		}
	}()
	winsys.RunMain(done) // GLFW calls run on the main thread
	return code
}
