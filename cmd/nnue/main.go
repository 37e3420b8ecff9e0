// Command nnue runs the recipe that turns self-play into a network the
// engine plays with, and proves it in a match: self-play with the current
// engine, export the positions to NumPy, train with chessforge-nnue (the
// Python package in datasets/python), export the checkpoint with the lowest
// validation loss to the engine's network format, and match the network
// against the hand-crafted evaluation with SPRT. `make nnue` runs it with
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
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
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
		"-b", engine, "-b-name", "hce", "-pgn", pgn}
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

// datasetStamp describes the self-play files that pattern matches (their
// names, sizes and modification times, one per line, in name order): the
// NumPy export is redone when it changes. It is empty when nothing matches.
func datasetStamp(pattern string) (string, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %d %d\n", f, info.Size(), info.ModTime().UnixNano())
	}
	return b.String(), nil
}

// exportNeeded reports whether the NumPy export in npyDir must be made
// again for the dataset described by stamp (the export's command line and
// datasetStamp), given the stamp
// recorded in stampFile by the last export that finished: when the export
// or the record is missing, or the dataset changed since.
func exportNeeded(stamp, stampFile, npyDir string) bool {
	if _, err := os.Stat(npyDir); err != nil {
		return true
	}
	was, err := os.ReadFile(stampFile)
	return err != nil || string(was) != stamp
}

// epochLoss is one epoch of a checkpoint's training history, as
// chessforge-nnue stores it ("history" in each epoch-NNNN.pt).
type epochLoss struct {
	Epoch     int      `json:"epoch"`
	TrainLoss float64  `json:"train_loss"`
	ValLoss   *float64 `json:"val_loss"` // null without validation data
	Positions int64    `json:"positions"`
}

// trainState is what the recipe reads from the last checkpoint: the history
// of every epoch and the size of the training set.
type trainState struct {
	History   []epochLoss `json:"history"`
	TrainRows int64       `json:"train_rows"`
}

// bestEpoch returns the epoch with the lowest validation loss (the earliest
// of equal ones); without validation losses, the last epoch.
func bestEpoch(history []epochLoss) (int, error) {
	if len(history) == 0 {
		return 0, errors.New("no epoch trained")
	}
	best, loss := 0, math.Inf(1)
	for _, h := range history {
		if h.ValLoss != nil && *h.ValLoss < loss {
			best, loss = h.Epoch, *h.ValLoss
		}
	}
	if best == 0 {
		best = history[len(history)-1].Epoch
	}
	return best, nil
}

// hasValidation reports whether any epoch has a validation loss.
func hasValidation(history []epochLoss) bool {
	for _, h := range history {
		if h.ValLoss != nil {
			return true
		}
	}
	return false
}

// checkpointPath is the file of a training epoch, as chessforge-nnue names it.
func checkpointPath(dir string, epoch int) string {
	return filepath.Join(dir, fmt.Sprintf("epoch-%04d.pt", epoch))
}

// readHistory is the Python that prints the last checkpoint's state as JSON.
const readHistory = `import json, sys, torch
s = torch.load(sys.argv[1], map_location="cpu")
print(json.dumps({"history": s["history"], "train_rows": s["train_rows"]}))`

// lastState reads the training history from the last checkpoint in dir
// with python.
func lastState(python, dir string) (trainState, string, error) {
	cks, err := filepath.Glob(filepath.Join(dir, "epoch-*.pt"))
	if err != nil || len(cks) == 0 {
		return trainState{}, "", fmt.Errorf("no checkpoint in %s", dir)
	}
	sort.Strings(cks)
	last := cks[len(cks)-1]
	out, err := exec.Command(python, "-c", readHistory, last).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return trainState{}, "", fmt.Errorf("reading %s: %w", last, err)
	}
	var s trainState
	if err := json.Unmarshal(out, &s); err != nil {
		return trainState{}, "", fmt.Errorf("reading %s: %w", last, err)
	}
	return s, last, nil
}

