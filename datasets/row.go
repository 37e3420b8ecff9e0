package datasets

import (
	"fmt"

	"chessforge/encoder"
	"chessforge/engine/board"
)

// SetPosition fills the columns of r that follow from the position alone:
// FEN, Planes (with pos's game history, for the repetition plane), Ply (the
// moves made on pos since it was set up, plus startPly for a game that began
// from a later position), InCheck, Move, BestMove, Policy, BestIsCapture and
// BestIsPromotion. played and best must be legal in pos. The caller sets the
// search columns (ScoreCP, Depth, Nodes) and, once the game ends, GameID,
// Result and Termination.
func (r *Row) SetPosition(pos *board.Position, startPly int, played, best board.Move) error {
	if !pos.IsLegal(played) {
		return fmt.Errorf("datasets: move played %v is not legal in %s", played, pos.FEN())
	}
	if !pos.IsLegal(best) {
		return fmt.Errorf("datasets: best move %v is not legal in %s", best, pos.FEN())
	}
	policy, err := encoder.PolicyIndex(best)
	if err != nil {
		return err
	}
	r.Ply = int32(startPly + pos.Ply())
	r.FEN = pos.FEN()
	encoder.EncodeTo(&r.Planes, pos)
	r.InCheck = pos.InCheck()
	r.Move = played.String()
	r.BestMove = best.String()
	r.Policy = int32(policy)
	r.BestIsCapture = pos.IsCapture(best)
	r.BestIsPromotion = best.IsPromotion()
	return nil
}

// check reports the first field of r that no valid row can hold.
func (r *Row) check() error {
	switch {
	case r.Ply < 0:
		return fmt.Errorf("ply %d is negative", r.Ply)
	case r.FEN == "":
		return fmt.Errorf("fen is empty")
	case r.Move == "":
		return fmt.Errorf("move is empty")
	case r.BestMove == "":
		return fmt.Errorf("best_move is empty")
	case r.Policy < 0 || r.Policy >= encoder.PolicySize:
		return fmt.Errorf("policy %d out of range [0, %d)", r.Policy, encoder.PolicySize)
	case r.Result != 0 && r.Result != 0.5 && r.Result != 1:
		return fmt.Errorf("result %v is not 0, 0.5 or 1", r.Result)
	case r.Termination == TerminationUnknown || r.Termination >= numTerminations:
		return fmt.Errorf("termination not set")
	}
	return nil
}
