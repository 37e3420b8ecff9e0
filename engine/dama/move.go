package dama

import (
	"math/bits"
	"strconv"
)

// MaxCaptures is the most pieces one move can capture (a side has at most
// twelve pieces).
const MaxCaptures = 12

// MaxMoves is the capacity of a MoveList. Non-captures are at most 48 (twelve
// kings with four steps each); captures that tie for the priority rules
// (distinct routes counted apart) stay far below it in every position the
// tests meet.
const MaxMoves = 256

// Move is one move as a value of fixed size (no slices): the starting
// square, every landing square in order, the squares of the pieces it
// captures and whether it crowns a man. A simple move has one landing
// square; a capture has one landing square per piece captured. Two moves are
// the same move exactly when they are == (unused landing slots are zero).
// The zero Move is NullMove.
type Move struct {
	path     [MaxCaptures + 1]Square // path[0] the start, path[1..n] the landings
	n        uint8                   // the number of landing squares
	crowns   bool                    // a man ends on its crowning row
	captured uint32                  // bit i: the piece on square i+1 is captured
}

// NullMove is the zero Move, "no move"; it is never legal.
var NullMove Move

// From returns the square the moving piece starts on.
func (m Move) From() Square { return m.path[0] }

// To returns the square the moving piece ends on (for a king's capture
// that closes a circuit, the square it started on).
func (m Move) To() Square { return m.path[m.n%(MaxCaptures+1)] }

// Landings returns the number of landing squares: 1 for a simple move, the
// number of pieces captured for a capture.
func (m Move) Landings() int { return int(m.n) }

// Landing returns the i-th landing square, 0 <= i < Landings().
func (m Move) Landing(i int) Square { return m.path[(i+1)%(MaxCaptures+1)] }

// IsCapture reports whether the move captures.
func (m Move) IsCapture() bool { return m.captured != 0 }

// Captured returns the squares of the captured pieces (bit i = square i+1).
func (m Move) Captured() uint32 { return m.captured }

// NumCaptured returns the number of pieces the move captures.
func (m Move) NumCaptured() int { return bits.OnesCount32(m.captured) }

// Crowns reports whether the move crowns a man.
func (m Move) Crowns() bool { return m.crowns }

// IsNull reports whether m is NullMove.
func (m Move) IsNull() bool { return m.n == 0 }

// String returns the move in standard notation: "22-18" for a simple move,
// every landing square for a capture ("27x18x9x2"); NullMove is "none".
func (m Move) String() string {
	if m.n == 0 {
		return "none"
	}
	var buf [3 * (MaxCaptures + 1)]byte
	b := strconv.AppendInt(buf[:0], int64(m.path[0])+1, 10)
	sep := byte('-')
	if m.captured != 0 {
		sep = 'x'
	}
	for i := 1; i <= int(m.n); i++ {
		b = append(b, sep)
		b = strconv.AppendInt(b, int64(m.path[i])+1, 10)
	}
	return string(b)
}

// MoveList is a fixed-capacity list of moves that lives on the caller's
// stack, so that move generation allocates nothing.
type MoveList struct {
	Moves [MaxMoves]Move
	N     int
}

// Len returns the number of moves in the list.
func (l *MoveList) Len() int { return l.N }

// At returns the i-th move.
func (l *MoveList) At(i int) Move { return l.Moves[i] }

// Slice returns the moves in the list.
func (l *MoveList) Slice() []Move { return l.Moves[:l.N] }
