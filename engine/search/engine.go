// Package search is the engine's alpha-beta search: iterative deepening with
// aspiration windows, principal variation search over a shared lock-free
// transposition table, quiescence with SEE, null move, ProbCut, late move
// reductions and pruning, futility and razoring, check and singular
// extensions (double and negative ones too), move ordering by history,
// continuation, pawn and capture histories and threats, and Lazy SMP. An Engine is a library object: a program may run many at once,
// each with its own table and threads; a one-thread, node-limited search is
// deterministic given the Engine's state (fresh or Cleared).
//
// The numbers that shape the search tree are declared once, in params.go;
// time management's are at the top of time.go.
//
// Performance idioms. Hot loops index fixed-size arrays with masked
// indexes (m.From()&63, piece&15, side&1, i&255): the mask shows the
// compiler that the index is below the array's length, so it drops the
// bounds check, and it changes no value, since squares, pieces, colours and
// move-list indexes are already below 64, 16, 2 and 256. Where a check must
// stay it is made once before the loop: scoreQuiets slices the keys to the
// moves' length and reads ch1[0][0], ch2[0][0] and ch4[0][0] so that its loop needs
// neither bounds nor nil checks (go build
// -gcflags=chessforge/engine/search=-d=ssa/check_bce/debug=1 reports no
// bounds check on the masked lines). Loops are shaped for the code they
// compile to: best finds the highest score in one pass and its place in a
// second, tighter than one pass tracking both; maxKey stays out of line,
// where its loop compiles to conditional moves; a quiet move's key carries
// its index in the low byte, so one pass of maxima both ranks and finds it.
// enterNode polls the limits when nodes&511 is 0, every 512 nodes. The
// build's profile (cmd/engine/default.pgo) names hot call sites by their
// line offset within their function, so adding or removing lines above a
// hot call in negamax, quiescence or pick loses its inlining until `make
// pgo` renews the profile.
package search

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/eval"
	"chessforge/engine/nnue"
)

// Limits bound a search; zero fields are unset. With no limit at all the
// search runs to MaxPly or until Stop. Every limit set holds: the search ends
// at the first one reached.
type Limits struct {
	Depth int
	// Nodes is the hard node limit: the search stops as soon as it has
	// searched this many nodes (with one thread, exactly this many).
	Nodes uint64
	// SoftNodes is the soft node limit (UCI go softnodes N): no iteration
	// of the deepening starts once this many nodes are searched, so the
	// search ends with the iteration that passes it, complete. Nodes, the
	// clock and Stop still end it at once.
	SoftNodes uint64
	MoveTime  time.Duration
	WTime     time.Duration
	BTime     time.Duration
	WInc      time.Duration
	BInc      time.Duration
	MovesToGo int
	Infinite  bool
	Ponder    bool         // search on the opponent's time until PonderHit
	MultiPV   int          // lines to report; 0 takes the Engine's option
	Moves     []board.Move // restrict the root to these moves (UCI searchmoves)
	// Mate (UCI go mate N, 1 to MaxMate) looks for a mate in at most this
	// many moves by the side to move: an exact search (see mateSearch)
	// for a mate in 1, 2, … moves ends at the first found, which is the
	// result. Without one, the main search picks the move, to Depth if set
	// or else 2·Mate−1 plies. Depth, if set, also bounds the mate search
	// (no mate longer than (Depth+1)/2 moves is looked for); time, nodes
	// and Stop bound both searches together.
	Mate int
}

// Options configure an Engine.
type Options struct {
	HashMB       int           // transposition table size in MiB
	Threads      int           // search threads (Lazy SMP)
	MultiPV      int           // principal variations reported
	MoveOverhead time.Duration // kept back from every clock
}

// DefaultOptions are the UCI defaults.
var DefaultOptions = Options{HashMB: 16, Threads: 1, MultiPV: 1, MoveOverhead: 30 * time.Millisecond}

// Line is one principal variation.
type Line struct {
	Score    int // centipawns from the side to move's view; mates ±(MateScore-plies)
	Bound    Bound
	Depth    int
	SelDepth int
	PV       []board.Move
}

