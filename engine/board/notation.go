package board

import (
	"fmt"
	"strings"
)

// ParseUCIMove reads a move in UCI notation (e2e4, e7e8q, e1g1) and returns
// it if it is legal in the position; otherwise an error says why.
func (p *Position) ParseUCIMove(s string) (Move, error) {
	if len(s) != 4 && len(s) != 5 {
		return NullMove, fmt.Errorf("move %q: want UCI notation such as e2e4 or e7e8q", s)
	}
	from, ok1 := ParseSquare(s[0:2])
	to, ok2 := ParseSquare(s[2:4])
	if !ok1 || !ok2 {
		return NullMove, fmt.Errorf("move %q: want UCI notation such as e2e4 or e7e8q", s)
	}
	promo := NoPieceType
	if len(s) == 5 {
		switch s[4] {
		case 'n':
			promo = Knight
		case 'b':
			promo = Bishop
		case 'r':
			promo = Rook
		case 'q':
			promo = Queen
		default:
			return NullMove, fmt.Errorf("move %q: promotion piece must be one of n, b, r, q", s)
		}
	}
	var list MoveList
	p.GenerateLegal(&list)
	for _, m := range list.Slice() {
		if m.From() == from && m.To() == to && m.Promotion() == promo {
			return m, nil
		}
	}
	return NullMove, fmt.Errorf("move %q is not legal in %s", s, p.FEN())
}

// IsCapture reports whether m captures in this position (en passant included).
func (p *Position) IsCapture(m Move) bool {
	return m.IsEnPassant() || (!m.IsCastling() && p.board[m.To()] != NoPiece)
}

// SAN returns the legal move m in Standard Algebraic Notation (Nf3, exd5,
// O-O, e8=Q+, Qh4#), for PGN.
func (p *Position) SAN(m Move) string {
	var b strings.Builder
	from, to := m.From(), m.To()
	pc := p.board[from]
	switch {
	case m.IsCastling():
		if to.File() == 6 {
			b.WriteString("O-O")
		} else {
			b.WriteString("O-O-O")
		}
	case pc.Type() == Pawn:
		if p.IsCapture(m) {
			b.WriteByte(byte('a' + from.File()))
			b.WriteByte('x')
		}
		b.WriteString(to.String())
		if m.IsPromotion() {
			b.WriteByte('=')
			b.WriteByte("NBRQ"[m.Promotion()-Knight])
		}
	default:
		b.WriteByte("PNBRQK"[pc.Type()])
		// Disambiguate among other pieces of the same kind that can reach to.
		var list MoveList
		p.GenerateLegal(&list)
		sameFile, sameRank, others := false, false, false
		for _, o := range list.Slice() {
			if o.To() == to && o.From() != from && p.board[o.From()] == pc {
				others = true
				if o.From().File() == from.File() {
					sameFile = true
				}
				if o.From().Rank() == from.Rank() {
					sameRank = true
				}
			}
		}
		if others {
			switch {
			case !sameFile:
				b.WriteByte(byte('a' + from.File()))
			case !sameRank:
				b.WriteByte(byte('1' + from.Rank()))
			default:
				b.WriteString(from.String())
			}
		}
		if p.IsCapture(m) {
			b.WriteByte('x')
		}
		b.WriteString(to.String())
	}
	p.MakeMove(m)
	if p.InCheck() {
		if p.HasLegalMove() {
			b.WriteByte('+')
		} else {
			b.WriteByte('#')
		}
	}
	p.UnmakeMove()
	return b.String()
}
