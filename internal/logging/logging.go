// Package logging makes the loggers of goeq's processes: log/slog records,
// as text (the default) or as JSON lines (`--log-format json`), each with
// the component that wrote it (eqserver, a node's client). Launched
// clients inherit the format through GOEQ_LOG_FORMAT.
package logging

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// Format is how log records are written.
type Format string

// The formats.
const (
	Text Format = "text"
	JSON Format = "json"
)

// EnvFormat is the environment variable that carries the format to
// launched render clients.
const EnvFormat = "GOEQ_LOG_FORMAT"

// ParseFormat checks a --log-format value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case Text, JSON:
		return Format(s), nil
	case "":
		return Text, nil
	}
	return "", fmt.Errorf("log format %q: want text or json", s)
}

// FromEnv is the format launched clients inherit (text when unset or
// unknown).
func FromEnv() Format {
	f, err := ParseFormat(os.Getenv(EnvFormat))
	if err != nil {
		return Text
	}
	return f
}

// New returns a logger that writes the component's records of level and
// above in format f. goeq logs what a run does at INFO, what it survives
// (a node lost, a frame dropped, a client refused) at WARN, and what ends
// it at ERROR, so that a filter on the level finds the faults.
func New(w io.Writer, f Format, level slog.Level, component string) *slog.Logger {
	opt := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if f == JSON {
		h = slog.NewJSONHandler(w, opt)
	} else {
		h = slog.NewTextHandler(w, opt)
	}
	return slog.New(h.WithAttrs([]slog.Attr{slog.String("component", component)}))
}

// ParseLevel reads a --log-level value: debug, info, warn or error (or
// slog's offsets from them, as "error+4").
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("log level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// LevelFlag defines --log-level on fs: the lowest level of the records
// written (INFO unless set).
func LevelFlag(fs *flag.FlagSet) *slog.Level {
	l := new(slog.Level)
	fs.Func("log-level", "write the log records of this level and above: debug, info, warn or error (default info)", func(s string) error {
		v, err := ParseLevel(s)
		*l = v
		return err
	})
	return l
}

// LevelOf is the lowest of slog's four levels that a logger writes (one
// above ERROR when it writes none): the server's launched clients write
// from the same level, so that an application whose logger leaves out
// INFO is not shown its clients' INFO either.
func LevelOf(l *slog.Logger) slog.Level {
	for _, lv := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		if l.Enabled(context.Background(), lv) {
			return lv
		}
	}
	return slog.LevelError + 4
}

// Prompt logs what the user must act on (where to start clients or an
// application): at INFO, or at the lowest level the logger writes where
// it leaves INFO out (--log-level warn), so that a server on a port the
// system chose still says which.
func Prompt(l *slog.Logger, msg string) {
	l.Log(context.Background(), max(LevelOf(l), slog.LevelInfo), msg)
}

// Buffer collects a log's text from goroutines that write at once: a
// test's logger, or a process's output, read while it runs.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
