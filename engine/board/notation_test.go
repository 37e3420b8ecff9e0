package board

import (
	"regexp"
	"strings"
	"testing"
)

// TestSAN checks Standard Algebraic Notation for every kind of move, with
// check and mate marks and the three kinds of disambiguation.
func TestSAN(t *testing.T) {
	tests := []struct {
		name, fen, move, want string
	}{
		{"knight", StartFEN, "g1f3", "Nf3"},
		{"pawn push", StartFEN, "e2e4", "e4"},
		{"pawn capture", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", "e4d5", "exd5"},
		{"piece capture", "rnbqkbnr/ppp1pppp/8/3p4/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 2", "d5e4", "dxe4"},
		{"knight capture", "rnbqkbnr/ppp1pppp/8/8/4p3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 3", "c3e4", "Nxe4"},
		{"en passant", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6", "exf6"},
		{"kingside castling", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "O-O"},
		{"queenside castling", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", "O-O-O"},
		{"black queenside castling", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "O-O-O"},
		{"castling with check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", "O-O+"},
		{"promotion with check", "2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q", "e8=Q+"},
		{"under-promotion", "2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n", "e8=N"},
		{"capture promotion with mate", "1r5k/P5pp/8/8/8/8/8/K7 w - - 0 1", "a7b8q", "axb8=Q#"},
		{"black promotion", "8/8/8/8/8/8/p7/1R2K2k b - - 0 1", "a2b1r", "axb1=R+"},
		{"mate", "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4", "Qh4#"},
		{"check", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", "Ra8+"},
		{"king", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1d2", "Kd2"},
		{"disambiguation by file", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "b1d2", "Nbd2"},
		{"disambiguation by file, other knight", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "f1d2", "Nfd2"},
		{"disambiguation by rank", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3", "R1a3"},
		{"disambiguation by rank, upper rook", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a5a3", "R5a3"},
		{"disambiguation by rank with capture", "4k3/8/8/R7/8/n7/8/R3K3 w - - 0 1", "a5a3", "R5xa3"},
		{"three queens: by square", "8/7k/8/Q7/8/8/8/Q3Q2K w - - 0 1", "a1e5", "Qa1e5"},
		{"three queens: by rank", "8/7k/8/Q7/8/8/8/Q3Q2K w - - 0 1", "a5e5", "Q5e5"},
		{"three queens: by file", "8/7k/8/Q7/8/8/8/Q3Q2K w - - 0 1", "e1e5", "Qee5"},
		{"a pinned knight does not need disambiguating", "4k3/8/8/b7/8/2N5/8/4K1N1 w - - 0 1", "g1e2", "Ne2"},
		{"rooks on one rank", "4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "a1d1", "Rad1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.fen)
			m, err := p.ParseUCIMove(tc.move)
			if err != nil {
				t.Fatal(err)
			}
			before := p.FEN()
			if got := p.SAN(m); got != tc.want {
				t.Errorf("%s: SAN(%s) = %q, want %q", tc.fen, tc.move, got, tc.want)
			}
			if p.FEN() != before || p.Ply() != 0 {
				t.Errorf("SAN changed the position to %s", p.FEN())
			}
		})
	}
}

// sanPattern is the shape of a SAN move.
var sanPattern = regexp.MustCompile(`^(O-O|O-O-O|[NBRQK][a-h]?[1-8]?x?[a-h][1-8]|([a-h]x)?[a-h][1-8](=[NBRQ])?)[+#]?$`)

// TestSANIsUniqueAlongPlayouts checks that the SAN of the legal moves in a
// position are all different and well formed, with the capture mark on captures only, over random playouts.
func TestSANIsUniqueAlongPlayouts(t *testing.T) {
	var list MoveList
	for _, pl := range randomPlayouts(t, 8, 6, 120) {
		pl.replay(t, func(p *Position) {
			p.GenerateLegal(&list)
			seen := map[string]Move{}
			for _, m := range list.Slice() {
				s := p.SAN(m)
				if o, dup := seen[s]; dup {
					t.Fatalf("%s: %s and %s both give SAN %q", p.FEN(), o, m, s)
				}
				seen[s] = m
				if !sanPattern.MatchString(s) {
					t.Fatalf("%s: malformed SAN %q for %s", p.FEN(), s, m)
				}
				if strings.Contains(s, "x") != p.IsCapture(m) {
					t.Fatalf("%s: SAN %q for %s: capture mark wrong", p.FEN(), s, m)
				}
			}
		})
	}
}

// TestParseUCIMove checks UCI move parsing: legal moves of every kind come
// back with the right flags, and malformed or illegal ones are errors that
// say so.
func TestParseUCIMove(t *testing.T) {
	good := []struct {
		fen, move  string
		castle, ep bool
		promo      PieceType
	}{
		{StartFEN, "e2e4", false, false, NoPieceType},
		{StartFEN, "g1f3", false, false, NoPieceType},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", true, false, NoPieceType},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", true, false, NoPieceType},
		{"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6", false, true, NoPieceType},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q", false, false, Queen},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n", false, false, Knight},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8b", false, false, Bishop},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8r", false, false, Rook},
	}
	for _, tc := range good {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseUCIMove(tc.move)
		if err != nil {
			t.Errorf("%s: ParseUCIMove(%q): %v", tc.fen, tc.move, err)
			continue
		}
		if m.String() != tc.move || m.IsCastling() != tc.castle || m.IsEnPassant() != tc.ep || m.Promotion() != tc.promo {
			t.Errorf("%s: %q parsed as %s (castling %v, ep %v, promotion %v)", tc.fen, tc.move, m, m.IsCastling(), m.IsEnPassant(), m.Promotion())
		}
		if !p.IsLegal(m) {
			t.Errorf("%s: %s parsed but IsLegal is false", tc.fen, m)
		}
	}
	bad := []struct {
		fen, move, reason string
	}{
		{StartFEN, "", "UCI notation"},
		{StartFEN, "e2", "UCI notation"},
		{StartFEN, "e2e4e5", "UCI notation"},
		{StartFEN, "i2i4", "UCI notation"},
		{StartFEN, "e0e4", "UCI notation"},
		{StartFEN, "E2E4", "UCI notation"},
		{StartFEN, "e2e5", "not legal"},
		{StartFEN, "e7e5", "not legal"},
		{StartFEN, "e2e4q", "not legal"},
		{StartFEN, "0000", "UCI notation"},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8", "not legal"},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8k", "promotion piece"},
		{"2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8Q", "promotion piece"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1", "not legal"},
		{"8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1", "b5c6", "not legal"},
	}
	for _, tc := range bad {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseUCIMove(tc.move)
		if err == nil {
			t.Errorf("%s: ParseUCIMove(%q) accepted it as %s", tc.fen, tc.move, m)
			continue
		}
		if !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), tc.move) {
			t.Errorf("%s: ParseUCIMove(%q) error %q should name the move and say %q", tc.fen, tc.move, err, tc.reason)
		}
	}
}

