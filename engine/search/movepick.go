package search

import "chessforge/engine/board"

// Move ordering scores within a list: the TT move first, then winning or
// even captures and queen promotions by MVV-LVA, killers and the
// countermove, quiet moves by history, losing captures, and
// under-promotions last. The staged picker keeps the same order without
// scoring everything up front.
const (
	scoreTTMove      = 1 << 30
	scoreGoodCapture = 1 << 28
	scoreKiller1     = 1 << 27
	scoreKiller2     = scoreKiller1 - 1
	scoreCounter     = scoreKiller1 - 2
	scoreBadCapture  = -(1 << 28)
	scoreUnderPromo  = -(1 << 29)
)

// Stages of the move picker.
const (
	// An interior node outside check.
	stageTT = iota
	stageCapturesInit
	stageGoodCaptures
	stageKiller1
	stageKiller2
	stageCounter
	stageQuietsInit
	stageQuiets
	stageBadCaptures
	stageUnderPromotions
	// Quiescence outside check.
	stageQTT
	stageQCapturesInit
	stageQCaptures
	// Every move scored at once: root, evasions.
	stageList
	stageDone
)

// movePicker hands out the moves of a node best-first, in stages: the TT
// move before any move is generated, then the captures, checking the static
// exchange of each only when it is about to be tried, then killers and the
// countermove, then the quiet moves (generated only now), then the losing
// captures. A cutoff in an early stage spares the rest.
//
// The search drives a picker through its methods only: an init method
// (initMain, initQuiescence, initRoot), pick, skipQuiets, skippingQuiets
// and lastBad. Its fields are the picker's own.
type movePicker struct {
	stage int
	w     *worker
	p     *board.Position

	ttMove, killer1, killer2, counter board.Move
	ch                                *contTables

	// list holds the captures (or, in stageList, every move): moves
	// [0,nBad) lost their exchange, [next,list.N) are still to come.
	list   board.MoveList
	scores [256]int32
	next   int
	nBad   int
	bad    int // next losing capture to hand out

	quiets board.MoveList
	// quietKeys[i] is the score of quiets.Moves[i] shifted left by 8 bits,
	// with 255−i in the low bits: the largest key is the best score at its
	// first place, so one pass of maxima selects a move.
	quietKeys [256]int64
	nextQuiet int
	// quietMax is the index of the best quiet move not handed out yet,
	// found ahead of time (-1: none left).
	quietMax int

	// quietsSkipped (see skipQuiets) makes the picker hand out only the
	// remaining quiet moves that give check, in generation order.
	quietsSkipped bool

	// handedBad says that the move handed out last is a losing capture or
	// an under-promotion (see lastBad).
	handedBad bool
}

// skipQuiets tells the picker that the search prunes the remaining quiet
// moves (late-move or futility pruning): from now on it hands out, of the
// quiet moves, only those that give check. A list scored whole (evasions,
// the root) it still hands out whole, so the search checks skippingQuiets
// as well.
func (mp *movePicker) skipQuiets() { mp.quietsSkipped = true }

// skippingQuiets reports whether skipQuiets was called since the picker's
// init.
func (mp *movePicker) skippingQuiets() bool { return mp.quietsSkipped }

// lastBad reports whether the move handed out last is a losing capture or
// an under-promotion (the search reduces those like quiet moves).
func (mp *movePicker) lastBad() bool { return mp.handedBad }

// mvvLVA scores a capture: most valuable victim first, then least valuable attacker.
func mvvLVA(p *board.Position, m board.Move) int32 {
	victim := capturedType(p, m)
	v := int32(0)
	if victim != board.NoPieceType {
		v = int32(seeValue[victim])
	}
	if m.IsPromotion() {
		v += int32(seeValue[board.Queen])
	}
	return v*8 - int32(p.PieceAt(m.From()).Type())
}

