package board

import (
	"math/rand/v2"
	"testing"
)

// digest mixes values into one 64-bit fingerprint; the order matters.
type digest struct {
	h uint64
	n uint64
}

func (d *digest) add(v uint64) {
	d.h ^= v + 0x9E3779B97F4A7C15 + d.h<<6 + d.h>>2
	d.h *= 0xff51afd7ed558ccd
	d.n++
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// fingerprintPosition adds to d what a search sees of one position.
func fingerprintPosition(p *Position, d *digest, rng *rand.Rand) {
	var all, caps, quiets MoveList
	d.add(p.Hash())
	d.add(uint64(p.Checkers()))
	// Alternate the order of calls so that the caches are exercised both ways.
	mode := p.Hash() & 3
	if mode == 0 {
		// GivesCheck before any generation (as after a TT move).
		for i := 0; i < 8; i++ {
			m := Move(rng.Uint32())
			if p.IsLegal(m) {
				d.add(uint64(m) | 1<<20 | b2u(p.GivesCheck(m))<<21)
			}
		}
	}
	p.GenerateCaptures(&caps)
	d.add(uint64(caps.N))
	for _, m := range caps.Slice() {
		d.add(uint64(m))
	}
	if mode == 1 {
		for _, m := range caps.Slice() {
			d.add(p.KeyAfter(m))
			d.add(b2u(p.GivesCheck(m)))
		}
	}
	p.GenerateQuiets(&quiets)
	d.add(uint64(quiets.N))
	for _, m := range quiets.Slice() {
		d.add(uint64(m))
	}
	p.GenerateLegal(&all)
	d.add(uint64(all.N))
	for _, m := range all.Slice() {
		d.add(uint64(m))
		d.add(p.KeyAfter(m))
		d.add(b2u(p.GivesCheck(m)))
		d.add(b2u(p.IsLegal(m)))
		d.add(b2u(p.IsCapture(m)))
	}
	// IsLegal on arbitrary values and on plausible moves of the other
	// side and of neighbouring positions.
	for i := 0; i < 48; i++ {
		m := Move(rng.Uint32())
		if i < 16 {
			m &^= 3 << 14 // mostly normal moves
		}
		d.add(uint64(m)<<1 | b2u(p.IsLegal(m)))
	}
	for s := Square(0); s < 64; s += 3 {
		occ := p.Occupied() &^ Bitboard(rng.Uint64()&rng.Uint64())
		d.add(uint64(p.AttackersTo(s, occ)))
		d.add(b2u(p.IsAttacked(s, p.SideToMove())))
	}
	d.add(p.KeyAfterNull())
	d.add(b2u(p.NonPawnMaterial(White))<<1 | b2u(p.NonPawnMaterial(Black)))
}

// fingerprintWalk fingerprints p and, to the given depth, the positions
// after each legal move and after a null move.
func fingerprintWalk(p *Position, depth int, d *digest, rng *rand.Rand) {
	fingerprintPosition(p, d, rng)
	if depth == 0 {
		return
	}
	var list MoveList
	p.GenerateLegal(&list)
	for i, m := range list.Slice() {
		if i&1 == 0 {
			p.GivesCheck(m) // the cached check-info path of MakeMove
		}
		p.MakeMove(m)
		d.add(p.Hash())
		d.add(uint64(p.Checkers()))
		fingerprintWalk(p, depth-1, d, rng)
		p.UnmakeMove()
		d.add(p.Hash())
	}
	if !p.InCheck() {
		p.MakeNullMove()
		d.add(p.Hash())
		fingerprintPosition(p, d, rng)
		p.UnmakeNullMove()
	}
}

// TestSearchFacingAnswersAreUnchanged fingerprints what a search sees of
// the board: the moves of every generator in their order (move ordering
// breaks ties by it, so a speed-up that reorders them changes the search),
// GivesCheck, KeyAfter, IsLegal (on legal and arbitrary move values),
// AttackersTo and the hashes and checkers after each move and null move,
// over perft-2 walks of the perft suite and random playouts, with the check
// and pin caches filled in varying orders. The fingerprint must change only
// on purpose: a pure speed-up keeps it.
func TestSearchFacingAnswersAreUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d digest
	for _, tc := range perftCases {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		fingerprintWalk(p, 2, &d, rng)
	}
	for _, pl := range randomPlayouts(t, 77, 12, 200) {
		pl.replay(t, func(p *Position) {
			fingerprintWalk(p, 1, &d, rng)
		})
	}
	const want = 0xbc46923b314a2c74
	if d.h != want {
		t.Fatalf("fingerprint %016x over %d values, want %016x", d.h, d.n, uint64(want))
	}
}
