package search

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"chessforge/engine/dama"
	"chessforge/engine/dama/eval"
)

// material counts men as 100 and kings as 300, from the side to move: a
// plain evaluator whose scores the tests can predict.
type material struct{}

func (material) Evaluate(p *dama.Position) int {
	us, them := p.SideToMove(), p.SideToMove().Other()
	return 100*(bits.OnesCount32(p.Men(us))-bits.OnesCount32(p.Men(them))) +
		300*(bits.OnesCount32(p.Kings(us))-bits.OnesCount32(p.Kings(them)))
}

func mustFEN(t testing.TB, fen string) *dama.Position {
	t.Helper()
	p, err := dama.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// replay plays the line from p, failing if a move is not legal where it is
// played, and returns the position at its end.
func replay(t *testing.T, p *dama.Position, line []dama.Move) *dama.Position {
	t.Helper()
	q := p.Copy()
	for i, m := range line {
		var l dama.MoveList
		q.GenerateMoves(&l)
		if !slices.Contains(l.Slice(), m) {
			t.Fatalf("%s: move %d of %v, %s, is not legal", p.FEN(), i+1, line, m)
		}
		q.MakeMove(m)
	}
	return q
}

// Shots: a man given up so that the capture the opponent must make opens a
// larger capture. Each is found with the material evaluator, which sees no
// gain before the last capture, and with the default evaluation.
func TestFindsShots(t *testing.T) {
	cases := []struct {
		name, fen, best string
		gain            int // at least, in the material evaluator's scores
	}{
		// Black gives 10-13; White must take 17x10, and 6x13x22 takes two.
		{"two for one", "B:W17,18,21,23-25,28,30-32:B1,3,6-12,16", "10-13", 100},
		// White gives 23-19; Black must take 14x23, and 27x20x11x4 takes
		// three and crowns.
		{"three for one, crowning", "W:W21,23-27,29-32:B1-3,5,7-10,14,15", "23-19", 400},
	}
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		s := New(1)
		s.SetEvaluator(material{})
		r := s.Search(p, Limits{Depth: 6})
		if r.Best.String() != c.best || r.Score < c.gain {
			t.Errorf("%s: %s: best %s score %d (pv %v), want %s scoring %d or more", c.name, c.fen, r.Best, r.Score, r.PV, c.best, c.gain)
		}
		replay(t, p, r.PV)
		if r := New(1).Search(p, Limits{Depth: 6}); r.Best.String() != c.best {
			t.Errorf("%s: the default evaluation plays %s (score %d, pv %v), want %s", c.name, r.Best, r.Score, r.PV, c.best)
		}
	}
}

// A king wins against a lone man by taking away its last square: a man
// cannot capture a king, so the blocked man's side has no move and loses.
// The score counts the plies to the win.
func TestKingTrapsMan(t *testing.T) {
	cases := []struct {
		fen   string
		plies int
	}{
		{"W:WK26:B25", 1}, // 26-29: the man on 25 can only step to 29
		{"W:WK30:B16", 5}, // the king shadows the man down the h-file to 24 and stands on 28
	}
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		s := New(1)
		s.SetEvaluator(material{})
		r := s.Search(p, Limits{Depth: 9})
		if r.Score != WinScore-c.plies || len(r.PV) != c.plies {
			t.Errorf("%s: score %d pv %v, want a win in %d plies (%d)", c.fen, r.Score, r.PV, c.plies, WinScore-c.plies)
			continue
		}
		if end := replay(t, p, r.PV); end.Outcome() != dama.NoMoves || end.Men(dama.Black) == 0 {
			t.Errorf("%s: pv %v ends in %s with the man taken or free, want it blocked", c.fen, r.PV, end.FEN())
		}
	}
}

// A side with no move has lost: no best move, the lowest score, no line.
func TestNoMoveIsALoss(t *testing.T) {
	for _, fen := range []string{"B:W21:B", "B:W29:B25", "W:W32:B23,28"} {
		r := New(1).Search(mustFEN(t, fen), Limits{Depth: 4})
		if !r.Best.IsNull() || r.Score != -WinScore || len(r.PV) != 0 || r.Best.String() != "none" {
			t.Errorf("%s: %+v, want no move scored %d", fen, r, -WinScore)
		}
	}
}

// randomPositions plays random legal moves from the start, n positions
// from 0 to 60 plies deep, the games that end early left out.
func randomPositions(n int, seed uint64) []*dama.Position {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []*dama.Position
	for len(out) < n {
		p := dama.StartPosition()
		var l dama.MoveList
		for range rng.IntN(61) {
			p.GenerateMoves(&l)
			if l.N == 0 {
				break
			}
			p.MakeMove(l.Moves[rng.IntN(l.N)])
		}
		if p.GenerateMoves(&l); l.N > 0 {
			out = append(out, p)
		}
	}
	return out
}

