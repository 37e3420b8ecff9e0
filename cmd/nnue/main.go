// Command nnue runs the recipe that turns self-play into a network the
// engine plays with, and proves it in a match: self-play with the current
// engine, export the positions to NumPy, train with chessforge-nnue (the
// Python package in datasets/python), export the checkpoint with the lowest
// validation loss to the engine's network format with the pawn table fitted
// to its own scores, and match the network against the hand-crafted
// evaluation with SPRT. `make nnue` runs it with
// configs/nnue.json.
//
// Every stage keeps its output in the work directory and resumes from it:
// self-play continues its job (and only reports it done when it is), and
// self-play arguments of another job (another -seed) play a new job beside
// the earlier ones; the NumPy export of all of them is redone only when
// their files changed; training continues from its last checkpoint up to
// --epochs. So a larger run is the same command again, over several
// sittings.
//
// With the record setting (configs/nnue.json: docs/history/networks.jsonl)
// a run whose match has begun appends its records to the results history
// (docs/records.md): the match's, the network's (its parent hce, gated by
// that match, with its training losses and pawn table) and the run's as a
// cycle record of loop nnue (its stages' seconds and verdict: kept for
// SPRT H1, reverted for H0, else undecided; failed when a stage failed).
// An interrupt (Ctrl-C) ends the match early; its games are recorded.
//
// It is run from the repository root and drives bin/selfplay, bin/dataset
// and bin/engine (built by `make build`); the match is played in process by
// package chessforge/selfplay/match.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/internal/record"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/stats"
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
	os.Exit(configs.Exit(os.Stderr, "nnue", err))
}

// matchArgs is the bin/match command line (without "bin/match") that plays
// engine with the network net, as "nnue", against engine with its
// hand-crafted evaluation, as "hce", writing the games to pgn; extra (the
// config's match-args) follows.
func matchArgs(engine, net, pgn string, extra []string) []string {
	args := []string{"-a", engine, "-a-name", "nnue", "-a-opt", "Use NNUE=true", "-a-opt", "EvalFile=" + net,
		"-b", engine, "-b-name", "hce", "-b-opt", "Use NNUE=false", "-pgn", pgn}
	return append(args, extra...)
}

// selfplayJob is the directory, under the work directory's selfplay/, of
// the self-play job that args (the config's selfplay-args) describe: the
// same arguments resume the same job, and other ones (another -seed) start
// a job beside it, whose positions the export adds to the earlier ones.
func selfplayJob(args []string) string {
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	return "job-" + hex.EncodeToString(sum[:6])
}

// run runs the recipe, its match until ctx ends it.
func run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	start := time.Now()
	if err := stage.CheckBinaries(".", "bin/selfplay", "bin/dataset", "bin/engine"); err != nil {
		return err
	}
	if err := stage.CheckRecordFile(cfg.Record.File); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return err
	}
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }
	cyc := &stage.Cycle{File: cfg.Record.File, Loop: "nnue"}

	// 1. Self-play: -resume continues the job (or starts it), and a job
	// already complete is only reported. Each job has its directory.
	job := filepath.Join(work("selfplay"), selfplayJob(cfg.SelfplayArgs))
	args := append([]string{"bin/selfplay"}, cfg.SelfplayArgs...)
	args = append(args, "-out", job, "-pgn", job+".pgn", "-resume")
	if err := cyc.Stage("self-play", func() error { return stage.Run("self-play", stdout, stderr, args...) }); err != nil {
		return err
	}

	// 2. The NumPy export of every job's files, when they changed.
	npy := work("npy")
	if err := cyc.Stage("export to NumPy", func() error {
		return stage.ExportNumPy(stdout, stderr, filepath.Join(work("selfplay"), "*", "*.parquet"), npy, work("npy.stamp"), cfg.ExportArgs)
	}); err != nil {
		return err
	}

	// 3. Training, from the last checkpoint when there is one.
	trainer, python, err := stage.Trainer(cfg.PythonEnv, stdout, stderr)
	if err != nil {
		return err
	}
	trainDir := work("train")
	train := append([]string{trainer, "train", npy, "--out", trainDir}, cfg.TrainArgs...)
	if err := cyc.Stage("train", func() error { return stage.Run("train", stdout, stderr, append(train, "--resume")...) }); err != nil {
		return err
	}

	// 4. The network: the epoch with the lowest validation loss.
	net := work("net.nnue")
	var trained stage.Trained
	if err := cyc.Stage("export", func() error {
		trained, err = stage.ExportBest(stdout, stderr, trainer, python, trainDir, net)
		return err
	}); err != nil {
		return err
	}
	// Its pawn table, fitted to its own scores of the positions it was
	// trained on.
	exported := trained.ID
	if err := cyc.Stage("pawn table", func() error {
		trained.ID, err = cfg.PawnTable.Run(stdout, stderr, trainer, net, trained.ID, []string{npy}, "")
		return err
	}); err != nil {
		return err
	}

	// The engine must play with this network, not fall back on the
	// hand-crafted evaluation, for the match to mean anything.
	if err := stage.CheckNetwork([]string{"bin/engine"}, net, trained.ID); err != nil {
		return err
	}

	// 5. The match against the hand-crafted evaluation.
	matchWhat := "network " + trained.ID + " against the hand-crafted evaluation"
	cycleWhat := "make nnue: " + matchWhat
	res, err := cyc.Match(ctx, stage.PlayMatch, matchWhat, "match: the network against the hand-crafted evaluation",
		matchArgs("bin/engine", net, work("match.pgn"), cfg.MatchArgs), stdout, stderr)
	if err == nil && res.Interrupted {
		err = fmt.Errorf("match: %w, after %d games (rerun to play it again)", stage.ErrInterrupted, res.Score.Games())
	}
	if err != nil {
		return cyc.Fail(err, cycleWhat, stage.NetworkOrNone(trained.ID))
	}
	verdict := res.Verdict()
	if verdict == "" {
		verdict = "no SPRT"
	}
	decision := stage.Undecided
	switch res.Decision {
	case stats.AcceptH1:
		decision = stage.Kept
	case stats.AcceptH0:
		decision = stage.Reverted
	}
	fmt.Fprintf(stdout, "\nnnue: network %s, %d positions, Elo %s (%s), %s\n",
		trained.ID, trained.State.TrainRows, match.FormatEstimate(res.Estimate()), verdict, time.Since(start).Round(time.Second))
	if cfg.Record.File == "" {
		return nil
	}
	var extra []record.Record
	note := ""
	netRec, err := stage.NetworkRecord(stage.Network{
		ID: trained.ID, Exported: exported, File: net, Parent: "hce",
		Data:    fmt.Sprintf("the self-play jobs in %s, the last bin/selfplay %s", work("selfplay"), strings.Join(cfg.SelfplayArgs, " ")),
		Command: train, State: trained.State, Kept: decision == stage.Kept,
	}, cyc.MatchID())
	if err != nil {
		note = "No network record: " + err.Error()
		fmt.Fprintf(stderr, "nnue: %s\n", note)
	} else {
		extra = append(extra, netRec)
	}
	if err := cyc.Finish(decision, cycleWhat, stage.NetworkOrNone(trained.ID), note, extra...); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "nnue: recorded the run in %s\n", cfg.Record.File)
	return nil
}