// Info is a progress report, sent after each iteration (and on aspiration
// failures in long searches).
type Info struct {
	Line
	MultiPV  int // 1-based
	Nodes    uint64
	NPS      uint64
	HashFull int
	Time     time.Duration
}

// Result is the outcome of a search.
type Result struct {
	BestMove   board.Move // NullMove when the side to move has no legal move
	PonderMove board.Move
	Score      int
	Depth      int
	SelDepth   int
	Nodes      uint64
	Time       time.Duration
	PV         []board.Move
	Lines      []Line // MultiPV lines, best first
	// NoMateIn, with Limits.Mate, is the largest number of moves in which
	// the mate search proved there is no mate (0 if it found one or was
	// cut short before proving any).
	NoMateIn int
}

// Engine owns a transposition table and search threads.
type Engine struct {
	opts      Options
	tt        *TT
	workers   []*worker
	net       *nnue.Network // nil: the hand-crafted evaluation
	stop      atomic.Bool
	ponderhit atomic.Bool
}

// New returns an Engine with the given options (zero fields take the defaults).
func New(o Options) *Engine {
	if o.HashMB <= 0 {
		o.HashMB = DefaultOptions.HashMB
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.MultiPV <= 0 {
		o.MultiPV = 1
	}
	e := &Engine{opts: o, tt: NewTT(o.HashMB)}
	e.setThreads(o.Threads)
	return e
}

// SetHash resizes (and clears) the transposition table.
func (e *Engine) SetHash(mb int) {
	e.opts.HashMB = max(mb, 1)
	e.tt = NewTT(e.opts.HashMB)
}

// SetThreads sets the number of search threads.
func (e *Engine) SetThreads(n int) {
	e.opts.Threads = max(n, 1)
	e.setThreads(e.opts.Threads)
}

// SetMultiPV sets the default number of principal variations.
func (e *Engine) SetMultiPV(n int) { e.opts.MultiPV = max(n, 1) }

// SetMoveOverhead sets the time kept back from every clock.
func (e *Engine) SetMoveOverhead(d time.Duration) { e.opts.MoveOverhead = max(d, 0) }

func (e *Engine) setThreads(n int) {
	e.workers = make([]*worker, n)
	for i := range e.workers {
		e.workers[i] = &worker{e: e, id: i, ev: eval.NewEvaluator()}
		e.workers[i].setNetwork(e.net)
	}
}

// Clear forgets everything learnt: the table, history, killers and
// countermoves (a new game).
func (e *Engine) Clear() {
	e.tt.Clear()
	for i, w := range e.workers {
		// The evaluator's cache holds exact results, so it is kept.
		e.workers[i] = &worker{e: e, id: i, ev: w.ev, nn: w.nn}
	}
}

// Stop asks a running search to finish as soon as possible; Search then
// returns the best move found so far. Safe to call from any goroutine.
func (e *Engine) Stop() { e.stop.Store(true) }

// PonderHit tells a pondering search that the expected move was played: it
// goes on under its time limits from now.
func (e *Engine) PonderHit() { e.ponderhit.Store(true) }

func (e *Engine) totalNodes() uint64 {
	var n uint64
	for _, w := range e.workers {
		n += w.nodesPub.Load()
	}
	return n
}

// rootMove is a legal move at the root with what the last iteration found.
type rootMove struct {
	move      board.Move
	score     int
	prevScore int
	bound     Bound
	selDepth  int
	pv        []board.Move
	nodes     uint64 // searched below this move, in every iteration so far
}

// worker is one search thread with its own position and heuristics.
type worker struct {
	e        *Engine
	id       int
	pos      *board.Position
	ev       *eval.Evaluator
	nn       *nnue.Stack // the network's accumulators; nil with the hand-crafted evaluation
	rootPly  int
	limits   Limits
	tm       timeManager
	nodes    uint64
	nodesPub atomic.Uint64
	stopped  bool
	// singleNodeLimit makes a one-thread node-limited search stop at an
	// exact node count, so that it is deterministic.
	singleNodeLimit uint64

	selDepth  int
	rootMoves []rootMove
	pvIdx     int
	completed int // depth of the last completed iteration

	stack [MaxPly + 4]frame
	pv    [MaxPly + 2][MaxPly + 2]board.Move
	pvLen [MaxPly + 2]int
	// history[side][from][to] scores quiet moves; gravity keeps it within
	// ±historyLimit.
	history [2][64][64]int16
	counter [12][64]board.Move
	// contHist[piece][to] scores a quiet move by the move made one, two or
	// four plies before it (continuation history; see contBack).
	contHist [13][64]contTable
	// pawnHist[pawnIndex] scores a quiet move by the pawn structure it is
	// made in.
	pawnHist [pawnHistSize]contTable
	// capHist[piece][to][captured] scores captures and promotions (the
	// captured type is board.NoPieceType for a promotion that takes
	// nothing); see captureHist.
	capHist [12][64][8]int16
	// pickers[ply][slot] is the move picker of the node at ply of the
	// slot's kind. Kept here, they are not zeroed at every node.
	pickers [MaxPly + 1][pickSlots]movePicker
}

// The picker slots of a ply. Every kind of node that can be live at a ply
// while another is has a slot of its own, so no node's moves are
// overwritten whatever the depths involved. A node at ply runs searches at
// its own ply only to verify: the null move's verification search and
// razoring's quiescence run before its picker is set up (as does ProbCut,
// whose captures use the main slot before the node's own moves do); the
// singular-extension search runs while it is live, excludes a move and so
// never runs another singular-extension search (nor a null move or
// razoring), and at depth 0 or less it is a quiescence node. Quiescence
// nodes call quiescence at the next ply only.
const (
	pickMain       = iota // an interior node (or the root)
	pickSingular          // a singular-extension search (pickMain+1)
	pickQuiescence        // a quiescence node
	pickSlots
)

// contTable scores quiet moves (moved piece, target square) that follow one
// earlier move.
type contTable [16][64]int16

// Search searches pos (whose history counts for repetitions) within lim and
// returns the best move. pos is not modified. report, if not nil, receives
// progress from the main thread.
func (e *Engine) Search(pos *board.Position, lim Limits, report func(Info)) Result {
	e.stop.Store(false)
	e.ponderhit.Store(false)
	return e.search(pos, lim, report)
}

// Start begins a search as Search does, in the background, and returns a
// function that waits for its result. A Stop or PonderHit made once Start
// has returned always reaches this search; one made while a Search called
// in a new goroutine has not yet begun would be lost (an infinite search
// never stopping). pos must not change until the search is over.
func (e *Engine) Start(pos *board.Position, lim Limits, report func(Info)) (wait func() Result) {
	e.stop.Store(false)
	e.ponderhit.Store(false)
	done := make(chan Result, 1)
	go func() { done <- e.search(pos, lim, report) }()
	return func() Result { return <-done }
}

// search is Search once the stop and ponderhit signals are cleared.
func (e *Engine) search(pos *board.Position, lim Limits, report func(Info)) Result {
	e.tt.NewSearch()
	multiPV := lim.MultiPV
	if multiPV <= 0 {
		multiPV = e.opts.MultiPV
	}

	var legal board.MoveList
	pos.GenerateLegal(&legal)
	var roots []rootMove
	for _, m := range legal.Slice() {
		if len(lim.Moves) == 0 || slices.Contains(lim.Moves, m) {
			roots = append(roots, rootMove{move: m, score: -Infinity, prevScore: -Infinity})
		}
	}
	if len(roots) == 0 {
		s := 0
		if pos.InCheck() {
			s = -MateScore
		}
		return Result{Score: s}
	}
	multiPV = min(multiPV, len(roots))
	maxDepth := MaxPly - 1
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, maxDepth)
	}

	tm := newTimeManager(lim, pos.SideToMove() == board.White, e.opts.MoveOverhead)
	var mateNodes uint64
	noMate := 0
	if lim.Mate > 0 {
		moves := make([]board.Move, len(roots))
		for i, rm := range roots {
			moves[i] = rm.move
		}
		res, found, n := e.searchMate(pos, moves, lim, &tm, report)
		if found {
			return res
		}
		// No mate: the main search picks a move within what is left.
		mateNodes, noMate = res.Nodes, n
		if lim.Depth == 0 {
			maxDepth = min(2*lim.Mate-1, maxDepth)
		}
		if lim.Nodes > 0 {
			lim.Nodes = max(lim.Nodes-min(mateNodes, lim.Nodes), 1)
		}
		if lim.SoftNodes > 0 {
			lim.SoftNodes = max(lim.SoftNodes-min(mateNodes, lim.SoftNodes), 1)
		}
	}
	for _, w := range e.workers {
		w.pos = pos.Clone()
		if w.nn != nil {
			w.nn.Reset(w.pos)
		}
		w.rootPly = pos.Ply()
		w.limits = lim
		w.tm = tm
		w.nodes = 0
		w.nodesPub.Store(0)
		w.stopped = false
		w.completed = 0
		w.singleNodeLimit = 0
		if len(e.workers) == 1 {
			w.singleNodeLimit = lim.Nodes
		}
		w.rootMoves = slices.Clone(roots)
		for i := range w.stack {
			w.stack[i] = frame{eval: -Infinity}
		}
	}

	var wg sync.WaitGroup
	for _, w := range e.workers[1:] {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.iterate(maxDepth, 1, nil)
		}(w)
	}
	main := e.workers[0]
	main.iterate(maxDepth, multiPV, report)
	e.stop.Store(true)
	wg.Wait()
	if report != nil && main.stopped {
		// The last iteration was cut short: report the final totals.
		for i := 0; i < multiPV; i++ {
			report(main.info(i, max(main.completed, 1)))
		}
	}

	total := mateNodes
	for _, w := range e.workers {
		w.nodesPub.Store(w.nodes)
		total += w.nodes
	}
	res := Result{
		NoMateIn: noMate,
		BestMove: main.rootMoves[0].move,
		Score:    main.rootMoves[0].score,
		Depth:    main.completed,
		SelDepth: main.rootMoves[0].selDepth,
		Nodes:    total,
		Time:     main.tm.elapsed(),
		PV:       slices.Clone(main.rootMoves[0].pv),
	}
	if len(res.PV) == 0 {
		res.PV = []board.Move{res.BestMove}
	}
	if len(res.PV) > 1 {
		res.PonderMove = res.PV[1]
	}
	for i := 0; i < multiPV; i++ {
		rm := main.rootMoves[i]
		score := rm.score
		if score == -Infinity {
			// The line was not searched again before the search stopped:
			// its score from the last complete iteration stands.
			score = rm.prevScore
		}
		res.Lines = append(res.Lines, Line{Score: score, Bound: rm.bound, Depth: main.completed, SelDepth: rm.selDepth, PV: slices.Clone(rm.pv)})
	}
	return res
}

