package match

import (
	"fmt"
	"strings"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// builtin lists well-known, roughly balanced opening lines, six to ten plies
// deep, across open, semi-open, closed and flank games, so that a match
// without a book still sees varied positions.
var builtin = []struct{ name, moves string }{
	{"Ruy Lopez", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"},
	{"Ruy Lopez, Berlin", "e2e4 e7e5 g1f3 b8c6 f1b5 g8f6 e1g1 f6e4"},
	{"Italian Game", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5"},
	{"Scotch Game", "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4"},
	{"Four Knights", "e2e4 e7e5 g1f3 b8c6 b1c3 g8f6"},
	{"Petroff Defence", "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6"},
	{"Vienna Game", "e2e4 e7e5 b1c3 g8f6 g2g3 d7d5"},
	{"Sicilian, Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"},
	{"Sicilian, Sveshnikov", "e2e4 c7c5 g1f3 b8c6 d2d4 c5d4 f3d4 g8f6 b1c3 e7e5"},
	{"Sicilian, Kan", "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 a7a6"},
	{"Sicilian, Accelerated Dragon", "e2e4 c7c5 g1f3 g7g6 d2d4 c5d4 f3d4 b8c6"},
	{"Sicilian, Moscow", "e2e4 c7c5 g1f3 d7d6 f1b5 c8d7"},
	{"Sicilian, Closed", "e2e4 c7c5 b1c3 b8c6 g2g3 g7g6 f1g2 f8g7"},
	{"Sicilian, Alapin", "e2e4 c7c5 c2c3 g8f6 e4e5 f6d5 d2d4 c5d4"},
	{"French, Classical", "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6 c1g5 f8e7"},
	{"French, Advance", "e2e4 e7e6 d2d4 d7d5 e4e5 c7c5 c2c3 b8c6"},
	{"French, Tarrasch", "e2e4 e7e6 d2d4 d7d5 b1d2 g8f6 e4e5 f6d7"},
	{"Caro-Kann, Advance", "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5"},
	{"Caro-Kann, Classical", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4 c8f5"},
	{"Pirc Defence", "e2e4 d7d6 d2d4 g8f6 b1c3 g7g6"},
	{"Modern Defence", "e2e4 g7g6 d2d4 f8g7 b1c3 d7d6"},
	{"Alekhine Defence", "e2e4 g8f6 e4e5 f6d5 d2d4 d7d6"},
	{"Scandinavian Defence", "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5"},
	{"Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7"},
	{"Slav Defence", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 d5c4"},
	{"Queen's Gambit Accepted", "d2d4 d7d5 c2c4 d5c4 g1f3 g8f6 e2e3 e7e6"},
	{"Nimzo-Indian", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4"},
	{"Queen's Indian", "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6"},
	{"Bogo-Indian", "d2d4 g8f6 c2c4 e7e6 g1f3 f8b4 c1d2 d8e7"},
	{"King's Indian", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6"},
	{"Grunfeld Defence", "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5"},
	{"Modern Benoni", "d2d4 g8f6 c2c4 c7c5 d4d5 e7e6 b1c3 e6d5 c4d5 d7d6"},
	{"Benko Gambit", "d2d4 g8f6 c2c4 c7c5 d4d5 b7b5"},
	{"Dutch, Leningrad", "d2d4 f7f5 g2g3 g8f6 f1g2 g7g6"},
	{"Torre Attack", "d2d4 g8f6 g1f3 e7e6 c1g5 c7c5"},
	{"London System", "d2d4 d7d5 c1f4 g8f6 e2e3 c7c5"},
	{"Colle System", "d2d4 d7d5 g1f3 g8f6 e2e3 e7e6 f1d3 c7c5"},
	{"English, Four Knights", "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6"},
	{"English, Symmetrical", "c2c4 c7c5 g1f3 g8f6 b1c3 b8c6"},
	{"English, Reversed Dragon", "c2c4 e7e5 g2g3 g8f6 f1g2 d7d5 c4d5 f6d5"},
	{"English, Anglo-Indian", "c2c4 g8f6 g2g3 e7e6 f1g2 d7d5"},
	{"Reti Opening", "g1f3 d7d5 g2g3 g8f6 f1g2 c7c6"},
	{"Double Fianchetto", "g1f3 g8f6 c2c4 b7b6 g2g3 c8b7"},
	{"Larsen Opening", "b2b3 e7e5 c1b2 b8c6 e2e3 g8f6"},
}

// BuiltinOpenings returns the built-in openings, all from the standard
// position.
func BuiltinOpenings() ([]pgn.Opening, error) {
	out := make([]pgn.Opening, len(builtin))
	for i, b := range builtin {
		pos := board.NewPosition()
		for _, s := range strings.Fields(b.moves) {
			m, err := pos.ParseUCIMove(s)
			if err != nil {
				return nil, fmt.Errorf("built-in opening %s: %w", b.name, err)
			}
			out[i].Moves = append(out[i].Moves, m)
			pos.MakeMove(m)
		}
		out[i].Name = b.name
	}
	return out, nil
}
