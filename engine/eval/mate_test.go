package eval_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"chessforge/engine/board"
	"chessforge/engine/search"
)

// TestSearchMatesTheLoneKing plays KQK and KRK out from random starting
// squares: the stronger side searches a small node budget, the lone king
// defends with a smaller one, and the game must end in mate within the
// fifty-move rule. The evaluation's mate-drive terms are what make a small
// search find the way.
func TestSearchMatesTheLoneKing(t *testing.T) {
	games := 12
	if raceEnabled || testing.Short() {
		games = 1
	}
	rng := rand.New(rand.NewPCG(42, 7))
	for _, piece := range []byte{'Q', 'R'} {
		for g := 0; g < games; g++ {
			fen := randomKXK(t, rng, piece)
			t.Run(fmt.Sprintf("K%cK/%s", piece, fen), func(t *testing.T) {
				playOut(t, fen)
			})
		}
	}
}

// randomKXK returns a legal position, White to move, with White's king and
// piece and Black's lone king on random squares.
func randomKXK(t *testing.T, rng *rand.Rand, piece byte) string {
	for {
		sq := rng.Perm(64)[:3]
		var b [64]byte
		b[sq[0]], b[sq[1]], b[sq[2]] = 'K', piece, 'k'
		fen := ""
		for r := 7; r >= 0; r-- {
			empty := 0
			for f := 0; f < 8; f++ {
				if c := b[r*8+f]; c != 0 {
					if empty > 0 {
						fen += fmt.Sprint(empty)
						empty = 0
					}
					fen += string(c)
				} else {
					empty++
				}
			}
			if empty > 0 {
				fen += fmt.Sprint(empty)
			}
			if r > 0 {
				fen += "/"
			}
		}
		fen += " w - - 0 1"
		if _, err := board.ParseFEN(fen); err == nil {
			return fen
		}
	}
}

func playOut(t *testing.T, fen string) {
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	attacker := search.New(search.Options{HashMB: 4, Threads: 1})
	defender := search.New(search.Options{HashMB: 1, Threads: 1})
	var moves []string
	for ply := 0; ; ply++ {
		switch o := p.Outcome(); o {
		case board.Checkmate:
			if p.SideToMove() != board.Black {
				t.Fatalf("White was mated?! %s", p.FEN())
			}
			t.Logf("mate in %d plies: %v", ply, moves)
			return
		case board.Ongoing:
		default:
			t.Fatalf("game ended in %v after %d plies at %s: %v", o, ply, p.FEN(), moves)
		}
		e, lim := attacker, search.Limits{Nodes: 20000}
		if p.SideToMove() == board.Black {
			e, lim = defender, search.Limits{Nodes: 3000}
		}
		r := e.Search(p, lim, nil)
		if r.BestMove == board.NullMove {
			t.Fatalf("no move at %s", p.FEN())
		}
		moves = append(moves, r.BestMove.String())
		p.MakeMove(r.BestMove)
		if p.PiecesOfType(board.Queen)|p.PiecesOfType(board.Rook) == 0 {
			t.Fatalf("the lone king won the piece after %v", moves)
		}
	}
}
