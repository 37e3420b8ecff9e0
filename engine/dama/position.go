package dama

import "math/bits"

// Color is a side: White (moves first, starts on squares 21-32) or Black.
type Color uint8

// The two sides.
const (
	White Color = iota
	Black
)

// Other returns the opposing side.
func (c Color) Other() Color { return c ^ 1 }

// String returns "white" or "black".
func (c Color) String() string {
	if c&1 == White {
		return "white"
	}
	return "black"
}

// undo is what UnmakeMove needs to take a move back.
type undo struct {
	move      Move
	hash      uint64 // the hash before the move
	kings     uint32 // the captured pieces that were kings
	quiet     int32  // the quiet-ply counter before the move
	moverKing bool   // the moving piece was a king
}

// historyCap is the undo stack's initial capacity: a game of draughts is
// far shorter, so MakeMove does not allocate in practice.
const historyCap = 512

// Position is a draughts position with its history: the men and kings of
// each side as 32-bit boards, the side to move, the Zobrist hash kept up to
// date by MakeMove and UnmakeMove, the quiet-ply counter and an undo stack
// that also serves repetition detection.
//
// A Position holds a slice (its undo stack), so copy it with Copy, not by
// assignment: two values sharing one stack would overwrite each other's
// history.
type Position struct {
	men   [2]uint32
	kings [2]uint32
	side  Color
	hash  uint64
	quiet int32 // plies since the last capture
	ply   int32 // plies made since the position was set up (before: 0)
	stack []undo
}

// newPosition returns an empty position with its undo stack.
func newPosition() *Position {
	return &Position{stack: make([]undo, 0, historyCap)}
}

// StartPosition returns the starting position: Black's men on 1-12,
// White's on 21-32, White to move.
func StartPosition() *Position {
	p := newPosition()
	p.men[Black] = 0x00000FFF
	p.men[White] = 0xFFF00000
	p.hash = p.computeHash()
	return p
}

// Copy returns an independent copy of p with its history.
func (p *Position) Copy() *Position {
	q := new(Position)
	p.CopyInto(q)
	return q
}

// CopyInto makes dst an independent copy of p with its history, reusing
// dst's undo stack: it allocates nothing when dst was a copy of a position
// whose stack was as large (a searcher copying each root into the same
// Position). dst may be any Position, the zero one included.
func (p *Position) CopyInto(dst *Position) {
	stack := dst.stack
	if need := max(cap(p.stack), historyCap); cap(stack) < need {
		stack = make([]undo, 0, need)
	}
	*dst = *p
	dst.stack = append(stack[:0], p.stack...)
}

// SideToMove returns the side to move.
func (p *Position) SideToMove() Color { return p.side }

// Men returns the men of side c (bit i = square i+1).
func (p *Position) Men(c Color) uint32 { return p.men[c&1] }

// Kings returns the kings of side c (bit i = square i+1).
func (p *Position) Kings(c Color) uint32 { return p.kings[c&1] }

// Pieces returns all pieces of side c.
func (p *Position) Pieces(c Color) uint32 { return p.men[c&1] | p.kings[c&1] }

// Occupied returns every occupied square.
func (p *Position) Occupied() uint32 {
	return p.men[0] | p.men[1] | p.kings[0] | p.kings[1]
}

// Hash returns the position's Zobrist hash (placement and side to move).
func (p *Position) Hash() uint64 { return p.hash }

// Ply returns the number of plies made since the position was set up.
func (p *Position) Ply() int { return int(p.ply) }

// QuietPlies returns the number of plies since the last capture (or since
// the position was set up, when there was none).
func (p *Position) QuietPlies() int { return int(p.quiet) }

// LastMove returns the last move made, or NullMove when there is none.
func (p *Position) LastMove() Move {
	if len(p.stack) == 0 {
		return NullMove
	}
	return p.stack[len(p.stack)-1].move
}

