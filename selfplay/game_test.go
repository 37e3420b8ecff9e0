package selfplay

import (
	"context"
	"testing"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/pgn"
	"chessforge/engine/search"
)

// tinyConfig is a job small enough for the race detector: a few hundred
// nodes a move, short games, every adjudication rule switched on.
func tinyConfig() Config {
	c := DefaultConfig()
	c.Games = 6
	c.Seed = 7
	c.Nodes = 200
	c.Hash = 1
	c.RandomPlies = 2
	c.MultiPVPlies = 2
	c.MultiPV = 3
	c.MultiPVMargin = 30
	c.ResignScore = 700
	c.ResignPlies = 4
	c.DrawPly = 16
	c.DrawScore = 15
	c.DrawPlies = 4
	c.MaxPlies = 40
	c.WriteMinPly = 0
	c.Workers = 2
	c.PartGames = 1000
	return c
}

// collect plays the shard's games with play and returns them by game number.
func collect(t *testing.T, cfg Config, shard Shard) map[int]*Game {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var book []pgn.Opening
	if cfg.Book != "" {
		var err error
		if book, err = LoadBook(cfg.Book); err != nil {
			t.Fatal(err)
		}
	}
	players, err := newPlayers(&cfg, nil, book, nil)
	if err != nil {
		t.Fatal(err)
	}
	games := map[int]*Game{}
	order := []int{}
	err = play(context.Background(), &cfg, players, shard, 0, shard.Games(cfg.Games), 0, func(i int, g *Game) error {
		c := *g // the pool reuses g's slices after write returns
		c.Plies = append([]Ply(nil), g.Plies...)
		c.Rows = append([]datasets.Row(nil), g.Rows...)
		c.Hashes = append([]uint64(nil), g.Hashes...)
		games[g.Number] = &c
		order = append(order, i)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range order {
		if i != k {
			t.Fatalf("games written in the order %v, want 0, 1, 2, ...", order)
		}
	}
	if len(games) != shard.Games(cfg.Games) {
		t.Fatalf("%d games, want %d", len(games), shard.Games(cfg.Games))
	}
	return games
}

// checkGame replays g and checks that every move is legal, that every row
// is its position re-derived (FEN, planes, policy, flags), that the game did
// not go on past the end, and that its result follows from the final
// position or from the adjudication rule.
func checkGame(t *testing.T, cfg *Config, g *Game) {
	t.Helper()
	pos, err := board.ParseFEN(g.StartFEN)
	if err != nil {
		t.Fatalf("game %d: start %q: %v", g.Number, g.StartFEN, err)
	}
	if g.ID != GameID(cfg.Seed, g.Number) || GameNumber(g.ID) != g.Number {
		t.Errorf("game %d: id %d does not encode the game number", g.Number, g.ID)
	}
	rows := g.Rows
	var planes encoder.Planes
	for ply, pl := range g.Plies {
		if o := pos.Outcome(); o != board.Ongoing {
			t.Fatalf("game %d: went on at ply %d after %v", g.Number, ply, o)
		}
		if !pos.IsLegal(pl.Move) {
			t.Fatalf("game %d ply %d: illegal move %v in %s", g.Number, ply, pl.Move, pos.FEN())
		}
		if pl.Searched && !pos.IsLegal(pl.Best) {
			t.Fatalf("game %d ply %d: illegal best move %v in %s", g.Number, ply, pl.Best, pos.FEN())
		}
		if pl.choice == choiceBest && pl.Move != pl.Best {
			t.Errorf("game %d ply %d: played %v, not the best move %v", g.Number, ply, pl.Move, pl.Best)
		}
		if len(rows) > 0 && int(rows[0].Ply) == ply {
			r := rows[0]
			rows = rows[1:]
			encoder.EncodeTo(&planes, pos)
			policy, _ := encoder.PolicyIndex(pl.Best)
			switch {
			case r.FEN != pos.FEN():
				t.Errorf("game %d ply %d: row fen %q, position %q", g.Number, ply, r.FEN, pos.FEN())
			case r.Planes != planes:
				t.Errorf("game %d ply %d: row planes differ from the position's", g.Number, ply)
			case r.Move != pl.Move.String() || r.BestMove != pl.Best.String() || int(r.Policy) != policy:
				t.Errorf("game %d ply %d: row move %s best %s policy %d, want %v %v %d", g.Number, ply, r.Move, r.BestMove, r.Policy, pl.Move, pl.Best, policy)
			case r.ScoreCP != pl.Score || r.GameID != g.ID || r.Result != g.Result || r.Termination != g.Termination:
				t.Errorf("game %d ply %d: row score/id/result/termination %d %d %v %v", g.Number, ply, r.ScoreCP, r.GameID, r.Result, r.Termination)
			case r.InCheck != pos.InCheck() || r.BestIsCapture != pos.IsCapture(pl.Best) || r.BestIsPromotion != pl.Best.IsPromotion():
				t.Errorf("game %d ply %d: row flags wrong", g.Number, ply)
			}
		}
		pos.MakeMove(pl.Move)
	}
	if len(rows) > 0 {
		t.Errorf("game %d: %d rows beyond its plies", g.Number, len(rows))
	}
	checkResult(t, cfg, g, pos)
}

// checkResult checks that g's termination and result follow from its final
// position or its scores.
func checkResult(t *testing.T, cfg *Config, g *Game, final *board.Position) {
	t.Helper()
	o := final.Outcome()
	n := len(g.Plies)
	lastScores := func(k int) []int32 {
		if n < k {
			t.Fatalf("game %d: %v after %d plies, fewer than the %d the rule needs", g.Number, g.Termination, n, k)
		}
		var s []int32
		for _, pl := range g.Plies[n-k:] {
			if !pl.Searched {
				t.Fatalf("game %d: %v over an unsearched ply", g.Number, g.Termination)
			}
			s = append(s, pl.Score)
		}
		return s
	}
	want := float32(0.5)
	switch g.Termination {
	case datasets.TerminationCheckmate, datasets.TerminationStalemate, datasets.TerminationThreefold,
		datasets.TerminationFiftyMove, datasets.TerminationInsufficientMaterial:
		term, res := ruleResult(o, final.SideToMove())
		if o == board.Ongoing || term != g.Termination {
			t.Fatalf("game %d: termination %v, but the final position is %v", g.Number, g.Termination, o)
		}
		want = res
		if o == board.Checkmate && final.SideToMove() == board.White {
			want = 0
		}
	case datasets.TerminationAdjudicatedWin:
		if o != board.Ongoing {
			t.Fatalf("game %d: adjudicated although the rules ended it (%v)", g.Number, o)
		}
		s := lastScores(cfg.ResignPlies)
		want = 1
		if s[0] < 0 {
			want = 0
		}
		for _, v := range s {
			if (want == 1 && int(v) < cfg.ResignScore) || (want == 0 && int(v) > -cfg.ResignScore) {
				t.Fatalf("game %d: adjudicated win over scores %v (margin %d)", g.Number, s, cfg.ResignScore)
			}
		}
	case datasets.TerminationAdjudicatedDraw:
		if o != board.Ongoing {
			t.Fatalf("game %d: adjudicated although the rules ended it (%v)", g.Number, o)
		}
		s := lastScores(cfg.DrawPlies)
		if n-cfg.DrawPlies < cfg.DrawPly {
			t.Fatalf("game %d: drawn by adjudication from ply %d, before -draw-ply %d", g.Number, n-cfg.DrawPlies, cfg.DrawPly)
		}
		for _, v := range s {
			if abs(int(v)) > cfg.DrawScore {
				t.Fatalf("game %d: adjudicated draw over scores %v", g.Number, s)
			}
		}
	case datasets.TerminationPlyCap:
		if o != board.Ongoing || n != cfg.MaxPlies {
			t.Fatalf("game %d: ply cap after %d plies (cap %d), final position %v", g.Number, n, cfg.MaxPlies, o)
		}
	default:
		t.Fatalf("game %d: termination %v", g.Number, g.Termination)
	}
	if g.Result != want {
		t.Fatalf("game %d: result %v, the %v gives %v", g.Number, g.Result, g.Termination, want)
	}
}

func TestGamesReplayLegallyAndResultsFollowFromTheRules(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games = 10
	games := collect(t, cfg, Unsharded)
	seen := map[datasets.Termination]int{}
	for _, g := range games {
		checkGame(t, &cfg, g)
		seen[g.Termination]++
		if len(g.Rows) != len(g.Plies) {
			t.Errorf("game %d: %d rows for %d plies with no write filter", g.Number, len(g.Rows), len(g.Plies))
		}
	}
	t.Logf("terminations: %v", seen)
}

func TestGameEndingsByEveryRule(t *testing.T) {
	// Positions one move from each rule's ending, as books, so that the
	// engine plays into them.
	tests := []struct {
		name string
		fen  string
		term datasets.Termination
	}{
		{"mate in one", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", datasets.TerminationCheckmate},
		{"insufficient material after capture", "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", datasets.TerminationInsufficientMaterial},
		{"fifty-move rule", "8/8/8/4k3/8/8/3RK3/r7 w - - hmvc 99; fmvn 80;", datasets.TerminationFiftyMove},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := t.TempDir() + "/book.epd"
			writeFile(t, book, tt.fen+"\n")
			cfg := tinyConfig()
			cfg.Games, cfg.Book, cfg.RandomPlies, cfg.MultiPVPlies = 1, book, 0, 0
			cfg.ResignScore, cfg.DrawPlies = 0, 0
			g := collect(t, cfg, Unsharded)[0]
			checkGame(t, &cfg, g)
			if g.Termination != tt.term {
				t.Fatalf("termination %v after %d plies, want %v", g.Termination, len(g.Plies), tt.term)
			}
		})
	}
}

func TestAdjudicationAndPlyCap(t *testing.T) {
	tests := []struct {
		name   string
		fen    string
		set    func(*Config)
		term   datasets.Termination
		result float32
	}{
		{"resign: queen up for Black", "4k3/8/8/8/8/8/q7/4K3 w - - 0 1",
			func(c *Config) { c.ResignScore, c.ResignPlies = 500, 3 }, datasets.TerminationAdjudicatedWin, 0},
		{"draw near zero", "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1",
			func(c *Config) { c.DrawPly, c.DrawScore, c.DrawPlies = 0, 100, 4 }, datasets.TerminationAdjudicatedDraw, 0.5},
		{"ply cap", "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1",
			func(c *Config) { c.MaxPlies = 5 }, datasets.TerminationPlyCap, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := t.TempDir() + "/book.epd"
			writeFile(t, book, tt.fen+"\n")
			cfg := tinyConfig()
			cfg.Games, cfg.Book, cfg.RandomPlies, cfg.MultiPVPlies = 1, book, 0, 0
			cfg.ResignScore, cfg.DrawPlies, cfg.MaxPlies = 0, 0, 0
			tt.set(&cfg)
			g := collect(t, cfg, Unsharded)[0]
			checkGame(t, &cfg, g)
			if g.Termination != tt.term || g.Result != tt.result {
				t.Fatalf("%v %v after %d plies, want %v %v", g.Termination, g.Result, len(g.Plies), tt.term, tt.result)
			}
		})
	}
}

