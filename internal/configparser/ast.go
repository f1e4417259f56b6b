package configparser

import "github.com/alecthomas/participle/v2/lexer"

// The AST mirrors the .eqc text: every block keeps its fields in source order
// (fmt prints them back in that order) and every field keeps its position
// (errors and comment placement use it). Each block is a list of fields whose
// struct is an alternation: exactly one member is set.

// File is a whole .eqc file.
type File struct {
	Pos    lexer.Position
	Header *Header `parser:"@@?"`
	Global *Global `parser:"@@?"`
	Server *Server `parser:"( @@"`
	Config *Config `parser:"| @@ )"`
}

// Header is `#Equalizer <version> ascii`.
type Header struct {
	Pos     lexer.Position
	Version *Float `parser:"'#Equalizer' @@ 'ascii'"`
}

// Close records the position of a block's closing brace so that comments
// written just before it stay inside the block.
type Close struct {
	Pos   lexer.Position
	Brace string `parser:"@'}'"`
}

// ---- values ---------------------------------------------------------------

// Str is a double-quoted string; Raw keeps the quotes.
type Str struct {
	Pos lexer.Position
	Raw string `parser:"@String"`
}

// Float is any number where Equalizer accepts FLOAT (integers included).
type Float struct {
	Pos lexer.Position
	Raw string `parser:"@(Float | Int | NumberF)"`
}

// Uint is a number where Equalizer accepts UNSIGNED; the sign is checked
// after parsing so that the error can say what was wrong.
type Uint struct {
	Pos lexer.Position
	Raw string `parser:"@(Int | NumberF)"`
}

// Int is a signed integer.
type Int struct {
	Pos lexer.Position
	Raw string `parser:"@(Int | NumberF)"`
}

// Char is a single quoted character such as '"'.
type Char struct {
	Pos lexer.Position
	Raw string `parser:"@Char"`
}

// IAttr is an integer attribute value: a symbolic constant or a number.
type IAttr struct {
	Pos    lexer.Position
	Word   string `parser:"( @('ON' | 'OFF' | 'AUTO' | 'FASTEST' | 'NICEST' | 'HORIZONTAL' | 'VERTICAL' | 'QUAD' | 'ANAGLYPH' | 'anaglyph' | 'PASSIVE' | 'window' | 'FBO' | 'pbuffer' | 'ASYNC' | 'async' | 'DRAW_SYNC' | 'draw_sync' | 'LOCAL_SYNC' | 'local_sync' | 'RGBA16F' | 'RGBA32F' | 'fixed' | 'relative_to_origin' | 'relative_to_observer')"`
	Core   *Int   `parser:"| 'CORE' @@"`
	Socket *Int   `parser:"| 'SOCKET' @@"`
	Number *Int   `parser:"| @@ )"`
}

// Vec2 is `[ a b ]` of floats.
type Vec2 struct {
	Pos lexer.Position
	V   []*Float `parser:"'[' @@ @@ ']'"`
}

// Vec3 is `[ a b c ]` of floats.
type Vec3 struct {
	Pos lexer.Position
	V   []*Float `parser:"'[' @@ @@ @@ ']'"`
}

// Viewport is `[ x y w h ]`.
type Viewport struct {
	Pos lexer.Position
	V   []*Float `parser:"'[' @@ @@ @@ @@ ']'"`
}

// Uint2 is `[ a b ]` of unsigned integers.
type Uint2 struct {
	Pos lexer.Position
	V   []*Uint `parser:"'[' @@ @@ ']'"`
}

// Uint4 is `[ a b c d ]` of unsigned integers.
type Uint4 struct {
	Pos lexer.Position
	V   []*Uint `parser:"'[' @@ @@ @@ @@ ']'"`
}

// Flags is a bracketed list of keywords: tasks, eyes, buffers, masks.
type Flags struct {
	Pos   lexer.Position
	Words []*Word `parser:"'[' @@* ']'"`
}

// Word is one keyword of a Flags list.
type Word struct {
	Pos   lexer.Position
	Value string `parser:"@Ident"`
}

// ---- global ---------------------------------------------------------------

