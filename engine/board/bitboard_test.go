package board

import (
	"math/rand/v2"
	"testing"
)

// TestSliderAttacksMatchRayWalk checks the magic-bitboard lookups against a
// plain ray walk on every square with many random occupancies.
func TestSliderAttacksMatchRayWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for s := Square(0); s < 64; s++ {
		for i := 0; i < 300; i++ {
			occ := Bitboard(rng.Uint64() & rng.Uint64())
			if i%3 == 0 {
				occ &= Bitboard(rng.Uint64())
			}
			if got, want := RookAttacks(s, occ), slowAttacks(s, occ, rookDirs); got != want {
				t.Fatalf("RookAttacks(%s, %x) = %x, want %x", s, occ, got, want)
			}
			if got, want := BishopAttacks(s, occ), slowAttacks(s, occ, bishopDirs); got != want {
				t.Fatalf("BishopAttacks(%s, %x) = %x, want %x", s, occ, got, want)
			}
			if got, want := QueenAttacks(s, occ), slowAttacks(s, occ, rookDirs)|slowAttacks(s, occ, bishopDirs); got != want {
				t.Fatalf("QueenAttacks(%s, %x) = %x, want %x", s, occ, got, want)
			}
		}
	}
}

// TestLeaperAttacks checks the knight, king and pawn tables against the
// square geometry.
func TestLeaperAttacks(t *testing.T) {
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	for s := Square(0); s < 64; s++ {
		var knight, king, wp, bp Bitboard
		for d := Square(0); d < 64; d++ {
			df, dr := d.File()-s.File(), d.Rank()-s.Rank()
			if abs(df)*abs(dr) == 2 {
				knight |= SquareBB(d)
			}
			if max(abs(df), abs(dr)) == 1 {
				king |= SquareBB(d)
			}
			if abs(df) == 1 && dr == 1 {
				wp |= SquareBB(d)
			}
			if abs(df) == 1 && dr == -1 {
				bp |= SquareBB(d)
			}
		}
		if KnightAttacks(s) != knight || KingAttacks(s) != king || PawnAttacks(White, s) != wp || PawnAttacks(Black, s) != bp {
			t.Fatalf("%s: leaper attacks wrong", s)
		}
		if PawnAttacksBB(White, SquareBB(s)) != wp || PawnAttacksBB(Black, SquareBB(s)) != bp {
			t.Fatalf("%s: PawnAttacksBB wrong", s)
		}
	}
}

// TestBetweenAndLine checks Between and Line on a few known pairs and their
// symmetry everywhere.
func TestBetweenAndLine(t *testing.T) {
	sq := func(s string) Square {
		q, ok := ParseSquare(s)
		if !ok {
			t.Fatalf("bad square %q", s)
		}
		return q
	}
	bb := func(ss ...string) Bitboard {
		var b Bitboard
		for _, s := range ss {
			b |= SquareBB(sq(s))
		}
		return b
	}
	tests := []struct {
		a, b          string
		between, line Bitboard
	}{
		{"a1", "d4", bb("b2", "c3"), bb("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")},
		{"e1", "e4", bb("e2", "e3"), FileMask(4)},
		{"b3", "g3", bb("c3", "d3", "e3", "f3"), RankMask(2)},
		{"h1", "a8", bb("g2", "f3", "e4", "d5", "c6", "b7"), bb("h1", "g2", "f3", "e4", "d5", "c6", "b7", "a8")},
		{"e4", "e5", 0, FileMask(4)},
		{"a1", "b3", 0, 0},
		{"c2", "e5", 0, 0},
	}
	for _, tc := range tests {
		if got := Between(sq(tc.a), sq(tc.b)); got != tc.between {
			t.Errorf("Between(%s, %s) = %x, want %x", tc.a, tc.b, got, tc.between)
		}
		if got := Line(sq(tc.a), sq(tc.b)); got != tc.line {
			t.Errorf("Line(%s, %s) = %x, want %x", tc.a, tc.b, got, tc.line)
		}
	}
	for a := Square(0); a < 64; a++ {
		for b := Square(0); b < 64; b++ {
			if Between(a, b) != Between(b, a) || Line(a, b) != Line(b, a) {
				t.Fatalf("Between/Line(%s, %s) not symmetric", a, b)
			}
			if Between(a, b)&^Line(a, b) != 0 {
				t.Fatalf("Between(%s, %s) leaves Line", a, b)
			}
		}
	}
}

