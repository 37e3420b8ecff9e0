package board

import (
	"fmt"
	"strconv"
	"strings"
)

// FENError describes why a FEN string was rejected: which field and why.
type FENError struct {
	Field  string // "placement", "side", "castling", "en passant", "halfmove", "fullmove" or "fen"
	Reason string
}

func (e *FENError) Error() string {
	return fmt.Sprintf("bad FEN %s field: %s", e.Field, e.Reason)
}

func fenErr(field, format string, args ...any) error {
	return &FENError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// ParseFEN reads a position in Forsyth–Edwards Notation. The halfmove and
// fullmove counters may be omitted (EPD style); they then default to 0 and 1.
// The position must be legal as a chess position: one king a side, no pawns
// on the first or last rank, no more promoted pieces than missing pawns, the
// side not to move not in check, castling
// rights backed by king and rook on their squares, and an en-passant square
// that a double push could just have made.
func ParseFEN(fen string) (*Position, error) {
	fields := strings.Fields(fen)
	if len(fields) < 4 || len(fields) > 6 {
		return nil, fenErr("fen", "want 6 space-separated fields (placement, side, castling, en passant, halfmove, fullmove), got %d", len(fields))
	}
	p := &Position{history: make([]state, 0, 256)}
	for s := range p.board {
		p.board[s] = NoPiece
	}
	if err := p.parsePlacement(fields[0]); err != nil {
		return nil, err
	}
	switch fields[1] {
	case "w":
		p.side = White
	case "b":
		p.side = Black
	default:
		return nil, fenErr("side", "want \"w\" or \"b\", got %q", fields[1])
	}
	if err := p.parseCastling(fields[2]); err != nil {
		return nil, err
	}
	p.st.ep = NoSquare
	if err := p.parseEnPassant(fields[3]); err != nil {
		return nil, err
	}
	p.fullmove = 1
	if len(fields) > 4 {
		n, err := strconv.Atoi(fields[4])
		if err != nil || n < 0 || n > 10000 {
			return nil, fenErr("halfmove", "want a whole number from 0, got %q", fields[4])
		}
		p.st.halfmove = n
	}
	if len(fields) > 5 {
		n, err := strconv.Atoi(fields[5])
		if err != nil || n < 1 || n > 100000 {
			return nil, fenErr("fullmove", "want a whole number from 1, got %q", fields[5])
		}
		p.fullmove = n
	}
	them := p.side.Other()
	if p.IsAttacked(p.KingSquare(them), p.side) {
		return nil, fenErr("placement", "the side not to move (%s) is in check", them)
	}
	p.st.checkers = p.AttackersTo(p.KingSquare(p.side), p.Occupied()) & p.colors[them]
	if p.st.checkers.Count() > 2 {
		return nil, fenErr("placement", "the side to move is in check from %d pieces", p.st.checkers.Count())
	}
	p.st.move = NullMove
	p.st.captured = NoPiece
	p.setEnPassant(p.st.ep)
	p.st.hash = p.computeHash()
	return p, nil
}

func (p *Position) parsePlacement(s string) error {
	ranks := strings.Split(s, "/")
	if len(ranks) != 8 {
		return fenErr("placement", "want 8 ranks separated by '/', got %d", len(ranks))
	}
	for i, row := range ranks {
		r := 7 - i
		f := 0
		for j := 0; j < len(row); j++ {
			c := row[j]
			switch {
			case c >= '1' && c <= '8':
				f += int(c - '0')
			default:
				k := strings.IndexByte(pieceLetters, c)
				if k < 0 {
					return fenErr("placement", "rank %d: unknown piece letter %q", r+1, c)
				}
				if f > 7 {
					return fenErr("placement", "rank %d has more than 8 squares", r+1)
				}
				p.putNoHash(Piece(k), MakeSquare(f, r))
				f++
			}
			if f > 8 {
				return fenErr("placement", "rank %d has more than 8 squares", r+1)
			}
		}
		if f != 8 {
			return fenErr("placement", "rank %d has %d squares, want 8", r+1, f)
		}
	}
	for _, c := range [2]Color{White, Black} {
		if n := p.Pieces(c, King).Count(); n != 1 {
			return fenErr("placement", "%s has %d kings, want 1", c, n)
		}
		if n := p.Pieces(c, Pawn).Count(); n > 8 {
			return fenErr("placement", "%s has %d pawns, at most 8 are possible", c, n)
		}
		if n := p.colors[c].Count(); n > 16 {
			return fenErr("placement", "%s has %d pieces, at most 16 are possible", c, n)
		}
		// Pieces beyond the initial set (a second queen, a third rook,
		// knight or a second bishop on one square colour) are promoted
		// pawns, so they and the pawns left can number at most 8.
		bishops := p.Pieces(c, Bishop)
		extra := max(0, p.Pieces(c, Queen).Count()-1) + max(0, p.Pieces(c, Rook).Count()-2) +
			max(0, p.Pieces(c, Knight).Count()-2) +
			max(0, (bishops&LightSquares).Count()-1) + max(0, (bishops&DarkSquares).Count()-1)
		if pawns := p.Pieces(c, Pawn).Count(); pawns+extra > 8 {
			return fenErr("placement", "%s has %d pawns and %d promoted pieces, more than the 8 pawns it started with", c, pawns, extra)
		}
	}
	if b := p.pieces[Pawn] & (Rank1 | Rank8); b != 0 {
		return fenErr("placement", "pawn on %s: pawns cannot stand on the first or last rank", b.LSB())
	}
	return nil
}

func (p *Position) putNoHash(pc Piece, s Square) {
	p.board[s] = pc
	p.pieces[pc.Type()] |= SquareBB(s)
	p.colors[pc.Color()] |= SquareBB(s)
}

func (p *Position) parseCastling(s string) error {
	if s == "-" {
		return nil
	}
	type need struct {
		right      CastleRights
		king, rook Piece
		ksq, rsq   Square
	}
	wk, wr := MakePiece(White, King), MakePiece(White, Rook)
	bk, br := MakePiece(Black, King), MakePiece(Black, Rook)
	table := map[byte]need{
		'K': {WhiteKingside, wk, wr, E1, H1},
		'Q': {WhiteQueenside, wk, wr, E1, A1},
		'k': {BlackKingside, bk, br, E8, H8},
		'q': {BlackQueenside, bk, br, E8, A8},
	}
	for i := 0; i < len(s); i++ {
		n, ok := table[s[i]]
		if !ok {
			return fenErr("castling", "want \"-\" or letters from KQkq, got %q", s)
		}
		if p.st.castle&n.right != 0 {
			return fenErr("castling", "right %q given twice in %q", s[i], s)
		}
		if p.board[n.ksq] != n.king {
			return fenErr("castling", "right %q needs the king on %s", s[i], n.ksq)
		}
		if p.board[n.rsq] != n.rook {
			return fenErr("castling", "right %q needs a rook on %s", s[i], n.rsq)
		}
		p.st.castle |= n.right
	}
	return nil
}

func (p *Position) parseEnPassant(s string) error {
	if s == "-" {
		return nil
	}
	ep, ok := ParseSquare(s)
	if !ok {
		return fenErr("en passant", "want \"-\" or a square such as e3, got %q", s)
	}
	// White to move: Black just pushed a pawn from rank 7 to rank 5, so the
	// target is on rank 6 with that pawn below it and both squares it
	// crossed empty.
	wantRank, pawnSq, fromSq := 5, ep-8, ep+8
	mover := Black
	if p.side == Black {
		wantRank, pawnSq, fromSq = 2, ep+8, ep-8
		mover = White
	}
	if ep.Rank() != wantRank {
		return fenErr("en passant", "%s is not on rank %d, where a %s double push leaves its target", s, wantRank+1, mover)
	}
	if p.board[pawnSq] != MakePiece(mover, Pawn) {
		return fenErr("en passant", "%s needs a %s pawn on %s that just made a double push", s, mover, pawnSq)
	}
	if p.board[ep] != NoPiece || p.board[fromSq] != NoPiece {
		return fenErr("en passant", "%s: the squares the pawn crossed (%s, %s) must be empty", s, fromSq, ep)
	}
	p.st.ep = ep
	return nil
}

// FEN returns the position in Forsyth–Edwards Notation. The en-passant field
// is written after every double push, whether or not a capture is possible.
func (p *Position) FEN() string {
	var b strings.Builder
	b.Grow(90)
	var grid [64]byte
	for sq := range grid {
		if pc := p.board[sq]; pc != NoPiece {
			grid[sq] = pc.Letter()
		}
	}
	writePlacement(&b, &grid)
	if p.side == White {
		b.WriteString(" w ")
	} else {
		b.WriteString(" b ")
	}
	b.WriteString(p.st.castle.String())
	b.WriteByte(' ')
	b.WriteString(p.st.ep.String())
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(p.st.halfmove))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(p.fullmove))
	return b.String()
}