func TestWriteWindowRecordsEveryPlyFromItsStart(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games = 4
	cfg.WriteMinPly = 6
	games := collect(t, cfg, Unsharded)
	rows := 0
	for _, g := range games {
		checkGame(t, &cfg, g)
		// The rows are plies 6, 7, ... to the game's last: no gap, whatever
		// the scores.
		if want := max(len(g.Plies)-6, 0); len(g.Rows) != want {
			t.Fatalf("game %d: %d rows for %d plies, want %d", g.Number, len(g.Rows), len(g.Plies), want)
		}
		for i, r := range g.Rows {
			if r.Ply != int32(6+i) || !g.Plies[6+i].Searched {
				t.Fatalf("game %d: row %d at ply %d (searched %v), want ply %d", g.Number, i, r.Ply, g.Plies[6+i].Searched, 6+i)
			}
		}
		for i, pl := range g.Plies[:min(cfg.RandomPlies, len(g.Plies))] {
			if pl.Searched {
				t.Errorf("game %d: random ply %d searched although it is not written", g.Number, i)
			}
		}
		rows += len(g.Rows)
	}
	if rows == 0 {
		t.Fatal("no rows")
	}
}

func TestMultiPVChoiceStaysWithinTheMargin(t *testing.T) {
	cfg := tinyConfig()
	cfg.Nodes = 2000
	p := newPlayer(&cfg, nil, &openings{})
	pos := board.NewPosition()
	res := p.eng.Search(pos, search.Limits{Nodes: cfg.Nodes, MultiPV: 4}, nil)
	if len(res.Lines) != 4 {
		t.Fatalf("%d lines, want 4", len(res.Lines))
	}
	ok := map[board.Move]bool{}
	for _, l := range res.Lines {
		if l.Score >= res.Lines[0].Score-cfg.MultiPVMargin {
			ok[l.PV[0]] = true
		}
	}
	chosen := map[board.Move]bool{}
	rng := gameRand(1, 1)
	for range 200 {
		m := p.chooseLine(&res, rng)
		if !ok[m] {
			t.Fatalf("chose %v, outside the margin %d of %+v", m, cfg.MultiPVMargin, res.Lines)
		}
		chosen[m] = true
	}
	if len(chosen) != len(ok) {
		t.Fatalf("chose %d of the %d candidate moves in 200 draws", len(chosen), len(ok))
	}
}

func TestGameIDIsUniqueAndCarriesTheGameNumber(t *testing.T) {
	seen := map[int64]bool{}
	for _, seed := range []uint64{0, 1, 2} {
		for n := range 1000 {
			id := GameID(seed, n)
			if id < 0 || seen[id] || GameNumber(id) != n {
				t.Fatalf("seed %d game %d: id %d (negative, repeated or not carrying the number)", seed, n, id)
			}
			seen[id] = true
		}
	}
	if GameID(5, 3) != GameID(5, 3) {
		t.Fatal("GameID is not a function")
	}
}
