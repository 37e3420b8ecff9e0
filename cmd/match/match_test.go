package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"chessforge/cmd/match/internal/book"
	"chessforge/cmd/match/internal/stats"
	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// testConfig returns a match of games games between the engines a and b
// under tc, with short timeouts and the PGN kept in pgn.
func testConfig(t *testing.T, a, b []string, games int, tc string, pgn *bytes.Buffer) *matchConfig {
	t.Helper()
	c, err := parseTC(tc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &matchConfig{
		players: [2]*player{{argv: a, tc: c}, {argv: b, tc: c}},
		rules: rules{
			margin:       150 * time.Millisecond,
			moveTimeout:  10 * time.Second,
			readyTimeout: 10 * time.Second,
		},
		games:       games,
		openings:    book.Builtin(),
		seed:        1,
		concurrency: 1,
		event:       "test",
		site:        "test",
		date:        "2026.01.01",
	}
	if pgn != nil {
		cfg.pgn = pgn
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
	cfg.concurrency = 2
	s, err := runMatch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.tri.Games() != 4 || s.penta.Pairs() != 2 {
		t.Fatalf("played %d games in %d pairs, want 4 in 2", s.tri.Games(), s.penta.Pairs())
	}
	if s.names != [2]string{"fake random (A)", "fake random (B)"} {
		t.Errorf("names %q", s.names)
	}
	byRules := map[string]board.Outcome{
		"checkmate": board.Checkmate, "stalemate": board.Stalemate,
		"threefold repetition": board.ThreefoldRepetition, "fifty-move rule": board.FiftyMoveRule,
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
			cfg.rules.margin, cfg.rules.moveTimeout = 500*time.Millisecond, 500*time.Millisecond
			var err error
			if cfg.players[1].tc, err = parseTC(tc.tcB); err != nil {
				t.Fatal(err)
			}
			s, err := runMatch(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if s.tri != (stats.Trinomial{W: tc.games}) {
				t.Errorf("A scored %+v, want %d wins", s.tri, tc.games)
			}
			if s.faults[1][tc.kind] != tc.games || len(s.faults[0]) != 0 {
				t.Errorf("forfeits A %v, B %v; want B: %s %d", s.faults[0], s.faults[1], tc.kind, tc.games)
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
			cfg.rules.resign, cfg.rules.draw = tc.resign, tc.draw
			if _, err := runMatch(context.Background(), cfg); err != nil {
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
			cfg.concurrency = 2
			cfg.sprt = &stats.SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
			s, err := runMatch(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if s.decision != tc.want || !s.stopped {
				t.Errorf("decision %v (LLR %.3f), want %v", s.decision, s.llr, tc.want)
			}
			if n := s.tri.Games(); n < 2*minSPRTPairs || n >= 2*minSPRTPairs+4 {
				t.Errorf("played %d games; the test should have stopped at pair %d", n, minSPRTPairs)
			}
		})
	}
}

func TestGameFromAFENWithBlackToMove(t *testing.T) {
	var pgn bytes.Buffer
	cfg := testConfig(t, fake(t, "random"), fake(t, "random"), 2, "nodes=1", &pgn)
	fen := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3"
	cfg.openings = []book.Opening{{FEN: fen, Moves: []string{"g8f6"}, Name: "two knights"}}
	if _, err := runMatch(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	out := pgn.String()
	for _, want := range []string{`[FEN "` + fen + `"]`, `[SetUp "1"]`, "\n3... Nf6 {book} 4. "} {
		if !strings.Contains(out, want) {
			t.Errorf("PGN lacks %q:\n%s", want, out)
		}
	}
	readBack(t, out)
}

func TestRunPrintsTheSummaryLineAndWritesThePGN(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "games.pgn")
	exe := fake(t)[0]
	var stdout, stderr bytes.Buffer
	err := run([]string{"-a", exe + " random", "-b", exe + " 'illegal' 4", "-games", "3", "-tc", "nodes=1",
		"-pgn", path, "-quiet"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if last != "match: fake random vs fake illegal: +3 =0 -0, Elo +Inf ± Inf" {
		t.Errorf("last line %q", last)
	}
	if !strings.Contains(stdout.String(), "Pairs:       1, pentanomial [0, 1/2, 1, 3/2, 2 points] = [0 0 0 0 1]") {
		t.Errorf("no pentanomial line:\n%s", stdout.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readBack(t, string(data))); n != 3 {
		t.Errorf("PGN holds %d games, want 3", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left files behind: %v", entries)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-tc", "nodes=0"}, "nodes must be a positive integer"},
		{[]string{"-tc", "clock=10"}, ""},
		{[]string{"-sprt", "elo0=5,elo1=0"}, "elo1 (0) must be greater than elo0 (5)"},
		{[]string{"-games", "0"}, "-games 0: must be positive"},
		{[]string{"-a", "'unterminated"}, "unterminated single quote"},
		{[]string{"-openings", "/nonexistent.epd"}, "no such file"},
		{[]string{"-a", "/nonexistent/engine"}, "engine A"},
		{[]string{"-b-opt", "NoSuchOption=1"}, `has no option "NoSuchOption"`},
		{[]string{"-resign", "300"}, "want 2 comma-separated integers"},
	}
	exe := fake(t)[0]
	for _, tc := range tests {
		if tc.want == "" {
			continue
		}
		args := append([]string{"-a", exe, "-b", exe, "-games", "2", "-quiet"}, tc.args...)
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

func TestSameSeedReplaysTheSameGames(t *testing.T) {
	play := func(seed uint64) []pgn.Game {
		var pgn bytes.Buffer
		cfg := testConfig(t, fake(t, "random"), fake(t, "random"), 6, "nodes=1", &pgn)
		cfg.concurrency, cfg.seed = 2, seed
		if _, err := runMatch(context.Background(), cfg); err != nil {
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
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-a", exe + " random", "-b", exe + " random", "-games", "2", "-tc", "nodes=1",
		"-openings", bookPath, "-book-plies", "3", "-pgn", pgnPath, "-quiet"}, &stdout, &stderr); err != nil {
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
