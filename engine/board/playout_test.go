package board

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// playoutStarts are the positions random playouts begin from: the start
// position and the perft suite, which reach castling, en passant and
// promotions quickly.
var playoutStarts = []string{
	StartFEN,
	StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
}

// playout is one random game: the starting FEN and the moves played.
type playout struct {
	start string
	moves []Move
}

// randomPlayouts plays n random games of at most maxPlies plies from a fixed
// seed, stopping early at mate, stalemate, the fifty-move rule or
// insufficient material. The same seed always gives the same games.
func randomPlayouts(t testing.TB, seed uint64, n, maxPlies int) []playout {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]playout, 0, n)
	var list MoveList
	for i := 0; i < n; i++ {
		start := playoutStarts[i%len(playoutStarts)]
		p, err := ParseFEN(start)
		if err != nil {
			t.Fatal(err)
		}
		pl := playout{start: start}
		for ply := 0; ply < maxPlies; ply++ {
			p.GenerateLegal(&list)
			if list.N == 0 || p.HalfmoveClock() >= 100 || p.IsInsufficientMaterial() {
				break
			}
			// Prefer captures and promotions a little, so that games reach
			// endings and promotions instead of shuffling.
			m := list.Moves[rng.IntN(list.N)]
			for try := 0; try < 2 && !p.IsCapture(m) && !m.IsPromotion(); try++ {
				m = list.Moves[rng.IntN(list.N)]
			}
			p.MakeMove(m)
			pl.moves = append(pl.moves, m)
		}
		out = append(out, pl)
	}
	return out
}

// replay calls visit on every position of the playout, the start included,
// with the position as it stands after the moves so far.
func (pl playout) replay(t testing.TB, visit func(p *Position)) {
	t.Helper()
	p, err := ParseFEN(pl.start)
	if err != nil {
		t.Fatal(err)
	}
	visit(p)
	for _, m := range pl.moves {
		if !p.IsLegal(m) {
			t.Fatalf("%s: replayed move %s is not legal", p.FEN(), m)
		}
		p.MakeMove(m)
		visit(p)
	}
}

// checkConsistent verifies the position's redundant state: mailbox against
// bitboards, the incremental hash against a recomputation, the checkers
// against a recomputation, and the position against its own FEN re-parsed.
func checkConsistent(t testing.TB, p *Position) {
	t.Helper()
	var pieces [8]Bitboard // the two slots past King stay empty
	var colors [2]Bitboard
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			pieces[pc.Type()] |= SquareBB(s)
			colors[pc.Color()] |= SquareBB(s)
		}
	}
	if pieces != p.pieces || colors != p.colors {
		t.Fatalf("%s: bitboards disagree with the mailbox", p.FEN())
	}
	if h := p.computeHash(); h != p.st.hash {
		t.Fatalf("%s: incremental hash %016x, recomputed %016x", p.FEN(), p.st.hash, h)
	}
	us := p.side
	if c := p.AttackersTo(p.KingSquare(us), p.Occupied()) & p.colors[us.Other()]; c != p.st.checkers {
		t.Fatalf("%s: checkers %x, recomputed %x", p.FEN(), p.st.checkers, c)
	}
	q, err := ParseFEN(p.FEN())
	if err != nil {
		t.Fatalf("FEN %q written by the position does not parse: %v", p.FEN(), err)
	}
	if q.Hash() != p.Hash() || q.EnPassantCapturable() != p.EnPassantCapturable() {
		t.Fatalf("%s: re-parsed hash %016x (ep %v), incremental %016x (ep %v)",
			p.FEN(), q.Hash(), q.EnPassantCapturable(), p.Hash(), p.EnPassantCapturable())
	}
}

// snapshot is a deep copy of a position's full state for exact comparison.
func snapshot(p *Position) Position {
	s := *p
	s.history = append([]state(nil), p.history...)
	return s
}

// sameState reports whether two positions have the same complete state,
// history included. Which facts have been computed and cached (state.cached)
// is left out: it is not part of the position, and checkCache proves the
// cached values right.
func sameState(a, b *Position) bool {
	return a.board == b.board && a.pieces == b.pieces && a.colors == b.colors &&
		a.side == b.side && a.fullmove == b.fullmove && sameSt(a.st, b.st) &&
		slices.EqualFunc(a.history, b.history, sameSt)
}

// sameSt compares two states, the cache bits aside.
func sameSt(a, b state) bool {
	a.cached, b.cached = 0, 0
	return a == b
}

// checkCache fails the test when a cached fact of the current position
// differs from the value computed afresh.
func checkCache(t *testing.T, p *Position, when string) {
	t.Helper()
	if p.st.cached&cachedPinned != 0 {
		if got, want := p.info[p.Ply()].pinned, p.pinned(p.side, p.KingSquare(p.side)); got != want {
			t.Fatalf("%s %s: cached pins %x, computed %x", p.FEN(), when, got, want)
		}
	}
	if p.st.cached&cachedCheckInfo != 0 {
		var want posInfo
		p.fillCheckInfo(&want)
		got := p.info[p.Ply()]
		if got.discoverers != want.discoverers || got.checkSquares != want.checkSquares {
			t.Fatalf("%s %s: cached check info %+v, computed %+v", p.FEN(), when, got, want)
		}
	}
}