// iterate is iterative deepening for one thread. Helper threads (id > 0)
// search the same root with the shared table, some a ply deeper, which is
// Lazy SMP.
func (w *worker) iterate(maxDepth, multiPV int, report func(Info)) {
	lastBest := board.NullMove
	instability := 1.0
	for depth := 1; depth <= maxDepth; depth++ {
		if w.id > 0 && w.id%2 == 1 && depth > 1 && depth < maxDepth {
			depth++
		}
		for i := range w.rootMoves {
			w.rootMoves[i].prevScore = w.rootMoves[i].score
		}
		for w.pvIdx = 0; w.pvIdx < multiPV; w.pvIdx++ {
			w.selDepth = 0
			w.aspiration(depth, report)
			if w.stopped {
				break
			}
			// Sort the lines found so far; stable, for determinism.
			slices.SortStableFunc(w.rootMoves[:w.pvIdx+1], func(a, b rootMove) int { return b.score - a.score })
		}
		if w.stopped {
			break // the root moves are sorted: the best found so far leads
		}
		w.completed = depth
		if w.id != 0 {
			continue
		}
		if report != nil {
			for i := 0; i < multiPV; i++ {
				report(w.info(i, depth))
			}
		}
		// Time: a best move that keeps changing earns more time.
		best := w.rootMoves[0].move
		if best != lastBest && depth > 1 {
			instability = min(instability*instabilityGrowth, instabilityMax)
		} else {
			instability = max(instability*instabilityDecay, instabilityMin)
		}
		lastBest = best
		if w.rootMoves[0].score >= MateScore-depth && w.limits.Depth == 0 && !w.limits.Infinite {
			break // a mate found within the full-width depth is final
		}
		if w.e.ponderhit.Load() && !w.tm.active {
			w.tm.ponderHit()
		}
		// And so does one that took few of the nodes: the others were hard
		// to refute.
		if w.tm.softStop(instability*nodeEffort(w.rootMoves[0].nodes, w.nodes)) || w.e.stop.Load() || w.softNodesPassed() {
			break
		}
	}
}

