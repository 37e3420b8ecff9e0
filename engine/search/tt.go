package search

import (
	"sync/atomic"
	"unsafe"

	"chessforge/engine/board"
)

// Bound says how a stored score relates to the true value.
type Bound uint8

// The bounds a search score can have.
const (
	BoundNone  Bound = 0
	BoundUpper Bound = 1 // fail-low: true value <= score
	BoundLower Bound = 2 // fail-high: true value >= score
	BoundExact Bound = 3
)

// ttEntry is one slot: the key XOR-ed with the data, and the data, each an
// atomic word. Threads read and write without locks; a torn read (key word
// from one write, data from another) fails the XOR check and is a miss.
type ttEntry struct {
	check atomic.Uint64 // key ^ data
	data  atomic.Uint64
}

// ttBucket is four entries: 64 bytes, one cache line.
type ttBucket [4]ttEntry

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | age 6
func packData(m board.Move, score, eval, depth int, b Bound, age uint8) uint64 {
	return uint64(m) | uint64(uint16(int16(score)))<<16 | uint64(uint16(int16(eval)))<<32 |
		uint64(uint8(depth))<<48 | uint64(b)<<56 | uint64(age&63)<<58
}

// ttData is an entry's data unpacked. Its move and bound sit in an
// embedded struct (still read as tte.move and tte.bound) so that it has
// four fields in 32 bytes: the compiler keeps such a struct in registers,
// while one of five fields or more than 32 bytes is built on the stack and
// copied.
type ttData struct {
	ttMoveBound
	score int
	eval  int
	depth int
}

type ttMoveBound struct {
	move  board.Move
	bound Bound
}

func unpackData(d uint64) ttData {
	return ttData{
		ttMoveBound: ttMoveBound{move: board.Move(d), bound: Bound(d >> 56 & 3)},
		score:       int(int16(d >> 16)),
		eval:        int(int16(d >> 32)),
		depth:       int(int8(d >> 48)),
	}
}

func dataAge(d uint64) uint8 { return uint8(d>>58) & 63 }

// TT is the transposition table shared by the threads of one Engine.
type TT struct {
	buckets []ttBucket
	mask    uint64
	age     uint8
}

// NewTT returns a table of about sizeMB megabytes (rounded down to a power of two buckets).
func NewTT(sizeMB int) *TT {
	if sizeMB < 1 {
		sizeMB = 1
	}
	n := uint64(sizeMB) << 20 / 64
	// Round down to a power of two so that indexing is a mask.
	p := uint64(1)
	for p*2 <= n {
		p *= 2
	}
	t := &TT{buckets: make([]ttBucket, p), mask: p - 1}
	adviseHugePages(t.buckets)
	t.touchPages()
	return t
}

// touchPages writes to every page of the table once, so that the
// operating system maps (and zeroes) the memory now, when the table is
// made (the UCI Hash option, a new engine), rather than in page faults
// spread over the first search.
func (t *TT) touchPages() {
	const bucketsPerPage = 4096 / int(unsafe.Sizeof(ttBucket{}))
	for i := 0; i < len(t.buckets); i += bucketsPerPage {
		t.buckets[i][0].data.Store(0)
	}
}

// Clear empties the table. It must not run during a search (the engine
// clears between searches): it zeroes the memory in bulk rather than word
// by word with atomic stores, each of which is a locked exchange on amd64
// (0.8 ms instead of 23 ms for 64 MiB; self-play clears once a game).
func (t *TT) Clear() {
	clear(t.buckets)
	t.age = 0
}

// NewSearch ages the table so that entries from earlier searches are replaced first.
func (t *TT) NewSearch() { t.age = (t.age + 1) & 63 }

// bucket returns key's bucket. The index is masked, so it is always in
// range: the address is computed without a bounds check, in one register,
// so that the loads from it take the entries' offsets directly.
func (t *TT) bucket(key uint64) *ttBucket {
	return (*ttBucket)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(t.buckets)), (key&t.mask)*uint64(unsafe.Sizeof(ttBucket{}))))
}

// Prefetch starts loading key's bucket into the cache, so that the probe of
// the position after a move finds it there.
func (t *TT) Prefetch(key uint64) {
	prefetch(unsafe.Pointer(t.bucket(key)))
}

// Probe looks key up: the first entry holding key with data other than
// zero. It reads all four entries and picks with conditional moves rather
// than branches, since which entry holds the key (if any) cannot be
// predicted.
func (t *TT) Probe(key uint64) (ttData, bool) {
	b := t.bucket(key)
	d := probeEntry(&b[3], key, 0)
	d = probeEntry(&b[2], key, d)
	d = probeEntry(&b[1], key, d)
	d = probeEntry(&b[0], key, d)
	return unpackData(d), d != 0
}

