package selfplay

import (
	"chessforge/datasets/fixture"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"chessforge/datasets"
	"chessforge/datasets/verify"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/nnue"
	"chessforge/engine/uci"
	"chessforge/selfplay/match/matchtest"
)

// TestMain lets the test binary act as a self-play process for the tests
// that kill one or limit its file size, and as the fake UCI engine of
// matchtest for the tests of outside engines.
func TestMain(m *testing.M) {
	if cfg := os.Getenv("SELFPLAY_TEST_HELPER"); cfg != "" {
		os.Exit(helperProcess(cfg))
	}
	os.Exit(matchtest.Run(m))
}

// helperProcess runs the job given as JSON, with the file size limit
// SELFPLAY_TEST_FSIZE when set, and prints the summary as JSON.
func helperProcess(cfgJSON string) int {
	var cfg Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if s := os.Getenv("SELFPLAY_TEST_FSIZE"); s != "" {
		n, _ := strconv.ParseUint(s, 10, 64)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	opt := Options{}
	if s := os.Getenv("SELFPLAY_TEST_PAUSE"); s != "" {
		// Stop still once that many games are written, and wait to be killed.
		n, _ := strconv.Atoi(s)
		opt.afterWrite = func(done int) {
			if done == n {
				fmt.Println("paused")
				time.Sleep(time.Hour)
			}
		}
	}
	sum, err := Run(context.Background(), cfg, opt)
	if sum != nil {
		json.NewEncoder(os.Stdout).Encode(sum)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// readRows reads a dataset (file or directory) whole, in file order.

// verifyRows does what `dataset verify` does and more, from the rows alone:
// it replays each game from its first row's FEN, re-derives every row's
// planes and policy, checks that each move is legal and leads to the next
// row, and that the game's result follows from its final position or the
// adjudication rule applied to the recorded scores. The rows must be written
// from ply 0 with no score filter.
func verifyRows(t *testing.T, cfg *Config, rows []datasets.Row) (games int) {
	t.Helper()
	var planes encoder.Planes
	for len(rows) > 0 {
		id := rows[0].GameID
		n := 1
		for n < len(rows) && rows[n].GameID == id {
			n++
		}
		game := rows[:n]
		rows = rows[n:]
		games++
		if game[0].Ply != 0 {
			t.Fatalf("game %d starts at ply %d", id, game[0].Ply)
		}
		pos, err := board.ParseFEN(game[0].FEN)
		if err != nil {
			t.Fatalf("game %d: %v", id, err)
		}
		g := &Game{Number: GameNumber(id), ID: id, StartFEN: game[0].FEN, Result: game[0].Result, Termination: game[0].Termination}
		for i, r := range game {
			if int(r.Ply) != i || r.FEN != pos.FEN() {
				t.Fatalf("game %d row %d: ply %d fen %q, replay gives %q", id, i, r.Ply, r.FEN, pos.FEN())
			}
			encoder.EncodeTo(&planes, pos)
			if planes != r.Planes {
				t.Fatalf("game %d ply %d: planes differ from the re-derived ones", id, i)
			}
			best, err := pos.ParseUCIMove(r.BestMove)
			if err != nil {
				t.Fatalf("game %d ply %d: best move: %v", id, i, err)
			}
			if p, _ := encoder.PolicyIndex(best); int(r.Policy) != p {
				t.Fatalf("game %d ply %d: policy %d, re-derived %d", id, i, r.Policy, p)
			}
			m, err := pos.ParseUCIMove(r.Move)
			if err != nil {
				t.Fatalf("game %d ply %d: move: %v", id, i, err)
			}
			if r.Result != g.Result || r.Termination != g.Termination {
				t.Fatalf("game %d ply %d: result or termination differs within the game", id, i)
			}
			g.Plies = append(g.Plies, Ply{Move: m, Best: best, Score: r.ScoreCP, Searched: true})
			pos.MakeMove(m)
		}
		checkResult(t, cfg, g, pos)
	}
	return games
}

func runJob(t *testing.T, cfg Config, opt Options) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestRunWritesADatasetThatVerifies(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Out = filepath.Join(dir, "out.parquet")
	cfg.PGN = filepath.Join(dir, "games.pgn")
	sum := runJob(t, cfg, Options{})
	rows := fixture.Rows(t, cfg.Out)
	checkVerify(t, cfg.Out, len(rows))
	if n := verifyRows(t, &cfg, rows); n != cfg.Games || sum.Games != cfg.Games || sum.Positions != int64(len(rows)) {
		t.Fatalf("%d games in the file, summary %d games %d positions, %d rows", n, sum.Games, sum.Positions, len(rows))
	}
	if sum.Interrupted || len(sum.Files) != 1 || sum.Files[0] != cfg.Out {
		t.Fatalf("summary %+v", sum)
	}
	if sum.Unique < 1 || sum.Unique > sum.Positions || sum.Wins+sum.Draws+sum.Losses != cfg.Games {
		t.Fatalf("summary counts %+v", sum)
	}
	if !strings.HasPrefix(sum.Line(), fmt.Sprintf("selfplay: %d games, %d positions, ", cfg.Games, len(rows))) ||
		!strings.HasSuffix(sum.Line(), " positions/s") {
		t.Fatalf("summary line %q", sum.Line())
	}
	// The file's metadata names the engine and the job, seed included.
	meta := footer(t, cfg.Out)
	var job map[string]any
	if err := json.Unmarshal([]byte(meta[datasets.KeyConfig]), &job); err != nil {
		t.Fatal(err)
	}
	if meta[datasets.KeyEngineVersion] != uci.Version || job["seed"] != float64(cfg.Seed) || job["nodes"] != float64(cfg.Nodes) ||
		meta[KeyShard] != "1/1" || meta[KeyGames] != "0-6" || meta[KeyEval] != EvalNNUE || meta[KeyNetwork] != embeddedID(t) ||
		job["nnue"] != true || job["network"] != embeddedID(t) {
		t.Fatalf("metadata %v", meta)
	}
	pgn, err := os.ReadFile(cfg.PGN)
	if err != nil || strings.Count(string(pgn), "[Event ") != cfg.Games {
		t.Fatalf("PGN: %v, %d games", err, strings.Count(string(pgn), "[Event "))
	}
}

// TestRunWithANetworkRecordsIt plays with a network file: the games differ
// from the hand-crafted evaluation's, and the metadata and the job record
// name the evaluation and the network.
func TestRunWithANetworkRecordsIt(t *testing.T) {
	dir := t.TempDir()
	net := nnue.Random(9, nnue.DefaultHidden, 8)
	netPath := filepath.Join(dir, "test.nnue")
	f, err := os.Create(netPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg := tinyConfig()
	cfg.Games = 2
	cfg.NNUE, cfg.EvalFile = true, netPath
	cfg.Out = filepath.Join(dir, "nnue.parquet")
	runJob(t, cfg, Options{})
	checkVerify(t, cfg.Out, len(fixture.Rows(t, cfg.Out)))
	meta := footer(t, cfg.Out)
	var job map[string]any
	if err := json.Unmarshal([]byte(meta[datasets.KeyConfig]), &job); err != nil {
		t.Fatal(err)
	}
	if meta[KeyEval] != EvalNNUE || meta[KeyNetwork] != net.ID() || job["nnue"] != true ||
		job["eval-file"] != "test.nnue" || job["network"] != net.ID() {
		t.Fatalf("metadata %v", meta)
	}
	// A file that is not a network stops the run before any game, naming it.
	bad := filepath.Join(dir, "bad.nnue")
	writeFile(t, bad, "not a network")
	cfg.EvalFile, cfg.Out = bad, filepath.Join(dir, "bad.parquet")
	if _, err := Run(context.Background(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a bad network file: %v", err)
	}
	// -eval-file with -nnue=false is refused.
	cfg.NNUE = false
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "-nnue=false plays the hand-crafted evaluation") {
		t.Fatalf("-eval-file with -nnue=false: %v", err)
	}
}

// TestNNUEFalsePlaysTheHandCraftedEvaluation checks that -nnue=false plays
// other games than the default, the embedded network, and says so in the
// metadata, with no network.
func TestNNUEFalsePlaysTheHandCraftedEvaluation(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games = 2
	cfg.Out = filepath.Join(dir, "net.parquet")
	runJob(t, cfg, Options{})
	cfg.NNUE = false
	cfg.Out = filepath.Join(dir, "hce.parquet")
	runJob(t, cfg, Options{})
	net, hce := fixture.Rows(t, filepath.Join(dir, "net.parquet")), fixture.Rows(t, cfg.Out)
	checkVerify(t, cfg.Out, len(hce))
	meta := footer(t, cfg.Out)
	if meta[KeyEval] != EvalHandCrafted || meta[KeyNetwork] != "" || strings.Contains(meta[datasets.KeyConfig], `"nnue"`) {
		t.Fatalf("metadata of -nnue=false %v", meta)
	}
	same := len(net) == len(hce)
	for i := 0; same && i < len(net); i++ {
		same = net[i].ScoreCP == hce[i].ScoreCP && net[i].Move == hce[i].Move
	}
	if same {
		t.Fatal("-nnue=false played the same games, with the same scores, as the network")
	}
}

// embeddedID returns the id of the network embedded in the engine.
func embeddedID(t *testing.T) string {
	t.Helper()
	net, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	return net.ID()
}

// checkVerify runs what `bin/dataset verify` runs on a dataset and wants
// every row to match.
func checkVerify(t *testing.T, path string, rows int) {
	t.Helper()
	rep, err := verify.Dataset(path, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != int64(rows) || rep.Mismatches != 0 {
		t.Fatalf("verify %s: %d rows, %d mismatches (want %d rows): %+v", path, rep.Rows, rep.Mismatches, rows, rep.First)
	}
}

// TestScoreCapAtReadTimeLeavesGamesWhole runs the default job (rows from
// ply 8, MultiPV openings): every game's rows run from ply 8 to its end, so
// verify replays each as one chain, big scores included; the score cap is a
// read-time filter, which drops exactly the rows beyond it.
func TestScoreCapAtReadTimeLeavesGamesWhole(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Games, cfg.Nodes, cfg.Hash, cfg.MaxPlies = 3, 200, 1, 60
	cfg.Out = filepath.Join(t.TempDir(), "d.parquet")
	sum := runJob(t, cfg, Options{})
	checkVerify(t, cfg.Out, int(sum.Positions))
	rep, err := verify.Dataset(cfg.Out, verify.Options{})
	if err != nil || rep.Games != int64(cfg.Games) {
		t.Fatalf("verify: %v, %d games, want %d", err, rep.Games, cfg.Games)
	}
	const maxScore = 300
	rows := fixture.Rows(t, cfg.Out)
	var want []datasets.Row
	holes := 0 // rows beyond the cap with a later row of their game: the old write filter's holes
	for i, r := range rows {
		if i == 0 || r.GameID != rows[i-1].GameID {
			if r.Ply != 8 {
				t.Fatalf("game %d starts at ply %d, want 8", r.GameID, r.Ply)
			}
		} else if r.Ply != rows[i-1].Ply+1 {
			t.Fatalf("game %d: ply %d follows ply %d", r.GameID, r.Ply, rows[i-1].Ply)
		}
		if r.ScoreCP >= -maxScore && r.ScoreCP <= maxScore {
			want = append(want, r)
		} else if i+1 < len(rows) && rows[i+1].GameID == r.GameID {
			holes++
		}
	}
	if holes == 0 {
		t.Fatal("no game scores beyond the cap in its middle: the test proves nothing")
	}
	rd, err := datasets.Open(cfg.Out, &datasets.ReaderOptions{Filter: datasets.Filter{MaxScore: maxScore}})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i := 0; ; i++ {
		var r datasets.Row
		err := rd.Read(&r)
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("the filter kept %d rows, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) || r.GameID != want[i].GameID || r.Ply != want[i].Ply {
			t.Fatalf("filtered row %d: game %d ply %d, want the %d-th row within the cap", i, r.GameID, r.Ply, i)
		}
	}
	t.Logf("%d rows, %d within |score| <= %d, %d beyond it in mid-game", len(rows), len(want), maxScore, holes)
}

// footer returns a dataset file's key-value metadata.
func footer(t *testing.T, path string) map[string]string {
	t.Helper()
	r, err := openFooter(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSameSeedGivesTheSameFilesWhateverTheWorkers(t *testing.T) {
	dir := t.TempDir()
	var files, pgns [][]byte
	for _, workers := range []int{1, 3} {
		cfg := tinyConfig()
		cfg.Games = 4
		cfg.Workers = workers
		cfg.Out = filepath.Join(dir, fmt.Sprintf("w%d.parquet", workers))
		cfg.PGN = filepath.Join(dir, fmt.Sprintf("w%d.pgn", workers))
		runJob(t, cfg, Options{})
		f, _ := os.ReadFile(cfg.Out)
		p, _ := os.ReadFile(cfg.PGN)
		files, pgns = append(files, f), append(pgns, p)
	}
	if len(files[0]) == 0 || string(files[0]) != string(files[1]) || string(pgns[0]) != string(pgns[1]) {
		t.Fatal("1 and 3 workers wrote different files")
	}
	cfg := tinyConfig()
	cfg.Games = 4
	cfg.Seed++
	cfg.Out = filepath.Join(dir, "other.parquet")
	runJob(t, cfg, Options{})
	if other := fixture.Rows(t, cfg.Out); reflect.DeepEqual(other, fixture.Rows(t, filepath.Join(dir, "w1.parquet"))) {
		t.Fatal("another seed wrote the same rows")
	}
}

func TestShardsTogetherWriteTheUnshardedDataset(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games = 5
	cfg.Out = filepath.Join(dir, "all.parquet")
	runJob(t, cfg, Options{})
	whole := fixture.Rows(t, cfg.Out)

	shared := filepath.Join(dir, "sharded")
	for k := 1; k <= 2; k++ {
		c := cfg
		c.Out, c.Shard, c.PGN = shared, fmt.Sprintf("%d/2", k), filepath.Join(dir, "g.pgn")
		sum := runJob(t, c, Options{})
		if sum.Total != []int{3, 2}[k-1] || len(sum.Files) != 1 || !strings.Contains(sum.Files[0], fmt.Sprintf("part-s%03dof002-", k)) {
			t.Fatalf("shard %d/2: summary %+v", k, sum)
		}
		if sum.PGN != filepath.Join(dir, fmt.Sprintf("g-s%03dof002.pgn", k)) {
			t.Fatalf("shard %d/2: PGN %s", k, sum.PGN)
		}
	}
	union := fixture.Rows(t, shared)
	checkVerify(t, shared, len(union))
	byGame := func(rows []datasets.Row) {
		slices.SortStableFunc(rows, func(a, b datasets.Row) int {
			if a.GameID != b.GameID {
				return int(a.GameID - b.GameID)
			}
			return int(a.Ply - b.Ply)
		})
	}
	byGame(union)
	byGame(whole)
	if len(union) != len(whole) || !reflect.DeepEqual(union, whole) {
		t.Fatalf("the shards wrote %d rows, the unsharded job %d, and they differ", len(union), len(whole))
	}
}

// fullJob plays the tiny five-game job uninterrupted into dir and returns
// its settings, its rows and its PGN.
func fullJob(t *testing.T, dir string) (Config, []datasets.Row, []byte) {
	t.Helper()
	cfg := tinyConfig()
	cfg.Games = 5
	cfg.Out, cfg.PGN = filepath.Join(dir, "full.parquet"), filepath.Join(dir, "full.pgn")
	runJob(t, cfg, Options{})
	pgnText, err := os.ReadFile(cfg.PGN)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, fixture.Rows(t, cfg.Out), pgnText
}

func TestStoppedRunResumesToTheUninterruptedGames(t *testing.T) {
	dir := t.TempDir()
	cfg, full, fullPGN := fullJob(t, dir)

	for _, layout := range []string{"directory", "single file"} {
		t.Run(layout, func(t *testing.T) {
			cfg := cfg
			cfg.PartGames = 2 // the stop comes in the middle of the second part
			cfg.Out = filepath.Join(dir, "cut-dir")
			if layout == "single file" {
				cfg.PartGames = 100
				cfg.Out = filepath.Join(dir, "cut.parquet")
			}
			cfg.PGN = cfg.Out + ".pgn"
			sum := runJob(t, cfg, Options{stopAfter: 3})
			if !sum.Interrupted || sum.Done != 3 || sum.Games != 3 {
				t.Fatalf("stopped run: %+v", sum)
			}
			part := fixture.Rows(t, cfg.Out) // the files left are valid datasets
			if n := verifyRows(t, &cfg, part); n != 3 || !reflect.DeepEqual(part, full[:len(part)]) {
				t.Fatalf("the stopped run left %d games, not the first 3 of the full run", n)
			}

			sum = runJob(t, cfg, Options{Resume: true})
			if sum.Interrupted || sum.Games != 2 || sum.Done != 5 {
				t.Fatalf("resumed run: %+v", sum)
			}
			if got := fixture.Rows(t, cfg.Out); !reflect.DeepEqual(got, full) {
				t.Fatalf("stopped and resumed: %d rows, uninterrupted %d, and they differ", len(got), len(full))
			}
			if got, _ := os.ReadFile(cfg.PGN); string(got) != string(fullPGN) {
				t.Fatal("the resumed PGN differs from the uninterrupted one")
			}
			// Resuming a finished job plays nothing.
			if sum = runJob(t, cfg, Options{Resume: true}); sum.Games != 0 || sum.Done != 5 {
				t.Fatalf("resuming a finished job: %+v", sum)
			}
		})
	}
}

func TestResumeRefusesAnotherJobAndRunRefusesToMixJobs(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 3, 1
	cfg.Out = filepath.Join(dir, "out")
	runJob(t, cfg, Options{})
	if _, err := Run(context.Background(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), "-resume") {
		t.Fatalf("a second run into the same directory: %v", err)
	}
	other := cfg
	other.Seed++
	if _, err := Run(context.Background(), other, Options{Resume: true}); err == nil || !strings.Contains(err.Error(), "part-s001of001-00000.parquet") {
		t.Fatalf("resuming with another seed: %v", err)
	}
	// A missing part (a gap in the games) is found.
	os.Remove(filepath.Join(dir, "out", "part-s001of001-00001.parquet"))
	if _, err := Run(context.Background(), cfg, Options{Resume: true}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("resuming with a gap: %v", err)
	}
}

func TestKilledRunLeavesValidFilesAndResumes(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 5, 2
	cfg.Out, cfg.PGN = filepath.Join(dir, "full.parquet"), filepath.Join(dir, "full.pgn")
	runJob(t, cfg, Options{})
	full := fixture.Rows(t, cfg.Out)
	fullPGN, _ := os.ReadFile(cfg.PGN)

	// Kill the process when the first part is closed and the second holds
	// one game under its temporary name.
	cfg.Out, cfg.PGN = filepath.Join(dir, "killed"), filepath.Join(dir, "killed.pgn")
	cmd := helperCommand(t, cfg)
	cmd.Env = append(cmd.Env, "SELFPLAY_TEST_PAUSE=3")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 7)
	if _, err := io.ReadFull(stdout, line); err != nil || string(line) != "paused\n" {
		cmd.Process.Kill()
		t.Fatalf("helper said %q, %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Out, "*"+datasets.TempSuffix)); len(tmp) != 1 {
		t.Fatalf("want the killed part's temporary file, found %v", tmp)
	}
	left := fixture.Rows(t, cfg.Out) // the finished files are valid
	if n := verifyRows(t, &cfg, left); n != 2 {
		t.Fatalf("the killed run left %d whole games, want 2", n)
	}
	sum := runJob(t, cfg, Options{Resume: true})
	if sum.Done != cfg.Games || sum.Games != 3 {
		t.Fatalf("resume: %+v", sum)
	}
	if got := fixture.Rows(t, cfg.Out); !reflect.DeepEqual(got, full) {
		t.Fatal("killed and resumed: the rows differ from the uninterrupted run's")
	}
	if got, _ := os.ReadFile(cfg.PGN); string(got) != string(fullPGN) {
		t.Fatal("killed and resumed: the PGN differs from the uninterrupted run's")
	}
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Out, "*"+datasets.TempSuffix)); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestWriteErrorStopsTheRunAndKeepsFinishedFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 6, 1
	// Find a job with a part larger than all before it: with the file size
	// limit set to the largest of those, the earlier parts fit and that one
	// cannot be written.
	var limit int64
	fail := -1
	for seed := uint64(1); fail < 0 && seed <= 20; seed++ {
		cfg.Seed = seed
		cfg.Out = filepath.Join(dir, fmt.Sprintf("sizes%d", seed))
		sum := runJob(t, cfg, Options{})
		limit = 0
		for i, f := range sum.Files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && st.Size() > limit {
				fail = i
				break
			}
			limit = max(limit, st.Size())
		}
	}
	if fail < 0 {
		t.Fatal("no job of 20 seeds has a part larger than the ones before it")
	}

	cfg.Out = filepath.Join(dir, "full-disk")
	cmd := helperCommand(t, cfg)
	cmd.Env = append(cmd.Env, fmt.Sprintf("SELFPLAY_TEST_FSIZE=%d", limit))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("helper: %v, stderr %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "writing the output") || !strings.Contains(stderr.String(), "file too large") {
		t.Fatalf("the error does not say what failed: %s", stderr.String())
	}
	var got Summary
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Done != fail || len(got.Files) != fail {
		t.Fatalf("stopped after %d games with %d files, want %d", got.Done, len(got.Files), fail)
	}
	rows := fixture.Rows(t, cfg.Out) // every file left is whole
	if n := verifyRows(t, &cfg, rows); n != fail {
		t.Fatalf("%d games left, want %d", n, fail)
	}
	if tmp, _ := filepath.Glob(filepath.Join(cfg.Out, "*"+datasets.TempSuffix)); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

// helperCommand runs this test binary as a self-play process for cfg.
func helperCommand(t *testing.T, cfg Config) *exec.Cmd {
	t.Helper()
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SELFPLAY_TEST_HELPER="+string(data))
	return cmd
}

func TestOutputPathsAreCheckedBeforeTheFirstGame(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, out, pgn, want string
	}{
		{"single file, missing directory", filepath.Join(dir, "missing", "x.parquet"), "", "-out " + filepath.Join(dir, "missing", "x.parquet") + ": directory " + filepath.Join(dir, "missing") + " does not exist"},
		{"single file under a file", filepath.Join(file, "x.parquet"), "", "is not a directory"},
		{"part directory under a file", filepath.Join(file, "parts"), "", "cannot create the directory"},
		{"pgn in a missing directory", filepath.Join(dir, "ok.parquet"), filepath.Join(dir, "nowhere", "g.pgn"), "-pgn " + filepath.Join(dir, "nowhere", "g.pgn") + ": directory " + filepath.Join(dir, "nowhere") + " does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.Out, cfg.PGN = c.out, c.pgn
			played := false
			sum, err := Run(context.Background(), cfg, Options{afterWrite: func(int) { played = true }})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			if sum != nil || played {
				t.Fatalf("a game was played before the error (summary %+v)", sum)
			}
		})
	}
	for _, p := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "nowhere")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was created", p)
		}
	}

	// The directory of part files -out names is made, with its parents,
	// and a PGN file may go in it.
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 2, 1
	cfg.Out = filepath.Join(dir, "new", "parts")
	cfg.PGN = filepath.Join(cfg.Out, "games.pgn")
	sum := runJob(t, cfg, Options{})
	if len(sum.Files) != 2 {
		t.Fatalf("files %v, want 2 parts", sum.Files)
	}
	if _, err := os.Stat(cfg.PGN); err != nil {
		t.Fatal(err)
	}
}

