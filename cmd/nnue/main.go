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
// It is run from the repository root and drives bin/selfplay, bin/dataset
// and bin/engine (built by `make build`); the match is played in process by
// package chessforge/selfplay/match.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/selfplay/match"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Stdout)
	if err == nil {
		err = run(cfg, os.Stdout, os.Stderr)
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

func run(cfg Config, stdout, stderr io.Writer) error {
	start := time.Now()
	if err := stage.CheckBinaries(".", "bin/selfplay", "bin/dataset", "bin/engine"); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return err
	}
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }

	// 1. Self-play: -resume continues the job (or starts it), and a job
	// already complete is only reported. Each job has its directory.
	job := filepath.Join(work("selfplay"), selfplayJob(cfg.SelfplayArgs))
	args := append([]string{"bin/selfplay"}, cfg.SelfplayArgs...)
	args = append(args, "-out", job, "-pgn", job+".pgn", "-resume")
	if err := stage.Run("self-play", stdout, stderr, args...); err != nil {
		return err
	}

	// 2. The NumPy export of every job's files, when they changed.
	npy := work("npy")
	if err := stage.ExportNumPy(stdout, stderr, filepath.Join(work("selfplay"), "*", "*.parquet"), npy, work("npy.stamp"), cfg.ExportArgs); err != nil {
		return err
	}

	// 3. Training, from the last checkpoint when there is one.
	trainer, python, err := stage.Trainer(cfg.PythonEnv, stdout, stderr)
	if err != nil {
		return err
	}
	trainDir := work("train")
	args = append([]string{trainer, "train", npy, "--out", trainDir}, cfg.TrainArgs...)
	if err := stage.Run("train", stdout, stderr, append(args, "--resume")...); err != nil {
		return err
	}

	// 4. The network: the epoch with the lowest validation loss.
	net := work("net.nnue")
	trained, err := stage.ExportBest(stdout, stderr, trainer, python, trainDir, net)
	if err != nil {
		return err
	}
	// Its pawn table, fitted to its own scores of the positions it was
	// trained on.
	if trained.ID, err = cfg.PawnTable.Run(stdout, stderr, trainer, net, trained.ID, []string{npy}, ""); err != nil {
		return err
	}

	// The engine must play with this network, not fall back on the
	// hand-crafted evaluation, for the match to mean anything.
	if err := stage.CheckNetwork([]string{"bin/engine"}, net, trained.ID); err != nil {
		return err
	}

	// 5. The match against the hand-crafted evaluation.
	res, err := stage.PlayMatch("match: the network against the hand-crafted evaluation",
		matchArgs("bin/engine", net, work("match.pgn"), cfg.MatchArgs), stdout, stderr)
	if err != nil {
		return err
	}
	verdict := res.Verdict()
	if verdict == "" {
		verdict = "no SPRT"
	}
	fmt.Fprintf(stdout, "\nnnue: network %s, %d positions, Elo %s (%s), %s\n",
		trained.ID, trained.State.TrainRows, match.FormatEstimate(res.Estimate()), verdict, time.Since(start).Round(time.Second))
	return nil
}
