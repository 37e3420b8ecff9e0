package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"chessforge/engine/board"
)

// pgnHeader holds the tags every game of a match shares.
type pgnHeader struct {
	event, site, date string
	names             [2]string // 0 = A, 1 = B
	tc                [2]TimeControl
}

// writePGN writes one game in PGN export format: the seven-tag roster, the
// set-up tags when the game did not start from the standard position, the
// time control, the termination, the opening, and the movetext wrapped at 79
// columns with a comment marking the end of the book.
func writePGN(w io.Writer, h *pgnHeader, g *gameRecord) error {
	white, black := 0, 1
	if !g.spec.aWhite {
		white, black = 1, 0
	}
	var b strings.Builder
	tag := func(k, v string) {
		v = strings.ReplaceAll(v, `\`, `\\`)
		v = strings.ReplaceAll(v, `"`, `\"`)
		fmt.Fprintf(&b, "[%s \"%s\"]\n", k, v)
	}
	tag("Event", h.event)
	tag("Site", h.site)
	tag("Date", h.date)
	tag("Round", strconv.Itoa(g.spec.index+1))
	tag("White", h.names[white])
	tag("Black", h.names[black])
	tag("Result", g.result)
	if g.startFEN != "" {
		tag("FEN", g.startFEN)
		tag("SetUp", "1")
	}
	if h.tc[white] == h.tc[black] {
		tag("TimeControl", h.tc[white].pgnTag())
	} else {
		tag("WhiteTimeControl", h.tc[white].pgnTag())
		tag("BlackTimeControl", h.tc[black].pgnTag())
	}
	tag("Termination", g.termination)
	tag("Opening", g.spec.opening.Name)
	tag("PlyCount", strconv.Itoa(len(g.sans)))
	b.WriteByte('\n')

	// The move numbers follow the initial position's counters.
	fullmove, blackFirst := 1, false
	if g.startFEN != "" {
		pos, err := board.ParseFEN(g.startFEN)
		if err != nil {
			return err
		}
		fullmove, blackFirst = pos.FullmoveNumber(), pos.SideToMove() == board.Black
	}
	var tokens []string
	for i, san := range g.sans {
		whiteMove := (i%2 == 0) != blackFirst
		n := fullmove + (i+boolInt(blackFirst))/2
		switch {
		case whiteMove:
			tokens = append(tokens, fmt.Sprintf("%d.", n))
		case i == 0 || tokens[len(tokens)-1][0] == '{':
			tokens = append(tokens, fmt.Sprintf("%d...", n))
		}
		tokens = append(tokens, san)
		switch {
		case i+1 == g.bookPlies:
			tokens = append(tokens, "{book}")
		case i < len(g.comments) && g.comments[i] != "":
			tokens = append(tokens, "{"+g.comments[i]+"}")
		}
	}
	tokens = append(tokens, "{"+strings.ReplaceAll(g.termination, "}", ")")+"}", g.result)
	col := 0
	for _, t := range tokens {
		if col > 0 && col+1+len(t) > 79 {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(t)
		col += len(t)
	}
	b.WriteString("\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