// softNodesPassed reports whether the search has passed its soft node
// limit, if it has one: with one thread, by its own count, so that the
// search is deterministic; with more, by every thread's.
func (w *worker) softNodesPassed() bool {
	if w.limits.SoftNodes == 0 {
		return false
	}
	n := w.nodes
	if len(w.e.workers) > 1 {
		w.nodesPub.Store(w.nodes)
		n = w.e.totalNodes()
	}
	return n >= w.limits.SoftNodes
}

// aspiration searches the current PV line at depth with a narrow window
// around the previous score, widening it on failure.
func (w *worker) aspiration(depth int, report func(Info)) {
	alpha, beta := -Infinity, Infinity
	delta := params.AspirationDelta
	prev := w.rootMoves[w.pvIdx].prevScore
	if depth >= params.AspirationMinDepth && prev > -MateInMaxPly && prev < MateInMaxPly {
		alpha = max(prev-delta, -Infinity)
		beta = min(prev+delta, Infinity)
	}
	for {
		s := w.negamax(alpha, beta, depth, 0, false)
		slices.SortStableFunc(w.rootMoves[w.pvIdx:], func(a, b rootMove) int { return b.score - a.score })
		if w.stopped {
			return
		}
		switch {
		case s <= alpha:
			w.reportBound(depth, report)
			beta = (alpha + beta) / 2
			alpha = max(s-delta, -Infinity)
		case s >= beta:
			w.reportBound(depth, report)
			beta = min(s+delta, Infinity)
		default:
			return
		}
		delta += delta * params.AspirationGrowth / 100
		if delta > params.AspirationMaxDelta {
			alpha, beta = -Infinity, Infinity
		}
	}
}

