package search

import (
	"slices"

	"chessforge/engine/board"
)

// MaxMate is the longest mate, in moves, that Limits.Mate may ask for: its
// 2·MaxMate−1 plies fit within MaxPly.
const MaxMate = MaxPly / 2

// mateCacheBits sizes the mate search's table of positions proven to have
// no mate in k moves (2^mateCacheBits entries, 16 bytes each).
const mateCacheBits = 18

// mateEntry records that the side to move at the position with this key
// has no mate in noMate moves.
type mateEntry struct {
	key    uint64
	noMate int
}

// mateSearch is an exact search for a forced mate (UCI go mate N): unlike
// the main search it prunes and reduces nothing, so a mate within its
// depth is never missed, however quiet or costly its first moves. The side
// to move is the attacker; it tries every move (only checks on its last
// move), and the defender must have a reply that escapes every attack.
//
// Repetitions are not looked at: a shortest forced mate never repeats a
// position, since the attacker could play on from the first occurrence.
// The fifty-move rule is: a defender still on the board when the clock has
// run out claims the draw.
type mateSearch struct {
	e         *Engine
	pos       *board.Position
	tm        *timeManager
	nodeLimit uint64 // 0: none
	nodes     uint64
	stopped   bool
	cache     []mateEntry
	lists     [2 * MaxMate]board.MoveList
	// refutation[ply] is the defender's reply that last escaped at ply:
	// it is tried first there next time.
	refutation [2 * MaxMate]board.Move
	pv         [2*MaxMate + 1][2 * MaxMate]board.Move
	pvLen      [2*MaxMate + 1]int
}

// searchMate looks for a mate in 1, 2, … up to lim.Mate moves (and within
// lim.Depth plies if set) from pos with the root moves roots, under tm and
// the stop flag. It reports a mate it finds as an Info and returns it with
// found set; otherwise res holds only the nodes searched and noMate the
// largest number of moves in which it proved there is no mate.
func (e *Engine) searchMate(pos *board.Position, roots []board.Move, lim Limits, tm *timeManager, report func(Info)) (res Result, found bool, noMate int) {
	ms := &mateSearch{e: e, pos: pos.Clone(), tm: tm, nodeLimit: lim.Nodes, cache: make([]mateEntry, 1<<mateCacheBits)}
	maxN := min(lim.Mate, MaxMate)
	if lim.Depth > 0 {
		maxN = min(maxN, (lim.Depth+1)/2)
	}
	roots = slices.Clone(roots)
	for n := 1; n <= maxN; n++ {
		ok := ms.attack(n, 0, roots)
		if ms.stopped {
			break
		}
		if !ok {
			noMate = n
			if lim.SoftNodes > 0 && ms.nodes >= lim.SoftNodes {
				break // the soft node limit: no longer mate is looked for
			}
			continue
		}
		pv := slices.Clone(ms.pv[0][:ms.pvLen[0]])
		line := Line{Score: MateScore - (2*n - 1), Bound: BoundExact, Depth: 2*n - 1, SelDepth: len(pv), PV: pv}
		el := tm.elapsed()
		if report != nil {
			nps := uint64(0)
			if el > 0 {
				nps = uint64(float64(ms.nodes) / el.Seconds())
			}
			report(Info{Line: line, MultiPV: 1, Nodes: ms.nodes, NPS: nps, HashFull: e.tt.Hashfull(), Time: el})
		}
		res = Result{BestMove: pv[0], Score: line.Score, Depth: line.Depth, SelDepth: line.SelDepth,
			Nodes: ms.nodes, Time: el, PV: pv, Lines: []Line{line}}
		if len(pv) > 1 {
			res.PonderMove = pv[1]
		}
		return res, true, noMate
	}
	return Result{Nodes: ms.nodes}, false, noMate
}

