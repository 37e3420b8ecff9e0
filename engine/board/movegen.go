package board

import "math/bits"

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
	p.generate(list, genAll)
}

// GenerateCaptures fills list with the legal captures and promotions (all
// promotions, captures or not): the moves a quiescence search looks at. In
// check it generates every legal evasion, as quiescence must.
func (p *Position) GenerateCaptures(list *MoveList) {
	list.N = int(p.genCaptures(&list.Moves))
}

// GenerateQuiets fills list with the legal moves that neither capture nor
// promote (castling included): with GenerateCaptures outside check, every
// legal move exactly once. A search generates them only when the captures
// have not already produced a cutoff.
func (p *Position) GenerateQuiets(list *MoveList) {
	list.N = int(p.genQuiets(&list.Moves))
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
	us, ksq = us&1, ksq&63 // in range for any valid call; no bounds check below
	them := p.colors[us^1]
	occ := p.Occupied()
	snipers := (rookRays[ksq]&(p.pieces[Rook]|p.pieces[Queen]) |
		bishopRays[ksq]&(p.pieces[Bishop]|p.pieces[Queen])) & them
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
	s, by = s&63, by&1 // in range for any valid call; no bounds check below
	them := p.colors[by]
	return knightAttacks[s]&p.pieces[Knight]&them != 0 ||
		pawnAttacks[by.Other()][s]&p.pieces[Pawn]&them != 0 ||
		kingAttacks[s]&p.pieces[King]&them != 0 ||
		BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen])&them != 0 ||
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])&them != 0
}

// genKingMoves adds the king's moves to those of targets that the enemy
// does not attack once the king has left its square: the enemy king's
// squares go in one step, and a slider's attack is looked up only when one
// stands on the target's lines on the empty board.
func (p *Position) genKingMoves(ml *[256]Move, n uint8, us Color, ksq Square, targets, occ, theirs Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	// The colour and the squares are masked or unsigned, which they are in
	// range for anyway, so that nothing is bounds-checked: the function then
	// calls nothing and needs no stack frame.
	us &= 1
	targets &^= kingAttacks[(p.pieces[King]&theirs).LSB()&63]
	occ &^= SquareBB(ksq & 63)
	knights, pawns := p.pieces[Knight]&theirs, p.pieces[Pawn]&theirs
	bq := (p.pieces[Bishop] | p.pieces[Queen]) & theirs
	rq := (p.pieces[Rook] | p.pieces[Queen]) & theirs
	from := Move(ksq & 63)
	for ; targets != 0; targets &= targets - 1 {
		to := uint(bits.TrailingZeros64(uint64(targets)))
		if knightAttacks[to]&knights != 0 || pawnAttacks[us][to]&pawns != 0 ||
			bishopRays[to]&bq != 0 && bishopAttacksFrom(to, occ)&bq != 0 ||
			rookRays[to]&rq != 0 && rookAttacksFrom(to, occ)&rq != 0 {
			continue
		}
		ml[n] = from | Move(to)<<6
		n++
	}
	return n
}

// genCaptures is GenerateCaptures: in check, every evasion from gen; out
// of check, gen(ml, genCaptures)'s moves in the same order, without the
// tests of the mode and of check. The usual case (no piece pinned, no en
// passant, no capture by the king) goes to a leaf, with no value kept
// across a call.
func (p *Position) genCaptures(ml *[256]Move) uint8 {
	if p.st.checkers != 0 {
		return p.gen(ml, genAll)
	}
	pinned := p.pinnedPieces()
	us := p.side & 1
	ours, theirs := p.colors[us], p.colors[us^1]
	if pinned == 0 && !p.st.epHashed && kingAttacks[p.KingSquare(us)&63]&theirs == 0 {
		return addFreeCaptures(ml, 0, us, p.pieces[Pawn]&ours, p.pieces[Knight]&ours,
			(p.pieces[Bishop]|p.pieces[Queen])&ours, (p.pieces[Rook]|p.pieces[Queen])&ours, theirs, ours|theirs)
	}
	return p.genCapturesSlow(ml, pinned)
}