// Global is the `global { EQ_* value ... }` block.
type Global struct {
	Pos    lexer.Position
	Fields []*GlobalField `parser:"'global' '{' @@*"`
	Close  *Close         `parser:"@@"`
}

// GlobalField is one EQ_* attribute; keys are grouped by the type of value.
type GlobalField struct {
	Pos      lexer.Position
	StrKey   string `parser:"  @('EQ_CONNECTION_SATTR_HOSTNAME' | 'EQ_CONNECTION_SATTR_FILENAME' | 'EQ_CONNECTION_SATTR_PIPE_FILENAME' | 'EQ_NODE_SATTR_LAUNCH_COMMAND' | 'EQ_CONNECTION_SATTR_LAUNCH_COMMAND' | 'EQ_CHANNEL_SATTR_DUMP_IMAGE' | 'EQ_VIEW_SATTR_DISPLAYCLUSTER' | 'EQ_VIEW_SATTR_DEFLECT_HOST')"`
	Str      *Str   `parser:"  @@"`
	UintKey  string `parser:"| @('EQ_CONNECTION_IATTR_PORT' | 'EQ_CONNECTION_IATTR_TCPIP_PORT' | 'EQ_CONNECTION_IATTR_BANDWIDTH' | 'EQ_NODE_IATTR_LAUNCH_TIMEOUT' | 'EQ_CONNECTION_IATTR_LAUNCH_TIMEOUT')"`
	Uint     *Uint  `parser:"  @@"`
	FloatKey string `parser:"| @('EQ_CONFIG_FATTR_EYE_BASE' | 'EQ_CONFIG_FATTR_FOCUS_DISTANCE')"`
	Float    *Float `parser:"  @@"`
	CharKey  string `parser:"| @('EQ_NODE_CATTR_LAUNCH_COMMAND_QUOTE' | 'EQ_CONNECTION_CATTR_LAUNCH_COMMAND_QUOTE')"`
	Char     *Char  `parser:"  @@"`
	MaskKey  string `parser:"| @('EQ_COMPOUND_IATTR_STEREO_ANAGLYPH_LEFT_MASK' | 'EQ_COMPOUND_IATTR_STEREO_ANAGLYPH_RIGHT_MASK')"`
	Mask     *Flags `parser:"  @@"`
	TypeKey  string `parser:"| @('EQ_CONNECTION_IATTR_TYPE')"`
	Type     string `parser:"  @('TCPIP' | 'SDP' | 'PIPE' | 'RSP' | 'RDMA' | 'UDT')"`
	IKey     string `parser:"| @('EQ_CONFIG_IATTR_ROBUSTNESS' | 'EQ_CONFIG_IATTR_FOCUS_MODE' | 'EQ_NODE_IATTR_THREAD_MODEL' | 'EQ_NODE_IATTR_HINT_AFFINITY' | 'EQ_NODE_IATTR_HINT_STATISTICS' | 'EQ_PIPE_IATTR_HINT_THREAD' | 'EQ_PIPE_IATTR_HINT_AFFINITY' | 'EQ_PIPE_IATTR_HINT_CUDA_GL_INTEROP' | 'EQ_WINDOW_IATTR_HINT_STEREO' | 'EQ_WINDOW_IATTR_HINT_DOUBLEBUFFER' | 'EQ_WINDOW_IATTR_HINT_FULLSCREEN' | 'EQ_WINDOW_IATTR_HINT_DECORATION' | 'EQ_WINDOW_IATTR_HINT_SWAPSYNC' | 'EQ_WINDOW_IATTR_HINT_DRAWABLE' | 'EQ_WINDOW_IATTR_HINT_STATISTICS' | 'EQ_WINDOW_IATTR_HINT_SCREENSAVER' | 'EQ_WINDOW_IATTR_HINT_GRAB_POINTER' | 'EQ_WINDOW_IATTR_HINT_WIDTH' | 'EQ_WINDOW_IATTR_HINT_HEIGHT' | 'EQ_WINDOW_IATTR_HINT_CORE_PROFILE' | 'EQ_WINDOW_IATTR_HINT_OPENGL_MAJOR' | 'EQ_WINDOW_IATTR_HINT_OPENGL_MINOR' | 'EQ_WINDOW_IATTR_PLANES_COLOR' | 'EQ_WINDOW_IATTR_PLANES_ALPHA' | 'EQ_WINDOW_IATTR_PLANES_DEPTH' | 'EQ_WINDOW_IATTR_PLANES_STENCIL' | 'EQ_WINDOW_IATTR_PLANES_ACCUM' | 'EQ_WINDOW_IATTR_PLANES_ACCUM_ALPHA' | 'EQ_WINDOW_IATTR_PLANES_SAMPLES' | 'EQ_CHANNEL_IATTR_HINT_STATISTICS' | 'EQ_CHANNEL_IATTR_HINT_SENDTOKEN' | 'EQ_COMPOUND_IATTR_STEREO_MODE' | 'EQ_COMPOUND_IATTR_UPDATE_FOV')"`
	IAttr    *IAttr `parser:"  @@"`
}

