package eval

import (
	"sync"
	"testing"

	"chessforge/engine/board"
)

// searcher is a small alpha-beta search (full width to a depth, then
// captures and promotions, all evasions in check) that scores positions
// with a given function: it visits positions in the order an engine's search
// does, one move apart, mostly sharing the pawn structure of their
// neighbours, with pawn moves, captures and promotions among them.
type searcher struct {
	eval  func(p *board.Position, m board.Move) int // m led to p (NullMove at the root)
	lists [maxPly + 1]board.MoveList
	last  [maxPly + 1]board.Move
	evals int
}

const maxPly = 24

func (s *searcher) search(p *board.Position, depth, ply, alpha, beta int) int {
	if depth <= 0 || ply >= maxPly {
		return s.quiesce(p, ply, alpha, beta)
	}
	l := &s.lists[ply]
	p.GenerateLegal(l)
	if l.N == 0 {
		if p.InCheck() {
			return -30000 + ply
		}
		return 0
	}
	capturesFirst(p, l)
	for i := 0; i < l.N; i++ {
		m := l.Moves[i]
		s.last[ply+1] = m
		p.MakeMove(m)
		v := -s.search(p, depth-1, ply+1, -beta, -alpha)
		p.UnmakeMove()
		if v > alpha {
			alpha = v
			if alpha >= beta {
				break
			}
		}
	}
	return alpha
}

func (s *searcher) quiesce(p *board.Position, ply, alpha, beta int) int {
	s.evals++
	stand := s.eval(p, s.last[ply])
	if stand >= beta || ply >= maxPly {
		return stand
	}
	if stand > alpha {
		alpha = stand
	}
	l := &s.lists[ply]
	p.GenerateCaptures(l)
	capturesFirst(p, l)
	for i := 0; i < l.N; i++ {
		m := l.Moves[i]
		s.last[ply+1] = m
		p.MakeMove(m)
		v := -s.quiesce(p, ply+1, -beta, -alpha)
		p.UnmakeMove()
		if v > alpha {
			alpha = v
			if alpha >= beta {
				break
			}
		}
	}
	return alpha
}

// capturesFirst moves captures (most valuable victim first) and promotions
// to the front of l, a crude ordering that gives alpha-beta its cut-offs.
func capturesFirst(p *board.Position, l *board.MoveList) {
	key := func(m board.Move) int {
		k := 0
		if p.IsCapture(m) {
			k = 10
			if pc := p.PieceAt(m.To()); pc != board.NoPiece {
				k += int(pc.Type())
			}
		}
		if m.IsPromotion() {
			k += 5
		}
		return k
	}
	for i := 1; i < l.N; i++ {
		for j := i; j > 0 && key(l.Moves[j]) > key(l.Moves[j-1]); j-- {
			l.Moves[j], l.Moves[j-1] = l.Moves[j-1], l.Moves[j]
		}
	}
}

// searchRoots returns n positions from seeded random games, spread over
// the opening, middlegame and endgame.
func searchRoots(t testing.TB, n int, seed uint64) []*board.Position {
	ps := randomPositions(t, 40*n, seed)
	var roots []*board.Position
	for i := 0; i < len(ps) && len(roots) < n; i += 37 {
		roots = append(roots, ps[i])
	}
	return roots
}

// moveKinds counts the kinds of move that led to the positions checked.
type moveKinds struct {
	pawnPush, pawnCapture, promotion, enPassant, kingMove, pieceMove, whiteToMove, blackToMove int
}

// add counts move m, which led to position after.
func (k *moveKinds) add(m board.Move, after *board.Position) {
	if after.SideToMove() == board.White {
		k.whiteToMove++
	} else {
		k.blackToMove++
	}
	switch {
	case m.IsEnPassant():
		k.enPassant++
	case m.IsPromotion():
		k.promotion++
	}
	switch after.PieceAt(m.To()).Type() {
	case board.Pawn:
		if m.From().File() == m.To().File() {
			k.pawnPush++
		} else {
			k.pawnCapture++
		}
	case board.King:
		k.kingMove++
	default:
		k.pieceMove++
	}
}

