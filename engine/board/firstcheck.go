package board

// FirstCheck returns the index of the first move in moves that gives check,
// as GivesCheck reports it, or -1 when none does. The moves must be legal
// in p. Most moves are ruled out by two bit tests, so scanning a long list
// for its few checks costs much less than calling GivesCheck on each.
func (p *Position) FirstCheck(moves []Move) int {
	ci := p.checkInfo()
	disc := ci.discoverers
	for i, m := range moves {
		if m&kindMask == kindNormal && !ci.checkSquares[p.board[m.From()]&15].Has(m.To()) && !disc.Has(m.From()) {
			continue
		}
		if p.GivesCheck(m) {
			return i
		}
	}
	return -1
}
