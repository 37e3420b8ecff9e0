package search

import (
	"chessforge/engine/board"
	"chessforge/engine/eval"
	"chessforge/engine/nnue"
)

// The evaluation a search uses: the hand-crafted one (eval.Evaluator, the
// default) or a network (nnue), chosen by Engine.SetNetwork. With a network
// each worker keeps an nnue.Stack, reset from the root position when a
// search starts and told of every move the search makes and takes back;
// it updates the accumulators lazily, when a position is evaluated. The
// search tells the stack of its moves (Push, PushNull, Pop) where it makes
// them, behind a test of w.nn, so that the hand-crafted path pays one
// predictable branch per move and no call.

// stackPlies is the depth of a worker's accumulator stack: every ply a
// search can reach, null moves included.
const stackPlies = MaxPly + 4

// SetNetwork makes the engine evaluate with network n, or with the
// hand-crafted evaluation when n is nil. The transposition table is
// cleared, as the static evaluations it stores were the other evaluation's.
// Not to be called during a search.
func (e *Engine) SetNetwork(n *nnue.Network) {
	if n == e.net {
		return
	}
	e.net = n
	for _, w := range e.workers {
		w.setNetwork(n)
	}
	e.tt.Clear()
}

// Network returns the network the engine evaluates with, nil for the
// hand-crafted evaluation.
func (e *Engine) Network() *nnue.Network { return e.net }

// setNetwork gives the worker an accumulator stack for n (nil: none).
func (w *worker) setNetwork(n *nnue.Network) {
	w.nn = nil
	if n != nil {
		w.nn = nnue.NewStack(n, stackPlies)
	}
}

// netEvaluate is the network's evaluation of p, the worker's position,
// from the side to move's point of view, with the hand-crafted
// evaluation's knowledge of endings (eval.Endgame), scaled by the
// network's pawn table (nnue.Network.ScaleByPawns).
func (w *worker) netEvaluate(p *board.Position) int {
	return w.nn.Network().ScaleByPawns(p, eval.Endgame(p, w.nn.Evaluate(p)))
}

// evaluate returns the static evaluation of p, the worker's position, from
// the side to move's point of view. The hot calls (a node's static
// evaluation, quiescence's stand pat) test w.nn where they are, as this
// function is too large to inline.
func (w *worker) evaluate(p *board.Position) int {
	if w.nn != nil {
		return w.netEvaluate(p)
	}
	return w.ev.Evaluate(p)
}