// genCapturesSlow is genCaptures in general.
func (p *Position) genCapturesSlow(ml *[256]Move, pinned Bitboard) uint8 {
	var n uint8
	us := p.side
	ours, theirs := p.colors[us], p.colors[us.Other()]
	occ := ours | theirs
	ksq := p.KingSquare(us)
	if t := kingAttacks[ksq] & theirs; t != 0 {
		n = p.genKingMoves(ml, n, us, ksq, t, occ, theirs)
	}
	pawns := p.pieces[Pawn] & ours

	// Pawns: promotions by a push, captures (with promotion on the last
	// rank), then those of pinned pawns along their pin line, then en
	// passant.
	n = addPawnCaptures(ml, n, us, pawns&^pinned, ^ours, occ, theirs)
	for b := pawns & pinned; b != 0; {
		from := b.PopLSB()
		n = addPawnCaptures(ml, n, us, SquareBB(from), lineBB[ksq][from]&^ours, occ, theirs)
	}
	if p.st.epHashed {
		for b := pawnAttacks[us.Other()][p.st.ep] & pawns; b != 0; {
			if from := b.PopLSB(); p.enPassantSafe(from) {
				ml[n] = newEnPassant(from, p.st.ep)
				n++
			}
		}
	}

	knights := p.pieces[Knight] & ours
	diagonal := (p.pieces[Bishop] | p.pieces[Queen]) & ours
	straight := (p.pieces[Rook] | p.pieces[Queen]) & ours
	if pinned&(knights|diagonal|straight) == 0 {
		return addFreePieceMoves(ml, n, knights, diagonal, straight, theirs, occ)
	}
	return addPinnedPieceMoves(ml, n, knights&^pinned, diagonal, straight, theirs, occ, pinned, &lineBB[ksq&63])
}

// genQuiets is GenerateQuiets: in check, gen(ml, genQuiets); out of check,
// its moves in the same order, without the tests of the mode and of check.
// With no piece pinned (the usual case), the king's moves, the other
// pieces' and castling come from three calls, with only the list kept
// across them.
func (p *Position) genQuiets(ml *[256]Move) uint8 {
	if p.st.checkers != 0 {
		return p.gen(ml, genQuiets)
	}
	pinned := p.pinnedPieces()
	if pinned != 0 {
		return p.genQuietsSlow(ml, pinned)
	}
	var n uint8
	{
		us := p.side & 1
		ksq := p.KingSquare(us)
		theirs := p.colors[us^1]
		occ := p.colors[us] | theirs
		if t := kingAttacks[ksq&63] &^ occ; t != 0 {
			n = p.genKingMoves(ml, n, us, ksq, t, occ, theirs)
		}
	}
	us := p.side & 1
	ours := p.colors[us]
	occ := ours | p.colors[us^1]
	n = addFreeQuiets(ml, n, us, p.pieces[Pawn]&ours, p.pieces[Knight]&ours, (p.pieces[Bishop]|p.pieces[Queen])&ours,
		(p.pieces[Rook]|p.pieces[Queen])&ours, ^occ, occ)
	if p.st.castle&castlingRightsOf[us] == 0 {
		return n
	}
	return p.genCastling(ml, n, us, p.Occupied())
}

// genQuietsSlow is genQuiets in general.
func (p *Position) genQuietsSlow(ml *[256]Move, pinned Bitboard) uint8 {
	var n uint8
	us := p.side
	ours, theirs := p.colors[us], p.colors[us.Other()]
	occ := ours | theirs
	ksq := p.KingSquare(us)
	empty := ^occ

	if t := kingAttacks[ksq] & empty; t != 0 {
		n = p.genKingMoves(ml, n, us, ksq, t, occ, theirs)
	}
	pawns := p.pieces[Pawn] & ours

	// Pawn pushes other than promotions, then those of pinned pawns
	// along their pin line.
	n = addPawnPushes(ml, n, us, pawns&^pinned, ^ours, empty)
	for b := pawns & pinned; b != 0; {
		from := b.PopLSB()
		n = addPawnPushes(ml, n, us, SquareBB(from), lineBB[ksq][from]&^ours, empty)
	}

	knights := p.pieces[Knight] & ours
	diagonal := (p.pieces[Bishop] | p.pieces[Queen]) & ours
	straight := (p.pieces[Rook] | p.pieces[Queen]) & ours
	if pinned&(knights|diagonal|straight) == 0 {
		n = addFreePieceMoves(ml, n, knights, diagonal, straight, empty, occ)
	} else {
		n = addPinnedPieceMoves(ml, n, knights&^pinned, diagonal, straight, empty, occ, pinned, &lineBB[ksq&63])
	}
	return p.genCastling(ml, n, us, occ)
}

