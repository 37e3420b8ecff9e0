package dama

import (
	"math/bits"
	"strconv"
)

// MaxCaptures is the most pieces one move can capture (a side has at most
// twelve pieces).
const MaxCaptures = 12

// MaxMoves is the capacity of a MoveList, above the most legal moves any
// position has. Simple moves are at most 48 (twelve kings with four steps
// each). The captures kept are routes of one length, and no piece has more
// than 8 routes of its longest length: a man jumps at most three times,
// choosing between two directions each time (2³); a king lands only on the
// squares of one of four lattices of eight squares, each capture an edge
// between two of them over one of nine fixed squares, and over every set of
// those nine squares holding enemy pieces (blockers only take edges away)
// its longest routes number at most 8 (TestRoutesPerPieceBound enumerates
// them). Twelve pieces then have at most 96.
const MaxMoves = 128

// Move is one move as a small value of fixed size (12 bytes, no slices):
// the starting and final squares, the squares of the pieces it captures,
// the direction of each jump (from which every landing square follows) and
// whether it crowns a man. A simple move has one landing square; a capture
// has one per piece captured. Two moves are the same move exactly when they
// are ==. The zero Move is NullMove.
type Move struct {
	captured uint32 // bit i: the piece on square i+1 is captured
	info     uint32 // from (bits 0-4), to (5-9), landings (10-13), crowns (14)
	jumps    uint32 // the direction of jump i in bits 2i..2i+1; 0 for a simple move
}

// Fields of Move.info.
const (
	infoTo       = 5
	infoLandings = 10
	infoCrowns   = 1 << 14
)

// NullMove is the zero Move, "no move"; it is never legal.
var NullMove Move

// newMove returns a move from from to to with n landings.
func newMove(from, to Square, n int, crowns bool, captured, jumps uint32) Move {
	info := uint32(from)&31 | (uint32(to)&31)<<infoTo | uint32(n)<<infoLandings
	if crowns {
		info |= infoCrowns
	}
	return Move{captured: captured, info: info, jumps: jumps}
}

// From returns the square the moving piece starts on.
func (m Move) From() Square { return Square(m.info & 31) }

// To returns the square the moving piece ends on (for a king's capture
// that closes a circuit, the square it started on).
func (m Move) To() Square { return Square(m.info >> infoTo & 31) }

// Landings returns the number of landing squares: 1 for a simple move, the
// number of pieces captured for a capture.
func (m Move) Landings() int { return int(m.info >> infoLandings & 15) }

// Landing returns the i-th landing square, 0 <= i < Landings().
func (m Move) Landing(i int) Square {
	if m.captured == 0 {
		return m.To()
	}
	s := m.From()
	for j := 0; j <= i && j < MaxCaptures; j++ {
		s = jumpTo[s&31][m.jumps>>(2*uint(j))&3]
	}
	return s
}

// IsCapture reports whether the move captures.
func (m Move) IsCapture() bool { return m.captured != 0 }

// Captured returns the squares of the captured pieces (bit i = square i+1).
func (m Move) Captured() uint32 { return m.captured }

// NumCaptured returns the number of pieces the move captures.
func (m Move) NumCaptured() int { return bits.OnesCount32(m.captured) }

// Crowns reports whether the move crowns a man.
func (m Move) Crowns() bool { return m.info&infoCrowns != 0 }

// IsNull reports whether m is NullMove.
func (m Move) IsNull() bool { return m.info == 0 }

// String returns the move in standard notation: "22-18" for a simple move,
// every landing square for a capture ("27x18x9x2"); NullMove is "none".
func (m Move) String() string {
	if m.IsNull() {
		return "none"
	}
	var buf [3 * (MaxCaptures + 1)]byte
	b := strconv.AppendInt(buf[:0], int64(m.From())+1, 10)
	sep := byte('-')
	if m.captured != 0 {
		sep = 'x'
	}
	s := m.From()
	for i := range m.Landings() {
		if m.captured == 0 {
			s = m.To()
		} else {
			s = jumpTo[s&31][m.jumps>>(2*uint(i))&3]
		}
		b = append(b, sep)
		b = strconv.AppendInt(b, int64(s)+1, 10)
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
