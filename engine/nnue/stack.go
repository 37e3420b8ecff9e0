package nnue

import "chessforge/engine/board"

// Stack is a search thread's accumulators, one per ply from the search's
// root, updated lazily: Push records a move's feature changes, and only
// Evaluate applies them, from the nearest ply whose accumulators are
// computed. No ordinary move refreshes from scratch: the features carry no
// king square, so even a king move is a plain update.
//
// A Stack is not safe for concurrent use; give each search thread its own.
type Stack struct {
	net    *Network
	frames []stackFrame
	top    int
}

type stackFrame struct {
	acc      Accumulator
	delta    Delta
	computed bool
}

// NewStack returns a Stack for net deep enough for plies moves beyond its
// root.
func NewStack(net *Network, plies int) *Stack {
	return &Stack{net: net, frames: make([]stackFrame, plies+1)}
}

// Network returns the network the stack evaluates with.
func (s *Stack) Network() *Network { return s.net }

// Reset makes p the stack's root, computing its accumulators from scratch.
func (s *Stack) Reset(p *board.Position) {
	s.top = 0
	f := &s.frames[0]
	s.net.Refresh(&f.acc, p)
	f.computed = true
}

// Push records move m, about to be played in p (call it before
// p.MakeMove(m)). It computes nothing yet.
func (s *Stack) Push(p *board.Position, m board.Move) {
	s.top++
	f := &s.frames[s.top]
	f.delta = DeltaOf(p, m)
	f.computed = false
}

// PushNull records a null move: the features do not change.
func (s *Stack) PushNull() {
	s.top++
	f := &s.frames[s.top]
	f.delta = Delta{}
	f.computed = false
}

// Plies returns the number of moves pushed and not yet popped.
func (s *Stack) Plies() int { return s.top }

// Pop takes back the last Push or PushNull.
func (s *Stack) Pop() { s.top-- }

// Evaluate returns the network's evaluation of p, the position reached by
// the pushed moves, in centipawns from the side to move's point of view.
func (s *Stack) Evaluate(p *board.Position) int {
	return s.net.Output(s.current(), p.SideToMove(), p.Occupied().Count())
}

// current brings the top ply's accumulators up to date and returns them.
func (s *Stack) current() *Accumulator {
	i := s.top
	for !s.frames[i].computed {
		i--
	}
	for ; i < s.top; i++ {
		next := &s.frames[i+1]
		if next.delta.nAdd == 0 { // a null move
			next.acc = s.frames[i].acc
		} else {
			s.net.Apply(&next.acc, &s.frames[i].acc, &next.delta)
		}
		next.computed = true
	}
	return &s.frames[s.top].acc
}
