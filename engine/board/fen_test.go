package board

import (
	"errors"
	"strings"
	"testing"
)

// TestParseFENRejects checks that every malformed or impossible FEN is
// refused with a *FENError naming the field at fault and a reason that
// mentions the problem.
func TestParseFENRejects(t *testing.T) {
	tests := []struct {
		name, fen, field, reason string
	}{
		{"empty", "", "fen", "fields"},
		{"three fields", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fen", "got 3"},
		{"seven fields", StartFEN + " 7", "fen", "got 7"},
		{"seven ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "8 ranks"},
		{"nine ranks", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "8 ranks"},
		{"short rank", "rnbqkbnr/pppppppp/8/8/7/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "rank 4 has 7 squares"},
		{"long rank digits", "rnbqkbnr/pppppppp/8/8/44p/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "rank 4 has more than 8"},
		{"long rank pieces", "rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "rank 8 has more than 8"},
		{"digit overflow", "rnbqkbnr/pppppppp/8/8/18/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "more than 8"},
		{"empty rank", "rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "rank 6 has 0 squares"},
		{"unknown letter", "rnbqkbnr/pppppppp/8/8/3X4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "unknown piece letter 'X'"},
		{"digit zero", "rnbqkbnr/pppppppp/8/8/08/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "unknown piece letter '0'"},
		{"digit nine", "rnbqkbnr/pppppppp/8/8/9/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "unknown piece letter '9'"},
		{"no white king", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "placement", "white has 0 kings"},
		{"no black king", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "placement", "black has 0 kings"},
		{"two white kings", "rnbqkbnr/pppppppp/8/8/4K3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement", "white has 2 kings"},
		{"two black kings", "k7/8/8/8/8/8/8/K6k w - - 0 1", "placement", "black has 2 kings"},
		{"white pawn on rank 1", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "placement", "pawn on a1"},
		{"black pawn on rank 1", "4k3/8/8/8/8/8/8/4K2p w - - 0 1", "placement", "pawn on h1"},
		{"white pawn on rank 8", "3Pk3/8/8/8/8/8/8/4K3 w - - 0 1", "placement", "pawn on d8"},
		{"nine pawns", "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "placement", "9 pawns"},
		{"seventeen pieces", "4k3/8/8/8/8/NNNNNNNN/NNNNNNNN/4K3 w - - 0 1", "placement", "17 pieces"},
		{"nine pawns and a promoted queen", "4k3/8/8/8/8/P7/PPPPPPPP/3QK2Q w - - 0 1", "placement", "9 pawns"},
		{"promoted queen with eight pawns", "4k3/8/8/8/8/8/PPPPPPPP/3QK2Q w - - 0 1", "placement", "8 pawns and 1 promoted"},
		{"too many knights", "4k3/8/8/8/8/8/PPPPPPPP/NNN1K3 w - - 0 1", "placement", "8 pawns and 1 promoted"},
		{"two light bishops and eight pawns", "4k3/8/8/8/8/8/PPPPPPPP/4KB1B w - - 0 1", "placement", "8 pawns and 1 promoted"},
		{"black promoted rooks", "rrr1k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1", "placement", "black has 8 pawns and 1 promoted"},
		{"fifteen queens", "kr2QQ1Q/rrQ5/Q5Q1/3Q4/1Q4QQ/4Q3/2Q4Q/Q4Q1K w - - 0 1", "placement", "14 promoted"},
		{"side not to move in check", "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "placement", "black) is in check"},
		{"white in check, black to move", "4k3/8/8/8/8/8/4r3/4K3 b - - 0 1", "placement", "white) is in check"},
		{"kings side by side", "8/8/8/3kK3/8/8/8/8 w - - 0 1", "placement", "black) is in check"},
		{"side not to move checked by a pawn", "8/8/8/3k4/4P3/8/8/4K3 w - - 0 1", "placement", "black) is in check"},
		{"triple check", "4k3/8/8/8/1b6/3n4/4r3/4K3 w - - 0 1", "placement", "3 pieces"},
		{"side letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side", "\"x\""},
		{"side upper case", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", "side", "\"W\""},
		{"castling letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling", "KQkq"},
		{"castling duplicate", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKq - 0 1", "castling", "given twice"},
		{"castling dash mixed", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w K- - 0 1", "castling", "KQkq"},
		{"castling without king", "r3k2r/8/8/8/8/8/8/R2K3R w K - 0 1", "castling", "king on e1"},
		{"castling without rook", "r3k2r/8/8/8/8/8/8/R3K3 w K - 0 1", "castling", "rook on h1"},
		{"queenside without rook", "r3k2r/8/8/8/8/8/8/1R2K2R w Q - 0 1", "castling", "rook on a1"},
		{"black castling without rook", "r3k3/8/8/8/8/8/8/R3K2R w k - 0 1", "castling", "rook on h8"},
		{"black castling without king", "r2k3r/8/8/8/8/8/8/R3K2R w q - 0 1", "castling", "king on e8"},
		{"castling with enemy rook", "r3k2R/8/8/8/8/8/8/R3K3 b k - 0 1", "castling", "rook on h8"},
		{"ep not a square", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 2", "en passant", "square"},
		{"ep garbage", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq xx 0 2", "en passant", "square"},
		{"ep wrong rank for white to move", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 2", "en passant", "rank 6"},
		{"ep wrong rank for black to move", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1", "en passant", "rank 3"},
		{"ep rank 4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en passant", "rank 3"},
		{"ep without pawn", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq d3 0 1", "en passant", "white pawn on d4"},
		{"ep own pawn", "rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "en passant", "white pawn on e4"},
		{"ep target occupied", "rnbqkbnr/pppppppp/8/8/4P3/4N3/PPPP1PPP/RNBQKB1R b KQkq e3 0 1", "en passant", "must be empty"},
		{"ep origin occupied", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPPNPPP/RNBQKB1R b KQkq e3 0 1", "en passant", "must be empty"},
		{"halfmove negative", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove", "\"-1\""},
		{"halfmove word", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove", "\"x\""},
		{"halfmove huge", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999999999999 1", "halfmove", "99999"},
		{"fullmove zero", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove", "\"0\""},
		{"fullmove word", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 one", "fullmove", "\"one\""},
		{"fullmove fraction", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5", "fullmove", "\"1.5\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseFEN(tc.fen)
			if err == nil {
				t.Fatalf("ParseFEN(%q) accepted it: %s", tc.fen, p.FEN())
			}
			var fe *FENError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseFEN(%q) error %v is not a *FENError", tc.fen, err)
			}
			if fe.Field != tc.field {
				t.Errorf("ParseFEN(%q) blames field %q (%v), want %q", tc.fen, fe.Field, err, tc.field)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("ParseFEN(%q) error %q does not mention %q", tc.fen, err, tc.reason)
			}
			if !strings.Contains(err.Error(), fe.Field) {
				t.Errorf("error %q does not name the field %q", err, fe.Field)
			}
		})
	}
}

// TestParseFENAccepts checks positions that are unusual but legal, and that
// the optional counters default to 0 and 1.
func TestParseFENAccepts(t *testing.T) {
	tests := []struct{ fen, want string }{
		{StartFEN, StartFEN},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", StartFEN},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", StartFEN},
		{"  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq -   0 1 ", StartFEN},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w qkQK - 0 1", StartFEN},
		{"4k3/8/8/8/8/8/8/4K3 b - - 99 300", "4k3/8/8/8/8/8/8/4K3 b - - 99 300"},
		// Promoted pieces are possible when pawns are missing; the position
		// with 218 legal moves has seven promoted queens.
		{"R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"},
		{"4k3/8/8/8/8/8/PPPPP3/RQQQK2Q w - - 0 1", "4k3/8/8/8/8/8/PPPPP3/RQQQK2Q w - - 0 1"},
		// Double check is possible (a discovered check with the moving piece).
		{"4k3/8/8/8/1b6/3n4/8/4K3 w - - 0 1", "4k3/8/8/8/1b6/3n4/8/4K3 w - - 0 1"},
		// An en-passant square with no capture possible is kept as written.
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"},
	}
	for _, tc := range tests {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", tc.fen, err)
			continue
		}
		if got := p.FEN(); got != tc.want {
			t.Errorf("ParseFEN(%q).FEN() = %q, want %q", tc.fen, got, tc.want)
		}
	}
}

// TestFENRoundTrip checks that FEN() reproduces every canonical FEN it was
// given, over the perft suite, the tricky positions and the positions of
// random playouts, and that the parsed position hashes as the played one.
func TestFENRoundTrip(t *testing.T) {
	n := 0
	check := func(fen string) {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatalf("ParseFEN(%q): %v", fen, err)
		}
		if got := p.FEN(); got != fen {
			t.Fatalf("ParseFEN(%q).FEN() = %q", fen, got)
		}
		n++
	}
	for _, tc := range perftCases {
		check(tc.fen)
	}
	for _, fen := range trickyFENs {
		check(fen)
	}
	for _, pl := range randomPlayouts(t, 4, 20, 200) {
		pl.replay(t, func(p *Position) {
			check(p.FEN())
			q, _ := ParseFEN(p.FEN())
			if q.Hash() != p.Hash() {
				t.Fatalf("%s: parsed hash %016x, played hash %016x", p.FEN(), q.Hash(), p.Hash())
			}
		})
	}
	t.Logf("%d FENs round-tripped", n)
}

// TestFENWritesEnPassantAfterEveryDoublePush checks the FEN standard: the
// en-passant square follows every double push, whether or not a capture is
// possible, and disappears after the next move.
func TestFENWritesEnPassantAfterEveryDoublePush(t *testing.T) {
	p := NewPosition()
	for _, step := range []struct{ move, fen string }{
		{"e2e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"},
		{"c7c5", "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"},
		{"g1f3", "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"},
		{"c5c4", "rnbqkbnr/pp1ppppp/8/8/2p1P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3"},
		{"d2d4", "rnbqkbnr/pp1ppppp/8/8/2pPP3/5N2/PPP2PPP/RNBQKB1R b KQkq d3 0 3"},
		{"c4d3", "rnbqkbnr/pp1ppppp/8/8/4P3/3p1N2/PPP2PPP/RNBQKB1R w KQkq - 0 4"},
	} {
		m, err := p.ParseUCIMove(step.move)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
		if got := p.FEN(); got != step.fen {
			t.Fatalf("after %s: FEN %q, want %q", step.move, got, step.fen)
		}
		checkConsistent(t, p)
	}
	if m := p.LastMove(); !m.IsEnPassant() {
		t.Fatalf("c4d3 was parsed as %v, not an en-passant capture", m)
	}
}

// TestFENErrorMessage checks the wording of FENError.
func TestFENErrorMessage(t *testing.T) {
	err := error(&FENError{Field: "castling", Reason: "right 'K' needs the king on e1"})
	if got, want := err.Error(), "bad FEN castling field: right 'K' needs the king on e1"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}

func TestPlacementWritesTheGridAsFENDoes(t *testing.T) {
	for _, fen := range []string{StartFEN, "8/8/3k4/8/8/4K3/8/7R w - - 0 1", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"} {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		var grid [64]byte
		for sq := range grid {
			if pc := p.PieceAt(Square(sq)); pc != NoPiece {
				grid[sq] = pc.Letter()
			}
		}
		if got, want := Placement(&grid), strings.Fields(fen)[0]; got != want {
			t.Errorf("Placement = %q, want %q", got, want)
		}
	}
}
