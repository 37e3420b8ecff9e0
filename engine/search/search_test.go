package search

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/nnue"
)

func mustFEN(t *testing.T, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}

// The expected mate distances were confirmed with Stockfish at depth 22.
func TestSearchFindsMatesAtExactDistance(t *testing.T) {
	cases := []struct {
		name  string
		fen   string
		moves int // mate in this many moves
		first string
	}{
		{"scholar's mate in 1", "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, "h5f7"},
		{"mate in 2 by Nf6+", "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2, "d5f6"},
		{"mate in 2 by Qc4+ for Black", "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1", 2, "c6c4"},
		{"mate in 3 for Black", "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", 3, "b1g6"},
		{"mate in 3 by Ra6", "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3, "f6a6"},
		{"mate in 4 (Qh7+ or Rxe6)", "r2qr1k1/ppp2pp1/3pb3/4R1NQ/2B5/8/PB3PPP/3R2K1 w - - 1 2", 4, ""},
		{"mate in 3 against the king on d4", "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3, "f8c5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := New(Options{HashMB: 8})
			// Depth 18, because null move, razoring and singular
			// extensions delay mates behind quiet sacrifices by several
			// plies (WAC 1's Qg6 is found only near depth 13).
			res := e.Search(mustFEN(t, c.fen), Limits{Depth: 18}, nil)
			want := MateScore - (2*c.moves - 1)
			if res.Score != want {
				t.Errorf("score %d, want %d (mate in %d)", res.Score, want, c.moves)
			}
			if c.first != "" && res.BestMove.String() != c.first {
				t.Errorf("best move %s, want %s", res.BestMove, c.first)
			}
		})
	}
}

func TestSearchSeesBeingMated(t *testing.T) {
	// After 1...Qg6+ in the mate-in-3 position White is mated in 2 more moves.
	p := mustFEN(t, "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1")
	m, _ := p.ParseUCIMove("b1g6")
	p.MakeMove(m)
	res := New(Options{HashMB: 8}).Search(p, Limits{Depth: 8}, nil)
	if want := -(MateScore - 4); res.Score != want {
		t.Errorf("score %d, want %d (mated in 2)", res.Score, want)
	}
}

// Expected moves confirmed with Stockfish.
func TestSearchWinsMaterial(t *testing.T) {
	cases := []struct{ fen, want string }{
		{"6k1/5ppp/8/8/8/2n5/5PPP/2R3K1 w - - 0 1", "c1c3"},
		{"4k3/8/8/3q4/8/8/3R4/3K4 w - - 0 1", "d2d5"},
		{"5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1", "e3g3"},
	}
	for _, c := range cases {
		res := New(Options{HashMB: 8}).Search(mustFEN(t, c.fen), Limits{Depth: 9}, nil)
		if res.BestMove.String() != c.want {
			t.Errorf("%s: best move %s (score %d), want %s", c.fen, res.BestMove, res.Score, c.want)
		}
	}
}

func TestSearchScoresThreefoldRepetitionAsDraw(t *testing.T) {
	// White is a queen up. Black's knight shuffle has already produced the
	// position after ...Ng8 twice; playing it a third time is a draw by
	// repetition, which Black, being lost, must choose, scoring exactly 0.
	p := mustFEN(t, "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
	for _, s := range []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"} {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
	}
	res := New(Options{HashMB: 8}).Search(p, Limits{Depth: 8}, nil)
	if res.BestMove.String() != "f6g8" || res.Score != 0 {
		t.Errorf("got %s with score %d, want f6g8 scoring 0", res.BestMove, res.Score)
	}
	// Without that history the same position is clearly lost for Black.
	fresh := mustFEN(t, p.FEN())
	res = New(Options{HashMB: 8}).Search(fresh, Limits{Depth: 8}, nil)
	if res.Score > -300 {
		t.Errorf("without history: score %d, want clearly lost for Black", res.Score)
	}
}

func TestSearchScoresFiftyMoveRuleAsDraw(t *testing.T) {
	// Black's king alone against K+Q: with 99 plies on the clock any king
	// move completes fifty moves without capture or pawn move.
	lost := "7k/8/8/8/8/8/8/KQ6 b - - %d 80"
	p := mustFEN(t, sprintf(lost, 99))
	// At depth 1 the fiftieth move's position is a leaf, for quiescence.
	for _, depth := range []int{1, 2, 10} {
		res := New(Options{HashMB: 8}).Search(p, Limits{Depth: depth}, nil)
		if res.Score != 0 {
			t.Errorf("halfmove 99, depth %d: score %d, want 0", depth, res.Score)
		}
	}
	p = mustFEN(t, sprintf(lost, 0))
	res := New(Options{HashMB: 8}).Search(p, Limits{Depth: 10}, nil)
	if res.Score > -500 {
		t.Errorf("halfmove 0: score %d, want clearly lost", res.Score)
	}
}

func TestSearchScoresDeadDrawAsZero(t *testing.T) {
	for _, fen := range []string{"8/8/4k3/8/8/3K4/8/8 w - - 0 1", "8/8/4k3/8/8/3KB3/8/8 w - - 0 1", "8/8/4k3/8/8/3KN3/8/8 b - - 0 1"} {
		res := New(Options{HashMB: 8}).Search(mustFEN(t, fen), Limits{Depth: 6}, nil)
		if res.Score != 0 {
			t.Errorf("%s: score %d, want 0", fen, res.Score)
		}
	}
}

func TestSearchNoLegalMoves(t *testing.T) {
	res := New(Options{}).Search(mustFEN(t, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), Limits{Depth: 3}, nil)
	if res.BestMove != board.NullMove {
		t.Errorf("stalemate: best move %s, want none", res.BestMove)
	}
	res = New(Options{}).Search(mustFEN(t, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), Limits{Depth: 3}, nil)
	if res.BestMove != board.NullMove || res.Score != -MateScore {
		t.Errorf("checkmated: got %s %d", res.BestMove, res.Score)
	}
}

func TestNodeLimitedSearchIsDeterministic(t *testing.T) {
	fens := []string{board.StartFEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"4rrk1/pp1n3p/3q2pp/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19"}
	for _, fen := range fens {
		var first Result
		for i := 0; i < 3; i++ {
			e := New(Options{HashMB: 4})
			res := e.Search(mustFEN(t, fen), Limits{Nodes: 20000}, nil)
			if res.Nodes != 20000 {
				t.Errorf("%s: searched %d nodes, want exactly 20000", fen, res.Nodes)
			}
			if i == 0 {
				first = res
				continue
			}
			if res.BestMove != first.BestMove || res.Score != first.Score || res.Nodes != first.Nodes {
				t.Errorf("%s: run %d gave %s %d (%d nodes), first gave %s %d (%d nodes)",
					fen, i, res.BestMove, res.Score, res.Nodes, first.BestMove, first.Score, first.Nodes)
			}
		}
		// A Cleared engine behaves as a fresh one.
		e := New(Options{HashMB: 4})
		e.Search(mustFEN(t, board.StartFEN), Limits{Depth: 6}, nil)
		e.Clear()
		res := e.Search(mustFEN(t, fen), Limits{Nodes: 20000}, nil)
		if res.BestMove != first.BestMove || res.Score != first.Score {
			t.Errorf("%s: after Clear got %s %d, fresh engine %s %d", fen, res.BestMove, res.Score, first.BestMove, first.Score)
		}
	}
}

func TestSearchRespectsMoveTime(t *testing.T) {
	e := New(Options{HashMB: 8, MoveOverhead: 50 * time.Millisecond})
	p := mustFEN(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	budget := 100 * time.Millisecond
	// The search aims 50 ms (MoveOverhead) short of the budget. On a
	// loaded machine (race detector, tests of other packages beside it on
	// two cores) the scheduler can hold a search past its deadline now and
	// then, so two overruns in ten are forgiven; a search that ignored the
	// budget would overrun every time.
	var late []time.Duration
	for i := 0; i < 10; i++ {
		start := time.Now()
		res := e.Search(p, Limits{MoveTime: budget}, nil)
		if el := time.Since(start); el > budget {
			late = append(late, el)
		}
		if res.BestMove == board.NullMove {
			t.Fatalf("no move")
		}
	}
	if len(late) > 2 {
		t.Errorf("%d of 10 searches overran the budget of %v: %v", len(late), budget, late)
	}
}

func TestSearchRespectsClock(t *testing.T) {
	e := New(Options{HashMB: 8, MoveOverhead: 50 * time.Millisecond})
	p := board.NewPosition()
	// A quick game on a 2 s + 50 ms clock: every move within the time left.
	inc := 50 * time.Millisecond
	left := 2 * time.Second
	for ply := 0; ply < 40 && left > 0; ply++ {
		lim := Limits{WTime: left, BTime: left, WInc: inc, BInc: inc}
		start := time.Now()
		res := e.Search(p, lim, nil)
		used := time.Since(start)
		if used > left {
			t.Fatalf("ply %d: used %v with %v on the clock", ply, used, left)
		}
		if res.BestMove == board.NullMove {
			break
		}
		left = left - used + inc
		p.MakeMove(res.BestMove)
		if p.Outcome() != board.Ongoing {
			break
		}
	}
	if left <= 0 {
		t.Errorf("flagged")
	}
}

func TestStopEndsInfiniteSearch(t *testing.T) {
	e := New(Options{HashMB: 8})
	// Start, not Search in a goroutine: a Stop before such a Search began
	// would be lost (on a loaded machine, now and then).
	wait := e.Start(board.NewPosition(), Limits{Infinite: true}, nil)
	done := make(chan Result)
	go func() { done <- wait() }()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	e.Stop()
	select {
	case res := <-done:
		if res.BestMove == board.NullMove {
			t.Error("no best move after stop")
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("stop took %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("search did not stop")
	}
}

func TestMultiPVReportsDistinctSortedLines(t *testing.T) {
	e := New(Options{HashMB: 8})
	res := e.Search(board.NewPosition(), Limits{Depth: 7, MultiPV: 4}, nil)
	if len(res.Lines) != 4 {
		t.Fatalf("got %d lines, want 4", len(res.Lines))
	}
	seen := map[board.Move]bool{}
	for i, l := range res.Lines {
		if len(l.PV) == 0 || seen[l.PV[0]] {
			t.Errorf("line %d: bad or repeated first move %v", i, l.PV)
		}
		seen[l.PV[0]] = true
		if i > 0 && l.Score > res.Lines[i-1].Score {
			t.Errorf("line %d scores %d, above line %d's %d", i, l.Score, i-1, res.Lines[i-1].Score)
		}
	}
	if res.Lines[0].PV[0] != res.BestMove {
		t.Errorf("best move %s is not the first line's %s", res.BestMove, res.Lines[0].PV[0])
	}
}

func TestSearchMovesRestrictsRoot(t *testing.T) {
	p := board.NewPosition()
	m, _ := p.ParseUCIMove("a2a3")
	res := New(Options{}).Search(p, Limits{Depth: 5, Moves: []board.Move{m}}, nil)
	if res.BestMove != m {
		t.Errorf("best move %s, want the only allowed a2a3", res.BestMove)
	}
}

func TestLazySMPSearchesWithThreads(t *testing.T) {
	e := New(Options{HashMB: 8, Threads: 2})
	p := mustFEN(t, "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10")
	res := e.Search(p, Limits{Depth: 8}, nil)
	if res.BestMove.String() != "d5f6" || res.Score != MateScore-3 {
		t.Errorf("2 threads: %s %d, want d5f6 mate in 2", res.BestMove, res.Score)
	}
}

func TestSearchLeavesPositionUntouched(t *testing.T) {
	p := mustFEN(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	fen, hash := p.FEN(), p.Hash()
	New(Options{}).Search(p, Limits{Depth: 6}, nil)
	if p.FEN() != fen || p.Hash() != hash {
		t.Error("search modified its input position")
	}
}

func TestSEE(t *testing.T) {
	cases := []struct {
		fen, move string
		threshold int
		want      bool
	}{
		// Pawn takes a defended knight: wins a knight for a pawn.
		{"4k3/8/3n4/4P3/8/8/8/4K3 w - - 0 1", "e5d6", 300, true},
		// Queen takes a pawn defended by a pawn: loses the queen.
		{"4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1", "d2d6", 0, false},
		// Rook takes a rook defended by a rook, backed by our second rook (x-ray): even.
		{"3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 0, true},
		{"3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 1, false},
		// Undefended piece: wins it.
		{"4k3/8/8/3b4/8/8/8/3RK3 w - - 0 1", "d1d5", 330, true},
	}
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		m, err := p.ParseUCIMove(c.move)
		if err != nil {
			t.Fatal(err)
		}
		if got := seeGE(p, m, c.threshold); got != c.want {
			t.Errorf("%s %s >= %d: got %v, want %v", c.fen, c.move, c.threshold, got, c.want)
		}
	}
}

func TestTTMateScoresArePlyRelative(t *testing.T) {
	for _, ply := range []int{0, 3, 17} {
		for _, s := range []int{MateScore - 5, -MateScore + 9, 123, -45} {
			if got := scoreFromTT(scoreToTT(s, ply), ply); got != s {
				t.Errorf("round trip of %d at ply %d gave %d", s, ply, got)
			}
		}
	}
	// A mate in 5 plies from a node at ply 3 is a mate in 2 plies from that node.
	if got := scoreToTT(MateScore-5, 3); got != MateScore-2 {
		t.Errorf("scoreToTT: got %d, want %d", got, MateScore-2)
	}
}

func TestBenchPositionsAreValid(t *testing.T) {
	for i, fen := range benchFENs {
		if _, err := board.ParseFEN(fen); err != nil {
			t.Errorf("bench position %d: %v", i+1, err)
		}
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

func TestQuietPVResolvesCaptures(t *testing.T) {
	e := New(Options{HashMB: 1})
	// White's rook takes the undefended bishop; the leaf is quiet.
	p := mustFEN(t, "4k3/8/8/3b4/8/8/8/3RK3 w - - 0 1")
	pv, score := e.QuietPV(p)
	if len(pv) != 1 || pv[0].String() != "d1d5" {
		t.Fatalf("quiet PV %v, want [d1d5]", pv)
	}
	if score < 300 {
		t.Errorf("score %d after winning a bishop", score)
	}
	if p.FEN() != "4k3/8/8/3b4/8/8/8/3RK3 w - - 0 1" {
		t.Error("QuietPV modified its input")
	}
	// A quiet position resolves to itself.
	pv, _ = e.QuietPV(board.NewPosition())
	if len(pv) != 0 {
		t.Errorf("start position: quiet PV %v, want empty", pv)
	}
}

func TestNodeLimitedMultiPVLinesHaveRealScores(t *testing.T) {
	for _, nodes := range []uint64{300, 1000, 3000, 7000} {
		res := New(Options{HashMB: 4}).Search(board.NewPosition(), Limits{Nodes: nodes, MultiPV: 4}, nil)
		if len(res.Lines) != 4 {
			t.Fatalf("nodes %d: %d lines", nodes, len(res.Lines))
		}
		for i, l := range res.Lines {
			if l.Score <= -Infinity || l.Score >= Infinity || len(l.PV) == 0 {
				t.Errorf("nodes %d: line %d has score %d and PV %v", nodes, i, l.Score, l.PV)
			}
		}
	}
}

// TestProbCutCutsWithAWinningCapture: at a non-PV node of depth 6 whose
// beta lies just above the static evaluation (so that neither reverse
// futility nor the null move cuts it), a knight that can take a hanging
// queen beats beta+ProbCutMargin in a search ProbCutReduction plies
// shallower: the node returns that score, and its table entry is the
// capture, a lower bound at that shallower depth (a full search of the
// node would store its own depth).
func TestProbCutCutsWithAWinningCapture(t *testing.T) {
	for _, network := range []bool{false, true} {
		e := New(Options{HashMB: 1, Threads: 1})
		w := e.workers[0]
		if !network {
			w.setNetwork(nil)
		}
		p := mustFEN(t, "4k3/8/8/3q4/8/4N3/8/4K3 w - - 0 1")
		w.pos, w.rootPly, w.completed = p, p.Ply(), 1
		if w.nn != nil {
			w.nn.Reset(p)
		}
		for i := range w.stack {
			w.stack[i] = frame{eval: -Infinity}
		}
		const ply, depth = 1, 6
		beta := w.evaluate(p) + 10
		s := w.negamax(beta-1, beta, depth, ply, true)
		if s < beta+params.ProbCutMargin {
			t.Fatalf("network %v: score %d, want at least beta+ProbCutMargin = %d", network, s, beta+params.ProbCutMargin)
		}
		d, ok := e.tt.Probe(p.Hash())
		capture := board.NewMove(board.MakeSquare(4, 2), board.MakeSquare(3, 4))
		if !ok || d.move != capture || d.bound != BoundLower || d.depth != depth-params.ProbCutReduction+1 {
			t.Fatalf("network %v: table entry %+v (hit %v), want %v, a lower bound at depth %d", network, d, ok, capture, depth-params.ProbCutReduction+1)
		}
	}
}

// TestReducedDepthFollowsHistory checks the depth at which shallow pruning
// judges a quiet move: the base late-move reduction at no history, a ply
// deeper or shallower per LMRHistoryDivisor of history, never negative.
func TestReducedDepthFollowsHistory(t *testing.T) {
	div := params.LMRHistoryDivisor
	for _, c := range []struct{ depth, move int }{{3, 4}, {6, 10}, {8, 2}, {12, 30}} {
		base := max(0, c.depth-1-lmr(c.depth, c.move))
		if got := reducedDepth(c.depth, c.move, 0); got != base {
			t.Errorf("depth %d, move %d, no history: %d, want %d", c.depth, c.move, got, base)
		}
		if got := reducedDepth(c.depth, c.move, 2*div); got != base+2 {
			t.Errorf("depth %d, move %d, history 2×divisor: %d, want %d", c.depth, c.move, got, base+2)
		}
		if got := reducedDepth(c.depth, c.move, -div); got != max(0, c.depth-1-lmr(c.depth, c.move)-1) {
			t.Errorf("depth %d, move %d, history −divisor: %d, want a ply shallower", c.depth, c.move, got)
		}
		if got := reducedDepth(c.depth, c.move, -4*historyLimit); got < 0 {
			t.Errorf("depth %d, move %d, worst history: %d, want >= 0", c.depth, c.move, got)
		}
	}
}

// TestSingularSearchLeavesNoLine runs the singular-extension verification
// where a move beats its window, so that it writes a line at the node's
// ply: that line must be cleared, or a node whose own moves all fail low
// would pass it up as its PV.
func TestSingularSearchLeavesNoLine(t *testing.T) {
	w, p := searchWorker(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10")
	var legal board.MoveList
	p.GenerateLegal(&legal)
	m := legal.Slice()[0]
	const ply, depth, sBeta = 2, 3, -5000 // every other move beats sBeta
	// The premise: the search at the node's ply writes a line there.
	w.stack[ply].excluded = m
	want := w.negamax(sBeta-1, sBeta, depth, ply, false)
	w.stack[ply].excluded = board.NullMove
	if w.pvLen[ply] == 0 {
		t.Fatal("the verification search wrote no line at its ply: the test proves nothing")
	}
	if got := w.singularSearch(m, sBeta, depth, ply, false); got != want || w.pvLen[ply] != 0 || w.stack[ply].excluded != board.NullMove {
		t.Errorf("score %d (want %d), line of %d moves left at ply %d, excluded %v", got, want, w.pvLen[ply], ply, w.stack[ply].excluded)
	}
}

// TestFutileCapture checks capture futility at the edge of its margin: a
// pawn capture whose value plus the margin only reaches alpha is pruned,
// one that passes alpha by a centipawn is not, nor is a promotion or a
// capture beyond CaptureFutilityMaxDepth, and a good capture history
// widens the margin.
func TestFutileCapture(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 1})
	w := e.workers[0]
	w.pos = mustFEN(t, "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
	takesPawn := board.NewMove(board.MakeSquare(4, 3), board.MakeSquare(3, 4))
	const eval, depth = 0, 2
	margin := params.CaptureFutilityBase + params.CaptureFutilityMargin*depth + seeValue[board.Pawn]
	if !w.futileCapture(takesPawn, eval, eval+margin, depth) {
		t.Errorf("pawn capture at alpha = eval + %d: not futile", margin)
	}
	if w.futileCapture(takesPawn, eval, eval+margin-1, depth) {
		t.Errorf("pawn capture at alpha = eval + %d: futile", margin-1)
	}
	if w.futileCapture(takesPawn, eval, eval+10000, params.CaptureFutilityMaxDepth+1) {
		t.Error("pawn capture beyond CaptureFutilityMaxDepth: futile")
	}
	*w.captureHist(w.pos, takesPawn) = 4000
	if w.futileCapture(takesPawn, eval, eval+margin, depth) {
		t.Error("pawn capture with a good capture history at the bare margin: futile")
	}

	w.pos = mustFEN(t, "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
	promotes := board.NewPromotion(board.MakeSquare(0, 6), board.MakeSquare(1, 7), board.Queen)
	if w.futileCapture(promotes, eval, eval+10000, depth) {
		t.Error("capturing promotion: futile")
	}
}

// TestSearchAllocatesNothingPerNode counts the heap allocations of searches
// of the same positions at 2,000 and at 60,000 nodes, with the hand-crafted
// evaluation and with a network: a search allocates for its setup and for
// the root's lines, which do not grow with the nodes searched, and nothing
// per node.
func TestSearchAllocatesNothingPerNode(t *testing.T) {
	fens := []string{board.StartFEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"4rrk1/pp1n3p/3q2pp/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19"}
	mallocs := func(e *Engine, nodes uint64) uint64 {
		var before, after runtime.MemStats
		total := uint64(0)
		for _, fen := range fens {
			p := mustFEN(t, fen)
			e.Clear()
			runtime.ReadMemStats(&before)
			e.Search(p, Limits{Nodes: nodes}, nil)
			runtime.ReadMemStats(&after)
			total += after.Mallocs - before.Mallocs
		}
		return total
	}
	for _, network := range []bool{false, true} {
		e := New(Options{HashMB: 4})
		evaluation := "hand-crafted evaluation"
		if network {
			e.SetNetwork(nnue.Random(1, nnue.DefaultHidden, 8))
			evaluation = "network"
		}
		mallocs(e, 2000) // the first searches size what later ones reuse
		short, long := mallocs(e, 2000), mallocs(e, 60000)
		// The longer searches' lines are longer, and a line's slice may
		// grow a few times; a node's allocation would add thousands.
		if long > short+64 {
			t.Errorf("%s: %d allocations in searches of 2,000 nodes, %d in searches of 60,000: the search allocates per node",
				evaluation, short, long)
		}
	}
}
