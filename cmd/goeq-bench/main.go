// Command goeq-bench measures goeq's pixel paths against baselines measured
// in the same run and writes docs/bench.json and the generated section of
// docs/benchmarks.md (make bench). Keys of docs/bench.json it does not
// write (make bench-peer's) are kept.
//
// Ratios are per core (GOMAXPROCS 1 while timing) so that they compare the
// code, not how many cores the machine has:
//   - zmerge_vs_memcpy: copying one frame's colour and depth with copy()
//     ÷ depth-merging that frame into another;
//   - assemble_vs_memcpy: copying a frame's colour ÷ assembling it from
//     four tiles;
//   - codec_*: the default lossless colour codec (s2) and the depth codec
//     (row delta + byte planes + s2) on a rendered 1920x1080 frame; ratio
//     against a reference RLE4B coder after Equalizer's published scheme.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/goeq/goeq/internal/benchdoc"
	"github.com/goeq/goeq/internal/compositor"
	"github.com/goeq/goeq/internal/compound"
	"github.com/goeq/goeq/internal/compressor"
	"github.com/goeq/goeq/internal/simulate"
	"github.com/goeq/goeq/internal/testframes"
)

type result struct {
	Machine string `json:"machine"`
	Frame   string `json:"frame"`
	Go      string `json:"go"`
	Date    string `json:"date"`

	MemcpyGBps     float64 `json:"memcpy_gbps"`
	ZMergeGBps     float64 `json:"zmerge_gbps"`
	ZMergeVsMemcpy float64 `json:"zmerge_vs_memcpy"`
	// the range of zmerge_vs_memcpy and assemble_vs_memcpy over the runs,
	// each run timing the baseline and the merge one after the other (the
	// value is the median run's)
	ZMergeVsMemcpyMin float64 `json:"zmerge_vs_memcpy_min"`
	ZMergeVsMemcpyMax float64 `json:"zmerge_vs_memcpy_max"`
	// ZMergeKernels is the vector instruction set the merge ran with
	// ("" for the portable loop: a build without GOEXPERIMENT=simd).
	ZMergeKernels       string  `json:"zmerge_kernels"`
	AssembleGBps        float64 `json:"assemble_gbps"`
	AssembleVsMemcpy    float64 `json:"assemble_vs_memcpy"`
	AssembleVsMemcpyMin float64 `json:"assemble_vs_memcpy_min"`
	AssembleVsMemcpyMax float64 `json:"assemble_vs_memcpy_max"`

	CodecColor         string  `json:"codec_color"`
	CodecEncodeGBps    float64 `json:"codec_encode_gbps"`
	CodecDecodeGBps    float64 `json:"codec_decode_gbps"`
	CodecRatio         float64 `json:"codec_ratio"`
	CodecRatioVsRLE    float64 `json:"codec_ratio_vs_rle"`
	TexturedRatioVsRLE float64 `json:"textured_codec_ratio_vs_rle"`

	CodecDepth      string  `json:"codec_depth"`
	DepthEncodeGBps float64 `json:"depth_codec_encode_gbps"`
	DepthDecodeGBps float64 `json:"depth_codec_decode_gbps"`
	DepthRatio      float64 `json:"depth_codec_ratio"`
	DepthRatioVsRLE float64 `json:"depth_codec_ratio_vs_rle"`
	// CodecKernels is the vector instruction set of the byte-plane and
	// run-length loops ("" for the portable ones).
	CodecKernels string `json:"codec_kernels"`

	Codecs []codecRow `json:"codecs"`

	// Transport: 8 MiB frames through goeq's frame transport (codec none)
	// over raw TCP on loopback, measured in the same run.
	TransportGBps  float64 `json:"transport_gbps"`
	RawTCPGBps     float64 `json:"raw_tcp_gbps"`
	TransportVsTCP float64 `json:"transport_vs_tcp"`
	// encrypted frame links (TLS 1.3) against raw TCP
	TransportEncryptedGBps  float64 `json:"transport_encrypted_gbps"`
	TransportEncryptedVsTCP float64 `json:"transport_encrypted_vs_tcp"`
	// the range of transport_vs_tcp over the runs (its value is their median)
	TransportVsTCPMin float64 `json:"transport_vs_tcp_min"`
	TransportVsTCPMax float64 `json:"transport_vs_tcp_max"`
	// Pipeline: eqserver run with the synthetic renderer, 4 sources,
	// latency 1, asynchronous readback: frame time over the slowest
	// source's mean draw time; the median run's figures, and the range.
	PipelineFrameMS     float64 `json:"pipeline_frame_ms,omitempty"`
	PipelineSlowestMS   float64 `json:"pipeline_slowest_draw_ms,omitempty"`
	PipelineOverhead    float64 `json:"pipeline_overhead,omitempty"`
	PipelineOverheadMin float64 `json:"pipeline_overhead_min,omitempty"`
	PipelineOverheadMax float64 `json:"pipeline_overhead_max,omitempty"`
	// PipelineCoresBusy is the cores the four-source runs kept busy; the
	// one-source figures are the same pipeline with a core per process.
	PipelineCoresBusy      float64 `json:"pipeline_cores_busy,omitempty"`
	PipelineOneFrameMS     float64 `json:"pipeline_one_source_frame_ms,omitempty"`
	PipelineOneDrawMS      float64 `json:"pipeline_one_source_draw_ms,omitempty"`
	PipelineOverheadOne    float64 `json:"pipeline_overhead_one_source,omitempty"`
	PipelineOverheadOneMin float64 `json:"pipeline_overhead_one_source_min,omitempty"`
	PipelineOverheadOneMax float64 `json:"pipeline_overhead_one_source_max,omitempty"`
	PipelineOneCoresBusy   float64 `json:"pipeline_one_source_cores_busy,omitempty"`
	// The four sources again, each in a render process of its own: a
	// process and a core each, where the first line's two pipes of a
	// process share it (each on a rasterizer of its own: llvmpipe runs one
	// per EGL display, winsys.Rasterizers).
	PipelineOwnFrameMS     float64 `json:"pipeline_own_rasterizer_frame_ms,omitempty"`
	PipelineOwnSlowestMS   float64 `json:"pipeline_own_rasterizer_slowest_draw_ms,omitempty"`
	PipelineOverheadOwn    float64 `json:"pipeline_overhead_own_rasterizer,omitempty"`
	PipelineOverheadOwnMin float64 `json:"pipeline_overhead_own_rasterizer_min,omitempty"`
	PipelineOverheadOwnMax float64 `json:"pipeline_overhead_own_rasterizer_max,omitempty"`
	PipelineOwnCoresBusy   float64 `json:"pipeline_own_rasterizer_cores_busy,omitempty"`
	// Runs is how many times the merge, the assembly, the transport and the
	// pipeline were measured.
	Runs int `json:"runs"`
	// Control plane: walls of 64 and 256 null render nodes (no GL), the
	// server's loop time and CPU time per frame, of the run with the
	// median loop time (ControlRuns runs each), and the least and most.
	ControlRuns             int     `json:"control_runs,omitempty"`
	ControlMSPerFrame64     float64 `json:"control_ms_per_frame_64,omitempty"`
	ControlMSPerFrame64Min  float64 `json:"control_ms_per_frame_64_min,omitempty"`
	ControlMSPerFrame64Max  float64 `json:"control_ms_per_frame_64_max,omitempty"`
	ControlMSPerFrame256    float64 `json:"control_ms_per_frame_256,omitempty"`
	ControlMSPerFrame256Min float64 `json:"control_ms_per_frame_256_min,omitempty"`
	ControlMSPerFrame256Max float64 `json:"control_ms_per_frame_256_max,omitempty"`
	ServerCPUMSPerFrame64   float64 `json:"server_cpu_ms_per_frame_64,omitempty"`
	ServerCPUMSPerFrame256  float64 `json:"server_cpu_ms_per_frame_256,omitempty"`
}

