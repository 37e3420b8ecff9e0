package match

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
	"chessforge/selfplay/match/matchtest"
	"chessforge/selfplay/match/stats"
)

// fake returns the command line of a fake engine (see matchtest.Engine).
func fake(t *testing.T, words ...string) []string {
	return matchtest.Command(t, words...)
}

// testConfig returns a match of games games between the engines a and b
// under tc, with short timeouts and the PGN kept in pgn.
func testConfig(t *testing.T, a, b []string, games int, tc string, pgn *bytes.Buffer) *Config {
	t.Helper()
	c, err := parseTC(tc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Players:      [2]Player{{Command: a, TC: c}, {Command: b, TC: c}},
		Margin:       150 * time.Millisecond,
		MoveTimeout:  10 * time.Second,
		ReadyTimeout: 10 * time.Second,
		Games:        games,
		Openings:     builtinOpenings(t),
		Seed:         1,
		Concurrency:  1,
		Event:        "test",
		Site:         "test",
		Date:         "2026.01.01",
	}
	if pgn != nil {
		cfg.PGN = pgn
	}
	return cfg
}

// readBack parses the PGN the match wrote, replaying every game's moves by
// the rules (an illegal or misnumbered move fails the parse).
func readBack(t *testing.T, text string) []pgn.Game {
	t.Helper()
	games, err := pgn.ReadGames(strings.NewReader(text), "match.pgn")
	if err != nil {
		t.Fatalf("the PGN does not read back: %v\n%s", err, text)
	}
	return games
}

// finalPosition replays a game read back from the PGN.
func finalPosition(t *testing.T, g pgn.Game) *board.Position {
	t.Helper()
	pos, err := g.End()
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func TestRandomEnginesPlayCompleteGamesByTheRules(t *testing.T) {
	var pgn bytes.Buffer
	cfg := testConfig(t, fake(t, "random"), fake(t, "random"), 4, "clock=20+0.1", &pgn)
	cfg.Concurrency = 2
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Score.Games() != 4 || s.Pairs.Pairs() != 2 {
		t.Fatalf("played %d games in %d pairs, want 4 in 2", s.Score.Games(), s.Pairs.Pairs())
	}
	if s.Names != [2]string{"fake random (A)", "fake random (B)"} {
		t.Errorf("names %q", s.Names)
	}
	byRules := map[string]board.Outcome{
		"checkmate": board.Checkmate, "stalemate": board.Stalemate,
		"threefold": board.ThreefoldRepetition, "fifty-move": board.FiftyMoveRule,
		"insufficient material": board.InsufficientMaterial,
	}
	games := readBack(t, pgn.String())
	for i, g := range games {
		if g.Tags["Round"] != []string{"1", "2", "3", "4"}[i] {
			t.Errorf("game %d: Round %q", i+1, g.Tags["Round"])
		}
		want, ok := byRules[g.Tags["Termination"]]
		if !ok {
			t.Errorf("game %d: termination %q, want one by the rules", i+1, g.Tags["Termination"])
			continue
		}
		pos := finalPosition(t, g)
		if got := pos.Outcome(); got != want {
			t.Errorf("game %d: final position is %v, PGN says %v", i+1, got, g.Tags["Termination"])
		}
		result := "1/2-1/2"
		if want == board.Checkmate {
			result = map[board.Color]string{board.White: "0-1", board.Black: "1-0"}[pos.SideToMove()]
		}
		if g.Tags["Result"] != result {
			t.Errorf("game %d: result %s, want %s", i+1, g.Tags["Result"], result)
		}
		// Colours alternate within a pair, and the pair shares its opening.
		if (g.Tags["White"] == "fake random (A)") != (i%2 == 0) {
			t.Errorf("game %d: White is %q", i+1, g.Tags["White"])
		}
		if i%2 == 1 && g.Tags["Opening"] != games[i-1].Tags["Opening"] {
			t.Errorf("pair %d: openings %q and %q differ", i/2+1, games[i-1].Tags["Opening"], g.Tags["Opening"])
		}
	}
}

func TestFailingEngineForfeitsAndTheMatchCarriesOn(t *testing.T) {
	// The engines that fail on time get two games only, each costing a
	// margin of waiting; the margins are wide so that a loaded machine does
	// not make the healthy engine lose on time.
	tests := []struct {
		name        string
		b           []string
		tcB         string
		games       int
		termination string // prefix of the Termination tag
		kind        string
	}{
		{"illegal move", []string{"illegal", "3"}, "nodes=1", 4, "illegal move: fake illegal played ", "illegal move"},
		{"crash", []string{"crash", "3"}, "nodes=1", 4, "crash: fake crash engine exited (exit status 3): fake engine: crashing on purpose", "crash"},
		{"hang under movetime", []string{"hang", "3"}, "movetime=20", 2, "time forfeit: fake hang sent no bestmove within 520ms", "time forfeit"},
		{"hang under nodes", []string{"hang", "3"}, "nodes=1", 2, "stalled: fake hang sent no bestmove within 500ms", "stalled"},
		{"slow under a clock", []string{"slow", "40"}, "clock=0.2+0.01", 2, "time forfeit: fake slow ", "time forfeit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pgn bytes.Buffer
			cfg := testConfig(t, fake(t, "random"), fake(t, tc.b...), tc.games, "clock=60+1", &pgn)
			cfg.Margin, cfg.MoveTimeout = 500*time.Millisecond, 500*time.Millisecond
			var err error
			if cfg.Players[1].TC, err = parseTC(tc.tcB); err != nil {
				t.Fatal(err)
			}
			s, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if s.Score != (stats.Trinomial{W: tc.games}) {
				t.Errorf("A scored %+v, want %d wins", s.Score, tc.games)
			}
			if s.Forfeits[1][tc.kind] != tc.games || len(s.Forfeits[0]) != 0 {
				t.Errorf("forfeits A %v, B %v; want B: %s %d", s.Forfeits[0], s.Forfeits[1], tc.kind, tc.games)
			}
			for i, g := range readBack(t, pgn.String()) {
				if !strings.HasPrefix(g.Tags["Termination"], tc.termination) {
					t.Errorf("game %d: Termination %q, want %q...", i+1, g.Tags["Termination"], tc.termination)
				}
				wantResult := "1-0"
				if i%2 == 1 {
					wantResult = "0-1"
				}
				if g.Tags["Result"] != wantResult {
					t.Errorf("game %d: result %s, want %s", i+1, g.Tags["Result"], wantResult)
				}
			}
		})
	}
}

