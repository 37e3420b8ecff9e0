package selfplay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/engine/board"
	"chessforge/selfplay/match/matchtest"
	"chessforge/selfplay/match/uciclient"
)

func uciOption(name, value string) uciclient.Option {
	return uciclient.Option{Name: name, Value: value}
}

// syncBuffer is a log that the workers may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// engineConfig is tinyConfig for an outside engine: one worker, so that
// the engine's games repeat, and rows from ply 0 for verifyRows.
func engineConfig(t *testing.T, engine string) Config {
	c := tinyConfig()
	c.Engine = engine
	c.Games = 3
	c.Workers = 1
	c.Hash = 16 // Ethereal 12 aborts at Hash 1 (below its declared minimum, 2)
	c.Out = filepath.Join(t.TempDir(), "out.parquet")
	return c
}

// fakeEngine returns the command line of the fake engine of matchtest in
// the mode words give, quoted for -engine.
func fakeEngine(t *testing.T, words ...string) string {
	argv := matchtest.Command(t, words...)
	for i, w := range argv {
		argv[i] = "'" + w + "'"
	}
	return strings.Join(argv, " ")
}

// needEngine skips the test when Debian's engine is not installed.
func needEngine(t *testing.T, path string) {
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not installed (apt-get install %s)", path, filepath.Base(path))
	}
}

// checkEngineRun checks a run of an outside engine: its games are saved,
// its dataset verifies (bin/dataset verify and verifyRows), and its
// metadata names the engine.
func checkEngineRun(t *testing.T, cfg *Config, sum *Summary, name string) []datasets.Row {
	t.Helper()
	rows := fixture.Rows(t, cfg.Out)
	checkVerify(t, cfg.Out, len(rows))
	if n := verifyRows(t, cfg, rows); n != sum.Games || sum.Positions != int64(len(rows)) {
		t.Fatalf("%d games in the rows, summary %+v", n, sum)
	}
	meta := readMeta(t, cfg.Out)
	if !strings.HasPrefix(meta[KeyEngine], name) || meta[KeyEngineCommand] != cfg.Engine || meta[KeyEval] != EvalEngine || meta[KeyNetwork] != "" {
		t.Errorf("metadata %v: want engine %s..., its command %q, eval %s", meta, name, cfg.Engine, EvalEngine)
	}
	var job map[string]any
	if err := json.Unmarshal([]byte(meta[datasets.KeyConfig]), &job); err != nil {
		t.Fatal(err)
	}
	if job["engine"] != meta[KeyEngine] || job["engine-command"] != cfg.Engine || job["nodes"] != float64(cfg.Nodes) {
		t.Errorf("job record %v: want the engine's name %q", job, meta[KeyEngine])
	}
	return rows
}

// readMeta returns a dataset file's key-value metadata.
func readMeta(t *testing.T, path string) map[string]string {
	t.Helper()
	kv, err := openFooter(path)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func TestStockfishSelfPlayVerifiesAndRepeats(t *testing.T) {
	needEngine(t, "/usr/games/stockfish")
	cfg := engineConfig(t, "/usr/games/stockfish")
	cfg.Games = 2
	cfg.PGN = filepath.Join(t.TempDir(), "games.pgn")
	sum := runJob(t, cfg, Options{})
	if sum.Games != 2 || sum.Lost != 0 {
		t.Fatalf("summary %+v", sum)
	}
	first := checkEngineRun(t, &cfg, sum, "Stockfish")
	pgnText, err := os.ReadFile(cfg.PGN)
	if err != nil || strings.Count(string(pgnText), "[Event ") != 2 || strings.Count(string(pgnText), `[White "Stockfish`) != 2 {
		t.Fatalf("PGN %q (%v): want 2 games of Stockfish", pgnText, err)
	}
	// The same seed again: Threads=1 and fixed nodes give the same games.
	again := cfg
	again.Out, again.PGN = filepath.Join(t.TempDir(), "again.parquet"), ""
	runJob(t, again, Options{})
	if second := fixture.Rows(t, again.Out); !reflect.DeepEqual(first, second) {
		t.Fatalf("the same job twice gave different rows (%d and %d)", len(first), len(second))
	}
}

func TestEtherealSelfPlayVerifies(t *testing.T) {
	needEngine(t, "/usr/games/ethereal-chess")
	cfg := engineConfig(t, "/usr/games/ethereal-chess")
	cfg.Games = 2
	sum := runJob(t, cfg, Options{})
	if sum.Games != 2 {
		t.Fatalf("summary %+v", sum)
	}
	checkEngineRun(t, &cfg, sum, "Ethereal")
}

// TestEngineFaultLosesOnlyThatGame plays three games with a fake engine
// that fails once, in game 0: game 0 is not recorded, the log says why,
// and games 1 and 2 are.
func TestEngineFaultLosesOnlyThatGame(t *testing.T) {
	for _, tc := range []struct{ mode, why string }{
		{"crash", "engine exited (exit status 3)"},
		{"hang", "no bestmove within"},
		{"illegal", "is not legal"},
		{"malformed", `bestmove: move "?!"`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cfg := engineConfig(t, fakeEngine(t, tc.mode, "3", "once", filepath.Join(t.TempDir(), "once")))
			cfg.EngineTimeout = configs.Duration(time.Second)
			cfg.PGN = filepath.Join(t.TempDir(), "games.pgn")
			var log syncBuffer
			sum := runJob(t, cfg, Options{Log: &log})
			if sum.Games != 2 || sum.Lost != 1 || sum.Done != 3 {
				t.Fatalf("summary %+v, want 2 games saved and 1 lost", sum)
			}
			if want := "selfplay: game 0: engine fake " + tc.mode + ": ply 2: "; !strings.Contains(log.String(), want) || !strings.Contains(log.String(), tc.why) {
				t.Errorf("log %q, want %q ... %q", log.String(), want, tc.why)
			}
			rows := checkEngineRun(t, &cfg, sum, "fake "+tc.mode)
			for _, r := range rows {
				if GameNumber(r.GameID) == 0 {
					t.Fatalf("a row of the lost game 0: %+v", r)
				}
			}
			if meta := readMeta(t, cfg.Out); meta[KeyGames] != "0-3" {
				t.Errorf("games %q, want 0-3 (the lost game in the file's range)", meta[KeyGames])
			}
			pgnText, _ := os.ReadFile(cfg.PGN)
			if n := strings.Count(string(pgnText), "[Event "); n != 2 {
				t.Errorf("%d games in the PGN, want 2", n)
			}
		})
	}
}