// A run from -first-game plays the job on from that game: its files and its
// PGN hold exactly the uninterrupted job's games from there, so a run stopped
// on one machine (its files kept elsewhere) is continued on another. Stopped
// and resumed, it is still those games; resumed without -first-game it says
// which to give.
func TestFirstGameContinuesTheJob(t *testing.T) {
	dir := t.TempDir()
	cfg, full, fullPGN := fullJob(t, dir)
	const first = 2
	from := slices.IndexFunc(full, func(r datasets.Row) bool { return r.GameID&0xffffffff == first })
	if from <= 0 {
		t.Fatalf("no rows of game %d in the full job", first)
	}
	tail := full[from:]

	for _, layout := range []string{"directory", "single file"} {
		t.Run(layout, func(t *testing.T) {
			cfg := cfg
			cfg.PartGames = 1
			cfg.Out = filepath.Join(dir, "cont-dir")
			if layout == "single file" {
				cfg.PartGames = 100
				cfg.Out = filepath.Join(dir, "cont.parquet")
			}
			cfg.PGN = cfg.Out + ".pgn"
			sum := runJob(t, cfg, Options{FirstGame: first, stopAfter: 1})
			if !sum.Interrupted || sum.Games != 1 || sum.Done != first+1 || sum.First != first {
				t.Fatalf("stopped run from game %d: %+v", first, sum)
			}
			if _, err := Run(context.Background(), cfg, Options{Resume: true}); err == nil || !strings.Contains(err.Error(), "-first-game 2") {
				t.Fatalf("resumed without -first-game: %v", err)
			}
			sum = runJob(t, cfg, Options{FirstGame: first, Resume: true})
			if sum.Interrupted || sum.Games != 2 || sum.Done != 5 {
				t.Fatalf("resumed run from game %d: %+v", first, sum)
			}
			got := fixture.Rows(t, cfg.Out)
			if n := verifyRows(t, &cfg, got); n != 3 || !reflect.DeepEqual(got, tail) {
				t.Fatalf("from game %d: %d games, %d rows; the full job's games from there have %d rows, and they differ", first, n, len(got), len(tail))
			}
			pgnText, _ := os.ReadFile(cfg.PGN)
			if len(pgnText) == 0 || len(pgnText) >= len(fullPGN) || !strings.HasSuffix(string(fullPGN), string(pgnText)) || !strings.HasPrefix(string(pgnText), "[Event") || !strings.Contains(string(pgnText), `[Round "3"]`) || strings.Contains(string(pgnText), `[Round "2"]`) {
				t.Fatalf("the PGN from game %d is not the full job's games from there:\n%s", first, pgnText)
			}
		})
	}
	if _, err := Run(context.Background(), cfg, Options{FirstGame: 6}); err == nil || !strings.Contains(err.Error(), "-first-game 6") {
		t.Fatalf("-first-game past the job's games: %v", err)
	}
}
