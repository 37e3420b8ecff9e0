package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"chessforge/cmd/internal/stage"
	"chessforge/engine/nnue"
	"chessforge/internal/record"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/stats"
)

// networkRoot makes a directory to run the network cycle from, as from the
// repository root: bin/ with selfplay, dataset and engine built from this
// tree, a python environment whose chessforge-nnue is this tree's trainer
// run by Debian's python3 (which has torch), and a copy of the embedded
// network as network-file. The test runs in it.
func networkRoot(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import torch, numpy").CombinedOutput(); err != nil {
		t.Fatalf("the network cycle trains with Debian's python3-torch and python3-numpy (see the README's set-up): %v\n%s", err, out)
	}
	root := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(root, "bin")+"/", "./cmd/selfplay", "./cmd/dataset", "./cmd/engine")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := filepath.Join(root, "venv", "bin")
	os.MkdirAll(env, 0o755)
	script := "#!/bin/sh\nPYTHONPATH='" + filepath.Join(repo, "datasets", "python") + "' PYTHONDONTWRITEBYTECODE=1 exec /usr/bin/python3 -m chessforge_data.nnue \"$@\"\n"
	if err := os.WriteFile(filepath.Join(env, "chessforge-nnue"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/usr/bin/python3", filepath.Join(env, "python")); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(filepath.Join(root, "default.nnue"), filepath.Join(repo, "engine", "nnue", "default.nnue")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	return root
}

// tinyNetworkConfig is a network cycle of a few seconds: 12 self-play games
// a cycle, about half of them from rook endgames with one to three pawns
// (so that the pawn table has positions for each count however the search
// plays), exported in shards of 150 rows (so that some are held out for
// validation), one epoch of training on one CPU thread, the pawn table
// fitted to every scored position (a count needs one row), a match of two
// games at 300 nodes.
func tinyNetworkConfig() Config {
	c := defaultConfig()
	c.Cycle, c.WorkDir, c.PythonEnv, c.NetworkFile = cycleNNUE, "work", "venv", "default.nnue"
	c.SelfplayArgs = []string{"-games", "12", "-nodes", "200", "-workers", "2", "-quiet",
		"-endgames", "KRPvKR,KRPPvKR,KRPPPvKR", "-endgame-share", "0.5"}
	c.ExportArgs = []string{"-shard-rows", "150", "-quiet"}
	c.TrainArgs = []string{"--epochs", "1", "--batch-size", "128", "--threads", "1", "--progress", "0"}
	c.Args = []string{"--min-score", "1", "--min-rows", "1"}
	c.MatchArgs = []string{"-games", "2", "-tc", "nodes=300", "-concurrency", "2", "-sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05"}
	return c
}

// fakeMatch is a match seam that checks the match's command line and
// returns a result with the given SPRT decision, or fails.
func fakeMatch(t *testing.T, decision stats.Decision, fail error) stage.MatchFunc {
	return func(ctx context.Context, name string, args []string, stdout, stderr io.Writer) (*match.Result, error) {
		t.Helper()
		s, err := match.ParseArgs(args, io.Discard)
		if err != nil {
			t.Fatalf("match args %q: %v", args, err)
		}
		if got := s.AOpt.String() + " | " + s.BOpt.String(); !regexp.MustCompile(`^Use NNUE=true EvalFile=work/cycle-\d{4}/next\.nnue \| Use NNUE=true EvalFile=work/cycle-\d{4}/base\.nnue$`).MatchString(got) {
			t.Errorf("the engines' options %q", got)
		}
		if fail != nil {
			return nil, fail
		}
		stage.Start(stdout, name, append([]string{"bin/match"}, args...))
		tc := match.TimeControl{Kind: match.TCNodes, N: 300}
		return &match.Result{Names: [2]string{"next", "current"}, TC: [2]match.TimeControl{tc, tc}, Score: stats.Trinomial{W: 30, D: 40, L: 10},
			SPRT: &stats.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}, Decision: decision}, nil
	}
}

