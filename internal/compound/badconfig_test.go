package compound

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/configparser"
)

// base is a small valid config; cases splice mistakes into it.
const base = `#Equalizer 1.2 ascii
config
{
    appNode
    {
        pipe
        {
            window
            {
                viewport [ 0 0 400 300 ]
                channel { name "c1" }
                channel { name "c2" viewport [ 0.5 0 0.5 1 ] }
            }
        }
    }
    observer { name "o" }
    layout { name "L" view { name "v" observer "o" } }
    canvas { name "C" layout "L" segment { name "s" channel "c1" } }
%s
}
`

type badCase struct {
	name    string
	src     string // full file; %s in base when splice is set
	splice  string
	pos     string // "line:col"
	message string // substring of the message
	alone   bool   // the only error: nothing else follows from it
}

var badCases = []badCase{
	{name: "missing closing brace", src: "config\n{\n    compound\n    {\n        channel \"c1\"\n", pos: "6:1", message: "compound block opened at line 4, column 5 is missing its closing '}'"},
	{name: "one brace too many", src: "config { }\n}\n", pos: "2:1", message: "no block is open here"},
	{name: "empty file", src: "", pos: "1:1", message: "unexpected end of file: the file has no server { config { ... } } or config { ... } block"},
	{name: "only a header and a comment", src: "#Equalizer 1.2 ascii\n# nothing yet\n", pos: "3:1", message: "the file has no server { config { ... } } or config { ... } block"},
	{name: "unknown keyword", splice: "    compund { }", pos: "19:5", message: `unknown keyword "compund" in config block: did you mean "compound"? (expected one of: name, latency`},
	{name: "unknown keyword in window", src: "config { appNode { pipe { window { chanel { } } } } }", pos: "1:36", message: `unknown keyword "chanel" in window block: did you mean "channel"?`},
	{name: "bad number", splice: "    compound { channel \"c1\" viewport [ 0 0 x 1 ] }", pos: "19:44", message: `expected a number, found "x"`},
	{name: "negative unsigned", splice: "    latency -2", pos: "19:13", message: "expected an unsigned integer, found -2"},
	{name: "float where integer", splice: "    compound { channel \"c1\" period 1.5 }", pos: "19:36", message: "expected an unsigned integer, found number 1.5"},
	{name: "forbidden character in string", splice: "    name \"my=config\"", pos: "19:13", message: `character '=' is not allowed in a string`},
	{name: "a letter beyond ASCII in a string", splice: "    name \"Überwand\"", pos: "19:11", message: `character 'Ü' is not allowed in a string (allowed, as by Equalizer's loader: a-z, A-Z, 0-9,`},
	{name: "a number with an exponent", splice: "    observer { eye_base 5e-2 }", pos: "19:25", message: `found "5e" (Equalizer's format writes numbers without an exponent)`},
	{name: "a number with a positive exponent", splice: "    latency 1e3", pos: "19:13", message: `found "1e3" (Equalizer's format writes numbers without an exponent: write it 1000)`},
	{name: "a zoom beyond any framebuffer", splice: "    compound { channel \"c1\" zoom [ 100000000000000000000 1 ] }", pos: "19:34", message: "zoom [ 1e+20 1 ] must be positive and at most 16384"},
	{name: "window viewport out of its pipe", splice: "    node { pipe { window { viewport [ -1 .25 .5 .5 ] channel { name \"w\" } } } }", pos: "19:37", message: "window viewport [ -1 0.25 0.5 0.5 ] is out of range", alone: true},
	{name: "unterminated string", splice: "    name \"open", pos: "19:10", message: "is not closed"},
	{name: "undefined channel", splice: "    compound { channel \"nope\" }", pos: "19:24", message: `no channel named "nope"`},
	{name: "undefined layout in canvas", splice: "    canvas { layout \"nope\" segment { channel \"c1\" } }", pos: "19:21", message: `no layout named "nope"`},
	{name: "undefined layout index", splice: "    canvas { layout 3 segment { channel \"c1\" } }", pos: "19:21", message: "no layout with index 3"},
	{name: "undefined observer", splice: "    layout { view { observer \"nobody\" } }", pos: "19:30", message: `no observer named "nobody"`},
	{name: "undefined observer index", splice: "    layout { view { observer 4 } }", pos: "19:30", message: "no observer with index 4"},
	{name: "undefined segment channel", splice: "    canvas { layout \"L\" segment { channel \"zz\" } }", pos: "19:43", message: `no channel named "zz"`},
	{name: "undefined canvas in channel reference", splice: "    compound { channel ( canvas \"X\" segment 0 ) }", pos: "19:33", message: `no canvas named "X"`},
	{name: "undefined view in channel reference", splice: "    compound { channel ( layout \"L\" view \"w\" ) }", pos: "19:42", message: `no view named "w"`},
	{name: "duplicate output frame", splice: "    compound { channel \"c1\" compound { channel \"c2\" outputframe { name \"f\" } } compound { channel \"c2\" outputframe { name \"f\" } } inputframe { name \"f\" } }", pos: "19:104", message: `duplicate output frame "f": already defined at line 19, column 53`},
	{name: "input frame without output", src: "config { appNode { pipe { window { channel { name \"c1\" } } } }\n  compound { channel \"c1\" inputframe { name \"ghost\" } } }", pos: "2:27", message: `input frame "ghost" has no output frame of that name`},
	{name: "viewport out of range", splice: "    compound { channel \"c1\" viewport [ 0.5 0 0.8 1 ] }", pos: "19:38", message: "is out of range: x+width and y+height must lie within [0,1]"},
	{name: "viewport without area", splice: "    compound { channel \"c1\" viewport [ 0 0 0 1 ] }", pos: "19:38", message: "has no area"},
	// less than a pixel: it ran until the client refused a 0x600 window
	{name: "pixel viewport under a pixel", src: "config { appNode { pipe { window { viewport [ 7 -1 0.25 600 ] channel { name \"c1\" } } } }\n  compound { channel \"c1\" } }", pos: "1:45",
		message: "window pixel viewport [ 7 -1 0.25 600 ] has no area (0x600 whole pixels)"},
	{name: "fraction under a pixel", src: "config { appNode { pipe { window { viewport [ 0 0 0.0001 0.5 ] channel { name \"c1\" } } } }\n  compound { channel \"c1\" } }", pos: "1:45",
		message: "window viewport [ 0 0 0.0001 0.5 ] of its pipe's 1920x1080 pixels is 0x540 pixels: a window needs at least one pixel each way"},
	{name: "range reversed", splice: "    compound { channel \"c1\" range [ 0.8 0.2 ] }", pos: "19:35", message: "range [ 0.8 0.2 ] is invalid"},
	{name: "range with one number", splice: "    compound { channel \"c1\" range [ 0.8 ] }", pos: "19:41", message: "expected 2 numbers in '[ a b ]', found only 1"},
	{name: "pixel index too large", splice: "    compound { channel \"c1\" pixel [ 2 0 2 2 ] }", pos: "19:35", message: "pixel [ 2 0 2 2 ] is invalid"},
	{name: "subpixel index too large", splice: "    compound { channel \"c1\" subpixel [ 3 3 ] }", pos: "19:38", message: "subpixel [ 3 3 ] is invalid"},
	{name: "unknown task", splice: "    compound { channel \"c1\" task [ DRAW RENDER ] }", pos: "19:41", message: `unknown value "RENDER" in task list`},
	// the split of a compound with invalid values is not judged (it
	// divided by a period of 0)
	{name: "split of an invalid period", splice: "    compound { channel \"c1\" period 0 compound { pixel [ 0 0 2 1 ] } compound { channel \"c2\" pixel [ 1 0 2 1 ] period 0 outputframe { name \"f\" } } inputframe { name \"f\" } }", pos: "19:36", message: "period must be at least 1"},
	{name: "unknown eye", splice: "    compound { channel \"c1\" eye [ MIDDLE ] }", pos: "19:35", message: `unknown value "MIDDLE" in eye list`},
	{name: "eye in the wrong case", splice: "    compound { channel \"c1\" eye [ left ] }", pos: "19:35", message: `unknown value "left" in eye list: did you mean "LEFT"?`},
	{name: "unknown buffer", splice: "    compound { channel \"c1\" buffer [ STENCIL ] }", pos: "19:38", message: `unknown value "STENCIL" in buffer list`},
	{name: "bad equalizer mode", splice: "    compound { channel \"c1\" load_equalizer { mode 3D } }", pos: "19:51", message: "expected one of 2D, DB, HORIZONTAL, VERTICAL, found \"3D\""},
	{name: "damping out of range", splice: "    compound { channel \"c1\" load_equalizer { damping 2 } }", pos: "19:54", message: "damping 2 is out of range"},
	{name: "zero boundary", splice: "    compound { channel \"c1\" load_equalizer { boundary [ 0 4 ] } }", pos: "19:55", message: "boundary [ 0 4 ] must be at least 1 pixel"},
	{name: "DB resistance out of range", splice: "    compound { channel \"c1\" load_equalizer { mode DB resistance 1.5 } }", pos: "19:65", message: "resistance 1.5 is out of range: a DB resistance is a fraction in [0,1]"},
	{name: "subpixel past the average", splice: "    compound { channel \"c1\" subpixel [ 0 1000 ] }", pos: "19:38", message: "subpixel [ 0 1000 ]: goeq averages at most 256 samples a pixel"},
	{name: "tile past the framebuffer", splice: "    compound { channel \"c1\" tile_equalizer { size [ 64 20000 ] } }", pos: "19:51", message: "tile size [ 64 20000 ] must be 1 to 16384 pixels"},
	{name: "DFR framerate past its bound", splice: "    compound { channel \"c1\" DFR_equalizer { framerate 10000000 } }", pos: "19:55", message: "framerate 1e+07 is out of range"},
	{name: "zero tile size", splice: "    compound { channel \"c1\" tile_equalizer { size [ 0 0 ] } }", pos: "19:51", message: "tile size [ 0 0 ] must be 1 to 16384 pixels"},
	{name: "chunk out of range", splice: "    compound { channel \"c1\" tile_equalizer { size 2 } }", pos: "19:51", message: "size 2 is out of range: a database chunk is a fraction in (0,1]"},
	{name: "chunks past count", splice: "    compound { channel \"c1\" tile_equalizer { size 0.000000001 } }", pos: "19:51", message: "size 1e-09 makes 1000000000 database chunks a frame"},
	{name: "DFR framerate", splice: "    compound { channel \"c1\" DFR_equalizer { framerate 0 } }", pos: "19:55", message: "framerate 0 is out of range"},
	{name: "DFR damping", splice: "    compound { channel \"c1\" DFR_equalizer { damping 1.5 } }", pos: "19:53", message: "damping 1.5 is out of range"},
	{name: "tree equalizer with assemble_only_limit", splice: "    compound { channel \"c1\" tree_equalizer { assemble_only_limit 1 } }", pos: "19:46", message: "tree_equalizer has no assemble_only_limit"},
	{name: "unknown window attribute", src: "config { appNode { pipe { window { attributes { hint_fast ON } } } } }", pos: "1:49", message: `unknown attribute "hint_fast" in window attributes`},
	{name: "misspelt window attribute", src: "config { appNode { pipe { window { attributes { hint_drawabel FBO } } } } }", pos: "1:49", message: `unknown attribute "hint_drawabel" in window attributes: did you mean "hint_drawable"?`},
	{name: "misspelt attribute value", src: "config { appNode { pipe { window { attributes { hint_drawable windw } } } } }", pos: "1:63", message: `found "windw": did you mean "window"?`},
	{name: "keyword in the wrong case", splice: "    compound { channel \"c1\" load_equalizer { mode 2d } }", pos: "19:51", message: `expected one of 2D, DB, HORIZONTAL, VERTICAL, found "2d": did you mean "2D"?`},
	{name: "bad attribute value", src: "config { appNode { pipe { window { attributes { hint_fullscreen YES } } } } }", pos: "1:65", message: `expected an attribute value (ON, OFF, AUTO, NICEST, FASTEST, a number, ...), found "YES"`},
	{name: "channel reference without quotes", splice: "    compound { channel c1 }", pos: "19:24", message: "expected a quoted channel name or '( canvas .. segment .. layout .. view .. )', found \"c1\""},
	{name: "pre-1.0 hints block", src: "#Equalizer 1.0 ascii\nconfig { appNode { pipe { window { hints { fullscreen ON } } } } }", pos: "2:36", message: "pre-1.0 'hints { ... }' block is not supported"},
	{name: "pre-1.0 eyeBase", src: "config {\n    eyeBase 0.05\n}", pos: "2:5", message: "pre-1.0 'eyeBase' keyword is not supported"},
	{name: "unsupported version", src: "#Equalizer 0.9 ascii\nconfig { }", pos: "1:12", message: "unsupported format version 0.9"},
	{name: "unknown top-level keyword", src: "servr { config { } }", pos: "1:1", message: `unknown keyword "servr" at top level: did you mean "server"?`},
	{name: "server without config", src: "server\n{\n    connection { hostname \"localhost\" }\n}", pos: "4:1", message: "a server block needs at least one config"},
	{name: "port out of range", src: "config { node { connection { port 70000 } } }", pos: "1:35", message: "port 70000 is out of range"},
	{name: "bad connection type", src: "config { node { connection { type TCP } } }", pos: "1:35", message: "expected one of TCPIP, SDP, PIPE, RSP, RDMA, UDT, found \"TCP\""},
	{name: "bad frame type", splice: "    compound { channel \"c1\" outputframe { type disk } }", pos: "19:48", message: "expected one of texture, memory, found \"disk\""},
	{name: "degenerate wall", splice: "    compound { channel \"c1\" wall { bottom_left [ 0 0 -1 ] bottom_right [ 0 0 -1 ] } }", pos: "19:29", message: "wall corners are degenerate"},
	{name: "adaptive takes ON or OFF", splice: "    compound { channel \"c1\" load_equalizer { adaptive FASTEST } }", pos: "19:55", message: "adaptive takes ON or OFF"},
	{name: "unknown compositing", splice: "    compound { channel \"c1\" attributes { compositing TREE } }", pos: "19:54", message: "compositing takes one of: AUTO, GATHER, DIRECT_SEND, BINARY_SWAP, RADIX_K"},
}

