package compositor

import (
	"bytes"
	"math"
	"math/rand"
	"slices"
	"testing"
)

func randomImage(r *rand.Rand, w, h int, depth bool) *Image {
	img := NewImage(w, h, depth)
	r.Read(img.Color)
	for i := range img.Depth {
		img.Depth[i] = r.Float32()
	}
	return img
}

// premultiplied makes a random image valid premultiplied RGBA.
func premultiplied(img *Image) *Image {
	for i := 0; i < len(img.Color); i += 4 {
		a := img.Color[i+3]
		for c := 0; c < 3; c++ {
			img.Color[i+c] = byte(uint32(img.Color[i+c]) * uint32(a) / 255)
		}
	}
	return img
}

func TestAssembleTilesRebuildTheFrame(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, size := range [][2]int{{7, 5}, {640, 360}} {
		w, h := size[0], size[1]
		full := randomImage(r, w, h, true)
		dst := NewImage(w, h, true)
		// four uneven tiles, like a 2D load equalizer's split
		xs, ys := []int{0, w / 3, w}, []int{0, h / 2, h}
		for ty := 0; ty < 2; ty++ {
			for tx := 0; tx < 2; tx++ {
				x0, x1, y0, y1 := xs[tx], xs[tx+1], ys[ty], ys[ty+1]
				tile := NewImage(x1-x0, y1-y0, true)
				for y := y0; y < y1; y++ {
					copy(tile.Color[4*(y-y0)*tile.W:], full.Color[4*(y*w+x0):4*(y*w+x1)])
					copy(tile.Depth[(y-y0)*tile.W:], full.Depth[y*w+x0:y*w+x1])
				}
				if err := Assemble(dst, tile, x0, y0); err != nil {
					t.Fatal(err)
				}
			}
		}
		if string(dst.Color) != string(full.Color) {
			t.Errorf("%dx%d: assembled colour differs", w, h)
		}
		for i := range dst.Depth {
			if dst.Depth[i] != full.Depth[i] {
				t.Fatalf("%dx%d: depth differs at %d", w, h, i)
			}
		}
	}
	// bands as wide as the frame (one copy per part, not per row), uneven,
	// on frames small and large enough to be split across cores
	for _, size := range [][2]int{{7, 5}, {640, 360}} {
		w, h := size[0], size[1]
		full := randomImage(r, w, h, true)
		dst := NewImage(w, h, true)
		ys := []int{0, h / 5, h/5 + h/2, h}
		for i := 0; i+1 < len(ys); i++ {
			y0, y1 := ys[i], ys[i+1]
			band := &Image{W: w, H: y1 - y0, Color: append([]byte(nil), full.Color[4*y0*w:4*y1*w]...),
				Depth: append([]float32(nil), full.Depth[y0*w:y1*w]...)}
			if err := Assemble(dst, band, 0, y0); err != nil {
				t.Fatal(err)
			}
		}
		if string(dst.Color) != string(full.Color) {
			t.Errorf("%dx%d bands: assembled colour differs", w, h)
		}
		for i := range dst.Depth {
			if dst.Depth[i] != full.Depth[i] {
				t.Fatalf("%dx%d bands: depth differs at %d", w, h, i)
			}
		}
	}
	if err := Assemble(NewImage(4, 4, false), NewImage(3, 3, false), 2, 2); err == nil {
		t.Error("a tile that does not fit must be refused")
	}
}

func TestDepthMergeKeepsNearest(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	a, b := randomImage(r, 300, 300, true), randomImage(r, 300, 300, true)
	want := NewImage(300, 300, true)
	for i := range a.Depth {
		src := a
		if b.Depth[i] < a.Depth[i] {
			src = b
		}
		want.Depth[i] = src.Depth[i]
		copy(want.Color[4*i:4*i+4], src.Color[4*i:4*i+4])
	}
	if err := DepthMerge(a, b); err != nil {
		t.Fatal(err)
	}
	if string(a.Color) != string(want.Color) {
		t.Error("merged colour differs from the reference")
	}
	// integer depth
	c, d := NewImage(2, 1, false), NewImage(2, 1, false)
	c.DepthU, d.DepthU = []uint32{5, 1}, []uint32{3, 9}
	copy(c.Color, []byte{1, 1, 1, 1, 2, 2, 2, 2})
	copy(d.Color, []byte{3, 3, 3, 3, 4, 4, 4, 4})
	if err := DepthMerge(c, d); err != nil {
		t.Fatal(err)
	}
	if c.Color[0] != 3 || c.Color[4] != 2 || c.DepthU[0] != 3 || c.DepthU[1] != 1 {
		t.Errorf("integer merge: %v %v", c.Color, c.DepthU)
	}
	if err := DepthMerge(NewImage(2, 1, true), c); err == nil {
		t.Error("mixed depth kinds must be refused")
	}
}

func TestBlendMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	front, back := premultiplied(randomImage(r, 257, 3, false)), premultiplied(randomImage(r, 257, 3, false))
	// exhaustive over alpha for one colour value set
	for a := 0; a < 256; a++ {
		front.Color[4*a+3] = byte(a)
	}
	got := &Image{W: back.W, H: back.H, Color: append([]byte{}, back.Color...)}
	if err := BlendOver(got, front); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(got.Color); i += 4 {
		a := float64(front.Color[i+3])
		for c := 0; c < 4; c++ {
			want := float64(front.Color[i+c]) + math.Round(float64(back.Color[i+c])*(255-a)/255)
			if want > 255 {
				want = 255
			}
			if float64(got.Color[i+c]) != want {
				t.Fatalf("pixel %d channel %d: got %d, want %v", i/4, c, got.Color[i+c], want)
			}
		}
	}
	// under is over with the roles swapped
	under := &Image{W: front.W, H: front.H, Color: append([]byte{}, front.Color...)}
	if err := BlendUnder(under, back); err != nil {
		t.Fatal(err)
	}
	if string(under.Color) != string(got.Color) {
		t.Error("BlendUnder(front, back) differs from BlendOver(back, front)")
	}
}

func TestInterleaveRebuildsTheFrame(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	w, h := 101, 53
	full := randomImage(r, w, h, false)
	dst := NewImage(w, h, false)
	for py := 0; py < 2; py++ {
		for px := 0; px < 2; px++ {
			sw, sh := (w-px+1)/2, (h-py+1)/2
			src := NewImage(sw, sh, false)
			for j := 0; j < sh; j++ {
				for i := 0; i < sw; i++ {
					copy(src.Color[4*(j*sw+i):], full.Color[4*((py+2*j)*w+px+2*i):][:4])
				}
			}
			if err := Interleave(dst, src, px, py, 2, 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	if string(dst.Color) != string(full.Color) {
		t.Error("interleaved 2x2 sources differ from the frame")
	}
	if err := Interleave(dst, NewImage(3, 3, false), 0, 0, 2, 2); err == nil {
		t.Error("a pixel source of the wrong size must be refused")
	}
}

// InterleaveAt follows the interleave shaders' rule, checked pixel by
// pixel of the destination: pixel p of the rectangle takes sample
// (p - first) / step where p - first is a non-negative multiple of step
// inside the source, with depth only where the sample is nearer. Starts
// before, inside and past the rectangle, and rectangles at the image's
// edges, take every clipping case.
func TestInterleaveAtFollowsTheShader(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	const w, h = 37, 23
	for n := 0; n < 300; n++ {
		depth := n%2 == 1
		step := [2]int{1 + r.Intn(4), 1 + r.Intn(3)}
		first := [2]int{r.Intn(w+8) - 4, r.Intn(h+8) - 4}
		src := randomImage(r, 1+r.Intn(w/step[0]+3), 1+r.Intn(h/step[1]+3), depth)
		x, y := r.Intn(w), r.Intn(h)
		cw, ch := r.Intn(w-x+1), r.Intn(h-y+1)
		dst := randomImage(r, w, h, depth)
		want := &Image{W: w, H: h, Color: append([]byte(nil), dst.Color...), Depth: append([]float32(nil), dst.Depth...)}
		for py := y; py < y+ch; py++ {
			for px := x; px < x+cw; px++ {
				dx, dy := px-first[0], py-first[1]
				if dx < 0 || dy < 0 || dx%step[0] != 0 || dy%step[1] != 0 || dx/step[0] >= src.W || dy/step[1] >= src.H {
					continue
				}
				s, d := dy/step[1]*src.W+dx/step[0], py*w+px
				if depth && src.Depth[s] >= want.Depth[d] {
					continue
				}
				copy(want.Color[4*d:4*d+4], src.Color[4*s:4*s+4])
				if depth {
					want.Depth[d] = src.Depth[s]
				}
			}
		}
		if err := InterleaveAt(dst, src, first, step, x, y, cw, ch); err != nil {
			t.Fatal(err)
		}
		if string(dst.Color) != string(want.Color) || !slices.Equal(dst.Depth, want.Depth) {
			t.Fatalf("case %d: %dx%d samples from %v every %v into %dx%d+%d+%d (depth %v) differ from the shader's rule", n, src.W, src.H, first, step, cw, ch, x, y, depth)
		}
	}
	if err := InterleaveAt(NewImage(4, 4, false), NewImage(2, 2, false), [2]int{0, 0}, [2]int{2, 2}, 1, 1, 4, 4); err == nil {
		t.Error("a rectangle past the image must be refused")
	}
	if err := InterleaveAt(NewImage(4, 4, false), NewImage(2, 2, false), [2]int{0, 0}, [2]int{0, 2}, 0, 0, 4, 4); err == nil {
		t.Error("a step of 0 must be refused")
	}
}

// CopyChannels takes the selected channels of every pixel from src and
// keeps the others of dst, for every mask.
func TestCopyChannelsKeepsWhatTheMaskLeaves(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for bits := 0; bits < 16; bits++ {
		var mask [4]byte
		for c := range mask {
			if bits&(1<<c) != 0 {
				mask[c] = 0xff
			}
		}
		dst, src := randomImage(r, 23, 11, false), randomImage(r, 23, 11, false)
		before := append([]byte(nil), dst.Color...)
		if err := CopyChannels(dst, src, mask); err != nil {
			t.Fatal(err)
		}
		for i, v := range dst.Color {
			want := before[i]
			if mask[i%4] != 0 {
				want = src.Color[i]
			}
			if v != want {
				t.Fatalf("mask %v: byte %d is %d, want %d", mask, i, v, want)
			}
		}
	}
	if err := CopyChannels(NewImage(2, 2, false), NewImage(2, 3, false), [4]byte{0xff}); err == nil {
		t.Error("images of different sizes must be refused")
	}
}

func TestAverageRoundsToNearest(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for n := 1; n <= 5; n++ { // two sources take a path of their own
		var srcs []*Image
		for range n {
			srcs = append(srcs, randomImage(r, 50, 50, false))
		}
		dst := NewImage(50, 50, false)
		if err := Average(dst, srcs); err != nil {
			t.Fatal(err)
		}
		for i := range dst.Color {
			sum := 0
			for _, s := range srcs {
				sum += int(s.Color[i])
			}
			if want := int(math.Floor(float64(sum)/float64(n) + 0.5)); int(dst.Color[i]) != want {
				t.Fatalf("%d sources, byte %d: got %d want %d", n, i, dst.Color[i], want)
			}
		}
	}
}

// A weighted mean is the plain mean of each source repeated its weight's
// times: Average itself where that makes at most MaxAverage sources, and
// the rounded sum of the bytes, counted one by one, past it (samples of
// sizes 2, 255 and 2 on the same pixels weigh 255, 2 and 253 of 510).
func TestWeightedAverageIsTheMeanOfRepeatedSources(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, weights := range [][]int{{1}, {1, 1}, {1, 1, 1}, {2, 1}, {1, 3, 2}, {255, 2, 253}, {1, 1000, 7}} {
		var srcs, repeated []*Image
		for _, w := range weights {
			img := randomImage(r, 40, 30, false)
			srcs = append(srcs, img)
			for range w {
				repeated = append(repeated, img)
			}
		}
		got := NewImage(40, 30, false)
		if err := WeightedAverage(got, srcs, weights); err != nil {
			t.Fatal(err)
		}
		if len(repeated) <= MaxAverage {
			want := NewImage(40, 30, false)
			if err := Average(want, repeated); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Color, want.Color) {
				t.Errorf("weights %v: not Average of the sources repeated", weights)
			}
			continue
		}
		for i := range got.Color {
			sum := 0
			for _, s := range repeated {
				sum += int(s.Color[i])
			}
			if want := int(math.Floor(float64(sum)/float64(len(repeated)) + 0.5)); int(got.Color[i]) != want {
				t.Fatalf("weights %v, byte %d: got %d want %d", weights, i, got.Color[i], want)
			}
		}
	}
	for _, weights := range [][]int{{0, 1}, {-1, 2}, {MaxWeight, 1}, {1}} {
		srcs := []*Image{NewImage(4, 4, false), NewImage(4, 4, false)}
		if err := WeightedAverage(NewImage(4, 4, false), srcs, weights); err == nil {
			t.Errorf("weights %v for 2 sources: no error", weights)
		}
	}
}

// Blending slabs back to front with BlendOver equals blending them front to
// back with BlendUnder into a transparent image, then over the background.
func TestBlendOrderFrontToBackEqualsBackToFront(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	var slabs []*Image
	for i := 0; i < 4; i++ {
		img := randomImage(r, 64, 64, false)
		for p := 0; p < len(img.Color); p += 4 {
			img.Color[p+3] = byte(r.Intn(4) * 85) // 0, 85, 170, 255: exact in 8 bits
		}
		slabs = append(slabs, premultiplied(img))
	}
	bg := NewImage(64, 64, false)
	for p := 0; p < len(bg.Color); p += 4 {
		copy(bg.Color[p:], []byte{10, 20, 30, 255})
	}
	backToFront := &Image{W: 64, H: 64, Color: append([]byte{}, bg.Color...)}
	if err := BlendInOrder(backToFront, slabs); err != nil {
		t.Fatal(err)
	}
	acc := NewImage(64, 64, false)
	for i := len(slabs) - 1; i >= 0; i-- {
		if err := BlendUnder(acc, slabs[i]); err != nil {
			t.Fatal(err)
		}
	}
	BlendUnder(acc, bg)
	diff := 0
	for i := range acc.Color {
		d := int(acc.Color[i]) - int(backToFront.Color[i])
		if d < -2 || d > 2 {
			t.Fatalf("byte %d: front-to-back %d, back-to-front %d", i, acc.Color[i], backToFront.Color[i])
		}
		if d != 0 {
			diff++
		}
	}
	t.Logf("%d of %d bytes differ by at most 2 (8-bit rounding)", diff, len(acc.Color))
}

// TestDepthMergeAtMatchesPixelLoop merges inputs of several sizes at
// offsets (ties included) and compares with a per-pixel loop.
func TestDepthMergeAtMatchesPixelLoop(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	dst := randomImage(r, 640, 360, true)
	want := NewImage(640, 360, true)
	copy(want.Color, dst.Color)
	copy(want.Depth, dst.Depth)
	for _, in := range []struct{ x, y, w, h int }{{0, 0, 640, 360}, {13, 7, 300, 200}, {639, 359, 1, 1}, {100, 0, 531, 360}} {
		src := randomImage(r, in.w, in.h, true)
		for i := 0; i < len(src.Depth); i += 5 { // ties keep dst
			src.Depth[i] = dst.Depth[(in.y+i/in.w)*dst.W+in.x+i%in.w]
		}
		for row := 0; row < in.h; row++ {
			for col := 0; col < in.w; col++ {
				s, d := row*in.w+col, (in.y+row)*want.W+in.x+col
				if src.Depth[s] < want.Depth[d] {
					want.Depth[d] = src.Depth[s]
					copy(want.Color[4*d:4*d+4], src.Color[4*s:4*s+4])
				}
			}
		}
		if err := DepthMergeAt(dst, src, in.x, in.y); err != nil {
			t.Fatal(err)
		}
		if string(dst.Color) != string(want.Color) {
			t.Fatalf("%dx%d at (%d,%d): merged colour differs from the per-pixel loop", in.w, in.h, in.x, in.y)
		}
		for i := range want.Depth {
			if dst.Depth[i] != want.Depth[i] {
				t.Fatalf("%dx%d at (%d,%d): depth %d differs", in.w, in.h, in.x, in.y, i)
			}
		}
	}
	if err := DepthMergeAt(dst, NewImage(10, 10, true), 635, 0); err == nil {
		t.Error("an input past the frame's edge must be refused")
	}
}

// Resample leaves an image of its own size as it is, filters colour
// linearly between the centres of the pixels it spreads, and takes the
// nearest pixel's colour and depth where both images have depth.
func TestResampleFiltersColourAndTakesTheNearestDepth(t *testing.T) {
	src := NewImage(2, 1, true)
	copy(src.Color, []byte{0, 0, 0, 255, 200, 100, 40, 255})
	copy(src.Depth, []float32{0.25, 0.75})
	same := NewImage(2, 1, false)
	if err := Resample(same, &Image{W: 2, H: 1, Color: src.Color}); err != nil || !bytes.Equal(same.Color, src.Color) {
		t.Errorf("the same size resampled to %v (%v), want %v", same.Color, err, src.Color)
	}
	// four pixels at 0.25, 0.75, 1.25 and 1.75 of two: -0.25 and 1.25
	// clamp to the edges, 0.25 and 0.75 lie a quarter and three quarters
	// of the way
	wide := NewImage(4, 1, false)
	if err := Resample(wide, &Image{W: 2, H: 1, Color: src.Color}); err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, 255, 50, 25, 10, 255, 150, 75, 30, 255, 200, 100, 40, 255}
	if !bytes.Equal(wide.Color, want) {
		t.Errorf("resampled colour %v, want %v", wide.Color, want)
	}
	deep := NewImage(4, 1, true)
	if err := Resample(deep, src); err != nil {
		t.Fatal(err)
	}
	wantColor := []byte{0, 0, 0, 255, 0, 0, 0, 255, 200, 100, 40, 255, 200, 100, 40, 255}
	if !bytes.Equal(deep.Color, wantColor) || !slices.Equal(deep.Depth, []float32{0.25, 0.25, 0.75, 0.75}) {
		t.Errorf("resampled with depth to %v %v, want the nearest pixels' %v %v", deep.Color, deep.Depth, wantColor, []float32{0.25, 0.25, 0.75, 0.75})
	}
	if err := Resample(NewImage(2, 2, false), NewImage(0, 0, false)); err == nil {
		t.Error("an empty image resampled")
	}
}
