package pgn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxPawns bounds the score in pawns a move comment may give that is not a
// mate: beyond it a score in centipawns would read as a mate in the
// convention ±(32000 − plies) of the engine and of the datasets.
const MaxPawns = 300

// Eval is what a move comment says of the move, in the form cutechess-cli
// and fastchess write (bin/match too): "+0.35/12 0.51s", "-M6/20 0.2s",
// "book". Score and Mate are from the mover's side, before the move.
type Eval struct {
	// Book says the move came from the opening book ("book"); it has no
	// score.
	Book bool
	// Scored says the comment gives a score: CP, or Mate when Mate is
	// not 0, and Depth.
	Scored bool
	// CP is the score in centipawns (the comment's pawns times 100,
	// rounded) when Mate is 0.
	CP int
	// Mate is the distance to mate in plies, as both tools write it:
	// positive when the mover mates ("+M5", 5 plies), negative when it is
	// mated ("-M6"); 0 for a score in pawns.
	Mate int
	// Depth is the search depth after the score's '/'.
	Depth int
	// Time is the time the move took, when the comment gives one
	// ("0.51s"); 0 otherwise.
	Time time.Duration
	// Nodes is fastchess's "n=N" field, 0 when absent.
	Nodes int64
}

// ParseEval reads a move comment. Its first word, up to white space or a
// comma, is "book", or SCORE/DEPTH with SCORE a signed number of pawns
// ("+0.35", "-1.20", "0.00") or a mate in plies ("+M5", "-M6"), optionally
// followed by the time ("0.51s"); fastchess adds comma-separated fields
// ("n=12345", "sd=20", "pv=\"e2e4 e7e5\"", the termination), of which
// ParseEval reads the node count. Any other comment ("?/9 0.05s", an
// empty score "/12" or fastchess's "ERR/12", free text) has no score and
// no error. A score that has the form but cannot be one (a mate in 0
// plies, more than MaxPawns pawns, a depth that is not a number) is an
// error naming it.
func ParseEval(comment string) (Eval, error) {
	var e Eval
	head, rest, _ := strings.Cut(strings.TrimSpace(comment), ",")
	words := strings.Fields(head)
	if len(words) == 0 {
		return e, nil
	}
	if words[0] == "book" {
		e.Book = true
		return e, nil
	}
	score, depth, ok := strings.Cut(words[0], "/")
	if !ok || !looksLikeScore(score) {
		return e, nil
	}
	bad := func(why string) (Eval, error) {
		return Eval{}, fmt.Errorf("score %q: %s", words[0], why)
	}
	d, err := strconv.Atoi(depth)
	if err != nil || d < 0 {
		return bad("the depth after '/' is not a number")
	}
	e.Scored, e.Depth = true, d
	sign, body := 1, score
	switch body[0] {
	case '+':
		body = body[1:]
	case '-':
		sign, body = -1, body[1:]
	}
	if m, isMate := strings.CutPrefix(body, "M"); isMate {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 {
			return bad("a mate must be in 1 ply or more")
		}
		e.Mate = sign * n
	} else {
		x, err := strconv.ParseFloat(body, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return bad("not a number of pawns")
		}
		if x > MaxPawns {
			return bad(fmt.Sprintf("more than %d pawns", MaxPawns))
		}
		e.CP = sign * int(math.Round(x*100))
	}
	if len(words) > 1 {
		if t, ok := strings.CutSuffix(words[1], "s"); ok {
			if secs, err := strconv.ParseFloat(t, 64); err == nil && secs >= 0 && secs < 1e9 {
				e.Time = time.Duration(secs * float64(time.Second))
			}
		}
	}
	for f := range strings.SplitSeq(rest, ",") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(f), "n="); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 {
				e.Nodes = v
			}
		}
	}
	return e, nil
}

// looksLikeScore reports whether s has the form of a comment's score: a
// sign or none, then a digit or 'M'.
func looksLikeScore(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == 'M')
}
