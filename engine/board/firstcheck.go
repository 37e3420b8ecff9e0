package board

// FirstCheck returns the index of the first move in moves that gives check,
// as GivesCheck reports it, or -1 when none does. The moves must be legal
// in p. Most moves are ruled out by two bit tests, so scanning a long list
// for its few checks costs much less than calling GivesCheck on each.
//
// The rare moves that may give check otherwise than directly by a normal
// move (castlings, en-passant captures, promotions and moves of a piece
// that may uncover a check) go to GivesCheck from one block of their own,
// so that the loop's values are kept on the stack only on that way; a
// direct check by a normal move is answered here.
func (p *Position) FirstCheck(moves []Move) int {
	ci := p.checkInfo()
	disc := ci.discoverers
	for i, m := range moves {
		if m&kindMask != kindNormal || disc.Has(m.From()) {
			if p.GivesCheck(m) {
				return i
			}
			continue
		}
		if ci.checkSquares[p.board[m.From()]&15].Has(m.To()) {
			return i
		}
	}
	return -1
}