// enter counts a node and polls the limits; it reports false when the
// search must unwind.
func (ms *mateSearch) enter() bool {
	if ms.stopped {
		return false
	}
	ms.nodes++
	if ms.nodeLimit > 0 && ms.nodes >= ms.nodeLimit {
		ms.stopped = true
	} else if ms.nodes&511 == 0 {
		if !ms.tm.active && ms.e.ponderhit.Load() {
			ms.tm.ponderHit()
		}
		ms.stopped = ms.e.stop.Load() || ms.tm.hardStop()
	}
	return !ms.stopped
}

// attack reports whether the side to move mates in at most k moves, and
// leaves the mating line in pv[ply]. At the root (ply 0) it tries roots,
// which it reorders.
func (ms *mateSearch) attack(k, ply int, roots []board.Move) bool {
	ms.pvLen[ply] = 0
	if !ms.enter() {
		return false
	}
	p := ms.pos
	key := p.Hash()
	slot := &ms.cache[key&(1<<mateCacheBits-1)]
	if ply > 0 && slot.key == key && slot.noMate >= k {
		return false
	}
	moves := roots
	if ply > 0 {
		list := &ms.lists[ply]
		p.GenerateLegal(list)
		moves = list.Slice()
	}
	// Checks first: only they can mate in one, and they leave the
	// defender fewest replies. Then captures, then the rest.
	checks := partition(moves, p.GivesCheck)
	if k == 1 {
		moves = moves[:checks]
	} else {
		partition(moves[checks:], p.IsCapture)
	}
	for _, m := range moves {
		p.MakeMove(m)
		ok := ms.defend(k, ply+1)
		p.UnmakeMove()
		if ms.stopped {
			return false
		}
		if ok {
			ms.updatePV(ply, m)
			return true
		}
	}
	// A result near the fifty-move limit depends on the clock, which the
	// key leaves out: keep only those the clock cannot have changed.
	if ply > 0 && p.HalfmoveClock()+2*k < 100 {
		*slot = mateEntry{key: key, noMate: k}
	}
	return false
}

// defend reports whether the side to move, whose opponent has just made a
// move of its attack with k moves, is mated at once or by k−1 more moves
// whatever it replies. The line of its longest resistance is left in
// pv[ply].
func (ms *mateSearch) defend(k, ply int) bool {
	ms.pvLen[ply] = 0
	if !ms.enter() {
		return false
	}
	p := ms.pos
	if k == 1 {
		return p.InCheck() && !p.HasLegalMove()
	}
	list := &ms.lists[ply]
	p.GenerateLegal(list)
	if list.N == 0 {
		return p.InCheck()
	}
	if p.HalfmoveClock() >= 100 {
		return false
	}
	replies := list.Slice()
	partition(replies, p.IsCapture)
	if r := ms.refutation[ply]; r != board.NullMove {
		if i := slices.Index(replies, r); i > 0 {
			copy(replies[1:i+1], replies[:i])
			replies[0] = r
		}
	}
	longest := -1
	for _, r := range replies {
		p.MakeMove(r)
		ok := ms.attack(k-1, ply+1, nil)
		p.UnmakeMove()
		if ms.stopped {
			return false
		}
		if !ok {
			ms.refutation[ply] = r
			return false
		}
		if ms.pvLen[ply+1] > longest {
			longest = ms.pvLen[ply+1]
			ms.updatePV(ply, r)
		}
	}
	return true
}

// updatePV makes m followed by the line at ply+1 the line at ply.
func (ms *mateSearch) updatePV(ply int, m board.Move) {
	ms.pv[ply][0] = m
	n := copy(ms.pv[ply][1:], ms.pv[ply+1][:ms.pvLen[ply+1]])
	ms.pvLen[ply] = n + 1
}

// partition moves the moves for which first holds to the front, keeping
// the order within both groups' first, and returns how many there are.
func partition(moves []board.Move, first func(board.Move) bool) int {
	n := 0
	for i, m := range moves {
		if first(m) {
			copy(moves[n+1:i+1], moves[n:i])
			moves[n] = m
			n++
		}
	}
	return n
}
