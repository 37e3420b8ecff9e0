package board

// Legal move generation. Moves are generated legal directly: pinned pieces
// move only along their pin line, a single check restricts the other pieces
// to capturing the checker or blocking, a double check leaves only king
// moves, king moves are tested against attacks with the king lifted off the
// board, and en passant is tested by playing it out on the bitboards (it can
// uncover a check along the rank).

// genMode selects which legal moves generate adds.
type genMode uint8

const (
	genAll      genMode = iota
	genCaptures         // captures and promotions
	genQuiets           // everything else: no capture, no promotion
)

// GenerateLegal fills list with every legal move.
func (p *Position) GenerateLegal(list *MoveList) {
	list.N = 0
	p.generate(list, genAll)
}

// GenerateCaptures fills list with the legal captures and promotions (all
// promotions, captures or not): the moves a quiescence search looks at. In
// check it generates every legal evasion, as quiescence must.
func (p *Position) GenerateCaptures(list *MoveList) {
	list.N = 0
	if p.InCheck() {
		p.generate(list, genAll)
		return
	}
	p.generate(list, genCaptures)
}

// GenerateQuiets fills list with the legal moves that neither capture nor
// promote (castling included): with GenerateCaptures outside check, every
// legal move exactly once. A search generates them only when the captures
// have not already produced a cutoff.
func (p *Position) GenerateQuiets(list *MoveList) {
	list.N = 0
	p.generate(list, genQuiets)
}

// HasLegalMove reports whether the side to move has any legal move.
func (p *Position) HasLegalMove() bool {
	var list MoveList
	p.generate(&list, genAll)
	return list.N > 0
}

// IsCheckmate reports whether the side to move is checkmated.
func (p *Position) IsCheckmate() bool { return p.InCheck() && !p.HasLegalMove() }

// IsStalemate reports whether the side to move has no legal move and is not in check.
func (p *Position) IsStalemate() bool { return !p.InCheck() && !p.HasLegalMove() }

// pinned returns our pieces pinned against our king.
func (p *Position) pinned(us Color, ksq Square) Bitboard {
	them := p.colors[us.Other()]
	occ := p.Occupied()
	snipers := (RookAttacks(ksq, 0)&(p.pieces[Rook]|p.pieces[Queen]) |
		BishopAttacks(ksq, 0)&(p.pieces[Bishop]|p.pieces[Queen])) & them
	var pinned Bitboard
	for snipers != 0 {
		s := snipers.PopLSB()
		b := betweenBB[ksq][s] & occ
		if b != 0 && !b.More() {
			pinned |= b & p.colors[us]
		}
	}
	return pinned
}

// attackedAfterKingMove reports whether colour by attacks s when the
// occupancy is occ (the moving king already lifted off).
func (p *Position) attackedWith(s Square, by Color, occ Bitboard) bool {
	them := p.colors[by]
	return knightAttacks[s]&p.pieces[Knight]&them != 0 ||
		pawnAttacks[by.Other()][s]&p.pieces[Pawn]&them != 0 ||
		kingAttacks[s]&p.pieces[King]&them != 0 ||
		BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen])&them != 0 ||
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])&them != 0
}

func (p *Position) generate(list *MoveList, mode genMode) {
	us, them := p.side, p.side.Other()
	ours, theirs := p.colors[us], p.colors[them]
	occ := ours | theirs
	ksq := p.KingSquare(us)
	checkers := p.st.checkers

	// King moves.
	kingTargets := kingAttacks[ksq] &^ ours
	switch mode {
	case genCaptures:
		kingTargets &= theirs
	case genQuiets:
		kingTargets &^= theirs
	}
	occNoKing := occ &^ SquareBB(ksq)
	for kingTargets != 0 {
		to := kingTargets.PopLSB()
		if !p.attackedWith(to, them, occNoKing) {
			list.add(NewMove(ksq, to))
		}
	}
	if checkers.More() {
		return
	}

	// The squares other pieces may move to: anywhere not ours, or, in
	// check, the checker and the squares between it and the king.
	target := ^ours
	if checkers != 0 {
		c := checkers.LSB()
		target = betweenBB[ksq][c] | checkers
	}
	captureTarget := target & theirs
	moveTarget := target
	switch mode {
	case genCaptures:
		moveTarget = captureTarget
	case genQuiets:
		moveTarget = target &^ theirs
	}
	pinned := p.pinnedPieces()

	p.generatePawnMoves(list, us, pinned, ksq, target, mode)

	for b := p.pieces[Knight] & ours &^ pinned; b != 0; {
		from := b.PopLSB()
		for t := knightAttacks[from] & moveTarget; t != 0; {
			list.add(NewMove(from, t.PopLSB()))
		}
	}
	for b := (p.pieces[Bishop] | p.pieces[Queen]) & ours; b != 0; {
		from := b.PopLSB()
		t := BishopAttacks(from, occ) & moveTarget
		if pinned.Has(from) {
			t &= lineBB[ksq][from]
		}
		for t != 0 {
			list.add(NewMove(from, t.PopLSB()))
		}
	}
	for b := (p.pieces[Rook] | p.pieces[Queen]) & ours; b != 0; {
		from := b.PopLSB()
		t := RookAttacks(from, occ) & moveTarget
		if pinned.Has(from) {
			t &= lineBB[ksq][from]
		}
		for t != 0 {
			list.add(NewMove(from, t.PopLSB()))
		}
	}

	if mode == genCaptures || checkers != 0 {
		return
	}
	p.generateCastling(list, us, occ)
}