func same(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

func readResult(t *testing.T, n int) cycleResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cycleDir("work", n), "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r cycleResult
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

var summaryLine = regexp.MustCompile(`(?m)^loop: cycle (\d): Elo gain (.+) \((H1 accepted|H0 accepted|undecided)\), new network ([0-9a-f]{16}) (kept|reverted|kept and promoted to the embedded default), (\d+) positions, \d+(ms|s|m\d+s)$`)

// TestNetworkCycleEndToEnd runs the network cycle at a tiny size with the
// real binaries and trainer: cycle 1 interrupted after the first game of
// its match and resumed (self-play and export skipped, training resumed,
// the match's first game counted, not played again), its real two-game
// match reverting the new network; cycle 2 kept (a match seam accepting
// H1) and promoted; cycle 3, trained from the kept network's checkpoint,
// reverted (H0); and a cycle interrupted after its match's decision only
// finishes the keep-or-revert step. Each cycle's records go to a history
// file in the test's directory: the interrupted cycle's, then each
// decided cycle's match, network and cycle, none for the cycle finished
// from its result.json.
func TestNetworkCycleEndToEnd(t *testing.T) {
	networkRoot(t)
	cfg := tinyNetworkConfig()
	cfg.Record.File = "history.jsonl"
	var builds [][]string
	recordRun := func(name string, stdout, stderr io.Writer, args ...string) error {
		builds = append(builds, args)
		return nil
	}
	interrupted := fmt.Errorf("test: %w", stage.ErrInterrupted)

	// Cycle 1, interrupted after its match's first game: nothing kept,
	// nothing finished.
	var out, progress bytes.Buffer
	oneGame := func(ctx context.Context, name string, args []string, stdout, stderr io.Writer) (*match.Result, error) {
		fakeMatch(t, stats.AcceptH1, nil)(ctx, name, args, io.Discard, io.Discard) // checks the command line
		if _, err := stage.PlayMatch(ctx, name, append(args, "-games", "1"), stdout, stderr); err != nil {
			return nil, err
		}
		return nil, interrupted
	}
	err := runNetwork(context.Background(), cfg, &out, &progress, seams{run: recordRun, match: oneGame})
	if !errors.Is(err, interrupted) {
		t.Fatalf("error %v, want the match's\n%s\n%s", err, out.String(), progress.String())
	}
	first := out.String()
	for _, want := range []string{"loop: the first current network is default.nnue (network ", "\n== self-play: done in ",
		"\n== export to NumPy: done in ", "starting from work/cycle-0001/base.nnue\n", "starting network: val loss ", "\n== train: done in ",
		"\n== export epoch 1 (lowest validation loss of 1, ", "; the starting network's ",
		" pawn table: venv/bin/chessforge-nnue pawnscale work/npy --network work/cycle-0001/next.nnue --write --min-score 1 --min-rows 1 --level-of work/cycle-0001/base.nnue\n",
		"\nlevel ", "'s scores (table ", "\npawn table ", "\n== pawn table: done in "} {
		if !strings.Contains(first, want) {
			t.Errorf("cycle 1's first run does not say %q:\n%s", want, first)
		}
	}
	if !same(t, "work/current.nnue", "default.nnue") || summaryLine.MatchString(first) {
		t.Error("an interrupted cycle changed the current network or printed a summary")
	}
	for _, f := range []string{"result.json", "summary.txt"} {
		if _, err := os.Stat(filepath.Join("work/cycle-0001", f)); err == nil {
			t.Errorf("an interrupted cycle wrote %s", f)
		}
	}

	// Resumed: the self-play job is complete and the export current; the
	// training continues from its checkpoint; the real match plays.
	out.Reset()
	if err := runNetwork(context.Background(), cfg, &out, &progress, seams{run: recordRun, match: stage.PlayMatch}); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), progress.String())
	}
	resumed := out.String()
	for _, want := range []string{"export to NumPy: skipped, the self-play files are those of work/npy", "resumed from work/cycle-0001/train/epoch-0001.pt (epoch 1)",
		"match: the next network against the current one: bin/match -a bin/engine -a-name next -a-opt 'Use NNUE=true' -a-opt EvalFile=work/cycle-0001/next.nnue -b bin/engine -b-name current",
		"\nResumed:     1 of the games were played by an earlier run\n", "\nGames:       2 of 2 in ", "\nmatch: next vs current: "} {
		if !strings.Contains(resumed, want) {
			t.Errorf("the resumed cycle 1 does not say %q:\n%s", want, resumed)
		}
	}
	if strings.Contains(resumed, "== export to NumPy: done") || strings.Contains(resumed, "starting from") {
		t.Errorf("the resumed cycle exported or trained afresh:\n%s", resumed)
	}
	m := summaryLine.FindStringSubmatch(resumed)
	if m == nil || m[1] != "1" || m[5] != "reverted" || m[3] != "undecided" {
		t.Fatalf("cycle 1's summary (two games cannot keep a network):\n%s", resumed)
	}
	r1 := readResult(t, 1)
	if !same(t, "work/current.nnue", "default.nnue") || r1.Kept || r1.Next != m[4] || r1.Current == r1.Next {
		t.Errorf("cycle 1 reverted but the current network changed, or its result %+v", r1)
	}
	// The new network is the file with its fitted table, as the fit printed
	// it: fitted by the first run, written back by the resumed one (which
	// exported the same network again).
	next, err := nnue.LoadFile("work/cycle-0001/next.nnue")
	if err != nil {
		t.Fatal(err)
	}
	fits := regexp.MustCompile(`\npawn table (\d+( \d+)*)\n`).FindAllStringSubmatch(first+resumed, -1)
	again := regexp.MustCompile(`pawn table \(fitted before for network \S+ on these data: (\d+( \d+)*)\)`).FindStringSubmatch(resumed)
	if next.ID() != r1.Next || len(fits) != 1 || again == nil || again[1] != fits[0][1] ||
		fits[0][1] != strings.Trim(fmt.Sprint(next.PawnScale()), "[]") || strings.Contains(resumed, "chessforge-nnue pawnscale") {
		t.Errorf("next.nnue: network %s, table %v; the result's %s, the fits' %q, written back %q\n%s", next.ID(), next.PawnScale(), r1.Next, fits, again, resumed)
	}
	if _, err := os.Stat("work/current.pt"); err == nil {
		t.Error("a reverted network's checkpoint became the current one")
	}
	if text, _ := os.ReadFile("work/cycle-0001/summary.txt"); strings.TrimSpace(string(text)) != m[0] {
		t.Errorf("summary.txt %q, want %q", text, m[0])
	}

	// Cycles 2 and 3 in one run: kept and promoted, then reverted.
	decisions := []stats.Decision{stats.AcceptH1, stats.AcceptH0}
	twoCycles := func(ctx context.Context, name string, args []string, stdout, stderr io.Writer) (*match.Result, error) {
		d := decisions[0]
		decisions = decisions[1:]
		return fakeMatch(t, d, nil)(ctx, name, args, stdout, stderr)
	}
	cfg.Cycles, cfg.Promote = 2, true
	out.Reset()
	if err := runNetwork(context.Background(), cfg, &out, &progress, seams{run: recordRun, match: twoCycles}); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), progress.String())
	}
	text := out.String()
	lines := summaryLine.FindAllStringSubmatch(text, -1)
	if len(lines) != 2 || lines[0][1] != "2" || lines[0][5] != "kept and promoted to the embedded default" || lines[0][3] != "H1 accepted" ||
		lines[1][1] != "3" || lines[1][5] != "reverted" || lines[1][3] != "H0 accepted" {
		t.Fatalf("the summaries of cycles 2 and 3:\n%s", text)
	}
	r2, r3 := readResult(t, 2), readResult(t, 3)
	if !same(t, "work/current.nnue", "work/cycle-0002/next.nnue") || !same(t, "work/current.pt", r2.Checkpoint) ||
		!same(t, "default.nnue", "work/cycle-0002/next.nnue") || r3.Current != r2.Next {
		t.Error("cycle 2's network is not the current one, its checkpoint, the promoted default and cycle 3's base")
	}
	if len(builds) != 1 || !slices.Equal(builds[0], []string{"make", "build"}) {
		t.Errorf("rebuilds %q, want one make build after the promotion", builds)
	}
	// Each cycle trains on every cycle's positions, cycle 2 from the
	// network file (no checkpoint was kept before), cycle 3 from the
	// kept network's checkpoint.
	if !(r1.Positions < r2.Positions && r2.Positions < r3.Positions) {
		t.Errorf("training positions %d, %d, %d: want each cycle's data added", r1.Positions, r2.Positions, r3.Positions)
	}
	if !strings.Contains(text, "starting from work/cycle-0002/base.nnue\n") || !strings.Contains(text, "starting from work/cycle-0003/base.pt\n") ||
		!same(t, "work/cycle-0003/base.pt", "work/current.pt") {
		t.Errorf("cycles 2 and 3 did not start from the current network:\n%s", text)
	}
	if !strings.Contains(text, "-seed 2 -out work/cycle-0002/selfplay") || !strings.Contains(text, "-seed 3 -out work/cycle-0003/selfplay") {
		t.Errorf("the cycles' self-play seeds:\n%s", text)
	}

	// Interrupted after cycle 3's match decided: the rerun finishes it
	// without playing.
	os.Remove("work/cycle-0003/summary.txt")
	out.Reset()
	cfg.Cycles = 1
	if err := runNetwork(context.Background(), cfg, &out, &progress, seams{run: recordRun, match: fakeMatch(t, stats.AcceptH1, interrupted)}); err != nil {
		t.Fatal(err)
	}
	if m := summaryLine.FindStringSubmatch(out.String()); m == nil || m[1] != "3" || m[5] != "reverted" ||
		!strings.Contains(out.String(), "loop: cycle 3: its match has decided") || strings.Contains(out.String(), "== ") {
		t.Errorf("finishing cycle 3:\n%s", out.String())
	}
	if n, err := nextCycle("work"); err != nil || n != 4 {
		t.Errorf("next cycle %d, %v; want 4", n, err)
	}

	// The Texel cycle refuses to clear the network cycle's work.
	texel := defaultConfig()
	texel.WorkDir = "work"
	if err := runTexel(context.Background(), texel, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "holds the network cycle's work") {
		t.Errorf("the Texel cycle on the network cycle's work: %v", err)
	}
	if _, err := os.Stat("work/current.nnue"); err != nil {
		t.Error(err)
	}

	// The records: cycle 1 interrupted (undecided), then cycles 1 to 3
	// decided, each with its match and its network gated by it.
	recs, err := record.Read("history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range recs {
		kinds = append(kinds, r.Kind)
	}
	if want := "cycle match network cycle match network cycle match network cycle"; strings.Join(kinds, " ") != want {
		t.Fatalf("records %q, want %q", kinds, want)
	}
	if c := recs[0]; c.Loop != "loop-nnue" || *c.Cycle != 1 || c.Verdict != "undecided" || c.Match != "" || len(c.Stages) != 6 || c.Stages[5].Name != "match" {
		t.Errorf("the interrupted cycle's record %+v", c)
	}
	for i, want := range []struct {
		cycle   int
		verdict string
		result  cycleResult
		games   int
	}{{1, "reverted", r1, 2}, {2, "kept", r2, 80}, {3, "reverted", r3, 80}} {
		m, net, c := recs[1+3*i], recs[2+3*i], recs[3+3*i]
		if m.Games != want.games || m.Engines[0].Network != want.result.Next || m.Engines[1].Network != want.result.Current {
			t.Errorf("cycle %d: match record %+v", want.cycle, m)
		}
		if net.Network != want.result.Next || net.Parent != want.result.Current || net.Gate != m.ID || *net.Kept != want.result.Kept ||
			net.Positions != want.result.Positions || len(net.Epochs) == 0 || net.Arch == "" {
			t.Errorf("cycle %d: network record %+v", want.cycle, net)
		}
		if *c.Cycle != want.cycle || c.Verdict != want.verdict || c.Match != m.ID || c.Network != want.result.Next || c.Stages[len(c.Stages)-1].Name != "match" {
			t.Errorf("cycle %d: cycle record %+v", want.cycle, c)
		}
	}
}

