package search

import (
	"fmt"
	"math/rand/v2"
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

// Clear empties a used table: every word zero, the age back to zero, and
// none of the stored positions found.
func TestClearEmptiesTheTable(t *testing.T) {
	tt := NewTT(1)
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]uint64, 5000)
	for i := range keys {
		keys[i] = rng.Uint64()
		tt.Store(keys[i], board.Move(1+i), i, -i, i%20, BoundLower)
		if i%1000 == 0 {
			tt.NewSearch()
		}
	}
	if _, ok := tt.Probe(keys[len(keys)-1]); !ok || tt.age == 0 {
		t.Fatal("the table was not filled")
	}
	tt.Clear()
	if tt.age != 0 {
		t.Fatalf("age %d after Clear", tt.age)
	}
	for i := range tt.buckets {
		for j := range tt.buckets[i] {
			if tt.buckets[i][j].check.Load() != 0 || tt.buckets[i][j].data.Load() != 0 {
				t.Fatalf("bucket %d entry %d is not empty after Clear", i, j)
			}
		}
	}
	for _, k := range keys {
		if d, ok := tt.Probe(k); ok {
			t.Fatalf("key %#x found after Clear: %+v", k, d)
		}
	}
}

// refBucket is a plain copy of one bucket, for the reference model below.
type refBucket [4]struct{ check, data uint64 }

// refStore is the table's replacement rule written out plainly: the first
// entry holding the key or empty is overwritten, unless it holds a deeper
// entry of this search that the new result (not exact, not within three
// plies of its depth) may not replace, and a store without a move keeps
// the entry's move. With no such entry, the entry of lowest depth minus
// eight per search of age is replaced, the first of equals.
func refStore(b *refBucket, age uint8, key uint64, m board.Move, score, eval, depth int, bound Bound) {
	replace := -1
	worst := 1 << 30
	for i := range b {
		d := b[i].data
		if b[i].check^d == key || d == 0 {
			if d != 0 && bound != BoundExact && depth+3 < int(int8(d>>48)) && uint8(d>>58)&63 == age {
				return
			}
			if m == board.NullMove {
				m = board.Move(d)
			}
			replace = i
			break
		}
		if v := int(int8(d>>48)) - 8*int((age-uint8(d>>58))&63); v < worst {
			worst, replace = v, i
		}
	}
	d := uint64(m) | uint64(uint16(int16(score)))<<16 | uint64(uint16(int16(eval)))<<32 |
		uint64(uint8(depth))<<48 | uint64(bound)<<56 | uint64(age&63)<<58
	b[replace].data = d
	b[replace].check = key ^ d
}

// refProbe returns the data of the first entry holding key, if any.
func refProbe(b *refBucket, key uint64) (uint64, bool) {
	for i := range b {
		if d := b[i].data; b[i].check^d == key && d != 0 {
			return d, true
		}
	}
	return 0, false
}

// Store and Probe make the same decisions as the plain reference rule,
// entry for entry: random keys crowded into a few buckets (so that buckets
// fill, keys repeat and entries are replaced), random moves (often none),
// scores, evaluations, depths, bounds and table ages, and now and then an
// entry overwritten with arbitrary words (as a torn write from another
// thread would leave it), emptied, or made a second entry for a key.
func TestStoreAndProbeFollowTheReferenceRule(t *testing.T) {
	const nBuckets = 8
	tt := NewTT(1)
	ref := make([]refBucket, nBuckets)
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 40)
	for i := range keys {
		keys[i] = rng.Uint64()&^tt.mask | uint64(rng.IntN(nBuckets))
	}
	keys[0] = 0 // the zero key matches the check word of an empty entry
	pick := func(n int) int { return rng.IntN(n) }
	same := func(step int, what string) {
		t.Helper()
		for bi := range ref {
			for j := range ref[bi] {
				e := &tt.buckets[bi][j]
				if e.check.Load() != ref[bi][j].check || e.data.Load() != ref[bi][j].data {
					t.Fatalf("step %d (%s): bucket %d entry %d is %#x/%#x, the reference rule gives %#x/%#x",
						step, what, bi, j, e.check.Load(), e.data.Load(), ref[bi][j].check, ref[bi][j].data)
				}
			}
		}
	}
	const steps = 200000
	for step := range steps {
		key := keys[pick(len(keys))]
		b := &ref[key&tt.mask]
		switch r := pick(100); {
		case r < 2:
			tt.NewSearch()
		case r < 3:
			tt.age = uint8(pick(3)) // back to the first searches' ages
		case r < 6:
			// Arbitrary words, as a torn write leaves them.
			j := pick(4)
			c, d := rng.Uint64(), rng.Uint64()
			switch pick(4) {
			case 0:
				d &= 0xff<<48 | 63<<58 // only a depth and an age
			case 1:
				c = key ^ d // a whole entry for the key, perhaps a second one in the bucket
			case 2:
				c, d = 0, 0 // an empty entry
			}
			tt.buckets[key&tt.mask][j].check.Store(c)
			tt.buckets[key&tt.mask][j].data.Store(d)
			b[j].check, b[j].data = c, d
		case r < 45:
			got, ok := tt.Probe(key)
			want, wok := refProbe(b, key)
			if ok != wok || got != unpackData(want) {
				t.Fatalf("step %d: Probe(%#x) = %+v, %v; the reference finds %+v, %v", step, key, got, ok, unpackData(want), wok)
			}
		default:
			m := board.NullMove
			if pick(3) > 0 {
				m = board.Move(1 + pick(0xffff))
			}
			score, eval := pick(65536)-32768, pick(65536)-32768
			depth := pick(40) - 2
			if pick(10) == 0 {
				depth = pick(256) - 128
			}
			bound := Bound(pick(4))
			if pick(4) == 0 {
				m, score, depth, bound = board.NullMove, 0, -1, BoundNone // an evaluation-only entry
			}
			if pick(200) == 0 {
				m, score, eval, depth, bound = board.NullMove, 0, 0, 0, BoundNone // data that packs to zero at age 0
			}
			tt.Store(key, m, score, eval, depth, bound)
			refStore(b, tt.age, key, m, score, eval, depth, bound)
			same(step, fmt.Sprintf("Store(%#x, %v, %d, %d, %d, %d) at age %d", key, m, score, eval, depth, bound, tt.age))
		}
	}
}
