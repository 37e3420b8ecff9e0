package board

import (
	"slices"
	"testing"
)

// A deliberately plain move generator on the mailbox alone, sharing no code
// with the bitboard generator: every pseudo-legal move is played on a copy of
// the board and kept if the mover's king is then not attacked, with attacks
// found by walking the board square by square. It is the oracle the fast
// generator is checked against when Stockfish is not at hand, and in fuzzing.

var (
	naiveKnight = [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	naiveKing   = [8][2]int{{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}
	naiveRook   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	naiveBishop = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

// naiveStep returns the square df files and dr ranks from s, if on the board.
func naiveStep(s Square, df, dr int) (Square, bool) {
	f, r := s.File()+df, s.Rank()+dr
	if f < 0 || f > 7 || r < 0 || r > 7 {
		return NoSquare, false
	}
	return MakeSquare(f, r), true
}

// naiveAttacked reports whether colour by attacks s on board b.
func naiveAttacked(b *[64]Piece, s Square, by Color) bool {
	is := func(t Square, ok bool, pt PieceType) bool {
		return ok && b[t] == MakePiece(by, pt)
	}
	dr := -1 // a white pawn attacks s from the rank below
	if by == Black {
		dr = 1
	}
	for _, df := range []int{-1, 1} {
		if t, ok := naiveStep(s, df, dr); is(t, ok, Pawn) {
			return true
		}
	}
	for _, d := range naiveKnight {
		if t, ok := naiveStep(s, d[0], d[1]); is(t, ok, Knight) {
			return true
		}
	}
	for _, d := range naiveKing {
		if t, ok := naiveStep(s, d[0], d[1]); is(t, ok, King) {
			return true
		}
	}
	for _, sl := range [2]struct {
		dirs *[4][2]int
		pt   PieceType
	}{{&naiveRook, Rook}, {&naiveBishop, Bishop}} {
		for _, d := range sl.dirs {
			for t, ok := naiveStep(s, d[0], d[1]); ok; t, ok = naiveStep(t, d[0], d[1]) {
				if b[t] == NoPiece {
					continue
				}
				if b[t] == MakePiece(by, sl.pt) || b[t] == MakePiece(by, Queen) {
					return true
				}
				break
			}
		}
	}
	return false
}

// naiveLegalMoves returns the legal moves of the position, sorted.
func naiveLegalMoves(p *Position) []Move {
	us, them := p.side, p.side.Other()
	var pseudo []Move
	for s := Square(0); s < 64; s++ {
		pc := p.board[s]
		if pc == NoPiece || pc.Color() != us {
			continue
		}
		target := func(t Square) bool { return p.board[t] == NoPiece || p.board[t].Color() == them }
		switch pc.Type() {
		case Pawn:
			dir, start, last := 1, 1, 7
			if us == Black {
				dir, start, last = -1, 6, 0
			}
			add := func(t Square) {
				if t.Rank() == last {
					for pt := Knight; pt <= Queen; pt++ {
						pseudo = append(pseudo, NewPromotion(s, t, pt))
					}
				} else {
					pseudo = append(pseudo, NewMove(s, t))
				}
			}
			if t, ok := naiveStep(s, 0, dir); ok && p.board[t] == NoPiece {
				add(t)
				if t2, ok := naiveStep(t, 0, dir); ok && s.Rank() == start && p.board[t2] == NoPiece {
					add(t2)
				}
			}
			for _, df := range []int{-1, 1} {
				t, ok := naiveStep(s, df, dir)
				if !ok {
					continue
				}
				if p.board[t] != NoPiece && p.board[t].Color() == them {
					add(t)
				}
				if t == p.st.ep {
					pseudo = append(pseudo, newEnPassant(s, t))
				}
			}
		case Knight, King:
			steps := naiveKnight
			if pc.Type() == King {
				steps = naiveKing
			}
			for _, d := range steps {
				if t, ok := naiveStep(s, d[0], d[1]); ok && target(t) {
					pseudo = append(pseudo, NewMove(s, t))
				}
			}
		default:
			var dirs [][2]int
			if pc.Type() != Bishop {
				dirs = append(dirs, naiveRook[:]...)
			}
			if pc.Type() != Rook {
				dirs = append(dirs, naiveBishop[:]...)
			}
			for _, d := range dirs {
				for t, ok := naiveStep(s, d[0], d[1]); ok; t, ok = naiveStep(t, d[0], d[1]) {
					if target(t) {
						pseudo = append(pseudo, NewMove(s, t))
					}
					if p.board[t] != NoPiece {
						break
					}
				}
			}
		}
	}
	// Castling: the right, the squares between king and rook empty, and the
	// king not in check nor passing or landing on an attacked square.
	for _, c := range []struct {
		right            CastleRights
		king, to, rook   Square
		empty, unchecked []Square
	}{
		{WhiteKingside, E1, G1, H1, []Square{F1, G1}, []Square{E1, F1, G1}},
		{WhiteQueenside, E1, C1, A1, []Square{B1, C1, D1}, []Square{E1, D1, C1}},
		{BlackKingside, E8, G8, H8, []Square{F8, G8}, []Square{E8, F8, G8}},
		{BlackQueenside, E8, C8, A8, []Square{B8, C8, D8}, []Square{E8, D8, C8}},
	} {
		if p.st.castle&c.right == 0 || p.board[c.king] != MakePiece(us, King) || p.board[c.rook] != MakePiece(us, Rook) {
			continue
		}
		ok := true
		for _, s := range c.empty {
			ok = ok && p.board[s] == NoPiece
		}
		for _, s := range c.unchecked {
			ok = ok && !naiveAttacked(&p.board, s, them)
		}
		if ok {
			pseudo = append(pseudo, newCastling(c.king, c.to))
		}
	}
	var legal []Move
	for _, m := range pseudo {
		b := p.board
		from, to := m.From(), m.To()
		pc := b[from]
		b[from], b[to] = NoPiece, pc
		switch {
		case m.IsPromotion():
			b[to] = MakePiece(us, m.Promotion())
		case m.IsEnPassant():
			b[MakeSquare(to.File(), from.Rank())] = NoPiece
		case m.IsCastling():
			r := MakeSquare(7, from.Rank())
			rto := MakeSquare(5, from.Rank())
			if to.File() == 2 {
				r, rto = MakeSquare(0, from.Rank()), MakeSquare(3, from.Rank())
			}
			b[r], b[rto] = NoPiece, MakePiece(us, Rook)
		}
		var k Square
		for s := Square(0); s < 64; s++ {
			if b[s] == MakePiece(us, King) {
				k = s
			}
		}
		if !naiveAttacked(&b, k, them) {
			legal = append(legal, m)
		}
	}
	slices.Sort(legal)
	return legal
}

// checkAgainstNaive compares GenerateLegal with the plain generator.
func checkAgainstNaive(t testing.TB, p *Position) {
	t.Helper()
	var list MoveList
	p.GenerateLegal(&list)
	got := slices.Clone(list.Slice())
	slices.Sort(got)
	want := naiveLegalMoves(p)
	if !slices.Equal(got, want) {
		var extra, missing []string
		for _, m := range got {
			if _, found := slices.BinarySearch(want, m); !found {
				extra = append(extra, m.String())
			}
		}
		for _, m := range want {
			if _, found := slices.BinarySearch(got, m); !found {
				missing = append(missing, m.String())
			}
		}
		t.Fatalf("%s: GenerateLegal has extra moves %v and misses %v", p.FEN(), extra, missing)
	}
}

// TestGenerateLegalMatchesNaiveGenerator checks the legal move generator
// against the plain mailbox generator on the tricky positions and every
// position of random playouts, one ply deep.
func TestGenerateLegalMatchesNaiveGenerator(t *testing.T) {
	n := 0
	var list MoveList
	visit := func(p *Position) {
		checkAgainstNaive(t, p)
		n++
		p.GenerateLegal(&list)
		ms := list
		for _, m := range ms.Slice() {
			p.MakeMove(m)
			checkAgainstNaive(t, p)
			p.UnmakeMove()
			n++
		}
	}
	for _, fen := range trickyFENs {
		visit(mustFEN(t, fen))
	}
	games := 4
	if testing.Short() {
		games = 1
	}
	for _, pl := range randomPlayouts(t, 10, games, 150) {
		pl.replay(t, visit)
	}
	t.Logf("%d positions agree", n)
}
