package main

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/gotool"
)

// eqserver verify runs a config decomposed and as its reference and
// compares every picture. A direct send whose source sends a compositor a
// quarter of the stripe it owes (a valid config: check passes it) fails,
// naming the pictures and where they differ; the config as written
// passes.
func TestVerifyFindsWhatADecompositionLeavesOut(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "eqclient")
	if err := gotool.Build(client, "github.com/goeq/goeq/cmd/eqclient"); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join("..", "..", "examples", "configs", "db-direct-send.eqc")
	code, stdout, stderr := runArgs("verify", "--frames", "2", "--client", client, good)
	if code != 0 || !strings.Contains(stdout, "all 2 pictures match the reference") {
		t.Fatalf("%s: exit %d, want 0 and every picture matched:\n%s\n%s", good, code, stdout, stderr)
	}

	text, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// src2's part of stripe 3 (y 0.5-0.75), where its range of the model
	// shows, goes to src3 for its left quarter only
	const sent = "name \"tile3.src2\"\n                    viewport [ 0 0.5 1 0.25 ]"
	if strings.Count(string(text), sent) != 1 {
		t.Fatalf("%s does not send tile3.src2 as the test expects", good)
	}
	bad := filepath.Join(dir, "quarter.eqc")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(text), sent, "name \"tile3.src2\"\n                    viewport [ 0 0.5 0.25 0.25 ]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// check runs it, and warns of the part no frame carries
	if code, _, stderr := runArgs("check", bad); code != 0 || !strings.Contains(stderr, "carry 81.2% of what it draws") {
		t.Fatalf("check: exit %d, want 0 and a warning of the part left out\n%s", code, stderr)
	}
	keep := filepath.Join(dir, "pictures")
	code, stdout, stderr = runArgs("verify", "--frames", "2", "--client", client, "--keep", keep, bad)
	for _, want := range []string{
		"dest-000000.png: differs: ",
		"dest-000001.png: differs: ",
		"in x 160-", // the stripe past its first quarter (640 pixels wide)
		"y 90-179 from the top left",
		"2 of 2 pictures differ from the reference",
	} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 1 and %q:\n%s\n%s", code, want, stdout, stderr)
		}
	}
	for _, run := range []string{"decomposed", "reference"} {
		if _, err := os.Stat(filepath.Join(keep, run, "dest-000001.png")); err != nil {
			t.Errorf("--keep: %v", err)
		}
	}

	// the pictures of runs made elsewhere (an application's --out, and
	// its --out with --reference)
	decomposed, reference := filepath.Join(keep, "decomposed"), filepath.Join(keep, "reference")
	if code, again, stderr := runArgs("verify", "--decomposed", decomposed, "--reference", reference, bad); code != 1 || again != stdout {
		t.Errorf("the kept pictures compared again: exit %d, want 1 and what the run said:\n%s\n%s", code, again, stderr)
	}
	if code, out, stderr := runArgs("verify", "--decomposed", reference, "--reference", reference, bad); code != 0 || !strings.Contains(out, "all 2 pictures match") {
		t.Errorf("the reference against itself: exit %d, want 0:\n%s\n%s", code, out, stderr)
	}
	if code, _, stderr := runArgs("verify", "--decomposed", decomposed, bad); code != 2 || !strings.Contains(stderr, "go together") {
		t.Errorf("--decomposed alone: exit %d, want 2 and why:\n%s", code, stderr)
	}
	if code, _, stderr := runArgs("verify", "--frames", "0", bad); code != 2 || !strings.Contains(stderr, "--frames 0: want 1 or more") {
		t.Errorf("--frames 0: exit %d, want 2 and why:\n%s", code, stderr)
	}
	if code, _, stderr := runArgs("verify", "--layout", "wall", "--client", client, bad); code != 2 || !strings.Contains(stderr, `no layout "wall"`) {
		t.Errorf("a layout the config lacks: exit %d, want 2 and why:\n%s", code, stderr)
	}

	// a difference that is the config's own: goeq's volume example blends
	// its DB slabs by colour alone, which the opaque mesh does not suit;
	// verify says so and how to merge by depth instead
	volume := filepath.Join("..", "..", "examples", "configs", "db-volume-4.eqc")
	code, stdout, stderr = runArgs("verify", "--frames", "1", "--client", client, volume)
	for _, want := range []string{"1 of 1 pictures differ", `db-volume-4.eqc:159:9: input frame "f1" brings depth ranges without DEPTH`,
		"the mesh renderer draws opaque geometry", "buffer [ COLOR DEPTH ]"} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("%s under the mesh renderer: exit %d, want 1 and %q:\n%s\n%s", volume, code, want, stdout, stderr)
		}
	}
	// on pictures from elsewhere the renderer is not known
	if code, out, _ := runArgs("verify", "--decomposed", decomposed, "--reference", reference, volume); code != 1 || !strings.Contains(out, "if the renderer draws opaque geometry") {
		t.Errorf("pictures that differ, compared under %s: exit %d, want 1 and the note:\n%s", volume, code, out)
	}
	if code, out, _ := runArgs("verify", "--decomposed", decomposed, "--reference", reference, bad); code != 1 || strings.Contains(out, "note:") {
		t.Errorf("pictures that differ, compared under a config that merges by depth: exit %d, want 1 and no note:\n%s", code, out)
	}

	// a config that shows nothing: an eye decomposition in a view that
	// is mono (Equalizer 1.1 and later keep views mono until told)
	dark := filepath.Join(dir, "dark.eqc")
	if err := os.WriteFile(dark, []byte(`#Equalizer 1.2 ascii
server { config {
    appNode { pipe { window { viewport [ 0 0 160 120 ] channel { name "dest" } channel { name "right" } } } }
    observer {} layout { view { observer 0 } } canvas { layout 0 wall {} segment { channel "dest" } }
    compound { channel ( segment 0 view 0 ) eye [ LEFT RIGHT ]
        compound { eye [ LEFT ] }
        compound { channel "right" eye [ RIGHT ] outputframe { name "r" } }
        inputframe { name "r" } } } }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runArgs("verify", "--frames", "1", "--client", client, dark); code != 1 ||
		!strings.Contains(stderr, "is MONO") || !strings.Contains(stderr, "neither run wrote a picture in 1 frames") {
		t.Errorf("%s: exit %d, want 1, the warning and that nothing was drawn:\n%s", dark, code, stderr)
	}

	// the runs' clients log into the run's log, said only when a run
	// fails: a pipe naming a GPU this machine lacks warns in each run
	// (a process of its own: launched clients write to its output)
	server := filepath.Join(dir, "eqserver")
	if err := gotool.Build(server, "github.com/goeq/goeq/cmd/eqserver"); err != nil {
		t.Fatal(err)
	}
	device := filepath.Join("..", "..", "..", "shared", "eqc-corpus", "2-pipe.DB.ds.eqc")
	out, err := exec.Command(server, "verify", "--frames", "1", "--client", client, device).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all 1 pictures match") || strings.Contains(string(out), "eqclient") {
		t.Errorf("%s: %v, want a match and no client's log:\n%s", device, err, out)
	}

	// a run that went on without a pipe (a source's window past the GL's
	// framebuffer limit) matches with the others' parts, and verify says
	// what it went without and why: the pictures are not of the config as
	// written. Before, it said only that all pictures matched.
	lb, err := os.ReadFile(filepath.Join("..", "..", "examples", "configs", "2d-lb-4.eqc"))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(lb), `name "w2"`)
	wide := filepath.Join(dir, "w2-too-wide.eqc")
	if err := os.WriteFile(wide, []byte(string(lb[:at])+strings.Replace(string(lb[at:]), "viewport [ 0 0 640 360 ]", "viewport [ 0 0 16385 360 ]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runArgs("verify", "--frames", "1", "--client", client, wide)
	for _, want := range []string{"all 1 pictures match", `note: the decomposed run went without render1: pipe "gpu2", which could not be set up`,
		"larger than this GL's framebuffer limit of"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d, want 0 and %q:\n%s\n%s", wide, code, want, stdout, stderr)
		}
	}
}

// Two channels of one window, each a step of a chain of depth merges
// through a channel on another pipe (c2 draws, d merges c2's frame, c1
// merges d's): c1's merge waits for d, which waits for c2's readback
// behind c1's merge on the window. The executor ran the window's tasks in
// order and waited out the frame timeout, as Equalizer's pipe would; c2
// now runs ahead, as it touches none of c1's pixels, and the pictures
// match the reference.
func TestChannelsOfOneWindowInAChainThroughAnotherPipeRun(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "eqclient")
	if err := gotool.Build(client, "github.com/goeq/goeq/cmd/eqclient"); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "chain.eqc")
	if err := os.WriteFile(config, []byte(`server { config {
    appNode
    {
        pipe
        {
            window { viewport [ 0 0 200 150 ] channel { name "dest" } }
            window
            {
                viewport [ 0 0 400 150 ]
                channel { name "c1" viewport [ 0 0 .5 1 ] }
                channel { name "c2" viewport [ .5 0 .5 1 ] }
            }
        }
        pipe { window { viewport [ 0 0 200 150 ] channel { name "d" } } }
    }
    compound
    {
        channel "dest"
        buffer [ COLOR DEPTH ]
        wall { bottom_left [ -.5 -.5 -1 ] bottom_right [ .5 -.5 -1 ] top_left [ -.5 .5 -1 ] }
        compound { channel "c1" range [ 0 .34 ] inputframe { name "x" } outputframe { name "a" } }
        compound { channel "d" range [ .34 .67 ] inputframe { name "y" } outputframe { name "x" } }
        compound { channel "c2" range [ .67 1 ] outputframe { name "y" } }
        inputframe { name "a" }
    }
} }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs("verify", "--frames", "2", "--client", client, config)
	if code != 0 || !strings.Contains(stdout, "all 2 pictures match the reference") {
		t.Fatalf("exit %d, want 0 and every picture matched:\n%s\n%s", code, stdout, stderr)
	}
}

// Each picture is judged by its own destination's layout: an
// application's run that switched layouts wrote pictures of a layout that
// resamples (subpixel, held to a PSNR) and of one that does not (held to
// a few levels). Before, every picture was held to what the layout shown
// at the start allowed, and 4-window.all's Subpixel layout failed an
// application's run that started in its Wall layout.
func TestVerifyJudgesEachPictureByItsLayout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "two.eqc")
	text := `#Equalizer 1.2 ascii
config
{
    appNode { pipe { window { viewport [ 0 0 64 48 ] channel { name "dest" } } window { viewport [ 0 0 64 48 ] attributes { hint_drawable FBO } channel { name "aux" } } } }
    observer {}
    layout { name "plain" view { observer 0 } }
    layout { name "fine" view { observer 0 } }
    canvas { layout "plain" layout "fine" wall {} segment { channel "dest" } }
    compound { channel ( segment 0 layout "plain" view 0 ) }
    compound
    {
        channel ( segment 0 layout "fine" view 0 )
        compound { subpixel [ 0 2 ] }
        compound { channel "aux" subpixel [ 1 2 ] outputframe { name "s" } }
        inputframe { name "s" }
    }
}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _, err := compound.Load(path, compound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{} // by layout
	for _, ch := range m.Configs[0].Channels {
		if ch.View != nil {
			labels[ch.View.Layout.Name] = ch.Label
		}
	}
	if labels["plain"] == "" || labels["fine"] == "" {
		t.Fatalf("destination channels by layout: %v", labels)
	}
	// the same small difference in both layouts' pictures: 5 levels of
	// red in every tenth pixel, over a PSNR of 40 dB
	want, got := image.NewNRGBA(image.Rect(0, 0, 64, 48)), image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for i := 0; i < len(want.Pix); i += 4 {
		copy(want.Pix[i:], []byte{byte(i / 7), byte(i / 13), 90, 255})
		copy(got.Pix[i:], want.Pix[i:i+4])
		if i/4%10 == 0 {
			got.Pix[i] += 5
		}
	}
	decomposed, reference := filepath.Join(dir, "decomposed"), filepath.Join(dir, "reference")
	for _, layout := range []string{"plain", "fine"} {
		for folder, img := range map[string]image.Image{decomposed: got, reference: want} {
			if err := os.MkdirAll(folder, 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(filepath.Join(folder, labels[layout]+"-000000.png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	code, stdout, stderr := runArgs("verify", "--decomposed", decomposed, "--reference", reference, path)
	for _, want := range []string{labels["plain"] + "-000000.png: differs", "1 of 2 pictures differ", "as the config resamples (subpixel)"} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 1 and %q:\n%s\n%s", code, want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, labels["fine"]) {
		t.Errorf("the subpixel layout's picture was held to the exact layout's allowance:\n%s", stdout)
	}
}
