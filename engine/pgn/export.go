package pgn

import (
	"io"
	"slices"
	"strconv"
	"strings"
)

// Record is a game laid out for PGN export format, whatever the game: Write
// makes one of a chess game, and the PDN of draughts, which shares PGN's
// layout, makes one of a draughts game (see chessforge/engine/dama/pdn).
type Record struct {
	// Tags holds the seven-tag roster and the other tags. The roster's
	// Result tag is always Result.
	Tags map[string]string
	// Setup are the tags written after the roster and before the others,
	// in order: those that say what is played from where (SetUp and FEN
	// for chess, GameType and FEN for draughts). Tags must not hold them.
	Setup []Tag
	// FirstMove is the number of the first move; BlackFirst says that
	// Black makes it.
	FirstMove  int
	BlackFirst bool
	// Moves are the moves in the game's notation (SAN for chess).
	Moves []string
	// Comments[i], when present and not empty, is written after move i.
	Comments []string
	// FinalComment, when not empty, is written before the result.
	FinalComment string
	// Result is the game termination marker, in the game's notation.
	Result string
}

// Tag is one tag pair.
type Tag struct{ Name, Value string }

// roster is the seven-tag roster, in the order PGN export format wants it.
var roster = [...]string{"Event", "Site", "Date", "Round", "White", "Black", "Result"}

// rosterDefault is written for a roster tag the game does not have.
var rosterDefault = map[string]string{"Date": "????.??.??"}

// WriteRecord writes r in PGN export format: the seven-tag roster ("?" for
// a missing tag, "????.??.??" for a missing date, the Result tag from
// r.Result), the Setup tags, the other tags in name order, a blank line,
// then the movetext wrapped at 79 columns: move numbers (N... when Black
// moves first or after a comment), the moves, comments, the result, and a
// blank line. Tag values and comments are escaped.
func WriteRecord(w io.Writer, r *Record) error {
	var b strings.Builder
	tag := func(k, v string) {
		v = strings.ReplaceAll(v, `\`, `\\`)
		v = strings.ReplaceAll(v, `"`, `\"`)
		b.WriteString("[" + k + ` "` + v + "\"]\n")
	}
	for _, k := range roster {
		v, ok := r.Tags[k]
		switch {
		case k == "Result":
			v = r.Result
		case !ok:
			v = rosterDefault[k]
			if v == "" {
				v = "?"
			}
		}
		tag(k, v)
	}
	for _, t := range r.Setup {
		tag(t.Name, t.Value)
	}
	var keys []string
	for k := range r.Tags {
		if !slices.Contains(roster[:], k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		tag(k, r.Tags[k])
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
	ply := 0 // from White's first move of move FirstMove
	if r.BlackFirst {
		ply = 1
	}
	afterComment := false
	for i, m := range r.Moves {
		number := strconv.Itoa(r.FirstMove + ply/2)
		switch {
		case ply%2 == 0:
			word(number + ".")
		case i == 0 || afterComment:
			word(number + "...")
		}
		word(m)
		ply++
		afterComment = i < len(r.Comments) && r.Comments[i] != ""
		if afterComment {
			comment(r.Comments[i])
		}
	}
	comment(r.FinalComment)
	word(r.Result)
	b.WriteString("\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}
