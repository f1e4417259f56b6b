// Package control is the control plane between eqserver and its render
// clients: one gRPC bidirectional stream per client. Messages are JSON
// (a registered gRPC codec), so no code generation is needed. Every client
// authenticates with the shared token (gRPC metadata, compared in constant
// time); TLS is used when the server is given a certificate. Message sizes
// are bounded on both sides.
package control

import (
	"bytes"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// MaxMessage bounds a control message (a frame's tasks, statistics).
const MaxMessage = 8 << 20

type jsonCodec struct{}

func (jsonCodec) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (jsonCodec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
func (jsonCodec) Name() string                       { return "json" }

func init() { encoding.RegisterCodec(jsonCodec{}) }

// ClientMsg is what a render client sends.
type ClientMsg struct {
	Hello *Hello `json:"hello,omitempty"`
	Ready bool   `json:"ready,omitempty"` // set up: pipes, windows, channels open
	// LostPipes, sent with Ready, are the node's pipes that could not be
	// set up, which the config's robustness lets the run go on without.
	LostPipes []LostPipe `json:"lost_pipes,omitempty"`
	// FrameAddr, sent with Ready, is where the node takes frames when it
	// moved its listener from the hello's (Setup.FrameHost, FramePort).
	FrameAddr string `json:"frame_addr,omitempty"`
	// OnScreen, sent with Ready, counts the node's windows shown on a
	// display (the others draw offscreen: FBO, or no display opened).
	OnScreen int `json:"on_screen,omitempty"`
	// Failed says why the client could not set up; it exits after.
	Failed string `json:"failed,omitempty"`
	// Assembled says the node's destination channels finished a frame and
	// wait at the swap barrier.
	Assembled *int       `json:"assembled,omitempty"`
	Done      *FrameDone `json:"done,omitempty"`
	Heartbeat *Heartbeat `json:"heartbeat,omitempty"`
	Pull      *Pull      `json:"pull,omitempty"`
	// Events are input events of the node's on-screen windows, in order.
	Events []WindowEvent `json:"events,omitempty"`
	// Preview is a destination's image for the dashboard.
	Preview *Preview `json:"preview,omitempty"`
}

// LostPipe is a pipe a client could not set up: its index among its
// node's pipes in the config, and why.
type LostPipe struct {
	Pipe   int    `json:"pipe"`
	Reason string `json:"reason"`
}

// PipeEventKind is the Kind of a WindowEvent that is no window's: a
// renderer's event for the application (its Data), beyond the window
// system's kinds.
const PipeEventKind = 100

// NodeLostKind and NodeJoinedKind are the server's events for the
// application, no window's either: the run lost a node (Why says why), or
// a node joined mid-run (again, or late). A client's events of these
// kinds are not taken.
const (
	NodeLostKind   = 101
	NodeJoinedKind = 102
)

// MaxEventData bounds a renderer's event for the application (encoded):
// a batch of 256 stays well within MaxMessage.
const MaxEventData = 16 << 10

// WindowEvent is an input event of an on-screen window. X, Y is the
// pointer in the view of the channel under it (0 to 1 from the bottom
// left).
type WindowEvent struct {
	Kind     int     `json:"kind"`              // winsys.EventKind
	Window   string  `json:"window"`            // the config's name
	WindowID string  `json:"window_id"`         // compound.Window.ID
	Channel  string  `json:"channel,omitempty"` // ID
	View     int     `json:"view"`              // the channel's, in compound.Config.Views; -1: none
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	DX       float64 `json:"dx,omitempty"`
	DY       float64 `json:"dy,omitempty"`
	Button   int     `json:"button,omitempty"`
	Key      int     `json:"key,omitempty"`
	Mods     int     `json:"mods,omitempty"` // winsys.ModShift...
	// W x H is set on resize events only: the window's new size (0x0
	// while it is minimised).
	W int `json:"w,omitempty"`
	H int `json:"h,omitempty"`
	// Pipe and Data are a renderer's event (PipeEventKind): its pipe's
	// name and what it sent.
	Pipe string `json:"pipe,omitempty"`
	Data []byte `json:"data,omitempty"`
	// Why is a NodeLostKind event's reason.
	Why string `json:"why,omitempty"`
	// Time is when the window's node saw the event (a renderer sent it),
	// in Unix nanoseconds on that machine's clock: how far apart two
	// events of a window were, which their batched delivery hides.
	Time int64 `json:"time,omitempty"`
}

// Hello introduces a client: its node and where it receives frames.
type Hello struct {
	Node      string `json:"node"`
	FrameAddr string `json:"frame_addr"`
	PID       int    `json:"pid"`
	Build     string `json:"build,omitempty"` // the goeq source the client was built from (Build)
}

// Heartbeat shows the client alive, with what its channels wait for.
type Heartbeat struct {
	Waits []Wait `json:"waits,omitempty"`
	// the client process's health: its goroutines and resident memory
	Goroutines int   `json:"goroutines,omitempty"`
	RSS        int64 `json:"rss,omitempty"`
	// SettingUp, until the client is ready, says what its set-up is doing
	// and for how long (a renderer factory loading the application's data).
	SettingUp string `json:"setting_up,omitempty"`
	// Exiting: the run has stopped, every pipe has ended its frames, and
	// the renderers run their Exit (the application's code, which the
	// server waits for)
	Exiting bool `json:"exiting,omitempty"`
}

// Wait is a channel waiting in a frame; channel IDs in What are written
// {id}.
type Wait struct {
	Frame   int    `json:"frame"`
	Channel string `json:"channel"`
	What    string `json:"what"`
}

// Pull asks for the next items of a tile queue for a channel.
type Pull struct {
	Frame   int    `json:"frame"`
	Channel string `json:"channel"`
	Queue   string `json:"queue"`
	Max     int    `json:"max"`
}

// FrameDone reports a finished frame with its statistics.
type FrameDone struct {
	Frame   int            `json:"frame"`
	Records []stats.Record `json:"records"`
	Error   string         `json:"error,omitempty"`
	// Degraded lists input frames that never came (their producer died).
	Degraded []string `json:"degraded,omitempty"`
	// Written lists the PNG files the node wrote for this frame.
	Written []string `json:"written,omitempty"`
	// Warnings are what went wrong without failing the frame: a
	// screenshot that could not be written.
	Warnings []string `json:"warnings,omitempty"`
	// Links is what the node sent for this frame, by consumer and codec.
	Links []LinkBytes `json:"links,omitempty"`
}

// ServerMsg is what the server sends.
type ServerMsg struct {
	Setup   *Setup     `json:"setup,omitempty"`
	Frame   *FrameWork `json:"frame,omitempty"`
	Abandon *Abandon   `json:"abandon,omitempty"`
	Repair  *Repair    `json:"repair,omitempty"`
	Swap    *int       `json:"swap,omitempty"` // release the swap barrier of a frame
	Grant   *Grant     `json:"grant,omitempty"`
	Stop    bool       `json:"stop,omitempty"`
	// Dropped tells a node the run went on without it, and why (it was
	// lost: silent too long, as a stopped process is): its client ends, and
	// started again it rejoins.
	Dropped string `json:"dropped,omitempty"`
	// Earlier has the application's cluster events of frames before the
	// next FrameWork that this session was not sent (it joined mid-run,
	// or again): its renderers, new, take them first, in order, and hold
	// what the others hold.
	Earlier []FrameMessages `json:"earlier,omitempty"`
}

// FrameMessages are the application's cluster events of one frame.
type FrameMessages struct {
	Frame    int      `json:"frame"`
	Messages [][]byte `json:"messages"`
}

// Size is what the frame's messages cost to hold and to send: their
// bytes, and what each frame and message costs beside them (in memory,
// and in JSON), so that a run of frames with a tiny message each, or
// none, is bounded too. The server and its clients bound earlier
// messages by it.
func (fm FrameMessages) Size() int {
	n := 64
	for _, m := range fm.Messages {
		n += 16 + len(m)
	}
	return n
}

// Setup tells a client what to run.
type Setup struct {
	ConfigName string `json:"config_name"`
	ConfigText string `json:"config_text"`
	// Defaults are the server's EQ_* environment defaults: the client
	// resolves the config with them, not with its own environment, so
	// that every process has one model (a fullscreen hint sizes windows).
	Defaults      map[string]string `json:"defaults,omitempty"`
	Node          string            `json:"node"`
	OutDir        string            `json:"out_dir"`
	DumpEvery     int               `json:"dump_every"`
	Codec         string            `json:"codec"` // auto, none, s2, ...
	Drawable      string            `json:"drawable"`
	AsyncReadback bool              `json:"async_readback"`
	// FullReadback reads back whole regions instead of what was drawn.
	FullReadback bool `json:"full_readback,omitempty"`
	// Merge is where destinations depth-merge sort-last inputs: auto
	// (the CPU under a software GL), gpu or cpu.
	Merge string `json:"merge,omitempty"`
	// InputTimeout bounds a frame's wait for its inputs, and at the swap
	// barrier, on the client. The server's frame timeout fails a frame
	// that is stuck first; this bound is for a server that went quiet.
	InputTimeout time.Duration `json:"input_timeout"`
	// InitData is the application's init data (encoded once, by the
	// application), handed to every renderer factory.
	InitData []byte `json:"init_data,omitempty"`
	// BlendRanges: the client resolves the config as the server did for
	// renderers that blend database ranges (compound.Options.BlendRanges).
	BlendRanges bool `json:"blend_ranges,omitempty"`
	// PreviewEvery, when above zero, asks for a small image of each
	// destination channel at most this often (the dashboard's).
	PreviewEvery time.Duration `json:"preview_every,omitempty"`
	// FrameCert and FrameKey, when set, are the run's frame-link keys
	// (PEM): pixel links between nodes are then TLS 1.3 with them.
	FrameCert []byte `json:"frame_cert,omitempty"`
	FrameKey  []byte `json:"frame_key,omitempty"`
	// FrameHost and FramePort, for a node on another host, are its config
	// connection's hostname and port: the node takes frames on the
	// hostname's address where that is one of its own (a cluster's data
	// network) and on the port where one is named (a firewall opens it).
	// The client moves its listener there and says so with Ready.
	FrameHost string `json:"frame_host,omitempty"`
	FramePort int    `json:"frame_port,omitempty"`
}

// MaxPreview bounds a preview image (JPEG).
const MaxPreview = 512 << 10

// Preview is a destination channel's image of a frame, small, as JPEG.
type Preview struct {
	Channel string `json:"channel"`
	Frame   int    `json:"frame"`
	JPEG    []byte `json:"jpeg"`
}

// LinkBytes is what a node sent to a channel's node with one codec in a
// frame (encoded).
type LinkBytes struct {
	To    string `json:"to"` // the consuming channel
	Codec string `json:"codec"`
	Bytes int    `json:"bytes"`
}

// Palette is the colours channels are told apart by, in the statistics
// overlay and on the dashboard: a channel's colour is
// Palette[ColourIndex % len(Palette)].
var Palette = [][3]uint8{{230, 25, 75}, {60, 180, 75}, {67, 99, 216}, {245, 130, 49}, {145, 30, 180}, {66, 212, 244},
	{240, 50, 230}, {191, 239, 69}, {250, 190, 212}, {70, 153, 144}, {220, 190, 255}, {154, 99, 36}}

// OverlayPart is one channel's work for a destination in a frame, as the
// statistics overlay draws it: its times as bars, its share as an outline.
type OverlayPart struct {
	Destination string            `json:"destination"` // channel ID
	Label       string            `json:"label"`
	Colour      int               `json:"colour"` // index into Palette
	Viewport    compound.Viewport `json:"viewport"`
	Range       compound.Range    `json:"range"`
	Times       stats.Times       `json:"times"`
}

// ChannelWork is one channel's tasks for a frame.
type ChannelWork struct {
	Channel string         `json:"channel"` // compound.Channel.ID
	Tasks   []planner.Task `json:"tasks"`
	// Viewport and WindowSize are the channel's pixel viewport and its
	// window's size this frame (a user may have resized the window).
	Viewport   compound.PixelViewport `json:"viewport"`
	WindowSize compound.Size          `json:"window_size"`
	// Destination: the channel shows a result (present it, write its PNG),
	// of the config's view View (-1: none).
	Destination bool `json:"destination,omitempty"`
	View        int  `json:"view"`
	// Aside: a stand-in's plan for lost channels (planner.ChannelPlan.Aside)
	Aside bool `json:"aside,omitempty"`
}

// FrameWork is a node's work for one frame, with the frame addresses of
// the nodes its outputs go to.
type FrameWork struct {
	Frame    int               `json:"frame"`
	Channels []ChannelWork     `json:"channels"`
	Peers    map[string]string `json:"peers,omitempty"` // channel ID -> frame address; sent when they changed
	// SwapBarrier: destinations on several nodes show this frame together
	// (wait for Swap).
	SwapBarrier bool `json:"swap_barrier,omitempty"`
	// Pace is the least time from the node's destinations showing the
	// frame before to their showing this one (the framerate equalizer's
	// interval), so that a time multiplex's frames show evenly spaced;
	// zero: as soon as they are done.
	Pace time.Duration `json:"pace,omitempty"`
	// Blank are the node's windows (IDs) that the layouts used and do not
	// use from this frame on (a destination's, or a source's of it): they
	// go black.
	Blank []string `json:"blank,omitempty"`
	// Data is the application's frame data for this frame. Only what
	// changed travels: DataKept says it is the same as the previous
	// frame's the node was sent.
	Data     []byte `json:"data,omitempty"`
	DataKept bool   `json:"data_kept,omitempty"`
	// Overlay is what the statistics overlay draws over this node's
	// destinations: the last frame completed when this one started.
	Overlay []OverlayPart `json:"overlay,omitempty"`
	// Screenshot, when set, is a folder the frame's destination images go
	// into as PNG (named as under OutDir), as the application asked.
	Screenshot string `json:"screenshot,omitempty"`
	// Sample, from 1 to MaxRefineSamples, makes the frame a refinement of
	// the one before (goeq.Config.Refine): its draws are offset by that
	// subpixel sample, and destinations show the average of the refined
	// frames.
	Sample int `json:"sample,omitempty"`
	// Messages are the application's cluster events for this frame: every
	// node gets the frame, and every pipe's renderer takes them before
	// drawing it.
	Messages [][]byte `json:"messages,omitempty"`
}

// Abandon tells nodes that inputs of a frame in flight will not come.
type Abandon struct {
	Frame     int      `json:"frame"`
	Producers []string `json:"producers"` // channel IDs
	// From is the lost node they were on: what it sent before it died may
	// still be on its way, and is taken
	From string `json:"from,omitempty"`
}

// Repair has the pipe of some channels (For, IDs) draw lost channels'
// parts of a frame in flight, which go to them, and hand them to them
// under the lost channels' names (scheduler.Repair).
type Repair struct {
	Frame int           `json:"frame"`
	For   []string      `json:"for"`
	Lost  []ChannelWork `json:"lost"`
	// Feeders are live channels' parts that send the lost ones frames, or
	// each other (scheduler.Repair.Feeders)
	Feeders []ChannelWork `json:"feeders,omitempty"`
	// Grants are the tile queue items the lost channels were handed, and
	// the feeders' live channels (Repair set)
	Grants []Grant `json:"grants,omitempty"`
	// Reading are lost channels (IDs) handed all their tile queue items
	// with the repair, which pull none (scheduler.Repair.Reading)
	Reading []string `json:"reading,omitempty"`
}

// Grant hands a channel tile queue items.
type Grant struct {
	Frame   int                      `json:"frame"`
	Channel string                   `json:"channel"`
	Queue   string                   `json:"queue"`
	First   int                      `json:"first"`
	Tiles   []compound.PixelViewport `json:"tiles,omitempty"`
	Ranges  []compound.Range         `json:"ranges,omitempty"`
	Done    bool                     `json:"done,omitempty"`
	// Repair: for the parts of repairs that draw Channel's items again
	// (scheduler.Grant.Repair)
	Repair bool `json:"repair,omitempty"`
}

// ServiceName and the stream method, spelled as gRPC paths.
const (
	ServiceName = "goeq.Control"
	sessionPath = "/goeq.Control/Session"
)

// Handler serves client sessions.
type Handler interface {
	Session(stream grpc.ServerStream, node string) error
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: ServiceName,
	HandlerType: (*Handler)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName:    "Session",
		ServerStreams: true,
		ClientStreams: true,
		Handler: func(srv any, stream grpc.ServerStream) error {
			md, _ := metadata.FromIncomingContext(stream.Context())
			return srv.(Handler).Session(stream, first(md, "node"))
		},
	}},
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// NewServer returns a gRPC server for h that refuses clients without the
// token (logging who was refused). tlsConfig may be nil.
func NewServer(h Handler, token string, tlsConfig *tls.Config, logger *slog.Logger) *grpc.Server {
	check := func(ctx context.Context) error {
		md, _ := metadata.FromIncomingContext(ctx)
		if subtle.ConstantTimeCompare([]byte(first(md, "token")), []byte(token)) == 1 {
			return nil
		}
		from := "unknown address"
		if p, ok := peer.FromContext(ctx); ok {
			from = p.Addr.String()
		}
		logger.Warn(fmt.Sprintf("control: refused client %s (node %q): wrong or missing token", from, first(md, "node")))
		return status.Error(codes.Unauthenticated, "wrong or missing token")
	}
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessage), grpc.MaxSendMsgSize(MaxMessage),
		// clients ping every pingEvery (Dial); the default policy takes
		// pings more often than every 5 minutes for abuse
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: pingEvery / 2}),
		grpc.ConnectionTimeout(handshakeTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: idleTimeout}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if err := check(ss.Context()); err != nil {
				return err
			}
			return handler(srv, ss)
		}),
	}
	if tlsConfig != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsConfig)))
	}
	s := grpc.NewServer(opts...)
	s.RegisterService(&serviceDesc, h)
	return s
}

