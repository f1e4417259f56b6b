package compound

import "testing"

// Pipes and windows need no name in a config: messages name them by
// their place.
func TestLabels(t *testing.T) {
	node := &Node{ID: "node1"}
	named, unnamed := &Pipe{Name: "gpu1", Node: node}, &Pipe{Node: node}
	node.Pipes = []*Pipe{named, unnamed}
	w := &Window{Pipe: unnamed}
	unnamed.Windows = []*Window{{Name: "main", Pipe: unnamed}, w}
	for _, c := range []struct{ got, want string }{
		{named.Label(), `pipe "gpu1"`},
		{unnamed.Label(), "pipe 2 of node node1"},
		{unnamed.Windows[0].Label(), `window "main"`},
		{w.Label(), "window 2 of pipe 2 of node node1"},
		{(&Window{}).Label(), "a window"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