// String returns a picture of the board, rank 8 at the top, with the FEN and hash.
func (p *Position) String() string {
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		b.WriteString(" +---+---+---+---+---+---+---+---+\n")
		for f := 0; f < 8; f++ {
			pc := p.board[MakeSquare(f, r)]
			c := byte(' ')
			if pc != NoPiece {
				c = pc.Letter()
			}
			b.WriteString(" | ")
			b.WriteByte(c)
		}
		fmt.Fprintf(&b, " | %d\n", r+1)
	}
	b.WriteString(" +---+---+---+---+---+---+---+---+\n")
	b.WriteString("   a   b   c   d   e   f   g   h\n\n")
	fmt.Fprintf(&b, "Fen: %s\nKey: %016X\n", p.FEN(), p.Hash())
	return b.String()
}

// Placement returns FEN's first field, the piece placement, for a grid of
// FEN piece letters indexed by square (a1 = 0, h8 = 63), 0 for an empty
// square: for callers that build positions square by square (generated
// endgames, decoded training data) and then parse the whole FEN.
func Placement(grid *[64]byte) string {
	var b strings.Builder
	b.Grow(71)
	writePlacement(&b, grid)
	return b.String()
}

// writePlacement writes the piece placement of grid (see Placement) to b,
// rank 8 first.
func writePlacement(b *strings.Builder, grid *[64]byte) {
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := range 8 {
			c := grid[r*8+f]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(c)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
}
