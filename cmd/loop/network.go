package main

// The network cycle (-cycle nnue). Its work directory holds the current
// network and one directory per cycle:
//
//	current.nnue       the current network (at first a copy of network-file)
//	current.pt         its training checkpoint, once the loop has kept one
//	npy/, npy.stamp    the NumPy export of every cycle's self-play
//	cycle-NNNN/
//	  base.nnue, base.pt   the current network when the cycle began
//	  selfplay/, selfplay.pgn   self-play with base.nnue (seed + N - 1)
//	  train/               the training run, from base (epoch-NNNN.pt)
//	  next.nnue            its epoch with the lowest validation loss, with
//	                       the pawn table fitted to its own scores
//	  match.pgn            next.nnue against base.nnue
//	  result.json          the match's outcome and the decision
//	  summary.txt          the summary line: the cycle is finished
//
// Every stage resumes: self-play continues its job, the export is redone
// only when the self-play files changed, training continues from its last
// checkpoint, the network's export is redone, the match continues from the
// games in match.pgn (or match.pgn.partial) that the same two networks
// played, and once result.json is written only the keep-or-revert step
// remains, which is idempotent.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"chessforge/cmd/internal/stage"
	"chessforge/engine/nnue"
	"chessforge/internal/atomicfile"
	"chessforge/internal/record"
)

// The network cycle's files in its work directory.
const (
	currentNetwork    = "current.nnue"
	currentCheckpoint = "current.pt"
)

// seams are how the network cycle plays its match and runs the rebuild
// after a promotion: stage.PlayMatch and stage.Run, which tests replace.
type seams struct {
	run   func(name string, stdout, stderr io.Writer, args ...string) error
	match stage.MatchFunc
}

var stageSeams = seams{run: stage.Run, match: stage.PlayMatch}

// cycleResult is a cycle's outcome, kept in its result.json once its match
// has decided, so that an interrupted keep-or-revert step is only redone.
type cycleResult struct {
	Cycle      int    `json:"cycle"`
	Current    string `json:"current"`    // the current network's id when the cycle began
	Next       string `json:"next"`       // the new network's id
	Epoch      int    `json:"epoch"`      // the epoch exported as the new network
	Positions  int64  `json:"positions"`  // its training positions (those the filters kept, validation excluded)
	Match      string `json:"match"`      // the match's summary line
	EloGain    string `json:"elo_gain"`   // as the summary line writes it
	Verdict    string `json:"verdict"`    // the SPRT's
	Kept       bool   `json:"kept"`       // the new network became the current one
	Promoted   bool   `json:"promoted"`   // and the embedded default (-promote)
	Checkpoint string `json:"checkpoint"` // the new network's checkpoint
}

// summary is the cycle's one-line summary, as the Texel cycle's:
// "loop: cycle N: Elo gain E ± C (verdict), new network ID kept|reverted,
// P positions, T", T the time of this run of the cycle.
func (r cycleResult) summary(elapsed time.Duration) string {
	decision := "reverted"
	if r.Kept {
		decision = "kept"
		if r.Promoted {
			decision = "kept and promoted to the embedded default"
		}
	}
	return fmt.Sprintf("loop: cycle %d: Elo gain %s (%s), new network %s %s, %d positions, %s",
		r.Cycle, r.EloGain, r.Verdict, r.Next, decision, r.Positions, elapsed.Round(time.Second))
}

// cycleDir is cycle n's directory.
func cycleDir(work string, n int) string {
	return filepath.Join(work, fmt.Sprintf("cycle-%04d", n))
}

