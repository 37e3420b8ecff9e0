package search

import (
	"testing"

	"chessforge/engine/board"
)

// A node stores its static evaluation alone (no bound, no move, depth -1)
// as soon as it computes it; a probe then finds the evaluation but nothing
// that could cut the node off, and the node's own result replaces it.
func TestEvaluationOnlyEntry(t *testing.T) {
	tt := NewTT(1)
	const key = 0x123456789abcdef1
	tt.Store(key, board.NullMove, 0, 37, -1, BoundNone)
	d, ok := tt.Probe(key)
	if !ok || d.eval != 37 || d.move != board.NullMove || d.bound != BoundNone || d.depth != -1 {
		t.Fatalf("evaluation-only entry read back as %+v (hit %v)", d, ok)
	}
	m := board.NewMove(board.MakeSquare(4, 1), board.MakeSquare(4, 3))
	tt.Store(key, m, 15, 37, 6, BoundLower)
	d, ok = tt.Probe(key)
	if !ok || d.move != m || d.score != 15 || d.depth != 6 || d.bound != BoundLower || d.eval != 37 {
		t.Fatalf("the search result did not replace the evaluation-only entry: %+v (hit %v)", d, ok)
	}
}

// A search leaves the static evaluations of the nodes it cut off by
// reverse futility or the null move in the table: searching the same
// position again finds evaluation-only entries, each holding the
// evaluation the evaluator gives the position.
func TestSearchKeepsEvaluationsOfCutNodes(t *testing.T) {
	e := New(Options{HashMB: 16, Threads: 1, MultiPV: 1})
	p := board.NewPosition()
	e.Search(p, Limits{Depth: 8}, nil)
	w := e.workers[0]
	found := 0
	var walk func(depth int)
	walk = func(depth int) {
		var list board.MoveList
		p.GenerateLegal(&list)
		for _, m := range list.Slice() {
			p.MakeMove(m)
			if d, ok := e.tt.Probe(p.Hash()); ok && d.bound == BoundNone {
				found++
				if want := w.ev.Evaluate(p); d.eval != want {
					t.Fatalf("%s: stored evaluation %d, evaluator says %d", p.FEN(), d.eval, want)
				}
			}
			if depth > 1 {
				walk(depth - 1)
			}
			p.UnmakeMove()
		}
	}
	walk(3)
	if found == 0 {
		t.Fatal("no evaluation-only entries within three plies of the root")
	}
	t.Logf("%d evaluation-only entries", found)
}

// A new table is empty: writing to each page to map it stores nothing.
func TestNewTableIsEmpty(t *testing.T) {
	tt := NewTT(2)
	for i := range tt.buckets {
		for j := range tt.buckets[i] {
			if tt.buckets[i][j].data.Load() != 0 || tt.buckets[i][j].check.Load() != 0 {
				t.Fatalf("bucket %d entry %d is not empty", i, j)
			}
		}
	}
}
