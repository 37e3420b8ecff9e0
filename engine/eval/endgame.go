package eval

import "chessforge/engine/board"

// Endgame adjusts v, another evaluation's score of p (a network's) from the
// side to move's point of view, by what this evaluation knows of endings
// that such an evaluation, trained on its own games, rarely meets: where a
// side has no pawns, the side ahead gets the mate drive against a lone king
// (to the edge, to the bishop's corner in KBNK, its own king closer), and
// the score is scaled as Evaluate scales drawish material (0 for a side
// that cannot win, such as one with rook pawns, alone or with the wrong
// bishop, against a king in their corner). Other positions keep v. It
// allocates nothing.
func Endgame(p *board.Position, v int) int {
	if PawnlessSide(p) {
		return endgame(p, v)
	}
	return v
}

// PawnlessSide reports whether a side has no pawns: the positions whose
// scores Endgame's mate drive and drawish-material scales may change.
// Those scales make such scores jump where the material changes (a capture
// can gain more than the piece is worth), so the search does not prune
// captures by their value there.
func PawnlessSide(p *board.Position) bool {
	pawns := p.PiecesOfType(board.Pawn)
	return pawns&p.Occupancy(board.White) == 0 || pawns&p.Occupancy(board.Black) == 0
}

// endgame is Endgame's drive and drawish-material scale, where a side has
// no pawns.
func endgame(p *board.Position, v int) int {
	var e untraced
	e.p = p
	e.setupSide(board.White)
	e.setupSide(board.Black)
	drive := (e.mateDrive(board.White) - e.mateDrive(board.Black)).eg()
	us := p.SideToMove()
	if us == board.Black {
		drive = -drive
	}
	v += drive
	favoured := us
	if v < 0 {
		favoured = us.Other()
	}
	return max(-MaxEval, min(v*e.scaleFor(favoured)/ScaleNormal, MaxEval))
}
