package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/imagecmp"
	"github.com/goeq/goeq/internal/logging"
	"github.com/goeq/goeq/internal/server"
)

// verifyCmd runs a config decomposed and again as its reference (every
// destination renders its whole frame itself, which shares none of the
// decomposition) and compares the two runs' pictures frame by frame: how a
// user learns that a config of theirs composes the picture it should (a
// direct send whose frames deliver part of a stripe, a range drawn by no
// source) before it goes on the wall.
func verifyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	frames := fs.Int("frames", 8, "frames to render in each run")
	layout := fs.String("layout", "", "verify this layout (its name, or its index in the config) rather than the one the config starts in")
	renderer := fs.String("renderer", "mesh", "mesh, volume or synthetic")
	compositing := fs.String("compositing", "", "how the decomposed run's sort-last compounds composite (as run's --compositing)")
	keep := fs.String("keep", "", "keep the pictures in this folder (DIR/decomposed and DIR/reference, emptied first); by default they go with the run")
	clientBin := fs.String("client", "", "eqclient binary (default: beside eqserver, then PATH)")
	givenDecomposed := fs.String("decomposed", "", "with --reference: compare the pictures two runs of an application wrote (its --out, and its --out with --reference) rather than run the config")
	givenReference := fs.String("reference", "", "the reference run's pictures, with --decomposed")
	file, ok := oneFile("verify", fs, args, stderr)
	if !ok {
		return 2
	}
	if file == "-" {
		fmt.Fprintln(stderr, "eqserver verify: the runs it starts read CONFIG: give a file, not - (standard input)")
		return 2
	}
	if *frames < 1 {
		fmt.Fprintf(stderr, "eqserver verify: --frames %d: want 1 or more\n", *frames)
		return 2
	}
	m := load(file, stderr)
	if m == nil {
		return 1
	}
	cfg := m.Configs[0]
	if (*givenDecomposed == "") != (*givenReference == "") {
		fmt.Fprintln(stderr, "eqserver verify: --decomposed and --reference go together")
		return 2
	}
	if *layout != "" {
		if err := cfg.ActivateLayout(*layout); err != nil {
			fmt.Fprintf(stderr, "eqserver verify: --layout %s: %v\n", *layout, err)
			return 2
		}
	}
	if *givenDecomposed != "" {
		return comparePictures(*givenDecomposed, *givenReference, resamplingOf(cfg), blendHint(cfg, ""), stdout, stderr)
	}
	dir := *keep
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "eqserver-verify-"); err != nil {
			fmt.Fprintf(stderr, "eqserver verify: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
	}
	// both runs offscreen at the config's sizes (a fullscreen window
	// would take its screen's), turning the model enough that each frame
	// differs from the next
	common := []string{"--local", "--json", "--frames", fmt.Sprint(*frames), "--dump-every", "1", "--drawable", "FBO",
		"--renderer", *renderer, "--triangles", "100000", "--spin", "0.2", "--log-level", "warn"}
	if *layout != "" {
		common = append(common, "--layout", *layout)
	}
	if *clientBin != "" {
		common = append(common, "--client", *clientBin)
	}
	decomposed, reference := filepath.Join(dir, "decomposed"), filepath.Join(dir, "reference")
	var notes []string
	for _, r := range []struct {
		name, out string
		extra     []string
	}{
		{"decomposed", decomposed, nonEmpty("--compositing", *compositing)},
		{"reference", reference, []string{"--reference"}},
	} {
		if err := os.RemoveAll(r.out); err != nil {
			fmt.Fprintf(stderr, "eqserver verify: %v\n", err)
			return 1
		}
		argv := slices.Concat(common, []string{"--out", r.out}, r.extra, []string{file})
		// the run's log and its clients' output, said only when it fails
		var log logging.Buffer
		var summary bytes.Buffer
		if code := runCmd(argv, &summary, &log); code != 0 {
			fmt.Fprintf(stderr, "eqserver verify: the %s run failed (exit %d):\n%s", r.name, code, log.String())
			return 1
		}
		if without := wentWithout(r.name, summary.Bytes()); len(without) > 0 {
			notes = append(notes, without...)
			notes = append(notes, fmt.Sprintf("the %s run's warnings:\n%s", r.name, strings.TrimRight(log.String(), "\n")))
		}
	}
	defer func() {
		for _, n := range notes {
			fmt.Fprintln(stdout, n)
		}
	}()
	if pictures(decomposed)+pictures(reference) == 0 {
		fmt.Fprintf(stderr, "eqserver verify: neither run wrote a picture in %d frames: no destination the config shows draws (its warnings above say why)\n", *frames)
		return 1
	}
	return comparePictures(decomposed, reference, resamplingOf(cfg), blendHint(cfg, *renderer), stdout, stderr)
}

