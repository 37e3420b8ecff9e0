package encoder

import (
	"fmt"

	"chessforge/engine/board"
)

// queenDirs are the eight directions of the queen-like move types, in the
// order of SPEC §2: N, NE, E, SE, S, SW, W, NW as (df, dr).
var queenDirs = [8][2]int{{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}}

// knightDirs are the knight move types 56–63 as (df, dr).
var knightDirs = [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}

// moveType[from][to] is the policy move type (0–63) of a move from one square
// to another that is not an under-promotion, or -1 when no piece moves so.
// Built once at start-up.
var moveType = func() (t [64][64]int8) {
	for from := range 64 {
		for to := range 64 {
			t[from][to] = -1
		}
		f0, r0 := from%8, from/8
		for d, v := range queenDirs {
			for dist := 1; dist <= 7; dist++ {
				f, r := f0+v[0]*dist, r0+v[1]*dist
				if f < 0 || f > 7 || r < 0 || r > 7 {
					break
				}
				t[from][r*8+f] = int8(d*7 + dist - 1)
			}
		}
		for k, v := range knightDirs {
			f, r := f0+v[0], r0+v[1]
			if f >= 0 && f <= 7 && r >= 0 && r <= 7 {
				t[from][r*8+f] = int8(56 + k)
			}
		}
	}
	return t
}()

// PolicyIndex returns the SPEC §2 index of m, type*64 + from, in
// [0, PolicySize). Castling is the king's two-square move; promotion to a
// queen is a queen-like move and the under-promotions have types 64–72.
// It fails only for moves no piece can make (the null move, a1 to b4).
func PolicyIndex(m board.Move) (int, error) {
	from, to := int(m.From()), int(m.To())
	if pt := m.Promotion(); pt == board.Knight || pt == board.Bishop || pt == board.Rook {
		df := to%8 - from%8
		dr := to/8 - from/8
		if df < -1 || df > 1 || (dr != 1 && dr != -1) {
			return -1, fmt.Errorf("encoder: move %v is not a pawn promotion step", m)
		}
		return (64+int(pt-board.Knight)*3+df+1)*64 + from, nil
	}
	t := moveType[from&63][to&63]
	if t < 0 {
		return -1, fmt.Errorf("encoder: move %v has no policy index", m)
	}
	return int(t)*64 + from, nil
}

// DecodeMove returns the legal move of pos whose policy index is index, so
// that a network's output can be played. It fails when the index is out of
// range or names no legal move in pos. It allocates nothing on success.
func DecodeMove(pos *board.Position, index int) (board.Move, error) {
	if index < 0 || index >= PolicySize {
		return board.NullMove, fmt.Errorf("encoder: policy index %d out of range [0, %d)", index, PolicySize)
	}
	from := board.Square(index % 64)
	var list board.MoveList
	pos.GenerateLegal(&list)
	for _, m := range list.Moves[:list.N] {
		if m.From() != from {
			continue
		}
		if i, err := PolicyIndex(m); err == nil && i == index {
			return m, nil
		}
	}
	return board.NullMove, fmt.Errorf("encoder: policy index %d (type %d from %v) is not a legal move in %s",
		index, index/64, from, pos.FEN())
}
