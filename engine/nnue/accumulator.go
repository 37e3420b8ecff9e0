package nnue

import (
	"fmt"

	"chessforge/engine/board"
)

// featureIndex[persp][piece][sq] is the feature of piece on sq seen from
// perspective persp: ((C == P ? 0 : 6) + T)·64 + (P == White ? sq : sq^56).
// A king-mirrored network's perspective whose king stands on files e–h
// looks its pieces up at sq^7 (see Accumulator.Flip).
var featureIndex [2][12][64]uint16

func init() {
	for persp := range 2 {
		for pc := range 12 {
			c, t := pc/6, pc%6
			rel := 0
			if c != persp {
				rel = 6
			}
			for sq := range 64 {
				s := sq
				if persp == int(board.Black) {
					s ^= 56
				}
				featureIndex[persp][pc][sq] = uint16((rel+t)*64 + s)
			}
		}
	}
}

// FeatureIndex returns the input feature of piece pc on square sq seen from
// perspective persp (White or Black), in [0, Inputs).
func FeatureIndex(persp board.Color, pc board.Piece, sq board.Square) int {
	return int(featureIndex[persp&1][pc%12][sq&63])
}

// Accumulator holds the feature transformer's output for both perspectives:
// V[board.White] and V[board.Black], each the bias plus the rows of that
// perspective's active features, as wide as the network's accumulators.
// Flip[persp] is the square mask of perspective persp's features: 7 (files
// mirrored) where the network is king-mirrored and persp's king stands on
// files e–h, else 0.
type Accumulator struct {
	V    [2][]int16
	Flip [2]board.Square
}

// NewAccumulator returns accumulators for n. A network not made by New
// or read from a file (of width 0) panics.
func (n *Network) NewAccumulator() *Accumulator {
	n.mustHaveWidth()
	a := new(Accumulator)
	n.initAccumulator(a, make([]int16, 2*n.hidden))
	return a
}

// initAccumulator points a's perspectives at the two halves of buf, which
// holds 2·Hidden() values.
func (n *Network) initAccumulator(a *Accumulator, buf []int16) {
	h := n.hidden
	a.V[0], a.V[1] = buf[:h:h], buf[h:2*h:2*h]
}

// mustHaveWidth panics unless n's width is one New accepts: a zero
// Network would evaluate every position as its output bias.
func (n *Network) mustHaveWidth() {
	if !ValidHidden(n.hidden) {
		panic(fmt.Sprintf("nnue: a network %d wide (use New or Load)", n.hidden))
	}
}

// row returns the weights of piece pc on sq from perspective persp, whose
// square mask is flip.
func (n *Network) row(persp int, flip board.Square, pc board.Piece, sq board.Square) []int16 {
	i := int(featureIndex[persp][pc%12][(sq^flip)&63]) * n.hidden
	return n.W1[i : i+n.hidden : i+n.hidden]
}

// flipFor returns the square mask of a perspective whose king stands on
// ksq: 7 on files e–h of a king-mirrored network, else 0.
func (n *Network) flipFor(ksq board.Square) board.Square {
	if n.mirrored && ksq.File() >= 4 {
		return 7
	}
	return 0
}

// Refresh sets a to the accumulators of position p, computed from scratch.
func (n *Network) Refresh(a *Accumulator, p *board.Position) {
	for persp := range 2 {
		n.refreshPersp(a, persp, p)
	}
}

// refreshPersp computes perspective persp's accumulator of p from scratch.
func (n *Network) refreshPersp(a *Accumulator, persp int, p *board.Position) {
	flip := n.flipFor(p.KingSquare(board.Color(persp)))
	a.Flip[persp] = flip
	v := a.V[persp]
	copy(v, n.B1)
	for occ := p.Occupied(); occ != 0; {
		sq := occ.PopLSB()
		addRow(v, n.row(persp, flip, p.PieceAt(sq), sq))
	}
}

// Output returns the network's evaluation of accumulators a with stm to
// move and pieces pieces on the board (which choose the output bucket), in
// centipawns from stm's point of view. Accumulators of another width than
// n's (a zero Accumulator, say) panic.
func (n *Network) Output(a *Accumulator, stm board.Color, pieces int) int {
	if len(a.V[0]) != n.hidden || len(a.V[1]) != n.hidden {
		panic(fmt.Sprintf("nnue: accumulators %d and %d wide for a network %d wide (use NewAccumulator)", len(a.V[0]), len(a.V[1]), n.hidden))
	}
	b := n.Bucket(pieces)
	s := output(a.V[stm&1], a.V[stm&1^1], n.W2[b])
	v := s/QA + int64(n.B2[b])
	return int(v * Scale / (QA * QB))
}