func TestBadConfigs(t *testing.T) {
	if len(badCases) < 30 {
		t.Fatalf("bad-config suite has %d cases, want at least 30", len(badCases))
	}
	for _, c := range badCases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if c.splice != "" {
				src = fmt.Sprintf(base, c.splice)
			}
			err := load("bad.eqc", src)
			if err == nil {
				t.Fatalf("no error for:\n%s", src)
			}
			list, ok := err.(configparser.ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error is %T, not a positioned list: %v", err, err)
			}
			first := list[0]
			if got := fmt.Sprintf("%d:%d", first.Pos.Line, first.Pos.Column); got != c.pos {
				t.Errorf("position %s, want %s (%s)", got, c.pos, first)
			}
			if !strings.Contains(first.Msg, c.message) {
				t.Errorf("message %q does not contain %q", first.Msg, c.message)
			}
			if c.alone && len(list) > 1 {
				t.Errorf("%d errors, want this one alone: %v", len(list), err)
			}
			if !strings.HasPrefix(err.Error(), "bad.eqc:"+c.pos+": ") {
				t.Errorf("error text %q is not file:line:col: message", err.Error())
			}
		})
	}
}

func TestBaseConfigIsValid(t *testing.T) {
	if err := load("base.eqc", fmt.Sprintf(base, "")); err != nil {
		t.Fatal(err)
	}
}

func load(name, src string) error {
	res, err := configparser.Parse(name, []byte(src))
	if err != nil {
		return err
	}
	_, err = Resolve(res, noEnv)
	return err
}

// corpusText is the text of the corpus config called name.
func corpusText(t *testing.T, name string) string {
	t.Helper()
	for _, f := range corpusFiles(t) {
		if filepath.Base(f) == name {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			return string(text)
		}
	}
	t.Fatalf("no %s in the corpus", name)
	return ""
}

// resolveWarned resolves src, named name in messages, and returns its
// model with the warnings check would print.
func resolveWarned(t *testing.T, name, src string) (*Model, []string) {
	t.Helper()
	res, err := configparser.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(res, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, w := range res.Warnings {
		warned = append(warned, w.String())
	}
	return m, warned
}

// check warns about what would render wrong or fail at run time: a source
// channel smaller than the share of the destination it renders, and a
// window beyond GL's framebuffer limit. A pixel part renders every other
// pixel of its share, and fits a channel half as wide; a compound that
// only clears renders nothing.
// A source whose frame goes to a compound that shows it on a window of
// its own and sends nothing on (7-window.DB.2D with one of the
// destination's input frames left out) is missing from the destination:
// check says where its frames end. Nothing in the corpus, whose files
// assemble such frames at both, is warned of.
func TestCheckWarnsOfFramesThatEndShortOfTheirDestination(t *testing.T) {
	const src = `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "half" } }
        window { viewport [ 0 0 320 240 ] channel { name "left" } }
        window { viewport [ 0 0 320 240 ] channel { name "right" } }
    } }
    compound
    {
        channel "dest"
        wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
        compound
        {
            channel "half"
            compound { channel "left" viewport [ 0 0 .5 1 ] outputframe { name "l" } }
            compound { channel "right" viewport [ .5 0 .5 1 ] outputframe { name "r" } }
            inputframe { name "l" }
            inputframe { name "r" }
        }
        %s
        inputframe { name "r" }
    }
}`
	_, got := resolveWarned(t, "short.eqc", fmt.Sprintf(src, ""))
	want := `short.eqc:15:24: channel "left" draws here for destination "dest", but its frames end on channel "half", which sends none on: what it draws shows there alone, and that part is missing from "dest"'s images`
	if !slices.Contains(got, want) {
		t.Errorf("no warning %q in:\n%s", want, strings.Join(got, "\n"))
	}
	if _, got := resolveWarned(t, "short.eqc", fmt.Sprintf(src, `inputframe { name "l" }`)); slices.ContainsFunc(got, func(w string) bool { return strings.Contains(w, "frames end on") }) {
		t.Errorf("a warning with both frames assembled:\n%s", strings.Join(got, "\n"))
	}
	for _, f := range corpusFiles(t) {
		res, err := configparser.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Resolve(res, noEnv); err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			if strings.Contains(w.Msg, "frames end on") {
				t.Errorf("%s", w)
			}
		}
	}
}

// A colour-only output frame whose viewport reaches past the band its
// compound composited carries its channel's own range alone there, and
// paints it over the destination's whole data (stress.DB.ds with one
// frame's viewport made taller): check says how much. The frame cut to
// its band, and every corpus file, are not warned of.
func TestCheckWarnsOfAFrameThatCarriesMoreThanItComposited(t *testing.T) {
	const src = `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "src" } }
    } }
    compound
    {
        channel "dest"
        buffer [ COLOR DEPTH ]
        wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
        compound
        {
            channel "dest"
            compound { range [ 0 .5 ] outputframe { name "top.dest" viewport [ 0 .5 1 .5 ] } }
            inputframe { name "bottom.src" }
        }
        compound
        {
            channel "src"
            compound { range [ .5 1 ] outputframe { name "bottom.src" viewport [ 0 0 1 .5 ] } }
            inputframe { name "top.dest" }
            outputframe { name "frame.src" buffer [ COLOR ] viewport [ %s ] }
        }
        inputframe { name "frame.src" }
    }
}`
	_, got := resolveWarned(t, "over.eqc", fmt.Sprintf(src, "0 0 1 1"))
	want := `over.eqc:22:13: output frame "frame.src": 50% of what it carries lies where its compound composited nothing and channel "src" holds part of range [ 0 1 ] alone, beside a part that holds all of it; colour without depth, it paints that part over "dest"'s pixels (an output frame's viewport is the part its compound composited)`
	if !slices.Contains(got, want) || len(got) != 1 {
		t.Errorf("want the one warning %q, got:\n%s", want, strings.Join(got, "\n"))
	}
	carries := func(w string) bool { return strings.Contains(w, "of what it carries lies") }
	if _, got := resolveWarned(t, "over.eqc", fmt.Sprintf(src, "0 .5 1 .5")); slices.ContainsFunc(got, carries) {
		t.Errorf("a warning with the frame cut to its band:\n%s", strings.Join(got, "\n"))
	}
	noneWarns(t, "of what it carries lies", corpusFiles(t)...)
}

// A frame with depth that reaches past its stripe lands where colour-only
// frames come back composited (hactar.DB.ds with one stripe made the
// whole height): merged by depth against what the colour-only frames did
// not write, it shows over them where it comes last, and the destination
// lacks part of the data there. check says how much of it lands so. The
// stripe as written, the same with two ranges (where the destination's
// own range and the frame's make the whole data, in either order), and
// every corpus file, are not warned of.
func TestCheckWarnsOfADepthFrameUnderColourOnlyFrames(t *testing.T) {
	const src = `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "src" } }
        window { viewport [ 0 0 320 240 ] channel { name "src2" } }
    } }
    compound
    {
        channel "dest"
        buffer [ COLOR DEPTH ]
        wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
        compound { range [ 0 .333 ] outputframe { name "s1.dest" viewport [ 0 .333 1 .333 ] } outputframe { name "s2.dest" viewport [ 0 .666 1 .334 ] } }
        compound
        {
            channel "src"
            compound { range [ .333 .666 ] outputframe { name "s0.src" viewport [ %s ] } outputframe { name "s2.src" viewport [ 0 .666 1 .334 ] } }
            inputframe { name "s1.dest" } inputframe { name "s1.src2" }
            outputframe { name "frame.src" buffer [ COLOR ] viewport [ 0 .333 1 .333 ] }
        }
        compound
        {
            channel "src2"
            compound { range [ .666 1 ] outputframe { name "s0.src2" viewport [ 0 0 1 .333 ] } outputframe { name "s1.src2" viewport [ 0 .333 1 .333 ] } }
            inputframe { name "s2.dest" } inputframe { name "s2.src" }
            outputframe { name "frame.src2" buffer [ COLOR ] viewport [ 0 .666 1 .334 ] }
        }
        inputframe { name "s0.src" } inputframe { name "s0.src2" }
        inputframe { name "frame.src" } inputframe { name "frame.src2" }
    }
}`
	_, got := resolveWarned(t, "deep.eqc", fmt.Sprintf(src, "0 0 1 1"))
	want := `deep.eqc:16:44: output frame "s0.src": 66.7% of what it carries lands where "dest" assembles colour-only frames "frame.src" and 1 more too; a depth merge cannot see what a colour-only frame painted, so whichever comes last shows there (an output frame's viewport is the part its compound composited)`
	if !slices.Contains(got, want) {
		t.Errorf("no warning %q in:\n%s", want, strings.Join(got, "\n"))
	}
	lands := func(w string) bool { return strings.Contains(w, "of what it carries lands where") }
	if _, got := resolveWarned(t, "deep.eqc", fmt.Sprintf(src, "0 0 1 .333")); slices.ContainsFunc(got, lands) {
		t.Errorf("a warning with the stripe as written:\n%s", strings.Join(got, "\n"))
	}
	const two = `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "src" } }
    } }
    compound
    {
        channel "dest"
        buffer [ COLOR DEPTH ]
        wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
        compound
        {
            channel "src"
            compound { range [ .5 1 ] outputframe { name "bottom.src" viewport [ 0 0 1 1 ] } }
            inputframe { name "top.dest" }
            outputframe { name "frame.src" buffer [ COLOR ] viewport [ 0 .5 1 .5 ] }
        }
        compound { range [ 0 .5 ] outputframe { name "top.dest" viewport [ 0 .5 1 .5 ] } }
        inputframe { name "bottom.src" }
        inputframe { name "frame.src" }
    }
}`
	if _, got := resolveWarned(t, "two.eqc", two); slices.ContainsFunc(got, lands) {
		t.Errorf("a warning where the destination's range and the frame's make the whole data:\n%s", strings.Join(got, "\n"))
	}
	// a binary swap's second stage holds its draw and its partner's, not
	// the whole range it inherits: 4-node.DB.bs with one stage's frame
	// made the whole window differs from the reference in some frames
	text := corpusText(t, "4-node.DB.bs.eqc")
	const stage = `outputframe { name "f2.c3" viewport [ 0 .75 1 .25 ] }`
	if strings.Count(text, stage) != 1 {
		t.Fatal("4-node.DB.bs.eqc does not send f2.c3 as the test expects")
	}
	_, got = resolveWarned(t, "swap.eqc", strings.Replace(text, stage, `outputframe { name "f2.c3" viewport [ 0 0 1 1 ] }`, 1))
	if !slices.ContainsFunc(got, func(w string) bool { return lands(w) && strings.Contains(w, `"f2.c3"`) }) {
		t.Errorf("no warning of f2.c3 in:\n%s", strings.Join(got, "\n"))
	}
	noneWarns(t, "of what it carries lands where", corpusFiles(t)...)
}

// An eye that a source draws for its frame and that no compound
// assembling the frame renders is lost (3-window.EYE.anaglyph with the
// right eye's assembly made the left eye's): check names the eye.
// Assemblies for the eyes drawn, and every corpus file, are not warned of.
func TestCheckWarnsOfAnEyeDrawnForAFrameNoneAssembles(t *testing.T) {
	const src = `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "right" } }
    } }
    layout { view { mode STEREO } }
    canvas { layout 0 wall {} segment { channel "dest" } }
    compound
    {
        channel ( segment 0 view 0 )
        compound { eye [ LEFT ] }
        compound { channel "right" eye [ RIGHT ] outputframe { name "r" } }
        compound { task [ ASSEMBLE ] eye [ %s ] inputframe { name "r" } }
    }
}`
	_, got := resolveWarned(t, "eyes.eqc", fmt.Sprintf(src, "LEFT"))
	want := `eyes.eqc:12:50: output frame "r": its compound draws eye [ RIGHT ] for it, which "dest" shows, but the compounds that assemble it render eye [ LEFT ]: what it draws for that eye shows nowhere`
	if !slices.Contains(got, want) {
		t.Errorf("no warning %q in:\n%s", want, strings.Join(got, "\n"))
	}
	nowhere := func(w string) bool { return strings.Contains(w, "for that eye shows nowhere") }
	if _, got := resolveWarned(t, "eyes.eqc", fmt.Sprintf(src, "RIGHT")); slices.ContainsFunc(got, nowhere) {
		t.Errorf("a warning with the right eye assembled:\n%s", strings.Join(got, "\n"))
	}
	noneWarns(t, "for that eye shows nowhere", corpusFiles(t)...)
}

