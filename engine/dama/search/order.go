package search

import "chessforge/engine/dama"

// Move-ordering scores: the table's move first, then captures (the rules
// make every capture of a position take as many pieces, so their history
// orders them in practice), then the two killers, then quiet moves by
// history. A move's key is its score shifted left by 8 bits with 255 less
// its index in the generated list in the low byte: one pass of maxima
// both ranks and finds a move, and equal scores go in generation order.
const (
	scoreTT      = 1 << 22
	scoreCapture = 1 << 21 // plus the pieces captured << 16, plus history
	scoreKiller1 = 1 << 20
	scoreKiller2 = scoreKiller1 - 1
)

// scoreMoves computes the ordering keys of the moves at ply (s.lists[ply]):
// ttIndex is the table's move (noMove for none), captures says whether the
// moves are captures.
func (s *Searcher) scoreMoves(ply, ttIndex int, captures bool) {
	list := &s.lists[ply]
	n := list.Len()
	keys := s.keys[ply][:n]
	hist := &s.history[s.pos.SideToMove()&1]
	k1, k2 := s.killers[ply][0], s.killers[ply][1]
	for i := range keys {
		m := &list.Moves[i]
		h := int32(hist[m.From()&31][m.To()&31])
		var sc int32
		switch {
		case i == ttIndex:
			sc = scoreTT
		case captures:
			sc = scoreCapture + int32(m.NumCaptured())<<16 + h
		case *m == k1:
			sc = scoreKiller1
		case *m == k2:
			sc = scoreKiller2
		default:
			sc = h
		}
		keys[i] = sc<<8 | int32(255-i)
	}
}

// pick moves the best of the keys i..n-1 at ply to place i and returns its
// move's index in the generated list.
func (s *Searcher) pick(ply, i, n int) int {
	keys := s.keys[ply][:n]
	b := i
	for j := i + 1; j < n; j++ {
		if keys[j] > keys[b] {
			b = j
		}
	}
	keys[i], keys[b] = keys[b], keys[i]
	return 255 - int(keys[i]&255)
}

// ttMoveIndex returns the index of the table's move for the position with
// key and n moves, or noMove.
func (s *Searcher) ttMoveIndex(key uint64, n int) int {
	if tte, hit := s.tt.Probe(key); hit && tte.moveIndex < n {
		return tte.moveIndex
	}
	return noMove
}

// rewardCutoff rewards the quiet move picked i-th at ply, which caused a
// cutoff at depth: it becomes the first killer and its history rises; the
// moves picked before it, which did not cut off, lose as much history.
func (s *Searcher) rewardCutoff(ply int, us dama.Color, i, depth int) {
	list := &s.lists[ply]
	keys := s.keys[ply][:i+1]
	m := list.At(255 - int(keys[i]&255))
	if s.killers[ply][0] != m {
		s.killers[ply][1] = s.killers[ply][0]
		s.killers[ply][0] = m
	}
	hist := &s.history[us&1]
	bonus := min(depth*depth, historyLimit/4)
	gravity(&hist[m.From()&31][m.To()&31], bonus)
	for _, k := range keys[:i] {
		q := &list.Moves[255-int(k&255)]
		gravity(&hist[q.From()&31][q.To()&31], -bonus)
	}
}

// gravity moves a history score towards ±historyLimit by bonus, slower the
// nearer it is, so that scores stay bounded and recent results weigh more.
func gravity(h *int16, bonus int) {
	v := int(*h)
	a := bonus
	if a < 0 {
		a = -a
	}
	*h = int16(v + bonus - v*a/historyLimit)
}