// Whatever the position and however small the budget, the search returns
// a legal move and a line of legal moves that starts with it.
func TestAlwaysReturnsALegalMove(t *testing.T) {
	s := New(1)
	for i, p := range randomPositions(150, 3) {
		lim := Limits{Nodes: uint64(1 + i*37%700)}
		r := s.Search(p, lim)
		var l dama.MoveList
		p.GenerateMoves(&l)
		if !slices.Contains(l.Slice(), r.Best) || len(r.PV) == 0 || r.PV[0] != r.Best || r.Depth < 1 {
			t.Fatalf("%s at %+v: best %s depth %d pv %v, want a legal move after depth 1 at least", p.FEN(), lim, r.Best, r.Depth, r.PV)
		}
		replay(t, p, r.PV)
	}
}

// A node-limited search stops at exactly its node count and gives the same
// result each time from the same state: a fresh Searcher, or a used one
// cleared.
func TestDeterministicAtFixedNodes(t *testing.T) {
	for _, p := range append([]*dama.Position{dama.StartPosition()}, randomPositions(3, 5)...) {
		a := New(4)
		ra := a.Search(p, Limits{Nodes: 20000})
		a.Search(randomPositions(1, 9)[0], Limits{Nodes: 5000}) // leaves table, killers and history behind
		a.Clear()
		rc := a.Search(p, Limits{Nodes: 20000})
		rb := New(4).Search(p, Limits{Nodes: 20000})
		for _, r := range []Result{rb, rc} {
			if r.Best != ra.Best || r.Score != ra.Score || r.Depth != ra.Depth || r.Nodes != ra.Nodes || !slices.Equal(r.PV, ra.PV) {
				t.Fatalf("%s: %v %d depth %d nodes %d pv %v, then %v %d depth %d nodes %d pv %v",
					p.FEN(), ra.Best, ra.Score, ra.Depth, ra.Nodes, ra.PV, r.Best, r.Score, r.Depth, r.Nodes, r.PV)
			}
		}
		if ra.Nodes != 20000 {
			t.Errorf("%s: %d nodes searched, want exactly the limit, 20000", p.FEN(), ra.Nodes)
		}
	}
}

// A depth limit gives that many iterations, each reported once, in order,
// with the nodes counted so far; the result matches the last report.
func TestDepthLimitAndReports(t *testing.T) {
	s := New(1)
	var depths []int
	var last Info
	var lastPV []dama.Move
	s.Report = func(in Info) {
		if in.Nodes < last.Nodes {
			t.Errorf("nodes went down from %d to %d", last.Nodes, in.Nodes)
		}
		depths = append(depths, in.Depth)
		last, lastPV = in, slices.Clone(in.PV)
	}
	r := s.Search(dama.StartPosition(), Limits{Depth: 7})
	if !slices.Equal(depths, []int{1, 2, 3, 4, 5, 6, 7}) || r.Depth != 7 {
		t.Fatalf("reported depths %v, result depth %d; want 1..7", depths, r.Depth)
	}
	if r.Score != last.Score || r.Nodes != last.Nodes || !slices.Equal(r.PV, lastPV) {
		t.Errorf("result %d %d %v, last report %d %d %v", r.Score, r.Nodes, r.PV, last.Score, last.Nodes, lastPV)
	}
}

// Under a node limit the last report is the result, even when the
// iteration cut short found a new best move.
func TestLastReportIsTheResult(t *testing.T) {
	for _, p := range append([]*dama.Position{dama.StartPosition()}, randomPositions(20, 17)...) {
		for _, nodes := range []uint64{700, 4000, 25000} {
			s := New(1)
			var last Info
			var lastPV []dama.Move
			s.Report = func(in Info) { last, lastPV = in, slices.Clone(in.PV) }
			r := s.Search(p, Limits{Nodes: nodes})
			if r.Score != last.Score || r.Depth != last.Depth || r.Nodes != last.Nodes || !slices.Equal(r.PV, lastPV) {
				t.Fatalf("%s, %d nodes: result %d depth %d nodes %d pv %v; last report %d depth %d nodes %d pv %v",
					p.FEN(), nodes, r.Score, r.Depth, r.Nodes, r.PV, last.Score, last.Depth, last.Nodes, lastPV)
			}
		}
	}
}

// Stop from another goroutine and a time limit each end an unbounded
// search promptly, with a legal move.
func TestStopAndTimeLimit(t *testing.T) {
	p := dama.StartPosition()
	s := New(1)
	time.AfterFunc(50*time.Millisecond, s.Stop)
	start := time.Now()
	r := s.Search(p, Limits{})
	if el := time.Since(start); el > 5*time.Second || r.Best.IsNull() {
		t.Errorf("stopped after 50ms: returned after %v with %s", el, r.Best)
	}
	start = time.Now()
	r = s.Search(p, Limits{Time: 50 * time.Millisecond})
	if el := time.Since(start); el > 5*time.Second || r.Best.IsNull() {
		t.Errorf("50ms limit: returned after %v with %s", el, r.Best)
	}
}