func TestAdjudication(t *testing.T) {
	tests := []struct {
		name        string
		score       string
		resign      *ResignRule
		draw        *DrawRule
		termination string
		result      string
		minPlies    int
	}{
		{"resign", "500", &ResignRule{Score: 400, Moves: 3}, nil, "adjudication: Black resigns", "1-0", 0},
		{"draw", "0", nil, &DrawRule{Score: 10, Moves: 4, MinPly: 30}, "adjudication: draw", "1/2-1/2", 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pgn bytes.Buffer
			cfg := testConfig(t, fake(t, "score", tc.score), fake(t, "score", tc.score), 2, "nodes=1", &pgn)
			cfg.Resign, cfg.Draw = tc.resign, tc.draw
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			for i, g := range readBack(t, pgn.String()) {
				if g.Tags["Termination"] != tc.termination || g.Tags["Result"] != tc.result {
					t.Errorf("game %d: %s %q, want %s %q", i+1, g.Tags["Result"], g.Tags["Termination"], tc.result, tc.termination)
				}
				if len(g.Moves) < tc.minPlies {
					t.Errorf("game %d: adjudicated after %d plies, before ply %d", i+1, len(g.Moves), tc.minPlies)
				}
			}
		})
	}
}

func TestSPRTStopsWhenABoundIsCrossed(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want stats.Decision
	}{
		{"A wins every game", fake(t, "random"), fake(t, "illegal", "1"), stats.AcceptH1},
		{"A loses every game", fake(t, "illegal", "1"), fake(t, "random"), stats.AcceptH0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.a, tc.b, 200, "nodes=1", nil)
			cfg.Concurrency = 2
			cfg.SPRT = &stats.SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
			s, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if s.Decision != tc.want || !s.Stopped {
				t.Errorf("decision %v (LLR %.3f), want %v", s.Decision, s.LLR, tc.want)
			}
			// One-sided pairs cross the bound at pair 28 (the LLR's prior
			// keeps their variance from vanishing), long before game 200.
			if n := s.Score.Games(); n < 2*minSPRTPairs || n > 2*28+4 {
				t.Errorf("played %d games; the test should have stopped at pair 28", n)
			}
		})
	}
}

func TestGameFromAFENWithBlackToMove(t *testing.T) {
	var out bytes.Buffer
	cfg := testConfig(t, fake(t, "random"), fake(t, "random"), 2, "nodes=1", &out)
	fen := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3"
	start, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	nf6, err := start.ParseUCIMove("g8f6")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Openings = []pgn.Opening{{FEN: fen, Moves: []board.Move{nf6}, Name: "two knights"}}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{`[FEN "` + fen + `"]`, `[SetUp "1"]`, "\n3... Nf6 {book} 4. "} {
		if !strings.Contains(text, want) {
			t.Errorf("PGN lacks %q:\n%s", want, text)
		}
	}
	readBack(t, text)
}