// TestBitboardOps checks the small bitboard helpers.
func TestBitboardOps(t *testing.T) {
	b := SquareBB(A1) | SquareBB(H8) | SquareBB(27)
	if b.Count() != 3 || b.LSB() != A1 || b.MSB() != H8 || !b.More() || !b.Has(27) || b.Has(28) {
		t.Fatalf("bitboard ops on %x wrong", b)
	}
	var got []Square
	for c := b; c != 0; {
		got = append(got, c.PopLSB())
	}
	if len(got) != 3 || got[0] != A1 || got[1] != 27 || got[2] != H8 {
		t.Fatalf("PopLSB order %v", got)
	}
	if SquareBB(H1).East() != 0 || SquareBB(A1).West() != 0 || SquareBB(A8).North() != 0 || SquareBB(A1).South() != 0 {
		t.Fatal("shifts wrap around the board edge")
	}
	if SquareBB(A1).North() != SquareBB(A1+8) || SquareBB(A1).East() != SquareBB(B1) {
		t.Fatal("shifts go the wrong way")
	}
	if Square(0).Mirror() != A8 || E1.Mirror() != E8 {
		t.Fatal("Mirror wrong")
	}
	if (DarkSquares&SquareBB(A1)) == 0 || (LightSquares&SquareBB(H1)) == 0 {
		t.Fatal("square colours wrong: a1 is dark, h1 light")
	}
}

// TestZobristKeysAreFixed checks that the keys are the same in every build
// (the start position's hash is a constant) and that they are distinct.
func TestZobristKeysAreFixed(t *testing.T) {
	seen := map[uint64]bool{}
	add := func(k uint64) {
		if k == 0 || seen[k] {
			t.Fatalf("Zobrist key %016x zero or repeated", k)
		}
		seen[k] = true
	}
	for p := range zobristPiece[:NoPiece] {
		for s := range zobristPiece[p] {
			add(zobristPiece[p][s])
		}
	}
	for p := NoPiece; p < 16; p++ {
		if zobristPiece[p] != [64]uint64{} {
			t.Fatalf("row %d of the piece keys (no piece) must be zero", p)
		}
	}
	for c := 1; c < 16; c++ {
		add(zobristCastling[c])
	}
	for f := range zobristEPFile {
		add(zobristEPFile[f])
	}
	add(zobristSide)
	if zobristCastling[0] != 0 {
		t.Fatal("no castling rights must hash to 0")
	}
	// A hash that changes means every stored hash and book is invalid: it
	// must change only on purpose.
	const startHash = 0x5b38157fbce20522
	if h := NewPosition().Hash(); h != startHash {
		t.Fatalf("start hash %016x, want %016x", h, startHash)
	}
}

// TestMagicTablesExhaustive checks every table entry: for every square and
// every subset of its relevant blockers, the lookup equals the ray walk.
func TestMagicTablesExhaustive(t *testing.T) {
	for _, c := range []struct {
		name    string
		magics  *[64]magic
		dirs    [4][2]int
		attacks func(Square, Bitboard) Bitboard
	}{
		{"rook", &rookMagics, rookDirs, RookAttacks},
		{"bishop", &bishopMagics, bishopDirs, BishopAttacks},
	} {
		for s := Square(0); s < 64; s++ {
			mask := c.magics[s].mask
			for b := Bitboard(0); ; {
				if got, want := c.attacks(s, b), slowAttacks(s, b, c.dirs); got != want {
					t.Fatalf("%s on %s with blockers %x: %x, want %x", c.name, s, b, got, want)
				}
				b = (b - mask) & mask
				if b == 0 {
					break
				}
			}
		}
	}
}
