package match

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"chessforge/engine/dama"
	"chessforge/selfplay/match/stats"
)

// damaFake returns the command line of a fake draughts engine (see
// matchtest.DamaEngine).
func damaFake(t *testing.T, words ...string) []string {
	return fake(t, append([]string{"dama"}, words...)...)
}

// damaConfig returns a draughts match of games games between the engines a
// and b, named A and B, at one node a move, with short timeouts, the openings given (random
// ones when nil) and the PDN kept in pdn.
func damaConfig(t *testing.T, a, b []string, games int, openings []DamaOpening, pdn *bytes.Buffer) *Config {
	t.Helper()
	if openings == nil {
		openings = DamaRandomOpenings((games+1)/2, 2, 4, 1)
	}
	tc := TimeControl{Kind: TCNodes, N: 1}
	cfg := &Config{
		Game:         Dama,
		Players:      [2]Player{{Command: a, TC: tc, Name: "A"}, {Command: b, TC: tc, Name: "B"}},
		MoveTimeout:  10 * time.Second,
		ReadyTimeout: 10 * time.Second,
		Games:        games,
		DamaOpenings: openings,
		MaxPlies:     DefaultDamaMaxPlies,
		Seed:         1,
		Concurrency:  1,
		Event:        "test",
		Site:         "test",
		Date:         "2026.01.01",
	}
	if pdn != nil {
		cfg.PGN = pdn
	}
	return cfg
}

// pdnGame is a game read back from the PDN a match wrote.
type pdnGame struct {
	tags     map[string]string
	moves    []string
	comments []string // every comment, in order
	result   string   // the result token after the movetext
}

var (
	pdnTag    = regexp.MustCompile(`^\[(\w+) "((?:[^"\\]|\\.)*)"\]$`)
	pdnNumber = regexp.MustCompile(`^\d+\.(\.\.)?$`)
)

// readPDN parses the PDN a match wrote: tag pairs, a blank line, movetext
// of move numbers, moves, {comments} and the result, and a blank line.
func readPDN(t *testing.T, text string) []pdnGame {
	t.Helper()
	var games []pdnGame
	for i, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i%2 == 0 {
			g := pdnGame{tags: map[string]string{}}
			for _, line := range strings.Split(block, "\n") {
				m := pdnTag.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("game %d: bad tag line %q", len(games)+1, line)
				}
				g.tags[m[1]] = strings.ReplaceAll(m[2], `\"`, `"`)
			}
			games = append(games, g)
			continue
		}
		g := &games[len(games)-1]
		rest := strings.ReplaceAll(block, "\n", " ")
		for rest != "" {
			rest = strings.TrimLeft(rest, " ")
			if strings.HasPrefix(rest, "{") {
				end := strings.IndexByte(rest, '}')
				g.comments = append(g.comments, rest[1:end])
				rest = rest[end+1:]
				continue
			}
			word, after, _ := strings.Cut(rest, " ")
			rest = after
			switch {
			case pdnNumber.MatchString(word):
			case after == "":
				g.result = word
			default:
				g.moves = append(g.moves, word)
			}
		}
	}
	return games
}

