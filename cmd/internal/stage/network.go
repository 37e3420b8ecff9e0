package stage

// The stages that turn self-play into a network, shared by make nnue and
// make loop's network cycle: the NumPy export of the self-play files (redone
// only when they changed), the Python environment with chessforge-nnue, the
// training history read from the checkpoints, the export of the epoch with
// the lowest validation loss, the fit of its pawn table, and the check that
// the engine plays with it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"chessforge/internal/atomicfile"
)

// DatasetStamp describes the self-play files that pattern matches (their
// names, sizes and modification times, one per line, in name order): the
// NumPy export is redone when it changes. It is empty when nothing matches.
func DatasetStamp(pattern string) (string, error) {
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

// ExportNeeded reports whether the NumPy export in npyDir must be made
// again for the dataset described by stamp (the export's command line and
// DatasetStamp), given the stamp recorded in stampFile by the last export
// that finished: when the export or the record is missing, or the dataset
// changed since.
func ExportNeeded(stamp, stampFile, npyDir string) bool {
	if _, err := os.Stat(npyDir); err != nil {
		return true
	}
	was, err := os.ReadFile(stampFile)
	return err != nil || string(was) != stamp
}

// ExportNumPy is the stage that exports the self-play files pattern
// matches (a glob, as bin/dataset reads it) to NumPy shards in npyDir with
// bin/dataset and extra arguments, recording what it exported in
// stampFile; when the files and the arguments are those of the last
// finished export, it only says so.
func ExportNumPy(stdout, stderr io.Writer, pattern, npyDir, stampFile string, extra []string) error {
	stamp, err := DatasetStamp(pattern)
	if err != nil {
		return err
	}
	if stamp == "" {
		return fmt.Errorf("no self-play file matches %s", pattern)
	}
	args := append([]string{"bin/dataset", "export", "-format", "npy", pattern, "-out", npyDir}, extra...)
	stamp = strings.Join(args, " ") + "\n" + stamp
	if !ExportNeeded(stamp, stampFile, npyDir) {
		Skip(stdout, "export to NumPy", "the self-play files are those of "+npyDir)
		return nil
	}
	if err := os.Remove(stampFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// bin/dataset replaces an earlier export in npyDir only once the new
	// one is whole, so a failed export keeps the old one.
	if err := Run("export to NumPy", stdout, stderr, args...); err != nil {
		return err
	}
	return atomicfile.WriteFile(stampFile, []byte(stamp), 0o644)
}

// Trainer returns the chessforge-nnue command and the Python interpreter of
// the virtual environment env, first making the environment (with Debian's
// torch and numpy visible) and installing datasets/python into it when
// chessforge-nnue is missing, each as a stage.
func Trainer(env string, stdout, stderr io.Writer) (trainer, python string, err error) {
	trainer, python = filepath.Join(env, "bin", "chessforge-nnue"), filepath.Join(env, "bin", "python")
	if _, err := os.Stat(trainer); err == nil {
		return trainer, python, nil
	}
	if err := Run("python environment", stdout, stderr, "/usr/bin/python3", "-m", "venv", "--system-site-packages", env); err != nil {
		return "", "", err
	}
	if err := CheckTorch(python); err != nil {
		return "", "", fmt.Errorf("python environment %s: %w", env, err)
	}
	if err := Run("install chessforge-nnue", stdout, stderr, filepath.Join(env, "bin", "pip"), "install", "--no-index", "--no-build-isolation", "-e", "datasets/python"); err != nil {
		return "", "", err
	}
	return trainer, python, nil
}

// CheckTorch reports whether python imports torch and numpy, which pip
// cannot install offline: without them its error names the missing module
// and the Debian packages that provide them.
func CheckTorch(python string) error {
	out, err := exec.Command(python, "-c", "import numpy, torch").CombinedOutput()
	if err == nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return fmt.Errorf("%s cannot import numpy and torch (%s; on Debian: apt-get install python3-numpy python3-torch)", python, lines[len(lines)-1])
}

// EpochLoss is one epoch of a checkpoint's training history, as
// chessforge-nnue stores it ("history" in each epoch-NNNN.pt).
type EpochLoss struct {
	Epoch     int      `json:"epoch"`
	TrainLoss float64  `json:"train_loss"`
	ValLoss   *float64 `json:"val_loss"` // null without validation data
	Positions int64    `json:"positions"`
}

// TrainState is what the recipes read from the last checkpoint: the
// history of every epoch, the size of the training set and, for a run from
// --init, the starting network's validation loss.
type TrainState struct {
	History     []EpochLoss `json:"history"`
	TrainRows   int64       `json:"train_rows"`
	InitValLoss *float64    `json:"init_val_loss"` // null without --init or validation data
}

// BestEpoch returns the epoch with the lowest validation loss (the earliest
// of equal ones); without validation losses, the last epoch.
func BestEpoch(history []EpochLoss) (int, error) {
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

// HasValidation reports whether any epoch has a validation loss.
func HasValidation(history []EpochLoss) bool {
	for _, h := range history {
		if h.ValLoss != nil {
			return true
		}
	}
	return false
}

// CheckpointPath is the file of a training epoch, as chessforge-nnue names it.
func CheckpointPath(dir string, epoch int) string {
	return filepath.Join(dir, fmt.Sprintf("epoch-%04d.pt", epoch))
}

// readHistory is the Python that prints the last checkpoint's state as JSON.
const readHistory = `import json, sys, torch
s = torch.load(sys.argv[1], map_location="cpu")
print(json.dumps({"history": s["history"], "train_rows": s["train_rows"], "init_val_loss": s.get("init_val_loss")}))`

// LastState reads the training history from the last checkpoint in dir
// with python, and returns it with the checkpoint's path.
func LastState(python, dir string) (TrainState, string, error) {
	cks, err := filepath.Glob(filepath.Join(dir, "epoch-*.pt"))
	if err != nil || len(cks) == 0 {
		return TrainState{}, "", fmt.Errorf("no checkpoint in %s", dir)
	}
	sort.Strings(cks)
	last := cks[len(cks)-1]
	out, err := exec.Command(python, "-c", readHistory, last).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return TrainState{}, "", fmt.Errorf("reading %s: %w", last, err)
	}
	var s TrainState
	if err := json.Unmarshal(out, &s); err != nil {
		return TrainState{}, "", fmt.Errorf("reading %s: %w", last, err)
	}
	return s, last, nil
}

// CheckNetwork asks the engine (a command line) to load the network net
// with the options a match gives it, and reports an error unless the
// engine answers that it evaluates with net, network id.
func CheckNetwork(engine []string, net, id string) error {
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

// Trained is a network exported from a training run.
type Trained struct {
	ID         string     // the network's id, as the export printed it
	Epoch      int        // the epoch exported
	Checkpoint string     // that epoch's checkpoint
	State      TrainState // the run's history, from its last checkpoint
}

// ExportBest is the stage that exports the epoch of the training run in
// trainDir with the lowest validation loss (the last one without
// validation data) to the network file net, with trainer (chessforge-nnue)
// and python (its interpreter, which reads the history).
func ExportBest(stdout, stderr io.Writer, trainer, python, trainDir, net string) (Trained, error) {
	state, last, err := LastState(python, trainDir)
	if err != nil {
		return Trained{}, err
	}
	epoch, err := BestEpoch(state.History)
	if err != nil {
		return Trained{}, fmt.Errorf("%s: %w", last, err)
	}
	why := fmt.Sprintf("lowest validation loss of %d", len(state.History))
	if !HasValidation(state.History) {
		why = "the last: no validation data"
	} else if state.InitValLoss != nil {
		for _, h := range state.History {
			if h.Epoch == epoch {
				why += fmt.Sprintf(", %.6f; the starting network's %.6f", *h.ValLoss, *state.InitValLoss)
			}
		}
	}
	t := Trained{ID: "?", Epoch: epoch, Checkpoint: CheckpointPath(trainDir, epoch), State: state}
	var exported bytes.Buffer
	if err := Run(fmt.Sprintf("export epoch %d (%s)", epoch, why),
		io.MultiWriter(stdout, &exported), stderr, trainer, "export", t.Checkpoint, "--out", net); err != nil {
		return Trained{}, err
	}
	if m := networkID.FindStringSubmatch(exported.String()); m != nil {
		t.ID = m[1]
	}
	return t, nil
}

// PawnTable is the settings of the pawn-table stage, which make nnue and
// the loop's network cycle run after the export (embedded in their
// configs).
type PawnTable struct {
	Fit  bool     `json:"fit-pawn-scale" usage:"fit the new network's pawn table to its own scores of the training positions (chessforge-nnue pawnscale --write); false: it keeps the table the export gives it"`
	Args []string `json:"pawn-scale-args" usage:"chessforge-nnue pawnscale arguments (besides DATA, --network, --write), space-separated"`
}

// Run is the pawn-table stage of the network file net, whose id is id:
// FitPawnScale on data with t.Args when t.Fit, else a line saying it is
// skipped. With levelOf, a network file, the table's level is the one
// that puts net's scores on levelOf's scale (pawnscale --level-of)
// rather than the file's own. It returns the network's id. A fit is recorded beside net
// (PawnStampFile): when the same network (id, as exported) is fitted again
// with the same arguments on the same data by the same code, as a resumed
// loop or recipe does after re-exporting it, the recorded table is written
// back instead (chessforge-nnue table --set, 1.6 s) and the fit is
// skipped; a record that cannot be applied is dropped and the fit runs.
// Data with too few positions for a fit (a tiny run's) are not a failure:
// the stage says so in one line and the network keeps the export's table.
func (t PawnTable) Run(stdout, stderr io.Writer, trainer, net, id string, data []string, levelOf string) (string, error) {
	if !t.Fit {
		Skip(stdout, "pawn table", "fit-pawn-scale is false: the network keeps the export's")
		return id, nil
	}
	stampFile := PawnStampFile(net)
	args := t.Args
	if levelOf != "" {
		args = append(slices.Clip(args), "--level-of", levelOf)
	}
	key, err := pawnKey(trainer, id, args, data)
	if err != nil {
		return "", err
	}
	if levelOf != "" && key != "" {
		ref, err := DatasetStamp(levelOf)
		if err != nil {
			return "", err
		}
		key += "reference\n" + ref
	}
	if table, fitted, ok := readPawnStamp(stampFile, key); ok && key != "" {
		got, err := SetPawnTable(stdout, stderr, trainer, net, table,
			fmt.Sprintf("pawn table (fitted before for network %s on these data: %s)", id, table))
		if err == nil && got == fitted {
			return got, nil
		}
		if err == nil {
			err = fmt.Errorf("the table gave network %s, the record %s", got, fitted)
		}
		fmt.Fprintf(stdout, "pawn table: the record %s could not be applied (%v): fitting again\n", stampFile, err)
	}
	if err := os.Remove(stampFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	fitted, table, err := fitPawnScale(stdout, stderr, trainer, net, data, args)
	if TooFewRows(err) {
		fmt.Fprintf(stdout, "pawn table: kept the export's, too few positions in %s to fit one (network %s)\n", strings.Join(data, " "), id)
		return id, nil
	}
	if err != nil || key == "" {
		return fitted, err
	}
	return fitted, atomicfile.WriteFile(stampFile, []byte(key+"table "+table+"\nnetwork "+fitted+"\n"), 0o644)
}

// ExitTooFewRows is chessforge-nnue pawnscale's exit status when its data
// hold too few positions for the fit (EXIT_TOO_FEW in
// datasets/python/chessforge_data/pawnscale.py); the network file is left
// as it was.
const ExitTooFewRows = 3

// TooFewRows reports whether err is the pawn-table stage's command exiting
// with ExitTooFewRows.
func TooFewRows(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == ExitTooFewRows
}

// PawnStampFile is where the pawn-table stage records its fit of the
// network file net: what it fitted (the exported id, the arguments, the
// data's files) and the table and id that came of it.
func PawnStampFile(net string) string { return net + ".pawn-table" }

// pawnKey describes a fit: the exported network's id, the pawnscale
// arguments, the code that fits (the trainer's script and the Python
// package's sources in the repository) and the files of each data path
// (DatasetStamp of a directory's files, or of the file). It is "" for an
// export that printed no id (which cannot tell one network from another).
func pawnKey(trainer, id string, args, data []string) (string, error) {
	if !exportedID.MatchString(id) {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "network %s\nargs %s\n", id, strings.Join(args, " "))
	for _, pattern := range []string{trainer, filepath.Join("datasets", "python", "chessforge_data", "*.py")} {
		files, err := DatasetStamp(pattern)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "code %s\n%s", pattern, files)
	}
	for _, d := range data {
		pattern := d
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			pattern = filepath.Join(d, "*")
		}
		files, err := DatasetStamp(pattern)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "data %s\n%s", d, files)
	}
	return b.String(), nil
}

// readPawnStamp returns the table and id that stampFile records for the
// fit described by key; ok is false when the file is missing or records
// another fit.
func readPawnStamp(stampFile, key string) (table, id string, ok bool) {
	b, err := os.ReadFile(stampFile)
	rest, found := strings.CutPrefix(string(b), key)
	if err != nil || !found {
		return "", "", false
	}
	m := pawnStampTail.FindStringSubmatch(rest)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// exportedID is a network id as the export prints it.
var exportedID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// pawnStampTail is what follows the key in a pawn stamp.
var pawnStampTail = regexp.MustCompile(`^table (\d+(?: \d+)*)\nnetwork (\S+)\n$`)

// pawnTableLine is pawnscale's line with the table it fitted.
var pawnTableLine = regexp.MustCompile(`(?m)^pawn table (\d+(?: \d+)*)\s*$`)

// SetPawnTable is a stage that writes table (entries separated by spaces)
// into the network file net with trainer (chessforge-nnue table --set) and
// returns the network's id.
func SetPawnTable(stdout, stderr io.Writer, trainer, net, table, name string) (string, error) {
	var set bytes.Buffer
	if err := Run(name, io.MultiWriter(stdout, &set), stderr, trainer, "table", net, "--set", strings.ReplaceAll(table, " ", ",")); err != nil {
		return "", err
	}
	m := networkID.FindStringSubmatch(set.String())
	if m == nil {
		return "", fmt.Errorf("%s: %s wrote no network id (want a line %q)", name, trainer, "wrote "+net+": network ID")
	}
	return m[1], nil
}

// FitPawnScale is the stage that fits the pawn table of the network file
// net to the network's own scores of the positions in data (chessforge-nnue
// pawnscale DATA... --network net --write, with extra's arguments) and
// writes it into the file, with trainer (chessforge-nnue). It returns the
// network's id, which the table changes. Fitting again gives the same
// table: the network's raw scores do not depend on it.
func FitPawnScale(stdout, stderr io.Writer, trainer, net string, data, extra []string) (string, error) {
	id, _, err := fitPawnScale(stdout, stderr, trainer, net, data, extra)
	return id, err
}

// fitPawnScale is FitPawnScale, also returning the table (its entries
// separated by spaces).
func fitPawnScale(stdout, stderr io.Writer, trainer, net string, data, extra []string) (id, table string, err error) {
	args := append(append([]string{trainer, "pawnscale"}, data...), "--network", net, "--write")
	var fitted bytes.Buffer
	if err := Run("pawn table", io.MultiWriter(stdout, &fitted), stderr, append(args, extra...)...); err != nil {
		return "", "", err
	}
	m := networkID.FindStringSubmatch(fitted.String())
	if m == nil {
		return "", "", fmt.Errorf("pawn table: %s wrote no network id (want a line %q)", trainer, "wrote "+net+": network ID")
	}
	t := pawnTableLine.FindStringSubmatch(fitted.String())
	if t == nil {
		return "", "", fmt.Errorf("pawn table: %s wrote no table (want a line %q)", trainer, "pawn table N N N N N")
	}
	return m[1], t[1], nil
}
