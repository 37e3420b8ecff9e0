// Command tune fits the evaluation's weights to labelled positions (Texel
// tuning) and regenerates engine/eval/weights_gen.go, so that the next build
// of the engine plays with them.
//
//	tune -data out.parquet                 # self-play dataset: file, directory or glob
//	tune -data texel.epd -out /tmp/w.go    # `FEN [1.0]` or `FEN c9 "1-0";` lines
//
// It reads and resolves the positions (by default each to the quiet leaf of
// its quiescence search), fits the sigmoid scale K, minimises the mean
// squared error with L-BFGS and an analytic gradient on all cores, stops
// when the validation error stops improving, writes a report (errors.csv,
// curves.png, changes.txt) and the weights file. Its last line is
//
//	tune: N positions, K=k, train MSE a -> b, validation MSE c -> d
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"chessforge/engine/eval"
	"chessforge/engine/eval/evalgen"
	"chessforge/tuner"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "tune:", err)
		}
		os.Exit(1)
	}
}

// run is the command, with its arguments and outputs as parameters.
func run(args []string, stdoutW, stderr io.Writer) error {
	flag := flag.NewFlagSet("tune", flag.ContinueOnError)
	flag.SetOutput(stderr)
	var (
		data      = flag.String("data", "out.parquet", "labelled positions: a Parquet dataset (file, directory or glob) or text files of `FEN [1.0]` / `FEN c9 \"1-0\";` lines")
		sel       = flag.String("select", tuner.Resolve, "position selection: qsearch (resolve each to its quiet leaf), filter (skip in-check and capture/promotion best moves), none")
		skipPlies = flag.Int("skip-plies", 0, "skip positions before this ply (when the ply is known)")
		skipMates = flag.Bool("skip-mates", true, "skip positions with a mate score")
		lambda    = flag.Float64("lambda", 1, "target = λ·result + (1−λ)·sigmoid(score) (datasets with scores)")
		valFrac   = flag.Float64("val", 0.1, "share of games held out for validation")
		seed      = flag.Uint64("seed", 1, "seed of the train/validation split")
		epdBlock  = flag.Int("epd-block", 64, "consecutive text lines treated as one game for the split")
		maxBad    = flag.Int("max-bad", 0, "bad input lines tolerated (each reported) before giving up")
		params    = flag.String("params", "all", "weight groups or families to tune, comma-separated (e.g. psqt,kingsafety,passed_rank.eg); the rest stay frozen")
		method    = flag.String("method", tuner.LBFGS, "minimiser: lbfgs (gonum, full batch) or adam (full batch)")
		iters     = flag.Int("iters", 1000, "iterations at most")
		patience  = flag.Int("patience", 20, "stop after this many iterations without a better validation error")
		lr        = flag.Float64("lr", 1, "Adam's step size in centipawns")
		l2        = flag.Float64("l2", 0, "L2 penalty towards the starting weights: l2·Σ((w−w0)/100)²")
		kFlag     = flag.Float64("k", 0, "sigmoid scale K (0: fit it to the starting weights)")
		threads   = flag.Int("threads", 0, "goroutines (0: all cores)")
		out       = flag.String("out", "engine/eval/weights_gen.go", "weights file to write")
		source    = flag.String("source", "", "how the weights file's header names the data (default: the -data path)")
		dryRun    = flag.Bool("dry-run", false, "only report; write no weights file")
		report    = flag.String("report", "tune-report", "directory for errors.csv, curves.png and changes.txt (empty: none)")
		top       = flag.Int("top", 40, "weight changes listed in changes.txt")
		quiet     = flag.Bool("quiet", false, "no progress bars")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.Output(), "usage: tune -data PATH [flags]\n\nFits the evaluation's weights to labelled positions and regenerates engine/eval/weights_gen.go.\n\n")
		flag.PrintDefaults()
	}
	if err := flag.Parse(args); err != nil {
		return err
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *lambda < 0 || *lambda > 1 {
		return fmt.Errorf("-lambda %g not in [0, 1]", *lambda)
	}
	mask, err := eval.Select(*params)
	if err != nil {
		return fmt.Errorf("-params: %w", err)
	}
	nthreads := *threads
	if nthreads <= 0 {
		nthreads = runtime.GOMAXPROCS(0)
	}
	stdout := bufio.NewWriter(stdoutW)
	defer stdout.Flush()
	say := func(format string, a ...any) {
		fmt.Fprintf(stdout, format+"\n", a...)
		stdout.Flush()
	}

	// Load.
	start, cpu0 := time.Now(), cpuTime()
	var loadBar *progressbar.ProgressBar
	if !*quiet {
		loadBar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("reading positions"), progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}
	train, val, st, err := tuner.Load(*data, tuner.LoadOptions{
		Select: *sel, SkipPlies: *skipPlies, SkipMates: *skipMates,
		ValFrac: *valFrac, Seed: *seed, EPDBlock: *epdBlock, MaxBad: *maxBad,
		Threads: nthreads, Warn: stderr,
		Progress: func(n int) {
			if loadBar != nil {
				loadBar.Set(n)
			}
		},
	})
	if loadBar != nil {
		loadBar.Finish()
	}
	if err != nil {
		return err
	}
	n := train.Len() + val.Len()
	if train.Len() == 0 {
		return fmt.Errorf("%s: no positions left to train on (%d read)", *data, st.Read)
	}
	loadTime, loadCPU := time.Since(start), cpuTime()-cpu0
	say("tune: %s: %d file(s), %d read, %d bad, %d kept: %d train + %d validation (selection %s: %d resolved to another leaf, skipped %d by ply, %d mate scores, %d in check, %d not quiet)",
		*data, len(st.Files), st.Read, st.Bad, n, train.Len(), val.Len(), *sel, st.Resolved, st.SkipPly, st.SkipMate, st.SkipCheck, st.SkipNoisy)
	storeBytes := train.Bytes() + val.Bytes()
	say("tune: positions stored in %.1f MB, %.0f bytes/position; loaded in %.1f s, %.1f CPU-s (%.0f positions/s)",
		float64(storeBytes)/1e6, float64(storeBytes)/float64(n), loadTime.Seconds(), loadCPU.Seconds(), float64(st.Read)/loadTime.Seconds())

	// K, targets, errors before.
	w0 := eval.Weights()
	k := *kFlag
	if k <= 0 {
		k, _ = tuner.FitK(train, w0, 0.01, 10, nthreads)
		say("tune: K=%.4f fitted on the training set at the starting weights", k)
	}
	if *lambda < 1 {
		if miss := train.SetTargets(*lambda, k) + val.SetTargets(*lambda, k); miss > 0 {
			fmt.Fprintf(stderr, "tune: %d positions have no search score; their target stays the result\n", miss)
		}
	}
	free := 0
	for _, m := range mask {
		if m {
			free++
		}
	}
	say("tune: %s over %d of %d weights (-params %s), %d threads", strings.ToUpper(*method), free, eval.NumParams, *params, nthreads)

	// Fit.
	var bar *progressbar.ProgressBar
	if !*quiet {
		bar = progressbar.NewOptions(*iters, progressbar.OptionSetWriter(stderr),
			progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(false), progressbar.OptionSetWidth(20),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	fitStart, fitCPU0 := time.Now(), cpuTime()
	res, err := tuner.Fit(train, val, w0, tuner.Config{
		K: k, Mask: mask, L2: *l2, Method: *method, MaxIter: *iters,
		Patience: *patience, LR: *lr, Threads: nthreads,
		Progress: func(it tuner.Iter) {
			if bar != nil {
				bar.Describe(fmt.Sprintf("train %.6f  val %.6f", it.Train, it.Val))
				bar.Set(it.N)
			}
		},
	})
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	fitTime, fitCPU := time.Since(fitStart), cpuTime()-fitCPU0
	its := len(res.History) - 1
	perM := float64(max(1, its)) * float64(train.Len()) / 1e6
	say("tune: stopped after %d iterations (%s); best validation error at iteration %d; %.1f s, %.3f s/iteration/M positions (%.1f CPU-s, %.3f CPU-s/iteration/M positions)",
		its, res.Stop, res.Best, fitTime.Seconds(), fitTime.Seconds()/perM, fitCPU.Seconds(), fitCPU.Seconds()/perM)

	// Errors with the rounded weights the generated file will hold.
	wr := make([]float64, len(res.W))
	for j, x := range res.W {
		wr[j] = math.Round(x)
	}
	ot := tuner.NewObjective(train, k, nthreads)
	ov := ot
	if val.Len() > 0 {
		ov = tuner.NewObjective(val, k, nthreads)
	}
	trainBefore, trainAfter := ot.Value(w0), ot.Value(wr)
	valBefore, valAfter := ov.Value(w0), ov.Value(wr)

	if *report != "" {
		if err := tuner.WriteReport(*report, res, w0, *top); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		say("tune: report in %s (errors.csv, curves.png, changes.txt)", *report)
	}
	cs := tuner.Changes(w0, wr, 10)
	if len(cs) > 0 {
		say("tune: largest changes:")
		for _, c := range cs {
			say("  %-36s %6.0f -> %6.0f", c.Name, c.Before, c.After)
		}
	}
	if *dryRun {
		say("tune: dry run, no weights written")
	} else {
		if *source == "" {
			*source = *data
		}
		prov := eval.Provenance{Source: *source, Positions: n, K: k, ErrorBefore: valBefore, ErrorAfter: valAfter}
		if err := evalgen.WriteFile(*out, wr, prov); err != nil {
			return err
		}
		say("tune: wrote %s", *out)
	}
	if hwm := peakRSS(); hwm > 0 {
		say("tune: peak memory %.0f MB (%.0f MB per million positions)", hwm/1e6, hwm/1e6/(float64(n)/1e6))
	}
	say("tune: %d positions, K=%.4f, train MSE %.6f -> %.6f, validation MSE %.6f -> %.6f",
		n, k, trainBefore, trainAfter, valBefore, valAfter)
	return nil
}

// peakRSS returns the process's peak resident set in bytes (Linux's
// VmHWM), or 0 when unknown.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
