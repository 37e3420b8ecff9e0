package eval

import "chessforge/engine/board"

// score packs a {midgame, endgame} pair into one integer, the midgame value
// times 2³² plus the endgame value, so that one addition, or one
// multiplication by a count, acts on both halves at once. Every sum the
// evaluation forms stays far inside ±2³¹ in each half, so the halves never
// disturb each other and unpacking is exact.
type score int64

// pack returns the score of the pair (mg, eg).
func pack(mg, eg int32) score { return score(int64(mg)<<32 + int64(eg)) }

// eg returns the endgame half: the low 32 bits, read as signed.
func (s score) eg() int { return int(int32(uint32(s))) }

// mg returns the midgame half: what is left once the endgame half is taken
// away, divided by 2³².
func (s score) mg() int { return int((int64(s) - int64(s.eg())) >> 32) }

// packed holds the weights of weights_gen.go as packed scores, built once at
// start-up; the evaluation reads only this copy.
var packed [NumFeatures]score

// pieceSquare holds, by piece type and square from the owner's side (see
// relSquare), the packed material weight (none for the king) plus the
// packed square weight of a piece standing there, built once from packed:
// one lookup for both terms.
var pieceSquare [6][64]score

func init() {
	for f, w := range weights.features() {
		packed[f] = pack(w.MG, w.EG)
	}
	for t := board.Pawn; t <= board.King; t++ {
		for s := board.Square(0); s < 64; s++ {
			v := packed[psqtIndex(t, s)]
			if t != board.King {
				v += packed[fMaterial+int(t)]
			}
			pieceSquare[t][s] = v
		}
	}
}
