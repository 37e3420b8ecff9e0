// Command loop runs an improvement cycle of the pipeline and keeps what it
// made when a match with SPRT shows a gain. The Texel cycle (-cycle texel,
// `make loop` with configs/loop.json) self-plays a dataset with the
// current engine, tunes the evaluation on it, builds the engine with the
// new tables and matches it against the engine from before the tune; the
// new tables are kept or reverted. The network cycle (-cycle nnue, `make
// loop-nnue` with configs/loop-nnue.json; network.go) self-plays with the
// current network, trains the next one on every cycle's positions, and
// matches it against the current one; a kept network becomes the current
// one.
//
// With "game": "dama" (configs/dama-loop.json, `make loop-dama`) the cycle
// is the same for the Italian draughts evaluation: each stage is given
// -game dama (bin/selfplay, bin/tune, the match), the engines are
// `bin/engine -game dama`, and the tables are engine/dama/eval's.
//
// With the record setting (configs/loop.json: docs/history/loop.jsonl;
// configs/loop-nnue.json: networks.jsonl; configs/dama-loop.json:
// dama.jsonl) each cycle appends its records to the results history
// (docs/records.md) once its match has begun: the match's, for a network
// cycle the new network's (its parent the current network, gated by that
// match, with its training losses and pawn table), and a cycle record with
// each stage's seconds and the verdict: kept, reverted, undecided (an
// interrupt, Ctrl-C, ended the match early) or failed. A Texel cycle whose
// tune found nothing better is recorded as reverted, with no match.
//
// It is run from the repository root and drives the project's binaries in
// bin/ (built by `make build`), the Go toolchain for the two engines it
// compares, and `make build` again for the binaries it leaves (the profile
// and the vector path included, so a network still plays fast after it); the
// match is played in process by package chessforge/selfplay/match, which
// gives the loop its Elo, error bar and SPRT verdict as values.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/internal/atomicfile"
	"chessforge/selfplay"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/stats"
	"chessforge/tuner"
)

func main() {
	// The first interrupt ends the match early (its games are recorded);
	// a second one stops the program at once. SIGTERM (kill) still ends it
	// at once, as before.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() { <-ctx.Done(); stop() }()
	cfg, err := parseArgs(os.Args[1:], os.Stdout)
	if err == nil {
		err = run(ctx, cfg, os.Stdout, os.Stderr)
	}
	os.Exit(configs.Exit(os.Stderr, "loop", err))
}

// keep decides whether the tuned tables stay: as the SPRT decided, or, when
// it did not decide (or none ran), when keepIfUndecided is set and the Elo
// interval lies above zero.
func keep(decision stats.Decision, elo, margin float64, keepIfUndecided bool) bool {
	switch decision {
	case stats.AcceptH1:
		return true
	case stats.AcceptH0:
		return false
	}
	return keepIfUndecided && elo-margin > 0
}

// noGain reports whether the tune stage's error is bin/tune refusing its
// weights for no gain on validation (exit status tuner.ExitNoGain).
func noGain(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == tuner.ExitNoGain
}

// eloGain writes a match's Elo estimate for the summary line, "+1.7 ±
// 19.6", or after a perfect or a zero score the bound its interval gives
// (see match.FormatEstimate).
func eloGain(e stats.Estimate) string {
	if _, side := e.Bound(); side != 0 || math.IsNaN(e.Elo) {
		return match.FormatEstimate(e)
	}
	return fmt.Sprintf("%+.1f ± %.1f", e.Elo, e.Margin())
}

// verdict names the SPRT's decision for the summary line, "no SPRT" when
// none ran.
func verdict(r *match.Result) string {
	if v := r.Verdict(); v != "" {
		return v
	}
	return "no SPRT"
}

// copyFile writes a copy of src at dst, atomically (through dst.tmp), with
// src's modification time: restored weights look as old as they are, so
// the binaries built from them are not taken for stale
// (stage.CheckBinaries).
func copyFile(dst, src string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(dst, data, 0o644); err != nil {
		return err
	}
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}