// replay plays a game read back through the rules and returns its final
// position; a move that is not legal fails the test.
func replay(t *testing.T, g pdnGame) *dama.Position {
	t.Helper()
	pos := dama.StartPosition()
	if fen, ok := g.tags["FEN"]; ok {
		var err error
		if pos, err = dama.ParseFEN(fen); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range g.moves {
		m, err := pos.ParseMove(s)
		if err != nil {
			t.Fatalf("round %s, ply %d: %v", g.tags["Round"], i+1, err)
		}
		pos.MakeMove(m)
	}
	return pos
}

func TestDamaRandomEnginesPlayCompleteGamesByTheRules(t *testing.T) {
	var pdn bytes.Buffer
	cfg := damaConfig(t, damaFake(t, "random"), damaFake(t, "random"), 8, nil, &pdn)
	cfg.Concurrency = 2
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Score.Games() != 8 || r.Pairs.Pairs() != 4 || len(r.Forfeits[0])+len(r.Forfeits[1]) != 0 {
		t.Fatalf("played %d games in %d pairs (forfeits %v), want 8 in 4, none", r.Score.Games(), r.Pairs.Pairs(), r.Forfeits)
	}
	games := readPDN(t, pdn.String())
	if len(games) != 8 {
		t.Fatalf("the PDN holds %d games", len(games))
	}
	decisive := 0
	for i, g := range games {
		pos := replay(t, g)
		stm := pos.SideToMove()
		var want, result string
		switch pos.Outcome() {
		case dama.NoMoves:
			want, result = "no ", map[dama.Color]string{dama.White: "0-2", dama.Black: "2-0"}[stm]
			decisive++
		case dama.DrawQuiet:
			want, result = "forty-move", "1-1"
		case dama.DrawRepetition:
			want, result = "threefold", "1-1"
		default:
			t.Errorf("game %d ends in a position the rules do not end: %s", i+1, pos.FEN())
			continue
		}
		if term := g.tags["Termination"]; !strings.HasPrefix(term, want) || g.comments[len(g.comments)-1] != term {
			t.Errorf("game %d: termination %q, want %q (the last comment %q)", i+1, term, want, g.comments[len(g.comments)-1])
		}
		if g.tags["Result"] != result || g.result != result {
			t.Errorf("game %d: result %s (tag %s), want %s", i+1, g.result, g.tags["Result"], result)
		}
		if g.tags["GameType"] != "22" || g.tags["PlyCount"] != fmt.Sprint(len(g.moves)) || g.tags["Round"] != fmt.Sprint(i+1) {
			t.Errorf("game %d: tags %v", i+1, g.tags)
		}
		// Colours alternate within a pair, the pair shares its opening, and
		// the book's last move is marked.
		if (g.tags["White"] == "A") != (i%2 == 0) {
			t.Errorf("game %d: White is %q", i+1, g.tags["White"])
		}
		o := cfg.DamaOpenings[openingOrder(len(cfg.DamaOpenings), cfg.Seed)[i/2]]
		if g.tags["Opening"] != o.Name || !slices.Equal(g.moves[:len(o.Moves)], o.Moves) || g.comments[0] != "book" {
			t.Errorf("game %d: opening %q, moves %v, first comment %q; want %q", i+1, g.tags["Opening"], g.moves[:len(o.Moves)], g.comments[0], o.Name)
		}
	}
	if decisive == 0 {
		t.Error("no game was decided: random play should lose some")
	}
}

func TestDamaGamesEndByTheRules(t *testing.T) {
	tests := []struct {
		name, fen    string
		engine       string
		termination  [2]string // games 1 and 2 of the pair
		result       [2]string
		score        stats.Trinomial
		wantMaxPlies int
	}{
		// White captures Black's last man: White wins, by A then by B.
		{"won and lost", "W:W22:B18", "random",
			[2]string{"no pieces: Black has none left", "no pieces: Black has none left"},
			[2]string{"2-0", "2-0"}, stats.Trinomial{W: 1, L: 1}, 0},
		// Two lone kings shuffling back and forth repeat the position.
		{"drawn by repetition", "W:WK29:BK4", "shuffle",
			[2]string{"threefold", "threefold"},
			[2]string{"1-1", "1-1"}, stats.Trinomial{D: 2}, 0},
		{"drawn at the ply cap", "W:WK29:BK4", "shuffle",
			[2]string{"adjudication: ply cap (3 plies)", "adjudication: ply cap (3 plies)"},
			[2]string{"1-1", "1-1"}, stats.Trinomial{D: 2}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pdn bytes.Buffer
			openings := []DamaOpening{{FEN: tc.fen, Name: tc.name}}
			cfg := damaConfig(t, damaFake(t, tc.engine), damaFake(t, tc.engine), 2, openings, &pdn)
			if tc.wantMaxPlies > 0 {
				cfg.MaxPlies = tc.wantMaxPlies
			}
			r, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Score != tc.score {
				t.Errorf("A scored %+v, want %+v", r.Score, tc.score)
			}
			for i, g := range readPDN(t, pdn.String()) {
				if g.tags["Termination"] != tc.termination[i] || g.result != tc.result[i] || g.tags["FEN"] != tc.fen {
					t.Errorf("game %d: %s %q from %q, want %s %q", i+1, g.result, g.tags["Termination"], g.tags["FEN"], tc.result[i], tc.termination[i])
				}
				replay(t, g)
			}
		})
	}
}

