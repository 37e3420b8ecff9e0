package search

import "chessforge/engine/board"

// Move ordering scores: the TT move first, then winning or even captures and
// queen promotions by MVV-LVA, killers and the countermove, quiet moves by
// history, losing captures, and under-promotions last.
const (
	scoreTTMove      = 1 << 30
	scoreGoodCapture = 1 << 28
	scoreKiller1     = 1 << 27
	scoreKiller2     = scoreKiller1 - 1
	scoreCounter     = scoreKiller1 - 2
	scoreBadCapture  = -(1 << 28)
	scoreUnderPromo  = -(1 << 29)
)

// movePicker hands out the moves of a node best-first by selection, checking
// the static exchange of a capture only when it is about to be tried.
type movePicker struct {
	list   board.MoveList
	scores [256]int32
	next   int
}

// mvvLVA scores a capture: most valuable victim first, then least valuable attacker.
func mvvLVA(p *board.Position, m board.Move) int32 {
	victim := board.Pawn
	if !m.IsEnPassant() {
		victim = p.PieceAt(m.To()).Type()
	}
	v := int32(0)
	if victim != board.NoPieceType {
		v = int32(seeValue[victim])
	}
	if m.IsPromotion() {
		v += int32(seeValue[board.Queen])
	}
	return v*8 - int32(p.PieceAt(m.From()).Type())
}

// initMain prepares the moves of an interior node.
func (mp *movePicker) initMain(w *worker, ply int, ttMove board.Move, ch1, ch2 *contTable) {
	p := w.pos
	p.GenerateLegal(&mp.list)
	mp.next = 0
	fr := &w.stack[ply]
	us := p.SideToMove()
	var counter board.Move
	if prev := p.LastMove(); prev != board.NullMove {
		counter = w.counter[p.PieceAt(prev.To())][prev.To()]
	}
	for i, m := range mp.list.Slice() {
		var s int32
		switch {
		case m == ttMove:
			s = scoreTTMove
		case m.IsPromotion() && m.Promotion() != board.Queen:
			s = scoreUnderPromo + int32(m.Promotion())
		case p.IsCapture(m) || m.IsPromotion():
			s = scoreGoodCapture + mvvLVA(p, m)
		case m == fr.killers[0]:
			s = scoreKiller1
		case m == fr.killers[1]:
			s = scoreKiller2
		case m == counter:
			s = scoreCounter
		default:
			s = int32(w.quietScore(us, p.PieceAt(m.From()), m, ch1, ch2))
		}
		mp.scores[i] = s
	}
}

// initQuiescence prepares the captures and promotions (or evasions in check).
func (mp *movePicker) initQuiescence(w *worker, ttMove board.Move) {
	p := w.pos
	p.GenerateCaptures(&mp.list)
	mp.next = 0
	us := p.SideToMove()
	for i, m := range mp.list.Slice() {
		var s int32
		switch {
		case m == ttMove:
			s = scoreTTMove
		case p.IsCapture(m) || m.IsPromotion():
			s = scoreGoodCapture + mvvLVA(p, m)
		default: // a quiet evasion
			s = w.history[us][m.From()][m.To()]
		}
		mp.scores[i] = s
	}
}

// pick returns the next best move, or NullMove when none is left. With
// checkSEE, a capture that loses material is moved to the back of the
// queue before it is handed out.
func (mp *movePicker) pick(p *board.Position, checkSEE bool) board.Move {
	for mp.next < mp.list.N {
		best := mp.next
		for i := mp.next + 1; i < mp.list.N; i++ {
			if mp.scores[i] > mp.scores[best] {
				best = i
			}
		}
		m := mp.list.Moves[best]
		s := mp.scores[best]
		if checkSEE && s >= scoreGoodCapture && s < scoreTTMove && !seeGE(p, m, 0) {
			mp.scores[best] = scoreBadCapture + s - scoreGoodCapture
			continue
		}
		mp.list.Moves[best], mp.list.Moves[mp.next] = mp.list.Moves[mp.next], m
		mp.scores[best], mp.scores[mp.next] = mp.scores[mp.next], s
		mp.next++
		return m
	}
	return board.NullMove
}
