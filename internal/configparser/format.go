package configparser

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/goeq/goeq/internal/compositing"
)

// Format prints a parsed file as canonical .eqc: four-space indentation,
// one field per line, canonical spellings of keywords and numbers, and the
// file's comments kept before the field that followed them. Formatting its
// own output gives the same text again.
func Format(r *Result) []byte {
	p := &printer{comments: r.Comments}
	f := r.File
	if f.Header != nil {
		p.flush(f.Header.Pos)
		p.line(f.Header.Pos, "#Equalizer "+number(f.Header.Version.Raw)+" ascii")
	}
	if f.Global != nil {
		p.block(f.Global.Pos, "global", f.Global.Close, func() {
			for _, g := range f.Global.Fields {
				p.globalField(g)
			}
		})
	}
	if f.Server != nil {
		p.block(f.Server.Pos, "server", f.Server.Close, func() {
			for _, c := range f.Server.Connections {
				p.connection(c)
			}
			for _, c := range f.Server.Configs {
				p.config(c)
			}
		})
	}
	if f.Config != nil {
		p.config(f.Config)
	}
	p.flushAll()
	return p.buf.Bytes()
}

type printer struct {
	buf      bytes.Buffer
	indent   int
	comments []lexer.Token
	next     int // first comment not yet printed
	lastLine int // source line of the last thing printed, for blank lines
}

// flush prints the comments that come before pos in the source.
func (p *printer) flush(pos lexer.Position) {
	for p.next < len(p.comments) && p.comments[p.next].Pos.Offset < pos.Offset {
		c := p.comments[p.next]
		p.gap(c.Pos.Line)
		p.write(strings.TrimRight(c.Value, " \t\r"))
		p.lastLine = c.Pos.Line
		p.next++
	}
	p.gap(pos.Line)
}

func (p *printer) flushAll() {
	for p.next < len(p.comments) {
		c := p.comments[p.next]
		p.gap(c.Pos.Line)
		p.write(strings.TrimRight(c.Value, " \t\r"))
		p.lastLine = c.Pos.Line
		p.next++
	}
}

// gap keeps one blank line where the source had one or more.
func (p *printer) gap(line int) {
	if p.lastLine > 0 && line > p.lastLine+1 && p.buf.Len() > 0 && !bytes.HasSuffix(p.buf.Bytes(), []byte("{\n")) {
		p.buf.WriteByte('\n')
	}
	if line > p.lastLine {
		p.lastLine = line
	}
}

func (p *printer) write(s string) {
	p.buf.WriteString(strings.Repeat("    ", p.indent))
	p.buf.WriteString(s)
	p.buf.WriteByte('\n')
}

// line prints one field that starts at pos.
func (p *printer) line(pos lexer.Position, s string) {
	p.flush(pos)
	p.write(s)
}

// block prints `head {`, the body, and `}`.
func (p *printer) block(pos lexer.Position, head string, close *Close, body func()) {
	p.flush(pos)
	start := p.buf.Len()
	p.write(head)
	p.write("{")
	empty := p.buf.Len()
	p.indent++
	body()
	if close != nil {
		p.flush(close.Pos)
	}
	p.indent--
	if p.buf.Len() == empty {
		p.buf.Truncate(start)
		p.write(head + " {}")
		return
	}
	p.write("}")
}

// ---- values ---------------------------------------------------------------