// stages holds the command lines of a cycle's stages: self-play's and the
// tune's, and the match's bin/match arguments.
type stages struct {
	selfplay, tune, match []string
}

// commands returns the stages' command lines for cfg's game, with the
// engines built before and after the tune at baseEngine and tunedEngine: the
// configured arguments and the loop's own. A draughts cycle gives each stage
// and both engines -game dama, and keeps its games as PDN.
func commands(cfg Config, baseEngine, tunedEngine string) stages {
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }
	var game []string
	record := "pgn"
	// The tables are the hand-crafted evaluation's, so a chess match plays
	// it on both sides whatever the engine's default evaluation.
	hce := []string{"-a-opt", "Use NNUE=false", "-b-opt", "Use NNUE=false"}
	if cfg.Game == match.Dama {
		game, record, hce = []string{"-game", match.Dama}, "pdn", nil
	}
	engine := func(path string) string { return strings.Join(slices.Concat([]string{path}, game), " ") }
	data := work("selfplay")
	return stages{
		selfplay: slices.Concat([]string{"bin/selfplay"}, game, cfg.SelfplayArgs, []string{"-out", data, "-pgn", work("selfplay." + record)}),
		tune:     slices.Concat([]string{"bin/tune"}, game, []string{"-data", data, "-out", cfg.WeightsFile, "-report", work("tune-report")}, cfg.TuneArgs),
		match: slices.Concat(game, []string{"-a", engine(tunedEngine), "-a-name", "tuned", "-b", engine(baseEngine), "-b-name", "before",
			"-pgn", work("match." + record)}, hce, cfg.MatchArgs),
	}
}

// run runs the configured cycle (or cycles), their matches until ctx ends
// them.
func run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	if err := stage.CheckRecordFile(cfg.Record.File); err != nil {
		return err
	}
	if cfg.Cycle == cycleNNUE {
		return runNetwork(ctx, cfg, stdout, stderr, stageSeams)
	}
	return runTexel(ctx, cfg, stdout, stderr)
}

// loopName is the cycle's name in its records: loop, loop-dama or
// loop-nnue, after its make target.
func loopName(cfg Config) string {
	switch {
	case cfg.Cycle == cycleNNUE:
		return "loop-nnue"
	case cfg.Game == match.Dama:
		return "loop-dama"
	}
	return "loop"
}

