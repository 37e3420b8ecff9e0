package board

import "testing"

// Every piece reports the colour and type it was made from, and NoPiece
// reports no type.
func TestPieceTypeAndColor(t *testing.T) {
	for _, c := range []Color{White, Black} {
		for pt := Pawn; pt <= King; pt++ {
			pc := MakePiece(c, pt)
			if pc.Type() != pt || pc.Color() != c {
				t.Errorf("MakePiece(%v, %d) = %d: type %d, colour %v", c, pt, pc, pc.Type(), pc.Color())
			}
		}
	}
	if NoPiece.Type() != NoPieceType {
		t.Errorf("NoPiece.Type() = %d, want NoPieceType", NoPiece.Type())
	}
}
