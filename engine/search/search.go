package search

import (
	"chessforge/engine/board"
	"chessforge/engine/eval"
)

// Score bounds. A mate found at ply n scores MateScore-n for the winner.
const (
	MaxPly       = 128
	MateScore    = 32000
	Infinity     = 32001
	MateInMaxPly = MateScore - MaxPly
)

// frame is what the search keeps about one ply of the current line.
type frame struct {
	killers  [2]board.Move
	eval     int
	excluded board.Move // the move a singular-extension search leaves out
	// doubleExtensions counts the double singular extensions on the line
	// to this ply (see Params.SingularDoubleMax).
	doubleExtensions int
	// The move made from this ply, for the continuation history of the
	// next plies: the piece moved (board.NoPiece for a null move) and its target.
	moved board.Piece
	to    board.Square
	// cutoffs counts the beta cutoffs at this ply since the node two
	// plies up began: many mean its moves keep being refuted.
	cutoffs int
	// conts are the tables that score this node's quiet moves. They live
	// here rather than on negamax's stack, which the picker's pointer to
	// them would move to the heap at every node.
	conts contTables
}

// contBack are the plies back whose moves' continuation tables score a
// quiet move.
var contBack = [...]int{1, 2, 4}

// contTables are the tables that score a quiet move at a node beside its
// history: the continuation tables of the moves contBack plies before it,
// then the pawn history table of the node's pawn structure.
type contTables [len(contBack) + 1]*contTable

// pawnHistSize is the number of pawn history tables (a power of two).
const pawnHistSize = 512

// pawnIndex is the index of p's pawn structure in the pawn history.
func pawnIndex(p *board.Position) int {
	return pawnStructureIndex(p.Pieces(board.White, board.Pawn), p.Pieces(board.Black, board.Pawn))
}

// pawnStructureIndex is the pawn history index of white and black pawns: a
// multiplicative hash's top bits.
func pawnStructureIndex(white, black board.Bitboard) int {
	h := uint64(white)*0x9E3779B97F4A7C15 ^ uint64(black)*0xC2B2AE3D27D4EB4F
	return int(h >> 55 & (pawnHistSize - 1))
}

// contTable returns the continuation table of the move made back plies
// before the node at ply (a shared empty table where there is none, e.g.
// near the root or after a null move).
func (w *worker) contTable(ply, back int) *contTable {
	if ply-back < 0 {
		return &w.contHist[board.NoPiece][0]
	}
	f := &w.stack[ply-back]
	return &w.contHist[f.moved][f.to]
}

// contTables returns the tables of the node at ply, w.pos (see contTables).
func (w *worker) contTables(ply int) contTables {
	var ch contTables
	for i, back := range contBack {
		ch[i] = w.contTable(ply, back)
	}
	ch[len(contBack)] = &w.pawnHist[pawnIndex(w.pos)]
	return ch
}

// quietScore is a quiet move's ordering score: its history, continuation
// histories and pawn history.
func (w *worker) quietScore(us board.Color, pc board.Piece, m board.Move, ch *contTables) int {
	to := m.To()
	return int(w.history[us][m.From()][to]) + int(ch[0][pc][to]) + int(ch[1][pc][to]) + int(ch[2][pc][to]) + int(ch[3][pc][to])
}

// lmrTable[depth][moveNumber] is the base late-move reduction in plies,
// from params (see setParams).
var lmrTable [64][64]int8

func lmr(depth, moveNumber int) int {
	return int(lmrTable[min(depth, 63)][min(moveNumber, 63)])
}

// reducedDepth is about the depth late-move reduction would search a quiet
// move to: the move's depth less its base reduction, a ply more for each
// LMRHistoryDivisor of its history score (less for a bad one), never below
// zero. Futility and SEE pruning judge a quiet move at this depth.
func reducedDepth(depth, moveNumber, histScore int) int {
	return max(0, depth-1-lmr(depth, moveNumber)+historyPlies(histScore))
}

// historyPlies is the plies a quiet move's history score takes off its
// late-move reduction (adds, when negative): one per LMRHistoryDivisor.
func historyPlies(histScore int) int {
	return histScore / params.LMRHistoryDivisor
}