// Stream is a client's session with the server.
type Stream struct {
	grpc.ClientStream
	conn *grpc.ClientConn
}

// A render client must not wait for ever on a server that is gone, nor
// give up on one that only stands still.
//
// A server host that is gone, or a cut link, is the kernel's to find: the
// client's connection sends keep-alive probes once it is quiet for
// hostTimeout/4 and gives up after three unanswered ones, and data it
// sent that stays unacknowledged for hostTimeout ends it too
// (limitUnacknowledged). A server process that stopped on a live host (at
// a debugger's breakpoint, by SIGSTOP) keeps its kernel answering, and
// its clients keep their work and wait: the application goes on where it
// stopped. gRPC's ping, which the server's process answers and not its
// kernel, bounds that wait: when the stream has been quiet for pingEvery
// (gRPC's least) it pings, and it gives the session up when no answer
// comes within pingTimeout.
var (
	hostTimeout = 20 * time.Second
	pingEvery   = 10 * time.Second
	pingTimeout = 10 * time.Minute
)

// DialHost dials addr over TCP so that a host that is gone, or a cut
// link, ends the connection within hostTimeout (keep-alive probes once it
// is quiet, TCP_USER_TIMEOUT while data waits), whatever its peer's
// process does: a client's session and an application's connection to
// its eqserver are dialled this way.
func DialHost(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: hostTimeout / 4, Interval: hostTimeout / 4, Count: 3},
		Control:         func(_, _ string, c syscall.RawConn) error { return limitUnacknowledged(c) },
	}
	return d.DialContext(ctx, "tcp", addr)
}

