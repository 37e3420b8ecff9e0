package dama

import "strconv"

// Square is a dark square, 0..31 for the squares numbered 1..32 in standard
// notation (Square(0) is square 1, a8 as White sees the board).
type Square int8

// NoSquare marks the absence of a square in the step and jump tables.
const NoSquare Square = -1

// NumSquares is the number of playing (dark) squares.
const NumSquares = 32

// SquareAt returns the square numbered n (1..32) in standard notation.
func SquareAt(n int) Square { return Square(n - 1) }

// Number returns the square's number in standard notation, 1..32.
func (s Square) Number() int { return int(s) + 1 }

// String returns the square's number in standard notation ("1".."32").
func (s Square) String() string { return strconv.Itoa(int(s) + 1) }

// Row returns the square's row from White's far side: 0 for squares 1-4
// (rank 8), 7 for squares 29-32 (rank 1).
func (s Square) Row() int { return int(s) >> 2 }

// File returns the square's file, 0 for a to 7 for h.
func (s Square) File() int {
	c := int(s) & 3
	if s.Row()&1 == 0 {
		return 2 * c
	}
	return 2*c + 1
}

// Bit returns the square's bit in a 32-bit board (bit i = square i+1).
func (s Square) Bit() uint32 { return 1 << (uint(s) & 31) }

// squareAtRowFile returns the dark square at row r and file f, or NoSquare
// when (r, f) is off the board or a light square.
func squareAtRowFile(r, f int) Square {
	if r < 0 || r > 7 || f < 0 || f > 7 || (r+f)&1 != 0 {
		return NoSquare
	}
	return Square(r*4 + f/2)
}

// Direction is one of the four diagonal directions, as White sees the board.
type Direction uint8

// The four diagonal directions. Up is toward row 0 (White's crowning row),
// the direction White's men move; Black's men move down.
const (
	UpLeft Direction = iota
	UpRight
	DownLeft
	DownRight
)

// Masks of the 32-bit layout: bit i is square i+1, four squares a row.
const (
	rowsEven  uint32 = 0x0F0F0F0F // rows 0, 2, 4, 6: squares on files a, c, e, g
	rowsOdd   uint32 = 0xF0F0F0F0 // rows 1, 3, 5, 7: squares on files b, d, f, h
	colFirst  uint32 = 0x11111111 // the first square of each row
	colLast   uint32 = 0x88888888 // the last square of each row
	rowTop    uint32 = 0x0000000F // squares 1-4: White's crowning row
	rowBottom uint32 = 0xF0000000 // squares 29-32: Black's crowning row
)

// crownRow holds each colour's crowning row.
var crownRow = [2]uint32{rowTop, rowBottom}

// Step functions: every square of b moved one square in a direction, the
// squares that would leave the board dropped. The shift depends on the row's
// parity, because the rows alternate between files a,c,e,g and b,d,f,h.
func stepUpLeft(b uint32) uint32    { return (b&rowsOdd)>>4 | (b&rowsEven&^colFirst)>>5 }
func stepUpRight(b uint32) uint32   { return (b&rowsOdd&^colLast)>>3 | (b&rowsEven)>>4 }
func stepDownLeft(b uint32) uint32  { return (b&rowsOdd)<<4 | (b&rowsEven&^colFirst)<<3 }
func stepDownRight(b uint32) uint32 { return (b&rowsOdd&^colLast)<<5 | (b&rowsEven)<<4 }

// Tables built once at start-up: the neighbour of each square in each
// direction and the square two steps away (where a capture lands), NoSquare
// off the board.
var (
	neighbour [NumSquares][4]Square
	jumpTo    [NumSquares][4]Square
)

// Neighbour returns the square next to s in direction d, or NoSquare.
func Neighbour(s Square, d Direction) Square { return neighbour[s&31][d&3] }

func init() {
	dr := [4]int{-1, -1, 1, 1}
	df := [4]int{-1, 1, -1, 1}
	for s := Square(0); s < NumSquares; s++ {
		for d := range 4 {
			neighbour[s][d] = squareAtRowFile(s.Row()+dr[d], s.File()+df[d])
			jumpTo[s][d] = squareAtRowFile(s.Row()+2*dr[d], s.File()+2*df[d])
		}
	}
}
