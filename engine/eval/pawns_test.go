package eval

import (
	"testing"

	"chessforge/engine/board"
)

// refPawnTerms counts c's pawn-structure features pawn by pawn, straight
// from their definitions: the specification that pawnStructure's set
// operations must meet.
func refPawnTerms(c board.Color, us, them board.Bitboard, counts map[int]int32) {
	enemyAttacks := board.PawnAttacksBB(c.Other(), them)
	for bb := us; bb != 0; {
		s := bb.PopLSB()
		r := relRank(c, s)
		sb := board.SquareBB(s)
		var ahead, level board.Bitboard // ranks beyond s, and the others, from c's side
		if r < 7 {
			ahead = forwardRanks[c][r+1]
		}
		level = ^ahead
		file := board.FileMask(s.File())
		counts[fMaterial+int(board.Pawn)]++
		counts[psqtIndex(board.Pawn, relSquare(c, s))]++
		if adjacentFiles[s.File()]&us == 0 {
			counts[fPawnIsolated]++
		} else if level&adjacentFiles[s.File()]&us == 0 && forward(c, sb)&enemyAttacks != 0 {
			counts[fPawnBackward]++
		}
		if ahead&file&us != 0 {
			counts[fPawnDoubled]++
		}
		if board.PawnAttacks(c.Other(), s)&us != 0 || (sb.East()|sb.West())&us != 0 {
			counts[fPawnConnected+r]++
		}
		if ahead&(file|adjacentFiles[s.File()])&them == 0 && ahead&file&us == 0 {
			counts[fPassedRank+r]++
		}
	}
}

// refShelterTerms counts the king-shelter features of c's king on k file
// by file, with the files clamped to b..g.
func refShelterTerms(c board.Color, k board.Square, us, them board.Bitboard, counts map[int]int32) {
	counts[psqtIndex(board.King, relSquare(c, k))]++
	kf := min(max(k.File(), 1), 6)
	front := forwardRanks[c][relRank(c, k)]
	for f := kf - 1; f <= kf+1; f++ {
		file, class := board.FileMask(f), min(f, 7-f)
		counts[fKingShelter+class*8+nearestRank(c, us&front&file)]++
		counts[fKingStorm+class*8+nearestRank(c, them&front&file)]++
		if (us|them)&file == 0 {
			counts[fKingOpenFile]++
		}
	}
}

func TestPawnAndShelterTermsMatchTheirPerPawnDefinitions(t *testing.T) {
	// The features that only pawnStructure and kingShelter record.
	owned := func(f int) bool {
		pawnSquares, kingSquares := fPSQT+int(board.Pawn)*64, fPSQT+int(board.King)*64
		return f == fMaterial+int(board.Pawn) || (f >= pawnSquares && f < pawnSquares+64) ||
			(f >= kingSquares && f < kingSquares+64) ||
			(f >= fPawnIsolated && f < fPassedFree) || (f >= fKingShelter && f <= fKingOpenFile)
	}
	var tr Tracer
	for _, p := range testPositions(t) {
		if tr.Trace(p).Draw {
			continue
		}
		for c := board.White; c <= board.Black; c++ {
			want := map[int]int32{}
			us, them := p.Pieces(c, board.Pawn), p.Pieces(c.Other(), board.Pawn)
			refPawnTerms(c, us, them, want)
			refShelterTerms(c, p.KingSquare(c), us, them, want)
			for f := 0; f < NumFeatures; f++ {
				if owned(f) && tr.lin[c][f] != want[f] {
					t.Fatalf("%s: colour %v: feature %d (%s) counted %d times, want %d",
						p.FEN(), c, f, ParamName(f), tr.lin[c][f], want[f])
				}
			}
		}
	}
}
