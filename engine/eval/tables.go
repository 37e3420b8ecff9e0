package eval

import "chessforge/engine/board"

// Masks built once at start-up, indexed by colour and square.
var (
	adjacentFiles [8]board.Bitboard     // the files beside file f
	forwardFile   [2][64]board.Bitboard // squares ahead of s on its file, from c's side
	forwardRanks  [2][8]board.Bitboard  // the ranks from relative rank r up to the last
	outpostRanks  [2]board.Bitboard     // c's relative ranks 4 to 6, where its minor pieces can stand on outposts
	seventhRank   [2]board.Bitboard     // c's relative seventh rank
	// zoneCount[t][n] counts n attacks on the enemy king zone by a piece
	// of type Knight+t for pieces: n in the low 16 bits, and one zone
	// attacker of the type, if n > 0, in byte 2+t.
	zoneCount [4][65]int
)

// shelterFiles holds, by the king's file, the three files of its shelter
// (clamped to b..g): the first one's number, and each one's row offset in
// the shelter and storm tables (8 × its class, a/h 0 .. d/e 3).
var shelterFiles [8]struct {
	first int
	rows  [3]int
}

func init() {
	for f := 0; f < 8; f++ {
		if f > 0 {
			adjacentFiles[f] |= board.FileMask(f - 1)
		}
		if f < 7 {
			adjacentFiles[f] |= board.FileMask(f + 1)
		}
	}
	for r := 0; r < 8; r++ {
		for q := r; q < 8; q++ {
			forwardRanks[board.White][r] |= board.RankMask(q)
			forwardRanks[board.Black][r] |= board.RankMask(7 - q)
		}
	}
	outpostRanks = [2]board.Bitboard{board.Rank4 | board.Rank5 | board.Rank6, board.Rank5 | board.Rank4 | board.Rank3}
	seventhRank = [2]board.Bitboard{board.Rank7, board.Rank2}
	for t := range zoneCount {
		for n := 1; n < len(zoneCount[t]); n++ {
			zoneCount[t][n] = n | 1<<(16+8*t)
		}
	}
	for kf := range shelterFiles {
		first := min(max(kf, 1), 6) - 1
		shelterFiles[kf].first = first
		for i := range 3 {
			f := first + i
			shelterFiles[kf].rows[i] = min(f, 7-f) * 8
		}
	}
	for s := board.Square(0); s < 64; s++ {
		f, r := s.File(), s.Rank()
		for c := board.White; c <= board.Black; c++ {
			rr := r
			if c == board.Black {
				rr = 7 - r
			}
			var ahead board.Bitboard
			if rr < 7 {
				ahead = forwardRanks[c][rr+1]
			}
			forwardFile[c][s] = ahead & board.FileMask(f)
		}
	}
}

// relRank returns the rank of s from c's side: 0 is c's first rank. It
// flips Black's ranks with an exclusive or rather than a branch on the
// colour.
func relRank(c board.Color, s board.Square) int {
	return s.Rank() ^ 7*int(c)
}

// relSquare returns s from c's side: White's squares as they are, Black's
// mirrored, with an exclusive or rather than a branch on the colour.
func relSquare(c board.Color, s board.Square) board.Square {
	return s ^ board.Square(56*c)
}

// distance is the king distance between two squares.
func distance(a, b board.Square) int {
	df := a.File() - b.File()
	if df < 0 {
		df = -df
	}
	dr := a.Rank() - b.Rank()
	if dr < 0 {
		dr = -dr
	}
	if df > dr {
		return df
	}
	return dr
}

// centreDistance is 0 on the four centre squares and 6 in the corners.
func centreDistance(s board.Square) int {
	f, r := s.File(), s.Rank()
	df := 3 - f
	if f > 3 {
		df = f - 4
	}
	dr := 3 - r
	if r > 3 {
		dr = r - 4
	}
	return df + dr
}

// forward shifts a set one rank towards c's far side.
func forward(c board.Color, b board.Bitboard) board.Bitboard {
	if c == board.White {
		return b.North()
	}
	return b.South()
}

// fillAhead returns b with every square ahead of a member, from c's side,
// added: a fill towards c's far side.
func fillAhead(c board.Color, b board.Bitboard) board.Bitboard {
	if c == board.White {
		b |= b << 8
		b |= b << 16
		return b | b<<32
	}
	b |= b >> 8
	b |= b >> 16
	return b | b>>32
}

// fileFill returns the files that hold a member of b.
func fileFill(b board.Bitboard) board.Bitboard {
	return board.Bitboard(uint8(fillAhead(board.Black, b))) * board.FileA
}
