package search

import (
	"slices"

	"chessforge/engine/board"
)

// QuietPV returns the principal variation of a quiescence search from pos:
// the captures and promotions (or evasions, in check) that lead to the quiet
// position whose static evaluation the quiescence search trusts, and that
// position's score for the side to move at pos. Texel tuning resolves each
// training position this way. pos is not modified. Each goroutine needs its
// own Engine.
func (e *Engine) QuietPV(pos *board.Position) ([]board.Move, int) {
	w := e.workers[0]
	w.pos = pos.Clone()
	w.rootPly = pos.Ply()
	w.limits = Limits{}
	w.tm = timeManager{}
	w.stopped = false
	w.completed = 1
	w.singleNodeLimit = 0
	e.stop.Store(false)
	s := w.quiescence(-Infinity, Infinity, 0, true)
	return slices.Clone(w.pv[0][:w.pvLen[0]]), s
}