// ---- server, connections --------------------------------------------------

// Server is `server { connection {...}* config {...}+ }`.
type Server struct {
	Pos         lexer.Position
	Connections []*Connection `parser:"'server' '{' @@*"`
	Configs     []*Config     `parser:"@@+"`
	Close       *Close        `parser:"@@"`
}

// Connection is a `connection { ... }` description.
type Connection struct {
	Pos    lexer.Position
	Fields []*ConnectionField `parser:"'connection' '{' @@*"`
	Close  *Close             `parser:"@@"`
}

// ConnectionField is one field of a connection description.
type ConnectionField struct {
	Pos       lexer.Position
	Type      string `parser:"  'type' @('TCPIP' | 'SDP' | 'PIPE' | 'RSP' | 'RDMA' | 'UDT')"`
	Hostname  *Str   `parser:"| 'hostname' @@"`
	Interface *Str   `parser:"| 'interface' @@"`
	Port      *Uint  `parser:"| ('port' | 'TCPIP_port') @@"`
	Bandwidth *Uint  `parser:"| 'bandwidth' @@"`
	Filename  *Str   `parser:"| ('filename' | 'PIPE_filename') @@"`
}

// ---- config -----------------------------------------------------------------

// Config is a `config { ... }` block.
type Config struct {
	Pos    lexer.Position
	Fields []*ConfigField `parser:"'config' '{' @@*"`
	Close  *Close         `parser:"@@"`
}

// ConfigField is one field of a config.
type ConfigField struct {
	Pos        lexer.Position
	Node       *Node        `parser:"  @@"`
	Name       *Str         `parser:"| 'name' @@"`
	Observer   *Observer    `parser:"| @@"`
	Layout     *Layout      `parser:"| @@"`
	Canvas     *Canvas      `parser:"| @@"`
	Compound   *Compound    `parser:"| @@"`
	Latency    *Uint        `parser:"| 'latency' @@"`
	Attributes *ConfigAttrs `parser:"| 'attributes' @@"`
}

// ConfigAttrs is a config's `attributes { ... }`.
type ConfigAttrs struct {
	Pos    lexer.Position
	Fields []*ConfigAttr `parser:"'{' @@*"`
	Close  *Close        `parser:"@@"`
}

// ConfigAttr is one config attribute.
type ConfigAttr struct {
	Pos        lexer.Position
	EyeBase    *Float `parser:"  'eye_base' @@"`
	Robustness *IAttr `parser:"| 'robustness' @@"`
}

// ---- node, pipe, window, channel ----------------------------------------

// Node is `appNode { ... }` or `node { ... }`.
type Node struct {
	Pos    lexer.Position
	Kind   string       `parser:"@('appNode' | 'node') '{'"`
	Fields []*NodeField `parser:"@@*"`
	Close  *Close       `parser:"@@"`
}

// NodeField is one field of a node.
type NodeField struct {
	Pos        lexer.Position
	Name       *Str        `parser:"  'name' @@"`
	Host       *Str        `parser:"| 'host' @@"`
	Connection *Connection `parser:"| @@"`
	Pipe       *Pipe       `parser:"| @@"`
	Attributes *NodeAttrs  `parser:"| 'attributes' @@"`
}

