package nnue

import (
	"fmt"

	"chessforge/engine/board"
)

// The pawn table: a network's score is scaled by the pawns of the side it
// favours, as an advantage with few pawns is converted far less often than
// the same score with many. Each network carries its own table (format
// version 3), fitted to its own scores by `chessforge-nnue pawnscale
// --network FILE --write`: a network trained on scores the table had
// already scaled needs less of it, and one table for every network would
// count that part twice.
const (
	// PawnGroups is the number of entries of a pawn table: the side
	// ahead has 0, 1, 2, 3, or 4 or more pawns.
	PawnGroups = 5
	// PawnScaleOne is the table's unit: an entry of PawnScaleOne leaves a
	// score as it is.
	PawnScaleOne = 128
	// PawnScaleMax is the largest entry: twice the unit, so that a network
	// whose scores run smaller than the search's scale (one trained at a
	// score scale K below the one its data's scores were searched at) can
	// be raised to it, as a larger one is lowered. A score stays within
	// twice the evaluation's bound (eval.MaxEval), far from mate scores.
	PawnScaleMax = 2 * PawnScaleOne
)

// legacyPawnScale is the table of files before version 3, which carry
// none: the one the engine applied to every network until then. It was
// measured on the self-play that trained 0f25171c72e00a16 (22 M positions)
// by fitting the game result of the side ahead to sigmoid(score/K) for
// each pawn count: K 730, 322, 206, 158 and 145 for 0, 1, 2, 3 and 4 or
// more pawns, so that a score with one pawn is worth 0.45 of the same score
// with four, with two 0.70, with three 0.92 (58, 91 and 120 of 128 in a
// first fit on a quarter of the data, the values its match was played
// with). No pawns gets one pawn's entry: the hand-crafted evaluation's
// drawish-material scales already apply there (eval.Endgame), and a
// smaller one would make the side ahead keep its last pawn rather than
// promote it.
var legacyPawnScale = [PawnGroups]int{58, 58, 91, 120, PawnScaleOne}

// PawnScale returns the network's pawn table: entry n (of PawnScaleOne)
// scales a score whose side ahead has n pawns (the last entry: that many
// or more).
func (n *Network) PawnScale() [PawnGroups]int { return n.pawnScale }

// SetPawnScale sets the pawn table of a network built in memory (Random
// gives the table of files before version 3). Call Seal or Write after it:
// the table is part of the hashed payload.
func (n *Network) SetPawnScale(table [PawnGroups]int) error {
	if err := checkPawnScale(table); err != nil {
		return fmt.Errorf("nnue: %w", err)
	}
	n.pawnScale = table
	return nil
}

// checkPawnScale reports what is wrong with a pawn table: an entry below 1
// or above PawnScaleMax, or one below the entry for fewer pawns (more pawns
// never make an advantage worth less).
func checkPawnScale(table [PawnGroups]int) error {
	for i, s := range table {
		if s < 1 || s > PawnScaleMax {
			return fmt.Errorf("pawn table %v: entry %d is %d, want 1 to %d", table, i, s, PawnScaleMax)
		}
		if i > 0 && s < table[i-1] {
			return fmt.Errorf("pawn table %v: entry %d (%d) is below entry %d (%d), want non-decreasing", table, i, s, i-1, table[i-1])
		}
	}
	return nil
}

// ScaleByPawns scales v, a score of p from the side to move's point of
// view, by the pawn table's entry for the pawns of the side it favours. It
// allocates nothing.
func (n *Network) ScaleByPawns(p *board.Position, v int) int {
	favoured := p.SideToMove()
	if v < 0 {
		favoured = favoured.Other()
	}
	pawns := min((p.PiecesOfType(board.Pawn) & p.Occupancy(favoured)).Count(), PawnGroups-1)
	return v * n.pawnScale[pawns] / PawnScaleOne
}
