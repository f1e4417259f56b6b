package logging

import (
	"log/slog"
	"strings"
	"testing"
)

// A prompt (where to start the clients) shows at any level a logger
// writes: under --log-level warn a server on a port the system chose
// said nothing of it.
func TestPromptShowsAtTheLevelsALoggerWrites(t *testing.T) {
	for _, c := range []struct {
		level slog.Level
		want  string
	}{
		{slog.LevelDebug, "level=INFO"},
		{slog.LevelInfo, "level=INFO"},
		{slog.LevelWarn, "level=WARN"},
		{slog.LevelError, "level=ERROR"},
	} {
		var b Buffer
		Prompt(New(&b, Text, c.level, "test"), "waiting for nodes app to join")
		if out := b.String(); !strings.Contains(out, "waiting for nodes app to join") || !strings.Contains(out, c.want) {
			t.Errorf("logger at %v wrote %q, want the prompt at %s", c.level, out, c.want)
		}
	}
}
