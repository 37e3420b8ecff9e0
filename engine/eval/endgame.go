package eval

import "chessforge/engine/board"

// Endgame adjusts v, another evaluation's score of p (a network's) from the
// side to move's point of view, by what this evaluation knows of endings
// that such an evaluation, trained on its own games, rarely meets: the
// side ahead gets the mate drive against a lone king (to the edge, to the
// bishop's corner in KBNK, its own king closer), and the score is scaled
// as Evaluate scales drawish material (0 for a side that cannot win, such
// as one with rook pawns, alone or with the wrong bishop, against a king
// in their corner). Then the score is scaled by the pawns of the side it
// favours (pawnScale). It allocates nothing.
func Endgame(p *board.Position, v int) int {
	if PawnlessSide(p) {
		v = endgame(p, v)
	}
	return scaleByPawns(p, v)
}

// pawnScale[n] (of ScaleNormal) scales a network's score by the pawns of
// the side it favours, n of them (four or more: n = 4): an advantage with
// few pawns is converted far less often than its score says. Measured on
// the self-play that trained the embedded network (22 M positions of
// 0f25171c72e00a16's games) by fitting the game result of the side ahead
// to sigmoid(score/K) for each n: `chessforge-nnue pawnscale` (the README's
// "Where the network stands") gives K 730, 322, 206, 158 and 145 for 0, 1,
// 2, 3 and 4 or more pawns, so that a score with one pawn is worth 0.45 of
// the same score with four, with two 0.70, with three 0.92 (58, 90 and 118
// of 128; 58, 91 and 120 in a first fit on a quarter of the data, which
// the table keeps: the values its match was played with). No pawns gets
// one pawn's scale: Evaluate's drawish-material scales already apply
// there, and a smaller one would make the side ahead keep its last pawn
// rather than promote it.
var pawnScale = [5]int{58, 58, 91, 120, ScaleNormal}

// scaleByPawns scales v, a score from the side to move's point of view, by
// pawnScale of the pawns of the side it favours.
func scaleByPawns(p *board.Position, v int) int {
	favoured := p.SideToMove()
	if v < 0 {
		favoured = favoured.Other()
	}
	n := min((p.PiecesOfType(board.Pawn) & p.Occupancy(favoured)).Count(), 4)
	return v * pawnScale[n] / ScaleNormal
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
