package eval

import (
	"math/rand/v2"
	"testing"

	"chessforge/engine/board"
)

func TestNearestRankIsTheRelativeRankOfTheNearestSquareOrZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := []board.Bitboard{0, board.Rank1, board.Rank8, board.FileA, board.SquareBB(board.H8), board.SquareBB(board.A1)}
	for i := 0; i < 2000; i++ {
		sets = append(sets, board.Bitboard(rng.Uint64()&rng.Uint64()&rng.Uint64()))
	}
	for _, b := range sets {
		for c := board.White; c <= board.Black; c++ {
			want := 0 // empty: 0
			for r := 0; r < 8 && b != 0; r++ {
				rank := r
				if c == board.Black {
					rank = 7 - r
				}
				if b&board.RankMask(rank) != 0 {
					want = r
					break
				}
			}
			if got := nearestRank(c, b); got != want {
				t.Fatalf("nearestRank(%v, %#x) = %d, want %d", c, uint64(b), got, want)
			}
		}
	}
}