type codecRow struct {
	Frame      string  `json:"frame"`
	Codec      string  `json:"codec"`
	Ratio      float64 `json:"ratio"`
	EncodeGBps float64 `json:"encode_gbps"`
	DecodeGBps float64 `json:"decode_gbps"`
}

func gbps(bytes int, r testing.BenchmarkResult) float64 {
	return float64(bytes) * float64(r.N) / r.T.Seconds() / 1e9
}

// pairing is a ratio of two throughputs over several runs: the median
// run's figures and the least and most ratio.
type pairing struct {
	baselineGBps, measuredGBps float64
	ratio, least, most         float64
}

// pairedRatio times baseline and measured one after the other, runs times,
// and keeps the run with the median ratio. Memory bandwidth on a shared
// host moves by a third from one second to the next, so a ratio of two
// throughputs timed apart swings with it; timed back to back, both see the
// same machine.
func pairedRatio(runs, bytes int, baseline, measured func(*testing.B)) pairing {
	var all []pairing
	for i := 0; i < max(runs, 1); i++ {
		p := pairing{baselineGBps: gbps(bytes, testing.Benchmark(baseline)), measuredGBps: gbps(bytes, testing.Benchmark(measured))}
		p.ratio = p.measuredGBps / p.baselineGBps
		all = append(all, p)
	}
	mid, least, most := medianRun(all, func(p pairing) float64 { return p.ratio })
	mid.least, mid.most = least, most
	return mid
}

