package channel

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/winsys"
)

// On a software GL a received frame is uploaded on the render goroutine,
// when it is used: no upload context works beside the render context
// (llvmpipe crashed now and then with one), and the pixels stay in memory
// until then. On a GPU the upload goroutine does it at once. Either way
// the textures hold the frame's colour and depth, and every frame's
// memory is given back: used or not.
func TestSoftwareGLUploadsOnTheRenderGoroutine(t *testing.T) {
	p := eglPipe(t, "upload")
	const w, h = 37, 23
	px := &Pixels{PixelViewport: compound.PixelViewport{W: w, H: h}, Color: make([]byte, 4*w*h), Depth: make([]float32, w*h)}
	for i := range px.Color {
		px.Color[i] = byte(i * 7)
	}
	for i := range px.Depth {
		px.Depth[i] = float32(i) / float32(w*h)
	}
	released := make(chan struct{}, 2)
	used := p.StartUploadRelease(px, func() { released <- struct{}{} })
	unused := p.StartUploadRelease(&Pixels{PixelViewport: compound.PixelViewport{W: 4, H: 4}, Color: make([]byte, 64)},
		func() { released <- struct{}{} })
	if p.softwareGL && len(released) != 0 {
		t.Errorf("a software GL gave the pixels back before they were uploaded")
	}
	var color []byte
	var depth []float32
	err := p.Do(func() error {
		if err := used.Use(); err != nil {
			return err
		}
		color = make([]byte, 4*used.TexW*used.TexH)
		gl.BindTexture(gl.TEXTURE_2D, used.Color)
		gl.GetTexImage(gl.TEXTURE_2D, 0, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(color))
		depth = make([]float32, used.TexW*used.TexH)
		gl.BindTexture(gl.TEXTURE_2D, used.Depth)
		gl.GetTexImage(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT, gl.FLOAT, gl.Ptr(depth))
		gl.BindTexture(gl.TEXTURE_2D, 0)
		ReleaseUploads(used, unused)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 4; c++ {
				if got, want := color[4*(y*used.TexW+x)+c], px.Color[4*(y*w+x)+c]; got != want {
					t.Fatalf("colour (%d,%d)[%d] = %d, want %d", x, y, c, got, want)
				}
			}
			if got, want := depth[y*used.TexW+x], px.Depth[y*w+x]; got != want {
				t.Fatalf("depth (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
	if len(released) != 2 {
		t.Errorf("%d of 2 frames' pixels given back", len(released))
	}
	checkHelper(t, p, &p.upload, "upload")
	if n, last := p.OwnershipErrors(); n != 0 {
		t.Errorf("%d wrong texture hand-overs, the last: %s", n, last)
	}
}

// Pipes started at once make their first texture stores one at a time,
// each before StartPipe returns it: Mesa fills a static table on a
// process's first depth store without a lock, and two pipes storing their
// first depth together crashed a render client.
func TestPipesPrimeTheirStoresOneAtATime(t *testing.T) {
	sys, err := winsys.OpenEGL()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	active, most := 0, 0
	primeHook = func(label string, start bool) {
		mu.Lock()
		defer mu.Unlock()
		if start {
			active++
			most = max(most, active)
			events = append(events, "start "+label)
			return
		}
		active--
		events = append(events, "end "+label)
	}
	defer func() { primeHook = nil }()
	const n = 4
	go1 := make(chan struct{})
	var wg sync.WaitGroup
	pipes := make([]*Pipe, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-go1
			pipes[i], errs[i] = StartPipe(fmt.Sprintf("p%d", i), sys)
			mu.Lock()
			events = append(events, fmt.Sprintf("started p%d", i))
			mu.Unlock()
		}()
	}
	close(go1)
	wg.Wait()
	for i, p := range pipes {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		defer p.Stop()
	}
	if most != 1 {
		t.Errorf("%d pipes primed at once, want one at a time: %v", most, events)
	}
	for i := range n {
		label := fmt.Sprintf("p%d", i)
		var got []string // what happened to this pipe, in order
		for _, e := range events {
			if what, ok := strings.CutSuffix(e, " "+label); ok {
				got = append(got, what)
			}
		}
		if !slices.Equal(got, []string{"start", "end", "started"}) {
			t.Errorf("%s: want one priming that ends before StartPipe returns, got %v", label, events)
		}
	}
}