// TestMoveEncoding checks the move constructors and accessors.
func TestMoveEncoding(t *testing.T) {
	if NullMove.String() != "0000" {
		t.Errorf("NullMove.String() = %q", NullMove.String())
	}
	for from := Square(0); from < 64; from++ {
		for to := Square(0); to < 64; to++ {
			m := NewMove(from, to)
			if m.From() != from || m.To() != to || m.IsPromotion() || m.IsCastling() || m.IsEnPassant() || m.Promotion() != NoPieceType {
				t.Fatalf("NewMove(%s, %s) = %v", from, to, m)
			}
			for pt := Knight; pt <= Queen; pt++ {
				m := NewPromotion(from, to, pt)
				if m.From() != from || m.To() != to || !m.IsPromotion() || m.Promotion() != pt {
					t.Fatalf("NewPromotion(%s, %s, %d) = %v", from, to, pt, m)
				}
			}
		}
	}
	if s, ok := ParseSquare("h8"); !ok || s != H8 || s.String() != "h8" {
		t.Errorf("ParseSquare(h8) = %v, %v", s, ok)
	}
	for _, bad := range []string{"", "a", "a9", "i1", "a10", "A1"} {
		if _, ok := ParseSquare(bad); ok {
			t.Errorf("ParseSquare(%q) accepted", bad)
		}
	}
}

// TestIsLegalRejects checks IsLegal on moves that are not legal.
func TestIsLegalRejects(t *testing.T) {
	p := NewPosition()
	for _, m := range []Move{NullMove, NewMove(E1, E1+16), NewMove(A1, A1+8), newCastling(E1, G1), NewPromotion(A1+8, A1+16, Queen)} {
		if p.IsLegal(m) {
			t.Errorf("IsLegal(%s) = true in the start position", m)
		}
	}
	if !p.IsLegal(NewMove(E1+8, E1+24)) {
		t.Error("IsLegal(e2e4) = false in the start position")
	}
}