func TestEngineThatFailsEveryGameStopsTheRun(t *testing.T) {
	cfg := engineConfig(t, fakeEngine(t, "crash", "2"))
	cfg.Games = 20
	var log syncBuffer
	sum, err := Run(context.Background(), cfg, Options{Log: &log})
	if err == nil || !strings.Contains(err.Error(), "engine fake crash (") || !strings.Contains(err.Error(), "failed 5 games in a row") {
		t.Fatalf("error %v, want the engine named and 5 games failed in a row", err)
	}
	if sum == nil || sum.Games != 0 || len(sum.Files) != 0 {
		t.Errorf("summary %+v, want no game saved", sum)
	}
	if n := strings.Count(log.String(), "engine restarts"); n != 4 {
		t.Errorf("log %q: %d restarts, want 4", log.String(), n)
	}
}

func TestEngineThatDoesNotStartFailsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, engine, want string
		usage              bool
	}{
		{"missing", "/nonexistent/engine -x", `-engine /nonexistent/engine -x: uci: start "/nonexistent/engine"`, false},
		{"no uciok", fakeEngine(t, "nouci"), "no uciok within", false},
		{"unknown option", fakeEngine(t, "random"), `-engine-opt Contempt=3: engine fake random`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := engineConfig(t, tc.engine)
			cfg.EngineTimeout = configs.Duration(300 * time.Millisecond)
			if tc.usage {
				cfg.EngineOpt = append(cfg.EngineOpt, uciOption("Contempt", "3"))
			}
			sum, err := Run(context.Background(), cfg, Options{})
			var u *configs.UsageError
			if sum != nil || err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &u) != tc.usage {
				t.Fatalf("summary %v, error %v: want %q (usage error %v)", sum, err, tc.want, tc.usage)
			}
			if _, err := os.Stat(cfg.Out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the output exists: %v", err)
			}
		})
	}
}

func TestEngineResumeGivesTheUninterruptedGames(t *testing.T) {
	cfg := engineConfig(t, fakeEngine(t, "random"))
	cfg.Games, cfg.PartGames = 4, 1
	cfg.Out = filepath.Join(t.TempDir(), "parts")
	whole := cfg
	whole.Out = filepath.Join(t.TempDir(), "whole")
	runJob(t, whole, Options{})
	if sum := runJob(t, cfg, Options{stopAfter: 2}); !sum.Interrupted {
		t.Fatalf("summary %+v, want an interrupted run", sum)
	}
	if sum := runJob(t, cfg, Options{Resume: true}); sum.Done != 4 || sum.Games != 2 {
		t.Fatalf("resumed: summary %+v", sum)
	}
	if a, b := fixture.Rows(t, whole.Out), fixture.Rows(t, cfg.Out); !reflect.DeepEqual(a, b) {
		t.Fatalf("resumed job: %d rows, uninterrupted: %d; they differ", len(b), len(a))
	}
}

func TestEngineSettingsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"movetime without engine", func(c *Config) { c.MoveTime = 100 }, "-movetime 100: a move time is for an outside engine"},
		{"options without engine", func(c *Config) { c.EngineOpt = append(c.EngineOpt, uciOption("Hash", "8")) }, "-engine-opt Hash=8: options are for an outside engine"},
		{"dama", func(c *Config) { *c = DamaDefaults(); c.Engine = "stockfish" }, "outside engines play chess"},
		{"multipv option", func(c *Config) { c.Engine = "sf"; c.EngineOpt = append(c.EngineOpt, uciOption("multipv", "3")) }, "MultiPV is set by self-play"},
		{"no budget", func(c *Config) { c.Engine = "sf"; c.Nodes = 0 }, "-nodes, -depth, -movetime or several"},
		{"quote", func(c *Config) { c.Engine = "'sf" }, "unterminated single quote"},
		{"eval file", func(c *Config) { c.Engine = "sf"; c.NNUE = true; c.EvalFile = "x.nnue" }, "set the outside engine's with -engine-opt"},
		{"soft nodes", func(c *Config) { c.Engine = "sf"; c.Nodes = 0; c.SoftNodes = 2000 }, "-soft-nodes 2000: a soft node limit is our engine's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.set(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	c := DefaultConfig()
	c.Engine, c.Nodes, c.MoveTime = "sf", 0, 50
	if err := c.Validate(); err != nil || c.goArgs() != "movetime 50" || c.engineTimeout() != 10100*time.Millisecond {
		t.Errorf("movetime alone: %v, go %q, timeout %v", err, c.goArgs(), c.engineTimeout())
	}
	c.Nodes, c.Depth = 1000, 7
	if c.goArgs() != "nodes 1000 depth 7 movetime 50" {
		t.Errorf("go %q", c.goArgs())
	}
}

// TestEngineMultiPVOnThePliesOfChoice checks what Stockfish is told: its
// options, a new game each game, MultiPV -multipv on the -multipv-plies
// plies after the random ones and 1 on the others.
func TestEngineMultiPVOnThePliesOfChoice(t *testing.T) {
	needEngine(t, "/usr/games/stockfish")
	log := filepath.Join(t.TempDir(), "in.log")
	cfg := engineConfig(t, "sh -c 'tee -a \"$0\" | exec /usr/games/stockfish' "+log)
	cfg.Games, cfg.MaxPlies = 1, 12
	runJob(t, cfg, Options{})
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "position") {
			continue
		}
		if n := len(got); strings.HasPrefix(l, "go") && n > 0 && strings.HasPrefix(got[n-1], "go") {
			got[n-1] += " +"
			continue
		}
		got = append(got, l)
	}
	// The probe's start, then the worker's; plies 0-1 are random but
	// searched for their rows (-write-min-ply 0), plies 2-3 choose among 3
	// lines.
	want := []string{"uci", "isready", "quit",
		"uci", "setoption name Threads value 1", "setoption name Hash value 16", "setoption name MultiPV value 1", "isready",
		"ucinewgame", "isready", "go nodes 200 +",
		"setoption name MultiPV value 3", "go nodes 200 +",
		"setoption name MultiPV value 1", "go nodes 200 ...",
		"quit", ""}
	// The game may end before -max-plies: the searches after the MultiPV
	// ones are one or more.
	if n := len(got); n == len(want) && strings.HasPrefix(got[n-3], "go nodes 200") {
		got[n-3] = "go nodes 200 ..."
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the engine was told\n%q\nwant\n%q", got, want)
	}
}

// TestEngineChoiceAmongLinesWithinTheMargin checks the choice among an
// engine's lines: those within -multipv-margin of its first, at random.
func TestEngineChoiceAmongLinesWithinTheMargin(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MultiPVMargin = 30
	p := newUCIPlayer(&cfg, &uciEngine{}, nil)
	pos := board.NewPosition()
	a := uciclient.Analysis{Lines: []uciclient.Line{
		{Score: uciclient.Score{Valid: true, CP: 50}, Move: "e2e4"},
		{Score: uciclient.Score{Valid: true, CP: 20}, Move: "d2d4"},
		{Score: uciclient.Score{Valid: true, CP: 19}, Move: "g1f3"},
	}}
	best, _ := pos.ParseUCIMove("e2e4")
	seen := map[string]bool{}
	for n := range 64 {
		m, err := p.chooseLine(pos, &a, best, gameRand(1, n))
		if err != nil {
			t.Fatal(err)
		}
		seen[m.String()] = true
	}
	if !reflect.DeepEqual(seen, map[string]bool{"e2e4": true, "d2d4": true}) {
		t.Errorf("moves chosen %v, want e2e4 and d2d4 (g1f3 is 31 cp behind)", seen)
	}
	a.Lines[1].Move = "e2e5"
	if _, err := p.chooseLine(pos, &a, best, gameRand(1, 0)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("an illegal move in line 2: error %v", err)
	}
}