// checkSame fails unless ev gives p what Evaluate gives it, and what the
// traced coefficient vector gives it when tr is not nil.
func checkSame(t *testing.T, ev *Evaluator, tr *Tracer, p *board.Position) int {
	t.Helper()
	want := Evaluate(p)
	got := ev.Evaluate(p)
	if got != want {
		t.Fatalf("%s: Evaluator %d, Evaluate %d", p.FEN(), got, want)
	}
	white := want
	if p.SideToMove() == board.Black {
		white = -want
	}
	if tr == nil {
		return got
	}
	if c := tr.Trace(p); c.Value != white {
		t.Fatalf("%s: traced value %d, Evaluate %d (White's view)", p.FEN(), c.Value, white)
	}
	return got
}

func TestEvaluatorEqualsEvaluateInSearchOrder(t *testing.T) {
	roots, depth := searchRoots(t, 40, 11), 3
	for _, fen := range []string{ // en passant captures on the board
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"r1bqkbnr/pppp1ppp/2n5/8/3Pp3/5N2/PPP1PPPP/RNBQKB1R b KQkq d3 0 3",
		"8/5k2/8/8/2Pp4/8/5K2/8 b - c3 0 1",
	} {
		roots = append(roots, mustFEN(t, fen))
	}
	// The full table, then tables of two entries and one, where index
	// collisions are the rule: only the stored key tells structures apart.
	for _, bits := range []uint{pawnCacheBits, 1, 0} {
		ev := newEvaluator(bits)
		var tr *Tracer
		n := 12 // roots searched: enough for collisions in the tiny tables
		if bits == pawnCacheBits {
			// The full table sees every root and traces every position.
			tr, n = new(Tracer), len(roots)
		}
		var kinds moveKinds
		s := &searcher{eval: func(p *board.Position, m board.Move) int {
			if m != board.NullMove { // NullMove at the root
				kinds.add(m, p)
			}
			return checkSame(t, ev, tr, p)
		}}
		for _, root := range roots[len(roots)-n:] {
			s.search(root.Clone(), depth, 0, -32000, 32000)
		}
		probes, hits := ev.CacheStats()
		t.Logf("table of %d entries: %d positions, %d probes, %d hits (%.1f%%), moves %+v",
			1<<bits, s.evals, probes, hits, 100*float64(hits)/float64(probes), kinds)
		if hits == 0 || hits == probes {
			t.Errorf("table of %d entries: %d hits of %d probes: want both hits and misses", 1<<bits, hits, probes)
		}
		for name, n := range map[string]int{
			"pawn push": kinds.pawnPush, "pawn capture": kinds.pawnCapture, "promotion": kinds.promotion,
			"en passant": kinds.enPassant, "king move": kinds.kingMove, "piece move": kinds.pieceMove,
			"White to move": kinds.whiteToMove, "Black to move": kinds.blackToMove,
		} {
			if n == 0 {
				t.Errorf("no position after a %s: the test does not cover it", name)
			}
		}
	}
}

func TestEvaluatorEqualsEvaluateInGameOrder(t *testing.T) {
	// The random games in the order played, then the Wukong positions,
	// which share few pawn structures: misses and hits both.
	ev := NewEvaluator()
	var tr Tracer
	for _, p := range testPositions(t) {
		checkSame(t, ev, &tr, p)
	}
	probes, hits := ev.CacheStats()
	t.Logf("%d probes, %d hits (%.1f%%)", probes, hits, 100*float64(hits)/float64(probes))
	if hits == 0 || hits == probes {
		t.Errorf("%d hits of %d probes: want both hits and misses", hits, probes)
	}
}