// Below the root a repeated position is a draw, and so is a position after
// QuietLimit plies without capture, unless its side to move has no move,
// which loses.
func TestDraws(t *testing.T) {
	s := New(1)
	// Kings shuffle out and back: the position repeats.
	p := mustFEN(t, "W:WK29,K32:BK1")
	for _, m := range []string{"29-25", "1-5", "25-29", "5-1"} {
		mv, err := p.ParseMove(m)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(mv)
	}
	s.pos = p
	if !s.isDraw() {
		t.Errorf("%s after a repetition: not a draw", p.FEN())
	}
	// Two kings against one would win; with the quiet-ply counter one
	// ply short of the limit and no capture in reach, every move draws.
	p = quietWalk(t, dama.QuietLimit-1)
	s.pos = p
	if s.isDraw() {
		t.Fatalf("%s with %d quiet plies: a draw already", p.FEN(), p.QuietPlies())
	}
	s.SetEvaluator(material{})
	if r := s.Search(p, Limits{Depth: 4}); r.Score != 0 {
		t.Errorf("%s with %d quiet plies: score %d pv %v, want 0 (every move completes the quiet-ply rule)", p.FEN(), p.QuietPlies(), r.Score, r.PV)
	}
	// A side that cannot move loses even on the ply that would draw.
	s.pos = mustFEN(t, "B:W29:B25")
	if s.isDraw() {
		t.Error("a side without moves drawn by repetition or the quiet rule")
	}
}

// quietWalk returns a position with two White kings against one Black king
// reached by n king moves that capture nothing, repeat nothing and leave no
// capture to make (White to move when n is odd is fine: the walk alternates).
func quietWalk(t *testing.T, n int) *dama.Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 13))
	for try := 0; try < 1000; try++ {
		p := mustFEN(t, "W:WK29,K32:BK1")
		var l dama.MoveList
		for p.QuietPlies() < n {
			p.GenerateMoves(&l)
			moved := false
			for _, i := range rng.Perm(l.N) {
				m := l.Moves[i]
				if m.IsCapture() {
					break
				}
				p.MakeMove(m)
				if p.Repetitions() == 0 && !p.HasCapture() {
					moved = true
					break
				}
				p.UnmakeMove()
			}
			if !moved {
				break
			}
		}
		if p.QuietPlies() == n {
			return p
		}
	}
	t.Fatalf("no quiet walk of %d plies", n)
	return nil
}

// Nothing a node does allocates: a deeper search allocates no more than a
// shallow one, and a search allocates only its result's line (it copies the
// position into the searcher's own, as selfplay's chooseMove relies on when
// it searches every root move).
func TestNoAllocationPerNode(t *testing.T) {
	s := New(1)
	p := mustFEN(t, "W:W18,21,23-25,27-32:B1-6,8-12,22")
	allocs := func(depth int) float64 {
		return testing.AllocsPerRun(3, func() { s.Search(p, Limits{Depth: depth}) })
	}
	shallow, deep := allocs(1), allocs(8)
	if deep > shallow {
		t.Errorf("depth 1: %v allocations, depth 8: %v; want no more for the deeper search", shallow, deep)
	}
	if shallow > 1 {
		t.Errorf("a search allocates %v times, want 1 (its PV)", shallow)
	}
}

// The default evaluation is the eval package's compiled-in weights, and
// weights are pluggable: a Searcher given the same weights plays the same.
func TestEvaluatorIsPluggable(t *testing.T) {
	p := dama.StartPosition()
	a := New(1).Search(p, Limits{Nodes: 3000})
	s := New(1)
	s.SetEvaluator(eval.Default())
	b := s.Search(p, Limits{Nodes: 3000})
	s.SetEvaluator(material{})
	c := s.Search(p, Limits{Nodes: 3000})
	if a.Best != b.Best || a.Score != b.Score || !slices.Equal(a.PV, b.PV) {
		t.Errorf("default %v %d, eval.Default() %v %d", a.Best, a.Score, b.Best, b.Score)
	}
	if c.Score != 0 {
		t.Errorf("material from the start: score %d, want 0", c.Score)
	}
}

func TestBench(t *testing.T) {
	var out testWriter
	r, err := Bench(3, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes == 0 || out.lines != len(benchFENs) {
		t.Errorf("bench: %d nodes, %d lines for %d positions", r.Nodes, out.lines, len(benchFENs))
	}
	again, _ := Bench(3, &testWriter{})
	if again.Nodes != r.Nodes {
		t.Errorf("bench nodes %d then %d: not a signature", r.Nodes, again.Nodes)
	}
}

type testWriter struct{ lines int }

func (w *testWriter) Write(b []byte) (int, error) {
	for _, c := range b {
		if c == '\n' {
			w.lines++
		}
	}
	return len(b), nil
}
