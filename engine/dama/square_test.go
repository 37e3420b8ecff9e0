package dama

import "testing"

// TestStepsAgreeWithTables: the shift-based steps of whole boards and the
// per-square neighbour and jump tables (built from rows and files) describe
// the same board.
func TestStepsAgreeWithTables(t *testing.T) {
	steps := [4]func(uint32) uint32{stepUpLeft, stepUpRight, stepDownLeft, stepDownRight}
	for s := Square(0); s < NumSquares; s++ {
		for d := Direction(0); d < 4; d++ {
			want := uint32(0)
			if n := Neighbour(s, d); n != NoSquare {
				want = n.Bit()
				if n.Row()-s.Row() != [4]int{-1, -1, 1, 1}[d] || n.File()-s.File() != [4]int{-1, 1, -1, 1}[d] {
					t.Errorf("square %v direction %d: neighbour %v", s, d, n)
				}
			}
			if got := steps[d](s.Bit()); got != want {
				t.Errorf("square %v direction %d: step gives %#x, table %#x", s, d, got, want)
			}
			j := NoSquare
			if n := Neighbour(s, d); n != NoSquare {
				j = Neighbour(n, d)
			}
			if jumpTo[s][d] != j {
				t.Errorf("square %v direction %d: jump to %v, want %v", s, d, jumpTo[s][d], j)
			}
		}
	}
	// Edges: square 5 (b7) has all four neighbours, square 9 (a6) two.
	count := func(s Square) (n int) {
		for d := Direction(0); d < 4; d++ {
			if Neighbour(s, d) != NoSquare {
				n++
			}
		}
		return n
	}
	if count(SquareAt(5)) != 4 || count(SquareAt(9)) != 2 || count(SquareAt(1)) != 1 || count(SquareAt(32)) != 1 {
		t.Errorf("neighbour counts: 5:%d 9:%d 1:%d 32:%d", count(SquareAt(5)), count(SquareAt(9)), count(SquareAt(1)), count(SquareAt(32)))
	}
}
