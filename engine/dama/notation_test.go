package dama

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseMoveRoundTrip: every legal move of many positions reads back
// from its String, and from its start and end alone exactly when no other
// legal move joins them.
func TestParseMoveRoundTrip(t *testing.T) {
	var l MoveList
	ambiguous := 0
	for _, p := range randomPositions(t, 10, 20) {
		p.GenerateMoves(&l)
		for _, m := range l.Slice() {
			got, err := p.ParseMove(m.String())
			if err != nil || got != m {
				t.Fatalf("%s: ParseMove(%q) = %v, %v", p.FEN(), m, got, err)
			}
			short := fmt.Sprintf("%dx%d", m.From().Number(), m.To().Number())
			if !m.IsCapture() {
				short = strings.ReplaceAll(short, "x", "-")
			}
			same := 0
			for _, o := range l.Slice() {
				if o.From() == m.From() && o.To() == m.To() {
					same++
				}
			}
			got, err = p.ParseMove(short)
			switch {
			case same == 1 && (err != nil || got != m):
				t.Fatalf("%s: ParseMove(%q) = %v, %v, want %s", p.FEN(), short, got, err, m)
			case same > 1 && (err == nil || !strings.Contains(err.Error(), "ambiguous")):
				t.Fatalf("%s: ParseMove(%q) = %v, %v, want ambiguous", p.FEN(), short, got, err)
			case same > 1:
				ambiguous++
			}
		}
	}
	if ambiguous == 0 {
		t.Errorf("no ambiguous short capture met")
	}
}

// TestParseMoveErrors: malformed, illegal and ambiguous moves fail with an
// error naming the move and the position.
func TestParseMoveErrors(t *testing.T) {
	for _, c := range []struct{ fen, move, want string }{
		{"W:W21-32:B1-12", "", `move "": want squares`},
		{"W:W21-32:B1-12", "22", `move "22": want squares`},
		{"W:W21-32:B1-12", "22-", `move "22-": want squares`},
		{"W:W21-32:B1-12", "22--18", `move "22--18": want squares`},
		{"W:W21-32:B1-12", "22-33", `move "22-33": want squares`},
		{"W:W21-32:B1-12", "e3-d4", `move "e3-d4": want squares`},
		{"W:W21-32:B1-12", "22-17", `move "22-17" is not legal in W:W21-32:B1-12 (legal: `},
		{"W:W22,29:B18", "29-25", `move "29-25" is not legal in W:W22,29:B18 (legal: 22x13)`},
		{"W:W22:BK18", "22x13", `move "22x13" is not legal in W:W22:BK18`},
		{"W:W27:B14,15,22,23", "27x11", `move "27x11" is ambiguous in W:W27:B14,15,22,23: write every landing square (27x18x11 27x20x11)`},
		{"W:WK27:B14,15,22,23", "27x27", `move "27x27" is ambiguous`},
		{"W:W:B1", "1-5", `move "1-5" is not legal in W:W:B1 (legal: none)`},
	} {
		p := mustFEN(t, c.fen)
		_, err := p.ParseMove(c.move)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ParseMove(%q) = %v, want an error containing %q", c.fen, c.move, err, c.want)
		}
	}
	// The accepted spellings.
	p := mustFEN(t, "W:W27:B14,15,22,23")
	for _, s := range []string{"27x18x11", " 27X18X11 ", "27-18-11"} {
		if m, err := p.ParseMove(s); err != nil || m.String() != "27x18x11" {
			t.Errorf("ParseMove(%q) = %v, %v", s, m, err)
		}
	}
}

// TestMoveAccessors: a move's parts, and the null move.
func TestMoveAccessors(t *testing.T) {
	p := mustFEN(t, "W:WK27:B14,15,22,23")
	m := mustMove(t, p, "27x18x11x20x27")
	if m.From() != SquareAt(27) || m.To() != SquareAt(27) || m.Landings() != 4 || m.Landing(1) != SquareAt(11) || m.NumCaptured() != 4 || m.Crowns() || !m.IsCapture() || m.IsNull() {
		t.Errorf("27x18x11x20x27: from %v to %v landings %d captured %d", m.From(), m.To(), m.Landings(), m.NumCaptured())
	}
	if NullMove.String() != "none" || !NullMove.IsNull() || NullMove.IsCapture() {
		t.Errorf("NullMove: %q", NullMove.String())
	}
	for n := 1; n <= 32; n++ {
		s := SquareAt(n)
		if s.Number() != n || s.String() != fmt.Sprint(n) || s.Bit() != 1<<(n-1) {
			t.Errorf("square %d: number %d, string %s", n, s.Number(), s)
		}
	}
	// Square geometry: 1 = a8, 4 = g8, 5 = b7, 29 = b1, 32 = h1.
	for _, c := range []struct{ n, row, file int }{{1, 0, 0}, {4, 0, 6}, {5, 1, 1}, {29, 7, 1}, {32, 7, 7}, {18, 4, 2}} {
		if s := SquareAt(c.n); s.Row() != c.row || s.File() != c.file {
			t.Errorf("square %d at row %d file %d, want %d %d", c.n, s.Row(), s.File(), c.row, c.file)
		}
	}
	if Neighbour(SquareAt(22), UpLeft) != SquareAt(18) || Neighbour(SquareAt(22), DownRight) != SquareAt(27) || Neighbour(SquareAt(1), UpLeft) != NoSquare || Neighbour(SquareAt(32), DownRight) != NoSquare {
		t.Errorf("neighbour table wrong")
	}
}