// captureScore orders captures and promotions: under-promotions last, the
// rest by MVV-LVA and capture history.
func (w *worker) captureScore(p *board.Position, m board.Move) int32 {
	if m.IsPromotion() && m.Promotion() != board.Queen {
		return scoreUnderPromo + int32(m.Promotion())
	}
	return scoreGoodCapture + mvvLVA(p, m) + int32(*w.captureHist(p, m))/int32(params.CaptureHistoryDivisor)
}

// captureHist returns the capture history entry of m, a capture or a
// promotion in p.
func (w *worker) captureHist(p *board.Position, m board.Move) *int16 {
	return &w.capHist[p.PieceAt(m.From())%12][m.To()&63][capturedType(p, m)&7]
}

// capturedType is the type of the piece m takes in p (board.NoPieceType
// for a move that takes nothing).
func capturedType(p *board.Position, m board.Move) board.PieceType {
	if m.IsEnPassant() {
		return board.Pawn
	}
	return p.PieceAt(m.To()).Type()
}

// initMain prepares the moves of an interior node.
func (mp *movePicker) initMain(w *worker, ply int, ttMove board.Move, ch *contTables) {
	p := w.pos
	mp.w, mp.p = w, p
	mp.ttMove, mp.ch = ttMove, ch
	mp.next, mp.nBad, mp.bad = 0, 0, 0
	mp.handedBad, mp.quietsSkipped = false, false
	fr := &w.stack[ply]
	mp.killer1, mp.killer2 = fr.killers[0], fr.killers[1]
	mp.counter = board.NullMove
	if prev := p.LastMove(); prev != board.NullMove {
		mp.counter = w.counter[p.PieceAt(prev.To())][prev.To()]
	}
	if !p.InCheck() {
		mp.stage = stageTT
		return
	}
	// Evasions are few: score them all at once.
	p.GenerateLegal(&mp.list)
	us := p.SideToMove()
	for i, m := range mp.list.Slice() {
		var s int32
		switch {
		case m == ttMove:
			s = scoreTTMove
		case p.IsCapture(m) || m.IsPromotion():
			s = w.captureScore(p, m)
		case m == mp.killer1:
			s = scoreKiller1
		case m == mp.killer2:
			s = scoreKiller2
		case m == mp.counter:
			s = scoreCounter
		default:
			s = int32(w.quietScore(us, p.PieceAt(m.From()), m, ch))
		}
		mp.scores[i] = s
	}
	mp.stage = stageList
}

// initQuiescence prepares the captures and promotions (or evasions in check).
func (mp *movePicker) initQuiescence(w *worker, ttMove board.Move) {
	p := w.pos
	mp.w, mp.p = w, p
	mp.ttMove = ttMove
	mp.next, mp.nBad, mp.bad = 0, 0, 0
	mp.handedBad, mp.quietsSkipped = false, false
	if !p.InCheck() {
		mp.stage = stageQTT
		return
	}
	p.GenerateCaptures(&mp.list) // every evasion
	us := p.SideToMove()
	for i, m := range mp.list.Slice() {
		var s int32
		switch {
		case m == ttMove:
			s = scoreTTMove
		case p.IsCapture(m) || m.IsPromotion():
			s = w.captureScore(p, m)
		default: // a quiet evasion
			s = int32(w.history[us][m.From()][m.To()])
		}
		mp.scores[i] = s
	}
	mp.stage = stageList
}

// initRoot prepares the root moves roots, to be handed out in their order.
func (mp *movePicker) initRoot(p *board.Position, roots []rootMove) {
	for i, rm := range roots {
		mp.list.Moves[i] = rm.move
		mp.scores[i] = int32(len(roots) - i)
	}
	mp.list.N = len(roots)
	mp.p = p
	mp.next, mp.nBad, mp.bad = 0, 0, 0
	mp.handedBad, mp.quietsSkipped = false, false
	mp.stage = stageList
}

