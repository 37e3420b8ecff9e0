package search

import "time"

// Time management's numbers.
const (
	// defaultMovesToGo is the number of moves the clock is shared among
	// when the time control names none (or more).
	defaultMovesToGo = 25
	// A move never takes more than 1/maxShareDiv of the clock left, nor
	// more than lastShareNum/lastShareDen of it when the time control
	// renews after this move.
	maxShareDiv  = 2
	lastShareNum = 8
	lastShareDen = 10
	// hardScale: the hard limit is this many times the move's share.
	hardScale = 3

	// The soft budget is scaled by the instability of the best move: after
	// each iteration it grows by instabilityGrowth (up to instabilityMax)
	// when the best move changed, and shrinks by instabilityDecay (down to
	// instabilityMin) when it did not.
	instabilityGrowth = 1.6
	instabilityMax    = 2.0
	instabilityDecay  = 0.85
	instabilityMin    = 0.6
	// The soft budget is also scaled by nodeEffortScale·(nodeEffortBase −
	// f), f the fraction of the search's nodes spent below the best move:
	// about 1 at three quarters, less when it took more (0.675 for all of
	// them), more when it took fewer (2.025 for none).
	nodeEffortBase  = 1.5
	nodeEffortScale = 1.35
)

// timeManager turns the UCI limits into a soft budget (checked between
// iterations: do not start another) and a hard one (checked inside the
// search: stop now). Move Overhead is kept back from every clock.
type timeManager struct {
	start   time.Time
	active  bool
	soft    time.Duration
	hard    time.Duration
	limited bool
	fixed   bool // movetime: use the whole budget
}

func newTimeManager(lim Limits, white bool, overhead time.Duration) timeManager {
	tm := timeManager{start: time.Now(), active: !lim.Ponder}
	if lim.Infinite {
		return tm
	}
	if lim.MoveTime > 0 {
		tm.limited = true
		tm.fixed = true
		tm.hard = max(lim.MoveTime-overhead, time.Millisecond)
		tm.soft = tm.hard
		return tm
	}
	left, inc := lim.WTime, lim.WInc
	if !white {
		left, inc = lim.BTime, lim.BInc
	}
	if left <= 0 && inc <= 0 {
		return tm
	}
	tm.limited = true
	mtg := lim.MovesToGo
	if mtg <= 0 || mtg > defaultMovesToGo {
		mtg = defaultMovesToGo
	}
	// The time for the next mtg moves, increments included, less the
	// overhead that every one of them will lose on top of its search; this
	// move gets an even share of it. A move never takes more than half of
	// what is left (most of it when the time control is about to renew).
	avail := left + inc*time.Duration(mtg-1) - overhead*time.Duration(2+mtg)
	base := max(avail/time.Duration(mtg), time.Millisecond)
	limit := max((left-overhead)/maxShareDiv, time.Millisecond)
	if mtg == 1 {
		limit = max((left-overhead)*lastShareNum/lastShareDen, time.Millisecond)
	}
	tm.soft = min(base, limit)
	tm.hard = min(base*hardScale, limit)
	return tm
}

func (tm *timeManager) elapsed() time.Duration { return time.Since(tm.start) }

// hardStop reports whether the search must stop now.
func (tm *timeManager) hardStop() bool {
	return tm.active && tm.limited && tm.elapsed() >= tm.hard
}

// nodeEffort is the factor by which the soft budget is scaled when the
// best move's subtree took best of the search's total nodes (see
// nodeEffortBase).
func nodeEffort(best, total uint64) float64 {
	if total == 0 {
		return 1
	}
	return nodeEffortScale * (nodeEffortBase - float64(best)/float64(total))
}

// softStop reports whether to start no further iteration. instability
// (from instabilityMin for a stable best move to instabilityMax for one
// that keeps changing) scales the budget.
func (tm *timeManager) softStop(instability float64) bool {
	if !tm.active || !tm.limited {
		return false
	}
	if tm.fixed {
		return tm.elapsed() >= tm.hard
	}
	budget := time.Duration(float64(tm.soft) * instability)
	return tm.elapsed() >= min(budget, tm.hard)
}

// ponderHit starts the clock for a search that was pondering.
func (tm *timeManager) ponderHit() {
	tm.start = time.Now()
	tm.active = true
}