// NodeAttrs is a node's `attributes { ... }`.
type NodeAttrs struct {
	Pos    lexer.Position
	Fields []*NodeAttr `parser:"'{' @@*"`
	Close  *Close      `parser:"@@"`
}

// NodeAttr is one node attribute.
type NodeAttr struct {
	Pos                lexer.Position
	LaunchCommand      *Str   `parser:"  'launch_command' @@"`
	LaunchCommandQuote *Char  `parser:"| 'launch_command_quote' @@"`
	Key                string `parser:"| @('thread_model' | 'launch_timeout' | 'hint_statistics' | 'hint_affinity')"`
	Value              *IAttr `parser:"  @@"`
}

// Pipe is a `pipe { ... }` (one GPU).
type Pipe struct {
	Pos    lexer.Position
	Fields []*PipeField `parser:"'pipe' '{' @@*"`
	Close  *Close       `parser:"@@"`
}

// PipeField is one field of a pipe.
type PipeField struct {
	Pos        lexer.Position
	Window     *Window   `parser:"  @@"`
	Attributes *KeyAttrs `parser:"| 'attributes' @@"`
	Name       *Str      `parser:"| 'name' @@"`
	Port       *Uint     `parser:"| 'port' @@"`
	Device     *Uint     `parser:"| 'device' @@"`
	Viewport   *Viewport `parser:"| 'viewport' @@"`
}

// KeyAttrs is an `attributes { key IATTR ... }` block of a pipe or window:
// keys are checked against the block's allowed set after parsing, so that
// an unknown key is reported with the list of keys that block takes.
type KeyAttrs struct {
	Pos    lexer.Position
	Fields []*KeyAttr `parser:"'{' @@*"`
	Close  *Close     `parser:"@@"`
}

// KeyAttr is `key IATTR`.
type KeyAttr struct {
	Pos   lexer.Position
	Key   string `parser:"@Ident"`
	Value *IAttr `parser:"@@"`
}

// Window is a `window { ... }`.
type Window struct {
	Pos    lexer.Position
	Fields []*WindowField `parser:"'window' '{' @@*"`
	Close  *Close         `parser:"@@"`
}

// WindowField is one field of a window.
type WindowField struct {
	Pos        lexer.Position
	Channel    *Channel  `parser:"  @@"`
	Attributes *KeyAttrs `parser:"| 'attributes' @@"`
	Name       *Str      `parser:"| 'name' @@"`
	Viewport   *Viewport `parser:"| 'viewport' @@"`
}

// Channel is a `channel { ... }`.
type Channel struct {
	Pos    lexer.Position
	Fields []*ChannelField `parser:"'channel' '{' @@*"`
	Close  *Close          `parser:"@@"`
}

// ChannelField is one field of a channel.
type ChannelField struct {
	Pos        lexer.Position
	Name       *Str          `parser:"  'name' @@"`
	Attributes *ChannelAttrs `parser:"| 'attributes' @@"`
	Viewport   *Viewport     `parser:"| 'viewport' @@"`
	Drawable   *Flags        `parser:"| 'drawable' @@"`
}

// ChannelAttrs is a channel's `attributes { ... }`.
type ChannelAttrs struct {
	Pos    lexer.Position
	Fields []*ChannelAttr `parser:"'{' @@*"`
	Close  *Close         `parser:"@@"`
}

// ChannelAttr is one channel attribute.
type ChannelAttr struct {
	Pos       lexer.Position
	DumpImage *Str   `parser:"  'dump_image' @@"`
	Key       string `parser:"| @('hint_statistics' | 'hint_sendtoken')"`
	Value     *IAttr `parser:"  @@"`
}

// ---- observer, layout, view, canvas, segment ----------------------------

// Observer is an `observer { ... }`.
type Observer struct {
	Pos    lexer.Position
	Fields []*ObserverField `parser:"'observer' '{' @@*"`
	Close  *Close           `parser:"@@"`
}

