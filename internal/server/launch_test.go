package server

import (
	"testing"

	"github.com/goeq/goeq/internal/compound"
)

// launchLine expands %h, %n and %c, quoting each argument of the client's
// command line with launch_command_quote (a single quote when none is
// given).
func TestLaunchLineExpansion(t *testing.T) {
	node := &compound.Node{ID: "render1", Host: "gpu7", Attributes: map[string]string{"launch_command": "ssh %h env NODE=%n %c"}}
	args := []string{"--server", "10.0.0.1:4242", "--node", "render1"}
	if got, want := launchLine(node, "/opt/goeq/eqclient", args),
		`ssh gpu7 env NODE=render1 '/opt/goeq/eqclient' '--server' '10.0.0.1:4242' '--node' 'render1'`; got != want {
		t.Errorf("default quote:\n got %s\nwant %s", got, want)
	}
	node.Attributes["launch_command_quote"] = `'"'`
	if got, want := launchLine(node, "/opt/goeq/eqclient", args[:2]),
		`ssh gpu7 env NODE=render1 "/opt/goeq/eqclient" "--server" "10.0.0.1:4242"`; got != want {
		t.Errorf(`quote '"':`+"\n got %s\nwant %s", got, want)
	}
	delete(node.Attributes, "launch_command")
	delete(node.Attributes, "launch_command_quote")
	if got, want := launchLine(node, "eqclient", nil), `ssh gpu7 'eqclient'`; got != want {
		t.Errorf("default command: got %s, want %s", got, want)
	}
}