// checkLimits runs every 512 nodes: it polls the stop flag, and on the
// main thread the clock and the node budget.
func (w *worker) checkLimits() {
	w.nodesPub.Store(w.nodes)
	if w.completed == 0 {
		return // always finish depth 1, so that there is a move to play
	}
	if !w.tm.active && w.e.ponderhit.Load() {
		w.tm.ponderHit()
	}
	if w.e.stop.Load() {
		w.stopped = true
		return
	}
	if w.id != 0 {
		return
	}
	if w.tm.hardStop() || (w.limits.Nodes > 0 && w.e.totalNodes() >= w.limits.Nodes) {
		w.e.stop.Store(true)
		w.stopped = true
	}
}

// store saves a node's result in the table: its bound from where the best
// score fell against the original window, and its static evaluation unless
// the side to move was in check (then there is none).
func (w *worker) store(key uint64, best board.Move, score, staticEval int, inCheck bool, alpha, beta, depth, ply int) {
	bound := BoundUpper
	if score >= beta {
		bound = BoundLower
	} else if score > alpha {
		bound = BoundExact
	}
	if inCheck {
		staticEval = -Infinity
	}
	w.e.tt.Store(key, best, scoreToTT(score, ply), staticEval, depth, bound)
}

// updatePV makes m followed by the child's PV the PV at ply.
func (w *worker) updatePV(ply int, m board.Move) {
	w.pv[ply][0] = m
	copy(w.pv[ply][1:], w.pv[ply+1][:w.pvLen[ply+1]])
	w.pvLen[ply] = w.pvLen[ply+1] + 1
}

// enterNode counts a node and polls the limits; it reports false when the
// search must unwind.
func (w *worker) enterNode(ply int) bool {
	if w.stopped {
		return false
	}
	w.nodes++
	if w.nodes&511 == 0 {
		w.checkLimits()
	}
	if w.singleNodeLimit > 0 && w.nodes >= w.singleNodeLimit && w.completed > 0 {
		w.stopped = true
		return false
	}
	if ply > w.selDepth {
		w.selDepth = ply
	}
	return !w.stopped
}

