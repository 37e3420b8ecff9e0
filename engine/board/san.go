package board

import (
	"fmt"
	"strings"
)

// ParseSAN reads a move in Standard Algebraic Notation (Nf3, exd5, O-O,
// e8=Q+, Qh4#) and returns it if it is legal in the position; otherwise an
// error says why. It accepts the common variants found in PGN files:
// castling written with zeros (0-0, 0-0-0), a promotion without '=' (e8Q),
// check and mate marks, annotation glyphs (!, ?, !?, ...), an "e.p." suffix
// and more disambiguation than needed (Ng1f3). A capture mark on a move that
// captures nothing, too little disambiguation, or a pawn reaching the last
// rank without a promotion piece is an error.
func (p *Position) ParseSAN(s string) (Move, error) {
	text := strings.TrimSpace(s)
	text = strings.TrimSuffix(text, "e.p.")
	text = strings.TrimRight(text, "+#!? ")
	if text == "" {
		return NullMove, fmt.Errorf("move %q: empty", s)
	}
	var list MoveList
	p.GenerateLegal(&list)

	// Castling.
	switch strings.ReplaceAll(text, "0", "O") {
	case "O-O", "O-O-O":
		long := len(text) == 5
		for _, m := range list.Slice() {
			if m.IsCastling() && (m.To().File() == 2) == long {
				return m, nil
			}
		}
		return NullMove, fmt.Errorf("move %q: castling is not legal in %s", s, p.FEN())
	}

	// Piece letter.
	pt := Pawn
	if i := strings.IndexByte("NBRQK", text[0]); i >= 0 {
		pt = PieceType(i + int(Knight))
		text = text[1:]
	}
	// Promotion suffix: "=Q", "Q" (or a lower-case letter after '=').
	promo := NoPieceType
	if n := len(text); pt == Pawn && n >= 3 {
		c := text[n-1]
		if i := strings.IndexByte("NBRQ", c); i >= 0 || (text[n-2] == '=' && strings.IndexByte("nbrq", c) >= 0) {
			if i < 0 {
				i = strings.IndexByte("nbrq", c)
			}
			promo = PieceType(i + int(Knight))
			text = strings.TrimSuffix(text[:n-1], "=")
		}
	}
	// Destination square.
	if len(text) < 2 {
		return NullMove, fmt.Errorf("move %q: want SAN such as Nf3, exd5, O-O or e8=Q", s)
	}
	to, ok := ParseSquare(text[len(text)-2:])
	if !ok {
		return NullMove, fmt.Errorf("move %q: want SAN such as Nf3, exd5, O-O or e8=Q", s)
	}
	text = text[:len(text)-2]
	// Capture mark (a long-algebraic '-' is tolerated) and disambiguation.
	capture := false
	if n := len(text); n > 0 && (text[n-1] == 'x' || text[n-1] == ':' || text[n-1] == '-') {
		capture = text[n-1] != '-'
		text = text[:n-1]
	}
	fromFile, fromRank := -1, -1
	switch {
	case text == "":
	case len(text) == 1 && text[0] >= 'a' && text[0] <= 'h':
		fromFile = int(text[0] - 'a')
	case len(text) == 1 && text[0] >= '1' && text[0] <= '8':
		fromRank = int(text[0] - '1')
	case len(text) == 2:
		from, ok := ParseSquare(text)
		if !ok {
			return NullMove, fmt.Errorf("move %q: %q is not a square", s, text)
		}
		fromFile, fromRank = from.File(), from.Rank()
	default:
		return NullMove, fmt.Errorf("move %q: want SAN such as Nf3, exd5, O-O or e8=Q", s)
	}
	if pt == Pawn && capture && fromFile < 0 {
		return NullMove, fmt.Errorf("move %q: a pawn capture names its file (exd5)", s)
	}

	found, count := NullMove, 0
	for _, m := range list.Slice() {
		from := m.From()
		if m.To() != to || m.IsCastling() || p.board[from].Type() != pt || m.Promotion() != promo {
			continue
		}
		if (fromFile >= 0 && from.File() != fromFile) || (fromRank >= 0 && from.Rank() != fromRank) {
			continue
		}
		if pt == Pawn && fromFile < 0 && from.File() != to.File() {
			continue // "d5" is never a capture
		}
		found, count = m, count+1
	}
	switch {
	case count > 1:
		return NullMove, fmt.Errorf("move %q is ambiguous in %s", s, p.FEN())
	case count == 0:
		if pt == Pawn && promo == NoPieceType && (to.Rank() == 0 || to.Rank() == 7) {
			return NullMove, fmt.Errorf("move %q: a pawn reaching the last rank needs a promotion piece (=Q)", s)
		}
		return NullMove, fmt.Errorf("move %q is not legal in %s", s, p.FEN())
	case capture && !p.IsCapture(found):
		return NullMove, fmt.Errorf("move %q: marked as a capture but captures nothing in %s", s, p.FEN())
	}
	return found, nil
}
