package match

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"chessforge/engine/pgn"
)

// pdnGameType is PDN's GameType tag for Italian draughts.
const pdnGameType = "22"

// pdnResult writes a result as PDN does for draughts: "2-0" (White wins),
// "0-2", "1-1" (a draw), "*".
func pdnResult(result string) string {
	switch result {
	case pgn.WhiteWins:
		return "2-0"
	case pgn.BlackWins:
		return "0-2"
	case pgn.Draw:
		return "1-1"
	}
	return "*"
}

// writePDN writes one game of draughts in Portable Draughts Notation, laid
// out as writePGN lays out a chess game: the seven-tag roster, GameType 22
// (Italian draughts), FEN when the game did not start from the starting
// position, the opening, the termination, the ply count and the time
// controls; then the movetext wrapped at 79 columns (move numbers, "N..."
// when Black moves first or after a comment; the moves in standard notation;
// a comment marking the end of the book and the engines' score/depth and
// time comments, the score in men), the termination and the result.
func writePDN(w io.Writer, h *pgnHeader, g *gameRecord) error {
	white, black := 0, 1
	if !g.spec.aWhite {
		white, black = 1, 0
	}
	result := pdnResult(g.result)
	var b strings.Builder
	tag := func(k, v string) {
		v = strings.ReplaceAll(v, `\`, `\\`)
		v = strings.ReplaceAll(v, `"`, `\"`)
		b.WriteString("[" + k + ` "` + v + "\"]\n")
	}
	tag("Event", h.event)
	tag("Site", h.site)
	tag("Date", h.date)
	tag("Round", strconv.Itoa(g.spec.index+1))
	tag("White", h.names[white])
	tag("Black", h.names[black])
	tag("Result", result)
	tag("GameType", pdnGameType)
	if g.startFEN != "" {
		tag("FEN", g.startFEN)
	}
	tag("Opening", g.spec.damaOpening.Name)
	tag("Termination", g.termination)
	tag("PlyCount", strconv.Itoa(len(g.damaMoves)))
	if h.tc[white] == h.tc[black] {
		tag("TimeControl", h.tc[white].String())
	} else {
		tag("WhiteTimeControl", h.tc[white].String())
		tag("BlackTimeControl", h.tc[black].String())
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
	comments := slices.Clone(g.comments)
	if g.bookPlies > 0 && g.bookPlies <= len(comments) {
		comments[g.bookPlies-1] = "book"
	}
	// The side to move first: White unless the FEN says "B:".
	blackFirst := strings.HasPrefix(g.startFEN, "B")
	afterComment := false
	for i, m := range g.damaMoves {
		ply := i
		if blackFirst {
			ply++
		}
		number := strconv.Itoa(ply/2 + 1)
		switch {
		case ply%2 == 0:
			word(number + ".")
		case i == 0 || afterComment:
			word(number + "...")
		}
		word(m)
		afterComment = i < len(comments) && comments[i] != ""
		if afterComment {
			comment(comments[i])
		}
	}
	comment(g.termination)
	word(result)
	b.WriteString("\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}