// Zobrist keys from a fixed seed, so hashes agree across runs and builds.
var (
	zobristPiece [4][NumSquares]uint64 // white man, black man, white king, black king
	zobristBlack uint64                // Black to move
)

func init() {
	state := uint64(0x9E3779B97F4A7C15 ^ 0xDA3A)
	next := func() uint64 { // splitmix64
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		return z ^ z>>31
	}
	for k := range zobristPiece {
		for s := range zobristPiece[k] {
			zobristPiece[k][s] = next()
		}
	}
	zobristBlack = next()
}

// computeHash returns the hash computed from scratch.
func (p *Position) computeHash() uint64 {
	var h uint64
	for c := range 2 {
		for b := p.men[c]; b != 0; b &= b - 1 {
			h ^= zobristPiece[c][bits.TrailingZeros32(b)]
		}
		for b := p.kings[c]; b != 0; b &= b - 1 {
			h ^= zobristPiece[2+c][bits.TrailingZeros32(b)]
		}
	}
	if p.side == Black {
		h ^= zobristBlack
	}
	return h
}

// MakeMove plays m, which must be legal in the position (one that
// GenerateMoves or ParseMove returned).
func (p *Position) MakeMove(m Move) {
	us, them := p.side&1, (p.side^1)&1
	from, to := m.From()&31, m.To()&31
	fromBit, toBit := uint32(1)<<from, uint32(1)<<to
	u := undo{move: m, hash: p.hash, quiet: p.quiet}
	h := p.hash ^ zobristBlack
	if p.kings[us]&fromBit != 0 {
		u.moverKing = true
		p.kings[us] = p.kings[us]&^fromBit | toBit
		h ^= zobristPiece[2+us][from] ^ zobristPiece[2+us][to]
	} else {
		p.men[us] &^= fromBit
		h ^= zobristPiece[us][from]
		if m.Crowns() {
			p.kings[us] |= toBit
			h ^= zobristPiece[2+us][to]
		} else {
			p.men[us] |= toBit
			h ^= zobristPiece[us][to]
		}
	}
	if cap := m.captured; cap != 0 {
		k := cap & p.kings[them]
		u.kings = k
		p.kings[them] &^= k
		p.men[them] &^= cap
		for b := cap &^ k; b != 0; b &= b - 1 {
			h ^= zobristPiece[them][bits.TrailingZeros32(b)]
		}
		for b := k; b != 0; b &= b - 1 {
			h ^= zobristPiece[2+them][bits.TrailingZeros32(b)]
		}
		p.quiet = 0
	} else {
		p.quiet++
	}
	p.hash = h
	p.side ^= 1
	p.ply++
	p.stack = append(p.stack, u)
}

// UnmakeMove takes back the last move made; it does nothing when no move
// was made.
func (p *Position) UnmakeMove() {
	n := len(p.stack) - 1
	if n < 0 {
		return
	}
	u := &p.stack[n]
	m := &u.move
	p.side ^= 1
	us, them := p.side&1, (p.side^1)&1
	fromBit, toBit := uint32(1)<<(m.From()&31), uint32(1)<<(m.To()&31)
	if u.moverKing {
		p.kings[us] = p.kings[us]&^toBit | fromBit
	} else {
		if m.Crowns() {
			p.kings[us] &^= toBit
		} else {
			p.men[us] &^= toBit
		}
		p.men[us] |= fromBit
	}
	if cap := m.captured; cap != 0 {
		p.kings[them] |= u.kings
		p.men[them] |= cap &^ u.kings
	}
	p.hash = u.hash
	p.quiet = u.quiet
	p.ply--
	p.stack = p.stack[:n]
}

// Repetitions returns how many times the current position (placement and
// side to move) occurred earlier in the recorded history, looking back no
// further than the last capture.
func (p *Position) Repetitions() int {
	n := 0
	lim := len(p.stack) - int(p.quiet)
	for i := len(p.stack) - 2; i >= lim && i >= 0; i -= 2 {
		if p.stack[i].hash == p.hash {
			n++
		}
	}
	return n
}