// Evaluate returns the network's evaluation of p in centipawns from the
// side to move's point of view, refreshing accumulators from scratch: for
// single positions; a search keeps a Stack instead.
func (n *Network) Evaluate(p *board.Position) int {
	n.mustHaveWidth()
	var buf [2 * MaxHidden]int16 // on the stack: nothing allocated
	h := n.hidden
	a := Accumulator{V: [2][]int16{buf[:h:h], buf[h : 2*h : 2*h]}}
	n.Refresh(&a, p)
	return n.Output(&a, p.SideToMove(), p.Occupied().Count())
}

// piecePlace is a piece on a square.
type piecePlace struct {
	pc board.Piece
	sq board.Square
}

// Delta is what a move changes in the features: the pieces it adds and
// removes (at most two of each: castling moves two pieces, a capturing
// promotion removes two), and for a king move (castling included) the
// king's colour and squares, which may change a king-mirrored network's
// square mask.
type Delta struct {
	add, sub         [2]piecePlace
	nAdd, nSub       uint8
	king             bool
	kingColor        board.Color
	kingFrom, kingTo board.Square
}

// crosses reports whether d moves perspective persp's king across the
// middle of the board of a king-mirrored network, changing persp's square
// mask: its accumulator must then be computed afresh.
func (n *Network) crosses(d *Delta, persp int) bool {
	return n.mirrored && d.king && int(d.kingColor) == persp && n.flipFor(d.kingFrom) != n.flipFor(d.kingTo)
}

// DeltaOf returns the feature changes of move m in position p; call it
// before the move is made. m must be legal in p (or a pseudo-legal move the
// position would play).
func DeltaOf(p *board.Position, m board.Move) Delta {
	var d Delta
	from, to := m.From(), m.To()
	pc := p.PieceAt(from)
	us := pc.Color()
	switch {
	case m.IsCastling():
		rfrom, rto := board.CastlingRook(us, to)
		rook := board.MakePiece(us, board.Rook)
		d.add = [2]piecePlace{{pc, to}, {rook, rto}}
		d.sub = [2]piecePlace{{pc, from}, {rook, rfrom}}
		d.nAdd, d.nSub = 2, 2
		d.king, d.kingColor, d.kingFrom, d.kingTo = true, us, from, to
		return d
	case m.IsEnPassant():
		capSq := to - 8
		if us == board.Black {
			capSq = to + 8
		}
		d.add[0] = piecePlace{pc, to}
		d.sub = [2]piecePlace{{pc, from}, {p.PieceAt(capSq), capSq}}
		d.nAdd, d.nSub = 1, 2
		return d
	}
	moved := pc
	if m.IsPromotion() {
		moved = board.MakePiece(us, m.Promotion())
	}
	d.add[0] = piecePlace{moved, to}
	d.sub[0] = piecePlace{pc, from}
	d.nAdd, d.nSub = 1, 1
	if pc.Type() == board.King {
		d.king, d.kingColor, d.kingFrom, d.kingTo = true, us, from, to
	}
	if c := p.PieceAt(to); c != board.NoPiece {
		d.sub[1] = piecePlace{c, to}
		d.nSub = 2
	}
	return d
}

// Apply sets dst to src changed by d, the delta of the move that led to
// position p. A perspective whose square mask the move changes (its king
// crossing the middle, with a king-mirrored network) is computed afresh
// from p; the others are updated. dst and src may be the same.
func (n *Network) Apply(dst, src *Accumulator, d *Delta, p *board.Position) {
	for persp := range 2 {
		if n.crosses(d, persp) {
			n.refreshPersp(dst, persp, p)
		} else {
			n.applyPersp(dst, src, persp, d)
		}
	}
}

// applyPersp sets perspective persp of dst to that of src changed by d,
// which must not change its square mask.
func (n *Network) applyPersp(dst, src *Accumulator, persp int, d *Delta) {
	flip := src.Flip[persp]
	dst.Flip[persp] = flip
	dv, sv := dst.V[persp], src.V[persp]
	if d.nAdd == 0 { // a null move
		copy(dv, sv)
		return
	}
	a0 := n.row(persp, flip, d.add[0].pc, d.add[0].sq)
	s0 := n.row(persp, flip, d.sub[0].pc, d.sub[0].sq)
	switch {
	case d.nSub == 1:
		addSub(dv, sv, a0, s0)
	case d.nAdd == 1:
		addSubSub(dv, sv, a0, s0, n.row(persp, flip, d.sub[1].pc, d.sub[1].sq))
	default:
		addAddSubSub(dv, sv, a0, n.row(persp, flip, d.add[1].pc, d.add[1].sq), s0, n.row(persp, flip, d.sub[1].pc, d.sub[1].sq))
	}
}
