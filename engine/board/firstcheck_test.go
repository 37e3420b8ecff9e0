package board

import (
	"math/rand/v2"
	"testing"
)

// FirstCheck must find, from every starting point of a move list, the first
// move GivesCheck says checks: on the legal moves (castling, en passant and
// promotions included) of positions from random playouts.
func TestFirstCheckFindsTheFirstCheckingMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	starts := []string{StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"}
	found := 0
	for _, fen := range starts {
		for game := 0; game < 10; game++ {
			p, err := ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			for ply := 0; ply < 100; ply++ {
				var list MoveList
				p.GenerateLegal(&list)
				if list.N == 0 {
					break
				}
				moves := list.Slice()
				// next[i]: the first checking move at or after i, or -1.
				next := make([]int, len(moves)+1)
				next[len(moves)] = -1
				for i := len(moves) - 1; i >= 0; i-- {
					next[i] = next[i+1]
					if p.GivesCheck(moves[i]) {
						next[i] = i
					}
				}
				for i := range moves {
					got := p.FirstCheck(moves[i:])
					want := next[i]
					if want >= 0 {
						want -= i
					}
					if got != want {
						t.Fatalf("%s: FirstCheck from move %d (%s) = %d, want %d", p.FEN(), i, moves[i], got, want)
					}
					if got >= 0 {
						found++
					}
				}
				p.MakeMove(moves[rng.IntN(len(moves))])
			}
		}
	}
	if found < 500 {
		t.Errorf("only %d checks found; the test needs more coverage", found)
	}
}
