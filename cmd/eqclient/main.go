// Command eqclient is goeq's render client: one process per render node.
// It joins an eqserver (eqserver run starts it, or start it yourself with
// --server), opens its node's pipes, windows and channels, and renders the
// frames the server plans.
//
//	eqclient --server HOST:PORT --node NAME [--token-file FILE] [--winsys auto|egl|glfw] [--drawable window|FBO]
//	eqclient --null --server HOST:PORT --node NAME [--node NAME...]
//	eqclient --gpus
//
// The token comes from --token-stdin (how eqserver launches clients),
// --token-file or the GOEQ_TOKEN environment variable.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/goeq/goeq/draw"
	"github.com/goeq/goeq/internal/client"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/render"
	"github.com/goeq/goeq/internal/winsys"
)

// nodeNames is --node, given once per node.
type nodeNames []string

func (n *nodeNames) String() string     { return strings.Join(*n, ",") }
func (n *nodeNames) Set(v string) error { *n = append(*n, v); return nil }

func main() {
	server := flag.String("server", "", "address of the eqserver control port (host:port)")
	var nodes nodeNames
	flag.Var(&nodes, "node", "the config node this client renders (with --null, once per node: one process then stands in for many nodes)")
	tokenFile := flag.String("token-file", "", "file holding the shared token (default: $GOEQ_TOKEN)")
	tokenStdin := flag.Bool("token-stdin", false, "read the token from the first line of standard input (how eqserver launches clients)")
	launched := flag.Bool("launched", false, "started by eqserver (directly or through a node's launch_command): end when the process that started this client ends, even while stopped")
	ws := flag.String("winsys", "auto", "window system: auto (GLFW when the node shows a window on an X display, else EGL), egl or glfw")
	drawable := flag.String("drawable", "", "override hint_drawable: window or FBO")
	tlsCA := flag.String("tls-ca", "", "CA certificate to verify a TLS control port (use TLS when set)")
	level := logging.LevelFlag(flag.CommandLine)
	wait := flag.Duration("wait", 0, "try again for up to this long while no eqserver listens at --server (a client started before its server); 0 gives up at once")
	null := flag.Bool("null", false, "no GL: take the tasks, report fixed draw times and send empty frames (for measuring the server on many nodes)")
	gpus := flag.Bool("gpus", false, "print this machine's GPUs as a config's pipes name them (JSON: {\"gpus\": [devices]}) and exit: what eqserver run without a config makes its config of")
	flag.Parse()
	if flag.NArg() > 0 { // flag stops at it: the flags after it would go unread
		fmt.Fprintf(os.Stderr, "eqclient: %q: it takes flags alone, and none after it was read\n", flag.Arg(0))
		os.Exit(2)
	}
	if *gpus {
		// the devices a window shows on where a display is set, as an
		// application's auto-configuration finds them
		json.NewEncoder(os.Stdout).Encode(map[string][]int{"gpus": winsys.GPUs(true)})
		return
	}
	if *server == "" || len(nodes) == 0 {
		fmt.Fprintln(os.Stderr, "eqclient: --server and --node are required")
		flag.Usage()
		os.Exit(2)
	}
	if _, port, err := net.SplitHostPort(*server); err != nil || port == "" {
		// gRPC would only say "name resolver error: produced zero addresses"
		fmt.Fprintf(os.Stderr, "eqclient: --server %q: want HOST:PORT, the eqserver's control address\n", *server)
		os.Exit(2)
	}
	if *wait < 0 {
		fmt.Fprintf(os.Stderr, "eqclient: --wait %v: want 0 or more\n", *wait)
		os.Exit(2)
	}
	if c := strings.ToLower(*ws); c != "auto" && c != "egl" && c != "glfw" {
		fmt.Fprintf(os.Stderr, "eqclient: --winsys %q: want auto, egl or glfw\n", *ws)
		os.Exit(2)
	}
	if err := compound.CheckDrawableOverride(*drawable); err != nil {
		fmt.Fprintf(os.Stderr, "eqclient: %v\n", err)
		os.Exit(2)
	}
	if len(nodes) > 1 && !*null {
		// a node's pipes own their process's GL and windows
		fmt.Fprintln(os.Stderr, "eqclient: one --node per process; only --null clients serve several")
		os.Exit(2)
	}
	logger := logging.New(os.Stderr, logging.FromEnv(), *level, "eqclient "+nodes.String())
	fatal := func(msg string) {
		logger.Error(msg)
		os.Exit(1)
	}
	if *launched {
		if err := client.EndWithLauncher(); err != nil {
			fatal(err.Error())
		}
	}
	token, tlsConfig, err := client.Credentials(*tokenStdin)
	if err != nil {
		fatal(err.Error())
	}
	if *tokenFile != "" {
		if token, err = control.ReadTokenFile(*tokenFile); err != nil {
			fatal("--token-file: " + err.Error())
		}
	}
	if *tlsCA != "" {
		pem, err := os.ReadFile(*tlsCA)
		if err != nil {
			fatal("--tls-ca: " + err.Error())
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			fatal("--tls-ca " + *tlsCA + ": no certificate")
		}
		tlsConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	done := make(chan struct{})
	var failed atomic.Bool
	var wg sync.WaitGroup
	for _, node := range nodes {
		nodeLog := logger
		if len(nodes) > 1 {
			nodeLog = logging.New(os.Stderr, logging.FromEnv(), *level, "eqclient "+node)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := client.Run(ctx, client.Options{Server: *server, Node: node, Token: token, WinSys: winsys.Choice(strings.ToLower(*ws)), Drawable: *drawable,
				TLS: tlsConfig, Log: nodeLog, NewRenderer: builtinRenderer, Null: *null, WaitServer: *wait})
			switch {
			case ctx.Err() != nil:
				nodeLog.Info("stopped by a signal")
			case err != nil:
				nodeLog.Error(err.Error())
				failed.Store(true)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	winsys.RunMain(done) // GLFW calls run on the main thread
	if failed.Load() {
		os.Exit(1)
	}
	os.Exit(0)
}

// builtinRenderer makes the built-in renderer the init data names: eqclient
// is an application like any other, with no say of its own in the runtime.
func builtinRenderer(p client.PipeInfo) (draw.Renderer, error) {
	var b render.Builtin
	if len(p.InitData) > 0 {
		if err := json.Unmarshal(p.InitData, &b); err != nil {
			return nil, fmt.Errorf("init data: %w", err)
		}
	}
	return b.New()
}
