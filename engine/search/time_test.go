package search

import (
	"math"
	"testing"
	"time"

	"chessforge/engine/board"
)

// Even a search that always runs to its hard limit keeps a reserve: over a
// long game (150 moves, 2 ms lost to latency each), on any clock but a
// sub-second sudden death, the clock never runs out.
func TestTimeManagerNeverSpendsTheWholeClock(t *testing.T) {
	overhead := 30 * time.Millisecond
	for _, start := range []time.Duration{100 * time.Millisecond, time.Second, 10 * time.Second, 5 * time.Minute} {
		for _, inc := range []time.Duration{0, 10 * time.Millisecond, 100 * time.Millisecond, 2 * time.Second} {
			for _, mtg := range []int{0, 1, 5, 40} {
				if start < time.Second && inc == 0 {
					continue // 2 ms a move of latency alone outruns 100 ms
				}
				left := start
				for move := 0; move < 150; move++ {
					moves := 0
					if mtg > 0 {
						moves = mtg - move%mtg
					}
					tm := newTimeManager(Limits{WTime: left, WInc: inc, MovesToGo: moves}, true, overhead)
					if tm.soft > tm.hard {
						t.Fatalf("soft %v above hard %v", tm.soft, tm.hard)
					}
					left -= tm.hard + 2*time.Millisecond
					if left <= 0 {
						t.Fatalf("start %v inc %v movestogo %d: flagged at move %d", start, inc, mtg, move)
					}
					left += inc
					if mtg > 0 && moves == 1 {
						left += start
					}
				}
			}
		}
	}
}

func TestTimeManagerUsesIncrementAndMoveTime(t *testing.T) {
	tm := newTimeManager(Limits{WTime: 10 * time.Second, WInc: time.Second}, true, 0)
	if tm.soft < time.Second {
		t.Errorf("10 s + 1 s: soft budget %v, want most of the increment on top of a share", tm.soft)
	}
	tm = newTimeManager(Limits{MoveTime: 500 * time.Millisecond}, true, 50*time.Millisecond)
	if tm.hard != 450*time.Millisecond || !tm.fixed {
		t.Errorf("movetime 500 with overhead 50: hard %v, want 450ms", tm.hard)
	}
	tm = newTimeManager(Limits{BTime: 4 * time.Second}, false, 0)
	if !tm.limited || tm.soft != 160*time.Millisecond {
		t.Errorf("Black's clock 4 s: soft %v, want 4s/25 = 160ms", tm.soft)
	}
	// 10 s + 0.1 s with 30 ms overhead: (10000 + 24·100 − 27·30)/25 = 463.6 ms.
	tm = newTimeManager(Limits{WTime: 10 * time.Second, WInc: 100 * time.Millisecond}, true, 30*time.Millisecond)
	if tm.soft != 463600*time.Microsecond {
		t.Errorf("10+0.1: soft %v, want 463.6ms", tm.soft)
	}
	if tm := newTimeManager(Limits{Infinite: true, WTime: time.Second}, true, 0); tm.limited {
		t.Error("infinite search has a time limit")
	}
}

// TestNodeEffortGivesMoreTimeToContestedMoves: the less of the search the
// best move took, the larger the soft budget.
func TestNodeEffortGivesMoreTimeToContestedMoves(t *testing.T) {
	for _, c := range []struct {
		best, total uint64
		want        float64
	}{{100, 100, 0.675}, {75, 100, 1.0125}, {0, 100, 2.025}, {0, 0, 1}} {
		if got := nodeEffort(c.best, c.total); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("nodeEffort(%d, %d) = %g, want %g", c.best, c.total, got, c.want)
		}
	}
	e := New(Options{HashMB: 1, Threads: 1})
	e.Search(board.NewPosition(), Limits{Depth: 6}, nil)
	w := e.workers[0]
	var sum uint64
	for _, rm := range w.rootMoves {
		sum += rm.nodes
	}
	if sum == 0 || sum >= w.nodes || w.rootMoves[0].nodes == 0 {
		t.Fatalf("root moves' nodes sum to %d of the search's %d (best move %d): want every node below a root move counted", sum, w.nodes, w.rootMoves[0].nodes)
	}
}
