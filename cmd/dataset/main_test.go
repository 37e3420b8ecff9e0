package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/export"
	"chessforge/datasets/fixture"
	"chessforge/datasets/npy"
	"chessforge/datasets/reshard"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/selfplay"
)

// runCmd runs the command line and returns its exit status, standard
// output and standard error.
func runCmd(args ...string) (int, string, string) {
	var out, errw bytes.Buffer
	code := run(args, &out, &errw)
	return code, out.String(), errw.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// twoShards writes a directory of two fixture files and returns it with
// its row count.
func twoShards(t *testing.T) (string, int64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	os.Mkdir(dir, 0o755)
	var rows int64
	for i := 0; i < 2; i++ {
		n, err := fixture.Write(filepath.Join(dir, "part-"+strconv.Itoa(i)+".parquet"),
			fixture.Options{Games: 3, Seed: uint64(i + 1), FirstID: int64(100 * i), MaxPlies: 50})
		if err != nil {
			t.Fatal(err)
		}
		rows += n
	}
	return dir, rows
}

func TestInfoReportsRowsGamesAndSize(t *testing.T) {
	dir, rows := twoShards(t)
	code, out, errw := runCmd("info", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	for _, want := range []string{"rows:      " + strconv.FormatInt(rows, 10), "games:     6", "bytes per position",
		"planes", datasets.KeySchemaVersion + ": 1", "fixture playouts"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errw, "100%") {
		t.Errorf("no progress bar on standard error: %q", errw)
	}
}

func TestStatsReportsResultsLengthsScoresAndTerminations(t *testing.T) {
	dir, rows := twoShards(t)
	code, out, errw := runCmd("stats", "-quiet", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	for _, want := range []string{"rows " + strconv.FormatInt(rows, 10) + ", games 6", "White wins", "game length", "score_cp", "terminations"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	if errw != "" {
		t.Errorf("-quiet still wrote %q", errw)
	}
}

func TestHeadShowsRowsAndABoard(t *testing.T) {
	dir, _ := twoShards(t)
	code, out, errw := runCmd("head", dir, "-n", "3", "-board", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	rows := fixture.Rows(t, dir)[:3]
	for _, r := range rows {
		if !strings.Contains(out, r.FEN) || !strings.Contains(out, r.Move) {
			t.Errorf("head lacks row %s %s:\n%s", r.FEN, r.Move, out)
		}
	}
	pos, _ := board.ParseFEN(rows[1].FEN)
	if !strings.Contains(out, pos.String()) || !strings.Contains(out, "row 1 (game") {
		t.Errorf("head does not draw row 1:\n%s", out)
	}
	if n := strings.Count(out, "\n0 ") + strings.Count(out, "\n1 ") + strings.Count(out, "\n2 ") + strings.Count(out, "\n3 "); n != 3 {
		t.Errorf("%d table rows, want 3:\n%s", n, out)
	}
}

func TestVerifyLastLineCountsRowsAndMismatches(t *testing.T) {
	dir, rows := twoShards(t)
	code, out, _ := runCmd("verify", "-quiet", dir)
	if want := "verify: " + strconv.FormatInt(rows, 10) + " rows, 0 mismatches"; code != 0 || lastLine(out) != want {
		t.Fatalf("exit %d, last line %q; want 0 and %q", code, lastLine(out), want)
	}
	if !strings.Contains(out, "replayed 6 games") {
		t.Errorf("verify does not count the games:\n%s", out)
	}
	// One row with a wrong plane, another file with a wrong policy.
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	n, err := fixture.Write(bad, fixture.Options{Games: 2, Seed: 9, MaxPlies: 50, Mutate: func(i int64, r *datasets.Row) {
		if i == 42 {
			r.Planes[encoder.PlaneSideToMove*64+9] = 1 - r.Planes[encoder.PlaneSideToMove*64+9]
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd("verify", "-quiet", bad)
	if want := "verify: " + strconv.FormatInt(n, 10) + " rows, 1 mismatches"; code != 1 || lastLine(out) != want {
		t.Fatalf("exit %d, output %q; want 1 and %q", code, out, want)
	}
	if !strings.Contains(out, bad+": row 42 ") || !strings.Contains(out, "side to move") {
		t.Errorf("the mismatch is not named:\n%s", out)
	}
}

func TestSplitIsDeterministicAndByGame(t *testing.T) {
	dir, rows := twoShards(t)
	tmp := t.TempDir()
	var outs [2]string
	for i := range outs {
		outs[i] = filepath.Join(tmp, "s"+strconv.Itoa(i))
		code, out, errw := runCmd("split", dir, "-val", "0.4", "-out", outs[i], "-quiet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errw)
		}
		if !regexp.MustCompile(`^split: ` + strconv.FormatInt(rows, 10) + ` rows, train \d+ games, validation \d+ games`).MatchString(lastLine(out)) {
			t.Errorf("last line %q", lastLine(out))
		}
	}
	for _, name := range []string{reshard.TrainFile, reshard.ValidationFile} {
		a, b := fixture.Rows(t, filepath.Join(outs[0], name)), fixture.Rows(t, filepath.Join(outs[1], name))
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%s: %d and %d rows", name, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: row %d differs between runs", name, i)
			}
			if reshard.IsValidation(a[i].GameID, 0.4, 0) != (name == reshard.ValidationFile) {
				t.Fatalf("%s holds game %d of the other side", name, a[i].GameID)
			}
		}
	}
}

func TestMergeWithAndWithoutDedup(t *testing.T) {
	dir, rows := twoShards(t)
	tmp := t.TempDir()
	distinct := map[string]bool{}
	for _, r := range fixture.Rows(t, dir) {
		distinct[strings.Join(strings.Fields(r.FEN)[:4], " ")] = true
	}
	for _, c := range []struct {
		args    []string
		written int
	}{
		{[]string{filepath.Join(dir, "part-0.parquet"), filepath.Join(dir, "part-1.parquet"), "-out", filepath.Join(tmp, "all.parquet")}, int(rows)},
		{[]string{"-dedup", filepath.Join(dir, "*.parquet"), "-out", filepath.Join(tmp, "dedup.parquet")}, len(distinct)},
	} {
		code, out, errw := runCmd(append([]string{"merge", "-quiet"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errw)
		}
		want := "merge: 2 files, " + strconv.FormatInt(rows, 10) + " rows read, " + strconv.Itoa(c.written) + " written, " +
			strconv.Itoa(int(rows)-c.written) + " duplicates dropped"
		if !strings.HasPrefix(lastLine(out), want) {
			t.Errorf("%v: last line %q, want %q", c.args, lastLine(out), want)
		}
		if got := len(fixture.Rows(t, c.args[len(c.args)-1])); got != c.written {
			t.Errorf("%v: file has %d rows, want %d", c.args, got, c.written)
		}
	}
}

func TestExportEPDLinesParseBack(t *testing.T) {
	dir, rows := twoShards(t)
	out := filepath.Join(t.TempDir(), "d.epd")
	if code, _, errw := runCmd("export", "-format", "epd", dir, "-out", out, "-quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := fixture.Rows(t, dir)
	sc := bufio.NewScanner(f)
	var n int64
	for sc.Scan() {
		fen, res, _ := strings.Cut(sc.Text(), " [")
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if pos.FEN() != want[n].FEN || res != strconv.FormatFloat(float64(want[n].Result), 'f', 1, 32)+"]" {
			t.Fatalf("line %d %q, row %s %v", n+1, sc.Text(), want[n].FEN, want[n].Result)
		}
		n++
	}
	if n != rows {
		t.Errorf("%d lines, want %d", n, rows)
	}
}

// TestExportAndStatsTakeTheReadTimeFilters exports and counts with the
// filters given as flags and as a config file: the rows are those the
// filters keep, chosen here from the fixture's rows with the board.
func TestExportAndStatsTakeTheReadTimeFilters(t *testing.T) {
	dir, rows := twoShards(t)
	var want []string
	for _, r := range fixture.Rows(t, dir) {
		pos, _ := board.ParseFEN(r.FEN)
		best, err := pos.ParseUCIMove(r.BestMove)
		if err != nil {
			t.Fatal(err)
		}
		if r.Ply >= 4 && r.ScoreCP <= 150 && r.ScoreCP >= -150 && !pos.IsCapture(best) && !best.IsPromotion() {
			want = append(want, r.FEN)
		}
	}
	if len(want) == 0 || int64(len(want)) > rows*3/4 {
		t.Fatalf("the filters keep %d of %d rows: the fixture does not exercise them", len(want), rows)
	}
	config := filepath.Join(t.TempDir(), "filters.json")
	os.WriteFile(config, []byte(`{"min-ply": 4, "max-score": 150}`), 0o644)
	for _, args := range [][]string{
		{"-min-ply", "4", "-max-score", "150", "-skip-captures"},
		{"-config", config, "-skip-captures"},
	} {
		out := filepath.Join(t.TempDir(), "d.epd")
		code, stdout, errw := runCmd(append([]string{"export", "-format", "epd", dir, "-out", out, "-quiet"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errw)
		}
		data, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%v: %d lines, want %d", args, len(lines), len(want))
		}
		for i, l := range lines {
			if fen, _, _ := strings.Cut(l, " ["); fen != want[i] {
				t.Fatalf("%v: line %d is %s, want %s", args, i+1, fen, want[i])
			}
		}
		if s := fmt.Sprintf("read-time filters min-ply 4, max-score 150, skip-captures: kept %d of %d rows", len(want), rows); !strings.Contains(stdout, s) {
			t.Errorf("%v: output lacks %q:\n%s", args, s, stdout)
		}
		code, stdout, errw = runCmd(append([]string{"stats", "-quiet", dir}, args...)...)
		if code != 0 || !strings.Contains(stdout, fmt.Sprintf("rows %d, games 6", len(want))) ||
			!strings.Contains(stdout, fmt.Sprintf("kept %d of %d rows", len(want), rows)) {
			t.Errorf("stats %v: exit %d %s\n%s", args, code, errw, stdout)
		}
	}
}

func TestExportNPYRoundTrips(t *testing.T) {
	dir, rows := twoShards(t)
	out := filepath.Join(t.TempDir(), "npy")
	code, stdout, errw := runCmd("export", "-format", "npy", "-shard-rows", "100", dir, "-out", out, "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	if !strings.HasPrefix(lastLine(stdout), "export: "+strconv.FormatInt(rows, 10)+" rows") {
		t.Errorf("last line %q", lastLine(stdout))
	}
	m, err := export.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	want := fixture.Rows(t, dir)
	var planes encoder.Planes
	i := 0
	for _, s := range m.Shards {
		pa, err := npy.Load(filepath.Join(out, s.Planes))
		if err != nil {
			t.Fatal(err)
		}
		sa, err := npy.Load(filepath.Join(out, s.Scalars))
		if err != nil {
			t.Fatal(err)
		}
		packed, _ := pa.Uint8s()
		scalars, _ := sa.Float32s()
		for k := 0; k < s.Rows; k++ {
			export.Unpack(planes[:], packed[k*export.PackedBytes:], scalars[k*export.NumScalars:])
			if planes != want[i].Planes {
				t.Fatalf("row %d: planes differ after the round trip", i)
			}
			i++
		}
	}
	if int64(i) != rows {
		t.Errorf("%d rows back, want %d", i, rows)
	}
}

func TestBadCommandLinesAndFiles(t *testing.T) {
	dir, _ := twoShards(t)
	junk := filepath.Join(t.TempDir(), "junk.parquet")
	os.WriteFile(junk, []byte("not parquet at all"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"info"}, 2, "want a dataset PATH"},
		{[]string{"info", dir, dir}, 2, "want one dataset PATH, got 2"},
		{[]string{"split", dir}, 2, "-out DIR is required"},
		{[]string{"split", dir, "-out", "x", "-val", "2"}, 2, "not in [0, 1]"},
		{[]string{"merge", "-out", "x.parquet"}, 2, "at least one dataset"},
		{[]string{"export", "-format", "csv", dir, "-out", "x"}, 2, `"csv"`},
		{[]string{"export", "-format", "epd", dir, "-out", "x", "-max-score", "-5"}, 2, "-max-score -5: must not be negative"},
		{[]string{"stats", dir, "-config", filepath.Join(dir, "none.json")}, 2, "none.json"},
		{[]string{"head", "-n", "0", dir}, 2, "at least 1 row"},
		{[]string{"info", junk}, 1, junk},
		{[]string{"verify", "-quiet", filepath.Join(dir, "missing.parquet")}, 1, "missing.parquet"},
	}
	for _, c := range cases {
		code, _, errw := runCmd(c.args...)
		if code != c.code || !strings.Contains(errw, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errw, c.code, c.want)
		}
	}
}

// shardedJob plays a job of 10 games in 4 shards, parts of 2 games, into
// a directory, playing only the shards listed.
func shardedJob(t *testing.T, shards ...int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "job")
	for _, k := range shards {
		cfg := selfplay.DefaultConfig()
		cfg.Games, cfg.PartGames, cfg.Shard = 10, 2, fmt.Sprintf("%d/4", k)
		cfg.Nodes, cfg.Hash, cfg.MaxPlies, cfg.Workers = 100, 1, 30, 1
		cfg.Out = dir
		if _, err := selfplay.Run(context.Background(), cfg, selfplay.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestInfoReportsTheShardsAndGamesOfAJob(t *testing.T) {
	dir := shardedJob(t, 1, 3, 4)
	code, out, errw := runCmd("info", "-quiet", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	for _, want := range []string{
		"job:       10 games in 4 shards, 3 of 4 shards present, 7 of 10 games\n",
		"  shard 1/4: 3 of 3 games, complete (2 files)\n",
		"  missing shard 2/4: its 3 games, job games 1, 5, 9\n",
		"  shard 3/4: 2 of 2 games, complete (1 file)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// A part removed from a shard: its games are named.
	if err := os.Remove(filepath.Join(dir, "part-s001of004-00000.parquet")); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runCmd("info", "-quiet", dir)
	if want := "  shard 1/4: 1 of 3 games (1 file); missing: shard games 0-1 (job games 0, 4); continue with -shard 1/4 -resume\n"; !strings.Contains(out, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
}

func TestInfoOnAFileThatIsNotParquet(t *testing.T) {
	dir := t.TempDir()
	pgn := filepath.Join(dir, "selfplay.pgn")
	os.WriteFile(pgn, []byte("[Event \"chessforge self-play\"]\n\n1. e4 e5 *\n"), 0o644)
	code, out, errw := runCmd("info", pgn)
	want := "dataset info: datasets: " + pgn + ": not a Parquet file: it does not start with \"PAR1\""
	if code != 1 || out != "" || !strings.HasPrefix(errw, want) || strings.Count(errw, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errw, want)
	}
}
