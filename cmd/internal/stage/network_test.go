package stage

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExportIsRedoneOnlyWhenTheDatasetChanged: the stamp of the self-play
// files changes with a new or grown file, and the export is redone when the
// stamp, the recorded stamp or the export is missing or different.
func TestExportIsRedoneOnlyWhenTheDatasetChanged(t *testing.T) {
	dir := t.TempDir()
	data, npy, stampFile := filepath.Join(dir, "selfplay", "job-1"), filepath.Join(dir, "npy"), filepath.Join(dir, "npy.stamp")
	os.MkdirAll(data, 0o755)
	stamp := func() string {
		t.Helper()
		s, err := DatasetStamp(filepath.Join(dir, "selfplay", "*", "*.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := stamp(); s != "" {
		t.Errorf("no Parquet file: stamp %q", s)
	}
	part := filepath.Join(data, "part-0000.parquet")
	os.WriteFile(part, []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(data, "part-0001.parquet.tmp"), []byte("unfinished"), 0o644)
	first := stamp()
	if !strings.HasPrefix(first, part+" 3 ") || strings.Count(first, "\n") != 1 {
		t.Errorf("stamp %q", first)
	}
	if !ExportNeeded(first, stampFile, npy) {
		t.Error("no export yet: not redone")
	}
	os.MkdirAll(npy, 0o755)
	if !ExportNeeded(first, stampFile, npy) {
		t.Error("an export without its stamp (interrupted): not redone")
	}
	os.WriteFile(stampFile, []byte(first), 0o644)
	if ExportNeeded(first, stampFile, npy) {
		t.Error("the same files: redone")
	}
	os.WriteFile(filepath.Join(data, "part-0001.parquet"), []byte("de"), 0o644)
	if second := stamp(); !ExportNeeded(second, stampFile, npy) || !strings.HasPrefix(second, first) {
		t.Errorf("a new file: not redone (stamp %q)", second)
	}
	os.MkdirAll(filepath.Join(dir, "selfplay", "job-2"), 0o755)
	os.WriteFile(filepath.Join(dir, "selfplay", "job-2", "part-0000.parquet"), []byte("f"), 0o644)
	if third := stamp(); strings.Count(third, "\n") != 3 || !strings.Contains(third, "job-2") {
		t.Errorf("another job's file: stamp %q", third)
	}
	os.WriteFile(part, []byte("abcd"), 0o644)
	os.Chtimes(part, time.Now(), time.Now().Add(time.Hour))
	if !ExportNeeded(stamp(), stampFile, npy) {
		t.Error("a rewritten file: not redone")
	}
	if s, err := DatasetStamp(filepath.Join(dir, "missing", "*.parquet")); err != nil || s != "" {
		t.Errorf("no files: stamp %q, %v", s, err)
	}
	if _, err := DatasetStamp("[" + dir); err == nil {
		t.Error("a bad pattern gives no error")
	}
}

func TestBestEpochHasTheLowestValidationLoss(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	cases := []struct {
		history []EpochLoss
		want    int
	}{
		{[]EpochLoss{{Epoch: 1, ValLoss: v(0.05)}, {Epoch: 2, ValLoss: v(0.04)}, {Epoch: 3, ValLoss: v(0.045)}}, 2},
		{[]EpochLoss{{Epoch: 1, ValLoss: v(0.04)}, {Epoch: 2, ValLoss: v(0.04)}}, 1},
		{[]EpochLoss{{Epoch: 1}, {Epoch: 2}, {Epoch: 3}}, 3},
		{[]EpochLoss{{Epoch: 1, ValLoss: v(math.NaN())}, {Epoch: 2, ValLoss: v(0.1)}}, 2},
		{[]EpochLoss{{Epoch: 4, ValLoss: v(0.2)}}, 4},
	}
	for _, c := range cases {
		if got, err := BestEpoch(c.history); err != nil || got != c.want {
			t.Errorf("BestEpoch(%+v) = %d, %v; want %d", c.history, got, err, c.want)
		}
	}
	if HasValidation(cases[2].history) || !HasValidation(cases[0].history) {
		t.Error("HasValidation")
	}
	if _, err := BestEpoch(nil); err == nil {
		t.Error("no history: no error")
	}
	if got := CheckpointPath("d", 12); got != filepath.Join("d", "epoch-0012.pt") {
		t.Errorf("checkpoint path %q", got)
	}
	// The history as chessforge-nnue stores it, through the JSON readHistory prints.
	var s TrainState
	if err := json.Unmarshal([]byte(`{"history": [{"epoch": 1, "train_loss": 0.05, "val_loss": null, "positions": 900}, {"epoch": 2, "train_loss": 0.04, "val_loss": 0.041, "positions": 900}], "train_rows": 900}`), &s); err != nil {
		t.Fatal(err)
	}
	if best, _ := BestEpoch(s.History); best != 2 || s.TrainRows != 900 || s.History[0].ValLoss != nil {
		t.Errorf("read %+v, best epoch %d", s, best)
	}
}

// TestCheckNetworkWantsTheEngineToNameTheNetwork: the recipe matches a
// network only after the engine said it loaded that file, with that id.
func TestCheckNetworkWantsTheEngineToNameTheNetwork(t *testing.T) {
	engine := func(answer string) []string {
		return []string{"sh", "-c", "cat >/dev/null; printf 'id name fake\\n" + answer + "\\nreadyok\\n'"}
	}
	if err := CheckNetwork(engine("info string NNUE evaluation using n.nnue, network 0123"), "n.nnue", "0123"); err != nil {
		t.Errorf("the right network: %v", err)
	}
	for _, answer := range []string{
		"info string NNUE evaluation using n.nnue, network 9999",
		"info string EvalFile n.nnue: truncated, keeping the hand-crafted evaluation",
		"info string nothing",
	} {
		if err := CheckNetwork(engine(answer), "n.nnue", "0123"); err == nil {
			t.Errorf("%q accepted", answer)
		}
	}
	if err := CheckNetwork([]string{"false"}, "n.nnue", "0123"); err == nil {
		t.Error("a failing engine accepted")
	}
}

func TestNetworkIDIsReadFromTheExport(t *testing.T) {
	m := networkID.FindStringSubmatch("wrote data/nnue-recipe/net.nnue: network 0123456789abcdef\n")
	if m == nil || m[1] != "0123456789abcdef" {
		t.Errorf("match %q", m)
	}
}

// scripts returns a function that writes a shell script of the given body
// into a temporary directory and returns its path: a stand-in for python or
// chessforge-nnue.
func scripts(t *testing.T) func(name, body string) string {
	dir := t.TempDir()
	return func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

// TestCheckTorchNamesTheMissingModule runs CheckTorch with stand-ins for
// python: one that imports everything, one that lacks numpy.
func TestCheckTorchNamesTheMissingModule(t *testing.T) {
	write := scripts(t)
	if err := CheckTorch(write("good", "exit 0\n")); err != nil {
		t.Fatalf("a python that imports both: %v", err)
	}
	bad := write("bad", "echo 'Traceback (most recent call last):' >&2\necho \"ModuleNotFoundError: No module named 'numpy'\" >&2\nexit 1\n")
	err := CheckTorch(bad)
	if err == nil {
		t.Fatal("a python without numpy passed")
	}
	for _, want := range []string{bad, "No module named 'numpy'", "apt-get install python3-numpy python3-torch"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestFitPawnScaleReturnsTheNewID runs FitPawnScale with stand-ins for
// chessforge-nnue: one that echoes its arguments and the id a --write
// prints, one that fails, one that writes no id.
func TestFitPawnScaleReturnsTheNewID(t *testing.T) {
	write := scripts(t)
	good := write("good", "echo \"args: $*\"\necho 'pawn table 70 70 100 120 128'\necho \"wrote $4: network 00112233aabbccdd\"\n")
	var out bytes.Buffer
	id, err := FitPawnScale(&out, io.Discard, good, "n.nnue", []string{"npy", "more.parquet"}, []string{"--every", "4"})
	if err != nil || id != "00112233aabbccdd" {
		t.Fatalf("id %q, %v; want 00112233aabbccdd", id, err)
	}
	if want := "args: pawnscale npy more.parquet --network n.nnue --write --every 4\n"; !strings.Contains(out.String(), want) {
		t.Errorf("output %q lacks %q", out.String(), want)
	}
	// The stage with its settings: fitted with its arguments, or skipped.
	out.Reset()
	dir := t.TempDir()
	net := filepath.Join(dir, "n.nnue")
	if id, err := (PawnTable{Fit: true, Args: []string{"--every", "2"}}).Run(&out, io.Discard, good, net, "old", []string{"npy"}, ""); err != nil ||
		id != "00112233aabbccdd" || !strings.Contains(out.String(), "args: pawnscale npy --network "+net+" --write --every 2\n") {
		t.Errorf("the stage fitted: id %q, %v\n%s", id, err, out.String())
	}
	// With a reference network the level is fitted to its scale.
	out.Reset()
	os.Remove(PawnStampFile(net))
	if id, err := (PawnTable{Fit: true, Args: []string{"--every", "2"}}).Run(&out, io.Discard, good, net, "old", []string{"npy"}, "base.nnue"); err != nil ||
		id != "00112233aabbccdd" || !strings.Contains(out.String(), "args: pawnscale npy --network "+net+" --write --every 2 --level-of base.nnue\n") {
		t.Errorf("the stage fitted at the reference's level: id %q, %v\n%s", id, err, out.String())
	}
	out.Reset()
	if id, err := (PawnTable{}).Run(&out, io.Discard, good, net, "old", []string{"npy"}, "base.nnue"); err != nil || id != "old" ||
		!strings.Contains(out.String(), "pawn table: skipped, fit-pawn-scale is false") || strings.Contains(out.String(), "args:") {
		t.Errorf("the stage skipped: id %q, %v\n%s", id, err, out.String())
	}
	if _, err := FitPawnScale(io.Discard, io.Discard, write("fails", "echo 'too few positions' >&2\nexit 1\n"), "n.nnue", []string{"npy"}, nil); err == nil ||
		!strings.Contains(err.Error(), "pawn table failed") {
		t.Errorf("a failing fit: %v", err)
	}
	if _, err := FitPawnScale(io.Discard, io.Discard, write("silent", "exit 0\n"), "n.nnue", []string{"npy"}, nil); err == nil ||
		!strings.Contains(err.Error(), "wrote no network id") {
		t.Errorf("a fit without an id: %v", err)
	}
	if _, err := FitPawnScale(io.Discard, io.Discard, write("tableless", "echo 'wrote n.nnue: network 00112233aabbccdd'\n"), "n.nnue", []string{"npy"}, nil); err == nil ||
		!strings.Contains(err.Error(), "wrote no table") {
		t.Errorf("a fit without a table: %v", err)
	}
}

// TestPawnTableIsFittedOncePerNetworkAndData runs the stage twice on the
// same exported network and data, as a resumed loop does: the second run
// writes the recorded table back instead of fitting. Another network,
// other arguments, changed data or a changed trainer fit again, as does a
// record that the table no longer turns into the recorded network; an
// export without an id is never recorded.
func TestPawnTableIsFittedOncePerNetworkAndData(t *testing.T) {
	write := scripts(t)
	// A stand-in for chessforge-nnue: pawnscale and table --set; the id
	// the file gets is $ID's, else 00112233aabbccdd.
	body := `case "$1" in
pawnscale) echo "fit: $*"; echo 'pawn table 70 70 100 120 128'; echo "wrote n.nnue: network ${ID:-00112233aabbccdd}";;
table) echo "set: $*"; echo "wrote $2: network ${ID:-00112233aabbccdd}";;
esac
`
	trainer := write("nnue", body)
	dir := t.TempDir()
	net, data := filepath.Join(dir, "n.nnue"), filepath.Join(dir, "npy")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(data, "part-00000-planes.npy")
	if err := os.WriteFile(shard, []byte("rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	const a, b = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb" // exported ids
	stage := PawnTable{Fit: true, Args: []string{"--every", "4"}}
	levelOf := "" // the reference network whose scale the level takes
	run := func(exported string) (string, string) {
		t.Helper()
		var out bytes.Buffer
		id, err := stage.Run(&out, io.Discard, trainer, net, exported, []string{data}, levelOf)
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return id, out.String()
	}
	fitted := func(out string) bool { return strings.Contains(out, "fit: pawnscale") }

	if id, out := run(a); id != "00112233aabbccdd" || !fitted(out) {
		t.Fatalf("first run: id %s\n%s", id, out)
	}
	id, out := run(a)
	if id != "00112233aabbccdd" || fitted(out) || !strings.Contains(out, "set: table "+net+" --set 70,70,100,120,128") ||
		!strings.Contains(out, "fitted before for network "+a) {
		t.Errorf("the same network and data again: id %s, want the table written back without a fit\n%s", id, out)
	}
	if _, out := run(b); !fitted(out) {
		t.Errorf("another exported network was not fitted\n%s", out)
	}
	run(a)
	stage.Args = []string{"--every", "2"}
	if _, out := run(a); !fitted(out) {
		t.Errorf("other arguments were not fitted\n%s", out)
	}
	if err := os.WriteFile(shard, []byte("more rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out := run(a); !fitted(out) {
		t.Errorf("changed data was not fitted\n%s", out)
	}
	write("nnue", body+"# changed\n")
	if _, out := run(a); !fitted(out) {
		t.Errorf("a changed trainer was not fitted\n%s", out)
	}
	// A level fitted to a reference network: fitted once, and again when
	// the reference changes.
	levelOf = filepath.Join(dir, "base.nnue")
	if err := os.WriteFile(levelOf, []byte("net"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out := run(a); !fitted(out) || !strings.Contains(out, "--level-of "+levelOf) {
		t.Errorf("a level of a reference was not fitted\n%s", out)
	}
	if _, out := run(a); fitted(out) {
		t.Errorf("the same reference was fitted again\n%s", out)
	}
	if err := os.WriteFile(levelOf, []byte("another net"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out := run(a); !fitted(out) {
		t.Errorf("a changed reference was not fitted\n%s", out)
	}
	levelOf = ""
	run(a)
	t.Setenv("ID", "ffffffffffffffff")
	if id, out := run(a); id != "ffffffffffffffff" || !fitted(out) || !strings.Contains(out, "could not be applied (the table gave network ffffffffffffffff, the record 00112233aabbccdd): fitting again") {
		t.Errorf("a record the table no longer matches: id %s\n%s", id, out)
	}
	os.Remove(PawnStampFile(net))
	run("?")
	if _, out := run("?"); !fitted(out) {
		t.Errorf("an export without an id was not fitted again\n%s", out)
	}
	if _, err := os.Stat(PawnStampFile(net)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an export without an id was recorded: %v", err)
	}
}

// TestPawnTableTooFewPositionsKeepsTheExportsTable runs the stage with a
// stand-in for chessforge-nnue that answers as pawnscale does on a tiny
// dataset (exit status ExitTooFewRows, the file untouched): the stage says
// so in one line, returns the exported id and records no fit, so the
// recipe goes on to its match. Any other failure still fails the stage.
func TestPawnTableTooFewPositionsKeepsTheExportsTable(t *testing.T) {
	write := scripts(t)
	tiny := write("tiny", "echo 'chessforge-nnue: 775 rows with four or more pawns for the side ahead, want at least 1000' >&2\nexit 3\n")
	dir := t.TempDir()
	net, data := filepath.Join(dir, "n.nnue"), filepath.Join(dir, "npy")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "part-00000-planes.npy"), []byte("24 games"), 0o644); err != nil {
		t.Fatal(err)
	}
	const exported = "aaaaaaaaaaaaaaaa"
	var out, errOut bytes.Buffer
	stage := PawnTable{Fit: true}
	id, err := stage.Run(&out, &errOut, tiny, net, exported, []string{data}, "")
	if err != nil || id != exported {
		t.Fatalf("id %q, %v; want the export's %s and no error\n%s", id, err, exported, out.String())
	}
	want := "pawn table: kept the export's, too few positions in " + data + " to fit one (network " + exported + ")\n"
	if !strings.HasSuffix(out.String(), want) || strings.Count(out.String(), "pawn table: kept") != 1 {
		t.Errorf("output %q, want it to end with %q", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "want at least 1000") {
		t.Errorf("the trainer's reason is not passed on: %q", errOut.String())
	}
	if _, err := os.Stat(PawnStampFile(net)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a fit that did not happen was recorded: %v", err)
	}
	// With a reference network's level the same.
	if id, err := stage.Run(io.Discard, io.Discard, tiny, net, exported, []string{data}, filepath.Join(dir, "base.nnue")); err != nil || id != exported {
		t.Errorf("with a level of a reference: id %q, %v", id, err)
	}
	// Another exit status is a failure.
	for _, code := range []string{"1", "2", "4"} {
		fails := write("fails"+code, "echo 'chessforge-nnue: cannot read' >&2\nexit "+code+"\n")
		if _, err := stage.Run(io.Discard, io.Discard, fails, net, exported, []string{data}, ""); err == nil || !strings.Contains(err.Error(), "pawn table failed: exit status "+code) {
			t.Errorf("exit status %s: %v, want the stage to fail", code, err)
		}
	}
}