// reportBound sends an info line for an aspiration failure in a long search.
func (w *worker) reportBound(depth int, report func(Info)) {
	if report != nil && w.id == 0 && w.tm.elapsed() > time.Second {
		report(w.info(w.pvIdx, depth))
	}
}

// updateRootMove records the score and PV of a root move after its search.
func (w *worker) updateRootMove(m board.Move, s, alpha, beta int, first bool, nodes uint64) {
	for i := w.pvIdx; i < len(w.rootMoves); i++ {
		rm := &w.rootMoves[i]
		if rm.move != m {
			continue
		}
		rm.nodes += nodes
		if first || s > alpha {
			rm.score = s
			rm.selDepth = w.selDepth
			rm.bound = BoundExact
			if s >= beta {
				rm.bound = BoundLower
			} else if s <= alpha {
				rm.bound = BoundUpper
			}
			rm.pv = append(rm.pv[:0], m)
			rm.pv = append(rm.pv, w.pv[1][:w.pvLen[1]]...)
		} else {
			rm.score = -Infinity
		}
		return
	}
}

func (w *worker) info(i, depth int) Info {
	rm := w.rootMoves[i]
	el := w.tm.elapsed()
	nodes := w.e.totalNodes()
	nodes = max(nodes, w.nodes)
	nps := uint64(0)
	if el > 0 {
		nps = uint64(float64(nodes) / el.Seconds())
	}
	score := rm.score
	if score == -Infinity {
		score = rm.prevScore
	}
	return Info{
		Line:     Line{Score: score, Bound: rm.bound, Depth: depth, SelDepth: rm.selDepth, PV: slices.Clone(rm.pv)},
		MultiPV:  i + 1,
		Nodes:    nodes,
		NPS:      nps,
		HashFull: w.e.tt.Hashfull(),
		Time:     el,
	}
}
