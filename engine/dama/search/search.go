// Package search is the Italian draughts engine's search, the chess
// search's framework (engine/search) for draughts: iterative deepening with
// aspiration windows, principal variation search over a fixed-size
// transposition table, a quiescence search that plays out forced captures,
// move ordering by the table's move, killers and history, and the rules'
// draws (repetition, the quiet-ply rule) and losses (no move). A Searcher is
// a library object with its own table and evaluator, so one process may run
// several (two weight sets in a match); a node-limited search is
// deterministic given the Searcher's state (fresh or Cleared).
//
// No node allocates: the move lists, ordering keys, killers and principal
// variations live in fixed arrays of the Searcher, indexed by ply.
package search

import (
	"sync/atomic"
	"time"

	"chessforge/engine/dama"
	"chessforge/engine/dama/eval"
	chess "chessforge/engine/search"
)

// Score bounds, the chess search's: scores are in centi-men (a man is 100)
// from the side to move's view, and a win found n plies from the root
// scores WinScore−n (a loss −(WinScore−n)).
const (
	MaxPly      = chess.MaxPly // the deepest line the search follows
	WinScore    = chess.MateScore
	Infinity    = chess.Infinity
	WinInMaxPly = chess.MateInMaxPly // scores beyond ±WinInMaxPly are wins and losses
)

// Evaluator scores a position in centi-men from the side to move's view.
// The draughts evaluation's weights (eval.Weights) are one; a Searcher takes
// any, so that two weight sets can play each other in one process.
type Evaluator interface {
	Evaluate(p *dama.Position) int
}

// Limits bound a search; zero fields are unset. With none set the search
// runs to MaxPly or until Stop. The search ends at the first limit reached,
// but always completes depth 1 under a node limit, so that it has a move.
type Limits struct {
	Depth int           // iterations, in plies
	Nodes uint64        // nodes searched; a search bound by nodes alone is deterministic
	Time  time.Duration // wall-clock time
}

// Info reports a completed iteration, or, when a limit cuts an iteration
// short, the search's result: the best line found, at the completed depth.
type Info struct {
	Depth int
	Score int // centi-men from the side to move's view; wins ±(WinScore−plies)
	Nodes uint64
	Time  time.Duration
	PV    []dama.Move // valid only during the report
}

// Result is the outcome of a search.
type Result struct {
	Best  dama.Move // dama.NullMove when the side to move has no legal move
	Score int       // centi-men from the side to move's view; wins ±(WinScore−plies)
	Depth int       // the last completed iteration
	Nodes uint64
	Time  time.Duration
	PV    []dama.Move // the principal variation, Best first (empty with no move)
}

// Searcher searches draughts positions with its own transposition table,
// evaluator and move-ordering heuristics. It is not safe for concurrent
// searches, but Stop may be called from any goroutine.
type Searcher struct {
	tt   *TT
	eval Evaluator
	stop atomic.Bool

	// Report, if set, receives an Info after each completed iteration.
	Report func(Info)

	// The current search.
	pos       *dama.Position // a copy of the root, made by CopyInto in the same Position each search
	limits    Limits
	start     time.Time
	nodes     uint64
	stopped   bool
	completed int // depth of the last completed iteration
	roots     []rootMove
	best      rootMove // the best root move found so far, with its line
	bestPV    [MaxPly + 1]dama.Move
	bestPVLen int

	lists   [MaxPly + 1]dama.MoveList
	keys    [MaxPly + 1][dama.MaxMoves]int32
	killers [MaxPly + 2][2]dama.Move
	// history[side][from][to] scores moves by the cutoffs they caused.
	history [2][dama.NumSquares][dama.NumSquares]int16
	pv      [MaxPly + 1][MaxPly + 1]dama.Move
	pvLen   [MaxPly + 1]int
}

// rootMove is a legal move at the root, its index in the root's generated
// list and the score the last search of it returned.
type rootMove struct {
	move  dama.Move
	index int
	score int
}

// New returns a Searcher with a transposition table of about hashMiB
// mebibytes and the default evaluation.
func New(hashMiB int) *Searcher {
	return &Searcher{tt: NewTT(hashMiB), eval: eval.Default(), pos: new(dama.Position)}
}