// medianRun sorts runs by key and returns the run with the median key,
// and the least and most key: how every figure measured several times is
// reported.
func medianRun[T any](runs []T, key func(T) float64) (mid T, least, most float64) {
	sort.Slice(runs, func(i, j int) bool { return key(runs[i]) < key(runs[j]) })
	return runs[len(runs)/2], key(runs[0]), key(runs[len(runs)-1])
}

func main() {
	jsonOut := flag.String("json", "docs/bench.json", "machine-readable results")
	mdOut := flag.String("md", "docs/benchmarks.md", "markdown file whose generated section is replaced")
	w := flag.Int("width", 1920, "frame width")
	h := flag.Int("height", 1080, "frame height")
	eqserver := flag.String("eqserver", "", "eqserver binary: also measure the end-to-end pipeline overhead")
	runs := flag.Int("runs", 5, "runs of the merge, assembly, transport and pipeline measures (the median counts)")
	onlyCompositing := flag.Bool("compositing-only", false, "measure only the sort-last compositing strategies (needs -eqserver)")
	onlyPipeline := flag.Bool("pipeline-only", false, "measure only the pipeline overhead (needs -eqserver) and print it, writing no file: for another machine, or fewer cores under taskset")
	flag.Parse()
	if *onlyPipeline {
		if *eqserver == "" {
			fail(fmt.Errorf("-pipeline-only needs -eqserver"))
		}
		var res result
		measurePipeline(*eqserver, *runs, &res)
		fmt.Printf("%s, %d cores free to this process, %d runs, %s\n", benchdoc.Machine(), runtime.NumCPU(), *runs, time.Now().UTC().Format("2006-01-02"))
		fmt.Printf("pipeline_overhead %.3f (%.3f-%.3f): frame %.1f ms, slowest draw %.1f ms, %.2f cores busy\n",
			res.PipelineOverhead, res.PipelineOverheadMin, res.PipelineOverheadMax, res.PipelineFrameMS, res.PipelineSlowestMS, res.PipelineCoresBusy)
		fmt.Printf("pipeline_overhead_one_source %.3f (%.3f-%.3f): frame %.1f ms, draw %.1f ms, %.2f cores busy\n",
			res.PipelineOverheadOne, res.PipelineOverheadOneMin, res.PipelineOverheadOneMax, res.PipelineOneFrameMS, res.PipelineOneDrawMS, res.PipelineOneCoresBusy)
		fmt.Printf("pipeline_overhead_own_rasterizer %.3f (%.3f-%.3f): frame %.1f ms, slowest draw %.1f ms, %.2f cores busy\n",
			res.PipelineOverheadOwn, res.PipelineOverheadOwnMin, res.PipelineOverheadOwnMax, res.PipelineOwnFrameMS, res.PipelineOwnSlowestMS, res.PipelineOwnCoresBusy)
		return
	}
	if *onlyCompositing {
		if *eqserver == "" {
			fail(fmt.Errorf("-compositing-only needs -eqserver"))
		}
		plain, _, _ := transportBench()
		benchCompositing(*eqserver, *jsonOut, *mdOut, plain)
		return
	}

	runtime.GOMAXPROCS(1)
	front := testframes.Render(*w, *h, false)
	textured := testframes.Render(*w, *h, true)
	res := result{Machine: benchdoc.Machine() + " (timed on 1)", Frame: fmt.Sprintf("%dx%d rendered spheres (internal/testframes)", *w, *h),
		Go: runtime.Version(), Date: time.Now().UTC().Format("2006-01-02"), Runs: *runs}

	// memcpy baseline: colour + depth of one frame. The source holds the
	// frame's bytes: memory never written reads as the kernel's one zero
	// page, which stays in cache and would make the baseline a copy from
	// cache (a baseline 2.4x too fast here: 34-40 GB/s against 13-16).
	frameBytes := len(front.Color) + 4*len(front.Depth)
	srcBuf, dstBuf := make([]byte, frameBytes), make([]byte, frameBytes)
	n := copy(srcBuf, front.Color)
	copy(srcBuf[n:], unsafe.Slice((*byte)(unsafe.Pointer(&front.Depth[0])), 4*len(front.Depth)))
	memcpyFrame := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(dstBuf, srcBuf)
		}
	}

	// z-merge: the scene merged with its mirror image, so that each side
	// wins on about half of the geometry, as two DB ranges do.
	src := &compositor.Image{W: *w, H: *h, Color: front.Color, Depth: front.Depth}
	back := &compositor.Image{W: *w, H: *h, Color: textured.Color, Depth: make([]float32, len(front.Depth))}
	for y := 0; y < *h; y++ {
		for x := 0; x < *w; x++ {
			back.Depth[y**w+x] = front.Depth[y**w+*w-1-x]
		}
	}
	work := compositor.NewImage(*w, *h, true)
	zmerge := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(work.Color, back.Color)
			copy(work.Depth, back.Depth)
			b.StartTimer()
			compositor.DepthMerge(work, src)
		}
	}
	zm := pairedRatio(*runs, frameBytes, memcpyFrame, zmerge)
	res.MemcpyGBps, res.ZMergeGBps = zm.baselineGBps, zm.measuredGBps
	res.ZMergeVsMemcpy, res.ZMergeVsMemcpyMin, res.ZMergeVsMemcpyMax = zm.ratio, zm.least, zm.most
	res.ZMergeKernels = compositor.VectorKernels()
	res.CodecKernels = compressor.VectorKernels()

	// 2D assembly of four tiles vs copying the colour once.
	colorBytes := len(front.Color)
	cdst := make([]byte, colorBytes)
	memcpyColor := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(cdst, front.Color)
		}
	}
	tiles := quarters(src)
	dst := compositor.NewImage(*w, *h, false)
	assemble := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, t := range tiles {
				compositor.Assemble(dst, t.img, t.x, t.y)
			}
		}
	}
	as := pairedRatio(*runs, colorBytes, memcpyColor, assemble)
	res.AssembleGBps = as.measuredGBps
	res.AssembleVsMemcpy, res.AssembleVsMemcpyMin, res.AssembleVsMemcpyMax = as.ratio, as.least, as.most

	// Codecs on one core (one chunk).
	depthBytes := front.DepthBytes()
	rleColor, rleTextured, rleDepth := rle4b(front.Color), rle4b(textured.Color), rle4b(depthBytes)
	for _, f := range []struct {
		name   string
		format compressor.Format
		pixels []byte
		rle    int
	}{
		{"color", compressor.RGBA8, front.Color, rleColor},
		{"color-textured", compressor.RGBA8, textured.Color, rleTextured},
		{"depth", compressor.DepthF32, depthBytes, rleDepth},
	} {
		for _, c := range compressor.Candidates(f.format) {
			row := measureCodec(c, f.format, *w, *h, f.pixels)
			row.Frame = f.name
			res.Codecs = append(res.Codecs, row)
			switch {
			case f.name == "color" && c == compressor.S2:
				res.CodecColor = c.String()
				res.CodecEncodeGBps, res.CodecDecodeGBps, res.CodecRatio = row.EncodeGBps, row.DecodeGBps, row.Ratio
				res.CodecRatioVsRLE = float64(len(f.pixels)) / row.Ratio / float64(f.rle)
			case f.name == "color-textured" && c == compressor.S2:
				res.TexturedRatioVsRLE = float64(len(f.pixels)) / row.Ratio / float64(f.rle)
			case f.name == "depth" && c == compressor.Delta:
				res.CodecDepth = c.String()
				res.DepthEncodeGBps, res.DepthDecodeGBps, res.DepthRatio = row.EncodeGBps, row.DecodeGBps, row.Ratio
				res.DepthRatioVsRLE = float64(len(f.pixels)) / row.Ratio / float64(f.rle)
			}
		}
	}

	// transport: sender and receiver need a core each, as in a real run
	// (these vary most from run to run: the median of several runs, with
	// their range)
	runtime.GOMAXPROCS(runtime.NumCPU())
	type transportRun struct{ plain, encrypted, tcp float64 }
	var transports []transportRun
	for i := 0; i < *runs; i++ {
		p, e, t := transportBench()
		transports = append(transports, transportRun{p, e, t})
	}
	mid, least, most := medianRun(transports, func(t transportRun) float64 { return t.plain / t.tcp })
	res.TransportGBps, res.TransportEncryptedGBps, res.RawTCPGBps = mid.plain, mid.encrypted, mid.tcp
	res.TransportVsTCP, res.TransportVsTCPMin, res.TransportVsTCPMax = mid.plain/mid.tcp, least, most
	res.TransportEncryptedVsTCP = res.TransportEncryptedGBps / res.RawTCPGBps
	if *eqserver != "" {
		measurePipeline(*eqserver, *runs, &res)
		// the loop's time moves with what else the machine does: the
		// median of three runs
		res.ControlRuns = 3
		c64, err := medianControl(*eqserver, 64, res.ControlRuns)
		if err != nil {
			fail(err)
		}
		c256, err := medianControl(*eqserver, 256, res.ControlRuns)
		if err != nil {
			fail(err)
		}
		res.ControlMSPerFrame64, res.ControlMSPerFrame64Min, res.ControlMSPerFrame64Max, res.ServerCPUMSPerFrame64 = c64.loop, c64.least, c64.most, c64.cpu
		res.ControlMSPerFrame256, res.ControlMSPerFrame256Min, res.ControlMSPerFrame256Max, res.ServerCPUMSPerFrame256 = c256.loop, c256.least, c256.most, c256.cpu
	}

	if err := benchdoc.MergeJSON(*jsonOut, res); err != nil {
		fail(err)
	}
	if err := writeMarkdown(*mdOut, &res); err != nil {
		fail(err)
	}
	if *eqserver != "" {
		benchCompositing(*eqserver, *jsonOut, *mdOut, res.TransportGBps)
	}
	fmt.Printf("zmerge_vs_memcpy %.2f  assemble_vs_memcpy %.2f  codec_encode_gbps %.2f  codec_ratio_vs_rle %.3f  depth_ratio_vs_rle %.3f  transport_vs_tcp %.2f  transport_encrypted_vs_tcp %.2f  pipeline_overhead %.2f\n",
		res.ZMergeVsMemcpy, res.AssembleVsMemcpy, res.CodecEncodeGBps, res.CodecRatioVsRLE, res.DepthRatioVsRLE, res.TransportVsTCP, res.TransportEncryptedVsTCP, res.PipelineOverhead)
}

