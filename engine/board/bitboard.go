package board

import "math/bits"

// Bitboard is a set of squares, bit i for square i.
type Bitboard uint64

// Common masks.
const (
	FileA Bitboard = 0x0101010101010101
	FileH Bitboard = FileA << 7
	Rank1 Bitboard = 0xFF
	Rank2 Bitboard = Rank1 << 8
	Rank3 Bitboard = Rank1 << 16
	Rank4 Bitboard = Rank1 << 24
	Rank5 Bitboard = Rank1 << 32
	Rank6 Bitboard = Rank1 << 40
	Rank7 Bitboard = Rank1 << 48
	Rank8 Bitboard = Rank1 << 56

	DarkSquares  Bitboard = 0xAA55AA55AA55AA55
	LightSquares Bitboard = ^DarkSquares
)

// SquareBB returns the bitboard with only square s set.
func SquareBB(s Square) Bitboard { return 1 << uint(s) }

// Has reports whether square s is in the set.
func (b Bitboard) Has(s Square) bool { return b&(1<<uint(s)) != 0 }

// Count returns the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(uint64(b)) }

// LSB returns the lowest square in a non-empty set.
func (b Bitboard) LSB() Square { return Square(bits.TrailingZeros64(uint64(b))) }

// MSB returns the highest square in a non-empty set.
func (b Bitboard) MSB() Square { return Square(63 - bits.LeadingZeros64(uint64(b))) }

// PopLSB removes and returns the lowest square of a non-empty set.
func (b *Bitboard) PopLSB() Square {
	s := Square(bits.TrailingZeros64(uint64(*b)))
	*b &= *b - 1
	return s
}

// More reports whether the set has more than one square.
func (b Bitboard) More() bool { return b&(b-1) != 0 }

// FileMask returns the bitboard of file f.
func FileMask(f int) Bitboard { return FileA << uint(f) }

// RankMask returns the bitboard of rank r.
func RankMask(r int) Bitboard { return Rank1 << uint(8*r) }

// North shifts the set one rank up.
func (b Bitboard) North() Bitboard { return b << 8 }

// South shifts the set one rank down.
func (b Bitboard) South() Bitboard { return b >> 8 }

// East shifts the set one file towards h.
func (b Bitboard) East() Bitboard { return (b &^ FileH) << 1 }

// West shifts the set one file towards a.
func (b Bitboard) West() Bitboard { return (b &^ FileA) >> 1 }

// Tables built once at start-up.
var (
	knightAttacks [64]Bitboard
	kingAttacks   [64]Bitboard
	pawnAttacks   [2][64]Bitboard
	// betweenBB[a][b]: squares strictly between a and b on a shared line, else 0.
	betweenBB [64][64]Bitboard
	// lineBB[a][b]: the whole line through a and b (edge to edge), else 0.
	lineBB [64][64]Bitboard
	// bishopRays[s], rookRays[s]: the slider's attacks from s on an empty
	// board, for finding pins and discovered checks without a magic look-up.
	bishopRays, rookRays [64]Bitboard
)

func init() {
	initMagics()
	for s := Square(0); s < 64; s++ {
		b := SquareBB(s)
		knightAttacks[s] = (b<<17)&^FileA | (b<<15)&^FileH | (b<<10)&^(FileA|FileA<<1) |
			(b<<6)&^(FileH|FileH>>1) | (b>>17)&^FileH | (b>>15)&^FileA |
			(b>>10)&^(FileH|FileH>>1) | (b>>6)&^(FileA|FileA<<1)
		kingAttacks[s] = b.North() | b.South() | b.East() | b.West() |
			b.North().East() | b.North().West() | b.South().East() | b.South().West()
		pawnAttacks[White][s] = b.North().East() | b.North().West()
		pawnAttacks[Black][s] = b.South().East() | b.South().West()
		bishopRays[s], rookRays[s] = BishopAttacks(s, 0), RookAttacks(s, 0)
	}
	for a := Square(0); a < 64; a++ {
		for b := Square(0); b < 64; b++ {
			if a == b {
				continue
			}
			if RookAttacks(a, 0).Has(b) {
				lineBB[a][b] = (RookAttacks(a, 0) & RookAttacks(b, 0)) | SquareBB(a) | SquareBB(b)
				betweenBB[a][b] = RookAttacks(a, SquareBB(b)) & RookAttacks(b, SquareBB(a))
			} else if BishopAttacks(a, 0).Has(b) {
				lineBB[a][b] = (BishopAttacks(a, 0) & BishopAttacks(b, 0)) | SquareBB(a) | SquareBB(b)
				betweenBB[a][b] = BishopAttacks(a, SquareBB(b)) & BishopAttacks(b, SquareBB(a))
			}
		}
	}
}

// KnightAttacks returns the squares a knight on s attacks.
func KnightAttacks(s Square) Bitboard { return knightAttacks[s&63] }

// KingAttacks returns the squares a king on s attacks.
func KingAttacks(s Square) Bitboard { return kingAttacks[s&63] }

// PawnAttacks returns the squares a pawn of colour c on s attacks.
func PawnAttacks(c Color, s Square) Bitboard { return pawnAttacks[c][s] }

// QueenAttacks returns the squares a queen on s attacks given occupancy occ.
func QueenAttacks(s Square, occ Bitboard) Bitboard {
	return RookAttacks(s, occ) | BishopAttacks(s, occ)
}

// Between returns the squares strictly between a and b if they share a rank,
// file or diagonal, else the empty set.
func Between(a, b Square) Bitboard { return betweenBB[a][b] }

// Line returns the full line through a and b if they share one, else the empty set.
func Line(a, b Square) Bitboard { return lineBB[a][b] }

// PawnAttacksBB returns the squares attacked by a set of pawns of colour c.
func PawnAttacksBB(c Color, pawns Bitboard) Bitboard {
	if c == White {
		return pawns.North().East() | pawns.North().West()
	}
	return pawns.South().East() | pawns.South().West()
}