func TestDamaEngineThatFailsForfeitsWithALogLine(t *testing.T) {
	tests := []struct {
		name        string
		b           []string
		termination string // prefix of the Termination tag
		kind        string
	}{
		{"illegal move", []string{"illegal", "3"}, "illegal move: B played ", "illegal move"},
		{"bestmove none with moves left", []string{"none", "2"}, "no move: B answered bestmove none with ", "no move"},
		{"no bestmove", []string{"silent", "2"}, "stalled: B sent no bestmove within 300ms", "stalled"},
		{"a refused go", []string{"refuse", "2"}, `protocol error: B: the engine answered "error: go: refused on purpose"`, "protocol error"},
		{"crash", []string{"crash", "2"}, "crash: B engine exited (exit status 3): fake draughts engine: crashing on purpose", "crash"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pdn, log bytes.Buffer
			cfg := damaConfig(t, damaFake(t, "random"), damaFake(t, tc.b...), 4, nil, &pdn)
			cfg.Log = &log
			if tc.kind == "stalled" {
				cfg.Games, cfg.MoveTimeout = 2, 300*time.Millisecond
			}
			r, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Score != (stats.Trinomial{W: cfg.Games}) || r.Forfeits[1][tc.kind] != cfg.Games || len(r.Forfeits[0]) != 0 {
				t.Errorf("A scored %+v, forfeits A %v, B %v; want %d wins, B: %s %d", r.Score, r.Forfeits[0], r.Forfeits[1], cfg.Games, tc.kind, cfg.Games)
			}
			games := readPDN(t, pdn.String())
			for i, g := range games {
				want := []string{"2-0", "0-2"}[i%2]
				if !strings.HasPrefix(g.tags["Termination"], tc.termination) || g.result != want {
					t.Errorf("game %d: %s %q, want %s %q...", i+1, g.result, g.tags["Termination"], want, tc.termination)
				}
				replay(t, g)
			}
			lines := strings.Split(strings.TrimSpace(log.String()), "\n")
			if len(lines) != cfg.Games || !strings.HasPrefix(lines[0], "match: game 1: engine B loses, "+tc.termination) {
				t.Errorf("log:\n%s\nwant one line a game, naming engine B and why", log.String())
			}
		})
	}
}

func TestDamaOpeningsAreSeededDistinctAndLegal(t *testing.T) {
	a, b, c := DamaRandomOpenings(60, 2, 4, 7), DamaRandomOpenings(60, 2, 4, 7), DamaRandomOpenings(60, 2, 4, 8)
	names := func(os []DamaOpening) []string {
		out := make([]string, len(os))
		for i, o := range os {
			out[i] = o.Name
		}
		return out
	}
	if !slices.Equal(names(a), names(b)) {
		t.Error("seed 7 gave two different sets of openings")
	}
	if slices.Equal(names(a), names(c)) {
		t.Error("seeds 7 and 8 gave the same openings")
	}
	seen := map[uint64]bool{}
	lengths := map[int]int{}
	for _, o := range a {
		pos, err := o.play()
		if err != nil {
			t.Fatal(err)
		}
		if seen[pos.Hash()] || pos.Outcome() != dama.Ongoing {
			t.Errorf("opening %s repeats a position or ends the game", o.Name)
		}
		seen[pos.Hash()] = true
		lengths[len(o.Moves)]++
	}
	if len(lengths) != 3 || lengths[2] == 0 || lengths[3] == 0 || lengths[4] == 0 {
		t.Errorf("opening lengths %v, want 2, 3 and 4 plies", lengths)
	}
	// More openings than there are positions two plies deep: the lines grow.
	if many := DamaRandomOpenings(80, 2, 2, 1); len(many) != 80 || len(many[79].Moves) <= 2 {
		t.Errorf("80 openings of 2 plies: %d, the last %v", len(many), many[len(many)-1].Moves)
	}
}

func TestLoadDamaOpenings(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "book.txt")
	os.WriteFile(good, []byte("# a book\n22-18 11-15\n\nW:W22:B18\nB:W18,21,23-32:B1-12 11-15\n"), 0o644)
	book, err := LoadDamaOpenings(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []DamaOpening{
		{Moves: []string{"22-18", "11-15"}, Name: good + ":2"},
		{FEN: "W:W22:B18", Moves: []string{}, Name: good + ":4"},
		{FEN: "B:W18,21,23-32:B1-12", Moves: []string{"11-15"}, Name: good + ":5"},
	}
	if fmt.Sprint(book) != fmt.Sprint(want) {
		t.Errorf("book %v, want %v", book, want)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("22-18\n22-18 18-14\n"), 0o644)
	if _, err := LoadDamaOpenings(bad); err == nil || !strings.HasPrefix(err.Error(), bad+`:2: opening: move 2: move "18-14" is not legal in B:`) {
		t.Errorf("error %v, want one naming %s:2", err, bad)
	}
}