// hostBound hides its *net.TCPConn from gRPC, which would set the
// socket's TCP_USER_TIMEOUT to the ping's timeout, over hostTimeout.
type hostBound struct{ net.Conn }

// ServerWait is how long a client waits on a server that stopped
// answering while its host and link stay up: what it waits for at a frame
// may have to come from the server (tiles, the swap barrier's release),
// so it waits that long there too.
func ServerWait() time.Duration { return pingEvery + pingTimeout }

// Dial opens a session: the token and node name travel as metadata.
// tlsConfig nil means plaintext.
func Dial(ctx context.Context, addr, token, node string, tlsConfig *tls.Config) (*Stream, error) {
	creds := insecure.NewCredentials()
	if tlsConfig != nil {
		creds = credentials.NewTLS(tlsConfig)
	}
	// passthrough: the dialer resolves the name, and says why it could
	// not ("no such host"), where gRPC's resolver said only that it
	// "produced zero addresses"
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			c, err := DialHost(ctx, addr)
			if err != nil {
				return nil, err
			}
			return hostBound{c}, nil
		}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: pingEvery, Timeout: pingTimeout}),
		grpc.WithDefaultCallOptions(grpc.CallContentSubtype("json"), grpc.MaxCallRecvMsgSize(MaxMessage), grpc.MaxCallSendMsgSize(MaxMessage)))
	if err != nil {
		return nil, err
	}
	ctx = metadata.AppendToOutgoingContext(ctx, "token", token, "node", node)
	cs, err := conn.NewStream(ctx, &serviceDesc.Streams[0], sessionPath, grpc.CallContentSubtype("json"))
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &Stream{ClientStream: cs, conn: conn}, nil
}

