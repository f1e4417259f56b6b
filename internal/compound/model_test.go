package compound

import "testing"

// Pipes and windows need no name in a config: messages name them by
// their place. Nor need their names differ: messages name those whose
// names repeat in a node by their place too.
func TestLabels(t *testing.T) {
	node := &Node{ID: "node1"}
	named, unnamed := &Pipe{Name: "gpu1", Node: node}, &Pipe{Node: node}
	node.Pipes = []*Pipe{named, unnamed}
	w := &Window{Pipe: unnamed}
	unnamed.Windows = []*Window{{Name: "main", Pipe: unnamed}, w}
	// as Equalizer's 2-pipe.all: two pipes "GPU 0", each with a window
	// "window GPU 0", and two windows "fbo" in one of them
	twins := &Node{ID: "app"}
	gpu0, gpu1, gpu0again := &Pipe{Name: "GPU 0", Node: twins}, &Pipe{Name: "GPU 1", Node: twins}, &Pipe{Name: "GPU 0", Node: twins}
	twins.Pipes = []*Pipe{gpu0, gpu1, gpu0again}
	gpu0.Windows = []*Window{{Name: "window GPU 0", Pipe: gpu0}}
	gpu1.Windows = []*Window{{Name: "window GPU 0", Pipe: gpu1}, {Name: "alone", Pipe: gpu1}}
	gpu0again.Windows = []*Window{{Name: "fbo", Pipe: gpu0again}, {Name: "fbo", Pipe: gpu0again}}
	for _, c := range []struct{ got, want string }{
		{named.Label(), `pipe "gpu1"`},
		{unnamed.Label(), "pipe 2 of node node1"},
		{unnamed.Windows[0].Label(), `window "main"`},
		{w.Label(), "window 2 of pipe 2 of node node1"},
		{(&Window{}).Label(), "a window"},
		{gpu0.Label(), `pipe "GPU 0" (pipe 1 of node app)`},
		{gpu1.Label(), `pipe "GPU 1"`},
		{gpu0again.Label(), `pipe "GPU 0" (pipe 3 of node app)`},
		{gpu1.Windows[0].Label(), `window "window GPU 0" of pipe "GPU 1"`},
		{gpu1.Windows[1].Label(), `window "alone"`},
		{gpu0again.Windows[1].Label(), `window "fbo" (window 2 of pipe "GPU 0" (pipe 3 of node app))`},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
