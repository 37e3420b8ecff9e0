package board

// IsLegal reports whether m is a legal move in the position. Any 16-bit
// value may be asked about (a move from a hash table may belong to another
// position): it is legal exactly when GenerateLegal would produce it. It
// decides without generating the moves, so a search can try a remembered
// move before generating any.
func (p *Position) IsLegal(m Move) bool {
	if m == NullMove {
		return false
	}
	us, them := p.side, p.side.Other()
	from, to := m.From(), m.To()
	pc := p.board[from]
	if pc == NoPiece || pc.Color() != us {
		return false
	}
	ours, theirs := p.colors[us], p.colors[them]
	occ := ours | theirs
	ksq := p.KingSquare(us)
	checkers := p.st.checkers
	t := pc.Type()
	if m&kindMask != kindPromotion && m>>12&3 != 0 {
		return false // promotion bits on a move that does not promote
	}

	switch m & kindMask {
	case kindCastling:
		if t != King || checkers != 0 {
			return false
		}
		var list MoveList
		p.generateCastling(&list, us, occ)
		for _, c := range list.Slice() {
			if c == m {
				return true
			}
		}
		return false
	case kindEnPassant:
		return t == Pawn && p.st.epHashed && to == p.st.ep &&
			pawnAttacks[us][from].Has(to) && p.enPassantSafe(from)
	case kindPromotion:
		if t != Pawn || !promotionRank(us).Has(to) || !p.pawnReaches(us, from, to, theirs, occ) {
			return false
		}
	default:
		if ours.Has(to) {
			return false
		}
		switch t {
		case Pawn:
			if promotionRank(us).Has(to) || !p.pawnReaches(us, from, to, theirs, occ) {
				return false
			}
		case King:
			return kingAttacks[from].Has(to) && !p.attackedWith(to, them, occ&^SquareBB(from))
		case Knight:
			if !knightAttacks[from].Has(to) {
				return false
			}
		case Bishop:
			if !BishopAttacks(from, occ).Has(to) {
				return false
			}
		case Rook:
			if !RookAttacks(from, occ).Has(to) {
				return false
			}
		case Queen:
			if !QueenAttacks(from, occ).Has(to) {
				return false
			}
		}
	}

	// A move by a piece other than the king: it must deal with a check and
	// must not leave a pin line.
	if checkers != 0 {
		if checkers.More() {
			return false
		}
		if !(betweenBB[ksq][checkers.LSB()] | checkers).Has(to) {
			return false
		}
	}
	return !p.pinnedPieces().Has(from) || lineBB[ksq][from].Has(to)
}

// pawnReaches reports whether a pawn of colour us on from can move to to by
// a push (single, or double from its first rank) or a capture, promotion
// rank aside.
func (p *Position) pawnReaches(us Color, from, to Square, theirs, occ Bitboard) bool {
	if pawnAttacks[us][from].Has(to) {
		return theirs.Has(to)
	}
	up := Square(8)
	start := Rank2
	if us == Black {
		up, start = -8, Rank7
	}
	if occ.Has(to) {
		return false
	}
	if to == from+up {
		return true
	}
	return to == from+2*up && start.Has(from) && !occ.Has(from+up)
}

func promotionRank(c Color) Bitboard {
	if c == White {
		return Rank8
	}
	return Rank1
}
