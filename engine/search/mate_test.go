package search

import (
	"testing"
	"time"

	"chessforge/engine/board"
)

// mateCases are mates whose distance and (where unique) first move were
// confirmed with Stockfish (see TestSearchFindsMatesAtExactDistance).
var mateCases = []struct {
	name  string
	fen   string
	moves int
	first string
}{
	{"scholar's mate in 1", "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, "h5f7"},
	{"mate in 2 by Nf6+", "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2, "d5f6"},
	{"mate in 2 by Qc4+ for Black", "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1", 2, "c6c4"},
	// WAC 1: the main search finds the quiet queen sacrifice only at depth 18.
	{"mate in 2 by Qg6 (WAC 1)", "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2, "g3g6"},
	{"mate in 3 for Black", "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", 3, "b1g6"},
	{"mate in 3 by Ra6", "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3, "f6a6"},
	{"mate in 3 against the king on d4", "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3, "f8c5"},
	{"mate in 4 (Qh7+ or Rxe6)", "r2qr1k1/ppp2pp1/3pb3/4R1NQ/2B5/8/PB3PPP/3R2K1 w - - 1 2", 4, ""},
}

func TestMateSearchFindsShortestMate(t *testing.T) {
	for _, c := range mateCases {
		t.Run(c.name, func(t *testing.T) {
			pos := mustFEN(t, c.fen)
			want := MateScore - (2*c.moves - 1)
			// Asked for the exact distance or more, it finds the shortest mate.
			for _, n := range []int{c.moves, c.moves + 2} {
				var infos []Info
				res := New(Options{HashMB: 1}).Search(pos, Limits{Mate: n}, func(in Info) { infos = append(infos, in) })
				if res.Score != want || res.NoMateIn != 0 {
					t.Errorf("mate %d: score %d NoMateIn %d, want %d, 0", n, res.Score, res.NoMateIn, want)
				}
				if c.first != "" && res.BestMove.String() != c.first {
					t.Errorf("mate %d: best move %s, want %s", n, res.BestMove, c.first)
				}
				if len(res.PV) != 2*c.moves-1 || res.PV[0] != res.BestMove || (c.moves > 1 && res.PonderMove != res.PV[1]) {
					t.Errorf("mate %d: PV %v, ponder %v: want %d plies from the best move", n, res.PV, res.PonderMove, 2*c.moves-1)
				}
				if !mates(pos, res.PV) {
					t.Errorf("mate %d: PV %v does not end in mate", n, res.PV)
				}
				if len(infos) != 1 || infos[0].Score != want || infos[0].Depth != 2*c.moves-1 {
					t.Errorf("mate %d: reported %+v, want one line with the mate", n, infos)
				}
			}
			// Asked for one move fewer, it proves there is none.
			if c.moves > 1 {
				res := New(Options{HashMB: 1}).Search(pos, Limits{Mate: c.moves - 1}, nil)
				if res.Score >= MateScore-(2*c.moves-3) || res.NoMateIn != c.moves-1 || res.BestMove == board.NullMove {
					t.Errorf("mate %d: score %d NoMateIn %d best %v, want no mate in %d and a move", c.moves-1, res.Score, res.NoMateIn, res.BestMove, c.moves-1)
				}
			}
			// Depth bounds the mate search too: in 2n-2 plies it looks for
			// mates in up to n-1 moves only (the main search may still come
			// upon the mate, with its extensions).
			if c.moves > 1 {
				res := New(Options{HashMB: 1}).Search(pos, Limits{Mate: c.moves, Depth: 2*c.moves - 2}, nil)
				if res.NoMateIn != c.moves-1 || res.Depth > 2*c.moves-2 {
					t.Errorf("mate %d depth %d: NoMateIn %d depth %d, want %d and at most %d", c.moves, 2*c.moves-2, res.NoMateIn, res.Depth, c.moves-1, 2*c.moves-2)
				}
			}
		})
	}
}

// mates reports whether playing line from pos ends in checkmate.
func mates(pos *board.Position, line []board.Move) bool {
	p := pos.Clone()
	for _, m := range line {
		var l board.MoveList
		p.GenerateLegal(&l)
		legal := false
		for _, lm := range l.Slice() {
			legal = legal || lm == m
		}
		if !legal {
			return false
		}
		p.MakeMove(m)
	}
	return p.IsCheckmate()
}

func TestMateSearchWithoutMate(t *testing.T) {
	res := New(Options{HashMB: 1}).Search(board.NewPosition(), Limits{Mate: 1}, nil)
	if res.BestMove == board.NullMove || res.Score >= MateInMaxPly || res.NoMateIn != 1 || res.Depth != 1 {
		t.Errorf("start position, mate 1: best %v score %d NoMateIn %d depth %d; want a move, no mate, NoMateIn 1, depth 1",
			res.BestMove, res.Score, res.NoMateIn, res.Depth)
	}
	res = New(Options{HashMB: 1}).Search(board.NewPosition(), Limits{Mate: 3}, nil)
	if res.NoMateIn != 3 || res.Depth != 5 || res.Score >= MateInMaxPly {
		t.Errorf("start position, mate 3: NoMateIn %d depth %d score %d; want 3, 5 (the main search to 2·3-1 plies), no mate",
			res.NoMateIn, res.Depth, res.Score)
	}
	// The side to move being mated is no mate for it.
	p := mustFEN(t, "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1")
	m, _ := p.ParseUCIMove("b1g6")
	p.MakeMove(m)
	res = New(Options{HashMB: 1}).Search(p, Limits{Mate: 3}, nil)
	if res.NoMateIn != 3 || res.Score != -(MateScore-4) {
		t.Errorf("mated in 2, mate 3: NoMateIn %d score %d; want 3, %d", res.NoMateIn, res.Score, -(MateScore - 4))
	}
	// searchmoves restricts the mate search: the mate in 3 needs Ra6.
	p = mustFEN(t, "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1")
	other, _ := p.ParseUCIMove("f6f7")
	res = New(Options{HashMB: 1}).Search(p, Limits{Mate: 3, Moves: []board.Move{other}}, nil)
	if res.BestMove != other || res.NoMateIn != 3 {
		t.Errorf("searchmoves f6f7, mate 3: best %v NoMateIn %d; want f6f7, 3", res.BestMove, res.NoMateIn)
	}
}

func TestMateSearchLimits(t *testing.T) {
	// A mate in 12 from the start position is beyond reach: every limit
	// ends the search with a move.
	start := time.Now()
	res := New(Options{HashMB: 1}).Search(board.NewPosition(), Limits{Mate: 12, MoveTime: 200 * time.Millisecond}, nil)
	if el := time.Since(start); el > 2*time.Second || res.BestMove == board.NullMove {
		t.Errorf("movetime 200ms: %v, best %v", el, res.BestMove)
	}
	res = New(Options{HashMB: 1}).Search(board.NewPosition(), Limits{Mate: 12, Nodes: 50000}, nil)
	if res.BestMove == board.NullMove || res.Nodes > 60000 {
		t.Errorf("nodes 50000: best %v after %d nodes", res.BestMove, res.Nodes)
	}
	e := New(Options{HashMB: 1})
	wait := e.Start(board.NewPosition(), Limits{Mate: 12}, nil) // a Stop from now on reaches it
	done := make(chan Result)
	go func() { done <- wait() }()
	time.Sleep(100 * time.Millisecond)
	e.Stop()
	select {
	case res := <-done:
		if res.BestMove == board.NullMove || res.NoMateIn >= 12 {
			t.Errorf("stopped: best %v NoMateIn %d", res.BestMove, res.NoMateIn)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not end a mate search")
	}
}

func TestPartitionKeepsOrderOfTheFirstGroup(t *testing.T) {
	moves := []board.Move{1, 2, 3, 4, 5, 6}
	n := partition(moves, func(m board.Move) bool { return m%2 == 0 })
	if n != 3 || moves[0] != 2 || moves[1] != 4 || moves[2] != 6 {
		t.Errorf("partition: %d, %v; want 3, [2 4 6 ...]", n, moves)
	}
	seen := map[board.Move]bool{}
	for _, m := range moves {
		seen[m] = true
	}
	if len(seen) != 6 {
		t.Errorf("partition lost moves: %v", moves)
	}
}