// generateCaptures fills the list with the captures and promotions other
// than the TT move, scored. In the main search it also prefetches the table
// bucket of each capture's child: the fetches then overlap one another and
// the search of the moves before them (quiescence children, which do not
// probe the table, need none).
func (mp *movePicker) generateCaptures() {
	p := mp.p
	p.GenerateCaptures(&mp.list)
	prefetchChildren := mp.stage == stageCapturesInit
	n := 0
	for _, m := range mp.list.Slice() {
		if m == mp.ttMove {
			continue
		}
		mp.list.Moves[n] = m
		mp.scores[n] = mp.w.captureScore(p, m)
		if prefetchChildren {
			mp.w.e.tt.Prefetch(p.KeyAfter(m))
		}
		n++
	}
	mp.list.N = n
}

// usableQuiet reports whether m, a killer or the countermove, is a legal
// quiet move here not handed out already.
func (mp *movePicker) usableQuiet(m board.Move) bool {
	p := mp.p
	return m != board.NullMove && m != mp.ttMove && !m.IsPromotion() && p.IsLegal(m) && !p.IsCapture(m)
}

// pick returns the next move, or NullMove when none is left. With
// checkSEE, a capture that loses material is put off until after the quiet
// moves. With lookAhead, handing out a quiet move also finds the next one
// and fetches its child's table bucket; the search turns it off when the
// next quiet move would be pruned anyway.
func (mp *movePicker) pick(checkSEE, lookAhead bool) board.Move {
	p := mp.p
	for {
		switch mp.stage {
		case stageTT, stageQTT:
			mp.stage++
			m := mp.ttMove
			if m != board.NullMove && p.IsLegal(m) &&
				(mp.stage == stageCapturesInit || p.IsCapture(m) || m.IsPromotion()) {
				return m
			}
			mp.ttMove = board.NullMove
		case stageCapturesInit, stageQCapturesInit:
			mp.generateCaptures()
			mp.stage++
		case stageGoodCaptures:
			i := mp.best(&mp.list, &mp.scores, mp.next)
			if i < 0 || mp.scores[i] < 0 {
				mp.stage = stageKiller1 // what is left is under-promotions
				continue
			}
			m := mp.take(&mp.list, &mp.scores, i, &mp.next)
			if checkSEE && !seeGE(p, m, 0) {
				mp.list.Moves[mp.nBad] = m
				mp.nBad++
				continue
			}
			return m
		case stageKiller1:
			mp.stage++
			if mp.quietsSkipped { // none of them handed out: leave them to the quiet stage
				mp.killer1, mp.killer2, mp.counter = board.NullMove, board.NullMove, board.NullMove
				mp.stage = stageQuietsInit
				continue
			}
			if mp.usableQuiet(mp.killer1) {
				return mp.killer1
			}
			mp.killer1 = board.NullMove
		case stageKiller2:
			mp.stage++
			if mp.quietsSkipped {
				mp.killer2, mp.counter = board.NullMove, board.NullMove
				mp.stage = stageQuietsInit
				continue
			}
			if mp.killer2 != mp.killer1 && mp.usableQuiet(mp.killer2) {
				return mp.killer2
			}
			mp.killer2 = board.NullMove
		case stageCounter:
			mp.stage++
			if mp.quietsSkipped {
				mp.counter = board.NullMove
				continue
			}
			if mp.counter != mp.killer1 && mp.counter != mp.killer2 && mp.usableQuiet(mp.counter) {
				return mp.counter
			}
			mp.counter = board.NullMove
		case stageQuietsInit:
			mp.generateQuiets()
			mp.stage++
		case stageQuiets:
			if mp.quietsSkipped {
				rest := mp.quiets.Moves[mp.nextQuiet:mp.quiets.N]
				if i := p.FirstCheck(rest); i >= 0 {
					mp.nextQuiet += i + 1
					return rest[i]
				}
				mp.nextQuiet = mp.quiets.N
				mp.stage++
				continue
			}
			i := mp.quietMax
			if i < 0 {
				i = mp.bestQuiet()
				if i < 0 {
					mp.stage++
					continue
				}
			}
			m := mp.takeQuiet(i)
			// Look one move ahead: the next quiet move's child is fetched
			// from the table while this move's subtree is searched.
			mp.quietMax = -1
			if lookAhead {
				mp.quietMax = mp.bestQuiet()
			}
			if mp.quietMax >= 0 {
				mp.w.e.tt.Prefetch(p.KeyAfter(mp.quiets.Moves[mp.quietMax]))
			}
			return m
		case stageBadCaptures:
			if mp.bad < mp.nBad {
				mp.handedBad = true
				mp.bad++
				return mp.list.Moves[mp.bad-1]
			}
			mp.stage++
		case stageUnderPromotions:
			i := mp.best(&mp.list, &mp.scores, mp.next)
			if i < 0 {
				mp.stage = stageDone
				continue
			}
			mp.handedBad = true
			return mp.take(&mp.list, &mp.scores, i, &mp.next)
		case stageQCaptures:
			i := mp.best(&mp.list, &mp.scores, mp.next)
			if i < 0 {
				mp.stage = stageDone
				continue
			}
			return mp.take(&mp.list, &mp.scores, i, &mp.next)
		case stageList:
			i := mp.best(&mp.list, &mp.scores, mp.next)
			if i < 0 {
				mp.stage = stageDone
				continue
			}
			s := mp.scores[i]
			if checkSEE && s >= scoreGoodCapture && s < scoreTTMove && !seeGE(p, mp.list.Moves[i], 0) {
				mp.scores[i] = scoreBadCapture + s - scoreGoodCapture
				continue
			}
			mp.handedBad = s < 0
			return mp.take(&mp.list, &mp.scores, i, &mp.next)
		default:
			return board.NullMove
		}
	}
}