// number prints a number canonically: no trailing `f`, no leading `+`,
// `.5` as `0.5`, `1.` as `1`.
func number(raw string) string {
	raw = strings.TrimSuffix(raw, "f")
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return raw
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func floats(v []*Float) string {
	parts := make([]string, len(v))
	for i, f := range v {
		parts[i] = number(f.Raw)
	}
	return "[ " + strings.Join(parts, " ") + " ]"
}

func uints(v []*Uint) string {
	parts := make([]string, len(v))
	for i, f := range v {
		parts[i] = number(f.Raw)
	}
	return "[ " + strings.Join(parts, " ") + " ]"
}

func flags(f *Flags) string {
	if len(f.Words) == 0 {
		return "[ ]"
	}
	parts := make([]string, len(f.Words))
	for i, w := range f.Words {
		parts[i] = w.Value
	}
	return "[ " + strings.Join(parts, " ") + " ]"
}

// canonicalWord maps the historical lower-case double spellings to one.
var canonicalWord = map[string]string{
	"anaglyph": "ANAGLYPH", "async": "ASYNC", "draw_sync": "DRAW_SYNC", "local_sync": "LOCAL_SYNC",
}

// CanonicalWord returns the canonical spelling of an attribute word.
func CanonicalWord(w string) string {
	if c, ok := canonicalWord[w]; ok {
		return c
	}
	return w
}

func iattr(a *IAttr) string {
	switch {
	case a.Core != nil:
		return "CORE " + number(a.Core.Raw)
	case a.Socket != nil:
		return "SOCKET " + number(a.Socket.Raw)
	case a.Number != nil:
		return number(a.Number.Raw)
	}
	return CanonicalWord(a.Word)
}

func boundary(b *Boundary) string {
	if b.Pair != nil {
		return uints(b.Pair.V)
	}
	return number(b.Value.Raw)
}

func ref(r *Ref) string {
	if r.Name != nil {
		return r.Name.Raw
	}
	return number(r.Index.Raw)
}

// ---- blocks ---------------------------------------------------------------

func (p *printer) globalField(g *GlobalField) {
	switch {
	case g.Str != nil:
		p.line(g.Pos, g.StrKey+" "+g.Str.Raw)
	case g.Uint != nil:
		p.line(g.Pos, g.UintKey+" "+number(g.Uint.Raw))
	case g.Float != nil:
		p.line(g.Pos, g.FloatKey+" "+number(g.Float.Raw))
	case g.Char != nil:
		p.line(g.Pos, g.CharKey+" "+g.Char.Raw)
	case g.Mask != nil:
		p.line(g.Pos, g.MaskKey+" "+flags(g.Mask))
	case g.TypeKey != "":
		p.line(g.Pos, g.TypeKey+" "+g.Type)
	case g.IAttr != nil:
		p.line(g.Pos, g.IKey+" "+iattr(g.IAttr))
	}
}

func (p *printer) connection(c *Connection) {
	p.block(c.Pos, "connection", c.Close, func() {
		for _, f := range c.Fields {
			switch {
			case f.Type != "":
				p.line(f.Pos, "type "+f.Type)
			case f.Hostname != nil:
				p.line(f.Pos, "hostname "+f.Hostname.Raw)
			case f.Interface != nil:
				p.line(f.Pos, "interface "+f.Interface.Raw)
			case f.Port != nil:
				p.line(f.Pos, "port "+number(f.Port.Raw))
			case f.Bandwidth != nil:
				p.line(f.Pos, "bandwidth "+number(f.Bandwidth.Raw))
			case f.Filename != nil:
				p.line(f.Pos, "filename "+f.Filename.Raw)
			}
		}
	})
}

func (p *printer) config(c *Config) {
	p.block(c.Pos, "config", c.Close, func() {
		for _, f := range c.Fields {
			switch {
			case f.Node != nil:
				p.node(f.Node)
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Observer != nil:
				p.observer(f.Observer)
			case f.Layout != nil:
				p.layout(f.Layout)
			case f.Canvas != nil:
				p.canvas(f.Canvas)
			case f.Compound != nil:
				p.compound(f.Compound)
			case f.Latency != nil:
				p.line(f.Pos, "latency "+number(f.Latency.Raw))
			case f.Attributes != nil:
				p.block(f.Pos, "attributes", f.Attributes.Close, func() {
					for _, a := range f.Attributes.Fields {
						if a.EyeBase != nil {
							p.line(a.Pos, "eye_base "+number(a.EyeBase.Raw))
						} else {
							p.line(a.Pos, "robustness "+iattr(a.Robustness))
						}
					}
				})
			}
		}
	})
}

func (p *printer) node(n *Node) {
	p.block(n.Pos, n.Kind, n.Close, func() {
		for _, f := range n.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Host != nil:
				p.line(f.Pos, "host "+f.Host.Raw)
			case f.Connection != nil:
				p.connection(f.Connection)
			case f.Pipe != nil:
				p.pipe(f.Pipe)
			case f.Attributes != nil:
				p.block(f.Pos, "attributes", f.Attributes.Close, func() {
					for _, a := range f.Attributes.Fields {
						switch {
						case a.LaunchCommand != nil:
							p.line(a.Pos, "launch_command "+a.LaunchCommand.Raw)
						case a.LaunchCommandQuote != nil:
							p.line(a.Pos, "launch_command_quote "+a.LaunchCommandQuote.Raw)
						default:
							p.line(a.Pos, a.Key+" "+iattr(a.Value))
						}
					}
				})
			}
		}
	})
}

