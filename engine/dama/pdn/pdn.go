// Package pdn writes games of Italian draughts in Portable Draughts
// Notation: PGN's export format (see chessforge/engine/pgn.WriteRecord) with
// draughts' GameType tag, its FEN and its results.
package pdn

import (
	"fmt"
	"io"
	"maps"

	"chessforge/engine/dama"
	"chessforge/engine/pgn"
)

// GameType is PDN's GameType tag for Italian draughts.
const GameType = "22"

// The game termination markers of PDN for draughts: a win scores 2 points.
const (
	WhiteWins  = "2-0"
	BlackWins  = "0-2"
	Draw       = "1-1"
	Unfinished = pgn.Unfinished
)

// Result returns PDN's marker for a game whose PGN marker is result
// (pgn.WhiteWins, pgn.BlackWins, pgn.Draw); Unfinished for any other.
func Result(result string) string {
	switch result {
	case pgn.WhiteWins:
		return WhiteWins
	case pgn.BlackWins:
		return BlackWins
	case pgn.Draw:
		return Draw
	}
	return Unfinished
}

// Game is a game of draughts to write.
type Game struct {
	// Tags holds the seven-tag roster and the other tags; Write makes the
	// Result, GameType and FEN tags itself.
	Tags map[string]string
	// FEN is the start position in PDN FEN; "" means the standard one.
	FEN string
	// Moves are the moves in standard notation ("22-19", "10x19").
	Moves []string
	// Result is the game's PGN marker (pgn.WhiteWins, pgn.BlackWins,
	// pgn.Draw or pgn.Unfinished), written as PDN's (see Result).
	Result string
	// Comments[i], when present and not empty, is written after move i.
	Comments []string
	// FinalComment, when not empty, is written before the result.
	FinalComment string
}

// Write writes g in PDN, laid out as pgn.Write lays out a chess game (see
// pgn.WriteRecord): the seven-tag roster, GameType 22, FEN when the game
// does not start from the standard position, the other tags in name order;
// then the movetext, the moves numbered from 1 (N... when Black moves
// first), and PDN's result. A start position that does not parse is an
// error, and nothing is written.
func Write(w io.Writer, g *Game) error {
	start := dama.StartPosition()
	if g.FEN != "" {
		var err error
		if start, err = dama.ParseFEN(g.FEN); err != nil {
			return fmt.Errorf("start position: %w", err)
		}
	}
	r := &pgn.Record{
		Tags:         maps.Clone(g.Tags),
		Setup:        []pgn.Tag{{Name: "GameType", Value: GameType}},
		FirstMove:    1,
		BlackFirst:   start.SideToMove() == dama.Black,
		Moves:        g.Moves,
		Comments:     g.Comments,
		FinalComment: g.FinalComment,
		Result:       Result(g.Result),
	}
	delete(r.Tags, "GameType")
	delete(r.Tags, "FEN")
	if fen := start.FEN(); fen != dama.StartPosition().FEN() {
		r.Setup = append(r.Setup, pgn.Tag{Name: "FEN", Value: fen})
	}
	return pgn.WriteRecord(w, r)
}
