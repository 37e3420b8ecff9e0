package search

import chess "chessforge/engine/search"

// Bound says how a stored score relates to the true value (the chess
// search's type: the same three kinds of bound).
type Bound = chess.Bound

// The bounds a search score can have.
const (
	BoundNone  = chess.BoundNone
	BoundUpper = chess.BoundUpper // fail-low: true value <= score
	BoundLower = chess.BoundLower // fail-high: true value >= score
	BoundExact = chess.BoundExact
)

// noMove is the move index of an entry without a best move.
const noMove = 0xff

// ttEntry is one slot of the table: the position's key and its packed data.
// An entry whose data is zero is empty.
type ttEntry struct {
	key  uint64
	data uint64
}

// ttBucket is four entries, 64 bytes: one cache line.
type ttBucket [4]ttEntry

// The data word, low bits first: the best move's index in the position's
// generated move list plus one (0: none) 8 | score 16 | depth 8 | bound 2 |
// age 6. A draughts move is too large to store itself, but the rules
// generate a position's moves in a fixed order, so its index names it; a
// probe whose index is beyond the list (a key collision) is ignored.
func packData(moveIndex, score, depth int, b Bound, age uint8) uint64 {
	return uint64(uint8(moveIndex+1)) | uint64(uint16(int16(score)))<<8 |
		uint64(uint8(int8(depth)))<<24 | uint64(b&3)<<32 | uint64(age&63)<<34
}

// ttData is an entry's data unpacked.
type ttData struct {
	moveIndex int // noMove: none
	score     int
	depth     int
	bound     Bound
}

func unpackData(d uint64) ttData {
	idx := int(uint8(d)) - 1
	if idx < 0 {
		idx = noMove
	}
	return ttData{
		moveIndex: idx,
		score:     int(int16(d >> 8)),
		depth:     int(int8(d >> 24)),
		bound:     Bound(d >> 32 & 3),
	}
}

func dataAge(d uint64) uint8 { return uint8(d>>34) & 63 }

// TT is a fixed-size transposition table for one searcher (it is not safe
// for concurrent use).
type TT struct {
	buckets []ttBucket
	mask    uint64
	age     uint8
}

// NewTT returns a table of about sizeMiB mebibytes, rounded down to a power
// of two buckets (at least one MiB).
func NewTT(sizeMiB int) *TT {
	n := uint64(max(sizeMiB, 1)) << 20 / 64
	p := uint64(1)
	for p*2 <= n {
		p *= 2
	}
	return &TT{buckets: make([]ttBucket, p), mask: p - 1}
}

// Clear empties the table.
func (t *TT) Clear() {
	clear(t.buckets)
	t.age = 0
}

// NewSearch ages the table so that entries of earlier searches are
// replaced first.
func (t *TT) NewSearch() { t.age = (t.age + 1) & 63 }

// Probe returns the entry of key, if the table holds one.
func (t *TT) Probe(key uint64) (ttData, bool) {
	b := &t.buckets[key&t.mask]
	for i := range b {
		if b[i].key == key && b[i].data != 0 {
			return unpackData(b[i].data), true
		}
	}
	return ttData{moveIndex: noMove}, false
}

// Store saves a search result for key: the index of the best move in the
// position's generated list (noMove for none), a score relative to the
// node (see scoreToTT), the depth searched and the bound. It replaces the
// entry of key or an empty one, else the one of lowest depth less 8 per
// search of age; a deeper entry of the same position from this search is
// kept unless the new result is exact. A result without a move keeps the
// move stored before.
func (t *TT) Store(key uint64, moveIndex, score, depth int, b Bound) {
	bucket := &t.buckets[key&t.mask]
	e := &bucket[0]
	worst := 1 << 30
	for i := range bucket {
		c := &bucket[i]
		if c.data == 0 || c.key == key {
			e = c
			break
		}
		if v := int(int8(c.data>>24)) - 8*int((t.age-dataAge(c.data))&63); v < worst {
			e, worst = c, v
		}
	}
	if e.key == key && e.data != 0 {
		if b != BoundExact && dataAge(e.data) == t.age && int(int8(e.data>>24)) > depth+2 {
			return
		}
		if moveIndex == noMove {
			moveIndex = int(uint8(e.data)) - 1
			if moveIndex < 0 {
				moveIndex = noMove
			}
		}
	}
	e.key = key
	e.data = packData(moveIndex, score, depth, b, t.age)
}

// scoreToTT converts a score relative to the root into one relative to the
// node at ply, so that the distance of a win stays exact wherever the
// position is met again.
func scoreToTT(s, ply int) int {
	switch {
	case s >= WinInMaxPly:
		return s + ply
	case s <= -WinInMaxPly:
		return s - ply
	}
	return s
}

// scoreFromTT undoes scoreToTT at the probing node's ply.
func scoreFromTT(s, ply int) int {
	switch {
	case s >= WinInMaxPly:
		return s - ply
	case s <= -WinInMaxPly:
		return s + ply
	}
	return s
}
