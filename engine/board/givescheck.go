package board

// GivesCheck reports whether the legal move m checks the opponent's king,
// directly or by uncovering a slider, without making it (castling, en
// passant and promotions, which are rare, are played out).
func (p *Position) GivesCheck(m Move) bool {
	if m&kindMask != kindNormal {
		p.MakeMove(m)
		c := p.InCheck()
		p.UnmakeMove()
		return c
	}
	us := p.side
	ksq := p.KingSquare(us.Other())
	from, to := m.From(), m.To()
	pt := p.board[from].Type()
	switch pt {
	case Pawn:
		if pawnAttacks[us][to].Has(ksq) {
			return true
		}
	case Knight:
		if knightAttacks[to].Has(ksq) {
			return true
		}
	}
	// Any other check is along a line: from a slider landing on a line
	// through the king, or uncovered by leaving one.
	slider := pt == Bishop || pt == Rook || pt == Queen
	if lineBB[ksq][from] == 0 && (!slider || lineBB[ksq][to] == 0) {
		return false
	}
	occ := p.Occupied()&^SquareBB(from) | SquareBB(to)
	rq := (p.pieces[Rook] | p.pieces[Queen]) & p.colors[us] &^ SquareBB(from)
	bq := (p.pieces[Bishop] | p.pieces[Queen]) & p.colors[us] &^ SquareBB(from)
	if pt == Rook || pt == Queen {
		rq |= SquareBB(to)
	}
	if pt == Bishop || pt == Queen {
		bq |= SquareBB(to)
	}
	return RookAttacks(ksq, occ)&rq != 0 || BishopAttacks(ksq, occ)&bq != 0
}
