package match

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"chessforge/selfplay/match/stats"
)

// The project's engine is built once per test run into a temporary
// directory, so that the matches below test the engine as it is now.
var (
	engineOnce sync.Once
	engineDir  string
	enginePath string
	engineErr  error
)

func projectEngine(t *testing.T) string {
	t.Helper()
	engineOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if engineDir, engineErr = os.MkdirTemp("", "match-engine-"); engineErr != nil {
			return
		}
		enginePath = filepath.Join(engineDir, "engine")
		out, err := exec.Command(goTool, "build", "-o", enginePath, "chessforge/cmd/engine").CombinedOutput()
		if err != nil {
			engineErr = &exec.Error{Name: "go build chessforge/cmd/engine: " + string(out), Err: err}
		}
	})
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return enginePath
}

// fullMatches reports whether the long versions of the engine matches run
// (CHESSFORGE_MATCH_FULL=1, and not -short).
func fullMatches() bool {
	return os.Getenv("CHESSFORGE_MATCH_FULL") == "1" && !testing.Short()
}

func TestProjectEngineAgainstItselfIsEven(t *testing.T) {
	engine := projectEngine(t)
	games := 8
	if fullMatches() {
		games = 100
	}
	cfg := testConfig(t, []string{engine}, []string{engine}, games, "nodes=1500", nil)
	cfg.Concurrency = 2
	cfg.Resign = &ResignRule{Score: 800, Moves: 3}
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("+%d =%d -%d, pentanomial %v", s.Score.W, s.Score.D, s.Score.L, s.Pairs)
	if s.Score.Games() != games || len(s.Forfeits[0])+len(s.Forfeits[1]) != 0 {
		t.Fatalf("played %d of %d games, forfeits %v %v", s.Score.Games(), games, s.Forfeits[0], s.Forfeits[1])
	}
	for _, e := range []stats.Estimate{s.Score.Elo(), s.Pairs.Elo()} {
		if !(e.Lo <= 0 && 0 <= e.Hi) {
			t.Errorf("the engine against itself: Elo %.1f in [%.1f, %.1f], an interval without 0", e.Elo, e.Lo, e.Hi)
		}
	}
}

func TestProjectEngineBeatsADepthOneCopy(t *testing.T) {
	engine := projectEngine(t)
	games := 8
	if fullMatches() {
		games = 100
	}
	cfg := testConfig(t, []string{engine}, []string{engine}, games, "nodes=3000", nil)
	cfg.Players[1].TC = TimeControl{Kind: TCDepth, N: 1}
	cfg.Concurrency = 2
	cfg.Resign = &ResignRule{Score: 800, Moves: 3}
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := s.Score.Elo()
	t.Logf("+%d =%d -%d, Elo %.1f in [%.1f, %.1f], pentanomial %v", s.Score.W, s.Score.D, s.Score.L, e.Elo, e.Lo, e.Hi, s.Pairs)
	if len(s.Forfeits[0])+len(s.Forfeits[1]) != 0 {
		t.Errorf("forfeits %v %v", s.Forfeits[0], s.Forfeits[1])
	}
	// A large gain: at least 75% (191 Elo), and the interval clear of 0.
	if e.Score < 0.75 || !(e.Lo > 0) || math.IsNaN(e.Elo) {
		t.Errorf("the full engine against a depth-1 copy: score %.3f, Elo %.1f in [%.1f, %.1f]; want a large gain", e.Score, e.Elo, e.Lo, e.Hi)
	}
}
