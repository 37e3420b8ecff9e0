package dama

import (
	"strings"
	"testing"
)

// TestFENRoundTrip: FEN writes the forms PDN uses and reads back to the same
// position; equivalent spellings read to the same position.
func TestFENRoundTrip(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"W:W21-32:B1-12", "W:W21-32:B1-12"},
		{"B:WK5,21:B1,K30", "B:WK5,21:B1,K30"},
		{"B:B1,K30:WK5,21", "B:WK5,21:B1,K30"},                                                      // either order of the colour fields
		{" W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12. ", "W:W21-32:B1-12"}, // lists, spaces, final period
		{"W:WK1-3,5,6:B", "W:WK1-3,5,6:B"},                                                          // a range of kings, an empty side
		{"W:W21,22:BK29,K30,K31", "W:W21,22:BK29-31"},
		{"B:W:B9", "B:W:B9"},
	} {
		p, err := ParseFEN(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := p.FEN(); got != c.out {
			t.Errorf("%q: FEN() = %q, want %q", c.in, got, c.out)
		}
		q, err := ParseFEN(p.FEN())
		if err != nil || q.FEN() != p.FEN() || q.Hash() != p.Hash() || q.men != p.men || q.kings != p.kings || q.side != p.side {
			t.Errorf("%q does not read back: %v", p.FEN(), err)
		}
	}
	// Every position of random games and endgames reads back as written.
	for _, p := range randomPositions(t, 5, 10) {
		q, err := ParseFEN(p.FEN())
		if err != nil || q.men != p.men || q.kings != p.kings || q.side != p.side || q.Hash() != p.Hash() {
			t.Fatalf("%s does not read back: %v", p.FEN(), err)
		}
	}
	if StartPosition().FEN() != "W:W21-32:B1-12" {
		t.Errorf("start position: %s", StartPosition().FEN())
	}
}

// TestFENErrors: bad input fails with an error naming the field at fault.
func TestFENErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "want 3 fields"},
		{"W:W21-32", "want 3 fields"},
		{"W:W21-32:B1-12:H0", "want 3 fields"},
		{"X:W21-32:B1-12", `side-to-move field "X"`},
		{"W:W21-32:W1-12", `piece field "W1-12": white's pieces given twice`},
		{"W:Q21-32:B1-12", `piece field "Q21-32"`},
		{"W:W21-33:B1-12", `bad square or range "21-33"`},
		{"W:W0:B1", `bad square or range "0"`},
		{"W:W32-21:B1", `bad square or range "32-21"`},
		{"W:W21,x:B1", `bad square or range "x"`},
		{"W:W21,21:B1", "square 21 given twice"},
		{"W:W12:B12", "square 12 given twice"},
		{"W:W3:B12", "white man on square 3, its crowning row"},
		{"B:W21:B30", "black man on square 30, its crowning row"},
		{"W:W21,:B1", `bad square or range ""`},
		{"W:W16-28:B1", `piece field "W16-28": 13 pieces, at most 12`},
	} {
		_, err := ParseFEN(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseFEN(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestString: the diagram shows every piece where the FEN puts it.
func TestString(t *testing.T) {
	p := mustFEN(t, "B:WK5,21:B1,K30")
	want := "" +
		"   a b c d e f g h\n" +
		" 8 b   .   .   .     1-4\n" +
		" 7   W   .   .   .   5-8\n" +
		" 6 .   .   .   .     9-12\n" +
		" 5   .   .   .   .   13-16\n" +
		" 4 .   .   .   .     17-20\n" +
		" 3   w   .   .   .   21-24\n" +
		" 2 .   .   .   .     25-28\n" +
		" 1   .   B   .   .   29-32\n" +
		"Black to move\n"
	if got := p.String(); got != want {
		t.Errorf("String():\n%s\nwant:\n%s", got, want)
	}
}