// measurePipeline runs the four-source config and one source with a core
// to itself, alternating so that both see the same machine, and keeps the
// medians in res.
func measurePipeline(eqserver string, runs int, res *result) {
	dir, err := os.MkdirTemp("", "goeq-pipeline")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	oneSource, err := writeGenerated(dir, simulate.Generated{Mode: compound.Split2D, Sources: 1, W: 640, H: 360, PipesPerNode: 1})
	if err != nil {
		fail(err)
	}
	ownRasterizers, err := writeGenerated(dir, simulate.Generated{Mode: compound.Split2D, Sources: 4, W: 640, H: 360, PipesPerNode: 1})
	if err != nil {
		fail(err)
	}
	var four, one, own []pipelineRun
	for i := 0; i < runs; i++ {
		for _, c := range []struct {
			cfg  string
			runs *[]pipelineRun
		}{{filepath.Join("examples", "configs", "2d-lb-4.eqc"), &four}, {oneSource, &one}, {ownRasterizers, &own}} {
			f, s, cores, err := pipelineBench(eqserver, c.cfg)
			if err != nil {
				fail(err)
			}
			*c.runs = append(*c.runs, pipelineRun{f, s, cores})
		}
	}
	mid, lo, hi := medianRun(four, pipelineRun.overhead)
	res.PipelineFrameMS, res.PipelineSlowestMS, res.PipelineOverhead = mid.frame, mid.slowest, mid.overhead()
	res.PipelineOverheadMin, res.PipelineOverheadMax, res.PipelineCoresBusy = lo, hi, mid.cores
	mid, lo, hi = medianRun(one, pipelineRun.overhead)
	res.PipelineOneFrameMS, res.PipelineOneDrawMS, res.PipelineOverheadOne = mid.frame, mid.slowest, mid.overhead()
	res.PipelineOverheadOneMin, res.PipelineOverheadOneMax, res.PipelineOneCoresBusy = lo, hi, mid.cores
	mid, lo, hi = medianRun(own, pipelineRun.overhead)
	res.PipelineOwnFrameMS, res.PipelineOwnSlowestMS, res.PipelineOverheadOwn = mid.frame, mid.slowest, mid.overhead()
	res.PipelineOverheadOwnMin, res.PipelineOverheadOwnMax, res.PipelineOwnCoresBusy = lo, hi, mid.cores
}

