package client

import (
	"sync"
	"time"

	"goeq/channel"
	"goeq/transport"
)

// arrival is an input frame with its upload under way.
type arrival struct {
	frame  *transport.Frame
	upload *channel.Upload
}

type inboxKey struct {
	frame int
	name  string
}

// inbox holds arrived input frames until their assemble task takes them;
// frames whose producers died are abandoned so that nothing waits for
// them.
type inbox struct {
	mu        sync.Mutex
	cond      *sync.Cond
	frames    map[inboxKey]*arrival
	abandoned map[int]map[string]bool // frame -> producer channels
}

func newInbox() *inbox {
	b := &inbox{frames: map[inboxKey]*arrival{}, abandoned: map[int]map[string]bool{}}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *inbox) put(f *transport.Frame, up *channel.Upload) {
	b.mu.Lock()
	b.frames[inboxKey{f.Frame, f.Name}] = &arrival{frame: f, upload: up}
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *inbox) abandon(frame int, producers []string) {
	b.mu.Lock()
	if b.abandoned[frame] == nil {
		b.abandoned[frame] = map[string]bool{}
	}
	for _, p := range producers {
		b.abandoned[frame][p] = true
	}
	b.mu.Unlock()
	b.cond.Broadcast()
}

// inputTimeout bounds a wait even if the server never says a producer
// died: a frame is degraded rather than the node hanging.
const inputTimeout = 20 * time.Second

// wait returns the named input frame; ok is false when every producer of
// it was abandoned (or the wait timed out).
func (b *inbox) wait(frame int, name string, producers []string) (*arrival, bool) {
	deadline := time.Now().Add(inputTimeout)
	timer := time.AfterFunc(inputTimeout, b.cond.Broadcast)
	defer timer.Stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if a, ok := b.frames[inboxKey{frame, name}]; ok {
			delete(b.frames, inboxKey{frame, name})
			return a, true
		}
		all := len(producers) > 0
		for _, p := range producers {
			all = all && b.abandoned[frame][p]
		}
		if all || time.Now().After(deadline) {
			return nil, false
		}
		b.cond.Wait()
	}
}

// forget drops what is left of a finished frame.
func (b *inbox) forget(frame int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, a := range b.frames {
		if k.frame <= frame {
			a.upload.Wait() // the upload reads the frame's buffer
			a.frame.Release()
			delete(b.frames, k)
		}
	}
	for f := range b.abandoned {
		if f <= frame {
			delete(b.abandoned, f)
		}
	}
}
