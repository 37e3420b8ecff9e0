package search

import (
	"testing"
	"time"
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
	if !tm.limited || tm.soft != 100*time.Millisecond {
		t.Errorf("Black's clock 4 s: soft %v, want 4s/40 = 100ms", tm.soft)
	}
	// 10 s + 0.1 s with 30 ms overhead: (10000 + 39·100 − 42·30)/40 = 316 ms.
	tm = newTimeManager(Limits{WTime: 10 * time.Second, WInc: 100 * time.Millisecond}, true, 30*time.Millisecond)
	if tm.soft != 316*time.Millisecond {
		t.Errorf("10+0.1: soft %v, want 316ms", tm.soft)
	}
	if tm := newTimeManager(Limits{Infinite: true, WTime: time.Second}, true, 0); tm.limited {
		t.Error("infinite search has a time limit")
	}
}