// addPinnedPieceMoves is addFreePieceMoves when some of the pieces are
// pinned (knights is without them): a pinned piece moves along its pin
// line, line[s] being the line through the king and s.
func addPinnedPieceMoves(ml *[256]Move, n uint8, knights, diagonal, straight, target, occ, pinned Bitboard, line *[64]Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	for ; knights != 0; knights &= knights - 1 {
		from := uint(bits.TrailingZeros64(uint64(knights)))
		for t := knightAttacks[from] & target; t != 0; t &= t - 1 {
			ml[n] = Move(from) | Move(bits.TrailingZeros64(uint64(t)))<<6
			n++
		}
	}
	for ; diagonal != 0; diagonal &= diagonal - 1 {
		from := uint(bits.TrailingZeros64(uint64(diagonal)))
		t := BishopAttacks(Square(from), occ) & target
		if pinned&(1<<from) != 0 {
			t &= line[from]
		}
		for ; t != 0; t &= t - 1 {
			ml[n] = Move(from) | Move(bits.TrailingZeros64(uint64(t)))<<6
			n++
		}
	}
	for ; straight != 0; straight &= straight - 1 {
		from := uint(bits.TrailingZeros64(uint64(straight)))
		t := RookAttacks(Square(from), occ) & target
		if pinned&(1<<from) != 0 {
			t &= line[from]
		}
		for ; t != 0; t &= t - 1 {
			ml[n] = Move(from) | Move(bits.TrailingZeros64(uint64(t)))<<6
			n++
		}
	}
	return n
}

// addFreePieceMoves adds the moves of the knights, then of the bishops and
// queens along diagonals (diagonal), then of the rooks and queens along
// lines (straight), to the squares of target, when none of them is pinned.
// The generators' callers choose it or addPinnedPieceMoves: leaves with few
// values live, which their loops keep in registers, and which write the
// moves without a nil check each. A target leaves its set by t &= t - 1,
// off the trailing-zero count's path: clearing the bit found (t &^= 1 << to,
// a BTR) costs one instruction less per move but puts the count on the
// loop's dependency chain, and measured slower.
func addFreePieceMoves(ml *[256]Move, n uint8, knights, diagonal, straight, target, occ Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	for ; knights != 0; knights &= knights - 1 {
		from := uint(bits.TrailingZeros64(uint64(knights)))
		for t := knightAttacks[from] & target; t != 0; t &= t - 1 {
			ml[n] = Move(from) | Move(bits.TrailingZeros64(uint64(t)))<<6
			n++
		}
	}
	for ; diagonal != 0; diagonal &= diagonal - 1 {
		from := uint(bits.TrailingZeros64(uint64(diagonal)))
		for t := bishopAttacksFrom(from, occ) & target; t != 0; t &= t - 1 {
			ml[n] = Move(from) | Move(bits.TrailingZeros64(uint64(t)))<<6
			n++
		}
	}
	for ; straight != 0; straight &= straight - 1 {
		from := uint(bits.TrailingZeros64(uint64(straight)))
		for t := rookAttacksFrom(from, occ) & target; t != 0; t &= t - 1 {
			ml[n] = Move(from) | Move(bits.TrailingZeros64(uint64(t)))<<6
			n++
		}
	}
	return n
}

// castlingRightsOf[c] is the set of colour c's castling rights.
var castlingRightsOf = [2]CastleRights{WhiteKingside | WhiteQueenside, BlackKingside | BlackQueenside}

// addFreeCaptures adds the captures and promotions of the side us's pawns,
// knights, bishops and queens (diagonal) and rooks and queens (straight),
// none of them pinned, in genCaptures's order (en passant aside).
func addFreeCaptures(ml *[256]Move, n uint8, us Color, pawns, knights, diagonal, straight, theirs, occ Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	if pawns != 0 {
		var push, west, east Bitboard
		var up, dw, de Move // from = to - step, as a move's bits
		if us == White {
			push = (pawns & Rank7) << 8 &^ occ
			west, east = (pawns&^FileA)<<7&theirs, (pawns&^FileH)<<9&theirs
			up, dw, de = 8, 7, 9
		} else {
			push = (pawns & Rank2) >> 8 &^ occ
			west, east = (pawns&^FileA)>>9&theirs, (pawns&^FileH)>>7&theirs
			up, dw, de = 8, 9, 7
			up, dw, de = -up, -dw, -de // from = to + step, modulo 1<<16
		}
		for ; push != 0; push &= push - 1 {
			to := Move(bits.TrailingZeros64(uint64(push)))
			n = addPromotionMoves(ml, n, (to-up)|to<<6)
		}
		for ; west != 0; west &= west - 1 {
			to := Move(bits.TrailingZeros64(uint64(west)))
			if m := (to - dw) | to<<6; (Rank1|Rank8)&(1<<to) != 0 {
				n = addPromotionMoves(ml, n, m)
			} else {
				ml[n] = m
				n++
			}
		}
		for ; east != 0; east &= east - 1 {
			to := Move(bits.TrailingZeros64(uint64(east)))
			if m := (to - de) | to<<6; (Rank1|Rank8)&(1<<to) != 0 {
				n = addPromotionMoves(ml, n, m)
			} else {
				ml[n] = m
				n++
			}
		}
	}
	return addFreePieceMoves(ml, n, knights, diagonal, straight, theirs, occ)
}

