package client

import (
	"testing"

	"github.com/goeq/goeq/internal/channel"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/control"
	"github.com/goeq/goeq/internal/planner"
	"github.com/goeq/goeq/internal/winsys"
)

// A pointer in a window of another size than the config's (resized, or
// fullscreen) is placed where the scaled frame shows under it.
func TestWindowPointFollowsTheScaledFrame(t *testing.T) {
	model := compound.Size{W: 640, H: 360}
	cases := []struct {
		name            string
		screenW, screen int
		x, y            float64 // from the window's top left
		gx, gy          float64 // the config's window, from its bottom left
	}{
		{"the config's size", 640, 360, 100, 50, 100, 310},
		{"three times as large", 1920, 1080, 960, 540, 320, 180},
		{"wider: bars left and right", 1280, 360, 320 + 100, 360 - 50, 100, 50},
		{"taller: bars above and below", 640, 1000, 100, 320 + 360 - 50, 100, 50},
		{"on the left bar", 1280, 360, 10, 100, -310, 260},
	}
	for _, c := range cases {
		gx, gy := windowPoint(model, c.screenW, c.screen, c.x, c.y)
		if gx != c.gx || gy != c.gy {
			t.Errorf("%s: (%g, %g) maps to (%g, %g), want (%g, %g)", c.name, c.x, c.y, gx, gy, c.gx, c.gy)
		}
	}
	if gx, gy := windowPoint(model, 0, 0, 5, 5); gx >= 0 || gy >= 0 {
		t.Errorf("a minimised window maps a point to (%g, %g), inside the frame", gx, gy)
	}
}

// Window events go to the channels the window showed last: the layout the
// application chose, not the one the config starts with, which they go to
// before the window's first frame; and to none once it was blanked.
func TestEventsGoToTheChannelsShown(t *testing.T) {
	w := &compound.Window{Name: "main", PixelViewport: compound.PixelViewport{W: 100, H: 50}}
	one, two := &compound.Layout{Name: "one"}, &compound.Layout{Name: "two"}
	segment := &compound.Segment{Canvas: &compound.Canvas{Layouts: []*compound.Layout{one, two}}}
	whole := &compound.Channel{ID: "whole", Window: w, PixelViewport: compound.PixelViewport{W: 100, H: 50},
		View: &compound.View{Layout: one}, Segment: segment}
	left := &compound.Channel{ID: "left", Window: w, PixelViewport: compound.PixelViewport{W: 50, H: 50},
		View: &compound.View{Layout: two}, Segment: segment}
	right := &compound.Channel{ID: "right", Window: w, PixelViewport: compound.PixelViewport{X: 50, W: 50, H: 50},
		View: &compound.View{Layout: two}, Segment: segment}
	one.Views, two.Views = []*compound.View{whole.View}, []*compound.View{left.View, right.View}
	cw := &channel.Window{Model: w}
	n := &node{events: make(chan control.WindowEvent, 4), pointer: map[*compound.Window][2]float64{},
		cfg: &compound.Config{Layouts: []*compound.Layout{one, two}, Channels: []*compound.Channel{whole, left, right}}}
	plans := func(chs ...*compound.Channel) []*planner.ChannelPlan {
		var out []*planner.ChannelPlan
		for _, ch := range chs {
			out = append(out, &planner.ChannelPlan{Channel: ch, Viewport: ch.PixelViewport, WindowSize: compound.Size{W: 100, H: 50}})
		}
		return out
	}
	views := map[string]int{"whole": 0, "left": 1, "right": 2} // in the config's views
	at := func(x float64) string {
		n.windowEvent(cw, winsys.Event{Kind: winsys.PointerMotion, X: x, Y: 10})
		ev := <-n.events
		if want, ok := views[ev.Channel]; !ok || ev.View != want {
			t.Errorf("the event in channel %q names view %d, want %d", ev.Channel, ev.View, want)
		}
		return ev.Channel
	}
	if got := at(75); got != "whole" {
		t.Errorf("before any frame: the event went to %q, not to the config's first layout", got)
	}
	n.noteShown(plans(left, right))
	if got := at(75); got != "right" {
		t.Errorf("with two views shown, right of the middle: %q", got)
	}
	n.noteShown(plans(whole))
	if got := at(75); got != "whole" {
		t.Errorf("with one view shown again: %q", got)
	}
	n.noteShown(plans(left, right))
	if got := at(75); got != "right" {
		t.Errorf("with two views shown, right of the middle: %q", got)
	}
	if got := at(25); got != "left" {
		t.Errorf("with two views shown, left of the middle: %q", got)
	}
	// the window resized to 200x50: its frames show the halves at their
	// new size, and the pointer is placed in them
	n.noteShown([]*planner.ChannelPlan{
		{Channel: left, Viewport: compound.PixelViewport{W: 100, H: 50}, WindowSize: compound.Size{W: 200, H: 50}},
		{Channel: right, Viewport: compound.PixelViewport{X: 100, W: 100, H: 50}, WindowSize: compound.Size{W: 200, H: 50}}})
	if got := at(75); got != "left" {
		t.Errorf("resized to 200x50, at x 75: %q, want the left half", got)
	}
	if got := at(150); got != "right" {
		t.Errorf("resized to 200x50, at x 150: %q, want the right half", got)
	}
	// blanked (a layout that does not use it): on no channel
	n.noteBlank([]*channel.Window{cw})
	n.windowEvent(cw, winsys.Event{Kind: winsys.PointerMotion, X: 150, Y: 10})
	if ev := <-n.events; ev.Channel != "" || ev.View != -1 {
		t.Errorf("blanked: the event went to channel %q, view %d", ev.Channel, ev.View)
	}
}
