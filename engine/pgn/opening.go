package pgn

import (
	"fmt"

	"chessforge/engine/board"
)

// Opening is where a game starts: a position (the standard one when FEN is
// empty) and moves played from it before the players choose their own. Self-play
// and the match runner both start their games from openings.
type Opening struct {
	FEN   string
	Moves []board.Move
	// Name says where the opening came from: "book.pgn:12 Ruy Lopez" for a
	// book line (see Game.Label), "Ruy Lopez" for a built-in one,
	// "startpos", "endgame KRPvKR".
	Name string
}

// Start returns the opening's start position, before its moves.
func (o *Opening) Start() (*board.Position, error) {
	return startPosition(o.FEN)
}

// End returns the position after the opening's moves, checking that each
// is legal and that the game is still in progress there. Errors name the
// opening.
func (o *Opening) End() (*board.Position, error) {
	pos, err := o.Start()
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", o.Name, err)
	}
	for i, m := range o.Moves {
		if !pos.IsLegal(m) {
			return nil, fmt.Errorf("opening %s: move %d (%v) is not legal in %s", o.Name, i+1, m, pos.FEN())
		}
		pos.MakeMove(m)
	}
	if out := pos.Outcome(); out != board.Ongoing {
		return nil, fmt.Errorf("opening %s: the game is already over (%v)", o.Name, out)
	}
	return pos, nil
}

// Opening returns the opening a game read from a book gives: its start
// position and moves, named by its Label.
func (g *Game) Opening() Opening {
	return Opening{FEN: g.FEN, Moves: g.Moves, Name: g.Label()}
}

// LoadOpenings reads an opening book, EPD or PGN (see Load, which detects the
// format and checks that every opening leaves a game in progress), as
// openings named by where they start in the file and their name there
// ("book.pgn:12 Ruy Lopez").
func LoadOpenings(path string) ([]Opening, error) {
	games, err := Load(path)
	if err != nil {
		return nil, err
	}
	book := make([]Opening, len(games))
	for i := range games {
		book[i] = games[i].Opening()
	}
	return book, nil
}
