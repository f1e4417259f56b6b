package client

import (
	"context"
	"time"

	"github.com/goeq/goeq/internal/channel"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/stats"
)

// executor runs a pipe's frames: channel.Executor draws with GL;
// nullExecutor (Options.Null) only plays the part, so that one machine can
// stand in for hundreds of render nodes when the server's own cost is
// measured.
type executor interface {
	Receive(frame int, msgs [][]byte) error
	SetOverlay([]control.OverlayPart)
	SetRefine(sample int)
	Run(ctx context.Context, frame int, data []byte, plans []*planner.ChannelPlan, snap func(*compound.Channel) bool) *channel.Result
	Present(frame int, windows []*channel.Window, shown []*planner.ChannelPlan) error
	// Blank shows black on windows the layouts stopped using.
	Blank(windows []*channel.Window) error
	Deliver(*channel.FrameData)
	Abandon(frame int, producers []string)
	Repair(frame int, to []string, lost, feeders []*planner.ChannelPlan, reading []string)
	Grant(channel.Grant)
	Waits() []channel.Wait
	Close()
}

// nullDraw is the draw time a null pipe reports for every draw task: the
// equalizers then see sources of equal speed.
const nullDraw = time.Millisecond

// nullExecutor takes its tasks without GL: a draw reports nullDraw, a
// readback sends each consumer an empty placeholder frame (no pixels)
// over the real routes, and an assemble does nothing.
type nullExecutor struct{ sink channel.Sink }

func (nullExecutor) Receive(int, [][]byte) error      { return nil }
func (nullExecutor) SetOverlay([]control.OverlayPart) {}
func (nullExecutor) SetRefine(int)                    {}
func (nullExecutor) Present(int, []*channel.Window, []*planner.ChannelPlan) error {
	return nil
}
func (nullExecutor) Blank([]*channel.Window) error { return nil }
func (nullExecutor) Abandon(int, []string)         {}
func (nullExecutor) Grant(channel.Grant)           {}
func (nullExecutor) Waits() []channel.Wait         { return nil }
func (nullExecutor) Close()                        {}

// Repair does nothing: a null assemble waits for no input.
func (nullExecutor) Repair(int, []string, []*planner.ChannelPlan, []*planner.ChannelPlan, []string) {}

func (nullExecutor) Deliver(f *channel.FrameData) {
	if f.Release != nil {
		f.Release()
	}
}

func (x nullExecutor) Run(_ context.Context, frame int, _ []byte, plans []*planner.ChannelPlan, _ func(*compound.Channel) bool) *channel.Result {
	res := &channel.Result{Frame: frame}
	for _, cp := range plans {
		ch := cp.Channel
		if cp.Destination {
			res.Shown = append(res.Shown, cp)
		}
		for _, t := range cp.Tasks {
			switch t.Kind {
			case planner.Draw:
				res.Records = append(res.Records, &stats.Record{Frame: frame, Compound: t.Compound, Channel: ch.ID, Eye: t.Eye,
					Viewport: t.Viewport, Range: t.Range, Times: stats.Times{Draw: nullDraw}})
			case planner.Readback:
				for _, out := range t.Outputs {
					for _, consumer := range out.Consumers {
						x.sink.Send(&channel.FrameData{Frame: frame, Eye: t.Eye, Name: out.Name, Producer: ch.ID, Consumer: consumer,
							Compound: t.Compound, Share: t.Share, Extent: t.Share, Range: t.Range, Pixel: t.Pixel, Subpixel: t.Subpixel})
					}
				}
			}
		}
	}
	return res
}
