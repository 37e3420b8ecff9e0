package search

import (
	"testing"

	"chessforge/engine/board"
	"chessforge/engine/nnue"
)

// TestNetworkSearchIsDeterministic searches with a network at a fixed node
// count: the same result every time, a fresh engine or a cleared one, and
// the accumulator stacks back at their roots afterwards (every move the
// search made it took back).
func TestNetworkSearchIsDeterministic(t *testing.T) {
	net := nnue.Random(1, nnue.DefaultHidden, 8)
	fens := []string{board.StartFEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"}
	for _, fen := range fens {
		var first Result
		e := New(Options{HashMB: 4})
		e.SetNetwork(net)
		for i := range 3 {
			if i == 2 {
				e = New(Options{HashMB: 4})
				e.SetNetwork(net)
			}
			res := e.Search(mustFEN(t, fen), Limits{Nodes: 20000}, nil)
			if res.Nodes != 20000 {
				t.Errorf("%s: searched %d nodes, want exactly 20000", fen, res.Nodes)
			}
			if got := e.workers[0].nn.Plies(); got != 0 {
				t.Errorf("%s: the accumulator stack ends %d plies from its root", fen, got)
			}
			if i == 0 {
				first = res
			} else if res.BestMove != first.BestMove || res.Score != first.Score {
				t.Errorf("%s: run %d gave %s %d, first gave %s %d", fen, i, res.BestMove, res.Score, first.BestMove, first.Score)
			}
			e.Clear()
		}
	}
}

// TestNetworkChangesTheSearch checks that SetNetwork switches the
// evaluation both ways: a depth-1 search scores the network's evaluation
// of the best reply, and switching back restores the hand-crafted result.
func TestNetworkChangesTheSearch(t *testing.T) {
	p := mustFEN(t, board.StartFEN)
	e := New(Options{HashMB: 4})
	hand := e.Search(p, Limits{Depth: 6}, nil)
	net := nnue.Random(2, nnue.DefaultHidden, 8)
	e.SetNetwork(net)
	if e.Network() != net {
		t.Fatal("Network does not return the network set")
	}
	withNet := e.Search(p, Limits{Depth: 6}, nil)
	if withNet.Score == hand.Score && withNet.Nodes == hand.Nodes {
		t.Errorf("the network's search gave the hand-crafted result (%d, %d nodes)", hand.Score, hand.Nodes)
	}
	e.SetNetwork(nil)
	e.Clear()
	again := e.Search(p, Limits{Depth: 6}, nil)
	if again.Score != hand.Score || again.Nodes != hand.Nodes || again.BestMove != hand.BestMove {
		t.Errorf("back to the hand-crafted evaluation: %s %d (%d nodes), first %s %d (%d nodes)",
			again.BestMove, again.Score, again.Nodes, hand.BestMove, hand.Score, hand.Nodes)
	}
}