// pipelineRun is one run of pipelineBench.
type pipelineRun struct{ frame, slowest, cores float64 }

func (p pipelineRun) overhead() float64 { return p.frame / p.slowest }

// controlRuns is a wall's control-plane figures over several runs: the
// run with the median loop time, and the least and most loop time.
type controlRuns struct{ loop, cpu, least, most float64 }

func medianControl(eqserver string, nodes, runs int) (controlRuns, error) {
	type run struct{ loop, cpu float64 }
	var all []run
	for range runs {
		loop, cpu, err := controlBench(eqserver, nodes)
		if err != nil {
			return controlRuns{}, err
		}
		all = append(all, run{loop, cpu})
	}
	mid, least, most := medianRun(all, func(r run) float64 { return r.loop })
	return controlRuns{loop: mid.loop, cpu: mid.cpu, least: least, most: most}, nil
}

// benchCompositing measures and models the sort-last compositing
// strategies and writes their keys and section.
func benchCompositing(eqserver, jsonOut, mdOut string, linkGBps float64) {
	c, err := compositingBench(eqserver, 5, linkGBps)
	if err != nil {
		fail(err)
	}
	if err := benchdoc.MergeJSON(jsonOut, c); err != nil {
		fail(err)
	}
	if err := writeCompositing(mdOut, c, benchdoc.Machine()); err != nil {
		fail(err)
	}
	fmt.Printf("compositing_auto_vs_best_4 %.2f  compositing_auto_vs_best_8 %.2f\n", c.AutoVsBest4, c.AutoVsBest8)
}

