package board

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

func mustFEN(t testing.TB, fen string) *Position {
	t.Helper()
	p, err := ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}

// legalUCI returns the legal moves in UCI notation, sorted.
func legalUCI(p *Position) []string {
	var list MoveList
	p.GenerateLegal(&list)
	out := make([]string, 0, list.N)
	for _, m := range list.Slice() {
		out = append(out, m.String())
	}
	sort.Strings(out)
	return out
}

// movesFrom returns the legal moves leaving from, UCI, sorted.
func movesFrom(p *Position, from string) []string {
	var out []string
	for _, m := range legalUCI(p) {
		if m[:2] == from {
			out = append(out, m)
		}
	}
	return out
}

// play makes a sequence of UCI moves, failing on an illegal one.
func play(t testing.TB, p *Position, moves string) {
	t.Helper()
	for _, s := range strings.Fields(moves) {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
	}
}

// TestLegalMovesInSpecialPositions lists, for positions that test one rule
// each, the moves of the pieces concerned: the exact set must come out.
func TestLegalMovesInSpecialPositions(t *testing.T) {
	tests := []struct {
		name, fen, from string
		want            []string
	}{
		{"en passant uncovering a rook check along the rank is illegal",
			"8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1", "b5", []string{"b5b6"}},
		{"en passant uncovering a queen check along the rank is illegal (black)",
			"8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", "e4", []string{"e4e3"}},
		{"en passant with the rank clear is legal",
			"8/8/8/KPp5/8/8/8/4k3 w - c6 0 1", "b5", []string{"b5b6", "b5c6"}},
		{"en passant captures the checking pawn",
			"8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", "e4", []string{"e4d3"}},
		{"en passant by a pawn pinned on the diagonal is illegal",
			"8/8/2k5/8/3Pp3/8/8/4K2B b - d3 0 1", "e4", nil},
		{"en passant along the pin diagonal is legal",
			"8/B7/8/8/3pP3/8/5k2/K7 b - e3 0 1", "d4", []string{"d4e3"}},
		{"castling through an attacked square is illegal",
			"4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1", "e1", []string{"e1c1", "e1d1", "e1f2"}},
		{"castling out of check is illegal",
			"4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1", "e1", []string{"e1d1", "e1e2", "e1f1"}},
		{"castling into check is illegal",
			"4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1", "e1", []string{"e1c1", "e1d1", "e1f1"}},
		{"queenside castling with b1 attacked is legal",
			"1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1", []string{"e1c1", "e1d1", "e1d2", "e1e2", "e1f1", "e1f2"}},
		{"queenside castling with b1 occupied is illegal",
			"4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1", "e1", []string{"e1d1", "e1d2", "e1e2", "e1f1", "e1f2"}},
		{"black castles both ways",
			"r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1", "e8", []string{"e8c8", "e8d7", "e8d8", "e8e7", "e8f7", "e8f8", "e8g8"}},
		{"a pinned knight cannot move",
			"4r2k/8/8/b7/8/8/3BN3/4K3 w - - 0 1", "e2", nil},
		{"a pinned bishop moves only along the pin",
			"4r2k/8/8/b7/8/8/3BN3/4K3 w - - 0 1", "d2", []string{"d2a5", "d2b4", "d2c3"}},
		{"a rook pinned on the file moves along it",
			"4r2k/8/8/8/8/8/4R3/4K3 w - - 0 1", "e2", []string{"e2e3", "e2e4", "e2e5", "e2e6", "e2e7", "e2e8"}},
		{"a pawn pinned on the file can push but not capture",
			"4r2k/8/8/8/3p4/4P3/8/4K3 w - - 0 1", "e3", []string{"e3e4"}},
		{"a pawn pinned on the diagonal can capture the pinner only",
			"7k/8/8/8/8/2b5/3P4/4K3 w - - 0 1", "d2", []string{"d2c3"}},
		{"in double check only the king moves",
			"4k3/8/8/8/1b6/3n4/8/1R2K3 w - - 0 1", "b1", nil},
		{"in double check the king must step out of both lines",
			"4k3/8/8/8/1b6/3n4/8/1R2K3 w - - 0 1", "e1", []string{"e1d1", "e1e2", "e1f1"}},
		{"in single check a piece may block or capture",
			"4k3/8/8/8/1b6/8/8/1R2K3 w - - 0 1", "b1", []string{"b1b4"}},
		{"the king cannot retreat along the checking ray",
			"4k3/8/8/8/8/8/8/r3K3 w - - 0 1", "e1", []string{"e1d2", "e1e2", "e1f2"}},
		{"a push promotes to four pieces",
			"8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7", []string{"e7e8b", "e7e8n", "e7e8q", "e7e8r"}},
		{"a capture promotes to four pieces",
			"3rr3/4P3/8/8/8/8/k7/7K w - - 0 1", "e7", []string{"e7d8b", "e7d8n", "e7d8q", "e7d8r"}},
		{"black promotes",
			"8/8/8/8/8/K7/6p1/4k2N b - - 0 1", "g2", []string{"g2g1b", "g2g1n", "g2g1q", "g2g1r", "g2h1b", "g2h1n", "g2h1q", "g2h1r"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.fen)
			if got := movesFrom(p, tc.from); !slices.Equal(got, tc.want) {
				t.Errorf("%s: moves from %s = %v, want %v", tc.fen, tc.from, got, tc.want)
			}
		})
	}
}

