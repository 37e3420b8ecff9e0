package match

import (
	"io"
	"slices"
	"strconv"

	"chessforge/engine/dama/pdn"
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
// standard position, the opening, the ply count, the termination and the
// time control, and the movetext with a comment marking the end of the
// book, the engines' score/depth and time comments after it, and the
// termination before the result.
func writePGN(w io.Writer, h *pgnHeader, g *gameRecord) error {
	tags, comments := h.record(g, g.spec.opening.Name, len(g.moves), TimeControl.pgnTag)
	return pgn.Write(w, &pgn.Game{
		Tags:         tags,
		FEN:          g.startFEN,
		Moves:        g.moves,
		Result:       g.result,
		Comments:     comments,
		FinalComment: g.termination,
	})
}

// writePDN writes one game of draughts in Portable Draughts Notation (see
// pdn.Write), as writePGN writes a game of chess: GameType 22 and the FEN
// tag for the set-up, the time control as the -tc flag takes it, the moves
// in standard notation and the score in men.
func writePDN(w io.Writer, h *pgnHeader, g *gameRecord) error {
	tags, comments := h.record(g, g.spec.damaOpening.Name, len(g.damaMoves), TimeControl.String)
	return pdn.Write(w, &pdn.Game{
		Tags:         tags,
		FEN:          g.startFEN,
		Moves:        g.damaMoves,
		Result:       g.result,
		Comments:     comments,
		FinalComment: g.termination,
	})
}

// record returns a game's tags but those of its start position and its
// result (the opening, plies the ply count, tc writing the time control),
// and the comments after its moves, "book" after the book's last.
func (h *pgnHeader) record(g *gameRecord, opening string, plies int, tc func(TimeControl) string) (tags map[string]string, comments []string) {
	white, black := 0, 1
	if !g.spec.aWhite {
		white, black = 1, 0
	}
	tags = map[string]string{
		"Event":       h.event,
		"Site":        h.site,
		"Date":        h.date,
		"Round":       strconv.Itoa(g.spec.index + 1),
		"White":       h.names[white],
		"Black":       h.names[black],
		"Termination": g.termination,
		"Opening":     opening,
		"PlyCount":    strconv.Itoa(plies),
	}
	if h.tc[white] == h.tc[black] {
		tags["TimeControl"] = tc(h.tc[white])
	} else {
		tags["WhiteTimeControl"] = tc(h.tc[white])
		tags["BlackTimeControl"] = tc(h.tc[black])
	}
	comments = slices.Clone(g.comments)
	if g.bookPlies > 0 && g.bookPlies <= len(comments) {
		comments[g.bookPlies-1] = "book"
	}
	return tags, comments
}