// A wall whose corners do not meet at a right angle is projected as if
// they did: 2-window.FBO with one corner moved showed its copied halves
// apart from what each channel's own part of the wall draws. check says
// by how much, and where top_left would make it a rectangle; the corpus's
// walls, rounded as they are, are not warned of.
func TestCheckWarnsOfAWallThatIsNoRectangle(t *testing.T) {
	const src = `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } } }
    compound { channel "dest" wall { bottom_left [ -1.6 %s -1 ] bottom_right [ 1.6 -.5 -1 ] top_left [ -1.6 .5 -1 ] } }
}`
	_, got := resolveWarned(t, "skew.eqc", fmt.Sprintf(src, "-.8"))
	want := `skew.eqc:3:31: wall corners: the edges from bottom_left to bottom_right and to top_left meet at 84.6°, not at a right angle; Equalizer and goeq project as if they did, so the picture is distorted and parts of it drawn apart (segments, 2D parts, frames shown on other channels) do not line up (top_left [ -1.721 0.4887 -1 ] makes it a rectangle)`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
	if _, got := resolveWarned(t, "skew.eqc", fmt.Sprintf(src, "-.5")); len(got) > 0 {
		t.Errorf("warnings for a rectangle:\n%s", strings.Join(got, "\n"))
	}
	noneWarns(t, "wall corners:", corpusFiles(t)...)
}

// Input frames named in the wrong compound: in 4-node.DB.ds with two
// stripes' names swapped between their compositors, each composites its
// stripe without one source's range, and in 7-window.EYE.PIXEL with two
// frames swapped between the eyes' assemblies, each assembles a frame
// drawn for the other eye alone. verify finds the pictures wrong; check
// names the range, and the eyes. The corpus as written is not warned of.
func TestCheckWarnsOfFramesNamedInTheWrongCompound(t *testing.T) {
	// swap exchanges the last occurrences of a and b
	swap := func(text, a, b string) string {
		i, j := strings.LastIndex(text, a), strings.LastIndex(text, b)
		if i < 0 || j < 0 || i > j {
			t.Fatalf("%q and %q are not in that order", a, b)
		}
		return text[:i] + b + text[i+len(a):j] + a + text[j+len(b):]
	}
	for _, c := range []struct {
		config, a, b, says string
		want               []string
	}{
		{"4-node.DB.ds.eqc", `inputframe { name "stripe4.c1" }`, `inputframe { name "stripe3.c2" }`, "lacks range", []string{
			`output frame "frame.channel2": 100% of what it carries lacks range [ 0.75 1 ] of the data: channel "channel2" does not draw it`,
			`output frame "frame.channel3": 100% of what it carries lacks range [ 0 0.25 ] of the data: channel "channel3" does not draw it`}},
		{"7-window.EYE.PIXEL.eqc", `inputframe{ name "frame.channel-left-2" }`, `inputframe{ name "frame.channel-right-2" }`, "nothing comes to assemble here", []string{
			`input frame "frame.channel-right-2": this compound renders eye [ LEFT ] of those "channel-all" shows, and its producers draw eye [ RIGHT ] for it`,
			`input frame "frame.channel-left-2": this compound renders eye [ RIGHT ] of those "channel-all" shows, and its producers draw eye [ LEFT ] for it`}},
	} {
		t.Run(c.config, func(t *testing.T) {
			_, got := resolveWarned(t, c.config, swap(corpusText(t, c.config), c.a, c.b))
			var said []string
			for _, w := range got {
				if strings.Contains(w, c.says) {
					said = append(said, w)
				}
			}
			if len(said) != len(c.want) {
				t.Errorf("warnings:\n%s\nwant %d saying %q", strings.Join(got, "\n"), len(c.want), c.says)
			}
			for _, w := range c.want {
				if !slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("no warning with %q in:\n%s", w, strings.Join(said, "\n"))
				}
			}
			noneWarns(t, c.says, corpusFiles(t)...)
		})
	}
}

func TestCheckWarnsAboutSizes(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { viewport [ 0 0 8192 8192 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "src" } }
        window { viewport [ 0 0 16385 16 ] channel { name "wide" } }
        window { viewport [ 0 0 4096 8192 ] channel { name "half" } }
        window { viewport [ 0 0 320 240 ] channel { name "pix" } }
        window { viewport [ 0 0 320 240 ] channel { name "clear" } }
    } }
    compound { channel "dest" compound { channel "src" outputframe { name "f" } } inputframe { name "f" }
        compound { channel "half" pixel [ 0 0 2 1 ] outputframe { name "h" } } inputframe { name "h" }
        compound { channel "pix" pixel [ 1 0 2 1 ] outputframe { name "p" } } inputframe { name "p" }
        compound { channel "clear" task [ CLEAR ] } }
}`
	_, got := resolveWarned(t, "sizes.eqc", src)
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`sizes.eqc:10:42: channel "src" (320x240) renders up to 8192x8192 pixels of destination "dest"`,
		"sizes.eqc:5:27: window of 16385x16 pixels: beyond the 16384-pixel framebuffer limit",
		`sizes.eqc:12:20: channel "pix" (320x240) renders up to 4096x8192 pixels of destination "dest"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	for _, unwanted := range []string{`channel "half"`, `channel "clear"`} {
		if strings.Contains(all, unwanted) {
			t.Errorf("a warning about %s in:\n%s", unwanted, all)
		}
	}
}

// compositing names a strategy that compounds below inherit; check warns
// where it applies to nothing, and fmt keeps it.
func TestCompositingAttribute(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "a" } }
        window { viewport [ 0 0 320 240 ] channel { name "b" } }
    } }
    compound { channel "dest" buffer [ COLOR DEPTH ] attributes { compositing binary_swap }
        compound { channel "a" range [ 0 .5 ] outputframe { name "fa" } }
        compound { channel "b" range [ .5 1 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }
    compound { channel "dest" attributes { compositing RADIX_K }
        compound { channel "a" viewport [ 0 0 .5 1 ] outputframe { name "ga" } }
        compound { channel "b" viewport [ .5 0 .5 1 ] outputframe { name "gb" } }
        inputframe { name "ga" } inputframe { name "gb" } }
}`
	res, err := configparser.Parse("compositing.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(res, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	db, twoD := m.Configs[0].Compounds[0], m.Configs[0].Compounds[1]
	if got := db.Compositing().String(); got != "BINARY_SWAP" {
		t.Errorf("sort-last compound composites %s, want BINARY_SWAP", got)
	}
	if got := db.Children[0].Compositing().String(); got != "BINARY_SWAP" {
		t.Errorf("its child inherits %s", got)
	}
	if len(db.SortLastSources()) != 2 || twoD.SortLastSources() != nil {
		t.Errorf("sort-last sources: DB %d, 2D %d", len(db.SortLastSources()), len(twoD.SortLastSources()))
	}
	var warned []string
	for _, w := range res.Warnings {
		warned = append(warned, w.String())
	}
	all := strings.Join(warned, "\n")
	if want := "compositing.eqc:11:56: compositing RADIX_K: no compound here merges sort-last sources"; !strings.Contains(all, want) {
		t.Errorf("no warning %q in:\n%s", want, all)
	}
	if strings.Contains(all, "compositing BINARY_SWAP") {
		t.Errorf("warned about a usable strategy:\n%s", all)
	}
	if text := string(configparser.Format(res)); !strings.Contains(text, "compositing BINARY_SWAP") || !strings.Contains(text, "compositing RADIX_K") {
		t.Errorf("fmt lost the attribute:\n%s", text)
	}
}

// check warns where a window asks for finer colour than the 8 bits a
// channel goeq renders and composites, and not where it asks for 8 or
// fewer; and where it asks for an accumulation buffer, which GL 3.3 core
// does not have.
func TestCheckWarnsAboutFinerColour(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { attributes { planes_color RGBA16F } channel { name "half" } }
        window { attributes { planes_color RGBA32F } channel { name "float" } }
        window { attributes { planes_color 10 } channel { name "ten" } }
        window { attributes { planes_color 8 } channel { name "eight" } }
        window { attributes { planes_color 4 planes_accum 16 } channel { name "four" } }
    } }
    compound { channel "half" }
}`
	_, warned := resolveWarned(t, "colour.eqc", src)
	var got, accum []string
	for _, w := range warned {
		if strings.Contains(w, "planes_color") {
			got = append(got, w)
		}
		if strings.Contains(w, "planes_accum 16: OpenGL 3.3 core has no accumulation buffer") {
			accum = append(accum, w)
		}
	}
	if len(accum) != 1 {
		t.Errorf("warnings of planes_accum: %q, want one", accum)
	}
	want := []string{"colour.eqc:3:31: planes_color RGBA16F", "colour.eqc:4:31: planes_color RGBA32F", "colour.eqc:5:31: planes_color 10"}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d of them", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) || !strings.Contains(got[i], "8 bits a channel") {
			t.Errorf("warning %q, want %q saying 8 bits a channel", got[i], want[i])
		}
	}
}

// Two destinations balanced across each other's windows (a cross-balanced
// wall, as 2-window.wall.DB.lb.eqc): each window runs the other
// destination's tree before its own, so exchanges in both trees would wait
// for each other. Neither exchanges, and a named strategy is warned about;
// trees of different layouts of one canvas never run together and keep
// theirs.
func TestCrossBalancedTreesDoNotExchange(t *testing.T) {
	tree := func(segment int, layout, other string) string {
		return fmt.Sprintf(`    compound { channel ( segment %d layout %q view 0 ) buffer [ COLOR DEPTH ] attributes { compositing BINARY_SWAP }
        load_equalizer { mode DB }
        compound { }
        compound { channel %q outputframe { name "f%d%s" } }
        inputframe { name "f%d%s" } }
`, segment, layout, other, segment, layout, segment, layout)
	}
	src := func(trees string) string {
		return `config {
    appNode {
        pipe { window { viewport [ 0 0 320 240 ] channel { name "c1" } } }
        pipe { window { viewport [ 0 0 320 240 ] channel { name "c2" } } } }
    layout { name "cross" view { } }
    layout { name "second" view { } }
    canvas { layout "cross" layout "second" wall { bottom_left [ -1 -.5 -1 ] bottom_right [ 1 -.5 -1 ] top_left [ -1 .5 -1 ] }
        segment { channel "c1" viewport [ 0 0 .5 1 ] }
        segment { channel "c2" viewport [ .5 0 .5 1 ] } }
` + trees + "}"
	}
	load := func(text string) (*Config, string) {
		t.Helper()
		m, warned := resolveWarned(t, "cross.eqc", text)
		return m.Configs[0], strings.Join(warned, "\n")
	}

	cross, warned := load(src(tree(0, "cross", "c2") + tree(1, "cross", "c1")))
	sortLast := 0
	cross.Walk(func(c *Compound) {
		if len(c.SortLastSources()) == 2 {
			sortLast++
		}
	})
	if sortLast != 2 {
		t.Fatalf("%d compounds merge two sort-last sources, want 2", sortLast)
	}
	if got := cross.SortLast(); len(got) != 0 {
		t.Errorf("cross-balanced trees may exchange: %d compounds", len(got))
	}
	if !strings.Contains(warned, "compositing BINARY_SWAP: the sort-last sources here draw on windows that also draw sort-last sources for another destination") {
		t.Errorf("no warning about the crossed windows in:\n%s", warned)
	}

	layouts, warned := load(src(tree(0, "cross", "c2") + tree(0, "second", "c2")))
	if got := layouts.SortLast(); len(got) != 2 {
		t.Errorf("trees of two layouts of one canvas: %d may exchange, want 2", len(got))
	}
	if strings.Contains(warned, "compositing BINARY_SWAP") {
		t.Errorf("warned about trees that never run together:\n%s", warned)
	}
}

