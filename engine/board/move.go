package board

// Move is a move packed in 16 bits: from square (bits 0–5), to square (6–11),
// promotion piece (12–13: knight, bishop, rook, queen) and kind (14–15).
// Castling is encoded as the king's two-square move (e1g1), as in UCI.
// The zero value is NullMove, which is never a legal move.
type Move uint16

// NullMove is the empty move (a1a1); it also serves as "no move".
const NullMove Move = 0

// Move kinds, stored in bits 14–15.
const (
	kindNormal    = 0
	kindPromotion = 1 << 14
	kindEnPassant = 2 << 14
	kindCastling  = 3 << 14
	kindMask      = 3 << 14
)

// NewMove returns a normal (non-special) move.
func NewMove(from, to Square) Move { return Move(from) | Move(to)<<6 }

// NewPromotion returns a promotion to piece type pt (Knight..Queen).
func NewPromotion(from, to Square, pt PieceType) Move {
	return Move(from) | Move(to)<<6 | Move(pt-Knight)<<12 | kindPromotion
}

func newEnPassant(from, to Square) Move { return Move(from) | Move(to)<<6 | kindEnPassant }
func newCastling(from, to Square) Move  { return Move(from) | Move(to)<<6 | kindCastling }

// From returns the square the move leaves.
func (m Move) From() Square { return Square(m & 63) }

// To returns the square the move reaches (the king's destination for castling).
func (m Move) To() Square { return Square(m >> 6 & 63) }

// IsPromotion reports whether the move promotes a pawn.
func (m Move) IsPromotion() bool { return m&kindMask == kindPromotion }

// IsEnPassant reports whether the move is an en-passant capture.
func (m Move) IsEnPassant() bool { return m&kindMask == kindEnPassant }

// IsCastling reports whether the move is castling.
func (m Move) IsCastling() bool { return m&kindMask == kindCastling }

// Promotion returns the piece type promoted to, or NoPieceType.
func (m Move) Promotion() PieceType {
	if !m.IsPromotion() {
		return NoPieceType
	}
	return Knight + PieceType(m>>12&3)
}

// String returns the move in UCI notation (e2e4, e7e8q, e1g1); the null move is "0000".
func (m Move) String() string {
	if m == NullMove {
		return "0000"
	}
	b := make([]byte, 0, 5)
	b = append(b, m.From().String()...)
	b = append(b, m.To().String()...)
	if m.IsPromotion() {
		b = append(b, "nbrq"[m>>12&3])
	}
	return string(b)
}

// MoveList is a fixed-capacity list of moves that lives on the caller's stack,
// so that move generation allocates nothing.
type MoveList struct {
	Moves [256]Move
	N     int
}

// Slice returns the generated moves.
func (l *MoveList) Slice() []Move { return l.Moves[:l.N] }