func (p *printer) keyAttrs(pos lexer.Position, a *KeyAttrs) {
	p.block(pos, "attributes", a.Close, func() {
		for _, f := range a.Fields {
			p.line(f.Pos, f.Key+" "+iattr(f.Value))
		}
	})
}

func (p *printer) pipe(pp *Pipe) {
	p.block(pp.Pos, "pipe", pp.Close, func() {
		for _, f := range pp.Fields {
			switch {
			case f.Window != nil:
				p.window(f.Window)
			case f.Attributes != nil:
				p.keyAttrs(f.Pos, f.Attributes)
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Port != nil:
				p.line(f.Pos, "port "+number(f.Port.Raw))
			case f.Device != nil:
				p.line(f.Pos, "device "+number(f.Device.Raw))
			case f.Viewport != nil:
				p.line(f.Pos, "viewport "+floats(f.Viewport.V))
			}
		}
	})
}

func (p *printer) window(w *Window) {
	p.block(w.Pos, "window", w.Close, func() {
		for _, f := range w.Fields {
			switch {
			case f.Channel != nil:
				p.channel(f.Channel)
			case f.Attributes != nil:
				p.keyAttrs(f.Pos, f.Attributes)
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Viewport != nil:
				p.line(f.Pos, "viewport "+floats(f.Viewport.V))
			}
		}
	})
}

func (p *printer) channel(c *Channel) {
	p.block(c.Pos, "channel", c.Close, func() {
		for _, f := range c.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Viewport != nil:
				p.line(f.Pos, "viewport "+floats(f.Viewport.V))
			case f.Drawable != nil:
				p.line(f.Pos, "drawable "+flags(f.Drawable))
			case f.Attributes != nil:
				p.block(f.Pos, "attributes", f.Attributes.Close, func() {
					for _, a := range f.Attributes.Fields {
						if a.DumpImage != nil {
							p.line(a.Pos, "dump_image "+a.DumpImage.Raw)
						} else {
							p.line(a.Pos, a.Key+" "+iattr(a.Value))
						}
					}
				})
			}
		}
	})
}

func (p *printer) observer(o *Observer) {
	p.block(o.Pos, "observer", o.Close, func() {
		for _, f := range o.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.EyeBase != nil:
				p.line(f.Pos, "eye_base "+number(f.EyeBase.Raw))
			case f.EyeLeft != nil:
				p.line(f.Pos, "eye_left "+floats(f.EyeLeft.V))
			case f.EyeCyclop != nil:
				p.line(f.Pos, "eye_cyclop "+floats(f.EyeCyclop.V))
			case f.EyeRight != nil:
				p.line(f.Pos, "eye_right "+floats(f.EyeRight.V))
			case f.FocusDistance != nil:
				p.line(f.Pos, "focus_distance "+number(f.FocusDistance.Raw))
			case f.FocusMode != nil:
				p.line(f.Pos, "focus_mode "+iattr(f.FocusMode))
			case f.OpenCVCamera != nil:
				p.line(f.Pos, "opencv_camera "+iattr(f.OpenCVCamera))
			case f.VRPNTracker != nil:
				p.line(f.Pos, "vrpn_tracker "+f.VRPNTracker.Raw)
			}
		}
	})
}

