package dama

import "testing"

// FuzzParseFEN: any text either fails to read or reads to a position whose
// FEN reads back to the same position, with a consistent hash and moves
// that all play and take back cleanly.
func FuzzParseFEN(f *testing.F) {
	for _, s := range []string{"W:W21-32:B1-12", "B:WK5,21:B1,K30", "W:W:B", "B:B1-3,K9:WK30", "W:W21-32:B1-12.", "W:WK1-3:BK4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseFEN(s)
		if err != nil {
			return
		}
		q, err := ParseFEN(p.FEN())
		if err != nil || q.FEN() != p.FEN() || q.Hash() != p.Hash() || p.Hash() != p.computeHash() {
			t.Fatalf("%q: FEN %q does not read back (%v)", s, p.FEN(), err)
		}
		var l MoveList
		p.GenerateMoves(&l)
		for _, m := range l.Slice() {
			p.MakeMove(m)
			if p.Hash() != p.computeHash() {
				t.Fatalf("%q %s: hash", s, m)
			}
			p.UnmakeMove()
			if p.FEN() != q.FEN() {
				t.Fatalf("%q %s: unmake gives %s", s, m, p.FEN())
			}
			if got, err := p.ParseMove(m.String()); err != nil || got != m {
				t.Fatalf("%q: %s reads back as %v (%v)", s, m, got, err)
			}
		}
	})
}

// FuzzParseMove: any text either fails or names one of the legal moves.
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"22-18", "27x18x11", "27x11", "1-5", "x", "22x", "--"} {
		f.Add(s)
	}
	p, err := ParseFEN("W:W27,31,K6:B14,15,22,23,28")
	if err != nil {
		f.Fatal(err)
	}
	var l MoveList
	p.GenerateMoves(&l)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := p.ParseMove(s)
		if err != nil {
			return
		}
		for _, o := range l.Slice() {
			if o == m {
				return
			}
		}
		t.Fatalf("%q reads as %v, not a legal move", s, m)
	})
}
