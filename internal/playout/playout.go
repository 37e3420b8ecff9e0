// Package playout plays quick games of random and greedy moves: a cheap,
// reproducible source of realistic positions for the tests and benchmarks of
// the encoder and the dataset files. It is internal to the module, at its
// root so that both encoder's tests and datasets' fixtures (datasets/fixture,
// datasets/internal/gendata) can import it; it is no part of either API.
package playout

import (
	"math/rand/v2"

	"chessforge/engine/board"
)

// pieceValue is a plain material scale in centipawns, by piece type.
var pieceValue = [board.NoPieceType + 1]int{100, 300, 320, 500, 900, 0, 0}

// Material returns White's material minus Black's in centipawns.
func Material(pos *board.Position) int {
	s := 0
	for t := board.Pawn; t < board.King; t++ {
		s += pieceValue[t] * (pos.Pieces(board.White, t).Count() - pos.Pieces(board.Black, t).Count())
	}
	return s
}

// Greedy returns the move a one-ply material policy prefers: the capture or
// promotion that wins most material, or a random move when none gains any.
// It returns board.NullMove when pos has no legal move.
func Greedy(pos *board.Position, rng *rand.Rand) board.Move {
	var list board.MoveList
	pos.GenerateLegal(&list)
	if list.N == 0 {
		return board.NullMove
	}
	best, bestGain := list.Moves[rng.IntN(list.N)], 0
	for _, m := range list.Moves[:list.N] {
		gain := 0
		if to := pos.PieceAt(m.To()); to != board.NoPiece {
			gain += pieceValue[to.Type()]
		} else if m.IsEnPassant() {
			gain += pieceValue[board.Pawn]
		}
		if m.IsPromotion() {
			gain += pieceValue[m.Promotion()] - pieceValue[board.Pawn]
		}
		if gain > bestGain {
			best, bestGain = m, gain
		}
	}
	return best
}

// Random returns a uniformly random legal move, or board.NullMove when there
// is none.
func Random(pos *board.Position, rng *rand.Rand) board.Move {
	var list board.MoveList
	pos.GenerateLegal(&list)
	if list.N == 0 {
		return board.NullMove
	}
	return list.Moves[rng.IntN(list.N)]
}

// Ply is one position of a played game and what was played from it.
type Ply struct {
	Move  board.Move // the move played
	Best  board.Move // the greedy policy's choice (played with probability greedyShare)
	Score int        // material from White's point of view, in centipawns
}

// Play plays one game from the start position: at each ply the greedy move
// with probability greedyShare, otherwise a random one, until the rules end
// the game or maxPlies moves are made. It returns the final position (whose
// history holds every move), the plies, and the outcome (board.Ongoing when
// the ply cap stopped it). The same rng state gives the same game.
func Play(rng *rand.Rand, maxPlies int, greedyShare float64) (*board.Position, []Ply, board.Outcome) {
	pos := board.NewPosition()
	var plies []Ply
	for len(plies) < maxPlies {
		if o := pos.Outcome(); o != board.Ongoing {
			return pos, plies, o
		}
		best := Greedy(pos, rng)
		m := best
		if rng.Float64() >= greedyShare {
			m = Random(pos, rng)
		}
		plies = append(plies, Ply{Move: m, Best: best, Score: Material(pos)})
		pos.MakeMove(m)
	}
	return pos, plies, pos.Outcome()
}