func (p *printer) layout(l *Layout) {
	p.block(l.Pos, "layout", l.Close, func() {
		for _, f := range l.Fields {
			if f.Name != nil {
				p.line(f.Pos, "name "+f.Name.Raw)
			} else {
				p.view(f.View)
			}
		}
	})
}

func (p *printer) view(v *View) {
	p.block(v.Pos, "view", v.Close, func() {
		for _, f := range v.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.DisplayCluster != nil:
				p.line(f.Pos, "DisplayCluster "+f.DisplayCluster.Raw)
			case f.Mode != "":
				p.line(f.Pos, "mode "+f.Mode)
			case f.Viewport != nil:
				p.line(f.Pos, "viewport "+floats(f.Viewport.V))
			case f.Wall != nil:
				p.wall(f.Wall)
			case f.Projection != nil:
				p.projection(f.Projection)
			case f.Observer != nil:
				p.line(f.Pos, "observer "+ref(f.Observer))
			case f.Attributes != nil:
				p.block(f.Pos, "attributes", f.Attributes.Close, func() {
					for _, a := range f.Attributes.Fields {
						switch {
						case a.DisplayCluster != nil:
							p.line(a.Pos, "DisplayCluster "+a.DisplayCluster.Raw)
						case a.DeflectHost != nil:
							p.line(a.Pos, "deflect_host "+a.DeflectHost.Raw)
						case a.DeflectID != nil:
							p.line(a.Pos, "deflect_id "+a.DeflectID.Raw)
						}
					}
				})
			}
		}
	})
}

func (p *printer) canvas(c *Canvas) {
	p.block(c.Pos, "canvas", c.Close, func() {
		for _, f := range c.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Layout != nil:
				if f.Layout.Off {
					p.line(f.Pos, "layout OFF")
				} else {
					p.line(f.Pos, "layout "+ref(f.Layout.Ref))
				}
			case f.SwapBarrier != nil:
				p.swapBarrier(f.SwapBarrier)
			case f.Wall != nil:
				p.wall(f.Wall)
			case f.Projection != nil:
				p.projection(f.Projection)
			case f.Segment != nil:
				p.segment(f.Segment)
			}
		}
	})
}

func (p *printer) segment(s *Segment) {
	p.block(s.Pos, "segment", s.Close, func() {
		for _, f := range s.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Channel != nil:
				p.line(f.Pos, "channel "+f.Channel.Raw)
			case f.Eye != nil:
				p.line(f.Pos, "eye "+flags(f.Eye))
			case f.Viewport != nil:
				p.line(f.Pos, "viewport "+floats(f.Viewport.V))
			case f.SwapBarrier != nil:
				p.swapBarrier(f.SwapBarrier)
			case f.Wall != nil:
				p.wall(f.Wall)
			case f.Projection != nil:
				p.projection(f.Projection)
			}
		}
	})
}

func (p *printer) wall(w *Wall) {
	p.block(w.Pos, "wall", w.Close, func() {
		for _, f := range w.Fields {
			switch {
			case f.BottomLeft != nil:
				p.line(f.Pos, "bottom_left "+floats(f.BottomLeft.V))
			case f.BottomRight != nil:
				p.line(f.Pos, "bottom_right "+floats(f.BottomRight.V))
			case f.TopLeft != nil:
				p.line(f.Pos, "top_left "+floats(f.TopLeft.V))
			case f.Type != "":
				p.line(f.Pos, "type "+f.Type)
			}
		}
	})
}

func (p *printer) projection(pr *Projection) {
	p.block(pr.Pos, "projection", pr.Close, func() {
		for _, f := range pr.Fields {
			switch {
			case f.Origin != nil:
				p.line(f.Pos, "origin "+floats(f.Origin.V))
			case f.Distance != nil:
				p.line(f.Pos, "distance "+number(f.Distance.Raw))
			case f.FOV != nil:
				p.line(f.Pos, "fov "+floats(f.FOV.V))
			case f.HPR != nil:
				p.line(f.Pos, "hpr "+floats(f.HPR.V))
			}
		}
	})
}