// SetEvaluator makes ev the Searcher's evaluation and clears what it has
// learnt (scores of the old evaluation would mislead the new one).
func (s *Searcher) SetEvaluator(ev Evaluator) {
	s.eval = ev
	s.Clear()
}

// Clear forgets everything learnt: the table, killers and history (a new
// game).
func (s *Searcher) Clear() {
	s.tt.Clear()
	s.killers = [MaxPly + 2][2]dama.Move{}
	s.history = [2][dama.NumSquares][dama.NumSquares]int16{}
}

// Stop asks a running search to end as soon as possible; Search then
// returns the best move found so far.
func (s *Searcher) Stop() { s.stop.Store(true) }

// Search searches pos, whose history counts for repetitions, within lim and
// returns the best move. pos is not modified.
func (s *Searcher) Search(pos *dama.Position, lim Limits) Result {
	s.start = time.Now()
	s.stop.Store(false)
	s.tt.NewSearch()
	pos.CopyInto(s.pos) // the searcher's own copy, reused from search to search
	s.limits = lim
	s.nodes = 0
	s.stopped = false
	s.completed = 0
	s.killers = [MaxPly + 2][2]dama.Move{}

	list := &s.lists[0]
	s.pos.GenerateMoves(list)
	if list.Len() == 0 {
		return Result{Best: dama.NullMove, Score: -WinScore, Time: time.Since(s.start)}
	}
	// The root's moves in the order of the move-ordering keys (the table's
	// move first), which later iterations refine.
	s.scoreMoves(0, s.ttMoveIndex(s.pos.Hash(), list.Len()), list.At(0).IsCapture())
	s.roots = s.roots[:0]
	for i := range list.Len() {
		idx := s.pick(0, i, list.Len())
		s.roots = append(s.roots, rootMove{move: list.At(idx), index: idx, score: -Infinity})
	}
	// Until an iteration scores a move, the first is the best, scored by
	// the static evaluation (a search stopped before depth 1 ends).
	s.best = s.roots[0]
	s.best.score = s.eval.Evaluate(s.pos)
	s.bestPV[0], s.bestPVLen = s.best.move, 1

	maxDepth := MaxPly - 1
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, maxDepth)
	}
	score := 0
	for depth := 1; depth <= maxDepth; depth++ {
		score = s.aspiration(depth, score)
		if s.stopped {
			break
		}
		s.completed = depth
		s.report()
		if score >= WinScore-depth || s.limitReached() {
			break // a win within the full-width depth is final
		}
	}
	if s.stopped && s.completed > 0 {
		// The iteration cut short may have found a better line or score:
		// the last report is the result, with the nodes searched.
		s.report()
	}
	res := Result{
		Best:  s.best.move,
		Score: s.best.score,
		Depth: s.completed,
		Nodes: s.nodes,
		Time:  time.Since(s.start),
		PV:    append([]dama.Move(nil), s.bestPV[:s.bestPVLen]...),
	}
	return res
}

// report sends the best line so far, at the last completed depth, to
// Report.
func (s *Searcher) report() {
	if s.Report != nil {
		s.Report(Info{Depth: s.completed, Score: s.best.score, Nodes: s.nodes, Time: time.Since(s.start), PV: s.bestPV[:s.bestPVLen]})
	}
}

// aspiration searches the root at depth within a window around the previous
// iteration's score, widening it until the score falls inside.
func (s *Searcher) aspiration(depth, prev int) int {
	alpha, beta := -Infinity, Infinity
	delta := aspirationDelta
	if depth >= aspirationMinDepth && prev > -WinInMaxPly && prev < WinInMaxPly {
		alpha, beta = prev-delta, prev+delta
	}
	for {
		score := s.searchRoot(alpha, beta, depth)
		if s.stopped {
			return score
		}
		switch {
		case score <= alpha:
			alpha = max(score-delta, -Infinity)
		case score >= beta:
			beta = min(score+delta, Infinity)
		default:
			return score
		}
		delta *= 2
		if delta > aspirationMaxDelta {
			alpha, beta = -Infinity, Infinity
		}
	}
}

