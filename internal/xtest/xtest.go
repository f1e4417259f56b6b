// Package xtest gives tests a private X display and synthesized input.
package xtest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Display starts a private Xvfb for the test and returns its display.
// Tests that synthesize input with xdotool need one of their own: on a
// display shared with other packages' tests (make test runs them in
// parallel under one) their windows took the pointer, and a drag never
// reached its window. Xvfb picks a free display number itself and writes
// it to the pipe (-displayfd).
func Display(t *testing.T, width, height int) string {
	t.Helper()
	display, _ := start(t, "-screen", "0", fmt.Sprintf("%dx%dx24", width, height))
	return display
}

// Server is Display, with the X server's process, for a test that stops
// it (SIGSTOP: a hung server) or kills it.
func Server(t *testing.T, width, height int) (string, *os.Process) {
	t.Helper()
	return start(t, "-screen", "0", fmt.Sprintf("%dx%dx24", width, height))
}

// Screens starts a private Xvfb with a screen of each size, which writes
// each screen's framebuffer to a file in fbdir as it is drawn (Xvfb
// -fbdir; ScreenImage reads it): what the X server shows, read without GL.
// Its root window is white (-wr), so that black on screen is what a window
// drew, not the root showing through one that drew nothing.
func Screens(t *testing.T, fbdir string, sizes ...image.Point) string {
	t.Helper()
	args := []string{"-wr"}
	for i, s := range sizes {
		args = append(args, "-screen", strconv.Itoa(i), fmt.Sprintf("%dx%dx24", s.X, s.Y))
	}
	display, _ := start(t, append(args, "-fbdir", fbdir)...)
	return display
}

func start(t *testing.T, args ...string) (string, *os.Process) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := exec.Command("Xvfb", append(append([]string{"-displayfd", "3"}, args...), "-nolisten", "tcp", "-noreset")...)
	x.ExtraFiles = []*os.File{w}
	err = x.Start()
	w.Close()
	if err != nil {
		t.Fatalf("Xvfb does not start (make test installs it): %v", err)
	}
	t.Cleanup(func() { x.Process.Signal(syscall.SIGCONT); x.Process.Kill(); x.Wait() })
	number := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		number <- strings.TrimSpace(line)
	}()
	select {
	case n := <-number:
		if n == "" {
			t.Fatal("Xvfb ended without a display")
		}
		return ":" + n, x.Process
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not come up within 30 s")
	}
	return "", nil
}

// ScreenImage is what screen shows now, from the framebuffer file an
// Xvfb started by Screens keeps in fbdir (an XWD image: a big-endian
// header of 25 words, the window name, the colour map, then the pixels,
// here 32 bits each in the server's byte order).
func ScreenImage(fbdir string, screen int) (*image.NRGBA, error) {
	b, err := os.ReadFile(filepath.Join(fbdir, fmt.Sprintf("Xvfb_screen%d", screen)))
	if err != nil {
		return nil, err
	}
	if len(b) < 100 {
		return nil, fmt.Errorf("Xvfb_screen%d: %d bytes, no XWD header", screen, len(b))
	}
	field := func(i int) int { return int(binary.BigEndian.Uint32(b[4*i:])) }
	headerSize, byteOrder, bpp, stride := field(0), field(7), field(11), field(12)
	w, h, redMask, colors := field(4), field(5), field(14), field(19)
	if bpp != 32 || redMask != 0xff0000 {
		return nil, fmt.Errorf("Xvfb_screen%d: %d bits per pixel, red mask %#x: not 24-bit TrueColor", screen, bpp, redMask)
	}
	start := headerSize + 12*colors
	if start+stride*h > len(b) {
		return nil, fmt.Errorf("Xvfb_screen%d: %d bytes, short of a %dx%d image", screen, len(b), w, h)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		row := b[start+y*stride:]
		for x := 0; x < w; x++ {
			var v uint32
			if byteOrder == 0 { // LSBFirst
				v = binary.LittleEndian.Uint32(row[4*x:])
			} else {
				v = binary.BigEndian.Uint32(row[4*x:])
			}
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = byte(v>>16), byte(v>>8), byte(v), 255
		}
	}
	return img, nil
}

// Xdotool runs xdotool on the display and returns what it printed.
func Xdotool(t *testing.T, display string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatal("xdotool is needed (make test installs it)")
	}
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// FindWindow waits up to timeout for a window titled exactly title and
// returns its X id.
func FindWindow(t *testing.T, display, title string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		cmd := exec.Command("xdotool", "search", "--name", "^"+title+"$")
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, _ := cmd.Output()
		if id := strings.TrimSpace(strings.Split(string(out), "\n")[0]); id != "" {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window %q on %s within %v", title, display, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