func TestSameSeedReplaysTheSameGames(t *testing.T) {
	play := func(seed uint64) []pgn.Game {
		var pgn bytes.Buffer
		cfg := testConfig(t, fake(t, "random"), fake(t, "random"), 6, "nodes=1", &pgn)
		cfg.Concurrency, cfg.Seed = 2, seed
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		return readBack(t, pgn.String())
	}
	a, b, c := play(5), play(5), play(6)
	same := func(x, y []pgn.Game) bool {
		for i := range x {
			if x[i].Tags["Result"] != y[i].Tags["Result"] || !slices.Equal(x[i].Moves, y[i].Moves) {
				return false
			}
		}
		return len(x) == len(y)
	}
	if !same(a, b) {
		t.Error("two runs with seed 5 played different games")
	}
	if same(a, c) {
		t.Error("seeds 5 and 6 played the same games (the opening order should differ)")
	}
}

func TestBookPliesCutsTheBookLines(t *testing.T) {
	dir := t.TempDir()
	bookPath := filepath.Join(dir, "book.pgn")
	if err := os.WriteFile(bookPath, []byte("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pgnPath := filepath.Join(dir, "out.pgn")
	exe := fake(t)[0]
	var stderr bytes.Buffer
	settings, err := ParseArgs([]string{"-a", exe + " random", "-b", exe + " random", "-games", "2", "-tc", "nodes=1",
		"-openings", bookPath, "-book-plies", "3", "-pgn", pgnPath, "-quiet"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Play(context.Background(), settings, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(pgnPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n1. e4 e5 2. Nf3 {book} 2... ") {
		t.Errorf("the book should stop after 2. Nf3:\n%s", data)
	}
}

func TestMain(m *testing.M) {
	code := matchtest.Run(m)
	if engineDir != "" {
		os.RemoveAll(engineDir)
	}
	os.Exit(code)
}

// TestPlayWritesThePGNAsTheGamesFinish follows a match's partial PGN file
// while the match is played: it holds whole games that read back before the
// match ends, and becomes the PGN file when the match is stopped. A match
// that cannot start leaves neither file.
func TestPlayWritesThePGNAsTheGamesFinish(t *testing.T) {
	dir := t.TempDir()
	pgnPath := filepath.Join(dir, "out.pgn")
	exe := fake(t)[0]
	var stderr bytes.Buffer
	settings, err := ParseArgs([]string{"-a", exe + " slow 20", "-b", exe + " illegal 1", "-games", "400", "-tc", "nodes=1",
		"-concurrency", "1", "-pgn", pgnPath, "-quiet"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan int, 1)
	go func() {
		defer cancel()
		for range 1000 {
			time.Sleep(10 * time.Millisecond)
			data, err := os.ReadFile(PartialPGN(pgnPath))
			if err != nil || !bytes.HasSuffix(data, []byte("\n\n")) {
				continue
			}
			if games, err := pgn.ReadGames(bytes.NewReader(data), "partial"); err == nil && len(games) >= 2 {
				seen <- len(games)
				return
			}
		}
		seen <- 0
	}()
	r, err := Play(ctx, settings, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if n := <-seen; n < 2 || !r.Interrupted {
		t.Fatalf("the partial PGN held %d whole games during the match (interrupted %v)", n, r.Interrupted)
	}
	if _, err := os.Stat(PartialPGN(pgnPath)); !os.IsNotExist(err) {
		t.Errorf("the partial PGN is left after the match: %v", err)
	}
	data, err := os.ReadFile(pgnPath)
	if err != nil {
		t.Fatal(err)
	}
	if games := readBack(t, string(data)); len(games) != r.Score.Games() {
		t.Errorf("the PGN holds %d games, the match counted %d", len(games), r.Score.Games())
	}

	bad := filepath.Join(dir, "bad.pgn")
	settings.A, settings.PGN = filepath.Join(dir, "no-such-engine"), bad
	if _, err := Play(context.Background(), settings, &stderr); err == nil {
		t.Fatal("a match with a missing engine played")
	}
	for _, p := range []string{bad, PartialPGN(bad)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a failed match left %s: %v", p, err)
		}
	}
}

func TestSummaryGivesABoundAfterAPerfectOrAZeroScore(t *testing.T) {
	for _, c := range []struct {
		score stats.Trinomial
		want  string
	}{
		{stats.Trinomial{W: 5, D: 2, L: 3}, "match: A vs B: +5 =2 -3, Elo 70.4 ± 226.8"},
		{stats.Trinomial{W: 4}, "match: A vs B: +4 =0 -0, Elo > -72.1 (95%)"},
		{stats.Trinomial{L: 4}, "match: A vs B: +0 =0 -4, Elo < +72.1 (95%)"},
	} {
		r := &Result{Names: [2]string{"A", "B"}, Score: c.score}
		if got := r.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.score, got, c.want)
		}
	}
}
