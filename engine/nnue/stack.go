package nnue

import "chessforge/engine/board"

// Stack is a search thread's accumulators, one per ply from the search's
// root, updated lazily: Push records a move's feature changes, and only
// Evaluate applies them, each perspective from the nearest ply where it is
// computed. No ordinary move refreshes from scratch: the features carry no
// king square, so even a king move is a plain update, except that a
// king-mirrored network's perspective whose king crossed the middle of the
// board since then is computed afresh at the evaluated ply.
//
// A Stack is not safe for concurrent use; give each search thread its own.
type Stack struct {
	net    *Network
	frames []stackFrame
	top    int
}

type stackFrame struct {
	acc   Accumulator
	delta Delta
	// computed[persp] reports whether acc.V[persp] is up to date;
	// crossed[persp] whether delta changes persp's square mask.
	computed, crossed [2]bool
}

// NewStack returns a Stack for net deep enough for plies moves beyond its
// root. A network not made by New or read from a file (of width 0) panics.
func NewStack(net *Network, plies int) *Stack {
	net.mustHaveWidth()
	s := &Stack{net: net, frames: make([]stackFrame, plies+1)}
	// One block for every ply's accumulators, each ply's two perspectives
	// side by side.
	h := net.hidden
	buf := make([]int16, len(s.frames)*2*h)
	for i := range s.frames {
		net.initAccumulator(&s.frames[i].acc, buf[i*2*h:(i+1)*2*h])
	}
	return s
}

// Network returns the network the stack evaluates with.
func (s *Stack) Network() *Network { return s.net }

// Reset makes p the stack's root, computing its accumulators from scratch.
func (s *Stack) Reset(p *board.Position) {
	s.top = 0
	f := &s.frames[0]
	s.net.Refresh(&f.acc, p)
	f.computed = [2]bool{true, true}
}

// Push records move m, about to be played in p (call it before
// p.MakeMove(m)). It computes nothing yet.
func (s *Stack) Push(p *board.Position, m board.Move) {
	s.top++
	f := &s.frames[s.top]
	f.delta = DeltaOf(p, m)
	f.computed = [2]bool{}
	f.crossed = [2]bool{s.net.crosses(&f.delta, 0), s.net.crosses(&f.delta, 1)}
}

// PushNull records a null move: the features do not change.
func (s *Stack) PushNull() {
	s.top++
	f := &s.frames[s.top]
	f.delta = Delta{}
	f.computed, f.crossed = [2]bool{}, [2]bool{}
}

// Plies returns the number of moves pushed and not yet popped.
func (s *Stack) Plies() int { return s.top }

// Pop takes back the last Push or PushNull.
func (s *Stack) Pop() { s.top-- }

// Evaluate returns the network's evaluation of p, the position reached by
// the pushed moves, in centipawns from the side to move's point of view.
func (s *Stack) Evaluate(p *board.Position) int {
	return s.net.Output(s.current(p), p.SideToMove(), p.Occupied().Count())
}

// current brings the top ply's accumulators, those of p, up to date and
// returns them.
func (s *Stack) current(p *board.Position) *Accumulator {
	top := &s.frames[s.top]
	for persp := range 2 {
		if top.computed[persp] {
			continue
		}
		i := s.top
		for !s.frames[i].computed[persp] && !s.frames[i].crossed[persp] {
			i--
		}
		if !s.frames[i].computed[persp] { // the king crossed since: afresh
			s.net.refreshPersp(&top.acc, persp, p)
			top.computed[persp] = true
			continue
		}
		for ; i < s.top; i++ {
			next := &s.frames[i+1]
			s.net.applyPersp(&next.acc, &s.frames[i].acc, persp, &next.delta)
			next.computed[persp] = true
		}
	}
	return &top.acc
}