func (p *Position) generateCastling(list *MoveList, us Color, occ Bitboard) {
	them := us.Other()
	cr := p.st.castle
	if us == White {
		if cr&WhiteKingside != 0 && occ&(SquareBB(F1)|SquareBB(G1)) == 0 &&
			!p.attackedWith(F1, them, occ) && !p.attackedWith(G1, them, occ) {
			list.add(newCastling(E1, G1))
		}
		if cr&WhiteQueenside != 0 && occ&(SquareBB(B1)|SquareBB(C1)|SquareBB(D1)) == 0 &&
			!p.attackedWith(D1, them, occ) && !p.attackedWith(C1, them, occ) {
			list.add(newCastling(E1, C1))
		}
		return
	}
	if cr&BlackKingside != 0 && occ&(SquareBB(F8)|SquareBB(G8)) == 0 &&
		!p.attackedWith(F8, them, occ) && !p.attackedWith(G8, them, occ) {
		list.add(newCastling(E8, G8))
	}
	if cr&BlackQueenside != 0 && occ&(SquareBB(B8)|SquareBB(C8)|SquareBB(D8)) == 0 &&
		!p.attackedWith(D8, them, occ) && !p.attackedWith(C8, them, occ) {
		list.add(newCastling(E8, C8))
	}
}

func addPromotions(list *MoveList, from, to Square) {
	list.add(NewPromotion(from, to, Queen))
	list.add(NewPromotion(from, to, Knight))
	list.add(NewPromotion(from, to, Rook))
	list.add(NewPromotion(from, to, Bishop))
}

// generatePawnMoves adds pawn pushes, captures, promotions and en passant.
// target is the set of squares allowed by check (all non-own squares when
// not in check). Pawns that are not pinned move in bulk; a pinned pawn (rare)
// goes through the same code with its targets cut down to the pin line.
func (p *Position) generatePawnMoves(list *MoveList, us Color, pinned Bitboard, ksq Square, target Bitboard, mode genMode) {
	pawns := p.pieces[Pawn] & p.colors[us]
	p.addPawnMoves(list, us, pawns&^pinned, target, mode)
	for b := pawns & pinned; b != 0; {
		from := b.PopLSB()
		p.addPawnMoves(list, us, SquareBB(from), target&lineBB[ksq][from], mode)
	}

	// En passant: verified by playing it out on the bitboards.
	if p.st.epHashed && mode != genQuiets {
		for b := pawnAttacks[us.Other()][p.st.ep] & pawns; b != 0; {
			if from := b.PopLSB(); p.enPassantSafe(from) {
				list.add(newEnPassant(from, p.st.ep))
			}
		}
	}
}

// addPawnMoves adds the pushes, captures and promotions (en passant aside)
// of the pawns in pawns that land on squares in allowed.
func (p *Position) addPawnMoves(list *MoveList, us Color, pawns, allowed Bitboard, mode genMode) {
	empty := ^p.Occupied()
	enemies := p.colors[us.Other()] & allowed
	// up, dw and de are the steps of a push and of the captures towards the
	// a-file and the h-file.
	var single, double, west, east Bitboard
	var up, dw, de Square
	promoRank := Rank8
	if us == White {
		single = pawns << 8 & empty
		double = (single & Rank3) << 8 & empty
		west, east = (pawns&^FileA)<<7&enemies, (pawns&^FileH)<<9&enemies
		up, dw, de = 8, 7, 9
	} else {
		single = pawns >> 8 & empty
		double = (single & Rank6) >> 8 & empty
		west, east = (pawns&^FileA)>>9&enemies, (pawns&^FileH)>>7&enemies
		up, dw, de = -8, -9, -7
		promoRank = Rank1
	}
	single &= allowed

	if mode != genQuiets {
		for b := single & promoRank; b != 0; {
			to := b.PopLSB()
			addPromotions(list, to-up, to)
		}
	}
	if mode != genCaptures {
		for b := single &^ promoRank; b != 0; {
			to := b.PopLSB()
			list.add(NewMove(to-up, to))
		}
		for b := double & allowed; b != 0; {
			to := b.PopLSB()
			list.add(NewMove(to-2*up, to))
		}
	}
	if mode == genQuiets {
		return
	}
	for b := west; b != 0; {
		to := b.PopLSB()
		if promoRank.Has(to) {
			addPromotions(list, to-dw, to)
		} else {
			list.add(NewMove(to-dw, to))
		}
	}
	for b := east; b != 0; {
		to := b.PopLSB()
		if promoRank.Has(to) {
			addPromotions(list, to-de, to)
		} else {
			list.add(NewMove(to-de, to))
		}
	}
}
