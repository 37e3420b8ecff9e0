package board

import (
	"slices"
	"testing"
)

// legalSet returns the generated legal moves as a set.
func legalSet(p *Position) map[Move]bool {
	var list MoveList
	p.GenerateLegal(&list)
	set := make(map[Move]bool, list.N)
	for _, m := range list.Slice() {
		set[m] = true
	}
	return set
}

// checkIsLegal asks IsLegal about every 16-bit move whose from square holds
// a piece of the side to move (every value at all when all is set) and
// compares with the generator.
func checkIsLegal(t *testing.T, p *Position, all bool) int {
	t.Helper()
	legal := legalSet(p)
	asked := 0
	for v := 0; v < 1<<16; v++ {
		m := Move(v)
		if !all {
			if pc := p.PieceAt(m.From()); pc == NoPiece || pc.Color() != p.SideToMove() {
				continue
			}
		}
		asked++
		if got := p.IsLegal(m); got != legal[m] {
			t.Fatalf("%s: IsLegal(%s, kind %d, bits %016b) = %v, generator says %v", p.FEN(), m, m>>14, uint16(m), got, legal[m])
		}
	}
	return asked
}

// TestIsLegalMatchesGenerator checks IsLegal against the generator for
// every possible 16-bit move (wrong kinds, stray promotion bits, other
// positions' moves) on the tricky positions and on random playouts.
func TestIsLegalMatchesGenerator(t *testing.T) {
	asked := 0
	// The tricky positions, one in double check with castling rights, and
	// every position one move later.
	var list MoveList
	for _, fen := range append(slices.Clone(trickyFENs), "4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1") {
		p := mustFEN(t, fen)
		asked += checkIsLegal(t, p, true)
		p.GenerateLegal(&list)
		for _, m := range slices.Clone(list.Slice()) {
			p.MakeMove(m)
			asked += checkIsLegal(t, p, false)
			p.UnmakeMove()
		}
	}
	games := 6
	if testing.Short() {
		games = 2
	}
	for _, pl := range randomPlayouts(t, 21, games, 160) {
		pl.replay(t, func(p *Position) { asked += checkIsLegal(t, p, false) })
	}
	t.Logf("%d move values checked", asked)
}

// TestCapturesAndQuietsPartitionLegalMoves checks that, outside check,
// GenerateCaptures and GenerateQuiets split the legal moves exactly: every
// capture and promotion in the first, everything else in the second.
func TestCapturesAndQuietsPartitionLegalMoves(t *testing.T) {
	var all, caps, quiets MoveList
	n := 0
	visit := func(p *Position) {
		if p.InCheck() {
			return
		}
		n++
		p.GenerateLegal(&all)
		p.GenerateCaptures(&caps)
		p.GenerateQuiets(&quiets)
		for _, m := range caps.Slice() {
			if !p.IsCapture(m) && !m.IsPromotion() {
				t.Fatalf("%s: GenerateCaptures gives quiet move %s", p.FEN(), m)
			}
		}
		for _, m := range quiets.Slice() {
			if p.IsCapture(m) || m.IsPromotion() {
				t.Fatalf("%s: GenerateQuiets gives %s, a capture or promotion", p.FEN(), m)
			}
		}
		union := append(slices.Clone(caps.Slice()), quiets.Slice()...)
		slices.Sort(union)
		want := slices.Clone(all.Slice())
		slices.Sort(want)
		if !slices.Equal(union, want) {
			t.Fatalf("%s: captures %v + quiets %v differ from the legal moves %v", p.FEN(), caps.Slice(), quiets.Slice(), want)
		}
	}
	for _, fen := range trickyFENs {
		visit(mustFEN(t, fen))
	}
	for _, pl := range randomPlayouts(t, 22, 8, 200) {
		pl.replay(t, visit)
	}
	if n < 500 {
		t.Fatalf("only %d positions outside check", n)
	}
	t.Logf("%d positions", n)
}

