package board

import (
	"math/rand/v2"
	"testing"
)

func TestIsSearchDraw(t *testing.T) {
	cases := []struct {
		name    string
		fen     string
		moves   []string
		rootPly int
		want    bool
	}{
		{"start position", StartFEN, nil, 0, false},
		{"pawns, few plies", StartFEN, []string{"e2e4", "e7e5", "g1f3"}, 0, false},
		{"repeats after the root", StartFEN, []string{"g1f3", "g8f6", "f3g1", "f6g8"}, 0, true},
		{"repeats once before the root", StartFEN, []string{"g1f3", "g8f6", "f3g1", "f6g8"}, 4, false},
		{"repeats twice before the root", StartFEN,
			[]string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, 8, true},
		{"a pawn move in between", StartFEN,
			[]string{"g1f3", "g8f6", "f3g1", "f6g8", "e2e4", "g8f6", "g1f3", "f6g8"}, 0, false},
		{"bare kings", "8/8/4k3/8/8/3K4/8/8 w - - 0 1", nil, 0, true},
		{"king and knight", "8/8/4k3/8/8/3KN3/8/8 w - - 0 1", nil, 0, true},
		{"bishops on one colour", "8/2b5/4k3/8/8/3KB3/8/8 w - - 0 1", nil, 0, true},
		{"a rook, no pawn", "8/8/4k3/8/8/R2K4/8/8 w - - 0 1", nil, 0, false},
		{"a rook, no pawn, repeated", "8/8/4k3/8/8/R2K4/8/8 w - - 0 1",
			[]string{"a3a1", "e6e7", "a1a3", "e7e6"}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseFEN(c.fen)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.moves {
				m, err := p.ParseUCIMove(s)
				if err != nil {
					t.Fatal(err)
				}
				p.MakeMove(m)
			}
			if got := p.IsSearchDraw(c.rootPly); got != c.want {
				t.Errorf("IsSearchDraw(%d) = %v, want %v", c.rootPly, got, c.want)
			}
		})
	}
}

// TestIsSearchDrawMatchesRepetitionCount holds IsSearchDraw to a count of
// the earlier positions with the same key since the last capture or pawn
// move, over random games of reversible moves (which repeat often) from
// positions with and without pawns, for every root ply.
func TestIsSearchDrawMatchesRepetitionCount(t *testing.T) {
	starts := []string{
		"4k3/8/8/8/8/8/8/R3K2N w - - 0 1",
		"4k3/4p3/8/8/8/8/4P3/1N2K2N w - - 0 1",
		"r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1",
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var list MoveList
	for _, fen := range starts {
		for game := 0; game < 20; game++ {
			p, err := ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			keys := []uint64{p.Hash()}
			lastIrreversible := 0
			for ply := 1; ply <= 60; ply++ {
				p.GenerateLegal(&list)
				if list.N == 0 {
					break
				}
				m := list.Moves[rng.IntN(list.N)]
				if p.IsCapture(m) || p.PieceAt(m.From()).Type() == Pawn {
					lastIrreversible = ply
				}
				p.MakeMove(m)
				keys = append(keys, p.Hash())
				for root := 0; root <= ply; root++ {
					after, before := 0, 0
					for j := lastIrreversible; j < ply; j++ {
						if keys[j] == keys[ply] {
							if j >= root {
								after++
							} else {
								before++
							}
						}
					}
					want := p.IsInsufficientMaterial() || after >= 1 || before >= 2
					if got := p.IsSearchDraw(root); got != want {
						t.Fatalf("%s after %v: IsSearchDraw(%d) = %v, want %v", fen, p.Moves(), root, got, want)
					}
				}
			}
		}
	}
}
