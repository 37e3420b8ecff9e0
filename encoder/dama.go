package encoder

import (
	"fmt"
	"math/bits"
	"slices"

	"chessforge/engine/dama"
)

// Italian draughts (package dama) on the same 8×8 grid as chess, in
// absolute orientation: rank index r = 0 is White's back rank (squares
// 29-32), file index f = 0 is file a, so that square 1 (a8) is r = 7,
// f = 0 and square 32 (h1) is r = 0, f = 7. Only the 32 dark squares
// ((r + f) odd) ever hold a piece. docs/format.md gives the layouts in full.

// Plane numbers of the draughts layout (Dama).
const (
	DamaPlaneWhiteMen   = 0 // 1 on each square holding a White man
	DamaPlaneWhiteKings = 1
	DamaPlaneBlackMen   = 2
	DamaPlaneBlackKings = 3
	DamaPlaneRepetition = 4 // 0, 0.5 (occurred once before), 1 (twice or more)
	DamaPlaneSideToMove = 5 // 1 when White is to move
	DamaPlaneQuiet      = 6 // min(quiet plies / 80, 1)
	DamaNumPlanes       = 7
)

// Sizes of the draughts policy index: four step types, then the captures
// by first jump direction and the offset of the last landing square.
const (
	DamaStepTypes    = 4
	damaOffsets      = 7 * 7 // (df, dr) of the last landing square, each even in −6…6
	DamaCaptureTypes = 4 * damaOffsets
	DamaPolicyTypes  = DamaStepTypes + DamaCaptureTypes // 200
)

// Dama is the draughts layout: 7×8×8 planes (dama-7x8x8-v1) and a
// 200×8×8 policy index (dama-200x8x8-v1).
var Dama = &Layout{
	Game: GameDama, Planes: "dama-7x8x8-v1", Policy: "dama-200x8x8-v1",
	NumPlanes: DamaNumPlanes, PolicyTypes: DamaPolicyTypes,
	PlaneNames: []string{
		"white men", "white kings", "black men", "black kings",
		"repetitions", "side to move", "quiet plies",
	},
	Binary:          []int{DamaPlaneWhiteMen, DamaPlaneWhiteKings, DamaPlaneBlackMen, DamaPlaneBlackKings},
	Scalar:          []int{DamaPlaneRepetition, DamaPlaneSideToMove, DamaPlaneQuiet},
	RepetitionPlane: DamaPlaneRepetition,
	ClockPlane:      DamaPlaneQuiet,
	ClockDivisor:    dama.QuietLimit,
}

// DamaSquare returns the grid index r*8 + f of a draughts square.
func DamaSquare(s dama.Square) int { return (7-s.Row())*8 + s.File() }

// damaGrid[s] is DamaSquare(s), built once.
var damaGrid = func() (t [dama.NumSquares]uint8) {
	for s := range t {
		t[s] = uint8(DamaSquare(dama.Square(s)))
	}
	return t
}()

// EncodeDama writes the draughts planes of pos into dst, which must hold
// exactly Dama.InputSize() values. The repetition plane counts earlier
// occurrences in the history pos carries (the moves made on it since it
// was set up), so pos should be the game replayed from its start, or at
// least from its last capture. EncodeDama allocates nothing.
func EncodeDama(dst []float32, pos *dama.Position) error {
	if len(dst) != DamaNumPlanes*PlaneSize {
		return fmt.Errorf("encoder: draughts planes buffer has %d values, want %d", len(dst), DamaNumPlanes*PlaneSize)
	}
	encodeDama((*[DamaNumPlanes * PlaneSize]float32)(dst), pos)
	return nil
}

func encodeDama(dst *[DamaNumPlanes * PlaneSize]float32, pos *dama.Position) {
	clear(dst[:])
	boards := [4]uint32{pos.Men(dama.White), pos.Kings(dama.White), pos.Men(dama.Black), pos.Kings(dama.Black)}
	for p, b := range boards {
		plane := dst[p*PlaneSize : (p+1)*PlaneSize : (p+1)*PlaneSize]
		for ; b != 0; b &= b - 1 {
			plane[damaGrid[bits.TrailingZeros32(b)&31]&63] = 1
		}
	}
	whole := func(p int, v float32) {
		if v == 0 {
			return
		}
		s := dst[p*PlaneSize : (p+1)*PlaneSize : (p+1)*PlaneSize]
		for i := range s {
			s[i] = v
		}
	}
	switch n := pos.Repetitions(); {
	case n >= 2:
		whole(DamaPlaneRepetition, 1)
	case n == 1:
		whole(DamaPlaneRepetition, 0.5)
	}
	if pos.SideToMove() == dama.White {
		whole(DamaPlaneSideToMove, 1)
	}
	whole(DamaPlaneQuiet, Dama.ClockValue(pos.QuietPlies()))
}

