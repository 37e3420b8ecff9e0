package encoder

import (
	"math/rand/v2"
	"testing"

	"chessforge/datasets/fixture/playout"
	"chessforge/engine/board"
)

func TestPolicyIndexPinnedMoves(t *testing.T) {
	tests := []struct {
		fen, move string
		want      int
	}{
		{board.StartFEN, "e2e4", 1*64 + 12},                                                   // N, dist 2
		{board.StartFEN, "e2e3", 0*64 + 12},                                                   // N, dist 1
		{board.StartFEN, "g1f3", 63*64 + 6},                                                   // knight (-1,+2)
		{board.StartFEN, "b1c3", 56*64 + 1},                                                   // knight (+1,+2)
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", (2*7+1)*64 + 4},                      // castling: E, dist 2
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", (6*7+1)*64 + 4},                      // W, dist 2
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8", (2*7+1)*64 + 60},                     // black castling
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "a1a8", (0*7+6)*64 + 0},                      // N, dist 7
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "h1h8", (0*7+6)*64 + 7},                      // N, dist 7 from h1
		{"4k3/8/8/8/8/8/8/B3K3 w - - 0 1", "a1h8", (1*7+6)*64 + 0},                            // NE, dist 7
		{"4k3/8/8/8/8/8/8/4K2B w - - 0 1", "h1a8", (7*7+6)*64 + 7},                            // NW, dist 7
		{"4k3/8/8/8/8/8/8/4K2B w - - 0 1", "h1g2", (7*7+0)*64 + 7},                            // NW, dist 1
		{"4k3/8/8/8/8/8/8/4K2B w - - 0 1", "e1d1", (6*7+0)*64 + 4},                            // W, dist 1
		{"4k3/8/8/8/8/8/8/4K2B w - - 0 1", "e1f2", (1*7+0)*64 + 4},                            // NE, dist 1
		{"4k3/8/8/8/8/8/8/4K2B b - - 0 1", "e8d7", (5*7+0)*64 + 60},                           // SW
		{"4k3/8/8/8/8/8/8/4K2B b - - 0 1", "e8e7", (4*7+0)*64 + 60},                           // S
		{"4k3/8/8/8/8/8/8/4K2B b - - 0 1", "e8f7", (3*7+0)*64 + 60},                           // SE
		{"4k3/8/8/3n4/8/8/8/4K3 b - - 0 1", "d5f4", 58*64 + 35},                               // knight (+2,-1)
		{"4k3/8/8/3n4/8/8/8/4K3 b - - 0 1", "d5e3", 59*64 + 35},                               // knight (+1,-2)
		{"4k3/8/8/3n4/8/8/8/4K3 b - - 0 1", "d5c3", 60*64 + 35},                               // knight (-1,-2)
		{"4k3/8/8/3n4/8/8/8/4K3 b - - 0 1", "d5b4", 61*64 + 35},                               // knight (-2,-1)
		{"4k3/8/8/3n4/8/8/8/4K3 b - - 0 1", "d5b6", 62*64 + 35},                               // knight (-2,+1)
		{"4k3/8/8/3n4/8/8/8/4K3 b - - 0 1", "d5f6", 57*64 + 35},                               // knight (+2,+1)
		{"3r1b2/4P3/8/8/8/2k5/8/4K3 w - - 0 60", "e7e8q", 0*64 + 52},                          // queen promotion is queen-like
		{"3r1b2/4P3/8/8/8/2k5/8/4K3 w - - 0 60", "e7d8q", (7*7+0)*64 + 52},                    // capture-promotion to queen: NW
		{"3r1b2/4P3/8/8/8/2k5/8/4K3 w - - 0 60", "e7e8n", (64+0*3+1)*64 + 52},                 // knight, df 0
		{"3r1b2/4P3/8/8/8/2k5/8/4K3 w - - 0 60", "e7d8b", (64+1*3+0)*64 + 52},                 // bishop, df -1
		{"3r1b2/4P3/8/8/8/2k5/8/4K3 w - - 0 60", "e7f8r", (64+2*3+2)*64 + 52},                 // rook, df +1
		{"4k3/8/8/8/8/8/3p4/2N4K b - - 0 60", "d2c1r", (64+2*3+0)*64 + 11},                    // black rook, df -1
		{"4k3/8/8/8/8/8/3p4/2N4K b - - 0 60", "d2d1n", (64+0*3+1)*64 + 11},                    // black knight, df 0
		{"4k3/8/8/8/8/8/3p4/2N4K b - - 0 60", "d2d1q", (4*7+0)*64 + 11},                       // black queen: S
		{"rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", "e5d6", 7*7*64 + 36}, // en passant: NW
	}
	for _, tc := range tests {
		pos, err := board.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pos.ParseUCIMove(tc.move)
		if err != nil {
			t.Fatalf("%s in %s: %v", tc.move, tc.fen, err)
		}
		got, err := PolicyIndex(m)
		if err != nil || got != tc.want {
			t.Errorf("PolicyIndex(%s) = %d, %v; want %d", tc.move, got, err, tc.want)
		}
		back, err := DecodeMove(pos, tc.want)
		if err != nil || back != m {
			t.Errorf("DecodeMove(%d) = %v, %v; want %s", tc.want, back, err, tc.move)
		}
	}
}