func TestDamaSettings(t *testing.T) {
	parse := func(args ...string) (*Config, error) {
		s, err := ParseArgs(append([]string{"-game", "dama", "-quiet"}, args...), &bytes.Buffer{})
		if err != nil {
			return nil, err
		}
		return s.Config(&bytes.Buffer{})
	}
	cfg, err := parse("-games", "10", "-b", "other -x")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Players[0].Command, []string{"bin/engine", "-game", "dama"}) || !slices.Equal(cfg.Players[1].Command, []string{"other", "-x"}) {
		t.Errorf("commands %q and %q", cfg.Players[0].Command, cfg.Players[1].Command)
	}
	if len(cfg.DamaOpenings) != 5 || len(cfg.Openings) != 0 || cfg.MaxPlies != DefaultDamaMaxPlies || !strings.HasPrefix(cfg.Event, "chessforge draughts match, nodes=") {
		t.Errorf("%d draughts openings, %d chess ones, ply cap %d, event %q", len(cfg.DamaOpenings), len(cfg.Openings), cfg.MaxPlies, cfg.Event)
	}
	if cfg, err := parse("-random-plies", "6", "-book-plies", "5", "-max-plies", "90"); err != nil || len(cfg.DamaOpenings[0].Moves) != 5 || cfg.MaxPlies != 90 {
		t.Errorf("-random-plies 6 -book-plies 5 -max-plies 90: %v", err)
	}
	for _, c := range []struct{ args, want string }{
		{"-tc clock=10+0.1", "engine A: time control clock=10+0.1: a draughts engine has no clock (want nodes=N, depth=N or movetime=MS)"},
		{"-b-opt Hash=16", "-b-opt: a draughts engine's text protocol has no options"},
		{"-max-plies -1", "-max-plies -1: must not be negative"},
	} {
		if _, err := parse(strings.Fields(c.args)...); err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := ParseArgs([]string{"-game", "go"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	s, _ := ParseArgs([]string{"-game", "go"}, &bytes.Buffer{})
	if _, err := s.Config(&bytes.Buffer{}); err == nil || err.Error() != `-game "go": want chess or dama` {
		t.Errorf("-game go: %v", err)
	}
}

func TestDamaSameSeedReplaysTheSameGames(t *testing.T) {
	play := func(seed uint64) string {
		var pdn bytes.Buffer
		cfg := damaConfig(t, damaFake(t, "random"), damaFake(t, "random"), 4, DamaRandomOpenings(2, 2, 4, seed), &pdn)
		cfg.Concurrency, cfg.Seed = 2, seed
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		// The comments hold the time each move took: compare the moves.
		var moves []string
		for _, g := range readPDN(t, pdn.String()) {
			moves = append(moves, strings.Join(g.moves, " ")+" "+g.result)
		}
		return strings.Join(moves, "\n")
	}
	if a, b := play(5), play(5); a != b {
		t.Errorf("two runs with seed 5 played different games:\n%s\n%s", a, b)
	}
	if play(5) == play(6) {
		t.Error("seeds 5 and 6 played the same games")
	}
}

// TestProjectDamaEngineSpeaksTheProtocol plays the project's draughts engine
// (bin/engine -game dama, built for the test) against itself: no forfeits,
// every game ends by the rules or the ply cap, and the PDN replays.
func TestProjectDamaEngineSpeaksTheProtocol(t *testing.T) {
	engine := []string{projectEngine(t), "-game", "dama"}
	var pdn bytes.Buffer
	cfg := damaConfig(t, engine, engine, 4, nil, &pdn)
	cfg.Players[0].TC = TimeControl{Kind: TCNodes, N: 800}
	cfg.Players[1].TC = TimeControl{Kind: TCDepth, N: 3}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Score.Games() != 4 || len(r.Forfeits[0])+len(r.Forfeits[1]) != 0 {
		t.Fatalf("%d games, forfeits %v", r.Score.Games(), r.Forfeits)
	}
	for i, g := range readPDN(t, pdn.String()) {
		pos := replay(t, g)
		if pos.Outcome() == dama.Ongoing && !strings.HasPrefix(g.tags["Termination"], "adjudication: ply cap") {
			t.Errorf("game %d ends undecided by %q in %s", i+1, g.tags["Termination"], pos.FEN())
		}
		// The engine's reported scores reach the comments.
		if !strings.Contains(strings.Join(g.comments, " "), "/") {
			t.Errorf("game %d: no score comments: %q", i+1, g.comments)
		}
	}
}
