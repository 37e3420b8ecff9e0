package dama

import "testing"

// TestRoutesPerPieceBound proves the bound MaxMoves rests on: a king on any
// square of the lattice of squares 1-4, 9-12, 17-20, 25-28, with enemy men on
// any subset of the nine squares it can jump (5-7, 13-15, 21-23), has at most
// 8 capture routes of its longest length. The other lattice (squares
// 5-8, 13-16, 21-24, 29-32) is this one turned half a turn, and an occupied
// landing square takes away the same routes as removing the pieces jumped
// to reach it, so the subsets cover every position.
func TestRoutesPerPieceBound(t *testing.T) {
	cells := []int{5, 6, 7, 13, 14, 15, 21, 22, 23}
	most := 0
	for s := 1; s < 1<<len(cells); s++ {
		var men uint32
		for i, c := range cells {
			if s>>i&1 != 0 {
				men |= SquareAt(c).Bit()
			}
		}
		for _, v := range []int{1, 2, 3, 4, 9, 10, 11, 12, 17, 18, 19, 20, 25, 26, 27, 28} {
			p := newPosition()
			p.kings[White], p.men[Black] = SquareAt(v).Bit(), men
			if p.HasCapture() {
				most = max(most, p.CountMoves())
			}
		}
	}
	if most != 8 {
		t.Fatalf("a lone king has at most %d routes of its longest length, want 8 (MaxMoves' bound rests on it)", most)
	}
	if 12*most > MaxMoves {
		t.Fatalf("12 pieces × %d routes exceed MaxMoves = %d", most, MaxMoves)
	}
}