// ObserverField is one field of an observer.
type ObserverField struct {
	Pos           lexer.Position
	Name          *Str   `parser:"  'name' @@"`
	EyeBase       *Float `parser:"| 'eye_base' @@"`
	EyeLeft       *Vec3  `parser:"| 'eye_left' @@"`
	EyeCyclop     *Vec3  `parser:"| 'eye_cyclop' @@"`
	EyeRight      *Vec3  `parser:"| 'eye_right' @@"`
	FocusDistance *Float `parser:"| 'focus_distance' @@"`
	FocusMode     *IAttr `parser:"| 'focus_mode' @@"`
	OpenCVCamera  *IAttr `parser:"| 'opencv_camera' @@"`
	VRPNTracker   *Str   `parser:"| 'vrpn_tracker' @@"`
}

// Layout is a `layout { ... }`.
type Layout struct {
	Pos    lexer.Position
	Fields []*LayoutField `parser:"'layout' '{' @@*"`
	Close  *Close         `parser:"@@"`
}

// LayoutField is one field of a layout.
type LayoutField struct {
	Pos  lexer.Position
	Name *Str  `parser:"  'name' @@"`
	View *View `parser:"| @@"`
}

// View is a `view { ... }`.
type View struct {
	Pos    lexer.Position
	Fields []*ViewField `parser:"'view' '{' @@*"`
	Close  *Close       `parser:"@@"`
}

// ViewField is one field of a view.
type ViewField struct {
	Pos            lexer.Position
	Attributes     *ViewAttrs  `parser:"  'attributes' @@"`
	Name           *Str        `parser:"| 'name' @@"`
	DisplayCluster *Str        `parser:"| 'DisplayCluster' @@"`
	Mode           string      `parser:"| 'mode' @('MONO' | 'STEREO')"`
	Viewport       *Viewport   `parser:"| 'viewport' @@"`
	Wall           *Wall       `parser:"| @@"`
	Projection     *Projection `parser:"| @@"`
	Observer       *Ref        `parser:"| 'observer' @@"`
}

// ViewAttrs is a view's `attributes { ... }`.
type ViewAttrs struct {
	Pos    lexer.Position
	Fields []*ViewAttr `parser:"'{' @@*"`
	Close  *Close      `parser:"@@"`
}

// ViewAttr is one view attribute.
type ViewAttr struct {
	Pos            lexer.Position
	DisplayCluster *Str `parser:"  'DisplayCluster' @@"`
	DeflectHost    *Str `parser:"| 'deflect_host' @@"`
	DeflectID      *Str `parser:"| 'deflect_id' @@"`
}

// Ref names an earlier element by name or by index.
type Ref struct {
	Pos   lexer.Position
	Name  *Str  `parser:"  @@"`
	Index *Uint `parser:"| @@"`
}

// Canvas is a `canvas { ... }`.
type Canvas struct {
	Pos    lexer.Position
	Fields []*CanvasField `parser:"'canvas' '{' @@*"`
	Close  *Close         `parser:"@@"`
}

// CanvasField is one field of a canvas.
type CanvasField struct {
	Pos         lexer.Position
	Name        *Str         `parser:"  'name' @@"`
	Layout      *LayoutRef   `parser:"| 'layout' @@"`
	SwapBarrier *SwapBarrier `parser:"| @@"`
	Wall        *Wall        `parser:"| @@"`
	Projection  *Projection  `parser:"| @@"`
	Segment     *Segment     `parser:"| @@"`
}

// LayoutRef is a canvas' layout: by name, by index, or OFF.
type LayoutRef struct {
	Pos lexer.Position
	Off bool `parser:"  @'OFF'"`
	Ref *Ref `parser:"| @@"`
}

// Segment is a `segment { ... }`.
type Segment struct {
	Pos    lexer.Position
	Fields []*SegmentField `parser:"'segment' '{' @@*"`
	Close  *Close          `parser:"@@"`
}