// TestSplitGeneratorsKeepTheOrder checks, outside check, that the captures
// and the quiet-move generators give the moves of the general generator in
// their modes, in the same order, and that these are the captures and
// promotions, and the other moves, of the full generation in the order it
// gives them (move ordering breaks ties by generation order, so the order
// is part of the contract).
func TestSplitGeneratorsKeepTheOrder(t *testing.T) {
	var all, caps, quiets MoveList
	var general [256]Move
	n := 0
	visit := func(p *Position) {
		if p.InCheck() {
			return
		}
		n++
		p.GenerateLegal(&all)
		for _, tc := range []struct {
			name    string
			list    *MoveList
			mode    genMode
			capture bool
		}{{"captures", &caps, genCaptures, true}, {"quiets", &quiets, genQuiets, false}} {
			if tc.capture {
				p.GenerateCaptures(tc.list)
			} else {
				p.GenerateQuiets(tc.list)
			}
			k := p.gen(&general, tc.mode)
			if !slices.Equal(tc.list.Slice(), general[:k]) {
				t.Fatalf("%s: %s generator %v, general generator %v", p.FEN(), tc.name, tc.list.Slice(), general[:k])
			}
			var want []Move
			for _, m := range all.Slice() {
				if (p.IsCapture(m) || m.IsPromotion()) == tc.capture {
					want = append(want, m)
				}
			}
			if !slices.Equal(tc.list.Slice(), want) {
				t.Fatalf("%s: %s %v, in the full generation's order %v", p.FEN(), tc.name, tc.list.Slice(), want)
			}
		}
	}
	for _, fen := range trickyFENs {
		visit(mustFEN(t, fen))
	}
	for _, pl := range randomPlayouts(t, 23, 12, 200) {
		pl.replay(t, visit)
	}
	if n < 500 {
		t.Fatalf("only %d positions outside check", n)
	}
}

// TestKeyAfterMatchesMakeMove checks KeyAfter against the hash after
// MakeMove for every legal move of random playouts: equal whenever the
// move is not castling, en passant or a promotion and changes no castling right.
func TestKeyAfterMatchesMakeMove(t *testing.T) {
	var list MoveList
	n := 0
	for _, pl := range randomPlayouts(t, 23, 4, 200) {
		pl.replay(t, func(p *Position) {
			p.GenerateLegal(&list)
			for _, m := range list.Slice() {
				k := p.KeyAfter(m)
				castle := p.Castling()
				p.MakeMove(m)
				exact := !m.IsCastling() && !m.IsEnPassant() && !m.IsPromotion() && p.Castling() == castle && !p.EnPassantCapturable()
				if exact {
					n++
					if k != p.Hash() {
						p.UnmakeMove()
						t.Fatalf("%s: KeyAfter(%s) = %x, hash after the move %x", p.FEN(), m, k, p.Hash())
					}
				}
				p.UnmakeMove()
			}
		})
	}
	if n < 10000 {
		t.Fatalf("only %d moves compared", n)
	}
}

// TestKeyAfterNullMatchesMakeNullMove checks KeyAfterNull against the hash
// after MakeNullMove on random playouts (en-passant positions included).
func TestKeyAfterNullMatchesMakeNullMove(t *testing.T) {
	n, ep := 0, 0
	check := func(p *Position) {
		if p.InCheck() {
			return
		}
		if p.EnPassantCapturable() {
			ep++
		}
		k := p.KeyAfterNull()
		p.MakeNullMove()
		got := p.Hash()
		p.UnmakeNullMove()
		if k != got {
			t.Fatalf("%s: KeyAfterNull = %x, hash after the null move %x", p.FEN(), k, got)
		}
		n++
	}
	for _, fen := range trickyFENs {
		check(mustFEN(t, fen))
	}
	for _, pl := range randomPlayouts(t, 24, 4, 200) {
		pl.replay(t, check)
	}
	if n < 500 || ep == 0 {
		t.Fatalf("only %d positions (%d with en passant)", n, ep)
	}
}
