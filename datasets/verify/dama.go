package verify

import (
	"fmt"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/dama"
)

// damaReplay replays draughts games (see the package comment).
type damaReplay struct {
	pos  *dama.Position
	next dama.Move // the previous row's move
}

func (d *damaReplay) start(fen string) error {
	pos, err := dama.ParseFEN(fen)
	d.pos = pos
	return err
}

func (d *damaReplay) advance() string {
	d.pos.MakeMove(d.next)
	return d.pos.FEN()
}

// exact reports whether the position's quiet-ply count, and so the
// positions that may repeat, are known: the chain starts at the game's
// first position, or a capture has been made in it (a position set up from
// a PDN FEN counts its quiet plies from 0).
func (d *damaReplay) exact(v *verifier, ply int32) bool {
	return v.chainStart == 0 || d.pos.QuietPlies() < int(ply-v.chainStart)
}

func (d *damaReplay) check(v *verifier, b *datasets.Batch, i int) bool {
	pos, ply := d.pos, b.Ply[i]
	// What the rules decide from a partial history still holds: more
	// history only adds quiet plies and earlier positions.
	if o := pos.Outcome(); o != dama.Ongoing {
		v.problem("the game is already over by the rules (%s) in this position", o)
	}
	n := encoder.Dama.InputSize()
	encoder.EncodeDama(v.derived[:n], pos)
	exact := d.exact(v, ply)
	if !exact {
		v.rep.PartialHistory++
	}
	v.comparePlanes(b.Planes[i*n:(i+1)*n], exact, encoder.DamaPlaneRepetition, encoder.DamaPlaneQuiet)

	move, err := d.parse("move", b.Move[i])
	if err != nil {
		v.problem("%v", err)
	}
	best, berr := d.parse("best_move", b.BestMove[i])
	if berr != nil {
		v.problem("%v", berr)
	} else {
		if p, err := encoder.DamaPolicyIndex(best); err != nil || int32(p) != b.Policy[i] {
			v.problem("policy is %d, best_move %s has index %d", b.Policy[i], b.BestMove[i], p)
		}
		if len(b.BestIsCapture) > 0 && b.BestIsCapture[i] != best.IsCapture() {
			v.problem("best_is_capture is %v, best_move %s gives %v", b.BestIsCapture[i], b.BestMove[i], best.IsCapture())
		}
		if len(b.BestIsPromotion) > 0 && b.BestIsPromotion[i] != best.Crowns() {
			v.problem("best_is_promotion is %v, best_move %s gives %v (it crowns a man)", b.BestIsPromotion[i], b.BestMove[i], best.Crowns())
		}
	}
	if len(b.InCheck) > 0 && b.InCheck[i] {
		v.problem("in_check is true; draughts has no check")
	}
	if err != nil {
		return false // the game cannot be followed past an illegal move
	}
	d.next = move
	return true
}

// parse reads a column's move, which must be a legal move of the
// position written in full (every landing square).
func (d *damaReplay) parse(column, text string) (dama.Move, error) {
	m, err := d.pos.ParseMove(text)
	if err != nil {
		return dama.NullMove, fmt.Errorf("%s: %v", column, err)
	}
	if m.String() != text {
		return dama.NullMove, fmt.Errorf("%s %q is not written in full: %s", column, text, m)
	}
	return m, nil
}

func (d *damaReplay) end(v *verifier, last *lastRow) {
	if !last.hasEnd {
		return // a file without the termination and result columns
	}
	pos := d.pos
	pos.MakeMove(d.next)
	defer pos.UnmakeMove()
	o := pos.Outcome()
	exact := d.exact(v, v.ply+1)
	term, result := last.termination, last.result
	switch term {
	case datasets.TerminationNoMoves, datasets.TerminationThreefold, datasets.TerminationFortyMove:
		wantTerm, wantResult := datasets.DamaRuleTermination(o, pos.SideToMove())
		switch {
		case o == dama.Ongoing && (exact || term == datasets.TerminationNoMoves):
			v.problem("termination %s, but the game goes on after the last row's move", term)
		case o == dama.Ongoing:
			// A draw the partial history cannot show.
		case wantTerm != term && !(term == datasets.TerminationThreefold && o == dama.DrawQuiet && !exact):
			v.problem("termination %s, but the rules end the game with %s after the last row's move", term, wantTerm)
		case result != wantResult:
			v.problem("result %v, but %s after the last row's move gives %v", result, wantTerm, wantResult)
		}
	case datasets.TerminationAdjudicatedWin, datasets.TerminationAdjudicatedDraw, datasets.TerminationPlyCap:
		if o != dama.Ongoing {
			v.problem("termination %s, but the rules end the game (%s) after the last row's move", term, o)
		}
		if draw := term != datasets.TerminationAdjudicatedWin; draw != (result == 0.5) {
			v.problem("termination %s with result %v", term, result)
		}
	default:
		v.problem("termination %s is not a way a game of draughts ends", term)
	}
}