// SegmentField is one field of a segment.
type SegmentField struct {
	Pos         lexer.Position
	Name        *Str         `parser:"  'name' @@"`
	Channel     *Str         `parser:"| 'channel' @@"`
	Eye         *Flags       `parser:"| 'eye' @@"`
	Viewport    *Viewport    `parser:"| 'viewport' @@"`
	SwapBarrier *SwapBarrier `parser:"| @@"`
	Wall        *Wall        `parser:"| @@"`
	Projection  *Projection  `parser:"| @@"`
}

// Wall is a `wall { ... }`.
type Wall struct {
	Pos    lexer.Position
	Fields []*WallField `parser:"'wall' '{' @@*"`
	Close  *Close       `parser:"@@"`
}

// WallField is one field of a wall.
type WallField struct {
	Pos         lexer.Position
	BottomLeft  *Vec3  `parser:"  'bottom_left' @@"`
	BottomRight *Vec3  `parser:"| 'bottom_right' @@"`
	TopLeft     *Vec3  `parser:"| 'top_left' @@"`
	Type        string `parser:"| 'type' @('fixed' | 'HMD')"`
}

// Projection is a `projection { ... }`.
type Projection struct {
	Pos    lexer.Position
	Fields []*ProjectionField `parser:"'projection' '{' @@*"`
	Close  *Close             `parser:"@@"`
}

// ProjectionField is one field of a projection.
type ProjectionField struct {
	Pos      lexer.Position
	Origin   *Vec3  `parser:"  'origin' @@"`
	Distance *Float `parser:"| 'distance' @@"`
	FOV      *Vec2  `parser:"| 'fov' @@"`
	HPR      *Vec3  `parser:"| 'hpr' @@"`
}

// SwapBarrier is a `swapbarrier { ... }`.
type SwapBarrier struct {
	Pos    lexer.Position
	Fields []*SwapBarrierField `parser:"'swapbarrier' '{' @@*"`
	Close  *Close              `parser:"@@"`
}

// SwapBarrierField is one field of a swap barrier.
type SwapBarrierField struct {
	Pos       lexer.Position
	Name      *Str   `parser:"  'name' @@"`
	NVGroup   *IAttr `parser:"| 'NV_group' @@"`
	NVBarrier *IAttr `parser:"| 'NV_barrier' @@"`
}

// ---- compound -------------------------------------------------------------

// Compound is a `compound { ... }`.
type Compound struct {
	Pos    lexer.Position
	Fields []*CompoundField `parser:"'compound' '{' @@*"`
	Close  *Close           `parser:"@@"`
}

// CompoundField is one field of a compound.
type CompoundField struct {
	Pos                lexer.Position
	Child              *Compound      `parser:"  @@"`
	Name               *Str           `parser:"| 'name' @@"`
	Channel            *ChannelRef    `parser:"| 'channel' @@"`
	Task               *Flags         `parser:"| 'task' @@"`
	Eye                *Flags         `parser:"| 'eye' @@"`
	BufferKeyword      string         `parser:"| @('buffer' | 'buffers')"`
	Buffer             *Flags         `parser:"  @@"`
	Viewport           *Viewport      `parser:"| 'viewport' @@"`
	Range              *Vec2          `parser:"| 'range' @@"`
	Period             *Uint          `parser:"| 'period' @@"`
	Phase              *Uint          `parser:"| 'phase' @@"`
	Zoom               *Vec2          `parser:"| 'zoom' @@"`
	Pixel              *Uint4         `parser:"| 'pixel' @@"`
	Subpixel           *Uint2         `parser:"| 'subpixel' @@"`
	Wall               *Wall          `parser:"| @@"`
	Projection         *Projection    `parser:"| @@"`
	LoadBalancer       *LoadBalancer  `parser:"| @@"`
	LoadEqualizer      *LoadEqualizer `parser:"| 'load_equalizer' @@"`
	TreeEqualizer      *LoadEqualizer `parser:"| 'tree_equalizer' @@"`
	DFREqualizer       *DFREqualizer  `parser:"| @@"`
	FramerateEqualizer bool           `parser:"| @('framerate_equalizer' '{' '}')"`
	MonitorEqualizer   bool           `parser:"| @('monitor_equalizer' '{' '}')"`
	ViewEqualizer      bool           `parser:"| @('view_equalizer' '{' '}')"`
	TileEqualizer      *TileEqualizer `parser:"| @@"`
	SwapBarrier        *SwapBarrier   `parser:"| @@"`
	OutputFrame        *Frame         `parser:"| 'outputframe' @@"`
	InputFrame         *Frame         `parser:"| 'inputframe' @@"`
	OutputTiles        *TileQueue     `parser:"| 'outputtiles' @@"`
	InputTiles         *TileQueue     `parser:"| 'inputtiles' @@"`
	Attributes         *CompoundAttrs `parser:"| 'attributes' @@"`
}

