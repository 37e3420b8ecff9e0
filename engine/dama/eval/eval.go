package eval

import (
	"math/bits"

	"chessforge/engine/dama"
)

// Constants of the evaluation's formula (see Coefs.Eval).
const (
	// PhaseMax is the phase of a board with 24 pieces or more on it; the
	// phase is the number of pieces on the board, capped there.
	PhaseMax = 24
	// MaxEval bounds the evaluation, far below the search's win scores.
	MaxEval = 9999
)

// Geometry from White's side, built once from the rules package's
// neighbour table. Black's pieces are evaluated on boards turned half a
// turn (bits.Reverse32: square s becomes 33−s), where they stand as White's
// would.
var (
	forward  [dama.NumSquares]uint32 // the squares a White man steps to
	allSteps [dama.NumSquares]uint32 // the squares a king steps to
	behind   [dama.NumSquares]uint32 // the squares behind a White man
	rowMask  [8]uint32               // the squares of each row, row 0 = White's crowning row

	// Both symmetric under the half turn.
	centreMask uint32 // files c-f on rows 2-5: squares 10, 11, 14, 15, 18, 19, 22, 23
	edgeMask   uint32 // files a and h: squares 4, 5, 12, 13, 20, 21, 28, 29
)

func init() {
	for s := dama.Square(0); s < dama.NumSquares; s++ {
		for d := dama.UpLeft; d <= dama.DownRight; d++ {
			n := dama.Neighbour(s, d)
			if n == dama.NoSquare {
				continue
			}
			allSteps[s] |= n.Bit()
			if d == dama.UpLeft || d == dama.UpRight {
				forward[s] |= n.Bit()
			} else {
				behind[s] |= n.Bit()
			}
		}
		rowMask[s.Row()] |= s.Bit()
		if r, f := s.Row(), s.File(); r >= 2 && r <= 5 && f >= 2 && f <= 5 {
			centreMask |= s.Bit()
		}
		if f := s.File(); f == 0 || f == 7 {
			edgeMask |= s.Bit()
		}
	}
}

// Evaluate returns the static evaluation of p with the compiled-in
// weights, in centi-men (a man = 100) from the side to move's point of
// view. It allocates nothing.
func Evaluate(p *dama.Position) int { return defaultWeights.Evaluate(p) }

// Evaluate returns the static evaluation of p with weights w, in
// centi-men from the side to move's point of view. It allocates nothing.
func (w Weights) Evaluate(p *dama.Position) int {
	e := evaluator{w: w.t}
	v := e.evaluate(p)
	if p.SideToMove() == dama.Black {
		return -v
	}
	return v
}

// evaluator is one evaluation's state: the weights, the sums and, when
// tracing, the tracer that records every term's count.
type evaluator struct {
	w      *weightSet
	tr     *Tracer
	mg, eg [2]int
}

// add adds n times feature f for side c; every term of the evaluation
// goes through it, so the trace is the evaluation itself.
func (e *evaluator) add(c dama.Color, f, n int) {
	e.mg[c] += int(e.w.mg[f]) * n
	e.eg[c] += int(e.w.eg[f]) * n
	if e.tr != nil {
		e.tr.n[c][f] += int32(n)
	}
}

// evaluate returns the evaluation from White's side.
func (e *evaluator) evaluate(p *dama.Position) int {
	wm, wk := p.Men(dama.White), p.Kings(dama.White)
	bm, bk := bits.Reverse32(p.Men(dama.Black)), bits.Reverse32(p.Kings(dama.Black))
	white, black := wm|wk, bm|bk
	occW := white | bits.Reverse32(black) // every piece, as White sees the board
	occB := bits.Reverse32(occW)          // every piece, as Black sees it
	e.side(dama.White, wm, wk, occW)
	e.side(dama.Black, bm, bk, occB)

	// Exchanges pay for the side ahead in pieces, the more so the fewer
	// pieces remain.
	nw, nb := bits.OnesCount32(white), bits.OnesCount32(black)
	off := max(0, 24-nw-nb)
	if d := nw - nb; d > 0 {
		e.add(dama.White, fSimplify, d*off)
	} else if d < 0 {
		e.add(dama.Black, fSimplify, -d*off)
	}
	e.add(p.SideToMove(), fTempo, 1)

	phase := min(nw+nb, PhaseMax)
	if e.tr != nil {
		e.tr.phase = phase
	}
	mg := e.mg[dama.White] - e.mg[dama.Black]
	eg := e.eg[dama.White] - e.eg[dama.Black]
	v := (mg*phase + eg*(PhaseMax-phase)) / PhaseMax
	return max(-MaxEval, min(MaxEval, v))
}

// side adds the terms of one side, whose men and kings are on boards as
// White sees them (Black's turned half a turn); occ is every piece on the
// same board.
func (e *evaluator) side(c dama.Color, men, kings, occ uint32) {
	e.add(c, fMaterial, bits.OnesCount32(men))
	e.add(c, fMaterial+1, bits.OnesCount32(kings))

	for r := 0; r < 7; r++ { // relative row r is board row 7−r
		if n := bits.OnesCount32(men & rowMask[7-r]); n != 0 {
			e.add(c, fManRow+r, n)
		}
	}
	back := men >> 28 // squares 29-32, left to right
	e.add(c, fBackRank+int(back), 1)

	e.add(c, fCentre, bits.OnesCount32(men&centreMask))
	e.add(c, fCentre+1, bits.OnesCount32(kings&centreMask))
	e.add(c, fEdge, bits.OnesCount32(men&edgeMask))
	e.add(c, fEdge+1, bits.OnesCount32(kings&edgeMask))

	own := men | kings
	empty := ^occ
	mob, crowning, backed := 0, 0, 0
	for b := men; b != 0; b &= b - 1 {
		s := bits.TrailingZeros32(b)
		steps := forward[s] & empty
		mob += bits.OnesCount32(steps)
		if s < 8 && s >= 4 && steps != 0 { // row 1: the row before crowning
			crowning++
		}
		if s < 28 && behind[s]&^own == 0 {
			backed++
		}
	}
	e.add(c, fMobMan, mob)
	e.add(c, fManCrowning, crowning)
	e.add(c, fManBacked, backed)
	kmob := 0
	for b := kings; b != 0; b &= b - 1 {
		kmob += bits.OnesCount32(allSteps[bits.TrailingZeros32(b)] & empty)
	}
	e.add(c, fMobKing, kmob)
}
