package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goeq/goeq"
	"github.com/goeq/goeq/internal/autoconfig"
	"github.com/goeq/goeq/internal/gotool"
	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/render"
)

// volumeBinary is the volume command, built once for the package's tests
// (each link took 3.5 s, eleven times).
func volumeBinary(t *testing.T) string { return gotool.Binary(t, "volume", ".") }

func TestMain(m *testing.M) {
	code := m.Run()
	gotool.RemoveBinaries()
	os.Exit(code)
}

// TestSlabsBlendToTheWholeVolume runs the volume headless on four DB
// sources (slabs on two render nodes, blended back to front for an
// orbiting camera) and on one window, with a density the application
// broadcasts: every frame's images agree, and the density shows.
func TestSlabsBlendToTheWholeVolume(t *testing.T) {
	bin := volumeBinary(t)
	const frames = 6
	run := func(cfg, density string, args ...string) []string {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command(bin, append([]string{"--config", filepath.Join("..", "configs", cfg), "--camera-path", "orbit",
			"--frames", "6", "--density", density, "--out", out}, args...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("volume on %s: %v\n%s", cfg, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != frames {
			t.Fatalf("volume on %s wrote %d images, want %d", cfg, len(files), frames)
		}
		return files
	}
	slabs, whole := run("db-volume-4.eqc", "3"), run("one-window.eqc", "3")
	matchFrames(t, "four slabs against one window", slabs, whole)
	thin := run("one-window.eqc", "1")
	if d, err := imagecmp.CompareFiles(thin[0], whole[0], 3); err != nil || d.BadFraction() < 0.05 {
		t.Errorf("density 3 looks like density 1 (%v, %v): the broadcast did not reach the renderer", d, err)
	}
	// in a parallel projection (eVolve's -o) too: the slabs blend in the
	// order of the direction looked in, the eye being far back along it
	// (ordered from the eye at a point, 7 to 10% of pixels were wrong)
	parallel := run("one-window.eqc", "3", "-o")
	matchFrames(t, "four slabs against one window, in parallel", run("db-volume-4.eqc", "3", "--ortho"), parallel)
	if d, err := imagecmp.CompareFiles(parallel[0], whole[0], 3); err != nil || d.BadFraction() < 0.05 {
		t.Errorf("the parallel projection looks like the perspective one (%v, %v)", d, err)
	}
}

// An eVolve volume (a .raw file and its .vhf header, as Equalizer's eVolve
// reads them) shows where its voxels are, in its transfer function's
// colours, in its box: a block in the upper left of a 32×16×8 volume (a
// box twice as wide as high) is red, wider than high, up and to the left.
// Its *_d.raw form (a gradient before each value) shows the same. On four
// DB sources, round the volume (from its sides too, where the eye's plane
// crosses the slabs), it is the picture of one window.
func TestAnEVolveVolumeShowsItsVoxels(t *testing.T) {
	bin := volumeBinary(t)
	dir := writeBlock(t)
	run := func(model, cfg string, frames int) []string {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command(bin, "--model", filepath.Join(dir, model), "--config", filepath.Join("..", "configs", cfg),
			"--camera-path", "orbit", "--frames", fmt.Sprint(frames), "--out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s on %s: %v\n%s", model, cfg, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != frames {
			t.Fatalf("%s on %s wrote %d images, want %d", model, cfg, len(files), frames)
		}
		return files
	}
	front := run("block.raw", "one-window.eqc", 8)
	img, err := imagecmp.Load(front[0])
	if err != nil {
		t.Fatal(err)
	}
	cx, cy := img.Rect.Dx()/2, img.Rect.Dy()/2
	box := [4]int{img.Rect.Dx(), img.Rect.Dy(), -1, -1}
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			c := img.NRGBAAt(x, y)
			if max(c.R, c.G, c.B) < 24 {
				continue
			}
			if c.G > c.R/4 || c.B > c.R/4 {
				t.Fatalf("pixel (%d, %d) is %v; want red, the transfer function's colour", x, y, c)
			}
			box = [4]int{min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)}
		}
	}
	bw, bh := box[2]-box[0]+1, box[3]-box[1]+1
	switch {
	case box[2] < 0:
		t.Fatal("nothing shows")
	case box[2] >= cx || box[3] >= cy:
		t.Errorf("the block shows in %v; want it left of column %d and above row %d", box, cx, cy)
	case bw < 3*bh/2:
		t.Errorf("the block shows %d×%d; want it about twice as wide as high (a box of 32×16 voxels)", bw, bh)
	}
	if d, err := imagecmp.CompareFiles(front[0], run("block_d.raw", "one-window.eqc", 1)[0], 0); err != nil || d.BadFraction() > 0 {
		t.Errorf("the *_d.raw volume against the plain one: %v %v", d, err)
	}
	// as eVolve is run: -m, -n, and -a for its alpha attenuation
	for _, c := range []struct {
		alpha string
		same  bool
	}{{"1", true}, {"4", false}} {
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-m", filepath.Join(dir, "block.raw"), "-n", "1", "-a", c.alpha, "--config", filepath.Join("..", "configs", "one-window.eqc"),
			"--camera-path", "orbit", "--out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("eVolve's options: %v\n%s", err, b)
		}
		d, err := imagecmp.CompareFiles(front[0], filepath.Join(out, "dest-000000.png"), 0)
		if err != nil || (d.BadFraction() == 0) != c.same {
			t.Errorf("-m -n 1 -a %s against --model's first frame: %v %v; want the same picture: %v", c.alpha, d, err, c.same)
		}
	}
	matchFrames(t, "on four DB sources against one window", run("block.raw", "db-volume-4.eqc", 8), front)
	// a volume named as the Open SciVis datasets are needs no header: its
	// 16-bit values scaled onto bytes, in the default transfer function,
	// show as the same bytes do under a header of that function
	block, err := os.ReadFile(filepath.Join(dir, "block.raw"))
	if err != nil {
		t.Fatal(err)
	}
	var wide, scaled []byte
	for _, v := range block {
		wide = binary.LittleEndian.AppendUint16(wide, uint16(v)*100)
		scaled = append(scaled, v/200*255)
	}
	var header strings.Builder
	header.WriteString("w=32\nh=16\nd=8\nwScale=1\nhScale=1\ndScale=1\nTF:\nsize=256\n")
	for _, c := range render.DefaultTransfer() {
		fmt.Fprintf(&header, "r=%d\ng=%d\nb=%d\na=%d\n", c[0], c[1], c[2], c[3])
	}
	os.WriteFile(filepath.Join(dir, "block_32x16x8_uint16.raw"), wide, 0o644)
	os.WriteFile(filepath.Join(dir, "scaled.raw"), scaled, 0o644)
	os.WriteFile(filepath.Join(dir, "scaled.raw.vhf"), []byte(header.String()), 0o644)
	// and a NRRD file of those values, its header attached, as Teem,
	// 3D Slicer and ParaView write them
	nrrd := "NRRD0004\ntype: ushort\ndimension: 3\nsizes: 32 16 8\nspacings: 1 1 1\nendian: little\nencoding: raw\n\n"
	os.WriteFile(filepath.Join(dir, "block.nrrd"), append([]byte(nrrd), wide...), 0o644)
	named := run("block_32x16x8_uint16.raw", "one-window.eqc", 1)[0]
	if d, err := imagecmp.CompareFiles(run("scaled.raw", "one-window.eqc", 1)[0], named, 0); err != nil || d.BadFraction() > 0 {
		t.Errorf("a volume named with its size against its bytes under a header: %v %v", d, err)
	}
	if d, err := imagecmp.CompareFiles(run("block.nrrd", "one-window.eqc", 1)[0], named, 0); err != nil || d.BadFraction() > 0 {
		t.Errorf("a NRRD volume against the same values named with their size: %v %v", d, err)
	}
	// --transfer shows a volume in another transfer function: the red
	// block in a ParaView preset's grey ramp, or in the grey of an eVolve
	// header, is the block under a header of that grey
	os.WriteFile(filepath.Join(dir, "grey.json"), []byte(`[{"Name": "grey", "RGBPoints": [0, 0, 0, 0, 1, 1, 1, 1]}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "greyblock.raw"), block, 0o644)
	os.WriteFile(filepath.Join(dir, "greyblock.raw.vhf"), []byte(header.String()), 0o644) // the block's size, the default grey
	grey := run("greyblock.raw", "one-window.eqc", 1)[0]
	for _, tf := range []string{"grey.json", "scaled.raw.vhf"} {
		out := t.TempDir()
		cmd := exec.Command(bin, "--model", filepath.Join(dir, "block.raw"), "--transfer", filepath.Join(dir, tf), "--config", filepath.Join("..", "configs", "one-window.eqc"),
			"--camera-path", "orbit", "--frames", "1", "--out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("--transfer %s: %v\n%s", tf, err, b)
		}
		if d, err := imagecmp.CompareFiles(filepath.Join(out, "dest-000000.png"), grey, 0); err != nil || d.BadFraction() > 0 {
			t.Errorf("the red block in --transfer %s against it under a header of that grey: %v %v", tf, d, err)
		}
	}
	if d, err := imagecmp.CompareFiles(front[0], grey, 0); err != nil || d.BadFraction() == 0 {
		t.Errorf("the block shows alike in red and in grey: the comparison would prove nothing (%v)", err)
	}
	if d, err := imagecmp.CompareFiles(front[0], named, 0); err != nil || d.BadFraction() == 0 {
		t.Errorf("the named volume shows as the red block does: the comparison would prove nothing (%v)", err)
	}
	os.Remove(filepath.Join(dir, "block.raw.vhf"))
	out, err := exec.Command(bin, "--model", filepath.Join(dir, "block.raw"), "--frames", "1").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "volume header: open "+filepath.Join(dir, "block.raw.vhf")+": no such file") ||
		!strings.Contains(string(out), "NAME_WxHxD_TYPE.raw") {
		t.Errorf("no header: %v, %s", err, out)
	}
	// a volume given as an argument: flag stops there, and the flags
	// after it went unread (the procedural volume rendered 100 frames)
	out, err = exec.Command(bin, filepath.Join(dir, "block.raw"), "--frames", "1").CombinedOutput()
	if !errors.As(err, &exit) || !strings.Contains(string(out), "volume takes flags alone (a volume is --model FILE.raw") {
		t.Errorf("a volume as an argument: %v, %s", err, out)
	}
}

// A volume runs right on Equalizer's own DB configs, as eVolve runs them:
// their frames carry depth, but a volume's parts blend in the renderer's
// order, the part a destination draws itself (2-window.DB.eqc) or a
// direct send's source (2-pipe.DB.ds.eqc) among them, under 2D splits
// (4-window.DB.2D.lb.eqc) too. Where compounds blend parts into a part
// drawn in place before passing it on, a binary swap (4-window.DB.bs.eqc)
// and a stream (4-window.DB.stream.eqc), that part takes its turn as
// eVolve's does; ranges interleaved by pixel (7-window.DB.PIXEL.eqc)
// blend sample by sample. A pixel decomposition of all the data
// (3-window.PIXEL.eqc) interleaves its parts, which a software GL merges
// in memory after the blends. In anaglyph stereo each eye's parts blend
// by that eye's opacity (the corpus has no DB anaglyph config: one is
// written here). Every frame is the reference's, the destination drawing
// the whole volume.
func TestAVolumeBlendsOnEqualizersDBConfigs(t *testing.T) {
	bin := volumeBinary(t)
	model := filepath.Join(writeBlock(t), "block.raw")
	corpus := filepath.Join("..", "..", "..", "shared", "eqc-corpus")
	anaglyph := filepath.Join(t.TempDir(), "db-anaglyph.eqc")
	if err := os.WriteFile(anaglyph, []byte(dbAnaglyph), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(cfg string, args ...string) []string {
		t.Helper()
		out := t.TempDir()
		if !filepath.IsAbs(cfg) {
			cfg = filepath.Join(corpus, cfg)
		}
		cmd := exec.Command(bin, append([]string{"--model", model, "--config", cfg, "--local", "--camera-path", "orbit", "--frames", "4", "--out", out}, args...)...)
		cmd.Env = append(os.Environ(), "DISPLAY=")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", cfg, args, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != 4 {
			t.Fatalf("%s %v wrote %d images, want 4", cfg, args, len(files))
		}
		return files
	}
	for _, cfg := range []string{"2-window.DB.eqc", "2-pipe.DB.ds.eqc", "4-window.DB.2D.lb.eqc", "4-window.DB.bs.eqc", "4-window.DB.stream.eqc", "7-window.DB.PIXEL.eqc", "3-window.PIXEL.eqc", anaglyph} {
		matchFrames(t, cfg+" against the reference", run(cfg), run(cfg, "--reference"))
	}
	// the chunks of a tile equalizer's database queue, the destination
	// drawing those it takes in place, of the procedural volume: all of
	// them (each replaced the one before, 26% of pixels wrong), and some
	// (the config goeq makes for three GPUs, in ten chunks: its hundred,
	// each an 8-bit image of a slab of little opacity, add up to more than
	// the tolerance)
	procedural := []string{"--model", ""} // translucent everywhere
	inPlace := filepath.Join(t.TempDir(), "chunks-in-place.eqc")
	if err := os.WriteFile(inPlace, []byte(chunksInPlace), 0o644); err != nil {
		t.Fatal(err)
	}
	matchFrames(t, "chunks in place against the reference", run(inPlace, procedural...), run(inPlace, append(procedural, "--reference")...))
	gpus := make([]autoconfig.GPU, 3)
	for i := range gpus {
		gpus[i].Unnamed = true
	}
	chunks := filepath.Join(t.TempDir(), "chunks.eqc")
	text := strings.Replace(autoconfig.Text(autoconfig.Machine{GPUs: gpus}), "tile_equalizer { size 0.01 }", "tile_equalizer { size 0.1 }", 1)
	if err := os.WriteFile(chunks, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	layout := append(procedural, "--eq-layout", autoconfig.Chunks)
	matchFrames(t, "chunks against the reference", run(chunks, layout...), run(chunks, append(layout, "--reference")...))
}

// On a running eqserver (eqserver run --app), which loads the config
// itself, the volume's ranges blend as in its own process: the
// application's BlendRanges goes to the server with it, and
// 2-window.DB.eqc is the reference's picture there too.
func TestAVolumeBlendsOnARunningEqserver(t *testing.T) {
	dir := t.TempDir()
	bin, server := volumeBinary(t), filepath.Join(dir, "eqserver")
	if err := gotool.Build(server, "../../cmd/eqserver"); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(writeBlock(t), "block.raw")
	cfg := filepath.Join("..", "..", "..", "shared", "eqc-corpus", "2-window.DB.eqc")
	env := append(os.Environ(), "DISPLAY=", "GOEQ_TOKEN=a-token-for-the-test")
	srv := exec.Command(server, "run", "--app", "127.0.0.1:0", "--local", "--frame-timeout", "20s", cfg)
	srv.Env = env
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`waiting for an application on ([0-9.]+:[0-9]+)`).FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		exited <- srv.Wait()
	}()
	t.Cleanup(func() {
		srv.Process.Kill()
		<-exited
	})
	var at string
	select {
	case at = <-addr:
	case <-time.After(time.Minute):
		t.Fatal("eqserver did not wait for an application within a minute")
	}
	run := func(args ...string) []string {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command(bin, append([]string{"--model", model, "--camera-path", "orbit", "--frames", "2", "--out", out}, args...)...)
		cmd.Env = env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.png"))
		if len(files) != 2 {
			t.Fatalf("%v wrote %d images, want 2", args, len(files))
		}
		return files
	}
	matchFrames(t, "on the eqserver against the reference", run("--server", at), run("--config", cfg, "--local", "--reference"))
}

// matchFrames checks that each of got's pictures is want's, within 3
// levels but for imagecmp.EdgeFraction of the pixels: slabs composited in
// 8 bits round apart from one ray accumulated in float, and where a load
// equalizer moves the slabs' bounds a pixel in thousands differs by 4 or 5.
func matchFrames(t *testing.T, what string, got, want []string) {
	t.Helper()
	for i := range got {
		d, err := imagecmp.CompareFiles(got[i], want[i], 3)
		if err != nil {
			t.Fatal(err)
		}
		if d.BadFraction() > imagecmp.EdgeFraction {
			t.Errorf("%s, frame %d: %s", what, i, d)
		}
	}
}

// writeBlock writes a volume of 32×16×8 voxels in both eVolve forms,
// block.raw and block_d.raw, with their headers: a block in its upper
// left, red and opaque, the rest empty.
func writeBlock(t *testing.T) string {
	dir := t.TempDir()
	const w, h, d = 32, 16, 8
	var plain, derived []byte
	for z := range d {
		for y := range h {
			for x := range w {
				v := byte(0)
				if x >= 2 && x < 12 && y >= 10 && y < 15 {
					v = 200
				}
				plain = append(plain, v)
				derived = append(derived, byte(x*7), byte(y*13), byte(z*31), v)
			}
		}
	}
	var header strings.Builder
	fmt.Fprintf(&header, "w=%d\nh=%d\nd=%d\nwScale=1\nhScale=1\ndScale=1\nTF:\nsize=256\n", w, h, d)
	for v := range 256 {
		if v >= 100 { // red and opaque; below, nothing
			header.WriteString("r=255\ng=0\nb=0\na=255\n")
		} else {
			header.WriteString("r=0\ng=0\nb=255\na=0\n")
		}
	}
	for name, data := range map[string][]byte{"block.raw": plain, "block_d.raw": derived} {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		os.WriteFile(filepath.Join(dir, name+".vhf"), []byte(header.String()), 0o644)
	}
	return dir
}

// dbAnaglyph shows a view in anaglyph stereo, each eye split into two DB
// ranges, the destination drawing one of them in place.
const dbAnaglyph = `server
{
    config
    {
        appNode
        {
            pipe
            {
                window
                {
                    viewport [ 50 50 300 300 ]
                    attributes { hint_drawable FBO }
                    channel { name "channel1" }
                }
                window
                {
                    viewport [ 225 400 300 300 ]
                    channel { name "destination" }
                }
            }
        }
        observer {}
        layout { view { mode STEREO observer 0 } }
        canvas
        {
            layout 0
            wall {}
            segment { channel "destination" }
        }
        compound
        {
            channel ( view 0 segment 0 )
            attributes { stereo_mode ANAGLYPH }
            compound { range [ 0 .5 ] }
            compound
            {
                channel "channel1"
                range [ .5 1 ]
                outputframe {}
            }
            inputframe { name "frame.channel1" }
        }
    }
}
`

// eVolve's other options do here what they do in eVolve, so that an
// eVolve script runs: -b scales the colours (half is half as bright), -p
// samples more finely the same volume (2 is the default), eVolve's long
// names work, and -r and -w are taken with a word on why they change
// nothing. (-o, a parallel projection: TestSlabsBlendToTheWholeVolume.)
func TestEVolvesOtherOptionsDoWhatTheyDoThere(t *testing.T) {
	bin := volumeBinary(t)
	run := func(args ...string) (string, string, error) {
		t.Helper()
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--config", filepath.Join("..", "configs", "one-window.eqc"), "--camera-path", "orbit", "--frames", "1", "--out", out}, args...)...)
		b, err := cmd.CombinedOutput()
		return filepath.Join(out, "dest-000000.png"), string(b), err
	}
	image := func(args ...string) (string, string) {
		t.Helper()
		img, text, err := run(args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, text)
		}
		return img, text
	}
	brightness := func(path string) float64 {
		img, err := imagecmp.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for i := 0; i < len(img.Pix); i += 4 {
			sum += float64(img.Pix[i]) + float64(img.Pix[i+1]) + float64(img.Pix[i+2])
		}
		return sum
	}
	plain, _ := image()
	compare := func(a, b string) imagecmp.Diff {
		d, err := imagecmp.CompareFiles(a, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if ratio := brightness(first(image("-b", "0.5"))) / brightness(plain); ratio < 0.45 || ratio > 0.55 {
		t.Errorf("-b 0.5: %.3f as bright as without; want half", ratio)
	}
	if d := compare(first(image("--precision", "2")), plain); d.Worst != 0 {
		t.Errorf("--precision 2 (the default) differs from no precision: %s", d)
	}
	fine := first(image("-p", "8"))
	if d := compare(fine, plain); d.BadFraction() != 0 || d.Worst == 0 {
		t.Errorf("-p 8: %s; want the same volume within 2, sampled otherwise (some pixel off by 1 or 2)", d)
	}
	taken, text := image("-r", "-w", "GLX", "--numFrames", "1", "--alpha", "1", "--brightness", "1")
	for _, o := range []string{"-r", "-w"} {
		if !strings.Contains(text, "eVolve's "+o+" changes nothing here") {
			t.Errorf("%s: not said to change nothing\n%s", o, text)
		}
	}
	if d := compare(taken, plain); d.Worst != 0 {
		t.Errorf("eVolve's long names and the options taken changed the picture: %s", d)
	}
}

func first(path, _ string) string { return path }

// chunksInPlace has its destination draw every chunk of the database
// itself, in place.
const chunksInPlace = `server
{
    config
    {
        appNode
        {
            pipe
            {
                window
                {
                    viewport [ 100 100 400 300 ]
                    channel { name "destination" }
                }
            }
        }
        compound
        {
            channel "destination"
            tile_equalizer { size 0.25 }
            compound {}
        }
    }
}
`

// The keys do what eVolve's do: + and - make the volume denser and
// thinner, s switches the statistics overlay, o the projection, l and
// shift-l step through
// the layouts (none to step through with one), space and r reset the
// view, q quits.
func TestKeysDoWhatEVolvesDo(t *testing.T) {
	c := &controls{at: view{Yaw: 1, Pitch: 0.3, Distance: 3}, density: 1, layouts: 3}
	press := func(k goeq.Key, mods goeq.Modifiers) bool {
		return c.handle(goeq.Event{Kind: goeq.KeyPress, Key: k, Modifiers: mods})
	}
	if !press('+', 0) || c.density != 1.5 || !press('-', 0) || c.density != 1 {
		t.Errorf("+ then -: density %v; want 1.5 then 1", c.density)
	}
	if !press('s', 0) || !c.overlay || !press('s', 0) || c.overlay {
		t.Error("s did not switch the overlay on and off")
	}
	if !press('l', 0) || c.layout != 1 || !press('l', goeq.ModShift) || !press('l', goeq.ModShift) || c.layout != 2 {
		t.Errorf("l, shift-l, shift-l: layout %d; want 2 (1, 0, then round to 2)", c.layout)
	}
	if one := (&controls{layouts: 1}); one.handle(goeq.Event{Kind: goeq.KeyPress, Key: 'l'}) {
		t.Error("l with one layout changed the picture")
	}
	if !press('o', 0) || !c.at.Ortho {
		t.Error("o did not switch to a parallel projection")
	}
	for _, want := range []colorMode{demoColors, halfDemoColors, ownColors} {
		if !press('d', 0) || c.at.Colors != want {
			t.Errorf("d: colours %s; want %s", colorNames[c.at.Colors], colorNames[want])
		}
	}
	for _, want := range []background{whiteBackground, channelBackground, blackBackground, whiteBackground} {
		if !press('b', 0) || c.at.Background != want {
			t.Errorf("b: background %s; want %s", backgroundNames[c.at.Background], backgroundNames[want])
		}
	}
	for _, want := range []int{26, 18, 6, 26} {
		if !press('n', 0) || c.at.Gradients.Neighbours() != want {
			t.Errorf("n: gradients of %d neighbours; want %d", c.at.Gradients.Neighbours(), want)
		}
	}
	if !press('r', 0) || c.at != (view{Yaw: home.Yaw, Pitch: home.Pitch, Distance: home.Distance, Ortho: true, Background: whiteBackground, Gradients: render.GradientCorners}) {
		t.Errorf("r: view %+v; want home, in the projection, over the background and of the gradients it had", c.at)
	}
	if press('q', 0) || !c.quit {
		t.Error("q did not quit")
	}
}

// On demand, a window exposed again (uncovered, mapped) and a node lost
// draw the picture again: the one shown may be damaged, or lack the lost
// node's part; a node that joins changes nothing shown. (An exposed
// window stayed as it was until the next key or drag.)
func TestAnExposeOrALostNodeDrawsAgain(t *testing.T) {
	c := &controls{at: home}
	for _, ev := range []struct {
		kind goeq.EventKind
		draw bool
	}{{goeq.Expose, true}, {goeq.NodeLost, true}, {goeq.NodeJoined, false}} {
		if got := c.handle(goeq.Event{Kind: ev.kind, Node: "render1"}); got != ev.draw {
			t.Errorf("%s: draws again %v, want %v", ev.kind, got, ev.draw)
		}
	}
}

// In eVolve's demo colours (--colors demo, as d switches to) each channel
// draws its part in its own colour: on the 2D config each quarter of the
// picture is one colour, as bright as the volume is opaque there, where
// the volume's own colours change within a quarter (an orange core in a
// blue halo). Half of each is neither.
func TestDemoColoursShowWhatEachChannelDraws(t *testing.T) {
	bin := volumeBinary(t)
	// hues is the spread of the hue over the lit pixels of each quarter of
	// the frame (away from the splits), the largest of the four
	hues := func(colors string) float64 {
		out := t.TempDir()
		if b, err := exec.Command(bin, "--camera-path", "orbit", "--frames", "1", "--colors", colors, "--out", out).CombinedOutput(); err != nil {
			t.Fatalf("--colors %s: %v\n%s", colors, err, b)
		}
		f, err := os.Open(filepath.Join(out, "dest-000000.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		worst := 0.0
		for _, q := range []image.Rectangle{image.Rect(0, 0, b.Dx()/2, b.Dy()/2), image.Rect(b.Dx()/2, 0, b.Dx(), b.Dy()/2),
			image.Rect(0, b.Dy()/2, b.Dx()/2, b.Dy()), image.Rect(b.Dx()/2, b.Dy()/2, b.Dx(), b.Dy())} {
			lo, hi, lit, first := math.Inf(1), math.Inf(-1), 0, math.NaN()
			for y := q.Min.Y + 10; y < q.Max.Y-10; y++ {
				for x := q.Min.X + 10; x < q.Max.X-10; x++ {
					r, g, bl, _ := img.At(x, y).RGBA()
					if max(r, g, bl) < 0x4000 { // a quarter of full: too dark to tell its hue
						continue
					}
					h := math.Atan2(math.Sqrt(3)*(float64(g)-float64(bl)), 2*float64(r)-float64(g)-float64(bl))
					if lit == 0 {
						first = h
					}
					h = math.Remainder(h-first, 2*math.Pi) // about the first: a hue near cyan does not wrap
					lo, hi, lit = min(lo, h), max(hi, h), lit+1
				}
			}
			if lit < 100 {
				t.Fatalf("--colors %s: a quarter of the frame has %d lit pixels; the volume does not cover it", colors, lit)
			}
			worst = max(worst, hi-lo)
		}
		return worst
	}
	if spread := hues("demo"); spread > 0.05 {
		t.Errorf("in demo colours a quarter's hue spreads %.3f radians; want one colour a channel", spread)
	}
	if spread := hues("own"); spread < 0.5 {
		t.Errorf("in its own colours a quarter's hue spreads only %.3f radians: the test cannot tell", spread)
	}
	if spread := hues("half"); spread < 0.05 {
		t.Errorf("in half of each a quarter's hue spreads only %.3f radians: as demo colours", spread)
	}
	out, err := exec.Command(bin, "--colors", "rainbow").CombinedOutput()
	if !strings.Contains(string(out), `--colors "rainbow": want own, demo or half`) {
		t.Errorf("--colors rainbow: %v, %s", err, out)
	}
}

// eVolve's backgrounds (--background, as b switches them) lie under the
// volume blended whole, at the destination: on four DB sources every
// pixel over a background K is what the black one's (the volume's own
// premultiplied colour C) and the white one's (C plus its transparency)
// make of K, C + (white - C)·K, and where there is no volume it is K.
func TestBackgroundsLieUnderTheVolume(t *testing.T) {
	bin := volumeBinary(t)
	render := func(bg string) *image.NRGBA {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command(bin, "--config", filepath.Join("..", "configs", "db-volume-4.eqc"), "--camera-path", "orbit", "--frames", "1", "--background", bg, "--out", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("--background %s: %v\n%s", bg, err, b)
		}
		img, err := imagecmp.Load(filepath.Join(out, "dest-000000.png"))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	black, white, channel := render("black"), render("white"), render("channel")
	k := channel.NRGBAAt(0, 0) // no volume in the corner: the background alone
	if w := white.NRGBAAt(0, 0); w.R != 255 || w.G != 255 || w.B != 255 || k == black.NRGBAAt(0, 0) {
		t.Fatalf("the corner: white %v, channel %v, black %v; want white, and a colour", w, k, black.NRGBAAt(0, 0))
	}
	b := black.Rect
	bad, volume := 0, 0
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c, w, got := black.NRGBAAt(x, y), white.NRGBAAt(x, y), channel.NRGBAAt(x, y)
			if w.R < 250 || w.G < 250 || w.B < 250 {
				volume++ // the volume hides some of the white
			}
			for i, pair := range [3][3]uint8{{c.R, w.R, k.R}, {c.G, w.G, k.G}, {c.B, w.B, k.B}} {
				want := float64(pair[0]) + (float64(pair[1])-float64(pair[0]))*float64(pair[2])/255
				if d := math.Abs(float64([3]uint8{got.R, got.G, got.B}[i]) - want); d > 3 {
					bad++
				}
			}
		}
	}
	if volume < b.Dx()*b.Dy()/20 {
		t.Fatalf("the volume covers %d of %d pixels: the test would prove little", volume, b.Dx()*b.Dy())
	}
	if bad > 0 {
		t.Errorf("%d pixel components over the channel's colour are not the volume blended over it", bad)
	}
	out, err := exec.Command(bin, "--background", "grey").CombinedOutput()
	if !strings.Contains(string(out), `--background "grey": want black, white or channel`) {
		t.Errorf("--background grey: %v, %s", err, out)
	}
}

// The buttons drag as eVolve's do: the left turns the volume, the middle
// zooms and the right pans (the right zoomed, and nothing panned). The
// panned view is drawn moved across: its frame data places the volume.
func TestButtonsDragAsEVolvesDo(t *testing.T) {
	for _, c := range []struct {
		button int
		what   string
		moved  func(before, after view) bool
	}{
		{goeq.ButtonLeft, "turns", func(b, a view) bool { return a.Yaw != b.Yaw && a.Distance == b.Distance && a.Pan == b.Pan }},
		{goeq.ButtonMiddle, "zooms", func(b, a view) bool { return a.Distance < b.Distance && a.Yaw == b.Yaw && a.Pan == b.Pan }},
		{goeq.ButtonRight, "pans", func(b, a view) bool { return a.Pan != b.Pan && a.Distance == b.Distance && a.Yaw == b.Yaw }},
	} {
		ctl := &controls{at: home}
		ctl.handle(goeq.Event{Kind: goeq.ButtonPress, Button: c.button, X: 0.5, Y: 0.5, Channel: "dest"})
		if !ctl.handle(goeq.Event{Kind: goeq.PointerMotion, X: 0.6, Y: 0.6, Channel: "dest"}) || !c.moved(home, ctl.at) {
			t.Errorf("button %d: view %+v from %+v; want a drag that %s alone", c.button, ctl.at, home, c.what)
		}
	}
}

// A left drag let go while still moving spins on, as eVolve's does after
// a flick; a middle one does not (eVolve's only turns on), and a click or
// space stops the spin.
func TestAFlickSpinsAsEVolvesDoes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	flickWith := func(c *controls, button int) bool {
		c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: button, X: 0.5, Y: 0.5, Channel: "dest", Time: t0})
		c.handle(goeq.Event{Kind: goeq.PointerMotion, X: 0.55, Y: 0.5, Channel: "dest", Time: t0.Add(20 * time.Millisecond)})
		return c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: button, X: 0.55, Y: 0.5, Channel: "dest", Time: t0.Add(25 * time.Millisecond)})
	}
	c := &controls{at: home}
	if !flickWith(c, goeq.ButtonLeft) || !c.spinning {
		t.Fatal("a left flick does not spin on")
	}
	now := time.Now()
	c.clock.Start(now)
	before := c.at
	c.spinTo(now.Add(100 * time.Millisecond))
	// 0.05 views in 20 ms: 2.5 views a second, half a turn a view
	if got, want := c.at.Yaw-before.Yaw, math.Pi*2.5*0.1; math.Abs(got-want) > 1e-9 || c.at.Pitch != before.Pitch {
		t.Errorf("0.1 s on, the yaw moved %.4f and the pitch %.4f; want %.4f and none", got, c.at.Pitch-before.Pitch, want)
	}
	c.handle(goeq.Event{Kind: goeq.ButtonPress, Button: goeq.ButtonLeft, X: 0.55, Y: 0.5, Channel: "dest", Time: t0.Add(time.Second)})
	if c.spinning {
		t.Error("a press did not stop the spin")
	}
	c.handle(goeq.Event{Kind: goeq.ButtonRelease, Button: goeq.ButtonLeft, X: 0.55, Y: 0.5, Channel: "dest", Time: t0.Add(time.Second + 50*time.Millisecond)})
	if c.spinning {
		t.Error("a click spins on")
	}
	flickWith(c, goeq.ButtonLeft)
	if c.handle(goeq.Event{Kind: goeq.KeyPress, Key: ' '}); c.spinning {
		t.Error("space did not stop the spin")
	}
	if m := (&controls{at: home}); flickWith(m, goeq.ButtonMiddle) || m.spinning {
		t.Error("a middle flick goes on")
	}
}

// Under a DISPLAY that does not open the volume renders offscreen and,
// as no window can take a key, orbits for 100 frames and ends.
func TestADisplayThatDoesNotOpenRunsAsHeadless(t *testing.T) {
	bin := volumeBinary(t)
	text, err := os.ReadFile(filepath.Join("..", "configs", "one-window.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(t.TempDir(), "small.eqc")
	if err := os.WriteFile(small, []byte(strings.Replace(string(text), "viewport [ 0 0 640 360 ]", "viewport [ 0 0 96 54 ]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config", small)
	cmd.Env = append(os.Environ(), "DISPLAY=:1023", "GOEQ_WINSYS=auto")
	out, err := cmd.CombinedOutput()
	for _, want := range []string{"rendering 100 frames offscreen, as headless", "100 frames in"} {
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%v, want %q:\n%s", err, want, out)
		}
	}
}

// Ctrl-C (SIGINT), or SIGHUP as the terminal closes, stops a run as q
// does: the frames in flight are finished and written, the summary counts
// every image, and the exit status is 128 + the signal. The volume ended
// at once before, its frames in flight lost and no summary printed.
func TestASignalStopsTheRunAsQDoes(t *testing.T) {
	bin := volumeBinary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			out := t.TempDir()
			var log bytes.Buffer
			cmd := exec.Command(bin, "--config", filepath.Join("..", "configs", "2d-lb-4.eqc"), "--frames", "100000", "--out", out)
			cmd.Env = append(os.Environ(), "DISPLAY=")
			cmd.Stdout, cmd.Stderr = &log, &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
				if images, _ := filepath.Glob(filepath.Join(out, "*.png")); len(images) >= 3 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no 3 images in a minute")
				}
			}
			cmd.Process.Signal(c.sig)
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("still running 30 s after %v", c.sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Errorf("ended with %v after %v, want exit status %d", err, c.sig, c.code)
			}
			m := regexp.MustCompile(`(\d+) frames in .*, \d+ degraded, (\d+) images written`).FindStringSubmatch(log.String())
			if m == nil {
				t.Fatalf("no summary after %v:\n%s", c.sig, log.String())
			}
			frames, _ := strconv.Atoi(m[1])
			written, _ := strconv.Atoi(m[2])
			images, _ := filepath.Glob(filepath.Join(out, "*.png"))
			if frames < 3 || written != frames || len(images) != frames {
				t.Errorf("%d frames done, %d images written, %d in the folder, after %v", frames, written, len(images), c.sig)
			}
			if !strings.Contains(log.String(), "stopped by "+c.sig.String()) {
				t.Errorf("no word of the signal:\n%s", log.String())
			}
		})
	}
}

// Gradients of more neighbours (--gradients, eVolve's n) smooth the
// shading of noisy data: on a ball of noise, a row's pixels jump less from
// one to the next with 18 neighbours than with 6, and less with 26 still;
// a smooth ball shades alike with each.
func TestWiderGradientsSmoothNoisyShading(t *testing.T) {
	bin := volumeBinary(t)
	rng := rand.New(rand.NewPCG(4, 5))
	ball := func(noise int) string {
		return writeBall(t, 48, func() float64 { return float64(rng.IntN(2*noise+1) - noise) })
	}
	// roughness is the mean step between a row's neighbouring lit pixels
	roughness := func(volume string, neighbours int) float64 {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(bin, "--config", filepath.Join("..", "configs", "one-window.eqc"), "--model", volume, "--frames", "1", "--out", out,
			"--gradients", fmt.Sprint(neighbours))
		cmd.Env = append(os.Environ(), "GOEQ_WINSYS=egl")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		img, err := imagecmp.Load(filepath.Join(out, "dest-000000.png"))
		if err != nil {
			t.Fatal(err)
		}
		sum, lit := 0, 0
		for y := 0; y < img.Rect.Dy(); y++ {
			for x := 1; x < img.Rect.Dx(); x++ {
				a, b := int(img.NRGBAAt(x-1, y).G), int(img.NRGBAAt(x, y).G)
				if a > 30 && b > 30 {
					sum += max(a-b, b-a)
					lit++
				}
			}
		}
		if lit < img.Rect.Dx()*img.Rect.Dy()/20 {
			t.Fatalf("%d neighbours: the ball lights %d pixels: the test would prove little", neighbours, lit)
		}
		return float64(sum) / float64(lit)
	}
	noisy := ball(40)
	six, eighteen, twentySix := roughness(noisy, 6), roughness(noisy, 18), roughness(noisy, 26)
	if !(eighteen < 0.97*six && twentySix < 0.98*eighteen) {
		t.Errorf("a noisy ball's roughness with 6, 18 and 26 neighbours: %.2f, %.2f, %.2f; want each wider one smoother", six, eighteen, twentySix)
	}
	smooth := ball(0)
	if a, b := roughness(smooth, 6), roughness(smooth, 26); math.Abs(a-b) > 0.25*a {
		t.Errorf("a smooth ball's roughness with 6 and 26 neighbours: %.2f and %.2f; want them alike", a, b)
	}
	if out, err := exec.Command(bin, "--gradients", "8").CombinedOutput(); !strings.Contains(string(out), "--gradients 8: want 6, 18 or 26") {
		t.Errorf("--gradients 8: %v, %s", err, out)
	}
}

// A volume whose values change smoothly shows smoothly: a ball whose
// value falls linearly from its centre, 8 bits a voxel, lit as eVolve
// lights it, has no bands where a row of pixels jumps. Held as 8-bit
// texels, Mesa's llvmpipe filtered them to 8 bits, and the gradients the
// lighting takes from neighbouring samples came in steps: a row jumped by
// 16 of 255 where its neighbours moved by 2, a seam down the middle of
// the ball (a second difference of 3 at most is what it shows now).
func TestASmoothVolumeShowsNoBands(t *testing.T) {
	bin := volumeBinary(t)
	volume := writeBall(t, 64, func() float64 { return 0 })
	dir := t.TempDir()
	// with a window too (make test's display), one frame, then the end
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config", filepath.Join("..", "configs", "one-window.eqc"), "--model", volume, "--frames", "1", "--out", dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	img, err := imagecmp.Load(filepath.Join(dir, "dest-000000.png"))
	if err != nil {
		t.Fatal(err)
	}
	worst, at, lit := 0, image.Point{}, 0
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 1; x < img.Rect.Dx()-1; x++ {
			g := func(x int) int { return int(img.NRGBAAt(x, y).G) }
			if g(x) > 30 {
				lit++
			}
			if d := g(x+1) - 2*g(x) + g(x-1); max(d, -d) > worst {
				worst, at = max(d, -d), image.Pt(x, y)
			}
		}
	}
	if lit < img.Rect.Dx()*img.Rect.Dy()/20 {
		t.Fatalf("the ball lights %d pixels: the test would prove little", lit)
	}
	if worst > 6 {
		t.Errorf("a row of the ball jumps at %v: a second difference of %d of 255 (a band)", at, worst)
	}
}

// writeBall writes an n³ volume of bytes, named with its size and type,
// whose value falls linearly from 255 at its centre to 0 at its faces'
// middles, plus noise() at each voxel, and returns its path.
func writeBall(t *testing.T, n int, noise func() float64) string {
	t.Helper()
	b := make([]byte, n*n*n)
	at := func(i int) float64 { return 2*float64(i)/float64(n-1) - 1 }
	for z := range n {
		for y := range n {
			for x := range n {
				r := math.Sqrt(at(x)*at(x) + at(y)*at(y) + at(z)*at(z))
				b[(z*n+y)*n+x] = byte(min(max(255*max(1-r, 0)+noise(), 0), 255))
			}
		}
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("ball_%dx%dx%d_uint8.raw", n, n, n))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
