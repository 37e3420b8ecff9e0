// Package eval is the static evaluation of chess positions.
package eval

import "chessforge/engine/board"

// SEEValue holds piece values in centipawns for static exchange evaluation and
// delta pruning, indexed by board.PieceType (pawn, knight, bishop, rook, queen,
// king). The king's value is large so that exchanges that lose it never pay.
var SEEValue = [6]int{100, 320, 330, 500, 950, 20000}

var mgValue = [6]int{82, 337, 365, 477, 1025, 0}
var egValue = [6]int{94, 281, 297, 512, 936, 0}
var phaseInc = [6]int{0, 1, 1, 2, 4, 0}

// centre returns a small bonus for closeness to the centre, in [0, 6].
func centre(s board.Square) int {
	f, r := s.File(), s.Rank()
	df := f - 3
	if f >= 4 {
		df = 4 - f
	}
	dr := r - 3
	if r >= 4 {
		dr = 4 - r
	}
	return 6 + df + dr // df, dr in [-3, 0]
}

// Evaluate returns the static evaluation of p in centipawns from the side to
// move's point of view.
func Evaluate(p *board.Position) int {
	if p.IsInsufficientMaterial() {
		return 0
	}
	var mg, eg, phase int
	for c := board.White; c <= board.Black; c++ {
		sign := 1
		if c == board.Black {
			sign = -1
		}
		for t := board.Pawn; t <= board.King; t++ {
			bb := p.Pieces(c, t)
			for bb != 0 {
				s := bb.PopLSB()
				rel := s
				if c == board.Black {
					rel = s.Mirror()
				}
				phase += phaseInc[t]
				m, e := mgValue[t], egValue[t]
				cb := centre(rel)
				switch t {
				case board.Pawn:
					m += 4*rel.Rank() + cb
					e += 8 * rel.Rank()
				case board.Knight, board.Bishop:
					m += 4 * cb
					e += 3 * cb
				case board.Queen:
					m += cb
					e += 2 * cb
				case board.King:
					m -= 6 * rel.Rank()
					e += 5 * cb
				}
				mg += sign * m
				eg += sign * e
			}
		}
	}
	if phase > 24 {
		phase = 24
	}
	v := (mg*phase + eg*(24-phase)) / 24
	if p.SideToMove() == board.Black {
		v = -v
	}
	return v
}