// A source that merges a neighbour's image into its own before sending
// the result on with depth (a compositing tree) does not exchange: an
// exchange collects the merged bands' colour only, and the destination's
// depth merge of that result then showed the farther surface over 15% of
// the frame. The destination's own merge still may.
func TestMergedDepthSentOnKeepsTheGather(t *testing.T) {
	src := `config {
    appNode {
        pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } }
        pipe { window { viewport [ 0 0 320 240 ] channel { name "s0" } } }
        pipe { window { viewport [ 0 0 320 240 ] channel { name "s1" } } }
        pipe { window { viewport [ 0 0 320 240 ] channel { name "s2" } } } }
    compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "s0" buffer [ COLOR DEPTH ]
            compound { range [ 0 0.25 ] }
            compound { channel "s1" range [ 0.25 0.5 ] outputframe { name "f1" } }
            inputframe { name "f1" } outputframe { name "f01" } }
        compound { range [ 0.5 1 ] }
        compound { channel "s2" range [ 0.5 1 ] outputframe { name "f2" } }
        inputframe { name "f01" } inputframe { name "f2" } }
}`
	res, err := configparser.Parse("merging.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(res, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	dest := m.Configs[0].Compounds[0]
	merging := dest.Children[0]
	if got := merging.SortLastSources(); got != nil {
		t.Errorf("the source that sends its merged image on with depth may exchange among %d", len(got))
	}
	if got := len(dest.SortLastSources()); got != 0 {
		// its children are not all leaves: it gathers as written too
		t.Errorf("the destination may exchange among %d", got)
	}
	plain := `config {
    appNode {
        pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } }
        pipe { window { viewport [ 0 0 320 240 ] channel { name "s1" } } } }
    compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { range [ 0 0.5 ] }
        compound { channel "s1" range [ 0.5 1 ] outputframe { name "f1" } }
        inputframe { name "f1" } }
}`
	res, err = configparser.Parse("plain.eqc", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = Resolve(res, noEnv); err != nil {
		t.Fatal(err)
	}
	if got := len(m.Configs[0].Compounds[0].SortLastSources()); got != 2 {
		t.Errorf("a destination merging two ranges may exchange among %d, want 2", got)
	}
}

// A server file with two configs runs its first: the second is named in a
// warning rather than ignored silently.
func TestASecondConfigIsNamed(t *testing.T) {
	one := strings.Replace(twoChannels, "%s", `name "first"`, 1)
	two := strings.Replace(twoChannels, "%s", `name "second"`, 1)
	m, warned := resolveWarned(t, "two.eqc", "server {\n"+one+"\n"+two+"\n}\n")
	if m.Configs[0].Name != "first" {
		t.Errorf("the first config is %q", m.Configs[0].Name)
	}
	if want := `two.eqc:6:1: goeq runs the file's first config ("first") and not the other 1`; !slices.Contains(warned, want) {
		t.Errorf("no warning %q in %q", want, warned)
	}
}

// An eye or task list, or a frame's buffer list, that keeps what a
// compound draws from ever showing is valid (Equalizer runs it) but is
// warned about where it is written: the run's pictures miss those pixels.
// So is an output frame that no input frame assembles.
func TestCheckWarnsWherePixelsCannotArrive(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "a" } channel { name "b" } channel { name "c" } channel { name "d" } }
    } }
    compound { channel "dest" task [ CLEAR DRAW ]
        compound { channel "a" eye [ ] outputframe { name "fa" } }
        compound { channel "b" task [ DRAW ] outputframe { name "fb" } }
        compound { channel "c" outputframe { name "fc" buffer [ ] } }
        compound { channel "d" outputframe { name "fd" } }
        inputframe { name "fa" } inputframe { name "fb" } inputframe { name "fc" }
    }
}`
	_, got := resolveWarned(t, "dead.eqc", src)
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"dead.eqc:6:36: task without ASSEMBLE: input frame \"fa\" is never assembled",
		"dead.eqc:7:36: eye [ ]: this compound renders no eye",
		"dead.eqc:8:37: task without READBACK: output frame \"fb\" is never read back",
		"dead.eqc:9:63: buffer [ ]: this frame carries neither colour nor depth",
		"dead.eqc:10:32: output frame \"fd\" is assembled by no input frame in this compound tree",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d warnings, want 5:\n%s", len(got), all)
	}
}

// Two channels of one name make every reference to it ambiguous: it takes
// the first, as Equalizer's does, and check says so where it is used. The
// destination channels a canvas makes share their segment channel's name
// and are no such case.
func TestCheckWarnsAboutChannelsOfOneName(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } } }
    node { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "src" } } } }
    compound { channel "dest"
        compound { channel "src" outputframe { name "f" } }
        inputframe { name "f" } }
    layout { view {} }
    canvas { layout 0 wall {} segment { channel "src" } }
}`
	m, got := resolveWarned(t, "twice.eqc", src)
	want := `twice.eqc:4:24: 2 channels are named "dest" (in window 1 of pipe 1 of node app and window 1 of pipe 1 of node node1): this is the first of them; name them apart`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
	if d := m.Configs[0].Compounds[0].Channel; d.Window.Pipe.Node.ID != "app" {
		t.Errorf("the compound's channel is on node %s, want the first \"dest\"'s (app)", d.Window.Pipe.Node.ID)
	}
}

// The draws under a compound that split it along one dimension and leave
// part of it to none of them, or draw part of it twice, are warned about
// at the compound: the picture misses that part, or it costs twice.
// A destination's one draw is judged against the destination: what it
// leaves out, nothing draws. Draws that differ in two dimensions are
// judged by the compound's children (7-window.DB.PIXEL with the second
// half's range cut to [ .5 .9 ] ran with no warning). Splits that cover their compound once each,
// however deep their draws are (a direct send draws a level down), and
// splits an equalizer makes, are not.
func TestCheckWarnsWherePartsLeaveGapsOrOverlap(t *testing.T) {
	const head = `config {
    appNode { pipe {
        window { viewport [ 0 0 320 240 ] channel { name "dest" } }
        window { viewport [ 0 0 320 240 ] channel { name "a" } channel { name "b" } channel { name "c" } }
    } }
`
	for _, c := range []struct {
		name, tree, want string
	}{
		{"2D gap", `compound { channel "dest"
        compound { viewport [ 0 0 .5 1 ] }
        compound { channel "a" viewport [ .6 0 .4 1 ] outputframe { name "fa" } }
        inputframe { name "fa" } }`, "x.eqc:6:5: the 2 draws under this compound (their viewports) leave 10% of its area to none of them"},
		{"2D overlap in a part", `compound { channel "dest"
        compound { channel "a" viewport [ 0 0 .5 1 ] outputframe { name "fa" }
            compound { viewport [ 0 0 .6 1 ] } compound { viewport [ .5 0 .5 1 ] } }
        compound { channel "b" viewport [ .5 0 .5 1 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:7:9: the 2 draws under this compound (their viewports) draw 10% of its area twice"},
		{"DB gap a level down", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" compound { range [ 0 .4 ] outputframe { name "fa" } } }
        compound { channel "b" range [ .5 1 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 2 draws under this compound (their ranges) leave 10% of the data to none of them"},
		{"pixel gap", `compound { channel "dest"
        compound { channel "a" pixel [ 0 0 3 1 ] outputframe { name "fa" } }
        compound { channel "b" pixel [ 2 0 3 1 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 2 draws under this compound (their pixel kernels) leave 1 of every 3 pixels to none of them"},
		{"subpixel twice", `compound { channel "dest"
        compound { subpixel [ 0 3 ] }
        compound { channel "a" subpixel [ 0 3 ] outputframe { name "fa" } }
        compound { channel "b" subpixel [ 1 3 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 3 draws under this compound (their subpixel samples) leave 1 of every 3 samples to none of them and draw 1 of every 3 samples twice"},
		// samples of different counts weigh as their own samples do, in
		// samples of the least common multiple of the counts: one of
		// 256, 255, 253 and 251 samples is too small a weight to sum
		{"subpixel counts too many to weigh", `compound { channel "dest"
        compound { subpixel [ 0 256 ] }
        compound { subpixel [ 0 255 ] outputframe { name "fz" } }
        compound { channel "a" subpixel [ 0 253 ] outputframe { name "fa" } }
        compound { channel "b" subpixel [ 0 251 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } inputframe { name "fz" } }`, "x.eqc:6:5: the 4 draws under this compound (their subpixel samples) are of sizes whose least common multiple is over 16777216, more than goeq weighs on the same pixels: each frame fails"},
		{"subpixel counts of many samples", `compound { channel "dest"
        compound { subpixel [ 0 2 ] }
        compound { channel "a" subpixel [ 1 2 ] outputframe { name "fa" } }
        compound { channel "b" subpixel [ 0 255 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 3 draws under this compound (their subpixel samples) draw 2 of every 510 samples twice"},
		{"subpixel counts that overlap", `compound { channel "dest"
        compound { subpixel [ 0 2 ] }
        compound { channel "a" subpixel [ 1 3 ] outputframe { name "fa" } }
        compound { channel "b" subpixel [ 2 3 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 3 draws under this compound (their subpixel samples) draw 1 of every 6 samples twice"},
		{"subpixel counts that cover", `compound { channel "dest"
        compound { subpixel [ 0 2 ] }
        compound { channel "a" subpixel [ 2 4 ] outputframe { name "fa" } }
        compound { channel "b" subpixel [ 3 4 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, ""},
		{"all the same", `compound { channel "dest"
        compound { channel "a" outputframe { name "fa" } }
        compound { channel "b" outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 2 draws under this compound all draw the same part of it, 2 times over"},
		{"sources that merge a neighbour's range first", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" compound { range [ 0 .25 ] }
            compound { channel "b" range [ .25 .5 ] outputframe { name "fb" } }
            inputframe { name "fb" } outputframe { name "fab" } }
        compound { channel "c" range [ .5 1 ] outputframe { name "fc" } }
        inputframe { name "fab" } inputframe { name "fc" } }`, ""},
		{"destinations side by side", `compound {
        compound { channel "a" } compound { channel "b" } }`, ""},
		{"frames none runs in", `compound { channel "dest"
        compound { channel "a" period 3 phase 0 outputframe { name "fa" } }
        compound { channel "b" period 3 phase 1 outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 2 draws under this compound (their period and phase) run in none of 1 of every 3 frames this compound runs in, which show only its clear"},
		{"a direct send", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" compound { range [ 0 .5 ] outputframe { name "s1" viewport [ 0 0 1 .5 ] } }
            inputframe { name "s2" } outputframe { name "fa" buffer [ COLOR ] viewport [ 0 .5 1 .5 ] } }
        compound { range [ .5 1 ] outputframe { name "s2" viewport [ 0 .5 1 .5 ] } }
        inputframe { name "s1" } inputframe { name "fa" } }`, ""},
		{"an equalizer's split of a range", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { range [ 0 .5 ] load_equalizer { mode 2D }
            compound { channel "a" outputframe { name "fa" } } compound {} }
        compound { range [ .5 1 ] load_equalizer { mode 2D }
            compound { channel "b" outputframe { name "fb" } } compound { channel "c" outputframe { name "fc" } } }
        inputframe { name "fa" } inputframe { name "fb" } inputframe { name "fc" } }`, ""},
		{"eyes of 2D halves", `compound { channel "dest" eye [ LEFT RIGHT ]
        compound { eye [ LEFT ] viewport [ 0 0 .5 1 ] }
        compound { channel "a" eye [ RIGHT ] viewport [ .5 0 .5 1 ] outputframe { name "fa" } }
        inputframe { name "fa" } }`, ""},
		{"halves of the area each with half the data", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 .5 1 ] range [ 0 .5 ] }
        compound { channel "a" viewport [ .5 0 .5 1 ] range [ .5 1 ] outputframe { name "fa" } }
        inputframe { name "fa" } }`, "x.eqc:6:5: the 2 draws under this compound (their viewports and ranges) leave 100% of its area showing only part of the data: the ranges drawn over each pixel must add up to the whole data once"},
		{"halves of the area each with both halves of the data", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 .5 1 ] range [ 0 .5 ] }
        compound { channel "a" viewport [ 0 0 .5 1 ] range [ .5 1 ] outputframe { name "fa" } }
        compound { channel "b" viewport [ .5 0 .5 1 ] range [ 0 .5 ] outputframe { name "fb" } }
        compound { channel "c" viewport [ .5 0 .5 1 ] range [ .5 1 ] outputframe { name "fc" } }
        inputframe { name "fa" } inputframe { name "fb" } inputframe { name "fc" } }`, ""},
		{"one half of the area without a range", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { viewport [ 0 0 1 1 ] range [ 0 .5 ] }
        compound { channel "a" viewport [ 0 0 .5 1 ] range [ .5 1 ] outputframe { name "fa" } }
        compound { channel "b" viewport [ .5 0 .5 1 ] range [ .5 .8 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, "x.eqc:6:5: the 3 draws under this compound (their viewports and ranges) leave 50% of its area showing only part of the data: the ranges drawn over each pixel must add up to the whole data once"},
		{"one draw of half the area", `compound { channel "dest"
        compound { channel "a" viewport [ .5 0 .5 1 ] outputframe { name "fa" } }
        inputframe { name "fa" } }`, "x.eqc:6:5: the one draw under this destination (its viewport) leaves 50% of its area undrawn: nothing else draws under it"},
		{"one draw of half the data", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" range [ 0 .5 ] outputframe { name "fa" } }
        inputframe { name "fa" } }`, "x.eqc:6:5: the one draw under this destination (its range) leaves 50% of the data undrawn: nothing else draws under it"},
		{"one draw of every other pixel", `compound { channel "dest"
        compound { pixel [ 1 0 2 1 ] } }`, "x.eqc:6:5: the one draw under this destination (its pixel kernel) leaves 1 of every 2 pixels undrawn: nothing else draws under it"},
		{"one draw of the whole on another channel", `compound { channel "dest"
        compound { channel "a" outputframe { name "fa" } }
        inputframe { name "fa" } }`, ""},
		{"one draw of a stage's part", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" compound { range [ 0 .5 ] outputframe { name "fa" } } compound { task [ ASSEMBLE READBACK ] inputframe { name "fb" } outputframe { name "fab" } } }
        compound { channel "b" compound { range [ .5 1 ] outputframe { name "fb" } } }
        inputframe { name "fa" } inputframe { name "fab" } }`, ""},
		{"DB halves of pixel parts, one short", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" range [ 0 .5 ]
            compound { channel "b" pixel [ 0 0 2 1 ] outputframe { name "fb" } }
            compound { channel "c" pixel [ 1 0 2 1 ] outputframe { name "fc" } }
            inputframe { name "fb" } inputframe { name "fc" } outputframe { name "fa" } }
        compound { range [ .5 .9 ] pixel [ 0 0 1 1 ] }
        inputframe { name "fa" } }`, "x.eqc:6:5: the 2 children that draw under this compound (their ranges) leave 10% of the data to none of them"},
		{"DB halves of pixel parts", `compound { channel "dest" buffer [ COLOR DEPTH ]
        compound { channel "a" range [ 0 .5 ]
            compound { channel "b" pixel [ 0 0 2 1 ] outputframe { name "fb" } }
            compound { channel "c" pixel [ 1 0 2 1 ] outputframe { name "fc" } }
            inputframe { name "fb" } inputframe { name "fc" } outputframe { name "fa" } }
        compound { range [ .5 1 ] }
        inputframe { name "fa" } }`, ""},
		{"thirds written with three digits", `compound { channel "dest"
        compound { viewport [ 0 0 .333 1 ] }
        compound { channel "a" viewport [ .333 0 .333 1 ] outputframe { name "fa" } }
        compound { channel "b" viewport [ .666 0 .334 1 ] outputframe { name "fb" } }
        inputframe { name "fa" } inputframe { name "fb" } }`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := resolveWarned(t, "x.eqc", head+"    "+c.tree+"\n}\n")
			var split []string
			for _, w := range got {
				if strings.Contains(w, "draws under this compound") || strings.Contains(w, "draw under this compound") || strings.Contains(w, "draw under this destination") {
					split = append(split, w)
				}
			}
			if c.want == "" && len(split) > 0 || c.want != "" && (len(split) != 1 || split[0] != c.want) {
				t.Errorf("warnings:\n%s\nwant %q", strings.Join(split, "\n"), c.want)
			}
		})
	}
}

// A load equalizer beside a tile equalizer changes nothing: the sources
// draw the tiles they take. check says so where it is written.
func TestCheckWarnsAboutALoadEqualizerBesideTiles(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "src" } } } }
    compound { channel "dest" tile_equalizer {}
        load_equalizer {}
        compound {}
        compound { channel "src" outputframe {} }
        inputframe { name "frame.src" } }
}`
	_, got := resolveWarned(t, "tiles.eqc", src)
	want := `tiles.eqc:4:9: a load or tree equalizer beside a tile_equalizer has no effect: the sources draw the tiles they take from the queue, whatever part it gives them (as in Equalizer)`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
}

// A tile is a task of its own: tiles so small that their overhead is the
// frame are warned of (8160 tiles took 3.3 s a frame here),
// and a queue that would not fit in memory is refused, where the compound
// is written.
func TestCheckWarnsAboutTinyTiles(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 %d %d ] channel { name "dest" } channel { name "src" } } } }
    compound { channel "dest" tile_equalizer { size %s }
        compound {}
        compound { channel "src" outputframe {} }
        inputframe { name "frame.src" } }
}`
	_, got := resolveWarned(t, "tiles.eqc", fmt.Sprintf(src, 320, 240, "[ 64 64 ]"))
	if len(got) != 0 {
		t.Errorf("tiles of [ 64 64 ]: warnings\n%s", strings.Join(got, "\n"))
	}
	_, got = resolveWarned(t, "tiles.eqc", fmt.Sprintf(src, 320, 240, "[ 4 4 ]"))
	if len(got) != 0 {
		t.Errorf("4800 tiles: warnings\n%s", strings.Join(got, "\n"))
	}
	_, got = resolveWarned(t, "tiles.eqc", fmt.Sprintf(src, 320, 240, "[ 2 2 ]"))
	want := `tiles.eqc:3:5: tile_equalizer "tiles" cuts its 320x240 pixels of "dest" into 19200 tiles of [ 2 2 ] a frame, each drawn, read back and sent on its own: their overhead makes the frame's time; tiles of [ 64 64 ] (Equalizer's default) make 20`
	if len(got) != 1 || got[0] != want {
		t.Errorf("19200 tiles: warnings\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	err := load("tiles.eqc", fmt.Sprintf(src, 2048, 1024, "[ 1 1 ]"))
	if err == nil || !strings.Contains(err.Error(), `tiles.eqc:3:5: tile_equalizer "tiles" cuts its 2048x1024 pixels of "dest" into 2097152 tiles of [ 1 1 ] a frame, each drawn, read back and sent on its own: more than goeq takes`) {
		t.Errorf("2097152 tiles: %v", err)
	}
}

// Sources draw the tiles they take at full size: a zoom on them, or on
// the compound whose tiles they take, changes nothing, and check says so
// where it is written. A database chunk queue's sources draw zoomed.
func TestCheckWarnsAboutZoomedTiles(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "src" } channel { name "src2" } } } }
    compound { channel "dest" tile_equalizer {} zoom [ 2 2 ]
        compound { zoom [ 0.5 1 ] }
        compound { channel "src" zoom [ 0.5 0.5 ] outputframe {} }
        inputframe { name "frame.src" } }
    compound { channel "src2" tile_equalizer { size 0.1 }
        compound { zoom [ 0.5 0.5 ] } }
}`
	_, got := resolveWarned(t, "tiles.eqc", src)
	const noEffect = "zoom beside or under a tile_equalizer has no effect: the sources draw the tiles they take at full size"
	want := []string{"tiles.eqc:3:49: " + noEffect, "tiles.eqc:4:20: " + noEffect, "tiles.eqc:5:34: " + noEffect}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A compound that draws on another channel than its destination's and
// sends no output frame shows its pixels on its own channel alone. Where
// it cannot become that channel's destination (an equalizer above divides
// the work among the channels), check says so. Channels on the
// destination's pixels of its window draw in place, and a frame read back
// above the draw carries it.
func TestCheckWarnsWhereADrawReachesNoDestination(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 640 240 ]
        channel { name "left" viewport [ 0 0 .5 1 ] } channel { name "right" viewport [ .5 0 .5 1 ] } channel { name "over" } }
        window { viewport [ 0 0 640 240 ] channel { name "src" } } } }
    compound { channel "left" wall {} load_equalizer {}
        compound { }
        compound { channel "right" } }
    compound { channel "over" wall {}
        compound { channel "src" viewport [ 0 0 .5 1 ] compound { range [ 0 .5 ] } compound { range [ .5 1 ] } outputframe {} }
        compound { viewport [ .5 0 .5 1 ] }
        inputframe { name "frame.src" } }
}`
	_, got := resolveWarned(t, "passive.eqc", src)
	want := `passive.eqc:7:20: channel "right" draws here for destination "left", but no output frame carries its pixels there: they show on "right"'s own pixels alone (as Equalizer configs before canvases drove a second display), and that part is missing from "left"'s images`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
}

