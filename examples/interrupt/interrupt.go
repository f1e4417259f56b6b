// Package interrupt stops an example application's run the way its quit
// key does when the user interrupts it: Ctrl-C (SIGINT), SIGTERM, or
// SIGHUP as its terminal or ssh session closes. While the nodes set up (a
// model loading for minutes) the signal ends the start; afterwards it
// ends the frame loop, and the run goes on until Exit has finished and
// written the frames in flight. A second signal ends the process at once.
package interrupt

import (
	"context"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Watch is one run's watch for the signals.
type Watch struct {
	// Start is for goeq.Start: it ends when a signal comes while the
	// nodes set up (a goeq.Start context that ends later would end the
	// run itself, frames in flight and all).
	Start context.Context
	// Loop ends when a signal comes: the frame loop stops, and a wait for
	// events (Config.WaitEvents) returns.
	Loop context.Context

	mu       sync.Mutex
	started  bool
	caught   os.Signal
	endStart context.CancelFunc
}

// New starts watching for the signals.
func New() *Watch {
	w := &Watch{}
	loop, endLoop := context.WithCancel(context.Background())
	w.Start, w.endStart = context.WithCancel(context.Background())
	w.Loop = loop
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-signals
		signal.Stop(signals) // a second one: the default, at once
		w.mu.Lock()
		w.caught = sig
		if !w.started {
			w.endStart()
		}
		w.mu.Unlock()
		endLoop()
	}()
	return w
}

// Started says that goeq.Start has returned: a signal now ends the loop,
// not the run. When the start ended because of a signal, it says so and
// ends the process with 128 + the signal. So it does where the signal
// came after Start returned but before Started: Start's context, which
// the run goes on under, has ended, and so has the run, before any frame.
func (w *Watch) Started(err error) {
	w.mu.Lock()
	w.started = true
	sig := w.caught
	w.mu.Unlock()
	if sig == nil {
		return
	}
	if err == nil && w.Start.Err() != nil {
		err = w.Start.Err()
	}
	if err != nil {
		log.Printf("stopped by %v while the nodes set up (%v)", sig, err)
		os.Exit(128 + int(sig.(syscall.Signal)))
	}
}

// Exit ends the process with 128 + the signal when one came, saying so;
// it returns when none did.
func (w *Watch) Exit() {
	w.mu.Lock()
	sig := w.caught
	w.mu.Unlock()
	if sig != nil {
		log.Printf("stopped by %v", sig)
		os.Exit(128 + int(sig.(syscall.Signal)))
	}
}