func TestPolicyIndexRejectsImpossibleMoves(t *testing.T) {
	for _, m := range []board.Move{
		board.NullMove,
		board.NewMove(board.A1, board.Square(25)),                            // a1-b4
		board.NewPromotion(board.Square(52), board.Square(62), board.Knight), // e7-g8=N
	} {
		if i, err := PolicyIndex(m); err == nil {
			t.Errorf("PolicyIndex(%v) = %d, want an error", m, i)
		}
	}
}

func TestDecodeMoveRejectsBadIndices(t *testing.T) {
	pos := board.NewPosition()
	for _, idx := range []int{-1, PolicySize, 12, // e2e3 is fine, so check it is not rejected below
		0*64 + 4,           // e1e2: blocked by own pawn
		(64+0*3+1)*64 + 12, // e2e3=N from the start: no promotion
		56*64 + 0,          // a1b3: no knight on a1
	} {
		m, err := DecodeMove(pos, idx)
		if idx == 12 {
			if err != nil || m.String() != "e2e3" {
				t.Errorf("DecodeMove(12) = %v, %v; want e2e3", m, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("DecodeMove(%d) = %v, want an error", idx, m)
		}
	}
}

// TestEveryLegalMoveHasADistinctIndexThatDecodesBack checks the policy map on
// every legal move of thousands of positions from random playouts.
func TestEveryLegalMoveHasADistinctIndexThatDecodesBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	fens := []string{
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", // Kiwipete
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	}
	var list board.MoveList
	positions, moves := 0, 0
	check := func(pos *board.Position) {
		pos.GenerateLegal(&list)
		seen := make(map[int]board.Move, list.N)
		for _, m := range list.Moves[:list.N] {
			idx, err := PolicyIndex(m)
			if err != nil {
				t.Fatalf("%s: %v", pos.FEN(), err)
			}
			if idx < 0 || idx >= PolicySize {
				t.Fatalf("%s: %v has index %d out of range", pos.FEN(), m, idx)
			}
			if prev, ok := seen[idx]; ok {
				t.Fatalf("%s: %v and %v share index %d", pos.FEN(), prev, m, idx)
			}
			seen[idx] = m
			back, err := DecodeMove(pos, idx)
			if err != nil || back != m {
				t.Fatalf("%s: index %d of %v decodes to %v, %v", pos.FEN(), idx, m, back, err)
			}
			moves++
		}
		positions++
	}
	for _, fen := range fens {
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		check(pos)
	}
	for g := 0; g < 60; g++ {
		end, _, _ := playout.Play(rng, 300, 0.3)
		pos := board.NewPosition()
		for _, m := range end.Moves() {
			check(pos)
			pos.MakeMove(m)
		}
	}
	if positions < 5000 {
		t.Errorf("only %d positions checked", positions)
	}
	t.Logf("%d positions, %d legal moves checked", positions, moves)
}

func BenchmarkPolicyIndex(b *testing.B) {
	pos, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var list board.MoveList
	pos.GenerateLegal(&list)
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		idx, _ := PolicyIndex(list.Moves[i%list.N])
		s += idx
	}
	_ = s
}
