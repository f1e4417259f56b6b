package server

import (
	"strings"
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

// A client that crashes in the GL driver prints a Go crash report; the
// node's loss names the signal, that it came in C code, and the Go
// functions that called into it, not the report's last line (a
// register). An X error is named by its error and request.
func TestACrashedClientIsNamedByItsCrash(t *testing.T) {
	report := `time=2026-11-28T05:37:29.100Z level=INFO msg="window system: EGL" component="eqclient app"
SIGSEGV: segmentation violation
PC=0x7fa04d6e00dc m=7 sigcode=1 addr=0x18
signal arrived during cgo execution

goroutine 41 gp=0xfe2946b6d20 m=7 mp=0xfe294500008 [syscall, locked to thread]:
runtime.cgocall(0x9f1e40, 0xfe2942e5d48)
	/usr/local/go/src/runtime/cgocall.go:167 +0x4b fp=0xfe2942e5d20 sp=0xfe2942e5ce8 pc=0x48356b
github.com/go-gl/gl/v3.3-core/gl._Cfunc_glowTexSubImage2D(0x7fa04d5e3a10, 0xde1, 0x0)
	_cgo_gotypes.go:18211 +0x45 fp=0xfe2942e5d48 sp=0xfe2942e5d20 pc=0x8a0b25
github.com/go-gl/gl/v3.3-core/gl.TexSubImage2D(...)
	/root/go/pkg/mod/github.com/go-gl/gl@v0.0.0/v3.3-core/gl/package.go:10307
github.com/goeq/goeq/internal/channel.(*Upload).fill(0xfe2943a2000, 0xfe2943c8000)
	/work/main/internal/channel/transfer.go:290 +0x1c5 fp=0xfe2942e5e10 sp=0xfe2942e5d48 pc=0x9c2c25
github.com/goeq/goeq/internal/channel.(*Pipe).StartUploadRelease.func1()
	/work/main/internal/channel/transfer.go:262 +0x9d fp=0xfe2942e5e60 sp=0xfe2942e5e10 pc=0x9c23fd
created by github.com/goeq/goeq/internal/channel.(*Pipe).helper in goroutine 37
	/work/main/internal/channel/pipe.go:159 +0x346

goroutine 1 gp=0xfe2940021c0 m=nil [select]:
main.main()
rip    0x7fa04d6e00dc
gs     0x0
`
	l := &lastLine{}
	for i := 0; i < len(report); i += 37 { // output arrives in pieces
		l.Write([]byte(report[i:min(i+37, len(report))]))
	}
	want := "SIGSEGV: segmentation violation in C code (a library: the GL driver?), called from gl._Cfunc_glowTexSubImage2D < gl.TexSubImage2D < channel.(*Upload).fill"
	if got := l.Crash(); got != want {
		t.Errorf("crash:\n got %s\nwant %s", got, want)
	}
	if got := l.String(); got != "gs     0x0" {
		t.Errorf("last line %q", got)
	}
	// Xlib's default handler of an X error exits the process after its
	// report, whose last line is a serial number (a window of the client
	// destroyed by another); and of a lost X connection (the X server
	// restarted)
	for report, want := range map[string]string{
		`X Error of failed request:  BadDrawable (invalid Pixmap or Window parameter)
  Major opcode of failed request:  14 (X_GetGeometry)
  Resource id in failed request:  0x200014
  Serial number of failed request:  3873
  Current serial number in output stream:  3873
`: "X Error of failed request: BadDrawable (invalid Pixmap or Window parameter) in request 14 (X_GetGeometry)",
		`XIO:  fatal IO error 11 (Resource temporarily unavailable) on X server ":90"
      after 3870 requests (3870 known processed) with 0 events remaining.
`: `XIO: fatal IO error 11 (Resource temporarily unavailable) on X server ":90"`,
	} {
		x := &lastLine{}
		x.Write([]byte(report))
		if got := x.Crash(); got != want {
			t.Errorf("Xlib's report:\n got %s\nwant %s", got, want)
		}
	}
	quiet := &lastLine{}
	quiet.Write([]byte("eqclient: connection to the server lost\nX11 forwarding is off\n"))
	if c := quiet.Crash(); c != "" {
		t.Errorf("a client that exited with an error was called crashed: %s", c)
	}
}

// A client that did not take goeq's client flag is explained by where
// its process parsed its flags first: an application's main, or a go test
// binary (it told a test to call Init first in main, where TestMain is
// the place).
func TestAClientThatParsedItsFlagsFirstIsExplained(t *testing.T) {
	args := []string{"--goeq-client"}
	for _, c := range []struct {
		binary, want string
	}{
		{"/usr/bin/myviewer", "call goeq.Init(app) first in main"},
		{"/tmp/go-build1/b001/viewer.test", "TestMain calls goeq.Init(app) before m.Run"},
	} {
		l := &lastLine{}
		l.Write([]byte("flag provided but not defined: -goeq-client\nUsage of viewer:\n  -config string\n"))
		if got := l.Why(c.binary, args); !strings.HasPrefix(got, "flag provided but not defined: -goeq-client: ") || !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: %q, want it to end %q", c.binary, got, c.want)
		}
	}
	l := &lastLine{}
	l.Write([]byte("flag provided but not defined: -frames\n"))
	if got := l.Why("/usr/bin/myviewer", args); got != "flag provided but not defined: -frames" {
		t.Errorf("a flag not of goeq's: %q", got)
	}
}
