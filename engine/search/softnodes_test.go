package search

import (
	"testing"

	"chessforge/engine/board"
)

var softNodeFENs = []string{board.StartFEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"4rrk1/pp1n3p/3q2pp/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19"}

// TestSoftNodeLimitFinishesTheIteration: a soft node limit ends the search
// at the end of the iteration that passes it. The result is that of a
// search to the depth it reports (a complete iteration: the same nodes and
// move), which searched at least the soft limit, while the iteration
// before it had not reached it.
func TestSoftNodeLimitFinishesTheIteration(t *testing.T) {
	const soft = 20000
	for _, fen := range softNodeFENs {
		res := New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{SoftNodes: soft}, nil)
		if res.Nodes < soft {
			t.Errorf("%s: searched %d nodes, want at least the soft limit %d", fen, res.Nodes, soft)
		}
		full := New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{Depth: res.Depth}, nil)
		if full.Nodes != res.Nodes || full.BestMove != res.BestMove || full.Score != res.Score {
			t.Errorf("%s: soft limit gave depth %d, %d nodes, %s %d; a depth-%d search gave %d nodes, %s %d: the iteration was not finished",
				fen, res.Depth, res.Nodes, res.BestMove, res.Score, res.Depth, full.Nodes, full.BestMove, full.Score)
		}
		before := New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{Depth: res.Depth - 1}, nil)
		if before.Nodes >= soft {
			t.Errorf("%s: depth %d already took %d nodes >= %d, yet the search went on to depth %d", fen, res.Depth-1, before.Nodes, soft, res.Depth)
		}
	}
}

// TestSoftNodeLimitStopsLongBeforeTheHardOne: with a hard limit far above
// the soft one, the soft one ends the search; with a hard limit below it,
// the hard one stops the search at once, at its exact count.
func TestSoftNodeLimitStopsLongBeforeTheHardOne(t *testing.T) {
	const soft, hard = 5000, 5_000_000
	for _, fen := range softNodeFENs {
		res := New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{SoftNodes: soft, Nodes: hard}, nil)
		if res.Nodes < soft || res.Nodes > hard/20 {
			t.Errorf("%s: soft %d, hard %d: searched %d nodes, want from %d to %d", fen, soft, hard, res.Nodes, soft, hard/20)
		}
		res = New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{SoftNodes: hard, Nodes: soft}, nil)
		if res.Nodes != soft {
			t.Errorf("%s: soft %d, hard %d: searched %d nodes, want exactly the hard limit", fen, hard, soft, res.Nodes)
		}
	}
}

// TestSoftNodeLimitedSearchIsDeterministic: one thread with a soft limit
// gives the same result every time.
func TestSoftNodeLimitedSearchIsDeterministic(t *testing.T) {
	for _, fen := range softNodeFENs {
		first := New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{SoftNodes: 10000}, nil)
		for i := 1; i < 3; i++ {
			res := New(Options{HashMB: 4}).Search(mustFEN(t, fen), Limits{SoftNodes: 10000}, nil)
			if res.BestMove != first.BestMove || res.Score != first.Score || res.Nodes != first.Nodes || res.Depth != first.Depth {
				t.Errorf("%s: run %d gave %s %d (depth %d, %d nodes), first gave %s %d (depth %d, %d nodes)", fen, i,
					res.BestMove, res.Score, res.Depth, res.Nodes, first.BestMove, first.Score, first.Depth, first.Nodes)
			}
		}
	}
}

// TestSoftNodeLimitWithThreads: with helper threads the soft limit counts
// every thread's nodes and still ends the search.
func TestSoftNodeLimitWithThreads(t *testing.T) {
	const soft = 20000
	res := New(Options{HashMB: 4, Threads: 2}).Search(board.NewPosition(), Limits{SoftNodes: soft}, nil)
	if res.Nodes < soft || res.Nodes > 50*soft || res.Depth < 1 {
		t.Errorf("2 threads, soft %d: depth %d, %d nodes", soft, res.Depth, res.Nodes)
	}
}

// TestSoftNodeLimitAfterAMateSearch: go mate with a soft limit looks for no
// longer mate once the mate search has passed it, as the deepening starts
// no iteration; the main search then ends at its first complete
// iteration, the mate search's nodes counted against the limit.
func TestSoftNodeLimitAfterAMateSearch(t *testing.T) {
	const soft = 20000
	res := New(Options{HashMB: 4}).Search(board.NewPosition(), Limits{Mate: 10, SoftNodes: soft}, nil)
	if res.Nodes < soft || res.Nodes > 100*soft || res.BestMove == board.NullMove || res.Depth != 1 || res.NoMateIn == 0 || res.NoMateIn >= 10 {
		t.Errorf("go mate 10 softnodes %d: %s at depth %d, %d nodes, no mate in %d", soft, res.BestMove, res.Depth, res.Nodes, res.NoMateIn)
	}
}