// ChannelRef is a compound's channel: by name, or by view and segment.
type ChannelRef struct {
	Pos    lexer.Position
	Name   *Str              `parser:"  @@"`
	Fields []*ViewSegmentRef `parser:"| '(' @@* ')'"`
}

// ViewSegmentRef is one part of `( canvas .. segment .. layout .. view .. )`.
type ViewSegmentRef struct {
	Pos  lexer.Position
	Kind string `parser:"@('canvas' | 'segment' | 'layout' | 'view')"`
	Ref  *Ref   `parser:"@@"`
}

// LoadEqualizer is the body of `load_equalizer { ... }` and
// `tree_equalizer { ... }` (the tree equalizer takes a subset of fields).
type LoadEqualizer struct {
	Pos    lexer.Position
	Fields []*LoadEqualizerField `parser:"'{' @@*"`
	Close  *Close                `parser:"@@"`
}

// LoadEqualizerField is one field of a load or tree equalizer.
type LoadEqualizerField struct {
	Pos               lexer.Position
	Mode              string    `parser:"  'mode' @('2D' | 'DB' | 'HORIZONTAL' | 'VERTICAL')"`
	Damping           *Float    `parser:"| 'damping' @@"`
	Boundary          *Boundary `parser:"| 'boundary' @@"`
	Resistance        *Boundary `parser:"| 'resistance' @@"`
	AssembleOnlyLimit *Float    `parser:"| 'assemble_only_limit' @@"`
	Adaptive          *IAttr    `parser:"| 'adaptive' @@"`
}

// Boundary is `[ x y ]` in pixels (2D) or one number (DB).
type Boundary struct {
	Pos   lexer.Position
	Pair  *Uint2 `parser:"  @@"`
	Value *Float `parser:"| @@"`
}

// DFREqualizer is `DFR_equalizer { ... }`.
type DFREqualizer struct {
	Pos    lexer.Position
	Fields []*DFRField `parser:"'DFR_equalizer' '{' @@*"`
	Close  *Close      `parser:"@@"`
}

// DFRField is one field of a DFR equalizer.
type DFRField struct {
	Pos       lexer.Position
	Damping   *Float `parser:"  'damping' @@"`
	Framerate *Float `parser:"| 'framerate' @@"`
}

// TileEqualizer is `tile_equalizer { ... }`.
type TileEqualizer struct {
	Pos    lexer.Position
	Fields []*TileEqualizerField `parser:"'tile_equalizer' '{' @@*"`
	Close  *Close                `parser:"@@"`
}

// TileEqualizerField is one field of a tile equalizer: the size is a tile
// in pixels (2D) or a chunk of the range (DB).
type TileEqualizerField struct {
	Pos  lexer.Position
	Name *Str      `parser:"  'name' @@"`
	Size *Boundary `parser:"| 'size' @@"`
}

// LoadBalancer is the deprecated `loadBalancer { mode ... }` syntax; it is
// converted to the equalizer it names.
type LoadBalancer struct {
	Pos    lexer.Position
	Fields []*LoadBalancerField `parser:"'loadBalancer' '{' @@*"`
	Close  *Close               `parser:"@@"`
}