// nextCycle returns the first cycle without a summary: the one to resume
// or to start.
func nextCycle(work string) (int, error) {
	for n := 1; ; n++ {
		_, err := os.Stat(filepath.Join(cycleDir(work, n), "summary.txt"))
		if errors.Is(err, os.ErrNotExist) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// networkMatchArgs is the bin/match command line (without "bin/match")
// that plays engine with the network next, as "next", against engine with
// the network current, as "current", writing the games to pgn and resuming
// from those already there; extra (the config's match-args) follows. The
// Event tag, event, names the networks, so that a resumed match counts only
// the games of the same two.
func networkMatchArgs(engine, next, current, pgn, event string, extra []string) []string {
	args := []string{"-a", engine, "-a-name", "next", "-a-opt", "Use NNUE=true", "-a-opt", "EvalFile=" + next,
		"-b", engine, "-b-name", "current", "-b-opt", "Use NNUE=true", "-b-opt", "EvalFile=" + current,
		"-pgn", pgn, "-resume", "-event", event}
	return append(args, extra...)
}

// loadID reads the network file path and returns its id: a file the
// engine would refuse is an error naming it and what is wrong.
func loadID(path string) (string, error) {
	n, err := nnue.LoadFile(path)
	if err != nil {
		return "", err
	}
	return n.ID(), nil
}

// writeJSON writes v to path atomically.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// runNetwork runs cfg.Cycles network cycles, each resuming the unfinished
// one or starting the next, their matches until ctx ends them.
func runNetwork(ctx context.Context, cfg Config, stdout, stderr io.Writer, s seams) error {
	if err := stage.CheckBinaries(".", "bin/selfplay", "bin/dataset", "bin/engine"); err != nil {
		return err
	}
	for _, d := range cfg.TrainData {
		if _, err := os.Stat(d); err != nil {
			return fmt.Errorf("train-data: %w", err)
		}
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return err
	}
	current := filepath.Join(cfg.WorkDir, currentNetwork)
	if _, err := os.Stat(current); errors.Is(err, os.ErrNotExist) {
		id, err := loadID(cfg.NetworkFile)
		if err != nil {
			return err
		}
		if err := copyFile(current, cfg.NetworkFile); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "loop: the first current network is %s (network %s), copied to %s\n", cfg.NetworkFile, id, current)
	} else if err != nil {
		return err
	}
	for i := 0; i < cfg.Cycles; i++ {
		if err := networkCycle(ctx, cfg, stdout, stderr, s); err != nil {
			return err
		}
	}
	return nil
}

// networkCycle runs or resumes one network cycle. Its records go to the
// record file when its match decides (before result.json is written, so a
// cycle finished by a later run is not recorded again), or when it stops
// or fails once its match has begun.
func networkCycle(ctx context.Context, cfg Config, stdout, stderr io.Writer, s seams) error {
	start := time.Now()
	n, err := nextCycle(cfg.WorkDir)
	if err != nil {
		return err
	}
	dir := cycleDir(cfg.WorkDir, n)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }
	in := func(name string) string { return filepath.Join(dir, name) }

	var r cycleResult
	data, err := os.ReadFile(in("result.json"))
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %w", in("result.json"), err)
		}
		fmt.Fprintf(stdout, "\nloop: cycle %d: its match has decided (%s), finishing it\n", n, in("result.json"))
	case errors.Is(err, os.ErrNotExist):
		cyc := &stage.Cycle{File: cfg.Record.File, Loop: loopName(cfg), Number: n}
		if r, err = playCycle(ctx, cfg, n, dir, cyc, stdout, stderr, s); err != nil {
			return cyc.Fail(err, fmt.Sprintf("make loop-nnue cycle %d", n), stage.NetworkOrNone(r.Next))
		}
		if err := writeJSON(in("result.json"), r); err != nil {
			return err
		}
	default:
		return err
	}

	// Keep or revert: a kept network (and its checkpoint) becomes the
	// current one, and with -promote the embedded default.
	if r.Kept {
		if err := copyFile(work(currentCheckpoint), r.Checkpoint); err != nil {
			return err
		}
		if err := copyFile(work(currentNetwork), in("next.nnue")); err != nil {
			return err
		}
		if r.Promoted {
			if err := copyFile(cfg.NetworkFile, in("next.nnue")); err != nil {
				return err
			}
			if err := s.run("rebuild the binaries with the promoted network", stdout, stderr, "make", "build"); err != nil {
				return err
			}
		}
	}
	line := r.summary(time.Since(start))
	if err := os.WriteFile(in("summary.txt"), []byte(line+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\n", line)
	return nil
}

// playCycle runs cycle n's stages up to its match's decision, timing them
// in cyc, and appends the cycle's records once the match has decided. On
// an error after the export the result names the new network (Next).
func playCycle(ctx context.Context, cfg Config, n int, dir string, cyc *stage.Cycle, stdout, stderr io.Writer, s seams) (cycleResult, error) {
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }
	in := func(name string) string { return filepath.Join(dir, name) }

	// The cycle's base: the current network as it began (its checkpoint
	// first, so that base.nnue's presence says both are there).
	base, baseCk := in("base.nnue"), in("base.pt")
	if _, err := os.Stat(base); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(work(currentCheckpoint)); err == nil {
			if err := copyFile(baseCk, work(currentCheckpoint)); err != nil {
				return cycleResult{}, err
			}
		}
		if err := copyFile(base, work(currentNetwork)); err != nil {
			return cycleResult{}, err
		}
	}
	baseID, err := loadID(base)
	if err != nil {
		return cycleResult{}, err
	}
	fmt.Fprintf(stdout, "\nloop: cycle %d (%s), current network %s\n", n, dir, baseID)

	// 1. Self-play with the current network.
	args := append([]string{"bin/selfplay"}, cfg.SelfplayArgs...)
	args = append(args, "-nnue", "-eval-file", base, "-seed", strconv.Itoa(cfg.Seed+n-1),
		"-out", in("selfplay"), "-pgn", in("selfplay.pgn"), "-resume")
	if err := cyc.Stage("self-play", func() error { return stage.Run("self-play", stdout, stderr, args...) }); err != nil {
		return cycleResult{}, err
	}

	// 2. The NumPy export of every cycle's positions, when they changed.
	npy := work("npy")
	pattern := filepath.Join(cfg.WorkDir, "cycle-*", "selfplay", "*.parquet")
	if err := cyc.Stage("export to NumPy", func() error {
		return stage.ExportNumPy(stdout, stderr, pattern, npy, work("npy.stamp"), cfg.ExportArgs)
	}); err != nil {
		return cycleResult{}, err
	}

	// 3. Training from the current network's weights (its checkpoint, or
	// the network file dequantized), continuing the run's last epoch, on
	// every cycle's positions and the train-data.
	trainer, python, err := stage.Trainer(cfg.PythonEnv, stdout, stderr)
	if err != nil {
		return cycleResult{}, err
	}
	trainDir := in("train")
	args = append(append([]string{trainer, "train", npy}, cfg.TrainData...), "--out", trainDir)
	args = append(args, cfg.TrainArgs...)
	if !cfg.TrainFromScratch {
		from := base
		if _, err := os.Stat(baseCk); err == nil {
			from = baseCk
		}
		args = append(args, "--init", from)
	}
	train := args
	if err := cyc.Stage("train", func() error { return stage.Run("train", stdout, stderr, append(train, "--resume")...) }); err != nil {
		return cycleResult{}, err
	}

	// 4. The next network: the epoch with the lowest validation loss.
	next := in("next.nnue")
	var trained stage.Trained
	if err := cyc.Stage("export", func() error {
		trained, err = stage.ExportBest(stdout, stderr, trainer, python, trainDir, next)
		return err
	}); err != nil {
		return cycleResult{}, err
	}
	// Its pawn table, fitted to its own scores of the positions it was
	// trained on: the search scores carry the table of the network that
	// played, which the new network has partly learnt. With match-level,
	// at the level that puts its scores on the current network's scale:
	// trained on search scores, which run larger than the evaluation that
	// made them, each network's scores run larger than the last's.
	levelOf := ""
	if cfg.MatchLevel {
		levelOf = base
	}
	exported := trained.ID
	if err := cyc.Stage("pawn table", func() error {
		trained.ID, err = cfg.PawnTable.Run(stdout, stderr, trainer, next, trained.ID, append([]string{npy}, cfg.TrainData...), levelOf)
		return err
	}); err != nil {
		return cycleResult{Next: exported}, err
	}
	// The engine must play with both networks, not fall back on the
	// hand-crafted evaluation, for the match to mean anything.
	for _, c := range []struct{ net, id string }{{next, trained.ID}, {base, baseID}} {
		if err := stage.CheckNetwork([]string{"bin/engine"}, c.net, c.id); err != nil {
			return cycleResult{Next: trained.ID}, err
		}
	}

	// 5. The match: the next network against the current one.
	event := fmt.Sprintf("chessforge loop cycle %d: network %s (next) vs %s (current)", n, trained.ID, baseID)
	res, err := cyc.Match(ctx, s.match, fmt.Sprintf("network %s against %s, make loop-nnue cycle %d", trained.ID, baseID, n),
		"match: the next network against the current one",
		networkMatchArgs("bin/engine", next, base, in("match.pgn"), event, cfg.MatchArgs), stdout, stderr)
	if err == nil && res.Interrupted {
		err = fmt.Errorf("match: %w, after %d games: the same command resumes it", stage.ErrInterrupted, res.Score.Games())
	}
	if err != nil {
		return cycleResult{Next: trained.ID}, err
	}
	est := res.Estimate()
	kept := keep(res.Decision, est.Elo, est.Margin(), cfg.KeepIfUndecided)
	r := cycleResult{
		Cycle: n, Current: baseID, Next: trained.ID, Epoch: trained.Epoch, Positions: trained.State.TrainRows,
		Match: res.Summary(), EloGain: eloGain(est), Verdict: verdict(res), Kept: kept, Promoted: kept && cfg.Promote,
		Checkpoint: trained.Checkpoint,
	}
	if cfg.Record.File == "" {
		return r, nil
	}
	data := fmt.Sprintf("every cycle's self-play in %s (bin/selfplay %s, with the current network)", cfg.WorkDir, strings.Join(cfg.SelfplayArgs, " "))
	if len(cfg.TrainData) > 0 {
		data += ", and " + strings.Join(cfg.TrainData, " ")
	}
	var extra []record.Record
	note := fmt.Sprintf("Elo gain %s (%s), epoch %d of the training exported, %d positions.", r.EloGain, r.Verdict, r.Epoch, r.Positions)
	netRec, err := stage.NetworkRecord(stage.Network{ID: trained.ID, Exported: exported, File: next, Parent: baseID,
		Data: data, Command: train, State: trained.State, Kept: kept}, cyc.MatchID())
	if err != nil {
		fmt.Fprintf(stderr, "loop: cycle %d: no network record: %v\n", n, err)
		note += " No network record: " + err.Error()
	} else {
		extra = append(extra, netRec)
	}
	decision := stage.Reverted
	if kept {
		decision = stage.Kept
	}
	return r, cyc.Finish(decision, fmt.Sprintf("make loop-nnue cycle %d: network %s against %s", n, trained.ID, baseID), stage.NetworkOrNone(trained.ID), note, extra...)
}
