package board

// RepetitionCount returns how many times the current position occurred
// earlier in the game's history (the FIDE notion of the same position:
// placement, side to move, castling rights and en-passant capture
// possibility, which is what the hash covers). Only the plies since the last
// irreversible move can repeat, so the scan stops there.
func (p *Position) RepetitionCount() int {
	n := 0
	h := p.st.hash
	limit := p.st.halfmove
	if limit > len(p.history) {
		limit = len(p.history)
	}
	for i := 4; i <= limit; i += 2 {
		if p.history[len(p.history)-i].hash == h {
			n++
		}
	}
	return n
}

// IsRepetition reports whether the current position occurred at least
// count times before (count 1 for a search's two-fold, 2 for threefold).
func (p *Position) IsRepetition(count int) bool {
	h := p.st.hash
	limit := p.st.halfmove
	if limit > len(p.history) {
		limit = len(p.history)
	}
	n := 0
	for i := 4; i <= limit; i += 2 {
		if p.history[len(p.history)-i].hash == h {
			n++
			if n >= count {
				return true
			}
		}
	}
	return false
}

// IsFiftyMoveDraw reports whether the fifty-move rule applies: a hundred
// plies without a capture or pawn move, unless the last of them mated.
func (p *Position) IsFiftyMoveDraw() bool {
	return p.st.halfmove >= 100 && !p.IsCheckmate()
}

// IsInsufficientMaterial reports a dead position by material: king against
// king, king and one minor piece against king, or kings with bishops only,
// all on squares of one colour.
func (p *Position) IsInsufficientMaterial() bool {
	if p.pieces[Pawn]|p.pieces[Rook]|p.pieces[Queen] != 0 {
		return false
	}
	minors := p.pieces[Knight] | p.pieces[Bishop]
	if !minors.More() {
		return true
	}
	if p.pieces[Knight] == 0 {
		b := p.pieces[Bishop]
		return b&DarkSquares == 0 || b&LightSquares == 0
	}
	return false
}

// Outcome is how a game stands by the rules.
type Outcome uint8

// The outcomes the rules decide.
const (
	Ongoing Outcome = iota
	Checkmate
	Stalemate
	ThreefoldRepetition
	FiftyMoveRule
	InsufficientMaterial
)

func (o Outcome) String() string {
	return [...]string{"ongoing", "checkmate", "stalemate", "threefold", "fifty-move", "insufficient material"}[o]
}

// Outcome returns whether the game is over by the rules and how. Checkmate
// takes precedence over the fifty-move rule, as in the Laws of Chess.
func (p *Position) Outcome() Outcome {
	if !p.HasLegalMove() {
		if p.InCheck() {
			return Checkmate
		}
		return Stalemate
	}
	if p.IsInsufficientMaterial() {
		return InsufficientMaterial
	}
	if p.st.halfmove >= 100 {
		return FiftyMoveRule
	}
	if p.IsRepetition(2) {
		return ThreefoldRepetition
	}
	return Ongoing
}
