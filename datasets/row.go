package datasets

import (
	"fmt"
	"slices"

	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
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

// SetDamaPosition fills the columns of a draughts row r (a file of layout
// encoder.Dama) that follow from the position alone, as SetPosition does
// for chess: FEN (PDN), Planes (the first encoder.Dama.InputSize() values,
// the rest zero; the repetition plane from pos's game history), Ply (the
// moves made on pos since it was set up, plus startPly), Move and BestMove
// in standard notation, Policy (encoder.DamaPolicyIndex of best),
// BestIsCapture, BestIsPromotion (best crowns a man) and InCheck (always
// false: draughts has no check). played and best must be legal in pos.
func (r *Row) SetDamaPosition(pos *dama.Position, startPly int, played, best dama.Move) error {
	var list dama.MoveList
	pos.GenerateMoves(&list)
	legal := list.Slice()
	if !slices.Contains(legal, played) {
		return fmt.Errorf("datasets: move played %v is not legal in %s", played, pos.FEN())
	}
	if !slices.Contains(legal, best) {
		return fmt.Errorf("datasets: best move %v is not legal in %s", best, pos.FEN())
	}
	policy, err := encoder.DamaPolicyIndex(best)
	if err != nil {
		return err
	}
	n := encoder.Dama.InputSize()
	if err := encoder.EncodeDama(r.Planes[:n], pos); err != nil {
		return err
	}
	clear(r.Planes[n:])
	r.Ply = int32(startPly + pos.Ply())
	r.FEN = pos.FEN()
	r.InCheck = false
	r.Move = played.String()
	r.BestMove = best.String()
	r.Policy = int32(policy)
	r.BestIsCapture = best.IsCapture()
	r.BestIsPromotion = best.Crowns()
	return nil
}

// check reports the first field of r that no valid row of layout l can
// hold.
func (r *Row) check(l *encoder.Layout) error {
	switch {
	case r.Ply < 0:
		return fmt.Errorf("ply %d is negative", r.Ply)
	case r.FEN == "":
		return fmt.Errorf("fen is empty")
	case r.Move == "":
		return fmt.Errorf("move is empty")
	case r.BestMove == "":
		return fmt.Errorf("best_move is empty")
	case r.Policy < 0 || int(r.Policy) >= l.PolicySize():
		return fmt.Errorf("policy %d out of range [0, %d)", r.Policy, l.PolicySize())
	case r.Result != 0 && r.Result != 0.5 && r.Result != 1:
		return fmt.Errorf("result %v is not 0, 0.5 or 1", r.Result)
	case r.Termination == TerminationUnknown || r.Termination >= numTerminations:
		return fmt.Errorf("termination not set")
	}
	return nil
}