// An untracked eye in the plane of a wall sees nothing there (generated
// configs put their walls at z = 0 and track the head): check says so once
// a config, at the first such destination, a segment's place where goeq
// made its compound. A wall in front of the eye, or one of an HMD that
// moves with the head, is fine.
func TestCheckWarnsWhereTheEyeLiesInAWallsPlane(t *testing.T) {
	nodes := `appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } }
        window { viewport [ 0 0 320 180 ] channel { name "b" } } } }`
	for _, c := range []struct{ name, body, want string }{
		{"segments", `layout { view { } } canvas { layout 0
            segment { channel "a" viewport [ 0 0 .5 1 ] wall { bottom_left [ -1 -.3 0 ] bottom_right [ 0 -.3 0 ] top_left [ -1 .3 0 ] } }
            segment { channel "b" viewport [ .5 0 .5 1 ] wall { bottom_left [ 0 -.3 0 ] bottom_right [ 1 -.3 0 ] top_left [ 0 .3 0 ] } } }`,
			`eye.eqc:5:13: the eye at [ 0 0 0 ] lies in the plane of the wall channel "a" shows (and that of 1 more destination): seen from there the wall has no depth, so nothing shows until an application moves the observer's head (goeq.Config.SetHead, as head tracking does); move the wall off the eye (e.g. z = -1) to run it as it is`},
		{"a compound", `compound { channel "b" wall { bottom_left [ -1 -1 0 ] bottom_right [ 1 -1 0 ] top_left [ -1 1 0 ] } }`,
			`eye.eqc:4:16: the eye at [ 0 0 0 ] lies in the plane of the wall channel "b" shows: seen from there the wall has no depth, so nothing shows until an application moves the observer's head (goeq.Config.SetHead, as head tracking does); move the wall off the eye (e.g. z = -1) to run it as it is`},
		{"in front", `compound { channel "b" wall { bottom_left [ -1 -1 -1 ] bottom_right [ 1 -1 -1 ] top_left [ -1 1 -1 ] } }`, ""},
		{"an HMD", `compound { channel "b" wall { bottom_left [ -1 -1 0 ] bottom_right [ 1 -1 0 ] top_left [ -1 1 0 ] type HMD } }`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := resolveWarned(t, "eye.eqc", "config {\n    "+nodes+"\n    "+c.body+"\n}")
			checkWarningsWith(t, got, "lies in the plane", c.want)
		})
	}
}

// A window whose fractional viewport reaches past its pipe's screen opens
// partly off it, as Equalizer's does (its pixel viewport may), with a
// warning: check refused the config.
func TestAWindowPartlyOffItsScreenOpensThere(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0.25 0.25 1 0.5 ] channel { name "c" } } } }
    compound { channel "c" wall {} }
}`
	m, got := resolveWarned(t, "off.eqc", src)
	want := "off.eqc:2:40: window viewport [ 0.25 0.25 1 0.5 ] reaches past its pipe's screen: the window opens partly off it, as Equalizer's does"
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
	win := m.Configs[0].Nodes[0].Pipes[0].Windows[0]
	if pv := win.PixelViewport; pv != (PixelViewport{480, 270, 1920, 540}) {
		t.Errorf("the window's pixel viewport is %v, want [480 270 1920 540] of its pipe's 1920x1080", pv)
	}
}

// A projection that check refuses gets its error alone: a field of view of
// 180 degrees also had a warning that the eye lies in the plane of the
// unbounded wall it made.
func TestARefusedProjectionGetsNoWarningOfItsWall(t *testing.T) {
	src := `config {
    appNode { pipe { window { channel { name "c" } } } }
    compound { channel "c" projection { distance 1 fov [ 180 90 ] } }
}`
	res, err := configparser.Parse("fov.eqc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(res, noEnv)
	if err == nil || !strings.Contains(err.Error(), "projection needs a field of view between 0 and 180 degrees") {
		t.Fatalf("error %v, want the projection's", err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning beside the projection's error: %s", w)
	}
}

// A compound that names two channels keeps the last, as Equalizer's does:
// check says which one it replaced (one of the corpus configs names a
// view's channel and then the plain one, so its view got a compound of
// its own besides).
func TestCheckWarnsWhereACompoundNamesTwoChannels(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } channel { name "b" } } } }
    compound { channel "a"
        channel "b" }
}`
	m, got := resolveWarned(t, "two.eqc", src)
	want := `two.eqc:4:9: a compound has one channel: this one replaces "a" (line 3), as in Equalizer; remove the one not meant`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
	if ch := m.Configs[0].Compounds[0].Channel; ch.Name != "b" {
		t.Errorf("the compound's channel is %q, want the last named", ch.Name)
	}
}

// A destination whose eyes its view's mode does not show draws nothing:
// check says so where no compound on that channel draws for the mode (a
// generated side-by-side stereo config renders eye [ LEFT RIGHT ] on a
// view left MONO for its application to switch), but not where another
// compound is there for the mode (a 2D compound for the cyclop eye beside
// the stereo ones, as Passive.stereo.powerwall has). Eyes a group of
// destinations names are warned about where it names them.
func TestCheckWarnsWhereAViewsModeShowsNoEyeADestinationDraws(t *testing.T) {
	nodes := `appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } channel { name "b" } } } }`
	for _, c := range []struct{ name, body, want string }{
		{"stereo eyes on a mono view", `layout { view { } } canvas { layout 0 wall { } segment { channel "a" } }
    compound { channel ( view 0 segment 0 ) eye [ LEFT RIGHT ] }`,
			`eyes.eqc:4:49: eye [ LEFT RIGHT ]: the view this destination shows (layout "" view #0 on canvas "" segment #0) is MONO: it shows eye [ CYCLOP ], which this compound does not render, so it draws nothing until the view's mode changes (an application's Config.SetViewMode)`},
		{"a right-eye segment of a mono view", `layout { view { } } canvas { layout 0 wall { } segment { channel "a" } segment { channel "b" eye [ RIGHT ] } }
    compound { compound { channel ( view 0 segment 0 ) } compound { channel ( view 0 segment 1 ) eye [ RIGHT ] } }`,
			`eyes.eqc:4:102: eye [ RIGHT ]: the view this destination shows (layout "" view #0 on canvas "" segment #1) is MONO: its segment shows eye [ RIGHT ] alone, which a MONO view has not, so it draws nothing until the view's mode changes (an application's Config.SetViewMode)`},
		{"stereo eyes of a group of destinations on a mono view", `layout { view { } } canvas { layout 0 wall { } segment { channel "a" } }
    compound { eye [ LEFT RIGHT ] compound { channel ( view 0 segment 0 ) } }`,
			`eyes.eqc:4:20: eye [ LEFT RIGHT ]: the view the destination at line 4, which takes them, shows (layout "" view #0 on canvas "" segment #0) is MONO: it shows eye [ CYCLOP ], which it does not render, so it draws nothing until the view's mode changes (an application's Config.SetViewMode)`},
		{"a compound for each mode", `layout { view { mode STEREO } } canvas { layout 0 wall { } segment { channel "a" } }
    compound { channel ( view 0 segment 0 ) eye [ CYCLOP ] }
    compound { channel ( view 0 segment 0 ) eye [ LEFT RIGHT ] }`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := resolveWarned(t, "eyes.eqc", "config {\n    "+nodes+"\n    "+c.body+"\n}")
			checkWarningsWith(t, got, "draws nothing until the view's mode", c.want)
		})
	}
}