type tile struct {
	img  *compositor.Image
	x, y int
}

func quarters(full *compositor.Image) []tile {
	var out []tile
	xs, ys := []int{0, full.W / 2, full.W}, []int{0, full.H / 2, full.H}
	for ty := 0; ty < 2; ty++ {
		for tx := 0; tx < 2; tx++ {
			img := compositor.NewImage(xs[tx+1]-xs[tx], ys[ty+1]-ys[ty], false)
			for y := 0; y < img.H; y++ {
				copy(img.Color[4*y*img.W:4*(y+1)*img.W], full.Color[4*((ys[ty]+y)*full.W+xs[tx]):])
			}
			out = append(out, tile{img, xs[tx], ys[ty]})
		}
	}
	return out
}

func measureCodec(c compressor.Codec, f compressor.Format, w, h int, pixels []byte) codecRow {
	enc, err := compressor.Encode(nil, c, f, w, h, 1, pixels)
	if err != nil {
		fail(err)
	}
	e := testing.Benchmark(func(b *testing.B) {
		buf := make([]byte, 0, len(enc)+1024)
		for i := 0; i < b.N; i++ {
			compressor.Encode(buf[:0], c, f, w, h, 1, pixels)
		}
	})
	out := make([]byte, len(pixels))
	d := testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := compressor.Decode(out, enc); err != nil {
				b.Fatal(err)
			}
		}
	})
	return codecRow{Codec: c.String(), Ratio: float64(len(pixels)) / float64(len(enc)),
		EncodeGBps: gbps(len(pixels), e), DecodeGBps: gbps(len(pixels), d)}
}