// searchRoot is the principal variation search of the root. A move that
// raises alpha moves to the front of the root moves and becomes the best
// so far, even in an iteration cut short: the move it displaced scored less
// in this iteration's window.
func (s *Searcher) searchRoot(alpha, beta, depth int) int {
	s.pvLen[0] = 0
	if !s.enterNode() {
		return 0
	}
	p := s.pos
	bestScore := -Infinity
	origAlpha := alpha
	bestIndex := noMove
	for i := range s.roots {
		m := s.roots[i].move
		p.MakeMove(m)
		var score int
		if i == 0 {
			score = -s.negamax(-beta, -alpha, depth-1, 1)
		} else {
			score = -s.negamax(-alpha-1, -alpha, depth-1, 1)
			if score > alpha && score < beta && !s.stopped {
				score = -s.negamax(-beta, -alpha, depth-1, 1)
			}
		}
		p.UnmakeMove()
		if s.stopped {
			break
		}
		s.roots[i].score = score
		if score > bestScore {
			bestScore = score
			if score > alpha {
				alpha = score
				bestIndex = s.roots[i].index
				s.updatePV(0, m)
				s.best = s.roots[i]
				s.bestPVLen = copy(s.bestPV[:], s.pv[0][:s.pvLen[0]])
				// The new best leads the next search of the root.
				rm := s.roots[i]
				copy(s.roots[1:i+1], s.roots[:i])
				s.roots[0] = rm
				if score >= beta {
					break
				}
			}
		}
	}
	if !s.stopped {
		s.tt.Store(p.Hash(), bestIndex, scoreToTT(bestScore, 0), depth, boundOf(bestScore, origAlpha, beta))
	}
	return bestScore
}

// boundOf is the bound a node's best score has in its window.
func boundOf(score, alpha, beta int) Bound {
	switch {
	case score >= beta:
		return BoundLower
	case score > alpha:
		return BoundExact
	}
	return BoundUpper
}

// negamax is the principal variation search of one node below the root.
func (s *Searcher) negamax(alpha, beta, depth, ply int) int {
	if depth <= 0 {
		return s.quiescence(alpha, beta, ply)
	}
	s.pvLen[ply] = 0
	if !s.enterNode() {
		return 0
	}
	p := s.pos
	if s.isDraw() {
		return 0
	}
	if ply >= MaxPly {
		return s.eval.Evaluate(p)
	}
	// No line from here beats a win already found nearer the root.
	alpha = max(alpha, -WinScore+ply)
	beta = min(beta, WinScore-ply-1)
	if alpha >= beta {
		return alpha
	}
	pvNode := beta-alpha > 1

	key := p.Hash()
	tte, hit := s.tt.Probe(key)
	if hit && !pvNode && tte.depth >= depth {
		ts := scoreFromTT(tte.score, ply)
		if tte.bound == BoundExact || (tte.bound == BoundLower && ts >= beta) || (tte.bound == BoundUpper && ts <= alpha) {
			return ts
		}
	}

	list := &s.lists[ply]
	p.GenerateMoves(list)
	n := list.Len()
	if n == 0 {
		return -WinScore + ply // no move: the side to move has lost
	}
	ttIndex := noMove
	if hit && tte.moveIndex < n {
		ttIndex = tte.moveIndex
	}
	if n == 1 && ply < MaxPly/2 {
		depth += singleReplyExtension
	}
	captures := list.At(0).IsCapture()
	s.scoreMoves(ply, ttIndex, captures)
	s.killers[ply+1] = [2]dama.Move{}
	us := p.SideToMove() & 1

	bestScore := -Infinity
	bestIndex := noMove
	origAlpha := alpha
	for i := range n {
		idx := s.pick(ply, i, n)
		m := list.At(idx)
		quiet := !captures && idx != ttIndex && m != s.killers[ply][0] && m != s.killers[ply][1]
		p.MakeMove(m)
		var score int
		if i == 0 {
			score = -s.negamax(-beta, -alpha, depth-1, ply+1)
		} else {
			r := 0
			if quiet && depth >= lmrMinDepth && i >= lmrMinMove {
				r = 1
				if depth >= lmrDeepDepth && i >= lmrDeepMove {
					r = 2
				}
			}
			score = -s.negamax(-alpha-1, -alpha, depth-1-r, ply+1)
			if score > alpha && r > 0 {
				score = -s.negamax(-alpha-1, -alpha, depth-1, ply+1)
			}
			if score > alpha && score < beta {
				score = -s.negamax(-beta, -alpha, depth-1, ply+1)
			}
		}
		p.UnmakeMove()
		if s.stopped {
			return 0
		}
		if score > bestScore {
			bestScore = score
			if score > alpha {
				alpha = score
				bestIndex = idx
				s.updatePV(ply, m)
				if score >= beta {
					if !captures {
						s.rewardCutoff(ply, us, i, depth)
					}
					break
				}
			}
		}
	}
	s.tt.Store(key, bestIndex, scoreToTT(bestScore, ply), depth, boundOf(bestScore, origAlpha, beta))
	return bestScore
}