// damaDirection returns the policy's direction number of a diagonal step
// (df, dr): 0 NE (+1, +1), 1 SE (+1, −1), 2 SW (−1, −1), 3 NW (−1, +1),
// or −1 for anything else.
func damaDirection(df, dr int) int {
	switch {
	case df == 1 && dr == 1:
		return 0
	case df == 1 && dr == -1:
		return 1
	case df == -1 && dr == -1:
		return 2
	case df == -1 && dr == 1:
		return 3
	}
	return -1
}

// DamaPolicyIndex returns the draughts policy index of m, type*64 + from
// with from = DamaSquare(m.From()): a simple move has type dir (0 NE, 1
// SE, 2 SW, 3 NW, as (df, dr) on the grid); a capture has type
// 4 + dir*49 + (dr/2+3)*7 + (df/2+3), with dir the direction of its first
// jump and (df, dr) the offset from its start to its last landing square
// (each even, −6…6; (0, 0) for a king's capture that ends where it began).
// Capture routes that share their start, first jump and end share an
// index (see DecodeDamaMove). It fails for the null move and for steps or
// jumps no piece makes.
func DamaPolicyIndex(m dama.Move) (int, error) {
	if m.IsNull() {
		return -1, fmt.Errorf("encoder: the null move has no policy index")
	}
	from := DamaSquare(m.From())
	first := DamaSquare(m.Landing(0))
	df, dr := first%8-from%8, first/8-from/8
	if !m.IsCapture() {
		d := damaDirection(df, dr)
		if d < 0 || m.Landings() != 1 {
			return -1, fmt.Errorf("encoder: move %v is not a diagonal step", m)
		}
		return d*PlaneSize + from, nil
	}
	d := damaDirection(df/2, dr/2)
	if d < 0 || df%2 != 0 || dr%2 != 0 {
		return -1, fmt.Errorf("encoder: capture %v does not start with a diagonal jump", m)
	}
	to := DamaSquare(m.To())
	ef, er := to%8-from%8, to/8-from/8
	if ef%2 != 0 || er%2 != 0 {
		return -1, fmt.Errorf("encoder: capture %v ends an odd number of files or ranks away", m)
	}
	t := DamaStepTypes + d*damaOffsets + (er/2+3)*7 + (ef/2 + 3)
	return t*PlaneSize + from, nil
}

// DecodeDamaMove returns the legal move of pos whose policy index is
// index, so that a network's output can be played. When several legal
// capture routes share the index, it returns the first of them in the
// order of their notation compared as strings, a choice that depends on
// the rules only. It fails when the
// index is out of range or names no legal move.
func DecodeDamaMove(pos *dama.Position, index int) (dama.Move, error) {
	if index < 0 || index >= Dama.PolicySize() {
		return dama.NullMove, fmt.Errorf("encoder: draughts policy index %d out of range [0, %d)", index, Dama.PolicySize())
	}
	var list dama.MoveList
	pos.GenerateMoves(&list)
	var best dama.Move
	bestText := ""
	for _, m := range list.Slice() {
		if i, err := DamaPolicyIndex(m); err != nil || i != index {
			continue
		}
		if s := m.String(); best.IsNull() || s < bestText {
			best, bestText = m, s
		}
	}
	if best.IsNull() {
		return dama.NullMove, fmt.Errorf("encoder: draughts policy index %d (type %d from %d) is not a legal move in %s",
			index, index/PlaneSize, index%PlaneSize, pos.FEN())
	}
	return best, nil
}

// DamaIndexShared reports whether another legal move of pos has the same
// policy index as m (capture routes that share start, first jump and end).
func DamaIndexShared(pos *dama.Position, m dama.Move) bool {
	i, err := DamaPolicyIndex(m)
	if err != nil {
		return false
	}
	var list dama.MoveList
	pos.GenerateMoves(&list)
	return slices.ContainsFunc(list.Slice(), func(o dama.Move) bool {
		j, err := DamaPolicyIndex(o)
		return o != m && err == nil && j == i
	})
}