func (p *printer) swapBarrier(s *SwapBarrier) {
	p.block(s.Pos, "swapbarrier", s.Close, func() {
		for _, f := range s.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.NVGroup != nil:
				p.line(f.Pos, "NV_group "+iattr(f.NVGroup))
			case f.NVBarrier != nil:
				p.line(f.Pos, "NV_barrier "+iattr(f.NVBarrier))
			}
		}
	})
}

func (p *printer) compound(c *Compound) {
	p.block(c.Pos, "compound", c.Close, func() {
		for _, f := range c.Fields {
			p.compoundField(f)
		}
	})
}

func (p *printer) compoundField(f *CompoundField) {
	switch {
	case f.Child != nil:
		p.compound(f.Child)
	case f.Name != nil:
		p.line(f.Pos, "name "+f.Name.Raw)
	case f.Channel != nil:
		if f.Channel.Name != nil {
			p.line(f.Pos, "channel "+f.Channel.Name.Raw)
		} else {
			parts := []string{}
			for _, r := range f.Channel.Fields {
				parts = append(parts, r.Kind+" "+ref(r.Ref))
			}
			p.line(f.Pos, "channel ( "+strings.Join(parts, " ")+" )")
		}
	case f.Task != nil:
		p.line(f.Pos, "task "+flags(f.Task))
	case f.Eye != nil:
		p.line(f.Pos, "eye "+flags(f.Eye))
	case f.Buffer != nil:
		p.line(f.Pos, "buffer "+flags(f.Buffer))
	case f.Viewport != nil:
		p.line(f.Pos, "viewport "+floats(f.Viewport.V))
	case f.Range != nil:
		p.line(f.Pos, "range "+floats(f.Range.V))
	case f.Period != nil:
		p.line(f.Pos, "period "+number(f.Period.Raw))
	case f.Phase != nil:
		p.line(f.Pos, "phase "+number(f.Phase.Raw))
	case f.Zoom != nil:
		p.line(f.Pos, "zoom "+floats(f.Zoom.V))
	case f.Pixel != nil:
		p.line(f.Pos, "pixel "+uints(f.Pixel.V))
	case f.Subpixel != nil:
		p.line(f.Pos, "subpixel "+uints(f.Subpixel.V))
	case f.Wall != nil:
		p.wall(f.Wall)
	case f.Projection != nil:
		p.projection(f.Projection)
	case f.LoadBalancer != nil:
		p.loadBalancer(f.Pos, f.LoadBalancer)
	case f.LoadEqualizer != nil:
		p.loadEqualizer(f.Pos, "load_equalizer", f.LoadEqualizer)
	case f.TreeEqualizer != nil:
		p.loadEqualizer(f.Pos, "tree_equalizer", f.TreeEqualizer)
	case f.DFREqualizer != nil:
		p.dfrEqualizer(f.Pos, f.DFREqualizer)
	case f.FramerateEqualizer:
		p.line(f.Pos, "framerate_equalizer {}")
	case f.MonitorEqualizer:
		p.line(f.Pos, "monitor_equalizer {}")
	case f.ViewEqualizer:
		p.line(f.Pos, "view_equalizer {}")
	case f.TileEqualizer != nil:
		p.block(f.Pos, "tile_equalizer", f.TileEqualizer.Close, func() {
			for _, t := range f.TileEqualizer.Fields {
				if t.Name != nil {
					p.line(t.Pos, "name "+t.Name.Raw)
				} else {
					p.line(t.Pos, "size "+boundary(t.Size))
				}
			}
		})
	case f.SwapBarrier != nil:
		p.swapBarrier(f.SwapBarrier)
	case f.OutputFrame != nil:
		p.frame(f.Pos, "outputframe", f.OutputFrame)
	case f.InputFrame != nil:
		p.frame(f.Pos, "inputframe", f.InputFrame)
	case f.OutputTiles != nil:
		p.tileQueue(f.Pos, "outputtiles", f.OutputTiles)
	case f.InputTiles != nil:
		p.tileQueue(f.Pos, "inputtiles", f.InputTiles)
	case f.Attributes != nil:
		p.block(f.Pos, "attributes", f.Attributes.Close, func() {
			for _, a := range f.Attributes.Fields {
				switch {
				case a.StereoMode != nil:
					p.line(a.Pos, "stereo_mode "+iattr(a.StereoMode))
				case a.LeftMask != nil:
					p.line(a.Pos, "stereo_anaglyph_left_mask "+flags(a.LeftMask))
				case a.RightMask != nil:
					p.line(a.Pos, "stereo_anaglyph_right_mask "+flags(a.RightMask))
				case a.UpdateFOV != nil:
					p.line(a.Pos, "update_FOV "+iattr(a.UpdateFOV))
				case a.Compositing != nil:
					word := a.Compositing.Value
					if s, err := compositing.Parse(word); err == nil {
						word = s.String() // as the strategy is spelled in configs
					}
					p.line(a.Pos, "compositing "+word)
				}
			}
		})
	}
}