// generateQuiets fills the quiet list with the quiet moves not handed out
// already, scored by history, and notes the best of them.
func (mp *movePicker) generateQuiets() {
	p := mp.p
	p.GenerateQuiets(&mp.quiets)
	n := 0
	for _, m := range mp.quiets.Slice() {
		if m != mp.ttMove && m != mp.killer1 && m != mp.killer2 && m != mp.counter {
			mp.quiets.Moves[n&255] = m
			n++
		}
	}
	mp.quiets.N = n
	mp.w.scoreQuiets(p, mp.quiets.Slice(), &mp.quietKeys, mp.ch)
	mp.nextQuiet = 0
	mp.quietMax = mp.bestQuiet()
}

// scoreQuiets sets the selection keys (see quietKeys) of quiet moves from
// their history and continuation histories (see quietScore) and the
// threats they escape or meet (see threats.bonus), in a loop of its own
// for tight code. (quietScore, which late-move reductions and pruning
// use, leaves the threats out.)
func (w *worker) scoreQuiets(p *board.Position, moves []board.Move, keys *[256]int64, ch *contTables) {
	hist := &w.history[p.SideToMove()&1]
	ch1, ch2, ch4, ph := ch[0], ch[1], ch[2], ch[3]
	_, _, _, _ = ch1[0][0], ch2[0][0], ch4[0][0], ph[0][0] // one nil check each, not one per move
	th := threatsTo(p)
	out := keys[:len(moves)]
	for i, m := range moves {
		from, to := m.From()&63, m.To()&63
		pc := p.PieceAt(from) & 15
		score := int64(hist[from][to]) + int64(ch1[pc][to]) + int64(ch2[pc][to]) + int64(ch4[pc][to]) + int64(ph[pc][to])
		score += int64(th.bonus(pc.Type(), from, to))
		out[i] = score<<8 | int64(255-i)
	}
}

// threats are the squares the opponent of the side to move attacks with
// pieces cheaper than each of the side to move's pieces: a knight or
// bishop there can be taken by a pawn, a rook by a minor piece or pawn, a
// queen by anything but a queen or king.
type threats struct {
	byPawn, byMinor, byRook board.Bitboard
}

