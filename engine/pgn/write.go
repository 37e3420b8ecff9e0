package pgn

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"chessforge/engine/board"
)

// roster is the seven-tag roster, in the order PGN export format wants it.
var roster = [...]string{"Event", "Site", "Date", "Round", "White", "Black", "Result"}

// rosterDefault is written for a roster tag the game does not have.
var rosterDefault = map[string]string{"Date": "????.??.??"}

// Write writes g in PGN export format: the seven-tag roster ("?" for a
// missing tag, "????.??.??" for a missing date, the Result tag from the
// game's result), SetUp and FEN when the game does not start from the
// standard position, the other tags in name order, a blank line, then the
// movetext wrapped at 79 columns: move numbers (N... when Black moves first
// or after a comment), the moves in SAN, comments, the result, and a blank
// line. Tag values and comments are escaped. A move that is not legal is an
// error, and nothing is written.
func Write(w io.Writer, g *Game) error {
	pos, err := g.Start()
	if err != nil {
		return fmt.Errorf("start position: %w", err)
	}
	result := g.Result
	if result == "" {
		result = g.Tags["Result"]
	}
	if result == "" {
		result = Unfinished
	}
	var b strings.Builder
	tag := func(k, v string) {
		v = strings.ReplaceAll(v, `\`, `\\`)
		v = strings.ReplaceAll(v, `"`, `\"`)
		b.WriteString("[" + k + ` "` + v + "\"]\n")
	}
	for _, k := range roster {
		v, ok := g.Tags[k]
		switch {
		case k == "Result":
			v = result
		case !ok:
			v = rosterDefault[k]
			if v == "" {
				v = "?"
			}
		}
		tag(k, v)
	}
	if fen := pos.FEN(); fen != board.StartFEN {
		tag("SetUp", "1")
		tag("FEN", fen)
	}
	var keys []string
	for k := range g.Tags {
		if !slices.Contains(roster[:], k) && k != "SetUp" && k != "FEN" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		tag(k, g.Tags[k])
	}
	b.WriteByte('\n')

	col := 0
	word := func(s string) {
		if col > 0 && col+1+len(s) > 79 {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(s)
		col += len(s)
	}
	comment := func(s string) {
		if s != "" {
			word("{" + strings.ReplaceAll(s, "}", ")") + "}")
		}
	}
	afterComment := false
	for i, m := range g.Moves {
		switch {
		case pos.SideToMove() == board.White:
			word(strconv.Itoa(pos.FullmoveNumber()) + ".")
		case i == 0 || afterComment:
			word(strconv.Itoa(pos.FullmoveNumber()) + "...")
		}
		if !pos.IsLegal(m) {
			return fmt.Errorf("move %d (%v) is not legal in %s", i+1, m, pos.FEN())
		}
		word(pos.SAN(m))
		pos.MakeMove(m)
		afterComment = i < len(g.Comments) && g.Comments[i] != ""
		if afterComment {
			comment(g.Comments[i])
		}
	}
	comment(g.FinalComment)
	word(result)
	b.WriteString("\n\n")
	_, err = io.WriteString(w, b.String())
	return err
}
