package board

import (
	"math/rand/v2"
	"testing"
)

// GivesCheck must agree with making the move and looking, on every legal
// move of positions from random playouts; so must the checkers MakeMove
// derives from the check info GivesCheck leaves behind.
func TestGivesCheckAgreesWithMakeMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	starts := []string{StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"}
	checks := 0
	for _, fen := range starts {
		for game := 0; game < 40; game++ {
			p, err := ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			for ply := 0; ply < 120; ply++ {
				var list MoveList
				p.GenerateLegal(&list)
				if list.N == 0 {
					break
				}
				for _, m := range list.Slice() {
					got := p.GivesCheck(m)
					p.MakeMove(m)
					// Looked up afresh: MakeMove's own checkers come from
					// the same check info as GivesCheck.
					us := p.SideToMove()
					want := p.AttackersTo(p.KingSquare(us), p.Occupied())&p.Occupancy(us.Other()) != 0
					if want != p.InCheck() {
						t.Fatalf("%s after %s: InCheck %v, attackers say %v", p.FEN(), m, p.InCheck(), want)
					}
					p.UnmakeMove()
					if got != want {
						t.Fatalf("%s: GivesCheck(%s) = %v, want %v", p.FEN(), m, got, want)
					}
					if want {
						checks++
					}
				}
				p.MakeMove(list.Moves[rng.IntN(list.N)])
			}
		}
	}
	if checks < 1000 {
		t.Errorf("only %d checking moves seen; the test needs more coverage", checks)
	}
}
