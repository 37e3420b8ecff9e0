package board

// Magic bitboards for sliding pieces. For each square, the relevant blockers
// (the ray squares short of the edge) are multiplied by a magic number and
// shifted to index a dense attack table. The magics are found at start-up by
// a deterministic search from a fixed seed, so every build has the same
// tables; the search takes a few milliseconds.

// A square's attacks start at offset in its slider's table. The tables'
// lengths are powers of two (0x19000 and 0x1480 entries are used), so that
// the look-ups index them under a mask, and the square and the shift are
// masked too: the compiler then emits no bounds or shift-range checks on
// this, the hottest look-up of the engine.
type magic struct {
	mask   Bitboard
	magic  uint64
	shift  uint64
	offset uint64
}

var (
	rookMagics   [64]magic
	bishopMagics [64]magic
	rookTable    [0x20000]Bitboard
	bishopTable  [0x2000]Bitboard
)

// RookAttacks returns the squares a rook on s attacks given occupancy occ.
func RookAttacks(s Square, occ Bitboard) Bitboard {
	m := &rookMagics[s&63]
	return rookTable[(m.offset+uint64(occ&m.mask)*m.magic>>(m.shift&63))&uint64(len(rookTable)-1)]
}

// BishopAttacks returns the squares a bishop on s attacks given occupancy occ.
func BishopAttacks(s Square, occ Bitboard) Bitboard {
	m := &bishopMagics[s&63]
	return bishopTable[(m.offset+uint64(occ&m.mask)*m.magic>>(m.shift&63))&uint64(len(bishopTable)-1)]
}

// rookAttacksFrom and bishopAttacksFrom are RookAttacks and BishopAttacks
// for a square that the compiler knows to be in range (a trailing-zero
// count of a non-empty set, as in the generators' loops): they index the
// magics without masking it.
func rookAttacksFrom(s uint, occ Bitboard) Bitboard {
	m := &rookMagics[s]
	return rookTable[(m.offset+uint64(occ&m.mask)*m.magic>>(m.shift&63))&uint64(len(rookTable)-1)]
}

func bishopAttacksFrom(s uint, occ Bitboard) Bitboard {
	m := &bishopMagics[s]
	return bishopTable[(m.offset+uint64(occ&m.mask)*m.magic>>(m.shift&63))&uint64(len(bishopTable)-1)]
}

var (
	rookDirs   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

// slowAttacks walks the rays from s until a blocker or the edge.
func slowAttacks(s Square, occ Bitboard, dirs [4][2]int) Bitboard {
	var a Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for f >= 0 && f < 8 && r >= 0 && r < 8 {
			t := MakeSquare(f, r)
			a |= SquareBB(t)
			if occ.Has(t) {
				break
			}
			f, r = f+d[0], r+d[1]
		}
	}
	return a
}

// xorshift64star is the fixed-seed generator behind the magics and the Zobrist keys.
type xorshift64star uint64

func (x *xorshift64star) next() uint64 {
	*x ^= *x >> 12
	*x ^= *x << 25
	*x ^= *x >> 27
	return uint64(*x) * 2685821657736338717
}

func (x *xorshift64star) sparse() uint64 { return x.next() & x.next() & x.next() }

func initMagics() {
	rng := xorshift64star(728)
	initSlider(&rookMagics, rookTable[:], rookDirs, &rookMagicNumbers, &rng)
	initSlider(&bishopMagics, bishopTable[:], bishopDirs, &bishopMagicNumbers, &rng)
}

// initSlider builds the attack tables of one slider. For each square it tries
// the known multiplier first, then searches with rng.
func initSlider(magics *[64]magic, table []Bitboard, dirs [4][2]int, known *[64]uint64, rng *xorshift64star) {
	var occs, refs [4096]Bitboard
	var epoch [4096]int
	cnt := 0
	offset := 0
	for s := Square(0); s < 64; s++ {
		edges := ((Rank1 | Rank8) &^ RankMask(s.Rank())) | ((FileA | FileH) &^ FileMask(s.File()))
		m := &magics[s]
		m.mask = slowAttacks(s, 0, dirs) &^ edges
		bitsN := m.mask.Count()
		m.shift = uint64(64 - bitsN)
		size := 1 << bitsN
		m.offset = uint64(offset)
		attacks := table[offset : offset+size]
		offset += size
		// Carry-Rippler enumeration of every subset of the mask.
		n := 0
		var b Bitboard
		for {
			occs[n] = b
			refs[n] = slowAttacks(s, b, dirs)
			n++
			b = (b - m.mask) & m.mask
			if b == 0 {
				break
			}
		}
		for try := 0; ; try++ {
			if try == 0 && known[s] != 0 {
				m.magic = known[s]
			} else {
				m.magic = rng.sparse()
			}
			if Bitboard((uint64(m.mask)*m.magic)>>56).Count() < 6 {
				continue
			}
			cnt++
			ok := true
			for i := 0; i < n; i++ {
				idx := uint64(occs[i]) * m.magic >> m.shift
				if epoch[idx] < cnt {
					epoch[idx] = cnt
					attacks[idx] = refs[i]
				} else if attacks[idx] != refs[i] {
					ok = false
					break
				}
			}
			if ok {
				break
			}
		}
	}
}
