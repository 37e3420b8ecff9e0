package search

import (
	"testing"

	"chessforge/engine/dama"
)

// What is stored is what a probe finds: move index, score, depth and bound,
// over their whole ranges.
func TestTTStoreProbeRoundTrip(t *testing.T) {
	tt := NewTT(1)
	cases := []ttData{
		{moveIndex: 0, score: 0, depth: 1, bound: BoundExact},
		{moveIndex: 17, score: -250, depth: 12, bound: BoundUpper},
		{moveIndex: dama.MaxMoves - 2, score: WinScore - 3, depth: MaxPly - 1, bound: BoundLower},
		{moveIndex: noMove, score: -WinScore + 9, depth: 0, bound: BoundUpper},
		{moveIndex: 3, score: Infinity - 1, depth: -1, bound: BoundExact},
	}
	for i, c := range cases {
		key := uint64(i+1) * 0x9E3779B97F4A7C15
		tt.Store(key, c.moveIndex, c.score, c.depth, c.bound)
		got, ok := tt.Probe(key)
		if !ok || got != c {
			t.Errorf("stored %+v, probed %+v (hit %v)", c, got, ok)
		}
	}
	if d, ok := tt.Probe(12345); ok || d.moveIndex != noMove {
		t.Errorf("a key never stored: %+v (hit %v)", d, ok)
	}
}

// A result without a move keeps the move stored before; a shallower result
// of the same search does not replace a deeper one unless it is exact.
func TestTTKeepsMoveAndDepth(t *testing.T) {
	tt := NewTT(1)
	const key = 0xabcdef0123456789
	tt.Store(key, 5, 40, 8, BoundLower)
	tt.Store(key, noMove, 10, 9, BoundUpper)
	if d, _ := tt.Probe(key); d.moveIndex != 5 || d.score != 10 || d.depth != 9 || d.bound != BoundUpper {
		t.Errorf("after a store without a move: %+v, want move 5 kept with the new score", d)
	}
	tt.Store(key, 2, 99, 3, BoundLower)
	if d, _ := tt.Probe(key); d.depth != 9 {
		t.Errorf("a shallow bound replaced a deeper entry: %+v", d)
	}
	tt.Store(key, 2, 99, 3, BoundExact)
	if d, _ := tt.Probe(key); d.depth != 3 || d.moveIndex != 2 || d.bound != BoundExact {
		t.Errorf("an exact result was not stored: %+v", d)
	}
	// In a later search the old entry gives way.
	tt.NewSearch()
	tt.Store(key, 1, 7, 1, BoundUpper)
	if d, _ := tt.Probe(key); d.depth != 1 || d.moveIndex != 1 {
		t.Errorf("an entry of an earlier search was kept: %+v", d)
	}
	tt.Clear()
	if _, ok := tt.Probe(key); ok {
		t.Error("Clear left an entry")
	}
}

// When a bucket is full, the entry of least depth (less eight per search
// of age) goes, and the others stay.
func TestTTReplacement(t *testing.T) {
	tt := NewTT(1)
	stride := tt.mask + 1 // keys that share a bucket
	depths := []int{6, 2, 9, 4}
	for i, d := range depths {
		tt.Store(uint64(i+1)*stride, i, 0, d, BoundExact)
	}
	tt.Store(5*stride, 4, 0, 5, BoundExact)
	for i := range depths {
		_, ok := tt.Probe(uint64(i+1) * stride)
		if want := i != 1; ok != want {
			t.Errorf("entry of depth %d: present %v, want %v", depths[i], ok, want)
		}
	}
	// Two searches later, three of the four entries are written again:
	// the fourth, the deepest, weighs 16 plies less and goes.
	tt.NewSearch()
	tt.NewSearch()
	for _, k := range []uint64{1, 4, 5} {
		d, _ := tt.Probe(k * stride)
		tt.Store(k*stride, d.moveIndex, d.score, d.depth, d.bound)
	}
	tt.Store(6*stride, 5, 0, 1, BoundExact)
	if _, ok := tt.Probe(3 * stride); ok {
		t.Error("the deepest but oldest entry was kept over the newer ones")
	}
	for _, k := range []uint64{1, 4, 5, 6} {
		if _, ok := tt.Probe(k * stride); !ok {
			t.Errorf("entry %d of the current search was replaced", k)
		}
	}
}

// A win's distance is stored relative to the node and read back relative
// to the root at whatever ply the position is met again.
func TestScoreToTTKeepsWinDistances(t *testing.T) {
	for _, s := range []int{0, 150, -150, WinScore - 7, -(WinScore - 7), WinInMaxPly, -WinInMaxPly} {
		for _, ply := range []int{0, 3, 40} {
			if got := scoreFromTT(scoreToTT(s, ply), ply); got != s {
				t.Errorf("score %d at ply %d: read back %d", s, ply, got)
			}
		}
	}
	// A win 7 plies from the root found at ply 3 is a win in 4 from the
	// node; met at ply 5 it is a win in 9 from the root.
	if got := scoreFromTT(scoreToTT(WinScore-7, 3), 5); got != WinScore-9 {
		t.Errorf("moved to ply 5: %d, want %d", got, WinScore-9)
	}
}

// The size in MiB rounds down to a power of two buckets of 64 bytes.
func TestTTSize(t *testing.T) {
	for _, c := range []struct{ mib, buckets int }{{0, 1 << 14}, {1, 1 << 14}, {3, 1 << 15}, {16, 1 << 18}} {
		if n := len(NewTT(c.mib).buckets); n != c.buckets {
			t.Errorf("NewTT(%d): %d buckets, want %d", c.mib, n, c.buckets)
		}
	}
}
