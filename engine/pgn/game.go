// Package pgn reads and writes chess games: PGN files (tags, start
// positions and mainline moves) and EPD opening books, with Load to read an
// opening book of either kind, and Write for PGN export format, whose
// layout WriteRecord gives any game's record (draughts' PDN shares it).
package pgn

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"chessforge/engine/board"
)

// Game is one game or opening line: where it starts, its moves (legal, as
// replayed on the board), its tags and, for writing, comments.
type Game struct {
	// Tags holds the tag pairs read, or those to write. Write takes the
	// seven-tag roster from it, writes SetUp and FEN from the FEN field
	// and the other tags in name order.
	Tags map[string]string
	// FEN is the start position; "" means the standard one.
	FEN   string
	Moves []board.Move
	// Result is the game termination marker: WhiteWins, BlackWins, Draw
	// or Unfinished. Write uses the Result tag when it is empty, and
	// Unfinished without one.
	Result string
	// Comments[i], when present and not empty, is written after move i.
	Comments []string
	// FinalComment, when not empty, is written before the result.
	FinalComment string

	// Source says where a game read from a file starts ("book.pgn:12").
	Source string
	// Name is the opening's name: the Opening tag (or else the ECO tag) of
	// a PGN game, the id operation of an EPD line.
	Name string
}

// Label names a game read from a file: its source, then its name when it
// has one ("book.pgn:12 Ruy Lopez").
func (g *Game) Label() string {
	if g.Name == "" {
		return g.Source
	}
	return g.Source + " " + g.Name
}

// Start returns the position the game starts from.
func (g *Game) Start() (*board.Position, error) {
	return startPosition(g.FEN)
}

// startPosition sets up a FEN, the standard position when it is empty.
func startPosition(fen string) (*board.Position, error) {
	if fen == "" {
		return board.NewPosition(), nil
	}
	return board.ParseFEN(fen)
}

// End returns the position after the game's moves, checking that each is
// legal.
func (g *Game) End() (*board.Position, error) {
	pos, err := g.Start()
	if err != nil {
		return nil, err
	}
	for i, m := range g.Moves {
		if !pos.IsLegal(m) {
			return nil, fmt.Errorf("move %d (%v) is not legal in %s", i+1, m, pos.FEN())
		}
		pos.MakeMove(m)
	}
	return pos, nil
}

// Load reads an opening book: PGN when the name ends in .pgn, EPD when it
// ends in .epd or .fen, and otherwise PGN when the first text line starts
// with '[' or a move number ("1."), EPD if not. A PGN game with neither
// moves nor a start position adds nothing and is skipped. Every opening
// must leave a game in progress; errors name the file and line.
func Load(path string) ([]Game, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	var games []Game
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".pgn" || (ext != ".epd" && ext != ".fen" && looksLikePGN(data)):
		games, err = ReadGames(bytes.NewReader(data), name)
	default:
		games, err = ReadEPD(bytes.NewReader(data), name)
	}
	if err != nil {
		return nil, err
	}
	book := games[:0]
	for _, g := range games {
		if g.FEN == "" && len(g.Moves) == 0 {
			continue
		}
		pos, err := g.End()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.Source, err)
		}
		if o := pos.Outcome(); o != board.Ongoing {
			return nil, fmt.Errorf("%s: the game is already over (%v)", g.Source, o)
		}
		book = append(book, g)
	}
	if len(book) == 0 {
		return nil, fmt.Errorf("%s: no openings found", path)
	}
	return book, nil
}

// looksLikePGN reports whether the first text line (skipping blank lines
// and '%' escape lines) starts a tag or with a move number.
func looksLikePGN(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '%' {
			continue
		}
		if line[0] == '[' {
			return true
		}
		i := 0
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		return i > 0 && i < len(line) && line[i] == '.'
	}
	return false
}