// negamax is the principal variation search of one node.
func (w *worker) negamax(alpha, beta, depth, ply int, cutNode bool) int {
	pvNode := beta-alpha > 1
	root := ply == 0
	w.pvLen[ply] = 0
	if depth <= 0 {
		return w.quiescence(alpha, beta, ply, true)
	}
	if !w.enterNode(ply) {
		return 0
	}
	p := w.pos
	inCheck := p.InCheck()
	fr := &w.stack[ply]
	excluded := fr.excluded

	if !root {
		if p.IsSearchDraw(w.rootPly) {
			return 0
		}
		if p.HalfmoveClock() >= 100 && (!inCheck || p.HasLegalMove()) {
			return 0
		}
		if ply >= MaxPly {
			if inCheck {
				return 0
			}
			return w.evaluate(p)
		}
		// Mate distance pruning: no line from here beats a mate already found closer to the root.
		alpha = max(alpha, -MateScore+ply)
		beta = min(beta, MateScore-ply-1)
		if alpha >= beta {
			return alpha
		}
	}

	key := p.Hash()
	if excluded != board.NullMove {
		key ^= uint64(excluded) * 0x9E3779B97F4A7C15
	}
	tte, ttHit := w.e.tt.Probe(key)
	ttMove := board.NullMove
	ttScore := 0
	if ttHit {
		ttMove = tte.move
		ttScore = scoreFromTT(tte.score, ply)
		if !pvNode && tte.depth >= depth && excluded == board.NullMove &&
			(tte.bound == BoundExact ||
				(tte.bound == BoundLower && ttScore >= beta) ||
				(tte.bound == BoundUpper && ttScore <= alpha)) {
			return ttScore
		}
	}
	if root && w.pvIdx < len(w.rootMoves) {
		ttMove = w.rootMoves[w.pvIdx].move
	}

	// Fetch the null move's child now, while the evaluation below runs:
	// fetched just before the null move, its bucket was still on its way
	// from memory at the child's probe two times in three.
	if !pvNode && !inCheck && depth >= params.NullMinDepth && excluded == board.NullMove && p.LastMove() != board.NullMove {
		w.e.tt.Prefetch(p.KeyAfterNull())
	}

	// Static evaluation, refined by the TT score when its bound allows.
	staticEval := -Infinity
	improving := false
	if !inCheck {
		if ttHit && tte.eval != -Infinity && tte.eval > -MateInMaxPly && tte.eval < MateInMaxPly {
			staticEval = tte.eval
		} else {
			if w.nn != nil {
				staticEval = w.netEvaluate(p)
			} else {
				staticEval = w.ev.Evaluate(p)
			}
			if !ttHit && excluded == board.NullMove {
				// Keep the evaluation even if this node ends before its
				// own store (a reverse futility or null-move cutoff): the
				// next iteration meets the node again.
				w.e.tt.Store(key, board.NullMove, 0, staticEval, -1, BoundNone)
			}
		}
		fr.eval = staticEval
		if ply >= 2 && w.stack[ply-2].eval != -Infinity {
			improving = staticEval > w.stack[ply-2].eval
		}
	} else {
		fr.eval = -Infinity
	}
	adjEval := staticEval
	if ttHit && !inCheck && ttScore > -MateInMaxPly && ttScore < MateInMaxPly &&
		(tte.bound == BoundExact || (tte.bound == BoundLower && ttScore > staticEval) ||
			(tte.bound == BoundUpper && ttScore < staticEval)) {
		adjEval = ttScore
	}
	w.stack[ply+1].killers = [2]board.Move{}
	w.stack[ply+2].cutoffs = 0
	w.stack[ply+2].excluded = board.NullMove
	w.stack[ply+1].excluded = board.NullMove

	if !inCheck && !pvNode && excluded == board.NullMove {
		// Reverse futility: far above beta at low depth, assume a cutoff.
		if depth <= params.RFPMaxDepth && adjEval-params.RFPMargin*(depth-b2i(improving)) >= beta && adjEval < MateInMaxPly {
			return adjEval
		}
		// Razoring: hopeless at low depth, verify with quiescence.
		if depth <= params.RazorMaxDepth && adjEval+params.RazorMargin*depth < alpha {
			s := w.quiescence(alpha, alpha+1, ply, true)
			if s <= alpha {
				return s
			}
		}
		// Null move, guarded against zugzwang by requiring pieces besides pawns.
		if depth >= params.NullMinDepth && adjEval >= beta && staticEval >= beta && p.LastMove() != board.NullMove &&
			p.NonPawnMaterial(p.SideToMove()) && beta > -MateInMaxPly {
			r := params.NullBaseReduction + depth/params.NullDepthDivisor + min((adjEval-beta)/params.NullEvalDivisor, params.NullEvalMaxReduction)
			fr.moved, fr.to = board.NoPiece, 0
			w.stack[ply+1].doubleExtensions = fr.doubleExtensions
			if w.nn != nil {
				w.nn.PushNull()
			}
			p.MakeNullMove()
			s := -w.negamax(-beta, -beta+1, depth-r, ply+1, !cutNode)
			p.UnmakeNullMove()
			if w.nn != nil {
				w.nn.Pop()
			}
			if w.stopped {
				return 0
			}
			if s >= beta {
				if s >= MateInMaxPly {
					s = beta
				}
				// At high depth, verify with a reduced normal search (zugzwang).
				if depth < params.NullVerifyDepth {
					return s
				}
				v := w.negamax(beta-1, beta, depth-r, ply, false)
				if v >= beta {
					return s
				}
			}
		}
	}

	// ProbCut: a good capture whose reduced search beats beta by a margin
	// is taken as proof that the full search would beat beta. Skipped when
	// the table already says, deep enough, that it would not.
	if probBeta := beta + params.ProbCutMargin; !pvNode && !inCheck && excluded == board.NullMove &&
		depth >= params.ProbCutMinDepth && beta > -MateInMaxPly && probBeta < MateInMaxPly &&
		!(ttHit && tte.depth >= depth-params.ProbCutReduction+1 && ttScore < probBeta) {
		// The picker of this ply's node is free until its move loop.
		mp := &w.pickers[ply][pickMain]
		mp.initQuiescence(w, ttMove)
		for {
			m := mp.pick(false, false)
			if m == board.NullMove {
				break
			}
			if (m.IsPromotion() && m.Promotion() != board.Queen) || !seeGE(p, m, probBeta-staticEval) {
				continue
			}
			fr.moved, fr.to = p.PieceAt(m.From()), m.To()
			if w.nn != nil {
				w.nn.Push(p, m)
			}
			p.MakeMove(m)
			s := -w.quiescence(-probBeta, -probBeta+1, ply+1, true)
			if s >= probBeta {
				s = -w.negamax(-probBeta, -probBeta+1, depth-params.ProbCutReduction, ply+1, !cutNode)
			}
			p.UnmakeMove()
			if w.nn != nil {
				w.nn.Pop()
			}
			if w.stopped {
				return 0
			}
			if s >= probBeta {
				w.store(key, m, s, staticEval, false, probBeta-1, probBeta, depth-params.ProbCutReduction+1, ply)
				return s
			}
		}
	}

	// Internal iterative reduction: without a TT move, this node is
	// probably not worth the full depth.
	if depth >= params.IIRMinDepth && ttMove == board.NullMove && (pvNode || cutNode) && !root {
		depth--
	}

	fr.conts = w.contTables(ply)
	ch := &fr.conts
	mp := &w.pickers[ply][pickMain+b2i(excluded != board.NullMove)]
	if root {
		mp.initRoot(p, w.rootMoves[w.pvIdx:]) // the current line's candidates, in the last iteration's order
	} else {
		mp.initMain(w, ply, ttMove, ch)
	}
	us := p.SideToMove()
	bestScore := -Infinity
	bestMove := board.NullMove
	origAlpha := alpha
	moveCount := 0
	var quietsTried, capturesTried [64]board.Move
	nQuiets, nCaptures := 0, 0
	// Late-move pruning cuts quiet moves after the lmpLimit-th move.
	lmpLimit := 1 << 30 // no limit
	if !root && depth <= params.LMPMaxDepth {
		lmpLimit = (params.LMPBase + depth*depth) / (2 - b2i(improving))
	}

	for {
		// A quiet move handed out now is move moveCount+1; if the one
		// after it would be pruned, the picker need not look ahead to it
		// (find it and fetch its child's table bucket while this move is
		// searched).
		m := mp.pick(!root, moveCount+2 <= lmpLimit)
		if m == board.NullMove {
			break
		}
		if m == excluded {
			continue
		}
		w.e.tt.Prefetch(p.KeyAfter(m)) // early, while the move is looked at
		isCapture := p.IsCapture(m)
		quiet := !isCapture && !m.IsPromotion()
		givesCheck := p.GivesCheck(m)
		// Once quiet moves are pruned, the staged picker hands out only
		// quiet checks; a list scored whole (evasions) is filtered here.
		if quiet && mp.skippingQuiets() && !givesCheck {
			continue
		}
		moveCount++
		moved := p.PieceAt(m.From())
		histScore := 0
		if quiet {
			histScore = w.quietScore(us, moved, m, ch)
		}

		// Pruning of late or losing moves at shallow depth. Quiet checks
		// are only pruned when they lose material. A quiet move is judged
		// at the depth late-move reduction would search it to.
		if !root && bestScore > -MateInMaxPly && p.NonPawnMaterial(us) {
			if quiet && !givesCheck {
				if moveCount > lmpLimit {
					mp.skipQuiets()
					continue
				}
				lmrDepth := reducedDepth(depth, moveCount, histScore)
				if !inCheck && lmrDepth <= params.FutilityMaxDepth && staticEval+params.FutilityBase+params.FutilityMargin*lmrDepth <= alpha {
					continue
				}
				if lmrDepth <= params.SEEPruneMaxDepth && !seeGE(p, m, -params.SEEQuietMargin*lmrDepth*lmrDepth) {
					continue
				}
			} else {
				if !inCheck && !givesCheck && w.futileCapture(m, staticEval, alpha, depth) {
					continue
				}
				if depth <= params.SEEPruneMaxDepth && !seeGE(p, m, -params.SEENoisyMargin*depth) {
					continue
				}
			}
		}

		// Extensions: singular (the TT move is much better than every
		// other) and check.
		ext := 0
		// The verification search runs at this ply with a picker slot of
		// its own (pickSingular), and so does a quiescence search it may
		// enter (pickQuiescence): this node's moves are safe at any depth.
		if !root && depth >= params.SingularMinDepth && m == ttMove && excluded == board.NullMove && ttHit &&
			tte.bound&BoundLower != 0 && tte.depth >= depth-params.SingularTTDepthMargin && ttScore > -MateInMaxPly && ttScore < MateInMaxPly {
			sBeta := ttScore - params.SingularMargin*depth
			s := w.singularSearch(m, sBeta, (depth-1)/params.SingularDepthDivisor, ply, cutNode)
			if w.stopped {
				return 0
			}
			switch {
			case s < sBeta-params.SingularDoubleMargin && !pvNode && fr.doubleExtensions < params.SingularDoubleMax:
				ext = 2
			case s < sBeta:
				ext = 1
			case sBeta >= beta:
				return sBeta // multi-cut: another move also beats beta
			case ttScore >= beta:
				ext = -1 // not singular, yet expected to cut: search it shallower
			}
		}

		fr.moved, fr.to = moved, m.To()
		nodesBefore := w.nodes
		if w.nn != nil {
			w.nn.Push(p, m)
		}
		p.MakeMove(m)
		if givesCheck && ext == 0 {
			ext = 1
		}
		if ply+1 >= MaxPly/2 {
			ext = 0
		}
		w.stack[ply+1].doubleExtensions = fr.doubleExtensions + b2i(ext == 2)
		newDepth := depth - 1 + ext

		var s int
		if moveCount == 1 {
			s = -w.negamax(-beta, -alpha, newDepth, ply+1, false)
		} else {
			r := 0
			if depth >= params.LMRMinDepth && moveCount > 1+b2i(pvNode) && (quiet || mp.lastBad()) {
				r = lmr(depth, moveCount)
				r -= b2i(pvNode)
				r += b2i(cutNode)
				r += b2i(w.stack[ply+1].cutoffs > 3) // the siblings' replies keep cutting off
				r += b2i(!improving)
				r -= b2i(givesCheck)
				if quiet {
					r -= historyPlies(histScore)
				} else {
					r = r * params.LMRNoisyPercent / 100
				}
				r = max(0, min(r, newDepth-1))
			}
			reduced := newDepth - r
			s = -w.negamax(-alpha-1, -alpha, reduced, ply+1, true)
			if s > alpha && r > 0 {
				// The reduced search beat alpha: search it again at full
				// depth, a ply deeper if it beat the best score by far, a
				// ply shallower if barely.
				if bestScore > -MateInMaxPly {
					newDepth += b2i(s > bestScore+params.LMRDeeperMargin+2*newDepth)
					newDepth -= b2i(s < bestScore+params.LMRShallowerMargin)
				}
				if newDepth > reduced {
					s = -w.negamax(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
				}
			}
			if s > alpha && s < beta {
				s = -w.negamax(-beta, -alpha, newDepth, ply+1, false)
			}
		}
		p.UnmakeMove()
		if w.nn != nil {
			w.nn.Pop()
		}
		if w.stopped {
			return 0
		}

		if root {
			w.updateRootMove(m, s, alpha, beta, moveCount == 1, w.nodes-nodesBefore)
		}
		if s > bestScore {
			bestScore = s
			if s > alpha {
				bestMove = m
				alpha = s
				w.updatePV(ply, m)
				if s >= beta {
					fr.cutoffs += 1 + b2i(ttMove == board.NullMove) // unforeseen by the table: counts twice
					w.updateCutoffStats(ply, m, quiet, depth, quietsTried[:nQuiets], capturesTried[:nCaptures], ch)
					break
				}
			}
		}
		if quiet && nQuiets < len(quietsTried) {
			quietsTried[nQuiets] = m
			nQuiets++
		} else if !quiet && nCaptures < len(capturesTried) {
			capturesTried[nCaptures] = m
			nCaptures++
		}
	}

	if moveCount == 0 {
		if excluded != board.NullMove {
			return alpha
		}
		if inCheck {
			return -MateScore + ply
		}
		return 0
	}
	if bestScore == -Infinity { // every move pruned
		return alpha
	}

	// Every reply to the opponent's last move failed low: if that move was
	// quiet, it earns the history bonus in the opponent's statistics.
	if bestMove == board.NullMove && !root && excluded == board.NullMove {
		if prev := p.LastMove(); prev != board.NullMove && p.CapturedPiece() == board.NoPiece && !prev.IsPromotion() {
			w.rewardPriorQuiet(ply, prev, historyBonus(depth))
		}
	}

	if excluded == board.NullMove && !(root && w.pvIdx > 0) {
		w.store(key, bestMove, bestScore, staticEval, inCheck, origAlpha, beta, depth, ply)
	}
	return bestScore
}

// futileCapture reports whether capture m, made at the worker's position
// with its static evaluation staticEval at depth, is futile: not a
// promotion, and even the piece it takes, a margin for the depth and its
// capture history cannot lift the evaluation above alpha (see
// Params.CaptureFutilityMaxDepth). The caller excludes checks and nodes in
// check.
func (w *worker) futileCapture(m board.Move, staticEval, alpha, depth int) bool {
	if m.IsPromotion() || depth > params.CaptureFutilityMaxDepth {
		return false
	}
	p := w.pos
	margin := params.CaptureFutilityBase + params.CaptureFutilityMargin*depth +
		int(*w.captureHist(p, m))/params.CaptureFutilityHistDivisor
	return staticEval+moveGain(p, m)+margin <= alpha
}

// singularSearch is the singular-extension verification of move m at the
// node at ply: the node searched to depth without m, against a null window
// at sBeta. It runs at the node's own ply and so writes the node's line;
// that line is cleared, or a node whose moves all fail low would hand its
// caller the verification's line as its own (a wrong PV after a fail-high
// above it).
func (w *worker) singularSearch(m board.Move, sBeta, depth, ply int, cutNode bool) int {
	fr := &w.stack[ply]
	fr.excluded = m
	s := w.negamax(sBeta-1, sBeta, depth, ply, cutNode)
	fr.excluded = board.NullMove
	w.pvLen[ply] = 0
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// updateCutoffStats rewards m, a move that caused a cutoff at depth, and
// penalises the moves tried before it: a quiet m in the quiet statistics
// (see updateQuietStats), a capture or promotion in the capture history;
// the captures and promotions tried before m lose in either case.
func (w *worker) updateCutoffStats(ply int, m board.Move, quiet bool, depth int, quietsTried, capturesTried []board.Move, ch *contTables) {
	bonus := historyBonus(depth)
	if quiet {
		w.updateQuietStats(ply, m, bonus, quietsTried, ch)
	} else {
		gravity(w.captureHist(w.pos, m), bonus)
	}
	for _, c := range capturesTried {
		gravity(w.captureHist(w.pos, c), -bonus)
	}
}

// historyBonus is what a move that causes a cutoff at depth earns in its
// history (and the moves tried before it lose).
func historyBonus(depth int) int {
	return min(params.HistoryBonusQuadratic*depth*depth+params.HistoryBonusLinear*depth, params.HistoryBonusMax)
}

// updateQuietStats rewards a quiet move that caused a cutoff (killer,
// countermove, history, continuation histories) with bonus and penalises
// the quiet moves tried before it.
func (w *worker) updateQuietStats(ply int, m board.Move, bonus int, tried []board.Move, ch *contTables) {
	fr := &w.stack[ply]
	if fr.killers[0] != m {
		fr.killers[1] = fr.killers[0]
		fr.killers[0] = m
	}
	p := w.pos
	if prev := p.LastMove(); prev != board.NullMove {
		w.counter[p.PieceAt(prev.To())][prev.To()] = m
	}
	us := p.SideToMove()
	w.updateQuiet(us, m, bonus, ch)
	for _, q := range tried {
		w.updateQuiet(us, q, -bonus, ch)
	}
}

// updateQuiet adds bonus to a quiet move's history, continuation histories
// and pawn history.
func (w *worker) updateQuiet(us board.Color, m board.Move, bonus int, ch *contTables) {
	pc := w.pos.PieceAt(m.From())
	gravity(&w.history[us][m.From()][m.To()], bonus)
	for _, t := range ch {
		gravity(&t[pc][m.To()], bonus)
	}
}

// rewardPriorQuiet adds bonus to the history and continuation histories of
// prev, the quiet move that led to the node at ply.
func (w *worker) rewardPriorQuiet(ply int, prev board.Move, bonus int) {
	pc, to := w.pos.PieceAt(prev.To()), prev.To()
	gravity(&w.history[w.pos.SideToMove().Other()][prev.From()][to], bonus)
	for _, back := range contBack {
		gravity(&w.contTable(ply-1, back)[pc][to], bonus)
	}
}

// historyLimit bounds history scores (see gravity): they fit an int16.
const historyLimit = 16384

// gravity moves a history score towards ±historyLimit by bonus (|bonus| <=
// historyLimit), slower the closer it is, so that scores stay bounded and
// recent results weigh more.
func gravity(h *int16, bonus int) {
	v := int(*h)
	*h = int16(v + bonus - v*abs(bonus)/historyLimit)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// quiescence searches captures and promotions (all evasions in check) until
// the position is quiet, so that the static evaluation is only trusted there.
//
// Only its first ply, the frontier of the main search, uses the table
// (useTT): deeper positions are rarely met again, and there a probe and a
// store, each a likely cache miss, cost more than they save. Measured when
// this was chosen: the same strength per node (+20 ± 26 Elo over 400 games
// at 10,000 nodes a move), 1.2% fewer bench nodes, and 19% fewer nodes to
// reach depth 18 from the start position.
func (w *worker) quiescence(alpha, beta, ply int, useTT bool) int {
	w.pvLen[ply] = 0
	if !w.enterNode(ply) {
		return 0
	}
	p := w.pos
	if p.IsSearchDraw(w.rootPly) {
		return 0
	}
	inCheck := p.InCheck()
	// The fifty-move rule, at the horizon too (negamax hands a leaf here
	// before its own test): a draw unless the side to move is mated.
	if p.HalfmoveClock() >= 100 && (!inCheck || p.HasLegalMove()) {
		return 0
	}
	if ply >= MaxPly {
		if inCheck {
			return 0
		}
		return w.evaluate(p)
	}
	pvNode := beta-alpha > 1

	// At the frontier the probe goes first: nodes store their static
	// evaluation as soon as they compute it, so the table often has it.
	key := p.Hash()
	ttMove := board.NullMove
	ttEval := -Infinity
	ttHit := false
	if useTT {
		var tte ttData
		if tte, ttHit = w.e.tt.Probe(key); ttHit {
			ttMove, ttEval = tte.move, tte.eval
			s := scoreFromTT(tte.score, ply)
			if !pvNode && (tte.bound == BoundExact ||
				(tte.bound == BoundLower && s >= beta) ||
				(tte.bound == BoundUpper && s <= alpha)) {
				return s
			}
		}
	}
	standPat := -Infinity
	if !inCheck {
		if ttEval != -Infinity && ttEval > -MateInMaxPly && ttEval < MateInMaxPly {
			standPat = ttEval
		} else {
			if w.nn != nil {
				standPat = w.netEvaluate(p)
			} else {
				standPat = w.ev.Evaluate(p)
			}
			if useTT && !ttHit {
				// As in the main search: the next iteration meets this
				// position again, one ply deeper, and the probe above has
				// just brought its bucket into the cache.
				w.e.tt.Store(key, board.NullMove, 0, standPat, -1, BoundNone)
			}
		}
	}
	bestScore := -MateScore + ply
	if !inCheck {
		if standPat >= beta {
			return standPat
		}
		bestScore = standPat
		alpha = max(alpha, standPat)
	}
	origAlpha := alpha

	mp := &w.pickers[ply][pickQuiescence]
	mp.initQuiescence(w, ttMove)
	bestMove := board.NullMove
	for {
		m := mp.pick(false, false)
		if m == board.NullMove {
			break
		}
		if !inCheck {
			if m.IsPromotion() && m.Promotion() != board.Queen {
				continue
			}
			// Delta pruning: even winning this piece cannot lift alpha (not where eval.PawnlessSide).
			if !m.IsPromotion() && !eval.PawnlessSide(p) && standPat+moveGain(p, m)+params.QuiescenceDeltaMargin <= alpha {
				continue
			}
			if !seeGE(p, m, 0) {
				continue
			}
		}
		if w.nn != nil {
			w.nn.Push(p, m)
		}
		p.MakeMove(m)
		s := -w.quiescence(-beta, -alpha, ply+1, false)
		p.UnmakeMove()
		if w.nn != nil {
			w.nn.Pop()
		}
		if w.stopped {
			return 0
		}
		if s > bestScore {
			bestScore = s
			if s > alpha {
				alpha = s
				bestMove = m
				w.updatePV(ply, m)
				if s >= beta {
					break
				}
			}
		}
	}
	if useTT {
		w.store(key, bestMove, bestScore, standPat, inCheck, origAlpha, beta, 0, ply)
	}
	return bestScore
}