func TestNetworkCycleNeedsAGoodNetworkFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("bin", 0o755)
	for _, b := range []string{"selfplay", "dataset", "engine"} {
		os.WriteFile(filepath.Join("bin", b), nil, 0o755)
	}
	os.WriteFile("bad.nnue", []byte("CFNN\x02"), 0o644)
	cfg := tinyNetworkConfig()
	cfg.NetworkFile = "bad.nnue"
	err := runNetwork(context.Background(), cfg, io.Discard, io.Discard, seams{})
	if err == nil || !strings.Contains(err.Error(), "bad.nnue") {
		t.Errorf("error %v, want one naming bad.nnue", err)
	}
	if _, err := os.Stat("work/current.nnue"); err == nil {
		t.Error("a bad network became the current one")
	}
	os.Remove("bin/engine")
	if err := runNetwork(context.Background(), cfg, io.Discard, io.Discard, seams{}); err == nil || err.Error() != "bin/engine is missing: run make build first" {
		t.Errorf("no engine: %v", err)
	}
}

// TestNetworkCycleTrainsOnTrainData runs a cycle whose training reads an
// earlier dataset (train-data) beside the cycle's own positions, and
// checks that a missing one stops the loop before any self-play.
func TestNetworkCycleTrainsOnTrainData(t *testing.T) {
	networkRoot(t)
	for _, args := range [][]string{
		{"bin/selfplay", "-games", "4", "-nodes", "200", "-seed", "77", "-workers", "2", "-quiet", "-out", "earlier.parquet"},
		{"bin/dataset", "export", "-format", "npy", "-shard-rows", "150", "-quiet", "earlier.parquet", "-out", "earlier"},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	cfg := tinyNetworkConfig()
	cfg.TrainData = []string{"missing", "earlier"}
	err := runNetwork(context.Background(), cfg, io.Discard, io.Discard, seams{match: fakeMatch(t, stats.AcceptH0, nil)})
	if err == nil || !strings.Contains(err.Error(), "train-data: stat missing: no such file") {
		t.Errorf("a missing train-data dataset: %v", err)
	}
	if _, err := os.Stat("work"); err == nil {
		t.Error("the loop started with a missing train-data dataset")
	}

	cfg.TrainData = []string{"earlier"}
	var out bytes.Buffer
	if err := runNetwork(context.Background(), cfg, &out, io.Discard, seams{match: fakeMatch(t, stats.AcceptH0, nil)}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "train work/npy earlier --out work/cycle-0001/train ") {
		t.Errorf("the training command does not read work/npy and earlier:\n%s", out.String())
	}
	rows := func(dir string) int64 {
		var m struct {
			Rows int64 `json:"rows"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil || m.Rows == 0 {
			t.Fatalf("%s: %v, %d rows", dir, err, m.Rows)
		}
		return m.Rows
	}
	// Training and validation positions together are both datasets' rows
	// (the tiny config has no filters).
	m := regexp.MustCompile(`(\d+) training positions, (\d+) validation`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no count of the training positions:\n%s", out.String())
	}
	trainRows, _ := strconv.ParseInt(m[1], 10, 64)
	valRows, _ := strconv.ParseInt(m[2], 10, 64)
	if want := rows("work/npy") + rows("earlier"); trainRows+valRows != want {
		t.Errorf("%d training and %d validation positions, want %d in all", trainRows, valRows, want)
	}
	if r := readResult(t, 1); r.Positions != trainRows {
		t.Errorf("the result's positions %d, the trainer's %d", r.Positions, trainRows)
	}
}