// checkNetwork asks the engine (a command line) to load the network net
// with the options the match gives it, and reports an error unless the
// engine answers that it evaluates with net, network id.
func checkNetwork(engine []string, net, id string) error {
	cmd := exec.Command(engine[0], engine[1:]...)
	cmd.Stdin = strings.NewReader("uci\nsetoption name Use NNUE value true\nsetoption name EvalFile value " + net + "\nisready\nquit\n")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s with %s: %w", engine[0], net, err)
	}
	want := "NNUE evaluation using " + net + ", network " + id
	var about string // the engine's last word on the file
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, want) {
			return nil
		}
		if strings.HasPrefix(line, "info string ") && strings.Contains(line, net) {
			about = strings.TrimSpace(line)
		}
	}
	if about != "" {
		return fmt.Errorf("%s does not play with %s: %s", engine[0], net, about)
	}
	return fmt.Errorf("%s does not say that it plays with %s (want %q)", engine[0], net, want)
}

// networkID finds the network's id in chessforge-nnue export's output
// ("wrote FILE: network ID").
var networkID = regexp.MustCompile(`: network (\S+)`)

func run(cfg Config, stdout, stderr io.Writer) error {
	start := time.Now()
	for _, b := range []string{"bin/selfplay", "bin/dataset", "bin/engine"} {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("%s is missing: run make build first", b)
		}
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
	data := filepath.Join(work("selfplay"), "*", "*.parquet")
	npy, stampFile := work("npy"), work("npy.stamp")
	stamp, err := datasetStamp(data)
	if err != nil {
		return err
	}
	if stamp == "" {
		return fmt.Errorf("no self-play file matches %s", data)
	}
	args = append([]string{"bin/dataset", "export", "-format", "npy", data, "-out", npy}, cfg.ExportArgs...)
	stamp = strings.Join(args, " ") + "\n" + stamp
	if exportNeeded(stamp, stampFile, npy) {
		if err := os.Remove(stampFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := os.RemoveAll(npy); err != nil {
			return err
		}
		if err := stage.Run("export to NumPy", stdout, stderr, args...); err != nil {
			return err
		}
		if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
			return err
		}
	} else {
		stage.Skip(stdout, "export to NumPy", "the self-play files are those of "+npy)
	}

	// 3. Training, from the last checkpoint when there is one.
	env := cfg.PythonEnv
	trainer := filepath.Join(env, "bin", "chessforge-nnue")
	if _, err := os.Stat(trainer); err != nil {
		if err := stage.Run("python environment", stdout, stderr, "/usr/bin/python3", "-m", "venv", "--system-site-packages", env); err != nil {
			return err
		}
		if err := stage.Run("install chessforge-nnue", stdout, stderr, filepath.Join(env, "bin", "pip"), "install", "--no-index", "--no-build-isolation", "-e", "datasets/python"); err != nil {
			return err
		}
	}
	trainDir := work("train")
	args = append([]string{trainer, "train", npy, "--out", trainDir}, cfg.TrainArgs...)
	if err := stage.Run("train", stdout, stderr, append(args, "--resume")...); err != nil {
		return err
	}

	// 4. The network: the epoch with the lowest validation loss.
	state, last, err := lastState(filepath.Join(env, "bin", "python"), trainDir)
	if err != nil {
		return err
	}
	epoch, err := bestEpoch(state.History)
	if err != nil {
		return fmt.Errorf("%s: %w", last, err)
	}
	why := fmt.Sprintf("lowest validation loss of %d", len(state.History))
	if !hasValidation(state.History) {
		why = "the last: no validation data"
	}
	net := work("net.nnue")
	var exported bytes.Buffer
	if err := stage.Run(fmt.Sprintf("export epoch %d (%s)", epoch, why),
		io.MultiWriter(stdout, &exported), stderr, trainer, "export", checkpointPath(trainDir, epoch), "--out", net); err != nil {
		return err
	}
	id := "?"
	if m := networkID.FindStringSubmatch(exported.String()); m != nil {
		id = m[1]
	}

	// The engine must play with this network, not fall back on the
	// hand-crafted evaluation, for the match to mean anything.
	if err := checkNetwork([]string{"bin/engine"}, net, id); err != nil {
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
		id, state.TrainRows, match.FormatEstimate(res.Estimate()), verdict, time.Since(start).Round(time.Second))
	return nil
}