// addFreeQuiets adds the quiet moves of the side us's pawns (pushes short of
// promotion), knights, bishops and queens (diagonal) and rooks and queens
// (straight), none of them pinned, in genQuiets's order (the king's and
// castling aside). empty is the set of empty squares.
func addFreeQuiets(ml *[256]Move, n uint8, us Color, pawns, knights, diagonal, straight, empty, occ Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	var single, double Bitboard
	var up Move
	if us == White {
		single = pawns << 8 & empty
		double = (single & Rank3) << 8 & empty
		single &^= Rank8
		up = 8
	} else {
		single = pawns >> 8 & empty
		double = (single & Rank6) >> 8 & empty
		single &^= Rank1
		up = 8
		up = -up // from = to + 8, modulo 1<<16
	}
	for ; single != 0; single &= single - 1 {
		to := Move(bits.TrailingZeros64(uint64(single)))
		ml[n] = (to - up) | to<<6
		n++
	}
	for ; double != 0; double &= double - 1 {
		to := Move(bits.TrailingZeros64(uint64(double)))
		ml[n] = (to - 2*up) | to<<6
		n++
	}
	return addFreePieceMoves(ml, n, knights, diagonal, straight, empty, occ)
}

// addPromotionMoves adds the four promotions of the pawn move m (from and
// to squares only), queen first, as addPromotions.
func addPromotionMoves(ml *[256]Move, n uint8, m Move) uint8 {
	m |= kindPromotion
	ml[n] = m | Move(Queen-Knight)<<12
	ml[n+1] = m | Move(Knight-Knight)<<12
	ml[n+2] = m | Move(Rook-Knight)<<12
	ml[n+3] = m | Move(Bishop-Knight)<<12
	return n + 4
}

// addPawnPushes is addPawnMoves for genQuiets: the single pushes short of
// the last rank and the double pushes of the pawns in pawns that land on
// squares in allowed.
func addPawnPushes(ml *[256]Move, n uint8, us Color, pawns, allowed, empty Bitboard) uint8 {
	var single, double Bitboard
	up := Square(8)
	if us == White {
		single = pawns << 8 & empty
		double = (single & Rank3) << 8 & empty & allowed
		single &= allowed &^ Rank8
	} else {
		single = pawns >> 8 & empty
		double = (single & Rank6) >> 8 & empty & allowed
		single &= allowed &^ Rank1
		up = -8
	}
	for single != 0 {
		to := single.PopLSB()
		ml[n] = NewMove(to-up, to)
		n++
	}
	for double != 0 {
		to := double.PopLSB()
		ml[n] = NewMove(to-2*up, to)
		n++
	}
	return n
}

// addPawnCaptures is addPawnMoves for genCaptures: the promotions by a push
// and the captures of the pawns in pawns that land on squares in allowed.
func addPawnCaptures(ml *[256]Move, n uint8, us Color, pawns, allowed, occ, theirs Bitboard) uint8 {
	enemies := theirs & allowed
	var push, west, east Bitboard
	var up, dw, de Square
	promoRank := Rank8
	if us == White {
		push = (pawns & Rank7) << 8 &^ occ & allowed
		west, east = (pawns&^FileA)<<7&enemies, (pawns&^FileH)<<9&enemies
		up, dw, de = 8, 7, 9
	} else {
		push = (pawns & Rank2) >> 8 &^ occ & allowed
		west, east = (pawns&^FileA)>>9&enemies, (pawns&^FileH)>>7&enemies
		up, dw, de = -8, -9, -7
		promoRank = Rank1
	}
	for push != 0 {
		to := push.PopLSB()
		n = addPromotions(ml, n, to-up, to)
	}
	for west != 0 {
		to := west.PopLSB()
		if promoRank.Has(to) {
			n = addPromotions(ml, n, to-dw, to)
		} else {
			ml[n] = NewMove(to-dw, to)
			n++
		}
	}
	for east != 0 {
		to := east.PopLSB()
		if promoRank.Has(to) {
			n = addPromotions(ml, n, to-de, to)
		} else {
			ml[n] = NewMove(to-de, to)
			n++
		}
	}
	return n
}