func (p *printer) dfrEqualizer(pos lexer.Position, d *DFREqualizer) {
	p.block(pos, "DFR_equalizer", d.Close, func() {
		for _, f := range d.Fields {
			if f.Damping != nil {
				p.line(f.Pos, "damping "+number(f.Damping.Raw))
			} else {
				p.line(f.Pos, "framerate "+number(f.Framerate.Raw))
			}
		}
	})
}

func (p *printer) loadEqualizer(pos lexer.Position, kw string, l *LoadEqualizer) {
	p.block(pos, kw, l.Close, func() {
		for _, f := range l.Fields {
			switch {
			case f.Mode != "":
				p.line(f.Pos, "mode "+f.Mode)
			case f.Damping != nil:
				p.line(f.Pos, "damping "+number(f.Damping.Raw))
			case f.Boundary != nil:
				p.line(f.Pos, "boundary "+boundary(f.Boundary))
			case f.Resistance != nil:
				p.line(f.Pos, "resistance "+boundary(f.Resistance))
			case f.AssembleOnlyLimit != nil:
				p.line(f.Pos, "assemble_only_limit "+number(f.AssembleOnlyLimit.Raw))
			case f.Adaptive != nil:
				p.line(f.Pos, "adaptive "+iattr(f.Adaptive))
			}
		}
	})
}

// loadBalancer prints the deprecated syntax as the equalizer it stands for.
func (p *printer) loadBalancer(pos lexer.Position, lb *LoadBalancer) {
	switch kind, load, dfr := lb.Convert(); kind {
	case "framerate":
		p.line(pos, "framerate_equalizer {}")
	case "monitor":
		p.line(pos, "monitor_equalizer {}")
	case "DFR":
		p.dfrEqualizer(pos, dfr)
	default:
		p.loadEqualizer(pos, "load_equalizer", load)
	}
}

func (p *printer) frame(pos lexer.Position, kw string, fr *Frame) {
	p.block(pos, kw, fr.Close, func() {
		for _, f := range fr.Fields {
			switch {
			case f.Name != nil:
				p.line(f.Pos, "name "+f.Name.Raw)
			case f.Type != "":
				p.line(f.Pos, "type "+f.Type)
			case f.Viewport != nil:
				p.line(f.Pos, "viewport "+floats(f.Viewport.V))
			case f.Buffer != nil:
				p.line(f.Pos, "buffer "+flags(f.Buffer))
			case f.Zoom != nil:
				p.line(f.Pos, "zoom "+floats(f.Zoom.V))
			}
		}
	})
}

func (p *printer) tileQueue(pos lexer.Position, kw string, t *TileQueue) {
	p.block(pos, kw, t.Close, func() {
		for _, f := range t.Fields {
			if f.Name != nil {
				p.line(f.Pos, "name "+f.Name.Raw)
			} else {
				p.line(f.Pos, "size "+uints(f.Size.V))
			}
		}
	})
}
