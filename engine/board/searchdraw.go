package board

// IsSearchDraw reports whether a search should score the position as a draw
// by repetition or insufficient material: it repeats a position reached
// after the search root (ply rootPly of the history) once, or any earlier
// position twice (a threefold with the game's moves before the root). The
// fifty-move rule is left to the caller, which must rule out mate first.
//
// It is small enough to be inlined for its usual answer: fewer than four
// plies since a capture or pawn move leave no repetition possible, and a
// pawn on the board leaves mating material.
func (p *Position) IsSearchDraw(rootPly int) bool {
	if p.st.halfmove < 4 && p.pieces[Pawn] != 0 {
		return false
	}
	return p.isSearchDraw(rootPly)
}

func (p *Position) isSearchDraw(rootPly int) bool {
	if p.IsInsufficientMaterial() {
		return true
	}
	h := p.st.hash
	limit := p.st.halfmove
	n := len(p.history)
	if limit > n {
		limit = n
	}
	count := 0
	for i := 4; i <= limit; i += 2 {
		if p.history[n-i].hash == h {
			if n-i >= rootPly {
				return true
			}
			count++
			if count >= 2 {
				return true
			}
		}
	}
	return false
}

// NonPawnMaterial reports whether colour c has a piece other than pawns and king.
func (p *Position) NonPawnMaterial(c Color) bool {
	return p.colors[c]&^(p.pieces[Pawn]|p.pieces[King]) != 0
}