func TestEvaluatorZeroValueIsUsable(t *testing.T) {
	var ev Evaluator
	p := mustFEN(t, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
	if got, want := ev.Evaluate(p), Evaluate(p); got != want {
		t.Errorf("zero Evaluator: %d, Evaluate %d", got, want)
	}
}

func TestEvaluatorAllocatesNothing(t *testing.T) {
	ps := randomPositions(t, 200, 7)
	ev := NewEvaluator()
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		ev.Evaluate(ps[i%len(ps)])
		i++
	}); n != 0 {
		t.Errorf("Evaluator.Evaluate allocates %v times per call", n)
	}
}

var (
	searchSeqOnce sync.Once
	searchSeq     []board.Position
)

// searchSequence returns, as one contiguous slice, the positions a depth-4
// alpha-beta search from 16 random-game positions evaluates, in the order
// it evaluates them: the realistic input of an evaluation benchmark (a
// repeated position would make every pawn-cache probe a hit).
func searchSequence(tb testing.TB) []board.Position {
	searchSeqOnce.Do(func() {
		s := &searcher{eval: func(p *board.Position, _ board.Move) int {
			q, err := board.ParseFEN(p.FEN())
			if err != nil {
				tb.Fatal(err)
			}
			searchSeq = append(searchSeq, *q)
			return Evaluate(p)
		}}
		for _, root := range searchRoots(tb, 16, 5) {
			s.search(root.Clone(), 4, 0, -32000, 32000)
		}
	})
	return searchSeq
}

// BenchmarkEvaluateSearchOrder is Evaluate over the positions of a search,
// in search order.
func BenchmarkEvaluateSearchOrder(b *testing.B) {
	seq := searchSequence(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Evaluate(&seq[i%len(seq)])
	}
}

// BenchmarkEvaluator is an Evaluator over the positions of a search, in
// search order. Each pass over the sequence starts with an empty pawn cache,
// so the hit rate is that of one search, not of the same search repeated.
func BenchmarkEvaluator(b *testing.B) {
	seq := searchSequence(b)
	var probes, hits uint64
	ev := NewEvaluator()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % len(seq)
		if j == 0 && i > 0 {
			b.StopTimer()
			p, h := ev.CacheStats()
			probes, hits = probes+p, hits+h
			ev = NewEvaluator()
			b.StartTimer()
		}
		ev.Evaluate(&seq[j])
	}
	p, h := ev.CacheStats()
	probes, hits = probes+p, hits+h
	b.ReportMetric(100*float64(hits)/float64(probes), "%hits")
	b.ReportMetric(float64(len(seq)), "positions")
}

func TestEveryPieceGetsItsMobilityTerm(t *testing.T) {
	// Fifteen pieces besides the king, the most a side can have: each
	// knight, bishop, rook and queen counts once in its mobility table.
	for _, fen := range []string{
		"8/8/8/7k/8/8/NNNNNNNN/RNBQKBNR w - - 0 1",
		"rnbqkbnr/nnnnnnnn/8/8/7K/8/8/8 b - - 0 1",
		"rnbqkbnr/bbbbbbbb/8/8/7K/8/8/8 w - - 0 1",
		"rnbqkbnr/qqqqqqqq/8/8/8/8/8/K7 w - - 0 1",
		board.StartFEN,
	} {
		p := mustFEN(t, fen)
		want := int32(0)
		for pt := board.Knight; pt <= board.Queen; pt++ {
			want += int32(p.Pieces(board.White, pt).Count() - p.Pieces(board.Black, pt).Count())
		}
		got := int32(0)
		c := Trace(p)
		for _, k := range c.Linear {
			if f := int(k.Index); f >= fMobKnight && f < fBishopPair {
				got += k.N
			}
		}
		if got != want {
			t.Errorf("%s: mobility counts sum to %d, want %d (White's pieces minus Black's)", fen, got, want)
		}
		var tr Tracer
		checkSame(t, NewEvaluator(), &tr, p)
	}
}