// A view whose every segment shows only eyes its mode has not shows
// nowhere, and check says so; passive stereo, where one segment goes dark
// in each mode, is no mistake. The verify of a corpus config with its one
// segment made eye [ LEFT ] said "its warnings above say why" above none.
func TestCheckWarnsOfAViewNoSegmentShows(t *testing.T) {
	nodes := `appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } channel { name "b" } channel { name "c" } } } }`
	for _, c := range []struct{ name, body, want string }{
		{"a left-eye segment of a mono view", `layout { view { } } canvas { layout 0 wall { } segment { channel "a" eye [ LEFT ] } }
    compound { channel ( view 0 segment 0 ) }`,
			`eyes.eqc:3:52: this segment shows eye [ LEFT ] alone, which the MONO view #0 of layout 0 (unnamed) has not, and no other segment shows that view: it shows nowhere until its mode changes (an application's Config.SetViewMode), as in Equalizer`},
		{"a cyclop segment of a stereo view", `layout { view { mode STEREO } } canvas { layout 0 wall { } segment { channel "a" eye [ CYCLOP ] } }
    compound { channel ( view 0 segment 0 ) }`,
			`eyes.eqc:3:64: this segment shows eye [ CYCLOP ] alone, which the STEREO view #0 of layout 0 (unnamed) has not, and no other segment shows that view: it shows nowhere until its mode changes (an application's Config.SetViewMode), as in Equalizer`},
		{"two left-eye segments of a mono view, said once", `layout { view { } } canvas { layout 0 wall { } segment { channel "a" eye [ LEFT ] } segment { channel "b" eye [ LEFT ] } }
    compound { compound { channel ( view 0 segment 0 ) } compound { channel ( view 0 segment 1 ) } }`,
			`eyes.eqc:3:52: this segment shows eye [ LEFT ] alone, which the MONO view #0 of layout 0 (unnamed) has not, and no other segment shows that view: it shows nowhere until its mode changes (an application's Config.SetViewMode), as in Equalizer`},
		{"passive stereo, in stereo", `layout { view { mode STEREO } } canvas { layout 0 wall { } segment { channel "a" eye [ LEFT ] } segment { channel "b" eye [ RIGHT ] } segment { channel "c" eye [ CYCLOP ] } }
    compound { compound { channel ( view 0 segment 0 ) } compound { channel ( view 0 segment 1 ) } compound { channel ( view 0 segment 2 ) } }`, ""},
		{"passive stereo, in mono", `layout { view { } } canvas { layout 0 wall { } segment { channel "a" eye [ LEFT CYCLOP ] } segment { channel "b" eye [ RIGHT ] } }
    compound { compound { channel ( view 0 segment 0 ) } compound { channel ( view 0 segment 1 ) } }`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := resolveWarned(t, "eyes.eqc", "config {\n    "+nodes+"\n    "+c.body+"\n}")
			checkWarningsWith(t, got, "it shows nowhere", c.want)
		})
	}
}

// A version 1.0 file is converted as Equalizer converts it: a destination
// that renders the stereo eyes without the cyclop eye, by its own eye list
// or the nearest one above it, makes its view stereo, and its segment
// shows the eyes it renders. Destinations held by a group without a
// channel are converted too (an HMD's two eyes, in Equalizer's 1.0
// 4-window.all.eqc). A 1.1 file keeps its views' modes.
func TestAVersion10DestinationOfStereoEyesMakesItsViewStereo(t *testing.T) {
	const nodes = `appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } channel { name "b" } channel { name "c" } } } }`
	const views = `layout { view { } } layout { view { } } layout { view { } }
    canvas { layout 0 layout 1 layout 2 wall { } segment { channel "a" } segment { channel "b" } segment { channel "c" } }`
	const compounds = `compound { channel ( layout 0 view 0 segment 0 ) eye [ LEFT RIGHT ] }
    compound { compound { channel ( layout 1 view 0 segment 0 ) eye [ LEFT ] } compound { channel ( layout 1 view 0 segment 1 ) eye [ RIGHT ] } }
    compound { eye [ LEFT RIGHT ] compound { channel ( layout 2 view 0 segment 2 ) } }`
	for _, version := range []string{"1.0", "1.1"} {
		t.Run(version, func(t *testing.T) {
			m, _ := resolveWarned(t, "eyes.eqc", "#Equalizer "+version+" ascii\nconfig {\n    "+nodes+"\n    "+views+"\n    "+compounds+"\n}")
			cfg := m.Configs[0]
			for i, layout := range cfg.Layouts {
				if stereo := layout.Views[0].Stereo; stereo != (version == "1.0") {
					t.Errorf("layout %d's view: stereo %v, want %v in a version %s file", i, stereo, version == "1.0", version)
				}
			}
			if version == "1.0" {
				segs := cfg.Canvases[0].Segments
				want := []int{EyesAll, EyeCyclop | EyeRight, EyeCyclop | EyeLeft | EyeRight}
				for i, seg := range segs {
					if seg.Eyes != want[i] {
						t.Errorf("segment %d shows eyes %b, want %b", i, seg.Eyes, want[i])
					}
				}
			}
		})
	}
}

// A part of a pixel, subpixel or zoom decomposition whose children draw
// the stereo eyes alone leaves its pixels empty in a mono view (random
// compound trees found it): check says so where the rest of the view draws
// the cyclop eye (in a time multiplex's phase too), but not for an eye's
// part beside a cyclop one, a part of a 2D split (its destination draws
// it), a balanced split's part (it gets no share), nor interleaved eyes in
// a stereo view (a passive wall's rows).
func TestCheckWarnsWhereAPixelPartDrawsNoEyeOfItsMonoView(t *testing.T) {
	var windows []string
	for _, name := range []string{"d", "s0", "s1", "s2", "s3"} {
		windows = append(windows, fmt.Sprintf(`window { viewport [ 0 0 160 100 ] attributes { hint_drawable FBO } channel { name %q } }`, name))
	}
	src := func(i int, part string) string {
		return fmt.Sprintf(`compound { channel "s%d" %s outputframe { name "f%d" } }`, i, part, i)
	}
	frames := `inputframe { name "f0" } inputframe { name "f1" } inputframe { name "f2" }`
	for _, c := range []struct{ name, mode, body, want string }{
		{"eye parts in a pixel part", "MONO", `compound { pixel [ 0 0 2 1 ] ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` }
        ` + src(2, "pixel [ 1 0 2 1 ]"),
			`pixel.eqc:5:9: this part of a pixel decomposition draws eye [ LEFT RIGHT ] alone, and the view it shows is MONO: while it is, its pixels stay empty, as in Equalizer (a destination draws such parts of a 2D or DB split itself, and the whole view where no part draws the cyclop eye)`},
		{"a phase of eye parts in a pixel part", "MONO", `compound { pixel [ 0 0 2 1 ] ` + src(3, "period 2 phase 0") + `
            compound { period 2 phase 1 ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` } }
        ` + src(2, "pixel [ 1 0 2 1 ]") + ` inputframe { name "f3" }`,
			`pixel.eqc:6:13: this part of a pixel decomposition draws eye [ LEFT RIGHT ] alone, and the view it shows is MONO: while it is, its pixels stay empty in the frames of its phase, as in Equalizer (a destination draws such parts of a 2D or DB split itself, and the whole view where no part draws the cyclop eye)`},
		{"an eye decomposition with a cyclop part", "MONO", `compound { pixel [ 0 0 2 1 ] ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + src(3, "eye [ CYCLOP ]") + ` }
        ` + src(2, "pixel [ 1 0 2 1 ]") + ` inputframe { name "f3" }`, ""},
		{"eye parts in a 2D part", "MONO", `compound { viewport [ 0 0 .5 1 ] ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` }
        ` + src(2, "viewport [ .5 0 .5 1 ]"), ""},
		{"a balanced split's part", "MONO", `compound { pixel [ 0 0 2 1 ] load_equalizer { mode 2D }
            compound { ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` } ` + src(3, "") + ` }
        ` + src(2, "pixel [ 1 0 2 1 ]") + ` inputframe { name "f3" }`, ""},
		{"interleaved eyes in a stereo view", "STEREO", src(0, "pixel [ 0 0 1 2 ] eye [ LEFT ]") + src(1, "pixel [ 0 1 1 2 ] eye [ RIGHT ]") + src(2, "eye [ CYCLOP ]"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := resolveWarned(t, "pixel.eqc", `config {
    appNode { pipe { `+strings.Join(windows, " ")+` } }
    layout { view { mode `+c.mode+` } } canvas { layout 0 wall { } segment { channel "d" } }
    compound { channel ( view 0 segment 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        `+c.body+`
        `+frames+` }
}`)
			checkWarningsWith(t, got, "its pixels stay empty", c.want)
		})
	}
}

// Compounds whose eyes their parent does not render never draw (as in
// Equalizer): check says so of each, and of a pixel, subpixel or zoom part
// that draws nothing else, whose pixels stay empty in every frame. A 2D or
// DB part of that kind its destination draws itself (the planner), and
// eye parts under a compound that renders them are fine.
func TestCheckWarnsOfEyesTheirParentLeavesOut(t *testing.T) {
	var windows []string
	for _, name := range []string{"d", "s0", "s1", "s2"} {
		windows = append(windows, fmt.Sprintf(`window { viewport [ 0 0 160 100 ] attributes { hint_drawable FBO } channel { name %q } }`, name))
	}
	src := func(i int, part string) string {
		return fmt.Sprintf(`compound { channel "s%d" %s outputframe { name "f%d" } }`, i, part, i)
	}
	never := func(line, col int, eye string) string {
		return fmt.Sprintf("eyes.eqc:%d:%d: eye [ %s ]: its parent renders eye [ CYCLOP ] alone, so this compound never draws (an eye reaches a compound only through compounds that render it, as in Equalizer)", line, col, eye)
	}
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"in a pixel part", `compound { eye [ CYCLOP ] compound { pixel [ 0 0 2 1 ]
            ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` }
            ` + src(2, "pixel [ 1 0 2 1 ]") + ` }`, []string{
			"eyes.eqc:5:35: this part of a pixel decomposition draws only eyes that its ancestors leave out: its pixels stay empty in every frame (a destination draws such parts of a 2D or DB split itself)",
			never(6, 41, "LEFT"), never(6, 105, "RIGHT")}},
		{"in a DB part", `compound { eye [ CYCLOP ] compound { range [ 0 0.5 ]
            ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` }
            ` + src(2, "range [ 0.5 1 ]") + ` }`, []string{never(6, 41, "LEFT"), never(6, 105, "RIGHT")}},
		{"under a compound that renders them", `compound { eye [ LEFT RIGHT ] compound { pixel [ 0 0 2 1 ]
            ` + src(0, "eye [ LEFT ]") + src(1, "eye [ RIGHT ]") + ` }
            ` + src(2, "pixel [ 1 0 2 1 ]") + ` }`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := resolveWarned(t, "eyes.eqc", `config {
    appNode { pipe { `+strings.Join(windows, " ")+` } }
    layout { view { mode STEREO } } canvas { layout 0 wall { } segment { channel "d" } }
    compound { channel ( view 0 segment 0 ) task [ CLEAR ASSEMBLE ] buffer [ COLOR DEPTH ]
        `+c.body+`
        inputframe { name "f0" } inputframe { name "f1" } inputframe { name "f2" } }
}`)
			var warned []string
			for _, w := range got {
				if strings.Contains(w, "never draws") || strings.Contains(w, "ancestors leave out") {
					warned = append(warned, w)
				}
			}
			if strings.Join(warned, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(warned, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// A window or channel that gives its viewport twice takes the last, as
// Equalizer's loader does: configs that Equalizer's configTool wrote give
// the destination window a zero-area viewport and then its real one.
func TestARepeatedViewportTakesTheLast(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 480 100 0 0 ]
        viewport [ 480 100 320 200 ]
        channel { name "c" viewport [ 0 0 .5 1 ] viewport [ 0 0 1 1 ] } } } }
    compound { channel "c" } }`
	m, got := resolveWarned(t, "twice.eqc", src)
	want := []string{
		`twice.eqc:2:40: window viewport given again at line 3: the last one is used, as in Equalizer`,
		`twice.eqc:4:37: channel viewport given again at line 4: the last one is used, as in Equalizer`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	w := m.Configs[0].Nodes[0].Pipes[0].Windows[0]
	if w.PixelViewport != (PixelViewport{480, 100, 320, 200}) || w.Channels[0].PixelViewport != (PixelViewport{0, 0, 320, 200}) {
		t.Errorf("window %+v channel %+v, want the last viewports", w.PixelViewport, w.Channels[0].PixelViewport)
	}
}

// A destination whose own task list draws but does not clear never has
// its pixels cleared: generated configs (omegalib's) leave the clear to
// their application's draw. check says so; a source without CLEAR, whose
// frame is read back from what it drew, is fine.
func TestCheckWarnsWhereADestinationDrawsWithoutClearing(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 180 ] channel { name "a" } } window { viewport [ 0 0 320 180 ] channel { name "b" } } } }
    compound { channel "a" task [ DRAW ]
        compound { channel "b" task [ DRAW READBACK ] outputframe { name "fb" } }
        inputframe { name "fb" } }
}`
	_, got := resolveWarned(t, "noclear.eqc", src)
	checkWarningsWith(t, got, "without CLEAR", `noclear.eqc:3:33: task without CLEAR on a destination that draws: nothing clears its pixels, so each frame draws over the last unless the application's Draw clears (generated configs, such as omegalib's, leave the clear to their application)`)
}

// checkWarningsWith checks that the warnings containing substr are want
// alone, or none when want is "".
func checkWarningsWith(t *testing.T, got []string, substr, want string) {
	t.Helper()
	var with []string
	for _, w := range got {
		if strings.Contains(w, substr) {
			with = append(with, w)
		}
	}
	if want == "" && len(with) > 0 || want != "" && (len(with) != 1 || with[0] != want) {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(with, "\n"), want)
	}
}

// A config in the form Equalizer writes the configs it saves (the
// .auto.eqc of every auto-configured run) loads without a warning:
// a window's and a channel's pixel viewport beside its fraction (the last
// is used), `buffers` in compounds and frames (Equalizer's lexer reads it
// as buffer), an observer's `opencv_camera OFF`, and the window size
// hints of its auto-configuration (set by the environment, written in
// the global section). goeq refused the frames' `buffers` and the size
// hints, and warned about each of the others.
func TestAConfigEqualizerSavedLoadsQuietly(t *testing.T) {
	src := `#Equalizer 1.2 ascii