// generate fills list with the legal moves of the mode. The generating
// functions below write into the array and pass the count along in a local
// (a uint8, so indexing needs no bounds check: a position has at most 218
// legal moves), which keeps it in a register instead of going through
// list.N at every move.
func (p *Position) generate(list *MoveList, mode genMode) {
	list.N = int(p.gen(&list.Moves, mode))
}

// gen is the general generator, for every mode in and out of check. Full
// generations (perft, evasions) go through it; out of check the captures
// and the quiet moves, the search's usual requests, have lean copies of it
// (genCaptures, genQuiets) that tests hold to its moves and their order.
func (p *Position) gen(ml *[256]Move, mode genMode) uint8 {
	var n uint8
	// The colour and the king's square are masked, which they are in range
	// for anyway, so that their look-ups check no bounds.
	us := p.side & 1
	them := us ^ 1
	ours, theirs := p.colors[us], p.colors[them]
	occ := ours | theirs
	ksq := p.KingSquare(us) & 63
	checkers := p.st.checkers

	// King moves.
	kingTargets := kingAttacks[ksq] &^ ours
	switch mode {
	case genCaptures:
		kingTargets &= theirs
	case genQuiets:
		kingTargets &^= theirs
	}
	// (genKingMoves written out, which a full generation, as in perft,
	// feels: the king usually has targets.)
	if kingTargets != 0 {
		kingTargets &^= kingAttacks[(p.pieces[King]&theirs).LSB()&63]
		occNoKing := occ &^ SquareBB(ksq)
		knights, pawns := p.pieces[Knight]&theirs, p.pieces[Pawn]&theirs
		bq := (p.pieces[Bishop] | p.pieces[Queen]) & theirs
		rq := (p.pieces[Rook] | p.pieces[Queen]) & theirs
		for ; kingTargets != 0; kingTargets &= kingTargets - 1 {
			to := uint(bits.TrailingZeros64(uint64(kingTargets)))
			if knightAttacks[to]&knights != 0 || pawnAttacks[us][to]&pawns != 0 ||
				bishopRays[to]&bq != 0 && bishopAttacksFrom(to, occNoKing)&bq != 0 ||
				rookRays[to]&rq != 0 && rookAttacksFrom(to, occNoKing)&rq != 0 {
				continue
			}
			ml[n] = Move(ksq) | Move(to)<<6
			n++
		}
	}
	if checkers.More() {
		return n
	}

	// The squares other pieces may move to: anywhere not ours, or, in
	// check, the checker and the squares between it and the king.
	target := ^ours
	if checkers != 0 {
		c := checkers.LSB()
		target = betweenBB[ksq][c] | checkers
	}
	moveTarget := target
	switch mode {
	case genCaptures:
		moveTarget = target & theirs
	case genQuiets:
		moveTarget = target &^ theirs
	}
	// The pins are cached for the captures-then-quiets sequence of a
	// search and its IsLegal calls; a full generation (perft, evasions)
	// is usually the only use of them, so it computes them directly.
	var pinned Bitboard
	if mode == genAll {
		pinned = p.pinned(us, ksq)
	} else {
		pinned = p.pinnedPieces()
	}

	n = p.genPawnMoves(ml, n, us, pinned, ksq, target, mode)

	knights := p.pieces[Knight] & ours
	diagonal := (p.pieces[Bishop] | p.pieces[Queen]) & ours
	straight := (p.pieces[Rook] | p.pieces[Queen]) & ours
	if pinned&(knights|diagonal|straight) == 0 {
		n = addFreePieceMoves(ml, n, knights, diagonal, straight, moveTarget, occ)
	} else {
		n = addPinnedPieceMoves(ml, n, knights&^pinned, diagonal, straight, moveTarget, occ, pinned, &lineBB[ksq&63])
	}

	if mode == genCaptures || checkers != 0 {
		return n
	}
	return p.genCastling(ml, n, us, occ)
}

