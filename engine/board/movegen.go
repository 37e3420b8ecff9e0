package board

import "math/bits"

// Legal move generation. Moves are generated legal directly: pinned pieces
// move only along their pin line, a single check restricts the other pieces
// to capturing the checker or blocking, a double check leaves only king
// moves, king moves are tested against attacks with the king lifted off the
// board, and en passant is tested by playing it out on the bitboards (it can
// uncover a check along the rank).
//
// Which entry point serves which caller:
//
//	GenerateLegal -> gen(genAll)
//	    perft and Divide; the search's evasions in check (movepick.go,
//	    initMain) and its root move list (engine.go); HasLegalMove, hence
//	    IsCheckmate, IsStalemate, Outcome and the fifty-move rule (draw.go,
//	    search.go); notation and SAN (notation.go, san.go); self-play, the
//	    encoder's policy, the opening book and the tests.
//	GenerateCaptures -> genCaptures
//	    the capture stage of the search's move picker and quiescence
//	    (movepick.go). Out of check: the captures and promotions, through a
//	    leaf (freeCaptures) when nothing is pinned, there is no en passant
//	    and the king captures nothing, else through gen(genCaptures); in
//	    check: every evasion, gen(genAll), as quiescence must.
//	GenerateQuiets -> genQuiets
//	    the quiet stage of the move picker (movepick.go), out of check: the
//	    king's moves, freeQuiets and castling when nothing is pinned, else
//	    gen(genQuiets), which also serves a call in check (the search
//	    makes none: in check it takes every evasion at once).
//	generateCastling -> genCastling
//	    IsLegal's check of a castling move (legal.go).
//
// Every path builds its moves from the same routines, in the same order
// (the king's moves; the pawns' promotions by a push, pushes and double
// pushes, captures; en passant; knights, bishops and queens on diagonals,
// rooks and queens on lines; castling), so that the captures and the quiet
// moves come out in the order of the full generation (move ordering breaks
// ties by generation order, so the order is part of the contract):
//
//	genKingMoves     the king's moves to a set of targets
//	addPawnPushes    pushes to a set of squares (promotions among them)
//	addPawnCaptures  captures of a set of enemies (promotions among them)
//	addPromotions    the four promotions of one pawn move
//	addEnPassant     en passant
//	addFreePieceMoves, addPinnedPieceMoves   knights, bishops, rooks, queens
//	genCastling      castling

// genMode selects which legal moves gen adds.
type genMode uint8

const (
	genAll      genMode = iota
	genCaptures         // captures and promotions
	genQuiets           // everything else: no capture, no promotion
)

// promotionRanks are the squares a pawn promotes on, either colour's.
const promotionRanks = Rank1 | Rank8

// pawnsAboutToPromote[c] is the rank from which colour c's pawns promote
// by a push.
var pawnsAboutToPromote = [2]Bitboard{Rank7, Rank2}

// GenerateLegal fills list with every legal move.
func (p *Position) GenerateLegal(list *MoveList) {
	list.N = int(p.gen(&list.Moves, genAll))
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
	var ml [256]Move
	return p.gen(&ml, genAll) > 0
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

// attackedWith reports whether colour by attacks s when the occupancy is
// occ (the moving king already lifted off).
func (p *Position) attackedWith(s Square, by Color, occ Bitboard) bool {
	s, by = s&63, by&1 // in range for any valid call; no bounds check below
	them := p.colors[by]
	return knightAttacks[s]&p.pieces[Knight]&them != 0 ||
		pawnAttacks[by.Other()][s]&p.pieces[Pawn]&them != 0 ||
		kingAttacks[s]&p.pieces[King]&them != 0 ||
		BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen])&them != 0 ||
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])&them != 0
}