global
{
    EQ_WINDOW_IATTR_HINT_WIDTH        1920
    EQ_WINDOW_IATTR_HINT_HEIGHT       1200
}

server
{
    config
    {
        name    "local autoconfig"

        attributes
        {
            robustness ON
            eye_base   0.05
        }
        appNode
        {
            name     "node_1"
            pipe
            {
                name     "GPU1 mt mp"
                port     0
                device   0
                viewport [ 0 0 2560 1600 ]

                window
                {
                    name     "Equalizer - eqPly"
                    viewport [ 0.25 0.2 0.5 0.5 ]
                    viewport [ 640 320 1280 800 ]
                    channel
                    {
                        name     "GPU1 mt mp channel"
                        viewport [ 0 0 1280 800 ]
                        viewport [ 0 0 1 1 ]
                    }
                }
                window
                {
                    name     "GPU1 mt mp source window"
                    viewport [ 0 0 2560 1600 ]
                    viewport [ 0 0 1 1 ]
                    attributes
                    {
                        hint_drawable    FBO
                    }
                    channel
                    {
                        name     "GPU1 mt mp source channel"
                        viewport [ 0 0 2560 1600 ]
                        viewport [ 0 0 1 1 ]
                    }
                }
            }
        }
        observer
        {
            eye_left       [   -0.05000    0.00000    0.00000 ]
            eye_cyclop     [    0.00000    0.00000    0.00000 ]
            eye_right      [    0.05000    0.00000    0.00000 ]
            focus_distance 1
            focus_mode     fixed
            opencv_camera  OFF
        }
        compound
        {
            name     "StaticDB"
            channel  "GPU1 mt mp channel"
            buffers  [ COLOR DEPTH ]
            eye      [ CYCLOP ]
            wall
            {
                bottom_left  [   -0.80000   -0.50000   -1.00000 ]
                bottom_right [    0.80000   -0.50000   -1.00000 ]
                top_left     [   -0.80000    0.50000   -1.00000 ]
            }

            compound
            {
                range [ 0 0.5 ]
            }
            compound
            {
                channel  "GPU1 mt mp source channel"
                range [ 0.5 1 ]
                outputframe
                {
                    name     "Frame.StaticDB.1"
                    buffers  [ COLOR DEPTH ]
                }
            }
            inputframe
            {
                name     "Frame.StaticDB.1"
            }
        }
    }
}
`
	m, warned := resolveWarned(t, "local.auto.eqc", src)
	if len(warned) > 0 {
		t.Errorf("warnings:\n%s", strings.Join(warned, "\n"))
	}
	cfg := m.Configs[0]
	win := cfg.Nodes[0].Pipes[0].Windows[0]
	if win.PixelViewport != (PixelViewport{640, 320, 1280, 800}) || win.Channels[0].PixelViewport != (PixelViewport{0, 0, 1280, 800}) {
		t.Errorf("window %v, channel %v: want the last viewports", win.PixelViewport, win.Channels[0].PixelViewport)
	}
	out := cfg.Compounds[0].Children[1].OutputFrames[0]
	if root := cfg.Compounds[0]; root.Buffers != BufferColor|BufferDepth || out.Buffers != BufferColor|BufferDepth {
		t.Errorf("buffers: compound %b, frame %b; want colour and depth", root.Buffers, out.Buffers)
	}
}

// A segment whose viewport reaches past its canvas is kept whole, with a
// warning, as Equalizer keeps it (its demo-mode auto-configuration writes
// [ 0 1 .5 1 ] for two GPUs): its wall extends the canvas's, and its
// channel shows the view where the two overlap. goeq refused the config.
func TestASegmentPastItsCanvasShowsWhereItOverlaps(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 360 ] channel { name "a" } } window { viewport [ 0 0 320 360 ] channel { name "b" } } } }
    layout { view { } }
    canvas { layout 0 wall { bottom_left [ -1 -1 -1 ] bottom_right [ 1 -1 -1 ] top_left [ -1 1 -1 ] }
        segment { channel "a" viewport [ 0 1 .5 1 ] }
        segment { channel "b" viewport [ .5 .5 .5 1 ] } } }`
	m, got := resolveWarned(t, "past.eqc", src)
	checkWarningsWith(t, got, "lies outside its canvas",
		`past.eqc:5:40: segment viewport [ 0 1 0.5 1 ] lies outside its canvas: no view reaches it, so its channel shows nothing of the canvas`)
	checkWarningsWith(t, got, "reaches past its canvas",
		`past.eqc:6:40: segment viewport [ 0.5 0.5 0.5 1 ] reaches past its canvas: its wall extends the canvas's, and its channel shows the views only where it overlaps the canvas`)
	cfg := m.Configs[0]
	var shown []*Channel
	for _, c := range cfg.Channels {
		if c.View != nil {
			shown = append(shown, c)
		}
	}
	if len(shown) != 1 || shown[0].Source.Name != "b" {
		t.Fatalf("destination channels %v, want one, on b", shown)
	}
	ch := shown[0]
	want := Wall{BottomLeft: Vec3{0, 0, -1}, BottomRight: Vec3{1, 0, -1}, TopLeft: Vec3{0, 1, -1}}
	if ch.PixelViewport != (PixelViewport{0, 0, 320, 180}) || ch.Frustum.BottomLeft != want.BottomLeft || ch.Frustum.BottomRight != want.BottomRight || ch.Frustum.TopLeft != want.TopLeft {
		t.Errorf("b shows %v of its window, wall %+v; want its lower half, the canvas's top right quarter", ch.PixelViewport, *ch.Frustum)
	}
	if seg := cfg.Canvases[0].Segments[0]; seg.Viewport != (Viewport{0, 1, .5, 1}) {
		t.Errorf("segment viewport %v, want it kept whole", seg.Viewport)
	}
}

// Destination channels that show in one frame and share a dump_image
// prefix (EQ_CHANNEL_SATTR_DUMP_IMAGE reaches every channel) each name
// their images by themselves too, with a warning: one file a frame kept
// only the last channel's picture, and the run said it had written them
// all. The views of a canvas's layouts never show together, so the
// channels cut from one channel for them keep the prefix's plain names.
func TestASharedDumpPrefixNamesEachChannel(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { viewport [ 0 0 320 180 ] channel { name "a" attributes { dump_image "f_" } } }
        window { viewport [ 0 0 320 180 ] channel { name "b" attributes { dump_image "f_" } } }
        window { viewport [ 0 0 320 180 ] channel { name "c" attributes { dump_image "g_" } } } } }
    layout { name "one" view { } } layout { name "two" view { } }
    canvas { layout "one" layout "two" wall { } segment { channel "c" } }
    compound { channel "a" wall { } } compound { channel "b" wall { } } }`
	m, got := resolveWarned(t, "dump.eqc", src)
	checkWarningsWith(t, got, "dump_image",
		`dump.eqc:3:43: dump_image "f_" is the prefix of 2 channels that each show in a frame with another: each writes f_<channel>-NNNNNN.png (one file a frame would keep only the last one's picture)`)
	for _, ch := range m.Configs[0].Channels {
		want := ch.Name == "a" || ch.Name == "b"
		if ch.View == nil && ch.Name == "c" {
			continue // the segment's own channel, no destination
		}
		if ch.SharedDump != want {
			t.Errorf("channel %s (%s): SharedDump %v, want %v", ch.Label, ch.Name, ch.SharedDump, want)
		}
	}
}

// Two nodes on one host that name one port for frames cannot both listen
// on it: check says so, once, where the second names it, and both take
// any free port (Config.SharesFramePort). Nodes on other hosts, or on
// other ports, may name theirs.
func TestCheckWarnsWhereTwoNodesOfAHostNameOnePort(t *testing.T) {
	src := `config {
    appNode { pipe { window { channel { name "d" } } } }
    node { name "n1" host "gpu1" connection { port 4243 } pipe { window { channel { name "s1" } } } }
    node { name "n2" host "gpu1" connection { port 4243 } pipe { window { channel { name "s2" } } } }
    node { name "n3" host "gpu2" connection { port 4243 } pipe { window { channel { name "s3" } } } }
    node { name "n4" host "gpu1" connection { port 4244 } pipe { window { channel { name "s4" } } } }
    compound { channel "d" }
}`
	m, got := resolveWarned(t, "ports.eqc", src)
	want := `ports.eqc:4:34: node n2 names port 4243 for frames, as node n1 on the same host "gpu1" does: a port serves one process, so both take any free port there`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
	cfg := m.Configs[0]
	for i, shares := range []bool{false, true, true, false, false} {
		if got := cfg.SharesFramePort(cfg.Nodes[i]) != nil; got != shares {
			t.Errorf("node %s shares its frame port: %v, want %v", cfg.Nodes[i].ID, got, shares)
		}
	}
}

// A destination that draws a range of the data shows that part alone
// (RTNeuron's tests draw such ranges on purpose); check says so, and says
// nothing of a destination whose parts add up to the whole.
func TestCheckWarnsWhereADestinationDrawsARange(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "other" } channel { name "src" } } } }
    compound { channel "dest" range [ 0 .5 ] }
    compound { channel "other" buffer [ COLOR DEPTH ]
        compound { range [ 0 .5 ] }
        compound { channel "src" range [ .5 1 ] outputframe { name "f" } }
        inputframe { name "f" } }
}`
	_, got := resolveWarned(t, "range.eqc", src)
	want := "range.eqc:3:5: this destination draws only range [ 0 0.5 ] of the data: its pictures show that part of the model alone"
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
}

// A compound tree that names no channel draws nowhere: check says so at
// each of its leaves (an early Equalizer test file had such a tree, and
// ran frames that showed nothing).
func TestCheckWarnsWhereNoChannelIsNamed(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } } } }
    compound { compound {} compound { channel "dest" } }
}`
	_, got := resolveWarned(t, "nowhere.eqc", src)
	want := `nowhere.eqc:3:16: this compound names no channel, nor does any compound above it: it draws nowhere (name the channel it draws on: channel "...")`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings:\n%s\nwant only\n%s", strings.Join(got, "\n"), want)
	}
}

// A zoomed compound that assembles the parts of a pixel decomposition
// below it places their samples on its zoomed pixels, and check says
// nothing; where it cannot (it is a pixel part itself, or the parts'
// kernel lies under another zoom or a 2D split below it), check says its
// picture comes out wrong, for a DFR equalizer's zoom too.
func TestCheckWarnsAboutZoomedAssembliesOfPixelParts(t *testing.T) {
	const text = `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "a" } channel { name "b" } channel { name "c" } } } }
    compound { channel "dest" wall {}
        compound { channel "a" ZOOM ASSEMBLY
            compound { INNER
                compound { channel "b" pixel [ 0 0 2 1 ] outputframe { name "b" } }
                compound { channel "c" pixel [ 1 0 2 1 ] outputframe { name "c" } } }
            inputframe { name "b" } inputframe { name "c" } outputframe { name "a" } }
        inputframe { name "a" } }
}`
	for _, c := range []struct {
		about, zoom, assembly, inner string
		want                         string // the warning's start; "" for none
	}{
		{"zoomed above the kernel", "zoom [ 0.5 0.5 ]", "", "", ""},
		{"a DFR above the kernel", "DFR_equalizer { framerate 30 }", "", "", ""},
		{"a pixel part itself", "zoom [ 0.5 0.5 ]", "pixel [ 0 0 1 2 ]", "", "zoomed.eqc:4:9: this compound assembles the parts of a pixel decomposition at a zoom of [ 0.5 0.5 ], but is a part of a pixel or subpixel decomposition itself"},
		{"the kernel under another zoom", "zoom [ 0.5 0.5 ]", "", "zoom [ 2 2 ]", "zoomed.eqc:4:9: this compound assembles the parts of a pixel decomposition at a zoom of [ 0.5 0.5 ]"},
		{"a DFR, the kernel under a zoom", "DFR_equalizer { framerate 30 }", "", "zoom [ 2 2 ]", "zoomed.eqc:4:9: this compound assembles the parts of a pixel decomposition at the zoom a DFR equalizer chooses"},
		{"the kernel a 2D part", "zoom [ 0.5 0.5 ]", "", "viewport [ 0 0 0.5 1 ]", "zoomed.eqc:4:9: this compound assembles the parts of a pixel decomposition at a zoom of [ 0.5 0.5 ]"},
	} {
		_, warned := resolveWarned(t, "zoomed.eqc", strings.NewReplacer("ZOOM", c.zoom, "ASSEMBLY", c.assembly, "INNER", c.inner).Replace(text))
		var got []string
		for _, w := range warned {
			if strings.Contains(w, "pixel decomposition at") {
				got = append(got, w)
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)) {
			t.Errorf("%s: warnings %q, want one starting %q", c.about, got, c.want)
		}
	}
}