// probeEntry returns e's data if e holds key (with data other than zero),
// else d.
func probeEntry(e *ttEntry, key, d uint64) uint64 {
	ed := e.data.Load()
	hit := d
	if e.check.Load()^ed == key {
		hit = ed
	}
	if ed != 0 {
		d = hit
	}
	return d
}

// Store saves a search result. Scores must already be adjusted to be
// relative to the node (see scoreToTT).
//
// The entry replaced is the first holding key or empty; failing that, the
// one of lowest depth minus 8 per search of age, the first of equals.
// Which entry that is depends on the data and cannot be predicted: a loop
// over the entries was mispredicted about once a store. So the choice
// between the first two entries (nine stores in ten at depth 18) is made
// with conditional moves, and only the rest takes a branch.
func (t *TT) Store(key uint64, m board.Move, score, eval, depth int, bound Bound) {
	// Packed first, the arguments take one register while the bucket is
	// searched: m is d's low 16 bits.
	d := packData(m, score, eval, depth, bound, 0) | uint64(t.age)<<58 // the age is below 64
	keepFrom := depth + 3
	if bound == BoundExact {
		keepFrom = 1 << 8 // above any depth
	}
	b := t.bucket(key)
	// The first entry holding key or empty (by its offset in the bucket,
	// 64 for none), and its data.
	d0 := b[0].data.Load()
	m0 := min(b[0].check.Load()^d0^key, d0) // 0 if key's entry or empty
	d1 := b[1].data.Load()
	m1 := min(b[1].check.Load()^d1^key, d1)
	off, old := uintptr(16), d1
	if m0 == 0 {
		off, old = 0, d0
	}
	if min(m0, m1) != 0 {
		off, old = 64, 0
		d3 := b[3].data.Load()
		if min(b[3].check.Load()^d3^key, d3) == 0 {
			off, old = 48, d3
		}
		d2 := b[2].data.Load()
		if min(b[2].check.Load()^d2^key, d2) == 0 {
			off, old = 32, d2
		}
		if off == 64 {
			// Another position's entry: the first of the lowest depth
			// minus the age penalty.
			age := t.age
			off = 0
			worst := replaceValue(d0, age)
			if v := replaceValue(d1, age); v < worst {
				off, worst = 16, v
			}
			if v := replaceValue(d2, age); v < worst {
				off, worst = 32, v
			}
			if v := replaceValue(d3, age); v < worst {
				off = 48
			}
		}
	}
	// Keep a deeper entry of this position from this search unless this
	// is exact or deep enough (the depth test, nearly always false, comes
	// first: it alone is predictable); always keep the old move if we
	// have none.
	if keepFrom < int(int8(old>>48)) && old>>58 == d>>58 && old != 0 {
		return
	}
	if uint16(d) == 0 { // no move
		d |= old & 0xffff
	}
	e := (*ttEntry)(unsafe.Add(unsafe.Pointer(b), off))
	e.data.Store(d)
	e.check.Store(key ^ d)
}

// replaceValue is an entry's depth minus 8 per search of age: the entry of
// lowest value is replaced first.
func replaceValue(d uint64, age uint8) int {
	return int(int8(d>>48)) - 8*int((age-dataAge(d))&63)
}

// Hashfull returns the permille of entries written by the current search, from a sample.
func (t *TT) Hashfull() int {
	n := 0
	limit := 250
	if uint64(limit) > t.mask+1 {
		limit = int(t.mask + 1)
	}
	for i := 0; i < limit; i++ {
		for j := range t.buckets[i] {
			d := t.buckets[i][j].data.Load()
			if d != 0 && dataAge(d) == t.age {
				n++
			}
		}
	}
	return n * 1000 / (limit * 4)
}

// scoreToTT converts a score relative to the root into one relative to the
// node at ply, so that mate distances stay exact wherever it is found again.
func scoreToTT(s, ply int) int {
	if s >= MateInMaxPly {
		return s + ply
	}
	if s <= -MateInMaxPly {
		return s - ply
	}
	return s
}

// scoreFromTT undoes scoreToTT at the probing node's ply.
func scoreFromTT(s, ply int) int {
	if s >= MateInMaxPly {
		return s - ply
	}
	if s <= -MateInMaxPly {
		return s + ply
	}
	return s
}
