package match

import (
	"io"
	"slices"
	"strconv"

	"chessforge/engine/pgn"
)

// pgnHeader holds the tags every game of a match shares.
type pgnHeader struct {
	event, site, date string
	names             [2]string // 0 = A, 1 = B
	tc                [2]TimeControl
}

// writePGN writes one game in PGN export format (see pgn.Write): the
// seven-tag roster, the set-up tags when the game did not start from the
// standard position, the opening, the termination, the time control and the
// ply count, and the movetext with a comment marking the end of the book,
// the engines' score/depth and time comments after it, and the termination
// before the result.
func writePGN(w io.Writer, h *pgnHeader, g *gameRecord) error {
	white, black := 0, 1
	if !g.spec.aWhite {
		white, black = 1, 0
	}
	tags := map[string]string{
		"Event":       h.event,
		"Site":        h.site,
		"Date":        h.date,
		"Round":       strconv.Itoa(g.spec.index + 1),
		"White":       h.names[white],
		"Black":       h.names[black],
		"Termination": g.termination,
		"Opening":     g.spec.opening.Name,
		"PlyCount":    strconv.Itoa(len(g.moves)),
	}
	if h.tc[white] == h.tc[black] {
		tags["TimeControl"] = h.tc[white].pgnTag()
	} else {
		tags["WhiteTimeControl"] = h.tc[white].pgnTag()
		tags["BlackTimeControl"] = h.tc[black].pgnTag()
	}
	comments := slices.Clone(g.comments)
	if g.bookPlies > 0 && g.bookPlies <= len(comments) {
		comments[g.bookPlies-1] = "book"
	}
	return pgn.Write(w, &pgn.Game{
		Tags:         tags,
		FEN:          g.startFEN,
		Moves:        g.moves,
		Result:       g.result,
		Comments:     comments,
		FinalComment: g.termination,
	})
}
