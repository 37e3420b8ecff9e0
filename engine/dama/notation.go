package dama

import (
	"fmt"
	"strings"
)

// ParseMove reads a move in standard notation ("22-18", "27x18x9x2") and
// returns the legal move it names. A capture may also be written with its
// start and end alone ("27x2") when only one legal capture route joins them.
// The error names the move and the position (as FEN) when the text is
// malformed, names no legal move, or names several.
func (p *Position) ParseMove(text string) (Move, error) {
	t := strings.TrimSpace(text)
	var sq [MaxCaptures + 2]Square
	n := 0
	for part := range strings.FieldsFuncSeq(t, func(r rune) bool { return r == '-' || r == 'x' || r == 'X' }) {
		s, err := parseSquareNumber(part)
		if err != nil || n == len(sq) {
			return NullMove, fmt.Errorf("move %q: want squares 1-32 joined by - or x (22-18, 27x18x9x2)", text)
		}
		sq[n] = s
		n++
	}
	if n < 2 || strings.Count(t, "-")+strings.Count(strings.ToLower(t), "x") != n-1 {
		return NullMove, fmt.Errorf("move %q: want squares 1-32 joined by - or x (22-18, 27x18x9x2)", text)
	}
	var l MoveList
	p.GenerateMoves(&l)
	var short []Move
	for _, m := range l.Slice() {
		if m.From() != sq[0] {
			continue
		}
		if m.Landings() == n-1 {
			same := true
			for i := 1; i < n; i++ {
				same = same && m.Landing(i-1) == sq[i]
			}
			if same {
				return m, nil
			}
		}
		if n == 2 && m.To() == sq[1] {
			short = append(short, m)
		}
	}
	switch len(short) {
	case 1:
		return short[0], nil
	case 0:
		return NullMove, fmt.Errorf("move %q is not legal in %s (legal: %s)", text, p.FEN(), joinMoves(l.Slice()))
	default:
		return NullMove, fmt.Errorf("move %q is ambiguous in %s: write every landing square (%s)", text, p.FEN(), joinMoves(short))
	}
}

// joinMoves writes moves separated by spaces.
func joinMoves(ms []Move) string {
	if len(ms) == 0 {
		return "none"
	}
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, " ")
}