// Convert returns the equalizer a deprecated loadBalancer stands for: kind is
// "load", "DFR", "framerate" or "monitor"; load and DFR come with the
// fields that apply to them.
func (lb *LoadBalancer) Convert() (kind string, load *LoadEqualizer, dfr *DFREqualizer) {
	mode := "2D"
	for _, f := range lb.Fields {
		if f.Mode != "" {
			mode = f.Mode
		}
	}
	switch mode {
	case "DPLEX":
		return "framerate", nil, nil
	case "DDS":
		return "monitor", nil, nil
	case "DFR":
		dfr = &DFREqualizer{Pos: lb.Pos, Close: lb.Close}
		for _, f := range lb.Fields {
			if f.Damping != nil || f.Framerate != nil {
				dfr.Fields = append(dfr.Fields, &DFRField{Pos: f.Pos, Damping: f.Damping, Framerate: f.Framerate})
			}
		}
		return "DFR", nil, dfr
	}
	load = &LoadEqualizer{Pos: lb.Pos, Close: lb.Close}
	load.Fields = append(load.Fields, &LoadEqualizerField{Pos: lb.Pos, Mode: mode})
	for _, f := range lb.Fields {
		if f.Mode != "" || f.Framerate != nil {
			continue
		}
		load.Fields = append(load.Fields, &LoadEqualizerField{Pos: f.Pos, Damping: f.Damping,
			Boundary: f.Boundary, Resistance: f.Resistance, AssembleOnlyLimit: f.AssembleOnlyLimit})
	}
	return "load", load, nil
}

// LoadBalancerField is one field of a deprecated loadBalancer.
type LoadBalancerField struct {
	Pos               lexer.Position
	Mode              string    `parser:"  'mode' @('2D' | 'DB' | 'HORIZONTAL' | 'VERTICAL' | 'DPLEX' | 'DFR' | 'DDS')"`
	Damping           *Float    `parser:"| 'damping' @@"`
	AssembleOnlyLimit *Float    `parser:"| 'assemble_only_limit' @@"`
	Framerate         *Float    `parser:"| 'framerate' @@"`
	Boundary          *Boundary `parser:"| 'boundary' @@"`
	Resistance        *Boundary `parser:"| 'resistance' @@"`
}

// Frame is the body of an `outputframe` or `inputframe`.
type Frame struct {
	Pos    lexer.Position
	Fields []*FrameField `parser:"'{' @@*"`
	Close  *Close        `parser:"@@"`
}

// FrameField is one field of a frame.
type FrameField struct {
	Pos      lexer.Position
	Name     *Str      `parser:"  'name' @@"`
	Type     string    `parser:"| 'type' @('texture' | 'memory')"`
	Viewport *Viewport `parser:"| 'viewport' @@"`
	// BufferKeyword is buffer, or buffers as Equalizer writes the
	// configs it saves (its lexer reads it as buffer)
	BufferKeyword string `parser:"| @('buffer' | 'buffers')"`
	Buffer        *Flags `parser:"  @@"`
	Zoom          *Vec2  `parser:"| 'zoom' @@"`
}

// TileQueue is the body of `outputtiles` or `inputtiles`.
type TileQueue struct {
	Pos    lexer.Position
	Fields []*TileQueueField `parser:"'{' @@*"`
	Close  *Close            `parser:"@@"`
}

// TileQueueField is one field of a tile queue or tile equalizer.
type TileQueueField struct {
	Pos  lexer.Position
	Name *Str   `parser:"  'name' @@"`
	Size *Uint2 `parser:"| 'size' @@"`
}

// CompoundAttrs is a compound's `attributes { ... }`.
type CompoundAttrs struct {
	Pos    lexer.Position
	Fields []*CompoundAttr `parser:"'{' @@*"`
	Close  *Close          `parser:"@@"`
}

// CompoundAttr is one compound attribute.
type CompoundAttr struct {
	Pos        lexer.Position
	StereoMode *IAttr `parser:"  'stereo_mode' @@"`
	LeftMask   *Flags `parser:"| 'stereo_anaglyph_left_mask' @@"`
	RightMask  *Flags `parser:"| 'stereo_anaglyph_right_mask' @@"`
	UpdateFOV  *IAttr `parser:"| 'update_FOV' @@"`
	// Compositing is goeq's: how a sort-last compound composites.
	Compositing *Word `parser:"| 'compositing' @@"`
}
