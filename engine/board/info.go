package board

import "math/bits"

// pinnedPieces returns the side to move's pieces pinned against its king,
// computed once per position.
func (p *Position) pinnedPieces() Bitboard {
	if p.st.cached&cachedPinned != 0 {
		return p.info[len(p.history)].pinned
	}
	return p.computePinned()
}

// computePinned is pinned for the side to move, stored in the info entry.
func (p *Position) computePinned() Bitboard {
	us := p.side & 1
	ksq := p.KingSquare(us) & 63
	occ := p.Occupied()
	snipers := (rookRays[ksq]&(p.pieces[Rook]|p.pieces[Queen]) |
		bishopRays[ksq]&(p.pieces[Bishop]|p.pieces[Queen])) & p.colors[us^1]
	var pinned Bitboard
	for ; snipers != 0; snipers &= snipers - 1 {
		b := betweenBB[ksq][bits.TrailingZeros64(uint64(snipers))] & occ
		if b != 0 && !b.More() {
			pinned |= b
		}
	}
	pinned &= p.colors[us]
	p.infoEntry().pinned = pinned
	p.st.cached |= cachedPinned
	return pinned
}

// checkInfo returns the info entry with the check squares and discovered
// check candidates filled in, computed once per position.
func (p *Position) checkInfo() *posInfo {
	if p.st.cached&cachedCheckInfo != 0 {
		return &p.info[len(p.history)]
	}
	return p.computeCheckInfo()
}

func (p *Position) computeCheckInfo() *posInfo {
	in := p.infoEntry()
	p.fillCheckInfo(in)
	p.st.cached |= cachedCheckInfo
	return in
}

// infoEntry returns the info entry of the current position, growing the
// table the first time a ply is reached (amortised, like the history).
func (p *Position) infoEntry() *posInfo {
	ply := len(p.history)
	if ply >= len(p.info) {
		p.growInfo(ply)
	}
	return &p.info[ply]
}

//go:noinline
func (p *Position) growInfo(ply int) {
	n := max(ply+1, 2*len(p.info), 64)
	p.info = append(p.info, make([]posInfo, n-len(p.info))...)
}

// fillCheckInfo computes the squares from which each of the side to move's
// piece types would attack the enemy king, and the side to move's pieces
// that stand alone between one of its sliders and the enemy king.
func (p *Position) fillCheckInfo(in *posInfo) {
	us := p.side & 1
	them := us ^ 1
	ksq := p.KingSquare(them) & 63
	occ := p.Occupied()
	ours := p.colors[us]
	b, r := BishopAttacks(ksq, occ), RookAttacks(ksq, occ)
	cs := &in.checkSquares
	*cs = [16]Bitboard{}
	base := uint(us) * 6 // our pawn, knight, ... are base, base+1, ...
	cs[(base+uint(Pawn))&15] = pawnAttacks[them][ksq]
	cs[(base+uint(Knight))&15] = knightAttacks[ksq]
	cs[(base+uint(Bishop))&15] = b
	cs[(base+uint(Rook))&15] = r
	cs[(base+uint(Queen))&15] = b | r
	snipers := (rookRays[ksq]&(p.pieces[Rook]|p.pieces[Queen]) |
		bishopRays[ksq]&(p.pieces[Bishop]|p.pieces[Queen])) & ours
	var disc Bitboard
	for ; snipers != 0; snipers &= snipers - 1 {
		if bb := betweenBB[ksq][bits.TrailingZeros64(uint64(snipers))] & occ; bb != 0 && !bb.More() {
			disc |= bb
		}
	}
	in.discoverers = disc & ours
}
