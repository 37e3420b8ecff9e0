package dama

import (
	"slices"
	"testing"
)

// legalStrings returns the legal moves' notation, sorted.
func legalStrings(p *Position) []string {
	var l MoveList
	p.GenerateMoves(&l)
	out := make([]string, 0, l.N)
	for _, m := range l.Slice() {
		out = append(out, m.String())
	}
	slices.Sort(out)
	return out
}

func mustFEN(t *testing.T, fen string) *Position {
	t.Helper()
	p, err := ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRulesOnlyLegalMoves: hand-built positions, each exercising one rule,
// with every legal move named. The simple implementation in naive_test.go
// must agree on each.
func TestRulesOnlyLegalMoves(t *testing.T) {
	cases := []struct {
		name, fen string
		want      []string
	}{
		{"start position", "W:W21-32:B1-12", []string{"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"}},
		{"black replies", "B:W17,22-32:B1-12", []string{"9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"}},
		{"capture is compulsory", "W:W22,29:B18", []string{"22x13"}},
		{"a man cannot take a king", "W:W22:BK18", []string{"22-19"}},
		{"a king takes a man backward", "W:WK13:B18", []string{"13x22"}},
		{"a black king takes a man", "B:W22:BK18", []string{"18x27"}},
		{"a king steps one square, no flying", "W:WK29:B4", []string{"29-25", "29-26"}},
		{"men move forward only", "W:W18:B4", []string{"18-13", "18-14"}},
		{"black men move down", "B:W32:B18", []string{"18-21", "18-22"}},
		{"rule 1: the most pieces", "W:W27,31:B13,22,28", []string{"27x18x9"}},
		{"rule 1 before rule 2: a man's two beat a king's one", "W:W31,K18:B14,20,28", []string{"31x24x15"}},
		{"rule 2: a king's capture before a man's", "W:W31,K18:B14,28", []string{"18x11"}},
		{"rule 3: the most kings", "W:WK18:B14,K13", []string{"18x9"}},
		{"rule 4: a king met earliest", "W:WK18:B5,22,K13,K23", []string{"18x9x2"}},
		{"rule 4: the second king met earliest", "W:WK27:B7,13,K5,K14,K22", []string{"27x18x11x4"}},
		{"equal captures are a free choice", "W:WK18:B13,14", []string{"18x11", "18x9"}},
		{"a man crowned mid-chain stops", "W:W10:B6,7", []string{"10x3"}},
		{"a black man crowned mid-chain stops", "B:W27,28:B22", []string{"22x31"}},
		{"the start square is free: two circuits", "W:WK27:B14,15,22,23", []string{"27x18x11x20x27", "27x20x11x18x27"}},
		{"a piece is jumped once only", "W:WK27:B22,23", []string{"27x18", "27x20"}},
		{"a king's circuit back to its start", "W:WK18:B5,6,13,14", []string{"18x9x2x11x18", "18x11x2x9x18"}},
		{"a man's two routes to one square", "W:W27:B14,15,22,23", []string{"27x18x11", "27x20x11"}},
		{"blocked: no moves", "W:W32:B23,28", nil},
		{"no pieces: no moves", "W:W:B1", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustFEN(t, c.fen)
			got := legalStrings(p)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: legal %v, want %v\n%s", c.fen, got, want, p)
			}
			b := naiveFrom(p)
			var naive []string
			for _, m := range b.moves() {
				naive = append(naive, m.notation())
			}
			slices.Sort(naive)
			if !slices.Equal(naive, want) {
				t.Errorf("%s: the simple implementation finds %v, want %v", c.fen, naive, want)
			}
			if (len(want) == 0) != (p.Outcome() == NoMoves) || p.HasMoves() != (len(want) > 0) {
				t.Errorf("%s: outcome %v, HasMoves %v with %d legal moves", c.fen, p.Outcome(), p.HasMoves(), len(want))
			}
		})
	}
}

// TestCrowning: a man reaching the last row becomes a king, by a step or
// at the end of a capture, and the move's Crowns says so.
func TestCrowning(t *testing.T) {
	for _, c := range []struct {
		fen, move, after string
		crowns           bool
	}{
		{"W:W10:B6,7", "10x3", "B:WK3:B7", true},
		{"W:W5:B20", "5-1", "B:WK1:B20", true},
		{"B:W27,28:B22", "22x31", "W:W28:BK31", true},
		{"B:WK1:B28", "28-32", "W:WK1:BK32", true},
		{"W:WK6:B20", "6-2", "B:WK2:B20", false}, // a king stays a king
		{"W:W10:B20", "10-6", "B:W6:B20", false},
	} {
		p := mustFEN(t, c.fen)
		m := mustMove(t, p, c.move)
		p.MakeMove(m)
		if p.FEN() != c.after {
			t.Errorf("%s after %s: %s, want %s", c.fen, c.move, p.FEN(), c.after)
		}
		if m.Crowns() != c.crowns {
			t.Errorf("%s %s: Crowns() = %v", c.fen, c.move, m.Crowns())
		}
		p.UnmakeMove()
		if p.FEN() != mustFEN(t, c.fen).FEN() || p.Hash() != mustFEN(t, c.fen).Hash() {
			t.Errorf("%s: unmake gives %s", c.fen, p.FEN())
		}
	}
}

func mustMove(t *testing.T, p *Position, text string) Move {
	t.Helper()
	m, err := p.ParseMove(text)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCaptureRemovesPieces: a chain removes every captured piece, men and
// kings, when the move is made; unmake puts them back as they were.
func TestCaptureRemovesPieces(t *testing.T) {
	p := mustFEN(t, "W:WK27:B7,13,K5,K14,K22")
	m := mustMove(t, p, "27x18x11x4")
	if m.NumCaptured() != 3 || m.Captured() != SquareAt(7).Bit()|SquareAt(14).Bit()|SquareAt(22).Bit() || m.Landings() != 3 || m.To() != SquareAt(4) {
		t.Fatalf("27x18x11x4: captured %#x (%d), landings %d, to %v", m.Captured(), m.NumCaptured(), m.Landings(), m.To())
	}
	p.MakeMove(m)
	if got := p.FEN(); got != "B:WK4:BK5,13" {
		t.Errorf("after 27x18x11x4: %s", got)
	}
	p.UnmakeMove()
	if got := p.FEN(); got != "W:WK27:BK5,7,13,K14,K22" {
		t.Errorf("after unmake: %s", got)
	}
}