var section = benchdoc.Marks("bench", "make bench")

func writeMarkdown(path string, r *result) error {
	var b strings.Builder
	b.WriteString("## Pixel paths: compositing and codecs\n\n")
	fmt.Fprintf(&b, "Command: `make bench` (runs `go run ./cmd/goeq-bench`). Machine: %s; %s; %s, %s.\n", r.Machine, r.Frame, r.Go, r.Date)
	b.WriteString("Every ratio is against a baseline timed in the same run, on one core.\n\n")
	b.WriteString("| measure | value | baseline | ratio | goal |\n|---|---|---|---|---|\n")
	kernels := "portable loop"
	if r.ZMergeKernels != "" {
		kernels = r.ZMergeKernels + " kernels"
	}
	fmt.Fprintf(&b, "| depth merge (colour + float depth), %s; median of %d runs, each timing the memcpy right before | %.2f GB/s | memcpy %.2f GB/s | zmerge_vs_memcpy **%.2f** (%.2f–%.2f) | ≥ 0.6 |\n", kernels, r.Runs, r.ZMergeGBps, r.MemcpyGBps, r.ZMergeVsMemcpy, r.ZMergeVsMemcpyMin, r.ZMergeVsMemcpyMax)
	fmt.Fprintf(&b, "| 2D assembly of 4 tiles; median of %d runs, the same way | %.2f GB/s | memcpy of the colour | assemble_vs_memcpy **%.2f** (%.2f–%.2f) | ≥ 0.9 |\n", r.Runs, r.AssembleGBps, r.AssembleVsMemcpy, r.AssembleVsMemcpyMin, r.AssembleVsMemcpyMax)
	fmt.Fprintf(&b, "| colour codec %s, encode | %.2f GB/s per core | | codec_encode_gbps **%.2f** | ≥ 1.5 |\n", r.CodecColor, r.CodecEncodeGBps, r.CodecEncodeGBps)
	fmt.Fprintf(&b, "| colour codec %s, decode | %.2f GB/s per core | | | |\n", r.CodecColor, r.CodecDecodeGBps)
	fmt.Fprintf(&b, "| colour codec size | %.1fx smaller than raw | RLE4B reference | codec_ratio_vs_rle **%.3f** | ≤ 0.85 |\n", r.CodecRatio, r.CodecRatioVsRLE)
	fmt.Fprintf(&b, "| colour codec size, textured frame | | RLE4B reference | %.3f | |\n", r.TexturedRatioVsRLE)
	fmt.Fprintf(&b, "| depth codec %s, encode / decode | %.2f / %.2f GB/s per core | | | |\n", r.CodecDepth, r.DepthEncodeGBps, r.DepthDecodeGBps)
	fmt.Fprintf(&b, "| depth codec size | %.1fx smaller than raw | RLE4B reference | depth_codec_ratio_vs_rle **%.3f** | |\n", r.DepthRatio, r.DepthRatioVsRLE)
	fmt.Fprintf(&b, "| frame transport, 8 MiB frames, loopback; median of %d runs | %.2f GB/s | raw TCP %.2f GB/s | transport_vs_tcp **%.2f** (%.2f–%.2f) | >= 0.8 |\n", r.Runs, r.TransportGBps, r.RawTCPGBps, r.TransportVsTCP, r.TransportVsTCPMin, r.TransportVsTCPMax)
	fmt.Fprintf(&b, "| encrypted frame links (TLS 1.3), same frames | %.2f GB/s | raw TCP %.2f GB/s | transport_encrypted_vs_tcp **%.2f** | (cost of encryption) |\n", r.TransportEncryptedGBps, r.RawTCPGBps, r.TransportEncryptedVsTCP)
	if r.ControlMSPerFrame64 > 0 {
		for _, c := range []struct {
			n                      int
			loop, least, most, cpu float64
		}{{64, r.ControlMSPerFrame64, r.ControlMSPerFrame64Min, r.ControlMSPerFrame64Max, r.ServerCPUMSPerFrame64},
			{256, r.ControlMSPerFrame256, r.ControlMSPerFrame256Min, r.ControlMSPerFrame256Max, r.ServerCPUMSPerFrame256}} {
			fmt.Fprintf(&b, "| eqserver's control plane, a wall of %d null render nodes (no GL) with a swap barrier, all on this machine; median of %d runs | %.2f ms per frame in its loop | %.2f ms CPU per frame | control_ms_per_frame_%d **%.2f** (%.2f–%.2f) | <= 2 at 256 |\n",
				c.n, r.ControlRuns, c.loop, c.cpu, c.n, c.loop, c.least, c.most)
		}
	}
	if r.PipelineOverhead > 0 {
		fmt.Fprintf(&b, "| eqserver run (2d-lb-4.eqc), synthetic renderer, 4 sources on 2 render processes, latency 1, async readback; median of %d runs; %.2f cores busy | frame %.1f ms | slowest source draw %.1f ms | pipeline_overhead **%.2f** (%.2f–%.2f) | <= 1.15 |\n", r.Runs, r.PipelineCoresBusy, r.PipelineFrameMS, r.PipelineSlowestMS, r.PipelineOverhead, r.PipelineOverheadMin, r.PipelineOverheadMax)
		fmt.Fprintf(&b, "| the same with 1 source on a node of its own (a core per render process); %.2f cores busy | frame %.1f ms | source draw %.1f ms | pipeline_overhead_one_source **%.2f** (%.2f–%.2f) | (what bounds the first line) |\n", r.PipelineOneCoresBusy, r.PipelineOneFrameMS, r.PipelineOneDrawMS, r.PipelineOverheadOne, r.PipelineOverheadOneMin, r.PipelineOverheadOneMax)
		fmt.Fprintf(&b, "| 4 sources again, each in a render process of its own; %.2f cores busy | frame %.1f ms | slowest source draw %.1f ms | pipeline_overhead_own_rasterizer **%.2f** (%.2f–%.2f) | (a process per source) |\n", r.PipelineOwnCoresBusy, r.PipelineOwnFrameMS, r.PipelineOwnSlowestMS, r.PipelineOverheadOwn, r.PipelineOverheadOwnMin, r.PipelineOverheadOwnMax)
	}
	b.WriteString("\n")
	b.WriteString("All codecs (one chunk, one core):\n\n| frame | codec | ratio (raw/encoded) | encode GB/s | decode GB/s |\n|---|---|---|---|---|\n")
	for _, c := range r.Codecs {
		fmt.Fprintf(&b, "| %s | %s | %.1f | %.2f | %.2f |\n", c.Frame, c.Codec, c.Ratio, c.EncodeGBps, c.DecodeGBps)
	}
	return section.Write(path, b.String())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goeq-bench:", err)
	os.Exit(1)
}
