package board

// GivesCheck reports whether the legal move m checks the opponent's king,
// directly or by uncovering a slider, without making it (castling, en
// passant and promotions, which are rare, are played out). The squares that
// give check and the pieces that may uncover one are computed once per
// position, on the first call.
func (p *Position) GivesCheck(m Move) bool {
	if m&kindMask != kindNormal {
		p.MakeMove(m)
		c := p.InCheck()
		p.UnmakeMove()
		return c
	}
	ci := p.checkInfo()
	from, to := m.From(), m.To()
	if ci.checkSquares[p.board[from]&15].Has(to) {
		return true
	}
	// A discovered check: the piece leaves the line between one of our
	// sliders and the king.
	return ci.discoverers.Has(from) && !lineBB[p.KingSquare(p.side.Other())][from].Has(to)
}