// gen is the general generator, for every mode in and out of check, and the
// only one in check or with a piece pinned. It writes into the array and
// passes the count along in a local (a uint8, so indexing needs no bounds
// check: a position has at most 218 legal moves), which keeps it in a
// register instead of going through list.N at every move.
func (p *Position) gen(ml *[256]Move, mode genMode) uint8 {
	var n uint8
	// The colour and the king's square are masked, which they are in range
	// for anyway, so that their look-ups check no bounds.
	us := p.side & 1
	ours, theirs := p.colors[us], p.colors[us^1]
	occ := ours | theirs
	ksq := p.KingSquare(us) & 63
	checkers := p.st.checkers

	kingTargets := kingAttacks[ksq] &^ ours
	switch mode {
	case genCaptures:
		kingTargets &= theirs
	case genQuiets:
		kingTargets &^= theirs
	}
	if kingTargets != 0 {
		n = p.genKingMoves(ml, n, us, ksq, kingTargets, occ, theirs)
	}
	if checkers.More() {
		return n
	}

	// The squares other pieces may move to: anywhere not ours, or, in
	// check, the checker and the squares between it and the king.
	target := ^ours
	if checkers != 0 {
		target = betweenBB[ksq][checkers.LSB()] | checkers
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

	// Pawns: the pushes may reach the targets (only the promotion ranks for
	// captures, all but them for quiet moves), the captures the enemies
	// among the targets. Those not pinned move in bulk; a pinned pawn (rare)
	// goes through the same routines with its targets cut down to its pin
	// line.
	pawns := p.pieces[Pawn] & ours
	empty := ^occ
	pushTargets, enemies := target, theirs&target
	switch mode {
	case genCaptures:
		pushTargets &= promotionRanks
	case genQuiets:
		pushTargets &^= promotionRanks
		enemies = 0
	}
	free := pawns &^ pinned
	n = addPawnPushes(ml, n, us, free, empty, pushTargets)
	n = addPawnCaptures(ml, n, us, free, enemies)
	for b := pawns & pinned; b != 0; b &= b - 1 {
		from := b.LSB() & 63
		line := lineBB[ksq][from]
		n = addPawnPushes(ml, n, us, SquareBB(from), empty, pushTargets&line)
		n = addPawnCaptures(ml, n, us, SquareBB(from), enemies&line)
	}
	if mode != genQuiets && p.st.epHashed {
		n = p.addEnPassant(ml, n, us, pawns)
	}

	pieceTargets := target
	switch mode {
	case genCaptures:
		pieceTargets &= theirs
	case genQuiets:
		pieceTargets &^= theirs
	}
	knights := p.pieces[Knight] & ours
	diagonal := (p.pieces[Bishop] | p.pieces[Queen]) & ours
	straight := (p.pieces[Rook] | p.pieces[Queen]) & ours
	if pinned&(knights|diagonal|straight) == 0 {
		n = addFreePieceMoves(ml, n, knights, diagonal, straight, pieceTargets, occ)
	} else {
		n = addPinnedPieceMoves(ml, n, knights&^pinned, diagonal, straight, pieceTargets, occ, pinned, &lineBB[ksq])
	}

	if mode == genCaptures || checkers != 0 {
		return n
	}
	return p.genCastling(ml, n, us, occ)
}

// genCaptures is GenerateCaptures: in check, every evasion from gen; out
// of check, gen(ml, genCaptures)'s moves. The usual case (no piece pinned,
// no en passant, no capture by the king) goes to a leaf, freeCaptures,
// which skips gen's tests of the mode, of check and of pins: about 1% of
// `engine bench 9`'s instructions (callgrind) against gen for every call.
func (p *Position) genCaptures(ml *[256]Move) uint8 {
	if p.st.checkers != 0 {
		return p.gen(ml, genAll)
	}
	us := p.side & 1
	ours, theirs := p.colors[us], p.colors[us^1]
	if p.pinnedPieces() == 0 && !p.st.epHashed && kingAttacks[p.KingSquare(us)&63]&theirs == 0 {
		return freeCaptures(ml, us, p.pieces[Pawn]&ours, p.pieces[Knight]&ours,
			(p.pieces[Bishop]|p.pieces[Queen])&ours, (p.pieces[Rook]|p.pieces[Queen])&ours, theirs, ours|theirs)
	}
	return p.gen(ml, genCaptures)
}

// freeCaptures is gen(ml, genCaptures) out of check for the side us's
// pawns, knights, bishops and queens (diagonal) and rooks and queens
// (straight) when none of them is pinned, there is no en passant and the
// king has nothing to capture.
func freeCaptures(ml *[256]Move, us Color, pawns, knights, diagonal, straight, theirs, occ Bitboard) uint8 {
	var n uint8
	if promoting := pawns & pawnsAboutToPromote[us&1]; promoting != 0 {
		n = addPawnPushes(ml, n, us, promoting, ^occ, promotionRanks)
	}
	n = addPawnCaptures(ml, n, us, pawns, theirs)
	return addFreePieceMoves(ml, n, knights, diagonal, straight, theirs, occ)
}

// genQuiets is GenerateQuiets: gen(ml, genQuiets), which serves check and
// pins; with no piece pinned out of check (the usual case), the king's
// moves, the other pieces' and castling come from three calls, with only
// the list kept across them (0.25% of `engine bench 9`'s instructions
// against gen for every call).
func (p *Position) genQuiets(ml *[256]Move) uint8 {
	if p.st.checkers != 0 || p.pinnedPieces() != 0 {
		return p.gen(ml, genQuiets)
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
	n = freeQuiets(ml, n, us, p.pieces[Pawn]&ours, p.pieces[Knight]&ours, (p.pieces[Bishop]|p.pieces[Queen])&ours,
		(p.pieces[Rook]|p.pieces[Queen])&ours, occ)
	if p.st.castle&castlingRightsOf[us] == 0 {
		return n
	}
	return p.genCastling(ml, n, us, p.Occupied())
}

// freeQuiets adds the quiet moves of the side us's pawns, knights, bishops
// and queens (diagonal) and rooks and queens (straight), none of them
// pinned, in gen(ml, genQuiets)'s order (the king's and castling aside).
func freeQuiets(ml *[256]Move, n uint8, us Color, pawns, knights, diagonal, straight, occ Bitboard) uint8 {
	n = addPawnPushes(ml, n, us, pawns, ^occ, ^promotionRanks)
	return addFreePieceMoves(ml, n, knights, diagonal, straight, ^occ, occ)
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

// addPawnPushes adds the pushes of the side us's pawns in pawns to the
// squares of targets: the promotions by a push, then the other single
// pushes, then the double pushes (which may pass through a square outside
// targets). empty is the set of empty squares.
func addPawnPushes(ml *[256]Move, n uint8, us Color, pawns, empty, targets Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	var single, double Bitboard
	var up Move // from = to - up, as a move's bits
	if us == White {
		single = pawns << 8 & empty
		double = (single & Rank3) << 8 & empty & targets
		up = 8
	} else {
		single = pawns >> 8 & empty
		double = (single & Rank6) >> 8 & empty & targets
		up = 8
		up = -up // from = to + 8, modulo 1<<16
	}
	single &= targets
	for b := single & promotionRanks; b != 0; b &= b - 1 {
		to := Move(bits.TrailingZeros64(uint64(b)))
		n = addPromotions(ml, n, (to-up)|to<<6)
	}
	for b := single &^ promotionRanks; b != 0; b &= b - 1 {
		to := Move(bits.TrailingZeros64(uint64(b)))
		ml[n] = (to - up) | to<<6
		n++
	}
	for ; double != 0; double &= double - 1 {
		to := Move(bits.TrailingZeros64(uint64(double)))
		ml[n] = (to - 2*up) | to<<6
		n++
	}
	return n
}

// addPawnCaptures adds the captures of the enemies in enemies by the side
// us's pawns in pawns, towards the a-file, then towards the h-file; one
// onto the last rank adds its four promotions.
func addPawnCaptures(ml *[256]Move, n uint8, us Color, pawns, enemies Bitboard) uint8 {
	_ = ml[0] // one nil check, not one per move
	var west, east Bitboard
	var dw, de Move // from = to - step, as a move's bits
	if us == White {
		west, east = (pawns&^FileA)<<7&enemies, (pawns&^FileH)<<9&enemies
		dw, de = 7, 9
	} else {
		west, east = (pawns&^FileA)>>9&enemies, (pawns&^FileH)>>7&enemies
		dw, de = 9, 7
		dw, de = -dw, -de // from = to + step, modulo 1<<16
	}
	for ; west != 0; west &= west - 1 {
		to := Move(bits.TrailingZeros64(uint64(west)))
		if m := (to - dw) | to<<6; promotionRanks&(1<<to) != 0 {
			n = addPromotions(ml, n, m)
		} else {
			ml[n] = m
			n++
		}
	}
	for ; east != 0; east &= east - 1 {
		to := Move(bits.TrailingZeros64(uint64(east)))
		if m := (to - de) | to<<6; promotionRanks&(1<<to) != 0 {
			n = addPromotions(ml, n, m)
		} else {
			ml[n] = m
			n++
		}
	}
	return n
}

// addPromotions adds the four promotions of the pawn move m (from and to
// squares only), queen first, then knight, rook and bishop.
func addPromotions(ml *[256]Move, n uint8, m Move) uint8 {
	m |= kindPromotion
	ml[n] = m | Move(Queen-Knight)<<12
	ml[n+1] = m | Move(Knight-Knight)<<12
	ml[n+2] = m | Move(Rook-Knight)<<12
	ml[n+3] = m | Move(Bishop-Knight)<<12
	return n + 4
}

// addEnPassant adds the en passant captures of the side us's pawns in pawns,
// each verified by playing it out on the bitboards. The position must have
// an en passant square (st.epHashed).
func (p *Position) addEnPassant(ml *[256]Move, n uint8, us Color, pawns Bitboard) uint8 {
	ep := p.st.ep
	for b := pawnAttacks[us&1^1][ep&63] & pawns; b != 0; b &= b - 1 {
		if from := b.LSB(); p.enPassantSafe(from) {
			ml[n] = newEnPassant(from, ep)
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

// castlingRightsOf[c] is the set of colour c's castling rights.
var castlingRightsOf = [2]CastleRights{WhiteKingside | WhiteQueenside, BlackKingside | BlackQueenside}

// generateCastling appends to list the castling moves of the side us, whose
// king is not in check, with occupancy occ.
func (p *Position) generateCastling(list *MoveList, us Color, occ Bitboard) {
	list.N = int(p.genCastling(&list.Moves, uint8(list.N), us, occ))
}

// genCastling adds the castling moves of the side us, whose king is not in
// check, with occupancy occ: kingside, then queenside.
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
