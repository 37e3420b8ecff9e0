package selfplay

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// LoadBook reads openings from an EPD file (one position a line) or a PGN
// file (each game's moves, from its FEN tag when it has one); pgn.Load
// detects the format and checks that every opening is legal and leaves a
// game still in progress, naming the file and line of a bad one. Openings
// are named by where they start and their name in the file
// ("book.pgn:12 Ruy Lopez").
func LoadBook(path string) ([]pgn.Opening, error) {
	book, err := pgn.LoadOpenings(path)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	return book, nil
}

// Signature is a material signature such as KRPvKR: White's pieces, then
// Black's.
type Signature struct {
	Text   string
	Pieces [2][]board.PieceType // by colour, the king included
}

// ParseSignatures reads comma-separated material signatures ("" gives none).
// Each side has exactly one king, at most eight pawns and sixteen pieces.
func ParseSignatures(text string) ([]Signature, error) {
	var sigs []Signature
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		w, b, ok := strings.Cut(strings.ToUpper(part), "V")
		if !ok {
			return nil, fmt.Errorf("signature %q: want White's pieces, v, Black's, e.g. KRPvKR", part)
		}
		s := Signature{Text: part}
		for c, side := range []string{w, b} {
			kings, pawns := 0, 0
			for _, ch := range side {
				i := strings.IndexRune("PNBRQK", ch)
				if i < 0 {
					return nil, fmt.Errorf("signature %q: %q is not a piece letter (KQRBNP)", part, ch)
				}
				pt := board.PieceType(i)
				switch pt {
				case board.King:
					kings++
				case board.Pawn:
					pawns++
				}
				s.Pieces[c] = append(s.Pieces[c], pt)
			}
			if kings != 1 || pawns > 8 || len(side) > 16 {
				return nil, fmt.Errorf("signature %q: each side needs one king, at most 8 pawns and 16 pieces", part)
			}
		}
		sigs = append(sigs, s)
	}
	return sigs, nil
}

// RandomPosition places the signature's pieces on random squares (pawns
// on ranks 2 to 7) with a random side to move, and retries until the
// position is legal and the game not over. It fails only for signatures that
// admit no such position within many tries.
func (s Signature) RandomPosition(rng *rand.Rand) (*board.Position, error) {
	var grid [64]byte
	for range 10000 {
		for i := range grid {
			grid[i] = 0
		}
		for c := range 2 {
			for _, pt := range s.Pieces[c] {
				lo, hi := 0, 64
				if pt == board.Pawn {
					lo, hi = 8, 56
				}
				for {
					sq := lo + rng.IntN(hi-lo)
					if grid[sq] == 0 {
						grid[sq] = board.MakePiece(board.Color(c), pt).Letter()
						break
					}
				}
			}
		}
		side := "w"
		if rng.IntN(2) == 1 {
			side = "b"
		}
		pos, err := board.ParseFEN(board.Placement(&grid) + " " + side + " - - 0 1")
		if err == nil && pos.Outcome() == board.Ongoing {
			return pos, nil
		}
	}
	return nil, fmt.Errorf("signature %s: found no legal position in 10000 tries", s.Text)
}
