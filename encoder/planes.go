// Package encoder turns positions into the network's input planes and
// moves into policy indices, one Layout per game: for chess the contracts
// of SPEC §1 and §2 (18×8×8 float32 planes in absolute orientation and a
// 73×8×8 policy index: planes.go, policy.go), for Italian draughts 7×8×8
// planes and a 200×8×8 policy index (dama.go); docs/format.md describes
// both.
package encoder

import (
	"fmt"

	"chessforge/engine/board"
)

// Sizes of the encodings.
const (
	NumPlanes  = 18                    // input planes per position
	PlaneSize  = 64                    // squares per plane
	InputSize  = NumPlanes * PlaneSize // float32 values per position: 1152
	PolicySize = 73 * 64               // policy indices: 4672
)

// Plane numbers of SPEC §1. Piece planes are board.Piece values (White pawn 0
// to Black king 11).
const (
	PlaneRepetition    = 12 // 0, 0.5 (occurred once before), 1 (twice or more)
	PlaneSideToMove    = 13 // 1 when White is to move
	PlaneWhiteCastling = 14 // 0 none, 0.5 one of K/Q, 1 both
	PlaneBlackCastling = 15 // 0 none, 0.5 one of k/q, 1 both
	PlaneEnPassant     = 16 // 1 on the FEN en-passant target square
	PlaneHalfmove      = 17 // min(halfmove/100, 1)
)

// PlanesVersion and PolicyVersion name the layouts, as written in a
// dataset's metadata.
const (
	PlanesVersion = "18x8x8-v1"
	PolicyVersion = "73x8x8-v1"
)

// Planes holds one encoded position, flat in C order: element p*64 + r*8 + f.
type Planes [InputSize]float32

// At returns the value of plane p on rank index r and file index f.
func (pl *Planes) At(p, r, f int) float32 { return pl[p*PlaneSize+r*8+f] }

// Encode writes the 18×8×8 planes of pos into dst, which must hold exactly
// InputSize values. The repetition plane counts earlier occurrences in the
// history pos carries (the moves made on it since it was set up), so pos
// should be the game replayed from its start, or at least from the last
// capture or pawn move. Encode allocates nothing.
func Encode(dst []float32, pos *board.Position) error {
	if len(dst) != InputSize {
		return fmt.Errorf("encoder: planes buffer has %d values, want %d", len(dst), InputSize)
	}
	EncodeTo((*Planes)(dst), pos)
	return nil
}

// EncodeTo writes the planes of pos into dst, as Encode does.
func EncodeTo(dst *Planes, pos *board.Position) {
	clear(dst[:])
	for p := board.Piece(0); p < board.NoPiece; p++ {
		bb := pos.Pieces(p.Color(), p.Type())
		plane := dst[int(p)*PlaneSize : int(p+1)*PlaneSize : int(p+1)*PlaneSize]
		for bb != 0 {
			plane[bb.PopLSB()&63] = 1
		}
	}
	switch n := pos.RepetitionCount(); {
	case n >= 2:
		fill(dst, PlaneRepetition, 1)
	case n == 1:
		fill(dst, PlaneRepetition, 0.5)
	}
	if pos.SideToMove() == board.White {
		fill(dst, PlaneSideToMove, 1)
	}
	cr := pos.Castling()
	fill(dst, PlaneWhiteCastling, castleValue(cr&board.WhiteKingside != 0, cr&board.WhiteQueenside != 0))
	fill(dst, PlaneBlackCastling, castleValue(cr&board.BlackKingside != 0, cr&board.BlackQueenside != 0))
	if ep := pos.EnPassant(); ep != board.NoSquare {
		dst[PlaneEnPassant*PlaneSize+int(ep)&63] = 1
	}
	fill(dst, PlaneHalfmove, HalfmoveValue(pos.HalfmoveClock()))
}

// HalfmoveValue is plane 17's value for a halfmove clock h:
// min(float32(h)/100, 1), a float32 division as SPEC §1 asks.
func HalfmoveValue(h int) float32 {
	v := float32(h) / 100
	if v > 1 {
		return 1
	}
	return v
}

func castleValue(a, b bool) float32 {
	switch {
	case a && b:
		return 1
	case a || b:
		return 0.5
	}
	return 0
}

func fill(dst *Planes, plane int, v float32) {
	if v == 0 {
		return // dst was cleared
	}
	s := dst[plane*PlaneSize : (plane+1)*PlaneSize : (plane+1)*PlaneSize]
	for i := range s {
		s[i] = v
	}
}