// threatsTo returns the threats against the side to move of p.
func threatsTo(p *board.Position) threats {
	them := p.SideToMove().Other()
	occ := p.Occupied()
	var t threats
	t.byPawn = board.PawnAttacksBB(them, p.Pieces(them, board.Pawn))
	t.byMinor = t.byPawn
	for b := p.Pieces(them, board.Knight); b != 0; {
		t.byMinor |= board.KnightAttacks(b.PopLSB())
	}
	for b := p.Pieces(them, board.Bishop); b != 0; {
		t.byMinor |= board.BishopAttacks(b.PopLSB(), occ)
	}
	t.byRook = t.byMinor
	for b := p.Pieces(them, board.Rook); b != 0; {
		t.byRook |= board.RookAttacks(b.PopLSB(), occ)
	}
	return t
}

// bonus is the ordering bonus of a quiet move of a piece of type pt from
// from to to: a piece that escapes a cheaper attacker gains, one that
// walks into one loses (see Params.ThreatEscapeQueen and its neighbours).
func (t *threats) bonus(pt board.PieceType, from, to board.Square) int {
	var attacked board.Bitboard
	var v int
	switch pt {
	case board.Queen:
		attacked, v = t.byRook, params.ThreatEscapeQueen
	case board.Rook:
		attacked, v = t.byMinor, params.ThreatEscapeRook
	case board.Knight, board.Bishop:
		attacked, v = t.byPawn, params.ThreatEscapeMinor
	default:
		return 0
	}
	switch {
	case attacked.Has(from) && !attacked.Has(to):
		return v
	case attacked.Has(to) && !attacked.Has(from):
		return -v
	}
	return 0
}

// bestQuiet returns the index of the best quiet move not handed out yet
// (the first of equals), or -1.
func (mp *movePicker) bestQuiet() int {
	if mp.nextQuiet >= mp.quiets.N {
		return -1
	}
	return 255 - int(maxKey(mp.quietKeys[mp.nextQuiet:mp.quiets.N])&255)
}

// maxKey returns the largest of keys (not empty). It is kept out of line:
// inlined into pick, the loop compiles to a branch per key instead of a
// conditional move.
//
//go:noinline
func maxKey(keys []int64) int64 {
	top := keys[0]
	for _, k := range keys[1:] {
		top = max(top, k)
	}
	return top
}

// takeQuiet hands out the quiet move at i: the move at nextQuiet takes
// its place (with its key's index bits rewritten) and nextQuiet advances.
func (mp *movePicker) takeQuiet(i int) board.Move {
	n := mp.nextQuiet
	m := mp.quiets.Moves[i&255]
	mp.quiets.Moves[i&255], mp.quiets.Moves[n] = mp.quiets.Moves[n], m
	mp.quietKeys[i&255] = mp.quietKeys[n]&^255 | int64(255-i)
	mp.nextQuiet = n + 1
	return m
}

// best returns the index of the highest score in list from from on, or -1.
func (mp *movePicker) best(list *board.MoveList, scores *[256]int32, from int) int {
	if from >= list.N {
		return -1
	}
	// Two simple passes (the maximum, then its first place) compile to
	// tighter loops than one pass tracking both.
	rest := scores[from:list.N]
	top := rest[0]
	for _, s := range rest[1:] {
		top = max(top, s)
	}
	for i, s := range rest {
		if s == top {
			return from + i
		}
	}
	return from
}

// take swaps the move at i to position *next, advances *next and returns the move.
func (mp *movePicker) take(list *board.MoveList, scores *[256]int32, i int, next *int) board.Move {
	n := *next
	m := list.Moves[i]
	list.Moves[i], list.Moves[n] = list.Moves[n], m
	scores[i], scores[n] = scores[n], scores[i]
	*next = n + 1
	return m
}