// TestMostMovesFitTheList checks the position with the most legal moves
// known (218) against the move list's capacity.
func TestMostMovesFitTheList(t *testing.T) {
	p := mustFEN(t, "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1")
	var list MoveList
	p.GenerateLegal(&list)
	if list.N != 218 || len(list.Moves) < list.N {
		t.Fatalf("%d legal moves, want 218 (list capacity %d)", list.N, len(list.Moves))
	}
}

// TestDoubleCheckOnlyKingMoves checks, over random playouts, that every legal
// move in double check is a king move.
func TestDoubleCheckOnlyKingMoves(t *testing.T) {
	var list MoveList
	n := 0
	for _, pl := range randomPlayouts(t, 5, 60, 250) {
		pl.replay(t, func(p *Position) {
			if !p.Checkers().More() {
				return
			}
			n++
			p.GenerateLegal(&list)
			for _, m := range list.Slice() {
				if m.From() != p.KingSquare(p.SideToMove()) {
					t.Fatalf("%s: double check but %s is legal", p.FEN(), m)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no double check in the playouts")
	}
}

// TestGenerateCapturesIsTheLegalSubset checks GenerateCaptures against
// GenerateLegal: out of check it is exactly the captures and promotions, in
// check it is every evasion.
func TestGenerateCapturesIsTheLegalSubset(t *testing.T) {
	var all, caps MoveList
	for _, pl := range randomPlayouts(t, 6, 30, 200) {
		pl.replay(t, func(p *Position) {
			p.GenerateLegal(&all)
			p.GenerateCaptures(&caps)
			var want []Move
			for _, m := range all.Slice() {
				if p.InCheck() || p.IsCapture(m) || m.IsPromotion() {
					want = append(want, m)
				}
			}
			got := slices.Clone(caps.Slice())
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: GenerateCaptures %v, want %v", p.FEN(), got, want)
			}
		})
	}
}

// TestMateAndStalemate checks checkmate and stalemate detection and Outcome.
func TestMateAndStalemate(t *testing.T) {
	tests := []struct {
		name, fen       string
		mate, stalemate bool
		outcome         Outcome
	}{
		{"fool's mate", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", true, false, Checkmate},
		{"back-rank mate", "6k1/5ppp/8/8/8/8/8/3R2K1 b - - 0 1", false, false, Ongoing},
		{"back-rank mate delivered", "3R2k1/5ppp/8/8/8/8/8/6K1 b - - 1 1", true, false, Checkmate},
		{"smothered mate", "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1", true, false, Checkmate},
		{"queen stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false, true, Stalemate},
		{"pawn stalemate", "k7/P7/K7/8/8/8/8/8 b - - 0 1", false, true, Stalemate},
		{"check but not mate", "4k3/8/8/8/8/8/8/4R1K1 b - - 0 1", false, false, Ongoing},
		{"start", StartFEN, false, false, Ongoing},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		if got := p.IsCheckmate(); got != tc.mate {
			t.Errorf("%s: IsCheckmate = %v, want %v", tc.name, got, tc.mate)
		}
		if got := p.IsStalemate(); got != tc.stalemate {
			t.Errorf("%s: IsStalemate = %v, want %v", tc.name, got, tc.stalemate)
		}
		if got := p.HasLegalMove(); got == (tc.mate || tc.stalemate) {
			t.Errorf("%s: HasLegalMove = %v", tc.name, got)
		}
		if got := p.Outcome(); got != tc.outcome {
			t.Errorf("%s: Outcome = %v, want %v", tc.name, got, tc.outcome)
		}
	}
}

// TestInsufficientMaterial checks the dead positions by material.
func TestInsufficientMaterial(t *testing.T) {
	tests := []struct {
		name, fen string
		want      bool
	}{
		{"KvK", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
		{"KNvK", "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1", true},
		{"KvKN", "1n2k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
		{"KBvK", "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", true},
		{"KvKB", "4kb2/8/8/8/8/8/8/4K3 w - - 0 1", true},
		{"KB v KB bishops on one colour", "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", true},
		{"KBB v K bishops on one colour", "4k3/8/8/8/8/8/B7/1B2K3 w - - 0 1", true},
		{"KB v KB opposite colours", "4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", false},
		{"KBB v K opposite colours", "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", false},
		{"KNN v K", "4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1", false},
		{"KN v KN", "1n2k3/8/8/8/8/8/8/1N2K3 w - - 0 1", false},
		{"KB v KN", "1n2k3/8/8/8/8/8/8/2B1K3 w - - 0 1", false},
		{"KP v K", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false},
		{"KR v K", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", false},
		{"KQ v K", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false},
		{"start", StartFEN, false},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		if got := p.IsInsufficientMaterial(); got != tc.want {
			t.Errorf("%s: IsInsufficientMaterial = %v, want %v", tc.name, got, tc.want)
		}
		if tc.want && p.Outcome() != InsufficientMaterial {
			t.Errorf("%s: Outcome = %v, want %v", tc.name, p.Outcome(), InsufficientMaterial)
		}
	}
}

// TestFiftyMoveRule checks the hundred-ply rule and that a mate on the
// hundredth ply stands.
func TestFiftyMoveRule(t *testing.T) {
	const fen = "7k/8/6K1/8/8/8/8/R7 w - - 99 80"
	p := mustFEN(t, fen)
	if p.IsFiftyMoveDraw() {
		t.Fatal("99 plies: fifty-move draw too early")
	}
	play(t, p, "a1a7")
	if p.HalfmoveClock() != 100 || !p.IsFiftyMoveDraw() || p.Outcome() != FiftyMoveRule {
		t.Fatalf("after the 100th quiet ply: clock %d, draw %v, outcome %v", p.HalfmoveClock(), p.IsFiftyMoveDraw(), p.Outcome())
	}
	p = mustFEN(t, fen)
	play(t, p, "a1a8")
	if !p.IsCheckmate() || p.IsFiftyMoveDraw() || p.Outcome() != Checkmate {
		t.Fatalf("mate on the 100th ply: mate %v, fifty-move draw %v, outcome %v", p.IsCheckmate(), p.IsFiftyMoveDraw(), p.Outcome())
	}
	// A capture or a pawn move resets the clock.
	p = mustFEN(t, "7k/8/6K1/8/8/8/P7/R6n w - - 98 80")
	play(t, p, "a1h1")
	if p.HalfmoveClock() != 0 {
		t.Fatalf("after a capture: clock %d, want 0", p.HalfmoveClock())
	}
	p = mustFEN(t, "7k/8/6K1/8/8/8/P7/R6n w - - 98 80")
	play(t, p, "a2a3")
	if p.HalfmoveClock() != 0 {
		t.Fatalf("after a pawn move: clock %d, want 0", p.HalfmoveClock())
	}
}

// TestThreefoldRepetition shuffles knights and counts repetitions.
func TestThreefoldRepetition(t *testing.T) {
	p := NewPosition()
	steps := []struct {
		move  string
		count int
	}{
		{"g1f3", 0}, {"g8f6", 0}, {"f3g1", 0}, {"f6g8", 1}, // start position again
		{"g1f3", 1}, {"g8f6", 1}, {"f3g1", 1}, {"f6g8", 2}, // third time
		{"b1c3", 0},
	}
	for i, s := range steps {
		play(t, p, s.move)
		if got := p.RepetitionCount(); got != s.count {
			t.Fatalf("ply %d (%s): RepetitionCount = %d, want %d", i+1, s.move, got, s.count)
		}
		if p.IsRepetition(1) != (s.count >= 1) || p.IsRepetition(2) != (s.count >= 2) {
			t.Fatalf("ply %d (%s): IsRepetition(1) = %v, IsRepetition(2) = %v with %d repetitions",
				i+1, s.move, p.IsRepetition(1), p.IsRepetition(2), s.count)
		}
		if s.count >= 2 && p.Outcome() != ThreefoldRepetition {
			t.Fatalf("ply %d: Outcome = %v, want %v", i+1, p.Outcome(), ThreefoldRepetition)
		}
	}
	// Repetitions do not reach back past a pawn move.
	p = NewPosition()
	play(t, p, "g1f3 g8f6 f3g1 f6g8 e2e4 e7e5 g1f3 g8f6 f3g1 f6g8")
	if got := p.RepetitionCount(); got != 1 {
		t.Fatalf("after a pawn move: RepetitionCount = %d, want 1", got)
	}
	// Lost castling rights make the same placement a different position.
	p = mustFEN(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	play(t, p, "a1b1 a8b8 b1a1 b8a8")
	if got := p.RepetitionCount(); got != 0 {
		t.Fatalf("castling rights lost: RepetitionCount = %d, want 0", got)
	}
	play(t, p, "a1b1 a8b8 b1a1 b8a8")
	if got := p.RepetitionCount(); got != 1 {
		t.Fatalf("after rights were lost: RepetitionCount = %d, want 1", got)
	}
	// The side to move is part of the position.
	p = mustFEN(t, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
	play(t, p, "a1a2 e8d8 a2a1 d8e8 a1a3 e8d8 a3a2 d8e8 a2a1") // Ra1 with black to move
	if got := p.RepetitionCount(); got != 0 {
		t.Fatalf("same placement, other side to move: RepetitionCount = %d, want 0", got)
	}
}

// TestEnPassantHashFIDE checks the FIDE notion of the same position: after a
// double push that allows no legal en-passant capture, the position hashes
// (and repeats) like the same placement without the double push; when the
// capture is legal, it does not.
func TestEnPassantHashFIDE(t *testing.T) {
	// No black pawn can take on e3.
	p := NewPosition()
	play(t, p, "e2e4")
	if p.EnPassant() == NoSquare || p.EnPassantCapturable() {
		t.Fatalf("after e2e4: ep %v capturable %v", p.EnPassant(), p.EnPassantCapturable())
	}
	same := mustFEN(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
	if p.Hash() != same.Hash() {
		t.Fatalf("no legal en passant: hash %016x, without the ep square %016x", p.Hash(), same.Hash())
	}
	play(t, p, "g8f6 g1f3 f6g8 f3g1")
	if got := p.RepetitionCount(); got != 1 {
		t.Fatalf("repeating the position after e2e4 (no legal en passant): RepetitionCount = %d, want 1", got)
	}

	// The black pawn on f4 can take on e3.
	p = mustFEN(t, "4k3/8/8/8/5p2/8/4P3/4K1N1 w - - 0 1")
	play(t, p, "e2e4")
	if !p.EnPassantCapturable() {
		t.Fatalf("%s: en passant should be capturable", p.FEN())
	}
	without := mustFEN(t, "4k3/8/8/8/4Pp2/8/8/4K1N1 b - - 0 1")
	if p.Hash() == without.Hash() {
		t.Fatal("legal en passant: the hash equals the one without the ep square")
	}
	play(t, p, "e8d8 g1f3 d8e8 f3g1")
	if p.Hash() != without.Hash() {
		t.Fatalf("same placement later: hash %016x, want %016x", p.Hash(), without.Hash())
	}
	if got := p.RepetitionCount(); got != 0 {
		t.Fatalf("the position after e2e4 had en passant, this one not: RepetitionCount = %d, want 0", got)
	}

	// The capture exists but is illegal (it would uncover a check along the
	// rank): the position is the same as without the ep square.
	a := mustFEN(t, "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1")
	b := mustFEN(t, "8/8/8/KPp4r/8/8/8/4k3 w - - 0 1")
	if a.EnPassantCapturable() || a.Hash() != b.Hash() {
		t.Fatalf("illegal en passant: capturable %v, hashes %016x and %016x", a.EnPassantCapturable(), a.Hash(), b.Hash())
	}
	if a.FEN() != "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1" {
		t.Fatalf("the FEN must keep the ep square: %s", a.FEN())
	}
}

// TestMovesAndLastMove checks the move history accessors.
func TestMovesAndLastMove(t *testing.T) {
	p := NewPosition()
	if p.LastMove() != NullMove || len(p.Moves()) != 0 || p.CapturedPiece() != NoPiece {
		t.Fatal("a fresh position has history")
	}
	play(t, p, "e2e4 d7d5 e4d5")
	var got []string
	for _, m := range p.Moves() {
		got = append(got, m.String())
	}
	if strings.Join(got, " ") != "e2e4 d7d5 e4d5" {
		t.Fatalf("Moves() = %v", got)
	}
	if p.CapturedPiece() != MakePiece(Black, Pawn) || p.LastMove().String() != "e4d5" || p.Ply() != 3 {
		t.Fatalf("LastMove %s, CapturedPiece %c, Ply %d", p.LastMove(), p.CapturedPiece().Letter(), p.Ply())
	}
}