// runTexel runs the Texel cycle in a cleared work directory. Once its
// match has begun, the cycle's records go to the record file however it
// ends.
func runTexel(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	start := time.Now()
	if _, err := os.Stat(filepath.Join(cfg.WorkDir, currentNetwork)); err == nil {
		return fmt.Errorf("%s holds the network cycle's work (%s), which the Texel cycle would clear: give it another work-dir", cfg.WorkDir, currentNetwork)
	}
	if err := stage.CheckBinaries(".", "bin/selfplay", "bin/tune"); err != nil {
		return err
	}
	if err := os.RemoveAll(cfg.WorkDir); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return err
	}
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }
	cyc := &stage.Cycle{File: cfg.Record.File, Loop: loopName(cfg)}
	tables := "chess"
	if cfg.Game == match.Dama {
		tables = "draughts"
	}
	what := fmt.Sprintf("make %s: the %s tables Texel-tuned on new self-play against those before", cyc.Loop, tables)
	runStage := func(name, header string, args ...string) error {
		return cyc.Stage(name, func() error { return stage.Run(header, stdout, stderr, args...) })
	}

	// The engine before the tune, and a copy of its tables to restore.
	baseEngine, tunedEngine := work("engine-base"), work("engine-tuned")
	if err := runStage("build", "build the engine before the tune", "go", "build", "-o", baseEngine, "./cmd/engine"); err != nil {
		return err
	}
	backup := work("weights_gen.go.before")
	if err := copyFile(backup, cfg.WeightsFile); err != nil {
		return fmt.Errorf("back up %s: %w", cfg.WeightsFile, err)
	}

	cmds := commands(cfg, baseEngine, tunedEngine)
	if err := runStage("self-play", "self-play", cmds.selfplay...); err != nil {
		return err
	}
	// The tables are the hand-crafted evaluation's whichever evaluation
	// played the games (the engine's default, the network, unless the
	// self-play arguments say -nnue=false): say which.
	played, err := selfplayEvaluation(work("selfplay"))
	if err != nil {
		return err
	}
	what = fmt.Sprintf("make %s: the %s tables Texel-tuned on new self-play of %s against those before", cyc.Loop, tables, played)
	fmt.Fprintf(stdout, "loop: the self-play was played by %s; the tune fits the hand-crafted tables to its games\n", played)

	if err := runStage("tune", "tune", cmds.tune...); err != nil {
		copyFile(cfg.WeightsFile, backup)
		if noGain(err) {
			// Not a failure: the fit found nothing better, so there is
			// nothing to match.
			fmt.Fprintf(stdout, "loop: tune found no weights better on validation than the current ones, tables unchanged, no match played, %s\n",
				time.Since(start).Round(time.Second))
			return cyc.Finish(stage.Reverted, what, "", "The tune found no weights better on validation than the current ones: tables unchanged, no match played.")
		}
		return err
	}
	restore := func() error {
		if err := copyFile(cfg.WeightsFile, backup); err != nil {
			return fmt.Errorf("restore %s from %s: %w", cfg.WeightsFile, backup, err)
		}
		return runStage("rebuild", "rebuild the binaries with the tables from before", "make", "build")
	}
	if err := runStage("build", "build the tuned engine", "go", "build", "-o", tunedEngine, "./cmd/engine"); err != nil {
		if rerr := restore(); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}

	res, err := cyc.Match(ctx, stage.PlayMatch, fmt.Sprintf("the %s tables Texel-tuned by make %s against those before", tables, cyc.Loop),
		"match: tuned against the engine before the tune", cmds.match, stdout, stderr)
	if err == nil && res.Interrupted {
		err = fmt.Errorf("match: %w, after %d games: the tables from before are restored", stage.ErrInterrupted, res.Score.Games())
	}
	if err != nil {
		if rerr := restore(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return cyc.Fail(err, what, "")
	}
	est := res.Estimate()

	decision := stage.Kept
	if keep(res.Decision, est.Elo, est.Margin(), cfg.KeepIfUndecided) {
		if err := runStage("rebuild", "rebuild the binaries with the tuned tables", "make", "build"); err != nil {
			return cyc.Fail(err, what, "")
		}
	} else {
		decision = stage.Reverted
		if err := restore(); err != nil {
			return cyc.Fail(err, what, "")
		}
	}
	line := fmt.Sprintf("loop: Elo gain %s (%s), new tables %s, %s", eloGain(est), verdict(res), decision, time.Since(start).Round(time.Second))
	fmt.Fprintf(stdout, "\n%s\n", line)
	return cyc.Finish(decision, what, "", line)
}

// selfplayEvaluation names the evaluation that played the self-play in
// path, from its files' metadata: "the network ID" or "the hand-crafted
// evaluation" (draughts has only its own).
func selfplayEvaluation(path string) (string, error) {
	files, err := datasets.Stat(path)
	if err != nil {
		return "", err
	}
	names := map[string]bool{}
	for _, f := range files {
		switch f.Metadata[selfplay.KeyEval] {
		case selfplay.EvalNNUE:
			names["the network "+f.Metadata[selfplay.KeyNetwork]] = true
		default:
			names["the hand-crafted evaluation"] = true
		}
	}
	evals := slices.Sorted(maps.Keys(names))
	if len(evals) != 1 {
		return "", fmt.Errorf("%s: self-play files of %d evaluations (%s), want one", path, len(evals), strings.Join(evals, ", "))
	}
	return evals[0], nil
}
