package search

import "chessforge/engine/board"

// seeValue is the material value of each piece type for static exchange
// evaluation and capture ordering, from params (see setParams).
var seeValue [7]int

// moveGain returns the material a move wins outright (captured piece plus
// promotion gain), ignoring recapture.
func moveGain(p *board.Position, m board.Move) int {
	g := 0
	if m.IsEnPassant() {
		g = seeValue[board.Pawn]
	} else if !m.IsCastling() {
		g = seeValue[p.PieceAt(m.To()).Type()]
	}
	if m.IsPromotion() {
		g += seeValue[m.Promotion()] - seeValue[board.Pawn]
	}
	return g
}

// seeGE reports whether the static exchange on m's target square wins at
// least threshold centipawns for the side making m. Each side recaptures
// with its least valuable attacker, sliders behind the capturers are
// uncovered as pieces leave, and a side may stop capturing when that is
// better for it.
func seeGE(p *board.Position, m board.Move, threshold int) bool {
	if m.IsCastling() || m.IsPromotion() || m.IsEnPassant() {
		return moveGain(p, m) >= threshold
	}
	from, to := m.From(), m.To()
	swap := seeValue[p.PieceAt(to).Type()] - threshold
	if swap < 0 {
		return false
	}
	swap = seeValue[p.PieceAt(from).Type()] - swap
	if swap <= 0 {
		return true
	}
	occ := p.Occupied() &^ board.SquareBB(from) &^ board.SquareBB(to)
	stm := p.SideToMove()
	attackers := p.AttackersTo(to, occ) & occ
	bishops := p.PiecesOfType(board.Bishop) | p.PiecesOfType(board.Queen)
	rooks := p.PiecesOfType(board.Rook) | p.PiecesOfType(board.Queen)
	res := 1
	for {
		stm = stm.Other()
		attackers &= occ
		mine := attackers & p.Occupancy(stm)
		if mine == 0 {
			break
		}
		res ^= 1
		var pt board.PieceType
		for pt = board.Pawn; pt <= board.King; pt++ {
			if mine&p.PiecesOfType(pt) != 0 {
				break
			}
		}
		if pt == board.King {
			// The king may only take last: if the other side still attacks, it cannot.
			if attackers&p.Occupancy(stm.Other()) != 0 {
				res ^= 1
			}
			break
		}
		swap = seeValue[pt] - swap
		if swap < res {
			break
		}
		b := mine & p.PiecesOfType(pt)
		occ &^= board.SquareBB(b.LSB())
		switch pt {
		case board.Pawn, board.Bishop:
			attackers |= board.BishopAttacks(to, occ) & bishops
		case board.Rook:
			attackers |= board.RookAttacks(to, occ) & rooks
		case board.Queen:
			attackers |= board.BishopAttacks(to, occ)&bishops | board.RookAttacks(to, occ)&rooks
		}
	}
	return res == 1
}