// resamplingOf says, for a picture's file name, why its destination
// resamples (compound.Config.ResamplingOf): an application's run that
// switched layouts has pictures of layouts that resample and of layouts
// that do not. A name that is no destination channel's label (a
// dump_image prefix) takes what the layouts shown at the start do.
func resamplingOf(cfg *compound.Config) func(name string) string {
	byLabel := map[string]*compound.Channel{}
	for _, ch := range cfg.Channels {
		byLabel[ch.Label] = ch
	}
	shown := cfg.Resampling()
	of := map[*compound.Channel]string{}
	return func(name string) string {
		// <label>-<frame>.png (channel.LabelPath)
		label := strings.TrimSuffix(name, ".png")
		if i := strings.LastIndex(label, "-"); i >= 0 {
			label = label[:i]
		}
		if ch := byLabel[label]; ch != nil {
			why, ok := of[ch]
			if !ok {
				why = cfg.ResamplingOf(ch)
				of[ch] = why
			}
			return why
		}
		return shown
	}
}

// pictures counts the PNG files in dir.
func pictures(dir string) int {
	found, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	return len(found)
}

// blendHint explains a difference that is the config's own, as Equalizer
// would draw it too: depth ranges assembled by colour alone, under a
// renderer that draws opaque geometry (every renderer but volume; "" when
// the pictures came from an application's renderer). "" when it does not
// apply.
func blendHint(cfg *compound.Config, renderer string) string {
	frame := cfg.RangesWithoutDepth()
	if frame == nil || renderer == "volume" {
		return ""
	}
	who := fmt.Sprintf("the %s renderer draws opaque geometry", renderer)
	if renderer == "" {
		who = "if the renderer draws opaque geometry"
	}
	return fmt.Sprintf("note: %s: input frame %q brings depth ranges without DEPTH, so its compound blends them in range order by colour alone, "+
		"which suits see-through slabs (a volume renderer: --renderer volume); %s, whose ranges then cover each other in that order rather than by depth "+
		"(as under Equalizer): give the frames DEPTH (buffer [ COLOR DEPTH ]) to merge them by depth", frame.Pos, frame.Name, who)
}

// wentWithout says what a run's summary (run --json) went without: pipes
// that could not be set up and nodes lost, which the config's robustness
// let it go on without, and frames shown without a lost node's part.
// Its pictures are then of the config without them, whether or not they
// match.
func wentWithout(run string, summary []byte) []string {
	var sum server.Summary
	if err := json.Unmarshal(summary, &sum); err != nil {
		return []string{fmt.Sprintf("note: the %s run's summary could not be read (%v)", run, err)}
	}
	var notes []string
	if len(sum.LostPipes) > 0 {
		notes = append(notes, fmt.Sprintf("note: the %s run went without %s, which could not be set up: its pictures are of the config without them",
			run, strings.Join(sum.LostPipes, ", ")))
	}
	if len(sum.LostNodes) > 0 {
		notes = append(notes, fmt.Sprintf("note: the %s run lost %s and went on without them", run, strings.Join(sum.LostNodes, ", ")))
	}
	if sum.Degraded > 0 {
		notes = append(notes, fmt.Sprintf("note: the %s run showed %d frames degraded, without part of their picture (%v)", run, sum.Degraded, sum.DegradedFrames))
	}
	return notes
}