// quiescence plays out captures until the position is quiet. Captures are
// compulsory: while the side to move must capture it may not stand pat, and
// every capture is searched; in a quiet position the static evaluation is
// the score. A side with no move has lost.
func (s *Searcher) quiescence(alpha, beta, ply int) int {
	s.pvLen[ply] = 0
	if !s.enterNode() {
		return 0
	}
	p := s.pos
	if s.isDraw() {
		return 0
	}
	// A quiet position's moves are not needed, only whether it has one.
	if !p.HasCapture() || ply >= MaxPly {
		if !p.HasMoves() {
			return -WinScore + ply
		}
		return s.eval.Evaluate(p)
	}
	list := &s.lists[ply]
	p.GenerateMoves(list)
	n := list.Len()
	s.scoreMoves(ply, noMove, true)
	bestScore := -Infinity
	for i := range n {
		m := list.At(s.pick(ply, i, n))
		p.MakeMove(m)
		score := -s.quiescence(-beta, -alpha, ply+1)
		p.UnmakeMove()
		if s.stopped {
			return 0
		}
		if score > bestScore {
			bestScore = score
			if score > alpha {
				alpha = score
				s.updatePV(ply, m)
				if score >= beta {
					break
				}
			}
		}
	}
	return bestScore
}

// isDraw reports whether the position below the root is drawn: by a
// repetition of any earlier position (of the search or the game: the side
// that could avoid it would not choose it unless it is no worse), or by the
// quiet-ply rule unless the side to move has no move, which loses first
// (dama.Outcome's order). A repetition needs four quiet plies at least, and
// a repeated position had moves the first time.
func (s *Searcher) isDraw() bool {
	q := s.pos.QuietPlies()
	return q >= 4 && (s.pos.Repetitions() > 0 || (q >= dama.QuietLimit && s.pos.HasMoves()))
}

// updatePV makes m followed by the child's line the line at ply.
func (s *Searcher) updatePV(ply int, m dama.Move) {
	s.pv[ply][0] = m
	n := 0
	if ply+1 <= MaxPly {
		n = copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
	}
	s.pvLen[ply] = n + 1
}

// enterNode counts a node and polls the limits; it reports false when the
// search must unwind. A node limit stops the search only once depth 1 is
// complete, at exactly the same node whatever the machine.
func (s *Searcher) enterNode() bool {
	if s.stopped {
		return false
	}
	s.nodes++
	if s.limits.Nodes > 0 && s.nodes >= s.limits.Nodes && s.completed > 0 {
		s.stopped = true
		return false
	}
	if s.nodes&(pollInterval-1) == 0 && (s.stop.Load() || (s.limits.Time > 0 && time.Since(s.start) >= s.limits.Time)) {
		s.stopped = true
	}
	return !s.stopped
}

// limitReached reports, between iterations, whether a limit other than the
// depth has been reached.
func (s *Searcher) limitReached() bool {
	return (s.limits.Nodes > 0 && s.nodes >= s.limits.Nodes) || s.stop.Load() ||
		(s.limits.Time > 0 && time.Since(s.start) >= s.limits.Time)
}
