package pgn

import (
	"fmt"
	"io"
	"maps"

	"chessforge/engine/board"
)

// Write writes g in PGN export format (see WriteRecord): the seven-tag
// roster (the Result tag from the game's result), SetUp and FEN when the
// game does not start from the standard position, the other tags in name
// order; then the movetext, the moves in SAN with their numbers taken from
// the start position. A move that is not legal is an error, and nothing is
// written.
func Write(w io.Writer, g *Game) error {
	pos, err := g.Start()
	if err != nil {
		return fmt.Errorf("start position: %w", err)
	}
	r := &Record{
		Tags:         maps.Clone(g.Tags),
		FirstMove:    pos.FullmoveNumber(),
		BlackFirst:   pos.SideToMove() == board.Black,
		Moves:        make([]string, len(g.Moves)),
		Comments:     g.Comments,
		FinalComment: g.FinalComment,
		Result:       g.Result,
	}
	if r.Result == "" {
		r.Result = g.Tags["Result"]
	}
	if r.Result == "" {
		r.Result = Unfinished
	}
	delete(r.Tags, "SetUp")
	delete(r.Tags, "FEN")
	if fen := pos.FEN(); fen != board.StartFEN {
		r.Setup = []Tag{{"SetUp", "1"}, {"FEN", fen}}
	}
	for i, m := range g.Moves {
		if !pos.IsLegal(m) {
			return fmt.Errorf("move %d (%v) is not legal in %s", i+1, m, pos.FEN())
		}
		r.Moves[i] = pos.SAN(m)
		pos.MakeMove(m)
	}
	return WriteRecord(w, r)
}