func (p *Position) generateCastling(list *MoveList, us Color, occ Bitboard) {
	list.N = int(p.genCastling(&list.Moves, uint8(list.N), us, occ))
}

func (p *Position) genCastling(ml *[256]Move, n uint8, us Color, occ Bitboard) uint8 {
	them := us.Other()
	cr := p.st.castle
	if us == White {
		if cr&WhiteKingside != 0 && occ&(SquareBB(F1)|SquareBB(G1)) == 0 &&
			!p.attackedWith(F1, them, occ) && !p.attackedWith(G1, them, occ) {
			ml[n] = newCastling(E1, G1)
			n++
		}
		if cr&WhiteQueenside != 0 && occ&(SquareBB(B1)|SquareBB(C1)|SquareBB(D1)) == 0 &&
			!p.attackedWith(D1, them, occ) && !p.attackedWith(C1, them, occ) {
			ml[n] = newCastling(E1, C1)
			n++
		}
		return n
	}
	if cr&BlackKingside != 0 && occ&(SquareBB(F8)|SquareBB(G8)) == 0 &&
		!p.attackedWith(F8, them, occ) && !p.attackedWith(G8, them, occ) {
		ml[n] = newCastling(E8, G8)
		n++
	}
	if cr&BlackQueenside != 0 && occ&(SquareBB(B8)|SquareBB(C8)|SquareBB(D8)) == 0 &&
		!p.attackedWith(D8, them, occ) && !p.attackedWith(C8, them, occ) {
		ml[n] = newCastling(E8, C8)
		n++
	}
	return n
}

// addPromotions adds the four promotions of a pawn moving from from to to.
func addPromotions(ml *[256]Move, n uint8, from, to Square) uint8 {
	ml[n] = NewPromotion(from, to, Queen)
	ml[n+1] = NewPromotion(from, to, Knight)
	ml[n+2] = NewPromotion(from, to, Rook)
	ml[n+3] = NewPromotion(from, to, Bishop)
	return n + 4
}

// genPawnMoves adds pawn pushes, captures, promotions and en passant.
// target is the set of squares allowed by check (all non-own squares when
// not in check). Pawns that are not pinned move in bulk; a pinned pawn (rare)
// goes through the same code with its targets cut down to the pin line.
func (p *Position) genPawnMoves(ml *[256]Move, n uint8, us Color, pinned Bitboard, ksq Square, target Bitboard, mode genMode) uint8 {
	pawns := p.pieces[Pawn] & p.colors[us&1]
	n = p.addPawnMoves(ml, n, us, pawns&^pinned, target, mode)
	for b := pawns & pinned; b != 0; {
		from := b.PopLSB()
		n = p.addPawnMoves(ml, n, us, SquareBB(from), target&lineBB[ksq&63][from&63], mode)
	}

	// En passant: verified by playing it out on the bitboards.
	if p.st.epHashed && mode != genQuiets {
		for b := pawnAttacks[us.Other()][p.st.ep] & pawns; b != 0; {
			if from := b.PopLSB(); p.enPassantSafe(from) {
				ml[n] = newEnPassant(from, p.st.ep)
				n++
			}
		}
	}
	return n
}

// addPawnMoves adds the pushes, captures and promotions (en passant aside)
// of the pawns in pawns that land on squares in allowed.
func (p *Position) addPawnMoves(ml *[256]Move, n uint8, us Color, pawns, allowed Bitboard, mode genMode) uint8 {
	empty := ^p.Occupied()
	enemies := p.colors[us&1^1] & allowed
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
			n = addPromotions(ml, n, to-up, to)
		}
	}
	if mode != genCaptures {
		for b := single &^ promoRank; b != 0; {
			to := b.PopLSB()
			ml[n] = NewMove(to-up, to)
			n++
		}
		for b := double & allowed; b != 0; {
			to := b.PopLSB()
			ml[n] = NewMove(to-2*up, to)
			n++
		}
	}
	if mode == genQuiets {
		return n
	}
	for b := west; b != 0; {
		to := b.PopLSB()
		if promoRank.Has(to) {
			n = addPromotions(ml, n, to-dw, to)
		} else {
			ml[n] = NewMove(to-dw, to)
			n++
		}
	}
	for b := east; b != 0; {
		to := b.PopLSB()
		if promoRank.Has(to) {
			n = addPromotions(ml, n, to-de, to)
		} else {
			ml[n] = NewMove(to-de, to)
			n++
		}
	}
	return n
}
