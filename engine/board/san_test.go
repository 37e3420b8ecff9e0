package board

import (
	"strings"
	"testing"
)

// Every legal move of every position along many random playouts reads back
// from its own SAN, and from the variants PGN files use for it.
func TestParseSANRoundTripsEveryLegalMoveAlongPlayouts(t *testing.T) {
	var list MoveList
	moves := 0
	for _, pl := range randomPlayouts(t, 11, 14, 120) {
		pl.replay(t, func(p *Position) {
			p.GenerateLegal(&list)
			for _, m := range list.Slice() {
				san := p.SAN(m)
				variants := []string{san, strings.TrimRight(san, "+#") + "!?"}
				if m.IsCastling() {
					variants = append(variants, strings.ReplaceAll(san, "O", "0"))
				}
				if m.IsPromotion() {
					variants = append(variants, strings.Replace(san, "=", "", 1))
				}
				for _, v := range variants {
					got, err := p.ParseSAN(v)
					if err != nil || got != m {
						t.Fatalf("%s: ParseSAN(%q) = %v, %v; want %v", p.FEN(), v, got, err, m)
					}
				}
				moves++
			}
		})
	}
	if moves < 30000 {
		t.Fatalf("only %d moves checked", moves)
	}
}

// Each SAN form reads as the move it names, and each bad one gives an error
// that says what is wrong.
func TestParseSANFormsAndRejections(t *testing.T) {
	tests := []struct{ fen, san, uci, err string }{
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", "e1g1", ""},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0", "e1g1", ""},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O-O", "e1c1", ""},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "0-0-0+", "e8c8", ""},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8=Q+", "b7b8q", ""},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8Q", "b7b8q", ""},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8=n", "b7b8n", ""},
		{"2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "bxc8=R+", "b7c8r", ""},
		{"rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "Qh4#", "d8h4", ""},
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "exd6 e.p.", "e5d6", ""},
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "exd6", "e5d6", ""},
		// Disambiguation by file, by rank and by square.
		{"4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Rad1", "a1d1", ""},
		{"4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Rhf1", "h1f1", ""},
		{"4k3/8/R7/8/8/8/8/R3K3 w - - 0 1", "R1a3", "a1a3", ""},
		{"4k3/8/R7/8/8/8/8/R3K3 w - - 0 1", "R6a3", "a6a3", ""},
		{"8/7k/8/8/Q2Q4/8/8/Q3K3 w - - 0 1", "Qa4d1", "a4d1", ""},
		{"8/7k/8/8/Q2Q4/8/8/Q3K3 w - - 0 1", "Q1d1", "a1d1", ""},
		{"8/7k/8/8/Q2Q4/8/8/Q3K3 w - - 0 1", "Qdd1", "d4d1", ""},
		// Errors.
		{StartFEN, "", "", "empty"},
		{StartFEN, "e5", "", "not legal"},
		{StartFEN, "Ke2", "", "not legal"},
		{StartFEN, "O-O", "", "castling is not legal"},
		{StartFEN, "Nxf3", "", "captures nothing"},
		{StartFEN, "xe4", "", "pawn capture names its file"},
		{StartFEN, "Zf3", "", "want SAN"},
		{StartFEN, "Nf9", "", "want SAN"},
		{"4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "Rd1", "", "ambiguous"},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8", "", "promotion piece"},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8=K", "", "want SAN"},
		{"4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Rb1f1", "", "not legal"},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseSAN(tc.san)
		switch {
		case tc.err == "" && (err != nil || m.String() != tc.uci):
			t.Errorf("%s: ParseSAN(%q) = %v, %v; want %s", tc.fen, tc.san, m, err, tc.uci)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: ParseSAN(%q) = %v, %v; want an error containing %q", tc.fen, tc.san, m, err, tc.err)
		}
	}
}
