package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// openingOrder returns the order in which to play n openings for a given
// seed: a permutation that the same seed always reproduces.
func openingOrder(n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e696e6773))
	return rng.Perm(n)
}

// RandomOpenings makes n openings of the given number of random legal plies
// from the standard position. Lines that end the game early are drawn
// again. The same seed gives the same openings.
func RandomOpenings(n, plies int, seed uint64) []pgn.Opening {
	rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d))
	out := make([]pgn.Opening, 0, n)
	var list board.MoveList
	for len(out) < n {
		pos := board.NewPosition()
		moves := playRandom(pos, rng, &list, plies, make([]board.Move, 0, plies))
		if len(moves) < plies || pos.Outcome() != board.Ongoing {
			continue
		}
		out = append(out, pgn.Opening{Moves: moves, Name: fmt.Sprintf("random %d", len(out)+1)})
	}
	return out
}

// ExtendOpenings returns n openings: the given ones, then, as often as
// needed, each of them again followed by plies random legal moves (drawn
// anew for every copy), so that a long match does not replay the same lines.
// The same seed gives the same openings.
func ExtendOpenings(openings []pgn.Opening, n, plies int, seed uint64) []pgn.Opening {
	out := slices.Clone(openings[:min(n, len(openings))])
	rng := rand.New(rand.NewPCG(seed, 0x657874656e64))
	var list board.MoveList
	for round := 1; len(out) < n; round++ {
		for _, o := range openings {
			if len(out) == n {
				break
			}
			for {
				pos, err := o.End()
				if err != nil {
					break // a bad opening is reported when it is played
				}
				moves := playRandom(pos, rng, &list, plies, slices.Clone(o.Moves))
				if pos.Outcome() != board.Ongoing || len(moves) != len(o.Moves)+plies {
					continue
				}
				added := make([]string, plies)
				for i, m := range moves[len(o.Moves):] {
					added[i] = m.String()
				}
				out = append(out, pgn.Opening{FEN: o.FEN, Moves: moves, Name: fmt.Sprintf("%s + %s", o.Name, strings.Join(added, " "))})
				break
			}
		}
	}
	return out
}

// playRandom plays up to plies random legal moves on pos, appending them to
// moves; it stops early when the game ends.
func playRandom(pos *board.Position, rng *rand.Rand, list *board.MoveList, plies int, moves []board.Move) []board.Move {
	for range plies {
		pos.GenerateLegal(list)
		if list.N == 0 {
			break
		}
		m := list.Moves[rng.IntN(list.N)]
		moves = append(moves, m)
		pos.MakeMove(m)
	}
	return moves
}