// Send sends a client message.
func (s *Stream) Send(m *ClientMsg) error { return s.SendMsg(m) }

// Recv receives a server message.
func (s *Stream) Recv() (*ServerMsg, error) {
	m := &ServerMsg{}
	if err := s.RecvMsg(m); err != nil {
		return nil, err
	}
	return m, nil
}

// Close ends the session.
func (s *Stream) Close() error {
	s.CloseSend()
	return s.conn.Close()
}

// ErrorText makes an error message for the log from a gRPC error: its
// code says what failed ("Unavailable: ... connection refused"), except
// Unknown, the code of every error the server's handlers return (a
// refusal: "unknown node ...").
func ErrorText(err error) string {
	if s, ok := status.FromError(err); ok {
		if s.Code() == codes.Unknown {
			return s.Message()
		}
		return fmt.Sprintf("%s: %s", s.Code(), s.Message())
	}
	return err.Error()
}

// ExplainConnect adds what a failed connection to a control port most
// likely means: a plaintext client at a TLS port sees the server hang up
// before gRPC's preface; a TLS client at a plaintext port sees a first
// record that is no TLS handshake; an unknown certificate fails
// verification; a program that speaks another protocol first (an sshd's
// banner, an HTTP server's answer) sends what is no HTTP/2 frame.
func ExplainConnect(err error, usingTLS bool) string {
	text := ErrorText(err)
	switch {
	case strings.Contains(text, "server preface") && strings.Contains(text, "frame too large"):
		return text + " (another protocol answers at this address: another program's port, or eqserver run --app's application port, rather than eqserver's control port?)"
	case !usingTLS && (strings.Contains(text, "server preface") || strings.Contains(text, "connection reset")):
		return text + " (the control port may be TLS: give the client its CA, eqclient --tls-ca, or let eqserver launch it)"
	case strings.Contains(text, "unexpected HTTP status code"):
		return text + " (an HTTP server that is no eqserver answers at this address)"
	case usingTLS && strings.Contains(text, "first record does not look like a TLS handshake"):
		return text + " (TLS: the control port does not speak TLS; drop --tls-ca)"
	case usingTLS && (strings.Contains(text, "certificate") || strings.Contains(text, "x509")):
		return text + " (TLS: the server's certificate is not the one trusted)"
	}
	return text
}

// PinnedTLS is a client TLS configuration that trusts exactly the
// certificate in certPEM (eqserver hands its launched clients its own).
func PinnedTLS(certPEM []byte) (*tls.Config, error) {
	block, _ := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate to trust")
	}
	pinned := block.Bytes
	return &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true, // verified below: this certificate only
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !bytes.Equal(raw[0], pinned) {
				return errors.New("TLS: the control port's certificate is not the one eqserver handed out")
			}
			return nil
		}}, nil
}

// MaxRefineSamples is how many subpixel samples a refinement takes
// (FrameWork.Sample).
const MaxRefineSamples = 16