// nonEmpty is a flag and its value, or nothing when the value is "".
func nonEmpty(flag, value string) []string {
	if value == "" {
		return nil
	}
	return []string{flag, value}
}

// comparePictures compares every picture of the decomposed run with the
// reference's of the same name and says which differ and where, followed
// by hint when it is not ""; 0 when all match.
func comparePictures(decomposed, reference string, resamplingOf func(name string) string, hint string, stdout, stderr io.Writer) int {
	got, err := filepath.Glob(filepath.Join(decomposed, "*.png"))
	if err != nil {
		fmt.Fprintf(stderr, "eqserver verify: %v\n", err)
		return 1
	}
	want, _ := filepath.Glob(filepath.Join(reference, "*.png"))
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	for i := range want {
		want[i] = filepath.Base(want[i])
	}
	if len(want) == 0 {
		fmt.Fprintf(stderr, "eqserver verify: no pictures (*.png) in %s\n", reference)
		return 1
	}
	differ, total := 0, len(want)
	resamples := map[string]bool{} // why the pictures compared resample, or ""
	for _, name := range want {
		if !slices.Contains(got, name) {
			fmt.Fprintf(stdout, "%s: missing: the decomposed run did not write it\n", name)
			differ++
		}
	}
	// each pair decoded and compared on a core of its own (a wall's
	// pictures of 7 million pixels take a fifth of a second each, and 60
	// MB: 8 at once at most), and said in the order of their names
	diffs, errs := make([]imagecmp.Diff, len(got)), make([]error, len(got))
	var wg sync.WaitGroup
	cores := make(chan struct{}, min(runtime.GOMAXPROCS(0), 8))
	for i, name := range got {
		if !slices.Contains(want, name) {
			continue
		}
		wg.Go(func() {
			cores <- struct{}{}
			defer func() { <-cores }()
			diffs[i], errs[i] = imagecmp.CompareFiles(filepath.Join(decomposed, name), filepath.Join(reference, name), imagecmp.Tolerance)
		})
	}
	wg.Wait()
	for i, name := range got {
		if !slices.Contains(want, name) {
			fmt.Fprintf(stdout, "%s: not in the reference\n", name)
			differ++
			total++
			continue
		}
		resampling := resamplingOf(name)
		resamples[resampling] = true
		switch d := diffs[i]; {
		case errs[i] != nil:
			fmt.Fprintf(stdout, "%s: %v\n", name, errs[i])
			differ++
		case !d.Matches(resampling):
			fmt.Fprintf(stdout, "%s: differs: %.2f%% of the pixels, in x %d-%d, y %d-%d from the top left; worst %d, PSNR %.1f dB\n",
				name, 100*d.BadFraction(), d.Box.Min.X, d.Box.Max.X-1, d.Box.Min.Y, d.Box.Max.Y-1, d.Worst, d.PSNR)
			differ++
		}
	}
	if len(resamples) == 0 {
		resamples[resamplingOf("")] = true
	}
	var allowances []string // the exact one first
	for _, why := range slices.Sorted(maps.Keys(resamples)) {
		allowances = append(allowances, imagecmp.Allowance(why))
	}
	allowance := strings.Join(allowances, "; ")
	if differ > 0 {
		fmt.Fprintf(stdout, "%d of %d pictures differ from the reference (allowed: %s)\n", differ, total, allowance)
		if hint != "" {
			fmt.Fprintln(stdout, hint)
		}
		return 1
	}
	fmt.Fprintf(stdout, "all %d pictures match the reference (%s)\n", total, allowance)
	return 0
}