// sameStateRecent is sameState with only the newest two history entries
// compared (make/unmake touch nothing older), for the inner loop.
func sameStateRecent(a, b *Position) bool {
	n := len(a.history)
	if n != len(b.history) {
		return false
	}
	k := max(0, n-2)
	return a.board == b.board && a.pieces == b.pieces && a.colors == b.colors &&
		a.side == b.side && a.fullmove == b.fullmove && sameSt(a.st, b.st) &&
		slices.EqualFunc(a.history[k:], b.history[k:], sameSt)
}

// TestMakeUnmakeRestoresExactly plays every legal move (and a null move when
// allowed) in every position along random playouts, checks the position after
// the move for consistency, and checks that unmaking restores the complete
// state exactly: mailbox, bitboards, side, counters, hash, history.
func TestMakeUnmakeRestoresExactly(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 14
	}
	var list MoveList
	moves := 0
	for _, pl := range randomPlayouts(t, 1, n, 300) {
		pl.replay(t, func(p *Position) {
			checkConsistent(t, p)
			before := snapshot(p)
			p.GenerateLegal(&list)
			p.checkInfo() // the parent's cache, filled, must survive every child
			checkCache(t, p, "before the moves")
			ms := list
			for _, m := range ms.Slice() {
				p.MakeMove(m)
				moves++
				if p.st.cached != 0 {
					t.Fatalf("%s after %s: cache bits %b carried into the new position", before.FEN(), m, p.st.cached)
				}
				if c := p.AttackersTo(p.KingSquare(p.side), p.Occupied()) & p.colors[p.side.Other()]; c != p.st.checkers {
					t.Fatalf("%s after %s: checkers %x, recomputed %x", before.FEN(), m, p.st.checkers, c)
				}
				p.pinnedPieces()
				p.checkInfo()
				checkCache(t, p, "after "+m.String())
				if h := p.computeHash(); h != p.Hash() {
					t.Fatalf("%s after %s: incremental hash %016x, recomputed %016x", before.FEN(), m, p.Hash(), h)
				}
				if p.LastMove() != m || p.Ply() != before.Ply()+1 {
					t.Fatalf("%s after %s: LastMove %s, Ply %d", before.FEN(), m, p.LastMove(), p.Ply())
				}
				p.UnmakeMove()
				if !sameStateRecent(p, &before) {
					t.Fatalf("%s: unmaking %s left %s", before.FEN(), m, p.FEN())
				}
				checkCache(t, p, "after unmaking "+m.String())
			}
			if !p.InCheck() {
				p.MakeNullMove()
				if p.st.cached != 0 {
					t.Fatalf("%s after a null move: cache bits %b carried into the new position", before.FEN(), p.st.cached)
				}
				p.pinnedPieces()
				p.checkInfo()
				checkCache(t, p, "after a null move")
				if h := p.computeHash(); h != p.Hash() {
					t.Fatalf("%s after a null move: hash %016x, recomputed %016x", before.FEN(), p.Hash(), h)
				}
				p.UnmakeNullMove()
				if !sameState(p, &before) {
					t.Fatalf("%s: unmaking a null move left %s", before.FEN(), p.FEN())
				}
				checkCache(t, p, "after unmaking a null move")
			}
		})
	}
	t.Logf("%d playouts, %d moves made and unmade", n, moves)
}

// TestCloneIsIndependent checks that moves made on a clone leave the original
// untouched and the other way round, history included.
func TestCloneIsIndependent(t *testing.T) {
	for _, pl := range randomPlayouts(t, 2, 7, 40) {
		p, err := ParseFEN(pl.start)
		if err != nil {
			t.Fatal(err)
		}
		half := len(pl.moves) / 2
		for _, m := range pl.moves[:half] {
			p.MakeMove(m)
		}
		orig := snapshot(p)
		c := p.Clone()
		if !sameState(c, p) {
			t.Fatalf("%s: clone differs from the original", p.FEN())
		}
		for _, m := range pl.moves[half:] {
			c.MakeMove(m)
		}
		if !sameState(p, &orig) {
			t.Fatalf("%s: moves on the clone changed the original to %s", orig.FEN(), p.FEN())
		}
		// Moves on the original must not disturb the clone's history either.
		cs := snapshot(c)
		for i := 0; i < half && p.Ply() > 0; i++ {
			p.UnmakeMove()
		}
		var list MoveList
		p.GenerateLegal(&list)
		if list.N > 0 {
			p.MakeMove(list.Moves[0])
		}
		if !sameState(c, &cs) {
			t.Fatalf("moves on the original changed the clone")
		}
		for c.Ply() > 0 {
			c.UnmakeMove()
		}
		if c.FEN() != canonicalFEN(pl.start) || c.Hash() != c.computeHash() {
			t.Fatalf("clone unwound to %s, want %s", c.FEN(), pl.start)
		}
	}
}

// TestPlayoutsAreReproducible checks that the random playouts used by the
// tests are the same for the same seed, so failures can be replayed.
func TestPlayoutsAreReproducible(t *testing.T) {
	a := randomPlayouts(t, 7, 5, 60)
	b := randomPlayouts(t, 7, 5, 60)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different playouts")
	}
}
