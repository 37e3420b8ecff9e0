package board

// Color is the side: White or Black.
type Color uint8

// The two colours.
const (
	White Color = iota
	Black
)

// Other returns the opposite colour.
func (c Color) Other() Color { return c ^ 1 }

func (c Color) String() string {
	if c == White {
		return "white"
	}
	return "black"
}

// PieceType is a kind of piece without colour.
type PieceType uint8

// The piece types, in the order of the input planes.
const (
	Pawn PieceType = iota
	Knight
	Bishop
	Rook
	Queen
	King
	NoPieceType
)

// Piece is a coloured piece: White pieces 0–5, Black pieces 6–11, as in the
// input planes; NoPiece marks an empty square.
type Piece uint8

// NoPiece marks an empty square.
const NoPiece Piece = 12

// MakePiece returns the piece of colour c and type t.
func MakePiece(c Color, t PieceType) Piece { return Piece(uint8(c)*6 + uint8(t)) }

// Color returns the piece's colour. It must not be called on NoPiece.
func (p Piece) Color() Color {
	if p >= 6 {
		return Black
	}
	return White
}

// Type returns the piece's type, or NoPieceType for NoPiece.
func (p Piece) Type() PieceType { return pieceTypes[p&15] }

// pieceTypes[p] is the type of piece p: a look-up without a branch, as
// the search asks for the types of captured pieces, empty squares included.
var pieceTypes = [16]PieceType{Pawn, Knight, Bishop, Rook, Queen, King,
	Pawn, Knight, Bishop, Rook, Queen, King, NoPieceType, NoPieceType, NoPieceType, NoPieceType}

const pieceLetters = "PNBRQKpnbrqk"

// Letter returns the FEN letter of the piece ('P', 'n', ...), or '.' for NoPiece.
func (p Piece) Letter() byte {
	if p >= NoPiece {
		return '.'
	}
	return pieceLetters[p]
}

// Square is a board square: a1 = 0, h1 = 7, a8 = 56, h8 = 63.
type Square int8

// NoSquare marks the absence of a square (no en-passant target).
const NoSquare Square = 64

// Named squares used by castling and tests.
const (
	A1 Square = iota
	B1
	C1
	D1
	E1
	F1
	G1
	H1
)

// Named squares on the eighth rank.
const (
	A8 Square = iota + 56
	B8
	C8
	D8
	E8
	F8
	G8
	H8
)

// MakeSquare returns the square on file f and rank r (both 0–7).
func MakeSquare(f, r int) Square { return Square(r*8 + f) }

// File returns the square's file, 0 (a) to 7 (h).
func (s Square) File() int { return int(s) & 7 }

// Rank returns the square's rank, 0 (rank 1) to 7 (rank 8).
func (s Square) Rank() int { return int(s) >> 3 }

// Mirror returns the square reflected across the middle of the board (a1 <-> a8).
func (s Square) Mirror() Square { return s ^ 56 }

func (s Square) String() string {
	if s < 0 || s >= 64 {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

// ParseSquare reads a square such as "e4".
func ParseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, false
	}
	return MakeSquare(int(s[0]-'a'), int(s[1]-'1')), true
}

// CastleRights is a set of castling rights, one bit each.
type CastleRights uint8

// The four castling rights.
const (
	WhiteKingside CastleRights = 1 << iota
	WhiteQueenside
	BlackKingside
	BlackQueenside
	AllCastling = WhiteKingside | WhiteQueenside | BlackKingside | BlackQueenside
)

func (c CastleRights) String() string {
	if c == 0 {
		return "-"
	}
	s := make([]byte, 0, 4)
	for i, l := range "KQkq" {
		if c&(1<<i) != 0 {
			s = append(s, byte(l))
		}
	}
	return string(s)
}
