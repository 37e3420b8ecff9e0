package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/internal/outlock"
	"chessforge/internal/record"
	"chessforge/selfplay"
	"chessforge/selfplay/match/uciclient"
)

// TestMain lets the test binary run as the command, for the signal test.
func TestMain(m *testing.M) {
	if args := os.Getenv("SELFPLAY_CMD_ARGS"); args != "" {
		os.Exit(run(strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestFlagsOverrideTheConfigFileWhichOverridesTheDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.json")
	os.WriteFile(path, []byte(`{"games": 40, "nodes": 800, "endgames": "KRPvKR", "pgn": "x.pgn"}`), 0o644)
	cfg, opt, err := parseArgs([]string{"-config", path, "-nodes", "300", "-seed", "9", "-resume", "-quiet"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := selfplay.DefaultConfig()
	want.Games, want.Endgames, want.PGN = 40, "KRPvKR", "x.pgn" // from the file
	want.Nodes, want.Seed = 300, 9                              // from the flags
	if !reflect.DeepEqual(cfg.Config, want) {
		t.Fatalf("got  %+v\nwant %+v", cfg.Config, want)
	}
	if !opt.Resume || opt.Progress != nil {
		t.Fatalf("options %+v", opt)
	}
	// A flag set to its default value still overrides the file.
	cfg, _, err = parseArgs([]string{"-config", path, "-games", "100"}, io.Discard, io.Discard)
	if err != nil || cfg.Games != 100 {
		t.Fatalf("games %d, %v", cfg.Games, err)
	}
}

// TestGameDamaTakesTheDraughtsDefaults checks that -game dama, from a flag
// or the config file, puts the draughts defaults under the file and the
// flags, which still override them.
func TestGameDamaTakesTheDraughtsDefaults(t *testing.T) {
	cfg, _, err := parseArgs([]string{"-game", "dama", "-games", "3"}, io.Discard, io.Discard)
	want := selfplay.DamaDefaults()
	want.Games = 3
	if err != nil || !reflect.DeepEqual(cfg.Config, want) {
		t.Fatalf("got  %+v (%v)\nwant %+v", cfg.Config, err, want)
	}
	path := filepath.Join(t.TempDir(), "job.json")
	os.WriteFile(path, []byte(`{"game": "dama", "resign-plies": 3, "endgames": "2Kv1K1M"}`), 0o644)
	cfg, _, err = parseArgs([]string{"-config", path, "-resign-score", "900"}, io.Discard, io.Discard)
	want = selfplay.DamaDefaults()
	want.ResignPlies, want.Endgames, want.ResignScore = 3, "2Kv1K1M", 900
	if err != nil || !reflect.DeepEqual(cfg.Config, want) {
		t.Fatalf("got  %+v (%v)\nwant %+v", cfg.Config, err, want)
	}
	if _, _, err := parseArgs([]string{"-game", "dama", "-endgames", "KRvK"}, io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "-endgames") {
		t.Fatalf("a chess signature for draughts: %v", err)
	}
}

func TestBadArgumentsAreNamed(t *testing.T) {
	removedConfig := filepath.Join(t.TempDir(), "removed.json")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-games", "0"}, "-games"},
		{[]string{"-shard", "5/4"}, "-shard"},
		{[]string{"-config", "/nonexistent/job.json"}, "job.json"},
		{[]string{"extra"}, `"extra"`},
		{[]string{"-multipv", "1"}, "-multipv"},
		// A soft limit at or above the hard one (the default -nodes 5000)
		// would never apply.
		{[]string{"-soft-nodes", "20000"}, "-soft-nodes 20000: -nodes 5000 would stop every search first"},
		{[]string{"-game", "dama", "-soft-nodes", "20000", "-nodes", "0"}, "-soft-nodes 20000: a soft node limit is the chess search's"},
		// The removed write filter says what replaced it, from a flag and
		// from a config file.
		{[]string{"-write-max-score", "3000"}, "-write-max-score 3000: write-max-score is removed"},
		{[]string{"-write-max-score", "3000"}, "read-time filter max-score"},
		{[]string{"-config", removedConfig}, `removed.json: line 1: key "write-max-score": write-max-score is removed`},
	}
	os.WriteFile(removedConfig, []byte(`{"write-max-score": 3000}`), 0o644)
	for _, tt := range tests {
		_, _, err := parseArgs(tt.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one naming %s", tt.args, err, tt.want)
		}
	}
	var stderr bytes.Buffer
	if code := run([]string{"-shard", "5/4", "-games", "2"}, io.Discard, &stderr); code == 0 || !strings.Contains(stderr.String(), "5/4") {
		t.Errorf("bad shard: exit %d, %q", code, stderr.String())
	}
}

var summaryLine = regexp.MustCompile(`^selfplay: (\d+) games, (\d+) positions, [0-9.]+ s, [0-9]+ positions/s$`)

func TestRunEndsWithTheSummaryLine(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-games", "2", "-nodes", "200", "-hash", "1", "-max-plies", "30", "-quiet",
		"-out", filepath.Join(dir, "o.parquet"), "-pgn", filepath.Join(dir, "o.pgn")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	m := summaryLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil || m[1] != "2" {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	for _, want := range []string{"unique positions:", "output: " + filepath.Join(dir, "o.parquet"), "pgn: " + filepath.Join(dir, "o.pgn")} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestSoftNodesRun: -nodes 0 -soft-nodes N is a budget of its own, and a
// soft limit the hard one makes useless is a usage error (exit 2).
func TestSoftNodesRun(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-games", "2", "-nodes", "0", "-soft-nodes", "300", "-hash", "1", "-max-plies", "30", "-quiet",
		"-out", filepath.Join(dir, "o.parquet")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("-nodes 0 -soft-nodes 300: exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if m := summaryLine.FindStringSubmatch(lines[len(lines)-1]); m == nil || m[1] != "2" {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	stderr.Reset()
	code = run([]string{"-games", "2", "-nodes", "300", "-soft-nodes", "300", "-quiet", "-out", filepath.Join(dir, "p.parquet")}, io.Discard, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "-soft-nodes 300: -nodes 300 would stop every search first") {
		t.Errorf("-nodes 300 -soft-nodes 300: exit %d, %q; want 2 and the reason", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "p.parquet")); !os.IsNotExist(err) {
		t.Errorf("a refused job left an output: %v", err)
	}
}

// interrupt runs the command in a child process, sends SIGINT once the
// output directory holds more part files than before, and returns the
// child's stdout and stderr after checking that it exits with status 130.
func interrupt(t *testing.T, args, out string, before int) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SELFPLAY_CMD_ARGS="+args)
	var outBuf bytes.Buffer
	cmd.Stdout = &outBuf
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if parts, _ := filepath.Glob(filepath.Join(out, "*.parquet")); len(parts) > before {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no new part file written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	errText, _ := io.ReadAll(bufio.NewReader(errPipe))
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v after SIGINT; stderr %s; stdout %s", err, errText, outBuf.String())
	}
	return outBuf.String(), string(errText)
}

func TestInterruptClosesTheFilesAndResumeContinuesTheJob(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// A job far too long to finish: both runs are interrupted.
	hist := filepath.Join(dir, "bench.jsonl")
	args := "-games 100000 -nodes 200 -hash 1 -max-plies 30 -workers 1 -part-games 3 -quiet -out " + out + " -record " + hist
	stdout, stderr := interrupt(t, args, out, 0)
	if !strings.Contains(stderr, "stopping") || !strings.Contains(stdout, "-resume") {
		t.Fatalf("the interrupted run does not say what happened:\n%s\n%s", stderr, stdout)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if summaryLine.FindStringSubmatch(lines[len(lines)-1]) == nil {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	first := checkParts(t, out)

	interrupt(t, args+" -resume", out, len(first))
	second := checkParts(t, out)
	if len(second) <= len(first) {
		t.Fatalf("the resumed run added no files: %v", second)
	}

	// Each run, though interrupted, left its record: the first its own
	// games, the second its own and the shard's so far.
	recs, err := record.Read(hist)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records after two interrupted runs: %v, %d", err, len(recs))
	}
	var games float64
	for i, r := range recs {
		f := r.Figures
		games += f["games"]
		if !strings.Contains(r.Note, "Interrupted") || f["shard_games"] != 100000 || f["shard_games_done"] != games {
			t.Errorf("record %d: note %q, figures %v: want an interrupted run with %v shard games done", i, r.Note, f, games)
		}
	}
	var from, to int
	fmt.Sscanf(first[len(first)-1], "%d-%d", &from, &to)
	if recs[0].Figures["games"] != float64(to) {
		t.Errorf("the first run's record counts %v games, its files hold %d", recs[0].Figures["games"], to)
	}
}

// checkParts checks that the output directory holds only valid part files
// whose game ranges follow each other from game 0, and returns the ranges.
func checkParts(t *testing.T, out string) []string {
	t.Helper()
	if tmp, _ := filepath.Glob(filepath.Join(out, "*"+datasets.TempSuffix)); len(tmp) > 0 {
		t.Fatalf("temporary files left after SIGINT: %v", tmp)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	var ranges []string
	next := 0
	for _, p := range parts {
		r, err := datasets.Open(p, nil) // a valid dataset file
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		f, err := file.OpenParquetFile(p, false)
		if err != nil {
			t.Fatal(err)
		}
		v := f.MetaData().KeyValueMetadata().FindValue(selfplay.KeyGames)
		f.Close()
		if v == nil {
			t.Fatalf("%s lacks %s", p, selfplay.KeyGames)
		}
		rng := *v
		var from, to int
		if _, err := fmt.Sscanf(rng, "%d-%d", &from, &to); err != nil || from != next || to <= from {
			t.Fatalf("%s holds games %q, want from %d", p, rng, next)
		}
		next = to
		ranges = append(ranges, rng)
	}
	return ranges
}

// TestOutputsOfALiveRunAndBadOutputsAreRefused checks, through the
// command, that an output another process holds is refused at once with
// exit 1 and the holder's pid, that an output that cannot be written
// leaves nothing behind, and that a config file with a key given twice is
// a usage error naming its line.
func TestOutputsOfALiveRunAndBadOutputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.parquet")
	l, err := outlock.Acquire(out)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"-games", "1", "-nodes", "100", "-quiet", "-out", out, "-resume"}, &stdout, &stderr)
	want := fmt.Sprintf("selfplay: -out %s is being written by process %d", out, os.Getpid())
	if code != 1 || !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("exit %d, stderr %q, want 1 and a line starting %q", code, stderr.String(), want)
	}
	l.Release()

	stderr.Reset()
	parts := filepath.Join(dir, "o")
	code = run([]string{"-games", "1", "-nodes", "100", "-quiet", "-out", parts, "-pgn", "/nonexistent/x.pgn"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "-pgn /nonexistent/x.pgn: directory /nonexistent does not exist") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(parts); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the failed run made %s: %v", parts, err)
	}

	stderr.Reset()
	config := filepath.Join(dir, "job.json")
	os.WriteFile(config, []byte("{\n  \"games\": 1,\n  \"games\": 2\n}\n"), 0o644)
	code = run([]string{"-config", config, "-out", out}, &stdout, &stderr)
	if want := `job.json: line 3: key "games" given twice (first on line 2)`; code != 2 || !strings.Contains(stderr.String(), want) {
		t.Fatalf("exit %d, stderr %q, want 2 and %q", code, stderr.String(), want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left in %s: %v", dir, entries)
	}
}

func TestAnOutputThatIsAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "book.epd")
	text := []byte("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
	if err := os.WriteFile(book, text, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.epd")
	if err := os.Symlink(book, link); err != nil {
		t.Fatal(err)
	}
	parts := filepath.Join(dir, "o")
	single := filepath.Join(dir, "x.parquet")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-book", book, "-out", parts, "-pgn", link}, "-pgn " + link + " is the input " + book},
		{[]string{"-book", book, "-out", parts, "-pgn", filepath.Join(dir, ".", "book.epd")}, "is the input " + book},
		{[]string{"-out", single, "-pgn", filepath.Join(dir, "o", "..", "x.parquet")}, "is the -out file " + single},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-games", "1", "-nodes", "100", "-quiet"}, c.args...)
		if code := run(args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr.String(), c.want)
		}
		if got, err := os.ReadFile(book); err != nil || !bytes.Equal(got, text) {
			t.Fatalf("%v: the book now holds %q (%v)", c.args, got, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left in %s: %v, want only the book and its link", dir, entries)
	}
}

// TestAPGNBesideANewDirectoryOfPartsIsMadeWithIt checks that a -pgn in a
// directory that making -out makes (as bin/nnue and the loop ask) is no
// missing directory, while one in another missing directory is.
func TestAPGNBesideANewDirectoryOfPartsIsMadeWithIt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "new", "selfplay", "job-1")
	pgn := filepath.Join(dir, "new", "selfplay", "job-1.pgn")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-games", "1", "-nodes", "100", "-quiet", "-out", out, "-pgn", pgn}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(pgn); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	other := filepath.Join(dir, "fresh")
	code := run([]string{"-games", "1", "-nodes", "100", "-quiet", "-out", filepath.Join(other, "job"), "-pgn", filepath.Join(other, "pgn", "x.pgn")}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "does not exist") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the failed run made %s: %v", other, err)
	}
}

func TestEngineFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.json")
	os.WriteFile(path, []byte(`{"engine": "sf -x", "engine-opt": ["Hash=8"], "movetime": 20}`), 0o644)
	cfg, _, err := parseArgs([]string{"-config", path, "-engine-opt", "Skill Level=3", "-engine-opt", "Threads=2", "-engine-timeout", "3s"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := selfplay.DefaultConfig()
	want.Engine, want.MoveTime = "sf -x", 20
	want.EngineOpt = uciclient.OptionList{{Name: "Skill Level", Value: "3"}, {Name: "Threads", Value: "2"}} // the flags replace the file's list
	want.EngineTimeout = configs.Duration(3 * time.Second)
	if !reflect.DeepEqual(cfg.Config, want) {
		t.Fatalf("got  %+v\nwant %+v", cfg.Config, want)
	}
}

// TestEngineThatDoesNotStartExits1 checks the message and status of a run
// whose -engine does not start, and of an -engine-opt the engine lacks.
func TestEngineThatDoesNotStartExits1(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.parquet")
	var stdout, stderr bytes.Buffer
	if rc := run([]string{"-engine", "/nonexistent/engine", "-games", "1", "-out", out, "-quiet"}, &stdout, &stderr); rc != 1 ||
		!strings.HasPrefix(stderr.String(), `selfplay: -engine /nonexistent/engine: uci: start "/nonexistent/engine"`) {
		t.Errorf("exit %d, stderr %q", rc, stderr.String())
	}
	if _, err := os.Stat("/usr/games/stockfish"); err != nil {
		t.Skip("no /usr/games/stockfish")
	}
	stderr.Reset()
	if rc := run([]string{"-engine", "/usr/games/stockfish", "-engine-opt", "Foo=1", "-games", "1", "-out", out, "-quiet"}, &stdout, &stderr); rc != 2 ||
		!strings.Contains(stderr.String(), `selfplay: -engine-opt Foo=1: engine Stockfish`) {
		t.Errorf("exit %d, stderr %q", rc, stderr.String())
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output made: %v", err)
	}
}

// TestTheShippedConfigPlaysDraughtsToo checks that the shipped job, whose
// "nnue": true is chess's default, also takes -game dama.
func TestTheShippedConfigPlaysDraughtsToo(t *testing.T) {
	cfg, _, err := parseArgs([]string{"-config", "../../configs/selfplay.json", "-game", "dama"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("-config configs/selfplay.json -game dama: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("-config configs/selfplay.json -game dama: %v", err)
	}
}