// A part under a DFR equalizer is a part of a zoom decomposition in the
// frames the DFR zooms: where it draws eyes alone in a mono view, check
// says that its pixels stay empty, as it does under a zoom in the config
// (random assembling trees under a DFR equalizer drew such a part, and
// check had said nothing).
func TestCheckWarnsAboutMonoHolesUnderADFR(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "a" } channel { name "b" } channel { name "c" } } } }
    observer { }
    layout { view { mode MONO observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 )
        compound { channel "a" DFR_equalizer { framerate 30 }
            compound { viewport [ 0 0 0.5 1 ]
                compound { channel "b" eye [ LEFT ] outputframe { name "b" } }
                compound { channel "c" eye [ RIGHT ] outputframe { name "c" } } }
            compound { channel "b" viewport [ 0.5 0 0.5 1 ] outputframe { name "b2" } }
            inputframe { name "b" } inputframe { name "c" } inputframe { name "b2" } outputframe { name "a" } }
        inputframe { name "a" } }
}`
	_, got := resolveWarned(t, "dfr.eqc", src)
	want := "dfr.eqc:8:13: this part of a zoom decomposition draws eye [ LEFT RIGHT ] alone, and the view it shows is MONO: while it is, its pixels stay empty, as in Equalizer (a destination draws such parts of a 2D or DB split itself, and the whole view where no part draws the cyclop eye)"
	if strings.Join(got, "\n") != want {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

// A destination compound zoomed, by its own zoom or a DFR equalizer,
// draws its picture scaled from its channel's corner, and nothing scales
// it back (as in Equalizer): check says so, and where the zoom belongs. It had
// said nothing, and a DFR equalizer on a destination left the picture an
// eighth of its size in the corner.
func TestCheckWarnsAboutZoomedDestinations(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "a" } } } }
    compound { channel "dest" wall {} ZOOM
        compound { channel "a" viewport [ 0 0 1 0.5 ] outputframe { name "a" } }
        compound { viewport [ 0 0.5 1 0.5 ] }
        inputframe { name "a" } }
}`
	for _, c := range []struct{ zoom, want string }{
		{"zoom [ 0.5 0.5 ]", "zoom [ 0.5 0.5 ]"},
		{"DFR_equalizer { framerate 30 }", "the zoom its DFR equalizer chooses"},
		{"", ""},
	} {
		_, got := resolveWarned(t, "dest.eqc", strings.Replace(src, "ZOOM", c.zoom, 1))
		want := ""
		if c.want != "" {
			want = "dest.eqc:3:5: this destination compound draws its picture scaled by " + c.want + ", from its channel's corner, and nothing scales it back (as in Equalizer); zoom a compound below it that sends its frame up instead, as Equalizer's DFR examples do"
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%q: warnings:\n%s\nwant\n%s", c.zoom, strings.Join(got, "\n"), want)
		}
	}
}

// A compound below the destination whose stereo attributes leave out
// colours the destination shows of an eye sends frames without them, as
// in Equalizer; check says so where the attributes are (random anaglyph
// trees, seeds 26 to 140: 18 to 40 dB off the reference, whose masks are
// the destination's).
func TestCheckWarnsAboutAnaglyphMasksBelowTheDestination(t *testing.T) {
	src := `config {
    appNode { pipe { window { viewport [ 0 0 320 240 ] channel { name "dest" } channel { name "a" } } } }
    observer { }
    layout { view { mode MODE observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) DEST
        compound { channel "a" EYES SOURCE outputframe { name "a" } }
        inputframe { name "a" } }
}`
	const warning = "dest.eqc:7:%d: these stereo attributes make this compound write %s, which destination \"dest\" shows of it: as in Equalizer, a compound's draws and assemblies write only its own masks' colours, and the destination shows the others as they were before (the background); set the masks on the destination compound"
	for _, c := range []struct{ mode, dest, eyes, source, want string }{
		{"STEREO", "", "", "attributes { stereo_anaglyph_left_mask [ GREEN ] stereo_anaglyph_right_mask [ GREEN BLUE ] }", "the left eye without RED"},
		{"STEREO", "", "", "attributes { stereo_mode ANAGLYPH stereo_anaglyph_right_mask [ BLUE ] }", "the right eye without GREEN"},
		{"STEREO", "", "", "attributes { stereo_anaglyph_left_mask [ BLUE ] stereo_anaglyph_right_mask [ RED ] }", "the left eye without RED and the right eye without GREEN BLUE"},
		// more colours than the destination takes, or the same
		{"STEREO", "", "", "attributes { stereo_anaglyph_left_mask [ RED GREEN BLUE ] }", ""},
		{"STEREO", "", "", "attributes { stereo_mode ANAGLYPH }", ""},
		{"STEREO", "", "", "attributes { stereo_mode PASSIVE }", ""},
		// the destination's own masks, which the source inherits
		{"STEREO", "attributes { stereo_anaglyph_left_mask [ GREEN ] }", "", "", ""},
		// an eye the source does not render
		{"STEREO", "", "eye [ LEFT ]", "attributes { stereo_anaglyph_right_mask [ RED ] }", ""},
		// a mono view shows no anaglyph
		{"MONO", "", "", "attributes { stereo_anaglyph_left_mask [ GREEN ] }", ""},
	} {
		text := strings.NewReplacer("MODE", c.mode, "DEST", c.dest, "EYES", c.eyes, "SOURCE", c.source).Replace(src)
		_, got := resolveWarned(t, "dest.eqc", text)
		want := ""
		if c.want != "" {
			// at the first stereo attribute
			at := len(`        compound { channel "a" `+c.eyes+` attributes { `) + 1
			want = fmt.Sprintf(warning, at, c.want)
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%s %q %q: warnings:\n%s\nwant\n%s", c.mode, c.dest, c.source, strings.Join(got, "\n"), want)
		}
	}
}

// A monitor shows each frame where it is on the canvas, within the part
// of the canvas its channel shows: check warns where a monitor takes a
// frame from a part it does not show (the frame lands outside its
// channel), and not for a monitor's own view, nor for one monitor of
// the whole canvas (Equalizer's); and where a monitor takes no frame.
func TestCheckWarnsAboutMonitorFramesFromOutsideItsView(t *testing.T) {
	src := `config {
    appNode { pipe {
        window { viewport [ 0 0 480 300 ] channel { name "wall" } }
        window { viewport [ 0 0 240 150 ] channel { name "mon" } }
    } }
    observer { }
    layout { name "L" view { observer 0 viewport [ 0 0 0.5 1 ] } view { observer 0 viewport [ 0.5 0 0.5 1 ] } }
    layout { name "M" view { observer 0 } }
    canvas { layout "L" wall { } segment { channel "wall" } }
    canvas { layout "MONITOR" wall { } segment { channel "mon" } }
    compound {
        compound { channel ( segment 0 layout "L" view 0 ) outputframe { name "v0" } }
        compound { channel ( segment 0 layout "L" view 1 ) OUT1 }
        compound { channel ( canvas 1 segment 0 layout "MONITOR" view 0 ) monitor_equalizer { } task [ CLEAR ASSEMBLE ] INPUTS }
    }
}`
	for _, c := range []struct{ layout, inputs, want string }{
		{"L", `inputframe { name "v0" }`, ""},
		{"L", `inputframe { name "v0" } inputframe { name "v1" }`, `mon.eqc:14:140: input frame "v1" comes from a part of the canvas this monitor does not show (viewport [ 0.5 0 0.5 1 ]): the monitor places each frame where it is on the canvas, so this one lands outside its channel; give this monitor the frames of its own view`},
		{"M", `inputframe { name "v0" } inputframe { name "v1" }`, ""},
		// a monitor with no frame shows its clear alone
		{"M", "", `mon.eqc:12:60: output frame "v0" is assembled by no input frame in this compound tree, so what this compound draws for it shows nowhere` + "\n" +
			"mon.eqc:14:9: this monitor takes no input frame and draws nothing: its channel shows the background alone; give it the output frames of the destinations it shows"},
	} {
		out1 := ""
		if strings.Contains(c.inputs, "v1") {
			out1 = `outputframe { name "v1" }`
		}
		text := strings.NewReplacer("MONITOR", c.layout, "INPUTS", c.inputs, "OUT1", out1).Replace(src)
		_, got := resolveWarned(t, "mon.eqc", text)
		if strings.Join(got, "\n") != c.want {
			t.Errorf("layout %s, %s: warnings:\n%s\nwant\n%s", c.layout, c.inputs, strings.Join(got, "\n"), c.want)
		}
	}
}

// Check says what frame zooms do where a user may not expect it: a frame
// that lands scaled (its zooms do not cancel out, or an output frame's
// zoom under a DFR takes the place of the one that undoes the DFR's), and
// zooms with no effect (on a pixel part's frame); zooms that cancel out, on a frame with
// depth too, or a supersampled source's own, say nothing.
func TestCheckWarnsAboutFrameZooms(t *testing.T) {
	const text = `config {
    appNode { pipe {
        window { viewport [ 0 0 400 200 ] channel { name "dest" } }
        window { viewport [ 0 300 400 200 ] channel { name "src" } }
    } }
    observer { }
    layout { view { observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) BUFFERS
        compound { channel "src" SOURCE outputframe { name "f" zoom [ OUT ] } }
        inputframe { name "f" zoom [ IN ] }
    }
}`
	for _, c := range []struct {
		about, out, in, source, buffers string
		want                            string // in the one warning; "" for none
	}{
		{"cancelled", "0.5 0.5", "2 2", "", "", ""},
		{"cancelled on a supersampled source", "0.25 0.25", "2 2", "zoom [ 2 2 ]", "", ""},
		{"output alone", "0.5 0.5", "1 1", "", "", `frame.eqc:10:63: frame "f" lands scaled by [ 0.5 0.5 ] from the corner`},
		{"input alone", "1 1", "2 1", "", "", `frame.eqc:11:36: frame "f" lands scaled by [ 2 1 ] from the corner`},
		{"with depth", "0.5 0.5", "2 2", "", "buffer [ COLOR DEPTH ]", ""},
		{"a pixel part", "0.5 0.5", "2 2", "pixel [ 0 0 2 1 ]", "", "has no effect: they land at their share"},
		{"under a DFR", "0.5 0.5", "2 2", "DFR_equalizer { framerate 30 }", "", `frame "f" has a zoom of its own from under a DFR equalizer`},
	} {
		src := strings.NewReplacer("OUT", c.out, "IN", c.in, "SOURCE", c.source, "BUFFERS", c.buffers).Replace(text)
		_, warned := resolveWarned(t, "frame.eqc", src)
		var got []string
		for _, w := range warned {
			if strings.Contains(w, "zoom") || strings.Contains(w, "frame \"f\"") {
				got = append(got, w)
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: warnings %q, want none", c.about, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: warnings %q, want one saying %q", c.about, got, c.want)
		}
	}
}

// Check warns of a frame of colour alone assembled into a picture that is
// sent on with depth (its pixels keep the clear's depth, and the depth
// merge above drops them), and not of one whose assembly sends colour
// alone too, or of frames with depth.
func TestCheckWarnsAboutColourAssembledIntoDepth(t *testing.T) {
	const text = `config {
    appNode { pipe {
        window { viewport [ 0 0 400 200 ] channel { name "dest" } }
        window { viewport [ 0 300 400 200 ] channel { name "mid" } }
        window { viewport [ 500 300 400 200 ] channel { name "src" } }
    } }
    observer { }
    layout { view { observer 0 } }
    canvas { layout 0 wall { } segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) buffer [ COLOR DEPTH ]
        compound { channel "mid"
            compound { channel "src" viewport [ 0 0 0.5 1 ] outputframe { name "part" buffers [ PART ] } }
            inputframe { name "part" } outputframe { name "mid" buffers [ MID ] } }
        inputframe { name "mid" }
    }
}`
	for _, c := range []struct {
		part, mid string
		want      bool
	}{
		{"COLOR", "COLOR DEPTH", true},
		{"COLOR", "COLOR", false},
		{"COLOR DEPTH", "COLOR DEPTH", false},
	} {
		_, warned := resolveWarned(t, "colour.eqc", strings.NewReplacer("PART", c.part, "MID", c.mid).Replace(text))
		var got []string
		for _, w := range warned {
			if strings.Contains(w, "carries colour alone") {
				got = append(got, w)
			}
		}
		if c.want && (len(got) != 1 || !strings.HasPrefix(got[0], "colour.eqc:12:61: frame \"part\" carries colour alone") || !strings.Contains(got[0], `(frame "mid")`)) || !c.want && len(got) > 0 {
			t.Errorf("part %s, assembly %s: warnings %q, want one: %v", c.part, c.mid, got, c.want)
		}
	}
}
